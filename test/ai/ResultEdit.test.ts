/**
 * The edits of a pipeline result (`ResultEdit`, docs/design.md "Edits of a pipeline result"):
 * random sequences of edits on random results — made up, and made by `Pipeline.run` — keep every
 * invariant of the report after each edit; each edit does what it says; an edit that changes
 * nothing gives back its input.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fc from "fast-check"
import * as CurrentTurn from "../../src/ai/CurrentTurn.ts"
import * as ResultEdit from "../../src/ai/ResultEdit.ts"
import type { ExcludedItem } from "../../src/ExcludedItem.ts"
import type { IncludedItem } from "../../src/IncludedItem.ts"
import {
  ContextBudget,
  ContextItem,
  ExclusionReason,
  GreedySlice,
  InclusionReason,
  OverflowNotifier,
  Pipeline,
  PriorityScorer,
  UShapedPlacer
} from "../../src/index.ts"
import type { PipelineResult } from "../../src/PipelineResult.ts"

// ---------------------------------------------------------------------------------------------
// The invariants, checked independently of the module.

const byScoreDescending = (excluded: ReadonlyArray<ExcludedItem>): boolean =>
  excluded.every((entry, k) => k === 0 || !(excluded[k - 1]!.score < entry.score))

/** Every invariant of docs/design.md's item that `result` breaks, measured against `target`. */
const violations = (result: PipelineResult, target: number): Array<string> => {
  const problems: Array<string> = []
  const { excluded, included } = result.report
  if (result.window.length !== included.length || result.window.some((item, k) => item !== included[k]!.item)) {
    problems.push("1: window is not the included items in order")
  }
  if (result.window.some((item) => item.tokens < 0)) problems.push("2: an item of negative tokens in the window")
  const windowTokens = result.window.reduce((sum, item) => sum + item.tokens, 0)
  if (result.totalTokens !== windowTokens) problems.push(`2: totalTokens ${result.totalTokens} != ${windowTokens}`)
  const seen = new Set<ContextItem.ContextItem>()
  for (const entry of [...included, ...excluded]) {
    if (seen.has(entry.item)) problems.push(`3: ${entry.item.content} reported twice`)
    seen.add(entry.item)
  }
  if (result.report.totalCandidates !== included.length + excluded.length) {
    problems.push(`3: totalCandidates ${result.report.totalCandidates} != ${included.length + excluded.length}`)
  }
  const considered = [...included, ...excluded].reduce((sum, entry) => sum + entry.item.tokens, 0)
  if (result.report.totalTokensConsidered !== considered) {
    problems.push(`4: totalTokensConsidered ${result.report.totalTokensConsidered} != ${considered}`)
  }
  if (!byScoreDescending(excluded)) problems.push("5: excluded not by score, highest first")
  const over = Math.max(0, result.totalTokens - target)
  if (result.tokensOverBudget !== over) problems.push(`6: tokensOverBudget ${result.tokensOverBudget} != ${over}`)
  return problems
}

/** A stable sort by score, highest first: what the report's excluded list must equal. */
const stableByScore = (entries: ReadonlyArray<ExcludedItem>): Array<ExcludedItem> =>
  entries.map((entry, k) => ({ entry, k }))
    .sort((a, b) => (a.entry.score > b.entry.score ? -1 : a.entry.score < b.entry.score ? 1 : a.k - b.k))
    .map(({ entry }) => entry)

// ---------------------------------------------------------------------------------------------
// Made-up results.

const scoreArb = fc.oneof(
  fc.constantFrom(0, 0.5, 1, 1, 0.25),
  fc.double({ min: 0, max: 1, noNaN: true }),
  fc.constantFrom(Infinity, -Infinity)
)

interface Made {
  readonly result: PipelineResult
  readonly target: number
}

let made = 0
const itemOf = (tokens: number): ContextItem.ContextItem =>
  new ContextItem.ContextItem({ content: `item ${made++}`, tokens })

