/**
 * CountQuotaSlice (spec `slicers/count-quota.md`): every rule and edge case of the chapter, the
 * `count-quota-*` conformance vectors as unit tests, construction errors, shortfalls (Degrade)
 * and CountRequirementError (Throw), cap reasons, the pipeline's report, and property tests
 * against a literal transcription of the chapter's pseudocode (`test/support/specCountQuota.ts`).
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
import * as SelectionReport from "../../src/SelectionReport.ts"
import * as Slicer from "../../src/slicers/Slicer.ts"
import { SlicerContractError } from "../../src/slicers/SlicerContractError.ts"
import { SlicerError } from "../../src/slicers/SlicerError.ts"
import * as CountQuotaSlice from "../../src/slicers/CountQuotaSlice.ts"
import * as GreedySlice from "../../src/slicers/GreedySlice.ts"
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
import { countQuotaSlice, type SpecBudget } from "../support/specCountQuota.ts"
import { greedySlice } from "../support/specSlicers.ts"

const greedy = GreedySlice.make()

const make = (
  entries: ReadonlyArray<CountQuotaSlice.Entry>,
  scarcity?: CountQuotaSlice.ScarcityBehavior,
  inner: Slicer.Definition = greedy
) => CountQuotaSlice.make({ inner, entries, ...(scarcity === undefined ? {} : { scarcity }) })

/** Slices with a CountQuotaSlice over greedy; returns the selection. */
const slice = (
  sorted: ReadonlyArray<ScoredItem>,
  b: Slicer.Budget,
  entries: ReadonlyArray<CountQuotaSlice.Entry>,
  scarcity?: CountQuotaSlice.ScarcityBehavior,
  inner?: Slicer.Definition
) => Effect.flatMap(make(entries, scarcity, inner), (slicer) => slicer.slice(sorted, b))

/** An inner slicer that records what it was given, then slices greedily. */
const recording = () => {
  const calls: Array<{ contents: Array<string>; budget: Slicer.Budget }> = []
  const inner: Slicer.Definition = {
    name: "recording",
    slice: (sorted, b) => {
      calls.push({ contents: sorted.map((s) => s.item.content), budget: { ...b } })
      return greedy.slice(sorted, b)
    }
  }
  return { calls, inner }
}

const tool = (content: string, score: number, tokens = 100) => scored(content, tokens, score, "tool")
const msg = (content: string, score: number, tokens = 100) => scored(content, tokens, score, "msg")

const constructionError = (options: CountQuotaSlice.Options) =>
  Effect.gen(function*() {
    const error = yield* Effect.flip(CountQuotaSlice.make(options))
    assert.instanceOf(error, InvalidConfigError)
    assert.strictEqual(error.component, "CountQuotaSlice")
    return error
  })

