/**
 * The pipeline baseline: a literal transcription of the specification's pipeline chapters
 * (pipeline/classify.md … place.md), of the scorer and slicer chapters the bench configures
 * (recency, priority, kind, composite and greedy from test/support; knapsack here, with a
 * byte-per-cell variant for large checks) and of the selection report's rules
 * (diagnostics/selection-report.md), as a straightforward implementation would write them:
 * per-item scorers called with the whole list (O(n²) for recency and priority), arrays of
 * pair objects sorted with comparators, the knapsack's keep table as an array of boolean
 * arrays. The placers are `baseline.ts`'s transcriptions.
 *
 * Where the chapters leave a choice open, it makes the library's (docs/design.md): sliced items
 * reach Place in score-descending order, re-associated with their scores by reference identity;
 * an item the slicer left out is `BudgetExceeded` with the effective target less the sliced
 * tokens (no pinned items here, so never `PinnedOverride`).
 *
 * Kept in bench/ as the yardstick the library is measured against; never shipped.
 */
import type { ContextBudget, ContextItem, ExclusionReason, InclusionReason, ScoredItem } from "../src/index.ts"
import * as Spec from "../test/support/specScorers.ts"
import * as SpecSlicers from "../test/support/specSlicers.ts"
import { chronologicalBaseline, uShapedBaseline } from "./baseline.ts"

type Item = ContextItem.ContextItem

/** The chapters' scorer shape: `Score(item, allItems) -> float64`. */
export type SpecScorer = (item: Item, allItems: ReadonlyArray<Item>) => number

/** The chapters' slicer shape: `Slice(sorted, budget) -> list of ContextItem`. */
export type SpecSlicer = (
  sorted: ReadonlyArray<ScoredItem.ScoredItem>,
  budget: { readonly maxTokens: number; readonly targetTokens: number }
) => ReadonlyArray<Item>

/** The chapters' placer shape: `Place(merged) -> list of ContextItem`. */
export type SpecPlacer = (merged: ReadonlyArray<ScoredItem.ScoredItem>) => ReadonlyArray<Item>

// ---------------------------------------------------------------------------------------------
// Scorers and the greedy slicer: the test suite's literal transcriptions of their chapters
// (test/support), the same yardstick the property tests hold the library to.

/** RECENCY-SCORE: rank among the timestamped items, counted over the whole list. */
export const recency: SpecScorer = Spec.recency

/** PRIORITY-SCORE. */
export const priority: SpecScorer = Spec.priority

/** KIND-SCORE with the chapter's default weights. */
export const kind: SpecScorer = Spec.kind(Spec.kindDefaultWeights)

/** CONSTRUCT-COMPOSITE and COMPOSITE-SCORE (the weights given here are all positive and finite). */
export const composite = (entries: ReadonlyArray<readonly [SpecScorer, number]>): SpecScorer => {
  const built = Spec.constructComposite(entries.map(([scorer, weight]) => ({ scorer, weight })))
  if ("error" in built) throw new Error(`the bench's composite is invalid: ${built.error}`)
  return built.scorer
}

/** GREEDY-SLICE. */
export const greedy: SpecSlicer = SpecSlicers.greedySlice

/**
 * KNAPSACK-SLICE. `rowsAsBytes`: the keep table's rows as `Uint8Array`s (a byte per cell)
 * instead of boolean arrays (8 bytes per cell), the same DP otherwise — for a check of the
 * library's results at sizes where the literal table would not fit in memory.
 */
