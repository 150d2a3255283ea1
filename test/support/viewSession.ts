/**
 * A real agent session for the call-report log and `cupel view`: `WindowedLanguageModel` in
 * stable mode, with a summariser, over a seeded generated conversation (test/support/sessions.ts),
 * in front of a scripted provider that bills what it is sent and reports the cache it read —
 * the common prefix with its previous request, message by message, as a provider's prefix
 * cache does.
 */
import { Context, Effect, Layer, PubSub, Ref, Stream } from "effect"
import { LanguageModel, Prompt, type Response } from "effect/ai"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as Summarizer from "../../src/ai/Summarizer.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import * as WindowedLanguageModel from "../../src/ai/WindowedLanguageModel.ts"
import * as Sessions from "./sessions.ts"

const overhead = 3
const countOf = (m: Prompt.Message) => Math.ceil(PromptWindow.render(m).length / 4) + 4
const counter = TokenCounter.make(countOf, overhead)

/** The provider: bills the request's tokens, reads from its cache the prefix it saw last time. */
const provider = Effect.gen(function*() {
  const previous = yield* Ref.make<ReadonlyArray<string>>([])
  const usage = (prompt: Prompt.Prompt) =>
    Ref.modify(previous, (before) => {
      const rendered = prompt.content.map(PromptWindow.render)
      let read = 0
      for (let i = 0; i < rendered.length && i < before.length && rendered[i] === before[i]; i++) {
        read += countOf(prompt.content[i]!)
      }
      const total = prompt.content.reduce((sum, m) => sum + countOf(m), 0) + overhead
      // Read in blocks of 128 tokens, from 1,024 on (as OpenAI's cache does).
      const cacheRead = read >= 1024 ? read - (read % 128) : 0
      return [{
        inputTokens: { total, cacheRead, cacheWrite: total - cacheRead, uncached: 0 },
        outputTokens: { total: 20, text: 20, reasoning: undefined }
      }, rendered]
    })
  return yield* LanguageModel.make({
    generateText: (options) =>
      Effect.map(usage(options.prompt), (usage): Array<Response.PartEncoded> => [
        { type: "response-metadata", id: "r", modelId: "scripted", timestamp: undefined },
        { type: "text", text: "ok" },
        { type: "finish", reason: "stop", usage }
      ]),
    streamText: () => Stream.die("not used")
  })
})

/** A summariser without a model: it names how many messages it folded in. */
const summaries = Summarizer.make("scripted", ({ previous, span }) =>
  [previous, `Earlier: ${span.length} messages about the task (tool calls and their results).`]
    .filter((s) => s !== undefined)
    .join("\n"))

/**
 * Replays `steps` calls of a seeded `tool-heavy` session through the layer and returns each
 * call's report, in order.
 */
export const run = (options: { readonly seed?: number; readonly steps?: number; readonly contextWindow?: number } = {}) =>
  Effect.gen(function*() {
    const session = Sessions.generate("tool-heavy", options.steps ?? 24, options.seed ?? 7)
    const lm = yield* provider
    const context = yield* Layer.build(
      WindowedLanguageModel.layer({
        contextWindow: options.contextWindow ?? 9_000,
        outputReserve: 1_000,
        summarizer: summaries.pipe(Layer.provide(counter))
      }).pipe(Layer.provide([Layer.succeed(LanguageModel.LanguageModel, lm), counter]))
    )
    const subscription = yield* PubSub.subscribe(Context.get(context, WindowedLanguageModel.WindowReports))
    const reports: Array<WindowedLanguageModel.CallReport> = []
    for (let k = 0; k < session.steps.length; k++) {
      yield* LanguageModel.generateText({ prompt: Prompt.fromMessages(Sessions.historyAt(session, k)) }).pipe(
        Effect.provide(context)
      )
      reports.push(yield* PubSub.take(subscription))
    }
    return reports
  }).pipe(Effect.scoped)
