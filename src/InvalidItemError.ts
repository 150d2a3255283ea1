/**
 * InvalidItemError: an item that Place cannot place.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * What is wrong with the item.
 *
 * - `NegativeTokens` — the specification's Classify stage excludes such items, so they never
 *   reach placement; given one directly, Place refuses it rather than guess.
 * - `NonIntegerTokens` — token counts are integers.
 * - `InvalidScore` — the score is NaN (or not a number), which no order can hold.
 * - `PinnedInScored` — an item marked `pinned` was given among the scored items. Pinned items
 *   bypass scoring and slicing and belong in the `pinned` list. (Items in the `pinned` list are
 *   pinned by being there, whatever their flag says.)
 * - `NotAContextItem` — a candidate of `Pipeline.run` (or `Policy.run`) is not a `ContextItem`
 *   instance: a plain object from JavaScript, say, which lacks the defaults the stages read
 *   (`kind`, `tags`, `metadata`, `pinned`). `received` says what it is. (Since 0.3.0.)
 *
 * @since 0.1.0
 * @category models
 */
export const InvalidItemProblem = Schema.Literals([
  "NegativeTokens",
  "NonIntegerTokens",
  "InvalidScore",
  "PinnedInScored",
  "NotAContextItem"
])

/**
 * @since 0.1.0
 * @category models
 */
export type InvalidItemProblem = typeof InvalidItemProblem.Type

/**
 * Raised by `Place.place` (and the pipeline's Classify stage, list `candidates`) when an input item
 * cannot be used. It names the list the item was
 * in (`pinned` or `scored`), its index there and its content. For `NotAContextItem`, `content`
 * and `tokens` are the value's own when it has them (else `""` and NaN), and `received`
 * describes the value (`a plain object`, `null`…).
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidItemError extends Schema.TaggedError<InvalidItemError>()("InvalidItemError", {
  problem: InvalidItemProblem,
  list: Schema.Literals(["pinned", "scored", "candidates"]),
  index: Schema.Int,
  content: Schema.String,
  tokens: Schema.Number,
  score: Schema.optionalKey(Schema.Number),
  received: Schema.optionalKey(Schema.String)
}) {
  override get message(): string {
    const where = `${this.list}[${this.index}] (${JSON.stringify(preview(this.content))})`
    switch (this.problem) {
      case "NotAContextItem":
        return `${this.content === "" ? `${this.list}[${this.index}]` : where} is ${
          this.received ?? "something else"
        }, not a ContextItem: make items with new ContextItem.ContextItem({ content, tokens }) or decode them ` +
          `with ContextItem.decodeMany, which fill in the other fields`
      case "NegativeTokens":
        return `${where} has a negative token count (${this.tokens}); such items must be excluded before placement`
      case "NonIntegerTokens":
        return `${where} has a token count that is not an integer (${this.tokens})`
      case "InvalidScore":
        return `${where} has a score that is not a number (${String(this.score)})`
      case "PinnedInScored":
        return `${where} is marked pinned; pinned items bypass scoring and belong in the pinned list`
    }
  }
}

const preview = (content: string): string => content.length > 40 ? `${content.slice(0, 37)}...` : content
