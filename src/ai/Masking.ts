/**
 * Masking: a compaction strategy of the stable window (docs/ai.md, "Masking old tool results",
 * rules X1–X7). At a compaction, the tool results older than the stretch the window keeps whole
 * are replaced by a short stub — the call's tool name, its call id, the tokens the result took
 * and that it was cleared — instead of being dropped or summarised. The tool call stays, and so
 * does its result part (a stub): no call is orphaned, and the model can call the tool again.
 *
 * The masking is decided once, at the compaction, down to the low watermark: the masked
 * messages (their indices in the history) are remembered in the conversation's state and
 * masked the same way, byte for byte, at every later call, so the prefix is stable until the
 * next compaction.
 *
 * An item sent as a stub carries {@link maskedKey} in its metadata ({@link Masked}: each
 * result's call id, tool name and tokens) and its original tokens in `originalTokens`.
 *
 * Images (rules X6–X7): an image in a user message (a computer-use agent's screenshot, sent by
 * the user because the chat API takes images only from the user) is masked as a tool result is,
 * its file part replaced by a text stub naming the tool call whose result the message follows,
 * its media type and tokens (a tool result's images, in its `modelOutput`, go with its stub
 * already). A compaction masks the images of the window it keeps, outside the current turn, and
 * leaves the room they took to the calls to come.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import type { AiError } from "effect/ai"
import { Prompt } from "effect/ai"
import type * as ContextItem from "../ContextItem.ts"
import { countAt, editMessages, type ItemMemo, type MessageEdit } from "./internal/editMessages.ts"
import type * as PromptWindow from "./PromptWindow.ts"
import { TokenCounter } from "./TokenCounter.ts"

/**
 * The metadata key of a masked item: its value is a {@link Masked}.
 *
 * @since 0.3.0
 * @category constants
 */
export const maskedKey = "masked"

/**
 * One result a stub stands for: its call id, tool name and the tokens it took (a tool message
 * holding it alone, by the window's counter).
 *
 * @since 0.3.0
 * @category models
 */
export interface MaskedResult {
  readonly id: string
  readonly name: string
  readonly tokens: number
}

/**
 * What a masked item's metadata says under {@link maskedKey}: the results its stub stands for
 * and the message's tokens before it was masked.
 *
 * @since 0.3.0
 * @category models
 */
export interface Masked {
  readonly results: ReadonlyArray<MaskedResult>
  /** The images of a user message masked (rule X6); none for a tool message. */
  readonly images?: ReadonlyArray<MaskedImage> | undefined
  readonly originalTokens: number
}

/**
 * The text a masked result is sent as.
 *
 * @since 0.3.0
 * @category rendering
 */
export const stubText = (result: MaskedResult): string =>
  `[cleared: the result of ${result.name} (call ${result.id}, ${result.tokens} tokens) was removed to save context; call the tool again to see it]`

const stubPattern = /^\[cleared: the result of (.+) \(call (.+), (\d+) tokens\) was removed to save context; call the tool again to see it\]$/

/**
 * The result a tool-result part's stub stands for, or `undefined` when the part is no stub.
 *
 * @since 0.3.0
 * @category rendering
 */
export const readStub = (part: Prompt.Part): MaskedResult | undefined => {
  if (part.type !== "tool-result" || typeof part.result !== "string" || part.modelOutput !== undefined) return undefined
  const match = stubPattern.exec(part.result)
  return match === null ? undefined : { name: match[1]!, id: match[2]!, tokens: Number(match[3]) }
}

/**
 * What an item's metadata says of its masking, or `undefined` for an item not masked.
 *
 * @since 0.3.0
 * @category models
 */
export const maskedOf = (item: ContextItem.ContextItem): Masked | undefined => {
  const value = item.metadata[maskedKey]
  if (typeof value !== "object" || value === null || !("results" in value) || !("originalTokens" in value)) {
    return undefined
  }
  const { results, originalTokens } = value
  const images = "images" in value && Array.isArray(value.images) ? value.images.filter(isMaskedImage) : []
  return Array.isArray(results) && typeof originalTokens === "number"
    ? { results: results.filter(isMaskedResult), ...(images.length === 0 ? {} : { images }), originalTokens }
    : undefined
}

