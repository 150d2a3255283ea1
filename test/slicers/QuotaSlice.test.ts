/**
 * QuotaSlice (spec `slicers/quota.md`): every rule and edge case of the chapter, the conformance
 * vector `quota-basic` as a unit test, construction errors, and property tests against a literal
 * transcription of the chapter's pseudocode (`test/support/specQuotaSlice.ts`) over the
 * transcriptions of GreedySlice and KnapsackSlice (`test/support/specSlicers.ts`).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import fc from "fast-check"
import { ContextBudget } from "../../src/ContextBudget.ts"
import { ContextItem } from "../../src/ContextItem.ts"
import type { CountRequirementShortfall } from "../../src/CountRequirementShortfall.ts"
import * as ExclusionReason from "../../src/ExclusionReason.ts"
import { InvalidConfigError } from "../../src/InvalidConfigError.ts"
import * as OverflowNotifier from "../../src/OverflowNotifier.ts"
import * as Pipeline from "../../src/Pipeline.ts"
import * as Placer from "../../src/placers/Placer.ts"
import type { ScoredItem } from "../../src/ScoredItem.ts"
import * as Scorer from "../../src/scorers/Scorer.ts"
import * as Slicer from "../../src/slicers/Slicer.ts"
import { SlicerContractError } from "../../src/slicers/SlicerContractError.ts"
import { SlicerError } from "../../src/slicers/SlicerError.ts"
import * as GreedySlice from "../../src/slicers/GreedySlice.ts"
import * as KnapsackSlice from "../../src/slicers/KnapsackSlice.ts"
import * as QuotaSlice from "../../src/slicers/QuotaSlice.ts"
import { quotaSet, quotaSlice, type SpecInnerSlicer } from "../support/specQuotaSlice.ts"
import { greedySlice, knapsackSlice } from "../support/specSlicers.ts"

const scored = (content: string, tokens: number, score: number, kind = "Message"): ScoredItem => ({
  item: new ContextItem({ content, tokens, kind }),
  score
})

const budget = (targetTokens: number): Slicer.Budget => ({ maxTokens: Math.max(targetTokens, 0), targetTokens })

type Quotas = QuotaSlice.Options["quotas"]

/** What the inner slicer was asked: the contents of its partition and its budget. */
interface Call {
  readonly contents: ReadonlyArray<string>
  readonly budget: Slicer.Budget
}

/** An inner slicer that records each call (in this test's own array) and delegates to `inner`. */
const recording = (inner: Slicer.Definition = GreedySlice.make()) => {
  const calls: Array<Call> = []
  const slicer: Slicer.Definition = {
    name: "recording",
    slice: (sorted, b) =>
      Effect.suspend(() => {
        calls.push({ contents: sorted.map((s) => s.item.content), budget: { maxTokens: b.maxTokens, targetTokens: b.targetTokens } })
        return inner.slice(sorted, b)
      })
  }
  return { slicer, calls }
}

/** An inner slicer that selects nothing: for tests about the budgets alone. */
const nothing: Slicer.Definition = { name: "nothing", slice: () => Effect.succeed({ selected: [] }) }

const sliceWith = (
  quotas: Quotas,
  items: ReadonlyArray<ScoredItem>,
  target: number,
  inner: Slicer.Definition = GreedySlice.make()
) =>
  Effect.gen(function*() {
    const slicer = yield* QuotaSlice.make({ inner, quotas })
    return yield* slicer.slice(items, budget(target))
  })

const contentsOf = (selection: Slicer.Selection, items: ReadonlyArray<ScoredItem>): Array<string> =>
  Array.from(selection.selected, (i) => items[i]!.item.content)

/** The budgets the inner slicer saw, as `[contents, maxTokens, targetTokens]`. */
const budgetsOf = (calls: ReadonlyArray<Call>) =>
  calls.map((c) => [c.contents.join(","), c.budget.maxTokens, c.budget.targetTokens] as const)

const constructionError = (quotas: Quotas) => Effect.flip(QuotaSlice.make({ inner: GreedySlice.make(), quotas }))

describe("QuotaSlice — conformance vector quota-basic", () => {
  // required/slicing/quota-basic.toml, as a unit test.
  const items = [
    scored("sys-a", 200, 0.9, "SystemPrompt"),
    scored("msg-a", 300, 0.8, "Message"),
    scored("doc-a", 200, 0.7, "Document"),
    scored("sys-b", 200, 0.5, "SystemPrompt"),
    scored("msg-b", 300, 0.3, "Message")
  ]
  const quotas = [
    { kind: "SystemPrompt", require: 30.0, cap: 50.0 },
    { kind: "Message", require: 0.0, cap: 40.0 }
  ]

  it.effect("require and cap constraints distribute budget: selects sys-a, sys-b, msg-a", () =>
    Effect.gen(function*() {
      const selection = yield* sliceWith(quotas, items, 1000)
      assert.deepStrictEqual(contentsOf(selection, items).sort(), ["msg-a", "sys-a", "sys-b"])
    }))

  it.effect("kind budgets: SystemPrompt 533 clamped to 500, Message 350, Document 116", () =>
    Effect.gen(function*() {
      const { calls, slicer } = recording()
      yield* sliceWith(quotas, items, 1000, slicer)
      assert.deepStrictEqual(budgetsOf(calls), [
        ["sys-a,sys-b", 500, 500],
        ["msg-a,msg-b", 400, 350],
        ["doc-a", 1000, 116]
      ])
    }))
})

