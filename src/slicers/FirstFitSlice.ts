/**
 * FirstFitSlice: fills the budget in score order, highest first, taking each item that still
 * fits (not in the specification; see docs/design.md).
 *
 * The pipeline hands a slicer its items sorted by score, highest first, ties in input order.
 * FirstFitSlice walks that order once and takes every item whose tokens fit what is left of
 * `targetTokens` (a zero-token item always fits); an item that does not fit is skipped, and the
 * walk goes on with the next. With a recency scorer this is the selection a conversation wants:
 * the newest messages as one contiguous stretch, then — only if room is left — older ones that
 * fit. `GreedySlice` visits items by score *per token* instead, so a long newest message loses
 * to short old ones.
 *
 * The selection is returned in the walking order (score descending).
 *
 * @since 0.3.0
 */
import { Effect, type Layer } from "effect"
import { readColumns } from "./internal/readColumns.ts"
import { isSafeTotal } from "../internal/tokens.ts"
import { unsafeRemaining } from "./internal/unsafeRemaining.ts"
import type { ScoredItem } from "../ScoredItem.ts"
import * as Slicer from "./Slicer.ts"
import { SlicerError } from "./SlicerError.ts"

/**
 * The slicer's name, as it appears in spans, reports and errors.
 *
 * @since 0.3.0
 * @category constants
 */
export const name = "first_fit"

/**
 * The indices of the items FirstFitSlice selects from `sorted`, in the order it selects them
 * (ascending: `sorted` is in score order), or a {@link SlicerError} when negative token counts
 * carry the remaining budget beyond exact integers. With `columns` (see `Slicer.Columns`), the
 * tokens are read from them.
 *
 * @since 0.3.0
 * @category slicing
 */
export const select = (
  sorted: ReadonlyArray<ScoredItem>,
  targetTokens: number,
  columns?: Slicer.Columns | undefined
): Uint32Array | SlicerError => {
  const n = sorted.length
  // `!(t > 0)` also turns a NaN target away, where `t <= 0` would let it through.
  if (n === 0 || !(targetTokens > 0)) return new Uint32Array(0)
  let tokens: Float64Array
  if (columns !== undefined && columns.tokens.length === n) tokens = columns.tokens
  else {
    tokens = new Float64Array(n)
    readColumns(sorted, tokens, new Float64Array(n))
  }
  const selected = new Uint32Array(n)
  let count = 0
  let remaining = targetTokens
  for (let i = 0; i < n; i++) {
    const t = tokens[i]!
    if (t === 0) selected[count++] = i
    else if (t <= remaining) {
      selected[count++] = i
      remaining -= t
      // Only a negative count (which Classify excludes before slicing) can raise what is left.
      if (t < 0 && !isSafeTotal(remaining)) return unsafeRemaining(name, i)
    }
  }
  return selected.slice(0, count)
}


/**
 * FirstFitSlice as a slicer value.
 *
 * @example
 * ```ts
 * import { FirstFitSlice, RecencyScorer, Scorer, Slicer } from "effect-cupel"
 *
 * // Newest first, each message that still fits.
 * const scorer = Scorer.layer(RecencyScorer.make())
 * const slicer = Slicer.layer(FirstFitSlice.make())
 * ```
 *
 * @since 0.3.0
 * @category constructors
 */
export const make = (): Slicer.Definition => ({
  name,
  slice: (sorted, budget, columns) =>
    Effect.suspend(() => {
      const selected = select(sorted, budget.targetTokens, columns)
      return selected instanceof SlicerError ? Effect.fail(selected) : Effect.succeed({ selected })
    })
})

/**
 * Provides FirstFitSlice as the pipeline's slicer.
 *
 * @since 0.3.0
 * @category layers
 */
export const layer: Layer.Layer<Slicer.Slicer> = Slicer.layer(make())
