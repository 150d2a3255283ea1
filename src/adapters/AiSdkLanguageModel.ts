/**
 * AiSdkLanguageModel: an `effect/ai` `LanguageModel` backed by any AI SDK provider model
 * (`@ai-sdk/anthropic`, `@ai-sdk/openai`, `@ai-sdk/google`, … — a `LanguageModelV4`).
 *
 * Effect 4.1 has no working provider packages of its own (`@effect/ai-anthropic` 4.0.0-beta
 * imports paths Effect 4.1 does not ship), while every provider the AI SDK supports is one
 * package away: this module lets an Effect program call them through `effect/ai`'s
 * `LanguageModel` (`generateText`, `generateObject`, `streamText`), and so run
 * `WindowedLanguageModel` over them. Each call is translated both ways (docs/ai.md, "A real
 * model on Effect 4.1", and docs/design.md item 98):
 *
 * - the `Prompt` becomes the provider prompt: system, user text and files (bytes, base64 or a
 *   link), assistant text, reasoning, files, tool calls and provider-executed results, tool
 *   results (text or JSON, failures as error outputs, `modelOutput` as content) and approval
 *   responses; every message's and part's `options` become its `providerOptions` (the cache
 *   marks `WindowedLanguageModel` writes under `anthropic` reach the wire this way);
 * - the toolkit's tools become function tools with their JSON Schema (provider-defined tools
 *   pass through by id), the tool choice maps one to one (`oneOf` narrows the tools, as
 *   `effect/ai` already does, and keeps its mode), `generateObject`'s schema becomes a JSON
 *   response format;
 * - the answer's parts come back as `effect/ai` response parts with their provider metadata
 *   (so reasoning signatures return with the next prompt), the usage with cached input tokens
 *   (`cacheRead`, `cacheWrite`), the finish reason, and failures as `AiError` with a reason
 *   read from the AI SDK's error (HTTP status, network, invalid response, abort).
 *
 * Only types come from `ai` at compile time and nothing of it is loaded at run time: the module
 * speaks to the model object it is given. Users who never import this entry point install and
 * load nothing more.
 *
 * @since 0.3.0
 */
import type { JSONSchema7, LanguageModelMiddleware } from "ai"
import { Duration, Effect, Layer, Predicate, type Schema, Stream } from "effect"
import { AiError, LanguageModel, type Prompt, type Response, Tool } from "effect/ai"
import * as Base64 from "effect/encoding/Base64"

/**
 * An AI SDK provider model (`LanguageModelV4`): what `anthropic("claude-sonnet-4-5")` or
 * `openai("gpt-5")` returns.
 *
 * @since 0.3.0
 * @category models
 */
export type ProviderModel = Parameters<NonNullable<LanguageModelMiddleware["wrapGenerate"]>>[0]["model"]

/**
 * The options of one provider call (`LanguageModelV4CallOptions`).
 *
 * @since 0.3.0
 * @category models
 */
export type CallOptions = Parameters<ProviderModel["doGenerate"]>[0]

type ProviderMessage = CallOptions["prompt"][number]
type ProviderOptions = NonNullable<CallOptions["providerOptions"]>
type ProviderTool = NonNullable<CallOptions["tools"]>[number]
type GenerateResult = Awaited<ReturnType<ProviderModel["doGenerate"]>>
type Content = GenerateResult["content"][number]
type StreamPart = Awaited<ReturnType<ProviderModel["doStream"]>>["stream"] extends ReadableStream<infer P> ? P : never
type V4Usage = GenerateResult["usage"]
type V4FinishReason = GenerateResult["finishReason"]
type AssistantPart = Extract<ProviderMessage, { role: "assistant" }>["content"][number]
type ToolMessagePart = Extract<ProviderMessage, { role: "tool" }>["content"][number]
type ToolOutput = Extract<ToolMessagePart, { type: "tool-result" }>["output"]
type FileData = Extract<Extract<ProviderMessage, { role: "user" }>["content"][number], { type: "file" }>["data"]

