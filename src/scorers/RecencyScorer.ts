/**
 * RecencyScorer: newer items score higher, by rank among the items that have a timestamp.
 *
 * The most recent item scores 1.0, the oldest 0.0, and the others `rank / (count - 1)`, where
 * `rank` is the number of timestamped items strictly older and `count` the number of timestamped
 * items. Ties share a rank; items without a timestamp score 0.0; a lone timestamped item scores
 * 1.0. Timestamps are compared as instants.
 *
 * The chapter counts older items for every item (O(n²)); this scorer sorts the timestamps once
 * and finds each rank by binary search, with identical results.
 *
 * @since 0.2.0
 */
import { Effect } from "effect"
import type { ContextItem } from "../ContextItem.ts"
import { writeRankScores } from "./internal/rankScores.ts"
import { withWriter } from "./internal/scoreWriters.ts"
import * as Scorer from "./Scorer.ts"

/**
 * The scorer's name.
 *
 * @since 0.2.0
 * @category constants
 */
export const name = "recency"

/**
 * Scores `items` by recency rank; `scores[i]` is the score of `items[i]`.
 *
 * @since 0.2.0
 * @category scoring
 */
export const scores = (items: ReadonlyArray<ContextItem>): Float64Array => {
  const out = new Float64Array(items.length)
  writeScores(items, out)
  return out
}

const writeScores = (items: ReadonlyArray<ContextItem>, out: Float64Array): void =>
  writeRankScores(items, out, keyOf)

/** The item's timestamp as a rank key; NaN when it has none. */
const keyOf = (item: ContextItem): number => item.timestamp?.epochMilliseconds ?? NaN

/**
 * The recency scorer.
 *
 * @example
 * ```ts
 * import { RecencyScorer, Scorer } from "effect-cupel"
 *
 * const layer = Scorer.layer(RecencyScorer.make())
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (): Scorer.Definition =>
  withWriter({ name, scoreAll: (items) => Effect.sync(() => scores(items)) }, writeScores)

/**
 * Provides the recency scorer as the pipeline's `Scorer`.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = Scorer.layer(make())
