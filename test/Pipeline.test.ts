import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Option, Tracer } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import {
  ContextBudget,
  ContextItem,
  OverflowNotifier,
  Pipeline,
  Placer,
  Scorer,
  SelectionReport,
  Slice,
  Slicer
} from "../src/index.ts"
import { type SpecScored, specPipeline } from "./support/specPipeline.ts"
import { recordSpans } from "./support/spans.ts"

// A per-item scorer (priority / 10), a slicer that walks the sorted list taking what still fits
// the target (zero-token items always), and a placer that keeps the merged order: simple
// strategies, so that these tests are about the pipeline's own rules.
const byPriority = (item: ContextItem.ContextItem): number => (item.priority ?? 0) / 10
const takeWhatFits = (
  sorted: ReadonlyArray<SpecScored>,
  budget: { readonly targetTokens: number }
): Array<ContextItem.ContextItem> => {
  const out: Array<ContextItem.ContextItem> = []
  if (budget.targetTokens <= 0) return out
  let used = 0
  for (const s of sorted) {
    if (used + s.item.tokens <= budget.targetTokens) {
      out.push(s.item)
      used += s.item.tokens
    }
  }
  return out
}
const layers = Layer.mergeAll(
  Scorer.layer(Scorer.make("priority/10", byPriority)),
  Slicer.layer(Slicer.make("take-what-fits", takeWhatFits)),
  Placer.fromOrder("as-merged", (items) => items.map((_, i) => i)),
  OverflowNotifier.layerNoop
)

const item = (
  content: string,
  tokens: number,
  extra: Partial<{ priority: number; pinned: boolean; kind: string }> = {}
) => new ContextItem.ContextItem({ content, tokens, ...extra })
const budget = (maxTokens: number, targetTokens: number, extra: Partial<{ outputReserve: number }> = {}) =>
  new ContextBudget.ContextBudget({ maxTokens, targetTokens, ...extra })
const contents = (items: ReadonlyArray<{ readonly content: string }>) => items.map((i) => i.content)
const run = (items: ReadonlyArray<ContextItem.ContextItem>, b: ContextBudget.ContextBudget, options?: Pipeline.Options) =>
  Pipeline.run(items, b, options).pipe(Effect.provide(layers))

describe("Pipeline — Classify", () => {
  it.effect("excludes negative-token items with NegativeTokens, score 0, and counts their tokens", () =>
    Effect.gen(function*() {
      const result = yield* run([item("neg", -5, { priority: 9 }), item("ok", 100, { priority: 5 })], budget(1000, 500))
      assert.deepStrictEqual(contents(result.window), ["ok"])
      assert.deepStrictEqual(result.report.excluded.map((e) => [e.item.content, e.score, e.reason]), [
        ["neg", 0, { _tag: "NegativeTokens", tokens: -5 }]
      ])
      assert.strictEqual(result.report.totalCandidates, 2)
      assert.strictEqual(result.report.totalTokensConsidered, 95)
    }))

  it.effect("a pinned item with negative tokens is excluded, not pinned", () =>
    Effect.gen(function*() {
      const result = yield* run([item("p", -1, { pinned: true })], budget(10, 10))
      assert.deepStrictEqual(result.window, [])
      assert.strictEqual(result.report.excluded[0]!.reason._tag, "NegativeTokens")
    }))

  it.effect("pinned items over maxTokens − outputReserve fail with PinnedBudgetError (not checked against the target)", () =>
    Effect.gen(function*() {
      const pinned = [item("a", 60, { pinned: true }), item("b", 30, { pinned: true })]
      const error = yield* Effect.flip(run(pinned, budget(100, 50, { outputReserve: 11 })))
      assert.strictEqual(error._tag, "PinnedBudgetError")
      if (error._tag === "PinnedBudgetError") {
        assert.strictEqual(error.pinnedTokens, 90)
        assert.strictEqual(error.availableTokens, 89)
        assert.include(error.message, "Pinned items require 90 tokens, but only 89 are available")
      }
      // Exactly at maxTokens − outputReserve is allowed; over the target it is Place's overflow.
      const fits = yield* run(pinned, budget(100, 50, { outputReserve: 10 }), { overflowStrategy: "Truncate" })
      assert.deepStrictEqual(contents(fits.window), ["a", "b"])
      assert.strictEqual(fits.tokensOverBudget, 40)
    }))

  it.effect("token totals past Number.MAX_SAFE_INTEGER fail with TokenTotalError", () =>
    Effect.gen(function*() {
      const huge = [item("a", Number.MAX_SAFE_INTEGER), item("b", 1)]
      const error = yield* Effect.flip(run(huge, budget(10, 10)))
      assert.strictEqual(error._tag, "TokenTotalError")
    }))
})

