/**
 * CountRequirementError: a count quota that could not be met, under the `Throw` scarcity rule.
 *
 * @since 0.2.0
 */
import { Schema } from "effect"
import { CountRequirementShortfall } from "./CountRequirementShortfall.ts"

/**
 * Raised by a count-quota slicer configured to throw on scarcity when one or more kinds cannot
 * reach their required count. `shortfalls` says, per kind, how many were required and how many
 * could be selected. (With the `Degrade` rule the same data is reported in the selection report
 * instead, and the run goes on.)
 *
 * @since 0.2.0
 * @category errors
 */
export class CountRequirementError extends Schema.TaggedError<CountRequirementError>()("CountRequirementError", {
  slicer: Schema.String,
  shortfalls: Schema.Array(CountRequirementShortfall)
}) {
  override get message(): string {
    const each = this.shortfalls.map((s) => `${s.kind}: ${s.satisfiedCount} of ${s.requiredCount} required`)
    return `Slicer "${this.slicer}" could not meet its count requirements (${each.join("; ")})`
  }
}
