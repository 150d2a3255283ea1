/**
 * The AI SDK adapter's telemetry (docs/ai-sdk.md, "Spans and metrics"; docs/observability.md,
 * "The AI SDK adapter"): `cupel.window` carries the OpenTelemetry GenAI attributes and stays
 * open until the call's usage is known (a stream: until it ends), the `WindowMetrics` count
 * every call by outcome, and both go through the `telemetry` option's runtime — up to a real
 * OTLP/HTTP receiver on 127.0.0.1.
 */
import { assert, describe, it, vi } from "@effect/vitest"
import { generateText, simulateReadableStream, streamText, wrapLanguageModel } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import { Effect, Layer, ManagedRuntime, Metric, Tracer } from "effect"
import { Telemetry } from "../../examples/observability.ts"
import * as AiSdk from "../../src/adapters/AiSdk.ts"
import { attributesOf as otlpAttributes, metricsOf, receiver, spansOf } from "../support/otlpReceiver.ts"
import { counterTotal, histogramState } from "../support/metrics.ts"
import { recordSpans } from "../support/spans.ts"

type StreamPart = Awaited<ReturnType<MockLanguageModelV4["doStream"]>>["stream"] extends ReadableStream<infer P> ? P
  : never

/** Four characters a token. */
const quarter = (text: string) => Math.ceil(text.length / 4)

const usage = (total: number | undefined, cacheRead: number | undefined, cacheWrite: number | undefined) => ({
  inputTokens: {
    total,
    noCache: total === undefined ? undefined : total - (cacheRead ?? 0) - (cacheWrite ?? 0),
    cacheRead,
    cacheWrite
  },
  outputTokens: { total: 1, text: 1, reasoning: undefined }
})
type Usage = ReturnType<typeof usage>
const noUsage = usage(undefined, undefined, undefined)

const answer = (reported: Usage): Array<StreamPart> => [
  { type: "stream-start", warnings: [] },
  { type: "response-metadata", modelId: "mock-model" },
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: "ok" },
  { type: "text-end", id: "t" },
  { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage: reported }
]

const generated = (reported: Usage) => ({
  content: [{ type: "text" as const, text: "ok" }],
  finishReason: { unified: "stop" as const, raw: undefined },
  usage: reported,
  warnings: []
})

/** A provider that answers both ways with `reported` as its usage. */
const providerWith = (reported: Usage) =>
  new MockLanguageModelV4({
    doGenerate: async () => generated(reported),
    doStream: async () => ({ stream: simulateReadableStream({ chunks: answer(reported) }) })
  })

const windows = (spans: ReadonlyArray<Tracer.NativeSpan>) => spans.filter((s) => s.name === "cupel.window")
const attributes = (span: Tracer.NativeSpan | undefined) => {
  assert.isDefined(span)
  return Object.fromEntries(span!.attributes)
}
const usageKeys = (span: Tracer.NativeSpan | undefined) =>
  Object.keys(attributes(span)).filter((k) => k.startsWith("gen_ai.usage."))

/** A telemetry runtime with a registry of its own: the metrics the middleware records there. */
const metricsRuntime = () => ManagedRuntime.make(Layer.succeed(Metric.MetricRegistry, new Map()))

/** A counter's value over the series with these attributes (0 when absent). */
const counterValue = async (
  runtime: ManagedRuntime.ManagedRuntime<never, never>,
  name: string,
  wanted: Record<string, string> = {}
) => counterTotal(await runtime.runPromise(Metric.snapshot), name, wanted)
const histogramOf = async (runtime: ManagedRuntime.ManagedRuntime<never, never>, name: string) =>
  histogramState(await runtime.runPromise(Metric.snapshot), name)
const callsBy = (outcome: string, method?: string) => ({
  "cupel.window.outcome": outcome,
  ...(method === undefined ? {} : { "cupel.window.method": method })
})