describe("QuotaSlice — edge cases (spec table)", () => {
  it.effect("Empty scoredItems: empty list, inner slicer not called", () =>
    Effect.gen(function*() {
      const { calls, slicer } = recording()
      const selection = yield* sliceWith([{ kind: "Message", require: 50 }], [], 1000, slicer)
      assert.deepStrictEqual(Array.from(selection.selected), [])
      assert.deepStrictEqual(calls, [])
    }))

  it.effect("budget.targetTokens <= 0: empty list (target 0, negative, NaN), zero-token items included", () =>
    Effect.gen(function*() {
      const { calls, slicer } = recording()
      const items = [scored("zero", 0, 0.9), scored("a", 10, 0.5)]
      for (const target of [0, -100, Number.NaN]) {
        const selection = yield* sliceWith([], items, target, slicer)
        assert.deepStrictEqual(Array.from(selection.selected), [])
      }
      assert.deepStrictEqual(calls, [])
    }))

  it.effect("No quotas configured: all kinds get proportional budget (no require/cap constraints)", () =>
    Effect.gen(function*() {
      const { calls, slicer } = recording(nothing)
      const items = [scored("m", 300, 0.9, "Message"), scored("d", 100, 0.5, "Document")]
      yield* sliceWith([], items, 1000, slicer)
      // unassigned = 1000, total mass 400: 750 and 250; caps are the whole target.
      assert.deepStrictEqual(budgetsOf(calls), [["m", 1000, 750], ["d", 1000, 250]])
    }))

  it.effect("Kind has require = 100%: that kind gets the entire budget; all other kinds get 0", () =>
    Effect.gen(function*() {
      const { calls, slicer } = recording()
      const items = [scored("m", 10, 0.9, "Message"), scored("d", 10, 0.5, "Document"), scored("z", 0, 0.1, "Tool")]
      const selection = yield* sliceWith([{ kind: "Document", require: 100 }], items, 1000, slicer)
      assert.deepStrictEqual(budgetsOf(calls), [["d", 1000, 1000]])
      assert.deepStrictEqual(contentsOf(selection, items), ["d"])
    }))

  it.effect("Kind has cap = 0%: that kind is excluded (budget = 0), even its zero-token items", () =>
    Effect.gen(function*() {
      const { calls, slicer } = recording()
      const items = [scored("t", 10, 0.9, "Tool"), scored("t0", 0, 0.9, "Tool"), scored("m", 10, 0.5, "Message")]
      const selection = yield* sliceWith([{ kind: "Tool", cap: 0 }], items, 100, slicer)
      // Tool takes no part in the proportional share: Message's mass is the whole of it.
      assert.deepStrictEqual(budgetsOf(calls), [["m", 100, 100]])
      assert.deepStrictEqual(contentsOf(selection, items), ["m"])
    }))

  it.effect("Kind has candidates but zero token mass: gets its require allocation (if any), no proportional share", () =>
    Effect.gen(function*() {
      const { calls, slicer } = recording()
      const items = [
        scored("z1", 0, 0.9, "Memory"),
        scored("m", 50, 0.8, "Message"),
        scored("z2", 0, 0.7, "Memory"),
        scored("e1", 0, 0.6, "Empty")
      ]
      const selection = yield* sliceWith([{ kind: "Memory", require: 10 }], items, 100, slicer)
      // Memory: require 10 + floor(90 × 0 / 50) = 10. Empty: 0 + 0, so it is skipped (and its
      // zero-token item with it). Message: floor(90 × 50 / 50) = 90.
      assert.deepStrictEqual(budgetsOf(calls), [["z1,z2", 100, 10], ["m", 100, 90]])
      assert.deepStrictEqual(contentsOf(selection, items), ["z1", "z2", "m"])
    }))

  it.effect("Kind has no candidates: not present in partitions; its require allocation is unused", () =>
    Effect.gen(function*() {
      const { calls, slicer } = recording(nothing)
      const items = [scored("m", 2000, 0.9, "Message")]
      yield* sliceWith([{ kind: "Document", require: 40 }], items, 1000, slicer)
      // The 400 tokens set aside for Document are not handed to Message.
      assert.deepStrictEqual(budgetsOf(calls), [["m", 1000, 600]])
    }))
})

