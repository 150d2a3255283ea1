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
import { ContextItem } from "./ContextItem.ts"
import * as Deduplicate from "./Deduplicate.ts"
import type { ExcludedItem } from "./ExcludedItem.ts"
import * as ExclusionReason from "./ExclusionReason.ts"
import type { IncludedItem } from "./IncludedItem.ts"
import * as InclusionReason from "./InclusionReason.ts"
import * as Groups from "./internal/groups.ts"
import { annotateExclusions, annotateInclusions, CurrentVerbosity } from "./internal/stageTrace.ts"
import { orderByScoreDescending } from "./internal/sortByScore.ts"
import { withStageScratch } from "./internal/stageScratch.ts"
import { isSafeTotal } from "./internal/tokens.ts"
import type { InvalidItemError } from "./InvalidItemError.ts"
import type * as OverflowNotifier from "./OverflowNotifier.ts"
import type { OverflowStrategy } from "./OverflowStrategy.ts"
import * as Place from "./Place.ts"
import type * as Placer from "./Placer.ts"
import type { PinnedBudgetError } from "./PinnedBudgetError.ts"
import type { PipelineResult } from "./PipelineResult.ts"
import type { PlaceResult } from "./PlaceResult.ts"
import * as Score from "./Score.ts"
import type * as Scorer from "./Scorer.ts"
import type { ScorerError } from "./ScorerError.ts"
import type { ScoredItem } from "./ScoredItem.ts"
import * as Slice from "./Slice.ts"
import type * as Slicer from "./Slicer.ts"
import { TokenTotalError } from "./TokenTotalError.ts"
import type { PipelineStage, TraceEvent } from "./TraceEvent.ts"
import { defaultVerbosity, type Verbosity } from "./Verbosity.ts"

/**
 * Options of a run.
 *
 * - `deduplication` — remove items with byte-identical content, keeping the best scored
 *   (default `true`).
 * - `overflowStrategy` — what Place does when the window exceeds `budget.targetTokens`:
 *   `"Throw"` (default), `"Truncate"` or `"Proceed"`.
 * - `verbosity` — the trace's tier (`Verbosity`): `"StageOnly"` (default),
 *   `"StageAndExclusions"` (per-exclusion events) or `"Full"` (per-included-item events too).
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  readonly deduplication?: boolean | undefined
  readonly overflowStrategy?: OverflowStrategy | undefined
  /**
   * How much the run tells its trace (`Verbosity`): `"StageOnly"` (default),
   * `"StageAndExclusions"` or `"Full"`.
   *
   * @since 0.3.0
   */
  readonly verbosity?: Verbosity | undefined
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
 * with `cupel.stage.item_count_in` / `_out` (spec `integrations/opentelemetry.md`), named and
 * counted even when the stage fails; Sort and the report's assembly run in the root span, and
 * `Place.place` has a span of its own below `cupel.stage.place`. The
 * root's counts are the report's (members of groups); the stage spans count what the stages
 * see (a group is one unit), like `report.events`. The `verbosity` option adds the chapter's
 * per-item events. Stage durations in the report are read from Effect's `Clock`. Inputs are
 * never modified.
 *
 * Items that share a `group` id (`ContextItem.group`) are one unit: selected or excluded
 * together, their tokens counted together, adjacent and in input order in the window.
 *
 * Every candidate must be a `ContextItem` instance (built with `new ContextItem.ContextItem` or
 * decoded): anything else — a plain object from JavaScript, `null` — fails the run with an
 * `InvalidItemError` (`NotAContextItem`) naming its index and what it is.
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
export const run = (
  items: ReadonlyArray<ContextItem>,
  budget: ContextBudget,
  options?: Options
): Effect.Effect<PipelineResult, PipelineError, Services> => {
  const verbosity = options?.verbosity ?? defaultVerbosity
  // The root is annotated first, so that a run that fails still says what it was asked.
  return Effect.annotateCurrentSpan({
    "cupel.budget.max_tokens": budget.maxTokens,
    "cupel.budget.target_tokens": budget.targetTokens,
    "cupel.verbosity": verbosity,
    "cupel.candidates": items.length,
    "cupel.deduplication": options?.deduplication ?? true,
    "cupel.overflow.strategy": options?.overflowStrategy ?? "Throw"
  }).pipe(Effect.andThen(Effect.suspend(() => {
    const surveyed = survey(items)
    // From JavaScript, anything can come in: a candidate that is not a ContextItem is named
    // here, before any stage reads a field it lacks.
    if (surveyed >= 0) return Effect.fail(Classify.notAContextItem(surveyed, items[surveyed]))
    // Items sharing a `group` run as one unit each (src/internal/groups.ts); without groups the
    // stages below run on the items as given.
    return surveyed === grouped ? Groups.runGrouped(items, budget, options, runItems) : runItems(items, budget, options)
  })),
    // The root's counts are read from the result, after groups are expanded: they are the
    // report's, members and not units.
    Effect.tap((result) =>
      Effect.annotateCurrentSpan({
        "cupel.included.count": result.report.included.length,
        "cupel.excluded.count": result.report.excluded.length,
        "cupel.window.tokens": result.totalTokens
      })
    ),
    // The reference's default is StageOnly: nothing to provide then (providing it anyway cost
    // about 1 ms a run at 10,000 items in the pipeline bench).
    (self) => verbosity === defaultVerbosity ? self : Effect.provideService(self, CurrentVerbosity, verbosity),
    Effect.withSpan("cupel.pipeline")
  )
}