describe("AiSdk: cupel.window's GenAI attributes", () => {
  it("a generate call: gen_ai.operation.name chat, gen_ai.conversation.id the stable mode's key, the usage doGenerate reported under its gen_ai.usage names, the span open while the model works", async () => {
    const { spans, tracer } = recordSpans()
    let openWhileCalled: boolean | undefined
    const provider = new MockLanguageModelV4({
      doGenerate: async () => {
        openWhileCalled = windows(spans)[0]?.status._tag === "Started"
        return generated(usage(1_200, 800, 300))
      }
    })
    const model = wrapLanguageModel({
      model: provider,
      middleware: AiSdk.middleware({ contextWindow: 1_000, outputReserve: 100, counter: quarter, tracer, conversationKey: () => "ticket-42" })
    })
    await generateText({ model, prompt: "hi" })
    assert.strictEqual(openWhileCalled, true)
    const [window] = windows(spans)
    assert.strictEqual(window!.status._tag, "Ended")
    assert.deepInclude(attributes(window), {
      "gen_ai.operation.name": "chat",
      "gen_ai.conversation.id": "ticket-42",
      "gen_ai.usage.input_tokens": 1_200,
      "gen_ai.usage.cache_read.input_tokens": 800,
      "gen_ai.usage.cache_creation.input_tokens": 300,
      "cupel.window.method": "generate",
      "cupel.window.mode": "stable",
      "cupel.window.conversation": "ticket-42",
      "cupel.window.excluded_tokens": 0,
      "cupel.window.tokens_over_budget": 0
    })
    const a = attributes(window)
    assert.strictEqual(a["cupel.window.predicted_input_tokens"], Number(a["cupel.window.tokens"]) + 3)
    // The stable window's fit is a child of the call's span.
    const fit = spans.find((s) => s.name === "cupel.stable_window.fit")
    assert.strictEqual(fit?.parent._tag === "Some" ? fit.parent.value.spanId : undefined, window!.spanId)
  })

  it("a streamed call: the usage of the stream's finish part on cupel.window, which ends when the stream ends, after its last part was read", async () => {
    const { spans, tracer } = recordSpans()
    const model = wrapLanguageModel({
      model: providerWith(usage(900, 500, undefined)),
      middleware: AiSdk.middleware({ contextWindow: 1_000, outputReserve: 100, counter: quarter, tracer, mode: "per-call" })
    })
    const reader = (await model.doStream({ prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }] })).stream
      .getReader()
    const parts: Array<StreamPart> = []
    for (;;) {
      const next = await reader.read()
      if (next.done) break
      parts.push(next.value)
      // Every part, the finish part included, is read while the span is still open.
      assert.strictEqual(windows(spans)[0]!.status._tag, "Started", next.value.type)
    }
    assert.deepStrictEqual(parts.map((p) => p.type), answer(noUsage).map((p) => p.type))
    const [window] = windows(spans)
    assert.strictEqual(window!.status._tag, "Ended")
    assert.deepInclude(attributes(window), {
      "gen_ai.operation.name": "chat",
      "gen_ai.usage.input_tokens": 900,
      "gen_ai.usage.cache_read.input_tokens": 500,
      "cupel.window.method": "stream",
      "cupel.window.mode": "per-call"
    })
    // Per call there is no conversation; a cache figure the provider left out is left out.
    assert.notProperty(attributes(window), "gen_ai.conversation.id")
    assert.deepStrictEqual(usageKeys(window).sort(), ["gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.input_tokens"])
  })

  it("no usage reported, no gen_ai.usage attribute: on a generate call and on a stream through streamText", async () => {
    const { spans, tracer } = recordSpans()
    const model = wrapLanguageModel({
      model: providerWith(noUsage),
      middleware: AiSdk.middleware({ contextWindow: 1_000, outputReserve: 100, counter: quarter, tracer })
    })
    await generateText({ model, prompt: "hi" })
    assert.strictEqual(await streamText({ model, prompt: "hi" }).text, "ok")
    const [generate, stream] = windows(spans)
    for (const span of [generate, stream]) {
      assert.strictEqual(span!.status._tag, "Ended")
      assert.deepStrictEqual(usageKeys(span), [])
      assert.strictEqual(attributes(span)["gen_ai.operation.name"], "chat")
    }
  })

  it("a call whose provider fails ends cupel.window with the failure; a prompt that cannot fit ends it at once, as a failure too", async () => {
    const { spans, tracer } = recordSpans()
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({ doGenerate: async () => Promise.reject(new Error("provider down")) }),
      middleware: AiSdk.middleware({ contextWindow: 200, outputReserve: 100, counter: quarter, tracer })
    })
    await generateText({ model, prompt: "hi", maxRetries: 0 }).then(() => assert.fail("answered"), () => undefined)
    await generateText({ model, system: "x".repeat(2_000), prompt: "hi", maxRetries: 0 }).then(
      () => assert.fail("answered"),
      () => undefined
    )
    const [failed, rejected] = windows(spans)
    for (const span of [failed, rejected]) {
      assert.strictEqual(span!.status._tag, "Ended")
      assert.isTrue(span!.status._tag === "Ended" && span!.status.exit._tag === "Failure")
    }
  })
})

