/**
 * PromptRender: the text of a message as the model reads it — what an item's `content` holds,
 * what deduplication compares, what reports show and what a counter that reads text counts.
 * One line per part; never empty.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import { Prompt } from "effect/ai"

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
 * The JSON texts of the last few long string results: each is written by several steps of a
 * call, on messages that are copies of one another (a conversion, a candidate, a probe).
 */
const jsonTexts = new Map<string, string>()
const jsonTextsKept = 4
/** Strings shorter than this are written as JSON at once (about a millisecond a megabyte). */
const jsonMemoChars = 1 << 18
const rememberJson = (value: string, text: string): void => {
  if (jsonTexts.size >= jsonTextsKept) jsonTexts.delete(jsonTexts.keys().next().value!)
  jsonTexts.set(value, text)
}

/** The long string results of a message whose JSON text is not known yet. */
const longResults = (message: Prompt.Message): Array<string> => {
  if (message.role !== "tool") return []
  const out: Array<string> = []
  for (const part of message.content) {
    if (
      part.type === "tool-result" && part.modelOutput === undefined && typeof part.result === "string" &&
      part.result.length > jsonMemoChars && !jsonTexts.has(part.result)
    ) out.push(part.result)
  }
  return out
}

/** The characters of a long string written as JSON at a time, between yields. */
const jsonPiece = 65_536

/**
 * {@link render} as an `Effect` that never holds the event loop for long: the JSON text of a
 * long string result (a 5 MB tool output) is written in pieces, the fiber yielding between
 * them, and remembered, so that {@link render} then gives the message's text at once. The same
 * text as {@link render}'s.
 *
 * @since 0.3.0
 * @category rendering
 */
export const renderEffect = (message: Prompt.Message): Effect.Effect<string> => {
  const known = rendered.get(message)
  if (known !== undefined) return Effect.succeed(known)
  const long = longResults(message)
  if (long.length === 0) return Effect.sync(() => render(message))
  return Effect.gen(function*() {
    for (const value of long) {
      const pieces: Array<string> = []
      for (let at = 0; at < value.length;) {
        let end = Math.min(value.length, at + jsonPiece)
        // Never between the two halves of a surrogate pair: JSON writes a lone one escaped.
        const code = value.charCodeAt(end)
        if (end < value.length && code >= 0xdc00 && code <= 0xdfff) end--
        pieces.push(JSON.stringify(value.slice(at, end)).slice(1, -1))
        at = end
        yield* Effect.yieldNow
      }
      rememberJson(value, `"${pieces.join("")}"`)
    }
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

const json = (value: unknown): string => {
  // A long string result is written as JSON by several steps of a call, each with its own copy
  // of the message: the last one's text is kept.
  if (typeof value === "string" && value.length > jsonMemoChars) {
    let text = jsonTexts.get(value)
    if (text === undefined) {
      text = JSON.stringify(value)
      rememberJson(value, text)
    }
    return text
  }
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

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

