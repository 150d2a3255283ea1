/**
 * InclusionReason: why an item is in the window.
 *
 * In memory a tagged object (`{ _tag: "Scored" }`); encoded, the specification's envelope
 * (`{ "reason": "Scored" }`).
 *
 * @since 0.2.0
 */
import { Schema } from "effect"

const variant = <Tag extends string>(tag: Tag) =>
  Schema.TaggedStruct(tag, {}).pipe(Schema.encodeKeys({ _tag: "reason" }))

/**
 * Selected by score within the budget.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Scored = variant("Scored")

/**
 * Pinned: bypassed scoring and slicing.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Pinned = variant("Pinned")

/**
 * A zero-token item: included at no cost to the budget.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ZeroToken = variant("ZeroToken")

/**
 * Kept as it was sent: a stable window (`StableWindow`, not in the specification) sends the
 * conversation's previous window again with the new messages appended, without scoring or
 * slicing them. `appended` is `false` for an item of the previous window, `true` for a new one.
 *
 * @since 0.3.0
 * @category schemas
 */
export const Kept = Schema.TaggedStruct("Kept", { appended: Schema.Boolean }).pipe(
  Schema.encodeKeys({ _tag: "reason" })
)

/**
 * Any inclusion reason.
 *
 * @since 0.2.0
 * @category schemas
 */
export const InclusionReason = Schema.Union([Scored, Pinned, ZeroToken, Kept]).annotate({ identifier: "InclusionReason" })

/**
 * @since 0.2.0
 * @category models
 */
export type InclusionReason = typeof InclusionReason.Type

/** @since 0.2.0 @category constants */
export const scored: InclusionReason = { _tag: "Scored" }
/** @since 0.2.0 @category constants */
export const pinned: InclusionReason = { _tag: "Pinned" }
/** @since 0.2.0 @category constants */
export const zeroToken: InclusionReason = { _tag: "ZeroToken" }
/** @since 0.3.0 @category constants */
export const kept: InclusionReason = { _tag: "Kept", appended: false }
/** @since 0.3.0 @category constants */
export const appended: InclusionReason = { _tag: "Kept", appended: true }
