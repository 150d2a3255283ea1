/**
 * KnapsackSlice: the selection of greatest total score that fits the budget, by 0/1 knapsack
 * dynamic programming over discretised token counts (spec `slicers/knapsack.md`).
 *
 * Zero-token items are always taken and stay out of the table. Every other item with a
 * positive token count is a candidate: its weight is `ceil(tokens / bucketSize)`, its value
 * `max(0, floor(score * 10000))`, and the capacity is `floor(targetTokens / bucketSize)` —
 * ceiling for weights, floor for capacity, so that whatever fits the discretised problem fits
 * the real budget. The DP and the reconstruction are the chapter's, step for step, and select
 * exactly what its pseudocode selects; the result lists the zero-token items (input order),
 * then the chosen candidates in reconstruction order (last candidate first).
 *
 * The table is `candidates × (capacity + 1)` cells. The DP row is a typed array and the keep
 * table holds one bit per cell: {@link defaultMaxCells} cells are 32 MiB. A table beyond
 * `maxCells` fails with a {@link SlicerError} saying what to change.
 *
 * @since 0.2.0
 */
import { Effect, Layer } from "effect"
import { readColumns } from "./internal/readColumns.ts"
import { InvalidConfigError } from "../InvalidConfigError.ts"
import type { ScoredItem } from "../ScoredItem.ts"
import * as Slicer from "./Slicer.ts"
import { SlicerError } from "./SlicerError.ts"

/**
 * The slicer's name, as it appears in spans, reports and errors.
 *
 * @since 0.2.0
 * @category constants
 */
export const name = "knapsack"

/**
 * The chapter's default bucket size, in tokens.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultBucketSize = 100

/**
 * The default limit on the DP table, in cells (candidates × (capacity + 1)): 2^28. At one bit
 * per cell its keep table is 32 MiB, less than the 48 MiB that the Rust implementation's limit
 * of 5·10^7 one-byte cells allows, and the DP over it takes about half a second (measured
 * 1.75 ns per cell). 100,000 candidates at a 100,000-token target and bucket 100 are about
 * 10^8 cells: 12 MiB, under 0.2 s. The DP row adds 4 bytes per capacity step (8 when the
 * scaled scores add up to 2^31 or more).
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultMaxCells = 2 ** 28

/**
 * The largest `maxCells` accepted: 2^31 cells (a 256 MiB keep table). Capacities and weights
 * then stay below 2^31, so the DP runs in 32-bit integer arithmetic.
 *
 * @since 0.2.0
 * @category constants
 */
export const maxMaxCells = 2 ** 31

/** The chapter's score scale: four decimal digits of a score survive. */
const scoreScale = 10000

/**
 * Options of {@link make}.
 *
 * - `bucketSize` — tokens per discretisation step, a positive integer (default 100).
 * - `maxCells` — the largest DP table allowed, an integer from 1 to {@link maxMaxCells}
 *   (default {@link defaultMaxCells}).
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  readonly bucketSize?: number | undefined
  readonly maxCells?: number | undefined
}

/**
 * The settings of a validated KnapsackSlice.
 *
 * @since 0.2.0
 * @category models
 */
export interface Config {
  readonly bucketSize: number
  readonly maxCells: number
}

/**
 * Validates options into a {@link Config}.
 *
 * @since 0.2.0
 * @category constructors
 */
export const validate = (options: Options = {}): Effect.Effect<Config, InvalidConfigError> => {
  const bucketSize = options.bucketSize ?? defaultBucketSize
  const maxCells = options.maxCells ?? defaultMaxCells
  if (!Number.isSafeInteger(bucketSize) || bucketSize <= 0) {
    return Effect.fail(
      new InvalidConfigError({
        component: "KnapsackSlice",
        path: "bucketSize",
        rule: `must be a positive integer (got ${String(bucketSize)})`
      })
    )
  }
  if (!Number.isInteger(maxCells) || maxCells <= 0 || maxCells > maxMaxCells) {
    return Effect.fail(
      new InvalidConfigError({
        component: "KnapsackSlice",
        path: "maxCells",
        rule: `must be an integer from 1 to ${maxMaxCells} (got ${String(maxCells)})`
      })
    )
  }
  return Effect.succeed({ bucketSize, maxCells })
}

/**
 * The indices of the items KnapsackSlice selects from `sorted` under a validated `config`:
 * zero-token items in input order, then the chosen candidates in reconstruction order. Fails
 * with a {@link SlicerError} when the table would exceed `config.maxCells` cells or could not
 * be allocated, when a score is NaN, or when the candidates' scaled scores add up beyond exact
 * integers (scores far outside the conventional [0, 1]). With `columns` (the entries' scores
 * and tokens, see `Slicer.Columns`), the numbers are read from them.
 *
 * @since 0.2.0
 * @category slicing
 */
