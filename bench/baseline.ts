/**
 * The baseline: direct transcriptions of the specification's pseudocode for the two placers
 * (spec/src/placers/u-shaped.md and chronological.md), as a straightforward implementation
 * would write them — an array of (key, index) pair objects sorted with a comparator.
 *
 * Kept in bench/ as the yardstick the library is measured against; never shipped.
 */
import type { ContextItem, ScoredItem } from "../src/index.ts"

/** U-SHAPED-PLACE. */
export const uShapedBaseline = (items: ReadonlyArray<ScoredItem.ScoredItem>): Array<ContextItem.ContextItem> => {
  if (items.length <= 1) return items.length === 0 ? [] : [items[0]!.item]
  // Step 1: sort by score descending, tiebreak by index ascending.
  const scored = new Array<{ readonly score: number; readonly index: number }>(items.length)
  for (let i = 0; i < items.length; i++) scored[i] = { score: items[i]!.score, index: i }
  scored.sort((a, b) => a.score > b.score ? -1 : a.score < b.score ? 1 : a.index - b.index)
  // Step 2: even ranks to the left edge, odd ranks to the right edge.
  const result = new Array<ContextItem.ContextItem>(items.length)
  let left = 0
  let right = items.length - 1
  for (let i = 0; i < scored.length; i++) {
    const item = items[scored[i]!.index]!.item
    if (i % 2 === 0) result[left++] = item
    else result[right--] = item
  }
  return result
}

/** CHRONOLOGICAL-PLACE, with CHRONOLOGICAL-COMPARE as the comparator. */
export const chronologicalBaseline = (
  items: ReadonlyArray<ScoredItem.ScoredItem>
): Array<ContextItem.ContextItem> => {
  if (items.length <= 1) return items.length === 0 ? [] : [items[0]!.item]
  const sortable = new Array<{ readonly timestamp: ContextItem.ContextItem["timestamp"]; readonly index: number }>(
    items.length
  )
  for (let i = 0; i < items.length; i++) sortable[i] = { timestamp: items[i]!.item.timestamp, index: i }
  sortable.sort((a, b) => {
    if (a.timestamp !== undefined && b.timestamp !== undefined) {
      // Compared as instants, never as text.
      const ta = a.timestamp.epochMilliseconds
      const tb = b.timestamp.epochMilliseconds
      if (ta !== tb) return ta < tb ? -1 : 1
      return a.index - b.index
    }
    if (a.timestamp !== undefined) return -1
    if (b.timestamp !== undefined) return 1
    return a.index - b.index
  })
  const result = new Array<ContextItem.ContextItem>(items.length)
  for (let i = 0; i < sortable.length; i++) result[i] = items[sortable[i]!.index]!.item
  return result
}
