/**
 * The three phases that CountQuotaSlice and CountConstrainedKnapsackSlice share (spec
 * `slicers/count-quota.md`, `slicers/count-constrained-knapsack.md`): validating the entries,
 * Phase 1 (commit the best `requireCount` items of each required kind), Phase 2 (hand the rest
 * to an inner selection with the budget Phase 1 left), and Phase 3 (drop what the inner
 * selection returned beyond a kind's `capCount`, counting from Phase 1's commitments).
 *
 * Everything works on indices into the sorted list, so the items dropped by a cap can be
 * reported with their reason, and an item given twice is two candidates.
 *
 * @internal
 */
import { Effect } from "effect"
import { CountRequirementError } from "../../CountRequirementError.ts"
import type { CountRequirementShortfall } from "../../CountRequirementShortfall.ts"
import * as ExclusionReason from "../../ExclusionReason.ts"
import { InvalidConfigError } from "../../InvalidConfigError.ts"
import type { ScoredItem } from "../../ScoredItem.ts"
import * as Slicer from "../Slicer.ts"
import { SlicerError } from "../SlicerError.ts"
import { foldAscii } from "../../internal/caseInsensitiveName.ts"
import { orderByScoreDescending } from "../../internal/sortByScore.ts"
import { isSafeTotal } from "../../internal/tokens.ts"

/** What a count-quota entry is given as: a kind, and optional counts. */
export interface EntryOptions {
  readonly kind: string
  readonly requireCount?: number | undefined
  readonly capCount?: number | undefined
}

/** A validated entry: `capCount` undefined means the kind is not capped. */
export interface Entry {
  readonly kind: string
  readonly folded: string
  readonly requireCount: number
  readonly capCount: number | undefined
}

/** An entry with a cap. */
export interface CappedEntry extends Entry {
  readonly capCount: number
}

const isCapped = (entry: Entry): entry is CappedEntry => entry.capCount !== undefined

/** What to do when a kind has fewer candidates than its `requireCount`. */
export type Scarcity = "Degrade" | "Throw"

/** The validated policy of a count-quota slicer. */
export interface Policy {
  readonly entries: ReadonlyArray<Entry>
  /** The entries with `requireCount > 0`, in configuration order (Phase 1's order). */
  readonly required: ReadonlyArray<Entry>
  /** Folded kind → entry, for the entries with a cap (Phase 3's lookups). */
  readonly capped: ReadonlyMap<string, CappedEntry>
  readonly scarcity: Scarcity
}

const invalid = (component: string, path: string, rule: string) =>
  Effect.fail(new InvalidConfigError({ component, path, rule }))

const isCount = (n: unknown): n is number => typeof n === "number" && Number.isSafeInteger(n) && n >= 0

/**
 * Checks the entries and the scarcity rule against the chapters: counts are non-negative
 * integers, `requireCount ≤ capCount` (and a zero cap with a positive requirement is refused
 * with its own message), a kind is a non-blank name, and no kind is configured twice (kinds
 * compare under ASCII case folding).
 */
export const validate = (
  component: string,
  entries: ReadonlyArray<EntryOptions>,
  scarcity: unknown
): Effect.Effect<Policy, InvalidConfigError> => {
  if (!Array.isArray(entries)) return invalid(component, "entries", `must be an array of entries (got ${String(entries)})`)
  if (scarcity !== "Degrade" && scarcity !== "Throw") {
    return invalid(component, "scarcity", `must be "Degrade" or "Throw" (got ${JSON.stringify(scarcity)})`)
  }
  const validated: Array<Entry> = []
  const seen = new Map<string, number>()
  for (let i = 0; i < entries.length; i++) {
    const options = entries[i]!
    const at = `entries[${i}]`
    const kind: unknown = options.kind
    if (typeof kind !== "string" || kind.trim().length === 0) {
      return invalid(component, `${at}.kind`, `must be a non-blank kind name (got ${JSON.stringify(kind)})`)
    }
    const requireCount = options.requireCount ?? 0
    const capCount = options.capCount
    if (!isCount(requireCount)) {
      return invalid(component, `${at}.requireCount`, `of kind "${kind}" must be a non-negative integer (got ${String(requireCount)})`)
    }
    if (capCount !== undefined && !isCount(capCount)) {
      return invalid(component, `${at}.capCount`, `of kind "${kind}" must be a non-negative integer (got ${String(capCount)})`)
    }
    if (capCount === 0 && requireCount > 0) {
      return invalid(
        component,
        `${at}.capCount`,
        `of kind "${kind}" is 0 while its requireCount is ${requireCount}: a zero cap with a positive requirement can never be satisfied`
      )
    }
    if (capCount !== undefined && requireCount > capCount) {
      return invalid(
        component,
        `${at}.requireCount`,
        `of kind "${kind}" must not exceed its capCount (${capCount}) (got ${requireCount})`
      )
    }
    const folded = foldAscii(kind)
    const first = seen.get(folded)
    if (first !== undefined) {
      return invalid(
        component,
        `${at}.kind`,
        `"${kind}" is already configured by entries[${first}] ("${entries[first]!.kind}"): kinds compare case-insensitively, one entry per kind`
      )
    }
    seen.set(folded, i)
    validated.push({ kind, folded, requireCount, capCount })
  }
  return Effect.succeed({
    entries: validated,
    required: validated.filter((e) => e.requireCount > 0),
    capped: new Map(validated.filter(isCapped).map((e) => [e.folded, e] as const)),
    scarcity
  })
}

