import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Option, Schema } from "effect"
import * as fc from "fast-check"
import * as BudgetAnalysis from "../src/BudgetAnalysis.ts"
import {
  ChronologicalPlacer,
  ContextBudget,
  ContextItem,
  CountConstrainedKnapsackSlice,
  CountQuotaSlice,
  GreedySlice,
  InvalidConfigError,
  KnapsackSlice,
  OverflowNotifier,
  Pipeline,
  PriorityScorer,
  QuotaSlice,
  ReflexiveScorer,
  Scorer,
  Slicer,
  UShapedPlacer
} from "../src/index.ts"

// Scores are priority / 10, so GreedySlice's density is priority / (10 · tokens): easy to work
// out by hand in the examples below.
const byPriority = Scorer.layer(Scorer.make("priority/10", (item) => (item.priority ?? 0) / 10))
const greedy = Layer.mergeAll(byPriority, GreedySlice.layer, UShapedPlacer.layer)
const knapsack = Layer.mergeAll(byPriority, KnapsackSlice.layer({ bucketSize: 1 }), UShapedPlacer.layer)

/** A layer whose scorer counts the runs (each run scores once). */
const counting = () => {
  const counter = { runs: 0 }
  const layer = Layer.mergeAll(
    Scorer.layer(Scorer.makeAll("counting", (items) => {
      counter.runs++
      return items.map((item) => (item.priority ?? 0) / 10)
    })),
    GreedySlice.layer,
    UShapedPlacer.layer
  )
  return { counter, layer }
}

const item = (
  content: string,
  tokens: number,
  extra: Partial<{ priority: number; pinned: boolean; kind: string; futureRelevanceHint: number }> = {}
): ContextItem.ContextItem => new ContextItem.ContextItem({ content, tokens, ...extra })
const budget = (
  maxTokens: number,
  targetTokens: number,
  extra: Partial<{ outputReserve: number; reservedSlots: Record<string, number>; estimationSafetyMarginPercent: number }> =
    {}
) => new ContextBudget.ContextBudget({ maxTokens, targetTokens, ...extra })
const contents = (items: ReadonlyArray<{ readonly content: string }>) => items.map((i) => i.content)

const quotaSlicers = [
  { name: "QuotaSlice", layer: QuotaSlice.layer({ inner: GreedySlice.make(), quotas: [] }) },
  { name: "CountQuotaSlice", layer: CountQuotaSlice.layer({ inner: GreedySlice.make(), entries: [] }) },
  { name: "CountConstrainedKnapsackSlice", layer: CountConstrainedKnapsackSlice.layer({ entries: [] }) }
] as const

const marginalMessage = "GetMarginalItems requires monotonic item inclusion. QuotaSlice produces " +
  "non-monotonic inclusion as budget changes shift percentage allocations."
const minBudgetMessage = "FindMinBudgetFor requires monotonic item inclusion. QuotaSlice and CountQuotaSlice " +
  "produce non-monotonic inclusion as budget changes shift allocations. Use a GreedySlice or KnapsackSlice " +
  "inner slicer for budget simulation."

// GreedySlice is not monotonic: at 10 tokens it takes A (densest, 6 tokens) and then neither B
// nor C fits the 4 left; at 5 tokens A does not fit and B does.
const nonMonotonic = {
  a: item("A", 6, { priority: 9 }), // density 0.015
  b: item("B", 5, { priority: 5 }), // 0.01
  c: item("C", 5, { priority: 4 }) // 0.008
}

describe("BudgetAnalysis.dryRun", () => {
  it.effect("returns the report Pipeline.run builds", () =>
    Effect.gen(function*() {
      const items = [item("a", 10, { priority: 9 }), item("b", 20, { priority: 5 }), item("c", 90, { priority: 1 })]
      const b = budget(100, 40)
      const report = yield* BudgetAnalysis.dryRun(items, b).pipe(Effect.provide(greedy))
      const run = yield* Pipeline.run(items, b).pipe(Effect.provide([greedy, OverflowNotifier.layerNoop]))
      assert.deepStrictEqual(report, run.report)
      assert.deepStrictEqual(contents(report.included.map((e) => e.item)).sort(), ["a", "b"])
    }))

  it.effect("needs no OverflowNotifier, and a Proceed overflow notifies nobody", () =>
    Effect.gen(function*() {
      const items = [item("pinned", 80, { pinned: true }), item("x", 5, { priority: 5 })]
      const b = budget(100, 50)
      const events = yield* Effect.gen(function*() {
        const report = yield* BudgetAnalysis.dryRun(items, b, { overflowStrategy: "Proceed" })
        assert.deepStrictEqual(contents(report.included.map((e) => e.item)), ["pinned"])
        const recorder = yield* OverflowNotifier.OverflowNotifierTest
        const afterDryRun = yield* recorder.events
        // The same run through Pipeline.run does notify: the overflow is real.
        yield* Pipeline.run(items, b, { overflowStrategy: "Proceed" })
        return { afterDryRun, afterRun: yield* recorder.events }
      }).pipe(Effect.provide([greedy, OverflowNotifier.layerTest]))
      assert.strictEqual(events.afterDryRun.length, 0)
      assert.strictEqual(events.afterRun.length, 1)
    }))

  it.effect("is deterministic: identical inputs give identical reports (DryRun Determinism Invariant)", () =>
    Effect.gen(function*() {
      // Equal densities everywhere: only the tie-break decides.
      const items = Array.from({ length: 12 }, (_, i) => item(`t${i}`, 10, { priority: 5 }))
      const b = budget(55, 55)
      const first = yield* BudgetAnalysis.dryRun(items, b).pipe(Effect.provide(greedy))
      const second = yield* BudgetAnalysis.dryRun(items, b).pipe(Effect.provide(greedy))
      assert.deepStrictEqual(first, second)
      assert.deepStrictEqual(contents(first.included.map((e) => e.item)).sort(), ["t0", "t1", "t2", "t3", "t4"])
    }))

  it.effect("fails as the pipeline does", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        BudgetAnalysis.dryRun([item("p", 200, { pinned: true })], budget(100, 100)).pipe(Effect.provide(greedy))
      )
      assert.strictEqual(error._tag, "PinnedBudgetError")
    }))
})