describe("AiSdk: an error part in a stream", () => {
  it("a stream that carries an error part after its first part: answered (S6, the state written), the part passed on unchanged, error.type on cupel.window; a stream without one has no error.type", async () => {
    const { spans, tracer } = recordSpans()
    const reports: Array<AiSdk.Report> = []
    const providerError = Object.assign(new Error("overloaded mid-stream"), { name: "OverloadedError" })
    const parts = (withError: boolean): Array<StreamPart> => {
      const [start, metadata, textStart, delta, textEnd, finish] = answer(usage(40, undefined, undefined))
      return [
        start!,
        metadata!,
        textStart!,
        delta!,
        ...(withError ? [{ type: "error" as const, error: providerError }] : []),
        textEnd!,
        finish!
      ]
    }
    let withError = true
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({
        doStream: async () => ({ stream: simulateReadableStream({ chunks: parts(withError) }) })
      }),
      middleware: AiSdk.middleware({
        contextWindow: 1_000,
        outputReserve: 100,
        counter: quarter,
        tracer,
        conversationKey: () => "c",
        onReport: (report) => void reports.push(report)
      })
    })
    const read = async () => {
      const reader = (await model.doStream({ prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }] })).stream
        .getReader()
      const seen: Array<StreamPart> = []
      for (let next = await reader.read(); !next.done; next = await reader.read()) seen.push(next.value)
      return seen
    }
    const seen = await read()
    const errorPart = seen.find((p) => p.type === "error")
    assert.isDefined(errorPart)
    assert.strictEqual(errorPart!.type === "error" ? errorPart!.error : undefined, providerError)
    assert.strictEqual(reports[0]!.outcome, "answered")
    assert.strictEqual(reports[0]!.committed, "written")
    assert.strictEqual(attributes(windows(spans)[0])["error.type"], "OverloadedError")
    withError = false
    await read()
    assert.strictEqual(reports[1]!.outcome, "answered")
    assert.notProperty(attributes(windows(spans)[1]), "error.type")
  })
})

