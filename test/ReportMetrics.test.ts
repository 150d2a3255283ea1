import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as ReportMetrics from "../src/ReportMetrics.ts"
import {
  ContextBudget,
  ContextItem,
  IncludedItem,
  InclusionReason,
  InvalidConfigError,
  OverflowNotifier,
  Pipeline,
  ReflexiveScorer,
  Slicer,
  Timestamp,
  TokenTotalError,
  UShapedPlacer
} from "../src/index.ts"

const item = (
  content: string,
  tokens: number,
  extra: Partial<{ kind: string; timestamp: number; pinned: boolean }> = {}
): ContextItem.ContextItem =>
  new ContextItem.ContextItem({
    content,
    tokens,
    ...(extra.kind === undefined ? {} : { kind: extra.kind }),
    ...(extra.pinned === undefined ? {} : { pinned: extra.pinned }),
    ...(extra.timestamp === undefined ? {} : { timestamp: Timestamp.fromEpochMillis(extra.timestamp) })
  })
const included = (...items: ReadonlyArray<ContextItem.ContextItem>): ReportMetrics.Included => ({
  included: items.map((i): IncludedItem.IncludedItem => ({ item: i, score: 0.5, reason: InclusionReason.scored }))
})
const budget = (maxTokens: number, targetTokens: number) => new ContextBudget.ContextBudget({ maxTokens, targetTokens })

describe("ReportMetrics.budgetUtilization", () => {
  it.effect("is the included tokens over budget.maxTokens", () =>
    Effect.gen(function*() {
      const u = yield* ReportMetrics.budgetUtilization(included(item("a", 300), item("b", 200)), budget(1000, 1000))
      assert.strictEqual(u, 0.5)
    }))

  it.effect("divides by maxTokens, not targetTokens (PD-2)", () =>
    Effect.gen(function*() {
      const u = yield* ReportMetrics.budgetUtilization(included(item("a", 400)), budget(1000, 400))
      assert.strictEqual(u, 0.4)
    }))

  it.effect("is 0 for an empty window", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* ReportMetrics.budgetUtilization(included(), budget(1000, 500)), 0)
    }))

  it.effect("is 0 for a window of 0 tokens over a zero budget (not NaN)", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* ReportMetrics.budgetUtilization(included(), budget(0, 0)), 0)
      assert.strictEqual(yield* ReportMetrics.budgetUtilization(included(item("z", 0)), budget(0, 0)), 0)
      assert.strictEqual(yield* ReportMetrics.budgetUtilization(included(item("p", 5), item("n", -5)), budget(0, 0)), 0)
    }))

  it.effect("never Infinity: a window holding tokens over a zero budget fails with InvalidConfigError naming budget.maxTokens", () =>
    Effect.gen(function*() {
      for (const window of [included(item("a", 5)), included(item("n", -5))]) {
        const error = yield* Effect.flip(ReportMetrics.budgetUtilization(window, budget(0, 0)))
        assert.instanceOf(error, InvalidConfigError.InvalidConfigError)
        if (error._tag === "InvalidConfigError") {
          assert.strictEqual(error.path, "budget.maxTokens")
          assert.match(error.rule, /must be positive/)
        }
      }
    }))

  it.effect("never Infinity: a Proceed run over a zero budget fails rather than measuring Infinity", () =>
    Effect.gen(function*() {
      const everything = Slicer.layer(Slicer.fromIndices("everything", (sorted) => sorted.map((_, i) => i)))
      const b = budget(0, 0)
      const result = yield* Pipeline.run([item("a", 80)], b, { overflowStrategy: "Proceed" }).pipe(
        Effect.provide(Layer.mergeAll(ReflexiveScorer.layer, everything, UShapedPlacer.layer, OverflowNotifier.layerNoop))
      )
      assert.strictEqual(result.report.included.length, 1)
      const error = yield* Effect.flip(ReportMetrics.budgetUtilization(result.report, b))
      assert.strictEqual(error._tag, "InvalidConfigError")
    }))

  it.effect("exceeds 1 when a Proceed run keeps more than maxTokens", () =>
    Effect.gen(function*() {
      // A slicer that takes everything, whatever the budget: Place proceeds over it.
      const everything = Slicer.layer(Slicer.fromIndices("everything", (sorted) => sorted.map((_, i) => i)))
      const b = budget(100, 50)
      const result = yield* Pipeline.run([item("a", 80), item("b", 40)], b, { overflowStrategy: "Proceed" }).pipe(
        Effect.provide(Layer.mergeAll(ReflexiveScorer.layer, everything, UShapedPlacer.layer, OverflowNotifier.layerNoop))
      )
      assert.strictEqual(result.report.included.length, 2)
      assert.strictEqual(yield* ReportMetrics.budgetUtilization(result.report, b), 1.2)
    }))

  it.effect("fails with TokenTotalError when the included tokens add up past MAX_SAFE_INTEGER", () =>
    Effect.gen(function*() {
      const huge = Number.MAX_SAFE_INTEGER
      const error = yield* Effect.flip(
        ReportMetrics.budgetUtilization(included(item("a", huge), item("b", 1), item("c", 1)), budget(10, 10))
      )
      assert.instanceOf(error, TokenTotalError.TokenTotalError)
      assert.strictEqual(error.what, "included items")
      assert.strictEqual(error.count, 2)
    }))
})

describe("ReportMetrics.kindDiversity", () => {
  it("is 0 for an empty window", () => {
    assert.strictEqual(ReportMetrics.kindDiversity(included()), 0)
  })

  it("counts distinct kinds among the included items", () => {
    const report = included(
      item("s", 10, { kind: "SystemPrompt" }),
      item("m1", 20, { kind: "Message" }),
      item("m2", 30, { kind: "Message" })
    )
    assert.strictEqual(ReportMetrics.kindDiversity(report), 2)
  })

  it("compares kinds case-insensitively", () => {
    const report = included(item("a", 1, { kind: "message" }), item("b", 1, { kind: "MESSAGE" }), item("c", 1))
    assert.strictEqual(ReportMetrics.kindDiversity(report), 1)
  })

  it("is 1 when every included item has the same kind", () => {
    assert.strictEqual(ReportMetrics.kindDiversity(included(item("a", 1), item("b", 2))), 1)
  })
})

describe("ReportMetrics.timestampCoverage", () => {
  it("is 0 for an empty window (not NaN)", () => {
    assert.strictEqual(ReportMetrics.timestampCoverage(included()), 0)
  })

  it("is 1 when every included item has a timestamp", () => {
    const report = included(item("a", 1, { timestamp: 0 }), item("b", 1, { timestamp: 1_700_000_000_000 }))
    assert.strictEqual(ReportMetrics.timestampCoverage(report), 1)
  })

  it("is 0 when none has one", () => {
    assert.strictEqual(ReportMetrics.timestampCoverage(included(item("a", 1), item("b", 1))), 0)
  })

  it("is the dated fraction of the included items", () => {
    const report = included(item("a", 1, { timestamp: 0 }), item("b", 1), item("c", 1), item("d", 1, { timestamp: 5 }))
    assert.strictEqual(ReportMetrics.timestampCoverage(report), 0.5)
  })

  it("reads only the included list, not the excluded one", () => {
    const report = {
      ...included(item("a", 1, { timestamp: 0 })),
      excluded: [{ item: item("b", 1), score: 0, reason: { _tag: "BudgetExceeded" as const, itemTokens: 1, availableTokens: 0 } }]
    }
    assert.strictEqual(ReportMetrics.timestampCoverage(report), 1)
    assert.strictEqual(ReportMetrics.kindDiversity(report), 1)
  })
})
