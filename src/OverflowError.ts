/**
 * OverflowError: the merged items exceed `targetTokens` under the `Throw` strategy.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * Raised by `Place.place` with `overflowStrategy: "Throw"` (the default) when the pinned and
 * sliced items together need more than `budget.targetTokens`. It is a value in the error
 * channel, never a thrown exception: recover with `Effect.catchTag("OverflowError", …)`.
 *
 * @since 0.1.0
 * @category errors
 */
export class OverflowError extends Schema.TaggedError<OverflowError>()("OverflowError", {
  mergedTokens: Schema.Int,
  targetTokens: Schema.Int,
  tokensOverBudget: Schema.Int
}) {
  /** The specification's wording for this error. */
  override get message(): string {
    return `Selected items require ${this.mergedTokens} tokens, exceeding target budget of ${this.targetTokens}`
  }
}