describe("AiSdk: WindowMetrics through the telemetry option", () => {
  it("cupel.window.calls counts every call by method, mode and outcome: answered (generate, stream), failed, interrupted (an aborted call, a cancelled stream), rejected, sent (prepareStep)", async () => {
    const telemetry = metricsRuntime()
    let failNext = false
    const provider = new MockLanguageModelV4({
      doGenerate: async ({ abortSignal }) => {
        if (failNext) throw new Error("provider down")
        if (abortSignal !== undefined) {
          return new Promise((_, reject) => abortSignal.addEventListener("abort", () => reject(abortSignal.reason)))
        }
        return generated(usage(100, 40, 0))
      },
      doStream: async () => ({ stream: simulateReadableStream({ chunks: answer(usage(100, 40, 0)) }) })
    })
    const options = { contextWindow: 1_000, outputReserve: 100, counter: quarter, telemetry }
    const model = wrapLanguageModel({ model: provider, middleware: AiSdk.middleware(options) })

    await generateText({ model, prompt: "hi" })
    assert.strictEqual(await streamText({ model, prompt: "hi" }).text, "ok")
    failNext = true
    await generateText({ model, prompt: "hi", maxRetries: 0 }).then(() => assert.fail("answered"), () => undefined)
    failNext = false
    const abort = new AbortController()
    const aborted = generateText({ model, prompt: "hi", abortSignal: abort.signal, maxRetries: 0 }).then(
      () => assert.fail("answered"),
      () => undefined
    )
    await vi.waitFor(() => assert.strictEqual(provider.doGenerateCalls.length, 3))
    abort.abort()
    await aborted
    const reader = (await model.doStream({ prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }] })).stream
      .getReader()
    await reader.read()
    await reader.cancel("stop")
    await generateText({ model, system: "x".repeat(8_000), prompt: "hi", maxRetries: 0 }).then(
      () => assert.fail("answered"),
      () => undefined
    )
    await AiSdk.prepareStep(options)({ messages: [{ role: "user", content: "hi" }] })

    const expected: Array<[string, string, number]> = [
      ["answered", "generate", 1],
      ["answered", "stream", 1],
      ["failed", "generate", 1],
      ["interrupted", "generate", 1],
      ["interrupted", "stream", 1],
      ["rejected", "generate", 1],
      ["sent", "step", 1]
    ]
    for (const [outcome, method, count] of expected) {
      assert.strictEqual(
        await counterValue(telemetry, "cupel.window.calls", { ...callsBy(outcome, method), "cupel.window.mode": "stable" }),
        count,
        `${outcome} ${method}`
      )
    }
    assert.strictEqual(await counterValue(telemetry, "cupel.window.calls"), 7)
    // The tokens and the cache reads count the calls the model answered (or the step sent).
    assert.strictEqual((await histogramOf(telemetry, "cupel.window.tokens.sent"))!.count, 3)
    assert.strictEqual(await counterValue(telemetry, "cupel.window.cache.reported_read_tokens"), 80)
    await telemetry.dispose()
  })

  it("cupel.window.tokens.sent and .dropped, compactions and the predicted cache reads, per answered call, as the reports give them", async () => {
    const telemetry = metricsRuntime()
    const reports: Array<AiSdk.Report> = []
    const model = wrapLanguageModel({
      model: providerWith(noUsage),
      middleware: AiSdk.middleware({ contextWindow: 4_000, outputReserve: 500, counter: quarter, telemetry, onReport: (r) => reports.push(r) })
    })
    // The default cache rule reads from 1,024 tokens on: a window large enough to predict reads.
    const messages: Array<{ role: "user" | "assistant"; content: string }> = []
    for (let turn = 0; turn < 80; turn++) {
      messages.push({ role: turn % 2 === 0 ? "user" : "assistant", content: `turn ${turn} ${"word ".repeat(80)}` })
      if (messages.at(-1)!.role === "user") await generateText({ model, messages })
    }
    const compactions = reports.filter((r) => r.change?.action === "compact").length
    assert.isAtLeast(compactions, 1)
    assert.strictEqual(await counterValue(telemetry, "cupel.window.compactions"), compactions)
    const sent = (await histogramOf(telemetry, "cupel.window.tokens.sent"))!
    const dropped = (await histogramOf(telemetry, "cupel.window.tokens.dropped"))!
    assert.strictEqual(sent.count, reports.length)
    assert.strictEqual(sent.sum, reports.reduce((sum, r) => sum + r.result.totalTokens, 0))
    const excluded = reports.reduce((sum, r) => sum + r.result.report.excluded.reduce((s, e) => s + e.item.tokens, 0), 0)
    assert.isAbove(excluded, 0)
    assert.strictEqual(dropped.sum, excluded)
    const predicted = reports.reduce((sum, r) => sum + r.prediction!.cachedTokens, 0)
    assert.isAbove(predicted, 0)
    assert.strictEqual(await counterValue(telemetry, "cupel.window.cache.predicted_read_tokens"), predicted)
    await telemetry.dispose()
  })
})