export const select = (
  sorted: ReadonlyArray<ScoredItem>,
  targetTokens: number,
  config: Config,
  columns?: Slicer.Columns | undefined
): Uint32Array | SlicerError => {
  const n = sorted.length
  // `!(t > 0)` also turns a NaN target away, where `t <= 0` would let it through.
  if (n === 0 || !(targetTokens > 0)) return new Uint32Array(0)
  const { bucketSize, maxCells } = config
  let tokens: Float64Array
  let scores: Float64Array
  if (columns !== undefined && columns.scores.length === n && columns.tokens.length === n) {
    // Read only, as the DP only reads them.
    tokens = columns.tokens
    scores = columns.scores
  } else {
    tokens = new Float64Array(n)
    scores = new Float64Array(n)
    readColumns(sorted, tokens, scores)
  }

  // Step 1: zero-token items are always taken; positive ones are candidates; negative ones
  // (which Classify excludes before slicing) are neither.
  const zeroTokens = new Uint32Array(n)
  let zeroCount = 0
  let candidateCount = 0
  for (let i = 0; i < n; i++) {
    const t = tokens[i]!
    if (t === 0) zeroTokens[zeroCount++] = i
    else if (t > 0) candidateCount++
  }
  if (candidateCount === 0) return zeroTokens.subarray(0, zeroCount)

  // Step 3 (capacity): floor division, exact for any target.
  const capacity = Number.isFinite(targetTokens) ? floorDiv(targetTokens, bucketSize) : Infinity
  if (capacity === 0) return zeroTokens.subarray(0, zeroCount)
  const cells = candidateCount * (capacity + 1)
  if (cells > maxCells) return tableTooLarge(candidateCount, capacity, cells, targetTokens, config)

  // Steps 2 and 3 (values, weights). A candidate heavier than the capacity, or of value 0,
  // never sets a keep bit: the chapter's loop over w is empty for the first, and for the second
  // `dp[w - dw] + 0 > dp[w]` never holds, because dp starts at zero everywhere and every update
  // keeps it non-decreasing in w. Only the other candidates ("rows") get a row of the table,
  // and the reconstruction skips the rest, whose keep bits are all false. Weights are at most
  // the capacity, below 2^31 (maxCells is at most 2^31).
  const rowItem = new Uint32Array(candidateCount)
  const rowWeight = new Int32Array(candidateCount)
  const rowValue = new Float64Array(candidateCount)
  let rows = 0
  let totalValue = 0
  for (let i = 0; i < n; i++) {
    const t = tokens[i]!
    if (!(t > 0)) continue
    const score = scores[i]!
    if (Number.isNaN(score)) return nanScore(i)
    const weight = ceilDiv(t, bucketSize)
    const value = Math.max(0, Math.floor(score * scoreScale))
    if (weight > capacity || value === 0) continue
    totalValue += value
    // Every sum the DP forms is at most the sum of all values: exact while that one is.
    if (!(totalValue <= Number.MAX_SAFE_INTEGER)) return valuesTooLarge()
    rowItem[rows] = i
    rowWeight[rows] = weight
    rowValue[rows] = value
    rows++
  }

  // Step 4: the DP. Row r of the keep table is `stride` words; bit w of the row is keep[r][w].
  const stride = (capacity >>> 5) + 1
  const narrow = totalValue <= 0x7fffffff
  let keep: Uint32Array
  let dp: Int32Array | Float64Array
  try {
    keep = new Uint32Array(rows * stride)
    dp = narrow ? new Int32Array(capacity + 1) : new Float64Array(capacity + 1)
  } catch (cause) {
    return allocationFailed(candidateCount, capacity, cause)
  }
  if (dp instanceof Int32Array) runInt32(dp, keep, stride, capacity, rowWeight, rowValue, rows)
  else runFloat64(dp, keep, stride, capacity, rowWeight, rowValue, rows)

  // Steps 5 and 6: zero-token items, then the reconstruction from the last candidate down.
  const selected = new Uint32Array(zeroCount + rows)
  selected.set(zeroTokens.subarray(0, zeroCount))
  let count = zeroCount
  let remaining = capacity
  for (let r = rows - 1; r >= 0; r--) {
    if ((keep[r * stride + (remaining >>> 5)]! >>> (remaining & 31)) & 1) {
      selected[count++] = rowItem[r]!
      remaining -= rowWeight[r]!
    }
  }
  return selected.subarray(0, count)
}

/**
 * The DP over an `Int32Array` row, used when every value the row can hold (at most the sum of
 * all values) fits 31 bits, as it does for scores in [0, 1] and up to 214,748 rows: integer
 * arithmetic and half the memory traffic of doubles (measured 170 against 260 ms for 10^8
 * cells).
 *
 * The bits of one 32-cell word are gathered in a register while w runs down through it and
 * stored once: the table starts zeroed, and each word is written at most once per row.
 */
