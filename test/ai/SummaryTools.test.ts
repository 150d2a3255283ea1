/**
 * The summary request's tools (docs/ai.md, "Compaction with summaries"): providers cache the
 * tool definitions first (Anthropic: tools, then system, then messages; OpenAI likewise), so a
 * `LanguageModel` summariser sends the conversation's last request with the tools it had, with
 * the agent's tool choice ("auto") unless told "none", and runs no tool — else its whole input
 * misses the cache whenever the agent has tools.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Ref, Schema, Stream } from "effect"
import { LanguageModel, Prompt, type Response, Tool, Toolkit } from "effect/ai"
import { KeyValueStore } from "effect/persistence"
import { ContextBudget, FirstFitSlice, OverflowNotifier, RecencyScorer } from "../../src/index.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as StableWindow from "../../src/ai/StableWindow.ts"
import * as Summarizer from "../../src/ai/Summarizer.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import * as ToolDefinitions from "../../src/ai/ToolDefinitions.ts"
import * as WindowedLanguageModel from "../../src/ai/WindowedLanguageModel.ts"
import * as SectionedPlacer from "../../src/placers/SectionedPlacer.ts"

const countOf = (m: Prompt.Message) => Math.ceil(PromptWindow.render(m).length / 4) + 4
const counter = TokenCounter.make(countOf, 3)

const Search = Tool.make("Search", {
  description: "Search the knowledge base",
  parameters: Schema.Struct({ query: Schema.String }),
  success: Schema.String
})
const OpenTicket = Tool.make("OpenTicket", {
  description: "Open a support ticket",
  parameters: Schema.Struct({ title: Schema.String }),
  success: Schema.String
})
const toolkit = Toolkit.make(Search, OpenTicket)
const handlers = toolkit.toLayer({
  Search: ({ query }) => Effect.succeed(`results for ${query}`),
  OpenTicket: ({ title }) => Effect.succeed(`ticket: ${title}`)
})

/** What a model was asked: the prompt, the names of the tools offered (in order) and the tool choice. */
interface Asked {
  readonly prompt: Prompt.Prompt
  readonly tools: ReadonlyArray<string>
  readonly toolChoice: unknown
}

/** A model that records what it is asked and answers every request with `answer`. */
const recording = (answer: string | Array<Response.PartEncoded> = "A summary.") =>
  Effect.gen(function*() {
    const asked = yield* Ref.make<ReadonlyArray<Asked>>([])
    const model = yield* LanguageModel.make({
      generateText: (options) =>
        Effect.as(
          Ref.update(asked, (all) => [
            ...all,
            { prompt: options.prompt, tools: options.tools.map((t) => t.name), toolChoice: options.toolChoice }
          ]),
          typeof answer === "string" ? [{ type: "text", text: answer }] satisfies Array<Response.PartEncoded> : answer
        ),
      streamText: () => Stream.empty
    })
    return { model, asked }
  })

const user = (text: string): Prompt.Message => Prompt.userMessage({ content: [Prompt.textPart({ text })] })
const assistant = (text: string): Prompt.Message => Prompt.assistantMessage({ content: [Prompt.textPart({ text })] })
const context: ReadonlyArray<Prompt.Message> = [
  Prompt.systemMessage({ content: "You are a support agent." }),
  user("My export fails with error 42."),
  assistant("Your target folder is read-only; make it writable."),
  user("Done, now it works.")
]
const span = context.slice(1, 3)
const definitions = ToolDefinitions.toolsOf(toolkit)

const getSummarizer = Effect.gen(function*() {
  return yield* Summarizer.Summarizer
})

const summariser = (options: Partial<Summarizer.LanguageModelOptions> = {}, answer?: Array<Response.PartEncoded>) =>
  Effect.gen(function*() {
    const { model, asked } = yield* recording(answer)
    const summarizer = yield* Effect.provide(
      getSummarizer,
      Summarizer.layerLanguageModel({ contextWindow: 100_000, ...options }).pipe(
        Layer.provide([Layer.succeed(LanguageModel.LanguageModel, model), counter])
      )
    )
    return { summarizer, asked }
  })

