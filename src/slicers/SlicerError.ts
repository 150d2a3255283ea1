/**
 * SlicerError: a slicer could not select the items.
 *
 * @since 0.2.0
 */
import { Schema } from "effect"

/**
 * Raised when a slicer fails at run time: a custom slicer threw, or a built-in slicer met a
 * limit it cannot work past (the knapsack's table too large for the budget and bucket size).
 * `reason` says what happened and, where there is one, what to change.
 *
 * @since 0.2.0
 * @category errors
 */
export class SlicerError extends Schema.TaggedError<SlicerError>()("SlicerError", {
  slicer: Schema.String,
  reason: Schema.String,
  cause: Schema.optionalKey(Schema.Defect())
}) {
  override get message(): string {
    return `Slicer "${this.slicer}" failed: ${this.reason}`
  }
}
