/**
 * docs/observability.md, end to end: the pipeline and the agents layer run under the layer
 * examples/observability.ts defines (the one the page shows), which exports over HTTP to an
 * OTLP/HTTP receiver on 127.0.0.1 (test/support/otlpReceiver.ts: it decodes what it receives
 * by the OTLP JSON encoding). Nothing is mocked: the bytes go over the loopback.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Metric, PubSub, Stream } from "effect"
import { LanguageModel, Prompt, type Response } from "effect/ai"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Telemetry, TelemetryWithoutPipeline } from "../../examples/observability.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import * as WindowedLanguageModel from "../../src/ai/WindowedLanguageModel.ts"
import {
  ContextBudget,
  ContextItem,
  GreedySlice,
  OverflowNotifier,
  Pipeline,
  PriorityScorer,
  Scorer,
  UShapedPlacer
} from "../../src/index.ts"
import { attributesOf, metricsOf, type Receiver, receiver, type Span, spansOf } from "../support/otlpReceiver.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))

// The pipeline: one item Classify excludes, one Deduplicate excludes, one Slice excludes.
const item = (content: string, tokens: number, extra: Partial<{ priority: number; pinned: boolean; kind: string }> = {}) =>
  new ContextItem.ContextItem({ content, tokens, ...extra })
const items = [
  item("You are a support agent.", 10, { pinned: true, kind: "SystemPrompt" }),
  item("Refund policy: 30 days.", 20, { priority: 9, kind: "Document" }),
  item("Refund policy: 30 days.", 20, { priority: 1, kind: "Document" }),
  item("User: can I get a refund?", 30, { priority: 5 }),
  item("Order history: 14 orders since 2019", 200, { priority: 2, kind: "ToolOutput" }),
  item("a broken count", -3, { priority: 4 })
]
const strategies = Layer.mergeAll(
  Scorer.layer(PriorityScorer.make()),
  GreedySlice.layer,
  UShapedPlacer.layer,
  OverflowNotifier.layerNoop
)
const pipelineRun = Pipeline.run(items, new ContextBudget.ContextBudget({ maxTokens: 100, targetTokens: 80 }), {
  verbosity: "StageAndExclusions"
}).pipe(Effect.provide(strategies))

// The agents layer: a stable window over a model that reports its usage, cache reads included.
const countOf = (m: Prompt.Message) => Math.ceil(PromptWindow.render(m).length / 4) + 4
const usage = {
  inputTokens: { total: 120, cacheRead: 64, cacheWrite: 40, uncached: 16 },
  outputTokens: { total: 5, text: 5, reasoning: undefined }
}
const Model = Layer.effect(
  LanguageModel.LanguageModel,
  LanguageModel.make({
    generateText: () =>
      Effect.succeed<Array<Response.PartEncoded>>([
        { type: "text", text: "Yes, within 30 days." },
        { type: "finish", reason: "stop", usage }
      ]),
    streamText: () => Stream.empty
  })
)
const Windowed = WindowedLanguageModel.layer({
  contextWindow: 2_000,
  outputReserve: 200,
  conversationKey: () => "support-42"
}).pipe(Layer.provide([Model, TokenCounter.make(countOf, 3)]))

const agentCall = Effect.gen(function*() {
  const reports = yield* PubSub.subscribe(yield* WindowedLanguageModel.WindowReports)
  yield* LanguageModel.generateText({
    prompt: [{ role: "system", content: "You are a support agent." }, { role: "user", content: "Can I get a refund?" }]
  })
  return yield* PubSub.take(reports)
}).pipe(Effect.scoped, Effect.provide(Windowed))

/** Runs both under `telemetry` (built and shut down around them: the exporters flush on shutdown). */
const exportBoth = <A>(telemetry: (baseUrl: string) => Layer.Layer<A>) =>
  Effect.gen(function*() {
    const otlp = yield* receiver
    const [result, report] = yield* Effect.all([pipelineRun, agentCall]).pipe(
      Effect.provide(telemetry(otlp.baseUrl)),
      // A registry of this run's own, shared by the exporter and the layer's metrics.
      Effect.provideService(Metric.MetricRegistry, new Map())
    )
    return { otlp, result, report }
  })

const byName = (spans: ReadonlyArray<Span>, name: string) => {
  const found = spans.filter((s) => s.name === name)
  assert.strictEqual(found.length, 1, `one ${name}`)
  return found[0]!
}
/** The names of a span's ancestors, nearest first. */
const ancestors = (spans: ReadonlyArray<Span>, span: Span): Array<string> => {
  const names: Array<string> = []
  let parent = span.parentSpanId
  while (parent !== undefined && parent !== "") {
    const found = spans.find((s) => s.spanId === parent && s.traceId === span.traceId)
    if (found === undefined) break
    names.push(found.name)
    parent = found.parentSpanId
  }
  return names
}
const stages = ["classify", "score", "deduplicate", "slice", "place"].map((s) => `cupel.stage.${s}`)
const childrenOf = (spans: ReadonlyArray<Span>, parent: Span) =>
  spans.filter((s) => s.parentSpanId === parent.spanId).map((s) => s.name).sort()

