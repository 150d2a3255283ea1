/**
 * Rank scores for the rank-based scorers (recency, priority), computed from the whole list once.
 *
 * Their chapters score an item by counting, over the whole list, the keyed items whose key is
 * strictly smaller than its own: O(n) per item, O(n²) per list. That count is the item's
 * position in the sorted keys when it is searched for with a strict `<` (a lower bound), so the
 * same integers, and the same quotient `rank / (count - 1)`, come from any stable order of the
 * keys:
 *
 * - keys already in ascending order (a conversation's timestamps): one pass, each run of equal
 *   keys at the position of its first;
 * - small lists: one native sort of the keys and a binary search per item;
 * - whole-number keys in a range no wider than a few times the list (priorities): a count per
 *   value and a prefix sum, two linear passes;
 * - other large lists (timestamps): the library's radix sort of the keyed items' indices, then
 *   one pass in that order, where each run of equal keys gets the position of its first.
 *
 * @internal
 */
import type { ContextItem } from "../../ContextItem.ts"
import { type Layout, sortKeys, sortWholeNumbers, toKeys } from "../../internal/radix.ts"
import type { Scratch } from "../../internal/scratch.ts"
import { withStageScratch } from "../../internal/stageScratch.ts"

/** From this many keyed items up, the linear paths win over sort and binary search. */
const linearThreshold = 1024

const inOrder: Layout = { uShape: false, inverse: false }

/**
 * A rank scorer's scores, written to `out`: each item's key is `keyOf(item)`, NaN for an item
 * without one (timestamps and priorities are never NaN). The keys and the sort's buffers are
 * the stages' kept ones.
 */
export const writeRankScores = (
  items: ReadonlyArray<ContextItem>,
  out: Float64Array,
  keyOf: (item: ContextItem) => number
): void =>
  withStageScratch((scratch) => {
    const n = items.length
    const keys = scratch.doubles(n)
    for (let i = 0; i < n; i++) keys[i] = keyOf(items[i]!)
    rankScoresInto(keys, out, scratch)
  })

/**
 * Scores `keys[i]` (NaN where the item has no key) by rank among the keyed items: 0 for items
 * without a key, 1 when at most one item has a key, otherwise `rank / (count - 1)` where `rank`
 * counts the keys strictly smaller. Keys are compared with `<` only, so `-0` and `+0` tie, as
 * they do in the chapters' comparisons. Every entry of `scores` (as long as `keys`) is written.
 * `keys` is read only, and neither array may be one of `scratch`'s `keys`, `ids`, `moreIds`,
 * `pairs` or `positions` buffers, which the sort uses.
 */
export const rankScoresInto = (keys: Float64Array, scores: Float64Array, scratch: Scratch): void => {
  const n = keys.length
  let count = 0
  let least = Infinity
  let most = -Infinity
  let whole = true
  // Whether the keyed items come in ascending key order already (a conversation's timestamps do).
  let ascending = true
  let previous = -Infinity
  for (let i = 0; i < n; i++) {
    const key = keys[i]!
    if (key !== key) continue
    count++
    if (key < least) least = key
    if (key > most) most = key
    whole = whole && Math.floor(key) === key
    if (key < previous) ascending = false
    previous = key
  }
  // Items without a key score 0, and the paths below write only the keyed ones.
  if (count < n) scores.fill(0)
  if (count === 0) return
  if (count === 1) {
    for (let i = 0; i < n; i++) if (keys[i] === keys[i]) scores[i] = 1
    return
  }
  if (ascending) {
    byAscending(keys, count, scores)
    return
  }
  if (count < linearThreshold) {
    bySearch(keys, count, scores)
    return
  }
  // Whole numbers within ±2^53 subtract exactly; a span of at most 4 counts per keyed item
  // keeps the counts (4 bytes each) within the size of the scores.
  if (whole && most - least <= 4 * count && least >= -Number.MAX_SAFE_INTEGER && most <= Number.MAX_SAFE_INTEGER) {
    byCounting(keys, count, least, most - least, scores)
    return
  }
  byOrder(keys, count, whole, scores, scratch)
}