describe("CountQuotaSlice — construction and validation", () => {
  it.effect("its name is count_quota; scarcity defaults to Degrade (a shortfall is reported, not an error)", () =>
    Effect.gen(function*() {
      const slicer = yield* make([{ kind: "tool", requireCount: 3, capCount: 5 }])
      assert.strictEqual(slicer.name, "count_quota")
      assert.strictEqual(CountQuotaSlice.name, "count_quota")
      const selection = yield* slicer.slice([tool("a", 0.9)], budget(1000))
      assert.deepStrictEqual([...selection.shortfalls!], [{ kind: "tool", requiredCount: 3, satisfiedCount: 1 }])
    }))

  it.effect("Validation rule 1: requireCount MUST be <= capCount", () =>
    Effect.gen(function*() {
      const error = yield* constructionError({
        inner: greedy,
        entries: [{ kind: "msg", capCount: 9 }, { kind: "tool", requireCount: 5, capCount: 3 }]
      })
      assert.strictEqual(error.path, "entries[1].requireCount")
      assert.include(error.rule, `"tool"`)
      assert.include(error.rule, "must not exceed its capCount (3) (got 5)")
    }))

  it.effect("Validation rule 2: capCount = 0 with requireCount > 0 is rejected, with its own message", () =>
    Effect.gen(function*() {
      const error = yield* constructionError({ inner: greedy, entries: [{ kind: "tool", requireCount: 1, capCount: 0 }] })
      assert.strictEqual(error.path, "entries[0].capCount")
      assert.include(error.rule, "can never be satisfied")
      assert.include(error.message, "CountQuotaSlice: entries[0].capCount")
    }))

  it.effect("capCount = 0 with requireCount = 0 is allowed: the kind is kept out of Phase 2's output", () =>
    Effect.gen(function*() {
      const sorted = [tool("t", 0.9), msg("m", 0.5)]
      const selection = yield* slice(sorted, budget(1000), [{ kind: "tool", requireCount: 0, capCount: 0 }])
      assert.deepStrictEqual(contentsOf(sorted, selection), ["m"])
      assert.deepStrictEqual(reasonsOf(sorted, selection), [["t", ExclusionReason.countCapExceeded("tool", 0, 0)]])
    }))

  it.effect("counts must be non-negative integers: negatives, fractions, NaN, Infinity are refused with their path", () =>
    Effect.gen(function*() {
      for (const bad of [-1, 1.5, NaN, Infinity, 2 ** 53]) {
        const r = yield* constructionError({ inner: greedy, entries: [{ kind: "tool", requireCount: bad, capCount: 9 }] })
        assert.strictEqual(r.path, "entries[0].requireCount")
        assert.include(r.rule, "non-negative integer")
        assert.include(r.rule, String(bad))
        const c = yield* constructionError({ inner: greedy, entries: [{ kind: "tool", capCount: bad }] })
        assert.strictEqual(c.path, "entries[0].capCount")
        assert.include(c.rule, "non-negative integer")
      }
    }))

  it.effect("a kind configured twice (case-insensitively) is refused, naming both entries", () =>
    Effect.gen(function*() {
      const error = yield* constructionError({
        inner: greedy,
        entries: [{ kind: "Tool", requireCount: 1 }, { kind: "msg" }, { kind: "TOOL", capCount: 2 }]
      })
      assert.strictEqual(error.path, "entries[2].kind")
      assert.include(error.rule, `entries[0] ("Tool")`)
      assert.include(error.rule, "case-insensitively")
    }))

  it.effect("a blank kind is refused", () =>
    Effect.gen(function*() {
      const error = yield* constructionError({ inner: greedy, entries: [{ kind: "  " }] })
      assert.strictEqual(error.path, "entries[0].kind")
    }))

  it.effect("an unknown scarcity behavior is refused", () =>
    Effect.gen(function*() {
      // as a JavaScript caller (or a configuration file) could pass it
      const lowerCase: CountQuotaSlice.ScarcityBehavior = JSON.parse(`"degrade"`)
      const error = yield* constructionError({ inner: greedy, entries: [], scarcity: lowerCase })
      assert.strictEqual(error.path, "scarcity")
      assert.include(error.rule, `"Degrade" or "Throw"`)
    }))

  it.effect("KnapsackSlice Guard: a KnapsackSlice inner slicer fails construction, pointing to CountConstrainedKnapsackSlice", () =>
    Effect.gen(function*() {
      const knapsack = yield* KnapsackSlice.make()
      const error = yield* constructionError({ inner: knapsack, entries: [{ kind: "tool", requireCount: 1, capCount: 2 }] })
      assert.strictEqual(error.path, "inner")
      assert.include(error.rule, "KnapsackSlice")
      assert.include(error.rule, "CountConstrainedKnapsackSlice")
      // The guard is enforced at construction time: even with no entries.
      assert.instanceOf(yield* Effect.flip(CountQuotaSlice.make({ inner: knapsack, entries: [] })), InvalidConfigError)
    }))

  it.effect("Validation rule 3: kinds without an entry are unconstrained; an entry may omit both counts", () =>
    Effect.gen(function*() {
      const sorted = [msg("m1", 0.9), msg("m2", 0.8), tool("t", 0.1)]
      const selection = yield* slice(sorted, budget(1000), [{ kind: "tool" }])
      assert.deepStrictEqual(contentsOf(sorted, selection), ["m1", "m2", "t"])
    }))

  it.effect("the layer provides the slicer, and fails to build on invalid options", () =>
    Effect.gen(function*() {
      const name = yield* Slicer.Slicer.use((s) => Effect.succeed(s.name)).pipe(
        Effect.provide(CountQuotaSlice.layer({ inner: greedy, entries: [] }))
      )
      assert.strictEqual(name, "count_quota")
      const error = yield* Effect.flip(
        Slicer.Slicer.use((s) => Effect.succeed(s.name)).pipe(
          Effect.provide(CountQuotaSlice.layer({ inner: greedy, entries: [{ kind: "a", requireCount: 2, capCount: 1 }] }))
        )
      )
      assert.instanceOf(error, InvalidConfigError)
    }))
})