describe("BudgetAnalysis.getMarginalItems", () => {
  const abc = [item("a", 10, { priority: 9 }), item("b", 20, { priority: 5 }), item("c", 30, { priority: 1 })]

  it.effect("returns primary \\ margin: included at the budget, not at budget − slack", () =>
    Effect.gen(function*() {
      // At 60 all three fit; at 30, a and b (density order a, b, c).
      const marginal = yield* BudgetAnalysis.getMarginalItems(abc, budget(60, 60), 30).pipe(Effect.provide(greedy))
      assert.deepStrictEqual(contents(marginal), ["c"])
      assert.strictEqual(marginal[0], abc[2])
    }))

  it.effect("lists them in the full-budget window's order", () =>
    Effect.gen(function*() {
      const marginal = yield* BudgetAnalysis.getMarginalItems(abc, budget(60, 60), 50).pipe(
        Effect.provide(Layer.mergeAll(byPriority, GreedySlice.layer, ChronologicalPlacer.layer))
      )
      const full = yield* BudgetAnalysis.dryRun(abc, budget(60, 60)).pipe(
        Effect.provide(Layer.mergeAll(byPriority, GreedySlice.layer, ChronologicalPlacer.layer))
      )
      assert.deepStrictEqual(contents(marginal), contents(full.included.map((e) => e.item)).filter((c) => c !== "a"))
    }))

  it.effect("reduced budget: maxTokens − slack and targetTokens − slack, with the same outputReserve, reserved slots and margin", () =>
    Effect.gen(function*() {
      const seen: Array<Slicer.Budget> = []
      const recording = Slicer.layer(Slicer.fromIndices("recording", (_, b) => {
        seen.push({ maxTokens: b.maxTokens, targetTokens: b.targetTokens })
        return []
      }))
      const b = budget(200, 150, { outputReserve: 20, reservedSlots: { Memory: 10 }, estimationSafetyMarginPercent: 10 })
      yield* BudgetAnalysis.getMarginalItems([item("x", 5, { priority: 1 })], b, 40).pipe(
        Effect.provide(Layer.mergeAll(byPriority, recording, UShapedPlacer.layer))
      )
      // Effective budgets (spec pipeline/slice.md): max = (max − reserve − slots) · 0.9,
      // target = min((target − slots) · 0.9, max).
      assert.deepStrictEqual(seen, [
        { maxTokens: Math.floor(170 * 0.9), targetTokens: Math.floor(140 * 0.9) },
        { maxTokens: Math.floor(130 * 0.9), targetTokens: Math.floor(100 * 0.9) }
      ])
    }))

  it.effect("compares items by identity: an equal-content item in the reduced window does not hide a marginal one", () =>
    Effect.gen(function*() {
      // At 10 tokens the window is {A}; at 5 it is {B}; both read "dup". A content key (the Rust
      // implementation's) would call A not marginal.
      const a = item("dup", 10, { priority: 9 })
      const b = item("dup", 5, { priority: 4 })
      const marginal = yield* BudgetAnalysis.getMarginalItems([a, b], budget(10, 10), 5, { deduplication: false }).pipe(
        Effect.provide(greedy)
      )
      assert.strictEqual(marginal.length, 1)
      assert.strictEqual(marginal[0], a)
    }))

  it.effect("slack 0 answers [] without running the pipeline", () =>
    Effect.gen(function*() {
      const { counter, layer } = counting()
      const marginal = yield* BudgetAnalysis.getMarginalItems(abc, budget(60, 60), 0).pipe(Effect.provide(layer))
      assert.deepStrictEqual(marginal, [])
      assert.strictEqual(counter.runs, 0)
    }))

  it.effect("runs the pipeline twice", () =>
    Effect.gen(function*() {
      const { counter, layer } = counting()
      yield* BudgetAnalysis.getMarginalItems(abc, budget(60, 60), 10).pipe(Effect.provide(layer))
      assert.strictEqual(counter.runs, 2)
    }))

  it.effect("the diff is one-sided: an item only the smaller budget admits is not reported (GreedySlice is not monotonic)", () =>
    Effect.gen(function*() {
      const { a, b, c } = nonMonotonic
      const items = [a, b, c]
      const at10 = yield* BudgetAnalysis.dryRun(items, budget(10, 10)).pipe(Effect.provide(greedy))
      const at5 = yield* BudgetAnalysis.dryRun(items, budget(5, 5)).pipe(Effect.provide(greedy))
      assert.deepStrictEqual(contents(at10.included.map((e) => e.item)), ["A"])
      assert.deepStrictEqual(contents(at5.included.map((e) => e.item)), ["B"])
      const marginal = yield* BudgetAnalysis.getMarginalItems(items, budget(10, 10), 5).pipe(Effect.provide(greedy))
      assert.deepStrictEqual(marginal, [a])
    }))

  for (const quota of quotaSlicers) {
    it.effect(`QuotaSlice guard: refuses ${quota.name} with the chapter's message`, () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(
          BudgetAnalysis.getMarginalItems(abc, budget(60, 60), 10).pipe(
            Effect.provide(Layer.mergeAll(byPriority, quota.layer, UShapedPlacer.layer))
          )
        )
        assert.instanceOf(error, BudgetAnalysis.NonMonotonicSlicerError)
        assert.strictEqual(error.message, marginalMessage)
        assert.strictEqual(error.operation, "getMarginalItems")
      }))
  }

  it.effect("QuotaSlice guard comes first: it refuses even a slack of 0 or an invalid one", () =>
    Effect.gen(function*() {
      const layer = Layer.mergeAll(byPriority, quotaSlicers[0].layer, UShapedPlacer.layer)
      const zero = yield* Effect.flip(BudgetAnalysis.getMarginalItems(abc, budget(60, 60), 0).pipe(Effect.provide(layer)))
      const negative = yield* Effect.flip(
        BudgetAnalysis.getMarginalItems(abc, budget(60, 60), -1).pipe(Effect.provide(layer))
      )
      assert.strictEqual(zero._tag, "NonMonotonicSlicerError")
      assert.strictEqual(negative._tag, "NonMonotonicSlicerError")
    }))

  it.effect("SlackTokensError when the slack is negative or not an integer", () =>
    Effect.gen(function*() {
      for (const slack of [-1, 1.5, Number.NaN, Infinity]) {
        const error = yield* Effect.flip(
          BudgetAnalysis.getMarginalItems(abc, budget(60, 60), slack).pipe(Effect.provide(greedy))
        )
        assert.instanceOf(error, BudgetAnalysis.SlackTokensError)
        assert.strictEqual(error.message, `slackTokens (${slack}) must be a non-negative integer`)
      }
    }))

  it.effect("SlackTokensError when the reduced targetTokens would be negative", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        BudgetAnalysis.getMarginalItems(abc, budget(100, 40), 41).pipe(Effect.provide(greedy))
      )
      assert.instanceOf(error, BudgetAnalysis.SlackTokensError)
      assert.strictEqual(
        error.message,
        "slackTokens (41) must not exceed targetTokens (40): the reduced budget's targetTokens would be negative"
      )
    }))

  it.effect("SlackTokensError when the reduced maxTokens would fall below the outputReserve", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        BudgetAnalysis.getMarginalItems(abc, budget(100, 100, { outputReserve: 60 }), 50).pipe(Effect.provide(greedy))
      )
      assert.instanceOf(error, BudgetAnalysis.SlackTokensError)
      assert.strictEqual(error.message, "slackTokens (50) must leave maxTokens − slackTokens (50) at least outputReserve (60)")
    }))

  it.effect("a slack equal to targetTokens is allowed (the reduced window is empty)", () =>
    Effect.gen(function*() {
      const marginal = yield* BudgetAnalysis.getMarginalItems(abc, budget(60, 60), 60).pipe(Effect.provide(greedy))
      assert.deepStrictEqual(contents(marginal).sort(), ["a", "b", "c"])
    }))

  it.effect("a run's failure is the simulation's failure", () =>
    Effect.gen(function*() {
      const items = [item("p", 50, { pinned: true }), ...abc]
      const error = yield* Effect.flip(
        BudgetAnalysis.getMarginalItems(items, budget(60, 60), 20).pipe(Effect.provide(greedy))
      )
      assert.strictEqual(error._tag, "PinnedBudgetError")
    }))
})