export const knapsack = (bucketSize: number, rowsAsBytes = false): SpecSlicer => (scoredItems, budget) => {
  if (scoredItems.length === 0 || budget.targetTokens <= 0) return []
  const zeroTokenItems: Array<Item> = []
  const candidates: Array<ScoredItem.ScoredItem> = []
  for (let i = 0; i <= scoredItems.length - 1; i++) {
    if (scoredItems[i]!.item.tokens === 0) zeroTokenItems.push(scoredItems[i]!.item)
    else if (scoredItems[i]!.item.tokens > 0) candidates.push(scoredItems[i]!)
  }
  if (candidates.length === 0) return zeroTokenItems
  const n = candidates.length
  const weights = new Array<number>(n)
  const values = new Array<number>(n)
  const items = new Array<Item>(n)
  for (let i = 0; i <= n - 1; i++) {
    weights[i] = candidates[i]!.item.tokens
    values[i] = Math.max(0, Math.floor(candidates[i]!.score * 10000))
    items[i] = candidates[i]!.item
  }
  const capacity = Math.floor(budget.targetTokens / bucketSize)
  if (capacity === 0) return zeroTokenItems
  const discretizedWeights = new Array<number>(n)
  for (let i = 0; i <= n - 1; i++) discretizedWeights[i] = Math.ceil(weights[i]! / bucketSize)
  const dp = new Array<number>(capacity + 1).fill(0)
  const keep = new Array<Array<boolean>>(rowsAsBytes ? 0 : n)
  const keepBytes = new Array<Uint8Array>(rowsAsBytes ? n : 0)
  for (let i = 0; i <= n - 1; i++) {
    if (rowsAsBytes) keepBytes[i] = new Uint8Array(capacity + 1)
    else keep[i] = new Array<boolean>(capacity + 1).fill(false)
  }
  for (let i = 0; i <= n - 1; i++) {
    const dw = discretizedWeights[i]!
    const dv = values[i]!
    for (let w = capacity; w >= dw; w--) {
      const withItem = dp[w - dw]! + dv
      if (withItem > dp[w]!) {
        dp[w] = withItem
        if (rowsAsBytes) keepBytes[i]![w] = 1
        else keep[i]![w] = true
      }
    }
  }
  const selected: Array<Item> = []
  let remainingCapacity = capacity
  for (let i = n - 1; i >= 0; i--) {
    if (rowsAsBytes ? keepBytes[i]![remainingCapacity] === 1 : keep[i]![remainingCapacity]) {
      selected.push(items[i]!)
      remainingCapacity = remainingCapacity - discretizedWeights[i]!
    }
  }
  const result: Array<Item> = []
  for (let i = 0; i <= zeroTokenItems.length - 1; i++) result.push(zeroTokenItems[i]!)
  for (let i = 0; i <= selected.length - 1; i++) result.push(selected[i]!)
  return result
}

// ---------------------------------------------------------------------------------------------
// Placers (baseline.ts's transcriptions).

export const uShaped: SpecPlacer = uShapedBaseline
export const chronological: SpecPlacer = chronologicalBaseline

// ---------------------------------------------------------------------------------------------
// The pipeline.

export interface BaselineExcluded {
  readonly item: Item
  readonly score: number
  readonly reason: ExclusionReason.ExclusionReason
}

export interface BaselineIncluded {
  readonly item: Item
  readonly score: number
  readonly reason: InclusionReason.InclusionReason
}

export interface BaselineRun {
  readonly window: ReadonlyArray<Item>
  readonly included: ReadonlyArray<BaselineIncluded>
  readonly excluded: ReadonlyArray<BaselineExcluded>
  readonly totalCandidates: number
  readonly totalTokensConsidered: number
}

/**
 * CLASSIFY → SCORE → DEDUPLICATE → SORT → SLICE → PLACE, with the Throw overflow strategy (a
 * thrown error: the bench's inputs never overflow), and the selection report.
 */