/**
 * Keyed keys already in ascending order (`<` never holds of a key and the one before it): the
 * keys strictly smaller than a key are the keyed items before the first with that key, so one
 * pass gives the ranks {@link bySearch} finds, divided alike. `-0` and `+0` tie (`!==`), as
 * under `<`.
 */
const byAscending = (keys: Float64Array, count: number, scores: Float64Array): void => {
  const n = keys.length
  const denominator = count - 1
  let previous = NaN
  let position = 0
  let rank = 0
  for (let i = 0; i < n; i++) {
    const key = keys[i]!
    if (key !== key) continue
    if (key !== previous) {
      rank = position
      previous = key
    }
    scores[i] = rank / denominator
    position++
  }
}

/** A native sort of the keyed keys and a lower-bound search for each. */
const bySearch = (keys: Float64Array, count: number, scores: Float64Array): void => {
  const n = keys.length
  const sorted = new Float64Array(count)
  let k = 0
  for (let i = 0; i < n; i++) {
    const key = keys[i]!
    if (key === key) sorted[k++] = key
  }
  // The native numeric sort, without a comparator: no call back into JavaScript per comparison.
  sorted.sort()
  const denominator = count - 1
  for (let i = 0; i < n; i++) {
    const key = keys[i]!
    if (key !== key) continue
    let lo = 0
    let hi = count
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (sorted[mid]! < key) lo = mid + 1
      else hi = mid
    }
    scores[i] = lo / denominator
  }
}

/**
 * Whole-number keys in `[least, least + span]`: `below[v]` counts the keyed items whose key is
 * smaller than `least + v` once the counts are summed, which is the rank of every item with
 * that key.
 */
const byCounting = (
  keys: Float64Array,
  count: number,
  least: number,
  span: number,
  scores: Float64Array
): void => {
  const n = keys.length
  const below = new Uint32Array(span + 1)
  for (let i = 0; i < n; i++) {
    const key = keys[i]!
    if (key !== key) continue
    const v = key - least
    below[v] = below[v]! + 1
  }
  let sum = 0
  for (let v = 0; v <= span; v++) {
    const c = below[v]!
    below[v] = sum
    sum += c
  }
  const denominator = count - 1
  for (let i = 0; i < n; i++) {
    const key = keys[i]!
    if (key === key) scores[i] = below[key - least]! / denominator
  }
}

/**
 * The keyed items' indices in ascending key order (a stable radix sort), then one pass: an item
 * whose key equals the previous one's shares its rank, any other gets its position.
 */
const byOrder = (
  keys: Float64Array,
  count: number,
  whole: boolean,
  scores: Float64Array,
  scratch: Scratch
): void => {
  const n = keys.length
  // The sorts consume their values: the keyed keys, copied, with their indices when some items
  // have no key (without ids, an entry's id is its position).
  const values = scratch.keys(count)
  let ids: Uint32Array | undefined
  if (count === n) values.set(keys)
  else {
    ids = scratch.ids(count)
    let k = 0
    for (let i = 0; i < n; i++) {
      const key = keys[i]!
      if (key !== key) continue
      values[k] = key
      ids[k++] = i
    }
  }
  const out = scratch.positions(count)
  const order = (whole ? sortWholeNumbers(values, count, ids, inOrder, scratch, out) : undefined) ??
    sortKeys(toKeys(values, count, false), count, ids, inOrder, scratch, out)
  assignRanks(keys, order, count, scores)
}

const assignRanks = (keys: Float64Array, order: Uint32Array, count: number, scores: Float64Array): void => {
  const denominator = count - 1
  let previous = keys[order[0]!]!
  let rank = 0
  for (let r = 0; r < count; r++) {
    const id = order[r]!
    const key = keys[id]!
    // `!==` treats -0 and +0 as equal, as `<` does.
    if (key !== previous) {
      rank = r
      previous = key
    }
    scores[id] = rank / denominator
  }
}
