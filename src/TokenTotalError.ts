/**
 * TokenTotalError: a sum of token counts that a double cannot hold exactly.
 *
 * @since 0.2.0
 */
import { Schema } from "effect"

/**
 * Raised when the tokens of a set of items add up past `Number.MAX_SAFE_INTEGER` (2^53 − 1),
 * beyond which a double no longer counts every integer: totals, overflow checks and budgets
 * would silently be wrong. `what` says which total (`"pinned items"`, `"merged items"`…),
 * `count` how many items had been added when it happened.
 *
 * @since 0.2.0
 * @category errors
 */
export class TokenTotalError extends Schema.TaggedError<TokenTotalError>()("TokenTotalError", {
  what: Schema.String,
  count: Schema.Int
}) {
  override get message(): string {
    return `the tokens of the ${this.what} add up past ${Number.MAX_SAFE_INTEGER} (Number.MAX_SAFE_INTEGER) after ${this.count} items; no exact total exists`
  }
}