/**
 * Phase 2's selection: given the residual candidates (score order kept) and the residual
 * budget, a selection whose indices point into the residual list.
 */
export type Inner = (
  residual: ReadonlyArray<ScoredItem>,
  budget: Slicer.Budget
) => Effect.Effect<Slicer.Selection, Slicer.SliceError>

/** How the shared phases are run by one slicer. */
export interface Settings {
  /** The slicer's name, for its errors. */
  readonly name: string
  /** The inner selection's name, for the contract errors of its output. */
  readonly innerName: string
  readonly policy: Policy
  /** Re-sort Phase 2's output by score, descending and stable, before Phase 3 (D180). */
  readonly resortPhase2: boolean
  readonly inner: Inner
}

const empty = (): Slicer.Selection => ({ selected: new Uint32Array(0), reasons: new Map(), shortfalls: [] })

/**
 * COUNT-QUOTA-SLICE / COUNT-KNAPSACK-CAP over `sorted`: the selected indices (Phase 1's
 * commitments, then the inner selection's survivors of the caps, in Phase 3's order), the
 * `CountCapExceeded` reasons of the items a cap dropped (with the inner selection's own
 * reasons), and the shortfalls. Under `Throw`, a shortfall fails with `CountRequirementError`
 * listing every short kind, before Phase 2 runs.
 */
