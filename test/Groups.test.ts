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
  Placer,
  PriorityScorer,
  RecencyScorer,
  Scorer,
  Slicer,
  Timestamp,
  UShapedPlacer
} from "../src/index.ts"
import * as SectionedPlacer from "../src/placers/SectionedPlacer.ts"

type Fields = ConstructorParameters<typeof ContextItem.ContextItem>[0]
const item = (content: string, tokens: number, extra: Partial<Fields> = {}) =>
  new ContextItem.ContextItem({ content, tokens, ...extra })
const budget = (maxTokens: number, targetTokens: number) => new ContextBudget.ContextBudget({ maxTokens, targetTokens })
const contents = (items: ReadonlyArray<{ readonly content: string }>) => items.map((i) => i.content)

const byPriority = Layer.mergeAll(
  Scorer.layer(PriorityScorer.make()),
  GreedySlice.layer,
  UShapedPlacer.layer,
  OverflowNotifier.layerNoop
)
const run = (
  items: ReadonlyArray<ContextItem.ContextItem>,
  b: ContextBudget.ContextBudget,
  options?: Pipeline.Options,
  layers: Layer.Layer<Scorer.Scorer | Slicer.Slicer | Placer.Placer | OverflowNotifier.OverflowNotifier> = byPriority
) => Pipeline.run(items, b, options).pipe(Effect.provide(layers))

