/**
 * KindScorer: a score per kind of item, from a weight map.
 *
 * An item scores the weight configured for its kind, or 0.0 when its kind has none. Kinds are
 * compared case-insensitively (ASCII folding), as `ContextKind` equality is: a weight for
 * `"Message"` applies to `"message"`. Weights must be non-negative and finite, and may exceed
 * 1.0 (they are returned as they are, never clamped).
 *
 * Without a weight map the chapter's defaults apply: SystemPrompt 1.0, Memory 0.8,
 * ToolOutput 0.6, Document 0.4, Message 0.2.
 *
 * @since 0.2.0
 */
import { Effect } from "effect"
import type { ContextItem } from "../ContextItem.ts"
import * as ContextKind from "../ContextKind.ts"
import type { InvalidConfigError } from "../InvalidConfigError.ts"
import { withWriter } from "./internal/scoreWriters.ts"
import { checkWeights, type WeightsInput } from "./internal/weightMap.ts"
import * as Scorer from "./Scorer.ts"

/**
 * The scorer's name.
 *
 * @since 0.2.0
 * @category constants
 */
export const name = "kind"

const component = "KindScorer"

/**
 * The default weights, exactly the chapter's five well-known kinds.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultWeights: ReadonlyMap<string, number> = new Map([
  [ContextKind.SystemPrompt, 1.0],
  [ContextKind.Memory, 0.8],
  [ContextKind.ToolOutput, 0.6],
  [ContextKind.Document, 0.4],
  [ContextKind.Message, 0.2]
])

/**
 * A weight per kind: a `Map` or a plain record (`{ Memory: 1, Message: 0.1 }`).
 *
 * @since 0.2.0
 * @category models
 */
export type Weights = WeightsInput

const scorerFor = (folded: ReadonlyMap<string, number>): Scorer.Definition =>
  withWriter(
    {
      name,
      scoreAll: (items) =>
        Effect.sync(() => {
          const scores = new Float64Array(items.length)
          writeScores(folded, items, scores)
          return scores
        })
    },
    (items, out) => writeScores(folded, items, out)
  )

const writeScores = (
  folded: ReadonlyMap<string, number>,
  items: ReadonlyArray<ContextItem>,
  scores: Float64Array
): void => {
  const n = items.length
  // Lists hold few distinct kind spellings: fold each once, then look the spelling up.
  const bySpelling = new Map<string, number>()
  for (let i = 0; i < n; i++) {
    const kind = items[i]!.kind
    let weight = bySpelling.get(kind)
    if (weight === undefined) {
      weight = folded.get(ContextKind.fold(kind)) ?? 0
      bySpelling.set(kind, weight)
    }
    scores[i] = weight
  }
}

/**
 * A kind scorer with the chapter's default weights.
 *
 * @since 0.2.0
 * @category constructors
 */
export const defaults: Scorer.Definition = scorerFor(
  new Map(Array.from(defaultWeights, ([kind, weight]) => [ContextKind.fold(kind), weight] as const))
)

/**
 * A kind scorer with custom weights (the defaults when none are given). Fails with an
 * `InvalidConfigError` when a weight is negative or not finite, or when two kinds are the same
 * name in different cases.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { KindScorer } from "effect-cupel"
 *
 * const scorer = KindScorer.make({ Memory: 2, ToolOutput: 1 }) // Effect<Scorer.Definition, InvalidConfigError>
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (weights?: Weights): Effect.Effect<Scorer.Definition, InvalidConfigError> =>
  weights === undefined
    ? Effect.succeed(defaults)
    : Effect.map(checkWeights(component, "weights", weights, ContextKind.fold), scorerFor)

/**
 * Provides the kind scorer with the default weights as the pipeline's `Scorer`.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = Scorer.layer(defaults)
