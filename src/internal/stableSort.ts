/**
 * A stable comparison sort of ids by numeric keys, on plain arrays: the placers' path for small
 * inputs.
 *
 * Below a few thousand items the radix sort's fixed costs (typed-array allocations, digit
 * counts) dominate, and a merge sort whose comparisons are inline `<` on numbers beats both it
 * and `TypedArray.prototype.sort` with a comparator (whose every comparison is a call back into
 * JavaScript). Plain arrays are allocated in the JavaScript heap, far more cheaply than typed
 * arrays, whose memory lives outside it.
 *
 * @internal
 */

/** Runs this short are insertion-sorted before merging: fewer moves than merging them. */
const RUN = 8

/**
 * Sorts `ids` by `keys` ascending; ids with equal keys keep their order in `ids` (stable).
 * `keys[j]` is the key of `ids[j]`; NaN must not occur. Both arrays are consumed (reordered or
 * reused); the sorted ids are returned, in `ids` or in a new array.
 */
export const sortIdsByKey = (keys: Array<number>, ids: Array<number>): Array<number> => {
  const n = keys.length
  // Keys already in order, or in strictly reverse order (design item 141): an agent's placer
  // gets its window newest first (recency's order), every timestamp distinct. Ascending (equal
  // keys included) is the stable sort's answer as it stands; strictly descending has no ties,
  // so the order reversed is the only sorted one.
  let ascending = true
  let descending = true
  for (let i = 1; i < n && (ascending || descending); i++) {
    const a = keys[i - 1]!
    const b = keys[i]!
    if (b < a) ascending = false
    if (!(b < a)) descending = false
  }
  if (ascending) return ids
  if (descending) return ids.reverse()
  for (let start = 0; start < n; start += RUN) {
    const end = Math.min(n, start + RUN)
    for (let i = start + 1; i < end; i++) {
      const key = keys[i]!
      const id = ids[i]!
      let j = i
      // Strictly less: an equal key stops the shift, so ties keep their order.
      while (j > start && key < keys[j - 1]!) {
        keys[j] = keys[j - 1]!
        ids[j] = ids[j - 1]!
        j--
      }
      keys[j] = key
      ids[j] = id
    }
  }
  if (n <= RUN) return ids
  let srcKeys = keys
  let srcIds = ids
  let dstKeys = new Array<number>(n)
  let dstIds = new Array<number>(n)
  for (let width = RUN; width < n; width *= 2) {
    for (let start = 0; start < n; start += 2 * width) {
      const mid = Math.min(n, start + width)
      const end = Math.min(n, start + 2 * width)
      let a = start
      let b = mid
      let o = start
      while (a < mid && b < end) {
        // The right run's key wins only when strictly less: stability.
        if (srcKeys[b]! < srcKeys[a]!) {
          dstKeys[o] = srcKeys[b]!
          dstIds[o++] = srcIds[b++]!
        } else {
          dstKeys[o] = srcKeys[a]!
          dstIds[o++] = srcIds[a++]!
        }
      }
      while (a < mid) {
        dstKeys[o] = srcKeys[a]!
        dstIds[o++] = srcIds[a++]!
      }
      while (b < end) {
        dstKeys[o] = srcKeys[b]!
        dstIds[o++] = srcIds[b++]!
      }
    }
    const keysSwap = srcKeys
    srcKeys = dstKeys
    dstKeys = keysSwap
    const idsSwap = srcIds
    srcIds = dstIds
    dstIds = idsSwap
  }
  return srcIds
}