const isMaskedImage = (value: unknown): value is MaskedImage =>
  typeof value === "object" && value !== null && "mediaType" in value && "tokens" in value &&
  typeof value.mediaType === "string" && typeof value.tokens === "number"

const isMaskedResult = (value: unknown): value is MaskedResult =>
  typeof value === "object" && value !== null && "id" in value && "name" in value && "tokens" in value &&
  typeof value.id === "string" && typeof value.name === "string" && typeof value.tokens === "number"

/** A tool-result part as its stub: the same id, name, failure flag; the result the stub's text. */
const stubPart = (part: Prompt.ToolResultPart, tokens: number): Prompt.ToolResultPart => {
  const { modelOutput: _, ...rest } = part
  return { ...rest, result: stubText({ id: part.id, name: part.name, tokens }) }
}

/** Whether a message can be masked: a tool message with at least one tool result. */
const maskable = (message: Prompt.Message | undefined): message is Prompt.ToolMessage =>
  message !== undefined && message.role === "tool" && message.content.some((p) => p.type === "tool-result")

/** An image part: what rule X6 masks in a user message. */
const isImage = (part: Prompt.UserMessagePart): part is Prompt.FilePart =>
  part.type === "file" && part.mediaType.startsWith("image/")

/**
 * Whether a user message holds an image (rule X6): a tool's image sent by the user (a
 * computer-use agent's screenshot, for a chat API that takes images only from the user).
 */
const withImage = (message: Prompt.Message | undefined): message is Prompt.UserMessage =>
  message !== undefined && message.role === "user" && message.content.some(isImage)

/**
 * The text an image is sent as once masked (rule X6): the tool call whose result the message
 * follows, when it does, its media type and tokens.
 *
 * @since 0.3.0
 * @category rendering
 */
export const imageStubText = (image: MaskedImage): string =>
  `[cleared: ${image.call === undefined ? "an image" : `the image of ${image.call.name} (call ${image.call.id})`} (${image.mediaType}, ${image.tokens} tokens) was removed to save context${
    image.call === undefined ? "" : "; call the tool again to see it"
  }]`

const imageStubPattern =
  /^\[cleared: (?:an image|the image of (.+) \(call (.+)\)) \((.+), (\d+) tokens\) was removed to save context(?:; call the tool again to see it)?\]$/

/**
 * One image a user message's stub stands for (rule X6): its media type, its tokens (a user
 * message holding it alone, by the window's counter) and the tool call whose result the message
 * follows, if any.
 *
 * @since 0.3.0
 * @category models
 */
export interface MaskedImage {
  readonly mediaType: string
  readonly tokens: number
  readonly call?: { readonly id: string; readonly name: string } | undefined
}

/**
 * The image a text part's stub stands for, or `undefined` when the part is no image stub.
 *
 * @since 0.3.0
 * @category rendering
 */
export const readImageStub = (part: Prompt.Part): MaskedImage | undefined => {
  if (part.type !== "text") return undefined
  const match = imageStubPattern.exec(part.text)
  if (match === null) return undefined
  const call = match[1] === undefined || match[2] === undefined ? undefined : { name: match[1], id: match[2] }
  return { mediaType: match[3]!, tokens: Number(match[4]), ...(call === undefined ? {} : { call }) }
}

/** The tool call whose result message `index` follows (the last result of the tool message before it). */
const callBefore = (messages: ReadonlyArray<Prompt.Message>, index: number): { readonly id: string; readonly name: string } | undefined => {
  const before = messages[index - 1]
  if (before === undefined || before.role !== "tool") return undefined
  const result = before.content.findLast((p) => p.type === "tool-result")
  return result === undefined || result.type !== "tool-result" ? undefined : { id: result.id, name: result.name }
}

/**
 * A memo of the stubs made, per masker: a masked message is sent as its stub at every call until
 * the next compaction, and is counted once.
 *
 * @since 0.3.0
 * @category models
 */
export type Memo = WeakMap<Prompt.Message, { readonly edit: MessageEdit; readonly tokens: number }>

