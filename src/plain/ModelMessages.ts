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
 * {@link convert} checks and converts in one pass, and remembers the prompt message made for a
 * message's content (docs/design.md item 83): a message equal to one seen before — the same
 * object or a fresh copy — is neither checked nor converted again, and is the same prompt
 * message object, whose token count the counter then remembers. A message holding binary data
 * (a `Uint8Array`, a `URL`) is converted at every call.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import { Prompt } from "effect/ai"
import * as AiSdkPrompt from "../adapters/AiSdkPrompt.ts"
import * as ContentMemo from "../internal/contentMemo.ts"
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

/** The shape's {@link InvalidInput} of a message, or `undefined`. */
const shapeProblem = (message: unknown, i: number): InvalidInput | undefined => {
  if (isModelMessage(message)) return undefined
  const [field, problem] = problemOf(message) ?? ["", "is not a ModelMessage"]
  return new InvalidInput({ index: i, field, problem })
}

/** The prompt message of a message of the right shape, or the {@link InvalidInput} naming it. */
const convertChecked = (message: ModelMessage, i: number): Prompt.Message | InvalidInput => {
  try {
    const converted = Prompt.make([AiSdkPrompt.toModelMessage(message)]).content[0]
    if (converted === undefined) throw new Error("no prompt message")
    return converted
  } catch (cause) {
    return new InvalidInput({ index: i, field: "", problem: `is not a ModelMessage: ${describeThrown(cause)}` })
  }
}

/**
 * The prompt messages made for messages' contents, in this module (a pure function's memo: a
 * content seen in any conversation converts to the same message). Bounded (`ContentMemo`).
 */
const conversions = ContentMemo.make<Prompt.Message>()

/**
 * {@link decode} then {@link toPromptMessages}, in one pass, with the same result and the same
 * failure (a message of the wrong shape anywhere before a message the prompt schema refuses):
 * prompt message `i` is message `i`'s. A message whose content was checked and converted
 * before (by any call) is not checked again, and gives the same prompt message object as then;
 * a content that stands twice in the input gives two objects.
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
    const call = conversions.call()
    const out: Array<Prompt.Message> = []
    let failure: InvalidInput | undefined
    // One conversion closure for the call, reading `message` and `i` (design item 137), not a
    // closure a message: the memo calls it at once, for the message being read.
    let message: unknown
    let i = 0
    const make = (): Prompt.Message | undefined => {
      failure = shapeProblem(message, i)
      if (failure !== undefined || !isModelMessage(message)) return undefined
      const made = convertChecked(message, i)
      if (made instanceof InvalidInput) {
        failure = made
        return undefined
      }
      return made
    }
    for (; i < items.length; i++) {
      message = items[i]
      const converted = call.get(message, make)
      if (converted !== undefined) {
        out.push(converted)
        continue
      }
      // Message i failed by its shape (the first such: every earlier one had the right shape),
      // or by the prompt schema: then a later message of the wrong shape is the failure, as
      // `decode` checks every shape before anything is converted.
      if (shapeProblem(message, i) === undefined) {
        for (let j = i + 1; j < items.length; j++) {
          const problem = shapeProblem(items[j], j)
          if (problem !== undefined) return Effect.fail(problem)
        }
      }
      return Effect.fail(failure ?? new InvalidInput({ index: i, field: "", problem: "is not a ModelMessage" }))
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
