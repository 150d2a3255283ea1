/**
 * What `cupel.window` tells a trace and the metrics (docs/observability.md): the OpenTelemetry
 * GenAI attributes, the predicted figures beside them, and the `WindowMetrics` updated once per
 * call. Metrics are read from a fresh registry per test.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Deferred, Effect, Fiber, Layer, Metric, PubSub, Schema, Stream, type Tracer } from "effect"
import { LanguageModel, Prompt, type Response } from "effect/ai"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import * as WindowedLanguageModel from "../../src/ai/WindowedLanguageModel.ts"
import * as WindowMetrics from "../../src/ai/WindowMetrics.ts"
import { counterTotal, histogramState } from "../support/metrics.ts"
import * as Sessions from "../support/sessions.ts"
import { recordSpans } from "../support/spans.ts"

const overhead = 3
const countOf = (m: Prompt.Message) => Math.ceil(PromptWindow.render(m).length / 4) + 4
const counter = TokenCounter.make(countOf, overhead)

type Usage = Extract<Response.PartEncoded, { readonly type: "finish" }>["usage"]
/** A provider's usage: `total` input tokens, `cacheRead` of them read from its cache, `cacheWrite` written. */
const usageOf = (total: number, cacheRead: number | undefined, cacheWrite: number | undefined): Usage => ({
  inputTokens: { total, cacheRead, cacheWrite, uncached: total - (cacheRead ?? 0) - (cacheWrite ?? 0) },
  outputTokens: { total: 1, text: 1, reasoning: undefined }
})

/** A model that answers "ok", with the given usage (or none) on its finish part. */
const modelWith = (usage: Usage | undefined) =>
  LanguageModel.make({
    generateText: () =>
      Effect.succeed<Array<Response.PartEncoded>>([
        { type: "text", text: "{}" },
        ...(usage === undefined ? [] : [{ type: "finish" as const, reason: "stop" as const, usage }])
      ]),
    streamText: () =>
      Stream.make<Array<Response.StreamPartEncoded>>(
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "ok" },
        { type: "text-end", id: "t" },
        ...(usage === undefined ? [] : [{ type: "finish" as const, reason: "stop" as const, usage }])
      )
  })

const failing = LanguageModel.make({
  generateText: () => Effect.die("the provider is down"),
  streamText: () => Stream.die("the provider is down")
})

const build = (model: LanguageModel.LanguageModel, options: Partial<WindowedLanguageModel.Options> = {}) =>
  Layer.build(
    WindowedLanguageModel.layer({ contextWindow: 3_000, outputReserve: 500, ...options }).pipe(
      Layer.provide([Layer.succeed(LanguageModel.LanguageModel, model), counter])
    )
  )

const start = Prompt.make([
  { role: "system", content: "be brief" },
  { role: "user", content: "hello" }
])

const history = Sessions.longChat

const methods = ["generateText", "generateObject", "streamText"] as const
type Method = typeof methods[number]
const call = (method: Method, prompt: Prompt.RawInput) =>
  method === "generateText"
    ? Effect.asVoid(LanguageModel.generateText({ prompt }))
    : method === "generateObject"
    ? Effect.asVoid(LanguageModel.generateObject({ prompt, schema: Schema.Struct({}) }))
    : Stream.runDrain(LanguageModel.streamText({ prompt }))

const attributesOf = (span: Tracer.NativeSpan | undefined) => {
  assert.isDefined(span)
  return Object.fromEntries(span!.attributes)
}

/** The value of a counter series with these attributes in the registry's snapshot (0 when absent). */
const counterValue = (name: string, attributes: Record<string, string> = {}) =>
  Effect.map(Metric.snapshot, (snapshots) => counterTotal(snapshots, name, attributes))

const histogramOf = (name: string) => Effect.map(Metric.snapshot, (snapshots) => histogramState(snapshots, name))

const withRegistry = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.provideService(effect, Metric.MetricRegistry, new Map())