/** A result as the pipeline leaves it: any window, the rest excluded by score (stable), a target. */
const resultArb: fc.Arbitrary<Made> = fc.record({
  candidates: fc.array(
    fc.record({
      included: fc.boolean(),
      tokens: fc.integer({ min: 0, max: 300 }),
      negative: fc.integer({ min: -20, max: -1 }),
      score: scoreArb,
      pinned: fc.boolean(),
      order: fc.double({ min: 0, max: 1, noNaN: true })
    }),
    { maxLength: 30 }
  ),
  targetShare: fc.double({ min: 0, max: 1.5, noNaN: true })
}).map(({ candidates, targetShare }) => {
  const included: Array<IncludedItem & { readonly order: number }> = []
  const excluded: Array<ExcludedItem> = []
  for (const c of candidates) {
    if (c.included) {
      included.push({
        item: itemOf(c.tokens),
        score: c.pinned ? 1 : c.score,
        reason: c.pinned ? InclusionReason.pinned : InclusionReason.scored,
        order: c.order
      })
    } else if (c.order < 0.1) {
      excluded.push({ item: itemOf(c.negative), score: 0, reason: ExclusionReason.NegativeTokens.make({ tokens: c.negative }) })
    } else {
      excluded.push({ item: itemOf(c.tokens), score: c.score, reason: ExclusionReason.budgetExceeded(c.tokens, 0) })
    }
  }
  included.sort((a, b) => a.order - b.order)
  const inWindow = included.map(({ item, reason, score }) => ({ item, score, reason }))
  const sorted = stableByScore(excluded)
  const totalTokens = inWindow.reduce((sum, e) => sum + e.item.tokens, 0)
  const target = Math.floor(totalTokens * targetShare)
  const result: PipelineResult = {
    window: inWindow.map((e) => e.item),
    report: {
      events: [],
      included: inWindow,
      excluded: sorted,
      totalCandidates: inWindow.length + sorted.length,
      totalTokensConsidered: [...inWindow, ...sorted].reduce((sum, e) => sum + e.item.tokens, 0),
      countRequirementShortfalls: []
    },
    totalTokens,
    tokensOverBudget: Math.max(0, totalTokens - target)
  }
  return { result, target }
})

// ---------------------------------------------------------------------------------------------
// Random edits, each with what it must have done.

type Edit =
  | { readonly _tag: "exclude"; readonly mask: ReadonlyArray<boolean>; readonly filter: string }
  | { readonly _tag: "dropLeading"; readonly opens: ReadonlyArray<boolean>; readonly droppable: ReadonlyArray<boolean> }
  | { readonly _tag: "reorder"; readonly ranks: ReadonlyArray<number | undefined> }
  | { readonly _tag: "insertPinned"; readonly existing: number | undefined; readonly position: number; readonly tokens: number }
  | { readonly _tag: "relabel"; readonly mask: ReadonlyArray<boolean> }
  | {
    readonly _tag: "fromSelection"
    readonly keep: ReadonlyArray<boolean>
    readonly order: ReadonlyArray<number>
    readonly scores: ReadonlyArray<number>
  }

const mask = fc.array(fc.boolean(), { minLength: 1, maxLength: 12 })
const editArb: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ _tag: fc.constant("exclude" as const), mask, filter: fc.constantFrom("start-on-user", "stable-window") }),
  fc.record({ _tag: fc.constant("dropLeading" as const), opens: mask, droppable: mask }),
  fc.record({
    _tag: fc.constant("reorder" as const),
    ranks: fc.array(fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }), { minLength: 1, maxLength: 12 })
  }),
  fc.record({
    _tag: fc.constant("insertPinned" as const),
    existing: fc.option(fc.nat(40), { nil: undefined }),
    position: fc.integer({ min: -2, max: 40 }),
    tokens: fc.integer({ min: 0, max: 200 })
  }),
  fc.record({ _tag: fc.constant("relabel" as const), mask }),
  fc.record({
    _tag: fc.constant("fromSelection" as const),
    keep: mask,
    order: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 12 }),
    scores: fc.array(fc.constantFrom(0, 0, 1, 0.5), { minLength: 1, maxLength: 12 })
  })
)

const cyclic = <A>(values: ReadonlyArray<A>, k: number): A => values[k % values.length]!
/** A per-item choice that stays with the item wherever it moves. */
const byItem = <A>(values: ReadonlyArray<A>, item: ContextItem.ContextItem): A =>
  cyclic(values, Number.parseInt(item.content.slice(5), 10))

const summarized = ExclusionReason.Summarized.make({ summaryId: "summary-test" })

