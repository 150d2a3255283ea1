/**
 * The U-shaped placement order.
 *
 * @internal
 */
import type { ScoredItem } from "../ScoredItem.ts"

/**
 * Ranks items by score descending, ties by input index ascending, and lays the ranks out from
 * both edges: even ranks fill from the left, odd ranks from the right.
 * Returns `order` with `order[position] = input index`.
 */
export const uShapedOrder = (items: ReadonlyArray<ScoredItem>): Uint32Array => {
  const n = items.length
  const ranked = rankByScore(items)
  return layOutU(ranked, n)
}

/** Input indices sorted by score descending, ties by index ascending (the simple path). */
export const rankByScore = (items: ReadonlyArray<ScoredItem>): Uint32Array => {
  const n = items.length
  const scores = new Float64Array(n)
  const ranked = new Uint32Array(n)
  for (let i = 0; i < n; i++) {
    scores[i] = items[i]!.score
    ranked[i] = i
  }
  // TypedArray sort with a comparator; the explicit index tie-break makes it stable whatever
  // the engine's algorithm.
  ranked.sort((a, b) => scores[b]! - scores[a]! || a - b)
  return ranked
}

/** Rank r goes to position r/2 when r is even, and n-1-(r-1)/2 when r is odd. */
export const layOutU = (ranked: Uint32Array, n: number): Uint32Array => {
  const order = new Uint32Array(n)
  let left = 0
  let right = n - 1
  for (let r = 0; r < n; r++) {
    if ((r & 1) === 0) order[left++] = ranked[r]!
    else order[right--] = ranked[r]!
  }
  return order
}
