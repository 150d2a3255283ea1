import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, PubSub, Ref, Schema, Stream, type Tracer } from "effect"
import { AiError, LanguageModel, Prompt, type Response, Tool, Toolkit } from "effect/ai"
import { ContextItem, Placer, Scorer } from "../../src/index.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import * as ToolDefinitions from "../../src/ai/ToolDefinitions.ts"
import * as WindowedLanguageModel from "../../src/ai/WindowedLanguageModel.ts"
import { recordSpans } from "../support/spans.ts"

// A tool whose results are large: the history outgrows the window after a few steps.
const Lookup = Tool.make("Lookup", {
  parameters: Schema.Struct({ query: Schema.String }),
  success: Schema.String
})
const tools = Toolkit.make(Lookup)
const handlers = tools.toLayer({ Lookup: ({ query }) => Effect.succeed(`${query}: ${"data ".repeat(60)}`) })

/**
 * A scripted model: it records every prompt it receives and asks for a lookup at each call
 * until the `steps`-th, where it answers in text.
 */
const scripted = (steps: number) =>
  Effect.gen(function*() {
    const seen = yield* Ref.make<ReadonlyArray<Prompt.Prompt>>([])
    const model = yield* LanguageModel.make({
      generateText: (options) =>
        Effect.gen(function*() {
          const calls = yield* Ref.updateAndGet(seen, (all) => [...all, options.prompt])
          const n = calls.length
          const parts: Array<Response.PartEncoded> = n < steps
            ? [{ type: "tool-call", id: `call-${n}`, name: "Lookup", params: { query: `q${n}` } }]
            : [{ type: "text", text: "All done." }]
          return parts
        }),
      streamText: (options) => Stream.fromEffect(Ref.update(seen, (all) => [...all, options.prompt])).pipe(Stream.drain)
    })
    return { model, seen }
  })

const countOf = (m: Prompt.Message) => Math.ceil(PromptWindow.render(m).length / 4) + 4
const counter = TokenCounter.make(countOf, 3)
/** What the Lookup tool's definition costs with that counter. */
const lookupTokens = countOf(ToolDefinitions.message(Lookup))

const setup = (steps: number, options: Partial<WindowedLanguageModel.Options> = {}) =>
  Effect.gen(function*() {
    const { model, seen } = yield* scripted(steps)
    const context = yield* Layer.build(
      WindowedLanguageModel.layer({ contextWindow: 400, outputReserve: 100, ...options }).pipe(
        Layer.provide([Layer.succeed(LanguageModel.LanguageModel, model), counter])
      )
    )
    return { context, seen }
  })

/** The agent loop: call the model with the history, append its answer, until it stops calling tools. */
const agent = (history: Prompt.Prompt, maxSteps: number) =>
  Effect.gen(function*() {
    const toolkit = yield* tools
    let prompt = history
    for (let step = 0; step < maxSteps; step++) {
      const response = yield* LanguageModel.generateText({ prompt, toolkit })
      prompt = Prompt.concat(prompt, Prompt.fromResponseParts(response.content))
      if (response.toolCalls.length === 0) break
    }
    return prompt
  })

const start = Prompt.make([
  { role: "system", content: "You are a research agent. Use Lookup." },
  { role: "user", content: "Find everything about q." }
])

