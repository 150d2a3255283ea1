/**
 * `Groups.runGrouped`'s expansion in one pass (docs/design.md item 136), checked against a
 * literal transcription of the expansion it replaces (below, with its own member-entry memo):
 * the same window (the same item objects in order), the same included and excluded entries
 * (item by identity, score by `Object.is`, reason by identity or, for renamed reasons, deep
 * equality), the same report keys in the same order and the same totals — on generated grouped
 * candidates, with each built-in slicer and placer, deduplication on and off, runs repeated on
 * the same items (the memo's hit path) and a runner whose window is not its included entries'
 * order (the separate window pass).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fc from "fast-check"
import {
  ChronologicalPlacer,
  ContextBudget,
  ContextItem,
  GreedySlice,
  KnapsackSlice,
  OverflowNotifier,
  Pipeline,
  PriorityScorer,
  RecencyScorer,
  Scorer,
  Slicer,
  Timestamp,
  UShapedPlacer
} from "../src/index.ts"
import type { ExcludedItem } from "../src/ExcludedItem.ts"
import type { ExclusionReason } from "../src/ExclusionReason.ts"
import type { IncludedItem } from "../src/IncludedItem.ts"
import * as Groups from "../src/internal/groups.ts"
import type { PipelineResult } from "../src/PipelineResult.ts"
import * as SectionedPlacer from "../src/placers/SectionedPlacer.ts"
import type { SelectionReport } from "../src/SelectionReport.ts"

// ---- literal transcription of src/internal/groups.ts before design item 136 (main b08a0cf) ----
const renamer = (
  units: ReadonlyArray<ContextItem.ContextItem>,
  members: Pick<ReadonlyMap<ContextItem.ContextItem, ReadonlyArray<ContextItem.ContextItem>>, "size" | "get">,
  excluded: ReadonlyArray<ExcludedItem>
): (entry: ExcludedItem) => ExclusionReason => {
  const firstMember = (unit: ContextItem.ContextItem | undefined): string | undefined =>
    unit === undefined ? undefined : members.get(unit)?.[0]?.content
  let firstPinned: ContextItem.ContextItem | undefined
  for (const unit of units) {
    if (unit.pinned && unit.tokens >= 0) {
      firstPinned = unit
      break
    }
  }
  const pinnedName = firstMember(firstPinned)
  let survivors: Map<string, ContextItem.ContextItem | null> | undefined
  const survivorOf = (content: string): ContextItem.ContextItem | undefined => {
    if (survivors === undefined) {
      const removed = new Set<ContextItem.ContextItem>()
      for (const entry of excluded) if (entry.reason._tag === "Deduplicated") removed.add(entry.item)
      survivors = new Map()
      for (const unit of units) {
        if (unit.pinned || unit.tokens < 0 || removed.has(unit)) continue
        // `null`: two candidates of this content were kept, so no one of them is named.
        survivors.set(unit.content, survivors.has(unit.content) ? null : unit)
      }
    }
    return survivors.get(content) ?? undefined
  }
  return (entry) => {
    const reason = entry.reason
    switch (reason._tag) {
      case "Deduplicated": {
        if (reason.deduplicatedAgainst !== entry.item.content) return reason
        const name = firstMember(survivorOf(reason.deduplicatedAgainst))
        return name === undefined ? reason : { ...reason, deduplicatedAgainst: name }
      }
      case "PinnedOverride":
        return pinnedName === undefined || firstPinned === undefined || reason.displacedBy !== firstPinned.content
          ? reason
          : { ...reason, displacedBy: pinnedName }
      default:
        return reason
    }
  }
}

interface MemberEntries<E> {
  readonly score: number
  readonly reason: unknown
  readonly entries: ReadonlyArray<E>
}
const includedEntries = new WeakMap<ContextItem.ContextItem, MemberEntries<IncludedItem>>()
const excludedEntries = new WeakMap<ContextItem.ContextItem, MemberEntries<ExcludedItem>>()

/** Whether `known` holds the entries of `list` with `score` and `reason`. */
const sameEntries = <E extends { readonly item: ContextItem.ContextItem }>(
  known: MemberEntries<E> | undefined,
  list: ReadonlyArray<ContextItem.ContextItem>,
  score: number,
  reason: unknown
): known is MemberEntries<E> => {
  if (known === undefined || !Object.is(known.score, score) || known.reason !== reason) return false
  const entries = known.entries
  if (entries.length !== list.length) return false
  for (let m = 0; m < list.length; m++) if (entries[m]!.item !== list[m]) return false
  return true
}

