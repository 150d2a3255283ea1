/**
 * AiSdkLanguageModel through the AI SDK's mock model (ai/test `MockLanguageModelV4`): each
 * mapping of docs/ai.md's "A real model on Effect 4.1" both ways, and each error reason.
 */
import { assert, describe, it } from "@effect/vitest"
import { APICallError, InvalidResponseDataError, LoadAPIKeyError } from "ai"
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test"
import { Duration, Effect, Fiber, Schema, Stream } from "effect"
import { AiError, LanguageModel, Prompt, Tool, Toolkit } from "effect/ai"
import * as fc from "fast-check"
import * as AiSdkLanguageModel from "../../src/adapters/AiSdkLanguageModel.ts"

type GenerateResult = Awaited<ReturnType<AiSdkLanguageModel.ProviderModel["doGenerate"]>>
type Usage = GenerateResult["usage"]

const usage = (overrides: Partial<Usage["inputTokens"]> = {}): Usage => ({
  inputTokens: { total: 1200, noCache: 200, cacheRead: 900, cacheWrite: 100, ...overrides },
  outputTokens: { total: 30, text: 20, reasoning: 10 }
})

const answer = (content: GenerateResult["content"], extra: Partial<GenerateResult> = {}): GenerateResult => ({
  content,
  finishReason: { unified: "stop", raw: "end_turn" },
  usage: usage(),
  warnings: [],
  ...extra
})

const mockOf = (result: GenerateResult) => new MockLanguageModelV4({ doGenerate: async () => result })

const Lookup = Tool.make("Lookup", {
  description: "Look a word up",
  parameters: Schema.Struct({ word: Schema.String }),
  success: Schema.String
})
const Other = Tool.make("Other", { parameters: Schema.Struct({}), success: Schema.String })
const tools = Toolkit.make(Lookup, Other)
const handlers = tools.toLayer({ Lookup: ({ word }) => Effect.succeed(`${word}!`), Other: () => Effect.succeed("other") })