const noRefusals = (otlp: Receiver) => assert.deepStrictEqual(otlp.refused, [])

describe("OTLP round trip through the documented layer (docs/observability.md)", () => {
  it("the page shows examples/observability.ts verbatim", () => {
    const doc = readFileSync(`${root}docs/observability.md`, "utf8")
    assert.include(doc, readFileSync(`${root}examples/observability.ts`, "utf8"))
  })

  it.live("the pipeline at StageAndExclusions and the agents layer in stable mode, exported over HTTP: the span tree, the chapter's attributes and events, the GenAI attributes, the metrics", () =>
    Effect.gen(function*() {
      const { otlp, result, report } = yield* exportBoth(Telemetry)
      noRefusals(otlp)
      assert.isAtLeast(otlp.traces.length, 1)
      assert.isAtLeast(otlp.metrics.length, 1)
      const spans = spansOf(otlp)
      const resource = attributesOf(otlp.traces[0]!.resourceSpans[0]!.resource.attributes)
      assert.strictEqual(resource["service.name"], "support-agent")

      // Two trees: the pipeline run on its own, and the model call.
      const [alone, fitted] = spans.filter((s) => s.name === "cupel.pipeline").sort((a, b) =>
        Number(a.startTimeUnixNano) - Number(b.startTimeUnixNano)
      )
      assert.isDefined(alone)
      assert.isDefined(fitted)
      assert.deepStrictEqual(ancestors(spans, alone!), [])
      assert.deepStrictEqual(ancestors(spans, fitted!), ["cupel.stable_window.fit", "cupel.window"])
      for (const pipeline of [alone!, fitted!]) {
        assert.deepStrictEqual(childrenOf(spans, pipeline), [...stages].sort())
        const place = spans.find((s) => s.name === "cupel.stage.place" && s.parentSpanId === pipeline.spanId)!
        assert.deepStrictEqual(childrenOf(spans, place), ["Place.place"])
      }
      const window = byName(spans, "cupel.window")
      assert.deepStrictEqual(childrenOf(spans, window), ["LanguageModel.generateText", "cupel.stable_window.fit"])
      assert.strictEqual(window.status.code, 1)

      // The chapter's attributes on the run on its own, and its StageAndExclusions events.
      const rootAttributes = attributesOf(alone!.attributes)
      assert.deepInclude(rootAttributes, {
        "cupel.budget.max_tokens": 100,
        "cupel.verbosity": "StageAndExclusions",
        "cupel.included.count": result.report.included.length,
        "cupel.excluded.count": result.report.excluded.length
      })
      const stageOf = (name: string) => spans.find((s) => s.name === name && s.parentSpanId === alone!.spanId)!
      const exclusions = stages.map((name) => {
        const span = stageOf(name)
        const attributes = attributesOf(span.attributes)
        assert.strictEqual(attributes["cupel.stage.name"], name.slice("cupel.stage.".length))
        assert.isNumber(attributes["cupel.stage.item_count_in"])
        assert.isNumber(attributes["cupel.stage.item_count_out"])
        return [
          attributes["cupel.exclusion.count"],
          (span.events ?? []).filter((e) => e.name === "cupel.exclusion").map((e) => {
            const a = attributesOf(e.attributes)
            return [a["cupel.exclusion.reason"], a["cupel.exclusion.item_kind"], a["cupel.exclusion.item_tokens"]]
          })
        ]
      })
      assert.deepStrictEqual(exclusions, [
        [1, [["NegativeTokens", "Message", -3]]],
        [0, []],
        [1, [["Deduplicated", "Document", 20]]],
        [1, [["BudgetExceeded", "ToolOutput", 200]]],
        [0, []]
      ])

      // cupel.window: its figures, the GenAI attributes, the reported usage.
      const windowAttributes = attributesOf(window.attributes)
      assert.deepInclude(windowAttributes, {
        "gen_ai.operation.name": "chat",
        "gen_ai.conversation.id": "support-42",
        "gen_ai.usage.input_tokens": 120,
        "gen_ai.usage.cache_read.input_tokens": 64,
        "gen_ai.usage.cache_creation.input_tokens": 40,
        "cupel.window.method": "generateText",
        "cupel.window.mode": "stable",
        "cupel.window.conversation": "support-42",
        "cupel.window.action": "fresh",
        "cupel.window.tokens": report.result.totalTokens,
        "cupel.window.predicted_input_tokens": report.result.totalTokens + 3,
        "cupel.window.excluded_tokens": 0,
        "cupel.window.cache.predicted_read_tokens": report.prediction!.cachedTokens
      })

      // The metrics, over the same layer.
      const metrics = metricsOf(otlp)
      const last = (name: string) => {
        const found = metrics.filter((m) => m.name === name)
        assert.isAbove(found.length, 0, name)
        return found.at(-1)!
      }
      const calls = last("cupel.window.calls")
      assert.strictEqual(calls.unit, "{call}")
      assert.strictEqual(calls.sum?.isMonotonic, true)
      assert.deepStrictEqual(
        calls.sum?.dataPoints.map((p) => [attributesOf(p.attributes), p.asDouble ?? p.asInt]),
        [[{
          unit: "{call}",
          "cupel.window.method": "generateText",
          "cupel.window.mode": "stable",
          "cupel.window.outcome": "answered"
        }, 1]]
      )
      const sent = last("cupel.window.tokens.sent")
      assert.strictEqual(sent.unit, "{token}")
      assert.deepInclude(sent.histogram?.dataPoints[0], { count: 1, sum: report.result.totalTokens })
      assert.deepInclude(last("cupel.window.tokens.dropped").histogram?.dataPoints[0], { count: 1, sum: 0 })
      // Registered when the layer is built: a compaction count of 0 is exported, not missing.
      assert.strictEqual(last("cupel.window.compactions").sum?.dataPoints[0]?.asDouble, 0)
      assert.strictEqual(last("cupel.window.cache.reported_read_tokens").sum?.dataPoints[0]?.asDouble, 64)
    }).pipe(Effect.scoped))

  it.live("the layer without the pipeline's spans exports cupel.window and the model's span, with their attributes, and nothing below the window", () =>
    Effect.gen(function*() {
      const { otlp } = yield* exportBoth(TelemetryWithoutPipeline)
      noRefusals(otlp)
      const names = spansOf(otlp).map((s) => s.name).sort()
      assert.deepStrictEqual(names, ["LanguageModel.generateText", "cupel.window"])
      const window = byName(spansOf(otlp), "cupel.window")
      assert.strictEqual(attributesOf(window.attributes)["gen_ai.usage.input_tokens"], 120)
    }).pipe(Effect.scoped))
})

