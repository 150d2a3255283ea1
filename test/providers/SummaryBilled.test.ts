/**
 * Summaries read the cache (docs/ai.md, rule C5; issue 26, item 3 and its "done when"): a
 * compaction's summary request, sent through the real `@ai-sdk/anthropic` client to the fake
 * Anthropic endpoint (docs/providers.md, A1–A12), is billed as a cache read of the
 * conversation's previous request plus its short instruction — and that usage is in the call's
 * report.
 *
 * The conversation runs through `WindowedLanguageModel` (stable windows) with
 * `Summarizer.layerLanguageModel`, both over one `LanguageModel` that sends each prompt to the
 * AI SDK model (the provider-level messages of `AiSdkPrompt.fromMessage`). The requests carry a
 * cache mark on their last message, as a caller (or the library's planner, once wired into the
 * doors) places it: the summary request's mark is on its instruction, and Anthropic's lookback
 * finds the previous request's end one block before it.
 */
import { createAnthropic } from "@ai-sdk/anthropic"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, PubSub, Stream } from "effect"
import { LanguageModel, Prompt, type Response } from "effect/ai"
import * as AiSdkPrompt from "../../src/adapters/AiSdkPrompt.ts"
import * as GptTokenizer from "../../src/ai/GptTokenizer.ts"
import * as Summarizer from "../../src/ai/Summarizer.ts"
import * as WindowedLanguageModel from "../../src/ai/WindowedLanguageModel.ts"
import * as FakeAnthropic from "../support/fakeAnthropic.ts"

type Message = AiSdkPrompt.ProviderMessage

/** The prompt with a cache mark on its last message. */
const markLast = (prompt: ReadonlyArray<Message>): Array<Message> => {
  const last = prompt.at(-1)
  if (last === undefined) return []
  return [...prompt.slice(0, -1), { ...last, providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } } }]
}

/** An effect/ai `LanguageModel` that sends each prompt through the real Anthropic client to the fake. */
const bridged = (fake: FakeAnthropic.FakeAnthropic) => {
  const model = createAnthropic({ fetch: fake.fetch, apiKey: "test" })("claude-sonnet-4-5")
  return LanguageModel.make({
    generateText: (options) =>
      Effect.promise(async (): Promise<Array<Response.PartEncoded>> => {
        const result = await model.doGenerate({ prompt: markLast(options.prompt.content.map(AiSdkPrompt.fromMessage)) })
        fake.clock.advance(5)
        const input = result.usage.inputTokens
        return [
          { type: "text", text: result.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("") },
          {
            type: "finish",
            reason: "stop",
            usage: {
              inputTokens: { total: input.total, cacheRead: input.cacheRead, cacheWrite: input.cacheWrite, uncached: input.noCache },
              outputTokens: { total: 1, text: 1, reasoning: undefined }
            }
          }
        ]
      }),
    streamText: () => Stream.empty
  })
}

const words = (tokens: number, seed: string): string =>
  Array.from({ length: Math.ceil(tokens / 2) }, (_, i) => `${seed}${i}`).join(" ")

describe("a compaction's summary request, through the real Anthropic client", () => {
  it.live("is billed as a cache read of the previous request plus its instruction; the call's report has that usage", () =>
    Effect.gen(function*() {
      const fake = FakeAnthropic.make()
      const provider = Layer.effect(LanguageModel.LanguageModel, bridged(fake))
      const context = yield* Layer.build(
        WindowedLanguageModel.layer({
          contextWindow: 9_000,
          outputReserve: 1_000,
          summarizer: Summarizer.layerLanguageModel({ contextWindow: 9_000 }).pipe(Layer.provide([provider, GptTokenizer.layer]))
        }).pipe(Layer.provide([provider, GptTokenizer.layer]))
      )
      const reports = yield* PubSub.subscribe(Context.get(context, WindowedLanguageModel.WindowReports))
      const history: Array<Prompt.Message> = [
        Prompt.systemMessage({ content: `You are a careful assistant. ${words(1_200, "s")}` }),
        Prompt.userMessage({ content: [Prompt.textPart({ text: "Read the project's files, one a step." })] })
      ]
      let compacted: WindowedLanguageModel.CallReport | undefined
      for (let k = 1; k <= 40 && compacted === undefined; k++) {
        yield* LanguageModel.generateText({ prompt: Prompt.fromMessages([...history]) }).pipe(Effect.provideContext(context))
        const report = yield* PubSub.take(reports)
        if (report.change?.action === "compact" && report.change.summary?._tag === "written") compacted = report
        history.push(
          Prompt.assistantMessage({ content: [Prompt.textPart({ text: `File ${k}: ${words(400, `f${k}`)}` })] }),
          Prompt.userMessage({ content: [Prompt.textPart({ text: `Next (${k}).` })] })
        )
      }
      assert.isDefined(compacted, "a compaction wrote a summary")
      const summary = compacted!.change!.summary!
      assert.isTrue(summary.withContext, "the summary request carried the conversation's last request")
      assert.strictEqual(summary.chunks, 1)
      // The fake's calls: …, the conversation's previous request, the summary request, the compacted call.
      const calls = fake.calls
      const at = calls.findIndex((c, i) => i > 0 && JSON.stringify(c.body).includes("The messages to summarise, oldest first"))
      assert.isAbove(at, 0)
      const previous = calls[at - 1]!.usage!
      const request = calls[at]!.usage!
      // Everything the previous request was billed for is read from the cache …
      assert.strictEqual(request.cache_read_input_tokens, FakeAnthropic.totalOf(previous))
      // … and one block more, the instruction, is not (Anthropic's API joins it to the request's
      // last user message as a block of its own): what the span's messages the previous request
      // held cost is not billed again.
      assert.strictEqual(calls[at]!.blocks, calls[at - 1]!.blocks + 1)
      const fresh = request.input_tokens + request.cache_creation_input_tokens
      assert.isAbove(fresh, 0)
      assert.isAbove(summary.spanTokens, fresh * 5, "the span is far larger than what was billed uncached")
      // The summary request's billed usage is the call's report's.
      assert.strictEqual(summary.usage?.cacheReadTokens, request.cache_read_input_tokens)
      assert.strictEqual(summary.usage?.inputTokens, FakeAnthropic.totalOf(request))
    }).pipe(Effect.scoped))
})
