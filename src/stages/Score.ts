/**
 * Score: Stage 2 of the pipeline.
 *
 * Asks the `Scorer` service for one score per scoreable item, with the whole scoreable list,
 * exactly once per run.
 *
 * @since 0.2.0
 */
import { Effect } from "effect"
import type { ContextItem } from "../ContextItem.ts"
import * as HotSpans from "../internal/hotSpans.ts"
import { annotateExclusions, type EachExclusion } from "../internal/stageTrace.ts"
import * as Scorer from "../scorers/Scorer.ts"
import type { ScorerError } from "../scorers/ScorerError.ts"

/**
 * Scores the items with the current scorer: `scores[i]` is the score of `items[i]`. An empty
 * list is not handed to the scorer. Every score is checked (one per item, none NaN), whatever
 * the scorer; a bad one fails with a `ScorerError` naming the scorer and the item. Runs in the
 * span `cupel.stage.score`.
 *
 * @since 0.2.0
 * @category stages
 */
export const score: (
  items: ReadonlyArray<ContextItem>
) => Effect.Effect<Scorer.Scores, ScorerError, Scorer.Scorer> = Effect.fnUntraced(
  function*(items: ReadonlyArray<ContextItem>) {
    const scorer = yield* Scorer.Scorer
    yield* Effect.annotateCurrentSpan({
      "cupel.stage.name": "score",
      "cupel.stage.item_count_in": items.length,
      "cupel.stage.item_count_out": items.length,
      "cupel.scorer": scorer.name
    })
    // Score excludes nothing: at the tiers that count exclusions its count is 0, as on every stage.
    yield* annotateExclusions(0, noExclusions)
    if (items.length === 0) return new Float64Array(0)
    const scores = yield* scorer.scoreAll(items)
    // The one check a hand-made `Scorer.Definition` meets: nothing else trusts or checks it. The
    // custom constructors check their own scores, so theirs pass through a second, cheap pass.
    return yield* Scorer.check(scorer.name, items, scores)
  },
  HotSpans.withSpan("cupel.stage.score")
)

const noExclusions: EachExclusion = () => {}
