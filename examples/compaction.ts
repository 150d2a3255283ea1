import { Console, Effect, Layer, PubSub, Ref, Schema, Stream } from "effect"
import { LanguageModel, Prompt, type Response, Tool, Toolkit } from "effect/ai"
import * as GptTokenizer from "../src/ai/GptTokenizer.ts"
import * as Summarizer from "../src/ai/Summarizer.ts"
import * as WindowedLanguageModel from "../src/ai/WindowedLanguageModel.ts"

// A tool whose answers are long, and one whose answer is longer than the whole window.
const ReadFile = Tool.make("ReadFile", {
  description: "Read a file of the project",
  parameters: Schema.Struct({ path: Schema.String }),
  success: Schema.String
})
const toolkit = Toolkit.make(ReadFile)
const handlers = toolkit.toLayer({
  ReadFile: ({ path }) =>
    Effect.succeed(
      path === "build.log"
        ? Array.from({ length: 2_000 }, (_, i) => `build step ${i}: ok`).join("\n") + "\nFAILED: step 1,999"
        : `${path}: ${"export const value = compute(input); ".repeat(30)}`
    )
})

// A stand-in for your provider (no network): it reads eleven files, then the build log, then answers.
export const ScriptedModel = Layer.effect(
  LanguageModel.LanguageModel,
  Effect.gen(function*() {
    const step = yield* Ref.make(0)
    return yield* LanguageModel.make({
      generateText: () =>
        Effect.map(Ref.updateAndGet(step, (n) => n + 1), (n): Array<Response.PartEncoded> =>
          n <= 12
            ? [{ type: "tool-call", id: `call-${n}`, name: "ReadFile", params: { path: n === 12 ? "build.log" : `src/m${n}.ts` } }]
            : [{ type: "text", text: "The build fails at its last step." }]),
      streamText: () => Stream.empty
    })
  })
)

// A summariser of your own (here without a model): it names the files the dropped span read.
// Summarizer.layerLanguageModel writes summaries with your provider's model instead.
const Summaries = Summarizer.make("files-read", ({ previous, span }) => {
  const read = span.flatMap((m) =>
    m.role === "assistant" ? m.content.flatMap((p) => (p.type === "tool-call" ? [JSON.stringify(p.params)] : [])) : []
  )
  return [previous, `Files read earlier: ${read.join(", ")}.`].filter((s) => s !== undefined).join("\n")
})

// A 4,000-token window, stable across calls; compactions replace what they drop by a summary.
export const Model = WindowedLanguageModel.layer({
  contextWindow: 4_000,
  outputReserve: 500,
  summarizer: Summaries.pipe(Layer.provide(GptTokenizer.layer))
}).pipe(Layer.provide([ScriptedModel, GptTokenizer.layer]))

export const main = Effect.gen(function*() {
  const reports = yield* PubSub.subscribe(yield* WindowedLanguageModel.WindowReports)
  const tools = yield* toolkit
  let history = Prompt.make([
    { role: "system", content: "You are a build assistant. Read the files you need." },
    { role: "user", content: "Why does the build fail?" }
  ])
  const sent: Array<WindowedLanguageModel.CallReport> = []
  for (let step = 1; step <= 20; step++) {
    const response = yield* LanguageModel.generateText({ prompt: history, toolkit: tools })
    history = Prompt.concat(history, Prompt.fromResponseParts(response.content))
    const report = yield* PubSub.take(reports)
    sent.push(report)
    const change = report.change!
    const summary = change.summary
    const shortened = report.result.report.included.filter((e) => e.item.metadata["shortened"] !== undefined)
    yield* Console.log(
      `step ${String(step).padStart(2)}: ${change.action.padEnd(7)} ${report.result.totalTokens} tokens` +
        (summary === undefined ? "" : `; summary ${summary._tag} (${summary.spanMessages} messages in, ${summary.summaryTokens} tokens out)`) +
        (shortened.length === 0 ? "" : `; ${shortened.length} result shortened`)
    )
    if (summary?._tag === "written") {
      const message = report.prompt.content.find((m) => Summarizer.readSummaryMessage(m) !== undefined)!
      yield* Console.log(`  ${Summarizer.readSummaryMessage(message)!.text}`)
    }
    if (response.toolCalls.length === 0) {
      yield* Console.log(response.text)
      break
    }
  }
  return { history, sent }
}).pipe(Effect.scoped, Effect.provide(Layer.mergeAll(Model, handlers)))

Effect.runPromise(main)
