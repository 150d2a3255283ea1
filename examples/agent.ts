import { Console, Effect, Layer, PubSub, Ref, Schema, Stream } from "effect"
import { AiError, LanguageModel, Prompt, type Response, Tool, Toolkit } from "effect/ai"
import * as GptTokenizer from "../src/ai/GptTokenizer.ts"
import * as WindowedLanguageModel from "../src/ai/WindowedLanguageModel.ts"

// A tool whose answers are long: a few calls outgrow the window.
const SearchDocs = Tool.make("SearchDocs", {
  description: "Search the product documentation",
  parameters: Schema.Struct({ query: Schema.String }),
  success: Schema.String
})
const toolkit = Toolkit.make(SearchDocs)
const handlers = toolkit.toLayer({
  SearchDocs: ({ query }) => Effect.succeed(`Results for "${query}": ${"the widget supports export, import and sync; ".repeat(40)}`)
})

// A stand-in for your provider's LanguageModel layer (no network): it searches twelve times,
// then answers.
export const ScriptedModel = Layer.effect(
  LanguageModel.LanguageModel,
  Effect.gen(function*() {
    const step = yield* Ref.make(0)
    return yield* LanguageModel.make({
      generateText: () =>
        Effect.map(Ref.updateAndGet(step, (n) => n + 1), (n): Array<Response.PartEncoded> =>
          n <= 12
            ? [{ type: "tool-call", id: `call-${n}`, name: "SearchDocs", params: { query: `widget topic ${n}` } }]
            : [{ type: "text", text: "The widget exports, imports and syncs." }]),
      streamText: () => Stream.empty
    })
  })
)

// Every call's prompt is fitted first: a 4,000-token window with 500 kept for the answer,
// counted offline with o200k_base. The window stays stable across calls (the default mode):
// the previous prompt and the new messages while they fit, one compaction when they do not.
export const Model = WindowedLanguageModel.layer({ contextWindow: 4_000, outputReserve: 500 }).pipe(
  Layer.provide([ScriptedModel, GptTokenizer.layer])
)

export const main = Effect.gen(function*() {
  const reports = yield* PubSub.subscribe(yield* WindowedLanguageModel.WindowReports)
  const tools = yield* toolkit
  let history = Prompt.make([
    { role: "system", content: "You are a support agent. Search the docs before answering." },
    { role: "user", content: "What can the widget do?" }
  ])
  const sent: Array<WindowedLanguageModel.CallReport> = []
  for (let step = 1; step <= 20; step++) {
    const response = yield* LanguageModel.generateText({ prompt: history, toolkit: tools })
    history = Prompt.concat(history, Prompt.fromResponseParts(response.content))
    const report = yield* PubSub.take(reports)
    sent.push(report)
    // What the provider's cache should do with the request (Anthropic's 5-minute rule).
    const cache = report.prediction!
    yield* Console.log(
      `step ${String(step).padStart(2)}: ${report.change!.action.padEnd(7)} ${report.prompt.content.length} of ${report.candidates} messages, ` +
        `${report.result.totalTokens} tokens; cache read ${cache.cachedTokens}, written ${cache.writtenTokens}`
    )
    if (response.toolCalls.length === 0) {
      yield* Console.log(response.text)
      break
    }
  }
  const cost = sent.reduce((sum, r) => sum + r.prediction!.cost, 0)
  const without = sent.reduce((sum, r) => sum + r.prediction!.costWithoutCache, 0)
  yield* Console.log(`input cost: ${cost.toFixed(0)} base-price tokens, ${without} without a cache`)
  return { history, sent } satisfies { history: Prompt.Prompt; sent: ReadonlyArray<WindowedLanguageModel.CallReport> }
}).pipe(
  Effect.scoped,
  Effect.provide(Layer.mergeAll(Model, handlers)),
  // A prompt that cannot fit is an AiError of the call; windowFailure names the pipeline's error.
  Effect.tapError((e) =>
    Console.error(AiError.isAiError(e) ? `${WindowedLanguageModel.windowFailure(e) ?? "model"}: ${e.message}` : e.message)
  )
)

Effect.runPromise(main)
