/**
 * IncludedItem: an item in the window, with its score and the reason it is there.
 *
 * @since 0.2.0
 */
import { Schema } from "effect"
import { ContextItem } from "./ContextItem.ts"
import { InclusionReason } from "./InclusionReason.ts"

/**
 * `score` is the item's score when it was selected; pinned items carry 1.0, the score they
 * enter the Place stage with.
 *
 * @since 0.2.0
 * @category schemas
 */
export const IncludedItem = Schema.Struct({
  item: ContextItem,
  score: Schema.Number,
  reason: InclusionReason
}).annotate({ identifier: "IncludedItem" })

/**
 * @since 0.2.0
 * @category models
 */
export type IncludedItem = typeof IncludedItem.Type
