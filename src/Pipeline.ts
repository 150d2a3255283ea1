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
import * as Classify from "./stages/Classify.ts"
import type { ContextBudget } from "./ContextBudget.ts"
import { ContextItem } from "./ContextItem.ts"
import * as Deduplicate from "./stages/Deduplicate.ts"
import type { ExcludedItem } from "./ExcludedItem.ts"
import * as ExclusionReason from "./ExclusionReason.ts"
import type { IncludedItem } from "./IncludedItem.ts"
import * as InclusionReason from "./InclusionReason.ts"
import * as Groups from "./internal/groups.ts"
import * as HotSpans from "./internal/hotSpans.ts"
import { annotateSliceIn, runSlicer } from "./internal/runSlicer.ts"
import { annotateExclusions, annotateInclusions, CurrentVerbosity } from "./internal/stageTrace.ts"
import { orderByScoreDescending } from "./internal/sortByScore.ts"
import { withStageScratch } from "./internal/stageScratch.ts"
import * as Young from "./internal/youngEntries.ts"
import { lazyReport } from "./internal/lazyReport.ts"
import { isSafeTotal } from "./internal/tokens.ts"
import type { InvalidItemError } from "./InvalidItemError.ts"
import type * as OverflowNotifier from "./OverflowNotifier.ts"
import type { OverflowStrategy } from "./OverflowStrategy.ts"
import * as Place from "./stages/Place.ts"
import type * as Placer from "./placers/Placer.ts"
import type { PinnedBudgetError } from "./PinnedBudgetError.ts"
import type { PipelineResult } from "./PipelineResult.ts"
import type { PlaceResult } from "./PlaceResult.ts"
import * as Score from "./stages/Score.ts"
import type * as Scorer from "./scorers/Scorer.ts"
import type { ScorerError } from "./scorers/ScorerError.ts"
import type { ScoredItem } from "./ScoredItem.ts"
import * as Slice from "./stages/Slice.ts"
import type * as Slicer from "./slicers/Slicer.ts"
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
 * counted even when the stage fails; Sort runs inside `cupel.stage.slice`, the report's lists
 * are assembled inside `cupel.stage.place`, and `Place.place` has a span of its own below it. The
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
        // Every candidate less the included (the report's invariant): a grouped run's excluded
        // entries are made only when read (docs/design.md item 131).
        "cupel.excluded.count": result.report.totalCandidates - result.report.included.length,
        "cupel.window.tokens": result.totalTokens
      })
    ),
    // The reference's default is StageOnly: nothing to provide then (providing it anyway cost
    // about 1 ms a run at 10,000 items in the pipeline bench).
    (self) => verbosity === defaultVerbosity ? self : Effect.provideService(self, CurrentVerbosity, verbosity),
    pipelineSpan
  )
}

/** The run's and its stages' spans, made once (no stack trace a run: docs/design.md item 145). */
const pipelineSpan = HotSpans.withSpan("cupel.pipeline")
const sliceSpan = HotSpans.withSpan("cupel.stage.slice")
const placeSpan = HotSpans.withSpan("cupel.stage.place")

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
  // Read once, for the slice and place stages: at StageOnly they do no trace work at all.
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

  // 4. Sort and 5. Slice, in the span `cupel.stage.slice`: Sort has no span of its own (the
  // chapter) and its time counts towards Slice's event; the reasons of what the slicer left out
  // are worked out there too, where their events go.
  const sliced = yield* sliceStage({
    scoreable,
    scores,
    kept,
    budget,
    pinnedTokens,
    firstPinned: pinned.length > 0 ? pinned[0] : undefined,
    verbosity
  })
  stageDone("Slice", sliced.selection.selected.length)

  // 6. Place, in the span `cupel.stage.place`, which the report's lists are assembled in too
  // (its event is Place's alone).
  const placed = yield* placeStage({
    pinned,
    sliced: sliced.sliced,
    budget,
    overflowStrategy,
    verbosity,
    placed: (count) => stageDone("Place", count),
    negative: classified.negative,
    removed: deduplicated.removed,
    scoreable,
    scores,
    sliceRun: sliced.run
  })
  const { placement } = placed

  const report = lazyReport({
    events,
    included: placed.included,
    excluded: placed.excluded,
    totalCandidates: items.length,
    totalTokensConsidered: classified.totalTokens,
    countRequirementShortfalls: sliced.selection.shortfalls ?? []
  })
  return {
    window: placement.placed,
    report,
    totalTokens: placement.totalTokens,
    tokensOverBudget: placement.tokensOverBudget
  } satisfies PipelineResult
})

