/**
 * TokenCounter: how many tokens each `effect/ai` prompt message costs.
 *
 * The bridge between prompts and the pipeline (`PromptWindow`) asks this service for the
 * tokens of every message. {@link layerTokenizer} counts through `effect/ai`'s own `Tokenizer`
 * service, so any tokenizer layer works — the offline `effect-cupel/ai/GptTokenizer` layer, or
 * a provider's. It counts each message once: messages are immutable values, and an agent's
 * history keeps the same message objects from one model call to the next, so the counts are
 * remembered per message object (weakly: a message no longer referenced takes its count with
 * it). The memory belongs to the layer: each build of it starts empty.
 *
 * @since 0.2.0
 */
import { Context, Effect, Layer } from "effect"
import { AiError, Prompt, Tokenizer } from "effect/ai"
import { describeThrown } from "../internal/describeThrown.ts"
import * as MediaTokens from "./MediaTokens.ts"

/**
 * The token counting service.
 *
 * - `count` — the tokens a provider is sent for one message, its framing included.
 * - `requestOverhead` — the tokens a request costs besides its messages (a chat format's
 *   reply priming, say), which the window's budget must leave room for.
 *
 * @since 0.2.0
 * @category services
 */
export class TokenCounter extends Context.Service<TokenCounter, {
  readonly count: (message: Prompt.Message) => Effect.Effect<number, AiError.AiError>
  readonly requestOverhead: number
}>()("effect-cupel/ai/TokenCounter") {}

/**
 * Counts through the current `Tokenizer`: a message costs what tokenizing a prompt of that
 * message alone costs, less what tokenizing the empty prompt costs (measured once, when the
 * layer is built, and offered as `requestOverhead`). For a tokenizer that encodes a chat
 * message by message — as the GPT layer does — the counts then add up exactly to the
 * tokenization of any prompt made of those messages.
 *
 * Each message object is tokenized at most once per build of the layer. Images and PDFs add
 * their estimate by OpenAI's rule ({@link layerTokenizerMedia} for another provider's).
 *
 * @since 0.2.0
 * @category layers
 */
export const layerTokenizer: Layer.Layer<TokenCounter, AiError.AiError, Tokenizer.Tokenizer> = Layer.suspend(() =>
  layerTokenizerMedia(MediaTokens.defaultProvider)
)

/**
 * {@link layerTokenizer} with the images and PDFs of a message counted by a provider's rule
 * (`MediaTokens`): a message costs the tokens of its text (a file part rendered as one short
 * line) plus `MediaTokens.ofMessage(message, media)`. {@link layerTokenizer} uses
 * `MediaTokens.defaultProvider` (OpenAI's rule).
 *
 * @since 0.3.0
 * @category layers
 */
export const layerTokenizerMedia = (
  media: MediaTokens.Provider
): Layer.Layer<TokenCounter, AiError.AiError, Tokenizer.Tokenizer> => Layer.effect(
  TokenCounter,
  Effect.gen(function*() {
    const tokenizer = yield* Tokenizer.Tokenizer
    const requestOverhead = (yield* tokenizer.tokenize(Prompt.empty)).length
    const counted = new WeakMap<Prompt.Message, number>()
    const count = (message: Prompt.Message): Effect.Effect<number, AiError.AiError> => {
      const known = counted.get(message)
      if (known !== undefined) return Effect.succeed(known)
      return Effect.map(tokenizer.tokenize(Prompt.fromMessages([message])), (tokens) => {
        const n = Math.max(0, tokens.length - requestOverhead) + MediaTokens.ofMessage(message, media)
        counted.set(message, n)
        return n
      })
    }
    return TokenCounter.of({ count, requestOverhead })
  })
)

/**
 * The module name on the `AiError`s that {@link make}'s counters raise.
 *
 * @since 0.2.0
 * @category constants
 */
export const errorModule = "effect-cupel/TokenCounter"

/**
 * A counter from a plain function (an estimate such as characters / 4, or a test's fixed
 * counts). Not cached: the function is expected to be cheap.
 *
 * The function is the caller's code: if it throws, `count` fails — in the service's own error
 * channel — with an `AiError` (module {@link errorModule}, method `count`, reason
 * `UnknownError`) whose description names the counter (`name`, default `"TokenCounter.make"`),
 * the message's role and what was thrown; the thrown value is not kept, as an `AiError` is
 * plain data ({@link thrownBy} reads its description back). The window turns that failure
 * into a `PromptWindow.CandidateError` naming the message (`field: "count"`, its index), as
 * every front door reports a counter that throws (docs/ai.md, "Failures"). A count that is not
 * a safe integer is refused by `PromptWindow.toCandidates`, which names the message too.
 *
 * @example
 * ```ts
 * import * as PromptWindow from "effect-cupel/ai/PromptWindow"
 * import * as TokenCounter from "effect-cupel/ai/TokenCounter"
 *
 * // About four characters a token, and four for the message's framing.
 * const roughly = TokenCounter.make((message) => Math.ceil(PromptWindow.render(message).length / 4) + 4)
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (
  count: (message: Prompt.Message) => number,
  requestOverhead = 0,
  name = "TokenCounter.make"
): Layer.Layer<TokenCounter> => Layer.succeed(TokenCounter, service(count, requestOverhead, name))

/**
 * The service {@link make} provides, for a door that gives it with `Effect.provideService` at
 * every call rather than building a layer (`plain/Trim`, docs/design.md item 130): the same
 * counting and the same `AiError` when the function throws.
 *
 * @since 0.3.0
 * @category constructors
 */
export const service = (
  count: (message: Prompt.Message) => number,
  requestOverhead = 0,
  name = "TokenCounter.make"
): TokenCounter["Service"] =>
  TokenCounter.of({
    count: (message) =>
      Effect.try({
        try: () => count(message),
        catch: (cause) =>
          AiError.make({
            module: errorModule,
            method: "count",
            reason: new AiError.UnknownError({
              description: `the token counter "${name}" threw on a ${message.role} message: ${describeThrown(cause)}`,
              metadata: { counter: name, thrown: describeThrown(cause) }
            })
          })
      }),
    requestOverhead
  })


/**
 * What a counter of {@link make} threw, when `error` is the `AiError` its `count` failed with
 * for that reason (described as text); `undefined` for any other error (a tokenizer's own).
 *
 * @since 0.3.0
 * @category errors
 */
export const thrownBy = (error: AiError.AiError): string | undefined => {
  if (error.module !== errorModule || error.method !== "count" || error.reason._tag !== "UnknownError") return undefined
  const thrown = error.reason.metadata["thrown"]
  return typeof thrown === "string" ? thrown : undefined
}
