/**
 * LangChainPrompt: LangChain.js messages (`@langchain/core`'s `BaseMessage`s: `SystemMessage`,
 * `HumanMessage`, `AIMessage`, `ToolMessage`) as an `effect/ai` `Prompt`, and back — what
 * `AiSdkPrompt` is for the AI SDK.
 *
 * Every LangChain message becomes one `effect/ai` message that renders and groups the same:
 * an `AIMessage`'s `tool_calls` are tool-call parts (its `tool_use` content blocks, which repeat
 * them, are not read twice), its `thinking` / `reasoning` blocks are reasoning parts of the same
 * message (so that a window keeps them with their tool calls), a `ToolMessage` is a tool result
 * answering its `tool_call_id` (a failure when its `status` is `"error"`). {@link Converted.back}
 * returns the *original* message objects for the messages of a fitted prompt, untouched; only a
 * message the window made itself (a tool result shortened by rule K6, a summary) is made anew,
 * with the message classes the caller passes ({@link Classes}) — so this module loads nothing
 * of `@langchain/core`: only its types are read.
 *
 * @since 0.3.0
 */
import type { BaseMessage } from "@langchain/core/messages"
import { Prompt } from "effect/ai"
import * as Masking from "../ai/Masking.ts"
import * as MediaTokens from "../ai/MediaTokens.ts"

/**
 * The message classes {@link Converted.back} makes the window's own messages with: those of
 * `@langchain/core/messages`, passed in by the caller (`LangChain` loads them when it first
 * needs them), so that this module does not load `@langchain/core` itself.
 *
 * @since 0.3.0
 * @category models
 */
export interface Classes {
  readonly SystemMessage: new(fields: { content: Content; id?: string; name?: string }) => BaseMessage
  readonly HumanMessage: new(fields: { content: Content; id?: string; name?: string }) => BaseMessage
  readonly AIMessage: new(fields: {
    content: Content
    id?: string
    name?: string
    tool_calls?: Array<{ id: string; name: string; args: Record<string, unknown>; type: "tool_call" }>
  }) => BaseMessage
  readonly ToolMessage: new(fields: {
    content: Content
    tool_call_id: string
    name?: string
    status?: "success" | "error"
    id?: string
  }) => BaseMessage
}

/**
 * A message's content as the adapter writes it: a text, or content blocks (a text block with
 * Anthropic's `cache_control`).
 *
 * @since 0.3.0
 * @category models
 */
export type Content = string | Array<{ readonly type: string; readonly [key: string]: unknown }>

/**
 * Messages converted: the `effect/ai` prompt (one message per LangChain message, in order), and
 * the way back.
 *
 * @since 0.3.0
 * @category models
 */
export interface Converted<M> {
  readonly prompt: Prompt.Prompt
  /**
   * The LangChain messages of a prompt made of this prompt's messages (a fitted window): each
   * original object where the message is one of this prompt's, else one made with `classes`
   * (a K6-shortened tool result is a copy of its `ToolMessage` with the shortened text).
   */
  readonly back: (prompt: Prompt.Prompt, classes: Classes) => Array<M | BaseMessage>
}

const isRecord = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const stringOf = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

/** The content blocks of a message's `content` (a string is one text block). */
const blocksOf = (content: unknown): ReadonlyArray<{ readonly [key: string]: unknown }> =>
  typeof content === "string"
    ? [{ type: "text", text: content }]
    : Array.isArray(content)
    ? content.map((block: unknown) => (typeof block === "string" ? { type: "text", text: block } : isRecord(block) ? block : {}))
    : []

/**
 * The text of a content (its text blocks, joined): what a system message, a tool result and a
 * summary are read as.
 *
 * @since 0.3.0
 * @category conversions
 */
export const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : blocksOf(content).map((block) => (block["type"] === "text" ? stringOf(block["text"]) ?? "" : "")).join("")

/**
 * A block's own Anthropic `cache_control` (the caller's mark) as `effect/ai` options, which the
 * cache planner counts against Anthropic's four (`PromptCacheMarks`): the caller's marks are kept.
 */
