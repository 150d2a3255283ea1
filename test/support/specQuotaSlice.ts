/**
 * A literal transcription of the specification's QuotaSlice pseudocode (`slicers/quota.md`:
 * QUOTA-SLICE and DISTRIBUTE-BUDGET), line for line, with no optimisation: maps keyed by the
 * case-folded kind, plain arrays, the chapter's formulas as written (IEEE doubles). The inner
 * slicer is a function in the specification's shape (`Slice(items, budget) -> items`), such as
 * the transcriptions in `specSlicers.ts`. Property tests compare QuotaSlice with this.
 */
import type { ContextItem } from "../../src/ContextItem.ts"
import type { ScoredItem } from "../../src/ScoredItem.ts"

/** A QuotaSet: the configured kinds with their percentages. */
export interface SpecQuotas {
  readonly configuredKinds: ReadonlyArray<string>
  readonly getRequire: (kind: string) => number
  readonly getCap: (kind: string) => number
}

/** The chapter's sub-budget: `ContextBudget(maxTokens: cap, targetTokens: kindBudget)`. */
export interface SpecBudget {
  readonly maxTokens: number
  readonly targetTokens: number
}

export type SpecInnerSlicer = (items: ReadonlyArray<ScoredItem>, budget: SpecBudget) => Array<ContextItem>

/** ContextKind comparison: ASCII case folding. */
const fold = (kind: string): string => kind.replace(/[A-Z]/g, (c) => c.toLowerCase())

/** Builds the QuotaSet from quota entries; kinds without one default to require 0%, cap 100%. */
export const quotaSet = (
  entries: ReadonlyArray<{ readonly kind: string; readonly require?: number | undefined; readonly cap?: number | undefined }>
): SpecQuotas => {
  const requires = new Map<string, number>()
  const caps = new Map<string, number>()
  const kinds: Array<string> = []
  for (const entry of entries) {
    kinds.push(fold(entry.kind))
    requires.set(fold(entry.kind), entry.require ?? 0)
    caps.set(fold(entry.kind), entry.cap ?? 100)
  }
  return {
    configuredKinds: kinds,
    getRequire: (kind) => requires.get(fold(kind)) ?? 0,
    getCap: (kind) => caps.get(fold(kind)) ?? 100
  }
}

/** QUOTA-SLICE(scoredItems, budget, quotas, innerSlicer). */
export const quotaSlice = (
  scoredItems: ReadonlyArray<ScoredItem>,
  budget: { readonly targetTokens: number },
  quotas: SpecQuotas,
  innerSlicer: SpecInnerSlicer
): Array<ContextItem> => {
  if (scoredItems.length === 0 || budget.targetTokens <= 0) return []

  const targetTokens = budget.targetTokens

  // Phase 1: Partition by ContextKind
  const partitions = new Map<string, Array<ScoredItem>>()
  for (let i = 0; i <= scoredItems.length - 1; i++) {
    const kind = fold(scoredItems[i]!.item.kind) // case-insensitive
    if (!partitions.has(kind)) partitions.set(kind, [])
    partitions.get(kind)!.push(scoredItems[i]!)
  }

  // Phase 2: Candidate token mass per kind
  const candidateTokenMass = new Map<string, number>()
  for (const [kind, items] of partitions) {
    let mass = 0
    for (let i = 0; i <= items.length - 1; i++) mass = mass + items[i]!.item.tokens
    candidateTokenMass.set(kind, mass)
  }

  // Phase 3: Budget distribution
  const kindBudgets = distributeBudget(partitions, candidateTokenMass, targetTokens, quotas)

  // Phase 4: Per-kind slicing
  const allSelected: Array<ContextItem> = []
  for (const [kind, items] of partitions) {
    const kindBudget = kindBudgets.get(kind) ?? 0 // 0 if not present
    if (kindBudget <= 0) continue
    const cap = Math.floor(quotas.getCap(kind) / 100.0 * targetTokens)
    const subBudget: SpecBudget = { maxTokens: cap, targetTokens: kindBudget }
    const selected = innerSlicer(items, subBudget)
    for (let i = 0; i <= selected.length - 1; i++) allSelected.push(selected[i]!)
  }

  return allSelected
}

/** DISTRIBUTE-BUDGET(partitions, candidateTokenMass, targetTokens, quotas). */
export const distributeBudget = (
  partitions: ReadonlyMap<string, ReadonlyArray<ScoredItem>>,
  candidateTokenMass: ReadonlyMap<string, number>,
  targetTokens: number,
  quotas: SpecQuotas
): Map<string, number> => {
  // Step 1: Compute require and cap token amounts
  const requireTokens = new Map<string, number>()
  const capTokens = new Map<string, number>()
  for (const kind of quotas.configuredKinds) {
    requireTokens.set(kind, Math.floor(quotas.getRequire(kind) / 100.0 * targetTokens))
    capTokens.set(kind, Math.floor(quotas.getCap(kind) / 100.0 * targetTokens))
  }

  // Step 2: Sum required tokens
  let totalRequired = 0
  for (const [, req] of requireTokens) totalRequired = totalRequired + req

  const unassignedBudget = Math.max(0, targetTokens - totalRequired)

  // Step 3: Compute distribution mass (kinds that can receive beyond their require)
  let totalMassForDistribution = 0
  for (const [kind] of partitions) {
    const cap = capTokens.has(kind) ? capTokens.get(kind)! : targetTokens
    const require = requireTokens.has(kind) ? requireTokens.get(kind)! : 0
    if (cap > require) totalMassForDistribution = totalMassForDistribution + candidateTokenMass.get(kind)!
  }

  // Step 4: Distribute per kind
  const kindBudgets = new Map<string, number>()
  for (const [kind] of partitions) {
    const require = requireTokens.has(kind) ? requireTokens.get(kind)! : 0
    const cap = capTokens.has(kind) ? capTokens.get(kind)! : targetTokens

    let proportional = 0
    if (totalMassForDistribution > 0 && cap > require) {
      proportional = Math.floor(unassignedBudget * candidateTokenMass.get(kind)! / totalMassForDistribution)
    }

    let kindBudget = require + proportional
    if (kindBudget > cap) kindBudget = cap

    kindBudgets.set(kind, kindBudget)
  }

  return kindBudgets
}
