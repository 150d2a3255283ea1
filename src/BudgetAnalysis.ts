/**
 * BudgetAnalysis: what the pipeline would select at other budgets or under other strategies,
 * answered by running it without side effects (spec `analytics/budget-simulation.md` and
 * `analytics/policy-sensitivity.md`).
 *
 * - {@link dryRun} — the pipeline's report, with overflow notifications dropped;
 * - {@link getMarginalItems} — the items a budget cut of `slackTokens` would lose;
 * - {@link findMinBudgetFor} — the smallest budget whose window holds a given item;
 * - {@link policySensitivity} — the items whose status differs between strategy variants.
 *
 * Items are compared by identity (`===`): every run gets the caller's item objects and its report
 * holds those very objects, which are immutable, so identity is exact where content would merge
 * two items with equal text. The budget-simulation chapter compares by reference too; the
 * policy-sensitivity chapter keys by content, which identity refines (see
 * {@link policySensitivity}).
 *
 * @since 0.2.0
 */
import { Effect, type Layer, Option, Schema } from "effect"
import { ContextBudget } from "./ContextBudget.ts"
import { ContextItem } from "./ContextItem.ts"
import { ExclusionReason } from "./ExclusionReason.ts"
import { InclusionReason } from "./InclusionReason.ts"
import * as OverflowNotifier from "./OverflowNotifier.ts"
import * as Pipeline from "./Pipeline.ts"
import type * as Placer from "./placers/Placer.ts"
import type * as Scorer from "./scorers/Scorer.ts"
import { SelectionReport } from "./SelectionReport.ts"
import * as Slicer from "./slicers/Slicer.ts"
import * as CountConstrainedKnapsackSlice from "./slicers/CountConstrainedKnapsackSlice.ts"
import * as CountQuotaSlice from "./slicers/CountQuotaSlice.ts"
import * as QuotaSlice from "./slicers/QuotaSlice.ts"

/**
 * The strategies a dry run needs: everything `Pipeline.run` needs but the overflow notifier.
 *
 * @since 0.2.0
 * @category models
 */
export type Strategies = Scorer.Scorer | Slicer.Slicer | Placer.Placer

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

const marginalItemsMessage = "GetMarginalItems requires monotonic item inclusion. QuotaSlice produces " +
  "non-monotonic inclusion as budget changes shift percentage allocations."

const minBudgetMessage = "FindMinBudgetFor requires monotonic item inclusion. QuotaSlice and CountQuotaSlice " +
  "produce non-monotonic inclusion as budget changes shift allocations. Use a GreedySlice or KnapsackSlice " +
  "inner slicer for budget simulation."

/**
 * The current slicer is a quota slicer, whose selection does not grow with the budget: a
 * quota's share of a smaller budget can admit an item a larger one left out, so a diff between
 * two budgets, or a binary search over budgets, would answer a different question. The message
 * is the chapter's, for the operation refused.
 *
 * @since 0.2.0
 * @category errors
 */
export class NonMonotonicSlicerError extends Schema.TaggedError<NonMonotonicSlicerError>()(
  "NonMonotonicSlicerError",
  {
    operation: Schema.Literals(["getMarginalItems", "findMinBudgetFor"]),
    slicer: Schema.String
  }
) {
  override get message(): string {
    return this.operation === "getMarginalItems" ? marginalItemsMessage : minBudgetMessage
  }
}

/**
 * `findMinBudgetFor`'s target is not one of the candidate items (by identity: an item with the
 * same content is another item).
 *
 * @since 0.2.0
 * @category errors
 */
export class TargetNotInItemsError extends Schema.TaggedError<TargetNotInItemsError>()("TargetNotInItemsError", {
  content: Schema.String
}) {
  override get message(): string {
    return "targetItem must be an element of items"
  }
}

/**
 * `findMinBudgetFor`'s search ceiling is below the target's own tokens (no budget in the range
 * could hold it), or is not a whole number of tokens.
 *
 * @since 0.2.0
 * @category errors
 */
export class SearchCeilingError extends Schema.TaggedError<SearchCeilingError>()("SearchCeilingError", {
  searchCeiling: Schema.Number,
  targetTokens: Schema.Int
}) {
  override get message(): string {
    return Number.isSafeInteger(this.searchCeiling)
      ? "searchCeiling must be >= targetItem.Tokens"
      : `searchCeiling must be an integer, got ${this.searchCeiling}`
  }
}

