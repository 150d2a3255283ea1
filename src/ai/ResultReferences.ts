/**
 * ResultReferences: repeats by reference (docs/ai.md, "Repeated tool results", rules R1–R5).
 * A new tool result whose content is identical to a tool result still in the window is sent as
 * a short reference to that earlier result, naming its call id — never the other way round: the
 * earlier copy stays whole, so the prefix the provider cached is unchanged. Content that differs
 * by one byte is sent whole, and so is a result whose reference would not be shorter.
 *
 * The references are remembered in the conversation's state (`[index, target]`: message
 * `index` refers to message `target`) and made the same way at every later call. When a
 * compaction takes the earlier copy out of the window (dropped, masked, summarised or
 * shortened), the reference is undone: the full text comes back in the copy that stays.
 *
 * An item sent with references carries {@link referenceKey} in its metadata ({@link Referenced}:
 * for each result sent as a reference, its call id and the call id it refers to) and its
 * original tokens in `originalTokens`.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import type { AiError } from "effect/ai"
import { Prompt } from "effect/ai"
import type * as ContextItem from "../ContextItem.ts"
import * as Shorten from "./Shorten.ts"
import { countAt, editMessages, type ItemMemo, type MessageEdit } from "./internal/editMessages.ts"
import * as JsonText from "./internal/jsonText.ts"
import * as Masking from "./Masking.ts"
import type * as PromptWindow from "./PromptWindow.ts"
import { TokenCounter } from "./TokenCounter.ts"

/**
 * The metadata key of an item sent with references: its value is a {@link Referenced}.
 *
 * @since 0.3.0
 * @category constants
 */
export const referenceKey = "reference"

/**
 * One result sent as a reference: its call id (`id`) and the call id of the identical earlier
 * result it names (`of`).
 *
 * @since 0.3.0
 * @category models
 */
export interface ResultReference {
  readonly id: string
  readonly of: string
}

/**
 * What an item's metadata says under {@link referenceKey}: the references it was sent with,
 * the message it refers to (its index in the history) and its tokens before.
 *
 * @since 0.3.0
 * @category models
 */
export interface Referenced {
  readonly references: ReadonlyArray<ResultReference>
  readonly target: number
  readonly originalTokens: number
}

/**
 * A reference as the model reads it: the earlier call's id, and that the content is identical.
 *
 * @since 0.3.0
 * @category rendering
 */
export const referenceText = (of: string): string =>
  `[identical to the result of call ${of} above; not repeated]`

const referencePattern = /^\[identical to the result of call (.+) above; not repeated\]$/

/**
 * The call id a tool-result part refers to, or `undefined` when it is no reference.
 *
 * @since 0.3.0
 * @category rendering
 */
export const readReference = (part: Prompt.Part): string | undefined => {
  if (part.type !== "tool-result" || typeof part.result !== "string" || part.modelOutput !== undefined) return undefined
  return referencePattern.exec(part.result)?.[1]
}

/**
 * What an item's metadata says of its references, or `undefined` for an item sent whole.
 *
 * @since 0.3.0
 * @category models
 */
export const referencedOf = (item: ContextItem.ContextItem): Referenced | undefined => {
  const value = item.metadata[referenceKey]
  if (typeof value !== "object" || value === null || !("references" in value) || !("target" in value)) return undefined
  const { references, target } = value
  const originalTokens = "originalTokens" in value ? value.originalTokens : undefined
  return Array.isArray(references) && typeof target === "number" && typeof originalTokens === "number"
    ? { references: references.filter(isReference), target, originalTokens }
    : undefined
}

const isReference = (value: unknown): value is ResultReference =>
  typeof value === "object" && value !== null && "id" in value && "of" in value &&
  typeof value.id === "string" && typeof value.of === "string"

/**
 * What a result says, for comparing: its failure flag and the text the model reads (its
 * `modelOutput` when it has one, else its result, a string as it is and any other value as JSON
 * with its type). Two results are identical when these are equal, byte for byte.
 */
const contentOf = (part: Prompt.ToolResultPart): string => {
  let content = contents.get(part)
  if (content === undefined) {
    content = computeContent(part)
    contents.set(part, content)
  }
  return content
}

// The memo of a pure function of a part object (held weakly): the window's results are compared
// at every call, and a string made once is hashed once.
const contents = new WeakMap<Prompt.ToolResultPart, string>()