describe("Groups — selection", () => {
  it.effect("a group is selected or excluded as one unit: its tokens are counted together", () =>
    Effect.gen(function*() {
      // The call alone (3 tokens) and the result alone (4) each fit 6 tokens; together (7) they do not.
      const items = [
        item("call", 3, { group: "t1", priority: 9 }),
        item("note", 2, { priority: 1 }),
        item("result", 4, { group: "t1", priority: 9 })
      ]
      const result = yield* run(items, budget(100, 6))
      assert.deepStrictEqual(contents(result.window), ["note"])
      assert.deepStrictEqual(result.report.excluded.map((e) => [e.item.content, e.reason]), [
        ["call", { _tag: "BudgetExceeded", itemTokens: 7, availableTokens: 4 }],
        ["result", { _tag: "BudgetExceeded", itemTokens: 7, availableTokens: 4 }]
      ])
      const fits = yield* run(items, budget(100, 9))
      assert.deepStrictEqual(contents(fits.window).sort(), ["call", "note", "result"])
      assert.strictEqual(fits.totalTokens, 9)
    }))

  it.effect("members are adjacent and in input order wherever the placer puts their unit", () =>
    Effect.gen(function*() {
      const items = [
        item("a1", 1, { group: "a", priority: 2 }),
        item("b1", 1, { group: "b", priority: 9 }),
        item("x", 1, { priority: 5 }),
        item("a2", 1, { group: "a", priority: 1 }),
        item("b2", 1, { group: "b", priority: 0 }),
        item("a3", 1, { group: "a" })
      ]
      const result = yield* run(items, budget(100, 100))
      // U-shaped by unit score: b (priority 9) first, x (5) last, a (2) in between.
      assert.deepStrictEqual(contents(result.window), ["b1", "b2", "a1", "a2", "a3", "x"])
      const positions = (group: string) =>
        result.window.flatMap((i, k) => (i.group === group ? [k] : []))
      for (const group of ["a", "b"]) {
        const p = positions(group)
        assert.deepStrictEqual(p, p.map((_, j) => p[0]! + j), `members of ${group} adjacent`)
      }
      assert.deepStrictEqual(contents(result.window.filter((i) => i.group === "a")), ["a1", "a2", "a3"])
      assert.strictEqual(result.window[0]!.content, "b1")
    }))

  it.effect("every member carries its unit's score and reason", () =>
    Effect.gen(function*() {
      const items = [item("q", 2, { group: "g", priority: 3 }), item("r", 2, { group: "g", priority: 8 }), item("s", 1, { priority: 5 })]
      const result = yield* run(items, budget(100, 100))
      const byContent = new Map(result.report.included.map((i) => [i.item.content, i]))
      assert.strictEqual(byContent.get("q")!.score, byContent.get("r")!.score)
      assert.strictEqual(byContent.get("q")!.reason._tag, "Scored")
      // The unit's priority is the highest of its members' (8), above the single item's 5.
      assert.isAbove(byContent.get("q")!.score, byContent.get("s")!.score)
    }))

  it.effect("one pinned member pins the whole group", () =>
    Effect.gen(function*() {
      const items = [item("pinned", 3, { group: "g", pinned: true }), item("partner", 50, { group: "g" }), item("other", 1)]
      const result = yield* run(items, budget(100, 60))
      assert.deepStrictEqual(result.report.included.filter((i) => i.reason._tag === "Pinned").map((i) => i.item.content), [
        "pinned",
        "partner"
      ])
    }))

  it.effect("a negative token count in any member excludes the whole group as NegativeTokens", () =>
    Effect.gen(function*() {
      const items = [item("ok", 5, { group: "g" }), item("bad", -2, { group: "g" }), item("alone", 1)]
      const result = yield* run(items, budget(100, 100))
      assert.deepStrictEqual(contents(result.window), ["alone"])
      assert.deepStrictEqual(result.report.excluded.map((e) => [e.item.content, e.reason]), [
        ["ok", { _tag: "NegativeTokens", tokens: -2 }],
        ["bad", { _tag: "NegativeTokens", tokens: -2 }]
      ])
      assert.strictEqual(result.report.totalTokensConsidered, 4)
      assert.strictEqual(result.report.totalCandidates, 3)
    }))

  it.effect("a group whose tokens add up past Number.MAX_SAFE_INTEGER fails with TokenTotalError", () =>
    Effect.gen(function*() {
      const items = [item("a", Number.MAX_SAFE_INTEGER - 1, { group: "g" }), item("b", 5, { group: "g" })]
      const error = yield* Effect.flip(run(items, budget(100, 100)))
      assert.strictEqual(error._tag, "TokenTotalError")
    }))

  it.effect("a Deduplicated reason names the surviving unit's first member", () =>
    Effect.gen(function*() {
      const items = [
        item("same", 1, { group: "g1", priority: 9 }),
        item("tail", 1, { group: "g1", priority: 9 }),
        item("same", 1, { group: "g2", priority: 1 }),
        item("tail", 1, { group: "g2", priority: 1 })
      ]
      const result = yield* run(items, budget(100, 100))
      assert.deepStrictEqual(result.window, [items[0]!, items[1]!])
      assert.deepStrictEqual(result.report.excluded.map((e) => [e.item, e.reason]), [
        [items[2]!, { _tag: "Deduplicated", deduplicatedAgainst: "same" }],
        [items[3]!, { _tag: "Deduplicated", deduplicatedAgainst: "same" }]
      ])
    }))

  it.effect("the OverflowNotifier is told the members, not the units", () =>
    Effect.gen(function*() {
      const items = [item("p1", 6, { group: "g", pinned: true }), item("p2", 6, { group: "g" })]
      const layers = Layer.mergeAll(Scorer.layer(PriorityScorer.make()), GreedySlice.layer, UShapedPlacer.layer)
      const events = yield* Effect.gen(function*() {
        yield* Pipeline.run(items, budget(100, 10), { overflowStrategy: "Proceed" })
        const test = yield* OverflowNotifier.OverflowNotifierTest
        return yield* test.events
      }).pipe(Effect.provide(Layer.mergeAll(layers, OverflowNotifier.layerTest)))
      assert.strictEqual(events.length, 1)
      assert.deepStrictEqual(events[0]!.overflowingItems, items)
      assert.strictEqual(events[0]!.tokensOverBudget, 2)
    }))

  it.effect("a scorer sees a unit as the ContextItem the class constructor makes of its fields", () =>
    Effect.gen(function*() {
      const seen: Array<ContextItem.ContextItem> = []
      const recording = Scorer.make("recording", (unit, all) => {
        if (seen.length === 0) seen.push(...all)
        return unit.priority ?? 0
      })
      const at = (s: number) => Timestamp.fromEpochMillis(s * 1000)
      const first = item("call", 3, { group: "g", kind: "ToolOutput", source: "Tool", tags: ["x"], metadata: { n: 1 }, timestamp: at(5), priority: 2 })
      const items = [
        first,
        item("note", 1),
        item("result", 4, { group: "g", tags: ["y", "x"], timestamp: at(3), priority: 7, futureRelevanceHint: 0.5 })
      ]
      const layers = Layer.mergeAll(Scorer.layer(recording), GreedySlice.layer, UShapedPlacer.layer, OverflowNotifier.layerNoop)
      yield* run(items, budget(100, 100), undefined, layers)
      const unit = seen.find((i) => i.group === undefined && i.content !== "note")
      if (unit === undefined) return assert.fail("the scorer saw no unit")
      const expected = new ContextItem.ContextItem({
        content: "call\nresult",
        tokens: 7,
        kind: "ToolOutput",
        source: "Tool",
        tags: ["x", "y"],
        metadata: { n: 1 },
        pinned: false,
        priority: 7,
        futureRelevanceHint: 0.5,
        timestamp: at(3)
      }, { disableChecks: true })
      assert.strictEqual(Object.getPrototypeOf(unit), ContextItem.ContextItem.prototype)
      assert.deepStrictEqual(Reflect.ownKeys(unit), Reflect.ownKeys(expected))
      assert.deepStrictEqual(Object.getOwnPropertyDescriptors(unit), Object.getOwnPropertyDescriptors(expected))
      // Its tags and metadata are its own, as the constructor's copies are; the members are untouched.
      assert.notStrictEqual(unit.metadata, first.metadata)
      assert.deepStrictEqual(first.tags, ["x"])
    }))

  it.effect("a group of one item runs exactly as that item alone", () =>
    Effect.gen(function*() {
      const plain = [item("a", 3, { priority: 2 }), item("b", 5, { priority: 7 }), item("c", 4, { priority: 4 })]
      const grouped = plain.map((i, k) => new ContextItem.ContextItem({ ...i, group: `g${k}` }))
      const x = yield* run(plain, budget(100, 9))
      const y = yield* run(grouped, budget(100, 9))
      assert.deepStrictEqual(contents(y.window), contents(x.window))
      assert.deepStrictEqual(y.report.excluded.map((e) => [e.item.content, e.score, e.reason]), x.report.excluded.map((e) => [e.item.content, e.score, e.reason]))
    }))
})

