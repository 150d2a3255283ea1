/**
 * SlicerContractError: a slicer returned something other than a subset of its input.
 *
 * @since 0.2.0
 */
import { Schema } from "effect"

/**
 * How the contract was broken.
 *
 * - `UnknownItem` — the selection holds an item (or index) that was not in the input.
 * - `RepeatedItem` — the selection holds an input item more times than the input did.
 *
 * @since 0.2.0
 * @category models
 */
export const SlicerContractViolation = Schema.Literals(["UnknownItem", "RepeatedItem"])

/**
 * @since 0.2.0
 * @category models
 */
export type SlicerContractViolation = typeof SlicerContractViolation.Type

/**
 * Raised when a custom slicer breaks the specification's contract: it must return a subset of
 * the items it was given — the same objects, none added or repeated.
 *
 * @since 0.2.0
 * @category errors
 */
export class SlicerContractError extends Schema.TaggedError<SlicerContractError>()("SlicerContractError", {
  slicer: Schema.String,
  violation: SlicerContractViolation,
  /** The position in the slicer's output where the violation was found. */
  position: Schema.Int
}) {
  override get message(): string {
    const who = `Slicer "${this.slicer}"`
    switch (this.violation) {
      case "UnknownItem":
        return `${who} returned, at position ${this.position}, an item that was not in its input; a slicer must return a subset of the items it was given`
      case "RepeatedItem":
        return `${who} returned, at position ${this.position}, an input item a second time; a slicer must not duplicate items`
    }
  }
}
