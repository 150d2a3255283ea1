/**
 * The sorted entries' numbers as columns (`Slicer.Columns`), read from the entries: what a
 * built-in slicer does when the pipeline did not hand it the columns (called on its own, or by
 * a quota slicer that wraps it).
 *
 * @internal
 */
import type { ScoredItem } from "../../ScoredItem.ts"

/**
 * Copies each item's tokens and score into typed arrays, four items at a time with every load
 * issued before any is used: the sorted list is in score order, not in the order its items were
 * allocated, so on large inputs each item is a cache miss or two away, and four overlap.
 */
export const readColumns = (sorted: ReadonlyArray<ScoredItem>, tokens: Float64Array, scores: Float64Array): void => {
  const n = sorted.length
  let i = 0
  for (; i + 4 <= n; i += 4) {
    const ea = sorted[i]!
    const eb = sorted[i + 1]!
    const ec = sorted[i + 2]!
    const ed = sorted[i + 3]!
    const ta = ea.item.tokens
    const tb = eb.item.tokens
    const tc = ec.item.tokens
    const td = ed.item.tokens
    scores[i] = ea.score
    scores[i + 1] = eb.score
    scores[i + 2] = ec.score
    scores[i + 3] = ed.score
    tokens[i] = ta
    tokens[i + 1] = tb
    tokens[i + 2] = tc
    tokens[i + 3] = td
  }
  for (; i < n; i++) {
    const scored = sorted[i]!
    tokens[i] = scored.item.tokens
    scores[i] = scored.score
  }
}