describe("Groups — checks and reasons", () => {
  // An item with an invalid value, as one that bypassed the class's checks would arrive.
  const forged = (content: string, tokens: number, extra: Partial<Fields> = {}) =>
    new ContextItem.ContextItem({ content, tokens, ...extra }, { disableChecks: true })

  it.effect("a grouped member with fractional tokens fails with InvalidItemError naming it, not a defect", () =>
    Effect.gen(function*() {
      const items = [item("alone", 1), item("call", 2, { group: "g" }), forged("result", 1.5, { group: "g" })]
      const error = yield* Effect.flip(run(items, budget(100, 100)))
      if (error._tag !== "InvalidItemError") return assert.fail(`expected InvalidItemError, got ${error._tag}`)
      assert.deepStrictEqual([error.problem, error.list, error.index, error.content, error.tokens], [
        "NonIntegerTokens",
        "candidates",
        2,
        "result",
        1.5
      ])
    }))

  it.effect("a NaN token count in a group is an InvalidItemError, not a TokenTotalError", () =>
    Effect.gen(function*() {
      const items = [forged("call", Number.NaN, { group: "g" }), item("result", 1, { group: "g" })]
      const error = yield* Effect.flip(run(items, budget(100, 100)))
      if (error._tag !== "InvalidItemError") return assert.fail(`expected InvalidItemError, got ${error._tag}`)
      assert.deepStrictEqual([error.problem, error.index], ["NonIntegerTokens", 0])
    }))

  it.effect("grouped and ungrouped candidates fail the same way as without groups (Classify's check first)", () =>
    Effect.gen(function*() {
      const plain = [item("a", 1), forged("b", 2.5), item("c", 1)]
      const grouped = [item("a", 1, { group: "g" }), forged("b", 2.5), item("c", 1, { group: "g" })]
      const x = yield* Effect.flip(run(plain, budget(100, 100)))
      const y = yield* Effect.flip(run(grouped, budget(100, 100)))
      assert.deepStrictEqual(y, x)
    }))

  it.effect("a Deduplicated reason on a unit names the ungrouped survivor whose content equals the joined members", () =>
    Effect.gen(function*() {
      const items = [
        item("a\nb", 2, { priority: 9 }),
        item("a", 1, { group: "g", priority: 1 }),
        item("b", 1, { group: "g", priority: 1 })
      ]
      const result = yield* run(items, budget(100, 100))
      assert.deepStrictEqual(result.window, [items[0]!])
      assert.deepStrictEqual(result.report.excluded.map((e) => [e.item, e.reason]), [
        [items[1]!, { _tag: "Deduplicated", deduplicatedAgainst: "a\nb" }],
        [items[2]!, { _tag: "Deduplicated", deduplicatedAgainst: "a\nb" }]
      ])
    }))

  it.effect("a Deduplicated reason on an ungrouped item names the surviving unit's first member", () =>
    Effect.gen(function*() {
      const items = [
        item("a\nb", 2, { priority: 1 }),
        item("a", 1, { group: "g", priority: 9 }),
        item("b", 1, { group: "g", priority: 9 })
      ]
      const result = yield* run(items, budget(100, 100))
      assert.deepStrictEqual(result.report.excluded.map((e) => [e.item, e.reason]), [
        [items[0]!, { _tag: "Deduplicated", deduplicatedAgainst: "a" }]
      ])
    }))

  it.effect("two groups whose contents join to the same text: the reason names the survivor's first member", () =>
    Effect.gen(function*() {
      const items = [
        item("a\nb", 1, { group: "g1", priority: 9 }),
        item("c", 1, { group: "g1", priority: 9 }),
        item("a", 1, { group: "g2", priority: 1 }),
        item("b\nc", 1, { group: "g2", priority: 1 })
      ]
      const result = yield* run(items, budget(100, 100))
      assert.deepStrictEqual(result.window, [items[0]!, items[1]!])
      assert.deepStrictEqual(result.report.excluded.map((e) => [e.item, e.reason]), [
        [items[2]!, { _tag: "Deduplicated", deduplicatedAgainst: "a\nb" }],
        [items[3]!, { _tag: "Deduplicated", deduplicatedAgainst: "a\nb" }]
      ])
    }))

  it.effect("a PinnedOverride reason names the first pinned candidate, unit or not, by identity", () =>
    Effect.gen(function*() {
      // 10 pinned tokens leave an effective target of 40; the 45-token item would fit 50 but for them.
      const big = item("big", 45, { priority: 5 })
      const b = new ContextBudget.ContextBudget({ maxTokens: 100, targetTokens: 50 })
      const ungroupedFirst = [
        item("x\ny", 5, { pinned: true }),
        item("x", 2, { group: "g", pinned: true }),
        item("y", 3, { group: "g" }),
        big
      ]
      const first = yield* run(ungroupedFirst, b)
      assert.deepStrictEqual(first.report.excluded.map((e) => [e.item, e.reason]), [
        [big, { _tag: "PinnedOverride", displacedBy: "x\ny" }]
      ])
      const groupFirst = [ungroupedFirst[1]!, ungroupedFirst[2]!, ungroupedFirst[0]!, big]
      const second = yield* run(groupFirst, b)
      assert.deepStrictEqual(second.report.excluded.map((e) => [e.item, e.reason]), [
        [big, { _tag: "PinnedOverride", displacedBy: "x" }]
      ])
    }))

  it.effect("a unit has its earliest member's timestamp: a chronological placer puts the group where it starts", () =>
    Effect.gen(function*() {
      const at = (s: number) => Timestamp.fromEpochMillis(s * 1000)
      const items = [
        item("m0", 1, { timestamp: at(0) }),
        item("call", 1, { group: "g", timestamp: at(1) }),
        item("m2", 1, { timestamp: at(2) }),
        item("m3", 1, { timestamp: at(3) }),
        item("result", 1, { group: "g", timestamp: at(4) }),
        item("m5", 1, { timestamp: at(5) })
      ]
      const layers = Layer.mergeAll(RecencyScorer.layer, GreedySlice.layer, ChronologicalPlacer.layer, OverflowNotifier.layerNoop)
      const result = yield* run(items, budget(100, 100), undefined, layers)
      assert.deepStrictEqual(contents(result.window), ["m0", "call", "result", "m2", "m3", "m5"])
    }))
})