/**
 * Settings sent with every call: the AI SDK's call settings (`maxOutputTokens`, `temperature`,
 * `headers`, `providerOptions`, …), everything but what each call brings (prompt, tools, tool
 * choice, response format, abort signal).
 *
 * @since 0.3.0
 * @category models
 */
export type Settings = Omit<CallOptions, "prompt" | "tools" | "toolChoice" | "responseFormat" | "abortSignal">

const moduleName = "effect-cupel/adapters/AiSdkLanguageModel"

// --- JSON ---------------------------------------------------------------------------------

/** A value as JSON (both sides' option and metadata types accept it); `undefined` where not. */
const toJson = (value: unknown): Schema.MutableJson | undefined => {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined
  if (Array.isArray(value)) return value.map((v) => toJson(v) ?? null)
  if (Predicate.isObject(value)) {
    const out: { [key: string]: Schema.MutableJson } = {}
    for (const [key, v] of Object.entries(value)) {
      const json = toJson(v)
      if (json !== undefined) out[key] = json
    }
    return out
  }
  return undefined
}

const isJsonObject = (value: Schema.MutableJson | undefined): value is { [key: string]: Schema.MutableJson } =>
  value !== undefined && value !== null && typeof value === "object" && !Array.isArray(value)

/** `effect/ai` options (per provider) as the AI SDK's provider options; `undefined` when none. */
const providerOptionsOf = (options: Prompt.ProviderOptions | undefined): ProviderOptions | undefined => {
  if (options === undefined) return undefined
  let out: ProviderOptions | undefined
  for (const [provider, value] of Object.entries(options)) {
    const json = toJson(value)
    if (!isJsonObject(json)) continue
    out ??= {}
    out[provider] = json
  }
  return out
}

/** The AI SDK's provider metadata as `effect/ai` part metadata. */
const metadataOf = (metadata: unknown): { readonly metadata?: { [key: string]: Schema.MutableJson } } => {
  const json = toJson(metadata)
  return isJsonObject(json) && Object.keys(json).length > 0 ? { metadata: json } : {}
}

const withOptions = <A extends object>(part: A, options: Prompt.ProviderOptions | undefined) => {
  const providerOptions = providerOptionsOf(options)
  return providerOptions === undefined ? part : { ...part, providerOptions }
}

// --- the prompt, effect/ai -> AI SDK --------------------------------------------------------

const isLink = (data: string): boolean => /^https?:\/\//i.test(data)

/** A file's data: bytes or base64 as data, a link (a `URL`, or an http(s) string) as a URL. */
const fileDataOf = (data: string | Uint8Array | URL): FileData => {
  if (data instanceof URL) return { type: "url", url: data }
  if (typeof data === "string" && isLink(data)) return { type: "url", url: new URL(data) }
  return { type: "data", data }
}

const filePartOf = (part: Prompt.FilePart) =>
  withOptions({
    type: "file" as const,
    mediaType: part.mediaType,
    ...(part.fileName === undefined ? {} : { filename: part.fileName }),
    data: fileDataOf(part.data)
  }, part.options)

/** A tool result's output: text or JSON, failures as error outputs, `modelOutput` as content. */
const outputOf = (part: Prompt.ToolResultPart): ToolOutput => {
  if (part.modelOutput !== undefined && part.modelOutput.length > 0 && !part.isFailure) {
    return {
      type: "content",
      value: part.modelOutput.map((p) =>
        p.type === "text"
          ? { type: "text" as const, text: p.text }
          : {
            type: "file" as const,
            mediaType: p.mediaType,
            ...(p.fileName === undefined ? {} : { filename: p.fileName }),
            data: fileDataOf(p.data)
          }
      )
    }
  }
  if (typeof part.result === "string") return { type: part.isFailure ? "error-text" : "text", value: part.result }
  const json = toJson(part.result) ?? null
  return { type: part.isFailure ? "error-json" : "json", value: json }
}

const toolResultOf = (part: Prompt.ToolResultPart) =>
  withOptions({ type: "tool-result" as const, toolCallId: part.id, toolName: part.name, output: outputOf(part) }, part.options)

