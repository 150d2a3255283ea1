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
 * Any inclusion reason.
 *
 * @since 0.2.0
 * @category schemas
 */
export const InclusionReason = Schema.Union([Scored, Pinned, ZeroToken]).annotate({ identifier: "InclusionReason" })

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
