import { type AnthropicProvider, createAnthropic } from "@ai-sdk/anthropic"
import { Console, Effect, Layer, PubSub, Schema, Stream } from "effect"
import { LanguageModel, Prompt, type Response, Tool, Toolkit } from "effect/ai"
import * as AiSdkLanguageModel from "../src/adapters/AiSdkLanguageModel.ts"
import * as GptTokenizer from "../src/ai/GptTokenizer.ts"
import * as WindowedLanguageModel from "../src/ai/WindowedLanguageModel.ts"

const SearchDocs = Tool.make("SearchDocs", {
  description: "Search the product documentation",
  parameters: Schema.Struct({ query: Schema.String }),
  success: Schema.String
})
const toolkit = Toolkit.make(SearchDocs)
const handlers = toolkit.toLayer({
  SearchDocs: ({ query }) => Effect.succeed(`Results for "${query}": ${"the widget supports export, import and sync; ".repeat(30)}`)
})

// Claude through the AI SDK's Anthropic provider, as an effect/ai LanguageModel; every call's
// prompt fitted to a 16,000-token window first, with Anthropic's cache marks on the wire.
// toolStreaming off: @ai-sdk/anthropic otherwise adds a flag to the tool definitions of streamed
// calls only, and a generated call then cannot read the prefix a streamed one wrote.
const claude = (anthropic: AnthropicProvider) =>
  AiSdkLanguageModel.layer(anthropic("claude-sonnet-4-5"), {
    maxOutputTokens: 1_000,
    providerOptions: { anthropic: { toolStreaming: false } }
  })

export const Model = (anthropic = createAnthropic()) =>
  WindowedLanguageModel.layer({ contextWindow: 16_000, outputReserve: 1_000 }).pipe(
    Layer.provide([claude(anthropic), GptTokenizer.layer])
  )

// A tool loop: odd steps generate, even steps stream; the toolkit's handlers answer the calls.
export const main = (anthropic = createAnthropic()) =>
  Effect.gen(function*() {
    const reports = yield* PubSub.subscribe(yield* WindowedLanguageModel.WindowReports)
    const tools = yield* toolkit
    let history = Prompt.make([
      { role: "system", content: `You are a support agent. ${"Search the docs before answering. ".repeat(150)}` },
      { role: "user", content: "What can the widget do?" }
    ])
    const cached: Array<number> = []
    for (let step = 1; step <= 10; step++) {
      const parts: ReadonlyArray<Response.AnyPart> = step % 2 === 1
        ? (yield* LanguageModel.generateText({ prompt: history, toolkit: tools })).content
        : yield* Stream.runCollect(LanguageModel.streamText({ prompt: history, toolkit: tools }))
      history = Prompt.concat(history, Prompt.fromResponseParts(parts))
      const report = yield* PubSub.take(reports)
      // What the provider said it read from its cache (the usage of the answer's finish part).
      const finish = parts.find((part) => part.type === "finish")
      cached.push(finish?.usage.inputTokens.cacheRead ?? 0)
      yield* Console.log(`step ${step}: ${report.prompt.content.length} messages sent, ${cached.at(-1)} input tokens read from the cache`)
      if (!parts.some((part) => part.type === "tool-call")) break
    }
    return { history, cached }
  }).pipe(Effect.scoped, Effect.provide(Layer.mergeAll(Model(anthropic), handlers)))

// Run it with ANTHROPIC_API_KEY set: `main()` is an Effect (Effect.runPromise runs it).