/** Pushes a unit's member entries onto `out`: those of an earlier call when they are the same. */
const pushMembers = <E extends { readonly item: ContextItem.ContextItem; readonly score: number; readonly reason: unknown }>(
  out: Array<E>,
  memo: WeakMap<ContextItem.ContextItem, MemberEntries<E>>,
  unit: ContextItem.ContextItem,
  list: ReadonlyArray<ContextItem.ContextItem>,
  score: number,
  reason: E["reason"],
  make: (item: ContextItem.ContextItem, score: number, reason: E["reason"]) => E
): void => {
  const known = memo.get(unit)
  if (sameEntries(known, list, score, reason)) {
    for (let m = 0; m < known.entries.length; m++) out.push(known.entries[m]!)
    return
  }
  const entries = new Array<E>(list.length)
  for (let m = 0; m < list.length; m++) {
    const entry = make(list[m]!, score, reason)
    entries[m] = entry
    out.push(entry)
  }
  memo.set(unit, { score, reason, entries })
}

const includedOf = (item: ContextItem.ContextItem, score: number, reason: IncludedItem["reason"]): IncludedItem => ({ item, score, reason })
const excludedOf = (item: ContextItem.ContextItem, score: number, reason: ExclusionReason): ExcludedItem => ({ item, score, reason })

const expandResult = (
  result: PipelineResult,
  units: ReadonlyArray<ContextItem.ContextItem>,
  members: Pick<ReadonlyMap<ContextItem.ContextItem, ReadonlyArray<ContextItem.ContextItem>>, "size" | "get">,
  totalCandidates: number,
  totalTokensConsidered: number
): PipelineResult => {
  // No unit: the entries are the members' own, and only the totals change (most calls of an
  // agent without tool groups; copying a thousand entries a call was a tenth of a trim's time).
  if (members.size === 0) {
    return { ...result, report: { ...result.report, totalCandidates, totalTokensConsidered } } satisfies PipelineResult
  }
  const rename = renamer(units, members, result.report.excluded)
  const reportIncluded = result.report.included
  const included: Array<IncludedItem> = []
  for (let k = 0; k < reportIncluded.length; k++) {
    const entry = reportIncluded[k]!
    const list = members.get(entry.item)
    // An entry of no unit is the member's own: kept as it is (entries are immutable).
    if (list === undefined) included.push(entry)
    else pushMembers(included, includedEntries, entry.item, list, entry.score, entry.reason, includedOf)
  }
  const reportExcluded = result.report.excluded
  const expandExcluded = (): Array<ExcludedItem> => {
    const excluded: Array<ExcludedItem> = []
    for (let k = 0; k < reportExcluded.length; k++) {
      const entry = reportExcluded[k]!
      const reason = rename(entry)
      const list = members.get(entry.item)
      if (list === undefined) excluded.push(reason === entry.reason ? entry : { item: entry.item, score: entry.score, reason })
      else pushMembers(excluded, excludedEntries, entry.item, list, entry.score, reason, excludedOf)
    }
    return excluded
  }
  const resultWindow = result.window
  const window: Array<ContextItem.ContextItem> = []
  for (let k = 0; k < resultWindow.length; k++) {
    const item = resultWindow[k]!
    const list = members.get(item)
    if (list === undefined) window.push(item)
    else for (let m = 0; m < list.length; m++) window.push(list[m]!)
  }
  const report: SelectionReport = { ...result.report, included, totalCandidates, totalTokensConsidered }
  // The excluded entries are made when first read (docs/design.md item 131): an agent's call
  // reads its window and the report's counts, which the invariants give (`totalCandidates` less
  // the included entries, `totalTokensConsidered` less the window's tokens), and a thousand
  // members' entries were the larger part of the expansion. The same list, once made, at every
  // read; an enumerable property where the data one stood, in the same place among the keys.
  let excluded: ReadonlyArray<ExcludedItem> | undefined
  Object.defineProperty(report, "excluded", {
    get: () => (excluded ??= expandExcluded()),
    enumerable: true,
    configurable: true
  })
  return {
    window,
    report,
    totalTokens: result.totalTokens,
    tokensOverBudget: result.tokensOverBudget
  } satisfies PipelineResult
}

const arbRows = fc.array(
  fc.record({
    content: fc.constantFrom("a", "b", "c", "d", "a\nb"),
    tokens: fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 30 }) }, { weight: 1, arbitrary: fc.integer({ min: -3, max: -1 }) }),
    priority: fc.option(fc.integer({ min: 0, max: 9 }), { nil: undefined }),
    time: fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined }),
    kind: fc.constantFrom("Message", "ToolOutput", "Document", "SystemPrompt"),
    pinned: fc.integer({ min: 0, max: 9 }).map((n) => n < 2),
    group: fc.option(fc.constantFrom("g1", "g2", "g3", "g4", "g5"), { nil: undefined, freq: 2 })
  }),
  { maxLength: 20 }
)
const toItem = (r: { content: string; tokens: number; priority: number | undefined; time: number | undefined; kind: string; pinned: boolean; group: string | undefined }) =>
  new ContextItem.ContextItem({
    content: r.content,
    tokens: r.tokens,
    kind: r.kind,
    pinned: r.pinned,
    ...(r.priority === undefined ? {} : { priority: r.priority }),
    ...(r.time === undefined ? {} : { timestamp: Timestamp.fromEpochMillis(r.time * 1000) }),
    ...(r.group === undefined ? {} : { group: r.group })
  })