describe("BudgetAnalysis.findMinBudgetFor", () => {
  const some = (n: number) => Option.some(n)

  it.effect("returns the smallest budget whose window holds the target", () =>
    Effect.gen(function*() {
      // Density order a (0.09), b (0.025), c (0.0033): c needs all 60 tokens.
      const items = [item("a", 10, { priority: 9 }), item("b", 20, { priority: 5 }), item("c", 30, { priority: 1 })]
      const found = yield* BudgetAnalysis.findMinBudgetFor(items, budget(100, 100), items[2]!, 1000).pipe(
        Effect.provide(greedy)
      )
      assert.deepStrictEqual(found, some(60))
    }))

  it.effect("the answer holds the target and one token less does not", () =>
    Effect.gen(function*() {
      const items = [item("a", 17, { priority: 9 }), item("b", 23, { priority: 5 }), item("c", 31, { priority: 1 })]
      const found = yield* BudgetAnalysis.findMinBudgetFor(items, budget(10, 10), items[1]!, 500).pipe(
        Effect.provide(greedy)
      )
      assert.deepStrictEqual(found, some(40))
      const at = (m: number) =>
        BudgetAnalysis.dryRun(items, budget(m, m)).pipe(
          Effect.map((r) => r.included.some((e) => e.item === items[1])),
          Effect.provide(greedy)
        )
      assert.isTrue(yield* at(40))
      assert.isFalse(yield* at(39))
    }))

  it.effect("tries target.tokens itself: the lower bound can be the answer (the chapter's pseudocode never runs it)", () =>
    Effect.gen(function*() {
      const target = item("t", 10, { priority: 5 })
      const found = yield* BudgetAnalysis.findMinBudgetFor([target], budget(100, 100), target, 11).pipe(
        Effect.provide(greedy)
      )
      assert.deepStrictEqual(found, some(10))
    }))

  it.effect("searchCeiling equal to target.tokens: one run", () =>
    Effect.gen(function*() {
      const { counter, layer } = counting()
      const target = item("t", 10, { priority: 5 })
      const other = item("o", 5, { priority: 9 })
      const found = yield* BudgetAnalysis.findMinBudgetFor([other, target], budget(100, 100), target, 10).pipe(
        Effect.provide(layer)
      )
      assert.deepStrictEqual(found, Option.none())
      assert.strictEqual(counter.runs, 1)
    }))

  it.effect("returns None when no budget up to the ceiling holds the target", () =>
    Effect.gen(function*() {
      const items = [item("a", 10, { priority: 9 }), item("t", 10, { priority: 1 })]
      const found = yield* BudgetAnalysis.findMinBudgetFor(items, budget(100, 100), items[1]!, 15).pipe(
        Effect.provide(greedy)
      )
      assert.deepStrictEqual(found, Option.none())
      const wider = yield* BudgetAnalysis.findMinBudgetFor(items, budget(100, 100), items[1]!, 20).pipe(
        Effect.provide(greedy)
      )
      assert.deepStrictEqual(wider, some(20))
    }))

  it.effect("returns None for an item the pipeline never includes (a deduplicated twin, negative tokens)", () =>
    Effect.gen(function*() {
      const best = item("same", 10, { priority: 9 })
      const twin = item("same", 10, { priority: 1 })
      const negative = item("neg", -5, { priority: 9 })
      const items = [best, twin, negative]
      const forTwin = yield* BudgetAnalysis.findMinBudgetFor(items, budget(100, 100), twin, 100).pipe(
        Effect.provide(greedy)
      )
      const forNegative = yield* BudgetAnalysis.findMinBudgetFor(items, budget(100, 100), negative, 100).pipe(
        Effect.provide(greedy)
      )
      assert.deepStrictEqual(forTwin, Option.none())
      assert.deepStrictEqual(forNegative, Option.none())
    }))

  it.effect("binary search: O(log(searchCeiling)) dry runs", () =>
    Effect.gen(function*() {
      const { counter, layer } = counting()
      const items = Array.from({ length: 50 }, (_, i) => item(`i${i}`, 100 + i, { priority: (i % 10) + 1 }))
      const target = items[37]!
      const ceiling = 1_000_000
      const found = yield* BudgetAnalysis.findMinBudgetFor(items, budget(10, 10), target, ceiling).pipe(
        Effect.provide(layer)
      )
      assert.isTrue(Option.isSome(found))
      assert.isAtMost(counter.runs, Math.ceil(Math.log2(ceiling - target.tokens)) + 2)
    }))

  it.effect("keeps the budget's outputReserve: a budget below it holds nothing", () =>
    Effect.gen(function*() {
      const { counter, layer } = counting()
      const target = item("t", 10, { priority: 5 })
      const found = yield* BudgetAnalysis.findMinBudgetFor([target], budget(100, 100, { outputReserve: 20 }), target, 100)
        .pipe(Effect.provide(layer))
      assert.deepStrictEqual(found, some(30))
      assert.isAtMost(counter.runs, Math.ceil(Math.log2(100 - 10)) + 2)
    }))

  it.effect("keeps the budget's reserved slots and safety margin", () =>
    Effect.gen(function*() {
      const target = item("t", 10, { priority: 5 })
      const slots = yield* BudgetAnalysis.findMinBudgetFor(
        [target],
        budget(100, 100, { reservedSlots: { Memory: 15 } }),
        target,
        100
      ).pipe(Effect.provide(greedy))
      assert.deepStrictEqual(slots, some(25))
      // floor(m · 0.5) >= 10 from m = 20.
      const margin = yield* BudgetAnalysis.findMinBudgetFor(
        [target],
        budget(100, 100, { estimationSafetyMarginPercent: 50 }),
        target,
        100
      ).pipe(Effect.provide(greedy))
      assert.deepStrictEqual(margin, some(20))
    }))

  it.effect("a budget the pinned items do not fit holds no window, so not the target (no PinnedBudgetError)", () =>
    Effect.gen(function*() {
      const pinned = item("p", 50, { pinned: true })
      const target = item("t", 10, { priority: 5 })
      const found = yield* BudgetAnalysis.findMinBudgetFor([pinned, target], budget(100, 100), target, 200).pipe(
        Effect.provide(greedy)
      )
      assert.deepStrictEqual(found, some(60))
      const forPinned = yield* BudgetAnalysis.findMinBudgetFor([pinned, target], budget(100, 100), pinned, 200).pipe(
        Effect.provide(greedy)
      )
      assert.deepStrictEqual(forPinned, some(50))
    }))

  it.effect("targetItem must be an element of items: TargetNotInItemsError, by identity", () =>
    Effect.gen(function*() {
      const items = [item("t", 10, { priority: 5 })]
      const copy = item("t", 10, { priority: 5 })
      const error = yield* Effect.flip(
        BudgetAnalysis.findMinBudgetFor(items, budget(100, 100), copy, 100).pipe(Effect.provide(greedy))
      )
      assert.instanceOf(error, BudgetAnalysis.TargetNotInItemsError)
      assert.strictEqual(error.message, "targetItem must be an element of items")
      assert.strictEqual(error.content, "t")
    }))

  it.effect("searchCeiling must be >= targetItem.Tokens: SearchCeilingError", () =>
    Effect.gen(function*() {
      const target = item("t", 10, { priority: 5 })
      const error = yield* Effect.flip(
        BudgetAnalysis.findMinBudgetFor([target], budget(100, 100), target, 9).pipe(Effect.provide(greedy))
      )
      assert.instanceOf(error, BudgetAnalysis.SearchCeilingError)
      assert.strictEqual(error.message, "searchCeiling must be >= targetItem.Tokens")
      assert.strictEqual(error.searchCeiling, 9)
      assert.strictEqual(error.targetTokens, 10)
    }))

  it.effect("searchCeiling must be an integer: SearchCeilingError", () =>
    Effect.gen(function*() {
      const target = item("t", 10, { priority: 5 })
      for (const ceiling of [10.5, Number.NaN, Infinity]) {
        const error = yield* Effect.flip(
          BudgetAnalysis.findMinBudgetFor([target], budget(100, 100), target, ceiling).pipe(Effect.provide(greedy))
        )
        assert.instanceOf(error, BudgetAnalysis.SearchCeilingError)
        assert.strictEqual(error.message, `searchCeiling must be an integer, got ${ceiling}`)
      }
    }))

  it.effect("the preconditions are checked before any run, target first", () =>
    Effect.gen(function*() {
      const { counter, layer } = counting()
      const target = item("t", 10, { priority: 5 })
      const error = yield* Effect.flip(
        BudgetAnalysis.findMinBudgetFor([], budget(100, 100), target, 5).pipe(Effect.provide(layer))
      )
      assert.strictEqual(error._tag, "TargetNotInItemsError")
      assert.strictEqual(counter.runs, 0)
    }))

  for (const quota of quotaSlicers) {
    it.effect(`QuotaSlice + CountQuotaSlice guard: refuses ${quota.name} with the chapter's message, before the preconditions`, () =>
      Effect.gen(function*() {
        const target = item("t", 10, { priority: 5 })
        const error = yield* Effect.flip(
          BudgetAnalysis.findMinBudgetFor([], budget(100, 100), target, 5).pipe(
            Effect.provide(Layer.mergeAll(byPriority, quota.layer, UShapedPlacer.layer))
          )
        )
        assert.instanceOf(error, BudgetAnalysis.NonMonotonicSlicerError)
        assert.strictEqual(error.message, minBudgetMessage)
        assert.strictEqual(error.operation, "findMinBudgetFor")
      }))
  }

  it.effect("on a non-monotonic input the answer still holds the target and one less does not", () =>
    Effect.gen(function*() {
      // D (50 tokens, denser) crowds T out from 50 to 59 tokens; T fits alone from 10 to 49.
      const d = item("D", 50, { priority: 9 })
      const t = item("T", 10, { priority: 1 })
      const found = yield* BudgetAnalysis.findMinBudgetFor([d, t], budget(100, 100), t, 100).pipe(
        Effect.provide(greedy)
      )
      assert.deepStrictEqual(found, some(10))
    }))
})