/*
 * The slice and place stages, as plain functions returning Effects outside the run's generator:
 * their loops stay in plain functions, which V8 optimises better than a generator's.
 */

/**
 * What the slice stage hands on: the selection, the selected entries for Place, the slicer's
 * exclusions for the report — made at the first call of `run` at StageOnly, where no event
 * needs them and the report's excluded list may never be read (docs/design.md item 138); made
 * in the stage otherwise.
 */
interface Sliced {
  readonly selection: Slicer.Selection
  readonly sliced: Array<ScoredItem>
  readonly run: () => Array<ExcludedItem>
}

/**
 * Sort and Slice in `cupel.stage.slice`: named and counted in first, then the sort, the
 * effective budget, the slicer, the selected entries (whose total must stay a safe integer) and
 * the slicer's exclusions with their reasons — and, from StageAndExclusions up, their events.
 */
const sliceStage = (input: {
  readonly scoreable: ReadonlyArray<ContextItem>
  readonly scores: ArrayLike<number>
  readonly kept: ArrayLike<number>
  readonly budget: ContextBudget
  readonly pinnedTokens: number
  readonly firstPinned: ContextItem | undefined
  readonly verbosity: Verbosity
}): Effect.Effect<Sliced, Slicer.SliceError | TokenTotalError, Slicer.Slicer> =>
  annotateSliceIn(input.kept.length).pipe(
    Effect.andThen(Effect.suspend(() => {
      const { scores: sortedScores, sorted, tokens: sortedTokens } = sortKept(input.scoreable, input.scores, input.kept)
      return Slice.effectiveBudget(input.budget, input.pinnedTokens).pipe(
        Effect.flatMap((effective) =>
          runSlicer(sorted, effective, { scores: sortedScores, tokens: sortedTokens }).pipe(
            Effect.flatMap((selection) => {
              const selected = markSelected(sorted.length, selection.selected)
              const list = slicedInOrder(sorted, sortedTokens, selected, selection.selected.length)
              if (typeof list === "number") {
                return Effect.fail(new TokenTotalError({ what: "sliced items", count: list }))
              }
              // Every input of the run is this stage's own and fresh (no scratch buffer): it
              // can be read after the run, when the report's list is.
              const runInput: SliceRunInput = {
                sorted,
                sortedTokens,
                selected,
                reasons: selection.reasons,
                budget: input.budget,
                effectiveTarget: effective.targetTokens,
                availableTokens: effective.targetTokens - list.slicedTokens,
                firstPinned: input.firstPinned
              }
              if (input.verbosity === "StageOnly") {
                let made: Array<ExcludedItem> | undefined
                return Effect.succeed<Sliced>({ selection, sliced: list.sliced, run: () => (made ??= sliceExcludedRun(runInput)) })
              }
              const run = sliceExcludedRun(runInput)
              const done: Sliced = { selection, sliced: list.sliced, run: () => run }
              return annotateExclusions(run.length, (emit) => {
                for (const entry of run) emit(entry.item, entry.reason)
              }).pipe(Effect.as(done))
            })
          )
        )
      )
    })),
    sliceSpan
  )

/** What the place stage hands on: Place's result and the report's two lists, the excluded one made when asked for. */
interface Placed {
  readonly placement: PlaceResult
  readonly included: Array<IncludedItem>
  readonly excluded: () => Array<ExcludedItem>
}

/**
 * Place in `cupel.stage.place`: named and counted in first, then `Place.place` (its own span
 * below), the count out, and the report's lists; from StageAndExclusions up Place's exclusions
 * as events, and at Full the window's items.
 */
