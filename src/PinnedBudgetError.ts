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
 * `PromptWindow.fit` (and so every agent call) raises it when the pinned items need more than
 * `targetTokens`, the tighter of the two limits, so that "the pinned items alone do not fit" is
 * one error whatever the budget; `limit` is then `"targetTokens"` (absent: `maxTokens −
 * outputReserve`).
 *
 * @since 0.2.0
 * @category errors
 */
export class PinnedBudgetError extends Schema.TaggedError<PinnedBudgetError>()("PinnedBudgetError", {
  pinnedTokens: Schema.Int,
  availableTokens: Schema.Int,
  pinnedCount: Schema.Int,
  limit: Schema.optionalKey(Schema.Literal("targetTokens"))
}) {
  override get message(): string {
    return this.limit === "targetTokens"
      ? `Pinned items require ${this.pinnedTokens} tokens, but only ${this.availableTokens} are available (targetTokens); pin fewer or smaller items, or raise the target`
      : `Pinned items require ${this.pinnedTokens} tokens, but only ${this.availableTokens} are available (maxTokens − outputReserve); pin fewer or smaller items, or raise maxTokens`
  }
}
