/**
 * PlacerContractError: a placer returned something other than a reordering of its input.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * How the contract was broken.
 *
 * - `WrongLength` — the output has more or fewer items than the input.
 * - `UnknownItem` — the output holds an item (or index) that was not in the input.
 * - `RepeatedItem` — the output holds an input item more times than the input did.
 *
 * @since 0.1.0
 * @category models
 */
export const PlacerContractViolation = Schema.Literals(["WrongLength", "UnknownItem", "RepeatedItem"])

/**
 * @since 0.1.0
 * @category models
 */
export type PlacerContractViolation = typeof PlacerContractViolation.Type

/**
 * Raised when a placer breaks the specification's contract: it must return exactly the items it
 * was given — the same objects, none added, dropped or repeated — in some order.
 *
 * @since 0.1.0
 * @category errors
 */
export class PlacerContractError extends Schema.TaggedError<PlacerContractError>()("PlacerContractError", {
  placer: Schema.String,
  violation: PlacerContractViolation,
  expectedLength: Schema.Int,
  actualLength: Schema.Int,
  /** The output position where the violation was found, when there is one. */
  position: Schema.optionalKey(Schema.Int)
}) {
  override get message(): string {
    const who = `Placer "${this.placer}"`
    switch (this.violation) {
      case "WrongLength":
        return `${who} returned ${this.actualLength} items for ${this.expectedLength} inputs; a placer must return exactly its input items`
      case "UnknownItem":
        return `${who} returned, at position ${this.position}, an item that was not in its input; a placer must return the same item objects it was given`
      case "RepeatedItem":
        return `${who} returned, at position ${this.position}, an input item a second time; a placer must not duplicate items`
    }
  }
}