describe("the summary request's tools", () => {
  it.effect("with the context's tools, the summary request sends the same tools, in order, with the agent's tool choice (auto), the context as its prefix", () =>
    Effect.gen(function*() {
      const { summarizer, asked } = yield* summariser()
      const summary = yield* summarizer.summarize({ span, context, tools: definitions, maxTokens: 200 })
      assert.isTrue(summary.withContext)
      const [request] = yield* Ref.get(asked)
      assert.deepStrictEqual(request!.tools, ["Search", "OpenTicket"])
      assert.strictEqual(request!.toolChoice, "auto")
      assert.deepStrictEqual(request!.prompt.content.slice(0, context.length), [...context])
      assert.strictEqual(request!.prompt.content.length, context.length + 1)
    }))

  it.effect("the toolChoice option none sends the same tools with tool choice none", () =>
    Effect.gen(function*() {
      const { summarizer, asked } = yield* summariser({ toolChoice: "none" })
      yield* summarizer.summarize({ span, context, tools: definitions, maxTokens: 200 })
      const [request] = yield* Ref.get(asked)
      assert.deepStrictEqual(request!.tools, ["Search", "OpenTicket"])
      assert.strictEqual(request!.toolChoice, "none")
    }))

  it.effect("a summary request runs no tool: an answer that is a tool call and no text fails the summary, naming the tool", () =>
    Effect.gen(function*() {
      const { summarizer } = yield* summariser({}, [{ type: "tool-call", id: "t1", name: "OpenTicket", params: { title: "x" } }])
      const e = yield* Effect.flip(summarizer.summarize({ span, context, tools: definitions, maxTokens: 200 }))
      assert.strictEqual(e.reason, "failed")
      assert.include(e.detail, "the model called \"OpenTicket\" instead of answering in text")
    }))

  it.effect("a summary request runs no tool: an approved call the context carries fails the summary rather than running it", () =>
    Effect.gen(function*() {
      const approved: ReadonlyArray<Prompt.Message> = [
        ...context,
        Prompt.assistantMessage({
          content: [
            Prompt.toolCallPart({ id: "c1", name: "OpenTicket", params: { title: "export" }, providerExecuted: false }),
            Prompt.toolApprovalRequestPart({ approvalId: "a1", toolCallId: "c1" })
          ]
        }),
        Prompt.toolMessage({ content: [Prompt.toolApprovalResponsePart({ approvalId: "a1", approved: true })] })
      ]
      const { summarizer, asked } = yield* summariser()
      const e = yield* Effect.flip(summarizer.summarize({ span, context: approved, tools: definitions, maxTokens: 200 }))
      assert.strictEqual(e.reason, "failed")
      assert.include(e.detail, "a summary request does not run tools, asked for \"OpenTicket\"")
      assert.deepStrictEqual(yield* Ref.get(asked), [])
    }))

  it.effect("a toolChoice option other than auto or none fails the layer", () =>
    Effect.gen(function*() {
      // A value outside the type, as a JavaScript caller may pass it.
      const e = yield* Effect.flip(summariser({ toolChoice: JSON.parse("\"required\"") }))
      assert.strictEqual(e._tag, "InvalidConfigError")
      if (e._tag === "InvalidConfigError") assert.strictEqual(e.path, "toolChoice")
    }))

  it.effect("without tools the summary request offers none, as before", () =>
    Effect.gen(function*() {
      const { summarizer, asked } = yield* summariser()
      yield* summarizer.summarize({ span, context, maxTokens: 200 })
      yield* summarizer.summarize({ span, context, tools: [], maxTokens: 200 })
      for (const request of yield* Ref.get(asked)) {
        assert.deepStrictEqual(request.tools, [])
        assert.deepStrictEqual(request.prompt.content.slice(0, context.length), [...context])
      }
    }))

  it.effect("the window guard counts the tools with the context: when they do not fit, the message goes alone, without tools", () =>
    Effect.gen(function*() {
      const message = user(Summarizer.requestText(Summarizer.defaultInstruction, 100, undefined, context, span))
      const contextTokens = context.reduce((sum, m) => sum + countOf(m), 0)
      const toolTokens = definitions.reduce((sum, t) => sum + countOf(ToolDefinitions.message(t)), 0)
      // Room for the context and the message (less the reserve of 100 and the request's 3), not for the tools too.
      const contextWindow = countOf(message) + 100 + 3 + contextTokens + toolTokens - 1
      const narrow = yield* summariser({ contextWindow })
      const alone = yield* narrow.summarizer.summarize({ span, context, tools: definitions, maxTokens: 100 })
      assert.isFalse(alone.withContext)
      const [request] = yield* Ref.get(narrow.asked)
      assert.strictEqual(request!.prompt.content.length, 1)
      assert.deepStrictEqual(request!.tools, [])
      // One token more and the context goes with its tools.
      const wider = yield* summariser({ contextWindow: contextWindow + 1 })
      assert.isTrue((yield* wider.summarizer.summarize({ span, context, tools: definitions, maxTokens: 100 })).withContext)
      assert.deepStrictEqual((yield* Ref.get(wider.asked))[0]!.tools, ["Search", "OpenTicket"])
    }))
})