const runInt32 = (
  dp: Int32Array,
  keep: Uint32Array,
  stride: number,
  capacity: number,
  weights: Int32Array,
  values: Float64Array,
  rows: number
): void => {
  for (let r = 0; r < rows; r++) {
    // `| 0` keeps the loop in 32-bit integers: weights and capacity are below 2^31, and so are
    // the values and every sum of them (the caller checked their total).
    const dw = weights[r]! | 0
    const dv = values[r]! | 0
    const base = r * stride
    let bits = 0
    for (let w = capacity | 0; w >= dw; w = (w - 1) | 0) {
      const withItem = (dp[w - dw]! + dv) | 0
      if (withItem > dp[w]!) {
        dp[w] = withItem
        bits |= 1 << (w & 31)
      }
      if ((w & 31) === 0) {
        keep[base + (w >>> 5)] = bits
        bits = 0
      }
    }
    if (bits !== 0) keep[base + (dw >>> 5)] = bits
  }
}

/** {@link runInt32} over a `Float64Array` row, for values whose total reaches 2^31. */
const runFloat64 = (
  dp: Float64Array,
  keep: Uint32Array,
  stride: number,
  capacity: number,
  weights: Int32Array,
  values: Float64Array,
  rows: number
): void => {
  for (let r = 0; r < rows; r++) {
    const dw = weights[r]! | 0
    const dv = values[r]!
    const base = r * stride
    let bits = 0
    for (let w = capacity | 0; w >= dw; w = (w - 1) | 0) {
      const withItem = dp[w - dw]! + dv
      if (withItem > dp[w]!) {
        dp[w] = withItem
        bits |= 1 << (w & 31)
      }
      if ((w & 31) === 0) {
        keep[base + (w >>> 5)] = bits
        bits = 0
      }
    }
    if (bits !== 0) keep[base + (dw >>> 5)] = bits
  }
}

/**
 * `floor(a / b)` for `a >= 0`, `b > 0`, exactly: `a / b` rounds, and a quotient just below an
 * integer can round up to it. The remainder is exact, and so is the division of the multiple
 * of `b` that is left.
 */
const floorDiv = (a: number, b: number): number => (a - (a % b)) / b

/** `ceil(a / b)` for `a > 0` (a safe integer), `b > 0`, exactly (see {@link floorDiv}). */
const ceilDiv = (a: number, b: number): number => {
  const r = a % b
  return (a - r) / b + (r === 0 ? 0 : 1)
}

const tableTooLarge = (
  candidates: number,
  capacity: number,
  cells: number,
  targetTokens: number,
  config: Config
): SlicerError => {
  const { bucketSize, maxCells } = config
  // The smallest bucket size, and the largest target, that bring the table within the limit.
  const maxCapacity = Math.floor(maxCells / candidates) - 1
  const targetAdvice = maxCapacity >= 1
    ? `, or a target below ${(maxCapacity + 1) * bucketSize} tokens`
    : ""
  const bucketAdvice = maxCapacity >= 1 && Number.isFinite(targetTokens)
    ? `a bucket size of at least ${Math.floor(targetTokens / (maxCapacity + 1)) + 1}`
    : "a larger bucket size"
  return new SlicerError({
    slicer: name,
    reason: `the DP table would have ${cells} cells (${candidates} candidates × ${String(capacity)} + 1 capacity ` +
      `steps at bucket size ${bucketSize}), more than maxCells = ${maxCells}; use ${bucketAdvice}${targetAdvice}, ` +
      `fewer candidates, or raise maxCells`
  })
}

const allocationFailed = (candidates: number, capacity: number, cause: unknown): SlicerError =>
  new SlicerError({
    slicer: name,
    reason: `the keep table for ${candidates} candidates × ${capacity + 1} capacity steps could not be allocated; ` +
      `use a larger bucket size or a smaller target, or lower maxCells`,
    cause
  })

const nanScore = (index: number): SlicerError =>
  new SlicerError({
    slicer: name,
    reason: `the score of item ${index} is NaN, which has no integer value; scorers must return numbers`
  })

const valuesTooLarge = (): SlicerError =>
  new SlicerError({
    slicer: name,
    reason: `the candidates' scaled scores (floor(score × ${scoreScale})) add up beyond 2^53, where the DP's sums ` +
      `are no longer exact; scores are expected in [0, 1]`
  })

/**
 * KnapsackSlice as a slicer value, or an {@link InvalidConfigError} when `bucketSize` is not
 * a positive integer or `maxCells` is not an integer from 1 to {@link maxMaxCells}.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { KnapsackSlice } from "effect-cupel"
 *
 * const slicer = KnapsackSlice.make({ bucketSize: 50 }) // Effect<Slicer.Definition, InvalidConfigError>
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<Slicer.Definition, InvalidConfigError> =>
  Effect.map(validate(options), fromConfig)

/**
 * KnapsackSlice as a slicer value, from an already validated {@link Config}.
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromConfig = (config: Config): Slicer.Definition => ({
  name,
  slice: (sorted, budget, columns) =>
    Effect.suspend(() => {
      const selected = select(sorted, budget.targetTokens, config, columns)
      return selected instanceof SlicerError ? Effect.fail(selected) : Effect.succeed({ selected })
    })
})

/**
 * Provides KnapsackSlice as the pipeline's slicer; building the layer fails with an
 * {@link InvalidConfigError} on invalid options.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<Slicer.Slicer, InvalidConfigError> =>
  Layer.effect(Slicer.Slicer, make(options))
