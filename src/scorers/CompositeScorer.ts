/**
 * CompositeScorer: a weighted average of other scorers.
 *
 * Each entry pairs a scorer with a positive, finite weight; weights are relative and are
 * normalised to sum to 1 when the composite is made (`3 : 1` is `0.75 : 0.25`). An item's score
 * is `Σ score_k(item) × weight_k`, summed in entry order. Each child scores the whole list once.
 *
 * Composites nest (a composite, or a `ScaledScorer`, may be a child), and one scorer value may
 * be a child several times or of several composites: sharing is not a cycle.
 *
 * **Cycles.** The chapter asks for a depth-first search, by reference identity, for a scorer
 * that contains itself. Here no such graph can be built: a composite's children are values that
 * exist before it is made, they are copied into a frozen array when it is made, and scorer
 * values are immutable, so a composite can never become one of its own descendants; the same
 * holds for `ScaledScorer`'s inner scorer. The one way to loop is a custom scorer whose function
 * calls, at scoring time, a composite made later — opaque code, which the chapter's search does
 * not enter either (it walks only composite and scaled nodes). No check is therefore made.
 *
 * @since 0.2.0
 */
import { Effect } from "effect"
import type { ContextItem } from "../ContextItem.ts"
import { describeValue } from "../internal/describeThrown.ts"
import { checkLength, isScore, notAScore } from "./internal/scoreChecks.ts"
import { guarded, reusable } from "../internal/scratch.ts"
import { writerOf } from "./internal/scoreWriters.ts"
import { InvalidConfigError } from "../InvalidConfigError.ts"
import type * as Scorer from "./Scorer.ts"
import type { ScorerError } from "./ScorerError.ts"

/**
 * The scorer's name.
 *
 * @since 0.2.0
 * @category constants
 */
export const name = "composite"

const component = "CompositeScorer"

/**
 * One child scorer and its relative weight.
 *
 * @since 0.2.0
 * @category models
 */
export interface Entry {
  readonly scorer: Scorer.Definition
  readonly weight: number
}

/**
 * A composite scorer; `children` are its scorers with their normalised weights.
 *
 * @since 0.2.0
 * @category models
 */
export interface Composite extends Scorer.Definition {
  readonly children: ReadonlyArray<Entry>
}

const fail = (path: string, rule: string) => Effect.fail(new InvalidConfigError({ component, path, rule }))

/**
 * A composite scorer. Fails with an `InvalidConfigError` when there are no entries, when an
 * entry has no scorer, when a weight is not positive or not finite, or when the weights add up
 * to more than the largest double (their normalised values would all be 0).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { CompositeScorer, PriorityScorer, RecencyScorer } from "effect-cupel"
 *
 * const scorer = CompositeScorer.make([
 *   { scorer: RecencyScorer.make(), weight: 3 },
 *   { scorer: PriorityScorer.make(), weight: 1 }
 * ])
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (entries: ReadonlyArray<Entry>): Effect.Effect<Composite, InvalidConfigError> => {
  if (entries.length === 0) return fail("entries", "must hold at least one scorer")
  let totalWeight = 0
  for (let k = 0; k < entries.length; k++) {
    const { scorer, weight } = entries[k]!
    // Typed callers cannot pass a missing scorer; untyped ones can, and the chapter checks it.
    if (scorer === null || typeof scorer !== "object" || typeof scorer.scoreAll !== "function") {
      return fail(`entries[${k}].scorer`, `must be a scorer, got ${describeValue(scorer)}`)
    }
    // The type first: comparing an untyped caller's object with 0 may itself throw.
    if (typeof weight !== "number") return fail(`entries[${k}].weight`, `must be finite, got ${describeValue(weight)}`)
    if (weight <= 0) return fail(`entries[${k}].weight`, `must be positive, got ${weight}`)
    if (!Number.isFinite(weight)) return fail(`entries[${k}].weight`, `must be finite, got ${weight}`)
    totalWeight += weight
  }
  if (!Number.isFinite(totalWeight)) return fail("entries", "must have weights whose sum is finite")
  const children: ReadonlyArray<Entry> = Object.freeze(
    entries.map((entry) => Object.freeze({ scorer: entry.scorer, weight: entry.weight / totalWeight }))
  )
  return Effect.succeed({
    name,
    children,
    scoreAll: Effect.fnUntraced(function*(items) {
      const n = items.length
      const result = new Float64Array(n)
      for (const child of children) {
        const scorer = child.scorer
        const write = writerOf(scorer)
        // A built-in child writes into a kept buffer (see scoreWriters.ts), summed at once.
        const failure = write !== undefined
          ? withChildBuffer((buffer) => {
            const scores = buffer.doubles(n)
            write(items, scores)
            return addWeighted(scorer.name, items, scores, child.weight, result)
          })
          : addWeighted(scorer.name, items, yield* scorer.scoreAll(items), child.weight, result)
        if (failure !== undefined) return yield* Effect.fail(failure)
      }
      return result
    })
  })
}

/**
 * The buffer a built-in child writes into: kept between calls, for one child at a time. A
 * nested composite's children, scored while it is lent, get fresh ones.
 */
const withChildBuffer = guarded(reusable())

/**
 * Adds `scores × weight` to `result`, after checking the child's scores: one per item, each a
 * number. Checked here, in the summing loop, so that a bad score from a hand-made child is
 * reported under the child's name (the Score stage would only see the composite's sum).
 */
const addWeighted = (
  name: string,
  items: ReadonlyArray<ContextItem>,
  scores: Scorer.Scores,
  weight: number,
  result: Float64Array
): ScorerError | undefined => {
  const wrongShape = checkLength(name, items, scores)
  if (wrongShape !== undefined) return wrongShape
  const n = items.length
  for (let i = 0; i < n; i++) {
    const score: unknown = scores[i]
    if (!isScore(score)) return notAScore(name, i, items[i]!, score)
    result[i] = result[i]! + score * weight
  }
  return undefined
}