describe("QuotaSlice — DISTRIBUTE-BUDGET", () => {
  it.effect("Budget Distribution Rounding (P6): every conversion floors, so the shares may add up to less than the target", () =>
    Effect.gen(function*() {
      const { calls, slicer } = recording(nothing)
      const items = [scored("a", 100, 0.9, "A"), scored("b", 200, 0.8, "B")]
      yield* sliceWith([{ kind: "A", require: 33 }, { kind: "B", require: 33 }], items, 1000, slicer)
      // require 330 each (the chapter's example); unassigned 340; floor(340/3) = 113, floor(680/3) = 226.
      assert.deepStrictEqual(budgetsOf(calls), [["a", 1000, 443], ["b", 1000, 556]])
      assert.strictEqual(calls.reduce((sum, c) => sum + c.budget.targetTokens, 0), 999)
    }))

  it.effect("percentages convert by the chapter's formula floor(p / 100.0 × target) in doubles: 57% of 100 is 56", () =>
    Effect.gen(function*() {
      const { calls, slicer } = recording(nothing)
      const items = [scored("a", 10, 0.9, "A")]
      yield* sliceWith([{ kind: "A", require: 57, cap: 57 }], items, 100, slicer)
      // 57 / 100.0 = 0.56999999999999995, × 100 = 56.99999999999999: as in the Rust and .NET code.
      assert.deepStrictEqual(budgetsOf(calls), [["a", 56, 56]])
    }))

  it.effect("the proportional share floor(unassigned × mass / totalMass) is exact beyond 2^53", () =>
    Effect.gen(function*() {
      const { calls, slicer } = recording(nothing)
      const target = 2 ** 40
      const a = 3000074383167
      const b = 7000000012345
      const items = [scored("a", a, 0.9, "A"), scored("b", b, 0.8, "B")]
      yield* sliceWith([], items, target, slicer)
      const exact = (mass: number) => Number((BigInt(target) * BigInt(mass)) / BigInt(a + b))
      assert.deepStrictEqual(budgetsOf(calls), [["a", target, exact(a)], ["b", target, exact(b)]])
      // The double formula rounds up here: the exact floor is one token less.
      assert.strictEqual(exact(a), Math.floor(target * a / (a + b)) - 1)
    }))

  it.effect("zero require: a kind with require 0% gets only its proportional share", () =>
    Effect.gen(function*() {
      const { calls, slicer } = recording(nothing)
      const items = [scored("a", 100, 0.9, "A"), scored("b", 300, 0.8, "B")]
      yield* sliceWith([{ kind: "A", require: 0, cap: 100 }, { kind: "B", require: 20 }], items, 1000, slicer)
      // unassigned 800: A floor(800 × 100 / 400) = 200; B 200 + 600.
      assert.deepStrictEqual(budgetsOf(calls), [["a", 1000, 200], ["b", 1000, 800]])
    }))

  it.effect("require = cap: the kind gets exactly its require and takes no part in the proportional share", () =>
    Effect.gen(function*() {
      const { calls, slicer } = recording(nothing)
      const items = [scored("a", 900, 0.9, "A"), scored("b", 100, 0.8, "B")]
      yield* sliceWith([{ kind: "A", require: 20, cap: 20 }], items, 1000, slicer)
      // A's mass is left out of totalMassForDistribution, so B has the whole 800.
      assert.deepStrictEqual(budgetsOf(calls), [["a", 200, 200], ["b", 1000, 800]])
    }))

  it.effect("a share above the cap is clamped to the cap", () =>
    Effect.gen(function*() {
      const { calls, slicer } = recording(nothing)
      const items = [scored("a", 900, 0.9, "A"), scored("b", 100, 0.8, "B")]
      yield* sliceWith([{ kind: "A", cap: 25 }], items, 1000, slicer)
      // A: floor(1000 × 900 / 1000) = 900, clamped to 250. B: 100. The 650 left are unused.
      assert.deepStrictEqual(budgetsOf(calls), [["a", 250, 250], ["b", 1000, 100]])
    }))

  it.effect("kinds with no quota default to require 0%, cap 100% (a share of up to the whole target)", () =>
    Effect.gen(function*() {
      const { calls, slicer } = recording(nothing)
      const items = [scored("a", 50, 0.9, "A"), scored("u", 5000, 0.8, "Unconfigured")]
      yield* sliceWith([{ kind: "A", require: 10, cap: 10 }], items, 1000, slicer)
      assert.deepStrictEqual(budgetsOf(calls), [["a", 100, 100], ["u", 1000, 900]])
    }))

  it.effect("a quota with only a require keeps cap 100%; one with only a cap keeps require 0%", () =>
    Effect.gen(function*() {
      const { calls, slicer } = recording(nothing)
      const items = [scored("a", 100, 0.9, "A"), scored("b", 100, 0.8, "B")]
      yield* sliceWith([{ kind: "A", require: 60 }, { kind: "B", cap: 10 }], items, 1000, slicer)
      // unassigned 400, halves of 200: A 600 + 200; B 0 + 200 clamped to 100.
      assert.deepStrictEqual(budgetsOf(calls), [["a", 1000, 800], ["b", 100, 100]])
    }))

  it.effect("negative token counts (excluded by Classify) floor toward −∞, as the pseudocode writes", () =>
    Effect.gen(function*() {
      const { calls, slicer } = recording(nothing)
      const items = [scored("a", 10, 0.9, "A"), scored("b", -3, 0.8, "B")]
      yield* sliceWith([{ kind: "B", require: 50 }], items, 10, slicer)
      // unassigned 5, total mass 7: A floor(50/7) = 7; B 5 + floor(-15/7) = 5 - 3 = 2.
      assert.deepStrictEqual(budgetsOf(calls), [["a", 10, 7], ["b", 10, 2]])
    }))
})