describe("BudgetAnalysis.policySensitivity", () => {
  const rest = Layer.mergeAll(GreedySlice.layer, ChronologicalPlacer.layer)
  const byPriorityRank = Layer.merge(PriorityScorer.layer, rest)
  const byHint = Layer.merge(ReflexiveScorer.layer, rest)
  // The chapter's example.
  const a = item("item-a", 40, { priority: 10, futureRelevanceHint: 0.1 })
  const b = item("item-b", 40, { priority: 1, futureRelevanceHint: 0.9 })
  const example = budget(50, 40)

  it.effect("at least two variants: TooFewVariantsError with the chapter's message", () =>
    Effect.gen(function*() {
      for (const variants of [[], [{ label: "only", layer: byHint }]]) {
        const error = yield* Effect.flip(BudgetAnalysis.policySensitivity([a, b], example, variants))
        assert.instanceOf(error, BudgetAnalysis.TooFewVariantsError)
        assert.strictEqual(error.message, "At least two variants are required for a sensitivity comparison.")
        assert.strictEqual(error.variants, variants.length)
      }
    }))

  it.effect("the chapter's example: both items swing, with each variant's status, score and reason", () =>
    Effect.gen(function*() {
      const report = yield* BudgetAnalysis.policySensitivity([a, b], example, [
        { label: "priority", layer: byPriorityRank },
        { label: "reflexive", layer: byHint }
      ])
      assert.deepStrictEqual(report.diffs.map((d) => d.content), ["item-a", "item-b"])
      const [diffA, diffB] = report.diffs
      assert.strictEqual(diffA!.item, a)
      assert.deepStrictEqual(diffA!.statuses.map((s) => [s.label, s.status, s.reason._tag]), [
        ["priority", "Included", "Scored"],
        ["reflexive", "Excluded", "BudgetExceeded"]
      ])
      assert.deepStrictEqual(diffB!.statuses.map((s) => [s.label, s.status, s.reason._tag]), [
        ["priority", "Excluded", "BudgetExceeded"],
        ["reflexive", "Included", "Scored"]
      ])
      assert.deepStrictEqual(diffB!.statuses[1], { label: "reflexive", status: "Included", score: 0.9, reason: { _tag: "Scored" } })
      assert.deepStrictEqual(diffA!.statuses[1], {
        label: "reflexive",
        status: "Excluded",
        score: 0.1,
        reason: { _tag: "BudgetExceeded", itemTokens: 40, availableTokens: 0 }
      })
    }))

  it.effect("variants keep the order given, each with its own dry-run report", () =>
    Effect.gen(function*() {
      const report = yield* BudgetAnalysis.policySensitivity([a, b], example, [
        { label: "reflexive", layer: byHint },
        { label: "priority", layer: byPriorityRank }
      ])
      assert.deepStrictEqual(report.variants.map((v) => v.label), ["reflexive", "priority"])
      const alone = yield* BudgetAnalysis.dryRun([a, b], example).pipe(Effect.provide(byHint))
      assert.deepStrictEqual(report.variants[0]!.report.included, alone.included)
      assert.deepStrictEqual(report.variants[0]!.report.excluded, alone.excluded)
      assert.deepStrictEqual(report.diffs[0]!.statuses.map((s) => s.label), ["reflexive", "priority"])
    }))

  it.effect("swing-only: items every variant includes, or every variant excludes, are not in diffs", () =>
    Effect.gen(function*() {
      const always = item("always", 5, { priority: 10, futureRelevanceHint: 1 })
      const never = item("never", 500, { priority: 1, futureRelevanceHint: 0 })
      const report = yield* BudgetAnalysis.policySensitivity([always, a, b, never], budget(100, 45), [
        { label: "priority", layer: byPriorityRank },
        { label: "reflexive", layer: byHint }
      ])
      assert.deepStrictEqual(report.diffs.map((d) => d.content), ["item-a", "item-b"])
    }))

  it.effect("variants that agree produce no diffs", () =>
    Effect.gen(function*() {
      const report = yield* BudgetAnalysis.policySensitivity([a, b], example, [
        { label: "chronological", layer: byHint },
        { label: "u-shaped", layer: Layer.mergeAll(ReflexiveScorer.layer, GreedySlice.layer, UShapedPlacer.layer) }
      ])
      assert.deepStrictEqual(report.diffs, [])
      assert.strictEqual(report.variants.length, 2)
    }))

  it.effect("with three variants an item swings when any two disagree, and lists all three statuses", () =>
    Effect.gen(function*() {
      const report = yield* BudgetAnalysis.policySensitivity([a, b], example, [
        { label: "p1", layer: byPriorityRank },
        { label: "p2", layer: byPriorityRank },
        { label: "r", layer: byHint }
      ])
      assert.deepStrictEqual(report.diffs.map((d) => d.statuses.map((s) => s.status)), [
        ["Included", "Included", "Excluded"],
        ["Excluded", "Excluded", "Included"]
      ])
    }))

  it.effect("matches items by identity: two items with equal content are two entries", () =>
    Effect.gen(function*() {
      const first = item("same", 40, { priority: 10, futureRelevanceHint: 0.1 })
      const second = item("same", 40, { priority: 1, futureRelevanceHint: 0.9 })
      const report = yield* BudgetAnalysis.policySensitivity([first, second], example, [
        { label: "priority", layer: byPriorityRank },
        { label: "reflexive", layer: byHint }
      ], { deduplication: false })
      assert.strictEqual(report.diffs.length, 2)
      assert.strictEqual(report.diffs[0]!.item, first)
      assert.strictEqual(report.diffs[1]!.item, second)
      for (const diff of report.diffs) assert.strictEqual(diff.statuses.length, 2)
    }))

  it.effect("a deduplicated twin is not a swing when the variants agree (a content key would say it is)", () =>
    Effect.gen(function*() {
      const kept = item("same", 10, { priority: 9, futureRelevanceHint: 0.9 })
      const twin = item("same", 10, { priority: 1, futureRelevanceHint: 0.1 })
      const report = yield* BudgetAnalysis.policySensitivity([kept, twin], budget(100, 100), [
        { label: "priority", layer: byPriorityRank },
        { label: "reflexive", layer: byHint }
      ])
      assert.deepStrictEqual(report.diffs, [])
      assert.strictEqual(report.variants[0]!.report.excluded[0]!.reason._tag, "Deduplicated")
    }))

  it.effect("an item object given twice counts as included when either copy is", () =>
    Effect.gen(function*() {
      const report = yield* BudgetAnalysis.policySensitivity([a, a, b], example, [
        { label: "priority", layer: byPriorityRank },
        { label: "reflexive", layer: byHint }
      ])
      assert.deepStrictEqual(report.diffs.map((d) => [d.content, d.statuses.map((s) => s.status)]), [
        ["item-a", ["Included", "Excluded"]],
        ["item-b", ["Excluded", "Included"]]
      ])
    }))

  it.effect("diffs follow the candidates' order", () =>
    Effect.gen(function*() {
      const report = yield* BudgetAnalysis.policySensitivity([b, a], example, [
        { label: "priority", layer: byPriorityRank },
        { label: "reflexive", layer: byHint }
      ])
      assert.deepStrictEqual(report.diffs.map((d) => d.content), ["item-b", "item-a"])
    }))

  it.effect("a variant whose layer fails fails the comparison with its error", () =>
    Effect.gen(function*() {
      const broken = Layer.mergeAll(
        ReflexiveScorer.layer,
        QuotaSlice.layer({ inner: GreedySlice.make(), quotas: [{ kind: "Message", require: 60, cap: 40 }] }),
        ChronologicalPlacer.layer
      )
      const error = yield* Effect.flip(BudgetAnalysis.policySensitivity([a, b], example, [
        { label: "ok", layer: byHint },
        { label: "broken", layer: broken }
      ]))
      assert.instanceOf(error, InvalidConfigError.InvalidConfigError)
    }))

  it.effect("the report encodes with its schema, reports in the wire format", () =>
    Effect.gen(function*() {
      const report = yield* BudgetAnalysis.policySensitivity([a, b], example, [
        { label: "priority", layer: byPriorityRank },
        { label: "reflexive", layer: byHint }
      ])
      const encoded = yield* Schema.encodeEffect(BudgetAnalysis.PolicySensitivityReport)(report)
      const json = JSON.parse(JSON.stringify(encoded))
      assert.strictEqual(json.variants[0].report.total_candidates, 2)
      assert.strictEqual(json.diffs[0].statuses[1].reason.reason, "BudgetExceeded")
    }))
})

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

