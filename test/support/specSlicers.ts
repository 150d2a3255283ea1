/**
 * Literal transcriptions of the specification's slicer pseudocode (`slicers/greedy.md`,
 * `slicers/knapsack.md`), line for line, with no optimisation: plain arrays, a comparator sort,
 * a keep table of arrays of booleans. The property tests compare the library's slicers with
 * these. They return the selected items (the same objects), in the chapter's order.
 */
import type { ContextItem } from "../../src/ContextItem.ts"
import type { ScoredItem } from "../../src/ScoredItem.ts"

/** GREEDY-SLICE(scoredItems, budget). */
export const greedySlice = (
  scoredItems: ReadonlyArray<ScoredItem>,
  budget: { readonly targetTokens: number }
): Array<ContextItem> => {
  if (scoredItems.length === 0 || budget.targetTokens <= 0) return []

  // Step 1: Compute value densities
  const densities: Array<{ density: number; index: number }> = []
  for (let i = 0; i < scoredItems.length; i++) {
    const tokens = scoredItems[i]!.item.tokens
    if (tokens === 0) densities[i] = { density: Number.MAX_VALUE, index: i }
    else densities[i] = { density: scoredItems[i]!.score / tokens, index: i }
  }

  // Step 2: Sort by density descending, tiebreak by index ascending (Array.prototype.sort is stable)
  densities.sort((a, b) => {
    if (a.density > b.density) return -1
    if (a.density < b.density) return 1
    return a.index - b.index
  })

  // Step 3: Greedy fill
  let remaining = budget.targetTokens
  const selected: Array<ContextItem> = []
  for (let i = 0; i < densities.length; i++) {
    const originalIndex = densities[i]!.index
    const item = scoredItems[originalIndex]!.item
    const tokens = item.tokens
    if (tokens === 0) {
      selected.push(item)
    } else if (tokens <= remaining) {
      selected.push(item)
      remaining = remaining - tokens
    }
  }
  return selected
}

/** KNAPSACK-SLICE(scoredItems, budget, bucketSize). */
export const knapsackSlice = (
  scoredItems: ReadonlyArray<ScoredItem>,
  budget: { readonly targetTokens: number },
  bucketSize: number
): Array<ContextItem> => {
  if (scoredItems.length === 0 || budget.targetTokens <= 0) return []

  // Step 1: Pre-filter zero-token items (always included)
  const zeroTokenItems: Array<ContextItem> = []
  const candidates: Array<ScoredItem> = []
  for (let i = 0; i < scoredItems.length; i++) {
    if (scoredItems[i]!.item.tokens === 0) zeroTokenItems.push(scoredItems[i]!.item)
    else if (scoredItems[i]!.item.tokens > 0) candidates.push(scoredItems[i]!)
  }
  if (candidates.length === 0) return zeroTokenItems

  const n = candidates.length

  // Step 2: Build parallel arrays
  const weights: Array<number> = new Array(n)
  const values: Array<number> = new Array(n)
  const items: Array<ContextItem> = new Array(n)
  for (let i = 0; i < n; i++) {
    weights[i] = candidates[i]!.item.tokens
    values[i] = Math.max(0, Math.floor(candidates[i]!.score * 10000))
    items[i] = candidates[i]!.item
  }

  // Step 3: Discretize capacity and weights
  const capacity = Math.floor(budget.targetTokens / bucketSize)
  if (capacity === 0) return zeroTokenItems
  const discretizedWeights: Array<number> = new Array(n)
  for (let i = 0; i < n; i++) discretizedWeights[i] = Math.ceil(weights[i]! / bucketSize)

  // Step 4: DP with 1D value array + 2D keep table
  const dp: Array<number> = new Array(capacity + 1).fill(0)
  const keep: Array<Array<boolean>> = []
  for (let i = 0; i < n; i++) keep.push(new Array(capacity + 1).fill(false))
  for (let i = 0; i < n; i++) {
    const dw = discretizedWeights[i]!
    const dv = values[i]!
    for (let w = capacity; w >= dw; w--) {
      const withItem = dp[w - dw]! + dv
      if (withItem > dp[w]!) {
        dp[w] = withItem
        keep[i]![w] = true
      }
    }
  }

  // Step 5: Reconstruct solution
  const selected: Array<ContextItem> = []
  let remainingCapacity = capacity
  for (let i = n - 1; i >= 0; i--) {
    if (keep[i]![remainingCapacity]) {
      selected.push(items[i]!)
      remainingCapacity = remainingCapacity - discretizedWeights[i]!
    }
  }

  // Step 6: Combine zero-token items with selected items
  const result: Array<ContextItem> = []
  for (let i = 0; i < zeroTokenItems.length; i++) result.push(zeroTokenItems[i]!)
  for (let i = 0; i < selected.length; i++) result.push(selected[i]!)
  return result
}