describe("QuotaSlice — ContextKind comparison (P4)", () => {
  it.effect("partitions group kinds case-insensitively and keep the sorted order", () =>
    Effect.gen(function*() {
      const { calls, slicer } = recording(nothing)
      const items = [
        scored("m1", 10, 0.9, "Message"),
        scored("d1", 10, 0.8, "document"),
        scored("m2", 10, 0.7, "MESSAGE"),
        scored("d2", 10, 0.6, "Document"),
        scored("m3", 10, 0.5, "message")
      ]
      yield* sliceWith([], items, 100, slicer)
      assert.deepStrictEqual(budgetsOf(calls), [["m1,m2,m3", 100, 60], ["d1,d2", 100, 40]])
    }))

  it.effect("quota lookups compare kinds case-insensitively", () =>
    Effect.gen(function*() {
      const { calls, slicer } = recording(nothing)
      const items = [scored("s", 10, 0.9, "SystemPrompt"), scored("t", 10, 0.8, "ToolOutput")]
      yield* sliceWith([{ kind: "systemprompt", require: 30, cap: 30 }, { kind: "TOOLOUTPUT", cap: 10 }], items, 100, slicer)
      assert.deepStrictEqual(budgetsOf(calls), [["s", 30, 30], ["t", 10, 10]])
    }))
})

