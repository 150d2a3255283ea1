/**
 * A test-only `effect/ai` `LanguageModel` over an AI SDK provider model (`@ai-sdk/anthropic`,
 * `@ai-sdk/openai`): each call's `Prompt` is converted to the provider-level prompt
 * (`AiSdkPrompt.fromMessage`, each message's `options` carried as its `providerOptions`, so that
 * the cache marks `WindowedLanguageModel` writes reach the wire), sent with the model's
 * `doGenerate` / `doStream`, and answered as `effect/ai` parts with the provider's usage.
 *
 * `effect/ai`'s own providers (`@effect/ai-anthropic` 4.0.0-beta) import Effect 4.0 beta paths
 * and cannot run on Effect 4.1; this adapter lets the effect/ai door speak to the fake endpoints
 * through the real AI SDK clients. It answers text only (the fakes answer "ok").
 */
import type { LanguageModelMiddleware } from "ai"
import { Effect, Layer, Stream } from "effect"
import { AiError, LanguageModel, type Prompt, type Response } from "effect/ai"
import * as AiSdkPrompt from "../../src/adapters/AiSdkPrompt.ts"
import * as ToolDefinitions from "../../src/ai/ToolDefinitions.ts"

/** A message with its `effect/ai` options as the AI SDK's provider options. */
const providerMessage = (message: Prompt.Message): AiSdkPrompt.ProviderMessage => {
  const converted = AiSdkPrompt.fromMessage(message)
  const options = message.options
  if (Object.keys(options).length === 0) return converted
  const providerOptions: Record<string, Record<string, never>> = {}
  for (const [name, value] of Object.entries(options)) {
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      providerOptions[name] = JSON.parse(JSON.stringify(value))
    }
  }
  return { ...converted, providerOptions }
}

/** The AI SDK's provider model (what a middleware wraps). */
type LanguageModelV4 = Parameters<NonNullable<LanguageModelMiddleware["wrapGenerate"]>>[0]["model"]

type FunctionTool = Extract<NonNullable<AiSdkPrompt.CallOptions["tools"]>[number], { type: "function" }>

/** A tool's parameters as the JSON Schema object the AI SDK's function tool takes. */
const isSchema = (value: unknown): value is FunctionTool["inputSchema"] =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const callOf = (options: LanguageModel.ProviderOptions) => ({
  // `@effect/ai-anthropic` sends no `eager_input_streaming`: its streamed calls send the tool
  // definitions its generated calls send. `@ai-sdk/anthropic` adds the flag to streamed calls
  // unless `toolStreaming` is off; off here, so that this stand-in sends what that provider does.
  providerOptions: { anthropic: { toolStreaming: false } },
  prompt: options.prompt.content.map(providerMessage),
  tools: options.tools.map((tool) => {
    const definition = ToolDefinitions.definitionOf(tool)
    return {
      type: "function" as const,
      name: definition.name,
      description: definition.description ?? "",
      inputSchema: isSchema(definition.parameters) ? definition.parameters : { type: "object" as const }
    }
  })
})

interface V4Usage {
  readonly inputTokens: {
    readonly total: number | undefined
    readonly noCache: number | undefined
    readonly cacheRead: number | undefined
    readonly cacheWrite: number | undefined
  }
  readonly outputTokens: { readonly total: number | undefined }
}

const usageOf = (usage: V4Usage) => ({
  inputTokens: {
    uncached: usage.inputTokens.noCache,
    total: usage.inputTokens.total,
    cacheRead: usage.inputTokens.cacheRead,
    cacheWrite: usage.inputTokens.cacheWrite
  },
  outputTokens: { total: usage.outputTokens.total, text: usage.outputTokens.total, reasoning: undefined }
})

const failure = (method: string) => (cause: unknown) =>
  AiError.make({
    module: "test/aiSdkLanguageModel",
    method,
    reason: new AiError.UnknownError({ description: String(cause) })
  })

/** The `LanguageModel` over `model`. */
export const make = (model: LanguageModelV4): Effect.Effect<LanguageModel.LanguageModel> =>
  LanguageModel.make({
    generateText: (options) =>
      Effect.tryPromise({ try: () => model.doGenerate(callOf(options)), catch: failure("generateText") }).pipe(
        Effect.map((result): Array<Response.PartEncoded> => [
          { type: "response-metadata", id: "r", modelId: result.response?.modelId ?? model.modelId, timestamp: undefined },
          {
            type: "text",
            text: result.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("")
          },
          { type: "finish", reason: "stop", usage: usageOf(result.usage) }
        ])
      ),
    streamText: (options) =>
      Stream.unwrap(
        Effect.tryPromise({ try: () => model.doStream(callOf(options)), catch: failure("streamText") }).pipe(
          Effect.map((result) =>
            Stream.fromReadableStream({ evaluate: () => result.stream, onError: failure("streamText") }).pipe(
              Stream.flatMap((part): Stream.Stream<Response.StreamPartEncoded> => {
                switch (part.type) {
                  case "text-start":
                    return Stream.make({ type: "text-start", id: part.id })
                  case "text-delta":
                    return Stream.make({ type: "text-delta", id: part.id, delta: part.delta })
                  case "text-end":
                    return Stream.make({ type: "text-end", id: part.id })
                  case "finish":
                    return Stream.make({ type: "finish", reason: "stop", usage: usageOf(part.usage) })
                  default:
                    return Stream.empty
                }
              })
            )
          )
        )
      )
  })

/** The `LanguageModel` layer over `model`. */
export const layer = (model: LanguageModelV4): Layer.Layer<LanguageModel.LanguageModel> =>
  Layer.effect(LanguageModel.LanguageModel, make(model))
