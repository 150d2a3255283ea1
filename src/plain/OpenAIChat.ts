/**
 * OpenAIChat: messages in the OpenAI chat format (`messages` of a Chat Completions request),
 * checked and turned into `effect/ai` prompt messages, one for one.
 *
 * - `system` and `developer` → a system message (text parts joined by newlines);
 * - `user` → a user message: `text` parts as text, `image_url`, `input_audio` and `file` parts
 *   as file parts (a data URL's media type is read from it);
 * - `assistant` → an assistant message: its text (or `refusal`) and one tool-call part per
 *   entry of `tool_calls`, its `arguments` parsed as JSON (kept as the string when they are
 *   not JSON);
 * - `tool` → a tool message with one tool-result part, its id the `tool_call_id` and its name
 *   the called function's (found among the assistant messages' `tool_calls`), its result the
 *   text. `PromptWindow` then groups a call with its results by that id.
 *
 * Message `i` of the input is prompt message `i`: that is how a window of prompt messages is
 * mapped back to the caller's own objects.
 *
 * {@link convert} checks and converts in one pass, and remembers the prompt message made for a
 * message's content (docs/design.md item 83): a message equal to one seen before — the same
 * object, or a fresh copy of it, as a server that parses the history per request has — is
 * neither checked nor converted again, and is the same prompt message object, whose token count
 * the counter then remembers.
 *
 * @since 0.3.0
 */
import { Effect, Result, Schema } from "effect"
import { Prompt } from "effect/ai"
import * as MediaTokens from "../ai/MediaTokens.ts"
import * as ContentMemo from "../internal/contentMemo.ts"
import { describeValue } from "../internal/describeThrown.ts"
import { issuePath } from "./internal/issuePath.ts"
import { InvalidInput } from "./InvalidInput.ts"

const Text = Schema.Struct({ type: Schema.Literal("text"), text: Schema.String })
const ImageUrl = Schema.Struct({
  type: Schema.Literal("image_url"),
  image_url: Schema.Struct({ url: Schema.String, detail: Schema.optional(Schema.String) })
})
const InputAudio = Schema.Struct({
  type: Schema.Literal("input_audio"),
  input_audio: Schema.Struct({ data: Schema.String, format: Schema.String })
})
const File = Schema.Struct({
  type: Schema.Literal("file"),
  file: Schema.Struct({
    file_data: Schema.optional(Schema.String),
    file_id: Schema.optional(Schema.String),
    filename: Schema.optional(Schema.String)
  })
})
const Refusal = Schema.Struct({ type: Schema.Literal("refusal"), refusal: Schema.String })

/**
 * A tool call of an assistant message.
 *
 * @since 0.3.0
 * @category schemas
 */
export const ToolCall = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("function"),
  function: Schema.Struct({ name: Schema.String, arguments: Schema.String })
})

const TextContent = Schema.Union([Schema.String, Schema.Array(Text)])

/**
 * A `system` or `developer` message.
 *
 * @since 0.3.0
 * @category schemas
 */
export const SystemMessage = Schema.Struct({
  role: Schema.Literals(["system", "developer"]),
  content: TextContent,
  name: Schema.optional(Schema.String)
})

/**
 * A `user` message.
 *
 * @since 0.3.0
 * @category schemas
 */
export const UserMessage = Schema.Struct({
  role: Schema.Literal("user"),
  content: Schema.Union([Schema.String, Schema.Array(Schema.Union([Text, ImageUrl, InputAudio, File]))]),
  name: Schema.optional(Schema.String)
})

/**
 * An `assistant` message: text, a refusal, tool calls, or several of these.
 *
 * @since 0.3.0
 * @category schemas
 */
export const AssistantMessage = Schema.Struct({
  role: Schema.Literal("assistant"),
  content: Schema.optional(Schema.NullOr(Schema.Union([Schema.String, Schema.Array(Schema.Union([Text, Refusal]))]))),
  refusal: Schema.optional(Schema.NullOr(Schema.String)),
  tool_calls: Schema.optional(Schema.Array(ToolCall)),
  name: Schema.optional(Schema.String)
})

/**
 * A `tool` message: the result of the call `tool_call_id`.
 *
 * @since 0.3.0
 * @category schemas
 */
export const ToolMessage = Schema.Struct({
  role: Schema.Literal("tool"),
  content: TextContent,
  tool_call_id: Schema.String
})

/**
 * A message in the OpenAI chat format. Other fields a message carries are allowed (and kept:
 * the caller's objects are what a trim returns).
 *
 * @since 0.3.0
 * @category models
 */
export type Message =
  | typeof SystemMessage.Type
  | typeof UserMessage.Type
  | typeof AssistantMessage.Type
  | typeof ToolMessage.Type

const decoders = {
  system: Schema.decodeUnknownResult(SystemMessage),
  user: Schema.decodeUnknownResult(UserMessage),
  assistant: Schema.decodeUnknownResult(AssistantMessage),
  tool: Schema.decodeUnknownResult(ToolMessage)
}