describe("QuotaSlice — per-kind slicing and the merged result", () => {
  it.effect("the inner slicer gets maxTokens = the kind's cap in tokens, targetTokens = its share", () =>
    Effect.gen(function*() {
      const { calls, slicer } = recording(nothing)
      const items = [scored("a", 100, 0.9, "A")]
      yield* sliceWith([{ kind: "A", require: 10, cap: 75 }], items, 200, slicer)
      assert.deepStrictEqual(budgetsOf(calls), [["a", 150, 150]])
    }))

  it.effect("the output is the partitions' selections concatenated, in order of first appearance", () =>
    Effect.gen(function*() {
      const items = [
        scored("b1", 10, 0.9, "B"),
        scored("a1", 30, 0.8, "A"),
        scored("b2", 5, 0.7, "B"),
        scored("a2", 10, 0.6, "A")
      ]
      const selection = yield* sliceWith([], items, 1000)
      // Greedy within each kind: density order (b2 0.14 > b1 0.09; a2 0.06 > a1 0.027).
      assert.deepStrictEqual(contentsOf(selection, items), ["b2", "b1", "a2", "a1"])
    }))

  it.effect("works over KnapsackSlice as the inner slicer", () =>
    Effect.gen(function*() {
      const items = [
        scored("a1", 60, 0.9, "A"),
        scored("a2", 50, 0.7, "A"),
        scored("a3", 50, 0.7, "A"),
        scored("b1", 100, 0.5, "B")
      ]
      const knapsack = yield* KnapsackSlice.make({ bucketSize: 10 })
      const selection = yield* sliceWith([{ kind: "A", require: 50, cap: 50 }], items, 200, knapsack)
      // A has 100 tokens: knapsack takes a2 + a3 (1.4) over a1 alone (0.9); greedy, densest first, takes a1.
      assert.deepStrictEqual(contentsOf(selection, items).sort(), ["a2", "a3", "b1"])
      const greedy = yield* sliceWith([{ kind: "A", require: 50, cap: 50 }], items, 200)
      assert.deepStrictEqual(contentsOf(greedy, items).sort(), ["a1", "b1"])
    }))

  it.effect("the inner slicer's errors pass through unchanged", () =>
    Effect.gen(function*() {
      const failure = new SlicerError({ slicer: "failing", reason: "boom" })
      const failing: Slicer.Definition = { name: "failing", slice: () => Effect.fail(failure) }
      const error = yield* Effect.flip(sliceWith([], [scored("a", 1, 1)], 10, failing))
      assert.strictEqual(error, failure)
    }))

  it.effect("the inner slicer's reasons are mapped back to indices of the full sorted list", () =>
    Effect.gen(function*() {
      const reason = ExclusionReason.budgetExceeded(5, 7)
      const inner: Slicer.Definition = {
        name: "explains",
        slice: () => Effect.succeed({ selected: [0], reasons: new Map([[1, reason], [9, reason]]) })
      }
      const items = [scored("a0", 1, 0.9, "A"), scored("b0", 1, 0.8, "B"), scored("a1", 1, 0.7, "A"), scored("b1", 1, 0.6, "B")]
      const selection = yield* sliceWith([], items, 10, inner)
      assert.deepStrictEqual(Array.from(selection.selected), [0, 1])
      // Index 9 is outside both partitions: it explains nothing and is dropped.
      assert.deepStrictEqual([...(selection.reasons ?? new Map())], [[2, reason], [3, reason]])
    }))

  it.effect("the inner slicer's shortfalls are passed on", () =>
    Effect.gen(function*() {
      const shortfall = (kind: string): CountRequirementShortfall => ({ kind, requiredCount: 2, satisfiedCount: 1 })
      const inner: Slicer.Definition = {
        name: "short",
        slice: (sorted) => Effect.succeed({ selected: [], shortfalls: [shortfall(sorted[0]!.item.kind)] })
      }
      const items = [scored("a", 1, 0.9, "A"), scored("b", 1, 0.8, "B")]
      const selection = yield* sliceWith([], items, 10, inner)
      assert.deepStrictEqual(selection.shortfalls, [shortfall("A"), shortfall("B")])
    }))

  it.effect("an inner slicer returning an index outside its partition fails with SlicerContractError (UnknownItem)", () =>
    Effect.gen(function*() {
      const items = [scored("a", 1, 0.9, "A"), scored("b", 1, 0.8, "B")]
      for (const bad of [1, 0.5, -1]) {
        const inner: Slicer.Definition = { name: "bad", slice: () => Effect.succeed({ selected: [0, bad] }) }
        const error = yield* Effect.flip(sliceWith([], items, 10, inner))
        assert.instanceOf(error, SlicerContractError)
        assert.deepStrictEqual([error.slicer, error.violation, error.position], ["bad", "UnknownItem", 1])
      }
    }))

  it.effect("inner indices are checked by Slicer.checkIndices: its errors, the inner slicer's name, positions in the partition's selection", () =>
    Effect.gen(function*() {
      // The second partition ("B", two items) is where the inner slicer goes wrong.
      const items = [scored("a", 1, 0.9, "A"), scored("b1", 1, 0.8, "B"), scored("b2", 1, 0.7, "B")]
      for (const bad of [[1, 2], [0, 0], [0, 1.5], [-0.5], [Number.NaN], [2 ** 32]]) {
        const inner: Slicer.Definition = {
          name: "inner",
          slice: (partition) => Effect.succeed({ selected: partition[0]!.item.kind === "B" ? bad : [0] })
        }
        const error = yield* Effect.flip(sliceWith([], items, 10, inner))
        const expected = yield* Effect.flip(Slicer.checkIndices("inner", 2, bad))
        assert.deepStrictEqual(
          [error._tag, error._tag === "SlicerContractError" && [error.slicer, error.violation, error.position]],
          [expected._tag, [expected.slicer, expected.violation, expected.position]]
        )
      }
    }))

  it.effect("an inner slicer repeating an index fails with SlicerContractError (RepeatedItem)", () =>
    Effect.gen(function*() {
      const inner: Slicer.Definition = { name: "twice", slice: () => Effect.succeed({ selected: [0, 0] }) }
      const error = yield* Effect.flip(sliceWith([], [scored("a", 1, 0.9)], 10, inner))
      assert.instanceOf(error, SlicerContractError)
      assert.deepStrictEqual([error.slicer, error.violation, error.position], ["twice", "RepeatedItem", 1])
    }))

  it.effect("a target that is not a safe integer fails with SlicerError", () =>
    Effect.gen(function*() {
      for (const target of [100.5, Number.POSITIVE_INFINITY]) {
        const error = yield* Effect.flip(sliceWith([], [scored("a", 1, 0.9)], target))
        assert.instanceOf(error, SlicerError)
        assert.strictEqual(error.slicer, "quota")
      }
    }))

  it.effect("kind masses past MAX_SAFE_INTEGER fail with SlicerError", () =>
    Effect.gen(function*() {
      const big = Number.MAX_SAFE_INTEGER - 1
      const error = yield* Effect.flip(sliceWith([], [scored("a", big, 0.9), scored("b", big, 0.8)], 10))
      assert.instanceOf(error, SlicerError)
    }))

  it.effect("never gives QuotaCapExceeded (reserved): no reasons of its own over the built-in slicers", () =>
    Effect.gen(function*() {
      const items = [scored("a", 40, 0.9), scored("b", 40, 0.8)]
      const selection = yield* sliceWith([{ kind: "Message", cap: 50 }], items, 100)
      assert.deepStrictEqual(contentsOf(selection, items), ["a"])
      assert.strictEqual(selection.reasons, undefined)
    }))

  it.effect("in the pipeline, an item left out by its kind's cap gets the default BudgetExceeded", () =>
    Effect.gen(function*() {
      const layers = Layer.mergeAll(
        Scorer.layer(Scorer.make("priority", (item) => (item.priority ?? 0) / 10)),
        QuotaSlice.layer({ inner: GreedySlice.make(), quotas: [{ kind: "Message", cap: 50 }] }),
        Placer.fromOrder("as-merged", (items) => items.map((_, i) => i)),
        OverflowNotifier.layerNoop
      )
      const items = [
        new ContextItem({ content: "a", tokens: 40, priority: 9 }),
        new ContextItem({ content: "b", tokens: 40, priority: 8 })
      ]
      const result = yield* Pipeline.run(items, new ContextBudget({ maxTokens: 100, targetTokens: 100 })).pipe(
        Effect.provide(layers)
      )
      assert.deepStrictEqual(result.window.map((i) => i.content), ["a"])
      assert.deepStrictEqual(result.report.excluded.map((e) => [e.item.content, e.reason]), [
        ["b", ExclusionReason.budgetExceeded(40, 60)]
      ])
    }))

  it.effect("does not modify its input", () =>
    Effect.gen(function*() {
      const items = Object.freeze([scored("a", 10, 0.9, "A"), scored("b", 10, 0.8, "B")].map((s) => Object.freeze(s)))
      const selection = yield* sliceWith([{ kind: "A", require: 50 }], items, 100)
      assert.deepStrictEqual(contentsOf(selection, items), ["a", "b"])
    }))

  it.effect("is named \"quota\"", () =>
    Effect.gen(function*() {
      const slicer = yield* QuotaSlice.make({ inner: GreedySlice.make(), quotas: [] })
      assert.strictEqual(slicer.name, "quota")
    }))
})