const placeStage = (input: {
  readonly pinned: ReadonlyArray<ContextItem>
  readonly sliced: ReadonlyArray<ScoredItem>
  readonly budget: ContextBudget
  readonly overflowStrategy: OverflowStrategy
  readonly verbosity: Verbosity
  /** Called once Place has answered, for the report's event. */
  readonly placed: (count: number) => void
  readonly negative: ReadonlyArray<ContextItem>
  readonly removed: Deduplicate.Deduplicated["removed"]
  readonly scoreable: ReadonlyArray<ContextItem>
  readonly scores: ArrayLike<number>
  readonly sliceRun: () => Array<ExcludedItem>
}): Effect.Effect<Placed, Place.PlaceError, Placer.Placer | OverflowNotifier.OverflowNotifier> => {
  const { pinned, sliced } = input
  return Effect.annotateCurrentSpan({
    "cupel.stage.name": "place",
    "cupel.stage.item_count_in": pinned.length + sliced.length
  }).pipe(
    Effect.andThen(Place.place({ pinned, scored: sliced, budget: input.budget, overflowStrategy: input.overflowStrategy })),
    Effect.flatMap((placement) => {
      input.placed(placement.placed.length)
      const included = includedItems(placement.placed, sliced)
      // The runs read from the stages' outputs now (the scores may be a scorer's buffer, lent
      // again at the next run); the slicer's run and the merge when the list is read.
      const early = earlyRuns({ negative: input.negative, removed: input.removed, scoreable: input.scoreable, scores: input.scores })
      const sliceRun = input.sliceRun
      const excluded = () => excludedItems(early, sliceRun(), placement.excluded)
      const done: Placed = { placement, included, excluded }
      const count = Effect.annotateCurrentSpan("cupel.stage.item_count_out", placement.placed.length)
      return (input.verbosity === "StageOnly" ? count : count.pipe(
        Effect.andThen(annotateExclusions(placement.excluded.length, (emit) => {
          for (const entry of placement.excluded) emit(entry.item, entry.reason)
        })),
        Effect.andThen(annotateInclusions((emit) => {
          for (const entry of included) emit(entry.item, entry.score)
        }))
      )).pipe(Effect.as(done))
    }),
    placeSpan
  )
}

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
      ? Young.includedItem(item, Place.pinnedScore, InclusionReason.pinned)
      : Young.includedItem(item, score, item.tokens === 0 ? InclusionReason.zeroToken : InclusionReason.scored)
  }
  return included
}

/**
 * A sorted entry (`youngEntries.ts`): a `ScoredItem` for the slicer and Place, and, once the
 * slicer has left it out, the report's `ExcludedItem` for it — the same object, its `reason`
 * set then. A million candidates are then a million objects, not two million, which at that
 * size is most of the garbage collector's work. The objects are the pipeline's own, made in
 * this run; `reason` is set once, before the report is returned.
 */
type Entry = Young.SortedEntry

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
      sorted[k] = Young.sortedEntry(scoreable[index]!, score)
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
  sortedTokens: Float64Array,
  selected: Uint8Array,
  count: number
): { readonly sliced: Array<ScoredItem>; readonly slicedTokens: number } | number => {
  const sliced = new Array<ScoredItem>(count)
  const slicedTokens = fillSliced(sorted, sortedTokens, selected, sliced)
  return slicedTokens < 0 ? -slicedTokens : { sliced, slicedTokens }
}

/**
 * {@link slicedInOrder}'s loop: fills `sliced` and returns the total, or, past the safe
 * integers, minus the count added. A function of its own that ends by returning a number: V8
 * compiles a hot loop on-stack during its first call, before the code after it has run, and
 * that code, when it needs type feedback (building the result object did), then deoptimised on
 * every later call until the whole function was optimised (docs/design.md item 69).
 */
