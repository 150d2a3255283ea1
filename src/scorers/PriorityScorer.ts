/**
 * PriorityScorer: higher priorities score higher, by rank among the items that have a priority.
 *
 * The highest priority scores 1.0, the lowest 0.0, and the others `rank / (count - 1)`, where
 * `rank` is the number of prioritized items with a strictly lower priority and `count` the number of
 * prioritized items. Ties share a rank; items without a priority score 0.0; a lone prioritized
 * item scores 1.0. Higher numbers mean more important: 10 outranks 5.
 *
 * The chapter counts lower priorities for every item (O(n²)); this scorer sorts the priorities once
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
export const name = "priority"

/**
 * Scores `items` by priority rank; `scores[i]` is the score of `items[i]`.
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

/** The item's priority as a rank key; NaN when it has none. */
const keyOf = (item: ContextItem): number => item.priority ?? NaN

/**
 * The priority scorer.
 *
 * @example
 * ```ts
 * import { PriorityScorer, Scorer } from "effect-cupel"
 *
 * const layer = Scorer.layer(PriorityScorer.make())
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (): Scorer.Definition =>
  withWriter({ name, scoreAll: (items) => Effect.sync(() => scores(items)) }, writeScores)

/**
 * Provides the priority scorer as the pipeline's `Scorer`.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = Scorer.layer(make())