describe("cupel.window: the OpenTelemetry GenAI attributes", () => {
  it.effect("gen_ai.operation.name is chat for every method; gen_ai.conversation.id is the stable mode's conversation key, absent per call", () => {
    const { spans, tracer } = recordSpans()
    return Effect.gen(function*() {
      for (const mode of ["stable", "per-call"] as const) {
        for (const method of methods) {
          const from = spans.length
          const context = yield* build(yield* modelWith(undefined), { mode, conversationKey: () => "conv-42" })
          yield* call(method, start).pipe(Effect.provide(context))
          const attributes = attributesOf(spans.slice(from).find((s) => s.name === "cupel.window"))
          assert.strictEqual(attributes["gen_ai.operation.name"], "chat", `${mode} ${method}`)
          assert.strictEqual(attributes["cupel.window.method"], method)
          if (mode === "stable") assert.strictEqual(attributes["gen_ai.conversation.id"], "conv-42")
          else assert.notProperty(attributes, "gen_ai.conversation.id")
        }
      }
    }).pipe(Effect.scoped, Effect.withTracer(tracer))
  })

  it.effect("gen_ai.usage.input_tokens and the cached-input attributes are written when the provider reports usage, after the answer, on generate calls and on streams", () => {
    const { spans, tracer } = recordSpans()
    return Effect.gen(function*() {
      for (const method of methods) {
        const from = spans.length
        const context = yield* build(yield* modelWith(usageOf(1_200, 800, 300)))
        yield* call(method, start).pipe(Effect.provide(context))
        const attributes = attributesOf(spans.slice(from).find((s) => s.name === "cupel.window"))
        assert.deepInclude(attributes, {
          "gen_ai.usage.input_tokens": 1_200,
          "gen_ai.usage.cache_read.input_tokens": 800,
          "gen_ai.usage.cache_creation.input_tokens": 300
        }, method)
      }
    }).pipe(Effect.scoped, Effect.withTracer(tracer))
  })

  it.effect("no usage reported, no gen_ai.usage attribute; a cache figure the provider leaves out is left out", () => {
    const { spans, tracer } = recordSpans()
    return Effect.gen(function*() {
      const silent = yield* build(yield* modelWith(undefined))
      yield* call("generateText", start).pipe(Effect.provide(silent))
      const none = attributesOf(spans.find((s) => s.name === "cupel.window"))
      assert.deepStrictEqual(Object.keys(none).filter((k) => k.startsWith("gen_ai.usage.")), [])
      const from = spans.length
      const partial = yield* build(yield* modelWith(usageOf(500, undefined, undefined)))
      yield* call("generateText", start).pipe(Effect.provide(partial))
      const some = attributesOf(spans.slice(from).find((s) => s.name === "cupel.window"))
      assert.deepStrictEqual(Object.keys(some).filter((k) => k.startsWith("gen_ai.usage.")), ["gen_ai.usage.input_tokens"])
    }).pipe(Effect.scoped, Effect.withTracer(tracer))
  })

  it.effect("cupel.window spans the whole call: the model's own span is its child; the predicted input and the excluded tokens are beside the usage", () => {
    const { spans, tracer } = recordSpans()
    return Effect.gen(function*() {
      const context = yield* build(yield* modelWith(usageOf(900, 0, 0)), { mode: "per-call" })
      // 30 long turns: far more than the 2,500 tokens the window leaves.
      const prompt = history(30)
      yield* call("generateText", prompt).pipe(Effect.provide(context))
      const window = spans.find((s) => s.name === "cupel.window")!
      const model = spans.find((s) => s.name === "LanguageModel.generateText")
      assert.isDefined(model)
      assert.strictEqual(model!.parent._tag === "Some" ? model!.parent.value.spanId : undefined, window.spanId)
      const attributes = attributesOf(window)
      const all = prompt.content.reduce((sum, m) => sum + countOf(m), 0)
      const sent = attributes["cupel.window.tokens"]
      assert.strictEqual(attributes["cupel.window.predicted_input_tokens"], Number(sent) + overhead)
      assert.strictEqual(attributes["cupel.window.excluded_tokens"], all - Number(sent))
      assert.isAbove(Number(attributes["cupel.window.excluded_tokens"]), 0)
    }).pipe(Effect.scoped, Effect.withTracer(tracer))
  })
})

