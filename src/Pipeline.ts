/**
 * Pipeline: the whole Cupel pipeline as one Effect program.
 *
 * Classify → Score → Deduplicate → Sort → Slice → Place, in that fixed order, returning the
 * window and a `SelectionReport` that says why each candidate is in or out. The strategies are
 * services chosen by layers: `Scorer`, `Slicer`, `Placer`, and `OverflowNotifier` for the
 * `Proceed` strategy.
 *
 * @since 0.2.0
 */
import { Clock, Effect } from "effect"
import * as Classify from "./Classify.ts"
import type { ContextBudget } from "./ContextBudget.ts"
import type { ContextItem } from "./ContextItem.ts"
import * as Deduplicate from "./Deduplicate.ts"
import type { ExcludedItem } from "./ExcludedItem.ts"
import * as ExclusionReason from "./ExclusionReason.ts"
import type { IncludedItem } from "./IncludedItem.ts"
import * as InclusionReason from "./InclusionReason.ts"
import { orderByScoreDescending } from "./internal/sortByScore.ts"
import { isSafeTotal } from "./internal/tokens.ts"
import type { InvalidItemError } from "./InvalidItemError.ts"
import type * as OverflowNotifier from "./OverflowNotifier.ts"
import type { OverflowStrategy } from "./OverflowStrategy.ts"
import * as Place from "./Place.ts"
import type * as Placer from "./Placer.ts"
import type { PinnedBudgetError } from "./PinnedBudgetError.ts"
import type { PipelineResult } from "./PipelineResult.ts"
import * as Score from "./Score.ts"
import type * as Scorer from "./Scorer.ts"
import type { ScorerError } from "./ScorerError.ts"
import type { ScoredItem } from "./ScoredItem.ts"
import * as Slice from "./Slice.ts"
import type * as Slicer from "./Slicer.ts"
import * as Sort from "./Sort.ts"
import { TokenTotalError } from "./TokenTotalError.ts"
import type { PipelineStage, TraceEvent } from "./TraceEvent.ts"

/**
 * Options of a run.
 *
 * - `deduplication` — remove items with byte-identical content, keeping the best scored
 *   (default `true`).
 * - `overflowStrategy` — what Place does when the window exceeds `budget.targetTokens`:
 *   `"Throw"` (default), `"Truncate"` or `"Proceed"`.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  readonly deduplication?: boolean | undefined
  readonly overflowStrategy?: OverflowStrategy | undefined
}

/**
 * Every way a run can fail.
 *
 * @since 0.2.0
 * @category errors
 */
export type PipelineError =
  | PinnedBudgetError
  | TokenTotalError
  | InvalidItemError
  | ScorerError
  | Slicer.SliceError
  | Place.PlaceError

/**
 * The services a run needs.
 *
 * @since 0.2.0
 * @category models
 */
export type Services = Scorer.Scorer | Slicer.Slicer | Placer.Placer | OverflowNotifier.OverflowNotifier

/**
 * Runs the pipeline on the candidate items.
 *
 * 1. **Classify** — items with negative tokens are excluded (`NegativeTokens`); pinned items go
 *    straight to Place; `PinnedBudgetError` if they need more than `maxTokens − outputReserve`.
 * 2. **Score** — the `Scorer` scores the other items, all at once.
 * 3. **Deduplicate** — byte-identical contents keep their best-scored item (`Deduplicated`).
 * 4. **Sort** — by score, highest first, stable.
 * 5. **Slice** — the `Slicer` selects what fits the effective budget; the rest is
 *    `BudgetExceeded` (with the item's tokens and the tokens left), or `PinnedOverride` when
 *    the item would have fitted but for the pinned items.
 * 6. **Place** — `Place.place`: pinned items (score 1.0) and the sliced items (by score), the
 *    overflow strategy, and the `Placer`'s order.
 *
 * The run is the span `cupel.pipeline`, each stage but Sort a child span `cupel.stage.<name>`
 * with `cupel.stage.item_count_in` / `_out` (spec `integrations/opentelemetry.md`). Stage
 * durations in the report are read from Effect's `Clock`. Inputs are never modified.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import {
 *   ContextBudget, ContextItem, GreedySlice, OverflowNotifier, Pipeline, RecencyScorer, Scorer, Slicer,
 *   UShapedPlacer
 * } from "effect-cupel"
 *
 * const items = [
 *   new ContextItem.ContextItem({ content: "You are terse.", tokens: 5, pinned: true }),
 *   new ContextItem.ContextItem({ content: "Paris is the capital of France.", tokens: 8 })
 * ]
 * const budget = new ContextBudget.ContextBudget({ maxTokens: 100, targetTokens: 50 })
 * const layers = Layer.mergeAll(
 *   Scorer.layer(RecencyScorer.make()),
 *   Slicer.layer(GreedySlice.make()),
 *   UShapedPlacer.layer,
 *   OverflowNotifier.layerLog
 * )
 * const { window, report } = await Effect.runPromise(Pipeline.run(items, budget).pipe(Effect.provide(layers)))
 * ```
 *
 * @since 0.2.0
 * @category running
 */