const assistantPartOf = (part: Prompt.AssistantMessagePart): ReadonlyArray<AssistantPart> => {
  switch (part.type) {
    case "text":
      return [withOptions({ type: "text" as const, text: part.text }, part.options)]
    case "reasoning":
      return [withOptions({ type: "reasoning" as const, text: part.text }, part.options)]
    case "file":
      return [filePartOf(part)]
    case "tool-call":
      return [withOptions({
        type: "tool-call" as const,
        toolCallId: part.id,
        toolName: part.name,
        input: part.params,
        ...(part.providerExecuted ? { providerExecuted: true } : {})
      }, part.options)]
    case "tool-result":
      return [toolResultOf(part)]
    case "tool-approval-request":
      // The provider prompt carries approval responses only (the request was an answer).
      return []
  }
}

/**
 * One `effect/ai` message as a provider message, with its options as provider options.
 *
 * @since 0.3.0
 * @category conversions
 */
export const toProviderMessage = (message: Prompt.Message): ProviderMessage => {
  switch (message.role) {
    case "system":
      return withOptions({ role: "system" as const, content: message.content }, message.options)
    case "user":
      return withOptions({
        role: "user" as const,
        content: message.content.map((part) =>
          part.type === "text" ? withOptions({ type: "text" as const, text: part.text }, part.options) : filePartOf(part)
        )
      }, message.options)
    case "assistant":
      return withOptions({ role: "assistant" as const, content: message.content.flatMap(assistantPartOf) }, message.options)
    case "tool":
      return withOptions({
        role: "tool" as const,
        content: message.content.map((part): ToolMessagePart =>
          part.type === "tool-result" ? toolResultOf(part) : withOptions({
            type: "tool-approval-response" as const,
            approvalId: part.approvalId,
            approved: part.approved,
            ...(part.reason === undefined ? {} : { reason: part.reason })
          }, part.options)
        )
      }, message.options)
  }
}

// --- tools and response format ------------------------------------------------------------

const isJsonSchema = (value: unknown): value is JSONSchema7 => Predicate.isObject(value) && !Array.isArray(value)

const schemaOf = (value: unknown): JSONSchema7 => (isJsonSchema(value) ? value : { type: "object" })

/**
 * An `effect/ai` tool as an AI SDK tool: a function tool with its JSON Schema, description and
 * strict mode; a provider-defined tool by its id and arguments.
 *
 * @since 0.3.0
 * @category conversions
 */
export const toProviderTool = (tool: Tool.Any): ProviderTool => {
  if (Tool.isProviderDefined(tool)) {
    const args = toJson(tool.args)
    return { type: "provider", id: tool.id, name: tool.name, args: isJsonObject(args) ? args : {} }
  }
  const description = Tool.getDescription(tool)
  const strict = Tool.getStrictMode(tool)
  return {
    type: "function",
    name: tool.name,
    inputSchema: schemaOf(Tool.getJsonSchema(tool)),
    ...(description === undefined ? {} : { description }),
    ...(strict === undefined ? {} : { strict })
  }
}

const toolChoiceOf = (choice: LanguageModel.ToolChoice<string>): NonNullable<CallOptions["toolChoice"]> => {
  if (choice === "auto" || choice === "none" || choice === "required") return { type: choice }
  if ("tool" in choice) return { type: "tool", toolName: choice.tool }
  // `oneOf`: effect/ai has already narrowed the tools to these.
  return { type: choice.mode ?? "auto" }
}

const responseFormatOf = (
  format: LanguageModel.ProviderOptions["responseFormat"]
): NonNullable<CallOptions["responseFormat"]> =>
  format.type === "text"
    ? { type: "text" }
    : { type: "json", name: format.objectName, schema: schemaOf(Tool.getJsonSchemaFromSchema(format.schema)) }

/**
 * The AI SDK call options of one `effect/ai` call, with the settings.
 *
 * @since 0.3.0
 * @category conversions
 */
export const toCallOptions = (options: LanguageModel.ProviderOptions, settings: Settings = {}): CallOptions => ({
  ...settings,
  prompt: options.prompt.content.map(toProviderMessage),
  ...(options.tools.length === 0
    ? {}
    : { tools: options.tools.map(toProviderTool), toolChoice: toolChoiceOf(options.toolChoice) }),
  responseFormat: responseFormatOf(options.responseFormat)
})