export const slice = (
  settings: Settings,
  sorted: ReadonlyArray<ScoredItem>,
  budget: Slicer.Budget
): Effect.Effect<Slicer.Selection, Slicer.SliceError> =>
  Effect.suspend(() => {
    const n = sorted.length
    // `!(t > 0)` also turns a NaN target away.
    if (n === 0 || !(budget.targetTokens > 0)) return Effect.succeed(empty())
    const { name, policy } = settings

    // Kinds are few distinct strings: fold each once per call.
    const folds = new Map<string, string>()
    const foldOf = (kind: string): string => {
      let folded = folds.get(kind)
      if (folded === undefined) {
        folded = foldAscii(kind)
        folds.set(kind, folded)
      }
      return folded
    }

    // --- Phase 1: Count-Satisfy ---
    const committed: Array<number> = []
    const isCommitted = new Uint8Array(n)
    const selectedCount = new Map<string, number>()
    const shortfalls: Array<CountRequirementShortfall> = []
    let preAllocatedTokens = 0
    if (policy.required.length > 0) {
      const partitions = new Map<string, Array<number>>()
      for (const entry of policy.required) partitions.set(entry.folded, [])
      for (let i = 0; i < n; i++) {
        const partition = partitions.get(foldOf(sorted[i]!.item.kind))
        if (partition === undefined) continue
        if (Number.isNaN(sorted[i]!.score)) return Effect.fail(nanScore(name, i))
        partition.push(i)
      }
      for (const entry of policy.required) {
        const candidates = byScoreDescending(sorted, partitions.get(entry.folded)!)
        let satisfied = 0
        for (let k = 0; k < candidates.length && satisfied < entry.requireCount; k++) {
          const i = candidates[k]!
          committed.push(i)
          isCommitted[i] = 1
          preAllocatedTokens += sorted[i]!.item.tokens
          if (!isSafeTotal(preAllocatedTokens)) return Effect.fail(tokensTooLarge(name))
          satisfied++
        }
        selectedCount.set(entry.folded, satisfied)
        if (satisfied < entry.requireCount) {
          shortfalls.push({ kind: entry.kind, requiredCount: entry.requireCount, satisfiedCount: satisfied })
        }
      }
      if (shortfalls.length > 0 && policy.scarcity === "Throw") {
        return Effect.fail(new CountRequirementError({ slicer: name, shortfalls }))
      }
    }

    // --- Phase 2: the residual candidates and budget ---
    let residual: ReadonlyArray<ScoredItem> = sorted
    let residualIndex: Uint32Array | undefined
    if (committed.length > 0) {
      const items = new Array<ScoredItem>(n - committed.length)
      residualIndex = new Uint32Array(items.length)
      for (let i = 0, r = 0; i < n; i++) {
        if (isCommitted[i] === 1) continue
        items[r] = sorted[i]!
        residualIndex[r++] = i
      }
      residual = items
    }
    const residualTarget = Math.max(0, budget.targetTokens - preAllocatedTokens)
    const residualBudget: Slicer.Budget = {
      maxTokens: budget.maxTokens,
      targetTokens: Math.min(residualTarget, budget.maxTokens)
    }

    const m = residual.length
    const innerSelection = Effect.flatMap(
      settings.inner(residual, residualBudget),
      // Checked against the residual list, under the inner selection's name.
      (inner) => Effect.as(Slicer.checkIndices(settings.innerName, m, inner.selected), inner)
    )
    return Effect.flatMap(innerSelection, (inner): Effect.Effect<
      Slicer.Selection,
      Slicer.SliceError
    > => {
      const output = inner.selected
      // The inner selection's indices, turned into indices of `sorted`; which residual items it
      // chose is remembered, to drop its reasons for them.
      const chosen = new Uint8Array(m)
      const phase2 = new Uint32Array(output.length)
      for (let k = 0; k < output.length; k++) {
        const r = output[k]!
        chosen[r] = 1
        phase2[k] = residualIndex === undefined ? r : residualIndex[r]!
      }
      let order: ArrayLike<number> | undefined
      if (settings.resortPhase2) {
        const scores = new Float64Array(phase2.length)
        for (let k = 0; k < phase2.length; k++) {
          const score = sorted[phase2[k]!]!.score
          if (Number.isNaN(score)) return Effect.fail(nanScore(name, phase2[k]!))
          scores[k] = score
        }
        order = orderByScoreDescending(scores)
      }

      // --- Phase 3: Cap Enforcement, counting from Phase 1's commitments ---
      const selected = new Uint32Array(committed.length + phase2.length)
      selected.set(committed)
      let count = committed.length
      const reasons = new Map<number, ExclusionReason.ExclusionReason>()
      if (inner.reasons !== undefined) {
        for (const [r, reason] of inner.reasons) {
          if (r >>> 0 === r && r < m && chosen[r] !== 1) reasons.set(residualIndex === undefined ? r : residualIndex[r]!, reason)
        }
      }
      for (let k = 0; k < phase2.length; k++) {
        const i = phase2[order === undefined ? k : order[k]!]!
        const entry = policy.capped.size === 0 ? undefined : policy.capped.get(foldOf(sorted[i]!.item.kind))
        if (entry === undefined) {
          selected[count++] = i
          continue
        }
        const current = selectedCount.get(entry.folded) ?? 0
        if (current >= entry.capCount) {
          reasons.set(i, ExclusionReason.countCapExceeded(entry.kind, entry.capCount, current))
        } else {
          selected[count++] = i
          selectedCount.set(entry.folded, current + 1)
        }
      }
      const allShortfalls = inner.shortfalls === undefined || inner.shortfalls.length === 0
        ? shortfalls
        : [...shortfalls, ...inner.shortfalls]
      return Effect.succeed<Slicer.Selection>({
        selected: selected.subarray(0, count),
        reasons,
        shortfalls: allShortfalls
      })
    })
  })

/**
 * The indices of one partition by score descending, ties in input order. The pipeline's input
 * is already in that order, which one pass confirms; the chapters ask for the sort in case it
 * is not.
 */
const byScoreDescending = (sorted: ReadonlyArray<ScoredItem>, partition: Array<number>): ArrayLike<number> => {
  let ordered = true
  for (let k = 1; k < partition.length && ordered; k++) {
    if (sorted[partition[k]!]!.score > sorted[partition[k - 1]!]!.score) ordered = false
  }
  if (ordered) return partition
  const scores = new Float64Array(partition.length)
  for (let k = 0; k < partition.length; k++) scores[k] = sorted[partition[k]!]!.score
  const order = orderByScoreDescending(scores)
  const result = new Array<number>(partition.length)
  for (let k = 0; k < result.length; k++) result[k] = partition[order[k]!]!
  return result
}

const nanScore = (slicer: string, index: number): SlicerError =>
  new SlicerError({
    slicer,
    reason: `the score of item ${index} is NaN, which has no place in a score order; scorers must return numbers`
  })

const tokensTooLarge = (slicer: string): SlicerError =>
  new SlicerError({
    slicer,
    reason: `the tokens of the items committed for the required counts add up beyond Number.MAX_SAFE_INTEGER`
  })
