/**
 * PinnedBudgetError: pinned items that do not fit the window at all.
 *
 * @since 0.2.0
 */
import { Schema } from "effect"

/**
 * Raised by the Classify stage when the pinned items need more tokens than
 * `maxTokens − outputReserve`. Not recoverable by the pipeline: pin fewer or smaller items, or
 * give the budget more room.
 *
 * @since 0.2.0
 * @category errors
 */
export class PinnedBudgetError extends Schema.TaggedError<PinnedBudgetError>()("PinnedBudgetError", {
  pinnedTokens: Schema.Int,
  availableTokens: Schema.Int,
  pinnedCount: Schema.Int
}) {
  override get message(): string {
    return `Pinned items require ${this.pinnedTokens} tokens, but only ${this.availableTokens} are available (maxTokens − outputReserve); pin fewer or smaller items, or raise maxTokens`
  }
}