export const runBaseline = (
  items: ReadonlyArray<Item>,
  budget: ContextBudget.ContextBudget,
  scorer: SpecScorer,
  slicer: SpecSlicer,
  placer: SpecPlacer,
  deduplication: boolean,
  marks?: Float64Array
): BaselineRun => {
  // `marks`: the time before Classify and after each stage and the report (8 entries).
  const mark = (k: number): void => {
    if (marks !== undefined) marks[k] = performance.now()
  }
  mark(0)
  const excluded: Array<BaselineExcluded> = []
  let totalTokensConsidered = 0
  for (let i = 0; i <= items.length - 1; i++) totalTokensConsidered = totalTokensConsidered + items[i]!.tokens

  // CLASSIFY
  const pinned: Array<Item> = []
  const scoreable: Array<Item> = []
  for (let i = 0; i <= items.length - 1; i++) {
    const item = items[i]!
    if (item.tokens < 0) {
      excluded.push({ item, score: 0, reason: { _tag: "NegativeTokens", tokens: item.tokens } })
      continue
    }
    if (item.pinned) pinned.push(item)
    else scoreable.push(item)
  }
  let pinnedTokens = 0
  for (let i = 0; i <= pinned.length - 1; i++) pinnedTokens = pinnedTokens + pinned[i]!.tokens
  const availableForPinned = budget.maxTokens - budget.outputReserve
  if (pinnedTokens > availableForPinned) {
    throw new Error(`Pinned items require ${pinnedTokens} tokens, but only ${availableForPinned} are available`)
  }

  mark(1)

  // SCORE
  const scored = new Array<ScoredItem.ScoredItem>(scoreable.length)
  for (let i = 0; i <= scoreable.length - 1; i++) {
    scored[i] = { item: scoreable[i]!, score: scorer(scoreable[i]!, scoreable) }
  }

  mark(2)

  // DEDUPLICATE
  let deduped: Array<ScoredItem.ScoredItem> = scored
  if (deduplication && scored.length > 0) {
    const bestByContent = new Map<string, number>()
    for (let i = 0; i <= scored.length - 1; i++) {
      const content = scored[i]!.item.content
      const existingIndex = bestByContent.get(content)
      if (existingIndex !== undefined) {
        if (scored[i]!.score > scored[existingIndex]!.score) bestByContent.set(content, i)
      } else bestByContent.set(content, i)
    }
    deduped = []
    for (let i = 0; i <= scored.length - 1; i++) {
      const best = bestByContent.get(scored[i]!.item.content)!
      if (best === i) deduped.push(scored[i]!)
      else {
        excluded.push({
          item: scored[i]!.item,
          score: scored[i]!.score,
          reason: { _tag: "Deduplicated", deduplicatedAgainst: scored[best]!.item.content }
        })
      }
    }
  }

  mark(3)

  // SORT
  const keys = new Array<{ readonly score: number; readonly index: number }>(deduped.length)
  for (let i = 0; i <= deduped.length - 1; i++) keys[i] = { score: deduped[i]!.score, index: i }
  keys.sort((a, b) => a.score !== b.score ? (a.score > b.score ? -1 : 1) : a.index - b.index)
  const sorted = new Array<ScoredItem.ScoredItem>(keys.length)
  for (let i = 0; i <= keys.length - 1; i++) sorted[i] = deduped[keys[i]!.index]!

  mark(4)

  // SLICE
  let reservedTokens = 0
  for (const tokens of Object.values(budget.reservedSlots)) reservedTokens = reservedTokens + tokens
  let effectiveMax = Math.max(0, budget.maxTokens - budget.outputReserve - pinnedTokens - reservedTokens)
  let effectiveTarget = Math.max(0, budget.targetTokens - pinnedTokens - reservedTokens)
  effectiveTarget = Math.min(effectiveTarget, effectiveMax)
  if (budget.estimationSafetyMarginPercent > 0) {
    const multiplier = 1.0 - budget.estimationSafetyMarginPercent / 100.0
    effectiveMax = Math.floor(effectiveMax * multiplier)
    effectiveTarget = Math.floor(effectiveTarget * multiplier)
    effectiveTarget = Math.min(effectiveTarget, effectiveMax)
  }
  const slicedItems = slicer(sorted, { maxTokens: effectiveMax, targetTokens: effectiveTarget })

  // Scores re-associated by reference identity; the sliced items in score-descending order.
  const isSliced = new Set<Item>(slicedItems)
  const slicedScored: Array<ScoredItem.ScoredItem> = []
  let slicedTokens = 0
  for (let i = 0; i <= sorted.length - 1; i++) {
    if (isSliced.has(sorted[i]!.item)) {
      slicedScored.push(sorted[i]!)
      slicedTokens = slicedTokens + sorted[i]!.item.tokens
    }
  }
  const availableTokens = effectiveTarget - slicedTokens
  for (let i = 0; i <= sorted.length - 1; i++) {
    const entry = sorted[i]!
    if (isSliced.has(entry.item)) continue
    excluded.push({
      item: entry.item,
      score: entry.score,
      reason: { _tag: "BudgetExceeded", itemTokens: entry.item.tokens, availableTokens }
    })
  }

  mark(5)

  // PLACE
  const merged = new Array<ScoredItem.ScoredItem>(pinned.length + slicedScored.length)
  for (let i = 0; i <= pinned.length - 1; i++) merged[i] = { item: pinned[i]!, score: 1.0 }
  for (let i = 0; i <= slicedScored.length - 1; i++) merged[pinned.length + i] = slicedScored[i]!
  let mergedTokens = 0
  for (let i = 0; i <= merged.length - 1; i++) mergedTokens = mergedTokens + merged[i]!.item.tokens
  if (mergedTokens > budget.targetTokens) {
    throw new Error(
      `Selected items require ${mergedTokens} tokens, exceeding target budget of ${budget.targetTokens}`
    )
  }
  const window = placer(merged)

  mark(6)

  // The report: included in placed order; excluded by score descending, stable on ties.
  const scoreOf = new Map<Item, number>()
  for (let i = 0; i <= merged.length - 1; i++) scoreOf.set(merged[i]!.item, merged[i]!.score)
  const included = new Array<BaselineIncluded>(window.length)
  for (let i = 0; i <= window.length - 1; i++) {
    const item = window[i]!
    included[i] = {
      item,
      score: scoreOf.get(item)!,
      reason: item.pinned ? { _tag: "Pinned" } : item.tokens === 0 ? { _tag: "ZeroToken" } : { _tag: "Scored" }
    }
  }
  const order = new Array<{ readonly score: number; readonly index: number }>(excluded.length)
  for (let i = 0; i <= excluded.length - 1; i++) order[i] = { score: excluded[i]!.score, index: i }
  order.sort((a, b) => a.score !== b.score ? (a.score > b.score ? -1 : 1) : a.index - b.index)
  const excludedSorted = new Array<BaselineExcluded>(order.length)
  for (let i = 0; i <= order.length - 1; i++) excludedSorted[i] = excluded[order[i]!.index]!

  mark(7)
  return { window, included, excluded: excludedSorted, totalCandidates: items.length, totalTokensConsidered }
}