describe("cupel.window: an error part in the model's answer", () => {
  it.effect("a stream carrying an error part after its first part: answered (S6, the state written), the part reaches the caller, error.type on cupel.window (the error's _tag, name, or _OTHER); none without one", () => {
    const { spans, tracer } = recordSpans()
    class Overloaded extends Schema.TaggedError<Overloaded>()("Overloaded", {}) {}
    const withError = (error: unknown) =>
      LanguageModel.make({
        generateText: () => Effect.succeed<Array<Response.PartEncoded>>([{ type: "text", text: "{}" }]),
        streamText: () =>
          Stream.make<Array<Response.StreamPartEncoded>>(
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: "ok" },
            { type: "error", error },
            { type: "text-end", id: "t" },
            { type: "finish", reason: "error", usage: usageOf(40, 0, 0) }
          )
      })
    return Effect.gen(function*() {
      for (const [error, expected] of [[new Overloaded(), "Overloaded"], [new RangeError("x"), "RangeError"], ["text", "_OTHER"]] as const) {
        const from = spans.length
        const context = yield* build(yield* withError(error))
        const subscription = yield* PubSub.subscribe(Context.get(context, WindowedLanguageModel.WindowReports))
        const parts = yield* Stream.runCollect(LanguageModel.streamText({ prompt: start })).pipe(Effect.provide(context))
        const errorPart = Array.from(parts).find((p) => p.type === "error")
        assert.strictEqual(errorPart?.type === "error" ? errorPart.error : undefined, error, "the error part reaches the caller")
        const report = yield* PubSub.take(subscription)
        assert.strictEqual(report.outcome, "answered")
        assert.strictEqual(report.committed, "written")
        const attributes = attributesOf(spans.slice(from).find((s) => s.name === "cupel.window"))
        assert.strictEqual(attributes["error.type"], expected)
      }
      const from = spans.length
      yield* call("streamText", start).pipe(Effect.provide(yield* build(yield* modelWith(usageOf(40, 0, 0)))))
      assert.notProperty(attributesOf(spans.slice(from).find((s) => s.name === "cupel.window")), "error.type")
    }).pipe(Effect.withTracer(tracer), Effect.scoped)
  })
})

