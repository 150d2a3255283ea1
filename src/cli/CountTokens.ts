/**
 * CountTokens: `--count-tokens o200k|cl100k` of `cupel run`, `explain` and `budget` — the items
 * of an input that have no `tokens` are counted from their `content` with `gpt-tokenizer`.
 *
 * A `content` is counted as the plain text it is (`countTokens` of the encoding), with no chat
 * framing: an item is not a chat message. Text that looks like a special token (`<|endoftext|>`)
 * is counted as text, never refused. An item that has `tokens` keeps its count, whatever its
 * content; an item whose `content` is not a string is left for the decoder to report, and
 * reported for its content only (not also for the `tokens` the flag would have counted).
 *
 * The counts are filled into the parsed JSON, before decoding: the decoder, its fast path and
 * its messages are the same with or without the flag, and a missing `tokens` the flag could not
 * fill is the same error as without it.
 *
 * `gpt-tokenizer` is a dependency of the CLI package (effect-cupel-cli) and an optional peer of
 * the library: it is loaded only when the flag is given, and only the encoding named.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import * as Counting from "../Counting.ts"
import { describeThrown } from "../internal/describeThrown.ts"
import { isRecord } from "../internal/fastDecode.ts"
import { InputError } from "./PlaceInput.ts"

/**
 * The encodings the flag names: `o200k` (`o200k_base`: GPT-4o and later) and `cl100k`
 * (`cl100k_base`: GPT-4, GPT-3.5).
 *
 * @since 0.3.0
 * @category models
 */
export const encodings = ["o200k", "cl100k"] as const

/**
 * An encoding the flag names.
 *
 * @since 0.3.0
 * @category models
 */
export type Encoding = typeof encodings[number]

/**
 * Counts the tokens of a text.
 *
 * @since 0.3.0
 * @category models
 */
export type CountText = (text: string) => number

/**
 * The counter of an encoding, `gpt-tokenizer` loaded on demand. Failing to load it is an
 * {@link InputError} whose source is `--count-tokens`, saying to install `gpt-tokenizer`.
 *
 * @since 0.3.0
 * @category constructors
 */
export const load = (encoding: Encoding): Effect.Effect<CountText, InputError> =>
  Counting.textCounter(encoding).pipe(
    Effect.mapError((error) =>
      new InputError({
        source: "--count-tokens",
        problems: [
          `could not load gpt-tokenizer's ${encoding}_base encoding (npm install gpt-tokenizer): ${describeThrown(error.cause)}`
        ]
      })
    )
  )

/**
 * Gives every item of a parsed input (`value.items`) that has no `tokens` (or `tokens: null`) and a string
 * `content` the count of that content, in place; returns how many were counted. Anything that
 * is not such an item is left for the decoder to report (see {@link holdUncountable}). The value must be the caller's own,
 * freshly parsed: it is changed, not copied (a million copied items would cost more than their
 * counting saves).
 *
 * @since 0.3.0
 * @category filling
 */
export const fill = (value: unknown, count: CountText): number => {
  if (!isRecord(value)) return 0
  const field = value["items"]
  if (!Array.isArray(field)) return 0
  const items: ReadonlyArray<unknown> = field
  let counted = 0
  for (const item of items) {
    // `null` is the wire's "absent" (a nullable column): counted too.
    if (!isRecord(item) || item["tokens"] != null) continue
    const content = item["content"]
    if (typeof content !== "string") continue
    Reflect.set(item, "tokens", count(content))
    counted++
  }
  return counted
}

/**
 * Gives every item of a parsed input that has no `tokens` (or `tokens: null`) and a `content`
 * that is not a string (or none) a placeholder count of 0, in place; returns how many. Called
 * after {@link fill} under the flag: the decoder refuses such an item for its content whatever
 * its count, and without one it would add "tokens is required", a count the flag would have
 * made from a string content (issue 28). The placeholder never reaches a result, as the item
 * is refused.
 *
 * @since 0.3.0
 * @category filling
 */
export const holdUncountable = (value: unknown): number => {
  if (!isRecord(value)) return 0
  const field = value["items"]
  if (!Array.isArray(field)) return 0
  const items: ReadonlyArray<unknown> = field
  let held = 0
  for (const item of items) {
    if (!isRecord(item) || item["tokens"] != null || typeof item["content"] === "string") continue
    Reflect.set(item, "tokens", 0)
    held++
  }
  return held
}