/**
 * `getMarginalItems`'s slack leaves no valid reduced budget: it must be a non-negative integer no
 * larger than `targetTokens`, and leave `maxTokens − slackTokens` at least `outputReserve`.
 *
 * @since 0.2.0
 * @category errors
 */
export class SlackTokensError extends Schema.TaggedError<SlackTokensError>()("SlackTokensError", {
  slackTokens: Schema.Number,
  rule: Schema.String
}) {
  override get message(): string {
    return `slackTokens (${this.slackTokens}) ${this.rule}`
  }
}

/**
 * `policySensitivity` was given fewer than two variants: there is nothing to compare.
 *
 * @since 0.2.0
 * @category errors
 */
export class TooFewVariantsError extends Schema.TaggedError<TooFewVariantsError>()("TooFewVariantsError", {
  variants: Schema.Int
}) {
  override get message(): string {
    return "At least two variants are required for a sensitivity comparison."
  }
}

// ---------------------------------------------------------------------------------------------
// Dry run
// ---------------------------------------------------------------------------------------------

const silent = OverflowNotifier.OverflowNotifier.of({ notify: () => Effect.void })

/**
 * Runs the pipeline for its report alone. A `Proceed` overflow notifies nobody: the notifier is
 * provided here, one that drops every event, so a simulation never reaches the caller's
 * observers. Identical inputs give identical reports (the chapter's determinism invariant: every
 * built-in strategy breaks ties by input order).
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import {
 *   BudgetAnalysis, type ContextBudget, type ContextItem, GreedySlice, ReflexiveScorer, UShapedPlacer
 * } from "effect-cupel"
 *
 * declare const items: ReadonlyArray<ContextItem.ContextItem>
 * declare const budget: ContextBudget.ContextBudget
 *
 * const strategies = Layer.mergeAll(ReflexiveScorer.layer, GreedySlice.layer, UShapedPlacer.layer)
 * const report = BudgetAnalysis.dryRun(items, budget).pipe(Effect.provide(strategies))
 * ```
 *
 * @since 0.2.0
 * @category running
 */
export const dryRun = (
  items: ReadonlyArray<ContextItem>,
  budget: ContextBudget,
  options?: Pipeline.Options
): Effect.Effect<SelectionReport, Pipeline.PipelineError, Strategies> =>
  Pipeline.run(items, budget, options).pipe(
    Effect.map((result) => result.report),
    Effect.provideService(OverflowNotifier.OverflowNotifier, silent)
  )

// ---------------------------------------------------------------------------------------------
// Budget simulation
// ---------------------------------------------------------------------------------------------

/**
 * The names of the slicers both simulations refuse: QuotaSlice, CountQuotaSlice and
 * CountConstrainedKnapsackSlice. Slicers are values here, recognised by their `name`.
 *
 * @since 0.2.0
 * @category constants
 */
export const nonMonotonicSlicers: ReadonlyArray<string> = [
  QuotaSlice.name,
  CountQuotaSlice.name,
  CountConstrainedKnapsackSlice.name
]

const refuseQuota = (
  operation: NonMonotonicSlicerError["operation"]
): Effect.Effect<void, NonMonotonicSlicerError, Slicer.Slicer> =>
  Slicer.Slicer.use((slicer) =>
    nonMonotonicSlicers.includes(slicer.name)
      ? Effect.fail(new NonMonotonicSlicerError({ operation, slicer: slicer.name }))
      : Effect.void
  )

const includes = (report: SelectionReport, target: ContextItem): boolean => {
  for (const entry of report.included) if (entry.item === target) return true
  return false
}

/** `budget` with other token limits; its reserve, reserved slots and safety margin kept. */
const withLimits = (budget: ContextBudget, maxTokens: number, targetTokens: number): ContextBudget =>
  new ContextBudget({
    maxTokens,
    targetTokens,
    outputReserve: budget.outputReserve,
    reservedSlots: budget.reservedSlots,
    estimationSafetyMarginPercent: budget.estimationSafetyMarginPercent
  })

