/**
 * OverflowEvent: what the `OverflowNotifier` hears when Place proceeds over budget.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { ContextBudget } from "./ContextBudget.ts"
import { ContextItem } from "./ContextItem.ts"

/**
 * Produced only under the `Proceed` strategy, when the merged items exceed `targetTokens`.
 *
 * - `tokensOverBudget` — merged tokens minus `budget.targetTokens`.
 * - `overflowingItems` — every item present at the time of overflow (pinned and sliced), in
 *   merged order.
 * - `budget` — the budget that was exceeded.
 *
 * @since 0.1.0
 * @category schemas
 */
export const OverflowEvent = Schema.Struct({
  tokensOverBudget: Schema.Int,
  overflowingItems: Schema.Array(ContextItem),
  budget: ContextBudget
}).annotate({ identifier: "OverflowEvent" })

/**
 * @since 0.1.0
 * @category models
 */
export type OverflowEvent = typeof OverflowEvent.Type