const roles = ["system", "developer", "user", "assistant", "tool"] as const
const isRole = (role: unknown): role is typeof roles[number] => roles.some((r) => r === role)

/** One message, checked; an {@link InvalidInput} naming its index and field otherwise. */
const decodeOne = (input: unknown, index: number): Result.Result<Message, InvalidInput> => {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return Result.fail(new InvalidInput({ index, field: "", problem: "must be a message object ({ role, content })" }))
  }
  const role = "role" in input ? input.role : undefined
  if (!isRole(role)) {
    return Result.fail(new InvalidInput({
      index,
      field: "role",
      problem: `must be one of ${roles.map((r) => `"${r}"`).join(", ")} (got ${describeValue(role)})`
    }))
  }
  const decoded: Result.Result<Message, Schema.SchemaError> = role === "developer"
    ? decoders.system(input)
    : decoders[role](input)
  return Result.mapError(decoded, (error) =>
    new InvalidInput({ index, field: issuePath(error.issue), problem: firstLine(error.message) }))
}

/** The first line of a schema error's message: the problem, without the path it repeats. */
const firstLine = (message: string): string => message.split("\n")[0] ?? message

/**
 * Checks every message of the input, in order: fails with an {@link InvalidInput} for the first
 * that is not in the chat format (or when the input is not an array).
 *
 * @since 0.3.0
 * @category decoding
 */
export const decode = (input: unknown): Effect.Effect<ReadonlyArray<Message>, InvalidInput> =>
  Effect.suspend(() => {
    if (!Array.isArray(input)) {
      return Effect.fail(new InvalidInput({ field: "messages", problem: `must be an array (got ${describeValue(input)})` }))
    }
    const out: Array<Message> = []
    for (let i = 0; i < input.length; i++) {
      const decoded = decodeOne(input[i], i)
      if (Result.isFailure(decoded)) return Effect.fail(decoded.failure)
      out.push(decoded.success)
    }
    return Effect.succeed(out)
  })

/** The text of string-or-parts content: text parts joined by newlines. */
const textOf = (content: string | ReadonlyArray<{ readonly text: string }>): string =>
  typeof content === "string" ? content : content.map((part) => part.text).join("\n")

const isDetail = (detail: string | undefined): detail is MediaTokens.Detail =>
  detail === "low" || detail === "high" || detail === "auto"

/** The media type of a data URL (`data:image/png;base64,…`), else `fallback`. */
const mediaTypeOf = (url: string, fallback: string): string => /^data:([^;,]+)[;,]/.exec(url)?.[1] ?? fallback

/** A tool call's arguments: their JSON value, or the string itself when it is not JSON. */
const paramsOf = (args: string): unknown => {
  try {
    const parsed: unknown = JSON.parse(args)
    return parsed
  } catch {
    return args
  }
}

type UserPart = Exclude<typeof UserMessage.Type["content"], string>[number]

const userPart = (part: UserPart): Prompt.UserMessagePart => {
  switch (part.type) {
    case "text":
      return Prompt.textPart({ text: part.text })
    case "image_url":
      return Prompt.filePart({
        mediaType: mediaTypeOf(part.image_url.url, "image/*"),
        data: part.image_url.url,
        // The detail level decides what the image costs (MediaTokens, OpenAI's rule).
        ...(isDetail(part.image_url.detail) ? { options: { [MediaTokens.optionsKey]: { detail: part.image_url.detail } } } : {})
      })
    case "input_audio":
      return Prompt.filePart({ mediaType: `audio/${part.input_audio.format}`, data: part.input_audio.data })
    case "file": {
      const data = part.file.file_data ?? part.file.file_id ?? ""
      const fileName = part.file.filename
      return Prompt.filePart({
        mediaType: mediaTypeOf(data, "application/octet-stream"),
        data,
        ...(fileName === undefined ? {} : { fileName })
      })
    }
  }
}

/**
 * The names of the functions called, by tool call id, over all assistant messages: what a
 * `tool` message's result part is named after.
 *
 * @since 0.3.0
 * @category converting
 */
export const toolNames = (messages: ReadonlyArray<Message>): Map<string, string> => {
  const names = new Map<string, string>()
  for (const message of messages) {
    if (message.role !== "assistant") continue
    for (const call of message.tool_calls ?? []) names.set(call.id, call.function.name)
  }
  return names
}

/**
 * The prompt message of one checked message. `names` gives a `tool` message's function name
 * ({@link toolNames}); a result whose call is not in the input is named `"unknown"`.
 *
 * @since 0.3.0
 * @category converting
 */
