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
import * as Masking from "../ai/Masking.ts"
import * as MediaTokens from "../ai/MediaTokens.ts"
import type { LanguageModelMiddleware, ModelMessage } from "ai"
import * as ContentMemo from "../internal/contentMemo.ts"

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

/**
 * A user's file part as the provider's: its data, when it has any, goes with it (design item
 * 101: a message written with an image is sent with the image, and counted by the image's
 * rule). A part converted from the SDK holds no data (only its measure): it stays a text
 * naming it, as the original provider message is what is sent.
 */
const providerFile = (part: Prompt.FilePart) => {
  const data = part.data
  const has = data instanceof URL || (typeof data === "string" ? data.length > 0 : data.byteLength > 0)
  if (!has) return { type: "text" as const, text: fileText(part) }
  return {
    type: "file" as const,
    mediaType: part.mediaType,
    ...(part.fileName === undefined ? {} : { filename: part.fileName }),
    data: data instanceof URL ? { type: "url" as const, url: data } : { type: "data" as const, data }
  }
}

/** A user's file part as a `ModelMessage`'s: with its data when it has any (as {@link providerFile}). */
const modelFile = (part: Prompt.FilePart) => {
  const data = part.data
  const has = data instanceof URL || (typeof data === "string" ? data.length > 0 : data.byteLength > 0)
  if (!has) return { type: "text" as const, text: fileText(part) }
  return {
    type: "file" as const,
    mediaType: part.mediaType,
    ...(part.fileName === undefined ? {} : { filename: part.fileName }),
    data
  }
}

const fileText = (part: Prompt.FilePart): string =>
  `[file ${part.mediaType}${part.fileName === undefined ? "" : ` ${part.fileName}`}]`

/**
 * An `effect/ai` message that has no provider original (a tool result the window shortened, a
 * summary, a document) as a provider message. Tool results become text outputs (a shortened
 * result is text); a user's file with data is sent with its data, a file without (or an
 * assistant's) becomes a text naming it.
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
        content: message.content.map((part) =>
          part.type === "text" ? { type: "text" as const, text: part.text } : providerFile(part)
        )
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

/** An approval request made up for an assistant message (see {@link approvalLinks}). */
interface MadeUpRequest {
  readonly approvalId: string
  readonly toolCallId: string
}

/**
 * The provider-level prompt carries approval responses without their requests (the request was
 * a response part of an earlier call). So that the window keeps a response with the call it
 * answers, each response whose request is not in the prompt gets one, made up in the `effect/ai`
 * view only, on the nearest earlier assistant message with a tool call (the call it approves):
 * the two are then one group. The made-up part never reaches the provider: the fitted window is
 * sent as the original messages. By message index: most prompts have none.
 */
const approvalLinks = (messages: ProviderPrompt): Map<number, Array<MadeUpRequest>> | undefined => {
  let links: Map<number, Array<MadeUpRequest>> | undefined
  let requested: Set<string> | undefined
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!
    if (message.role !== "tool") continue
    for (const part of message.content) {
      if (part.type !== "tool-approval-response") continue
      // The provider prompt's assistant messages carry no approval requests: only those made
      // up here are requested.
      requested ??= new Set()
      if (requested.has(part.approvalId)) continue
      for (let j = i - 1; j >= 0; j--) {
        const earlier = messages[j]!
        if (earlier.role !== "assistant") continue
        const call = earlier.content.findLast((p) => p.type === "tool-call")
        if (call === undefined || call.type !== "tool-call") continue
        links ??= new Map()
        const made = links.get(j)
        const request = { approvalId: part.approvalId, toolCallId: call.toolCallId }
        if (made === undefined) links.set(j, [request])
        else made.push(request)
        requested.add(part.approvalId)
        break
      }
    }
  }
  return links
}

/** An encoded assistant message with the made-up approval requests after its parts. */
const withRequests = (encoded: Prompt.MessageEncoded, made: ReadonlyArray<MadeUpRequest> | undefined): Prompt.MessageEncoded =>
  made === undefined || encoded.role !== "assistant" || typeof encoded.content === "string"
    ? encoded
    : {
      ...encoded,
      content: [...encoded.content, ...made.map((m) => ({ type: "tool-approval-request" as const, ...m }))]
    }

/**
 * The `effect/ai` messages made for the SDK's messages, by their content (docs/design.md item
 * 83): the AI SDK hands the middleware new message objects at every call, and a message made
 * again is a message counted again (the `TokenCounter` remembers counts per message object).
 * A message equal to one seen before — the same object or a new one of equal content — is not
 * converted again, and is the same `effect/ai` message; a content repeated within one prompt
 * gets a message of its own for each position. Bounded: at most `limit` contents, the least
 * recently used forgotten first.
 *
 * @since 0.3.0
 * @category models
 */
export interface MessageMemo extends ContentMemo.ContentMemo<Prompt.Message> {
  readonly limit: number
}

/**
 * An empty {@link MessageMemo}; one per middleware.
 *
 * @since 0.3.0
 * @category constructors
 */
export const makeMessageMemo = (limit = 50_000): MessageMemo => ({
  ...ContentMemo.make<Prompt.Message>({ entries: limit, characters: 64_000_000 }),
  limit
})