const computeContent = (part: Prompt.ToolResultPart): string => {
  let body: string
  if (part.modelOutput !== undefined) body = `output:${JSON.stringify(part.modelOutput)}`
  else if (typeof part.result === "string") body = `text:${part.result}`
  else {
    try {
      // A large result's JSON text written in pieces by `renderEffect` earlier in the call, if kept.
      body = `json:${JsonText.known(part.result) ?? JSON.stringify(part.result)}`
    } catch {
      body = `value:${String(part.result)}`
    }
  }
  return `${part.isFailure ? "failure" : "success"}\n${body}`
}

/** The tool results of a message, or none. */
const resultsOf = (message: Prompt.Message | undefined): ReadonlyArray<Prompt.ToolResultPart> =>
  message === undefined || message.role !== "tool"
    ? []
    : message.content.filter((p): p is Prompt.ToolResultPart => p.type === "tool-result")

/** Whether message `i` of the candidates is sent as it is in the history: not masked, shortened or referring. */
const whole = (candidates: PromptWindow.Candidates, i: number): boolean => {
  const item = candidates.items[i]
  return item !== undefined && item.metadata[Masking.maskedKey] === undefined &&
    item.metadata[referenceKey] === undefined && Shorten.shortenedOf(item) === undefined
}

/**
 * The first message of a window's pool holding each result content, read up to position `read`
 * of the pool: what an appending call carries over to the next (docs/design.md item 108), whose
 * pool is this one with the appended messages after it. Only {@link decide} changes it.
 *
 * @since 0.3.0
 * @category models
 */
export interface PoolIndex {
  readonly firstWith: Map<string, number>
  read: number
}

/**
 * An empty {@link PoolIndex}.
 *
 * @since 0.3.0
 * @category constructors
 */
export const makePoolIndex = (): PoolIndex => ({ firstWith: new Map(), read: 0 })

/**
 * The pairs `[index, target]` of the messages among `fresh` (ascending) that repeat a result
 * of a whole message before them (rule R1): `target` is the first message, among `pool` (the
 * whole messages in the window, ascending) and the `fresh` ones before it, holding a result
 * identical to one of the message's. A message that refers becomes no target itself.
 *
 * `index` (since 0.3.0): the pool's results read by an earlier call over a pool that starts
 * with this one's first `index.read` messages, the same whole messages; only the rest is read,
 * and the index is left covering the whole pool (the fresh messages are not kept in it).
 *
 * @since 0.3.0
 * @category references
 */
export const decide = (
  candidates: PromptWindow.Candidates,
  pool: ReadonlyArray<number>,
  fresh: ReadonlyArray<number>,
  index: PoolIndex = makePoolIndex()
): Array<readonly [number, number]> =>
  decideAt(candidates, pool.length, (k) => pool[k], fresh, index)

/**
 * {@link decide} over a pool given by position (`poolAt(k)`: the message at position `k`, or
 * `undefined` for an entry that is no message): the stable window reads its previous window's
 * entries without listing their messages first.
 *
 * @since 0.3.0
 * @category references
 */
export const decideAt = (
  candidates: PromptWindow.Candidates,
  poolLength: number,
  poolAt: (k: number) => number | undefined,
  fresh: ReadonlyArray<number>,
  index: PoolIndex
): Array<readonly [number, number]> => {
  const firstWith = index.firstWith
  const added: Array<string> = []
  const add = (i: number, temporary: boolean) => {
    for (const part of resultsOf(candidates.messages[i])) {
      const key = contentOf(part)
      if (!firstWith.has(key)) {
        firstWith.set(key, i)
        if (temporary) added.push(key)
      }
    }
  }
  for (let k = index.read; k < poolLength; k++) {
    const i = poolAt(k)
    if (i !== undefined && whole(candidates, i)) add(i, false)
  }
  index.read = Math.max(index.read, poolLength)
  const pairs: Array<readonly [number, number]> = []
  for (const i of fresh) {
    const results = resultsOf(candidates.messages[i])
    if (results.length === 0 || !whole(candidates, i)) continue
    let target: number | undefined
    for (const part of results) {
      const t = firstWith.get(contentOf(part))
      if (t !== undefined && t < i) {
        target = t
        break
      }
    }
    if (target === undefined) add(i, true)
    else pairs.push([i, target])
  }
  // The fresh messages are the next pool's last ones: read again, in its order, by the next call.
  for (const key of added) firstWith.delete(key)
  return pairs
}