describe("AiSdk: a conversationKey that throws", () => {
  it("a conversationKey that throws rejects the call with an AiError naming it, ends cupel.window as a failure and counts the call rejected; the model is not called (middleware and prepareStep)", async () => {
    const telemetry = metricsRuntime()
    const { spans, tracer } = recordSpans()
    const provider = providerWith(noUsage)
    const conversationKey = () => {
      throw new Error("no session id")
    }
    const options = { contextWindow: 1_000, outputReserve: 100, counter: quarter, telemetry, tracer, conversationKey }
    const model = wrapLanguageModel({ model: provider, middleware: AiSdk.middleware(options) })
    const fromMiddleware: unknown = await generateText({ model, prompt: "hi", maxRetries: 0 }).then(
      () => assert.fail("answered"),
      (error: unknown) => error
    )
    const fromStep: unknown = await AiSdk.prepareStep(options)({ messages: [{ role: "user", content: "hi" }] }).then(
      () => assert.fail("fitted"),
      (error: unknown) => error
    )
    for (const error of [fromMiddleware, fromStep]) {
      assert.instanceOf(error, Error)
      assert.strictEqual(error instanceof Error && "_tag" in error ? error._tag : undefined, "AiError")
      assert.include(error instanceof Error ? error.message : "", "conversationKey")
      assert.include(error instanceof Error ? error.message : "", "no session id")
    }
    assert.strictEqual(provider.doGenerateCalls.length, 0)
    const ended = windows(spans)
    assert.strictEqual(ended.length, 2)
    for (const span of ended) {
      assert.isTrue(span.status._tag === "Ended" && span.status.exit._tag === "Failure")
    }
    assert.strictEqual(await counterValue(telemetry, "cupel.window.calls", callsBy("rejected")), 2)
    await telemetry.dispose()
  })
})

describe("AiSdk: compactions count the states written", () => {
  it("cupel.window.compactions counts a compaction whose state was written by a stream cancelled after its first part (S6: the next call does not compact again)", async () => {
    const telemetry = metricsRuntime()
    const reports: Array<AiSdk.Report> = []
    const provider = new MockLanguageModelV4({
      doStream: async () => ({
        stream: new ReadableStream<StreamPart>({
          start(controller) {
            for (const part of answer(noUsage).slice(0, 2)) controller.enqueue(part)
          }
        })
      })
    })
    const model = wrapLanguageModel({
      model: provider,
      middleware: AiSdk.middleware({ contextWindow: 4_000, outputReserve: 500, counter: quarter, telemetry, onReport: (r) => reports.push(r) })
    })
    // Each stream is cancelled by its reader after its first part: the window it sent is written.
    const prompt: Array<{ role: "user" | "assistant"; content: Array<{ type: "text"; text: string }> }> = []
    for (let turn = 0; turn < 80; turn++) {
      prompt.push({ role: turn % 2 === 0 ? "user" : "assistant", content: [{ type: "text", text: `turn ${turn} ${"word ".repeat(80)}` }] })
      if (turn % 2 !== 0) continue
      const reader = (await model.doStream({ prompt })).stream.getReader()
      await reader.read()
      await reader.cancel("stop")
    }
    const written = reports.filter((r) => r.change?.action === "compact" && r.committed === "written").length
    assert.isAtLeast(written, 1)
    assert.isTrue(reports.every((r) => r.outcome === "interrupted"))
    assert.strictEqual(await counterValue(telemetry, "cupel.window.compactions"), written)
    await telemetry.dispose()
  })
})

