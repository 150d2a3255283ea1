/**
 * Scorer: how relevant each candidate is (Stage 2 of the pipeline).
 *
 * The specification's scorer is a function `Score(item, allItems) -> double`, called once per
 * item. Written that way, any scorer that looks at its peers (rank, frequency, min–max) costs
 * O(n) per item and O(n²) per list. effect-cupel's scorers score the whole list at once
 * (`scoreAll`), computing what they need from the list one time; their property tests hold
 * each to a literal transcription of its chapter.
 *
 * A scorer is a plain value ({@link Definition}) so that scorers compose: `CompositeScorer`
 * and `ScaledScorer` wrap other scorers. The pipeline asks for the {@link Scorer} service, and
 * {@link layer} turns a scorer value into it.
 *
 * @since 0.2.0
 */
import { Context, Effect, Layer } from "effect"
import type { ContextItem } from "../ContextItem.ts"
import { describeThrown } from "../internal/describeThrown.ts"
import { checkLength, isScore, notAScore } from "./internal/scoreChecks.ts"
import { ScorerError } from "./ScorerError.ts"

/**
 * Scores: `scores[i]` is the score of `items[i]`.
 *
 * @since 0.2.0
 * @category models
 */
export type Scores = ArrayLike<number>

/**
 * A scorer as a value.
 *
 * - `name` — for spans, reports and error messages (`"recency"`, `"composite"`, your own).
 * - `scoreAll(items)` — one score per item, in item order, in a new array. Reads its clock,
 *   where it needs one (decay), from Effect's `Clock`.
 *
 * Built-in scorers never fail; custom ones made with {@link make} or {@link makeAll} fail with
 * a {@link ScorerError} when the function throws or returns a score that is not a number.
 *
 * @since 0.2.0
 * @category models
 */
export interface Definition {
  readonly name: string
  readonly scoreAll: (items: ReadonlyArray<ContextItem>) => Effect.Effect<Scores, ScorerError>
}

/**
 * The scorer service the pipeline uses.
 *
 * @since 0.2.0
 * @category services
 */
export class Scorer extends Context.Service<Scorer, Definition>()("effect-cupel/Scorer") {}

/**
 * Provides a scorer value as the pipeline's scorer.
 *
 * @example
 * ```ts
 * import { Scorer, RecencyScorer } from "effect-cupel"
 *
 * const layer = Scorer.layer(RecencyScorer.make())
 * ```
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (scorer: Definition): Layer.Layer<Scorer> => Layer.succeed(Scorer, scorer)

/**
 * Scores `items` with the current scorer.
 *
 * @since 0.2.0
 * @category accessors
 */
export const scoreAll = (items: ReadonlyArray<ContextItem>): Effect.Effect<Scores, ScorerError, Scorer> =>
  Scorer.use((scorer) => scorer.scoreAll(items))

/**
 * A custom scorer in the specification's shape: `(item, allItems) => score`, called once per
 * item with the whole list. A function that throws, or returns NaN or a non-number, makes the
 * scoring fail with a {@link ScorerError} that names the scorer and the item.
 *
 * Mind the cost: a function that walks `allItems` makes scoring quadratic. Compute what it
 * needs from the list once, with {@link makeAll}, instead.
 *
 * @example
 * ```ts
 * import { Scorer } from "effect-cupel"
 *
 * // Shorter items score higher.
 * const brevity = Scorer.make("brevity", (item) => 1 / (1 + item.tokens))
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (
  name: string,
  score: (item: ContextItem, allItems: ReadonlyArray<ContextItem>) => number
): Definition => ({
  name,
  scoreAll: (items) =>
    Effect.suspend(() => {
      const n = items.length
      const scores = new Float64Array(n)
      for (let i = 0; i < n; i++) {
        const item = items[i]!
        let value: unknown
        try {
          value = score(item, items)
        } catch (cause) {
          return Effect.fail(
            new ScorerError({
              scorer: name,
              reason: `it threw: ${describeThrown(cause)}`,
              index: i,
              content: item.content,
              cause
            })
          )
        }
        // Checked as it is stored: the one pass over the scores this scorer makes.
        if (!isScore(value)) return Effect.fail(notAScore(name, i, item, value, "it returned"))
        scores[i] = value
      }
      return Effect.succeed(scores)
    })
})

/**
 * A custom scorer that scores the whole list at once: given the items, return one score per
 * item, in order. The fast shape: a relative scorer computes what it needs from the list once.
 * A function that throws, returns the wrong number of scores, or a score that is NaN or not a
 * number, makes the scoring fail with a {@link ScorerError}.
 *
 * @example
 * ```ts
 * import { Scorer } from "effect-cupel"
 *
 * // Each item's share of the largest token count.
 * const size = Scorer.makeAll("size", (items) => {
 *   const max = Math.max(1, ...items.map((i) => i.tokens))
 *   return items.map((i) => i.tokens / max)
 * })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeAll = (
  name: string,
  scoreAll: (items: ReadonlyArray<ContextItem>) => Scores
): Definition => ({
  name,
  scoreAll: (items) =>
    Effect.suspend(() => {
      let scores: Scores
      try {
        scores = scoreAll(items)
      } catch (cause) {
        return Effect.fail(threw(name, cause))
      }
      return check(name, items, scores)
    })
})

/**
 * A custom scorer whose scoring is an Effect (it may read services the layer is built with, or
 * fail with a {@link ScorerError}). Its scores are checked as {@link makeAll}'s are. If the
 * function throws instead of returning an effect, the scoring fails with a {@link ScorerError}
 * as for {@link makeAll}; a defect inside the returned effect stays a defect, as anywhere in
 * Effect.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeEffect = (
  name: string,
  scoreAll: (items: ReadonlyArray<ContextItem>) => Effect.Effect<Scores, ScorerError>
): Definition => ({
  name,
  scoreAll: (items) =>
    Effect.suspend(() => {
      let effect: Effect.Effect<Scores, ScorerError>
      try {
        effect = scoreAll(items)
      } catch (cause) {
        return Effect.fail(threw(name, cause))
      }
      return Effect.flatMap(effect, (scores) => check(name, items, scores))
    })
})

/**
 * Checks a list of scores against the items it is for: one number per item, none NaN. The
 * custom constructors and the Score stage run it on scores that come from outside the library.
 *
 * @since 0.2.0
 * @category utils
 */
export const check = (
  name: string,
  items: ReadonlyArray<ContextItem>,
  scores: Scores
): Effect.Effect<Scores, ScorerError> => {
  const wrongShape = checkLength(name, items, scores)
  if (wrongShape !== undefined) return Effect.fail(wrongShape)
  for (let i = 0; i < scores.length; i++) {
    const value: unknown = scores[i]
    if (!isScore(value)) return Effect.fail(notAScore(name, i, items[i]!, value))
  }
  return Effect.succeed(scores)
}

/** A custom function's throw, as the scorer's failure rather than the fiber's death. */
const threw = (name: string, cause: unknown): ScorerError =>
  new ScorerError({ scorer: name, reason: `it threw: ${describeThrown(cause)}`, cause })
