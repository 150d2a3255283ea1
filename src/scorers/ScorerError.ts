/**
 * ScorerError: a scorer could not score the items.
 *
 * @since 0.2.0
 */
import { Schema } from "effect"

/**
 * Raised when a scorer fails at run time: a custom scorer threw, returned NaN or a value that
 * is not a number, or returned the wrong number of scores. It names the scorer and, when one
 * item is to blame, that item's index among the scored items and its content.
 *
 * @since 0.2.0
 * @category errors
 */
export class ScorerError extends Schema.TaggedError<ScorerError>()("ScorerError", {
  scorer: Schema.String,
  reason: Schema.String,
  /** The index of the offending item in the list the scorer was given, when one is to blame. */
  index: Schema.optionalKey(Schema.Int),
  /** The content of the offending item, when one is to blame. */
  content: Schema.optionalKey(Schema.String),
  cause: Schema.optionalKey(Schema.Defect())
}) {
  override get message(): string {
    const item = this.index === undefined
      ? ""
      : ` on item ${this.index}${this.content === undefined ? "" : ` (${JSON.stringify(preview(this.content))})`}`
    return `Scorer "${this.scorer}" failed${item}: ${this.reason}`
  }
}

const preview = (content: string): string => content.length > 40 ? `${content.slice(0, 37)}...` : content
