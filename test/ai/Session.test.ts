/**
 * The session core behind every front door (issue 25 items 1 and 7): one rule for tool
 * definitions, the options checked when a door is made or called, and a session swapped in
 * through `WindowedLanguageModel.layerFromSession`.
 */
import { assert, describe, it } from "@effect/vitest"
import { generateText, type ModelMessage, wrapLanguageModel } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import { Context, Effect, Layer, PubSub, Schema, Stream } from "effect"
import { LanguageModel, Prompt, Tool, Toolkit } from "effect/ai"
import * as AiSdk from "../../src/adapters/AiSdk.ts"
import * as Session from "../../src/ai/Session.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import * as ToolDefinitions from "../../src/ai/ToolDefinitions.ts"
import * as WindowedLanguageModel from "../../src/ai/WindowedLanguageModel.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import { trim } from "../../src/plain/Trim.ts"
import { doors, messageTokens } from "../support/doors.ts"
import { toModelMessages, toProviderPrompt } from "../support/sessionFormats.ts"
import type * as Sessions from "../support/sessions.ts"
import { textModel } from "../support/textModel.ts"

const countOf = (m: Prompt.Message) => Math.ceil(PromptWindow.render(m).length / 4) + 4
const counter = TokenCounter.make(countOf, 3)

/** What a thrown (or rejected) value says: its tag, path/field and message. */
const describe_ = (e: unknown) => ({
  tag: Reflect.get(Object(e), "_tag"),
  path: Reflect.get(Object(e), "path") ?? Reflect.get(Object(e), "field"),
  message: e instanceof Error ? e.message : String(e)
})
const thrown = (f: () => unknown) => {
  try {
    f()
  } catch (e) {
    return describe_(e)
  }
  return undefined
}

describe("Session: options checked when a door is made (item 7)", () => {
  it("AiSdk.middleware throws an InvalidConfigError when made: contextWindow 0, NaN, mode \"sometimes\"", () => {
    for (const [options, path] of [
      [{ contextWindow: 0, outputReserve: 0 }, "contextWindow"],
      [{ contextWindow: Number.NaN, outputReserve: 0 }, "contextWindow"],
      [{ contextWindow: 1_000, outputReserve: 0, mode: "sometimes" }, "mode"]
    ] as const) {
      const error = thrown(() => Reflect.apply(AiSdk.middleware, undefined, [options]))
      assert.strictEqual(error?.tag, "InvalidConfigError")
      assert.strictEqual(error?.path, path)
      assert.notInclude(error?.message ?? "", "maxTokens")
    }
    assert.include(thrown(() => Reflect.apply(AiSdk.middleware, undefined, [{ contextWindow: Number.NaN, outputReserve: 0 }]))?.message ?? "", "(got NaN)")
  })

  it("a value is printed as JSON: (got \"1000\") for a string, never [object Object]", () => {
    const string = thrown(() => Reflect.apply(AiSdk.middleware, undefined, [{ contextWindow: "1000", outputReserve: 0 }]))
    assert.include(string?.message ?? "", "(got \"1000\")")
    const object = thrown(() => Reflect.apply(AiSdk.prepareStep, undefined, [{ contextWindow: { n: 1 }, outputReserve: 0 }]))
    assert.include(object?.message ?? "", "(got {\"n\":1})")
    assert.notInclude(object?.message ?? "", "[object Object]")
  })

  it("an unknown option is refused with a suggestion: outputReserv → did you mean outputReserve?", () => {
    const error = thrown(() => Reflect.apply(AiSdk.middleware, undefined, [{ contextWindow: 1_000, outputReserv: 10 }]))
    assert.strictEqual(error?.tag, "InvalidConfigError")
    assert.strictEqual(error?.path, "outputReserv")
    assert.include(error?.message ?? "", "did you mean outputReserve?")
  })

  it.effect("WindowedLanguageModel.layer fails to build with the same error, naming the option", () =>
    Effect.gen(function*() {
      const model = yield* LanguageModel.make({ generateText: () => Effect.succeed([]), streamText: () => Stream.empty })
      const build = (options: WindowedLanguageModel.Options) =>
        Effect.flip(Layer.build(WindowedLanguageModel.layer(options).pipe(
          Layer.provide([Layer.succeed(LanguageModel.LanguageModel, model), counter])
        )))
      const unknown = yield* build(JSON.parse(`{ "contextWindow": 1000, "outputReserve": 10, "lowWatermrk": 0.5 }`))
      assert.strictEqual(unknown._tag, "InvalidConfigError")
      assert.include(unknown.message, "did you mean lowWatermark?")
      const mode = yield* build(JSON.parse(`{ "contextWindow": 1000, "outputReserve": 10, "mode": "sometimes" }`))
      assert.include(mode.message, "mode must be \"stable\" or \"per-call\" (got \"sometimes\")")
      const noRoom = yield* build({ contextWindow: 103, outputReserve: 100 })
      assert.strictEqual(noRoom._tag, "InvalidConfigError")
      if (noRoom._tag === "InvalidConfigError") assert.strictEqual(noRoom.path, "contextWindow")
    }).pipe(Effect.scoped))

  it("trim rejects an unknown option with a suggestion and a window that leaves the messages no room", async () => {
    const misspelt = await Reflect.apply(trim, undefined, [[{ role: "user", content: "hi" }], { contextWindow: 1_000, outputReserv: 10 }])
      .then(() => undefined, describe_)
    assert.strictEqual(misspelt?.tag, "InvalidInput")
    assert.include(misspelt?.message ?? "", "did you mean outputReserve?")
    const string = await Reflect.apply(trim, undefined, [[], { contextWindow: "1000" }]).then(() => undefined, describe_)
    assert.include(string?.message ?? "", "(got \"1000\")")
    // o200k's request costs 3 tokens: a window of 3 leaves the messages none.
    const none = await trim([{ role: "user", content: "hello" }], { contextWindow: 3 }).then(() => undefined, describe_)
    assert.strictEqual(none?.tag, "InvalidInput")
    assert.strictEqual(none?.path, "contextWindow")
  })

  it("transformParams with a malformed prompt rejects with an AiError on prompt, not a TypeError", async () => {
    const middleware = AiSdk.middleware({ contextWindow: 1_000, outputReserve: 0, counter: (t) => t.length })
    const error = await Promise.resolve()
      .then(() =>
        middleware.transformParams!({
          type: "generate",
          model: new MockLanguageModelV4(),
          params: JSON.parse(`{ "prompt": [{ "role": "user", "content": 5 }] }`)
        })
      )
      .then(() => undefined, (e: unknown) => e)
    assert.notInstanceOf(error, TypeError)
    assert.strictEqual(Reflect.get(Object(error), "_tag"), "AiError")
    assert.include(error instanceof Error ? error.message : "", "prompt")
  })
})

