/**
 * ConversationKey: which conversation a model call belongs to (docs/ai.md, rule S1), so that a
 * stable window remembers per conversation what it sent.
 *
 * A key comes from, in order: the {@link ConversationKey} reference in the calling fiber's
 * context ({@link provide}), the layer's `conversationKey` option, and the default,
 * {@link fromOpening}: a hash of the history's opening — its messages up to and including the
 * first user message. An agent loop sends the same opening at every step, so its calls share a
 * key; conversations with different openings never share state. Two conversations that open
 * with the very same messages share a key by default: give them keys of their own. Sharing a key
 * can cost cache hits, never correctness: a state is used only for a history that starts with
 * the history it saw (rule S3).
 *
 * @since 0.3.0
 */
import { Context, Effect } from "effect"
import type { Prompt } from "effect/ai"
import * as Hash from "./internal/hash.ts"

/**
 * The current call's conversation key; `undefined` (the default) leaves the choice to the layer.
 *
 * @since 0.3.0
 * @category references
 */
export const ConversationKey: Context.Reference<string | undefined> = Context.Reference<string | undefined>(
  "effect-cupel/ai/ConversationKey",
  { defaultValue: () => undefined }
)

/**
 * Runs `effect` — model calls, an agent loop — as the conversation `key`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { LanguageModel } from "effect/ai"
 * import * as ConversationKey from "effect-cupel/ai/ConversationKey"
 *
 * const answer = LanguageModel.generateText({ prompt: "hello" }).pipe(ConversationKey.provide("ticket-42"))
 * ```
 *
 * @since 0.3.0
 * @category combinators
 */
export const provide = (key: string) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.provideService(effect, ConversationKey, key)

/**
 * The default key of a history: `opening:` and the chained hash of its messages (`hashOf` gives
 * each message's) up to and including the first user message (all of them when there is none).
 *
 * @since 0.3.0
 * @category keys
 */
export const fromOpening = (
  messages: ReadonlyArray<Prompt.Message>,
  hashOf: (message: Prompt.Message) => string
): string => {
  let digest = Hash.start
  for (const message of messages) {
    digest = Hash.chain(digest, hashOf(message))
    if (message.role === "user") break
  }
  return `opening:${digest}`
}