const slackProblem = (budget: ContextBudget, slackTokens: number): string | undefined => {
  if (!Number.isSafeInteger(slackTokens) || slackTokens < 0) return "must be a non-negative integer"
  if (slackTokens > budget.targetTokens) {
    return `must not exceed targetTokens (${budget.targetTokens}): the reduced budget's targetTokens would be negative`
  }
  if (budget.maxTokens - slackTokens < budget.outputReserve) {
    return `must leave maxTokens − slackTokens (${budget.maxTokens - slackTokens}) at least outputReserve ` +
      `(${budget.outputReserve})`
  }
  return undefined
}

/**
 * The items the window holds at `budget` and loses when the budget shrinks by `slackTokens`:
 * `primary \ margin`, where `primary` is a dry run at `budget` and `margin` one at
 * `maxTokens − slackTokens`, `targetTokens − slackTokens`, with the same output reserve,
 * reserved slots and safety margin. In the full-budget window's order; compared by identity.
 *
 * The diff is one-sided, as the chapter's is: an item the smaller budget admits and the larger
 * one does not (GreedySlice skips an item that does not fit and takes a smaller one after it,
 * so this happens) is not reported.
 *
 * - A slack of 0 answers `[]` without running the pipeline.
 * - Fails with {@link NonMonotonicSlicerError} when the slicer is a quota slicer (first, before
 *   any other check), and with {@link SlackTokensError} when the reduced budget would be invalid.
 *
 * @since 0.2.0
 * @category simulation
 */
export const getMarginalItems: (
  items: ReadonlyArray<ContextItem>,
  budget: ContextBudget,
  slackTokens: number,
  options?: Pipeline.Options
) => Effect.Effect<
  ReadonlyArray<ContextItem>,
  NonMonotonicSlicerError | SlackTokensError | Pipeline.PipelineError,
  Strategies
> = Effect.fn("BudgetAnalysis.getMarginalItems")(function*(
  items: ReadonlyArray<ContextItem>,
  budget: ContextBudget,
  slackTokens: number,
  options?: Pipeline.Options
) {
  yield* refuseQuota("getMarginalItems")
  const problem = slackProblem(budget, slackTokens)
  if (problem !== undefined) return yield* new SlackTokensError({ slackTokens, rule: problem })
  if (slackTokens === 0) return []
  const primary = yield* dryRun(items, budget, options)
  const reduced = withLimits(budget, budget.maxTokens - slackTokens, budget.targetTokens - slackTokens)
  const margin = yield* dryRun(items, reduced, options)
  const kept = new Set<ContextItem>()
  for (const entry of margin.included) kept.add(entry.item)
  const marginal: Array<ContextItem> = []
  for (const entry of primary.included) if (!kept.has(entry.item)) marginal.push(entry.item)
  return marginal
})

/**
 * The smallest budget, from `target.tokens` to `searchCeiling`, whose window holds `target`;
 * `None` when no budget in that range does.
 *
 * A budget `m` here is `budget` with `maxTokens` and `targetTokens` both `m`, its output
 * reserve, reserved slots and safety margin kept. A budget below the output reserve, or one the
 * pinned items do not fit (the run fails with `PinnedBudgetError`), holds no window, so it does
 * not hold `target`; any other failure of a run is the search's failure.
 *
 * The search: `target.tokens` is tried first (the answer when it holds the target); otherwise a
 * binary search keeps `low` a budget without the target, stops when `high − low ≤ 1`, and
 * confirms with a last run at `high`. That is at most `⌈log₂(searchCeiling − target.tokens)⌉ + 2`
 * dry runs. When the answer is `m`, budget `m` holds the target and, above `target.tokens`,
 * `m − 1` does not; it is the smallest budget that holds it when inclusion grows with the budget
 * (for GreedySlice, when no larger budget trades the target for a denser item that now fits).
 *
 * - Fails with {@link NonMonotonicSlicerError} for quota slicers, then
 *   {@link TargetNotInItemsError} when `target` is not one of `items` (identity), then
 *   {@link SearchCeilingError} when `searchCeiling < target.tokens` or is not an integer.
 *
 * @example
 * ```ts
 * import { Effect, Option } from "effect"
 * import { BudgetAnalysis, type ContextBudget, type ContextItem } from "effect-cupel"
 *
 * declare const items: ReadonlyArray<ContextItem.ContextItem>
 * declare const budget: ContextBudget.ContextBudget
 * declare const document: ContextItem.ContextItem // one of items
 *
 * // The smallest maxTokens (= targetTokens) up to 128k whose window holds the document.
 * const needed = BudgetAnalysis.findMinBudgetFor(items, budget, document, 128_000).pipe(
 *   Effect.map(Option.getOrUndefined) // e.g. 4_310, or undefined
 * )
 * ```
 *
 * @since 0.2.0
 * @category simulation
 */