const fillSliced = (
  sorted: ReadonlyArray<Entry>,
  sortedTokens: Float64Array,
  selected: Uint8Array,
  sliced: Array<ScoredItem>
): number => {
  let slicedTokens = 0
  for (let k = 0, s = 0; k < sorted.length; k++) {
    if (selected[k] === 1) {
      const entry = sorted[k]!
      // A plain ScoredItem for Place and the placer: the entry itself carries `reason`.
      sliced[s++] = Young.scoredItem(entry.item, entry.score)
      // The tokens column holds each entry's `item.tokens`, read in sequence rather than
      // through the item (docs/design.md item 129).
      slicedTokens += sortedTokens[k]!
      if (!isSafeTotal(slicedTokens)) return -s
    }
  }
  return slicedTokens
}

/**
 * The report's excluded list: score descending, ties in the order the items were excluded
 * (Classify's, then Deduplicate's, Slice's and Place's). Each stage's exclusions form a run;
 * Slice's run is in sorted order, so already score descending, and so are Place's (Truncate
 * walks the sorted items) and Classify's (all 0). A run that is not (Deduplicate's, which is
 * in index order) is sorted stably on its own, and the runs are merged, ties to the earlier run:
 * a stable sort of the whole list, in linear time when only Slice excludes.
 */
const excludedItems = (
  early: ReadonlyArray<Array<ExcludedItem>>,
  sliceRun: Array<ExcludedItem>,
  placementExcluded: ReadonlyArray<ExcludedItem>
): Array<ExcludedItem> => {
  // Every run is a new array: the report may own whichever is returned.
  const runs: Array<Array<ExcludedItem>> = early.slice()
  // The slicer's run was worked out for the report alone; the report may own it.
  if (sliceRun.length > 0) runs.push(sliceRun)
  if (placementExcluded.length > 0) runs.push([...placementExcluded])
  return mergeRuns(runs)
}

/** {@link excludedItems}' runs of Classify (negative tokens) and Deduplicate, in that order. */
const earlyRuns = (input: {
  readonly negative: ReadonlyArray<ContextItem>
  readonly removed: Deduplicate.Deduplicated["removed"]
  readonly scoreable: ReadonlyArray<ContextItem>
  readonly scores: ArrayLike<number>
}): Array<Array<ExcludedItem>> => {
  const { removed, scoreable, scores } = input
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
  return runs
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
 * What the slicer left out, in sorted order, each with its reason: the run the report merges
 * ({@link excludedItems}), worked out in the slice stage's span.
 *
 * An item the slicer left out is `PinnedOverride` when pinned items exist, it is larger than
 * the effective target and no larger than `targetTokens − outputReserve` (it would have fitted
 * but for the pinned items); otherwise `BudgetExceeded`. Those reasons are plain immutable data,
 * and equal ones are shared: one object per token count.
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
  const shared = budgetExceededReasons(availableTokens)
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
  // A Map: an array indexed by token counts is sparse, and V8 keeps a sparse array as a
  // dictionary, slower to read and to grow (docs/design.md item 129).
  private readonly byTokens = new Map<number, ExclusionReason.BudgetExceeded>()
  readonly availableTokens: number
  constructor(availableTokens: number) {
    this.availableTokens = availableTokens
  }
  get(tokens: number): ExclusionReason.BudgetExceeded {
    if (!(tokens >= 0 && tokens < 65536)) return ExclusionReason.budgetExceeded(tokens, this.availableTokens)
    let reason = this.byTokens.get(tokens)
    if (reason === undefined) {
      reason = ExclusionReason.budgetExceeded(tokens, this.availableTokens)
      this.byTokens.set(tokens, reason)
    }
    return reason
  }
}

/**
 * The reasons of the latest `availableTokens`, kept from call to call (docs/design.md item 126):
 * an agent's calls have one budget, and the same reason objects let the entries made from them
 * be the same too (`internal/groups.ts`'s member entries). Immutable data, no conversation's.
 */
let latestReasons: BudgetExceededReasons | undefined
const budgetExceededReasons = (availableTokens: number): BudgetExceededReasons => {
  if (latestReasons === undefined || !Object.is(latestReasons.availableTokens, availableTokens)) {
    latestReasons = new BudgetExceededReasons(availableTokens)
  }
  return latestReasons
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
