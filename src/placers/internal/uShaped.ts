/**
 * The U-shaped placement order, by two paths that give the same result.
 *
 * - The simple path ranks with a stable comparison sort ({@link rankByScore}) and deals the
 *   ranks out from both edges ({@link layOutU}).
 * - The fast path radix-sorts the scores' bit patterns ({@link uShapedOrderFast}) and writes
 *   each rank straight to its position in the same pass that sorts it.
 *
 * {@link uShapedOrder} and {@link placeUShaped} take the simple path below
 * {@link radixThreshold} items, where it is the faster of the two, and the fast path above.
 *
 * @internal
 */
import type { ContextItem } from "../../ContextItem.ts"
import type { ScoredItem } from "../../ScoredItem.ts"
import { finishKeys, HI, type Keys, keyHigh, keyLow, type Layout, LO, sortKeys } from "../../internal/radix.ts"
import { fresh, placeFromRefs, type Scratch } from "../../internal/scratch.ts"
import { sortIdsByKey } from "../../internal/stableSort.ts"

/**
 * From this many items up, the radix path is the faster (measured on the benchmark's inputs:
 * the two cross at about a thousand items, 27.6 against 27.0 ns per item at 1,024). The two
 * paths give the same order at every size.
 */
export const radixThreshold = 1024

/** Input indices sorted by score descending, ties by index ascending (the simple path). */
export const rankByScore = (items: ReadonlyArray<ScoredItem>): Array<number> => {
  const n = items.length
  const keys = new Array<number>(n)
  const ids = new Array<number>(n)
  for (let i = 0; i < n; i++) {
    // Negated, so that an ascending sort ranks the highest score first; -0 and +0 still tie.
    keys[i] = -items[i]!.score
    ids[i] = i
  }
  return sortIdsByKey(keys, ids)
}

/**
 * Fills `order` (`order[position] = input index`) from ranks: rank r goes to position r/2 when
 * r is even, and n-1-(r-1)/2 when r is odd.
 */
export const layOutU = <O extends Uint32Array | Array<number>>(ranked: ArrayLike<number>, order: O): O => {
  const n = ranked.length
  let left = 0
  let right = n - 1
  for (let r = 0; r < n; r++) {
    if ((r & 1) === 0) order[left++] = ranked[r]!
    else order[right--] = ranked[r]!
  }
  return order
}

/** The U-shaped order by the simple path. */
export const uShapedOrderSimple = (items: ReadonlyArray<ScoredItem>): Uint32Array =>
  layOutU(rankByScore(items), new Uint32Array(items.length))

/**
 * Radix-sorts the scores (descending) and returns the ids as `layout` says, in `out` if given,
 * else in a view over `scratch` that the caller reads before its next use of `scratch`. With
 * `refs`, also copies each item into `refs[index]` while the scores are read.
 */
const sortScores = (
  items: ReadonlyArray<ScoredItem>,
  layout: Layout,
  scratch: Scratch,
  refs: Array<ContextItem | undefined> | undefined,
  out: Uint32Array | undefined
): Uint32Array => {
  const n = items.length
  const keys = readScoresAsKeys(items, scratch.keys(n), refs)
  return sortKeys(keys, n, undefined, layout, scratch, out)
}

/**
 * Reads the scores and turns them into descending keys in the same loop (see
 * {@link finishKeys}); with `refs`, also copies each item into `refs[index]`. A function of its
 * own, so that V8 can optimise the loop alone while it runs (see radix.ts).
 *
 * One pass rather than a read and then {@link toKeys}: measured side by side on the
 * benchmark's inputs, the two are within 0.4 ns per item of each other up to 100,000 items,
 * and at a million the whole placement took 39–45 ns per item with one pass, 39–55 with two.
 */
export const readScoresAsKeys = (
  items: ReadonlyArray<ScoredItem>,
  values: Float64Array,
  refs: Array<ContextItem | undefined> | undefined
): Keys => {
  const n = items.length
  const words = new Uint32Array(values.buffer, values.byteOffset, 2 * n)
  if (n === 0) return finishKeys(words, 0, 0, 0, 0, true)
  values[0] = items[0]!.score
  const firstLo = keyLow(words[LO]!, words[HI]!, -1)
  const firstHi = keyHigh(words[LO]!, words[HI]!, -1)
  let variesLo = 0
  let variesHi = 0
  let least = values[0]
  let most = least
  for (let i = 0; i < n; i++) {
    const entry = items[i]!
    const score = entry.score
    if (refs !== undefined) refs[i] = entry.item
    values[i] = score
    if (score < least) least = score
    if (score > most) most = score
    const lo = words[2 * i + LO]!
    const hi = words[2 * i + HI]!
    const keyLo = keyLow(lo, hi, -1)
    const keyHi = keyHigh(lo, hi, -1)
    variesLo |= keyLo ^ firstLo
    variesHi |= keyHi ^ firstHi
    words[2 * i] = keyLo
    words[2 * i + 1] = keyHi
  }
  return finishKeys(words, variesLo, variesHi, least, most, true)
}

/** The U-shaped order by the fast path: `order[position] = input index`. */
export const uShapedOrderFast = (items: ReadonlyArray<ScoredItem>, scratch: Scratch = fresh): Uint32Array =>
  sortScores(items, { uShape: true, inverse: false }, scratch, undefined, new Uint32Array(items.length))

/**
 * The U-shaped order as the `Placer` service answers it: a plain array below the threshold,
 * which is cheaper to allocate than a typed array, and the radix path's `Uint32Array` above.
 * The order itself is always new: the caller keeps it.
 */
export const uShapedOrderAny = (items: ReadonlyArray<ScoredItem>, scratch: Scratch = fresh): ArrayLike<number> =>
  items.length < radixThreshold
    ? layOutU(rankByScore(items), new Array<number>(items.length))
    : uShapedOrderFast(items, scratch)

/** The U-shaped order: `order[position] = input index`. */
export const uShapedOrder = (items: ReadonlyArray<ScoredItem>, scratch: Scratch = fresh): Uint32Array =>
  items.length < radixThreshold ? uShapedOrderSimple(items) : uShapedOrderFast(items, scratch)

/** The items in U-shaped order: the same objects, in a new array. */
export const placeUShaped = (items: ReadonlyArray<ScoredItem>, scratch: Scratch = fresh): Array<ContextItem> => {
  const n = items.length
  if (n < radixThreshold) {
    const placed = new Array<ContextItem>(n)
    const ranked = rankByScore(items)
    let left = 0
    let right = n - 1
    for (let r = 0; r < n; r++) {
      const item = items[ranked[r]!]!.item
      if ((r & 1) === 0) placed[left++] = item
      else placed[right--] = item
    }
    return placed
  }
  // Large inputs: the items are copied out while their scores are read, then each is written
  // to its position. Gathering them in output order instead would jump between objects all
  // over the heap, a cache miss each once they outgrow the caches: that step alone measured
  // about 27 ns per item at a million items, against under 2 this way.
  const refs = scratch.refs(n)
  // The positions may live in the sort's scratch: they are read once, right away.
  const positions = sortScores(items, { uShape: true, inverse: true }, scratch, refs, undefined)
  return placeFromRefs(refs, positions, n, scratch)
}
