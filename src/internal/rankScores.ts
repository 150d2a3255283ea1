/**
 * Rank scores for the rank-based scorers (recency, priority), computed from the whole list once.
 *
 * Their chapters score an item by counting, over the whole list, the keyed items whose key is
 * strictly smaller than its own: O(n) per item, O(n²) per list. That count is the item's
 * position in the sorted keys when it is searched for with a strict `<` (a lower bound), so one
 * native sort and one binary search per item give the same integers, and the same quotient
 * `rank / (count - 1)`, in O(n log n).
 *
 * @internal
 */

/**
 * Scores `keys[i]` (NaN where the item has no key) by rank among the keyed items: 0 for items
 * without a key, 1 when at most one item has a key, otherwise `rank / (count - 1)` where `rank`
 * counts the keys strictly smaller. Keys are compared with `<` only, so `-0` and `+0` tie, as
 * they do in the chapters' comparisons.
 */
export const rankScores = (keys: Float64Array): Float64Array => {
  const n = keys.length
  let count = 0
  for (let i = 0; i < n; i++) if (keys[i] === keys[i]) count++
  const scores = new Float64Array(n)
  if (count === 0) return scores
  if (count === 1) {
    for (let i = 0; i < n; i++) if (keys[i] === keys[i]) scores[i] = 1
    return scores
  }
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
  return scores
}