describe("Pipeline — Score", () => {
  it.effect("a custom scorer that throws fails with ScorerError naming the scorer and the item", () =>
    Effect.gen(function*() {
      const throwing = Scorer.make("boom", (i) => {
        if (i.content === "b") throw new Error("no score for b")
        return 1
      })
      const error = yield* Effect.flip(
        Pipeline.run([item("a", 1), item("b", 1)], budget(10, 10)).pipe(
          Effect.provide(Layer.mergeAll(layers, Scorer.layer(throwing)))
        )
      )
      assert.strictEqual(error._tag, "ScorerError")
      if (error._tag === "ScorerError") {
        assert.strictEqual(error.scorer, "boom")
        assert.strictEqual(error.index, 1)
        assert.strictEqual(error.content, "b")
        assert.include(error.message, "no score for b")
      }
    }))

  it.effect("a scorer returning NaN, or the wrong number of scores, fails with ScorerError", () =>
    Effect.gen(function*() {
      for (const scorer of [Scorer.make("nan", () => NaN), Scorer.makeAll("short", () => [1])]) {
        const error = yield* Effect.flip(
          Pipeline.run([item("a", 1), item("b", 1)], budget(10, 10)).pipe(
            Effect.provide(Layer.mergeAll(layers, Scorer.layer(scorer)))
          )
        )
        assert.strictEqual(error._tag, "ScorerError")
      }
    }))

  it.effect("the scorer is not called on an empty scoreable list", () =>
    Effect.gen(function*() {
      let calls = 0
      const counting = Scorer.makeAll("counting", (items) => {
        calls++
        return items.map(() => 1)
      })
      yield* Pipeline.run([item("p", 1, { pinned: true })], budget(10, 10)).pipe(
        Effect.provide(Layer.mergeAll(layers, Scorer.layer(counting)))
      )
      assert.strictEqual(calls, 0)
    }))
})

describe("Pipeline — Deduplicate", () => {
  it.effect("keeps the best-scored item of each content, byte-exact, and reports the others as Deduplicated", () =>
    Effect.gen(function*() {
      const items = [item("x", 1, { priority: 2 }), item("x", 1, { priority: 7 }), item("X", 1, { priority: 1 }), item("x ", 1)]
      const result = yield* run(items, budget(100, 100))
      assert.deepStrictEqual(result.window, [items[1]!, items[2]!, items[3]!])
      assert.deepStrictEqual(result.report.excluded, [
        { item: items[0]!, score: 0.2, reason: { _tag: "Deduplicated", deduplicatedAgainst: "x" } }
      ])
    }))

  it.effect("on equal scores the earlier item survives", () =>
    Effect.gen(function*() {
      const items = [item("x", 1, { priority: 3 }), item("x", 2, { priority: 3 })]
      const result = yield* run(items, budget(100, 100))
      assert.deepStrictEqual(result.window, [items[0]!])
    }))

  it.effect("switched off, duplicates all stay", () =>
    Effect.gen(function*() {
      const items = [item("x", 1), item("x", 1)]
      const result = yield* run(items, budget(100, 100), { deduplication: false })
      assert.deepStrictEqual(result.window, items)
    }))
})

