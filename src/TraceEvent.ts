/**
 * TraceEvent: what one stage of a pipeline run did, and how long it took.
 *
 * @since 0.2.0
 */
import { Schema } from "effect"

/**
 * The observable stages. Sort has no event of its own, as in the specification: it is an
 * internal step between Deduplicate and Slice (its time is counted in neither).
 *
 * @since 0.2.0
 * @category schemas
 */
export const PipelineStage = Schema.Literals(["Classify", "Score", "Deduplicate", "Slice", "Place"]).annotate({
  identifier: "PipelineStage"
})

/**
 * @since 0.2.0
 * @category models
 */
export type PipelineStage = typeof PipelineStage.Type

/**
 * A stage-level event: the stage, its wall-clock duration in milliseconds (read from Effect's
 * `Clock`, so 0 under a `TestClock`), and the number of items it passed on. Encoded with the
 * specification's field names (`duration_ms`, `item_count`).
 *
 * @since 0.2.0
 * @category schemas
 */
export const TraceEvent = Schema.Struct({
  stage: PipelineStage,
  durationMs: Schema.Number,
  itemCount: Schema.Int,
  message: Schema.optionalKey(Schema.String)
}).pipe(Schema.encodeKeys({ durationMs: "duration_ms", itemCount: "item_count" })).annotate({
  identifier: "TraceEvent"
})

/**
 * @since 0.2.0
 * @category models
 */
export type TraceEvent = typeof TraceEvent.Type