describe("AiSdkLanguageModel: the prompt, effect/ai -> AI SDK", () => {
  it("system, user text and files, with message and part options as provider options", () => {
    const bytes = new Uint8Array([1, 2, 3])
    const [system, user] = Prompt.make([
      { role: "system", content: "be brief", options: { anthropic: { cacheControl: { type: "ephemeral" } } } },
      {
        role: "user",
        content: [
          { type: "text", text: "look", options: { openai: { detail: "x" } } },
          { type: "file", mediaType: "image/png", data: bytes, fileName: "a.png" },
          { type: "file", mediaType: "image/png", data: new URL("https://example.com/a.png") },
          { type: "file", mediaType: "application/pdf", data: "https://example.com/a.pdf" },
          { type: "file", mediaType: "image/png", data: "iVBORw0KGgo=" }
        ]
      }
    ]).content
    assert.deepStrictEqual(AiSdkLanguageModel.toProviderMessage(system!), {
      role: "system",
      content: "be brief",
      providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } }
    })
    assert.deepStrictEqual(AiSdkLanguageModel.toProviderMessage(user!), {
      role: "user",
      content: [
        { type: "text", text: "look", providerOptions: { openai: { detail: "x" } } },
        { type: "file", mediaType: "image/png", filename: "a.png", data: { type: "data", data: bytes } },
        { type: "file", mediaType: "image/png", data: { type: "url", url: new URL("https://example.com/a.png") } },
        { type: "file", mediaType: "application/pdf", data: { type: "url", url: new URL("https://example.com/a.pdf") } },
        { type: "file", mediaType: "image/png", data: { type: "data", data: "iVBORw0KGgo=" } }
      ]
    })
  })

  it("assistant text, reasoning with its signature, tool calls; approval requests left out", () => {
    const [assistant] = Prompt.make([{
      role: "assistant",
      content: [
        { type: "reasoning", text: "think", options: { anthropic: { signature: "sig" } } },
        { type: "text", text: "calling" },
        { type: "tool-call", id: "c1", name: "Lookup", params: { word: "cupel" }, providerExecuted: false },
        { type: "tool-approval-request", approvalId: "a1", toolCallId: "c1" }
      ]
    }]).content
    assert.deepStrictEqual(AiSdkLanguageModel.toProviderMessage(assistant!), {
      role: "assistant",
      content: [
        { type: "reasoning", text: "think", providerOptions: { anthropic: { signature: "sig" } } },
        { type: "text", text: "calling" },
        { type: "tool-call", toolCallId: "c1", toolName: "Lookup", input: { word: "cupel" } }
      ]
    })
  })

  it("tool results: a string as text, a value as json, failures as error outputs, modelOutput as content; approval responses", () => {
    const [tool] = Prompt.make([{
      role: "tool",
      content: [
        { type: "tool-result", id: "c1", name: "Lookup", result: "found", isFailure: false },
        { type: "tool-result", id: "c2", name: "Lookup", result: { n: 1 }, isFailure: false },
        { type: "tool-result", id: "c3", name: "Lookup", result: "boom", isFailure: true },
        { type: "tool-result", id: "c4", name: "Lookup", result: { code: 7 }, isFailure: true },
        {
          type: "tool-result",
          id: "c5",
          name: "Lookup",
          result: "x",
          isFailure: false,
          modelOutput: [{ type: "text", text: "seen" }]
        },
        { type: "tool-approval-response", approvalId: "a1", approved: false, reason: "no" }
      ]
    }]).content
    const converted = AiSdkLanguageModel.toProviderMessage(tool!)
    if (converted.role !== "tool") return assert.fail(converted.role)
    assert.deepStrictEqual(converted.content.map((p) => (p.type === "tool-result" ? p.output : p)), [
      { type: "text", value: "found" },
      { type: "json", value: { n: 1 } },
      { type: "error-text", value: "boom" },
      { type: "error-json", value: { code: 7 } },
      { type: "content", value: [{ type: "text", text: "seen" }] },
      { type: "tool-approval-response", approvalId: "a1", approved: false, reason: "no" }
    ])
  })

  it("property: every text message keeps its role, its texts and its order", () => {
    const message = fc.oneof(
      fc.string().map((text) => ({ role: "system" as const, content: text })),
      fc.array(fc.string(), { minLength: 1, maxLength: 3 }).map((texts) => ({
        role: "user" as const,
        content: texts.map((text) => ({ type: "text" as const, text }))
      })),
      fc.array(fc.string(), { minLength: 1, maxLength: 3 }).map((texts) => ({
        role: "assistant" as const,
        content: texts.map((text) => ({ type: "text" as const, text }))
      }))
    )
    fc.assert(
      fc.property(fc.array(message, { maxLength: 8 }), (messages) => {
        const converted = Prompt.make(messages).content.map(AiSdkLanguageModel.toProviderMessage)
        const texts = (m: { readonly role: string; readonly content: unknown }) =>
          typeof m.content === "string"
            ? [m.content]
            : Array.isArray(m.content)
            ? m.content.flatMap((p: unknown) => (typeof p === "object" && p !== null && "text" in p && typeof p.text === "string" ? [p.text] : []))
            : []
        assert.deepStrictEqual(converted.map((m) => [m.role, texts(m)]), messages.map((m) => [m.role, texts(m)]))
      }),
      { seed: 29, numRuns: 200 }
    )
  })
})

