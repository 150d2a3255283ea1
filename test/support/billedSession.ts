/**
 * A generated session (`sessions.ts`) replayed through language-model middlewares wrapped around
 * a real provider client (`@ai-sdk/anthropic`, `@ai-sdk/openai` Chat or Responses) whose `fetch`
 * is a fake endpoint applying the provider's cache rules (`fakeAnthropic.ts`, `fakeOpenAI.ts`):
 * what the provider would bill for the session, beside what the library predicted
 * (`AiSdk.Report.prediction`) — issue 26's measurement.
 *
 * Each call sends the whole history so far as the provider-level prompt through the wrapped
 * model's `doGenerate` (as `bench/aiSdkBench.ts` does: each session message converted once, the
 * same object in every history), the fake's clock advancing `secondsBetweenCalls` between calls.
 */
import { createAnthropic } from "@ai-sdk/anthropic"
import { createOpenAI } from "@ai-sdk/openai"
import { type LanguageModelMiddleware, wrapLanguageModel } from "ai"
import { Effect, Layer, PubSub, Stream } from "effect"
import { LanguageModel, Prompt } from "effect/ai"
import type * as AiSdk from "../../src/adapters/AiSdk.ts"
import * as AiSdkDoor from "../../src/adapters/AiSdk.ts"
import * as AiSdkPrompt from "../../src/adapters/AiSdkPrompt.ts"
import type * as CacheModel from "../../src/ai/CacheModel.ts"
import * as GptTokenizer from "../../src/ai/GptTokenizer.ts"
import * as WindowedLanguageModel from "../../src/ai/WindowedLanguageModel.ts"
import * as AiSdkLanguageModel from "./aiSdkLanguageModel.ts"
import * as FakeAnthropic from "./fakeAnthropic.ts"
import * as FakeOpenAI from "./fakeOpenAI.ts"
import { generate, type Session, type Shape } from "./sessions.ts"

/** The provider and API a session is sent to. */
export type Provider = "anthropic" | "openai-chat" | "openai-responses"

/** Input cost figures of a session: the share of input tokens read from the cache, the cost relative to no caching. */
export interface Figures {
  readonly readShare: number
  readonly costRatio: number
}

/** What a replay measured: billed (the fake's usage) and predicted (the middleware's reports). */
export interface Measured {
  readonly calls: number
  readonly billed: Figures
  readonly predicted: Figures
  /** The most cache marks any request carried (Anthropic). */
  readonly maxMarks: number
  /** The `prompt_cache_key`s the requests carried (OpenAI; `undefined` for a request without one). */
  readonly promptCacheKeys: ReadonlySet<string | undefined>
}

/** The read price of OpenAI's GPT-4.1 models (75% off), as issue 26 measured. */
export const openAIReadPrice = 0.25

/**
 * Replays `session` through `middlewares` (the first sees the caller's prompt) around the
 * provider's client; `reports` collects the library's reports (pass the same array to the
 * middleware's `onReport`). `prepare` may change each history before it is sent (a caller's
 * own marks).
 */
export const replay = async (options: {
  readonly session: Session
  readonly provider: Provider
  readonly middlewares: ReadonlyArray<LanguageModelMiddleware>
  readonly reports: ReadonlyArray<AiSdk.Report>
  readonly calls?: number
  readonly secondsBetweenCalls?: number
  readonly prepare?: (prompt: AiSdkPrompt.ProviderPrompt) => AiSdkPrompt.ProviderPrompt
  /** Tool definitions sent with every call (none by default). */
  readonly tools?: AiSdkPrompt.CallOptions["tools"]
  /** The first call measured (default 0): the calls before it warm the cache up. */
  readonly steadyFrom?: number
}): Promise<Measured> => {
  const { session } = options
  const calls = Math.min(options.calls ?? session.steps.length, session.steps.length)
  const { inner, anthropicFake, openAIFake } = providerModel(options.provider)
  const model = wrapLanguageModel({ model: inner, middleware: [...options.middlewares] })
  const converted = new Map<Prompt.Message, AiSdkPrompt.ProviderMessage>()
  const toProvider = (message: Prompt.Message) => {
    let m = converted.get(message)
    if (m === undefined) {
      m = AiSdkPrompt.fromMessage(message)
      converted.set(message, m)
    }
    return m
  }
  const history: Array<Prompt.Message> = [...session.start]
  for (let k = 0; k < calls; k++) {
    const prompt = history.map(toProvider)
    await model.doGenerate({
      prompt: options.prepare === undefined ? prompt : options.prepare(prompt),
      ...(options.tools === undefined ? {} : { tools: options.tools })
    })
    anthropicFake.clock.advance(options.secondsBetweenCalls ?? 5)
    openAIFake.clock.advance(options.secondsBetweenCalls ?? 5)
    const step = session.steps[k]!
    history.push(step.response, ...step.next)
  }
  return measure({
    calls,
    provider: options.provider,
    anthropicFake,
    openAIFake,
    predictions: options.reports.map((report) => report.prediction),
    steadyFrom: options.steadyFrom ?? 0
  })
}