describe("Pipeline — Sort and Slice", () => {
  it.effect("equal scores keep their input order (stable sort)", () =>
    Effect.gen(function*() {
      const items = ["a", "b", "c", "d"].map((c) => item(c, 1, { priority: 5 }))
      const result = yield* run(items, budget(100, 100))
      assert.deepStrictEqual(contents(result.window), ["a", "b", "c", "d"])
    }))

  it("the effective budget follows the chapter: reserve, pinned tokens, reserved slots, floored safety margin", () => {
    const b = new ContextBudget.ContextBudget({
      maxTokens: 1000,
      targetTokens: 800,
      outputReserve: 100,
      reservedSlots: { Document: 50, ToolOutput: 25 },
      estimationSafetyMarginPercent: 10
    })
    const effective = Effect.runSync(Slice.effectiveBudget(b, 200))
    // max: 1000-100-200-75 = 625 → floor(562.5) = 562; target: 800-200-75 = 525 → floor(472.5) = 472
    assert.deepStrictEqual(effective, { maxTokens: 562, targetTokens: 472 })
    assert.deepStrictEqual(Effect.runSync(Slice.effectiveBudget(b, 2000)), { maxTokens: 0, targetTokens: 0 })
  })

  it.effect("the reserved slots are totalled as every token sum is (sumTokens): past MAX_SAFE_INTEGER, TokenTotalError", () =>
    Effect.gen(function*() {
      const reserved = (reservedSlots: Record<string, number>) =>
        Slice.effectiveBudget({ ...new ContextBudget.ContextBudget({ maxTokens: 1000, targetTokens: 800 }), reservedSlots }, 0)
      const error = yield* Effect.flip(reserved({ A: Number.MAX_SAFE_INTEGER, B: 1, C: 1 }))
      assert.strictEqual(error._tag, "TokenTotalError")
      assert.deepStrictEqual([error.what, error.count], ["reserved slots", 2])
      assert.deepStrictEqual(yield* reserved({ A: 100, B: 50 }), { maxTokens: 850, targetTokens: 650 })
      assert.deepStrictEqual(yield* reserved({}), { maxTokens: 1000, targetTokens: 800 })
    }))

  it.effect("BudgetExceeded carries the item's tokens and what the effective target had left", () =>
    Effect.gen(function*() {
      const result = yield* run([item("fits", 150, { priority: 9 }), item("too-big", 400, { priority: 1 })], budget(1000, 200))
      assert.deepStrictEqual(result.report.excluded[0]!.reason, { _tag: "BudgetExceeded", itemTokens: 400, availableTokens: 50 })
    }))

  it.effect("an item that fits without the pinned items is PinnedOverride, displaced by the first pinned item", () =>
    Effect.gen(function*() {
      const items = [item("pinned-item", 120, { pinned: true }), item("regular-item", 80, { priority: 5 })]
      const result = yield* run(items, budget(1000, 150), { overflowStrategy: "Truncate" })
      assert.deepStrictEqual(contents(result.window), ["pinned-item"])
      assert.deepStrictEqual(result.report.excluded, [
        { item: items[1]!, score: 0.5, reason: { _tag: "PinnedOverride", displacedBy: "pinned-item" } }
      ])
      assert.deepStrictEqual(result.report.included, [{ item: items[0]!, score: 1, reason: { _tag: "Pinned" } }])
    }))

  it.effect("a custom slicer that throws fails with SlicerError; one returning a foreign item with SlicerContractError", () =>
    Effect.gen(function*() {
      const foreign = item("foreign", 1)
      const slicers = [
        Slicer.make("boom", () => {
          throw new Error("cannot slice")
        }),
        Slicer.make("foreign", () => [foreign])
      ]
      const tags: Array<string> = []
      for (const slicer of slicers) {
        const error = yield* Effect.flip(
          Pipeline.run([item("a", 1)], budget(10, 10)).pipe(Effect.provide(Layer.mergeAll(layers, Slicer.layer(slicer))))
        )
        tags.push(error._tag)
      }
      assert.deepStrictEqual(tags, ["SlicerError", "SlicerContractError"])
    }))
})

describe("Pipeline — Slice's columns", () => {
  it.effect("the slicer is handed the sorted entries' scores and tokens as typed arrays, entry for entry", () =>
    Effect.gen(function*() {
      const seen: Array<{ sorted: ReadonlyArray<{ score: number; tokens: number }>; columns: Slicer.Columns | undefined }> = []
      const recording: Slicer.Definition = {
        name: "recording",
        slice: (sorted, _budget, columns) => {
          seen.push({ sorted: sorted.map((s) => ({ score: s.score, tokens: s.item.tokens })), columns })
          return Effect.succeed({ selected: [0] })
        }
      }
      const items = [item("a", 5, { priority: 3 }), item("b", 0, { priority: 9 }), item("a", 7, { priority: 5 }), item("c", 2)]
      yield* Pipeline.run(items, budget(100, 50)).pipe(Effect.provide(Layer.mergeAll(layers, Slicer.layer(recording))))
      const first = seen[0]
      if (seen.length !== 1 || first?.columns === undefined) return assert.fail("one call, with columns")
      const { columns, sorted } = first
      // After deduplication ("a" at 3 loses to "a" at 5), by score: b 0.9, a 0.5, c 0.
      assert.deepStrictEqual(sorted, [{ score: 0.9, tokens: 0 }, { score: 0.5, tokens: 7 }, { score: 0, tokens: 2 }])
      assert.deepStrictEqual(Array.from(columns.scores), sorted.map((s) => s.score))
      assert.deepStrictEqual(Array.from(columns.tokens), sorted.map((s) => s.tokens))
    }))
})

