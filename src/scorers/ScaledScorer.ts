/**
 * ScaledScorer: another scorer's scores, min–max normalised to [0.0, 1.0].
 *
 * Each item scores `(raw − min) / (max − min)`, where `raw` is its inner score and `min`, `max`
 * the smallest and largest inner scores in the list: the lowest scores 0.0, the highest 1.0.
 * When every inner score is the same (one item, say), every item scores exactly 0.5.
 *
 * The chapter scores the whole list with the inner scorer for every item (O(n²) inner calls,
 * more when nested); this scorer asks the inner scorer once and finds min and max in one pass,
 * with identical results. As in the chapter, an item's raw score is the inner score at the last
 * position holding that very item object, which only matters when one object appears twice and
 * the inner scorer scored its copies differently.
 *
 * Two cases the chapter's formula leaves undefined are handled: when `max − min` overflows to
 * infinity (finite inner scores of opposite signs near the largest double), the formula is
 * computed on halved values (halving is exact at these magnitudes, so the quotient is the one the
 * formula means, where the direct computation would give 0 or NaN); and
 * when the inner scorer returns an infinite score, min–max scaling has no meaning and the
 * scoring fails with a `ScorerError` naming the item (built-in scorers never do this). A NaN or
 * non-number inner score fails too, under the inner scorer's name: with the other scores equal,
 * the 0.5 fill would otherwise hide it from the Score stage's own check.
 *
 * @since 0.2.0
 */
import { Effect } from "effect"
import type { ContextItem } from "../ContextItem.ts"
import { positionsOfRepeats } from "./internal/repeatedObjects.ts"
import { checkLength, isScore, notAScore } from "./internal/scoreChecks.ts"
import type * as Scorer from "./Scorer.ts"
import { ScorerError } from "./ScorerError.ts"

/**
 * The scorer's name.
 *
 * @since 0.2.0
 * @category constants
 */
export const name = "scaled"

/**
 * A scaled scorer; `inner` is the scorer it normalises.
 *
 * @since 0.2.0
 * @category models
 */
export interface Scaled extends Scorer.Definition {
  readonly inner: Scorer.Definition
}

/**
 * Min–max scales `raw`, the inner scores of `items`, into a new array.
 *
 * @since 0.2.0
 * @category scoring
 */
export const scale = (
  items: ReadonlyArray<ContextItem>,
  raw: Scorer.Scores,
  innerName = "inner"
): Effect.Effect<Float64Array, ScorerError> => {
  const n = items.length
  const out = new Float64Array(n)
  if (n === 0) return Effect.succeed(out)
  let min = Infinity
  let max = -Infinity
  for (let i = 0; i < n; i++) {
    const s: unknown = raw[i]
    // Checked in the min–max loop rather than in a pass of its own. A NaN must be caught here,
    // under the inner scorer's name: the comparisons below skip it, and when the other scores
    // are equal the 0.5 fill would hide it from the Score stage.
    if (!isScore(s)) return Effect.fail(notAScore(innerName, i, items[i]!, s))
    if (s === Infinity || s === -Infinity) {
      return Effect.fail(
        new ScorerError({
          scorer: name,
          reason: `its inner scorer "${innerName}" gave an infinite score (${s}), which min-max scaling cannot place`,
          index: i,
          content: items[i]!.content
        })
      )
    }
    if (s < min) min = s
    if (s > max) max = s
  }
  if (max === min) return Effect.succeed(out.fill(0.5))
  // The chapter's "rawScore" is the inner score at the last position holding the same object.
  const repeats = positionsOfRepeats(items)
  let last: Int32Array | undefined
  if (repeats !== undefined) {
    last = new Int32Array(n)
    for (let i = 0; i < n; i++) last[i] = repeats.get(items[i]!)!.at(-1)!
  }
  const range = max - min
  if (Number.isFinite(range)) {
    for (let i = 0; i < n; i++) out[i] = (raw[last === undefined ? i : last[i]!]! - min) / range
  } else {
    // max − min overflowed: halve both terms of the quotient. Halving min, max and the (large)
    // differences is exact; a raw score small enough to lose a bit is absorbed by −min anyway.
    const halfMin = min / 2
    const halfRange = max / 2 - halfMin
    for (let i = 0; i < n; i++) out[i] = (raw[last === undefined ? i : last[i]!]! / 2 - halfMin) / halfRange
  }
  return Effect.succeed(out)
}

/**
 * Scales the scores of `inner` to [0.0, 1.0].
 *
 * @example
 * ```ts
 * import { ReflexiveScorer, ScaledScorer } from "effect-cupel"
 *
 * const scorer = ScaledScorer.make(ReflexiveScorer.make())
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (inner: Scorer.Definition): Scaled => ({
  name,
  inner,
  scoreAll: (items) =>
    Effect.flatMap(inner.scoreAll(items), (raw) => {
      const wrongShape = checkLength(inner.name, items, raw)
      return wrongShape === undefined ? scale(items, raw, inner.name) : Effect.fail(wrongShape)
    })
})