describe("CountQuotaSlice — the algorithm", () => {
  it.effect("Edge case: empty scoredItems → empty list", () =>
    Effect.gen(function*() {
      const selection = yield* slice([], budget(1000), [{ kind: "tool", requireCount: 2, capCount: 4 }], "Throw")
      assert.strictEqual(selection.selected.length, 0)
      assert.deepStrictEqual([...selection.shortfalls!], [])
    }))

  it.effect("Edge case: budget.targetTokens <= 0 → empty list, before Phase 1 (no shortfall, no error under Throw)", () =>
    Effect.gen(function*() {
      for (const t of [0, -5]) {
        const selection = yield* slice([tool("a", 0.9)], budget(t, 10), [{ kind: "tool", requireCount: 3, capCount: 3 }], "Throw")
        assert.strictEqual(selection.selected.length, 0)
      }
    }))

  it.effect("Edge case: no entries configured → Phase 2 runs unconstrained (the inner slicer's selection, in its order)", () =>
    Effect.gen(function*() {
      const sorted = bySort([msg("a", 0.9, 300), msg("b", 0.5, 10), tool("c", 0.4, 50), msg("d", 0.3, 900)])
      const selection = yield* slice(sorted, budget(400), [])
      const plain = yield* greedy.slice(sorted, budget(400))
      assert.deepStrictEqual(Array.from(selection.selected), Array.from(plain.selected))
    }))

  it.effect("Phase 1: for each kind with requireCount > 0, the top-N by score are committed, in entry order, before Phase 2's items", () =>
    Effect.gen(function*() {
      const sorted = bySort([tool("t1", 0.9), msg("m1", 0.8), tool("t2", 0.7), msg("m2", 0.6), tool("t3", 0.5), msg("m3", 0.4)])
      const selection = yield* slice(sorted, budget(1000), [
        { kind: "msg", requireCount: 2, capCount: 3 },
        { kind: "tool", requireCount: 1, capCount: 3 }
      ])
      assert.deepStrictEqual(contentsOf(sorted, selection), ["m1", "m2", "t1", "t2", "t3", "m3"])
    }))

  it.effect("Phase 1 sorts each partition itself: unsorted input still commits the best-scored items", () =>
    Effect.gen(function*() {
      const input = [tool("low", 0.1, 10), tool("high", 0.9, 10), tool("mid", 0.5, 10), tool("tie", 0.5, 10)]
      const selection = yield* slice(input, budget(10), [{ kind: "tool", requireCount: 3, capCount: 3 }])
      // stable: "mid" before "tie"; Phase 1 ignores the budget (30 tokens > 10)
      assert.deepStrictEqual(contentsOf(input, selection), ["high", "mid", "tie"])
    }))

  it.effect("Kind comparison is case-insensitive for partitioning and policy lookups", () =>
    Effect.gen(function*() {
      const sorted = [scored("a", 10, 0.9, "Tool"), scored("b", 10, 0.8, "TOOL"), scored("c", 10, 0.7, "tool")]
      const selection = yield* slice(sorted, budget(1000), [{ kind: "tOoL", requireCount: 2, capCount: 2 }])
      assert.deepStrictEqual(contentsOf(sorted, selection), ["a", "b"])
      assert.deepStrictEqual(reasonsOf(sorted, selection), [["c", ExclusionReason.countCapExceeded("tOoL", 2, 2)]])
    }))

  it.effect("Phase 2: the inner slicer gets the residual pool (committed items removed, order kept) and targetTokens − preAllocatedTokens, maxTokens unchanged", () =>
    Effect.gen(function*() {
      const { calls, inner } = recording()
      const sorted = bySort([tool("t1", 0.9, 120), msg("m1", 0.8), tool("t2", 0.7, 30), msg("m2", 0.6)])
      yield* slice(sorted, budget(500, 800), [{ kind: "tool", requireCount: 2, capCount: 4 }], "Degrade", inner)
      assert.deepStrictEqual(calls, [{ contents: ["m1", "m2"], budget: { maxTokens: 800, targetTokens: 350 } }])
    }))

  it.effect("Edge case: Phase 1 exhausts the token budget → Phase 2 receives residualTarget = 0 and selects nothing", () =>
    Effect.gen(function*() {
      const { calls, inner } = recording()
      const sorted = bySort([tool("t1", 0.9, 300), tool("t2", 0.8, 300), msg("m", 0.5, 0), msg("n", 0.4, 10)])
      const selection = yield* slice(sorted, budget(400), [{ kind: "tool", requireCount: 2, capCount: 2 }], "Degrade", inner)
      // The committed items are kept although they exceed the target: the chapter's trade-off.
      assert.deepStrictEqual(contentsOf(sorted, selection), ["t1", "t2"])
      assert.deepStrictEqual(calls[0]!.budget, { maxTokens: 400, targetTokens: 0 })
    }))

  it.effect("Phase 2: the residual target is capped at maxTokens (negative committed tokens, which Classify otherwise excludes)", () =>
    Effect.gen(function*() {
      const { calls, inner } = recording()
      const sorted = [tool("neg", 0.9, -50), msg("m", 0.5, 10)]
      yield* slice(sorted, budget(100, 120), [{ kind: "tool", requireCount: 1 }], "Degrade", inner)
      assert.deepStrictEqual(calls[0]!.budget, { maxTokens: 120, targetTokens: 120 })
    }))

  it.effect("Phase 3: committed items count toward the cap but are never excluded by it", () =>
    Effect.gen(function*() {
      const sorted = bySort([tool("t1", 0.9), tool("t2", 0.8), tool("t3", 0.7), tool("t4", 0.6)])
      const selection = yield* slice(sorted, budget(1000), [{ kind: "tool", requireCount: 1, capCount: 2 }])
      assert.deepStrictEqual(contentsOf(sorted, selection), ["t1", "t2"])
      assert.deepStrictEqual(reasonsOf(sorted, selection), [
        ["t3", ExclusionReason.countCapExceeded("tool", 2, 2)],
        ["t4", ExclusionReason.countCapExceeded("tool", 2, 2)]
      ])
    }))

  it.effect("Edge case: requireCount = capCount → exactly requireCount items; Phase 2 cannot add more of that kind", () =>
    Effect.gen(function*() {
      const sorted = bySort([tool("t1", 0.9), tool("t2", 0.7), tool("t3", 0.5), msg("m", 0.1)])
      const selection = yield* slice(sorted, budget(1000), [{ kind: "tool", requireCount: 2, capCount: 2 }])
      assert.deepStrictEqual(contentsOf(sorted, selection), ["t1", "t2", "m"])
      assert.strictEqual(capExcludedCount(selection), 1)
    }))

  it.effect("Edge case: requireCount = 0, capCount > 0 → Phase 1 commits nothing; Phase 2 output is capped", () =>
    Effect.gen(function*() {
      const { calls, inner } = recording()
      const sorted = bySort([tool("t1", 0.9), tool("t2", 0.7), msg("m", 0.5), tool("t3", 0.3)])
      const selection = yield* slice(sorted, budget(1000), [{ kind: "tool", requireCount: 0, capCount: 2 }], "Degrade", inner)
      assert.deepStrictEqual(calls[0]!.contents, ["t1", "t2", "m", "t3"])
      assert.deepStrictEqual(contentsOf(sorted, selection), ["t1", "t2", "m"])
    }))

  it.effect("Phase 3 applies the caps in the inner slicer's order (greedy: density), not by score", () =>
    Effect.gen(function*() {
      // t-dense has the lower score but the higher density: greedy returns it first, and the cap keeps it.
      const sorted = bySort([tool("t-big", 0.9, 300), tool("t-dense", 0.5, 10)])
      const selection = yield* slice(sorted, budget(1000), [{ kind: "tool", capCount: 1 }])
      assert.deepStrictEqual(contentsOf(sorted, selection), ["t-dense"])
      assert.deepStrictEqual(reasonsOf(sorted, selection), [["t-big", ExclusionReason.countCapExceeded("tool", 1, 1)]])
    }))

  it.effect("Kinds without an entry are not capped in Phase 3", () =>
    Effect.gen(function*() {
      const sorted = bySort([msg("m1", 0.9), msg("m2", 0.8), msg("m3", 0.7), tool("t", 0.6)])
      const selection = yield* slice(sorted, budget(1000), [{ kind: "tool", capCount: 1 }])
      assert.deepStrictEqual(contentsOf(sorted, selection), ["m1", "m2", "m3", "t"])
    }))

  it.effect("Items the inner slicer leaves out carry no cap reason (the pipeline reports them as BudgetExceeded)", () =>
    Effect.gen(function*() {
      const sorted = bySort([tool("t1", 0.9, 100), tool("t2", 0.8, 100), tool("t3", 0.7, 100)])
      const selection = yield* slice(sorted, budget(150), [{ kind: "tool", capCount: 1 }])
      assert.deepStrictEqual(contentsOf(sorted, selection), ["t1"])
      assert.deepStrictEqual(reasonsOf(sorted, selection), [])
    }))

  it.effect("the inner slicer's own reasons and shortfalls are carried over, with indices into the full list", () =>
    Effect.gen(function*() {
      const sorted = bySort([tool("t1", 0.9), msg("m1", 0.8), msg("m2", 0.7)])
      const explaining: Slicer.Definition = {
        name: "explaining",
        slice: (residual) =>
          Effect.succeed({
            selected: [0],
            reasons: new Map([[1, ExclusionReason.budgetExceeded(residual[1]!.item.tokens, 7)]]),
            shortfalls: [{ kind: "inner", requiredCount: 1, satisfiedCount: 0 }]
          })
      }
      const selection = yield* slice(sorted, budget(1000), [{ kind: "tool", requireCount: 1, capCount: 1 }, { kind: "doc", requireCount: 1 }], "Degrade", explaining)
      assert.deepStrictEqual(contentsOf(sorted, selection), ["t1", "m1"])
      assert.deepStrictEqual(reasonsOf(sorted, selection), [["m2", ExclusionReason.budgetExceeded(100, 7)]])
      assert.deepStrictEqual([...selection.shortfalls!], [
        { kind: "doc", requiredCount: 1, satisfiedCount: 0 },
        { kind: "inner", requiredCount: 1, satisfiedCount: 0 }
      ])
    }))

  it.effect("an inner slicer's failure is the slice's failure", () =>
    Effect.gen(function*() {
      const failing = Slicer.make("failing", () => {
        throw new Error("boom")
      })
      const error = yield* Effect.flip(slice([msg("m", 0.5)], budget(100), [], "Degrade", failing))
      assert.instanceOf(error, SlicerError)
      assert.strictEqual(error._tag === "SlicerError" && error.slicer, "failing")
    }))

  it.effect("an inner slicer that returns an index it was not given, or one twice, breaks the contract", () =>
    Effect.gen(function*() {
      const sorted = [tool("t", 0.9), msg("m", 0.5)]
      for (const [selected, violation] of [[[5], "UnknownItem"], [[0, 0], "RepeatedItem"]] as const) {
        const bad: Slicer.Definition = { name: "bad", slice: () => Effect.succeed({ selected }) }
        const error = yield* Effect.flip(slice(sorted, budget(100), [{ kind: "tool", requireCount: 1 }], "Degrade", bad))
        assert.instanceOf(error, SlicerContractError)
        if (error._tag === "SlicerContractError") {
          assert.strictEqual(error.slicer, "bad")
          assert.strictEqual(error.violation, violation)
        }
      }
    }))

  it.effect("inner indices are checked by Slicer.checkIndices against the residual list, under the inner slicer's name", () =>
    Effect.gen(function*() {
      // Phase 1 commits "t"; the inner slicer is given the residual list of two messages.
      const sorted = [tool("t", 0.9), msg("m1", 0.5), msg("m2", 0.4)]
      for (const selected of [[2], [1, 1], [0.5], [-1], [Number.NaN]]) {
        const bad: Slicer.Definition = { name: "bad", slice: () => Effect.succeed({ selected }) }
        const error = yield* Effect.flip(slice(sorted, budget(100), [{ kind: "tool", requireCount: 1 }], "Degrade", bad))
        const expected = yield* Effect.flip(Slicer.checkIndices("bad", 2, selected))
        assert.deepStrictEqual(
          [error._tag, error._tag === "SlicerContractError" && [error.slicer, error.violation, error.position]],
          [expected._tag, [expected.slicer, expected.violation, expected.position]]
        )
      }
    }))

  it.effect("an inner slicer's reasons for items it selected are dropped; for ones it left out, kept", () =>
    Effect.gen(function*() {
      const sorted = bySort([msg("m1", 0.8), msg("m2", 0.7)])
      const explaining: Slicer.Definition = {
        name: "explaining",
        slice: () =>
          Effect.succeed({
            selected: [0],
            reasons: new Map([
              [0, ExclusionReason.budgetExceeded(1, 1)],
              [1, ExclusionReason.budgetExceeded(2, 2)],
              [7, ExclusionReason.budgetExceeded(3, 3)]
            ])
          })
      }
      const selection = yield* slice(sorted, budget(1000), [], "Degrade", explaining)
      assert.deepStrictEqual(reasonsOf(sorted, selection), [["m2", ExclusionReason.budgetExceeded(2, 2)]])
    }))

  it.effect("a NaN score in a required kind fails with SlicerError (it has no place in the partition's order)", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(slice([tool("t", NaN)], budget(100), [{ kind: "tool", requireCount: 1 }]))
      assert.instanceOf(error, SlicerError)
      assert.include(error.message, "NaN")
    }))

  it.effect("an item given twice is two candidates (selection by index)", () =>
    Effect.gen(function*() {
      const same = tool("t", 0.9, 10)
      const sorted = [same, same]
      const selection = yield* slice(sorted, budget(100), [{ kind: "tool", requireCount: 1, capCount: 2 }])
      assert.deepStrictEqual(Array.from(selection.selected), [0, 1])
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

describe("CountQuotaSlice — scarcity", () => {
  it.effect("Degrade: all available candidates are included and every short kind is recorded as a shortfall", () =>
    Effect.gen(function*() {
      const sorted = bySort([tool("t", 0.9), msg("m1", 0.5), msg("m2", 0.4)])
      const selection = yield* slice(sorted, budget(1000), [
        { kind: "Tool", requireCount: 3, capCount: 5 },
        { kind: "msg", requireCount: 2 },
        { kind: "doc", requireCount: 1 }
      ], "Degrade")
      assert.deepStrictEqual(contentsOf(sorted, selection), ["t", "m1", "m2"])
      assert.deepStrictEqual([...selection.shortfalls!], [
        { kind: "Tool", requiredCount: 3, satisfiedCount: 1 },
        { kind: "doc", requiredCount: 1, satisfiedCount: 0 }
      ])
    }))

  it.effect("Throw: a short kind fails the slice with CountRequirementError carrying the shortfalls", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        slice([tool("t", 0.9)], budget(1000), [{ kind: "tool", requireCount: 3, capCount: 5 }, { kind: "doc", requireCount: 2 }], "Throw")
      )
      assert.instanceOf(error, CountRequirementError)
      if (error._tag !== "CountRequirementError") return
      assert.strictEqual(error.slicer, "count_quota")
      assert.deepStrictEqual([...error.shortfalls], [
        { kind: "tool", requiredCount: 3, satisfiedCount: 1 },
        { kind: "doc", requiredCount: 2, satisfiedCount: 0 }
      ])
      assert.include(error.message, "tool: 1 of 3 required")
    }))

  it.effect("Throw: the inner slicer is not called when a requirement cannot be met", () =>
    Effect.gen(function*() {
      const { calls, inner } = recording()
      yield* Effect.flip(slice([tool("t", 0.9)], budget(1000), [{ kind: "tool", requireCount: 2 }], "Throw", inner))
      assert.strictEqual(calls.length, 0)
    }))

  it.effect("Throw: met requirements do not fail", () =>
    Effect.gen(function*() {
      const sorted = bySort([tool("t1", 0.9), tool("t2", 0.8)])
      const selection = yield* slice(sorted, budget(1000), [{ kind: "tool", requireCount: 2 }], "Throw")
      assert.deepStrictEqual(contentsOf(sorted, selection), ["t1", "t2"])
      assert.deepStrictEqual([...selection.shortfalls!], [])
    }))
})

