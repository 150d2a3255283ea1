/**
 * ExcludedItem: an item left out of the window, with its score and the reason.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { ContextItem } from "./ContextItem.ts"
import { ExclusionReason } from "./ExclusionReason.ts"

/**
 * @since 0.1.0
 * @category schemas
 */
export const ExcludedItem = Schema.Struct({
  item: ContextItem,
  score: Schema.Number,
  reason: ExclusionReason
}).annotate({ identifier: "ExcludedItem" })

/**
 * @since 0.1.0
 * @category models
 */
export type ExcludedItem = typeof ExcludedItem.Type
