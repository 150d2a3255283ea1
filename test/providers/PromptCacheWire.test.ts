/**
 * What the doors send for the provider's prompt cache, rule by rule, through the real
 * `@ai-sdk/anthropic` / `@ai-sdk/openai` clients and the fake endpoints (docs/ai-sdk.md and
 * docs/ai.md, "What is sent to each provider"; docs/design.md item 82).
 */
import { createAnthropic } from "@ai-sdk/anthropic"
import { createOpenAI } from "@ai-sdk/openai"
import { assert, describe, it } from "@effect/vitest"
import { generateText, streamText, tool, wrapLanguageModel } from "ai"
import { Effect, Layer, PubSub } from "effect"
import { LanguageModel, Prompt } from "effect/ai"
import { z } from "zod"
import * as AiSdk from "../../src/adapters/AiSdk.ts"
import * as AiSdkCacheMarks from "../../src/adapters/AiSdkCacheMarks.ts"
import * as CacheBreakpoints from "../../src/ai/CacheBreakpoints.ts"
import * as CachePlan from "../../src/ai/CachePlan.ts"
import * as GptTokenizer from "../../src/ai/GptTokenizer.ts"
import * as PromptCacheMarks from "../../src/ai/PromptCacheMarks.ts"
import * as WindowedLanguageModel from "../../src/ai/WindowedLanguageModel.ts"
import * as AiSdkLanguageModel from "../support/aiSdkLanguageModel.ts"
import * as FakeAnthropic from "../support/fakeAnthropic.ts"
import * as FakeOpenAI from "../support/fakeOpenAI.ts"

const settings = { contextWindow: 32_000, outputReserve: 4096 } as const
const instructions = `You are an agent. ${"Follow the house rules. ".repeat(400)}`
const tools = {
  grep: tool({ description: "search the files", inputSchema: z.object({ q: z.string() }), execute: async ({ q }) => `no match for ${q}` })
}

const anthropicModel = (fake: FakeAnthropic.FakeAnthropic, middleware: ReturnType<typeof AiSdk.middleware>) =>
  wrapLanguageModel({ model: createAnthropic({ fetch: fake.fetch, apiKey: "test" })("claude-sonnet-4-5"), middleware })

describe("CachePlan.plannerFor: the planner of the model's provider", () => {
  it("a model id names its provider for the effect/ai door: claude-* → Anthropic, gpt-* / o* → OpenAI, others → none", () => {
    assert.strictEqual(CachePlan.plannerFor(CachePlan.providerOfModel("claude-sonnet-4-5"), {}).provider, "anthropic")
    assert.strictEqual(CachePlan.plannerFor(CachePlan.providerOfModel("gpt-4.1"), {}).provider, "openai")
    assert.strictEqual(CachePlan.plannerFor(CachePlan.providerOfModel("o3-mini"), {}).provider, "openai")
    assert.strictEqual(CachePlan.plannerFor(CachePlan.providerOfModel("gemini-2.5-pro"), {}).provider, "none")
    assert.strictEqual(CachePlan.plannerFor(CachePlan.providerOfModel(undefined), {}).provider, "none")
  })
  it("anthropic.* → Anthropic's marks, openai.* → OpenAI's key, any other → nothing", () => {
    assert.strictEqual(CachePlan.plannerFor("anthropic.messages", {}).provider, "anthropic")
    assert.strictEqual(CachePlan.plannerFor("openai.chat", {}).provider, "openai")
    assert.strictEqual(CachePlan.plannerFor("openai.responses", {}).provider, "openai")
    assert.strictEqual(CachePlan.plannerFor("google.generative-ai", {}).provider, "none")
    assert.strictEqual(CachePlan.plannerFor(undefined, {}).provider, "none")
  })
  it("a forced provider wins over the model's", () => {
    assert.strictEqual(CachePlan.plannerFor("openai.chat", { provider: "anthropic" }).provider, "anthropic")
    assert.strictEqual(CachePlan.plannerFor("anthropic.messages", { provider: "none" }).provider, "none")
  })
})

