/**
 * Builders, arbitraries and checks shared by the CountQuotaSlice and
 * CountConstrainedKnapsackSlice tests.
 */
import { assert } from "@effect/vitest"
import { Effect, Result } from "effect"
import fc from "fast-check"
import { ContextItem } from "../../src/ContextItem.ts"
import type { CountRequirementError } from "../../src/CountRequirementError.ts"
import * as ExclusionReason from "../../src/ExclusionReason.ts"
import type { ScoredItem } from "../../src/ScoredItem.ts"
import type * as Slicer from "../../src/slicers/Slicer.ts"
import type { SpecEntry, SpecResult } from "./specCountQuota.ts"

export const scored = (content: string, tokens: number, score: number, kind = "Message"): ScoredItem => ({
  item: new ContextItem({ content, tokens, kind }),
  score
})

export const budget = (targetTokens: number, maxTokens = Math.max(targetTokens, 0)): Slicer.Budget => ({
  maxTokens,
  targetTokens
})

/** Score descending, stable: how the Sort stage hands items over. */
export const bySort = (items: ReadonlyArray<ScoredItem>): Array<ScoredItem> =>
  [...items].sort((a, b) => (a.score > b.score ? -1 : a.score < b.score ? 1 : 0))

export const contentsOf = (sorted: ReadonlyArray<ScoredItem>, selection: Slicer.Selection): Array<string> =>
  Array.from(selection.selected, (i) => sorted[i]!.item.content)

/** The reasons of a selection as `content → reason`, in index order. */
export const reasonsOf = (
  sorted: ReadonlyArray<ScoredItem>,
  selection: Slicer.Selection
): Array<[string, ExclusionReason.ExclusionReason]> =>
  [...(selection.reasons ?? new Map<number, ExclusionReason.ExclusionReason>())]
    .sort(([a], [b]) => a - b)
    .map(([i, reason]) => [sorted[i]!.item.content, reason])

export const capExcludedCount = (selection: Slicer.Selection): number =>
  [...(selection.reasons?.values() ?? [])].filter((r) => r._tag === "CountCapExceeded").length

// ---------------------------------------------------------------------------------------------
// Arbitraries
// ---------------------------------------------------------------------------------------------

/** Kinds as items spell them: a few names, in several cases. */
const itemKind = fc.constantFrom("tool", "Tool", "TOOL", "msg", "Msg", "memory", "doc", "other")

const row = fc.record({
  tokens: fc.oneof(
    { weight: 1, arbitrary: fc.constant(0) },
    { weight: 6, arbitrary: fc.integer({ min: 1, max: 60 }) },
    { weight: 3, arbitrary: fc.constantFrom(10, 20, 50, 100) }
  ),
  score: fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(0, 0.1, 0.25, 0.5, 0.75, 0.9, 1) },
    { weight: 5, arbitrary: fc.double({ min: 0, max: 1, noNaN: true }) }
  ),
  kind: itemKind
})

/** Scored items with distinct contents (`item-0`, …) and distinct objects. */
export const items = (maxLength: number): fc.Arbitrary<Array<ScoredItem>> =>
  fc.array(row, { maxLength }).map((rows) => rows.map((r, i) => scored(`item-${i}`, r.tokens, r.score, r.kind)))

/** Entries over distinct kinds (spelled in any case), with `requireCount ≤ capCount`. */
export const entries: fc.Arbitrary<Array<SpecEntry>> = fc
  .uniqueArray(
    fc.record({
      kind: fc.constantFrom("tool", "msg", "memory", "doc", "absent"),
      upper: fc.boolean(),
      requireCount: fc.integer({ min: 0, max: 4 }),
      extra: fc.option(fc.integer({ min: 0, max: 3 }), { freq: 3 })
    }),
    { selector: (e) => e.kind, maxLength: 4 }
  )
  .map((list) =>
    list.map((e) => ({
      kind: e.upper ? e.kind.toUpperCase() : e.kind,
      requireCount: e.requireCount,
      capCount: e.extra === null ? undefined : e.requireCount + e.extra
    }))
  )

export const scarcity = fc.constantFrom<"Degrade" | "Throw">("Degrade", "Throw")

/** A budget: target from 0 (and a few negatives) to 400, max from target to target + 100. */
export const budgets = fc
  .tuple(fc.oneof(fc.integer({ min: -10, max: 0 }), fc.integer({ min: 1, max: 400 })), fc.integer({ min: 0, max: 100 }))
  .map(([t, extra]) => budget(t, Math.max(t, 0) + extra))

/** The library's options for a transcription entry (the same values). */
export const libraryEntries = (list: ReadonlyArray<SpecEntry>) =>
  list.map((e) => ({ kind: e.kind, requireCount: e.requireCount, capCount: e.capCount }))

const fold = (s: string): string => s.replace(/[A-Z]/g, (c) => c.toLowerCase())