describe("Pipeline — the report", () => {
  it.effect("included in placed order with reasons; excluded by score descending; five stage events", () =>
    Effect.gen(function*() {
      const items = [
        item("sys", 10, { pinned: true }),
        item("zero", 0, { priority: 1 }),
        item("big", 500, { priority: 9 }),
        item("mid", 30, { priority: 6 }),
        item("mid", 30, { priority: 2 }),
        item("neg", -3, { priority: 8 })
      ]
      const result = yield* run(items, budget(1000, 100))
      const report = result.report
      assert.deepStrictEqual(report.included.map((i) => [i.item.content, i.score, i.reason._tag]), [
        ["sys", 1, "Pinned"],
        ["mid", 0.6, "Scored"],
        ["zero", 0.1, "ZeroToken"]
      ])
      assert.deepStrictEqual(report.excluded.map((e) => [e.item.content, e.score, e.reason._tag]), [
        ["big", 0.9, "BudgetExceeded"],
        ["mid", 0.2, "Deduplicated"],
        ["neg", 0, "NegativeTokens"]
      ])
      assert.strictEqual(report.totalCandidates, report.included.length + report.excluded.length)
      assert.strictEqual(report.totalTokensConsidered, 10 + 0 + 500 + 30 + 30 - 3)
      assert.deepStrictEqual(report.events.map((e) => [e.stage, e.itemCount]), [
        ["Classify", 5],
        ["Score", 4],
        ["Deduplicate", 3],
        ["Slice", 2],
        ["Place", 3]
      ])
    }))

  it.effect("stage durations are read from Effect's Clock", () =>
    Effect.gen(function*() {
      yield* TestClock.adjust("1 hour")
      const result = yield* run([item("a", 1)], budget(10, 10))
      for (const event of result.report.events) assert.strictEqual(event.durationMs, 0)
    }))

  it.effect("encodes to the specification's wire format", () =>
    Effect.gen(function*() {
      const result = yield* run([item("fits", 150, { priority: 9 }), item("too-big", 400)], budget(1000, 200))
      const encoded = yield* SelectionReport.encode(result.report)
      const json = JSON.parse(JSON.stringify(encoded))
      assert.deepStrictEqual(json.excluded[0].reason, { reason: "BudgetExceeded", item_tokens: 400, available_tokens: 50 })
      assert.deepStrictEqual(json.included[0].reason, { reason: "Scored" })
      assert.strictEqual(json.total_candidates, 2)
      assert.strictEqual(json.total_tokens_considered, 550)
      assert.deepStrictEqual(Object.keys(json.events[0]).sort(), ["duration_ms", "item_count", "stage"])
      const decoded = yield* SelectionReport.decode(encoded)
      assert.deepStrictEqual(decoded.excluded[0]!.reason, result.report.excluded[0]!.reason)
    }))

  it.effect("inputs are never modified", () =>
    Effect.gen(function*() {
      const items = Object.freeze([item("a", 5, { priority: 1 }), item("a", 5, { priority: 2 }), item("p", 1, { pinned: true })].map((i) => Object.freeze(i)))
      const result = yield* run(items, budget(100, 100))
      assert.deepStrictEqual(contents(result.window), ["p", "a"])
    }))
})

describe("Pipeline — tracing", () => {
  it.effect("runs in cupel.pipeline with one child span per stage but Sort, annotated as integrations/opentelemetry.md says", () => {
    const { spans, tracer } = recordSpans()
    return Effect.gen(function*() {
      yield* run([item("a", 1, { priority: 1 }), item("a", 1), item("b", 50), item("p", 1, { pinned: true })], budget(20, 20), {
        overflowStrategy: "Truncate"
      })
      const root = spans.find((s) => s.name === "cupel.pipeline")
      assert.isDefined(root)
      assert.deepInclude(Object.fromEntries(root!.attributes), { "cupel.budget.max_tokens": 20, "cupel.verbosity": "StageOnly" })
      const stages = spans.filter((s) => s.name.startsWith("cupel.stage."))
      assert.deepStrictEqual(stages.map((s) => s.name), [
        "cupel.stage.classify",
        "cupel.stage.score",
        "cupel.stage.deduplicate",
        "cupel.stage.slice",
        "cupel.stage.place"
      ])
      const counts = stages.map((s) => {
        const a = Object.fromEntries(s.attributes)
        return [a["cupel.stage.name"], a["cupel.stage.item_count_in"], a["cupel.stage.item_count_out"]]
      })
      assert.deepStrictEqual(counts, [
        ["classify", 4, 4],
        ["score", 3, 3],
        ["deduplicate", 3, 2],
        ["slice", 2, 1],
        ["place", 2, 2]
      ])
      for (const stage of stages) {
        assert.strictEqual(stage.parent._tag === "Some" ? stage.parent.value.spanId : undefined, root!.spanId)
      }
    }).pipe(Effect.withTracer(tracer))
  })
})