describe("Session: one rule for tool definitions", () => {
  it("AiSdk: tool definitions larger than the room fail the call with ToolDefinitionsError (no longer a target clamped to 0)", async () => {
    const middleware = AiSdk.middleware({ contextWindow: 200, outputReserve: 50, counter: (t) => Math.ceil(t.length / 4) })
    const error = await middleware.transformParams!({
      type: "generate",
      model: new MockLanguageModelV4(),
      params: {
        prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
        tools: [{ type: "function", name: "huge", description: "d".repeat(2_000), inputSchema: { type: "object" } }]
      }
    }).then(() => undefined, (e: unknown) => e)
    assert.strictEqual(Reflect.get(Object(error), "_tag"), "ToolDefinitionsError")
    assert.include(error instanceof Error ? error.message : "", "more than the 147 the window leaves for the prompt")
  })

  it("AiSdk: a tool count that is not a whole number fails the call, naming the tool, as the effect/ai layer does", async () => {
    const middleware = AiSdk.middleware({
      contextWindow: 1_000,
      outputReserve: 50,
      counter: (t) => (t.includes("\"name\":\"odd\"") ? 1.5 : 1)
    })
    const error = await middleware.transformParams!({
      type: "generate",
      model: new MockLanguageModelV4(),
      params: {
        prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
        tools: [{ type: "function", name: "odd", description: "d", inputSchema: { type: "object" } }]
      }
    }).then(() => undefined, (e: unknown) => e)
    assert.strictEqual(Reflect.get(Object(error), "_tag"), "ToolDefinitionsError")
    assert.include(error instanceof Error ? error.message : "", "for the tool \"odd\"")
  })

  it("a counter function that throws on a tool's definition: ToolDefinitionsError (threw) naming the tool, in the layer and the middleware", async () => {
    const isTool = (text: string) => text.includes("\"name\":\"lookup\"")
    const middleware = AiSdk.middleware({
      contextWindow: 1_000,
      outputReserve: 50,
      counter: (t) => {
        if (isTool(t)) throw new RangeError("no count")
        return 1
      }
    })
    const error = await middleware.transformParams!({
      type: "generate",
      model: new MockLanguageModelV4(),
      params: {
        prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
        tools: [{ type: "function", name: "lookup", description: "d", inputSchema: { type: "object" } }]
      }
    }).then(() => undefined, (e: unknown) => e)
    assert.strictEqual(Reflect.get(Object(error), "_tag"), "ToolDefinitionsError")
    assert.strictEqual(Reflect.get(Object(error), "problem"), "threw")
    assert.strictEqual(error instanceof Error ? error.message : "", "the token counter threw on the tool \"lookup\": RangeError: no count")
    const layerError = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const model = yield* LanguageModel.make({ generateText: () => Effect.succeed([]), streamText: () => Stream.empty })
      const context = yield* Layer.build(WindowedLanguageModel.layer({ contextWindow: 1_000, outputReserve: 50, mode: "per-call" }).pipe(
        Layer.provide([
          Layer.succeed(LanguageModel.LanguageModel, model),
          TokenCounter.make((m) => {
            if (m.role === "system" && isTool(m.content)) throw new RangeError("no count")
            return 1
          })
        ])
      ))
      const Lookup = Tool.make("lookup", { description: "d", parameters: Schema.Struct({ q: Schema.String }), success: Schema.String })
      const toolkit = Toolkit.make(Lookup)
      return yield* Effect.flip(LanguageModel.generateText({ prompt: "hi", toolkit }).pipe(
        Effect.provide(Layer.mergeAll(Layer.succeedContext(context), toolkit.toLayer({ lookup: () => Effect.succeed("") })))
      ))
    })))
    assert.strictEqual(WindowedLanguageModel.windowFailure(layerError), "ToolDefinitions")
    assert.include(layerError.message, "the token counter threw on the tool \"lookup\"")
  })

  it("the two doors count the same tool as the same text", () => {
    const Lookup = Tool.make("Lookup", {
      description: "Looks a query up.",
      parameters: Schema.Struct({ query: Schema.String }),
      success: Schema.String
    })
    const definition = ToolDefinitions.definitionOf(Lookup)
    assert.strictEqual(
      ToolDefinitions.text(Lookup),
      ToolDefinitions.textOf({ name: "Lookup", description: "Looks a query up.", parameters: definition.parameters })
    )
    assert.strictEqual(ToolDefinitions.textOf({ name: "web_search" }), "{\"name\":\"web_search\"}")
  })
})

