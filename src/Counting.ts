/**
 * Counting: items without a token count, counted from their content.
 *
 * The pipeline needs every candidate's `tokens`. Items that arrive without one — plain objects
 * from a database, a retriever, a JSON file — are counted here, then decoded as
 * `ContextItem.decodeMany` decodes them, ready for `Pipeline.run` or `Policy.run`:
 *
 * - `"o200k"` (the default: GPT-4o and later) or `"cl100k"` (GPT-4, GPT-3.5) count through
 *   `gpt-tokenizer`, an optional peer dependency loaded on demand and only when some item has no
 *   count; it missing is a {@link TokenizerLoadError}, never a silent estimate;
 * - or a function of yours, `(content, index) => tokens`, for your model's own tokenizer. A
 *   throw, or an answer that is not a non-negative safe integer, is a {@link CountError}
 *   naming the item.
 *
 * A content is counted as the plain text it is, with no chat framing (an item is not a chat
 * message), and text that looks like a special token (`<|endoftext|>`) is counted as text. An
 * item that has `tokens` keeps it, whatever its content; `tokens: null` is no count (the wire's
 * "absent"), and is counted. The caller's objects are never
 * changed: an item that is counted is decoded from a copy with its count.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Counting } from "effect-cupel"
 *
 * const items = await Effect.runPromise(
 *   Counting.decodeMany([{ content: "hello world" }, { content: "kept as given", tokens: 7 }], {
 *     count: (content) => content.split(" ").length
 *   })
 * )
 * items.map((item) => item.tokens) // [2, 7]
 * ```
 *
 * @since 0.3.0
 */
import { Effect, Schema } from "effect"
import * as ContextItem from "./ContextItem.ts"
import { describeThrown, describeValue } from "./internal/describeThrown.ts"
import { isRecord } from "./internal/fastDecode.ts"
import { loadTextCounter } from "./internal/gptTokenizer.ts"
import { TokenizerLoadError } from "./TokenizerLoadError.ts"

/**
 * How items without `tokens` are counted: an encoding of `gpt-tokenizer`, or a function given
 * each such item's content and its index in the input.
 *
 * @since 0.3.0
 * @category models
 */
export type Count = "o200k" | "cl100k" | ((content: string, index: number) => number)

/**
 * The options of {@link decodeMany} and {@link decodeJsonArray}: `count` (default `"o200k"`).
 *
 * @since 0.3.0
 * @category models
 */
export interface Options {
  readonly count?: Count | undefined
}

/**
 * A count could not be made: the `count` function threw (`cause` holds what it threw) or
 * answered something that is not a non-negative safe integer. `index` is the item's position
 * in the input; `count` was not a known encoding or a function when `index` is -1.
 *
 * @since 0.3.0
 * @category errors
 */
export class CountError extends Schema.TaggedError<CountError>()("CountError", {
  index: Schema.Number,
  problem: Schema.String,
  cause: Schema.optionalKey(Schema.Defect())
}) {
  override get message(): string {
    return this.index < 0 ? `count ${this.problem}` : `count of item [${this.index}] ${this.problem}`
  }
}

/**
 * What counting and decoding fail with: the decoder's `SchemaError`, a {@link CountError}, or a
 * {@link TokenizerLoadError} when an encoding is asked for and `gpt-tokenizer` is missing.
 *
 * @since 0.3.0
 * @category errors
 */
export type DecodeError = Schema.SchemaError | CountError | TokenizerLoadError

/**
 * A counter of plain text in an encoding (`gpt-tokenizer`'s `countTokens`), loaded on demand.
 * Text that looks like a special token is counted as text.
 *
 * @since 0.3.0
 * @category constructors
 */
export const textCounter = (encoding: "o200k" | "cl100k"): Effect.Effect<(text: string) => number, TokenizerLoadError> =>
  loadTextCounter(encoding === "o200k" ? "o200k_base" : "cl100k_base")

/**
 * An item of the input that has no `tokens` (absent, or `null` or `undefined`: on the wire, as in
 * a nullable database column, `null` means absent) and a string `content`: one this module counts.
 */
const uncounted = (item: unknown): item is Record<string, unknown> & { readonly content: string } =>
  isRecord(item) && item["tokens"] == null && typeof item["content"] === "string"

/** A `count` that is none of the three (from JavaScript, or a cast): a `CountError`, not a defect. */
const badCount = (count: unknown): CountError | undefined =>
  count === undefined || count === "o200k" || count === "cl100k" || typeof count === "function"
    ? undefined
    : new CountError({ index: -1, problem: `must be "o200k", "cl100k" or a function (got ${describeValue(count)})` })

/** The counter for a checked `count`. */
const counterOf = (count: Count | undefined): Effect.Effect<(content: string, index: number) => number, TokenizerLoadError> =>
  typeof count === "function" ? Effect.succeed(count) : textCounter(count ?? "o200k")

/**
 * The input with every item that has no `tokens` (and a string `content`) replaced by a copy
 * with its count; the input itself when none needs one, or when it is not an array (for the
 * decoder to report). `gpt-tokenizer` is loaded only when some item needs counting.
 *
 * @since 0.3.0
 * @category counting
 */
export const fill = (input: unknown, options: Options = {}): Effect.Effect<unknown, CountError | TokenizerLoadError> =>
  Effect.suspend(() => {
    const bad = badCount(options.count)
    if (bad !== undefined) return Effect.fail(bad)
    if (!Array.isArray(input)) return Effect.succeed(input)
    const items: ReadonlyArray<unknown> = input
    const first = items.findIndex(uncounted)
    if (first < 0) return Effect.succeed(input)
    return Effect.flatMap(counterOf(options.count), (counter) => {
      const out = items.slice()
      for (let i = first; i < out.length; i++) {
        const item = out[i]
        if (!uncounted(item)) continue
        let tokens: unknown
        try {
          tokens = counter(item.content, i)
        } catch (cause) {
          return Effect.fail(new CountError({ index: i, problem: `threw: ${describeThrown(cause)}`, cause }))
        }
        if (typeof tokens !== "number" || !Number.isSafeInteger(tokens) || tokens < 0) {
          return Effect.fail(
            new CountError({ index: i, problem: `must be a non-negative safe integer (got ${describeValue(tokens)})` })
          )
        }
        out[i] = { ...item, tokens }
      }
      return Effect.succeed(out)
    })
  })

/**
 * Counts the items that have no `tokens` (see {@link fill}), then decodes the array as
 * `ContextItem.decodeMany` does: the same items, and on bad input the same `SchemaError`.
 *
 * @since 0.3.0
 * @category decoding
 */
export const decodeMany = (
  input: unknown,
  options: Options = {}
): Effect.Effect<ReadonlyArray<ContextItem.ContextItem>, DecodeError> =>
  Effect.flatMap(fill(input, options), ContextItem.decodeMany)

/**
 * Parses JSON text holding an array of items, counts those without `tokens` and decodes them:
 * {@link decodeMany} after `JSON.parse`; malformed JSON is the `SchemaError` that
 * `ContextItem.decodeJsonArray` gives.
 *
 * @since 0.3.0
 * @category decoding
 */
export const decodeJsonArray = (
  text: string,
  options: Options = {}
): Effect.Effect<ReadonlyArray<ContextItem.ContextItem>, DecodeError> =>
  Effect.suspend(() => {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return ContextItem.decodeJsonArray(text)
    }
    return decodeMany(parsed, options)
  })