/**
 * An empty {@link Memo}; one per stable window.
 *
 * @since 0.3.0
 * @category constructors
 */
export const makeMemo = (): Memo => new WeakMap()

/**
 * The message each masked copy stands for (an identity relation, weak both ways in effect: a
 * copy is only reachable by whoever holds it).
 */
const sources = new WeakMap<Prompt.Message, Prompt.Message>()

/**
 * The message a masked copy stands for, or `undefined` for any other message. A front door that
 * sends its caller's own message objects reads it to send a masked user message as the caller's
 * message with its images replaced by their stubs — its other parts (a PDF beside the
 * screenshot), its provider options and its parts' options as the caller made them — rather
 * than as a message rebuilt from the `effect/ai` form, which holds no file's data (docs/design.md
 * item 121).
 *
 * @since 0.3.0
 * @category masking
 */
export const sourceOf = (message: Prompt.Message): Prompt.Message | undefined => sources.get(message)

/**
 * The stub of message `index` (counted), or `undefined` when it is no maskable tool message (a
 * generator function of the module: docs/design.md item 144).
 */
const stubOf = Effect.fnUntraced(function*(candidates: PromptWindow.Candidates, index: number, memo: Memo) {
  const message = candidates.messages[index]
  const item = candidates.items[index]
  if (item === undefined || item.metadata[maskedKey] !== undefined) return undefined
  if (!maskable(message) && !withImage(message)) return undefined
  const known = memo.get(message)
  if (known !== undefined && known.edit.index === index) return known
  const counter = yield* TokenCounter
  // The stub's edit, counted, kept in the memo: a masked message is sent as it at every call.
  const remember = (stub: MessageEdit["message"], masked: Masked) =>
    Effect.map(countAt(counter, stub, index), (tokens) => {
      const made = { edit: { index, message: stub, metadata: { [maskedKey]: masked } } satisfies MessageEdit, tokens }
      memo.set(message, made)
      sources.set(stub, message)
      return made
    })
  if (message.role === "user") {
    const call = callBefore(candidates.messages, index)
    const images: Array<MaskedImage> = []
    const content: Array<Prompt.UserMessagePart> = []
    for (const part of message.content) {
      if (!isImage(part)) {
        content.push(part)
        continue
      }
      const tokens = yield* countAt(counter, Prompt.userMessage({ content: [part] }), index)
      const image: MaskedImage = { mediaType: part.mediaType, tokens, ...(call === undefined ? {} : { call }) }
      images.push(image)
      content.push(Prompt.textPart({ text: imageStubText(image) }))
    }
    return yield* remember({ ...message, content }, { results: [], images, originalTokens: item.tokens })
  }
  const results: Array<MaskedResult> = []
  const content: Array<Prompt.ToolMessagePart> = []
  for (const part of message.content) {
    if (part.type !== "tool-result") {
      content.push(part)
      continue
    }
    const alone = message.content.length === 1
      ? item.tokens
      : yield* countAt(counter, Prompt.toolMessage({ content: [part] }), index)
    results.push({ id: part.id, name: part.name, tokens: alone })
    content.push(stubPart(part, alone))
  }
  return yield* remember({ ...message, content }, { results, originalTokens: item.tokens })
})

/**
 * The candidates with messages `indices` masked (rule X3: the state's masked messages, masked
 * again at every call). An index that is no tool message with a result is skipped.
 *
 * @since 0.3.0
 * @category masking
 */
export const apply = (
  candidates: PromptWindow.Candidates,
  indices: ReadonlyArray<number>,
  memo: Memo,
  itemMemo?: ItemMemo
): Effect.Effect<PromptWindow.Candidates, AiError.AiError | PromptWindow.CandidateError, TokenCounter> =>
  applyBody(candidates, indices, memo, itemMemo)