export const findMinBudgetFor: (
  items: ReadonlyArray<ContextItem>,
  budget: ContextBudget,
  target: ContextItem,
  searchCeiling: number,
  options?: Pipeline.Options
) => Effect.Effect<
  Option.Option<number>,
  NonMonotonicSlicerError | TargetNotInItemsError | SearchCeilingError | Pipeline.PipelineError,
  Strategies
> = Effect.fn("BudgetAnalysis.findMinBudgetFor")(function*(
  items: ReadonlyArray<ContextItem>,
  budget: ContextBudget,
  target: ContextItem,
  searchCeiling: number,
  options?: Pipeline.Options
) {
  yield* refuseQuota("findMinBudgetFor")
  if (!items.includes(target)) return yield* new TargetNotInItemsError({ content: target.content })
  if (!Number.isSafeInteger(searchCeiling) || searchCeiling < target.tokens) {
    return yield* new SearchCeilingError({ searchCeiling, targetTokens: target.tokens })
  }
  let runs = 0
  const holdsTarget = (m: number): Effect.Effect<boolean, Pipeline.PipelineError, Strategies> => {
    if (m < 0 || m < budget.outputReserve) return Effect.succeed(false)
    runs++
    return dryRun(items, withLimits(budget, m, m), options).pipe(
      Effect.map((report) => includes(report, target)),
      Effect.catchTag("PinnedBudgetError", () => Effect.succeed(false))
    )
  }
  let low = target.tokens
  let high = searchCeiling
  let answer: Option.Option<number> = Option.none()
  if (yield* holdsTarget(low)) {
    answer = Option.some(low)
  } else if (high > low) {
    while (high - low > 1) {
      const mid = low + Math.floor((high - low) / 2)
      if (yield* holdsTarget(mid)) high = mid
      else low = mid
    }
    if (yield* holdsTarget(high)) answer = Option.some(high)
  }
  yield* Effect.annotateCurrentSpan({ "cupel.simulation.dry_runs": runs })
  return answer
})

// ---------------------------------------------------------------------------------------------
// Policy sensitivity
// ---------------------------------------------------------------------------------------------

/**
 * One variant: a label and the strategies it runs with.
 *
 * @since 0.2.0
 * @category models
 */
export interface Variant<E = never, R = never> {
  readonly label: string
  readonly layer: Layer.Layer<Strategies, E, R>
}

/**
 * An item's status in one variant, with that variant's score and reason for it.
 *
 * @since 0.2.0
 * @category schemas
 */
export const VariantStatus = Schema.Union([
  Schema.Struct({
    label: Schema.String,
    status: Schema.Literal("Included"),
    score: Schema.Number,
    reason: InclusionReason
  }),
  Schema.Struct({
    label: Schema.String,
    status: Schema.Literal("Excluded"),
    score: Schema.Number,
    reason: ExclusionReason
  })
]).annotate({ identifier: "VariantStatus" })

/**
 * @since 0.2.0
 * @category models
 */
export type VariantStatus = typeof VariantStatus.Type

/**
 * An item that is in the window under some variants and out of it under others: its content
 * (the chapter's key), the item itself, and one status per variant, in the variants' order.
 *
 * @since 0.2.0
 * @category schemas
 */
export const SensitivityDiff = Schema.Struct({
  content: Schema.String,
  item: ContextItem,
  statuses: Schema.Array(VariantStatus)
}).annotate({ identifier: "SensitivityDiff" })

/**
 * @since 0.2.0
 * @category models
 */
export type SensitivityDiff = typeof SensitivityDiff.Type

/**
 * The outcome of {@link policySensitivity}: each variant's report, in the order given, and the
 * items that swing, in the order of the candidate items.
 *
 * @since 0.2.0
 * @category schemas
 */
export const PolicySensitivityReport = Schema.Struct({
  variants: Schema.Array(Schema.Struct({ label: Schema.String, report: SelectionReport })),
  diffs: Schema.Array(SensitivityDiff)
}).annotate({ identifier: "PolicySensitivityReport" })