export const run: (
  items: ReadonlyArray<ContextItem>,
  budget: ContextBudget,
  options?: Options
) => Effect.Effect<PipelineResult, PipelineError, Services> = Effect.fn("cupel.pipeline")(function*(
  items: ReadonlyArray<ContextItem>,
  budget: ContextBudget,
  options?: Options
) {
  const deduplication = options?.deduplication ?? true
  const overflowStrategy = options?.overflowStrategy ?? "Throw"
  yield* Effect.annotateCurrentSpan({
    "cupel.budget.max_tokens": budget.maxTokens,
    "cupel.budget.target_tokens": budget.targetTokens,
    "cupel.verbosity": "StageOnly",
    "cupel.candidates": items.length,
    "cupel.deduplication": deduplication,
    "cupel.overflow.strategy": overflowStrategy
  })
  const events: Array<TraceEvent> = []
  const clock = yield* Clock.Clock
  let started = clock.currentTimeNanosUnsafe()
  /** Records a stage's event, measured from the end of the previous one. */
  const stageDone = (stage: PipelineStage, itemCount: number): void => {
    const now = clock.currentTimeNanosUnsafe()
    events.push({ stage, durationMs: Number(now - started) / 1e6, itemCount })
    started = now
  }

  // 1. Classify
  const classified = yield* Classify.classify(items, budget)
  const { pinned, pinnedTokens, scoreable } = classified
  stageDone("Classify", pinned.length + scoreable.length)

  // 2. Score
  const scores = yield* Score.score(scoreable)
  stageDone("Score", scoreable.length)

  // 3. Deduplicate
  const deduplicated = yield* Deduplicate.deduplicate(scoreable, scores, deduplication)
  const kept = deduplicated.kept
  stageDone("Deduplicate", kept.length)

  // 4. Sort: the kept items by score; its time counts towards Slice's event, as Sort has none.
  const keptScores = new Float64Array(kept.length)
  for (let k = 0; k < kept.length; k++) keptScores[k] = scores[kept[k]!]!
  const byScore = Sort.order(keptScores)
  const sorted = new Array<ScoredItem>(kept.length)
  for (let k = 0; k < sorted.length; k++) {
    const position = byScore[k]!
    sorted[k] = { item: scoreable[kept[position]!]!, score: keptScores[position]! }
  }

  // 5. Slice
  const effective = yield* Slice.effectiveBudget(budget, pinnedTokens)
  const selection = yield* Slice.slice(sorted, effective)
  const selected = new Uint8Array(sorted.length)
  const selectedIndices = selection.selected
  for (let k = 0; k < selectedIndices.length; k++) selected[selectedIndices[k]!] = 1
  stageDone("Slice", selectedIndices.length)

  // 6. Place: the sliced items in sorted order (score descending), which Truncate walks.
  const sliced = new Array<ScoredItem>(selectedIndices.length)
  let slicedTokens = 0
  for (let k = 0, s = 0; k < sorted.length; k++) {
    if (selected[k] === 1) {
      const entry = sorted[k]!
      sliced[s++] = entry
      slicedTokens += entry.item.tokens
      if (!isSafeTotal(slicedTokens)) return yield* new TokenTotalError({ what: "sliced items", count: s })
    }
  }
  const placement = yield* Place.place({ pinned, scored: sliced, budget, overflowStrategy }).pipe(
    Effect.tap((result) =>
      Effect.annotateCurrentSpan({
        "cupel.stage.name": "place",
        "cupel.stage.item_count_in": pinned.length + sliced.length,
        "cupel.stage.item_count_out": result.placed.length,
        "cupel.exclusion.count": result.excluded.length
      })
    ),
    Effect.withSpan("cupel.stage.place")
  )
  stageDone("Place", placement.placed.length)

  // The report.
  const included = includedItems(placement.placed, sliced)
  const excluded: Array<ExcludedItem> = []
  for (const item of classified.negative) {
    excluded.push({ item, score: 0, reason: { _tag: "NegativeTokens", tokens: item.tokens } })
  }
  for (const { index, survivor } of deduplicated.removed) {
    excluded.push({
      item: scoreable[index]!,
      score: scores[index]!,
      reason: { _tag: "Deduplicated", deduplicatedAgainst: scoreable[survivor]!.content }
    })
  }
  const availableTokens = effective.targetTokens - slicedTokens
  // An item that would have fitted the budget without the pinned items was displaced by them.
  const displacedBy = pinned.length > 0 ? ExclusionReason.pinnedOverride(pinned[0]!.content) : undefined
  const roomWithoutPinned = budget.targetTokens - budget.outputReserve
  for (let k = 0; k < sorted.length; k++) {
    if (selected[k] === 1) continue
    const entry = sorted[k]!
    const tokens = entry.item.tokens
    const reason = selection.reasons?.get(k) ??
      (displacedBy !== undefined && tokens > effective.targetTokens && tokens <= roomWithoutPinned
        ? displacedBy
        : ExclusionReason.budgetExceeded(tokens, availableTokens))
    excluded.push({ item: entry.item, score: entry.score, reason })
  }
  for (const entry of placement.excluded) excluded.push(entry)

  const report = {
    events,
    included,
    excluded: byScoreDescending(excluded),
    totalCandidates: items.length,
    totalTokensConsidered: classified.totalTokens,
    countRequirementShortfalls: selection.shortfalls ?? []
  }
  yield* Effect.annotateCurrentSpan({
    "cupel.included.count": included.length,
    "cupel.excluded.count": excluded.length,
    "cupel.window.tokens": placement.totalTokens
  })
  return {
    window: placement.placed,
    report,
    totalTokens: placement.totalTokens,
    tokensOverBudget: placement.tokensOverBudget
  } satisfies PipelineResult
})

