/**
 * The chronological placement order, by two paths that give the same result.
 *
 * Items with a timestamp come first, ascending by instant (epoch milliseconds), ties by input
 * index; then items without a timestamp, in input order. Scores play no part.
 *
 * - The simple path sorts the timestamped items with a stable comparison sort.
 * - The fast path radix-sorts the timestamps' bit patterns ({@link chronologicalOrderFast}).
 *
 * {@link chronologicalOrder} and {@link placeChronological} take the simple path below
 * {@link radixThreshold} items and the fast path above.
 *
 * @internal
 */
import type { ContextItem } from "../../ContextItem.ts"
import type { ScoredItem } from "../../ScoredItem.ts"
import { sortKeys, sortWholeNumbers, toKeys } from "../../internal/radix.ts"
import { fresh, placeFromRefs, type Scratch } from "../../internal/scratch.ts"
import { sortIdsByKey } from "../../internal/stableSort.ts"

/**
 * From this many items up, the radix path is the faster (measured on the benchmark's inputs:
 * the two cross between 768 and 1,024 items). The two paths give the same order at every size.
 */
export const radixThreshold = 1024

/** Input indices in chronological order (the simple path). */
export const rankByTime = (items: ReadonlyArray<ScoredItem>): Array<number> => {
  const n = items.length
  const times: Array<number> = []
  const timed: Array<number> = []
  const untimed: Array<number> = []
  for (let i = 0; i < n; i++) {
    const ts = items[i]!.item.timestamp
    if (ts === undefined) {
      untimed.push(i)
    } else {
      times.push(ts.epochMilliseconds)
      timed.push(i)
    }
  }
  const ranked = sortIdsByKey(times, timed)
  for (let u = 0; u < untimed.length; u++) ranked.push(untimed[u]!)
  return ranked
}

/** The chronological order by the simple path: `order[position] = input index`. */
export const chronologicalOrderSimple = (items: ReadonlyArray<ScoredItem>): Uint32Array =>
  Uint32Array.from(rankByTime(items))

/**
 * Radix-sorts the timestamps (ascending; untimed items last, in input order) and returns the
 * order, or with `inverse` the position of each input index, in `out`. With `refs`, also
 * copies each item into `refs[index]` while the timestamps are read.
 */
const sortTimes = (
  items: ReadonlyArray<ScoredItem>,
  inverse: boolean,
  scratch: Scratch,
  refs: Array<ContextItem | undefined> | undefined,
  out: Uint32Array
): Uint32Array => {
  const n = items.length
  const values = scratch.keys(n)
  // Timestamped indices fill `ids` from the front, the others from the back.
  const ids = scratch.ids(n)
  const timed = readTimes(items, values, ids, refs)
  // The sort consumes only the first `timed` entries of `ids`. Timestamps are whole milliseconds
  // from DateTime, and sort as numbers when they span less than 2^32 ms (49 days); otherwise as keys.
  const layout = { uShape: false, inverse }
  if (sortWholeNumbers(values, timed, ids, layout, scratch, out) === undefined) {
    sortKeys(toKeys(values, timed, false), timed, ids, layout, scratch, out)
  }
  appendUntimed(out, ids, timed, inverse)
  return out
}

/**
 * Reads the timestamps into the front of `values` and their indices into the front of `ids`,
 * the indices of untimed items into the back of `ids` (last first), in one pass; returns how
 * many are timed. A function of its own, so that V8 can optimise the loop alone while it runs
 * (see radix.ts).
 */
