/**
 * TurnBudgetError: the newest user message does not fit the window beside the system prompts
 * (docs/ai.md, "Right within a call", rule K2).
 *
 * The newest user message is the question the call answers. A window without it would make the
 * model answer an earlier one, so a fit never sends anything older than it, nor any tool result,
 * without it: when it alone does not fit what the system prompts and pinned items leave of the
 * target, the call fails with this error instead.
 *
 * @since 0.3.0
 */
import { Schema } from "effect"

/**
 * Raised by `PromptWindow.fit` (and so by the stable window, `trim` and every agent call) when
 * the newest user message needs more tokens than the target leaves beside the system prompts
 * and pinned items. `messageIndex` is the message's index in the prompt; `neededTokens` its
 * tokens; `availableTokens` the target less the pinned items (`pinnedTokens`). Not recoverable
 * by the window: shorten the message, shorten the system prompt, or use a larger model.
 *
 * @since 0.3.0
 * @category errors
 */
export class TurnBudgetError extends Schema.TaggedError<TurnBudgetError>()("TurnBudgetError", {
  messageIndex: Schema.Int,
  neededTokens: Schema.Int,
  availableTokens: Schema.Int,
  pinnedTokens: Schema.Int
}) {
  override get message(): string {
    return `The newest user message (message ${this.messageIndex}) requires ${this.neededTokens} tokens, but only ${this.availableTokens} are available beside the system prompts and pinned items (${this.pinnedTokens} tokens); a window without it would answer an earlier question: shorten the message or use a larger context window`
  }
}
