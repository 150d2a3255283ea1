/**
 * A stable descending sort of scores, as an order of indices: the Sort stage's and the
 * selection report's sort.
 *
 * Small inputs go through the merge sort on plain arrays; large ones through the radix sort on
 * 64-bit keys that the placers use. Both are stable, so equal scores keep their input order:
 * the specification's composite key (score descending, index ascending).
 *
 * @internal
 */
import { sortKeys, toKeys } from "./radix.ts"
import { fresh, type Scratch } from "./scratch.ts"
import { sortIdsByKey } from "./stableSort.ts"

/** From this many scores up, the radix sort wins over the merge sort (as for the placers). */
const radixThreshold = 1024

/**
 * The indices `0 … n-1` ordered by `scores[i]` descending, ties by index ascending. `scores`
 * is read only; NaN must not occur (the Score stage refuses it). With a kept `scratch`, the
 * order of a large input is one of its buffers, to be read before the scratch is lent again.
 */
export const orderByScoreDescending = (scores: ArrayLike<number>, scratch: Scratch = fresh): ArrayLike<number> => {
  const n = scores.length
  if (n < radixThreshold) {
    const keys = new Array<number>(n)
    const ids = new Array<number>(n)
    // Negated, so that an ascending sort is a descending one; -0 and +0 still tie.
    for (let i = 0; i < n; i++) {
      keys[i] = -scores[i]!
      ids[i] = i
    }
    return sortIdsByKey(keys, ids)
  }
  const values = scratch.keys(n)
  values.set(scores)
  return sortKeys(toKeys(values, n, true), n, undefined, { uShape: false, inverse: false }, scratch)
}