describe("Pipeline — tracing: verbosity tiers, failures, groups, the span tree", () => {
  const attrs = (span: { readonly attributes: ReadonlyMap<string, unknown> }) => Object.fromEntries(span.attributes)
  const stageSpans = (spans: ReadonlyArray<Tracer.NativeSpan>) => spans.filter((s) => s.name.startsWith("cupel.stage."))
  // A negative item (Classify), a duplicate (Deduplicate), one too large (Slice) and a pinned one.
  const mixed = () => [
    item("neg", -3, { kind: "Document" }),
    item("a", 1, { priority: 1 }),
    item("a", 1),
    item("b", 50),
    item("p", 1, { pinned: true })
  ]
  const exclusionEvents = (span: Tracer.NativeSpan) =>
    span.events.filter(([name]) => name === "cupel.exclusion").map(([, , a]) => [
      a["cupel.exclusion.reason"],
      a["cupel.exclusion.item_kind"],
      a["cupel.exclusion.item_tokens"]
    ])

  it.effect("StageOnly (the default) says so in cupel.verbosity and puts no cupel.exclusion.count and no event on any stage span", () => {
    const { spans, tracer } = recordSpans()
    return Effect.gen(function*() {
      yield* run(mixed(), budget(20, 20), { overflowStrategy: "Truncate" })
      assert.strictEqual(attrs(spans.find((s) => s.name === "cupel.pipeline")!)["cupel.verbosity"], "StageOnly")
      for (const span of stageSpans(spans)) {
        assert.notProperty(attrs(span), "cupel.exclusion.count", span.name)
        assert.deepStrictEqual(span.events, [], span.name)
      }
    }).pipe(Effect.withTracer(tracer))
  })

  it.effect("StageAndExclusions: cupel.exclusion.count on every stage span (score's 0) and one cupel.exclusion event per item the stage excluded, with reason, item_kind and item_tokens", () => {
    const { spans, tracer } = recordSpans()
    return Effect.gen(function*() {
      const result = yield* run(mixed(), budget(20, 20), { overflowStrategy: "Truncate", verbosity: "StageAndExclusions" })
      assert.strictEqual(attrs(spans.find((s) => s.name === "cupel.pipeline")!)["cupel.verbosity"], "StageAndExclusions")
      const stages = stageSpans(spans)
      assert.deepStrictEqual(stages.map((s) => [s.name, attrs(s)["cupel.exclusion.count"]]), [
        ["cupel.stage.classify", 1],
        ["cupel.stage.score", 0],
        ["cupel.stage.deduplicate", 1],
        ["cupel.stage.slice", 1],
        ["cupel.stage.place", 0]
      ])
      assert.deepStrictEqual(stages.map(exclusionEvents), [
        [["NegativeTokens", "Document", -3]],
        [],
        [["Deduplicated", "Message", 1]],
        [["BudgetExceeded", "Message", 50]],
        []
      ])
      // As many events as the report has exclusions, and no included-item events below Full.
      assert.strictEqual(stages.flatMap(exclusionEvents).length, result.report.excluded.length)
      assert.isFalse(spans.some((s) => s.events.some(([name]) => name === "cupel.item.included")))
    }).pipe(Effect.withTracer(tracer))
  })

  it.effect("StageAndExclusions: what Place's Truncate drops is a cupel.exclusion event on cupel.stage.place", () => {
    const { spans, tracer } = recordSpans()
    const takeAll = Slicer.layer(Slicer.make("take-all", (sorted) => sorted.map((s) => s.item)))
    return Effect.gen(function*() {
      const result = yield* Pipeline.run([item("small", 5, { priority: 9 }), item("big", 50, { priority: 1 })], budget(20, 20), {
        overflowStrategy: "Truncate",
        verbosity: "StageAndExclusions"
      }).pipe(Effect.provide(Layer.mergeAll(layers, takeAll)))
      const place = spans.find((s) => s.name === "cupel.stage.place")!
      assert.strictEqual(attrs(place)["cupel.exclusion.count"], 1)
      assert.deepStrictEqual(exclusionEvents(place), [[result.report.excluded[0]!.reason._tag, "Message", 50]])
    }).pipe(Effect.withTracer(tracer))
  })

  it.effect("Full: also one cupel.item.included event per item in the window on cupel.stage.place, with kind, tokens and score", () => {
    const { spans, tracer } = recordSpans()
    return Effect.gen(function*() {
      const result = yield* run(mixed(), budget(20, 20), { overflowStrategy: "Truncate", verbosity: "Full" })
      assert.strictEqual(attrs(spans.find((s) => s.name === "cupel.pipeline")!)["cupel.verbosity"], "Full")
      const place = spans.find((s) => s.name === "cupel.stage.place")!
      const includedEvents = place.events.filter(([name]) => name === "cupel.item.included").map(([, , a]) => a)
      assert.deepStrictEqual(
        includedEvents,
        result.report.included.map((e) => ({
          "cupel.item.kind": e.item.kind,
          "cupel.item.tokens": e.item.tokens,
          "cupel.item.score": e.score
        }))
      )
      assert.strictEqual(includedEvents.length, 2)
      assert.strictEqual(stageSpans(spans).flatMap(exclusionEvents).length, result.report.excluded.length)
    }).pipe(Effect.withTracer(tracer))
  })

  it.effect("failure case: a stage that fails is named and counted on its span (PinnedBudgetError in classify, a throwing slicer in slice)", () => {
    const { spans, tracer } = recordSpans()
    const boom = Slicer.layer(Slicer.make("boom", () => {
      throw new Error("cannot slice")
    }))
    return Effect.gen(function*() {
      const pinnedError = yield* Effect.flip(run([item("p", 50, { pinned: true }), item("a", 1)], budget(10, 10)))
      assert.strictEqual(pinnedError._tag, "PinnedBudgetError")
      const classify = spans.find((s) => s.name === "cupel.stage.classify")!
      assert.deepInclude(attrs(classify), { "cupel.stage.name": "classify", "cupel.stage.item_count_in": 2 })
      assert.notProperty(attrs(classify), "cupel.stage.item_count_out")
      assert.deepInclude(attrs(spans.find((s) => s.name === "cupel.pipeline")!), {
        "cupel.verbosity": "StageOnly",
        "cupel.candidates": 2,
        "cupel.budget.max_tokens": 10
      })

      const sliceError = yield* Effect.flip(
        Pipeline.run([item("a", 1), item("b", 2)], budget(10, 10)).pipe(Effect.provide(Layer.mergeAll(layers, boom)))
      )
      assert.strictEqual(sliceError._tag, "SlicerError")
      const slice = spans.find((s) => s.name === "cupel.stage.slice")!
      assert.deepInclude(attrs(slice), { "cupel.stage.name": "slice", "cupel.stage.item_count_in": 2, "cupel.slicer": "boom" })
    }).pipe(Effect.withTracer(tracer))
  })

  it.effect("failure case: the slice stage is named and counted in before its effective budget can fail (reserved slots past the safe integers)", () => {
    const { spans, tracer } = recordSpans()
    const reservedSlots = { A: Number.MAX_SAFE_INTEGER, B: 1 }
    return Effect.gen(function*() {
      const error = yield* Effect.flip(run([item("a", 1), item("b", 2)], { ...budget(10, 10), reservedSlots }))
      assert.deepStrictEqual([error._tag, error._tag === "TokenTotalError" ? error.what : ""], ["TokenTotalError", "reserved slots"])
      const slice = spans.find((s) => s.name === "cupel.stage.slice")
      assert.isDefined(slice)
      assert.deepInclude(attrs(slice!), { "cupel.stage.name": "slice", "cupel.stage.item_count_in": 2 })
      assert.notProperty(attrs(slice!), "cupel.stage.item_count_out")
      assert.strictEqual(slice!.status._tag, "Ended")
    }).pipe(Effect.withTracer(tracer))
  })

  it.effect("failure case: Place's OverflowError leaves cupel.stage.place named and counted in, without a count out", () => {
    const { spans, tracer } = recordSpans()
    const takeAll = Slicer.layer(Slicer.make("take-all", (sorted) => sorted.map((s) => s.item)))
    return Effect.gen(function*() {
      const error = yield* Effect.flip(
        Pipeline.run([item("a", 15), item("b", 15)], budget(20, 20)).pipe(Effect.provide(Layer.mergeAll(layers, takeAll)))
      )
      assert.strictEqual(error._tag, "OverflowError")
      const place = spans.find((s) => s.name === "cupel.stage.place")!
      assert.deepInclude(attrs(place), { "cupel.stage.name": "place", "cupel.stage.item_count_in": 2 })
      assert.notProperty(attrs(place), "cupel.stage.item_count_out")
    }).pipe(Effect.withTracer(tracer))
  })

  it.effect("before a stage's work: the slicer, when it runs, sees cupel.stage.slice named and counted in, and the placer cupel.stage.place", () => {
    const { tracer } = recordSpans()
    const seen: Array<[string, Record<string, unknown>]> = []
    // The span current when the user's code runs, and its attributes at that moment.
    const snapshot = (up: number) => {
      const fiber = Fiber.getCurrent()
      let span: Tracer.AnySpan | undefined = fiber === undefined
        ? undefined
        : Option.getOrUndefined(Context.getOption(fiber.context, Tracer.ParentSpan))
      for (let k = 0; k < up && span !== undefined && span._tag === "Span"; k++) span = Option.getOrUndefined(span.parent)
      if (span !== undefined && span._tag === "Span" && span instanceof Tracer.NativeSpan) {
        seen.push([span.name, Object.fromEntries(span.attributes)])
      }
    }
    const watching = Layer.mergeAll(
      Slicer.layer({
        name: "watching",
        slice: (sorted) => Effect.sync(() => snapshot(0)).pipe(Effect.as({ selected: sorted.map((_, k) => k) }))
      }),
      // The placer runs in Place.place's span, below cupel.stage.place.
      Placer.fromOrder("watching", (items) => {
        snapshot(1)
        return items.map((_, i) => i)
      })
    )
    return Effect.gen(function*() {
      yield* Pipeline.run([item("a", 1), item("b", 2), item("p", 1, { pinned: true })], budget(20, 20)).pipe(
        Effect.provide(Layer.mergeAll(layers, watching))
      )
      const slice = seen.find(([name]) => name === "cupel.stage.slice")
      const place = seen.find(([name]) => name === "cupel.stage.place")
      assert.isDefined(slice)
      assert.isDefined(place)
      assert.deepInclude(slice![1], { "cupel.stage.name": "slice", "cupel.stage.item_count_in": 2, "cupel.slicer": "watching" })
      assert.notProperty(slice![1], "cupel.stage.item_count_out")
      assert.deepInclude(place![1], { "cupel.stage.name": "place", "cupel.stage.item_count_in": 3 })
      assert.notProperty(place![1], "cupel.stage.item_count_out")
    }).pipe(Effect.withTracer(tracer))
  })

  it.effect("grouping case: the root span counts members as the report does; the stage spans count units as report.events do", () => {
    const { spans, tracer } = recordSpans()
    return Effect.gen(function*() {
      const items = [
        new ContextItem.ContextItem({ content: "call", tokens: 2, group: "t1", priority: 9 }),
        new ContextItem.ContextItem({ content: "result", tokens: 3, group: "t1", priority: 9 }),
        item("too-big", 100)
      ]
      const result = yield* run(items, budget(10, 10))
      assert.strictEqual(result.report.totalCandidates, 3)
      assert.strictEqual(result.report.included.length, 2)
      const root = attrs(spans.find((s) => s.name === "cupel.pipeline")!)
      assert.deepInclude(root, {
        "cupel.candidates": result.report.totalCandidates,
        "cupel.included.count": result.report.included.length,
        "cupel.excluded.count": result.report.excluded.length,
        "cupel.window.tokens": 5
      })
      const classify = attrs(spans.find((s) => s.name === "cupel.stage.classify")!)
      assert.strictEqual(classify["cupel.stage.item_count_in"], 2)
      assert.strictEqual(classify["cupel.stage.item_count_out"], result.report.events[0]!.itemCount)
    }).pipe(Effect.withTracer(tracer))
  })

  // Every read of a candidate's tokens, with the span current when it was read: the candidates'
  // tokens are read by Sort (for its columns), the slicer, Place and the report's lists.
  const watchedItems = (items: ReadonlyArray<ContextItem.ContextItem>) => {
    const reads: Array<string> = []
    for (const watched of items) {
      const tokens = watched.tokens
      Object.defineProperty(watched, "tokens", {
        get() {
          const fiber = Fiber.getCurrent()
          const span = fiber === undefined ? Option.none() : Context.getOption(fiber.context, Tracer.ParentSpan)
          reads.push(Option.isSome(span) && span.value._tag === "Span" ? span.value.name : "none")
          return tokens
        }
      })
    }
    return reads
  }

  it.effect("Sort runs inside cupel.stage.slice: the sort's reads of the candidates happen there, none in the root span", () => {
    const { spans, tracer } = recordSpans()
    // A slicer that reads nothing: every read in the slice span is then Sort's or the pipeline's.
    const takeFirst = Slicer.layer(Slicer.make("take-first", (sorted) => sorted.slice(0, 1).map((s) => s.item)))
    const items = [item("a", 1, { priority: 1 }), item("b", 2, { priority: 2 }), item("c", 3, { priority: 3 })]
    const reads = watchedItems(items)
    return Effect.gen(function*() {
      yield* Pipeline.run(items, budget(20, 20)).pipe(Effect.provide(Layer.mergeAll(layers, takeFirst)))
      assert.isAtLeast(spans.length, 6)
      // Sort reads each candidate's tokens once, in the slice stage's span.
      assert.isAtLeast(reads.filter((name) => name === "cupel.stage.slice").length, items.length)
      assert.notInclude(reads, "cupel.pipeline")
      assert.notInclude(reads, "none")
    }).pipe(Effect.withTracer(tracer))
  })

  it.effect("the report is assembled inside cupel.stage.place: no candidate is read in the root span, at any tier", () => {
    const { tracer } = recordSpans()
    return Effect.gen(function*() {
      for (const verbosity of ["StageOnly", "StageAndExclusions", "Full"] as const) {
        const items = mixed()
        const reads = watchedItems(items)
        const result = yield* run(items, budget(20, 20), { overflowStrategy: "Truncate", verbosity })
        assert.isAbove(result.report.included.length, 0)
        // The report's included list tells a zero-token item by its tokens: read in Place's span.
        assert.include(reads, "cupel.stage.place", verbosity)
        assert.notInclude(reads, "cupel.pipeline", verbosity)
        assert.notInclude(reads, "none", verbosity)
      }
    }).pipe(Effect.withTracer(tracer))
  })

  it.effect("hierarchy case: cupel.pipeline has exactly the five stage spans as children, in order; Place.place is the one span below them", () => {
    const { spans, tracer } = recordSpans()
    return Effect.gen(function*() {
      yield* run(mixed(), budget(20, 20), { overflowStrategy: "Truncate" })
      const root = spans.find((s) => s.name === "cupel.pipeline")!
      assert.strictEqual(root.parent._tag, "None")
      const parentOf = (s: Tracer.NativeSpan) => s.parent._tag === "Some" ? s.parent.value.spanId : undefined
      const children = (id: string) => spans.filter((s) => parentOf(s) === id).map((s) => s.name)
      assert.deepStrictEqual(children(root.spanId), [
        "cupel.stage.classify",
        "cupel.stage.score",
        "cupel.stage.deduplicate",
        "cupel.stage.slice",
        "cupel.stage.place"
      ])
      const place = spans.find((s) => s.name === "cupel.stage.place")!
      assert.deepStrictEqual(children(place.spanId), ["Place.place"])
      for (const stage of stageSpans(spans)) assert.deepStrictEqual(children(stage.spanId).filter((n) => n !== "Place.place"), [])
      assert.strictEqual(place.status._tag, "Ended")
      assert.strictEqual(root.status._tag, "Ended")
    }).pipe(Effect.withTracer(tracer))
  })
})