describe("the promptCache option", () => {
  it("a value out of range throws an InvalidConfigError naming it", () => {
    // Options from a configuration file: untyped JSON.
    const parsed = (promptCache: string): AiSdk.Options => JSON.parse(`{"contextWindow":32000,"outputReserve":4096,"promptCache":${promptCache}}`)
    assert.throws(() => AiSdk.middleware(parsed(`{"provider":"gemini"}`)), /promptCache/)
    assert.throws(() => AiSdk.middleware(parsed(`{"ttl":"2h"}`)), /promptCache/)
    assert.throws(() => AiSdk.middleware(parsed("true")), /promptCache/)
  })
  it("promptCache: false sends no mark and no toolStreaming change", async () => {
    const fake = FakeAnthropic.make()
    await generateText({ model: anthropicModel(fake, AiSdk.middleware({ ...settings, promptCache: false })), instructions, prompt: "hi" })
    assert.strictEqual(fake.calls[0]!.marks.length, 0)
  })
})

describe("AI SDK middleware, Anthropic", () => {
  it("the tools + system prompt are marked; the next call reads them and the previous request", async () => {
    const fake = FakeAnthropic.make()
    const model = anthropicModel(fake, AiSdk.middleware(settings))
    const messages: Array<{ role: "user" | "assistant"; content: string }> = [{ role: "user", content: "first question" }]
    await generateText({ model, tools, instructions, messages })
    messages.push({ role: "assistant", content: "an answer" }, { role: "user", content: "second question" })
    await generateText({ model, tools, instructions, messages })
    const [first, second] = fake.calls
    // Two blocks: the tool and the system prompt, then the messages; the tools+system mark is on the system prompt.
    assert.isTrue(first!.marks.some((m) => m.index === 1))
    assert.isAbove(second!.usage!.cache_read_input_tokens, FakeAnthropic.totalOf(first!.usage!) - 10)
  })

  it("the caller's own marks are kept and counted: never more than four in all, the caller's win", async () => {
    const fake = FakeAnthropic.make()
    const model = anthropicModel(fake, AiSdk.middleware(settings))
    const marked = { anthropic: { cacheControl: { type: "ephemeral" } } } as const
    const messages = Array.from({ length: 6 }, (_, i) => ({
      role: i % 2 === 0 ? "user" as const : "assistant" as const,
      content: `message ${i} ${"words ".repeat(300)}`,
      providerOptions: marked
    }))
    await generateText({ model, tools, instructions, messages })
    const call = fake.calls[0]!
    assert.strictEqual(call.status, 200)
    assert.isAtMost(call.marks.length, 4)
  })

  it("toolsChanged: a caller who turns toolStreaming on gets the streamed call's eager_input_streaming named in its report", async () => {
    const fake = FakeAnthropic.make()
    const reports: Array<AiSdk.Report> = []
    const model = anthropicModel(fake, AiSdk.middleware({ ...settings, onReport: (r) => void reports.push(r) }))
    const providerOptions = { anthropic: { toolStreaming: true } }
    const messages: Array<{ role: "user" | "assistant"; content: string }> = [{ role: "user", content: "first" }]
    await generateText({ model, tools, instructions, messages, providerOptions })
    messages.push({ role: "assistant", content: "ok" }, { role: "user", content: "second" })
    await streamText({ model, tools, instructions, messages, providerOptions }).text
    assert.isUndefined(reports[0]!.toolsChanged)
    assert.deepStrictEqual(reports[1]!.toolsChanged, { name: "grep", field: "eager_input_streaming" })
  })

  it("by default, streamed and generated calls send the same tool definitions: no toolsChanged", async () => {
    const fake = FakeAnthropic.make()
    const reports: Array<AiSdk.Report> = []
    const model = anthropicModel(fake, AiSdk.middleware({ ...settings, onReport: (r) => void reports.push(r) }))
    const messages: Array<{ role: "user" | "assistant"; content: string }> = [{ role: "user", content: "first" }]
    await streamText({ model, tools, instructions, messages }).text
    messages.push({ role: "assistant", content: "ok" }, { role: "user", content: "second" })
    await generateText({ model, tools, instructions, messages })
    assert.isUndefined(reports[1]!.toolsChanged)
    assert.isDefined(reports[1]!.previousSent)
  })

  it("billed beside predicted: a streamed call's report carries the provider's cache read and write", async () => {
    const fake = FakeAnthropic.make()
    const reports: Array<AiSdk.Report> = []
    const model = anthropicModel(fake, AiSdk.middleware({ ...settings, onReport: (r) => void reports.push(r) }))
    await streamText({ model, instructions, prompt: "hi" }).text
    await streamText({ model, instructions, messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "ok" }, { role: "user", content: "again" }] }).text
    const usage = fake.calls[1]!.usage!
    assert.strictEqual(reports[1]!.reported?.cacheRead, usage.cache_read_input_tokens)
    assert.strictEqual(reports[1]!.reported?.cacheWrite, usage.cache_creation_input_tokens)
    assert.isAbove(usage.cache_read_input_tokens, 0)
    // The first request was the system prompt and one message: the second appended to both.
    assert.strictEqual(reports[1]!.cache?.previousEnd, 2)
  })
})