describe("WindowedLanguageModel", () => {
  it.effect("a multi-step tool loop whose history outgrows the window: no orphaned tool part, system first, a report per call", () =>
    Effect.scoped(Effect.gen(function*() {
      const { context, seen } = yield* setup(10)
      const reports = yield* PubSub.subscribe(Context.get(context, WindowedLanguageModel.WindowReports))
      const history = yield* agent(start, 12).pipe(Effect.provide(Layer.mergeAll(Layer.succeedContext(context), handlers)))
      const prompts = yield* Ref.get(seen)
      assert.strictEqual(prompts.length, 10)
      // The full history has every step; the prompts the model saw stopped growing.
      assert.isAbove(history.content.length, prompts.at(-1)!.content.length)
      for (const prompt of prompts) {
        assert.deepStrictEqual(PromptWindow.orphans(prompt), [])
        assert.strictEqual(prompt.content[0]!.role, "system")
      }
      const all = yield* PubSub.takeAll(reports)
      assert.strictEqual(all.length, 10)
      for (const [k, report] of all.entries()) {
        assert.strictEqual(report.method, "generateText")
        assert.deepStrictEqual(report.prompt.content, prompts[k]!.content)
        // The window less the output reserve, the request's overhead and the tool's definition.
        assert.strictEqual(report.toolTokens, lookupTokens)
        assert.isAtMost(report.result.totalTokens, 400 - 100 - 3 - lookupTokens)
        assert.strictEqual(report.budget.targetTokens, 297 - lookupTokens)
      }
      // Early calls fit whole; later ones leave old tool turns out, whole.
      assert.strictEqual(all[0]!.result.report.excluded.length, 0)
      const last = all.at(-1)!.result.report
      assert.isAbove(last.excluded.length, 0)
      assert.isTrue(last.excluded.every((e) => e.item.kind !== "SystemPrompt"))
      // The newest user-visible step is always there.
      assert.strictEqual(prompts.at(-1)!.content.at(-1)!.role, "tool")
    })))

  it.effect("overflow under Throw fails the call with an AiError that names the pipeline error", () =>
    Effect.gen(function*() {
      const { context, seen } = yield* setup(1)
      const error = yield* Effect.flip(
        LanguageModel.generateText({ prompt: [{ role: "system", content: "x".repeat(2000) }, { role: "user", content: "hi" }] }).pipe(
          Effect.provide(context)
        )
      )
      assert.strictEqual(error._tag, "AiError")
      assert.strictEqual(error.reason._tag, "InvalidRequestError")
      assert.strictEqual(WindowedLanguageModel.windowFailure(error), "PinnedBudgetError")
      assert.strictEqual((yield* Ref.get(seen)).length, 0)
    }).pipe(Effect.scoped))

  it.effect("a custom scorer's ScorerError is an UnknownError, not a prompt that does not fit; windowFailure names it", () =>
    Effect.gen(function*() {
      const scorer = Scorer.make("broken", () => {
        throw new Error("no score today")
      })
      const { context, seen } = yield* setup(1, { scorer })
      // Older messages than the current turn: the scorer has something to score (the newest
      // message and the turn's user message are kept without scoring, rule K2).
      const prompt = Prompt.concat(start, Prompt.make([{ role: "assistant", content: "Hi." }, { role: "user", content: "Again." }]))
      const error = yield* Effect.flip(LanguageModel.generateText({ prompt }).pipe(Effect.provide(context)))
      assert.strictEqual(error.module, WindowedLanguageModel.errorModule)
      assert.strictEqual(error.reason._tag, "UnknownError")
      assert.notInclude(error.message, "must fit the context window")
      assert.include(error.message, "no score today")
      assert.strictEqual(WindowedLanguageModel.windowFailure(error), "ScorerError")
      assert.strictEqual((yield* Ref.get(seen)).length, 0)
    }).pipe(Effect.scoped))

  it.effect("a placer that breaks its contract (a bug) is an UnknownError; windowFailure names PlacerContractError", () =>
    Effect.gen(function*() {
      const placer = Placer.fromOrder("repeats", (items) => items.map(() => 0))
      const { context } = yield* setup(1, { placer })
      const error = yield* Effect.flip(LanguageModel.generateText({ prompt: start }).pipe(Effect.provide(context)))
      assert.strictEqual(error.reason._tag, "UnknownError")
      assert.strictEqual(WindowedLanguageModel.windowFailure(error), "PlacerContractError")
    }).pipe(Effect.scoped))

  it.effect("an invalid item value (CandidateError) is an InvalidRequestError about the items, not about fitting", () =>
    Effect.gen(function*() {
      const { context } = yield* setup(1, { annotate: () => ({ priority: 0.5 }) })
      const error = yield* Effect.flip(LanguageModel.generateText({ prompt: start }).pipe(Effect.provide(context)))
      assert.strictEqual(error.reason._tag, "InvalidRequestError")
      if (error.reason._tag === "InvalidRequestError") {
        assert.notStrictEqual(error.reason.constraint, "the prompt must fit the context window")
        assert.include(error.reason.constraint, "priority")
      }
      assert.strictEqual(WindowedLanguageModel.windowFailure(error), "CandidateError")
    }).pipe(Effect.scoped))

  it.effect("windowFailure is undefined for an AiError this layer did not raise", () =>
    Effect.sync(() => {
      const other = AiError.make({ module: "Provider", method: "generateText", reason: new AiError.UnknownError({ metadata: { cupelError: "OverflowError" } }) })
      assert.isUndefined(WindowedLanguageModel.windowFailure(other))
    }))

  it.effect("CallReport.candidates counts the prompt's messages and the documents", () =>
    Effect.gen(function*() {
      const documents = [new ContextItem.ContextItem({ content: "a retrieved fact", tokens: 5, kind: "Document" })]
      const { context } = yield* setup(1, { documents })
      const report = yield* Effect.gen(function*() {
        const reports = yield* PubSub.subscribe(yield* WindowedLanguageModel.WindowReports)
        yield* LanguageModel.generateText({ prompt: start })
        return yield* PubSub.take(reports)
      }).pipe(Effect.provide(context))
      assert.strictEqual(report.candidates, start.content.length + documents.length)
      assert.strictEqual(report.candidates, report.result.report.totalCandidates)
    }).pipe(Effect.scoped))

  it.effect("streamText's prompt is fitted too", () =>
    Effect.gen(function*() {
      const { context, seen } = yield* setup(1)
      const long = Array.from({ length: 40 }, (_, k) => ({ role: "user" as const, content: `message ${k} ${"z".repeat(80)}` }))
      yield* LanguageModel.streamText({ prompt: [{ role: "system", content: "s" }, ...long] }).pipe(
        Stream.runDrain,
        Effect.provide(context)
      )
      const [prompt] = yield* Ref.get(seen)
      assert.isBelow(prompt!.content.length, 41)
      assert.strictEqual(prompt!.content[0]!.role, "system")
      const lastSent = prompt!.content.at(-1)!
      assert.strictEqual(lastSent.role === "user" ? lastSent.content[0]!.type : "", "text")
    }).pipe(Effect.scoped))

  it.effect("each call runs in a cupel.window span with the window's figures", () => {
    const { spans, tracer } = recordSpans()
    return Effect.gen(function*() {
      const { context } = yield* setup(1)
      yield* LanguageModel.generateText({ prompt: start }).pipe(Effect.provide(context))
      const span = spans.find((s) => s.name === "cupel.window")
      assert.isDefined(span)
      const attributes = Object.fromEntries(span!.attributes)
      assert.deepInclude(attributes, { "cupel.window.method": "generateText", "cupel.window.candidates": 2, "cupel.window.included": 2 })
      assert.isDefined(spans.find((s) => s.name === "cupel.pipeline"))
    }).pipe(Effect.scoped, Effect.withTracer(tracer))
  })

  it.effect("verbosity: the layer's option is the pipeline's cupel.verbosity, in both modes; hierarchy case: the spans between cupel.window and cupel.pipeline are as docs/ai.md says", () => {
    const { spans, tracer } = recordSpans()
    const chain = (span: Tracer.NativeSpan): Array<string> => {
      const names: Array<string> = []
      let parent = span.parent
      while (parent._tag === "Some") {
        const id = parent.value.spanId
        const found = spans.find((s) => s.spanId === id)
        if (found === undefined) break
        names.push(found.name)
        parent = found.parent
      }
      return names
    }
    return Effect.gen(function*() {
      const chains: Array<Array<string>> = []
      for (const mode of ["stable", "per-call"] as const) {
        const from = spans.length
        const { context } = yield* setup(1, { mode, verbosity: "Full" })
        yield* LanguageModel.generateText({ prompt: start }).pipe(Effect.provide(context))
        const root = spans.slice(from).find((s) => s.name === "cupel.pipeline")!
        assert.strictEqual(root.attributes.get("cupel.verbosity"), "Full")
        const place = spans.slice(from).find((s) => s.name === "cupel.stage.place")!
        assert.isAbove(place.events.filter(([name]) => name === "cupel.item.included").length, 0)
        chains.push(chain(root))
      }
      assert.deepStrictEqual(chains, [
        ["cupel.stable_window.fit", "cupel.window"],
        ["cupel.prompt_window.fit", "cupel.window"]
      ])
    }).pipe(Effect.scoped, Effect.withTracer(tracer))
  })

  it.effect("tool definitions: counted once per tool, taken off each call's target; countTools: false leaves the target whole", () =>
    Effect.gen(function*() {
      const counted = yield* Ref.make(0)
      const counting = TokenCounter.make((m) => {
        if (m.role === "system" && PromptWindow.render(m).includes("\"parameters\"")) Effect.runSync(Ref.update(counted, (n) => n + 1))
        return countOf(m)
      }, 3)
      for (const countTools of [true, false]) {
        const { model } = yield* scripted(1)
        const context = yield* Layer.build(
          WindowedLanguageModel.layer({ contextWindow: 400, outputReserve: 100, countTools }).pipe(
            Layer.provide([Layer.succeed(LanguageModel.LanguageModel, model), counting])
          )
        )
        const reports = yield* Effect.gen(function*() {
          const subscription = yield* PubSub.subscribe(yield* WindowedLanguageModel.WindowReports)
          // The Toolkit itself and the toolkit with handlers are both read.
          yield* LanguageModel.generateText({ prompt: start, toolkit: tools })
          yield* LanguageModel.generateText({ prompt: start, toolkit: yield* tools })
          yield* LanguageModel.generateText({ prompt: start })
          return yield* PubSub.takeAll(subscription)
        }).pipe(Effect.provide(Layer.mergeAll(Layer.succeedContext(context), handlers)))
        const expected = countTools ? lookupTokens : 0
        assert.deepStrictEqual(reports.map((r) => r.toolTokens), [expected, expected, 0])
        assert.deepStrictEqual(reports.map((r) => r.budget.targetTokens), [297 - expected, 297 - expected, 297])
      }
      // The definition was counted on the first call only, and never with countTools: false.
      assert.strictEqual(yield* Ref.get(counted), 1)
    }).pipe(Effect.scoped))

  it.effect("tool definitions larger than the window fail the call with an InvalidRequestError on the toolkit", () =>
    Effect.gen(function*() {
      const Huge = Tool.make("Huge", {
        description: "d".repeat(2000),
        parameters: Schema.Struct({ query: Schema.String }),
        success: Schema.String
      })
      const { context, seen } = yield* setup(1)
      const error = yield* Effect.flip(
        LanguageModel.generateText({ prompt: start, toolkit: Toolkit.make(Huge) }).pipe(
          Effect.provide(Layer.mergeAll(Layer.succeedContext(context), Toolkit.make(Huge).toLayer({ Huge: () => Effect.succeed("") })))
        )
      )
      assert.strictEqual(error.reason._tag, "InvalidRequestError")
      if (error.reason._tag === "InvalidRequestError") assert.strictEqual(error.reason.parameter, "toolkit")
      assert.include(error.message, "more than the 297 the window leaves for the prompt")
      assert.strictEqual(WindowedLanguageModel.windowFailure(error), "ToolDefinitions")
      assert.strictEqual((yield* Ref.get(seen)).length, 0)
    }).pipe(Effect.scoped))

  it.effect("a tool count that is not a whole number fails the call with an InvalidRequestError on the toolkit, naming the tool", () =>
    Effect.gen(function*() {
      const { model, seen } = yield* scripted(1)
      const fractional = TokenCounter.make((m) => (PromptWindow.render(m).includes("\"parameters\"") ? 1.5 : countOf(m)), 3)
      const context = yield* Layer.build(
        WindowedLanguageModel.layer({ contextWindow: 400, outputReserve: 100 }).pipe(
          Layer.provide([Layer.succeed(LanguageModel.LanguageModel, model), fractional])
        )
      )
      const error = yield* Effect.flip(
        LanguageModel.generateText({ prompt: start, toolkit: tools }).pipe(Effect.provide(Layer.mergeAll(Layer.succeedContext(context), handlers)))
      )
      if (error.reason._tag !== "InvalidRequestError") return assert.fail(error.message)
      assert.strictEqual(error.reason.parameter, "toolkit")
      assert.include(error.message, "gave 1.5 for the tool \"Lookup\"")
      assert.strictEqual((yield* Ref.get(seen)).length, 0)
    }).pipe(Effect.scoped))

  it.effect("generateObject's prompt is fitted too, with its tools counted", () =>
    Effect.gen(function*() {
      const seen = yield* Ref.make<ReadonlyArray<Prompt.Prompt>>([])
      const model = yield* LanguageModel.make({
        generateText: (options) =>
          Effect.as(Ref.update(seen, (all) => [...all, options.prompt]), [{ type: "text", text: "{\"answer\":\"yes\"}" }]),
        streamText: () => Stream.empty
      })
      const context = yield* Layer.build(
        WindowedLanguageModel.layer({ contextWindow: 400, outputReserve: 100 }).pipe(
          Layer.provide([Layer.succeed(LanguageModel.LanguageModel, model), counter])
        )
      )
      const long = Array.from({ length: 40 }, (_, k) => ({ role: "user" as const, content: `message ${k} ${"z".repeat(80)}` }))
      const { reply, report } = yield* Effect.gen(function*() {
        const subscription = yield* PubSub.subscribe(yield* WindowedLanguageModel.WindowReports)
        const reply = yield* LanguageModel.generateObject({
          prompt: [{ role: "system", content: "s" }, ...long],
          schema: Schema.Struct({ answer: Schema.String }),
          toolkit: tools
        })
        return { reply, report: yield* PubSub.take(subscription) }
      }).pipe(Effect.provide(Layer.mergeAll(Layer.succeedContext(context), handlers)))
      assert.deepStrictEqual(reply.value, { answer: "yes" })
      const [prompt] = yield* Ref.get(seen)
      assert.isBelow(prompt!.content.length, 41)
      assert.strictEqual(prompt!.content[0]!.role, "system")
      assert.strictEqual(report.method, "generateObject")
      assert.strictEqual(report.toolTokens, lookupTokens)
      assert.isAtMost(report.result.totalTokens, 297 - lookupTokens)
    }).pipe(Effect.scoped))
})