// A generator function of the module, not a generator closure made at every call (docs/design.md item 144).
const applyBody = Effect.fnUntraced(function*(
  candidates: PromptWindow.Candidates,
  indices: ReadonlyArray<number>,
  memo: Memo,
  itemMemo: ItemMemo | undefined
) {
  if (indices.length === 0) return candidates
  const edits: Array<{ readonly edit: MessageEdit; readonly tokens: number }> = []
  for (const index of indices) {
    const made = yield* stubOf(candidates, index, memo)
    if (made !== undefined) edits.push(made)
  }
  const tokens = new Map(edits.map((e) => [e.edit, e.tokens]))
  return yield* editMessages(candidates, edits.map((e) => e.edit), (edit) => tokens.get(edit), itemMemo)
})

/**
 * Rule X7: the messages among `window` (indices) that hold an image, outside `keep` (the current
 * turn), not pinned and not masked already.
 *
 * @since 0.3.0
 * @category masking
 */
export const imagesIn = (
  candidates: PromptWindow.Candidates,
  window: Iterable<number>,
  options: { readonly keep: ReadonlySet<number>; readonly masked: ReadonlyArray<number> }
): Array<number> => {
  const masked = new Set(options.masked)
  const out: Array<number> = []
  for (const i of window) {
    const item = candidates.items[i]
    if (item === undefined || item.pinned || masked.has(i) || options.keep.has(i)) continue
    if (withImage(candidates.messages[i])) out.push(i)
  }
  return out.sort((a, b) => a - b)
}

/**
 * Rule X7: the tokens masking messages `indices` would save (each message's tokens less its
 * stub's, when the stub is smaller).
 *
 * @since 0.3.0
 * @category masking
 */
export const imageSavings = (
  candidates: PromptWindow.Candidates,
  indices: ReadonlyArray<number>,
  memo: Memo
): Effect.Effect<number, AiError.AiError | PromptWindow.CandidateError, TokenCounter> =>
  imageSavingsBody(candidates, indices, memo)

// A generator function of the module, not a generator closure made at every call (docs/design.md item 144).
const imageSavingsBody = Effect.fnUntraced(function*(
  candidates: PromptWindow.Candidates,
  indices: ReadonlyArray<number>,
  memo: Memo
) {
  let saved = 0
  for (const i of indices) {
    const made = yield* stubOf(candidates, i, memo)
    if (made !== undefined) saved += Math.max(0, candidates.items[i]!.tokens - made.tokens)
  }
  return saved
})

/**
 * Rule X2: the tool messages a compaction masks — the oldest first, each one whose stub is
 * smaller than it, until the candidates' tokens are within `lowTokens`; never a message in
 * `keep` (the current turn the call keeps), a pinned one or one masked already. The masked
 * messages are then the tool results older than the stretch kept whole. Gives the candidates
 * masked and every masked index (the earlier ones and these), in order.
 *
 * @since 0.3.0
 * @category masking
 */
export const compact = (
  candidates: PromptWindow.Candidates,
  options: CompactOptions
): Effect.Effect<
  { readonly candidates: PromptWindow.Candidates; readonly masked: ReadonlyArray<number> },
  AiError.AiError | PromptWindow.CandidateError,
  TokenCounter
> => compactBody(candidates, options)

// A generator function of the module, not a generator closure made at every call (docs/design.md item 144).
const compactBody = Effect.fnUntraced(function*(
  candidates: PromptWindow.Candidates,
  options: CompactOptions
) {
  let total = 0
  for (const item of candidates.items) total += item.tokens
  const masked = new Set(options.masked)
  const added: Array<number> = []
  for (let i = 0; i < candidates.messages.length && total > options.lowTokens; i++) {
    const item = candidates.items[i]!
    if (masked.has(i) || options.keep.has(i) || item.pinned) continue
    const made = yield* stubOf(candidates, i, options.memo)
    if (made === undefined || made.tokens >= item.tokens) continue
    added.push(i)
    total -= item.tokens - made.tokens
  }
  if (added.length === 0) return { candidates, masked: options.masked }
  const next = yield* apply(candidates, added, options.memo)
  return { candidates: next, masked: [...masked, ...added].sort((a, b) => a - b) }
})

/**
 * The options of {@link compact}.
 *
 * @since 0.3.0
 * @category models
 */
export interface CompactOptions {
  readonly lowTokens: number
  readonly keep: ReadonlySet<number>
  readonly masked: ReadonlyArray<number>
  readonly memo: Memo
}