describe("AiSdkLanguageModel: tools, tool choice, response format", () => {
  it.effect("the toolkit's tools as function tools with their JSON Schema and description", () =>
    Effect.gen(function*() {
      const model = mockOf(answer([{ type: "text", text: "ok" }]))
      const toolkit = yield* tools
      yield* LanguageModel.generateText({ prompt: "hi", toolkit }).pipe(Effect.provide(AiSdkLanguageModel.layer(model)))
      const call = model.doGenerateCalls[0]!
      assert.deepStrictEqual(call.tools?.map((t) => t.name), ["Lookup", "Other"])
      const lookup = call.tools![0]!
      assert.strictEqual(lookup.type, "function")
      if (lookup.type !== "function") return
      assert.strictEqual(lookup.description, "Look a word up")
      assert.deepInclude(lookup.inputSchema, { type: "object", required: ["word"] })
      assert.deepStrictEqual(call.toolChoice, { type: "auto" })
    }).pipe(Effect.provide(handlers)))

  it.effect("tool choice: none, required, one tool, and oneOf (the tools narrowed, its mode sent)", () =>
    Effect.gen(function*() {
      const toolkit = yield* tools
      const sent = (toolChoice: LanguageModel.ToolChoice<"Lookup" | "Other">) =>
        Effect.gen(function*() {
          const model = mockOf(answer([{ type: "text", text: "ok" }]))
          yield* LanguageModel.generateText({ prompt: "hi", toolkit, toolChoice }).pipe(Effect.provide(AiSdkLanguageModel.layer(model)))
          const call = model.doGenerateCalls[0]!
          return { choice: call.toolChoice, tools: call.tools?.map((t) => t.name) }
        })
      assert.deepStrictEqual(yield* sent("none"), { choice: { type: "none" }, tools: ["Lookup", "Other"] })
      assert.deepStrictEqual(yield* sent("required"), { choice: { type: "required" }, tools: ["Lookup", "Other"] })
      assert.deepStrictEqual(yield* sent({ tool: "Other" }), { choice: { type: "tool", toolName: "Other" }, tools: ["Lookup", "Other"] })
      assert.deepStrictEqual(yield* sent({ mode: "required", oneOf: ["Lookup"] }), { choice: { type: "required" }, tools: ["Lookup"] })
      assert.deepStrictEqual(yield* sent({ oneOf: ["Other"] }), { choice: { type: "auto" }, tools: ["Other"] })
    }).pipe(Effect.provide(handlers)))

  it("a provider-defined tool passes through by id and arguments", () => {
    const search = Tool.providerDefined({
      id: "anthropic.web_search_20250305",
      customName: "web_search",
      providerName: "web_search",
      args: Schema.Struct({ maxUses: Schema.Number }),
      parameters: Schema.Struct({ query: Schema.String }),
      success: Schema.String
    })({ maxUses: 3 })
    assert.deepStrictEqual(AiSdkLanguageModel.toProviderTool(search), {
      type: "provider",
      id: "anthropic.web_search_20250305",
      name: "web_search",
      args: { maxUses: 3 }
    })
  })

  it.effect("generateObject: the schema as a JSON response format named after the object; the text decoded", () =>
    Effect.gen(function*() {
      const model = mockOf(answer([{ type: "text", text: "{\"name\":\"cupel\",\"size\":3}" }]))
      const Item = Schema.Struct({ name: Schema.String, size: Schema.Number })
      const response = yield* LanguageModel.generateObject({ prompt: "an item", schema: Item, objectName: "item" }).pipe(
        Effect.provide(AiSdkLanguageModel.layer(model))
      )
      assert.deepStrictEqual(response.value, { name: "cupel", size: 3 })
      const format = model.doGenerateCalls[0]!.responseFormat
      assert.strictEqual(format?.type, "json")
      if (format?.type !== "json") return
      assert.strictEqual(format.name, "item")
      assert.deepInclude(format.schema, { type: "object", required: ["name", "size"] })
    }))

  it.effect("generateObject: a provider's structuredOutputText is the text parsed", () =>
    Effect.gen(function*() {
      const model = mockOf(answer([{ type: "text", text: "draft" }, { type: "text", text: "{\"n\":1}" }], { structuredOutputText: "{\"n\":2}" }))
      const response = yield* LanguageModel.generateObject({ prompt: "n", schema: Schema.Struct({ n: Schema.Number }) }).pipe(
        Effect.provide(AiSdkLanguageModel.layer(model))
      )
      assert.deepStrictEqual(response.value, { n: 2 })
    }))

  it.effect("settings go with every call, each call's own options over them", () =>
    Effect.gen(function*() {
      const model = mockOf(answer([{ type: "text", text: "ok" }]))
      yield* LanguageModel.generateText({ prompt: "hi" }).pipe(
        Effect.provide(AiSdkLanguageModel.layer(model, { maxOutputTokens: 77, temperature: 0, providerOptions: { anthropic: { toolStreaming: false } } }))
      )
      const call = model.doGenerateCalls[0]!
      assert.strictEqual(call.maxOutputTokens, 77)
      assert.strictEqual(call.temperature, 0)
      assert.deepStrictEqual(call.providerOptions, { anthropic: { toolStreaming: false } })
      assert.deepStrictEqual(call.responseFormat, { type: "text" })
      assert.isUndefined(call.tools)
    }))
})