describe("AiSdk: the telemetry option's runtime", () => {
  it("the calls' spans go to the telemetry runtime's tracer; the tracer option, when given, takes precedence", async () => {
    const fromTelemetry = recordSpans()
    const own = recordSpans()
    const telemetry = ManagedRuntime.make(Layer.succeed(Tracer.Tracer, fromTelemetry.tracer))
    const options = { contextWindow: 1_000, outputReserve: 100, counter: quarter, telemetry }
    await generateText({ model: wrapLanguageModel({ model: providerWith(noUsage), middleware: AiSdk.middleware(options) }), prompt: "hi" })
    assert.strictEqual(windows(fromTelemetry.spans).length, 1)
    await generateText({
      model: wrapLanguageModel({ model: providerWith(noUsage), middleware: AiSdk.middleware({ ...options, tracer: own.tracer }) }),
      prompt: "hi"
    })
    assert.strictEqual(windows(fromTelemetry.spans).length, 1)
    assert.strictEqual(windows(own.spans).length, 1)
    await telemetry.dispose()
  })

  it("a telemetry layer that fails to build rejects every call with its error, and the model is not called", async () => {
    const telemetry = ManagedRuntime.make(Layer.effectDiscard(Effect.fail(new Error("no collector configured"))))
    const provider = providerWith(noUsage)
    const model = wrapLanguageModel({
      model: provider,
      middleware: AiSdk.middleware({ contextWindow: 1_000, outputReserve: 100, counter: quarter, telemetry })
    })
    for (let call = 0; call < 2; call++) {
      const error = await generateText({ model, prompt: "hi", maxRetries: 0 }).then(() => undefined, (e: unknown) => e)
      assert.strictEqual(error instanceof Error ? error.message : error, "no collector configured")
    }
    assert.strictEqual(provider.doGenerateCalls.length, 0)
  })
})

describe("AiSdk: the telemetry option exports over OTLP (docs/ai-sdk.md, docs/observability.md)", () => {
  it.live("a generate and a streamed call through a middleware given ManagedRuntime.make(Telemetry(url)): cupel.window with its GenAI attributes and usage, the fit below it, and the metrics, at the receiver once the runtime is disposed", () =>
    Effect.gen(function*() {
      const otlp = yield* receiver
      // A registry of this test's own, shared by the exporter and the middleware's metrics.
      const telemetry = ManagedRuntime.make(
        Telemetry(otlp.baseUrl).pipe(Layer.provideMerge(Layer.succeed(Metric.MetricRegistry, new Map())))
      )
      const model = wrapLanguageModel({
        model: providerWith(usage(120, 64, 40)),
        middleware: AiSdk.middleware({
          contextWindow: 2_000,
          outputReserve: 200,
          counter: quarter,
          conversationKey: () => "support-42",
          telemetry
        })
      })
      yield* Effect.promise(async () => {
        await generateText({ model, prompt: "Can I get a refund?" })
        assert.strictEqual(await streamText({ model, prompt: "Can I get a refund?" }).text, "ok")
        await telemetry.dispose()
      })
      assert.deepStrictEqual(otlp.refused, [])
      const spans = spansOf(otlp)
      const found = spans.filter((s) => s.name === "cupel.window")
      assert.strictEqual(found.length, 2)
      for (const [window, method] of found.map((w, i) => [w, i === 0 ? "generate" : "stream"] as const)) {
        assert.deepInclude(otlpAttributes(window.attributes), {
          "gen_ai.operation.name": "chat",
          "gen_ai.conversation.id": "support-42",
          "gen_ai.usage.input_tokens": 120,
          "gen_ai.usage.cache_read.input_tokens": 64,
          "gen_ai.usage.cache_creation.input_tokens": 40,
          "cupel.window.method": method
        })
        assert.strictEqual(window.status.code, 1)
        const children = spans.filter((s) => s.parentSpanId === window.spanId).map((s) => s.name)
        assert.deepStrictEqual(children, ["cupel.stable_window.fit"])
      }
      const metrics = metricsOf(otlp)
      const calls = metrics.filter((m) => m.name === "cupel.window.calls").at(-1)
      assert.isDefined(calls)
      const points = calls!.sum!.dataPoints.map((p) => [otlpAttributes(p.attributes)["cupel.window.method"], p.asDouble ?? p.asInt])
      assert.sameDeepMembers(points, [["generate", 1], ["stream", 1]])
      const reported = metrics.filter((m) => m.name === "cupel.window.cache.reported_read_tokens").at(-1)
      assert.strictEqual(reported?.sum?.dataPoints[0]?.asDouble, 128)
      // Registered when the middleware's runtime is built: 0 compactions is a figure.
      assert.strictEqual(metrics.filter((m) => m.name === "cupel.window.compactions").at(-1)?.sum?.dataPoints[0]?.asDouble, 0)
    }).pipe(Effect.scoped))
})