describe("WindowedLanguageModel — across calls", () => {
  const usage = (total: number, cacheRead: number) => ({
    inputTokens: { uncached: total - cacheRead, total, cacheRead, cacheWrite: 0 },
    outputTokens: { total: 5, text: 5, reasoning: undefined }
  })
  /** A model that answers in text and reports `usage`, and streams text then a finish part. */
  const reporting = (fail: boolean) =>
    LanguageModel.make({
      generateText: () =>
        Effect.succeed<Array<Response.PartEncoded>>([
          { type: "text", text: "ok" },
          { type: "finish", reason: "stop", usage: usage(120, 100) }
        ]),
      streamText: () =>
        fail
          ? Stream.fail(new AiError.AiError({ module: "test", method: "streamText", reason: new AiError.UnknownError({}) }))
          : Stream.make<Array<Response.StreamPartEncoded>>(
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: "ok" },
            { type: "text-end", id: "t" },
            { type: "finish", reason: "stop", usage: usage(130, 110) }
          )
    })
  const build = (fail: boolean, options: Partial<WindowedLanguageModel.Options> = {}) =>
    Effect.gen(function*() {
      const model = yield* reporting(fail)
      return yield* Layer.build(
        WindowedLanguageModel.layer({ contextWindow: 4_000, outputReserve: 100, ...options }).pipe(
          Layer.provide([Layer.succeed(LanguageModel.LanguageModel, model), counter])
        )
      )
    })
  const history = (n: number) =>
    Prompt.make([
      { role: "system", content: "be brief" },
      ...Array.from({ length: n }, (_, i) => ({ role: i % 2 === 0 ? "user" as const : "assistant" as const, content: `turn ${i}` }))
    ])

  it.effect("S10 the provider's reported usage stands beside the prediction in the call's report", () =>
    Effect.gen(function*() {
      const context = yield* build(false)
      const reports = yield* PubSub.subscribe(Context.get(context, WindowedLanguageModel.WindowReports))
      yield* LanguageModel.generateText({ prompt: history(1) }).pipe(Effect.provide(context))
      yield* LanguageModel.generateText({ prompt: history(3) }).pipe(Effect.provide(context))
      const [first, second] = yield* PubSub.takeAll(reports)
      assert.strictEqual(first!.mode, "stable")
      assert.strictEqual(first!.outcome, "answered")
      assert.deepStrictEqual(second!.reported, { total: 120, cacheRead: 100, cacheWrite: 0, uncached: 20 })
      assert.strictEqual(second!.change?.action, "append")
      assert.strictEqual(second!.committed, "written")
      assert.isDefined(second!.prediction)
      assert.strictEqual(second!.conversation, first!.conversation)
    }).pipe(Effect.scoped))

  it.effect("S6 streamText: the state is written when the first part arrives, and the report has the finish part's usage", () =>
    Effect.gen(function*() {
      const context = yield* build(false)
      const reports = yield* PubSub.subscribe(Context.get(context, WindowedLanguageModel.WindowReports))
      yield* LanguageModel.streamText({ prompt: history(1) }).pipe(Stream.runDrain, Effect.provide(context))
      yield* LanguageModel.streamText({ prompt: history(3) }).pipe(Stream.runDrain, Effect.provide(context))
      const [first, second] = yield* PubSub.takeAll(reports)
      assert.strictEqual(first!.committed, "written")
      assert.strictEqual(second!.change?.action, "append")
      assert.deepStrictEqual(second!.reported, { total: 130, cacheRead: 110, cacheWrite: 0, uncached: 20 })
    }).pipe(Effect.scoped))

  it.effect("S6 streamText: a stream that fails before its first part leaves the state as it was", () =>
    Effect.gen(function*() {
      const failing = yield* build(true)
      const reports = yield* PubSub.subscribe(Context.get(failing, WindowedLanguageModel.WindowReports))
      yield* LanguageModel.streamText({ prompt: history(1) }).pipe(Stream.runDrain, Effect.provide(failing), Effect.ignore)
      yield* LanguageModel.streamText({ prompt: history(3) }).pipe(Stream.runDrain, Effect.provide(failing), Effect.ignore)
      const [first, second] = yield* PubSub.takeAll(reports)
      assert.strictEqual(first!.outcome, "failed")
      assert.isUndefined(first!.committed)
      assert.strictEqual(second!.change?.fresh, "new")
    }).pipe(Effect.scoped))

  it.effect("per-call mode remembers nothing: no conversation, change or prediction", () =>
    Effect.gen(function*() {
      const context = yield* build(false, { mode: "per-call" })
      const reports = yield* PubSub.subscribe(Context.get(context, WindowedLanguageModel.WindowReports))
      yield* LanguageModel.generateText({ prompt: history(3) }).pipe(Effect.provide(context))
      const [report] = yield* PubSub.takeAll(reports)
      assert.strictEqual(report!.mode, "per-call")
      assert.isUndefined(report!.conversation)
      assert.isUndefined(report!.change)
      assert.isUndefined(report!.prediction)
      assert.isUndefined(report!.committed)
      assert.deepStrictEqual(report!.reported, { total: 120, cacheRead: 100, cacheWrite: 0, uncached: 20 })
    }).pipe(Effect.scoped))
})