describe("Session: a session swapped in under the effect/ai door", () => {
  it.effect("layerFromSession wraps the model with the Session in context; its reports are the core's", () =>
    Effect.gen(function*() {
      const model = yield* LanguageModel.make({
        generateText: () => Effect.succeed([{ type: "text", text: "ok" }]),
        streamText: () => Stream.empty
      })
      const context = yield* Layer.build(WindowedLanguageModel.layerFromSession.pipe(
        Layer.provide(Session.layerPerCall({ contextWindow: 400, outputReserve: 100 })),
        Layer.provide([Layer.succeed(LanguageModel.LanguageModel, model), counter])
      ))
      const reports = yield* PubSub.subscribe(Context.get(context, WindowedLanguageModel.WindowReports))
      yield* LanguageModel.generateText({ prompt: [{ role: "user", content: "hi" }], toolkit: Toolkit.make() }).pipe(
        Effect.provide(Layer.succeedContext(context))
      )
      const [report] = yield* PubSub.takeAll(reports)
      assert.strictEqual(report!.mode, "per-call")
      assert.strictEqual(report!.budget.targetTokens, 400 - 100 - 3)
      assert.strictEqual(report!.outcome, "answered")
    }).pipe(Effect.scoped))
})

describe("Session: a counter function that throws is a CandidateError on that message, in every door", () => {
  const prompt = [
    Prompt.systemMessage({ content: "sys" }),
    Prompt.userMessage({ content: [Prompt.textPart({ text: "hi" })] }),
    Prompt.assistantMessage({ content: [Prompt.textPart({ text: "boom" })] }),
    Prompt.userMessage({ content: [Prompt.textPart({ text: "again" })] })
  ]
  const boom = (text: string) => {
    if (text.includes("boom")) throw new RangeError("no count")
    return Math.ceil(text.length / 4)
  }
  const fields = (e: unknown) => ({
    tag: Reflect.get(Object(e), "_tag"),
    index: Reflect.get(Object(e), "index"),
    field: Reflect.get(Object(e), "field")
  })

  it("AiSdk.middleware and prepareStep reject with it: index 2, field count", async () => {
    const options = { contextWindow: 1_000, outputReserve: 0, mode: "per-call" as const, counter: boom }
    const middleware = AiSdk.middleware(options)
    const error = await middleware.transformParams!({
      type: "generate",
      model: new MockLanguageModelV4(),
      params: { prompt: toProviderPrompt(prompt) }
    }).then(() => undefined, (e: unknown) => e)
    assert.deepStrictEqual(fields(error), { tag: "CandidateError", index: 2, field: "count" })
    assert.include(error instanceof Error ? error.message : "", "RangeError: no count")
    const step = await AiSdk.prepareStep(options)({ messages: toModelMessages(prompt) }).then(() => undefined, (e: unknown) => e)
    assert.deepStrictEqual(fields(step), { tag: "CandidateError", index: 2, field: "count" })
  })

  it.effect("WindowedLanguageModel: an AiError whose InvalidRequestError names it (windowFailure: CandidateError)", () =>
    Effect.gen(function*() {
      const model = yield* LanguageModel.make({ generateText: () => Effect.succeed([]), streamText: () => Stream.empty })
      const context = yield* Layer.build(WindowedLanguageModel.layer({ contextWindow: 1_000, outputReserve: 0, mode: "per-call" }).pipe(
        Layer.provide([Layer.succeed(LanguageModel.LanguageModel, model), TokenCounter.make((m) => boom(PromptWindow.render(m)))])
      ))
      const error = yield* Effect.flip(LanguageModel.generateText({ prompt: Prompt.fromMessages(prompt) }).pipe(
        Effect.provide(Layer.succeedContext(context))
      ))
      assert.strictEqual(WindowedLanguageModel.windowFailure(error), "CandidateError")
      assert.strictEqual(error.reason._tag, "InvalidRequestError")
      assert.include(error.message, "message 2: count threw: RangeError: no count")
    }).pipe(Effect.scoped))
})