/** {@link survey}'s answers when every candidate is a `ContextItem`. */
const ungrouped = -1
const grouped = -2

/**
 * One pass over the candidates: the index of the first that is not a `ContextItem` instance, or
 * else whether any has a group id ({@link grouped}, {@link ungrouped}). The `instanceof` test
 * rides on the pass that reads every item's `group` anyway, and costs nothing measurable there
 * (a million items: about 10 ms either way, memory-bound), where a pass of its own doubled it.
 */
const survey = (items: ReadonlyArray<unknown>): number => {
  let anyGroup = false
  for (let i = 0; i < items.length; i++) {
    const item = items[i]
    if (!(item instanceof ContextItem)) return i
    if (item.group !== undefined) anyGroup = true
  }
  return anyGroup ? grouped : ungrouped
}

const runItems: (
  items: ReadonlyArray<ContextItem>,
  budget: ContextBudget,
  options?: Options
) => Effect.Effect<PipelineResult, PipelineError, Services> = Effect.fnUntraced(function*(
  items: ReadonlyArray<ContextItem>,
  budget: ContextBudget,
  options?: Options
) {
  const deduplication = options?.deduplication ?? true
  const overflowStrategy = options?.overflowStrategy ?? "Throw"
  // Read once: at StageOnly, Slice and Place are handed no trace work at all (even an Effect
  // that returns at once measurably slowed them).
  const verbosity = yield* CurrentVerbosity
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
  const { scores: sortedScores, sorted, tokens: sortedTokens } = sortKept(scoreable, scores, kept)

  // 5. Slice
  const effective = yield* Slice.effectiveBudget(budget, pinnedTokens)
  // From StageAndExclusions up, the slicer's exclusions are worked out inside its span for
  // their events (and again for the report below); at StageOnly nothing is.
  const selection = yield* Slice.slice(
    sorted,
    effective,
    { scores: sortedScores, tokens: sortedTokens },
    verbosity === "StageOnly"
      ? undefined
      : sliceTrace(sorted, sortedTokens, budget, effective.targetTokens, pinned.length > 0 ? pinned[0] : undefined)
  )
  const selectedIndices = selection.selected
  const selected = markSelected(sorted.length, selectedIndices)
  stageDone("Slice", selectedIndices.length)

  // 6. Place: the sliced items in sorted order (score descending), which Truncate walks.
  const slicedList = slicedInOrder(sorted, selected, selectedIndices.length)
  if (typeof slicedList === "number") return yield* new TokenTotalError({ what: "sliced items", count: slicedList })
  const { sliced, slicedTokens } = slicedList
  const placement = yield* Place.place({ pinned, scored: sliced, budget, overflowStrategy }).pipe(
    Effect.tap(placeTrace(pinned.length + sliced.length, sliced, verbosity)),
    Effect.tapCause(placeFailed(pinned.length + sliced.length)),
    Effect.withSpan("cupel.stage.place")
  )
  stageDone("Place", placement.placed.length)

  // The report.
  const included = includedItems(placement.placed, sliced)
  const excluded = excludedItems({
    negative: classified.negative,
    removed: deduplicated.removed,
    scoreable,
    scores,
    sorted,
    sortedTokens,
    selected,
    reasons: selection.reasons,
    budget,
    effectiveTarget: effective.targetTokens,
    availableTokens: effective.targetTokens - slicedTokens,
    firstPinned: pinned.length > 0 ? pinned[0] : undefined,
    placementExcluded: placement.excluded
  })

  const report = {
    events,
    included,
    excluded,
    totalCandidates: items.length,
    totalTokensConsidered: classified.totalTokens,
    countRequirementShortfalls: selection.shortfalls ?? []
  }
  return {
    window: placement.placed,
    report,
    totalTokens: placement.totalTokens,
    tokensOverBudget: placement.tokensOverBudget
  } satisfies PipelineResult
})