describe("AiSdkLanguageModel: the answer, AI SDK -> effect/ai", () => {
  it.effect("text, reasoning with its metadata, usage with cached tokens, finish reason, response metadata", () =>
    Effect.gen(function*() {
      const model = mockOf(answer(
        [
          { type: "reasoning", text: "think", providerMetadata: { anthropic: { signature: "sig" } } },
          { type: "text", text: "hello" }
        ],
        {
          finishReason: { unified: "length", raw: "max_tokens" },
          providerMetadata: { anthropic: { stopSequence: null } },
          response: { id: "msg_1", modelId: "claude-x", timestamp: new Date("2026-01-02T03:04:05Z") }
        }
      ))
      const response = yield* LanguageModel.generateText({ prompt: "hi" }).pipe(Effect.provide(AiSdkLanguageModel.layer(model)))
      assert.strictEqual(response.text, "hello")
      assert.strictEqual(response.reasoningText, "think")
      const reasoning = response.content.find((p) => p.type === "reasoning")
      assert.deepStrictEqual(reasoning?.metadata, { anthropic: { signature: "sig" } })
      assert.strictEqual(response.finishReason, "length")
      assert.deepStrictEqual(
        { ...response.usage.inputTokens },
        { uncached: 200, total: 1200, cacheRead: 900, cacheWrite: 100 }
      )
      assert.deepStrictEqual({ ...response.usage.outputTokens }, { total: 30, text: 20, reasoning: 10 })
      const finish = response.content.find((p) => p.type === "finish")
      assert.deepStrictEqual(finish?.metadata, { anthropic: { stopSequence: null } })
      const meta = response.content.find((p) => p.type === "response-metadata")
      assert.strictEqual(meta?.id, "msg_1")
      assert.strictEqual(meta?.modelId, "claude-x")
      // The reasoning's signature returns with the next prompt as its options.
      const next = AiSdkLanguageModel.toProviderMessage(Prompt.fromResponseParts(response.content).content[0]!)
      assert.deepStrictEqual(next.content, [
        { type: "reasoning", text: "think", providerOptions: { anthropic: { signature: "sig" } } },
        { type: "text", text: "hello" }
      ])
    }))

  it.effect("a tool call's JSON input decoded and resolved by the toolkit", () =>
    Effect.gen(function*() {
      const model = mockOf(answer([{ type: "tool-call", toolCallId: "c1", toolName: "Lookup", input: "{\"word\":\"cupel\"}" }], {
        finishReason: { unified: "tool-calls", raw: "tool_use" }
      }))
      const toolkit = yield* tools
      const response = yield* LanguageModel.generateText({ prompt: "hi", toolkit }).pipe(Effect.provide(AiSdkLanguageModel.layer(model)))
      assert.deepStrictEqual(response.toolCalls.map((c) => [c.id, c.name, c.params]), [["c1", "Lookup", { word: "cupel" }]])
      assert.deepStrictEqual(response.toolResults.map((r) => r.result), ["cupel!"])
      assert.strictEqual(response.finishReason, "tool-calls")
    }).pipe(Effect.provide(handlers)))

  it("sources, files, provider-executed results and approval requests as their effect/ai parts; custom content left out", () => {
    const model = new MockLanguageModelV4({ modelId: "m" })
    const parts = AiSdkLanguageModel.toResponseParts(answer([
      { type: "source", sourceType: "url", id: "s1", url: "https://example.com" },
      { type: "source", sourceType: "document", id: "s2", mediaType: "application/pdf", title: "Doc", filename: "d.pdf" },
      { type: "file", mediaType: "image/png", data: { type: "data", data: new Uint8Array([1, 2, 3]) } },
      { type: "tool-result", toolCallId: "w1", toolName: "web_search", result: { hits: 2 } },
      { type: "tool-approval-request", approvalId: "a1", toolCallId: "c1" },
      { type: "custom", kind: "openai.thing" },
      { type: "tool-call", toolCallId: "c2", toolName: "Other", input: "" }
    ]), model)
    assert.deepStrictEqual(parts.slice(1, -1), [
      { type: "source", sourceType: "url", id: "s1", url: "https://example.com", title: "https://example.com" },
      { type: "source", sourceType: "document", id: "s2", mediaType: "application/pdf", title: "Doc", fileName: "d.pdf" },
      { type: "file", mediaType: "image/png", data: "AQID" },
      { type: "tool-result", id: "w1", name: "web_search", result: { hits: 2 }, isFailure: false, providerExecuted: true },
      { type: "tool-approval-request", approvalId: "a1", toolCallId: "c1" },
      { type: "tool-call", id: "c2", name: "Other", params: {} }
    ])
    assert.deepStrictEqual(parts[0], { type: "response-metadata", id: undefined, modelId: "m", timestamp: undefined })
  })

  it("finish reasons: the same names; interrupted is other; Anthropic's pause_turn is pause", () => {
    const cases: ReadonlyArray<readonly [GenerateResult["finishReason"], string]> = [
      [{ unified: "stop", raw: "end_turn" }, "stop"],
      [{ unified: "length", raw: undefined }, "length"],
      [{ unified: "content-filter", raw: "refusal" }, "content-filter"],
      [{ unified: "tool-calls", raw: "tool_use" }, "tool-calls"],
      [{ unified: "error", raw: undefined }, "error"],
      [{ unified: "interrupted", raw: undefined }, "other"],
      [{ unified: "other", raw: "pause_turn" }, "pause"],
      [{ unified: "other", raw: "odd" }, "other"]
    ]
    for (const [reason, expected] of cases) assert.strictEqual(AiSdkLanguageModel.finishReasonOf(reason), expected)
  })

  it("usage: missing or invalid counts are left out, not invented", () => {
    const mapped = AiSdkLanguageModel.usageOf({
      inputTokens: { total: 10, noCache: undefined, cacheRead: -1, cacheWrite: 1.5 },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined }
    })
    assert.deepStrictEqual(mapped, {
      inputTokens: { uncached: undefined, total: 10, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined }
    })
  })

  it.effect("streamText: text and reasoning deltas, tool input, the tool call, usage with cached tokens, metadata", () =>
    Effect.gen(function*() {
      const model = new MockLanguageModelV4({
        doStream: async () => ({
          stream: convertArrayToReadableStream([
            { type: "stream-start", warnings: [] },
            { type: "response-metadata", id: "msg_2", modelId: "claude-x" },
            { type: "reasoning-start", id: "r" },
            { type: "reasoning-delta", id: "r", delta: "hm" },
            { type: "reasoning-end", id: "r", providerMetadata: { anthropic: { signature: "sig" } } },
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: "he" },
            { type: "text-delta", id: "t", delta: "llo" },
            { type: "text-end", id: "t" },
            { type: "tool-input-start", id: "c1", toolName: "Lookup" },
            { type: "tool-input-delta", id: "c1", delta: "{\"word\":\"x\"}" },
            { type: "tool-input-end", id: "c1" },
            { type: "tool-call", toolCallId: "c1", toolName: "Lookup", input: "{\"word\":\"x\"}" },
            { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_use" }, usage: usage({ cacheRead: 700 }) }
          ])
        })
      })
      const toolkit = yield* tools
      const parts = yield* Stream.runCollect(
        LanguageModel.streamText({ prompt: "hi", toolkit }).pipe(Stream.provide(AiSdkLanguageModel.layer(model)))
      )
      assert.strictEqual(parts.filter((p) => p.type === "text-delta").map((p) => p.delta).join(""), "hello")
      assert.strictEqual(parts.filter((p) => p.type === "reasoning-delta").map((p) => p.delta).join(""), "hm")
      assert.deepStrictEqual(parts.find((p) => p.type === "reasoning-end")?.metadata, { anthropic: { signature: "sig" } })
      assert.deepStrictEqual(parts.filter((p) => p.type.startsWith("tool-params")).map((p) => p.type), ["tool-params-start", "tool-params-delta", "tool-params-end"])
      const call = parts.find((p) => p.type === "tool-call")
      assert.deepStrictEqual(call?.params, { word: "x" })
      const result = parts.find((p) => p.type === "tool-result")
      assert.strictEqual(result?.result, "x!")
      const finish = parts.find((p) => p.type === "finish")
      assert.strictEqual(finish?.reason, "tool-calls")
      assert.strictEqual(finish?.usage.inputTokens.cacheRead, 700)
      assert.strictEqual(parts.find((p) => p.type === "response-metadata")?.id, "msg_2")
    }).pipe(Effect.provide(handlers)))
})

