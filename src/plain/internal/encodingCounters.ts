/**
 * The token counters of `trim`'s encodings, one per encoding for the process (docs/design.md
 * item 83): `trim` is one stateless call, but counting a message is a pure function of its
 * content and the encoding, so the counter — and the counts it remembers per prompt message
 * object (`TokenCounter.layerTokenizer`) — outlives the call. With the conversions' content memo
 * (`OpenAIChat.convert`, `ModelMessages.convert`), which gives the same prompt message object
 * for a message seen before, a message's tokens are counted once, whatever call or
 * conversation sends it again. The items made of those messages are kept the same way
 * (`PromptWindow.ItemCache`, one an encoding: an item holds its message's count): an item is
 * reused only for the same prompt message object at the same index in the same group, so a
 * reused item is the item the fit would make. Nothing here depends on a conversation: counts
 * and items are the same for every caller, and they go when their prompt messages do (the
 * caches are `WeakMap`s, but for the last history's items, which the next call continues).
 *
 * @internal
 */
import { Context, Effect, Layer } from "effect"
import * as GptTokenizer from "../../ai/GptTokenizer.ts"
import type * as MediaTokens from "../../ai/MediaTokens.ts"
import * as PromptWindow from "../../ai/PromptWindow.ts"
import { TokenCounter } from "../../ai/TokenCounter.ts"

/** An encoding's counter, and the items of the messages it counted. */
export interface Counting {
  readonly counter: TokenCounter["Service"]
  readonly itemCache: PromptWindow.ItemCache
}

const counters = new Map<string, Counting>()

/**
 * The counter of an encoding and a media rule (how images and PDFs are counted: `MediaTokens`):
 * made at the first call that needs it (loading `gpt-tokenizer`), the same afterwards. A failed
 * load is not remembered: a later call tries again.
 */
export const counterOf = (
  encoding: GptTokenizer.Encoding,
  media: MediaTokens.Provider = "openai"
): Effect.Effect<Counting, GptTokenizer.TokenizerLoadError> =>
  Effect.suspend(() => {
    const key = `${encoding} ${media}`
    const known = counters.get(key)
    if (known !== undefined) return Effect.succeed(known)
    return Layer.build(GptTokenizer.layerEncoding(encoding, media)).pipe(
      Effect.scoped,
      Effect.map((context) => {
        const counting = { counter: Context.get(context, TokenCounter), itemCache: PromptWindow.makeItemCache() }
        counters.set(key, counting)
        return counting
      })
    )
  })