/**
 * Asserts that a slice's outcome is the transcription's: the same items in the same order,
 * the same shortfalls, a `CountCapExceeded` reason for exactly the items the transcription's
 * Phase 3 excluded (with its cap and count, and the entry's kind); under `Throw`, a
 * `CountRequirementError` whose first shortfall is the transcription's ERROR and whose list is
 * every shortfall the `Degrade` transcription records.
 */
export const assertLikeSpec = (
  sorted: ReadonlyArray<ScoredItem>,
  list: ReadonlyArray<SpecEntry>,
  outcome: Result.Result<Slicer.Selection, Slicer.SliceError>,
  spec: SpecResult,
  degraded: SpecResult
): void => {
  const index = new Map(sorted.map((s, i) => [s.item, i] as const))
  if (spec._tag === "Error") {
    assert.isTrue(Result.isFailure(outcome), "the transcription errs, the slicer does not")
    if (!Result.isFailure(outcome)) return
    const error = outcome.failure
    assert.strictEqual(error._tag, "CountRequirementError")
    if (error._tag !== "CountRequirementError") return
    assert.deepStrictEqual(error.shortfalls[0], {
      kind: spec.kind,
      requiredCount: spec.requireCount,
      satisfiedCount: spec.satisfied
    })
    assert.isTrue(degraded._tag === "Selected")
    if (degraded._tag === "Selected") assertShortfalls(error, degraded.shortfalls)
    return
  }
  assert.isTrue(Result.isSuccess(outcome), Result.isFailure(outcome) ? outcome.failure.message : "")
  if (!Result.isSuccess(outcome)) return
  const selection = outcome.success
  assert.deepStrictEqual(Array.from(selection.selected), spec.selected.map((item) => index.get(item)!))
  assert.deepStrictEqual([...(selection.shortfalls ?? [])], spec.shortfalls)
  const expected = spec.excluded.map(({ item, cap, count }): [number, ExclusionReason.ExclusionReason] => {
    const entry = list.find((e) => fold(e.kind) === fold(item.kind))!
    const reason: ExclusionReason.ExclusionReason = ExclusionReason.countCapExceeded(entry.kind, cap, count)
    return [index.get(item)!, reason]
  }).sort(([a], [b]) => a - b)
  const actual = [...(selection.reasons ?? new Map<number, ExclusionReason.ExclusionReason>())].sort(([a], [b]) => a - b)
  assert.deepStrictEqual(actual, expected)
}

const assertShortfalls = (error: CountRequirementError, shortfalls: ReadonlyArray<unknown>) =>
  assert.deepStrictEqual([...error.shortfalls], [...shortfalls])

/** Runs a slice to its result (success or typed failure). */
export const sliceResult = (slicer: Slicer.Definition, sorted: ReadonlyArray<ScoredItem>, b: Slicer.Budget) =>
  Effect.runPromise(Effect.result(slicer.slice(sorted, b)))

/**
 * The chapters' guarantees, checked on any successful selection:
 * - no kind with a cap has more items than its cap;
 * - a requirement that the candidates can meet is met;
 * - the total stays within the target, unless Phase 1's commitments alone exceed it, in which
 *   case the selection is exactly those commitments.
 */
export const assertGuarantees = (
  sorted: ReadonlyArray<ScoredItem>,
  list: ReadonlyArray<SpecEntry>,
  b: Slicer.Budget,
  selection: Slicer.Selection
): void => {
  const selected = Array.from(selection.selected, (i) => sorted[i]!)
  assert.strictEqual(new Set(Array.from(selection.selected)).size, selected.length, "no index twice")
  if (sorted.length === 0 || !(b.targetTokens > 0)) {
    assert.strictEqual(selected.length, 0)
    return
  }
  const countOf = (kind: string, xs: ReadonlyArray<ScoredItem>) => xs.filter((s) => fold(s.item.kind) === fold(kind)).length
  let committedTokens = 0
  for (const e of list) {
    const count = countOf(e.kind, selected)
    if (e.capCount !== undefined) assert.isAtMost(count, e.capCount, `kind ${e.kind} over its cap`)
    const available = countOf(e.kind, sorted)
    assert.isAtLeast(count, Math.min(e.requireCount, available), `kind ${e.kind} under its requirement`)
    // Phase 1's commitments: the best requireCount of the kind.
    committedTokens += bySort(sorted.filter((s) => fold(s.item.kind) === fold(e.kind)))
      .slice(0, e.requireCount)
      .reduce((sum, s) => sum + s.item.tokens, 0)
  }
  const total = selected.reduce((sum, s) => sum + s.item.tokens, 0)
  if (committedTokens <= b.targetTokens) assert.isAtMost(total, b.targetTokens, "over the target")
  else assert.strictEqual(total, committedTokens, "Phase 1 exceeded the target: only its commitments")
}
