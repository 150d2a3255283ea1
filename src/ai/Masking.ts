/**
 * Masking: a compaction strategy of the stable window (docs/ai.md, "Masking old tool results",
 * rules X1–X5). At a compaction, the tool results older than the stretch the window keeps whole
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
  return Array.isArray(results) && typeof originalTokens === "number"
    ? { results: results.filter(isMaskedResult), originalTokens }
    : undefined
}

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

/** The stub of message `index` (counted), or `undefined` when it is no maskable tool message. */
const stubOf = (
  candidates: PromptWindow.Candidates,
  index: number,
  memo: Memo
): Effect.Effect<{ readonly edit: MessageEdit; readonly tokens: number } | undefined, AiError.AiError | PromptWindow.CandidateError, TokenCounter> =>
  Effect.gen(function*() {
    const message = candidates.messages[index]
    const item = candidates.items[index]
    if (!maskable(message) || item === undefined || item.metadata[maskedKey] !== undefined) return undefined
    const known = memo.get(message)
    if (known !== undefined && known.edit.index === index) return known
    const counter = yield* TokenCounter
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
    const stub: Prompt.ToolMessage = { ...message, content }
    const edit: MessageEdit = { index, message: stub, metadata: { [maskedKey]: { results, originalTokens: item.tokens } } }
    const tokens = yield* countAt(counter, stub, index)
    const made = { edit, tokens }
    memo.set(message, made)
    return made
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
  Effect.gen(function*() {
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
  options: {
    readonly lowTokens: number
    readonly keep: ReadonlySet<number>
    readonly masked: ReadonlyArray<number>
    readonly memo: Memo
  }
): Effect.Effect<
  { readonly candidates: PromptWindow.Candidates; readonly masked: ReadonlyArray<number> },
  AiError.AiError | PromptWindow.CandidateError,
  TokenCounter
> =>
  Effect.gen(function*() {
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
