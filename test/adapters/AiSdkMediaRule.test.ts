/**
 * Design item 101: one counting rule for every door. A user's image is sent with its data and
 * counted by the provider's media rule (`MediaTokens`) on the AI SDK's side as on effect/ai's.
 */
import { assert, describe, it } from "@effect/vitest"
import { wrapLanguageModel } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import { Effect } from "effect"
import { Prompt } from "effect/ai"
import * as AiSdk from "../../src/adapters/AiSdk.ts"
import * as AiSdkPrompt from "../../src/adapters/AiSdkPrompt.ts"
import * as GptTokenizer from "../../src/ai/GptTokenizer.ts"
import * as MediaTokens from "../../src/ai/MediaTokens.ts"
import { TokenCounter } from "../../src/ai/TokenCounter.ts"
import { png } from "../support/mediaFixtures.ts"
import * as Sessions from "../support/sessions.ts"

const mock = () =>
  new MockLanguageModelV4({
    doGenerate: async () => ({
      content: [{ type: "text", text: "ok" }],
      finishReason: { unified: "stop", raw: undefined },
      usage: {
        inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: undefined, text: undefined, reasoning: undefined }
      },
      warnings: []
    })
  })

describe("AiSdk media rule (design 101)", () => {
  it("a user's image keeps its data in the provider message and its media tokens", () => {
    const message = Prompt.makeMessage("user", {
      content: [Prompt.filePart({ mediaType: "image/png", data: png(1280, 800, { pixels: false }) })]
    })
    const provider = AiSdkPrompt.fromMessage(message)
    assert.strictEqual(provider.role, "user")
    const back = AiSdkPrompt.convert([provider]).prompt.content[0]!
    assert.strictEqual(MediaTokens.ofMessage(back), MediaTokens.ofMessage(message))
    assert.isAbove(MediaTokens.ofMessage(back), 1000)
  })

  it("the screenshot shape through the middleware never sends a request over the target, counted by the media rule", async () => {
    const contextWindow = 32_000
    const outputReserve = 4096
    // The bench's measure: o200k and OpenAI's media rule, the middleware's defaults.
    const counter = await Effect.runPromise(Effect.gen(function*() {
      return yield* TokenCounter
    }).pipe(Effect.provide(GptTokenizer.layer)))
    const target = contextWindow - outputReserve - counter.requestOverhead
    const inner = mock()
    const model = wrapLanguageModel({
      model: inner,
      middleware: AiSdk.middleware({ contextWindow, outputReserve })
    })
    const session = Sessions.generate("screenshot", 90, 24)
    const history: Array<Prompt.Message> = [...session.start]
    let images = 0
    for (const step of session.steps) {
      await model.doGenerate({ prompt: history.map(AiSdkPrompt.fromMessage) })
      const sent = inner.doGenerateCalls.at(-1)!.prompt
      const messages = AiSdkPrompt.convert(sent).prompt.content
      images += messages.some((m) => MediaTokens.ofMessage(m) > 0) ? 1 : 0
      let tokens = 0
      for (const m of messages) tokens += await Effect.runPromise(counter.count(m))
      assert.isAtMost(tokens, target)
      history.push(step.response, ...step.next)
    }
    assert.isAbove(images, 0)
  })
})

describe("AiSdk media rule, ModelMessage door (design 101)", () => {
  it("a user's image keeps its data in the ModelMessage and its media tokens", () => {
    const message = Prompt.makeMessage("user", {
      content: [Prompt.filePart({ mediaType: "image/png", data: png(1280, 800, { pixels: false }) })]
    })
    const back = AiSdkPrompt.convertModelMessages([AiSdkPrompt.fromModelMessage(message)]).prompt.content[0]!
    assert.strictEqual(MediaTokens.ofMessage(back), MediaTokens.ofMessage(message))
    assert.isAbove(MediaTokens.ofMessage(back), 1000)
  })
})