/** Applies `edit`; asserts what the edit itself promises (beyond the invariants). */
const apply = (result: PipelineResult, edit: Edit, target: number): PipelineResult => {
  const { excluded, included } = result.report
  switch (edit._tag) {
    case "exclude": {
      const reason = ExclusionReason.Filtered.make({ filterName: edit.filter })
      const next = ResultEdit.exclude(result, (_, k) => cyclic(edit.mask, k), reason)
      const leaving = included.filter((_, k) => cyclic(edit.mask, k))
      if (leaving.length === 0) assert.strictEqual(next, result, "an exclusion of nothing gives its input back")
      assert.deepStrictEqual(next.report.included, included.filter((_, k) => !cyclic(edit.mask, k)))
      assert.deepStrictEqual(
        next.report.excluded,
        stableByScore([...excluded, ...leaving.map((e) => ({ item: e.item, score: e.score, reason }))])
      )
      return next
    }
    case "dropLeading": {
      const opens = (item: ContextItem.ContextItem) => byItem(edit.opens, item)
      const droppable = (item: ContextItem.ContextItem) => byItem(edit.droppable, item)
      const next = ResultEdit.dropLeading(result, { opens, droppable }, summarized)
      const first = included.findIndex((e) => opens(e.item))
      const expected = first < 0 ? included : included.filter((e, k) => !(k < first && droppable(e.item)))
      assert.deepStrictEqual(next.report.included, expected)
      if (expected.length === included.length) assert.strictEqual(next, result)
      return next
    }
    case "reorder": {
      const rankOf = (entry: IncludedItem) => byItem(edit.ranks, entry.item)
      const next = ResultEdit.reorder(result, rankOf)
      const after = next.report.included
      assert.strictEqual(after.length, included.length)
      const places = included.map((e, k) => (rankOf(e) === undefined ? -1 : k)).filter((k) => k >= 0)
      // Unranked items keep their places; ranked ones fill theirs in rank order, ties stable.
      included.forEach((e, k) => {
        if (rankOf(e) === undefined) assert.strictEqual(after[k], e)
      })
      const expected = places.map((k) => included[k]!).map((e, q) => ({ e, q }))
        .sort((a, b) => rankOf(a.e)! - rankOf(b.e)! || a.q - b.q)
      places.forEach((k, q) => assert.strictEqual(after[k], expected[q]!.e))
      if (after.every((e, k) => e === included[k])) assert.strictEqual(next, result)
      return next
    }
    case "insertPinned": {
      const all = [...included, ...excluded]
      const item = edit.existing === undefined || all.length === 0
        ? itemOf(edit.tokens)
        : all[edit.existing % all.length]!.item
      const next = ResultEdit.insertPinned(result, item, { position: edit.position, targetTokens: target })
      if (item.tokens < 0) {
        // As Classify does with a pinned item of negative tokens: excluded, never in the window
        // (an excluded candidate stays as it was).
        assert.isFalse(next.report.included.some((e) => e.item === item))
        const entry = next.report.excluded.find((e) => e.item === item)
        const was = excluded.find((e) => e.item === item)
        assert.deepStrictEqual(entry, was ?? { item, score: 0, reason: ExclusionReason.NegativeTokens.make({ tokens: item.tokens }) })
        return next
      }
      const at = next.report.included.findIndex((e) => e.item === item)
      const others = included.filter((e) => e.item !== item).length
      assert.strictEqual(at, Math.max(0, Math.min(others, edit.position)))
      assert.deepStrictEqual(next.report.included[at]!.reason, InclusionReason.pinned)
      assert.strictEqual(next.report.included[at]!.score, 1)
      assert.isFalse(next.report.excluded.some((e) => e.item === item))
      return next
    }
    case "relabel": {
      const reasonOf = (entry: ExcludedItem) => (byItem(edit.mask, entry.item) ? summarized : undefined)
      const next = ResultEdit.relabel(result, reasonOf)
      assert.strictEqual(next.report.excluded.length, excluded.length)
      next.report.excluded.forEach((e, k) => {
        assert.strictEqual(e.item, excluded[k]!.item)
        assert.strictEqual(e.score, excluded[k]!.score)
        assert.deepStrictEqual(e.reason, reasonOf(excluded[k]!) ?? excluded[k]!.reason)
      })
      if (!excluded.some((e) => reasonOf(e) !== undefined)) assert.strictEqual(next, result)
      return next
    }
    case "fromSelection": {
      // A window no stage chose: some candidates in any order, the others excluded unsorted.
      const all = [...included, ...excluded].map((e) => e.item)
      const kept = all.filter((item) => byItem(edit.keep, item))
        .map((item) => ({ item, key: byItem(edit.order, item) }))
        .sort((a, b) => a.key - b.key)
        .map(({ item }): IncludedItem => ({ item, score: 1, reason: InclusionReason.kept }))
      const left = all.filter((item) => !byItem(edit.keep, item))
        .map((item): ExcludedItem => ({
          item,
          score: byItem(edit.scores, item),
          reason: ExclusionReason.Filtered.make({ filterName: "stable-window" })
        }))
      const next = ResultEdit.fromSelection({ included: kept, excluded: left, targetTokens: target })
      // An item of negative tokens is excluded as Classify would; the other entries are used as they are.
      const negative = kept.filter((e) => e.item.tokens < 0)
      if (negative.length === 0) assert.strictEqual(next.report.included, kept)
      next.report.included.forEach((e, k) => assert.strictEqual(e, kept.filter((e) => e.item.tokens >= 0)[k]))
      assert.deepStrictEqual(
        next.report.excluded,
        stableByScore([
          ...left,
          ...negative.map((e) => ({ item: e.item, score: 0, reason: ExclusionReason.NegativeTokens.make({ tokens: e.item.tokens }) }))
        ])
      )
      return next
    }
  }
}