/**
 * @since 0.2.0
 * @category models
 */
export type PolicySensitivityReport = typeof PolicySensitivityReport.Type

/**
 * Dry-runs the same items at the same budget under each variant's strategies, and lists the
 * items whose status differs between at least two variants, each with every variant's status,
 * score and reason.
 *
 * Items are matched by identity, which refines the chapter's content key: with distinct
 * contents the diffs are the chapter's; two items with equal content stay two entries, where a
 * content key would pool their statuses (and report a deduplicated twin as a swing). An item
 * object given twice counts as included in a variant when either copy is. The diffs follow the
 * candidates' order (the chapter leaves it open).
 *
 * Fails with {@link TooFewVariantsError} when fewer than two variants are given, and with a
 * variant's layer error or a run's error otherwise.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import {
 *   BudgetAnalysis, type ContextBudget, type ContextItem, GreedySlice, PriorityScorer, ReflexiveScorer,
 *   UShapedPlacer
 * } from "effect-cupel"
 *
 * declare const items: ReadonlyArray<ContextItem.ContextItem>
 * declare const budget: ContextBudget.ContextBudget
 *
 * const rest = Layer.mergeAll(GreedySlice.layer, UShapedPlacer.layer)
 * const comparison = BudgetAnalysis.policySensitivity(items, budget, [
 *   { label: "priority", layer: Layer.merge(PriorityScorer.layer, rest) },
 *   { label: "reflexive", layer: Layer.merge(ReflexiveScorer.layer, rest) }
 * ]) // report.diffs: the items the scorer choice moves in or out
 * ```
 *
 * @since 0.2.0
 * @category sensitivity
 */
export const policySensitivity = <E = never, R = never>(
  items: ReadonlyArray<ContextItem>,
  budget: ContextBudget,
  variants: ReadonlyArray<Variant<E, R>>,
  options?: Pipeline.Options
): Effect.Effect<PolicySensitivityReport, TooFewVariantsError | Pipeline.PipelineError | E, R> =>
  Effect.gen(function*() {
    if (variants.length < 2) return yield* new TooFewVariantsError({ variants: variants.length })
    const reports: Array<{ readonly label: string; readonly report: SelectionReport }> = []
    for (const variant of variants) {
      const report = yield* dryRun(items, budget, options).pipe(Effect.provide(variant.layer))
      reports.push({ label: variant.label, report })
    }
    return { variants: reports, diffs: swings(items, reports) }
  }).pipe(Effect.withSpan("BudgetAnalysis.policySensitivity"))

/**
 * The items whose status differs between variants. Linear in candidates × variants: each
 * report entry is placed by an identity lookup.
 */
const swings = (
  items: ReadonlyArray<ContextItem>,
  reports: ReadonlyArray<{ readonly label: string; readonly report: SelectionReport }>
): Array<SensitivityDiff> => {
  const position = new Map<ContextItem, number>()
  const distinct: Array<ContextItem> = []
  for (const item of items) {
    if (!position.has(item)) {
      position.set(item, distinct.length)
      distinct.push(item)
    }
  }
  const v = reports.length
  // statuses[i * v + k]: item i's status under variant k.
  const statuses = new Array<VariantStatus | undefined>(distinct.length * v)
  for (let k = 0; k < v; k++) {
    const { label, report } = reports[k]!
    for (const entry of report.included) {
      const i = position.get(entry.item)
      if (i !== undefined) {
        statuses[i * v + k] = { label, status: "Included", score: entry.score, reason: entry.reason }
      }
    }
    for (const entry of report.excluded) {
      const i = position.get(entry.item)
      // An included copy of the same object wins over an excluded one.
      if (i !== undefined && statuses[i * v + k] === undefined) {
        statuses[i * v + k] = { label, status: "Excluded", score: entry.score, reason: entry.reason }
      }
    }
  }
  const diffs: Array<SensitivityDiff> = []
  for (let i = 0; i < distinct.length; i++) {
    const row: Array<VariantStatus> = []
    let included = false
    let excluded = false
    for (let k = 0; k < v; k++) {
      const status = statuses[i * v + k]
      if (status === undefined) continue
      row.push(status)
      if (status.status === "Included") included = true
      else excluded = true
    }
    if (included && excluded) diffs.push({ content: distinct[i]!.content, item: distinct[i]!, statuses: row })
  }
  return diffs
}
