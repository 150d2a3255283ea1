/**
 * Classify: Stage 1 of the pipeline.
 *
 * Excludes items with negative token counts, splits the rest into pinned and scoreable items
 * (each in input order), and checks that the pinned items fit `maxTokens − outputReserve`.
 *
 * @since 0.2.0
 */
import { Effect } from "effect"
import type { ContextBudget } from "./ContextBudget.ts"
import type { ContextItem } from "./ContextItem.ts"
import { isSafeTotal } from "./internal/tokens.ts"
import { InvalidItemError } from "./InvalidItemError.ts"
import { PinnedBudgetError } from "./PinnedBudgetError.ts"
import { TokenTotalError } from "./TokenTotalError.ts"

/**
 * What Classify found.
 *
 * - `pinned` / `scoreable` — the valid items, each list in input order.
 * - `negative` — the items excluded for a negative token count, in input order.
 * - `pinnedTokens` — the tokens of the pinned items.
 * - `totalTokens` — the tokens of every candidate, negative counts included (the report's
 *   `totalTokensConsidered`).
 *
 * @since 0.2.0
 * @category models
 */
export interface Classified {
  readonly pinned: ReadonlyArray<ContextItem>
  readonly scoreable: ReadonlyArray<ContextItem>
  readonly negative: ReadonlyArray<ContextItem>
  readonly pinnedTokens: number
  readonly totalTokens: number
}

/**
 * Classifies the candidates. Runs in the span `cupel.stage.classify`.
 *
 * Fails with `PinnedBudgetError` when the pinned items need more than
 * `maxTokens − outputReserve`, with `TokenTotalError` when a token total leaves the safe
 * integers, and with `InvalidItemError` for a token count that is not an integer (which a
 * decoded `ContextItem` never has).
 *
 * @since 0.2.0
 * @category stages
 */
export const classify: (
  items: ReadonlyArray<ContextItem>,
  budget: ContextBudget
) => Effect.Effect<Classified, PinnedBudgetError | TokenTotalError | InvalidItemError> = Effect.fn(
  "cupel.stage.classify"
)(function*(items: ReadonlyArray<ContextItem>, budget: ContextBudget) {
  const pinned: Array<ContextItem> = []
  const scoreable: Array<ContextItem> = []
  const negative: Array<ContextItem> = []
  let pinnedTokens = 0
  let totalTokens = 0
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!
    const tokens = item.tokens
    if (!Number.isSafeInteger(tokens)) {
      return yield* new InvalidItemError({
        problem: "NonIntegerTokens",
        list: "candidates",
        index: i,
        content: item.content,
        tokens
      })
    }
    totalTokens += tokens
    if (!isSafeTotal(totalTokens)) return yield* new TokenTotalError({ what: "candidates", count: i + 1 })
    // The negative-token check comes first: a pinned item with negative tokens is excluded.
    if (tokens < 0) negative.push(item)
    else if (item.pinned) {
      pinned.push(item)
      pinnedTokens += tokens
      if (!isSafeTotal(pinnedTokens)) return yield* new TokenTotalError({ what: "pinned items", count: pinned.length })
    } else scoreable.push(item)
  }
  const availableTokens = budget.maxTokens - budget.outputReserve
  if (pinnedTokens > availableTokens) {
    return yield* new PinnedBudgetError({ pinnedTokens, availableTokens, pinnedCount: pinned.length })
  }
  yield* Effect.annotateCurrentSpan({
    "cupel.stage.name": "classify",
    "cupel.stage.item_count_in": items.length,
    "cupel.stage.item_count_out": pinned.length + scoreable.length,
    "cupel.exclusion.count": negative.length
  })
  return { pinned, scoreable, negative, pinnedTokens, totalTokens }
})