const markOf = (block: { readonly [key: string]: unknown }): { readonly options?: Prompt.ProviderOptions } => {
  const control = block["cache_control"]
  if (!isRecord(control)) return {}
  // What the planner reads of a mark: that it is there, and its lifetime.
  return { options: { anthropic: { cacheControl: control["ttl"] === "1h" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" } } } }
}

/** The caller's mark on any block of a content, as options of the message or part it ends. */
const contentMark = (content: unknown): { readonly options?: Prompt.ProviderOptions } => {
  const marked = blocksOf(content).findLast((block) => isRecord(block["cache_control"]))
  return marked === undefined ? {} : markOf(marked)
}

/** An image or file block as a file part: counted by its kind and, when its data is here, its measure. */
const fileOf = (block: { readonly [key: string]: unknown }): Prompt.FilePartEncoded => {
  const url = block["type"] === "image_url"
    ? (isRecord(block["image_url"]) ? stringOf(block["image_url"]["url"]) : stringOf(block["image_url"]))
    : stringOf(block["url"])
  const base64 = stringOf(block["data"]) ?? stringOf(block["base64"])
  const dataUrl = url === undefined ? undefined : /^data:([^;,]+)(;base64)?,(.*)$/s.exec(url)
  const mediaType = stringOf(block["mime_type"]) ?? stringOf(block["mimeType"]) ?? dataUrl?.[1] ??
    (block["type"] === "image_url" || block["type"] === "image" ? "image/*" : "application/octet-stream")
  const data = base64 ?? dataUrl?.[3] ?? (url === undefined ? undefined : safeUrl(url))
  const declared = data === undefined ? undefined : MediaTokens.declare(MediaTokens.measure(mediaType, data))
  return {
    type: "file",
    mediaType,
    ...(declared === undefined ? {} : { options: { [MediaTokens.optionsKey]: declared } }),
    data: ""
  }
}

const safeUrl = (url: string): URL | undefined => {
  try {
    return new URL(url)
  } catch {
    return undefined
  }
}

const isFileBlock = (type: unknown): boolean =>
  type === "image_url" || type === "image" || type === "file" || type === "audio" || type === "video"

/** A tool result's value: its text, or its blocks as JSON when they are not all text. */
const resultOf = (content: unknown): unknown => {
  if (typeof content === "string") return content
  const blocks = blocksOf(content)
  return blocks.every((block) => block["type"] === "text") ? textOf(content) : blocks
}

/** A LangChain message's kind: its `type` (`human`, `ai`, `system`, `tool`), or a chat message's role. */
const kindOf = (message: BaseMessage): "system" | "user" | "assistant" | "tool" => {
  const type: string = message.type
  switch (type) {
    case "system":
    case "developer":
      return "system"
    case "human":
      return "user"
    case "ai":
      return "assistant"
    case "tool":
      return "tool"
  }
  // A `ChatMessage` (`generic`) carries its role.
  const role = "role" in message ? message.role : undefined
  if (role === "system" || role === "developer") return "system"
  if (role === "assistant" || role === "ai") return "assistant"
  if (role === "user" || role === "human") return "user"
  throw new Error(`a message of type ${JSON.stringify(type)} is not a system, human, ai or tool message`)
}

/** An `AIMessage`'s tool calls (`tool_calls`), each with an id (one made from its place when it has none). */
const toolCallsOf = (message: BaseMessage, at: number): Array<{ id: string; name: string; args: unknown }> => {
  const calls = "tool_calls" in message && Array.isArray(message.tool_calls) ? message.tool_calls : []
  return calls.flatMap((call: unknown, k: number) =>
    isRecord(call) && typeof call["name"] === "string"
      ? [{ id: stringOf(call["id"]) ?? `lc_call_${at}_${k}`, name: call["name"], args: call["args"] ?? {} }]
      : []
  )
}

const assistantPartsOf = (message: BaseMessage, at: number): Array<Prompt.AssistantMessagePartEncoded> => {
  const parts: Array<Prompt.AssistantMessagePartEncoded> = []
  for (const block of blocksOf(message.content)) {
    const type = block["type"]
    if (type === "text") {
      const text = stringOf(block["text"]) ?? ""
      if (text !== "") parts.push({ type: "text", text, ...markOf(block) })
    } else if (type === "thinking") parts.push({ type: "reasoning", text: stringOf(block["thinking"]) ?? "" })
    else if (type === "reasoning") {
      parts.push({ type: "reasoning", text: stringOf(block["reasoning"]) ?? stringOf(block["text"]) ?? "" })
    } else if (type === "redacted_thinking") parts.push({ type: "reasoning", text: stringOf(block["data"]) ?? "" })
    else if (isFileBlock(type)) parts.push(fileOf(block))
    // `tool_use` / `tool_call` blocks repeat `tool_calls`, read below.
  }
  for (const call of toolCallsOf(message, at)) parts.push({ type: "tool-call", id: call.id, name: call.name, params: call.args })
  return parts
}

/**
 * One LangChain message as an `effect/ai` message (encoded): system text; user text and files;
 * assistant text, reasoning (thinking) blocks and tool calls; a tool result. `names` gives a
 * tool result's tool name by call id when its `ToolMessage` has none.
 *
 * @since 0.3.0
 * @category conversions
 */
export const toMessage = (
  message: BaseMessage,
  at = 0,
  names: ReadonlyMap<string, string> = new Map()
): Prompt.MessageEncoded => {
  switch (kindOf(message)) {
    case "system":
      return { role: "system", content: textOf(message.content), ...contentMark(message.content) }
    case "user":
      return {
        role: "user",
        content: blocksOf(message.content).flatMap((block): Array<Prompt.UserMessagePartEncoded> =>
          block["type"] === "text"
            ? [{ type: "text", text: stringOf(block["text"]) ?? "", ...markOf(block) }]
            : isFileBlock(block["type"])
            ? [fileOf(block)]
            : []
        )
      }
    case "assistant":
      return { role: "assistant", content: assistantPartsOf(message, at) }
    case "tool": {
      const id = "tool_call_id" in message && typeof message.tool_call_id === "string" ? message.tool_call_id : ""
      const status = "status" in message ? message.status : undefined
      return {
        role: "tool",
        content: [{
          type: "tool-result",
          id,
          name: message.name ?? names.get(id) ?? "tool",
          isFailure: status === "error",
          result: resultOf(message.content),
          ...contentMark(message.content)
        }]
      }
    }
  }
}

/** The text a window's own message is sent as (a file part has no data here: its name). */
const partText = (part: Prompt.Part): string => {
  switch (part.type) {
    case "text":
    case "reasoning":
      return part.text
    case "file":
      return `[file ${part.mediaType}${part.fileName === undefined ? "" : ` ${part.fileName}`}]`
    case "tool-result":
      return typeof part.result === "string" ? part.result : JSON.stringify(part.result) ?? String(part.result)
    default:
      return ""
  }
}

/**
 * An `effect/ai` message the window made (a summary, a shortened tool result) as a LangChain
 * message of `classes`; `original` is the `ToolMessage` a shortened result stands for, whose
 * name, status and id it keeps.
 *
 * @since 0.3.0
 * @category conversions
 */
export const fromMessage = (message: Prompt.Message, classes: Classes, original?: BaseMessage): BaseMessage => {
  switch (message.role) {
    case "system":
      return new classes.SystemMessage({ content: message.content })
    case "user":
      return new classes.HumanMessage({ content: message.content.map(partText).join("") })
    case "assistant": {
      const calls = message.content.flatMap((part) =>
        part.type === "tool-call"
          ? [{ id: part.id, name: part.name, args: isRecord(part.params) ? { ...part.params } : {}, type: "tool_call" as const }]
          : []
      )
      const content = message.content.filter((part) => part.type === "text" || part.type === "reasoning").map(partText).join("")
      return new classes.AIMessage(calls.length === 0 ? { content } : { content, tool_calls: calls })
    }
    case "tool": {
      const result = message.content.find((part) => part.type === "tool-result")
      const status = original !== undefined && "status" in original ? original.status : undefined
      return new classes.ToolMessage({
        content: result === undefined ? "" : partText(result),
        tool_call_id: result?.id ?? "",
        ...(original?.name === undefined ? result === undefined ? {} : { name: result.name } : { name: original.name }),
        ...(status === "success" || status === "error" ? { status } : result?.isFailure ? { status: "error" as const } : {}),
        ...(original?.id === undefined ? {} : { id: original.id })
      })
    }
  }
}

/**
 * The `effect/ai` messages made for LangChain messages, by message object (docs/design.md item
 * 83, as `AiSdkPrompt.MessageMemo` does by content): an agent's state hands the middleware the
 * same message objects at every call, and a message converted again would be counted again.
 * LangChain messages are class instances, which a content memo does not key; a message is
 * remembered with the content it had (`content`, `tool_calls`, `status`, `name` compared by
 * identity), so a message changed in place is converted again. Weak: a message the agent
 * forgot is forgotten here.
 *
 * @since 0.3.0
 * @category models
 */
export interface MessageMemo {
  readonly seen: WeakMap<object, { readonly fields: ReadonlyArray<unknown>; readonly message: Prompt.Message }>
}

/**
 * An empty {@link MessageMemo}; one per middleware.
 *
 * @since 0.3.0
 * @category constructors
 */
export const makeMessageMemo = (): MessageMemo => ({ seen: new WeakMap() })

/** The fields of a message its conversion reads (compared by identity). */
const fieldsOf = (message: BaseMessage): ReadonlyArray<unknown> => [
  message.content,
  message.type,
  message.name,
  "tool_calls" in message ? message.tool_calls : undefined,
  "tool_call_id" in message ? message.tool_call_id : undefined,
  "status" in message ? message.status : undefined
]

/**
 * A masked copy of a caller's `HumanMessage` (rule X6: its images replaced by their stubs) as
 * the caller's message with those blocks replaced by the stubs' text blocks, its other blocks
 * (a PDF, a text with its `cache_control`) and its id and name as the caller made them
 * (docs/design.md item 121); `undefined` when the blocks and the parts do not line up.
 */
const maskedHuman = (original: BaseMessage, source: Prompt.Message, edited: Prompt.Message, classes: Classes): BaseMessage | undefined => {
  if (source.role !== "user" || edited.role !== "user" || edited.content.length !== source.content.length) return undefined
  const blocks = blocksOf(original.content)
  const content: Array<{ readonly type: string; readonly [key: string]: unknown }> = []
  // The parts are the text and file blocks, in order (`toMessage`); other blocks stay as they are.
  let k = 0
  for (const block of blocks) {
    if (block["type"] !== "text" && !isFileBlock(block["type"])) {
      content.push({ type: String(block["type"]), ...block })
      continue
    }
    const part = edited.content[k]
    if (part === undefined) return undefined
    if (part === source.content[k]) content.push({ type: String(block["type"]), ...block })
    else if (part.type === "text") content.push({ type: "text", text: part.text })
    else return undefined
    k++
  }
  if (k !== edited.content.length) return undefined
  return new classes.HumanMessage({
    content,
    ...(original.id === undefined ? {} : { id: original.id }),
    ...(original.name === undefined ? {} : { name: original.name })
  })
}

const sameFields = (a: ReadonlyArray<unknown>, b: ReadonlyArray<unknown>): boolean =>
  a.length === b.length && a.every((value, i) => value === b[i])

/**
 * Converts LangChain messages, remembering which `effect/ai` message stands for which original
 * object. A message that is not a system, human, ai or tool message throws (the adapter rejects
 * the call with it).
 *
 * @since 0.3.0
 * @category conversions
 */
export const convert = <M extends BaseMessage>(messages: ReadonlyArray<M>, memo?: MessageMemo): Converted<M> => {
  const names = new Map<string, string>()
  const made: Array<Prompt.Message> = []
  const used = new Set<Prompt.Message>()
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!
    for (const c of toolCallsOf(message, i)) names.set(c.id, c.name)
    const fields = memo === undefined ? [] : fieldsOf(message)
    const known = memo?.seen.get(message)
    // One object twice in a history is two messages of the prompt: the second is made anew.
    const current = known !== undefined && sameFields(known.fields, fields)
    let one = current && !used.has(known.message) ? known.message : undefined
    if (one === undefined) {
      one = Prompt.make([toMessage(message, i, names)]).content[0]
      if (one === undefined) throw new Error(`message ${i} converts to no effect/ai message`)
      if (memo !== undefined && !current) memo.seen.set(message, { fields, message: one })
    }
    used.add(one)
    made.push(one)
  }
  const prompt = Prompt.fromMessages(made)
  const originals = new Map<Prompt.Message, M>()
  const byCallId = new Map<string, M>()
  prompt.content.forEach((message, i) => {
    const original = messages[i]
    if (original === undefined) return
    originals.set(message, original)
    if (message.role === "tool") for (const part of message.content) if (part.type === "tool-result") byCallId.set(part.id, original)
  })
  return {
    prompt,
    back: (fitted, classes) =>
      fitted.content.map((message) => {
        const known = originals.get(message)
        if (known !== undefined) return known
        const source = Masking.sourceOf(message)
        const original = source === undefined ? undefined : originals.get(source)
        const masked = original === undefined || source === undefined ? undefined : maskedHuman(original, source, message, classes)
        if (masked !== undefined) return masked
        const id = message.role === "tool" ? message.content.find((part) => part.type === "tool-result")?.id : undefined
        return fromMessage(message, classes, id === undefined ? undefined : byCallId.get(id))
      })
  }
}