describe("CountQuotaSlice — the count-quota-* conformance vectors", () => {
  const cases: ReadonlyArray<{
    name: string
    entries: ReadonlyArray<CountQuotaSlice.Entry>
    target: number
    items: ReadonlyArray<ScoredItem>
    selected: ReadonlyArray<string>
    shortfalls: number
    capExcluded: number
  }> = [
    {
      name: "count-quota-baseline",
      entries: [{ kind: "tool", requireCount: 2, capCount: 4 }],
      target: 1000,
      items: [tool("tool-a", 0.9), tool("tool-b", 0.7), tool("tool-c", 0.5)],
      selected: ["tool-a", "tool-b", "tool-c"],
      shortfalls: 0,
      capExcluded: 0
    },
    {
      name: "count-quota-cap-exclusion",
      entries: [{ kind: "tool", requireCount: 0, capCount: 1 }],
      target: 1000,
      items: [tool("tool-a", 0.9), tool("tool-b", 0.7), tool("tool-c", 0.5)],
      selected: ["tool-a"],
      shortfalls: 0,
      capExcluded: 2
    },
    {
      name: "count-quota-require-and-cap",
      entries: [{ kind: "tool", requireCount: 2, capCount: 2 }],
      target: 1000,
      items: [tool("tool-a", 0.9), tool("tool-b", 0.7), tool("tool-c", 0.6), tool("tool-d", 0.4)],
      selected: ["tool-a", "tool-b"],
      shortfalls: 0,
      capExcluded: 2
    },
    {
      name: "count-quota-scarcity-degrade",
      entries: [{ kind: "tool", requireCount: 3, capCount: 5 }],
      target: 1000,
      items: [tool("tool-a", 0.9)],
      selected: ["tool-a"],
      shortfalls: 1,
      capExcluded: 0
    },
    {
      name: "count-quota-tag-nonexclusive",
      entries: [{ kind: "critical", requireCount: 1, capCount: 4 }, { kind: "urgent", requireCount: 1, capCount: 4 }],
      target: 1000,
      items: [
        scored("item-critical", 100, 0.9, "critical"),
        scored("item-urgent", 100, 0.8, "urgent"),
        scored("item-extra", 100, 0.5, "critical")
      ],
      selected: ["item-critical", "item-urgent", "item-extra"],
      shortfalls: 0,
      capExcluded: 0
    }
  ]
  for (const c of cases) {
    it.effect(c.name, () =>
      Effect.gen(function*() {
        const sorted = bySort(c.items)
        const selection = yield* slice(sorted, budget(c.target), c.entries, "Degrade")
        assert.sameMembers(contentsOf(sorted, selection), [...c.selected])
        assert.strictEqual(selection.shortfalls!.length, c.shortfalls)
        assert.strictEqual(capExcludedCount(selection), c.capExcluded)
      }))
  }
})

