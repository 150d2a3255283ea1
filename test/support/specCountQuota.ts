/**
 * Literal transcriptions of the specification's count-quota pseudocode
 * (`slicers/count-quota.md`: COUNT-QUOTA-SLICE, `slicers/count-constrained-knapsack.md`:
 * COUNT-KNAPSACK-CAP), line for line, with no optimisation: maps keyed by the lower-cased kind,
 * a comparator sort, a set of item references. The property tests compare the library's slicers
 * with these. They return the selected items (the same objects) in the chapter's order, the
 * shortfalls recorded, the items EXCLUDEd by a cap, or the ERROR of the `Throw` rule.
 */
import type { ContextItem } from "../../src/ContextItem.ts"
import type { ScoredItem } from "../../src/ScoredItem.ts"
import { knapsackSlice } from "./specSlicers.ts"

export interface SpecEntry {
  readonly kind: string
  readonly requireCount: number
  /** Absent: no cap. */
  readonly capCount?: number | undefined
}

export interface SpecBudget {
  readonly maxTokens: number
  readonly targetTokens: number
}

export interface SpecShortfall {
  readonly kind: string
  readonly requiredCount: number
  readonly satisfiedCount: number
}

export type SpecResult =
  | {
    readonly _tag: "Selected"
    readonly selected: Array<ContextItem>
    readonly shortfalls: Array<SpecShortfall>
    /** The items Phase 3 excluded, with the count their kind had reached. */
    readonly excluded: Array<{ readonly item: ContextItem; readonly cap: number; readonly count: number }>
  }
  | { readonly _tag: "Error"; readonly kind: string; readonly requireCount: number; readonly satisfied: number }

export type SpecInnerSlicer = (items: ReadonlyArray<ScoredItem>, budget: SpecBudget) => Array<ContextItem>

/** The kinds' case-insensitive comparison (ASCII folding). */
const key = (kind: string): string => kind.replace(/[A-Z]/g, (c) => c.toLowerCase())

const threePhases = (
  scoredItems: ReadonlyArray<ScoredItem>,
  budget: SpecBudget,
  entries: ReadonlyArray<SpecEntry>,
  innerSlicer: SpecInnerSlicer,
  scarcity: "Degrade" | "Throw",
  resort: boolean
): SpecResult => {
  if (scoredItems.length === 0 || budget.targetTokens <= 0) {
    return { _tag: "Selected", selected: [], shortfalls: [], excluded: [] }
  }

  // Build policy lookup: kind -> (requireCount, capCount)
  const entryByKind = new Map<string, SpecEntry>()
  for (const entry of entries) entryByKind.set(key(entry.kind), entry)

  // --- Phase 1: Count-Satisfy ---

  // Partition candidates by ContextKind
  const partitions = new Map<string, Array<ScoredItem>>()
  for (const si of scoredItems) {
    const list = partitions.get(key(si.item.kind)) ?? []
    list.push(si)
    partitions.set(key(si.item.kind), list)
  }

  // Sort each partition by score descending (Array.prototype.sort is stable)
  for (const [, candidates] of partitions) candidates.sort((a, b) => b.score - a.score)

  const committed: Array<ContextItem> = []
  const committedSet = new Set<ContextItem>()
  const selectedCount = new Map<string, number>()
  let preAllocatedTokens = 0
  const shortfalls: Array<SpecShortfall> = []

  for (const entry of entries) {
    if (!(entry.requireCount > 0)) continue
    const candidates = partitions.get(key(entry.kind)) ?? []
    let satisfied = 0

    for (const candidate of candidates) {
      if (!(satisfied < entry.requireCount)) break
      committed.push(candidate.item)
      committedSet.add(candidate.item)
      preAllocatedTokens = preAllocatedTokens + candidate.item.tokens
      satisfied = satisfied + 1
    }

    selectedCount.set(key(entry.kind), satisfied)

    if (satisfied < entry.requireCount) {
      if (scarcity === "Throw") {
        return { _tag: "Error", kind: entry.kind, requireCount: entry.requireCount, satisfied }
      } else {
        shortfalls.push({ kind: entry.kind, requiredCount: entry.requireCount, satisfiedCount: satisfied })
      }
    }
  }

  // --- Phase 2 ---

  const residual = scoredItems.filter((si) => !committedSet.has(si.item))
  const residualTarget = Math.max(0, budget.targetTokens - preAllocatedTokens)
  const residualBudget = { maxTokens: budget.maxTokens, targetTokens: Math.min(residualTarget, budget.maxTokens) }

  let innerSelected = innerSlicer(residual, residualBudget)

  if (resort) {
    // D180: Re-sort Phase 2 output by score descending before Phase 3 cap loop.
    const scoreOf = new Map<ContextItem, number>()
    for (const si of residual) scoreOf.set(si.item, si.score)
    innerSelected = [...innerSelected].sort((a, b) => scoreOf.get(b)! - scoreOf.get(a)!)
  }

  // --- Phase 3: Cap Enforcement ---

  const result = [...committed]
  const excluded: Array<{ item: ContextItem; cap: number; count: number }> = []

  for (const item of innerSelected) {
    const kind = key(item.kind)
    const count = selectedCount.get(kind) ?? 0
    const cap = entryByKind.get(kind)?.capCount

    if (cap !== undefined && count >= cap) {
      excluded.push({ item, cap, count }) // cap exceeded
    } else {
      result.push(item)
      selectedCount.set(kind, count + 1)
    }
  }

  return { _tag: "Selected", selected: result, shortfalls, excluded }
}

/** COUNT-QUOTA-SLICE(scoredItems, budget, entries, innerSlicer, scarcity). */
export const countQuotaSlice = (
  scoredItems: ReadonlyArray<ScoredItem>,
  budget: SpecBudget,
  entries: ReadonlyArray<SpecEntry>,
  innerSlicer: SpecInnerSlicer,
  scarcity: "Degrade" | "Throw"
): SpecResult => threePhases(scoredItems, budget, entries, innerSlicer, scarcity, false)

/** COUNT-KNAPSACK-CAP(scoredItems, budget, entries, knapsack, scarcity). */
export const countKnapsackCap = (
  scoredItems: ReadonlyArray<ScoredItem>,
  budget: SpecBudget,
  entries: ReadonlyArray<SpecEntry>,
  bucketSize: number,
  scarcity: "Degrade" | "Throw"
): SpecResult =>
  threePhases(scoredItems, budget, entries, (items, b) => knapsackSlice(items, b, bucketSize), scarcity, true)