/**
 * The window with scores and reasons: pinned items at 1.0 (the score they are placed with),
 * zero-token items as `ZeroToken`, the rest as `Scored`.
 */
const includedItems = (
  placed: ReadonlyArray<ContextItem>,
  sliced: ReadonlyArray<ScoredItem>
): Array<IncludedItem> => {
  const scoreOf = new Map<ContextItem, number>()
  for (const entry of sliced) scoreOf.set(entry.item, entry.score)
  const included = new Array<IncludedItem>(placed.length)
  for (let k = 0; k < placed.length; k++) {
    const item = placed[k]!
    const score = scoreOf.get(item)
    included[k] = score === undefined
      ? { item, score: Place.pinnedScore, reason: InclusionReason.pinned }
      : { item, score, reason: item.tokens === 0 ? InclusionReason.zeroToken : InclusionReason.scored }
  }
  return included
}

const byScoreDescending = (excluded: ReadonlyArray<ExcludedItem>): Array<ExcludedItem> => {
  const scores = new Float64Array(excluded.length)
  for (let i = 0; i < excluded.length; i++) scores[i] = excluded[i]!.score
  const order = orderByScoreDescending(scores)
  const sorted = new Array<ExcludedItem>(excluded.length)
  for (let k = 0; k < sorted.length; k++) sorted[k] = excluded[order[k]!]!
  return sorted
}