/** Applies `edits` in turn, checking every invariant after each. */
const check = (start: Made, edits: ReadonlyArray<Edit>): void => {
  assert.deepStrictEqual(violations(start.result, start.target), [], "the generated result keeps the invariants")
  let result = start.result
  for (const edit of edits) {
    const events = result.report.events
    const shortfalls = result.report.countRequirementShortfalls
    result = apply(result, edit, start.target)
    assert.deepStrictEqual(violations(result, start.target), [], `after ${edit._tag}`)
    if (edit._tag !== "fromSelection") {
      assert.strictEqual(result.report.events, events, "7: no edit runs a stage")
      assert.strictEqual(result.report.countRequirementShortfalls, shortfalls)
    }
  }
}

/** `CurrentTurn.openOnUser` as it was before `ResultEdit` (ba1a813), rebuilding the report by hand. */
const openOnUserBefore = (
  result: PipelineResult,
  conversationRole: (item: ContextItem.ContextItem) => string | undefined,
  kept: ReadonlySet<ContextItem.ContextItem>
): PipelineResult => {
  const included = result.report.included
  let first = -1
  for (let k = 0; k < included.length; k++) {
    const item = included[k]!.item
    const role = conversationRole(item)
    if (role !== undefined && (role === "user" || kept.has(item))) {
      first = k
      break
    }
  }
  if (first < 0) return result
  const dropped: Array<IncludedItem> = []
  const stays: Array<IncludedItem> = []
  for (let k = 0; k < included.length; k++) {
    const entry = included[k]!
    if (k < first && conversationRole(entry.item) !== undefined) dropped.push(entry)
    else stays.push(entry)
  }
  if (dropped.length === 0) return result
  let droppedTokens = 0
  for (const entry of dropped) droppedTokens += entry.item.tokens
  const reason = ExclusionReason.Filtered.make({ filterName: CurrentTurn.startOnUserFilter })
  const excluded: Array<ExcludedItem> = [
    ...result.report.excluded,
    ...dropped.map((entry) => ({ item: entry.item, score: entry.score, reason }))
  ]
  excluded.sort((a, b) => (a.score > b.score ? -1 : a.score < b.score ? 1 : 0))
  const totalTokens = result.totalTokens - droppedTokens
  return {
    window: stays.map((entry) => entry.item),
    report: { ...result.report, included: stays, excluded },
    totalTokens,
    tokensOverBudget: Math.max(0, result.tokensOverBudget - droppedTokens)
  }
}