describe("Session: a message with no parts", () => {
  /** system, user, a call, a tool message with no parts (its approval response stripped), the result, a user message. */
  const session = (): Sessions.Session => {
    const call = Prompt.toolCallPart({ id: "c1", name: "rm", params: { path: "a.txt" }, providerExecuted: false })
    return {
      shape: "tool-heavy",
      seed: 0,
      start: [
        Prompt.systemMessage({ content: "You are an agent." }),
        Prompt.userMessage({ content: [Prompt.textPart({ text: "delete a.txt" })] }),
        Prompt.assistantMessage({ content: [call] }),
        Prompt.toolMessage({ content: [] }),
        Prompt.toolMessage({
          content: [Prompt.toolResultPart({ id: "c1", name: "rm", isFailure: false, result: "deleted", providerExecuted: false })]
        }),
        Prompt.userMessage({ content: [Prompt.textPart({ text: "thanks" })] })
      ],
      steps: [{ response: Prompt.assistantMessage({ content: [Prompt.textPart({ text: "…" })] }), next: [], references: [] }]
    }
  }

  it("is counted as what the counter says of its rendering ([tool]) and stands on its own, the same in every door", async () => {
    const empty = session().start[3]!
    assert.strictEqual(PromptWindow.render(empty), "[tool]")
    for (const contextWindow of [4_000, 30]) {
      const settings = { contextWindow, outputReserve: 0, mode: "per-call" as const }
      const outcomes = await Promise.all(
        (["layer", "middleware", "prepareStep", "trimModelMessages"] as const).map((name) => doors[name](session(), settings))
      )
      const [layer, ...others] = outcomes.map((o) => o[0]!)
      for (const other of others) assert.deepStrictEqual(other, layer)
      assert(layer?._tag === "Window")
      // Sent or not, by the room, whether its neighbours are: it answers no call.
      assert.include(layer.sent, 3)
      const start = session().start
      assert.strictEqual(layer.tokens, layer.sent.reduce((sum, i) => sum + messageTokens(start[i]!), 0))
      if (contextWindow === 30) assert.deepStrictEqual(layer.dropped, [2, 4])
    }
  })

  it("generateText never hands the middleware one: the SDK merges an approval-only tool message into the next, or drops it", async () => {
    const reports: Array<AiSdk.Report> = []
    const provider = textModel("ok")
    const model = wrapLanguageModel({
      model: provider,
      middleware: AiSdk.middleware({ contextWindow: 4_000, outputReserve: 0, mode: "per-call", counter: (t) => t.length, onReport: (r) => void reports.push(r) })
    })
    const messages: Array<ModelMessage> = [
      { role: "user", content: "delete a.txt" },
      {
        role: "assistant",
        content: [
          { type: "tool-call", toolCallId: "c1", toolName: "rm", input: { path: "a.txt" } },
          { type: "tool-approval-request", approvalId: "a1", toolCallId: "c1" }
        ]
      },
      { role: "tool", content: [{ type: "tool-approval-response", approvalId: "a1", approved: true }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "rm", output: { type: "text", value: "deleted" } }] },
      { role: "user", content: "thanks" }
    ]
    await generateText({ model, instructions: "You are an agent.", messages })
    const sent = reports[0]!.prompt
    assert.deepStrictEqual(sent.map((m) => m.role), ["system", "user", "assistant", "tool", "user"])
    assert.isTrue(sent.every((m) => typeof m.content === "string" || m.content.length > 0))
  })
})
