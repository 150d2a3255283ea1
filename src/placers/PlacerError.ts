/**
 * PlacerError: a custom placer could not place its items.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * The failure a placer reports through the error channel. Built-in placers never fail; a custom
 * effectful placer fails with this (wrapping whatever went wrong as `cause`).
 *
 * @since 0.1.0
 * @category errors
 */
export class PlacerError extends Schema.TaggedError<PlacerError>()("PlacerError", {
  placer: Schema.String,
  reason: Schema.String,
  cause: Schema.optionalKey(Schema.Defect())
}) {
  override get message(): string {
    return `Placer "${this.placer}" failed: ${this.reason}`
  }
}
