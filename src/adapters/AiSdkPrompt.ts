/**
 * AiSdkPrompt: the AI SDK's provider-level prompt (`LanguageModelV4Prompt`, what a language
 * model middleware sees) as an `effect/ai` `Prompt`, and back.
 *
 * The conversion exists so that the whole `effect/ai` bridge (`PromptWindow`, `StableWindow`)
 * fits AI SDK calls unchanged. It goes one way only in substance: every provider message becomes
 * one `effect/ai` message that renders and groups the same (tool calls with their results by call
 * id, reasoning in its assistant message), and {@link Converted.back} returns the *original*
 * provider message objects for the messages of a fitted prompt — untouched, so that providers
 * see exactly what the SDK built (provider options, file data, signatures). Only a message the
 * window made itself (a tool result shortened by rule K6, a summary, a document) is converted
 * back from its `effect/ai` form.
 *
 * The same for the SDK's `ModelMessage` (what `prepareStep` sees): {@link toModelMessage},
 * {@link fromModelMessage}, {@link convertModelMessages}.
 *
 * Only types come from `ai`: this module loads nothing of it.
 *
 * @since 0.3.0
 */
import { Prompt } from "effect/ai"
import * as MediaTokens from "../ai/MediaTokens.ts"
import type { LanguageModelMiddleware, ModelMessage } from "ai"

/**
 * The options of one provider call, as a middleware's `transformParams` receives them.
 *
 * @since 0.3.0
 * @category models
 */
export type CallOptions = Parameters<NonNullable<LanguageModelMiddleware["transformParams"]>>[0]["params"]

/**
 * The provider-level prompt: system, user, assistant and tool messages.
 *
 * @since 0.3.0
 * @category models
 */
export type ProviderPrompt = CallOptions["prompt"]

/**
 * One message of a {@link ProviderPrompt}.
 *
 * @since 0.3.0
 * @category models
 */
export type ProviderMessage = ProviderPrompt[number]

type AssistantPart = Extract<ProviderMessage, { role: "assistant" }>["content"][number]
type ToolPart = Extract<ProviderMessage, { role: "tool" }>["content"][number]
type ToolResultPart = Extract<AssistantPart, { type: "tool-result" }>
type ToolResultOutput = ToolResultPart["output"]

/**
 * A provider prompt converted: the `effect/ai` prompt (one message per provider message, in
 * order), and the way back.
 *
 * @since 0.3.0
 * @category models
 */
export interface Converted {
  readonly prompt: Prompt.Prompt
  /**
   * The provider messages of a prompt made of this prompt's messages (a fitted window): each
   * original provider object where the message is one of this prompt's, else its conversion.
   */
  readonly back: (prompt: Prompt.Prompt) => ProviderPrompt
}

// A tool result's value as the effect/ai part holds it: the text or JSON the provider would
// send, so that `PromptWindow.render` (what is counted and compared) reads the same content.
// The tool outputs of the provider prompt and of `ModelMessage` differ only in their content parts.
type AnyOutput =
  | { readonly type: "text" | "json" | "content"; readonly value: unknown }
  | { readonly type: "error-text" | "error-json"; readonly value: unknown }
  | { readonly type: "execution-denied"; readonly reason?: string | undefined }

const resultOf = (output: AnyOutput): { readonly isFailure: boolean; readonly result: unknown } => {
  switch (output.type) {
    case "execution-denied":
      return { isFailure: true, result: output.reason ?? "execution denied" }
    case "error-text":
    case "error-json":
      return { isFailure: true, result: output.value }
    default:
      return { isFailure: false, result: output.value }
  }
}

const fileOf = (part: {
  readonly mediaType: string
  readonly filename?: string | undefined
  readonly data?: unknown
  readonly providerOptions?: { readonly [provider: string]: unknown } | undefined
}): Prompt.FilePartEncoded => {
  // Files are counted by their name and type, plus their image or PDF estimate (see
  // docs/ai-sdk.md): the data stays in the original provider message, which is what is sent;
  // only its measure (an image's size read from its header, a PDF's pages) is kept here.
  const data = dataOf(part.data)
  const media = data === undefined ? undefined : MediaTokens.measure(part.mediaType, data)
  const detail = detailOf(part.providerOptions?.["openai"])
  const declared = media === undefined && detail === undefined ? undefined : MediaTokens.declare(
    media ?? MediaTokens.measure(part.mediaType, ""),
    detail
  )
  return {
    type: "file",
    mediaType: part.mediaType,
    ...(part.filename === undefined ? {} : { fileName: part.filename }),
    ...(declared === undefined ? {} : { options: { [MediaTokens.optionsKey]: declared } }),
    data: ""
  }
}

