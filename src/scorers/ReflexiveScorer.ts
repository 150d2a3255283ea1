/**
 * ReflexiveScorer: the caller's own relevance hint, clamped to [0.0, 1.0].
 *
 * An item scores its `futureRelevanceHint`, clamped to [0.0, 1.0]; without a hint, or with a
 * hint that is not finite, it scores 0.0 (never a clamped bound: the finiteness check comes
 * before the clamp).
 *
 * @since 0.2.0
 */
import { Effect } from "effect"
import type { ContextItem } from "../ContextItem.ts"
import * as Scorer from "./Scorer.ts"

/**
 * The scorer's name.
 *
 * @since 0.2.0
 * @category constants
 */
export const name = "reflexive"

/**
 * The score of one hint: 0.0 when absent or not finite, else the hint clamped to [0.0, 1.0].
 *
 * @since 0.2.0
 * @category scoring
 */
export const scoreHint = (hint: number | undefined): number => {
  if (hint === undefined || !Number.isFinite(hint)) return 0
  return hint < 0 ? 0 : hint > 1 ? 1 : hint
}

/**
 * Scores `items`; `scores[i]` is the score of `items[i]`.
 *
 * @since 0.2.0
 * @category scoring
 */
export const scores = (items: ReadonlyArray<ContextItem>): Float64Array => {
  const n = items.length
  const out = new Float64Array(n)
  for (let i = 0; i < n; i++) out[i] = scoreHint(items[i]!.futureRelevanceHint)
  return out
}

/**
 * The reflexive scorer.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (): Scorer.Definition => ({
  name,
  scoreAll: (items) => Effect.sync(() => scores(items))
})

/**
 * Provides the reflexive scorer as the pipeline's `Scorer`.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = Scorer.layer(make())
