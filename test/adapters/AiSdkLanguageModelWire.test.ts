/**
 * The wire: an Effect 4.1 program runs `WindowedLanguageModel` over `@ai-sdk/anthropic` through
 * `AiSdkLanguageModel` (examples/aiSdkLanguageModel.ts, shown in docs/ai.md), against the fake
 * Anthropic endpoint (test/support/fakeAnthropic.ts): a multi-step tool loop of generated and
 * streamed calls, Anthropic's cache marks on the wire, the cached tokens read back.
 */
import { createAnthropic } from "@ai-sdk/anthropic"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema, Stream } from "effect"
import { LanguageModel, Prompt, Tool, Toolkit } from "effect/ai"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { main } from "../../examples/aiSdkLanguageModel.ts"
import * as AiSdkLanguageModel from "../../src/adapters/AiSdkLanguageModel.ts"
import * as GptTokenizer from "../../src/ai/GptTokenizer.ts"
import * as WindowedLanguageModel from "../../src/ai/WindowedLanguageModel.ts"
import * as FakeAnthropic from "../support/fakeAnthropic.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** The content blocks of a request body's messages, in order. */
const blocksOf = (body: unknown): Array<Record<string, unknown>> => {
  const messages = isRecord(body) && Array.isArray(body["messages"]) ? body["messages"] : []
  return messages.flatMap((m: unknown) =>
    isRecord(m) && Array.isArray(m["content"]) ? m["content"].filter(isRecord) : []
  )
}

describe("AiSdkLanguageModel over @ai-sdk/anthropic", () => {
  it("examples/aiSdkLanguageModel.ts: a tool loop of generated and streamed calls, cache marks on the wire, the cached tokens read back", async () => {
    const fake = FakeAnthropic.make({
      toolCall: (n) => (n <= 7 ? { name: "SearchDocs", input: { query: `widget topic ${n}` } } : undefined)
    })
    const result = await Effect.runPromise(main(createAnthropic({ fetch: fake.fetch, apiKey: "test" })))
    // Seven tool calls answered by the toolkit, then the text answer: eight requests.
    assert.strictEqual(fake.calls.length, 8)
    assert.deepStrictEqual(fake.calls.map((c) => c.stream), [false, true, false, true, false, true, false, true])
    assert.deepStrictEqual(fake.calls.map((c) => c.status), Array(8).fill(200))
    // Every request after the first carries Anthropic's cache marks (the provider is known once a
    // model has answered), at most four (A4).
    assert.strictEqual(fake.calls[0]!.marks.length, 0)
    for (const call of fake.calls.slice(1)) {
      assert.isAbove(call.marks.length, 0)
      assert.isAtMost(call.marks.length, 4)
    }
    // The usage each answer reported is what the program read back, cached tokens included.
    assert.deepStrictEqual(result.cached, fake.calls.map((c) => c.usage!.cache_read_input_tokens))
    assert.isAbove(result.cached.slice(2).reduce((a, b) => a + b, 0), 0)
    for (const cached of result.cached.slice(2)) assert.isAbove(cached, 0)
    // Each tool call reached the wire with its result: tool_use then tool_result, in order.
    const blocks = blocksOf(fake.calls.at(-1)!.body)
    const uses = blocks.filter((b) => b["type"] === "tool_use").map((b) => b["id"])
    const results = blocks.filter((b) => b["type"] === "tool_result").map((b) => b["tool_use_id"])
    assert.strictEqual(uses.length, 7)
    assert.deepStrictEqual(results, uses)
    // The history holds the final answer.
    const final = result.history.content.at(-1)!
    assert.strictEqual(final.role, "assistant")
  })

  // docs/ai.md: with @ai-sdk/anthropic, streamed calls' tool definitions carry
  // eager_input_streaming unless toolStreaming is off, so a generated call misses the prefix a
  // streamed call wrote.
  const Lookup = Tool.make("Lookup", {
    description: "Look a word up",
    parameters: Schema.Struct({ word: Schema.String }),
    success: Schema.String
  })
  const tools = Toolkit.make(Lookup)
  const threeCalls = (settings: AiSdkLanguageModel.Settings) => {
    const fake = FakeAnthropic.make({ toolCall: () => ({ name: "Lookup", input: { word: "cupel" } }) })
    const model = WindowedLanguageModel.layer({ contextWindow: 16_000, outputReserve: 1_000 }).pipe(
      Layer.provide([AiSdkLanguageModel.layer(createAnthropic({ fetch: fake.fetch, apiKey: "test" })("claude-sonnet-4-5"), settings), GptTokenizer.layer])
    )
    return Effect.gen(function*() {
      const toolkit = yield* tools
      let history = Prompt.make([
        { role: "system", content: "Answer with care. ".repeat(400) },
        { role: "user", content: "What is a cupel?" }
      ])
      history = Prompt.concat(history, Prompt.fromResponseParts((yield* LanguageModel.generateText({ prompt: history, toolkit })).content))
      history = Prompt.concat(history, Prompt.fromResponseParts(yield* Stream.runCollect(LanguageModel.streamText({ prompt: history, toolkit }))))
      yield* LanguageModel.generateText({ prompt: history, toolkit })
      return fake.calls.map((c) => c.usage!.cache_read_input_tokens)
    }).pipe(Effect.provide([model, tools.toLayer({ Lookup: ({ word }) => Effect.succeed(`${word}: ${"a small dish. ".repeat(50)}`) })]))
  }

  it.effect("with @ai-sdk/anthropic's toolStreaming on, a generated call after a streamed one misses its prefix; off, it reads it", () =>
    Effect.gen(function*() {
      const on = yield* threeCalls({})
      const off = yield* threeCalls({ providerOptions: { anthropic: { toolStreaming: false } } })
      assert.strictEqual(on[2], 0)
      assert.isAbove(off[2]!, 0)
    }))

  it("docs/ai.md shows the example verbatim", () => {
    const doc = readFileSync(`${root}docs/ai.md`, "utf8")
    const example = readFileSync(`${root}examples/aiSdkLanguageModel.ts`, "utf8").replace(/"\.\.\/src\/(.*?)\.ts"/g, `"effect-cupel/$1"`)
    assert.include(doc, example)
  })
})