describe("ResultEdit", () => {
  it("K3 openOnUser through dropLeading gives what the hand-built report gave", () => {
    const roleArb = fc.array(fc.constantFrom(undefined, "user", "assistant", "tool", "system"), { minLength: 1, maxLength: 9 })
    fc.assert(
      fc.property(resultArb, roleArb, mask, (start, roles, keptMask) => {
        const role = (item: ContextItem.ContextItem) => byItem(roles, item)
        const kept = new Set(start.result.window.filter((item) => byItem(keptMask, item) && role(item) !== undefined))
        const conversationRole = (item: ContextItem.ContextItem) => {
          const r = role(item)
          return r === "user" || r === "assistant" || r === "tool" || r === "system" ? r : undefined
        }
        const now = CurrentTurn.openOnUser(start.result, conversationRole, kept)
        const before = openOnUserBefore(start.result, conversationRole, kept)
        assert.deepStrictEqual(now, before)
        if (before === start.result) assert.strictEqual(now, start.result)
      }),
      { seed: 3, numRuns: 500 }
    )
  })

  it("invariants: random sequences of edits on made-up results keep every invariant after each edit", () => {
    for (const seed of [1, 25, 2025]) {
      fc.assert(fc.property(resultArb, fc.array(editArb, { maxLength: 8 }), (start, edits) => check(start, edits)), {
        seed,
        numRuns: 300
      })
    }
  })

  it.effect("invariants: random sequences of edits on Pipeline.run's results keep every invariant after each edit", () =>
    Effect.gen(function*() {
      const inputs = fc.sample(
        fc.record({
          items: fc.array(
            fc.record({
              tokens: fc.integer({ min: -5, max: 300 }),
              priority: fc.integer({ min: 0, max: 4 }),
              pinned: fc.boolean(),
              duplicate: fc.boolean()
            }),
            { maxLength: 25 }
          ),
          target: fc.integer({ min: 0, max: 2_000 }),
          overflow: fc.constantFrom("Truncate" as const, "Proceed" as const),
          edits: fc.array(editArb, { maxLength: 8 })
        }),
        { seed: 77, numRuns: 200 }
      )
      let ran = 0
      for (const input of inputs) {
        const items = input.items.map((c, k) =>
          new ContextItem.ContextItem({
            content: `item ${made++}${c.duplicate ? "" : ` ${k}`}`,
            tokens: c.tokens,
            priority: c.priority,
            pinned: c.pinned && c.tokens >= 0 && c.tokens < 100
          })
        )
        const budget = new ContextBudget.ContextBudget({ maxTokens: 10_000, targetTokens: input.target })
        const run = yield* Effect.result(
          Pipeline.run(items, budget, { overflowStrategy: input.overflow, deduplication: true })
        )
        if (run._tag === "Failure") continue
        ran++
        check({ result: run.success, target: input.target }, input.edits)
      }
      assert.isAtLeast(ran, 100)
    }).pipe(Effect.provide(Layer.mergeAll(PriorityScorer.layer, GreedySlice.layer, UShapedPlacer.layer, OverflowNotifier.layerNoop))))

  it("exclude keeps the score the item was included with, and the excess shrinks by what left", () => {
    const a = itemOf(50)
    const b = itemOf(70)
    const result = ResultEdit.fromSelection({
      included: [{ item: a, score: 0.7, reason: InclusionReason.scored }, { item: b, score: 0.2, reason: InclusionReason.scored }],
      excluded: [],
      targetTokens: 100
    })
    assert.strictEqual(result.tokensOverBudget, 20)
    const reason = ExclusionReason.Filtered.make({ filterName: "start-on-user" })
    const next = ResultEdit.exclude(result, (entry) => entry.item === a, reason)
    assert.deepStrictEqual(next.report.excluded, [{ item: a, score: 0.7, reason }])
    assert.strictEqual(next.totalTokens, 70)
    assert.strictEqual(next.tokensOverBudget, 0)
  })

  it("dropLeading drops nothing when no item opens the window", () => {
    const result = ResultEdit.fromSelection({
      included: [{ item: itemOf(5), score: 1, reason: InclusionReason.scored }],
      excluded: [],
      targetTokens: 10
    })
    assert.strictEqual(ResultEdit.dropLeading(result, { opens: () => false, droppable: () => true }, summarized), result)
  })

  it("insertPinned of a new item adds a candidate and its tokens; of an excluded one moves it into the window", () => {
    const a = itemOf(10)
    const out = itemOf(30)
    const result = ResultEdit.fromSelection({
      included: [{ item: a, score: 0.5, reason: InclusionReason.scored }],
      excluded: [{ item: out, score: 0.1, reason: ExclusionReason.budgetExceeded(30, 5) }],
      targetTokens: 15
    })
    const summary = itemOf(4)
    const withSummary = ResultEdit.insertPinned(result, summary, { position: 0, targetTokens: 15 })
    assert.deepStrictEqual(withSummary.window, [summary, a])
    assert.strictEqual(withSummary.report.totalCandidates, 3)
    assert.strictEqual(withSummary.report.totalTokensConsidered, 44)
    assert.strictEqual(withSummary.tokensOverBudget, 0)
    const moved = ResultEdit.insertPinned(withSummary, out, { position: 99, targetTokens: 15 })
    assert.deepStrictEqual(moved.window, [summary, a, out])
    assert.deepStrictEqual(moved.report.excluded, [])
    assert.strictEqual(moved.report.totalCandidates, 3)
    assert.strictEqual(moved.tokensOverBudget, 29)
  })

  it("fromSelection puts an excluded list that is not by score in score order, stable", () => {
    const [x, y, z] = [itemOf(1), itemOf(2), itemOf(3)]
    const reason = ExclusionReason.Filtered.make({ filterName: "stable-window" })
    const result = ResultEdit.fromSelection({
      included: [],
      excluded: [{ item: x, score: 0, reason }, { item: y, score: 1, reason }, { item: z, score: 0, reason }],
      targetTokens: 0
    })
    assert.deepStrictEqual(result.report.excluded.map((e) => e.item), [y, x, z])
    assert.strictEqual(result.report.totalTokensConsidered, 6)
  })
})