// --- the answer, AI SDK -> effect/ai -------------------------------------------------------

/**
 * The AI SDK's usage as `effect/ai`'s: input tokens with the uncached, cache-read and
 * cache-written ones, output tokens with text and reasoning.
 *
 * @since 0.3.0
 * @category conversions
 */
export const usageOf = (usage: V4Usage): typeof Response.Usage.Encoded => {
  const whole = (n: number | undefined) => (n !== undefined && Number.isSafeInteger(n) && n >= 0 ? n : undefined)
  return {
    inputTokens: {
      uncached: whole(usage.inputTokens.noCache),
      total: whole(usage.inputTokens.total),
      cacheRead: whole(usage.inputTokens.cacheRead),
      cacheWrite: whole(usage.inputTokens.cacheWrite)
    },
    outputTokens: {
      total: whole(usage.outputTokens.total),
      text: whole(usage.outputTokens.text),
      reasoning: whole(usage.outputTokens.reasoning)
    }
  }
}

/**
 * The AI SDK's finish reason as `effect/ai`'s: the same names; `interrupted` is `other`, and
 * Anthropic's `pause_turn` (a paused long-running turn) is `pause`.
 *
 * @since 0.3.0
 * @category conversions
 */
export const finishReasonOf = (reason: V4FinishReason): Response.FinishReason => {
  if (reason.raw === "pause_turn") return "pause"
  return reason.unified === "interrupted" ? "other" : reason.unified
}

const fileOutOf = (data: { readonly type: "data"; readonly data: string | Uint8Array } | { readonly type: "url"; readonly url: URL }) =>
  data.type === "url" ? data.url.href : typeof data.data === "string" ? data.data : Base64.encode(data.data)

/** A tool call's input (JSON text) as its parameters; empty text is no parameters. */
const paramsOf = (input: string): unknown => {
  if (input.trim() === "") return {}
  try {
    return JSON.parse(input)
  } catch {
    return input
  }
}

/** The response parts a generated answer and a stream spell alike. */
type SharedEncoded = Extract<Response.PartEncoded, Response.StreamPartEncoded>

/** One generated content part as `effect/ai` response parts (none for what it has no part for). */
const contentPartOf = (part: Content): ReadonlyArray<Response.PartEncoded> => {
  switch (part.type) {
    case "text":
      return [{ type: "text", text: part.text, ...metadataOf(part.providerMetadata) }]
    case "reasoning":
      return [{ type: "reasoning", text: part.text, ...metadataOf(part.providerMetadata) }]
    default:
      return sharedPartOf(part)
  }
}

/** A content part that a generated answer and a stream both carry. */
const sharedPartOf = (part: Exclude<Content, { type: "text" | "reasoning" }>): ReadonlyArray<SharedEncoded> => {
  switch (part.type) {
    case "file":
      return [{ type: "file", mediaType: part.mediaType, data: fileOutOf(part.data), ...metadataOf(part.providerMetadata) }]
    case "tool-call":
      return [{
        type: "tool-call",
        id: part.toolCallId,
        name: part.toolName,
        params: paramsOf(part.input),
        ...(part.providerExecuted === undefined ? {} : { providerExecuted: part.providerExecuted }),
        ...metadataOf(part.providerMetadata)
      }]
    case "tool-result":
      return [{
        type: "tool-result",
        id: part.toolCallId,
        name: part.toolName,
        result: part.result,
        isFailure: part.isError ?? false,
        providerExecuted: true,
        ...(part.preliminary === undefined ? {} : { preliminary: part.preliminary }),
        ...metadataOf(part.providerMetadata)
      }]
    case "tool-approval-request":
      return [{ type: "tool-approval-request", approvalId: part.approvalId, toolCallId: part.toolCallId, ...metadataOf(part.providerMetadata) }]
    case "source":
      return [
        part.sourceType === "url"
          ? { type: "source", sourceType: "url", id: part.id, url: part.url, title: part.title ?? part.url, ...metadataOf(part.providerMetadata) }
          : {
            type: "source",
            sourceType: "document",
            id: part.id,
            mediaType: part.mediaType,
            title: part.title,
            ...(part.filename === undefined ? {} : { fileName: part.filename }),
            ...metadataOf(part.providerMetadata)
          }
      ]
    case "reasoning-file":
    case "custom":
      // effect/ai has no part for a provider's custom content or a reasoning file.
      return []
  }
}