/** The real client of a provider, its `fetch` a fresh fake endpoint. */
export const providerModel = (provider: Provider) => {
  const anthropicFake = FakeAnthropic.make()
  const openAIFake = FakeOpenAI.make()
  const inner = provider === "anthropic"
    ? createAnthropic({ fetch: anthropicFake.fetch, apiKey: "test" })("claude-sonnet-4-5")
    : provider === "openai-chat"
    ? createOpenAI({ fetch: openAIFake.fetch, apiKey: "test" }).chat("gpt-4.1")
    : createOpenAI({ fetch: openAIFake.fetch, apiKey: "test" }).responses("gpt-4.1")
  return { inner, anthropicFake, openAIFake }
}

/**
 * Replays `session` through the `effect/ai` door: `WindowedLanguageModel.layer` (default
 * options but `contextWindow` / `outputReserve`, counted with `GptTokenizer`) over a test-only
 * `LanguageModel` that sends each call through the provider's real client
 * (`aiSdkLanguageModel.ts`) to the fake endpoint. `streamEvery`: every so many calls is a
 * `streamText` (default: none).
 */
export const replayEffect = (options: {
  readonly session: Session
  readonly provider: Provider
  readonly contextWindow: number
  readonly outputReserve: number
  readonly calls?: number
  readonly steadyFrom?: number
  readonly secondsBetweenCalls?: number
  readonly streamEvery?: number
}): Promise<Measured> => {
  const { session } = options
  const calls = Math.min(options.calls ?? session.steps.length, session.steps.length)
  const { inner, anthropicFake, openAIFake } = providerModel(options.provider)
  const model = WindowedLanguageModel.layer({ contextWindow: options.contextWindow, outputReserve: options.outputReserve }).pipe(
    Layer.provide([AiSdkLanguageModel.layer(inner), GptTokenizer.layer])
  )
  const program = Effect.gen(function*() {
    const reports = yield* WindowedLanguageModel.WindowReports
    const subscription = yield* PubSub.subscribe(reports)
    const predictions: Array<CacheModel.Prediction | undefined> = []
    const history: Array<Prompt.Message> = [...session.start]
    for (let k = 0; k < calls; k++) {
      // A copy: the window's item memo keeps the array it was given (see the report of issue 26's wiring).
      const prompt = Prompt.fromMessages([...history])
      if (options.streamEvery !== undefined && k % options.streamEvery === options.streamEvery - 1) {
        yield* Stream.runDrain(LanguageModel.streamText({ prompt }))
      } else yield* LanguageModel.generateText({ prompt })
      predictions.push((yield* PubSub.take(subscription)).prediction)
      anthropicFake.clock.advance(options.secondsBetweenCalls ?? 5)
      openAIFake.clock.advance(options.secondsBetweenCalls ?? 5)
      const step = session.steps[k]!
      history.push(step.response, ...step.next)
    }
    return predictions
  })
  return Effect.runPromise(Effect.scoped(program).pipe(Effect.provide(model))).then((predictions) =>
    measure({ calls, provider: options.provider, anthropicFake, openAIFake, predictions, steadyFrom: options.steadyFrom ?? 0 })
  )
}

