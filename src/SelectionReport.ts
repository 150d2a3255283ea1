/**
 * SelectionReport: why each candidate is in the window or not.
 *
 * @since 0.2.0
 */
import { Effect, Schema, type SchemaAST } from "effect"
import { CountRequirementShortfall } from "./CountRequirementShortfall.ts"
import { ExcludedItem } from "./ExcludedItem.ts"
import { IncludedItem } from "./IncludedItem.ts"
import * as FastEncodeReport from "./internal/fastEncodeReport.ts"
import { withDefault } from "./internal/fields.ts"
import { TraceEvent } from "./TraceEvent.ts"

/**
 * The report of a pipeline run (spec `diagnostics/selection-report.md`).
 *
 * - `events` — one per stage (Classify, Score, Deduplicate, Slice, Place), in stage order.
 * - `included` — the window, in placed order, each item with its score and inclusion reason.
 * - `excluded` — every other candidate, by score descending (ties in the order the stages
 *   excluded them), each with its score and a data-carrying exclusion reason. Items excluded
 *   before scoring carry 0.
 * - `totalCandidates` — `included.length + excluded.length`: every candidate.
 * - `totalTokensConsidered` — the tokens of every candidate, negative counts included.
 * - `countRequirementShortfalls` — kinds a count quota could not satisfy (empty otherwise).
 *
 * Encoded with the specification's field names (`total_candidates`, …) and reason envelopes.
 *
 * @since 0.2.0
 * @category schemas
 */
export const SelectionReport = Schema.Struct({
  events: Schema.Array(TraceEvent),
  included: Schema.Array(IncludedItem),
  excluded: Schema.Array(ExcludedItem),
  totalCandidates: Schema.Int,
  totalTokensConsidered: Schema.Int,
  countRequirementShortfalls: withDefault(Schema.Array(CountRequirementShortfall), () => [])
}).pipe(
  Schema.encodeKeys({
    totalCandidates: "total_candidates",
    totalTokensConsidered: "total_tokens_considered",
    countRequirementShortfalls: "count_requirement_shortfalls"
  })
).annotate({ identifier: "SelectionReport" })

/**
 * @since 0.2.0
 * @category models
 */
export type SelectionReport = typeof SelectionReport.Type

/**
 * Encodes a report to JSON-ready data in the specification's wire format. What the schema
 * writes, or its error; a report whose items and reasons are in the common forms (every
 * report the pipeline makes) is written by a fast path, several times faster on large reports.
 *
 * @since 0.2.0
 * @category encoding
 */
export const encode: (
  report: SelectionReport,
  options?: SchemaAST.ParseOptions
) => Effect.Effect<typeof SelectionReport.Encoded, Schema.SchemaError> = FastEncodeReport.withFastPath(
  Schema.encodeEffect(SelectionReport),
  FastEncodeReport.report
)

/**
 * Decodes a report in the specification's wire format.
 *
 * @since 0.2.0
 * @category decoding
 */
export const decode = Schema.decodeUnknownEffect(SelectionReport, { errors: "all" })