// ---------------------------------------------------------------------------------------------
// Properties

interface Row {
  readonly content: string
  readonly tokens: number
  readonly priority: number | undefined
  readonly time: number | undefined
  readonly kind: string
  readonly pinned: boolean
  readonly group: string | undefined
}
const toItem = (r: Row, group: string | undefined) =>
  new ContextItem.ContextItem({
    content: r.content,
    tokens: r.tokens,
    kind: r.kind,
    pinned: r.pinned,
    ...(r.priority === undefined ? {} : { priority: r.priority }),
    ...(r.time === undefined ? {} : { timestamp: Timestamp.fromEpochMillis(r.time * 1000) }),
    ...(group === undefined ? {} : { group })
  })
const arbRows = fc.array(
  fc.record({
    content: fc.constantFrom("a", "b", "c", "d", "e", "f", "g"),
    tokens: fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 30 }) }, { weight: 1, arbitrary: fc.integer({ min: -3, max: -1 }) }),
    priority: fc.option(fc.integer({ min: 0, max: 9 }), { nil: undefined }),
    time: fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined }),
    kind: fc.constantFrom("Message", "ToolOutput", "Document", "SystemPrompt"),
    pinned: fc.integer({ min: 0, max: 9 }).map((n) => n < 3),
    group: fc.option(fc.constantFrom("g1", "g2", "g3", "g4"), { nil: undefined })
  }),
  { maxLength: 16 }
)
const arbCandidates = arbRows.map((rows) => rows.map((r) => toItem(r, r.group)))
const arbBudget = fc.record({ max: fc.integer({ min: 0, max: 200 }), target: fc.integer({ min: 0, max: 200 }) }).map((
  { max, target }
) => budget(max, Math.min(max, target)))

