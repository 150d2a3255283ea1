/**
 * Sort: Stage 4 of the pipeline.
 *
 * Orders the deduplicated items by score, highest first, with a stable sort: equal scores keep
 * their order (the specification's composite key, score descending then index ascending).
 * Sort has no span or event of its own, as in the specification.
 *
 * @since 0.2.0
 */
import { orderByScoreDescending } from "../internal/sortByScore.ts"
import { withStageScratch } from "../internal/stageScratch.ts"
import type { ScoredItem } from "../ScoredItem.ts"

/**
 * The positions `0 … n-1` of `scores` ordered by score descending, ties by position. Linear
 * time on large inputs (a radix sort on the scores' bits, in the stages' kept buffers; the
 * order returned is a new array). NaN must not occur.
 *
 * @since 0.2.0
 * @category stages
 */
export const order = (scores: ArrayLike<number>): ArrayLike<number> =>
  withStageScratch((scratch) => {
    const byScore = orderByScoreDescending(scores, scratch)
    // A large input's order is a kept buffer: copied out before the scratch is lent again.
    return byScore instanceof Uint32Array ? byScore.slice() : byScore
  })

/**
 * The scored items, sorted: a new array, the same entries.
 *
 * @since 0.2.0
 * @category stages
 */
export const sort = (scored: ReadonlyArray<ScoredItem>): Array<ScoredItem> => {
  const scores = new Float64Array(scored.length)
  for (let i = 0; i < scored.length; i++) scores[i] = scored[i]!.score
  const byScore = order(scores)
  const sorted = new Array<ScoredItem>(scored.length)
  for (let k = 0; k < sorted.length; k++) sorted[k] = scored[byScore[k]!]!
  return sorted
}