/** The message of `index` with each result identical to one of `target`'s sent as a reference to it. */
const referring = (
  candidates: PromptWindow.Candidates,
  index: number,
  target: number
): MessageEdit | undefined => {
  const message = candidates.messages[index]
  const item = candidates.items[index]
  if (message === undefined || message.role !== "tool" || item === undefined || !whole(candidates, index)) return undefined
  if (!whole(candidates, target)) return undefined
  const earlier = new Map<string, string>()
  for (const part of resultsOf(candidates.messages[target])) {
    const key = contentOf(part)
    if (!earlier.has(key)) earlier.set(key, part.id)
  }
  const references: Array<ResultReference> = []
  const content = message.content.map((part) => {
    if (part.type !== "tool-result") return part
    const of = earlier.get(contentOf(part))
    if (of === undefined) return part
    references.push({ id: part.id, of })
    const { modelOutput: _, ...rest } = part
    return { ...rest, result: referenceText(of) }
  })
  if (references.length === 0) return undefined
  return {
    index,
    message: Prompt.toolMessage({ ...message, content }),
    metadata: { [referenceKey]: { references, target, originalTokens: item.tokens } }
  }
}

/**
 * A memo of the references made, per window: a message sent as a reference is sent so at every
 * call, the same message object, counted once (by original message, its index and target).
 *
 * @since 0.3.0
 * @category models
 */
export type Memo = WeakMap<
  Prompt.Message,
  { readonly index: number; readonly target: number; readonly edit: MessageEdit; readonly tokens: number }
>

/**
 * An empty {@link Memo}; one per stable window.
 *
 * @since 0.3.0
 * @category constructors
 */
export const makeMemo = (): Memo => new WeakMap()

/**
 * The candidates with the pairs' references made (rule R2); a pair that refers to a message not
 * sent whole, or whose reference would not be shorter than the result (rule R1), is left out.
 * Gives the candidates and the pairs made.
 *
 * @since 0.3.0
 * @category references
 */
export const apply = (
  candidates: PromptWindow.Candidates,
  pairs: ReadonlyArray<readonly [number, number]>,
  memo: Memo = makeMemo(),
  itemMemo?: ItemMemo
): Effect.Effect<
  { readonly candidates: PromptWindow.Candidates; readonly pairs: ReadonlyArray<readonly [number, number]> },
  AiError.AiError | PromptWindow.CandidateError,
  TokenCounter
> => applyBody(candidates, pairs, memo, itemMemo)

// A generator function of the module, not a generator closure made at every call (docs/design.md item 144).
const applyBody = Effect.fnUntraced(function*(
  candidates: PromptWindow.Candidates,
  pairs: ReadonlyArray<readonly [number, number]>,
  memo: Memo = makeMemo(),
  itemMemo: ItemMemo | undefined
) {
  if (pairs.length === 0) return { candidates, pairs }
  const counter = yield* TokenCounter
  const edits: Array<MessageEdit> = []
  const tokens = new Map<MessageEdit, number>()
  const kept: Array<readonly [number, number]> = []
  for (const [index, target] of pairs) {
    const original = candidates.messages[index]
    if (original === undefined) continue
    const known = memo.get(original)
    let made = known !== undefined && known.index === index && known.target === target &&
        whole(candidates, index) && whole(candidates, target)
      ? known
      : undefined
    if (made === undefined) {
      const edit = referring(candidates, index, target)
      if (edit === undefined) continue
      made = { index, target, edit, tokens: yield* countAt(counter, edit.message, index) }
      memo.set(original, made)
    }
    // R1: a reference that is not shorter than the result is not sent.
    if (made.tokens >= candidates.items[index]!.tokens) continue
    edits.push(made.edit)
    tokens.set(made.edit, made.tokens)
    kept.push([index, target])
  }
  return { candidates: yield* editMessages(candidates, edits, (edit) => tokens.get(edit), itemMemo), pairs: kept }
})

/**
 * Rule R4: the pairs of a window whose referring message is in it while its target is not (or
 * is, but not whole: masked, shortened). `inWindow` is the set of history indices whose
 * messages the window holds; `candidates` are the window's.
 *
 * @since 0.3.0
 * @category references
 */
export const broken = (
  pairs: ReadonlyArray<readonly [number, number]>,
  inWindow: ReadonlySet<number>,
  candidates: PromptWindow.Candidates
): Array<readonly [number, number]> =>
  pairs.filter(([index, target]) => inWindow.has(index) && (!inWindow.has(target) || !whole(candidates, target)))
