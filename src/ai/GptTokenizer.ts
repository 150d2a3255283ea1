/**
 * GptTokenizer: an offline `effect/ai` `Tokenizer` built on the `gpt-tokenizer` package.
 *
 * Import it by path — `effect-cupel/ai/GptTokenizer` — and install `gpt-tokenizer` (an
 * optional peer dependency): nothing else in effect-cupel loads it, and only the encoding you
 * choose is loaded, when the layer is built.
 *
 * A prompt is tokenized as the chat format sends it: each message framed as
 * `<|im_start|>role<|im_sep|>text<|im_end|>`, then the reply priming
 * `<|im_start|>assistant<|im_sep|>`; the text of a message is `PromptWindow.render`'s — its
 * text and reasoning, each tool call's name and arguments as JSON, each tool result's output.
 * The counts are those of the OpenAI chat format; other providers frame messages differently,
 * by a few tokens per message. The `Tokenizer` sees text only: the `TokenCounter` of
 * {@link layerEncoding} adds each image's and PDF's estimate (`MediaTokens`).
 *
 * @since 0.2.0
 */
import { Effect, Layer } from "effect"
import type { AiError, Prompt } from "effect/ai"
import { Tokenizer } from "effect/ai"
import { render, renderEffect, renderedPieces } from "./PromptRender.ts"
import * as MediaTokens from "./MediaTokens.ts"
import * as TokenCounter from "./TokenCounter.ts"
import * as ChunkedCount from "./internal/chunkedCount.ts"
import * as Huge from "./internal/hugeResult.ts"
import { loadChatEncoder, loadTextCounter } from "../internal/gptTokenizer.ts"
import { TokenizerLoadError } from "../TokenizerLoadError.ts"

/**
 * The encodings on offer: `o200k_base` (GPT-4o and later; the default) and `cl100k_base`
 * (GPT-4, GPT-3.5).
 *
 * @since 0.2.0
 * @category models
 */
export type Encoding = "o200k_base" | "cl100k_base"

/**
 * The encoding could not be loaded (`gpt-tokenizer` missing): the core's error, named here too.
 *
 * @since 0.2.0
 * @category errors
 */
export { TokenizerLoadError }


/**
 * A counter of plain text in an encoding (`countTokens`), `gpt-tokenizer` loaded on demand:
 * what `Counting` and `cupel run --count-tokens` fill item counts with. Text that looks like a
 * special token is counted as text. Fails with {@link TokenizerLoadError} when `gpt-tokenizer`
 * cannot be loaded.
 *
 * @since 0.3.0
 * @category constructors
 */
export const textCounter = (encoding: Encoding = "o200k_base"): Effect.Effect<(text: string) => number, TokenizerLoadError> =>
  loadTextCounter(encoding)

/**
 * A `Tokenizer` service for an encoding. Text that looks like a special token
 * (`<|im_end|>`) inside a message is counted as text, never as a special token. Fails with
 * {@link TokenizerLoadError} when `gpt-tokenizer` cannot be loaded.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (encoding: Encoding = "o200k_base"): Effect.Effect<Tokenizer.Service, TokenizerLoadError> =>
  Effect.map(loadChatEncoder(encoding), (encodeChat) =>
    Tokenizer.make({
      tokenize: (prompt) =>
        Effect.sync(() => encodeChat(prompt.content.map((message) => ({ role: message.role, content: render(message) }))))
    }))

/**
 * The `Tokenizer` service for an encoding. Building it fails with {@link TokenizerLoadError}
 * when `gpt-tokenizer` is not installed.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerTokenizer = (
  encoding: Encoding = "o200k_base"
): Layer.Layer<Tokenizer.Tokenizer, TokenizerLoadError> =>
  Layer.effect(Tokenizer.Tokenizer, make(encoding))

/**
 * The `Tokenizer` service for an encoding and the `TokenCounter` that counts as it does, each
 * message once, its images and PDFs by the `media` provider's rule (`MediaTokens`; default
 * OpenAI's). Building it fails with {@link TokenizerLoadError} when `gpt-tokenizer` is not
 * installed, and in no other way: this tokenizer itself never fails (measuring the request
 * overhead cannot).
 *
 * A message whose text is long (over 32,768 characters) is counted as its role's framing plus
 * its text counted in pieces cut where the encoding's pre-tokens always end — the same count,
 * exactly — the fiber yielding between pieces, so that counting a 5 MB tool result never holds
 * the event loop for more than a few milliseconds (docs/design.md item 90).
 *
 * @since 0.2.0
 * @category layers
 */