const metadataPart = (
  response: { readonly id?: string | undefined; readonly modelId?: string | undefined; readonly timestamp?: Date | undefined } | undefined,
  model: ProviderModel
): Response.ResponseMetadataPartEncoded => ({
  type: "response-metadata",
  id: response?.id,
  modelId: response?.modelId ?? model.modelId,
  timestamp: response?.timestamp?.toISOString()
})

/**
 * A generated answer as `effect/ai` response parts: its metadata, its content, then its finish
 * (reason, usage, provider metadata). For a JSON response format with `structuredOutputText`,
 * that text is the answer's text (what `generateObject` parses).
 *
 * @since 0.3.0
 * @category conversions
 */
export const toResponseParts = (
  result: GenerateResult,
  model: ProviderModel,
  json = false
): Array<Response.PartEncoded> => {
  const content = result.content.flatMap(contentPartOf)
  const parts: Array<Response.PartEncoded> = [metadataPart(result.response, model)]
  if (json && result.structuredOutputText !== undefined) {
    parts.push(...content.filter((p) => p.type !== "text"), { type: "text", text: result.structuredOutputText })
  } else {
    parts.push(...content)
  }
  parts.push({
    type: "finish",
    reason: finishReasonOf(result.finishReason),
    usage: usageOf(result.usage),
    ...metadataOf(result.providerMetadata)
  })
  return parts
}

// --- errors --------------------------------------------------------------------------------

const nameOf = (error: unknown): string => (Predicate.hasProperty(error, "name") && typeof error.name === "string" ? error.name : "")

const messageOf = (error: unknown): string =>
  Predicate.hasProperty(error, "message") && typeof error.message === "string" ? error.message : String(error)

const stringRecord = (value: unknown): Record<string, string> => {
  const out: Record<string, string> = {}
  if (Predicate.isObject(value)) for (const [k, v] of Object.entries(value)) if (typeof v === "string") out[k] = v
  return out
}

/**
 * `retry-after` in seconds (what Anthropic and OpenAI send) as a duration. The HTTP-date form
 * is not read: it would need the wall clock here, and a retry schedule of the program's own
 * covers it.
 */
const retryAfterOf = (headers: Record<string, string>): Duration.Duration | undefined => {
  const value = Object.entries(headers).find(([k]) => k.toLowerCase() === "retry-after")?.[1]
  const seconds = value === undefined || value.trim() === "" ? Number.NaN : Number(value)
  return Number.isFinite(seconds) && seconds >= 0 ? Duration.seconds(seconds) : undefined
}

/** An HTTP status an in-stream provider error names by its type (Anthropic's error events). */
const statusOfType = (type: string): number | undefined => {
  switch (type) {
    case "invalid_request_error":
      return 400
    case "authentication_error":
      return 401
    case "permission_error":
      return 403
    case "not_found_error":
      return 404
    case "request_too_large":
      return 413
    case "rate_limit_error":
      return 429
    case "api_error":
      return 500
    case "overloaded_error":
      return 529
    default:
      return undefined
  }
}

/** The error object of a stream's error part (`{ type, message }`, or `{ error: { type, message } }`). */
const streamErrorStatus = (error: unknown): number | undefined => {
  const inner = Predicate.hasProperty(error, "error") && Predicate.isObject(error.error) ? error.error : error
  return Predicate.hasProperty(inner, "type") && typeof inner.type === "string" ? statusOfType(inner.type) : undefined
}