describe("CountQuotaSlice — in the pipeline", () => {
  const item = (content: string, tokens: number, kind: string, priority: number) =>
    new ContextItem({ content, tokens, kind, priority })
  const layers = (slicer: Slicer.Definition) =>
    Layer.mergeAll(
      Scorer.layer(Scorer.make("priority/10", (i) => (i.priority ?? 0) / 10)),
      Slicer.layer(slicer),
      Placer.fromOrder("as-merged", (items) => items.map((_, i) => i)),
      OverflowNotifier.layerNoop
    )

  it.effect("the report carries countRequirementShortfalls and CountCapExceeded reasons (and encodes them)", () =>
    Effect.gen(function*() {
      const slicer = yield* make([
        { kind: "ToolOutput", requireCount: 1, capCount: 2 },
        { kind: "Memory", requireCount: 2, capCount: 3 }
      ])
      const items = [
        item("t1", 100, "ToolOutput", 9),
        item("t2", 100, "ToolOutput", 8),
        item("t3", 100, "ToolOutput", 7),
        item("mem", 100, "Memory", 6),
        item("msg", 100, "Message", 5),
        item("huge", 5000, "Message", 4)
      ]
      const b = new ContextBudget.ContextBudget({ maxTokens: 2000, targetTokens: 1000 })
      const result = yield* Pipeline.run(items, b).pipe(Effect.provide(layers(slicer)))
      assert.sameMembers(result.window.map((i) => i.content), ["t1", "mem", "t2", "msg"])
      assert.deepStrictEqual([...result.report.countRequirementShortfalls], [
        { kind: "Memory", requiredCount: 2, satisfiedCount: 1 }
      ])
      assert.deepStrictEqual(result.report.excluded.map((e) => [e.item.content, e.reason]), [
        ["t3", ExclusionReason.countCapExceeded("ToolOutput", 2, 2)],
        ["huge", ExclusionReason.budgetExceeded(5000, 600)]
      ])
      const encoded = yield* SelectionReport.encode(result.report)
      assert.deepStrictEqual(encoded.count_requirement_shortfalls, [{ kind: "Memory", required_count: 2, satisfied_count: 1 }])
      assert.deepStrictEqual(encoded.excluded[0]!.reason, { reason: "CountCapExceeded", kind: "ToolOutput", cap: 2, count: 2 })
    }))

  it.effect("under Throw, the run fails with CountRequirementError", () =>
    Effect.gen(function*() {
      const slicer = yield* make([{ kind: "Memory", requireCount: 1 }], "Throw")
      const b = new ContextBudget.ContextBudget({ maxTokens: 2000, targetTokens: 1000 })
      const error = yield* Effect.flip(Pipeline.run([item("msg", 10, "Message", 5)], b).pipe(Effect.provide(layers(slicer))))
      assert.instanceOf(error, CountRequirementError)
    }))
})