describe("QuotaSlice — validation at construction", () => {
  const expectError = (quotas: Quotas, path: string, ...fragments: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      const error = yield* constructionError(quotas)
      assert.instanceOf(error, InvalidConfigError)
      assert.strictEqual(error.component, "QuotaSlice")
      assert.strictEqual(error.path, path)
      for (const fragment of fragments) assert.include(error.rule, fragment)
    })

  it.effect("rule 1: require must not exceed cap", () =>
    expectError(
      [{ kind: "Message", require: 10, cap: 20 }, { kind: "Tool", require: 30, cap: 20 }],
      "quotas[1].require",
      "Tool",
      "cap"
    ))

  it.effect("rule 1 holds against the default cap of 100 and the default require of 0", () =>
    Effect.gen(function*() {
      yield* QuotaSlice.make({ inner: GreedySlice.make(), quotas: [{ kind: "A", require: 100 }, { kind: "B", cap: 0 }] })
    }))

  it.effect("rule 2: the require percentages must not add up to more than 100", () =>
    expectError(
      [{ kind: "A", require: 60 }, { kind: "B", require: 40 }, { kind: "C", require: 0.5 }],
      "quotas",
      "100.5",
      "at most 100"
    ))

  it.effect("rule 2: requires adding up to exactly 100 are accepted, decimals' rounding included (33.3 + 33.3 + 33.4, 0.1 + 0.2 + 99.7)", () =>
    Effect.gen(function*() {
      yield* QuotaSlice.make({ inner: GreedySlice.make(), quotas: [{ kind: "A", require: 50 }, { kind: "B", require: 50 }] })
      yield* QuotaSlice.make({
        inner: GreedySlice.make(),
        quotas: [{ kind: "A", require: 33.3 }, { kind: "B", require: 33.3 }, { kind: "C", require: 33.4 }]
      })
      yield* QuotaSlice.make({
        inner: GreedySlice.make(),
        quotas: [{ kind: "A", require: 0.1 }, { kind: "B", require: 0.2 }, { kind: "C", require: 99.7 }]
      })
    }))

  it.effect("require and cap must lie in [0, 100]", () =>
    Effect.gen(function*() {
      yield* expectError([{ kind: "A", require: -1 }], "quotas[0].require", "\"A\"", "from 0 to 100")
      yield* expectError([{ kind: "A", require: 100.5 }], "quotas[0].require", "from 0 to 100")
      yield* expectError([{ kind: "A", cap: -0.1 }], "quotas[0].cap", "from 0 to 100")
      yield* expectError([{ kind: "B" }, { kind: "A", cap: 101 }], "quotas[1].cap", "\"A\"", "from 0 to 100")
    }))

  it.effect("require and cap must be finite numbers", () =>
    Effect.gen(function*() {
      yield* expectError([{ kind: "A", require: Number.NaN }], "quotas[0].require", "finite")
      yield* expectError([{ kind: "A", cap: Number.POSITIVE_INFINITY }], "quotas[0].cap", "finite")
      yield* expectError([{ kind: "A", require: Number.NEGATIVE_INFINITY, cap: 10 }], "quotas[0].require", "finite")
    }))

  it.effect("a kind may have one quota: duplicates are refused, case-insensitively", () =>
    expectError(
      [{ kind: "Message", require: 10 }, { kind: "Tool", cap: 50 }, { kind: "MESSAGE", cap: 20 }],
      "quotas[2].kind",
      "quotas[0]",
      "case-insensitively"
    ))

  it.effect("a kind must be a non-blank name", () =>
    Effect.gen(function*() {
      yield* expectError([{ kind: "", require: 10 }], "quotas[0].kind", "non-blank")
      yield* expectError([{ kind: "A" }, { kind: "  ", cap: 10 }], "quotas[1].kind", "non-blank")
    }))

  it.effect("an empty list of quotas and undefined percentages are accepted", () =>
    Effect.gen(function*() {
      yield* QuotaSlice.make({ inner: GreedySlice.make(), quotas: [] })
      yield* QuotaSlice.make({ inner: GreedySlice.make(), quotas: [{ kind: "A", require: undefined, cap: undefined }] })
    }))

  it.effect("the layer fails to build on invalid quotas", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Layer.build(QuotaSlice.layer({ inner: GreedySlice.make(), quotas: [{ kind: "A", require: 120 }] })).pipe(Effect.scoped)
      )
      assert.instanceOf(error, InvalidConfigError)
    }))
})

