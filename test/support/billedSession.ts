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
import type { Prompt } from "effect/ai"
import type * as AiSdk from "../../src/adapters/AiSdk.ts"
import * as AiSdkPrompt from "../../src/adapters/AiSdkPrompt.ts"
import * as FakeAnthropic from "./fakeAnthropic.ts"
import * as FakeOpenAI from "./fakeOpenAI.ts"
import type { Session } from "./sessions.ts"

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
}): Promise<Measured> => {
  const { session } = options
  const calls = Math.min(options.calls ?? session.steps.length, session.steps.length)
  const anthropicFake = FakeAnthropic.make()
  const openAIFake = FakeOpenAI.make()
  const inner = options.provider === "anthropic"
    ? createAnthropic({ fetch: anthropicFake.fetch, apiKey: "test" })("claude-sonnet-4-5")
    : options.provider === "openai-chat"
    ? createOpenAI({ fetch: openAIFake.fetch, apiKey: "test" }).chat("gpt-4.1")
    : createOpenAI({ fetch: openAIFake.fetch, apiKey: "test" }).responses("gpt-4.1")
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
  let total = 0
  let read = 0
  let cost = 0
  let maxMarks = 0
  if (options.provider === "anthropic") {
    for (const call of anthropicFake.calls) {
      const usage = call.usage
      if (usage === undefined) throw new Error(`the fake refused a request: ${call.error}`)
      total += FakeAnthropic.totalOf(usage)
      read += usage.cache_read_input_tokens
      cost += FakeAnthropic.costOf(usage)
      maxMarks = Math.max(maxMarks, call.marks.length)
    }
  } else {
    for (const call of openAIFake.calls) {
      total += call.promptTokens
      read += call.cachedTokens
      cost += call.promptTokens - call.cachedTokens + call.cachedTokens * openAIReadPrice
    }
  }
  let predictedTotal = 0
  let predictedRead = 0
  let predictedCost = 0
  for (const report of options.reports) {
    const p = report.prediction
    if (p === undefined) continue
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