export const toPromptMessage = (message: Message, names: ReadonlyMap<string, string>): Prompt.Message => {
  switch (message.role) {
    case "system":
    case "developer":
      return Prompt.systemMessage({ content: textOf(message.content) })
    case "user":
      return Prompt.userMessage({
        content: typeof message.content === "string"
          ? [Prompt.textPart({ text: message.content })]
          : message.content.map(userPart)
      })
    case "assistant": {
      const content: Array<Prompt.AssistantMessagePart> = []
      const body = message.content
      if (typeof body === "string") {
        if (body.length > 0) content.push(Prompt.textPart({ text: body }))
      } else if (body !== null && body !== undefined) {
        for (const part of body) {
          content.push(Prompt.textPart({ text: part.type === "text" ? part.text : part.refusal }))
        }
      }
      if (typeof message.refusal === "string" && message.refusal.length > 0) {
        content.push(Prompt.textPart({ text: message.refusal }))
      }
      for (const call of message.tool_calls ?? []) {
        content.push(Prompt.toolCallPart({
          id: call.id,
          name: call.function.name,
          params: paramsOf(call.function.arguments),
          providerExecuted: false
        }))
      }
      return Prompt.assistantMessage({ content })
    }
    case "tool":
      return Prompt.toolMessage({
        content: [Prompt.toolResultPart({
          id: message.tool_call_id,
          name: names.get(message.tool_call_id) ?? "unknown",
          isFailure: false,
          result: textOf(message.content),
          providerExecuted: false
        })]
      })
  }
}

/**
 * The prompt messages of checked messages, one for one (prompt message `i` is message `i`'s).
 *
 * @since 0.3.0
 * @category converting
 */
export const toPromptMessages = (messages: ReadonlyArray<Message>): Array<Prompt.Message> => {
  const names = toolNames(messages)
  return messages.map((message) => toPromptMessage(message, names))
}

/**
 * The prompt messages made for messages' contents, in this module (a pure function's memo: a
 * content seen in any conversation converts to the same message). Bounded (`ContentMemo`).
 */
const conversions = ContentMemo.make<Prompt.Message>()

const noNames: ReadonlyMap<string, string> = new Map()

/** A tool call's function name by its id, read from the input before it is checked. */
const rawToolNames = (input: ReadonlyArray<unknown>): Map<string, string> => {
  const names = new Map<string, string>()
  for (const message of input) {
    if (typeof message !== "object" || message === null || !("role" in message) || message.role !== "assistant") continue
    const calls = "tool_calls" in message ? message.tool_calls : undefined
    if (!Array.isArray(calls)) continue
    for (const call of calls) {
      if (typeof call !== "object" || call === null || !("id" in call) || !("function" in call)) continue
      const f = call.function
      if (typeof call.id === "string" && typeof f === "object" && f !== null && "name" in f && typeof f.name === "string") {
        names.set(call.id, f.name)
      }
    }
  }
  return names
}

/**
 * {@link decode} and {@link toPromptMessages} in one pass, the same result and the same first
 * failure: prompt message `i` is message `i`'s. A message whose content was checked and
 * converted before (by any call) is not checked again, and gives the same prompt message object
 * as then; a content that stands twice in the input gives two objects.
 *
 * @since 0.3.0
 * @category converting
 */
export const convert = (input: unknown): Effect.Effect<Array<Prompt.Message>, InvalidInput> =>
  Effect.suspend(() => {
    if (!Array.isArray(input)) {
      return Effect.fail(new InvalidInput({ field: "messages", problem: `must be an array (got ${describeValue(input)})` }))
    }
    const items: ReadonlyArray<unknown> = input
    // A tool message converts with its function's name, read from the other messages: the name
    // is part of its key. Read before checking, these names are those of the checked messages
    // whenever the input is valid, and an invalid input fails before any is used.
    let names: Map<string, string> | undefined
    const call = conversions.call()
    const out: Array<Prompt.Message> = []
    let failure: InvalidInput | undefined
    // One conversion closure and one tool key for the call, read through `message` and `i`
    // (design 130): a closure and a key array a message were a fifth of what a warm call
    // allocated. The memo never keeps a key (it records a copy), so the key array is reused.
    let message: unknown
    let i = 0
    const make = (): Prompt.Message | undefined => {
      const decoded = decodeOne(message, i)
      if (Result.isFailure(decoded)) {
        failure = decoded.failure
        return undefined
      }
      return toPromptMessage(decoded.success, names ?? noNames)
    }
    const toolKey: [unknown, string | null] = [undefined, null]
    for (; i < items.length; i++) {
      message = items[i]
      const current = message
      const isTool = typeof current === "object" && current !== null && "role" in current && current.role === "tool"
      let name: string | undefined
      if (isTool && "tool_call_id" in current && typeof current.tool_call_id === "string") {
        names ??= rawToolNames(items)
        name = names.get(current.tool_call_id)
      }
      if (isTool) {
        toolKey[0] = current
        toolKey[1] = name ?? null
      }
      const converted = call.get(isTool ? toolKey : current, make)
      if (converted === undefined) return Effect.fail(failure ?? new InvalidInput({ index: i, field: "", problem: "is not a message" }))
      out.push(converted)
    }
    return Effect.succeed(out)
  })

/**
 * The text a shortened tool message's result now holds (see `Shorten.shortenMessage`), or
 * `undefined` when it has no string result.
 *
 * @since 0.3.0
 * @category converting
 */
export const resultText = (message: Prompt.Message): string | undefined => {
  if (message.role !== "tool") return undefined
  for (const part of message.content) {
    if (part.type === "tool-result" && typeof part.result === "string") return part.result
  }
  return undefined
}