/**
 * An AI SDK failure as an `AiError` reason, read from the error's name (the AI SDK's errors
 * carry `AI_…` names in every copy of the package) and fields:
 *
 * - `AI_APICallError` with a status: 429 a `RateLimitError` (with `retry-after` in seconds), 400 an
 *   `InvalidRequestError`, 401/403 an `AuthenticationError`, 5xx an `InternalProviderError`,
 *   others as `AiError.reasonFromHttpStatus` says; without a status (the request never got an
 *   answer) a `NetworkError`;
 * - an abort or timeout (`AbortError`, `TimeoutError`) not asked for by the program: a
 *   `NetworkError` (a transport failure, retryable); an interruption of the program's fiber
 *   interrupts the call instead and is no error;
 * - a fetch `TypeError` (connection refused, DNS): a `NetworkError`;
 * - an answer the SDK could not read (`AI_InvalidResponseDataError`, `AI_JSONParseError`,
 *   `AI_TypeValidationError`, `AI_EmptyResponseBodyError`, `AI_NoContentGeneratedError`): an
 *   `InvalidResponseError`;
 * - a missing API key (`AI_LoadAPIKeyError`, `AI_LoadSettingError`): an `AuthenticationError`
 *   (`MissingKey`); a request the provider cannot make (`AI_UnsupportedFunctionalityError`,
 *   `AI_InvalidPromptError`, `AI_InvalidArgumentError`): an `InvalidRequestError`;
 * - a stream's error event with a provider error type (Anthropic's `overloaded_error`,
 *   `rate_limit_error`, …): as that type's status;
 * - anything else: an `UnknownError` with the error's message.
 *
 * @since 0.3.0
 * @category errors
 */
export const reasonOf = (error: unknown): AiError.AiErrorReason => {
  const name = nameOf(error)
  const description = messageOf(error)
  switch (name) {
    case "AI_APICallError": {
      const status = Predicate.hasProperty(error, "statusCode") && typeof error.statusCode === "number"
        ? error.statusCode
        : undefined
      const url = Predicate.hasProperty(error, "url") && typeof error.url === "string" ? error.url : ""
      if (status === undefined) {
        return new AiError.NetworkError({ reason: "TransportError", method: "POST", url, description })
      }
      const headers = stringRecord(Predicate.hasProperty(error, "responseHeaders") ? error.responseHeaders : undefined)
      const body = Predicate.hasProperty(error, "responseBody") && typeof error.responseBody === "string"
        ? error.responseBody
        : undefined
      const http = { response: { status, headers }, ...(body === undefined ? {} : { body }) }
      if (status === 429) {
        const retryAfter = retryAfterOf(headers)
        return new AiError.RateLimitError({ http, ...(retryAfter === undefined ? {} : { retryAfter }) })
      }
      return AiError.reasonFromHttpStatus({ status, http, description })
    }
    case "AbortError":
    case "TimeoutError":
      return new AiError.NetworkError({ reason: "TransportError", method: "POST", url: "", description: `aborted: ${description}` })
    case "TypeError":
      return new AiError.NetworkError({ reason: "TransportError", method: "POST", url: "", description })
    case "AI_InvalidResponseDataError":
    case "AI_JSONParseError":
    case "AI_TypeValidationError":
    case "AI_EmptyResponseBodyError":
    case "AI_NoContentGeneratedError":
      return new AiError.InvalidResponseError({ description })
    case "AI_LoadAPIKeyError":
    case "AI_LoadSettingError":
      return new AiError.AuthenticationError({ kind: "MissingKey", description })
    case "AI_UnsupportedFunctionalityError":
    case "AI_InvalidPromptError":
    case "AI_InvalidArgumentError":
      return new AiError.InvalidRequestError({ description })
  }
  const status = streamErrorStatus(error)
  if (status !== undefined) {
    const inner = Predicate.hasProperty(error, "error") && Predicate.isObject(error.error) ? error.error : error
    return AiError.reasonFromHttpStatus({ status, description: messageOf(inner) })
  }
  return new AiError.UnknownError({ description })
}

const failure = (method: string) => (error: unknown): AiError.AiError =>
  AiError.isAiError(error) ? error : AiError.make({ module: moduleName, method, reason: reasonOf(error) })

// --- streams -------------------------------------------------------------------------------

