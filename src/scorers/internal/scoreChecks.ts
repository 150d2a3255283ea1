/**
 * The checks a list of scores from outside the library must pass, in pieces, so that a scorer
 * which already walks the scores (a composite summing its children, a scaled scorer finding
 * min and max) can check each score in that same loop instead of in a pass of its own.
 *
 * `Scorer.check` is the whole check: {@link checkLength}, then {@link isScore} on every score.
 *
 * @internal
 */
import type { ContextItem } from "../../ContextItem.ts"
import { ScorerError } from "../ScorerError.ts"
import { describeValue } from "../../internal/describeThrown.ts"

/** A usable score: a number, not NaN (infinities are numbers; a scorer may return them). */
export const isScore = (value: unknown): value is number => typeof value === "number" && !Number.isNaN(value)

/**
 * The failure for `scores` when it is not a list with one entry per item, naming the scorer
 * `name`; `undefined` when it is.
 */
export const checkLength = (
  name: string,
  items: ReadonlyArray<ContextItem>,
  scores: unknown
): ScorerError | undefined => {
  if (scores === null || typeof scores !== "object" || !("length" in scores) || typeof scores.length !== "number") {
    return new ScorerError({ scorer: name, reason: `it returned ${describeValue(scores)}, not a list of scores` })
  }
  if (scores.length !== items.length) {
    return new ScorerError({
      scorer: name,
      reason: `it returned ${scores.length} scores for ${items.length} items; a scorer returns one score per item`
    })
  }
  return undefined
}

/** The failure for a score that is not one, naming the scorer `name` and the item at `index`. */
export const notAScore = (
  name: string,
  index: number,
  item: ContextItem,
  value: unknown,
  what = "its score is"
): ScorerError =>
  new ScorerError({
    scorer: name,
    reason: `${what} ${describeValue(value)}, not a number`,
    index,
    content: item.content
  })