/** A file's data as bytes, base64 or a link, in any of the SDK's spellings; else `undefined`. */
const dataOf = (data: unknown): string | Uint8Array | URL | undefined => {
  if (typeof data === "string" || data instanceof Uint8Array || data instanceof URL) return data
  if (data instanceof ArrayBuffer) return new Uint8Array(data)
  if (typeof data !== "object" || data === null || !("type" in data)) return undefined
  // The provider prompt's tagged form: `{ type: "data", data }` or `{ type: "url", url }`.
  if (data.type === "data" && "data" in data) return dataOf(data.data)
  if (data.type === "url" && "url" in data) return dataOf(data.url)
  return undefined
}

/** OpenAI's detail level in a part's provider options (`openai.imageDetail`). */
const detailOf = (options: unknown): MediaTokens.Detail | undefined => {
  if (typeof options !== "object" || options === null || !("imageDetail" in options)) return undefined
  const detail = options.imageDetail
  return detail === "low" || detail === "high" || detail === "auto" ? detail : undefined
}

// The parts both SDK formats (the provider prompt and `ModelMessage`) spell alike, read and
// written by one function each.

const toolResultOf = (
  part: { readonly toolCallId: string; readonly toolName: string; readonly output: AnyOutput }
): Prompt.ToolResultPartEncoded => ({
  type: "tool-result",
  id: part.toolCallId,
  name: part.toolName,
  ...resultOf(part.output)
})

const toolCallOf = (part: {
  readonly toolCallId: string
  readonly toolName: string
  readonly input: unknown
  readonly providerExecuted?: boolean | undefined
}): Prompt.ToolCallPartEncoded => ({
  type: "tool-call",
  id: part.toolCallId,
  name: part.toolName,
  params: part.input,
  ...(part.providerExecuted === undefined ? {} : { providerExecuted: part.providerExecuted })
})

/** An approval response, the same in every format (effect/ai's and both of the SDK's). */
const approvalResponseOf = (part: {
  readonly approvalId: string
  readonly approved: boolean
  readonly reason?: string | undefined
}): { readonly type: "tool-approval-response"; readonly approvalId: string; readonly approved: boolean; readonly reason?: string } => ({
  type: "tool-approval-response",
  approvalId: part.approvalId,
  approved: part.approved,
  ...(part.reason === undefined ? {} : { reason: part.reason })
})

const assistantPartOf = (part: AssistantPart): Prompt.AssistantMessagePartEncoded => {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text }
    case "reasoning":
      return { type: "reasoning", text: part.text }
    case "file":
    case "reasoning-file":
      return fileOf(part)
    case "custom":
      return { type: "text", text: `[${part.kind}]` }
    case "tool-call":
      return toolCallOf(part)
    case "tool-result":
      return toolResultOf(part)
  }
}

const toolPartOf = (part: ToolPart): Prompt.ToolMessagePartEncoded =>
  part.type === "tool-result" ? toolResultOf(part) : approvalResponseOf(part)

/**
 * One provider message as an `effect/ai` message (encoded): system text; user text and files;
 * assistant text, reasoning, files, tool calls and provider-executed results; tool results and
 * approval responses. Provider options are not carried: the original message is what is sent.
 *
 * @since 0.3.0
 * @category conversions
 */
export const toMessage = (message: ProviderMessage): Prompt.MessageEncoded => {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content }
    case "user":
      return {
        role: "user",
        content: message.content.map((part) =>
          part.type === "text" ? { type: "text", text: part.text } : fileOf(part)
        )
      }
    case "assistant":
      return { role: "assistant", content: message.content.map(assistantPartOf) }
    case "tool":
      return { role: "tool", content: message.content.map(toolPartOf) }
  }
}

const outputOf = (part: Prompt.ToolResultPart): ToolResultOutput =>
  typeof part.result === "string"
    ? { type: part.isFailure ? "error-text" : "text", value: part.result }
    : { type: part.isFailure ? "error-text" : "text", value: JSON.stringify(part.result) ?? String(part.result) }

/** A tool result in the SDK's spelling, the same in both its formats. */
const sdkToolResult = (part: Prompt.ToolResultPart) => ({
  type: "tool-result" as const,
  toolCallId: part.id,
  toolName: part.name,
  output: outputOf(part)
})

/**
 * An `effect/ai` assistant part in the SDK's spelling, the same in both its formats: text,
 * reasoning, a file as a text naming it (no data here), a tool call, a tool result. (An approval
 * request is each format's own.)
 */