describe("AI SDK middleware, OpenAI", () => {
  it("every request carries the hashed prompt_cache_key, and the retention option when given", async () => {
    const fake = FakeOpenAI.make()
    const model = wrapLanguageModel({
      model: createOpenAI({ fetch: fake.fetch, apiKey: "test" }).chat("gpt-4.1"),
      middleware: AiSdk.middleware({ ...settings, promptCache: { retention: "24h" }, conversationKey: () => "ticket: alice@example.com" })
    })
    await generateText({ model, prompt: "hi" })
    assert.strictEqual(fake.calls[0]!.promptCacheKey, CacheBreakpoints.promptCacheKey("ticket: alice@example.com"))
    assert.notInclude(String(fake.calls[0]!.promptCacheKey), "alice")
    assert.include(JSON.stringify(fake.calls[0]!.body), "\"prompt_cache_retention\":\"24h\"")
  })
})

describe("prepareStep's ModelMessages", () => {
  it("a mark is a message's providerOptions; the library's earlier marks are stripped, the caller's kept", () => {
    const planner = CacheBreakpoints.anthropic({ minimumPrefix: 0 })
    const messages = [
      { role: "system" as const, content: "sys" },
      { role: "user" as const, content: "a", providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } } },
      { role: "assistant" as const, content: "b" },
      { role: "user" as const, content: "c" }
    ]
    let current: ReadonlyArray<(typeof messages)[number]> = messages
    for (let step = 0; step < 100; step++) {
      current = AiSdkCacheMarks.markModelMessages(current, { planner, tokens: { tools: 0, messages: [10, 10, 10, 10] } }).messages
    }
    const options = (m: { readonly providerOptions?: Readonly<Record<string, unknown>> | undefined }) => m.providerOptions ?? {}
    const marks = current.filter((m) => JSON.stringify(options(m)).includes("cacheControl"))
    assert.isAtMost(marks.length, 4)
    assert.isAbove(marks.length, 1)
    assert.isUndefined(options(current[1]!)["effect-cupel"], "the caller's mark is not the library's")
    assert.deepStrictEqual(AiSdkCacheMarks.stripModelMessages(current).map((m) => options(m)["effect-cupel"]), [undefined, undefined, undefined, undefined])
  })
})

describe("effect/ai door", () => {
  it("once a Claude model has answered, the marks go in message options.anthropic.cacheControl (what @effect/ai-anthropic reads), tagged, and reach the wire", async () => {
    const fake = FakeAnthropic.make()
    const model = WindowedLanguageModel.layer(settings).pipe(
      Layer.provide([AiSdkLanguageModel.layer(createAnthropic({ fetch: fake.fetch, apiKey: "test" })("claude-sonnet-4-5")), GptTokenizer.layer])
    )
    const prompt = Prompt.make([{ role: "system", content: instructions }, { role: "user", content: "hi" }])
    const report = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const sub = yield* PubSub.subscribe(yield* WindowedLanguageModel.WindowReports)
      yield* LanguageModel.generateText({ prompt })
      yield* PubSub.take(sub)
      yield* LanguageModel.generateText({ prompt })
      return yield* PubSub.take(sub)
    })).pipe(Effect.provide(model)))
    // The first call: no model has answered yet, its provider is unknown, nothing is marked.
    assert.strictEqual(fake.calls[0]!.marks.length, 0)
    assert.isAbove(fake.calls[1]!.marks.length, 0)
    assert.strictEqual(report.cache?.systemEnd, 1)
    const marked = PromptCacheMarks.mark(report.prompt, { planner: CacheBreakpoints.anthropic(), cache: report.cache! })
    const system = marked.prompt.content[0]!
    assert.deepStrictEqual(system.options["anthropic"], { cacheControl: { type: "ephemeral" } })
    assert.deepStrictEqual(PromptCacheMarks.strip(marked.prompt).content[0]!.options, {})
  })
})