// ---------------------------------------------------------------------------------------------
// Properties

/** Kinds in mixed case: five distinct kinds, several spellings of each. */
const kindNames = ["Message", "message", "MESSAGE", "Document", "document", "ToolOutput", "toolOUTPUT", "SystemPrompt", "Memory"]
const fold = (kind: string) => kind.toLowerCase()

const row = fc.record({
  kind: fc.constantFrom(...kindNames),
  tokens: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 80 }), fc.constantFrom(10, 20, 50)),
  score: fc.oneof(fc.constantFrom(0, 0.1, 0.25, 0.5, 0.75, 1), fc.double({ min: 0, max: 1, noNaN: true }))
})

/** A score-descending list (stable), with distinct contents, as the Sort stage produces it. */
const sortedItems = fc.array(row, { maxLength: 40 }).map((rows) =>
  rows
    .map((r, i) => ({ r, i }))
    .sort((x, y) => y.r.score - x.r.score || x.i - y.i)
    .map(({ i, r }) => scored(`item-${i}`, r.tokens, r.score, r.kind))
)

const percent = fc.oneof(
  fc.constantFrom(0, 5, 10, 12.5, 20, 25, 33.3, 50, 57, 100),
  fc.double({ min: 0, max: 100, noNaN: true })
)

/** Valid quotas: distinct kinds (any spelling), require <= cap, requires adding up to <= 100. */
const quotasArb = fc
  .uniqueArray(
    fc.record({ kind: fc.constantFrom(...kindNames), a: percent, b: percent, shape: fc.constantFrom("both", "require", "cap", "none") }),
    { selector: (q) => fold(q.kind), maxLength: 4 }
  )
  .map((raw) => {
    const requireSum = raw.reduce((s, q) => s + (q.shape === "both" || q.shape === "require" ? Math.min(q.a, q.b) : 0), 0)
    const scale = requireSum > 100 ? 100 / requireSum : 1
    return raw.map((q) => {
      const require = Math.floor(Math.min(q.a, q.b) * scale * 100) / 100
      const cap = Math.max(q.a, q.b)
      switch (q.shape) {
        case "both":
          return { kind: q.kind, require, cap }
        case "require":
          return { kind: q.kind, require }
        case "cap":
          return { kind: q.kind, cap }
        default:
          return { kind: q.kind }
      }
    })
  })

const targetArb = fc.oneof(fc.constant(0), fc.integer({ min: -10, max: 600 }), fc.constantFrom(1, 100, 1000))

const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> => Effect.runPromise(effect)

/** The library's selection, as indices of `items`. */
const librarySelection = (quotas: Quotas, items: ReadonlyArray<ScoredItem>, target: number, inner: Slicer.Definition) =>
  run(sliceWith(quotas, items, target, inner)).then((s) => Array.from(s.selected))

/** The transcription's selection, as indices of `items` (items are distinct objects). */
const specSelection = (quotas: Quotas, items: ReadonlyArray<ScoredItem>, target: number, inner: SpecInnerSlicer) => {
  const index = new Map(items.map((s, i) => [s.item, i] as const))
  return quotaSlice(items, { targetTokens: target }, quotaSet(quotas), inner).map((item) => index.get(item)!)
}

const ascending = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)

const capTokens = (quotas: Quotas, kind: string, target: number) => {
  const q = quotas.find((q) => fold(q.kind) === fold(kind))
  return Math.floor((q?.cap ?? 100) / 100.0 * target)
}
const requireTokens = (quotas: Quotas, kind: string, target: number) => {
  const q = quotas.find((q) => fold(q.kind) === fold(kind))
  return Math.floor((q?.require ?? 0) / 100.0 * target)
}

