/**
 * Slice: Stage 5 of the pipeline.
 *
 * Computes the effective budget — what is left for scored items once the output reserve,
 * pinned items and reserved slots are taken off, less the estimation safety margin — and asks
 * the `Slicer` service which sorted items fit it.
 *
 * @since 0.2.0
 */
import { Effect } from "effect"
import type { ContextBudget } from "./ContextBudget.ts"
import { sumTokens } from "./internal/tokens.ts"
import type { ScoredItem } from "./ScoredItem.ts"
import * as Slicer from "./Slicer.ts"
import { TokenTotalError } from "./TokenTotalError.ts"

/**
 * The effective budget of the specification (`pipeline/slice.md`):
 *
 * ```text
 * effectiveMax    = max(0, maxTokens − outputReserve − pinnedTokens − reserved)
 * effectiveTarget = min(max(0, targetTokens − pinnedTokens − reserved), effectiveMax)
 * with a safety margin m > 0: both × (1 − m/100), floored; the target clamped again.
 * ```
 *
 * Fails with `TokenTotalError` only if the reserved slots add up past the safe integers.
 *
 * @since 0.2.0
 * @category budget
 */
export const effectiveBudget = (
  budget: ContextBudget,
  pinnedTokens: number
): Effect.Effect<Slicer.Budget, TokenTotalError> => {
  const reservedSum = sumTokens(Object.values(budget.reservedSlots), (tokens) => tokens)
  if (!reservedSum.ok) return Effect.fail(new TokenTotalError({ what: "reserved slots", count: reservedSum.count }))
  const reserved = reservedSum.total
  let maxTokens = Math.max(0, budget.maxTokens - budget.outputReserve - pinnedTokens - reserved)
  let targetTokens = Math.min(Math.max(0, budget.targetTokens - pinnedTokens - reserved), maxTokens)
  const margin = budget.estimationSafetyMarginPercent
  if (margin > 0) {
    const multiplier = 1.0 - margin / 100.0
    maxTokens = Math.floor(maxTokens * multiplier)
    targetTokens = Math.min(Math.floor(targetTokens * multiplier), maxTokens)
  }
  return Effect.succeed({ maxTokens, targetTokens })
}

/**
 * Slices the sorted items with the current slicer against `budget` (the effective budget),
 * passing `columns` (the items' scores and tokens as typed arrays, see `Slicer.Columns`) on to
 * it. Runs in the span `cupel.stage.slice`; `within`, when given, runs in that span too once the
 * slicer has answered (the pipeline's per-item trace events, `Verbosity`; since 0.3.0).
 *
 * @since 0.2.0
 * @category stages
 */
export const slice: (
  sorted: ReadonlyArray<ScoredItem>,
  budget: Slicer.Budget,
  columns?: Slicer.Columns | undefined,
  within?: ((selection: Slicer.Selection) => Effect.Effect<void>) | undefined
) => Effect.Effect<Slicer.Selection, Slicer.SliceError, Slicer.Slicer> = Effect.fn(
  "cupel.stage.slice"
)(function*(
  sorted: ReadonlyArray<ScoredItem>,
  budget: Slicer.Budget,
  columns?: Slicer.Columns | undefined,
  within?: ((selection: Slicer.Selection) => Effect.Effect<void>) | undefined
) {
  const slicer = yield* Slicer.Slicer
  const selection = yield* slicer.slice(sorted, budget, columns).pipe(
    // A failed slice is named and counted too; on success the span is annotated below, after
    // the work (an Effect step before it measurably slowed the run).
    Effect.tapCause(() =>
      Effect.annotateCurrentSpan({
        "cupel.stage.name": "slice",
        "cupel.stage.item_count_in": sorted.length,
        "cupel.slicer": slicer.name
      })
    )
  )
  yield* Effect.annotateCurrentSpan({
    "cupel.stage.name": "slice",
    "cupel.stage.item_count_in": sorted.length,
    "cupel.stage.item_count_out": selection.selected.length,
    "cupel.slicer": slicer.name,
    "cupel.slice.target_tokens": budget.targetTokens,
    "cupel.slice.max_tokens": budget.maxTokens
  })
  if (within !== undefined) yield* within(selection)
  return selection
})
