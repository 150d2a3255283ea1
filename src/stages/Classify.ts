/**
 * Classify: Stage 1 of the pipeline.
 *
 * Excludes items with negative token counts, splits the rest into pinned and scoreable items
 * (each in input order), and checks that the pinned items fit `maxTokens − outputReserve`.
 *
 * @since 0.2.0
 */
import { Effect } from "effect"
import type { ContextBudget } from "../ContextBudget.ts"
import { ContextItem } from "../ContextItem.ts"
import * as HotSpans from "../internal/hotSpans.ts"
import { annotateExclusions } from "../internal/stageTrace.ts"
import { isSafeTotal } from "../internal/tokens.ts"
import { InvalidItemError } from "../InvalidItemError.ts"
import { PinnedBudgetError } from "../PinnedBudgetError.ts"
import { TokenTotalError } from "../TokenTotalError.ts"

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
) => Effect.Effect<Classified, PinnedBudgetError | TokenTotalError | InvalidItemError> = Effect.fnUntraced(function*(items: ReadonlyArray<ContextItem>, budget: ContextBudget) {
  // Named and counted before anything can fail, so that a failed run's span says which stage
  // failed and on how many items.
  yield* Effect.annotateCurrentSpan({ "cupel.stage.name": "classify", "cupel.stage.item_count_in": items.length })
  const scanned = scan(items)
  if (!scanned.ok) return yield* Effect.fail(scanned.error)
  const { pinnedTokens, totalTokens } = scanned
  const { negative, pinned, scoreable } = scanned.pinnedCount === 0 && scanned.negativeCount === 0
    // Nothing to set apart: the scoreable items are the candidates themselves (read only).
    ? { pinned: [], scoreable: items, negative: [] }
    : split(items, scanned.pinnedCount, scanned.negativeCount)
  const availableTokens = budget.maxTokens - budget.outputReserve
  if (pinnedTokens > availableTokens) {
    return yield* new PinnedBudgetError({ pinnedTokens, availableTokens, pinnedCount: pinned.length })
  }
  yield* Effect.annotateCurrentSpan("cupel.stage.item_count_out", pinned.length + scoreable.length)
  yield* annotateExclusions(negative.length, (emit) => {
    for (const item of negative) emit(item, { _tag: "NegativeTokens", tokens: item.tokens })
  })
  return { pinned, scoreable, negative, pinnedTokens, totalTokens }
}, HotSpans.withSpan("cupel.stage.classify"))

/** What the checking pass found: the totals and counts, or the first reason to refuse. */
type Scan =
  | {
    readonly ok: true
    readonly pinnedTokens: number
    readonly totalTokens: number
    readonly pinnedCount: number
    readonly negativeCount: number
  }
  | { readonly ok: false; readonly error: InvalidItemError | TokenTotalError }

/**
 * The checks and sums, in one pass and in the order the chapter's loop meets them, without
 * building any list. A plain function rather than part of the generator, where V8 keeps the
 * running sums boxed and optimises the loop less well.
 */
const scan = (items: ReadonlyArray<ContextItem>): Scan => {
  let pinnedTokens = 0
  let totalTokens = 0
  let pinnedCount = 0
  let negativeCount = 0
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!
    const tokens = item.tokens
    if (!Number.isSafeInteger(tokens)) {
      return {
        ok: false,
        error: new InvalidItemError({
          problem: "NonIntegerTokens",
          list: "candidates",
          index: i,
          content: item.content,
          tokens
        })
      }
    }
    totalTokens += tokens
    if (!isSafeTotal(totalTokens)) return { ok: false, error: new TokenTotalError({ what: "candidates", count: i + 1 }) }
    // The negative-token check comes first: a pinned item with negative tokens is excluded.
    if (tokens < 0) negativeCount++
    else if (item.pinned) {
      pinnedCount++
      pinnedTokens += tokens
      if (!isSafeTotal(pinnedTokens)) {
        return { ok: false, error: new TokenTotalError({ what: "pinned items", count: pinnedCount }) }
      }
    }
  }
  return { ok: true, pinnedTokens, totalTokens, pinnedCount, negativeCount }
}

/** The three lists, each in input order, sized by the checking pass. */
const split = (
  items: ReadonlyArray<ContextItem>,
  pinnedCount: number,
  negativeCount: number
): { pinned: Array<ContextItem>; scoreable: Array<ContextItem>; negative: Array<ContextItem> } => {
  const pinned = new Array<ContextItem>(pinnedCount)
  const negative = new Array<ContextItem>(negativeCount)
  const scoreable = new Array<ContextItem>(items.length - pinnedCount - negativeCount)
  let p = 0
  let g = 0
  let s = 0
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!
    if (item.tokens < 0) negative[g++] = item
    else if (item.pinned) pinned[p++] = item
    else scoreable[s++] = item
  }
  return { pinned, scoreable, negative }
}

/** What a value that is not a `ContextItem` is, for the error's `received`. */
const describe = (value: unknown): string => {
  if (value === null) return "null"
  if (Array.isArray(value)) return "an array"
  switch (typeof value) {
    case "object": {
      const proto: unknown = Object.getPrototypeOf(value)
      if (proto === Object.prototype || proto === null) return "a plain object"
      const name: unknown = typeof proto === "object" && proto !== null ? Reflect.get(proto, "constructor") : undefined
      const className = typeof name === "function" ? name.name : ""
      return className === "ContextItem"
        ? "a ContextItem of another copy of effect-cupel (is the package installed twice?)"
        : className === ""
        ? "an object of another class"
        : `an instance of ${className}`
    }
    case "undefined":
      return "undefined"
    default:
      return `a ${typeof value}`
  }
}

/** A field of a value that may be anything (a getter may throw: then it has none). */
const fieldOf = (value: unknown, key: string): unknown => {
  if (typeof value !== "object" || value === null) return undefined
  try {
    return Reflect.get(value, key)
  } catch {
    return undefined
  }
}

/**
 * The `InvalidItemError` (`NotAContextItem`, list `candidates`) for the candidate at `index`,
 * which is not a `ContextItem` instance: its content and tokens when it has them, and what it
 * is (`a plain object`, `null`…).
 *
 * The stages read an item's fields without checking them — `kind`, `tags`, `metadata`, `pinned`
 * are always there in an instance, which the schema built (`new ContextItem.ContextItem`,
 * `ContextItem.decodeMany`) — so a plain object from JavaScript would otherwise fail deep inside
 * a scorer with a `TypeError`. `Pipeline.run` tests `instanceof ContextItem` in the pass that
 * looks for groups, where it costs nothing measurable.
 *
 * @since 0.3.0
 * @category errors
 */
export const notAContextItem = (index: number, value: unknown): InvalidItemError => {
  const content = fieldOf(value, "content")
  const tokens = fieldOf(value, "tokens")
  return new InvalidItemError({
    problem: "NotAContextItem",
    list: "candidates",
    index,
    content: typeof content === "string" ? content : "",
    tokens: typeof tokens === "number" ? tokens : NaN,
    received: describe(value)
  })
}