/** One stream part as `effect/ai` stream parts; an error part fails the stream. */
const streamPartOf = (
  part: StreamPart,
  model: ProviderModel
): Effect.Effect<ReadonlyArray<Response.StreamPartEncoded>, AiError.AiError> => {
  switch (part.type) {
    case "text-start":
    case "text-end":
    case "reasoning-start":
    case "reasoning-end":
      return Effect.succeed([{ type: part.type, id: part.id, ...metadataOf(part.providerMetadata) }])
    case "text-delta":
    case "reasoning-delta":
      return Effect.succeed([{ type: part.type, id: part.id, delta: part.delta, ...metadataOf(part.providerMetadata) }])
    case "tool-input-start":
      return Effect.succeed([{
        type: "tool-params-start",
        id: part.id,
        name: part.toolName,
        ...(part.providerExecuted === undefined ? {} : { providerExecuted: part.providerExecuted }),
        ...metadataOf(part.providerMetadata)
      }])
    case "tool-input-delta":
      return Effect.succeed([{ type: "tool-params-delta", id: part.id, delta: part.delta, ...metadataOf(part.providerMetadata) }])
    case "tool-input-end":
      return Effect.succeed([{ type: "tool-params-end", id: part.id, ...metadataOf(part.providerMetadata) }])
    case "response-metadata":
      return Effect.succeed([metadataPart(part, model)])
    case "finish":
      return Effect.succeed([{
        type: "finish",
        reason: finishReasonOf(part.finishReason),
        usage: usageOf(part.usage),
        ...metadataOf(part.providerMetadata)
      }])
    case "error":
      return Effect.fail(failure("streamText")(part.error))
    case "stream-start":
    case "raw":
    case "ping":
      return Effect.succeed([])
    default:
      return Effect.succeed(sharedPartOf(part))
  }
}

// --- the service ---------------------------------------------------------------------------

/**
 * The `effect/ai` `LanguageModel` over an AI SDK provider model, with settings sent on every
 * call. An interrupted call aborts its request (the AI SDK's `abortSignal`); a stream read to
 * its end or interrupted releases its response.
 *
 * @since 0.3.0
 * @category constructors
 * @example
 * ```ts
 * import { createAnthropic } from "@ai-sdk/anthropic"
 * import { Effect } from "effect"
 * import { LanguageModel } from "effect/ai"
 * import * as AiSdkLanguageModel from "effect-cupel/adapters/AiSdkLanguageModel"
 *
 * const model = AiSdkLanguageModel.layer(createAnthropic()("claude-sonnet-4-5"), { maxOutputTokens: 1024 })
 * const program = LanguageModel.generateText({ prompt: "Hello" }).pipe(Effect.provide(model))
 * ```
 */
export const make = (model: ProviderModel, settings: Settings = {}): Effect.Effect<LanguageModel.LanguageModel> =>
  LanguageModel.make({
    generateText: (options) =>
      Effect.tryPromise({
        try: (abortSignal) => model.doGenerate({ ...toCallOptions(options, settings), abortSignal }),
        catch: failure("generateText")
      }).pipe(Effect.map((result) => toResponseParts(result, model, options.responseFormat.type === "json"))),
    streamText: (options) =>
      Stream.unwrap(
        Effect.tryPromise({
          try: (abortSignal) => model.doStream({ ...toCallOptions(options, settings), abortSignal }),
          catch: failure("streamText")
        }).pipe(
          Effect.map((result) =>
            Stream.fromReadableStream({ evaluate: () => result.stream, onError: failure("streamText") }).pipe(
              Stream.mapEffect((part) => streamPartOf(part, model)),
              Stream.flatMap((parts) => Stream.fromIterable(parts))
            )
          )
        )
      )
  })

/**
 * The `effect/ai` `LanguageModel` layer over an AI SDK provider model (see {@link make}).
 *
 * @since 0.3.0
 * @category layers
 */
export const layer = (model: ProviderModel, settings: Settings = {}): Layer.Layer<LanguageModel.LanguageModel> =>
  Layer.effect(LanguageModel.LanguageModel, make(model, settings))