export const readTimes = (
  items: ReadonlyArray<ScoredItem>,
  values: Float64Array,
  ids: Uint32Array,
  refs: Array<ContextItem | undefined> | undefined
): number => {
  const n = items.length
  let timed = 0
  let untimed = n
  let i = 0
  // Four items at a time, every load issued before any result is used: on inputs larger than
  // the caches each timestamp is four dependent cache misses away (item, context item, date,
  // boxed number), and overlapping four items' chains read about a fifth faster (measured at a
  // million items). The results are still taken in input order.
  for (; i + 4 <= n; i += 4) {
    const a = items[i]!.item
    const b = items[i + 1]!.item
    const c = items[i + 2]!.item
    const d = items[i + 3]!.item
    const ta = a.timestamp
    const tb = b.timestamp
    const tc = c.timestamp
    const td = d.timestamp
    const ma = ta === undefined ? 0 : ta.epochMilliseconds
    const mb = tb === undefined ? 0 : tb.epochMilliseconds
    const mc = tc === undefined ? 0 : tc.epochMilliseconds
    const md = td === undefined ? 0 : td.epochMilliseconds
    if (refs !== undefined) {
      refs[i] = a
      refs[i + 1] = b
      refs[i + 2] = c
      refs[i + 3] = d
    }
    if (ta === undefined) ids[--untimed] = i
    else {
      values[timed] = ma
      ids[timed++] = i
    }
    if (tb === undefined) ids[--untimed] = i + 1
    else {
      values[timed] = mb
      ids[timed++] = i + 1
    }
    if (tc === undefined) ids[--untimed] = i + 2
    else {
      values[timed] = mc
      ids[timed++] = i + 2
    }
    if (td === undefined) ids[--untimed] = i + 3
    else {
      values[timed] = md
      ids[timed++] = i + 3
    }
  }
  for (; i < n; i++) {
    const item = items[i]!.item
    if (refs !== undefined) refs[i] = item
    const ts = item.timestamp
    if (ts === undefined) {
      ids[--untimed] = i
    } else {
      values[timed] = ts.epochMilliseconds
      ids[timed++] = i
    }
  }
  return timed
}

/** Places the untimed items after the `timed` ones, in input order (`ids` holds them reversed). */
const appendUntimed = (out: Uint32Array, ids: Uint32Array, timed: number, inverse: boolean): void => {
  const n = ids.length
  if (inverse) for (let k = timed; k < n; k++) out[ids[n - 1 - (k - timed)]!] = k
  else for (let k = timed; k < n; k++) out[k] = ids[n - 1 - (k - timed)]!
}

/** The chronological order by the fast path: `order[position] = input index`. */
export const chronologicalOrderFast = (items: ReadonlyArray<ScoredItem>, scratch: Scratch = fresh): Uint32Array =>
  sortTimes(items, false, scratch, undefined, new Uint32Array(items.length))

/**
 * The chronological order as the `Placer` service answers it: a plain array below the
 * threshold, which is cheaper to allocate than a typed array, and a `Uint32Array` above.
 * The order itself is always new: the caller keeps it.
 */
export const chronologicalOrderAny = (items: ReadonlyArray<ScoredItem>, scratch: Scratch = fresh): ArrayLike<number> =>
  items.length < radixThreshold ? rankByTime(items) : chronologicalOrderFast(items, scratch)

/** The chronological order: `order[position] = input index`. */
export const chronologicalOrder = (items: ReadonlyArray<ScoredItem>, scratch: Scratch = fresh): Uint32Array =>
  items.length < radixThreshold ? chronologicalOrderSimple(items) : chronologicalOrderFast(items, scratch)

/** The items in chronological order: the same objects, in a new array. */
export const placeChronological = (
  items: ReadonlyArray<ScoredItem>,
  scratch: Scratch = fresh
): Array<ContextItem> => {
  const n = items.length
  if (n < radixThreshold) {
    const placed = new Array<ContextItem>(n)
    const ranked = rankByTime(items)
    for (let k = 0; k < n; k++) placed[k] = items[ranked[k]!]!.item
    return placed
  }
  // Items copied out while the timestamps are read, then scattered: see placeUShaped.
  const refs = scratch.refs(n)
  const positions = sortTimes(items, true, scratch, refs, scratch.positions(n))
  return placeFromRefs(refs, positions, n, scratch)
}
