/**
 * CountRequirementShortfall: a kind whose required item count could not be met.
 *
 * @since 0.2.0
 */
import { Schema } from "effect"

/**
 * A count quota asked for `requiredCount` items of `kind`, and only `satisfiedCount` could be
 * selected (the candidates ran out, or did not fit). Encoded with the Rust implementation's
 * field names (`required_count`, `satisfied_count`).
 *
 * @since 0.2.0
 * @category schemas
 */
export const CountRequirementShortfall = Schema.Struct({
  kind: Schema.String,
  requiredCount: Schema.Int,
  satisfiedCount: Schema.Int
}).pipe(Schema.encodeKeys({ requiredCount: "required_count", satisfiedCount: "satisfied_count" })).annotate({
  identifier: "CountRequirementShortfall"
})

/**
 * @since 0.2.0
 * @category models
 */
export type CountRequirementShortfall = typeof CountRequirementShortfall.Type