// docs/observability.md: the OpenTelemetry SDK keeps 128 events per span by default; this route
// has no such limit. 801 items of 10 tokens under a 10-token target: the slice excludes 800.
describe("OTLP: a stage span's exclusion events are all exported (docs/observability.md, the 128-event limit of the other route)", () => {
  it.live("800 exclusions in one stage: 800 cupel.exclusion events on the slice span, as cupel.exclusion.count says", () =>
    Effect.gen(function*() {
      const otlp = yield* receiver
      const many = Array.from({ length: 801 }, (_, i) => item(`note ${i}`, 10, { priority: i }))
      const result = yield* Pipeline.run(many, new ContextBudget.ContextBudget({ maxTokens: 10, targetTokens: 10 }), {
        verbosity: "StageAndExclusions"
      }).pipe(
        Effect.provide(strategies),
        Effect.provide(Telemetry(otlp.baseUrl)),
        Effect.provideService(Metric.MetricRegistry, new Map())
      )
      noRefusals(otlp)
      assert.strictEqual(result.report.excluded.length, 800)
      const slice = byName(spansOf(otlp), "cupel.stage.slice")
      assert.strictEqual(attributesOf(slice.attributes)["cupel.exclusion.count"], 800)
      const events = (slice.events ?? []).filter((e) => e.name === "cupel.exclusion")
      assert.strictEqual(events.length, 800)
      assert.isAbove(events.length, 128)
    }).pipe(Effect.scoped))
})

describe("the test's OTLP/HTTP receiver", () => {
  it.live("refuses what is not an OTLP/HTTP JSON export: another content type (415), another method (405), an unknown path (404), a body that is not an export request (400)", () =>
    Effect.gen(function*() {
      const otlp = yield* receiver
      const send = (path: string, init: RequestInit) =>
        Effect.promise(() => fetch(`${otlp.baseUrl}${path}`, init).then((r) => r.status))
      const json = { method: "POST", headers: { "content-type": "application/json" } }
      assert.strictEqual(yield* send("/v1/traces", { ...json, body: JSON.stringify({ resourceSpans: [] }) }), 200)
      assert.strictEqual(yield* send("/v1/traces", { method: "POST", headers: { "content-type": "application/x-protobuf" }, body: "" }), 415)
      assert.strictEqual(yield* send("/v1/traces", { method: "GET" }), 405)
      assert.strictEqual(yield* send("/v1/nothing", { ...json, body: "{}" }), 404)
      assert.strictEqual(yield* send("/v1/metrics", { ...json, body: JSON.stringify({ resourceSpans: [] }) }), 400)
      assert.strictEqual(
        yield* send("/v1/traces", { ...json, body: JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: "x" }, spans: [{ traceId: "xyz" }] }] }] }) }),
        400
      )
      assert.strictEqual(otlp.refused.length, 5)
    }).pipe(Effect.scoped))
})