const strategyLayers = Effect.gen(function*() {
  const knapsack = yield* KnapsackSlice.make({ bucketSize: 1 })
  return [
    [GreedySlice.layer, UShapedPlacer.layer],
    [Slicer.layer(knapsack), ChronologicalPlacer.layer],
    [GreedySlice.layer, SectionedPlacer.conversation]
  ] as const
})

const score = (s: number) => (Object.is(s, -0) ? "-0" : s)
const sameList = (
  actual: ReadonlyArray<IncludedItem | ExcludedItem>,
  expected: ReadonlyArray<IncludedItem | ExcludedItem>
) => {
  assert.strictEqual(actual.length, expected.length)
  for (let k = 0; k < expected.length; k++) {
    assert.strictEqual(actual[k]!.item, expected[k]!.item)
    assert.strictEqual(score(actual[k]!.score), score(expected[k]!.score))
    assert.deepStrictEqual(actual[k]!.reason, expected[k]!.reason)
  }
}

describe("Groups expansion in one pass (design item 136)", () => {
  it("the window, entries, report keys and totals of the transcribed expansion", async () => {
    const variants = await Effect.runPromise(strategyLayers)
    const scorers = [RecencyScorer.make(), PriorityScorer.make()] as const
    await fc.assert(
      fc.asyncProperty(
        arbRows,
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 200 }),
            fc.integer({ min: 0, max: 1 }),
            fc.integer({ min: 0, max: 2 }),
            fc.boolean(),
            fc.boolean()
          ),
          { minLength: 1, maxLength: 4 }
        ),
        async (rows, calls) => {
          const items = rows.map(toItem)
          for (const [max, scorer, variant, deduplication, reversed] of calls) {
            const b = new ContextBudget.ContextBudget({ maxTokens: max, targetTokens: max })
            const [slicer, placer] = variants[variant]!
            const layers = Layer.mergeAll(Scorer.layer(scorers[scorer]!), slicer, placer, OverflowNotifier.layerNoop)
            let raw: { result: PipelineResult; units: ReadonlyArray<ContextItem.ContextItem> } | undefined
            const runner: Groups.Runner<Pipeline.Options, unknown, never> = (units, budget, options) =>
              Pipeline.run(units, budget, options).pipe(
                Effect.map((result) => {
                  // A runner whose window is not in its included entries' order.
                  const given = reversed ? { ...result, window: result.window.slice().reverse() } : result
                  raw = { result: given, units }
                  return given
                }),
                Effect.provide(layers)
              )
            const outcome = await Effect.runPromise(
              Effect.result(Groups.runGrouped(items, b, { overflowStrategy: "Truncate", deduplication }, runner)).pipe(
                Effect.provide(OverflowNotifier.layerNoop)
              )
            )
            if (outcome._tag === "Failure" || raw === undefined) continue
            const { members } = await Effect.runPromise(Groups.collapse(items))
            const expected = expandResult(
              raw.result,
              raw.units,
              members,
              items.length,
              items.reduce((s, i) => s + i.tokens, 0)
            )
            const actual = outcome.success
            assert.strictEqual(actual.window.length, expected.window.length)
            actual.window.forEach((item, k) => assert.strictEqual(item, expected.window[k]))
            assert.deepStrictEqual(Object.keys(actual.report), Object.keys(expected.report))
            assert.deepStrictEqual(Object.keys(actual), Object.keys(expected))
            sameList(actual.report.included, expected.report.included)
            sameList(actual.report.excluded, expected.report.excluded)
            assert.strictEqual(actual.report.excluded, actual.report.excluded)
            assert.strictEqual(actual.report.events, expected.report.events)
            assert.strictEqual(actual.report.countRequirementShortfalls, expected.report.countRequirementShortfalls)
            assert.deepStrictEqual(
              [actual.totalTokens, actual.tokensOverBudget, actual.report.totalCandidates, actual.report.totalTokensConsidered],
              [expected.totalTokens, expected.tokensOverBudget, expected.report.totalCandidates, expected.report.totalTokensConsidered]
            )
            const descriptor = Object.getOwnPropertyDescriptor(actual.report, "excluded")
            assert.isTrue(descriptor?.enumerable === true && descriptor.configurable === true)
          }
        }
      ),
      { seed: 136, numRuns: 300 }
    )
  })
})
