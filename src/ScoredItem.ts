/**
 * ScoredItem: a context item paired with its relevance score.
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import { ContextItem } from "./ContextItem.ts"
import * as FastDecode from "./internal/fastDecode.ts"

/**
 * A relevance score: any IEEE-754 double except NaN. Scores are conventionally in [0, 1] but the
 * specification does not enforce that range. NaN is rejected because it has no place in an
 * order: every comparison with it is false.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Score = Schema.Number.check(
  Schema.makeFilter((n) => !Number.isNaN(n) || "score must be a number, not NaN")
)

/**
 * A context item and its score. A plain object: `{ item, score }`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ScoredItem = Schema.Struct({
  item: ContextItem,
  score: Score
}).annotate({ identifier: "ScoredItem" })

/**
 * @since 0.1.0
 * @category models
 */
export interface ScoredItem {
  readonly item: ContextItem
  readonly score: number
}

/**
 * Pairs an item with a score.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (item: ContextItem, score: number): ScoredItem => ({ item, score })

/**
 * Decodes an unknown value into a ScoredItem, reporting every problem.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode = Schema.decodeUnknownEffect(ScoredItem, { errors: "all" })

const decodeArray = Schema.decodeUnknownEffect(Schema.Array(ScoredItem), { errors: "all" })
const decodeScoredItems = FastDecode.scoredItemsDecoder(ContextItem, ScoredItem)

/**
 * Decodes an array of `{ item, score }` pairs: the same result, and on bad input the same
 * `SchemaError` with the same message, as decoding with `Schema.Array(ScoredItem)` and
 * `errors: "all"`, several times faster (see `ContextItem.decodeMany`, which it uses for the
 * items).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ScoredItem } from "effect-cupel"
 *
 * const scored = await Effect.runPromise(ScoredItem.decodeMany([{ item: { content: "hello", tokens: 2 }, score: 0.5 }]))
 * scored[0].item.kind // "Message"
 * ```
 *
 * @since 0.2.0
 * @category decoding
 */
export const decodeMany = (input: unknown): Effect.Effect<ReadonlyArray<ScoredItem>, Schema.SchemaError> =>
  Effect.suspend(() => {
    const decoded = decodeScoredItems(input)
    return decoded === undefined ? decodeArray(input) : Effect.succeed(decoded)
  })
