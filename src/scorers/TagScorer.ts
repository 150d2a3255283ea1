/**
 * TagScorer: how much of a configured, weighted set of tags an item carries.
 *
 * An item scores the sum of the weights of its tags that are configured, divided by the sum of
 * all configured weights, and capped at 1.0. Each occurrence of a tag counts, so an item that
 * repeats a tag can reach the cap early. Items without tags, and every item when all weights
 * are zero (or none are configured), score 0.0.
 *
 * Tags are matched exactly (case-sensitive), the chapter's default comparer; pass
 * `caseInsensitive: true` to match them under ASCII case folding instead. Weights must be
 * non-negative and finite, and so must their sum.
 *
 * @since 0.2.0
 */
import { Effect } from "effect"
import type { ContextItem } from "../ContextItem.ts"
import { InvalidConfigError } from "../InvalidConfigError.ts"
import { foldAscii } from "../internal/caseInsensitiveName.ts"
import { checkWeights, type WeightsInput } from "./internal/weightMap.ts"
import type * as Scorer from "./Scorer.ts"

/**
 * The scorer's name.
 *
 * @since 0.2.0
 * @category constants
 */
export const name = "tag"

const component = "TagScorer"

/**
 * A weight per tag: a `Map` or a plain record.
 *
 * @since 0.2.0
 * @category models
 */
export type Weights = WeightsInput

/**
 * Options: `caseInsensitive` (default `false`) matches tags under ASCII case folding.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  readonly caseInsensitive?: boolean
}

/**
 * A tag scorer. Fails with an `InvalidConfigError` when a weight is negative or not finite, when
 * the weights add up to more than the largest double, or, when matching case-insensitively, when
 * two tags differ only in case.
 *
 * @example
 * ```ts
 * import { TagScorer } from "effect-cupel"
 *
 * const scorer = TagScorer.make({ important: 3, recent: 2, archived: 1 })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (weights: Weights, options: Options = {}): Effect.Effect<Scorer.Definition, InvalidConfigError> => {
  const fold = options.caseInsensitive === true ? foldAscii : undefined
  return Effect.flatMap(checkWeights(component, "weights", weights, fold), (tagWeights) => {
    // Summed in the map's order, as the chapter's construction loop does.
    let totalWeight = 0
    for (const weight of tagWeights.values()) totalWeight += weight
    // Finite weights may still add up to Infinity; an item matching them all would then score
    // Infinity / Infinity = NaN.
    if (!Number.isFinite(totalWeight)) {
      return Effect.fail(
        new InvalidConfigError({ component, path: "weights", rule: "must have weights whose sum is finite" })
      )
    }
    return Effect.succeed<Scorer.Definition>({
      name,
      scoreAll: (items) => Effect.sync(() => scoreWith(tagWeights, totalWeight, fold, items))
    })
  })
}

const scoreWith = (
  tagWeights: ReadonlyMap<string, number>,
  totalWeight: number,
  fold: ((tag: string) => string) | undefined,
  items: ReadonlyArray<ContextItem>
): Float64Array => {
  const n = items.length
  const scores = new Float64Array(n)
  if (totalWeight === 0) return scores
  for (let i = 0; i < n; i++) {
    const tags = items[i]!.tags
    if (tags.length === 0) continue
    let matchedSum = 0
    for (let t = 0; t < tags.length; t++) {
      const weight = tagWeights.get(fold === undefined ? tags[t]! : fold(tags[t]!))
      if (weight !== undefined) matchedSum += weight
    }
    scores[i] = Math.min(matchedSum / totalWeight, 1)
  }
  return scores
}
