/**
 * GreedySlice: fills the budget by value density (score per token), densest first
 * (spec `slicers/greedy.md`).
 *
 * Every item's density is `score / tokens`; a zero-token item's is the largest finite double,
 * so it sorts with the densest and is always taken. Items are visited in density-descending
 * order, equal densities in input order (the chapter's deterministic tie-break), and each is
 * taken when it fits what is left of `targetTokens`; one that does not fit is skipped, never
 * revisited. The selection is returned in that visiting order.
 *
 * The densities are sorted as 64-bit keys by the library's stable radix sort (a merge sort on
 * small inputs), not by a comparator: a million items take a few sequential passes over typed
 * arrays instead of twenty million calls back into JavaScript.
 *
 * @since 0.2.0
 */
import { Effect, type Layer } from "effect"
import { type Layout, sortKeys, toKeys } from "../internal/radix.ts"
import { readColumns } from "./internal/readColumns.ts"
import type { Scratch } from "../internal/scratch.ts"
import { orderByScoreDescending } from "../internal/sortByScore.ts"
import { withStageScratch } from "../internal/stageScratch.ts"
import { isSafeTotal } from "../internal/tokens.ts"
import { unsafeRemaining } from "./internal/unsafeRemaining.ts"
import type { ScoredItem } from "../ScoredItem.ts"
import * as Slicer from "./Slicer.ts"
import { SlicerError } from "./SlicerError.ts"

/**
 * The slicer's name, as it appears in spans, reports and errors.
 *
 * @since 0.2.0
 * @category constants
 */
export const name = "greedy"

/**
 * The density the chapter gives a zero-token item: the largest finite double.
 *
 * @since 0.2.0
 * @category constants
 */
export const zeroTokenDensity = Number.MAX_VALUE

/**
 * The indices of the items GreedySlice selects from `sorted`, in the order it selects them
 * (density descending, equal densities by index ascending), or a {@link SlicerError} when a
 * density is NaN (a NaN score on an item with tokens: it has no place in the order) or when
 * negative token counts carry the remaining budget beyond exact integers. With `columns` (the
 * entries' scores and tokens, see `Slicer.Columns`), the numbers are read from them.
 *
 * @since 0.2.0
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
  return withStageScratch((scratch) => {
    const densities = scratch.keys(n)
    // The fill reads tokens in density order, a random walk: a typed array of them is read far
    // faster than the item objects.
    let tokens: Float64Array
    let scores: Float64Array
    if (columns !== undefined && columns.scores.length === n && columns.tokens.length === n) {
      tokens = columns.tokens
      scores = columns.scores
    } else {
      // Without the pipeline's columns, read them; the densities then replace the scores.
      tokens = scratch.doubles(n)
      scores = densities
      readColumns(sorted, tokens, scores)
    }
    const nan = densitiesOf(scores, tokens, densities)
    if (nan >= 0) return nanScore(nan)
    return fill(densityOrder(densities, scratch), tokens, targetTokens)
  })
}

/**
 * The densities from the columns, written to `densities` (which may be `scores` itself: entry
 * `i` is read before it is written); returns the index of the first NaN density, or -1.
 */
const densitiesOf = (scores: Float64Array, tokens: Float64Array, densities: Float64Array): number => {
  const n = scores.length
  for (let i = 0; i < n; i++) {
    const d = density(scores[i]!, tokens[i]!)
    if (d !== d) return i
    densities[i] = d
  }
  return -1
}

/** The chapter's value density. */
const density = (score: number, tokens: number): number => tokens === 0 ? zeroTokenDensity : score / tokens

/**
 * The indices in density-descending order, ties by index ascending. Large inputs go straight
 * to the radix sort, which consumes `densities` in place (the shared `orderByScoreDescending`
 * would copy them first); small ones to the merge sort, whose fixed costs are lower.
 */
const densityOrder = (densities: Float64Array, scratch: Scratch): ArrayLike<number> => {
  const n = densities.length
  if (n < radixThreshold) return orderByScoreDescending(densities)
  return sortKeys(toKeys(densities, n, true), n, undefined, inOrder, scratch)
}

const radixThreshold = 1024
const inOrder: Layout = { uShape: false, inverse: false }

/**
 * The greedy pass: takes each item, in `order`, that fits what is left. The selection is a new
 * array: `order` may be a kept buffer, lent only for this call.
 */
const fill = (order: ArrayLike<number>, tokens: Float64Array, targetTokens: number): Uint32Array | SlicerError => {
  const n = order.length
  // The selection is compacted into the radix sort's order when it is a buffer of the sort's
  // own, each entry read before the slot is written (count <= k), then copied out.
  const selected = order instanceof Uint32Array ? order : new Uint32Array(n)
  let count = 0
  let remaining = targetTokens
  for (let k = 0; k < n; k++) {
    const i = order[k]!
    const t = tokens[i]!
    if (t === 0) {
      selected[count++] = i
    } else if (t <= remaining) {
      selected[count++] = i
      remaining -= t
      // Only a negative count (which Classify excludes before slicing) can raise what is left.
      if (t < 0 && !isSafeTotal(remaining)) return unsafeRemaining(name, i)
    }
  }
  return selected.slice(0, count)
}

const nanScore = (index: number): SlicerError =>
  new SlicerError({
    slicer: name,
    reason: `the score of item ${index} is NaN, so its density has no place in the order; scorers must return numbers`
  })


/**
 * GreedySlice as a slicer value.
 *
 * @example
 * ```ts
 * import { GreedySlice, Slicer } from "effect-cupel"
 *
 * const slicer: Slicer.Definition = GreedySlice.make()
 * ```
 *
 * @since 0.2.0
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
 * Provides GreedySlice as the pipeline's slicer.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer: Layer.Layer<Slicer.Slicer> = Slicer.layer(make())