const rowArb = fc.record({
  content: fc.integer({ min: 0, max: 9 }),
  tokens: fc.integer({ min: 0, max: 30 }),
  priority: fc.integer({ min: 0, max: 10 }),
  pinned: fc.integer({ min: 0, max: 9 }).map((n) => n === 0)
})
const toItems = (rows: ReadonlyArray<typeof rowArb extends fc.Arbitrary<infer A> ? A : never>) =>
  rows.map((r) => item(`c${r.content}`, r.tokens, { priority: r.priority, pinned: r.pinned }))

const included = (exit: Exit.Exit<{ readonly included: ReadonlyArray<{ readonly item: ContextItem.ContextItem }> }, unknown>) =>
  Exit.isSuccess(exit) ? new Set(exit.value.included.map((e) => e.item)) : undefined

describe("BudgetAnalysis properties", () => {
  it("marginal items are exactly those included at the full budget and not at the reduced one", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowArb, { maxLength: 10 }),
        fc.integer({ min: 0, max: 150 }),
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 0, max: 100 }),
        fc.boolean(),
        fc.constantFrom(greedy, knapsack),
        async (rows, max, targetPercent, slackPercent, deduplication, layer) => {
          const items = toItems(rows)
          const target = Math.floor(max * targetPercent / 100)
          const slack = Math.floor(target * slackPercent / 100)
          const b = budget(max, target)
          const full = await Effect.runPromiseExit(BudgetAnalysis.dryRun(items, b, { deduplication }).pipe(Effect.provide(layer)))
          const reduced = await Effect.runPromiseExit(
            BudgetAnalysis.dryRun(items, budget(max - slack, target - slack), { deduplication }).pipe(Effect.provide(layer))
          )
          const marginal = await Effect.runPromiseExit(
            BudgetAnalysis.getMarginalItems(items, b, slack, { deduplication }).pipe(Effect.provide(layer))
          )
          const fullSet = included(full)
          const reducedSet = included(reduced)
          if (slack === 0) {
            assert.deepStrictEqual(Exit.isSuccess(marginal) ? marginal.value : "failed", [])
            return
          }
          if (fullSet === undefined || reducedSet === undefined) {
            assert.isTrue(Exit.isFailure(marginal))
            return
          }
          assert.isTrue(Exit.isSuccess(marginal))
          if (!Exit.isSuccess(marginal) || !Exit.isSuccess(full)) return
          const expected = full.value.included.map((e) => e.item).filter((i) => !reducedSet.has(i))
          assert.strictEqual(marginal.value.length, expected.length)
          for (let k = 0; k < expected.length; k++) assert.strictEqual(marginal.value[k], expected[k])
          for (const m of marginal.value) assert.isTrue(fullSet.has(m) && !reducedSet.has(m))
        }
      ),
      { numRuns: 200 }
    )
  })

  /** Linear search: whether budget m holds the target, for every m in [low, ceiling]. */
  const linear = async (
    items: ReadonlyArray<ContextItem.ContextItem>,
    b: ContextBudget.ContextBudget,
    target: ContextItem.ContextItem,
    low: number,
    ceiling: number
  ): Promise<Array<boolean>> => {
    const holds: Array<boolean> = []
    for (let m = low; m <= ceiling; m++) {
      if (m < 0 || m < b.outputReserve) {
        holds.push(false)
        continue
      }
      const exit = await Effect.runPromiseExit(
        BudgetAnalysis.dryRun(items, budget(m, m, { outputReserve: b.outputReserve })).pipe(Effect.provide(greedy))
      )
      holds.push(Exit.isSuccess(exit) && exit.value.included.some((e) => e.item === target))
    }
    return holds
  }

  it("findMinBudgetFor: the answer holds the target, one token less does not, and it is the linear search's answer when inclusion is monotonic (GreedySlice)", async () => {
    let monotonic = 0
    let runs = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowArb, { minLength: 1, maxLength: 6 }),
        fc.nat(),
        fc.integer({ min: 0, max: 60 }),
        fc.constantFrom(0, 0, 5),
        async (rows, pick, extra, outputReserve) => {
          runs++
          const items = toItems(rows)
          const target = items[pick % items.length]!
          const ceiling = target.tokens + extra
          const b = budget(Math.max(outputReserve, 10), 0, { outputReserve })
          const found = await Effect.runPromise(
            BudgetAnalysis.findMinBudgetFor(items, b, target, ceiling).pipe(Effect.provide(greedy))
          )
          const holds = await linear(items, b, target, target.tokens, ceiling)
          const first = holds.indexOf(true)
          const isMonotonic = first < 0 || holds.slice(first).every((h) => h)
          if (Option.isSome(found)) {
            const m = found.value
            assert.isTrue(holds[m - target.tokens], "the answer holds the target")
            if (m > target.tokens) assert.isFalse(holds[m - 1 - target.tokens], "one token less does not")
          }
          if (isMonotonic) {
            monotonic++
            assert.deepStrictEqual(found, first < 0 ? Option.none() : Option.some(target.tokens + first))
          }
        }
      ),
      { numRuns: 150 }
    )
    // The comparison with the linear search must not be vacuous.
    assert.isAbove(monotonic, runs / 2)
  })

  it("findMinBudgetFor equals the linear search when every item has the same size (GreedySlice is then monotonic)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ priority: fc.integer({ min: 0, max: 10 }), pinned: fc.boolean() }), {
          minLength: 1,
          maxLength: 7
        }),
        fc.integer({ min: 1, max: 9 }),
        fc.nat(),
        fc.integer({ min: 0, max: 70 }),
        async (rows, size, pick, extra) => {
          const items = rows.map((r, i) => item(`s${i}`, size, { priority: r.priority, pinned: r.pinned && i % 3 === 0 }))
          const target = items[pick % items.length]!
          const ceiling = size + extra
          const b = budget(10, 10)
          const found = await Effect.runPromise(
            BudgetAnalysis.findMinBudgetFor(items, b, target, ceiling).pipe(Effect.provide(greedy))
          )
          const holds = await linear(items, b, target, size, ceiling)
          const first = holds.indexOf(true)
          if (first >= 0) assert.isTrue(holds.slice(first).every((h) => h), "monotonic")
          assert.deepStrictEqual(found, first < 0 ? Option.none() : Option.some(size + first))
        }
      ),
      { numRuns: 150 }
    )
  })
})