describe("WindowMetrics", () => {
  it.effect("cupel.window.calls counts every call by method, mode and outcome: answered, failed (the model), rejected (the window)", () =>
    withRegistry(Effect.gen(function*() {
      const answering = yield* build(yield* modelWith(undefined))
      for (const method of methods) yield* call(method, start).pipe(Effect.provide(answering))
      const down = yield* build(yield* failing, { mode: "per-call" })
      yield* Effect.exit(call("generateText", start).pipe(Effect.provide(down)))
      // A pinned message larger than the window: the window fails the call, the model is not called.
      const pinned = yield* build(yield* modelWith(undefined), { annotate: () => ({ pinned: true }), contextWindow: 600 })
      yield* Effect.exit(call("streamText", history(6)).pipe(Effect.provide(pinned)))
      for (const method of methods) {
        assert.strictEqual(
          yield* counterValue("cupel.window.calls", { "cupel.window.method": method, "cupel.window.mode": "stable", "cupel.window.outcome": "answered" }),
          1,
          method
        )
      }
      assert.strictEqual(
        yield* counterValue("cupel.window.calls", { "cupel.window.method": "generateText", "cupel.window.mode": "per-call", "cupel.window.outcome": "failed" }),
        1
      )
      assert.strictEqual(
        yield* counterValue("cupel.window.calls", { "cupel.window.method": "streamText", "cupel.window.outcome": "rejected" }),
        1
      )
      assert.strictEqual(yield* counterValue("cupel.window.calls"), 5)
    }).pipe(Effect.scoped)))

  it.effect("cupel.window.calls: a call interrupted while the model works is interrupted, and records no tokens", () =>
    withRegistry(Effect.gen(function*() {
      const called = yield* Deferred.make<void>()
      const hanging = yield* LanguageModel.make({
        generateText: () => Effect.andThen(Deferred.succeed(called, undefined), Effect.never),
        streamText: () => Stream.never
      })
      const context = yield* build(hanging)
      const fiber = yield* Effect.forkChild(call("generateText", start).pipe(Effect.provide(context)))
      yield* Deferred.await(called)
      yield* Fiber.interrupt(fiber)
      assert.strictEqual(
        yield* counterValue("cupel.window.calls", { "cupel.window.method": "generateText", "cupel.window.outcome": "interrupted" }),
        1
      )
      assert.strictEqual(yield* counterValue("cupel.window.calls"), 1)
      assert.strictEqual((yield* histogramOf("cupel.window.tokens.sent"))!.count, 0)
    }).pipe(Effect.scoped)))

  /**
   * Calls of `tried` (in turn) interrupted at 120 points each a little later than the last;
   * every call whose fit began must be counted once. The fit began when the window counted a
   * message: a call interrupted before that was never the window's, one interrupted after must
   * be counted (after the fit and before the model too).
   */
  const interruptedAtEveryPoint = (tried: ReadonlyArray<Method>, usage: Usage | undefined) =>
    withRegistry(Effect.gen(function*() {
      let fitBegan = false
      const watching = TokenCounter.make((m) => {
        fitBegan = true
        return countOf(m)
      }, overhead)
      const context = yield* Layer.build(
        WindowedLanguageModel.layer({ contextWindow: 3_000, outputReserve: 500 }).pipe(
          Layer.provide([Layer.succeed(LanguageModel.LanguageModel, yield* modelWith(usage)), watching])
        )
      )
      let began = 0
      for (let k = 0; k < 120; k++) {
        fitBegan = false
        // Each try's conversation is new, so that its messages are counted (not found in a cache).
        const prompt = Prompt.make([{ role: "system", content: `be brief ${k}` }, { role: "user", content: `hello ${k}` }])
        const fiber = yield* Effect.forkChild(call(tried[k % tried.length]!, prompt).pipe(Effect.provide(context)))
        // Interrupt after k yields of this fiber: each try lands at a later point of the call.
        for (let y = 0; y < k; y++) yield* Effect.yieldNow
        yield* Fiber.interrupt(fiber)
        if (fitBegan) began++
      }
      assert.isAbove(began, 100)
      assert.strictEqual(yield* counterValue("cupel.window.calls"), began)
    }).pipe(Effect.scoped))

  it.effect("cupel.window.calls: every generate call whose fit began is counted once, wherever an interruption lands in it (after the fit, before the model too)", () =>
    interruptedAtEveryPoint(["generateText", "generateObject"], undefined))

  it.effect("cupel.window.calls: every streamText call whose fit began is counted once, wherever an interruption lands in it (after the fit, before the stream's first part too)", () =>
    interruptedAtEveryPoint(["streamText"], usageOf(40, 0, 0)))

  it.effect("cupel.window.tokens.sent and .dropped record, per answered call, the window's tokens and the tokens left out; a failed call records neither", () =>
    withRegistry(Effect.gen(function*() {
      const context = yield* build(yield* modelWith(undefined), { mode: "per-call" })
      const prompt = history(30)
      const subscription = yield* PubSub.subscribe(Context.get(context, WindowedLanguageModel.WindowReports))
      yield* call("generateText", prompt).pipe(Effect.provide(context))
      const report = yield* PubSub.take(subscription)
      const all = prompt.content.reduce((sum, m) => sum + countOf(m), 0)
      const down = yield* build(yield* failing, { mode: "per-call" })
      yield* Effect.exit(call("generateText", prompt).pipe(Effect.provide(down)))
      const sent = (yield* histogramOf("cupel.window.tokens.sent"))!
      const dropped = (yield* histogramOf("cupel.window.tokens.dropped"))!
      assert.strictEqual(sent.count, 1)
      assert.strictEqual(sent.sum, report.result.totalTokens)
      assert.strictEqual(dropped.count, 1)
      assert.strictEqual(dropped.sum, all - report.result.totalTokens)
    }).pipe(Effect.scoped)))

  it.effect("cupel.window.compactions counts the stable mode's compactions of answered calls", () =>
    withRegistry(Effect.gen(function*() {
      const context = yield* build(yield* modelWith(undefined))
      const reports = yield* PubSub.subscribe(Context.get(context, WindowedLanguageModel.WindowReports))
      let compactions = 0
      for (let turns = 1; turns <= 40; turns++) {
        yield* call("generateText", history(turns)).pipe(Effect.provide(context))
        if ((yield* PubSub.take(reports)).change?.action === "compact") compactions++
      }
      assert.isAtLeast(compactions, 2)
      assert.strictEqual(yield* counterValue("cupel.window.compactions"), compactions)
    }).pipe(Effect.scoped)))

  it.effect("cupel.window.compactions counts a compaction whose state was written by a stream that failed after its first part (S6: the next call does not compact again)", () =>
    withRegistry(Effect.gen(function*() {
      const broken = yield* LanguageModel.make({
        generateText: () => Effect.die("unused"),
        streamText: () =>
          Stream.concat(
            Stream.make<Array<Response.StreamPartEncoded>>({ type: "text-start", id: "t" }),
            Stream.die("the connection dropped")
          )
      })
      const context = yield* build(broken)
      const reports = yield* PubSub.subscribe(Context.get(context, WindowedLanguageModel.WindowReports))
      let written = 0
      for (let turns = 1; turns <= 40; turns++) {
        yield* Effect.exit(call("streamText", history(turns)).pipe(Effect.provide(context)))
        const report = yield* PubSub.take(reports)
        assert.strictEqual(report.outcome, "failed")
        if (report.change?.action === "compact" && report.committed === "written") written++
      }
      assert.isAtLeast(written, 2)
      assert.strictEqual(yield* counterValue("cupel.window.compactions"), written)
    }).pipe(Effect.scoped)))

  it.effect("cupel.window.cache.predicted_read_tokens adds up the predictions; .reported_read_tokens the provider's cache reads", () =>
    withRegistry(Effect.gen(function*() {
      // A provider that bills what the counter counts (no calibration), 100 of it from its cache.
      const billing = LanguageModel.make({
        generateText: (options) =>
          Effect.succeed<Array<Response.PartEncoded>>([
            { type: "text", text: "ok" },
            {
              type: "finish",
              reason: "stop",
              usage: usageOf(options.prompt.content.reduce((sum, m) => sum + countOf(m), overhead), 100, 0)
            }
          ]),
        streamText: () => Stream.empty
      })
      const context = yield* build(yield* billing, { contextWindow: 8_000 })
      const reports = yield* PubSub.subscribe(Context.get(context, WindowedLanguageModel.WindowReports))
      let predicted = 0
      for (let turns = 1; turns <= 12; turns++) {
        yield* call("generateText", history(turns)).pipe(Effect.provide(context))
        predicted += (yield* PubSub.take(reports)).prediction!.cachedTokens
      }
      assert.isAbove(predicted, 0)
      assert.strictEqual(yield* counterValue("cupel.window.cache.predicted_read_tokens"), predicted)
      assert.strictEqual(yield* counterValue("cupel.window.cache.reported_read_tokens"), 12 * 100)
    }).pipe(Effect.scoped)))

  it.effect("each metric carries its unit (the attribute Effect's OTLP exporter reads), the token histograms the GenAI conventions' boundaries", () =>
    withRegistry(Effect.gen(function*() {
      yield* WindowMetrics.record({
        method: "generateText",
        mode: "stable",
        outcome: "answered",
        sentTokens: 10,
        droppedTokens: 5,
        compacted: true,
        predictedReadTokens: 3,
        reportedReadTokens: 2
      })
      const units = Object.fromEntries((yield* Metric.snapshot).map((s) => [s.id, s.attributes?.["unit"]]))
      assert.deepStrictEqual(units, {
        "cupel.window.calls": "{call}",
        "cupel.window.tokens.sent": "{token}",
        "cupel.window.tokens.dropped": "{token}",
        "cupel.window.compactions": "{compaction}",
        "cupel.window.cache.predicted_read_tokens": "{token}",
        "cupel.window.cache.reported_read_tokens": "{token}"
      })
      assert.deepStrictEqual(WindowMetrics.tokenBoundaries, [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864])
    })))
})
