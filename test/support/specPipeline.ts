/**
 * A literal transcription of the specification's pipeline chapters (pipeline/classify.md,
 * score.md, deduplicate.md, sort.md, slice.md, place.md) and of the selection report's rules
 * (diagnostics/selection-report.md), for property tests. Written for clarity, not speed: the
 * scorer is called per item with the whole list, as the chapters say.
 */
import type { ContextBudget, ContextItem } from "../../src/index.ts"

export interface SpecScored {
  readonly item: ContextItem.ContextItem
  readonly score: number
}

export interface SpecExcluded {
  readonly item: ContextItem.ContextItem
  readonly score: number
  readonly reason: string
}

export interface SpecRun {
  readonly output: ReadonlyArray<ContextItem.ContextItem>
  readonly included: ReadonlyArray<{ readonly item: ContextItem.ContextItem; readonly score: number; readonly reason: string }>
  readonly excluded: ReadonlyArray<SpecExcluded>
  readonly totalCandidates: number
  readonly totalTokensConsidered: number
}

export type SpecOutcome = { readonly ok: true; readonly run: SpecRun } | { readonly ok: false; readonly error: string }

/**
 * The chapters' pipeline with a per-item scorer, a slicer returning items, a placer, and
 * Truncate as the overflow strategy (Throw reported as an error).
 */
export const specPipeline = (
  items: ReadonlyArray<ContextItem.ContextItem>,
  budget: ContextBudget.ContextBudget,
  scorer: (item: ContextItem.ContextItem, all: ReadonlyArray<ContextItem.ContextItem>) => number,
  slicer: (sorted: ReadonlyArray<SpecScored>, budget: { maxTokens: number; targetTokens: number }) => ReadonlyArray<ContextItem.ContextItem>,
  placer: (merged: ReadonlyArray<SpecScored>) => ReadonlyArray<ContextItem.ContextItem>,
  deduplication: boolean,
  strategy: "Throw" | "Truncate"
): SpecOutcome => {
  const excluded: Array<SpecExcluded> = []
  // CLASSIFY
  const pinned: Array<ContextItem.ContextItem> = []
  const scoreable: Array<ContextItem.ContextItem> = []
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!
    if (item.tokens < 0) {
      excluded.push({ item, score: 0, reason: "NegativeTokens" })
      continue
    }
    if (item.pinned) pinned.push(item)
    else scoreable.push(item)
  }
  let pinnedTokens = 0
  for (let i = 0; i < pinned.length; i++) pinnedTokens = pinnedTokens + pinned[i]!.tokens
  const availableForPinned = budget.maxTokens - budget.outputReserve
  if (pinnedTokens > availableForPinned) return { ok: false, error: "PinnedBudgetError" }
  // SCORE
  const scored: Array<SpecScored> = new Array(scoreable.length)
  for (let i = 0; i < scoreable.length; i++) scored[i] = { item: scoreable[i]!, score: scorer(scoreable[i]!, scoreable) }
  // DEDUPLICATE
  let deduped: Array<SpecScored> = scored
  if (deduplication && scored.length > 0) {
    const bestByContent = new Map<string, number>()
    for (let i = 0; i < scored.length; i++) {
      const content = scored[i]!.item.content
      if (bestByContent.has(content)) {
        const existingIndex = bestByContent.get(content)!
        if (scored[i]!.score > scored[existingIndex]!.score) bestByContent.set(content, i)
      } else bestByContent.set(content, i)
    }
    deduped = []
    for (let i = 0; i < scored.length; i++) {
      if (bestByContent.get(scored[i]!.item.content) === i) deduped.push(scored[i]!)
      else excluded.push({ item: scored[i]!.item, score: scored[i]!.score, reason: "Deduplicated" })
    }
  }
  // SORT
  const keys = deduped.map((s, i) => ({ score: s.score, index: i }))
  keys.sort((a, b) => (a.score !== b.score ? (a.score > b.score ? -1 : 1) : a.index - b.index))
  const sorted = keys.map((k) => deduped[k.index]!)
  // SLICE
  let reservedTokens = 0
  for (const v of Object.values(budget.reservedSlots)) reservedTokens += v
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
  const slicedSet = new Set(slicedItems)
  for (const s of sorted) {
    if (!slicedSet.has(s.item)) {
      const displaced = pinnedTokens > 0 && s.item.tokens > effectiveTarget &&
        s.item.tokens <= budget.targetTokens - budget.outputReserve
      excluded.push({ item: s.item, score: s.score, reason: displaced ? "PinnedOverride" : "BudgetExceeded" })
    }
  }
  // PLACE — sliced items re-associated with their scores, in score-descending order.
  const slicedScored = sorted.filter((s) => slicedSet.has(s.item))
  let merged: Array<SpecScored> = [...pinned.map((item) => ({ item, score: 1.0 })), ...slicedScored]
  let mergedTokens = 0
  for (const m of merged) mergedTokens = mergedTokens + m.item.tokens
  if (mergedTokens > budget.targetTokens) {
    if (strategy === "Throw") return { ok: false, error: "OverflowError" }
    const kept: Array<SpecScored> = []
    let currentTokens = 0
    for (const m of merged) {
      if (m.item.pinned) {
        kept.push(m)
        currentTokens = currentTokens + m.item.tokens
      } else if (currentTokens + m.item.tokens <= budget.targetTokens) {
        kept.push(m)
        currentTokens = currentTokens + m.item.tokens
      } else {
        excluded.push({ item: m.item, score: m.score, reason: pinned.length > 0 ? "PinnedOverride" : "BudgetExceeded" })
      }
    }
    merged = kept
  }
  const output = placer(merged)
  const scoreOf = new Map(merged.map((m) => [m.item, m.score] as const))
  const included = output.map((item) => ({
    item,
    score: item.pinned ? 1.0 : scoreOf.get(item)!,
    reason: item.pinned ? "Pinned" : item.tokens === 0 ? "ZeroToken" : "Scored"
  }))
  // The report: excluded by score descending, stable on ties.
  const excludedSorted = excluded.map((e, i) => ({ e, i })).sort((a, b) =>
    a.e.score !== b.e.score ? (a.e.score > b.e.score ? -1 : 1) : a.i - b.i
  ).map((x) => x.e)
  let totalTokensConsidered = 0
  for (const item of items) totalTokensConsidered += item.tokens
  return {
    ok: true,
    run: { output, included, excluded: excludedSorted, totalCandidates: items.length, totalTokensConsidered }
  }
}