export const layerEncoding = (
  encoding: Encoding,
  media: MediaTokens.Provider = MediaTokens.defaultProvider
): Layer.Layer<Tokenizer.Tokenizer | TokenCounter.TokenCounter, TokenizerLoadError> =>
  Layer.merge(layerTokenizer(encoding), layerCounter(encoding, media))

/** The counter of {@link layerEncoding}: short messages encoded whole, long ones in pieces. */
const layerCounter = (
  encoding: Encoding,
  media: MediaTokens.Provider
): Layer.Layer<TokenCounter.TokenCounter, TokenizerLoadError> =>
  Layer.effect(
    TokenCounter.TokenCounter,
    Effect.gen(function*() {
      const encodeChat = yield* loadChatEncoder(encoding)
      const countText = yield* loadTextCounter(encoding)
      const requestOverhead = encodeChat([]).length
      const countPiece = ChunkedCount.makeMemo(countText)
      // A role's framing: its message's tokens less its text's (the text is encoded alone,
      // between the framing's special tokens).
      const framing = new Map<string, number>()
      const framingOf = (role: string): number => {
        let n = framing.get(role)
        if (n === undefined) {
          n = encodeChat([{ role, content: "" }]).length - requestOverhead
          framing.set(role, n)
        }
        return n
      }
      const counted = new WeakMap<Prompt.Message, number>()
      // Every text is its role's framing plus its count as plain text: the chat encoder's count,
      // without the chat encoder's generator, which made an array of every token a short message
      // has (docs/design.md item 120: half of what an agent loop's `trim` step allocated).
      const exact = (message: Prompt.Message): Effect.Effect<number> =>
        Effect.flatMap(renderEffect(message), (text) => {
          if (text.length <= ChunkedCount.pieceChars) return Effect.sync(() => framingOf(message.role) + countText(text))
          // A tool message whose text is huge for another reason than a string result (a JSON
          // tree's text): its ends counted, scaled to its length (item 122).
          const sampled = message.role === "tool" && text.length > Huge.hugeChars
            ? Huge.ends(renderedPieces(message) ?? [text], Huge.sampleChars)
            : undefined
          if (sampled === undefined) {
            return Effect.map(ChunkedCount.count(text, countText, countPiece), (n) => framingOf(message.role) + n)
          }
          return Effect.map(
            Effect.all([ChunkedCount.count(sampled.head, countText, countPiece), ChunkedCount.count(sampled.tail, countText, countPiece)]),
            ([head, tail]) =>
              framingOf(message.role) + Math.ceil((head + tail) * sampled.length / (sampled.head.length + sampled.tail.length))
          )
        })
      const count = (message: Prompt.Message): Effect.Effect<number, AiError.AiError> => {
        const known = counted.get(message)
        if (known !== undefined) return Effect.succeed(known)
        // A result far larger than any window: its head and tail counted, scaled to its length.
        const sampled = Huge.sample(message)
        const tokens = sampled === undefined
          ? exact(message)
          : Effect.map(exact(sampled.message), (n) => Math.ceil(n * sampled.scale))
        return Effect.map(tokens, (n) => {
          const total = n + MediaTokens.ofMessage(message, media)
          counted.set(message, total)
          return total
        })
      }
      return TokenCounter.TokenCounter.of({ count, requestOverhead })
    })
  )

/**
 * `o200k_base`: the `Tokenizer` and the `TokenCounter`. Building it fails with
 * {@link TokenizerLoadError} when `gpt-tokenizer` is not installed.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer: Layer.Layer<Tokenizer.Tokenizer | TokenCounter.TokenCounter, TokenizerLoadError> = layerEncoding(
  "o200k_base"
)

/**
 * The tokens of a prompt, as sent: a convenience over the `Tokenizer` service.
 *
 * @since 0.2.0
 * @category utils
 */
export const count = (prompt: Prompt.RawInput): Effect.Effect<number, AiError.AiError, Tokenizer.Tokenizer> =>
  Effect.flatMap(Tokenizer.Tokenizer, (t) => t.tokenize(prompt)).pipe(Effect.map((tokens) => tokens.length))
