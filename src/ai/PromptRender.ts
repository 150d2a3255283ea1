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
  // Every text is remembered (docs/design.md item 124): a new message is rendered by several
  // steps of one call (its count, its item's content, its hash for the prefix digests and for
  // the request sent), 2.4 µs a message on average and more for a result's JSON text; the
  // text is the item's content, which lives as long as the message, so keeping it costs one
  // entry (it was kept above 16 Ki characters only).
  rendered.set(message, text)
  return text
}

/** The texts of messages already rendered, by message object (messages are immutable). */
const rendered = new WeakMap<Prompt.Message, string>()

/**
 * A long text: above this many characters, a message's parts are joined by concatenation (see
 * {@link lines}), and its text is read in pieces ({@link renderedPieces}).
 */
const ropeChars = 16_384

/**
 * The text of a message if it is long and already rendered ({@link render} and
 * {@link renderEffect} keep every message's text), without rendering it: `undefined` otherwise.
 *
 * @since 0.3.0
 * @category rendering
 */
export const renderedLong = (message: Prompt.Message): string | undefined => {
  const text = rendered.get(message)
  return text !== undefined && text.length > ropeChars ? text : undefined
}

/**
 * The text of a long message already rendered, in pieces whose concatenation is its text
 * ({@link renderedLong}'s), or `undefined` when it is not kept (docs/design.md item 117): a
 * large value's JSON text is a rope of its pieces, which a reader of every character (a hash)
 * would flatten into one string — for a 5 MB result one copy of 10 MB, one stretch of 30–45 ms.
 * Reading the pieces makes no such copy.
 *
 * @since 0.3.0
 * @category rendering
 */
export const renderedPieces = (message: Prompt.Message): ReadonlyArray<string> | undefined => {
  if (renderedLong(message) === undefined) return undefined
  let pieces = renderedInPieces.get(message)
  if (pieces === undefined) {
    pieces = piecesOf(message)
    renderedInPieces.set(message, pieces)
  }
  return pieces
}

const renderedInPieces = new WeakMap<Prompt.Message, ReadonlyArray<string>>()

/** {@link renderNew}'s text in pieces: a large value's JSON text by its kept pieces. */
const piecesOf = (message: Prompt.Message): ReadonlyArray<string> => {
  if (message.role === "system") return [renderNew(message)]
  const out: Array<string> = []
  let length = 0
  const push = (...texts: ReadonlyArray<string>) => {
    for (const text of texts) {
      out.push(text)
      length += text.length
    }
  }
  message.content.forEach((part, i) => {
    if (i > 0) push("\n")
    const known = part.type === "tool-call"
      ? JsonText.knownPieces(part.params)
      : part.type === "tool-result" && part.modelOutput === undefined
      ? JsonText.knownPieces(part.result)
      : undefined
    if (known !== undefined && part.type === "tool-call") push(`${part.name}(`, ...known, `) [call ${part.id}]`)
    else if (known !== undefined && part.type === "tool-result") push(`${resultHead(part)}: `, ...known)
    else push(renderPart(part))
  })
  return length > 0 ? out : [`[${message.role}]`]
}

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
      text = lines(message.content.map(renderPart))
      break
    case "assistant":
      text = lines(message.content.map(renderPart))
      break
    case "tool":
      text = lines(message.content.map(renderPart))
      break
  }
  return text.length > 0 ? text : `[${message.role}]`
}

const json = JsonText.jsonText

/**
 * The parts' lines joined by line breaks; a long text by concatenation (`+`), which keeps a
 * large value's rope of pieces a rope (a `join` of several strings copies them all into one:
 * 36 ms for 10 MB here, docs/design.md item 117).
 */
const lines = (parts: ReadonlyArray<string>): string => {
  if (parts.length <= 1) return parts[0] ?? ""
  let length = 0
  for (const part of parts) length += part.length
  if (length <= ropeChars) return parts.join("\n")
  let text = parts[0]!
  for (let i = 1; i < parts.length; i++) text = text + "\n" + parts[i]!
  return text
}

/** A tool result's line before its output. */
const resultHead = (part: Prompt.ToolResultPart): string =>
  `${part.isFailure ? "error" : "result"} of ${part.name} [call ${part.id}]`

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
      return `${resultHead(part)}: ${
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

