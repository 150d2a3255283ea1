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
import type { ContextBudget } from "../ContextBudget.ts"
import * as HotSpans from "../internal/hotSpans.ts"
import { annotateSliceIn, runSlicer } from "../internal/runSlicer.ts"
import { sumTokens } from "../internal/tokens.ts"
import type { ScoredItem } from "../ScoredItem.ts"
import type * as Slicer from "../slicers/Slicer.ts"
import { TokenTotalError } from "../TokenTotalError.ts"

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
 * it. Runs in the span `cupel.stage.slice`, named and counted in before the slicer runs, so
 * that a failed slice's span says so too.
 *
 * @since 0.2.0
 * @category stages
 */
export const slice = (
  sorted: ReadonlyArray<ScoredItem>,
  budget: Slicer.Budget,
  columns?: Slicer.Columns | undefined
): Effect.Effect<Slicer.Selection, Slicer.SliceError, Slicer.Slicer> =>
  annotateSliceIn(sorted.length).pipe(
    Effect.andThen(runSlicer(sorted, budget, columns)),
    sliceSpan
  )

const sliceSpan = HotSpans.withSpan("cupel.stage.slice")
