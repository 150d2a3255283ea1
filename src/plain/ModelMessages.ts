/**
 * ModelMessages: the AI SDK's `ModelMessage`s (what `generateText`'s `messages` and
 * `prepareStep` hold) checked and turned into `effect/ai` prompt messages, one for one, for
 * `Trim.trimModelMessages`.
 *
 * The conversion is the AI SDK adapter's (`adapters/AiSdkPrompt.toModelMessage`): string
 * contents as one text part, images and files by their media type and their measure (an
 * image's size, a PDF's pages: `MediaTokens`; the data is not copied),
 * tool calls and results grouped by `toolCallId`. Only the SDK's types are used: nothing of `ai`
 * is loaded, and a caller without `ai` installed can pass plain objects of that shape.
 *
 * Message `i` of the input is prompt message `i`.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import { Prompt } from "effect/ai"
import * as AiSdkPrompt from "../adapters/AiSdkPrompt.ts"
import { describeThrown, describeValue } from "../internal/describeThrown.ts"
import { InvalidInput } from "./InvalidInput.ts"

/**
 * The AI SDK's `ModelMessage` (from `ai`; a type only).
 *
 * @since 0.3.0
 * @category models
 */
export type ModelMessage = Parameters<typeof AiSdkPrompt.toModelMessage>[0]

const partTypes: Readonly<Record<string, ReadonlyArray<string>>> = {
  user: ["text", "image", "file"],
  assistant: ["text", "reasoning", "file", "reasoning-file", "custom", "tool-call", "tool-result", "tool-approval-request"],
  tool: ["tool-result", "tool-approval-response"]
}

const isObject = (u: unknown): u is { readonly [key: string]: unknown } => typeof u === "object" && u !== null

/** The first problem of one message's shape: `[field, problem]`, or `undefined`. */
const problemOf = (message: unknown): readonly [string, string] | undefined => {
  if (!isObject(message)) return ["", `must be an object (got ${describeValue(message)})`]
  const role = message["role"]
  if (role !== "system" && role !== "user" && role !== "assistant" && role !== "tool") {
    return ["role", `must be "system", "user", "assistant" or "tool" (got ${describeValue(role)})`]
  }
  const content = message["content"]
  if (typeof content === "string") {
    return role === "tool" ? ["content", "must be an array of tool-result parts (got a string)"] : undefined
  }
  if (role === "system") return ["content", `must be a string (got ${describeValue(content)})`]
  if (!Array.isArray(content)) return ["content", `must be a string or an array of parts (got ${describeValue(content)})`]
  const parts: ReadonlyArray<unknown> = content
  const allowed = partTypes[role] ?? []
  for (let k = 0; k < parts.length; k++) {
    const part = parts[k]
    const at = `content[${k}]`
    if (!isObject(part)) return [at, `must be an object (got ${describeValue(part)})`]
    const type = part["type"]
    if (typeof type !== "string" || !allowed.includes(type)) {
      return [`${at}.type`, `must be one of ${allowed.join(", ")} in a ${role} message (got ${describeValue(type)})`]
    }
    if ((type === "text" || type === "reasoning") && typeof part["text"] !== "string") {
      return [`${at}.text`, `must be a string (got ${describeValue(part["text"])})`]
    }
    if (type === "tool-call" || type === "tool-result") {
      for (const key of ["toolCallId", "toolName"]) {
        if (typeof part[key] !== "string") return [`${at}.${key}`, `must be a string (got ${describeValue(part[key])})`]
      }
    }
    if (type === "tool-result" && !isObject(part["output"])) {
      return [`${at}.output`, `must be an object such as { type: "text", value } (got ${describeValue(part["output"])})`]
    }
  }
  return undefined
}

// The shape problemOf checks; the prompt schema checks the rest when the message is converted.
const isModelMessage = (u: unknown): u is ModelMessage => problemOf(u) === undefined

/**
 * Checks every message of the input, in order: fails with an {@link InvalidInput} for the first
 * that is not a `ModelMessage` (or when the input is not an array).
 *
 * @since 0.3.0
 * @category decoding
 */
export const decode = (input: unknown): Effect.Effect<ReadonlyArray<ModelMessage>, InvalidInput> =>
  Effect.suspend(() => {
    if (!Array.isArray(input)) {
      return Effect.fail(new InvalidInput({ field: "messages", problem: `must be an array (got ${describeValue(input)})` }))
    }
    const items: ReadonlyArray<unknown> = input
    const out: Array<ModelMessage> = []
    for (let i = 0; i < items.length; i++) {
      const message = items[i]
      if (isModelMessage(message)) {
        out.push(message)
        continue
      }
      const [field, problem] = problemOf(message) ?? ["", "is not a ModelMessage"]
      return Effect.fail(new InvalidInput({ index: i, field, problem }))
    }
    return Effect.succeed(out)
  })

/**
 * The prompt messages of checked messages, one for one. A message the `effect/ai` prompt
 * schema still refuses (a part's field of the wrong type) fails with an {@link InvalidInput}
 * naming it.
 *
 * @since 0.3.0
 * @category converting
 */
export const toPromptMessages = (
  messages: ReadonlyArray<ModelMessage>
): Effect.Effect<Array<Prompt.Message>, InvalidInput> =>
  Effect.suspend(() => {
    const out: Array<Prompt.Message> = []
    for (let i = 0; i < messages.length; i++) {
      try {
        const converted = Prompt.make([AiSdkPrompt.toModelMessage(messages[i]!)]).content[0]
        if (converted === undefined) throw new Error("no prompt message")
        out.push(converted)
      } catch (cause) {
        return Effect.fail(new InvalidInput({ index: i, field: "", problem: `is not a ModelMessage: ${describeThrown(cause)}` }))
      }
    }
    return Effect.succeed(out)
  })

/**
 * A tool message shortened by the window (rule K6) as a copy of the caller's message: its
 * fields kept, its `content` the shortened results.
 *
 * @since 0.3.0
 * @category converting
 */
export const shortenedCopy = <M extends ModelMessage>(original: M, shortened: Prompt.Message): M | undefined => {
  const converted = AiSdkPrompt.fromModelMessage(shortened)
  return original.role === "tool" && converted.role === "tool" ? { ...original, content: converted.content } : undefined
}