/**
 * A user message's parts with the ones a masked copy replaced (an image, by its stub) replaced
 * by the copy's text, the others the caller's own (rule X6, docs/design.md item 121): one part a
 * part, in order, as {@link toMessage} and {@link toModelMessage} convert a user message's parts;
 * `undefined` when the parts do not line up (the copy is then sent as {@link fromMessage} makes it).
 */
const maskedParts = <P>(
  parts: ReadonlyArray<P>,
  source: Prompt.Message,
  edited: Prompt.Message
): Array<P | { readonly type: "text"; readonly text: string }> | undefined => {
  if (source.role !== "user" || edited.role !== "user") return undefined
  if (parts.length !== source.content.length || edited.content.length !== source.content.length) return undefined
  const out: Array<P | { readonly type: "text"; readonly text: string }> = []
  for (let i = 0; i < parts.length; i++) {
    const part = edited.content[i]!
    if (part === source.content[i]) out.push(parts[i]!)
    else if (part.type === "text") out.push({ type: "text", text: part.text })
    else return undefined
  }
  return out
}

/** A masked copy of a provider user message, as the caller's message with its images' stubs. */
const maskedProvider = (original: ProviderMessage, source: Prompt.Message, edited: Prompt.Message): ProviderMessage | undefined => {
  if (original.role !== "user") return undefined
  const content = maskedParts(original.content, source, edited)
  return content === undefined ? undefined : { ...original, content }
}

/** A masked copy of a `ModelMessage` user message, as the caller's message with its images' stubs. */
const maskedModel = (original: ModelMessage, source: Prompt.Message, edited: Prompt.Message): ModelMessage | undefined => {
  if (original.role !== "user" || typeof original.content === "string") return undefined
  const content = maskedParts(original.content, source, edited)
  return content === undefined ? undefined : { ...original, content }
}

const convertWith = <M>(
  messages: ReadonlyArray<M>,
  to: (message: M) => Prompt.MessageEncoded,
  from: (message: Prompt.Message) => M,
  links: ReadonlyMap<number, ReadonlyArray<MadeUpRequest>> | undefined,
  memo: MessageMemo | undefined,
  masked: (original: M, source: Prompt.Message, edited: Prompt.Message) => M | undefined
): { readonly prompt: Prompt.Prompt; readonly back: (prompt: Prompt.Prompt) => Array<M> } => {
  const encodedOf = (message: M, i: number) => withRequests(to(message), links?.get(i))
  let made: ReadonlyArray<Prompt.Message>
  if (memo === undefined) made = Prompt.make(messages.map(encodedOf)).content
  else {
    const call = memo.call()
    const out: Array<Prompt.Message> = []
    // One conversion closure for the call, reading `message` and `i` (design item 137): a
    // closure a message was a sixth of what a step allocated.
    let message: M
    let i = 0
    const make = () => Prompt.make([encodedOf(message, i)]).content[0]
    for (; i < messages.length; i++) {
      message = messages[i]!
      const requests = links?.get(i)
      // A made-up request is part of the message's effect/ai form: part of its key.
      const key = requests === undefined ? message : [message, requests]
      const known = call.get(key, make)
      if (known === undefined) throw new Error(`message ${i} converts to no effect/ai message`)
      out.push(known)
    }
    made = out
  }
  const prompt = Prompt.fromMessages(made)
  const content = prompt.content
  // One effect/ai message per SDK message, in order: message `i` of the prompt stands for the
  // caller's message `i`. A window keeps the prompt's order (it leaves messages out), so each
  // message is looked for from just after the last one found, then before it, by pointer
  // comparisons — a message made anew (a reference, a stub, a summary) is in neither — up to
  // sixteen times the prompt's length of them a window (a few microseconds); past that, in a
  // map of the prompt, made then. The map was made at every call: a thousand entries.
  let positions: Map<Prompt.Message, number> | undefined
  let next = 0
  let scans = 0
  const originalOf = (message: Prompt.Message): M | undefined => {
    if (positions === undefined && scans <= 16 * content.length) {
      for (let i = next; i < content.length; i++) {
        if (content[i] === message) {
          scans += i + 1 - next
          next = i + 1
          return messages[i]
        }
      }
      for (let i = 0; i < next; i++) {
        if (content[i] === message) {
          scans += content.length
          next = i + 1
          return messages[i]
        }
      }
      scans += content.length
      return undefined
    }
    if (positions === undefined) {
      positions = new Map()
      for (let i = 0; i < content.length; i++) positions.set(content[i]!, i)
    }
    const found = positions.get(message)
    return found === undefined ? undefined : messages[found]
  }
  // A masked copy of one of the caller's messages: the caller's message, its images' stubs in.
  const maskedOf = (message: Prompt.Message): M | undefined => {
    const source = Masking.sourceOf(message)
    const original = source === undefined ? undefined : originalOf(source)
    return original === undefined || source === undefined ? undefined : masked(original, source, message)
  }
  return {
    prompt,
    back: (fitted) => {
      next = 0
      scans = 0
      return fitted.content.map((message) => originalOf(message) ?? maskedOf(message) ?? from(message))
    }
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
  convertWith(provider, toMessage, fromMessage, approvalLinks(provider), memo, maskedProvider)

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
        content: message.content.map((part) =>
          part.type === "text" ? { type: "text" as const, text: part.text } : modelFile(part)
        )
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
  convertWith(messages, toModelMessage, fromModelMessage, undefined, memo, maskedModel)
