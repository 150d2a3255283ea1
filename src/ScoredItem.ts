/**
 * ScoredItem: a context item paired with its relevance score.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { ContextItem } from "./ContextItem.ts"

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
