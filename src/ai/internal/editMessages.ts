/**
 * Tool messages of a call's candidates replaced by edited copies (a masked stub, a reference to
 * an earlier result): each edited message counted by the `TokenCounter`, its item remade with the
 * edited text and tokens, the original tokens kept in `originalTokens` and a mark in its
 * metadata. The candidates' other items are the same objects.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import type { AiError, Prompt } from "effect/ai"
import * as ContextItem from "../../ContextItem.ts"
import * as PromptWindow from "../PromptWindow.ts"
import { thrownBy, TokenCounter } from "../TokenCounter.ts"

/** One edit: message `index` sent as `message`, its item marked with `metadata`. */
export interface MessageEdit {
  readonly index: number
  readonly message: Prompt.ToolMessage | Prompt.UserMessage
  readonly metadata: Readonly<Record<string, unknown>>
}

/**
 * The tokens of `message` (at `index`) by the counter; a counter function that throws is a
 * `CandidateError` on its `count`, as `PromptWindow` reports it.
 */
export const countAt = (
  counter: TokenCounter["Service"],
  message: Prompt.Message,
  index: number
): Effect.Effect<number, AiError.AiError | PromptWindow.CandidateError> =>
  Effect.flatMap(
    Effect.mapError(counter.count(message), (error) => {
      const thrown = thrownBy(error)
      return thrown === undefined
        ? error
        : new PromptWindow.CandidateError({ index, field: "count", problem: `threw: ${thrown}`, cause: error })
    }),
    (tokens) =>
      Number.isSafeInteger(tokens) && tokens >= 0
        ? Effect.succeed(tokens)
        : Effect.fail(
          new PromptWindow.CandidateError({
            index,
            field: "tokens",
            problem: `must be a safe integer: the TokenCounter gave ${tokens}`
          })
        )
  )

/**
 * The items an edit made, by edit object (one per stable window, beside its masking and reference
 * memos, whose edits are the same objects call after call): the same edit of the same item gives
 * the same item object at every call, so the window's report entries (`stableResults`) and what
 * an append carries (`appendCarry`) see the same items, and no item is validated again.
 */
export type ItemMemo = WeakMap<MessageEdit, { readonly from: ContextItem.ContextItem; readonly tokens: number; readonly replaced: ContextItem.ContextItem }>

/** An empty {@link ItemMemo}. */
export const makeItemMemo = (): ItemMemo => new WeakMap()

/**
 * The candidates with the edits applied (the same candidates without any). `tokensOf` gives an
 * edited message's tokens when they are known already (a memo), else it is counted.
 */
export const editMessages = (
  candidates: PromptWindow.Candidates,
  edits: ReadonlyArray<MessageEdit>,
  tokensOf: (edit: MessageEdit) => number | undefined = () => undefined,
  itemMemo?: ItemMemo
): Effect.Effect<PromptWindow.Candidates, AiError.AiError | PromptWindow.CandidateError, TokenCounter> =>
  editMessagesBody(candidates, edits, tokensOf, itemMemo)

// A generator function of the module, not a generator closure made at every call (docs/design.md item 144).
const editMessagesBody = Effect.fnUntraced(function*(
  candidates: PromptWindow.Candidates,
  edits: ReadonlyArray<MessageEdit>,
  tokensOf: (edit: MessageEdit) => number | undefined = () => undefined,
  itemMemo: ItemMemo | undefined
) {
  if (edits.length === 0) return candidates
  const counter = yield* TokenCounter
  const items = candidates.items.slice()
  const messages = candidates.messages.slice()
  const messageOf = new Map(candidates.messageOf)
  for (const edit of edits) {
    const item = items[edit.index]
    if (item === undefined) continue
    const tokens = tokensOf(edit) ?? (yield* countAt(counter, edit.message, edit.index))
    const known = itemMemo?.get(edit)
    const replaced = known !== undefined && known.from === item && known.tokens === tokens
      ? known.replaced
      : new ContextItem.ContextItem({
        ...item,
        content: PromptWindow.render(edit.message),
        tokens,
        originalTokens: item.originalTokens ?? item.tokens,
        metadata: { ...item.metadata, ...edit.metadata }
      })
    if (itemMemo !== undefined && known?.replaced !== replaced) itemMemo.set(edit, { from: item, tokens, replaced })
    items[edit.index] = replaced
    messages[edit.index] = edit.message
    messageOf.delete(item)
    messageOf.set(replaced, edit.message)
  }
  return { ...candidates, items, messages, messageOf }
})
