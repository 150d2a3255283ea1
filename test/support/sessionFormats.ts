/**
 * A generated session (`test/support/sessions.ts`) in each front door's format, every message
 * carrying its index in the session so that a window in any format reads back as session
 * indices:
 *
 * - {@link toProviderPrompt} — the AI SDK's provider-level prompt (`LanguageModelV4Prompt`, what a
 *   middleware's `transformParams` sees): approval requests are not part of it (the SDK sends
 *   them as response parts of an earlier call), approval responses are (as a provider-executed
 *   approval is); the index rides in each message's `providerOptions`.
 * - {@link toModelMessages} — the AI SDK's `ModelMessage`s (`generateText`'s `messages`,
 *   `prepareStep`, `trimModelMessages`): every part, approval requests included; the index in
 *   `providerOptions`.
 * - {@link toOpenAIChat} — the OpenAI chat format (`trim`): only for a session the format can
 *   carry ({@link chatProjection}); the index in an extra field, which `trim` keeps.
 *
 * {@link withReasoning} adds reasoning parts to a session's assistant messages (the generator
 * makes none), from a PRNG of its own, so that the rest of the session is the seed's.
 * {@link chatProjection} is the session as the chat format can say it: no reasoning, no
 * approvals, a denied call's result as a plain result.
 */
import type { ModelMessage } from "ai"
import { Prompt } from "effect/ai"
import type * as AiSdkPrompt from "../../src/adapters/AiSdkPrompt.ts"
import type * as OpenAIChat from "../../src/plain/OpenAIChat.ts"
import { mulberry32, type Session, type Step } from "./sessions.ts"

/** The `providerOptions` key that carries a message's index in the session. */
export const indexKey = "cupelTest"

/** An OpenAI chat message with its index in the session (an extra field `trim` keeps). */
export type IndexedChatMessage = OpenAIChat.Message & { readonly sessionIndex: number }

/** The index a message of a door's format carries, `undefined` for one the door made itself. */
export const indexOf = (message: unknown): number | undefined => {
  if (typeof message !== "object" || message === null) return undefined
  if ("sessionIndex" in message && typeof message.sessionIndex === "number") return message.sessionIndex
  if (!("providerOptions" in message)) return undefined
  const options = message.providerOptions
  if (typeof options !== "object" || options === null || !(indexKey in options)) return undefined
  const entry: unknown = options[indexKey as keyof typeof options]
  return typeof entry === "object" && entry !== null && "index" in entry && typeof entry.index === "number"
    ? entry.index
    : undefined
}

const indexOptions = (index: number) => ({ [indexKey]: { index } })

type ProviderMessage = AiSdkPrompt.ProviderMessage
type ProviderAssistantPart = Extract<ProviderMessage, { role: "assistant" }>["content"][number]
type ModelAssistantPart = Exclude<Extract<ModelMessage, { role: "assistant" }>["content"], string>[number]

const textOfUser = (message: Prompt.UserMessage): string =>
  message.content.map((part) => (part.type === "text" ? part.text : "")).join("")

type ProviderUserPart = Extract<ProviderMessage, { role: "user" }>["content"][number]
type ModelUserPart = Exclude<Extract<ModelMessage, { role: "user" }>["content"], string>[number]

/** A file part's bytes or text as the SDK formats take them (a URL stays one). */
const fileData = (part: Prompt.FilePart): Uint8Array | string | URL => part.data

/**
 * A user message's parts in the provider prompt: text as text, a file (a screenshot, a PDF) as
 * the SDK's file part with its data tagged (`{ type: "data" }` / `{ type: "url" }`), as
 * `convertToLanguageModelPrompt` makes it.
 */
const providerUserParts = (message: Prompt.UserMessage): Array<ProviderUserPart> =>
  message.content.map((part): ProviderUserPart => {
    if (part.type === "text") return { type: "text", text: part.text }
    const data = fileData(part)
    return {
      type: "file",
      mediaType: part.mediaType,
      data: data instanceof URL ? { type: "url", url: data } : { type: "data", data },
      ...(part.fileName === undefined ? {} : { filename: part.fileName })
    }
  })