describe("the summary request's tools, through WindowedLanguageModel", () => {
  /**
   * An agent over a windowed model whose summariser asks the same provider model: every call
   * offers `tools` (or none); returns what the provider was asked, the agent's calls and the
   * summariser's apart (the summariser's end with the instruction).
   */
  const run = (withTools: boolean) =>
    Effect.scoped(Effect.gen(function*() {
      const { model, asked } = yield* recording("Short answer.")
      const provider = Layer.succeed(LanguageModel.LanguageModel, model)
      const windowed = yield* Layer.build(
        WindowedLanguageModel.layer({
          contextWindow: 1_200,
          outputReserve: 100,
          summarizer: Summarizer.layerLanguageModel({ contextWindow: 100_000 }).pipe(Layer.provide([provider, counter]))
        }).pipe(Layer.provide([provider, counter]))
      )
      const tools = yield* Effect.provide(Effect.gen(function*() {
        return yield* toolkit
      }), handlers)
      let history: Array<Prompt.Message> = [Prompt.systemMessage({ content: "You are a support agent." })]
      for (let turn = 0; turn < 40; turn++) {
        history = [...history, user(`question ${turn}: ${"why does the export fail again ".repeat(6)}`)]
        const prompt = Prompt.fromMessages(history)
        const answer = yield* (withTools
          ? Effect.map(LanguageModel.generateText({ prompt, toolkit: tools }), (r) => r.text)
          : Effect.map(LanguageModel.generateText({ prompt }), (r) => r.text)).pipe(
            Effect.provide(Layer.succeedContext(windowed))
          )
        history = [...history, assistant(`${answer} ${"because the folder is read-only ".repeat(6)}`)]
      }
      const all = yield* Ref.get(asked)
      const isSummary = (a: Asked) => PromptWindow.render(a.prompt.content.at(-1)!).startsWith(Summarizer.defaultInstruction)
      const index = all.findIndex(isSummary)
      assert.isAbove(index, 0, "a compaction asked for a summary")
      return { summary: all[index]!, last: all[index - 1]! }
    }))

  it.effect("with a toolkit on the agent's calls, the summariser's request has the last request's tools and tool choice, and begins with its messages", () =>
    Effect.gen(function*() {
      const { summary, last } = yield* run(true)
      assert.deepStrictEqual(last.tools, ["Search", "OpenTicket"])
      assert.deepStrictEqual(summary.tools, last.tools)
      assert.strictEqual(summary.toolChoice, last.toolChoice)
      assert.deepStrictEqual(summary.prompt.content.slice(0, last.prompt.content.length), [...last.prompt.content])
      assert.strictEqual(summary.prompt.content.length, last.prompt.content.length + 1)
    }))

  it.effect("without tools on the agent's calls, the summariser's request offers none and still begins with the last request", () =>
    Effect.gen(function*() {
      const { summary, last } = yield* run(false)
      assert.deepStrictEqual(summary.tools, [])
      assert.deepStrictEqual(summary.prompt.content.slice(0, last.prompt.content.length), [...last.prompt.content])
    }))
})


describe("the summary request's tools, through StableWindow", () => {
  const layers = Layer.mergeAll(
    RecencyScorer.layer,
    FirstFitSlice.layer,
    SectionedPlacer.conversation,
    OverflowNotifier.layerNoop,
    counter,
    KeyValueStore.layerMemory
  )
  const budget = new ContextBudget.ContextBudget({ maxTokens: 2_000, targetTokens: 2_000 })
  const history: Array<Prompt.Message> = [Prompt.systemMessage({ content: "be brief" }), user("start")]
  for (let k = 0; k < 80; k++) history.push(assistant(`answer ${k} ${"text ".repeat(30)}`), user(`question ${k} ${"more ".repeat(15)}`))
  const searchOnly = ToolDefinitions.toolsOf(Toolkit.make(Search))

  /**
   * Calls until the first compaction, each offering `definitions` (counted as 40 tokens), the
   * compacting call `atCompaction`; returns the tools the summariser was given.
   */
  const toolsAtCompaction = (atCompaction: { readonly tools: ReadonlyArray<ToolDefinitions.AnyTool>; readonly toolTokens: number }, compactsAt?: number) =>
    Effect.scoped(Effect.gen(function*() {
      const given = yield* Ref.make<ReadonlyArray<ReadonlyArray<string>>>([])
      const built = yield* Layer.build(Summarizer.make("recording", (request) =>
        Effect.as(Ref.update(given, (all) => [...all, (request.tools ?? []).map((t) => t.name)]), "summary")))
      const window = yield* StableWindow.make({ summarizer: Context.get(built, Summarizer.Summarizer), lowWatermark: 0.5, summaryTokens: 200 })
      for (let k = 4; k <= history.length; k += 2) {
        const call = k === compactsAt ? { key: "k", ...atCompaction } : { key: "k", tools: definitions, toolTokens: 40 }
        const plan = yield* window.fit(Prompt.fromMessages(history.slice(0, k)), budget, call)
        yield* window.commit(plan)
        if (plan.change.action === "compact" && plan.basedOn !== undefined) return { at: k, tools: (yield* Ref.get(given))[0] }
      }
      return yield* Effect.die(new Error("no compaction"))
    })).pipe(Effect.provide(layers))

  it.effect("the summariser is given the call's tools when the last request's tools counted the same, and none when they changed", () =>
    Effect.gen(function*() {
      const same = yield* toolsAtCompaction({ tools: definitions, toolTokens: 40 })
      assert.deepStrictEqual(same.tools, ["Search", "OpenTicket"])
      // The same run, the compacting call offering other tools: the last request's are unknown.
      const changed = yield* toolsAtCompaction({ tools: searchOnly, toolTokens: 20 }, same.at)
      assert.strictEqual(changed.at, same.at)
      assert.deepStrictEqual(changed.tools, [])
    }))
})
