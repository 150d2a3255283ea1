/**
 * PipelineResult: the window a pipeline run built, and its report.
 *
 * @since 0.2.0
 */
import { Effect, Schema, type SchemaAST } from "effect"
import { ContextItem } from "./ContextItem.ts"
import * as FastEncodeReport from "./internal/fastEncodeReport.ts"
import { SelectionReport } from "./SelectionReport.ts"

/**
 * - `window` — the context window, in placed order: the very item objects that went in.
 * - `report` — why each candidate is in or out (`SelectionReport`).
 * - `totalTokens` — the tokens of the window.
 * - `tokensOverBudget` — how far the window is over `budget.targetTokens`: 0 when it fits;
 *   with `Proceed`, the whole excess; with `Truncate`, what pinned items alone leave over.
 *
 * Encoded, the report is in the specification's wire format.
 *
 * @since 0.2.0
 * @category schemas
 */
export const PipelineResult = Schema.Struct({
  window: Schema.Array(ContextItem),
  report: SelectionReport,
  totalTokens: Schema.Int,
  tokensOverBudget: Schema.Int
}).annotate({ identifier: "PipelineResult" })

/**
 * @since 0.2.0
 * @category models
 */
export type PipelineResult = typeof PipelineResult.Type

/**
 * Encodes a result to JSON-ready data: what the schema writes, or its error, through a fast
 * path for the common forms (see `SelectionReport.encode`).
 *
 * @since 0.2.0
 * @category encoding
 */
export const encode: (
  result: PipelineResult,
  options?: SchemaAST.ParseOptions
) => Effect.Effect<typeof PipelineResult.Encoded, Schema.SchemaError> = FastEncodeReport.withFastPath(
  Schema.encodeEffect(PipelineResult),
  FastEncodeReport.pipelineResult
)