describe("AiSdkLanguageModel: errors as AiError reasons", () => {
  const failWith = (error: unknown) =>
    LanguageModel.generateText({ prompt: "hi" }).pipe(
      Effect.provide(AiSdkLanguageModel.layer(new MockLanguageModelV4({ doGenerate: async () => Promise.reject(error) }))),
      Effect.flip
    )
  const apiError = (statusCode: number | undefined, responseHeaders: Record<string, string> = {}) =>
    new APICallError({
      message: `status ${statusCode}`,
      url: "https://api.example.com/v1/messages",
      requestBodyValues: {},
      ...(statusCode === undefined ? {} : { statusCode }),
      responseHeaders,
      responseBody: "{\"error\":\"x\"}"
    })

  it.effect("429: a RateLimitError with retry-after in seconds, retryable", () =>
    Effect.gen(function*() {
      const error = yield* failWith(apiError(429, { "retry-after": "7" }))
      assert.instanceOf(error, AiError.AiError)
      assert.strictEqual(error.reason._tag, "RateLimitError")
      assert.isTrue(error.isRetryable)
      assert.isTrue(Duration.equals(error.retryAfter!, Duration.seconds(7)))
      assert.strictEqual(error.module, "effect-cupel/adapters/AiSdkLanguageModel")
      assert.strictEqual(error.method, "generateText")
    }))

  it.effect("5xx (529 overloaded included): an InternalProviderError, retryable; with the status and body", () =>
    Effect.gen(function*() {
      for (const status of [500, 503, 529]) {
        const error = yield* failWith(apiError(status))
        assert.strictEqual(error.reason._tag, "InternalProviderError")
        assert.isTrue(error.isRetryable)
        const reason = error.reason
        if (reason._tag === "InternalProviderError") {
          assert.strictEqual(reason.http?.response?.status, status)
          assert.strictEqual(reason.http?.body, "{\"error\":\"x\"}")
        }
      }
    }))

  it.effect("4xx: 400 an InvalidRequestError, 401 and 403 AuthenticationErrors, not retryable", () =>
    Effect.gen(function*() {
      const bad = yield* failWith(apiError(400))
      assert.strictEqual(bad.reason._tag, "InvalidRequestError")
      assert.isFalse(bad.isRetryable)
      const key = yield* failWith(apiError(401))
      assert.strictEqual(key.reason._tag, "AuthenticationError")
      if (key.reason._tag === "AuthenticationError") assert.strictEqual(key.reason.kind, "InvalidKey")
      const denied = yield* failWith(apiError(403))
      if (denied.reason._tag === "AuthenticationError") assert.strictEqual(denied.reason.kind, "InsufficientPermissions")
      else assert.fail(denied.reason._tag)
    }))

  it.effect("network: an API call without an answer, or a fetch TypeError, is a NetworkError (retryable)", () =>
    Effect.gen(function*() {
      const unanswered = yield* failWith(apiError(undefined))
      assert.strictEqual(unanswered.reason._tag, "NetworkError")
      assert.isTrue(unanswered.isRetryable)
      const refused = yield* failWith(new TypeError("fetch failed"))
      assert.strictEqual(refused.reason._tag, "NetworkError")
    }))

  it.effect("invalid response: data the SDK could not read is an InvalidResponseError", () =>
    Effect.gen(function*() {
      const error = yield* failWith(new InvalidResponseDataError({ data: {}, message: "no id" }))
      assert.strictEqual(error.reason._tag, "InvalidResponseError")
    }))

  it.effect("a missing API key is an AuthenticationError (MissingKey); anything else an UnknownError with its message", () =>
    Effect.gen(function*() {
      const key = yield* failWith(new LoadAPIKeyError({ message: "ANTHROPIC_API_KEY is missing" }))
      if (key.reason._tag === "AuthenticationError") assert.strictEqual(key.reason.kind, "MissingKey")
      else assert.fail(key.reason._tag)
      const odd = yield* failWith(new Error("odd"))
      assert.strictEqual(odd.reason._tag, "UnknownError")
      assert.include(odd.message, "odd")
    }))

  it.effect("abort: an abort the program did not ask for is a NetworkError", () =>
    Effect.gen(function*() {
      const error = yield* failWith(new DOMException("The operation was aborted", "AbortError"))
      assert.strictEqual(error.reason._tag, "NetworkError")
      assert.include(error.message, "aborted")
    }))

  it.live("abort: interrupting the program's call aborts the request", () =>
    Effect.gen(function*() {
      let signal: AbortSignal | undefined
      const model = new MockLanguageModelV4({
        doGenerate: (options) => {
          signal = options.abortSignal
          return new Promise(() => {})
        }
      })
      const fiber = yield* Effect.forkChild(LanguageModel.generateText({ prompt: "hi" }).pipe(Effect.provide(AiSdkLanguageModel.layer(model))))
      while (signal === undefined) yield* Effect.sleep("1 millis")
      assert.isFalse(signal.aborted)
      yield* Fiber.interrupt(fiber)
      assert.isTrue(signal.aborted)
    }))

  it.effect("a stream's error event fails the stream with its type's reason (Anthropic's overloaded_error)", () =>
    Effect.gen(function*() {
      const model = new MockLanguageModelV4({
        doStream: async () => ({
          stream: convertArrayToReadableStream([
            { type: "text-start", id: "t" },
            { type: "error", error: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } }
          ])
        })
      })
      const error = yield* Stream.runCollect(LanguageModel.streamText({ prompt: "hi" })).pipe(
        Effect.provide(AiSdkLanguageModel.layer(model)),
        Effect.flip
      )
      assert.strictEqual(error.reason._tag, "InternalProviderError")
      assert.strictEqual(error.method, "streamText")
      assert.include(error.message, "Overloaded")
    }))

  it.effect("a stream's 429 before it opens is a RateLimitError", () =>
    Effect.gen(function*() {
      const model = new MockLanguageModelV4({ doStream: async () => Promise.reject(apiError(429, { "retry-after": "2" })) })
      const error = yield* Stream.runCollect(LanguageModel.streamText({ prompt: "hi" })).pipe(
        Effect.provide(AiSdkLanguageModel.layer(model)),
        Effect.flip
      )
      assert.strictEqual(error.reason._tag, "RateLimitError")
      assert.isTrue(Duration.equals(error.retryAfter!, Duration.seconds(2)))
    }))
})