const strategyLayers = Effect.gen(function*() {
  const knapsack = yield* KnapsackSlice.make({ bucketSize: 1 })
  return [
    ["greedy / u-shaped", GreedySlice.layer, UShapedPlacer.layer],
    ["knapsack / chronological", Slicer.layer(knapsack), ChronologicalPlacer.layer],
    ["greedy / conversation", GreedySlice.layer, SectionedPlacer.conversation]
  ] as const
})

describe("Groups — properties", () => {
  it("no group is ever split between window and excluded; members adjacent and in input order; totals consistent", async () => {
    const variants = await Effect.runPromise(strategyLayers)
    await fc.assert(
      fc.asyncProperty(
        arbCandidates,
        arbBudget,
        fc.constantFrom(...variants),
        fc.constantFrom("Throw" as const, "Truncate" as const, "Proceed" as const),
        fc.boolean(),
        async (items, b, [, slicer, placer], strategy, deduplication) => {
          const layers = Layer.mergeAll(Scorer.layer(RecencyScorer.make()), slicer, placer, OverflowNotifier.layerNoop)
          const outcome = await Effect.runPromise(
            Effect.result(Pipeline.run(items, b, { overflowStrategy: strategy, deduplication }).pipe(Effect.provide(layers)))
          )
          if (outcome._tag === "Failure") {
            assert.oneOf(outcome.failure._tag, ["OverflowError", "PinnedBudgetError"])
            return
          }
          const { report, totalTokens, window } = outcome.success
          // Every candidate exactly once, in the window or excluded.
          const all = [...report.included.map((i) => i.item), ...report.excluded.map((e) => e.item)]
          assert.strictEqual(all.length, items.length)
          assert.strictEqual(new Set(all).size, items.length)
          assert.deepStrictEqual(report.included.map((i) => i.item), window)
          assert.strictEqual(report.totalCandidates, items.length)
          assert.strictEqual(report.totalTokensConsidered, items.reduce((s, i) => s + i.tokens, 0))
          assert.strictEqual(totalTokens, window.reduce((s, i) => s + i.tokens, 0))
          const inWindow = new Set(window)
          for (const group of ["g1", "g2", "g3", "g4"]) {
            const members = items.filter((i) => i.group === group)
            if (members.length === 0) continue
            const placed = members.filter((m) => inWindow.has(m))
            assert.include([0, members.length], placed.length, `group ${group} split`)
            if (placed.length === 0) {
              const reasons = new Set(report.excluded.filter((e) => e.item.group === group).map((e) => JSON.stringify([e.score, e.reason])))
              assert.strictEqual(reasons.size, 1, `members of ${group} share score and reason`)
              continue
            }
            const positions = window.flatMap((i, k) => (i.group === group ? [k] : []))
            assert.deepStrictEqual(positions, positions.map((_, j) => positions[0]! + j), `group ${group} adjacent`)
            assert.deepStrictEqual(window.filter((i) => i.group === group), members, `group ${group} in input order`)
            const scores = new Set(report.included.filter((i) => i.item.group === group).map((i) => i.score))
            assert.strictEqual(scores.size, 1)
          }
        }
      ),
      { numRuns: 400 }
    )
  })

  it("items whose groups all have one member give the results of the same items without groups", async () => {
    await fc.assert(
      fc.asyncProperty(arbRows, arbBudget, async (rows, b) => {
        const plain = rows.map((r) => toItem(r, undefined))
        const unique = rows.map((r, k) => toItem(r, `u${k}`))
        const layers = Layer.mergeAll(Scorer.layer(RecencyScorer.make()), GreedySlice.layer, UShapedPlacer.layer, OverflowNotifier.layerNoop)
        const go = (xs: ReadonlyArray<ContextItem.ContextItem>) =>
          Effect.runPromise(Effect.result(Pipeline.run(xs, b, { overflowStrategy: "Truncate" }).pipe(Effect.provide(layers))))
        const [x, y] = [await go(plain), await go(unique)]
        assert.strictEqual(x._tag, y._tag)
        if (x._tag === "Success" && y._tag === "Success") {
          const index = (list: ReadonlyArray<ContextItem.ContextItem>) => (i: ContextItem.ContextItem) => list.indexOf(i)
          assert.deepStrictEqual(y.success.window.map(index(unique)), x.success.window.map(index(plain)))
          assert.deepStrictEqual(
            y.success.report.excluded.map((e) => [unique.indexOf(e.item), e.score, e.reason]),
            x.success.report.excluded.map((e) => [plain.indexOf(e.item), e.score, e.reason])
          )
        }
      }),
      { numRuns: 200 }
    )
  })

  // docs/design.md item 126: a member's entry, and a BudgetExceeded reason, are kept from call to
  // call; a warm call must give what a first call on new item objects (no entry kept) gives.
  it("a member's report entry kept from an earlier call equals the one a first call makes", async () => {
    const variants = await Effect.runPromise(strategyLayers)
    const scorers = [RecencyScorer.make(), PriorityScorer.make()] as const
    await fc.assert(
      fc.asyncProperty(
        arbRows,
        fc.array(fc.tuple(arbBudget, fc.integer({ min: 0, max: 1 }), fc.integer({ min: 0, max: 2 }), fc.boolean()), { minLength: 2, maxLength: 6 }),
        async (rows, calls) => {
          const items = rows.map((r) => toItem(r, r.group))
          for (const [b, scorer, variant, deduplication] of calls) {
            const [, slicer, placer] = variants[variant]!
            const layers = Layer.mergeAll(Scorer.layer(scorers[scorer]!), slicer, placer, OverflowNotifier.layerNoop)
            const go = (xs: ReadonlyArray<ContextItem.ContextItem>) =>
              Effect.runPromise(
                Effect.result(Pipeline.run(xs, b, { overflowStrategy: "Truncate", deduplication }).pipe(Effect.provide(layers)))
              )
            const warm = await go(items)
            const copies = rows.map((r) => toItem(r, r.group))
            const first = await go(copies)
            assert.strictEqual(warm._tag, first._tag)
            if (warm._tag !== "Success" || first._tag !== "Success") continue
            const at = (list: ReadonlyArray<ContextItem.ContextItem>) => (i: ContextItem.ContextItem) => list.indexOf(i)
            const entries = (list: ReadonlyArray<ContextItem.ContextItem>, r: typeof warm.success) => ({
              window: r.window.map(at(list)),
              included: r.report.included.map((e) => [list.indexOf(e.item), Object.is(e.score, -0) ? "-0" : e.score, e.reason]),
              excluded: r.report.excluded.map((e) => [list.indexOf(e.item), Object.is(e.score, -0) ? "-0" : e.score, e.reason]),
              totals: [r.totalTokens, r.tokensOverBudget, r.report.totalCandidates, r.report.totalTokensConsidered]
            })
            assert.deepStrictEqual(entries(items, warm.success), entries(copies, first.success))
          }
        }
      ),
      { numRuns: 300 }
    )
  })
})