/*
 * The stage spans' trace, built by plain functions outside the run's generator, and used only
 * above StageOnly (docs/design.md item 69).
 */

/** Slice's exclusions as `cupel.exclusion` events (from StageAndExclusions up), in its span. */
const sliceTrace = (
  sorted: ReadonlyArray<Entry>,
  sortedTokens: Float64Array,
  budget: ContextBudget,
  effectiveTarget: number,
  firstPinned: ContextItem | undefined
) =>
(selection: Slicer.Selection): Effect.Effect<void> =>
  annotateExclusions(sorted.length - selection.selected.length, (emit) => {
    const selected = markSelected(sorted.length, selection.selected)
    const list = slicedInOrder(sorted, selected, selection.selected.length)
    if (typeof list === "number") return
    const run = sliceExcludedRun({
      sorted,
      sortedTokens,
      selected,
      reasons: selection.reasons,
      budget,
      effectiveTarget,
      availableTokens: effectiveTarget - list.slicedTokens,
      firstPinned
    })
    for (const entry of run) emit(entry.item, entry.reason)
  })

/** Place's span: its counts, its exclusions (StageAndExclusions up) and the window (Full). */
const placeTrace = (countIn: number, sliced: ReadonlyArray<ScoredItem>, verbosity: Verbosity) =>
(result: PlaceResult): Effect.Effect<void> => {
  const counts = Effect.annotateCurrentSpan({
    "cupel.stage.name": "place",
    "cupel.stage.item_count_in": countIn,
    "cupel.stage.item_count_out": result.placed.length
  })
  return verbosity === "StageOnly" ? counts : counts.pipe(
    Effect.andThen(annotateExclusions(result.excluded.length, (emit) => {
      for (const entry of result.excluded) emit(entry.item, entry.reason)
    })),
    Effect.andThen(annotateInclusions((emit) => {
      for (const entry of includedItems(result.placed, sliced)) emit(entry.item, entry.score)
    }))
  )
}

/** A failed Place is named and counted too. */
const placeFailed = (countIn: number) => (): Effect.Effect<void> =>
  Effect.annotateCurrentSpan({ "cupel.stage.name": "place", "cupel.stage.item_count_in": countIn })

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

/**
 * A sorted entry: a `ScoredItem` for the slicer and Place, and, once the slicer has left it
 * out, the report's `ExcludedItem` for it — the same object, its `reason` set then. A million
 * candidates are then a million objects, not two million, which at that size is most of the
 * garbage collector's work. The objects are the pipeline's own, made in this run; `reason` is
 * set once, before the report is returned.
 */
interface Entry {
  readonly item: ContextItem
  readonly score: number
  reason: ExclusionReason.ExclusionReason | undefined
}

const hasReason = (entry: Entry): entry is Entry & { readonly reason: ExclusionReason.ExclusionReason } =>
  entry.reason !== undefined

/**
 * The kept items with their scores, score descending (ties by position), and the scores and
 * tokens in that order as columns (`Slicer.Columns`). When deduplication kept every item, the
 * scores are sorted as they are; otherwise the kept ones are gathered.
 * Plain functions from here on: V8 optimises loops in a generator less well, and keeps their
 * numbers boxed.
 */
