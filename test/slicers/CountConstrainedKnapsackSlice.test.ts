/**
 * CountConstrainedKnapsackSlice (spec `slicers/count-constrained-knapsack.md`): every rule and
 * edge case of the chapter, the `count-constrained-knapsack-*` conformance vectors as unit
 * tests, construction errors, shortfalls (Degrade) and CountRequirementError (Throw), cap
 * reasons, the pipeline's report, and property tests against a literal transcription of the
 * chapter's pseudocode (`test/support/specCountQuota.ts`, over `specSlicers.ts`' knapsack).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Result } from "effect"
import fc from "fast-check"
import * as ContextBudget from "../../src/ContextBudget.ts"
import { ContextItem } from "../../src/ContextItem.ts"
import { CountRequirementError } from "../../src/CountRequirementError.ts"
import * as ExclusionReason from "../../src/ExclusionReason.ts"
import { InvalidConfigError } from "../../src/InvalidConfigError.ts"
import * as OverflowNotifier from "../../src/OverflowNotifier.ts"
import * as Pipeline from "../../src/Pipeline.ts"
import * as Placer from "../../src/placers/Placer.ts"
import type { ScoredItem } from "../../src/ScoredItem.ts"
import * as Scorer from "../../src/scorers/Scorer.ts"
import * as Slicer from "../../src/slicers/Slicer.ts"
import { SlicerError } from "../../src/slicers/SlicerError.ts"
import * as CountConstrainedKnapsackSlice from "../../src/slicers/CountConstrainedKnapsackSlice.ts"
import type * as CountQuotaSlice from "../../src/slicers/CountQuotaSlice.ts"
import * as KnapsackSlice from "../../src/slicers/KnapsackSlice.ts"
import {
  assertGuarantees,
  assertLikeSpec,
  budget,
  budgets,
  bySort,
  capExcludedCount,
  contentsOf,
  entries as arbitraryEntries,
  items as arbitraryItems,
  libraryEntries,
  reasonsOf,
  scarcity as arbitraryScarcity,
  scored,
  sliceResult
} from "../support/countQuotaItems.ts"
import { countKnapsackCap } from "../support/specCountQuota.ts"

const make = (
  entries: ReadonlyArray<CountQuotaSlice.Entry>,
  options: Omit<CountConstrainedKnapsackSlice.Options, "entries"> = {}
) => CountConstrainedKnapsackSlice.make({ entries, ...options })

const slice = (
  sorted: ReadonlyArray<ScoredItem>,
  b: Slicer.Budget,
  entries: ReadonlyArray<CountQuotaSlice.Entry>,
  options: Omit<CountConstrainedKnapsackSlice.Options, "entries"> = {}
) => Effect.flatMap(make(entries, options), (slicer) => slicer.slice(sorted, b))

const tool = (content: string, score: number, tokens = 100) => scored(content, tokens, score, "tool")
const msg = (content: string, score: number, tokens = 100) => scored(content, tokens, score, "msg")

const constructionError = (options: CountConstrainedKnapsackSlice.Options) =>
  Effect.gen(function*() {
    const error = yield* Effect.flip(CountConstrainedKnapsackSlice.make(options))
    assert.instanceOf(error, InvalidConfigError)
    assert.strictEqual(error.component, "CountConstrainedKnapsackSlice")
    return error
  })

describe("CountConstrainedKnapsackSlice — construction and validation", () => {
  it.effect("its name is count_constrained_knapsack; defaults: Degrade, bucket size 100", () =>
    Effect.gen(function*() {
      const slicer = yield* make([{ kind: "tool", requireCount: 3, capCount: 5 }])
      assert.strictEqual(slicer.name, "count_constrained_knapsack")
      const selection = yield* slicer.slice([tool("a", 0.9)], budget(500))
      assert.deepStrictEqual([...selection.shortfalls!], [{ kind: "tool", requiredCount: 3, satisfiedCount: 1 }])
      // bucket 100: a 60-token item at a 150 target — capacity 1, weight 1 — and a 50-token one, also weight 1
      const sorted = bySort([msg("a", 0.9, 60), msg("b", 0.8, 50)])
      assert.deepStrictEqual(contentsOf(sorted, yield* slicer.slice(sorted, budget(150))), ["a"])
    }))

  it.effect("Validation rules 1 and 2: requireCount <= capCount; a zero cap with a positive requirement is rejected", () =>
    Effect.gen(function*() {
      const over = yield* constructionError({ entries: [{ kind: "tool", requireCount: 3, capCount: 2 }] })
      assert.strictEqual(over.path, "entries[0].requireCount")
      const zero = yield* constructionError({ entries: [{ kind: "x" }, { kind: "tool", requireCount: 1, capCount: 0 }] })
      assert.strictEqual(zero.path, "entries[1].capCount")
      assert.include(zero.rule, "can never be satisfied")
    }))

  it.effect("counts must be non-negative integers; kinds are unique case-insensitively", () =>
    Effect.gen(function*() {
      const negative = yield* constructionError({ entries: [{ kind: "tool", capCount: -1 }] })
      assert.strictEqual(negative.path, "entries[0].capCount")
      const fraction = yield* constructionError({ entries: [{ kind: "tool", requireCount: 0.5 }] })
      assert.strictEqual(fraction.path, "entries[0].requireCount")
      const twice = yield* constructionError({ entries: [{ kind: "Memory" }, { kind: "memory" }] })
      assert.strictEqual(twice.path, "entries[1].kind")
    }))

  it.effect("the knapsack's own rules: bucketSize a positive integer, maxCells in range — reported under this slicer's name", () =>
    Effect.gen(function*() {
      const bucket = yield* constructionError({ entries: [], bucketSize: 0 })
      assert.strictEqual(bucket.path, "bucketSize")
      assert.include(bucket.rule, "positive integer")
      const cells = yield* constructionError({ entries: [], maxCells: 2 ** 40 })
      assert.strictEqual(cells.path, "maxCells")
    }))

  it.effect("No KnapsackSlice guard: the knapsack is built in, and construction needs no inner slicer", () =>
    Effect.gen(function*() {
      const slicer = yield* make([], { bucketSize: 1 })
      const sorted = bySort([msg("a", 0.9, 10)])
      assert.deepStrictEqual(contentsOf(sorted, yield* slicer.slice(sorted, budget(10))), ["a"])
    }))

  it.effect("the layer provides the slicer", () =>
    Effect.gen(function*() {
      const name = yield* Slicer.Slicer.use((s) => Effect.succeed(s.name)).pipe(
        Effect.provide(CountConstrainedKnapsackSlice.layer({ entries: [] }))
      )
      assert.strictEqual(name, "count_constrained_knapsack")
    }))
})

describe("CountConstrainedKnapsackSlice — the algorithm", () => {
  it.effect("Edge cases: empty scoredItems and targetTokens <= 0 → empty list (no shortfall, no error under Throw)", () =>
    Effect.gen(function*() {
      const entries = [{ kind: "tool", requireCount: 2, capCount: 2 }]
      assert.strictEqual((yield* slice([], budget(1000), entries, { scarcity: "Throw" })).selected.length, 0)
      assert.strictEqual((yield* slice([tool("a", 0.9)], budget(0), entries, { scarcity: "Throw" })).selected.length, 0)
    }))

  it.effect("Edge case: no entries → an unconstrained knapsack (KnapsackSlice's selection)", () =>
    Effect.gen(function*() {
      const sorted = bySort([msg("a", 0.9, 60), msg("b", 0.5, 50), msg("c", 0.5, 50), msg("z", 0.1, 0)])
      const selection = yield* slice(sorted, budget(100), [], { bucketSize: 10 })
      const plain = KnapsackSlice.select(sorted, 100, { bucketSize: 10, maxCells: KnapsackSlice.defaultMaxCells })
      assert.sameMembers(Array.from(selection.selected), Array.from(plain instanceof SlicerError ? [] : plain))
      assert.sameMembers(contentsOf(sorted, selection), ["b", "c", "z"])
    }))

  it.effect("Phase 1 is CountQuotaSlice's: the best requireCount per kind, in entry order, whatever the budget", () =>
    Effect.gen(function*() {
      const input = [tool("t-low", 0.2, 10), msg("m", 0.5, 10), tool("t-high", 0.9, 300)]
      const selection = yield* slice(input, budget(100), [{ kind: "TOOL", requireCount: 1, capCount: 1 }])
      // t-high is committed although it exceeds the target; Phase 2 gets residual 0.
      assert.deepStrictEqual(contentsOf(input, selection), ["t-high"])
      assert.deepStrictEqual(reasonsOf(input, selection), [])
    }))

  it.effect("Phase 2: the knapsack works on the residual pool with targetTokens − preAllocatedTokens", () =>
    Effect.gen(function*() {
      // After committing t (100), 150 is left: the knapsack takes the best pair that fits 150.
      // a alone is worth 8000; b + c (weights 3 + 3 = capacity 6) 9500.
      const sorted = bySort([tool("t", 0.9, 100), msg("a", 0.8, 100), msg("b", 0.5, 75), msg("c", 0.45, 75)])
      const selection = yield* slice(sorted, budget(250), [{ kind: "tool", requireCount: 1 }], { bucketSize: 25 })
      assert.deepStrictEqual(contentsOf(sorted, selection), ["t", "b", "c"])
    }))

  it.effect("Phase 2 output is re-sorted by score descending (D180): the cap keeps the best items, not the knapsack's last", () =>
    Effect.gen(function*() {
      // The knapsack reconstructs from the last candidate: its output is t3, t2, t1; re-sorted, t1 is kept.
      const sorted = bySort([tool("t1", 0.9, 10), tool("t2", 0.8, 10), tool("t3", 0.7, 10)])
      const raw = KnapsackSlice.select(sorted, 100, { bucketSize: 1, maxCells: KnapsackSlice.defaultMaxCells })
      assert.deepStrictEqual(Array.from(raw instanceof SlicerError ? [] : raw), [2, 1, 0])
      const selection = yield* slice(sorted, budget(100), [{ kind: "tool", capCount: 1 }], { bucketSize: 1 })
      assert.deepStrictEqual(contentsOf(sorted, selection), ["t1"])
      assert.deepStrictEqual(reasonsOf(sorted, selection), [
        ["t2", ExclusionReason.countCapExceeded("tool", 1, 1)],
        ["t3", ExclusionReason.countCapExceeded("tool", 1, 1)]
      ])
    }))

  it.effect("the re-sort is stable: equal scores keep the knapsack's output order (zero-token items first, then reconstruction order)", () =>
    Effect.gen(function*() {
      const sorted = [tool("a", 0.5, 10), tool("b", 0.5, 10), tool("z", 0.5, 0)]
      const selection = yield* slice(sorted, budget(100), [{ kind: "tool", capCount: 2 }], { bucketSize: 1 })
      // knapsack output: z, b, a → the cap of 2 keeps z and b
      assert.deepStrictEqual(contentsOf(sorted, selection), ["z", "b"])
      assert.deepStrictEqual(reasonsOf(sorted, selection), [["a", ExclusionReason.countCapExceeded("tool", 2, 2)]])
    }))

  it.effect("Phase 3 counts start from Phase 1's commitments (D181), never from zero", () =>
    Effect.gen(function*() {
      const sorted = bySort([tool("t1", 0.9), tool("t2", 0.8), tool("t3", 0.7)])
      const selection = yield* slice(sorted, budget(1000), [{ kind: "tool", requireCount: 2, capCount: 2 }])
      assert.deepStrictEqual(contentsOf(sorted, selection), ["t1", "t2"])
      assert.deepStrictEqual(reasonsOf(sorted, selection), [["t3", ExclusionReason.countCapExceeded("tool", 2, 2)]])
    }))

  it.effect("Edge case: requireCount = 0, capCount > 0 → nothing committed, the knapsack's output capped; other kinds uncapped", () =>
    Effect.gen(function*() {
      const sorted = bySort([tool("t1", 0.9), msg("m1", 0.8), tool("t2", 0.7), msg("m2", 0.6), msg("m3", 0.5)])
      const selection = yield* slice(sorted, budget(1000), [{ kind: "tool", requireCount: 0, capCount: 1 }])
      assert.deepStrictEqual(contentsOf(sorted, selection), ["t1", "m1", "m2", "m3"])
    }))

  it.effect("Cap waste: items the knapsack chose and the cap dropped leave their room unused", () =>
    Effect.gen(function*() {
      const sorted = bySort([tool("t1", 0.9, 100), tool("t2", 0.8, 100), msg("m", 0.1, 100)])
      const selection = yield* slice(sorted, budget(200), [{ kind: "tool", capCount: 1 }])
      assert.deepStrictEqual(contentsOf(sorted, selection), ["t1"])
      assert.strictEqual(capExcludedCount(selection), 1)
    }))

  it.effect("KnapsackSlice's table limit propagates as a SlicerError naming this slicer", () =>
    Effect.gen(function*() {
      const sorted = bySort([msg("a", 0.9, 10), msg("b", 0.8, 10)])
      const error = yield* Effect.flip(slice(sorted, budget(1000), [], { bucketSize: 1, maxCells: 100 }))
      assert.instanceOf(error, SlicerError)
      if (error._tag !== "SlicerError") return
      assert.strictEqual(error.slicer, "count_constrained_knapsack")
      assert.include(error.reason, "maxCells")
    }))

  it.effect("inputs are never modified", () =>
    Effect.gen(function*() {
      const sorted = Object.freeze(
        bySort([tool("t1", 0.9), tool("t2", 0.7), msg("m", 0.5)]).map((s) => Object.freeze({ item: Object.freeze(s.item), score: s.score }))
      )
      const selection = yield* slice(sorted, Object.freeze(budget(1000)), [{ kind: "tool", requireCount: 1, capCount: 1 }])
      assert.deepStrictEqual(contentsOf(sorted, selection), ["t1", "m"])
    }))
})

describe("CountConstrainedKnapsackSlice — scarcity", () => {
  it.effect("Degrade: the available candidates are committed and the shortfall recorded", () =>
    Effect.gen(function*() {
      const sorted = [tool("tool-a", 0.9)]
      const selection = yield* slice(sorted, budget(500), [{ kind: "tool", requireCount: 3, capCount: 5 }], { scarcity: "Degrade" })
      assert.deepStrictEqual(contentsOf(sorted, selection), ["tool-a"])
      assert.deepStrictEqual([...selection.shortfalls!], [{ kind: "tool", requiredCount: 3, satisfiedCount: 1 }])
    }))

  it.effect("Throw: CountRequirementError with the kind, the required and the satisfied counts", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        slice([tool("tool-a", 0.9)], budget(500), [{ kind: "tool", requireCount: 3, capCount: 5 }], { scarcity: "Throw" })
      )
      assert.instanceOf(error, CountRequirementError)
      if (error._tag !== "CountRequirementError") return
      assert.strictEqual(error.slicer, "count_constrained_knapsack")
      assert.deepStrictEqual([...error.shortfalls], [{ kind: "tool", requiredCount: 3, satisfiedCount: 1 }])
    }))
})

describe("CountConstrainedKnapsackSlice — the count-constrained-knapsack-* conformance vectors", () => {
  const cases: ReadonlyArray<{
    name: string
    entries: ReadonlyArray<CountQuotaSlice.Entry>
    bucketSize: number
    target: number
    items: ReadonlyArray<ScoredItem>
    selected: ReadonlyArray<string>
    shortfalls: number
    capExcluded: number
  }> = [
    {
      name: "count-constrained-knapsack-baseline",
      entries: [{ kind: "tool", requireCount: 2, capCount: 4 }],
      bucketSize: 100,
      target: 1000,
      items: [tool("tool-a", 0.9), tool("tool-b", 0.7), msg("msg-x", 0.5)],
      selected: ["tool-a", "tool-b", "msg-x"],
      shortfalls: 0,
      capExcluded: 0
    },
    {
      name: "count-constrained-knapsack-cap-exclusion",
      entries: [{ kind: "tool", requireCount: 1, capCount: 2 }],
      bucketSize: 100,
      target: 600,
      items: [tool("tool-a", 0.9), tool("tool-b", 0.8), tool("tool-c", 0.7), tool("tool-d", 0.6)],
      selected: ["tool-a", "tool-b"],
      shortfalls: 0,
      capExcluded: 2
    },
    {
      name: "count-constrained-knapsack-scarcity-degrade",
      entries: [{ kind: "tool", requireCount: 3, capCount: 5 }],
      bucketSize: 100,
      target: 500,
      items: [tool("tool-a", 0.9)],
      selected: ["tool-a"],
      shortfalls: 1,
      capExcluded: 0
    },
    {
      name: "count-constrained-knapsack-tag-nonexclusive",
      entries: [{ kind: "tool", requireCount: 1, capCount: 4 }, { kind: "memory", requireCount: 1, capCount: 4 }],
      bucketSize: 100,
      target: 1000,
      items: [tool("item-tool", 0.9), scored("item-memory", 100, 0.8, "memory"), tool("item-extra", 0.5)],
      selected: ["item-tool", "item-memory", "item-extra"],
      shortfalls: 0,
      capExcluded: 0
    },
    {
      name: "count-constrained-knapsack-require-and-cap",
      entries: [{ kind: "tool", requireCount: 2, capCount: 2 }],
      bucketSize: 1,
      target: 1000,
      items: [tool("tool-a", 0.9), tool("tool-b", 0.7), msg("msg-s", 0.8, 50), msg("msg-m", 0.6, 150), msg("msg-l", 0.4, 200)],
      selected: ["tool-a", "tool-b", "msg-s", "msg-m", "msg-l"],
      shortfalls: 0,
      capExcluded: 0
    }
  ]
  for (const c of cases) {
    it.effect(c.name, () =>
      Effect.gen(function*() {
        const sorted = bySort(c.items)
        const selection = yield* slice(sorted, budget(c.target), c.entries, { bucketSize: c.bucketSize, scarcity: "Degrade" })
        assert.sameMembers(contentsOf(sorted, selection), [...c.selected])
        assert.strictEqual(selection.shortfalls!.length, c.shortfalls)
        assert.strictEqual(capExcludedCount(selection), c.capExcluded)
      }))
  }
})

describe("CountConstrainedKnapsackSlice — in the pipeline", () => {
  it.effect("the report carries countRequirementShortfalls and CountCapExceeded reasons", () =>
    Effect.gen(function*() {
      const slicer = yield* make([{ kind: "ToolOutput", capCount: 1 }, { kind: "Memory", requireCount: 1 }], { bucketSize: 10 })
      const item = (content: string, tokens: number, kind: string, priority: number) =>
        new ContextItem({ content, tokens, kind, priority })
      const layers = Layer.mergeAll(
        Scorer.layer(Scorer.make("priority/10", (i) => (i.priority ?? 0) / 10)),
        Slicer.layer(slicer),
        Placer.fromOrder("as-merged", (items) => items.map((_, i) => i)),
        OverflowNotifier.layerNoop
      )
      const b = new ContextBudget.ContextBudget({ maxTokens: 1000, targetTokens: 500 })
      const result = yield* Pipeline.run(
        [item("t1", 100, "ToolOutput", 9), item("t2", 100, "ToolOutput", 8), item("m", 100, "Message", 5)],
        b
      ).pipe(Effect.provide(layers))
      assert.deepStrictEqual(result.window.map((i) => i.content), ["t1", "m"])
      assert.deepStrictEqual([...result.report.countRequirementShortfalls], [
        { kind: "Memory", requiredCount: 1, satisfiedCount: 0 }
      ])
      assert.deepStrictEqual(result.report.excluded.map((e) => [e.item.content, e.reason]), [
        ["t2", ExclusionReason.countCapExceeded("ToolOutput", 1, 1)]
      ])
    }))
})

describe("CountConstrainedKnapsackSlice — properties", () => {
  const bucketSize = fc.constantFrom(1, 3, 10, 25, 100)

  it("selects what the chapter's pseudocode selects, with its shortfalls, cap exclusions and errors", async () => {
    await fc.assert(
      fc.asyncProperty(
        arbitraryItems(25),
        arbitraryEntries,
        budgets,
        arbitraryScarcity,
        bucketSize,
        fc.boolean(),
        async (items, list, b, scarcity, bucket, sort) => {
          const sorted = sort ? bySort(items) : items
          const slicer = await Effect.runPromise(make(libraryEntries(list), { scarcity, bucketSize: bucket }))
          const outcome = await sliceResult(slicer, sorted, b)
          const spec = countKnapsackCap(sorted, b, list, bucket, scarcity)
          const degraded = countKnapsackCap(sorted, b, list, bucket, "Degrade")
          assertLikeSpec(sorted, list, outcome, spec, degraded)
        }
      ),
      { numRuns: 500 }
    )
  })

  it("no kind exceeds its cap, every satisfiable requirement is met, the total stays within the budget", async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryItems(30), arbitraryEntries, budgets, bucketSize, async (items, list, b, bucket) => {
        const sorted = bySort(items)
        const slicer = await Effect.runPromise(make(libraryEntries(list), { bucketSize: bucket }))
        const outcome = await sliceResult(slicer, sorted, b)
        assert.isTrue(Result.isSuccess(outcome))
        if (Result.isSuccess(outcome)) assertGuarantees(sorted, list, b, outcome.success)
      }),
      { numRuns: 500 }
    )
  })
})
