/**
 * PlaceResult: what Place decided.
 *
 * @since 0.1.0
 */
import { Effect, Schema, type SchemaAST } from "effect"
import { ContextItem } from "./ContextItem.ts"
import { ExcludedItem } from "./ExcludedItem.ts"
import * as FastEncodeReport from "./internal/fastEncodeReport.ts"
import { OverflowStrategy } from "./OverflowStrategy.ts"

/**
 * The outcome of a placement.
 *
 * - `placed` — the window, in order: the same item objects that went in.
 * - `excluded` — the items truncation dropped, in merged order, each with its score and reason.
 * - `totalTokens` — the tokens of `placed`.
 * - `mergedTokens` — the tokens of pinned and sliced items together, before overflow handling.
 * - `targetTokens` — the budget's target that overflow was checked against.
 * - `overflowStrategy` — the strategy in force.
 * - `overflowed` — whether `mergedTokens` exceeded `targetTokens`.
 * - `tokensOverBudget` — how far `placed` still is over the target: 0 when it fits; with
 *   `Proceed`, the whole excess; with `Truncate`, what pinned items alone leave over.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PlaceResult = Schema.Struct({
  placed: Schema.Array(ContextItem),
  excluded: Schema.Array(ExcludedItem),
  totalTokens: Schema.Int,
  mergedTokens: Schema.Int,
  targetTokens: Schema.Int,
  overflowStrategy: OverflowStrategy,
  overflowed: Schema.Boolean,
  tokensOverBudget: Schema.Int
}).annotate({ identifier: "PlaceResult" })

/**
 * @since 0.1.0
 * @category models
 */
export type PlaceResult = typeof PlaceResult.Type

/**
 * Encodes a result to JSON-ready data: timestamps as RFC 3339 strings, exclusion reasons in the
 * specification's wire envelope (`{ "reason": "BudgetExceeded", "item_tokens": … }`). What the
 * schema writes, or its error, through a fast path for the common forms (see
 * `SelectionReport.encode`).
 *
 * @since 0.1.0
 * @category encoding
 */
export const encode: (
  result: PlaceResult,
  options?: SchemaAST.ParseOptions
) => Effect.Effect<typeof PlaceResult.Encoded, Schema.SchemaError> = FastEncodeReport.withFastPath(
  Schema.encodeEffect(PlaceResult),
  FastEncodeReport.placeResult
)

