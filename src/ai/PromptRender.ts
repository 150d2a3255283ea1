/**
 * PromptRender: the text of a message as the model reads it — what an item's `content` holds,
 * what deduplication compares, what reports show and what a counter that reads text counts.
 * One line per part; never empty.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import { Prompt } from "effect/ai"
import * as JsonText from "./internal/jsonText.ts"

/**
 * The text of a message as the model reads it, one line per part: text and reasoning as they
 * are, tool calls as `name(arguments as JSON) [call id]`, tool results as their model output
 * (or their result as JSON), files as `[file media/type name]`, approvals by id. Never empty.
 *
 * @since 0.2.0
 * @category rendering
 */
export const render = (message: Prompt.Message): string => {
  const known = rendered.get(message)
  if (known !== undefined) return known
  const text = renderNew(message)
  // Only long texts are remembered: they are the ones whose making (a result's JSON text)
  // costs, and they are rendered by several steps of one call (counting, shortening, hashing).
  if (text.length > renderMemoChars) rendered.set(message, text)
  return text
}

/** The texts of long messages already rendered, by message object (messages are immutable). */
const rendered = new WeakMap<Prompt.Message, string>()
const renderMemoChars = 16_384

/**
 * The text of a message if it is long and already rendered ({@link render} or
 * {@link renderEffect} keep a long message's text), without rendering it: `undefined` otherwise.
 *
 * @since 0.3.0
 * @category rendering
 */
export const renderedLong = (message: Prompt.Message): string | undefined => rendered.get(message)

/** The values of a message that are worth writing as JSON in pieces and are not written yet. */
const largeValues = (message: Prompt.Message): Array<unknown> => {
  if (message.role !== "tool" && message.role !== "assistant") return []
  const out: Array<unknown> = []
  for (const part of message.content) {
    const value = part.type === "tool-result" && part.modelOutput === undefined
      ? part.result
      : part.type === "tool-call"
      ? part.params
      : undefined
    if (value !== undefined && JsonText.known(value) === undefined && JsonText.isLarge(value)) out.push(value)
  }
  return out
}

/**
 * {@link render} as an `Effect` that never holds the event loop for long: the JSON text of a
 * large tool result or tool call's arguments (a 5 MB tool output, a JSON tree of thousands of
 * rows, a long string deep in one) is written in pieces, the fiber yielding between them, and
 * remembered, so that {@link render} then gives the message's text at once. The same
 * text as {@link render}'s.
 *
 * @since 0.3.0
 * @category rendering
 */
export const renderEffect = (message: Prompt.Message): Effect.Effect<string> => {
  const known = rendered.get(message)
  if (known !== undefined) return Effect.succeed(known)
  const large = largeValues(message)
  if (large.length === 0) return Effect.sync(() => render(message))
  return Effect.gen(function*() {
    for (const value of large) yield* JsonText.jsonTextEffect(value)
    return render(message)
  })
}

const renderNew = (message: Prompt.Message): string => {
  let text: string
  switch (message.role) {
    case "system":
      text = message.content
      break
    case "user":
      text = message.content.map(renderPart).join("\n")
      break
    case "assistant":
      text = message.content.map(renderPart).join("\n")
      break
    case "tool":
      text = message.content.map(renderPart).join("\n")
      break
  }
  return text.length > 0 ? text : `[${message.role}]`
}

const json = JsonText.jsonText

const renderPart = (part: Prompt.Part): string => {
  switch (part.type) {
    case "text":
    case "reasoning":
      return part.text
    case "file":
      return `[file ${part.mediaType}${part.fileName === undefined ? "" : ` ${part.fileName}`}]`
    case "tool-call":
      return `${part.name}(${json(part.params)}) [call ${part.id}]`
    case "tool-result":
      return `${part.isFailure ? "error" : "result"} of ${part.name} [call ${part.id}]: ${
        part.modelOutput === undefined ? json(part.result) : Prompt.toolModelOutputToText(part.modelOutput)
      }`
    case "tool-approval-request":
      return `approval requested [approval ${part.approvalId}, call ${part.toolCallId}]`
    case "tool-approval-response":
      return `approval ${part.approved ? "granted" : "denied"} [approval ${part.approvalId}]${
        part.reason === undefined ? "" : `: ${part.reason}`
      }`
  }
}