/** A user message's parts as a `ModelMessage`'s: an image as an image part, another file as a file part. */
const modelUserParts = (message: Prompt.UserMessage): Array<ModelUserPart> =>
  message.content.map((part): ModelUserPart => {
    if (part.type === "text") return { type: "text", text: part.text }
    return part.mediaType.startsWith("image/") && part.fileName === undefined
      ? { type: "image", image: fileData(part), mediaType: part.mediaType }
      : { type: "file", data: fileData(part), mediaType: part.mediaType, ...(part.fileName === undefined ? {} : { filename: part.fileName }) }
  })

/** A user message's part in the chat format: an image as an `image_url` with a data URL. */
const chatUserPart = (part: Prompt.UserMessagePart) => {
  if (part.type === "text") return { type: "text" as const, text: part.text }
  const data = fileData(part)
  const url = data instanceof URL
    ? data.href
    : typeof data === "string"
    ? `data:${part.mediaType};base64,${data}`
    : `data:${part.mediaType};base64,${Buffer.from(data).toString("base64")}`
  return { type: "image_url" as const, image_url: { url } }
}

/** Whether a user message holds only text (the chat format's string content carries it whole). */
const textOnly = (message: Prompt.UserMessage): boolean => message.content.every((part) => part.type === "text")

const output = (part: Prompt.ToolResultPart) =>
  typeof part.result === "string"
    ? { type: part.isFailure ? "error-text" as const : "text" as const, value: part.result }
    : { type: part.isFailure ? "error-json" as const : "json" as const, value: JSON.parse(JSON.stringify(part.result)) }

/** One session message as a provider message. */
const providerMessage = (message: Prompt.Message, index: number): ProviderMessage => {
  const providerOptions = indexOptions(index)
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content, providerOptions }
    case "user":
      return {
        role: "user",
        content: textOnly(message) ? [{ type: "text", text: textOfUser(message) }] : providerUserParts(message),
        providerOptions
      }
    case "assistant":
      return {
        role: "assistant",
        content: message.content.flatMap((part): Array<ProviderAssistantPart> => {
          switch (part.type) {
            case "text":
              return [{ type: "text", text: part.text }]
            case "reasoning":
              return [{ type: "reasoning", text: part.text }]
            case "tool-call":
              return [{ type: "tool-call", toolCallId: part.id, toolName: part.name, input: part.params }]
            default:
              // The provider prompt has no approval requests; other parts the sessions do not make.
              return []
          }
        }),
        providerOptions
      }
    case "tool":
      return {
        role: "tool",
        content: message.content.map((part) =>
          part.type === "tool-result"
            ? { type: "tool-result" as const, toolCallId: part.id, toolName: part.name, output: output(part) }
            : { type: "tool-approval-response" as const, approvalId: part.approvalId, approved: part.approved }
        ),
        providerOptions
      }
  }
}

/** A history as the provider-level prompt a middleware sees. */
export const toProviderPrompt = (history: ReadonlyArray<Prompt.Message>): AiSdkPrompt.ProviderPrompt =>
  history.map(providerMessage)

/** One session message as a `ModelMessage`. */
const modelMessage = (message: Prompt.Message, index: number): ModelMessage => {
  const providerOptions = indexOptions(index)
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content, providerOptions }
    case "user":
      return {
        role: "user",
        content: textOnly(message) ? [{ type: "text", text: textOfUser(message) }] : modelUserParts(message),
        providerOptions
      }
    case "assistant":
      return {
        role: "assistant",
        content: message.content.flatMap((part): Array<ModelAssistantPart> => {
          switch (part.type) {
            case "text":
              return [{ type: "text", text: part.text }]
            case "reasoning":
              return [{ type: "reasoning", text: part.text }]
            case "tool-call":
              return [{ type: "tool-call", toolCallId: part.id, toolName: part.name, input: part.params }]
            case "tool-approval-request":
              return [{ type: "tool-approval-request", approvalId: part.approvalId, toolCallId: part.toolCallId }]
            default:
              return []
          }
        }),
        providerOptions
      }
    case "tool":
      return {
        role: "tool",
        content: message.content.map((part) =>
          part.type === "tool-result"
            ? { type: "tool-result" as const, toolCallId: part.id, toolName: part.name, output: output(part) }
            : { type: "tool-approval-response" as const, approvalId: part.approvalId, approved: part.approved }
        ),
        providerOptions
      }
  }
}

/** A history as `ModelMessage`s. */
export const toModelMessages = (history: ReadonlyArray<Prompt.Message>): Array<ModelMessage> =>
  history.map(modelMessage)