const sdkAssistantPart = (
  part: Exclude<Prompt.AssistantMessagePart, { readonly type: "tool-approval-request" }>
) => {
  switch (part.type) {
    case "text":
      return { type: "text" as const, text: part.text }
    case "reasoning":
      return { type: "reasoning" as const, text: part.text }
    case "file":
      return { type: "text" as const, text: fileText(part) }
    case "tool-call":
      return {
        type: "tool-call" as const,
        toolCallId: part.id,
        toolName: part.name,
        input: part.params,
        ...(part.providerExecuted ? { providerExecuted: true } : {})
      }
    case "tool-result":
      return sdkToolResult(part)
  }
}

const fileText = (part: Prompt.FilePart): string =>
  `[file ${part.mediaType}${part.fileName === undefined ? "" : ` ${part.fileName}`}]`

/**
 * An `effect/ai` message that has no provider original (a tool result the window shortened, a
 * summary, a document) as a provider message. Tool results become text outputs (a shortened
 * result is text); files, which have no data here, become a text naming them.
 *
 * @since 0.3.0
 * @category conversions
 */
export const fromMessage = (message: Prompt.Message): ProviderMessage => {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content }
    case "user":
      return {
        role: "user",
        content: message.content.map((part) => ({ type: "text", text: part.type === "text" ? part.text : fileText(part) }))
      }
    case "assistant":
      return {
        role: "assistant",
        // The provider prompt carries no approval requests.
        content: message.content.flatMap((part): Array<AssistantPart> =>
          part.type === "tool-approval-request" ? [] : [sdkAssistantPart(part)]
        )
      }
    case "tool":
      return {
        role: "tool",
        content: message.content.map((part): ToolPart =>
          part.type === "tool-result" ? sdkToolResult(part) : approvalResponseOf(part)
        )
      }
  }
}

/**
 * The provider-level prompt carries approval responses without their requests (the request was
 * a response part of an earlier call). So that the window keeps a response with the call it
 * answers, each response whose request is not in the prompt gets one, made up in the `effect/ai`
 * view only, on the nearest earlier assistant message with a tool call (the call it approves):
 * the two are then one group. The made-up part never reaches the provider: the fitted window is
 * sent as the original messages.
 */
const linkApprovals = (encoded: Array<Prompt.MessageEncoded>): Array<Prompt.MessageEncoded> => {
  const requested = new Set<string>()
  for (const message of encoded) {
    if (message.role !== "assistant" || typeof message.content === "string") continue
    for (const part of message.content) if (part.type === "tool-approval-request") requested.add(part.approvalId)
  }
  const out = encoded.slice()
  for (let i = 0; i < out.length; i++) {
    const message = out[i]!
    if (message.role !== "tool") continue
    for (const part of message.content) {
      if (part.type !== "tool-approval-response" || requested.has(part.approvalId)) continue
      for (let j = i - 1; j >= 0; j--) {
        const earlier = out[j]!
        if (earlier.role !== "assistant" || typeof earlier.content === "string") continue
        const call = earlier.content.findLast((p) => p.type === "tool-call")
        if (call === undefined || call.type !== "tool-call") continue
        out[j] = {
          ...earlier,
          content: [...earlier.content, { type: "tool-approval-request", approvalId: part.approvalId, toolCallId: call.id }]
        }
        requested.add(part.approvalId)
        break
      }
    }
  }
  return out
}

/**
 * The `effect/ai` messages made for encoded messages, by their JSON text: the AI SDK hands the
 * middleware new message objects at every call, and a message made again is a message counted
 * again (the `TokenCounter` remembers counts per message object). Bounded: emptied when it holds
 * `limit` messages.
 *
 * @since 0.3.0
 * @category models
 */
export interface MessageMemo {
  readonly messages: Map<string, Prompt.Message>
  readonly limit: number
}

/**
 * An empty {@link MessageMemo}; one per middleware.
 *
 * @since 0.3.0
 * @category constructors
 */
export const makeMessageMemo = (limit = 50_000): MessageMemo => ({ messages: new Map(), limit })

const makePrompt = (encoded: ReadonlyArray<Prompt.MessageEncoded>, memo: MessageMemo | undefined): Prompt.Prompt => {
  if (memo === undefined) return Prompt.make(encoded)
  const made: Array<Prompt.Message> = []
  // A message repeated in one prompt ("yes, do it") gets objects of its own: every position is
  // its own message, which the way back maps to its own original.
  const used = new Set<Prompt.Message>()
  for (const message of encoded) {
    const key = JSON.stringify(message)
    let known = memo.messages.get(key)
    if (known === undefined || used.has(known)) {
      known = Prompt.make([message]).content[0]!
      if (!memo.messages.has(key)) {
        if (memo.messages.size >= memo.limit) memo.messages.clear()
        memo.messages.set(key, known)
      }
    }
    used.add(known)
    made.push(known)
  }
  return Prompt.fromMessages(made)
}