describe("QuotaSlice — against the chapter's pseudocode", () => {
  it("selects what QUOTA-SLICE over GREEDY-SLICE selects, in the same order", () =>
    fc.assert(
      fc.asyncProperty(quotasArb, sortedItems, targetArb, async (quotas, items, target) => {
        const actual = await librarySelection(quotas, items, target, GreedySlice.make())
        const expected = specSelection(quotas, items, target, greedySlice)
        assert.deepStrictEqual(ascending(actual), ascending(expected))
        assert.deepStrictEqual(actual, expected)
      }),
      { numRuns: 1000 }
    ))

  it("selects what QUOTA-SLICE over KNAPSACK-SLICE selects, in the same order", () =>
    fc.assert(
      fc.asyncProperty(
        quotasArb,
        sortedItems,
        targetArb,
        fc.constantFrom(1, 3, 10, 25, 100),
        async (quotas, items, target, bucketSize) => {
          const knapsack = await run(KnapsackSlice.make({ bucketSize }))
          const actual = await librarySelection(quotas, items, target, knapsack)
          const expected = specSelection(quotas, items, target, (xs, b) => knapsackSlice(xs, b, bucketSize))
          assert.deepStrictEqual(ascending(actual), ascending(expected))
          assert.deepStrictEqual(actual, expected)
        }
      ),
      { numRuns: 500 }
    ))
})

describe("QuotaSlice — properties", () => {
  const inners = fc.constantFrom<"greedy" | "knapsack-1" | "knapsack-10">("greedy", "knapsack-1", "knapsack-10")
  const innerOf = (which: "greedy" | "knapsack-1" | "knapsack-10") =>
    which === "greedy" ? Effect.succeed(GreedySlice.make()) : KnapsackSlice.make({ bucketSize: which === "knapsack-1" ? 1 : 10 })

  it("no kind exceeds its cap's share, and the total stays within the target", () =>
    fc.assert(
      fc.asyncProperty(quotasArb, sortedItems, targetArb, inners, async (quotas, items, target, which) => {
        const selected = await librarySelection(quotas, items, target, await run(innerOf(which)))
        const perKind = new Map<string, number>()
        let total = 0
        for (const i of selected) {
          const { kind, tokens } = items[i]!.item
          perKind.set(fold(kind), (perKind.get(fold(kind)) ?? 0) + tokens)
          total += tokens
        }
        for (const [kind, tokens] of perKind) assert.isAtMost(tokens, capTokens(quotas, kind, target), kind)
        assert.isAtMost(total, Math.max(0, target))
        assert.strictEqual(new Set(selected).size, selected.length)
      }),
      { numRuns: 500 }
    ))

  it("every kind present gets at least its require and at most its cap, and partitions keep the sorted order", () =>
    fc.assert(
      fc.asyncProperty(quotasArb, sortedItems, targetArb, async (quotas, items, target) => {
        const { calls, slicer } = recording(nothing)
        await run(sliceWith(quotas, items, target, slicer))
        const position = new Map(items.map((s, i) => [s.item.content, i] as const))
        const kindOf = new Map(items.map((s) => [s.item.content, fold(s.item.kind)] as const))
        const seenKinds = new Set<string>()
        for (const call of calls) {
          const kinds = new Set(call.contents.map((c) => kindOf.get(c)!))
          assert.strictEqual(kinds.size, 1)
          const kind = [...kinds][0]!
          assert.isFalse(seenKinds.has(kind))
          seenKinds.add(kind)
          const positions = call.contents.map((c) => position.get(c)!)
          assert.deepStrictEqual(positions, ascending(positions))
          assert.isAbove(call.budget.targetTokens, 0)
          assert.isAtLeast(call.budget.targetTokens, requireTokens(quotas, kind, target))
          assert.isAtMost(call.budget.targetTokens, call.budget.maxTokens)
          assert.strictEqual(call.budget.maxTokens, capTokens(quotas, kind, target))
        }
        // A kind with a positive require is always sliced (when the target is positive).
        if (target > 0) {
          for (const kind of new Set(items.map((s) => fold(s.item.kind)))) {
            if (requireTokens(quotas, kind, target) > 0) assert.isTrue(seenKinds.has(kind), kind)
          }
        }
      }),
      { numRuns: 500 }
    ))

  it("every satisfiable requirement is met: over greedy, a kind whose candidates fit its require is selected whole", () =>
    fc.assert(
      fc.asyncProperty(quotasArb, sortedItems, targetArb, async (quotas, items, target) => {
        const selected = new Set(await librarySelection(quotas, items, target, GreedySlice.make()))
        const mass = new Map<string, number>()
        for (const s of items) mass.set(fold(s.item.kind), (mass.get(fold(s.item.kind)) ?? 0) + s.item.tokens)
        for (const [kind, tokens] of mass) {
          const require = requireTokens(quotas, kind, target)
          if (require > 0 && tokens <= require) {
            items.forEach((s, i) => {
              if (fold(s.item.kind) === kind) assert.isTrue(selected.has(i), `${s.item.content} of ${kind}`)
            })
          }
        }
      }),
      { numRuns: 500 }
    ))
})