const sortKept = (
  scoreable: ReadonlyArray<ContextItem>,
  scores: ArrayLike<number>,
  kept: ArrayLike<number>
): { readonly sorted: Array<Entry>; readonly scores: Float64Array; readonly tokens: Float64Array } =>
  withStageScratch((scratch) => {
    const m = kept.length
    const all = m === scoreable.length
    // The tokens in sorted order, for the report's reasons: read here in input order, where the
    // items lie in memory as they were made, and gathered from a dense array, rather than read
    // through each entry later, in score order, a cache miss per item on large inputs.
    const tokensByIndex = scratch.doubles(scoreable.length)
    for (let i = 0; i < scoreable.length; i++) tokensByIndex[i] = scoreable[i]!.tokens
    const tokens = new Float64Array(m)
    const sortedScores = new Float64Array(m)
    let keptScores = scores
    if (!all) {
      const gathered = new Float64Array(m)
      for (let k = 0; k < m; k++) gathered[k] = scores[kept[k]!]!
      keptScores = gathered
    }
    // A kept buffer of the scratch: read in the loop below, before the scratch is lent again.
    const byScore = orderByScoreDescending(keptScores, scratch)
    const sorted = new Array<Entry>(m)
    for (let k = 0; k < m; k++) {
      const position = byScore[k]!
      const index = all ? position : kept[position]!
      const score = keptScores[position]!
      sorted[k] = { item: scoreable[index]!, score, reason: undefined }
      sortedScores[k] = score
      tokens[k] = tokensByIndex[index]!
    }
    return { sorted, scores: sortedScores, tokens }
  })

/** One byte per sorted position: 1 where the slicer selected it. */
const markSelected = (n: number, indices: ArrayLike<number>): Uint8Array => {
  const selected = new Uint8Array(n)
  for (let k = 0; k < indices.length; k++) selected[indices[k]!] = 1
  return selected
}

/**
 * The selected entries in sorted order and their tokens; or, when their total leaves the safe
 * integers, how many had been added.
 */
const slicedInOrder = (
  sorted: ReadonlyArray<Entry>,
  selected: Uint8Array,
  count: number
): { readonly sliced: Array<ScoredItem>; readonly slicedTokens: number } | number => {
  const sliced = new Array<ScoredItem>(count)
  let slicedTokens = 0
  for (let k = 0, s = 0; k < sorted.length; k++) {
    if (selected[k] === 1) {
      const entry = sorted[k]!
      // A plain ScoredItem for Place and the placer: the entry itself carries `reason`.
      sliced[s++] = { item: entry.item, score: entry.score }
      slicedTokens += entry.item.tokens
      if (!isSafeTotal(slicedTokens)) return s
    }
  }
  return { sliced, slicedTokens }
}

/**
 * The report's excluded list: score descending, ties in the order the items were excluded
 * (Classify's, then Deduplicate's, Slice's and Place's). Each stage's exclusions form a run;
 * Slice's run is in sorted order, so already score descending, and so are Place's (Truncate
 * walks the sorted items) and Classify's (all 0). A run that is not (Deduplicate's, which is
 * in index order) is sorted stably on its own, and the runs are merged, ties to the earlier run:
 * a stable sort of the whole list, in linear time when only Slice excludes.
 *
 * An item the slicer left out is `PinnedOverride` when pinned items exist, it is larger than
 * the effective target and no larger than `targetTokens − outputReserve` (it would have fitted
 * but for the pinned items); otherwise `BudgetExceeded`. Those reasons are plain immutable data,
 * and equal ones are shared: one object per token count.
 */
const excludedItems = (input: SliceRunInput & {
  readonly negative: ReadonlyArray<ContextItem>
  readonly removed: Deduplicate.Deduplicated["removed"]
  readonly scoreable: ReadonlyArray<ContextItem>
  readonly scores: ArrayLike<number>
  readonly placementExcluded: ReadonlyArray<ExcludedItem>
}): Array<ExcludedItem> => {
  const { removed, scoreable, scores } = input
  // Every run is a new array: the report may own whichever is returned.
  const runs: Array<Array<ExcludedItem>> = []

  if (input.negative.length > 0) {
    runs.push(input.negative.map((item) => ({ item, score: 0, reason: { _tag: "NegativeTokens", tokens: item.tokens } })))
  }

  if (removed.length > 0) {
    const deduplicated = new Array<ExcludedItem>(removed.length)
    for (let k = 0; k < removed.length; k++) {
      const { index, survivor } = removed[k]!
      deduplicated[k] = {
        item: scoreable[index]!,
        score: scores[index]!,
        reason: { _tag: "Deduplicated", deduplicatedAgainst: scoreable[survivor]!.content }
      }
    }
    runs.push(deduplicated)
  }

  const sliceRun = sliceExcludedRun(input)
  if (sliceRun.length > 0) runs.push(sliceRun)
  if (input.placementExcluded.length > 0) runs.push([...input.placementExcluded])
  return mergeRuns(runs)
}