describe("Pipeline — properties", () => {
  const arbItem = fc.record({
    content: fc.constantFrom("a", "b", "c", "d", "e", "f"),
    tokens: fc.oneof(fc.integer({ min: -3, max: 40 }), fc.constant(0)),
    priority: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
    pinned: fc.boolean()
  }).map(({ content, pinned, priority, tokens }) =>
    new ContextItem.ContextItem({ content, tokens, pinned, ...(priority === undefined ? {} : { priority }) })
  )
  const arbBudget = fc.record({
    maxTokens: fc.integer({ min: 0, max: 200 }),
    target: fc.integer({ min: 0, max: 200 }),
    reserve: fc.integer({ min: 0, max: 40 })
  }).map(({ maxTokens, reserve, target }) =>
    new ContextBudget.ContextBudget({
      maxTokens,
      targetTokens: Math.min(target, maxTokens),
      outputReserve: Math.min(reserve, maxTokens)
    })
  )

  it("agrees with a literal transcription of the pipeline chapters: window, report, errors", () =>
    fc.assert(
      fc.asyncProperty(
        fc.array(arbItem, { maxLength: 14 }),
        arbBudget,
        fc.boolean(),
        fc.constantFrom("Throw" as const, "Truncate" as const),
        async (items, b, deduplication, strategy) => {
          const expected = specPipeline(items, b, byPriority, takeWhatFits, (merged) => merged.map((m) => m.item), deduplication, strategy)
          const actual = await Effect.runPromise(
            Effect.result(run(items, b, { deduplication, overflowStrategy: strategy }))
          )
          if (!expected.ok) {
            assert.strictEqual(actual._tag, "Failure")
            if (actual._tag === "Failure") assert.strictEqual(actual.failure._tag, expected.error)
            return
          }
          assert.strictEqual(actual._tag, "Success")
          if (actual._tag !== "Success") return
          const report = actual.success.report
          assert.deepStrictEqual(actual.success.window, expected.run.output)
          assert.deepStrictEqual(report.included.map((i) => [i.item, i.score, i.reason._tag]), expected.run.included.map((i) => [i.item, i.score, i.reason]))
          assert.deepStrictEqual(report.excluded.map((e) => [e.item, e.score, e.reason._tag]), expected.run.excluded.map((e) => [e.item, e.score, e.reason]))
          assert.strictEqual(report.totalCandidates, expected.run.totalCandidates)
          assert.strictEqual(report.totalTokensConsidered, expected.run.totalTokensConsidered)
        }
      ),
      { numRuns: 500 }
    ))
})