const specGreedy = (items: ReadonlyArray<ScoredItem>, b: SpecBudget) => greedySlice(items, b)

describe("CountQuotaSlice — properties", () => {
  it("selects what the chapter's pseudocode selects (greedy inner), with its shortfalls, cap exclusions and errors", async () => {
    await fc.assert(
      fc.asyncProperty(
        arbitraryItems(30),
        arbitraryEntries,
        budgets,
        arbitraryScarcity,
        fc.boolean(),
        async (items, list, b, scarcity, sort) => {
          const sorted = sort ? bySort(items) : items
          const slicer = await Effect.runPromise(make(libraryEntries(list), scarcity))
          const outcome = await sliceResult(slicer, sorted, b)
          const spec = countQuotaSlice(sorted, b, list, specGreedy, scarcity)
          const degraded = countQuotaSlice(sorted, b, list, specGreedy, "Degrade")
          assertLikeSpec(sorted, list, outcome, spec, degraded)
        }
      ),
      { numRuns: 600 }
    )
  })

  it("no kind exceeds its cap, every satisfiable requirement is met, the total stays within the budget", async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryItems(40), arbitraryEntries, budgets, async (items, list, b) => {
        const sorted = bySort(items)
        const slicer = await Effect.runPromise(make(libraryEntries(list), "Degrade"))
        const outcome = await sliceResult(slicer, sorted, b)
        assert.isTrue(Result.isSuccess(outcome))
        if (Result.isSuccess(outcome)) assertGuarantees(sorted, list, b, outcome.success)
      }),
      { numRuns: 600 }
    )
  })

  it("under Throw, the slice fails exactly when some requirement has too few candidates", async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryItems(20), arbitraryEntries, fc.integer({ min: 1, max: 400 }), async (items, list, t) => {
        const sorted = bySort(items)
        const slicer = await Effect.runPromise(make(libraryEntries(list), "Throw"))
        const outcome = await sliceResult(slicer, sorted, budget(t))
        const fold = (s: string) => s.toLowerCase()
        const short = sorted.length > 0 &&
          list.some((e) => sorted.filter((s) => fold(s.item.kind) === fold(e.kind)).length < e.requireCount)
        assert.strictEqual(Result.isFailure(outcome), short)
      }),
      { numRuns: 300 }
    )
  })
})
