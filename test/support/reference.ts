/**
 * Literal transcriptions of the specification's placer pseudocode, used as models in property
 * tests: an array of (key, index) pairs sorted with a comparator.
 */
import type { ContextItem, ScoredItem } from "../../src/index.ts"

export const uShapedReference = (items: ReadonlyArray<ScoredItem.ScoredItem>): Array<ContextItem.ContextItem> => {
  if (items.length === 0) return []
  const pairs = items.map((s, index) => ({ score: s.score, index }))
  pairs.sort((a, b) => (a.score > b.score ? -1 : a.score < b.score ? 1 : a.index - b.index))
  const result = new Array<ContextItem.ContextItem>(items.length)
  let left = 0
  let right = items.length - 1
  pairs.forEach((p, rank) => {
    if (rank % 2 === 0) result[left++] = items[p.index]!.item
    else result[right--] = items[p.index]!.item
  })
  return result
}

export const chronologicalReference = (
  items: ReadonlyArray<ScoredItem.ScoredItem>
): Array<ContextItem.ContextItem> => {
  const pairs = items.map((s, index) => ({ ts: s.item.timestamp?.epochMilliseconds, index }))
  pairs.sort((a, b) => {
    if (a.ts !== undefined && b.ts !== undefined) return a.ts !== b.ts ? a.ts - b.ts : a.index - b.index
    if (a.ts !== undefined) return -1
    if (b.ts !== undefined) return 1
    return a.index - b.index
  })
  return pairs.map((p) => items[p.index]!.item)
}