const convertWith = <M>(
  messages: ReadonlyArray<M>,
  to: (message: M) => Prompt.MessageEncoded,
  from: (message: Prompt.Message) => M,
  link: (encoded: Array<Prompt.MessageEncoded>) => Array<Prompt.MessageEncoded> = (encoded) => encoded,
  memo?: MessageMemo
): { readonly prompt: Prompt.Prompt; readonly back: (prompt: Prompt.Prompt) => Array<M> } => {
  const prompt = makePrompt(link(messages.map(to)), memo)
  const originals = new Map<Prompt.Message, M>()
  // Prompt.make makes one message per encoded message, in order.
  prompt.content.forEach((message, i) => {
    const original = messages[i]
    if (original !== undefined) originals.set(message, original)
  })
  return {
    prompt,
    back: (fitted) => fitted.content.map((message) => originals.get(message) ?? from(message))
  }
}

/**
 * Converts a provider prompt, remembering which `effect/ai` message stands for which provider
 * message object.
 *
 * @since 0.3.0
 * @category conversions
 */
export const convert = (provider: ProviderPrompt, memo?: MessageMemo): Converted =>
  convertWith(provider, toMessage, fromMessage, linkApprovals, memo)

type ModelAssistantPart = Exclude<Extract<ModelMessage, { role: "assistant" }>["content"], string>[number]
type ModelToolPart = Extract<ModelMessage, { role: "tool" }>["content"][number]

const modelAssistantPartOf = (part: ModelAssistantPart): Prompt.AssistantMessagePartEncoded => {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text }
    case "reasoning":
      return { type: "reasoning", text: part.text }
    case "file":
      return fileOf(part)
    case "reasoning-file":
      return fileOf(part)
    case "custom":
      return { type: "text", text: `[${part.kind}]` }
    case "tool-call":
      return toolCallOf(part)
    case "tool-result":
      return toolResultOf(part)
    case "tool-approval-request":
      return { type: "tool-approval-request", approvalId: part.approvalId, toolCallId: part.toolCallId }
  }
}

/**
 * One `ModelMessage` (what `generateText`'s `prepareStep` sees) as an `effect/ai` message: as
 * {@link toMessage}, with string contents as one text part and images as files.
 *
 * @since 0.3.0
 * @category conversions
 */
export const toModelMessage = (message: ModelMessage): Prompt.MessageEncoded => {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content }
    case "user":
      return {
        role: "user",
        content: typeof message.content === "string" ? message.content : message.content.map((part) => {
          switch (part.type) {
            case "text":
              return { type: "text", text: part.text }
            case "image":
              return fileOf({ ...part, mediaType: part.mediaType ?? "image", data: part.image })
            case "file":
              return fileOf(part)
          }
        })
      }
    case "assistant":
      return {
        role: "assistant",
        content: typeof message.content === "string" ? message.content : message.content.map(modelAssistantPartOf)
      }
    case "tool":
      return {
        role: "tool",
        content: message.content.map((part) =>
          part.type === "tool-result" ? toolResultOf(part) : approvalResponseOf(part)
        )
      }
  }
}


/**
 * An `effect/ai` message the window made (a shortened tool result) as a `ModelMessage`, as
 * {@link fromMessage} does for the provider prompt.
 *
 * @since 0.3.0
 * @category conversions
 */
export const fromModelMessage = (message: Prompt.Message): ModelMessage => {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content }
    case "user":
      return {
        role: "user",
        content: message.content.map((part) => ({ type: "text", text: part.type === "text" ? part.text : fileText(part) }))
      }
    case "assistant":
      return {
        role: "assistant",
        // A ModelMessage carries its approval requests.
        content: message.content.map((part): ModelAssistantPart =>
          part.type === "tool-approval-request"
            ? { type: "tool-approval-request", approvalId: part.approvalId, toolCallId: part.toolCallId }
            : sdkAssistantPart(part)
        )
      }
    case "tool":
      return {
        role: "tool",
        content: message.content.map((part): ModelToolPart =>
          part.type === "tool-result" ? sdkToolResult(part) : approvalResponseOf(part)
        )
      }
  }
}

/**
 * Converts a step's `ModelMessage`s, remembering which `effect/ai` message stands for which
 * original object; `back` returns the originals (and converts the window's own messages).
 *
 * @since 0.3.0
 * @category conversions
 */
export const convertModelMessages = (
  messages: ReadonlyArray<ModelMessage>,
  memo?: MessageMemo
): { readonly prompt: Prompt.Prompt; readonly back: (prompt: Prompt.Prompt) => Array<ModelMessage> } =>
  convertWith(messages, toModelMessage, fromModelMessage, undefined, memo)