/** What the slicer's exclusions are read from: the sorted entries, the selection, its reasons, the budget. */
interface SliceRunInput {
  readonly sorted: ReadonlyArray<Entry>
  readonly sortedTokens: Float64Array
  readonly selected: Uint8Array
  readonly reasons: ReadonlyMap<number, ExclusionReason.ExclusionReason> | undefined
  readonly budget: ContextBudget
  readonly effectiveTarget: number
  readonly availableTokens: number
  readonly firstPinned: ContextItem | undefined
}

/**
 * What the slicer left out, in sorted order, each with its reason (see {@link excludedItems}):
 * the run the report merges, worked out in the slice stage's span.
 */
const sliceExcludedRun = (input: SliceRunInput): Array<ExcludedItem> => {
  const { selected, sorted, sortedTokens } = input
  const sliceExcluded = sorted.length - countSelected(selected)
  if (sliceExcluded === 0) return []
  const displacedBy = input.firstPinned === undefined
    ? undefined
    : ExclusionReason.pinnedOverride(input.firstPinned.content)
  const roomWithoutPinned = input.budget.targetTokens - input.budget.outputReserve
  const { availableTokens, effectiveTarget, reasons } = input
  const shared = new BudgetExceededReasons(availableTokens)
  const run = new Array<ExcludedItem>(sliceExcluded)
  for (let k = 0, e = 0; k < sorted.length; k++) {
    if (selected[k] === 1) continue
    const entry = sorted[k]!
    const tokens = sortedTokens[k]!
    const reason = reasons?.get(k) ??
      (displacedBy !== undefined && tokens > effectiveTarget && tokens <= roomWithoutPinned
        ? displacedBy
        : shared.get(tokens))
    entry.reason = reason
    if (hasReason(entry)) run[e++] = entry
  }
  return run
}

const countSelected = (selected: Uint8Array): number => {
  let count = 0
  for (let k = 0; k < selected.length; k++) count += selected[k]!
  return count
}

/** `BudgetExceeded` reasons with one `availableTokens`, one object per small token count. */
class BudgetExceededReasons {
  private readonly byTokens: Array<ExclusionReason.BudgetExceeded | undefined> = []
  private readonly availableTokens: number
  constructor(availableTokens: number) {
    this.availableTokens = availableTokens
  }
  get(tokens: number): ExclusionReason.BudgetExceeded {
    if (!(tokens >= 0 && tokens < 65536)) return ExclusionReason.budgetExceeded(tokens, this.availableTokens)
    let reason = this.byTokens[tokens]
    if (reason === undefined) {
      reason = ExclusionReason.budgetExceeded(tokens, this.availableTokens)
      this.byTokens[tokens] = reason
    }
    return reason
  }
}

/** Whether no entry scores higher than the one before it. */
const isDescending = (run: Array<ExcludedItem>): boolean => {
  for (let k = 1; k < run.length; k++) if (run[k]!.score > run[k - 1]!.score) return false
  return true
}

const sortedRun = (run: Array<ExcludedItem>): Array<ExcludedItem> => {
  if (isDescending(run)) return run
  const scores = new Float64Array(run.length)
  for (let i = 0; i < run.length; i++) scores[i] = run[i]!.score
  const order = orderByScoreDescending(scores)
  const sorted = new Array<ExcludedItem>(run.length)
  for (let k = 0; k < sorted.length; k++) sorted[k] = run[order[k]!]!
  return sorted
}

/** A stable merge of runs, each sorted first if it needs to be; ties go to the earlier run. */
const mergeRuns = (unsorted: Array<Array<ExcludedItem>>): Array<ExcludedItem> => {
  const runs = unsorted.map(sortedRun)
  if (runs.length <= 1) return runs[0] ?? []
  let total = 0
  for (const run of runs) total += run.length
  const merged = new Array<ExcludedItem>(total)
  const next = new Array<number>(runs.length).fill(0)
  for (let k = 0; k < total; k++) {
    let best = -1
    let bestScore = 0
    for (let r = 0; r < runs.length; r++) {
      const run = runs[r]!
      const at = next[r]!
      if (at === run.length) continue
      const score = run[at]!.score
      // Strictly greater: on a tie the earlier run's entry comes first.
      if (best < 0 || score > bestScore) {
        best = r
        bestScore = score
      }
    }
    merged[k] = runs[best]![next[best]!]!
    next[best] = next[best]! + 1
  }
  return merged
}