/** Billed (the fake's calls) beside predicted (the reports), from call `steadyFrom` on. */
const measure = (options: {
  readonly calls: number
  readonly provider: Provider
  readonly anthropicFake: FakeAnthropic.FakeAnthropic
  readonly openAIFake: FakeOpenAI.FakeOpenAI
  readonly predictions: ReadonlyArray<CacheModel.Prediction | undefined>
  readonly steadyFrom: number
}): Measured => {
  const { calls, anthropicFake, openAIFake, steadyFrom } = options
  let total = 0
  let read = 0
  let cost = 0
  let maxMarks = 0
  if (options.provider === "anthropic") {
    for (const [k, call] of anthropicFake.calls.entries()) {
      const usage = call.usage
      if (usage === undefined) throw new Error(`the fake refused a request: ${call.error}`)
      maxMarks = Math.max(maxMarks, call.marks.length)
      if (k < steadyFrom) continue
      total += FakeAnthropic.totalOf(usage)
      read += usage.cache_read_input_tokens
      cost += FakeAnthropic.costOf(usage)
    }
  } else {
    for (const [k, call] of openAIFake.calls.entries()) {
      if (k < steadyFrom) continue
      total += call.promptTokens
      read += call.cachedTokens
      cost += call.promptTokens - call.cachedTokens + call.cachedTokens * openAIReadPrice
    }
  }
  let predictedTotal = 0
  let predictedRead = 0
  let predictedCost = 0
  for (const [k, p] of options.predictions.entries()) {
    if (p === undefined || k < steadyFrom) continue
    predictedTotal += p.totalTokens
    predictedRead += p.cachedTokens
    predictedCost += p.cost
  }
  return {
    calls,
    billed: { readShare: read / total, costRatio: cost / total },
    predicted: { readShare: predictedRead / predictedTotal, costRatio: predictedCost / predictedTotal },
    maxMarks,
    promptCacheKeys: new Set(openAIFake.calls.map((call) => call.promptCacheKey))
  }
}

/** The session generator's six tools, with long descriptions (about 1,500 tokens in all). */
export const sessionTools: NonNullable<AiSdkPrompt.CallOptions["tools"]> = ["read_file", "run_tests", "grep", "list_dir", "edit_file", "http_get"]
  .map((name, i) => ({
    type: "function" as const,
    name,
    description: `${name}: ${"Use this tool when the task needs it; report what it returned and what you will do next. ".repeat(10 + i)}`,
    inputSchema: { type: "object", properties: { target: { type: "string" }, depth: { type: "number" } }, required: ["target"] }
  }))

/** A line for the test's output: billed beside predicted, in percent and × no caching. */
export const describe = (label: string, m: Measured): string =>
  `${label}: billed ${(m.billed.readShare * 100).toFixed(1)}% read / ${m.billed.costRatio.toFixed(3)}×, ` +
  `predicted ${(m.predicted.readShare * 100).toFixed(1)}% / ${m.predicted.costRatio.toFixed(3)}× (${m.calls} calls, at most ${m.maxMarks} marks)`

/**
 * The replays of issue 26's "done when" (test/providers/BilledCacheShapes.test.ts,
 * BilledCacheOpenAI.test.ts): a session of the shape (seed 18), 100 calls at 32k and 40 at 128k,
 * 4,096 reserved, measured from call 15; through the middleware (with {@link sessionTools}) or
 * the `effect/ai` layer (no tools).
 */
export const shapeReplays = (() => {
  const outputReserve = 4096
  const lengths = { 32_000: 100, 128_000: 40 } as const
  const steadyFrom = 15
  const viaMiddleware = (shape: Shape, contextWindow: 32_000 | 128_000, provider: Provider): Promise<Measured> => {
    const reports: Array<AiSdk.Report> = []
    return replay({
      session: generate(shape, lengths[contextWindow], 18),
      provider,
      middlewares: [AiSdkDoor.middleware({ contextWindow, outputReserve, onReport: (report) => void reports.push(report) })],
      reports,
      steadyFrom,
      tools: sessionTools
    })
  }
  const viaLayer = (shape: Shape, contextWindow: 32_000 | 128_000, provider: Provider): Promise<Measured> =>
    replayEffect({ session: generate(shape, lengths[contextWindow], 18), provider, contextWindow, outputReserve, steadyFrom })
  return { outputReserve, lengths, steadyFrom, viaMiddleware, viaLayer }
})()