/** One message of a chat projection as an OpenAI chat message. */
const chatMessage = (message: Prompt.Message, sessionIndex: number): IndexedChatMessage => {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content, sessionIndex }
    case "user":
      return textOnly(message)
        ? { role: "user", content: textOfUser(message), sessionIndex }
        : { role: "user", content: message.content.map(chatUserPart), sessionIndex }
    case "assistant": {
      const texts = message.content.flatMap((part) => (part.type === "text" ? [{ type: "text" as const, text: part.text }] : []))
      const calls = message.content.flatMap((part) =>
        part.type === "tool-call"
          ? [{ id: part.id, type: "function" as const, function: { name: part.name, arguments: JSON.stringify(part.params) } }]
          : []
      )
      return {
        role: "assistant",
        content: texts.length === 1 ? texts[0]!.text : texts.length === 0 ? null : texts,
        ...(calls.length === 0 ? {} : { tool_calls: calls }),
        sessionIndex
      }
    }
    case "tool": {
      const part = message.content[0]
      if (message.content.length !== 1 || part === undefined || part.type !== "tool-result" || typeof part.result !== "string") {
        throw new Error(`message ${sessionIndex} is not in the chat format: project the session first`)
      }
      return { role: "tool", content: part.result, tool_call_id: part.id, sessionIndex }
    }
  }
}

/** A history (of a {@link chatProjection}) in the OpenAI chat format. */
export const toOpenAIChat = (history: ReadonlyArray<Prompt.Message>): Array<IndexedChatMessage> =>
  history.map(chatMessage)

/** A session with the steps' messages mapped one for one (or dropped), the same objects for the same message. */
const mapSession = (
  session: Session,
  f: (message: Prompt.Message) => Prompt.Message | undefined
): Session => {
  const memo = new Map<Prompt.Message, Prompt.Message | undefined>()
  const once = (message: Prompt.Message) => {
    if (!memo.has(message)) memo.set(message, f(message))
    return memo.get(message)
  }
  const mapStep = (step: Step): Step => {
    const response = once(step.response)
    return {
      response: response !== undefined && response.role === "assistant" ? response : step.response,
      next: step.next.flatMap((m) => {
        const out = once(m)
        return out === undefined ? [] : [out]
      }),
      references: step.references
    }
  }
  return {
    shape: session.shape,
    seed: session.seed,
    start: session.start.flatMap((m) => {
      const out = once(m)
      return out === undefined ? [] : [out]
    }),
    steps: session.steps.map(mapStep)
  }
}

/** A few words of thinking, from a PRNG. */
const thought = (random: () => number): string => {
  const words = ["check", "the", "result", "first", "then", "call", "next", "file", "test", "again", "plan", "answer"]
  const n = 8 + Math.floor(random() * 60)
  return Array.from({ length: n }, () => words[Math.floor(random() * words.length)]!).join(" ")
}

/**
 * The session with a reasoning part leading some of its assistant messages (a share `rate`),
 * drawn from a PRNG of its own (the rest of the session is the seed's).
 */
export const withReasoning = (session: Session, rate = 0.4): Session => {
  const random = mulberry32((session.seed * 2654435761) ^ 0x1B873593)
  return mapSession(session, (message) =>
    message.role === "assistant" && random() < rate
      ? Prompt.assistantMessage({ content: [Prompt.reasoningPart({ text: thought(random) }), ...message.content] })
      : message)
}

/**
 * The session as the OpenAI chat format can say it: reasoning parts and approval requests left
 * out, approval responses' messages dropped, a denied call's result a plain result.
 */
export const chatProjection = (session: Session): Session =>
  mapSession(session, (message) => {
    switch (message.role) {
      case "assistant":
        return message.content.some((p) => p.type === "reasoning" || p.type === "tool-approval-request")
          ? Prompt.assistantMessage({
            content: message.content.filter((p) => p.type !== "reasoning" && p.type !== "tool-approval-request")
          })
          : message
      case "tool": {
        if (message.content.every((p) => p.type === "tool-approval-response")) return undefined
        return message.content.some((p) => p.type === "tool-result" && p.isFailure)
          ? Prompt.toolMessage({
            content: message.content.flatMap((p) =>
              p.type === "tool-result" ? [Prompt.toolResultPart({ ...p, isFailure: false })] : []
            )
          })
          : message
      }
      default:
        return message
    }
  })
