/**
 * ReportMetrics: three figures read off a `SelectionReport` — how much of the budget the window
 * uses, how many kinds it holds, and how much of it is dated.
 *
 * The definitions are the specification's (`testing/vocabulary.md` PD-2 for the utilization's
 * denominator; the .NET `SelectionReportExtensions` and Rust `analytics` modules for the other
 * two). Only the `included` list is read; a report decoded from JSON is as good as one from a run.
 *
 * @since 0.2.0
 */
import { Effect } from "effect"
import type { ContextBudget } from "./ContextBudget.ts"
import * as ContextKind from "./ContextKind.ts"
import type { IncludedItem } from "./IncludedItem.ts"
import { sumTokens } from "./internal/tokens.ts"
import { InvalidConfigError } from "./InvalidConfigError.ts"
import { TokenTotalError } from "./TokenTotalError.ts"

/**
 * What the metrics read: a report's `included` list (a `SelectionReport` is one).
 *
 * @since 0.2.0
 * @category models
 */
export interface Included {
  readonly included: ReadonlyArray<IncludedItem>
}

/**
 * The tokens of the included items over `budget.maxTokens` — not `targetTokens`, which is the
 * slicer's soft goal (spec PD-2). Above 1 when a `Proceed` run went over the budget.
 *
 * The total is exact or a {@link TokenTotalError}: a report decoded from untrusted JSON may hold
 * token counts whose sum leaves the safe integers. A window of 0 tokens (an empty one included)
 * uses 0 of any budget, a zero one too. A window holding tokens has no utilization of a zero
 * budget: the specification defines the metric only for `maxTokens > 0` (it forbids a zero
 * `ContextBudget`, which this library allows), and `total / 0` would be an `Infinity` that
 * sorts, averages and encodes to JSON (as `null`) as no ratio does. That case fails with an
 * {@link InvalidConfigError} naming `budget.maxTokens`, for the caller to show as "not
 * applicable".
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { type ContextBudget, type ContextItem, Pipeline, ReportMetrics } from "effect-cupel"
 *
 * declare const items: ReadonlyArray<ContextItem.ContextItem>
 * declare const budget: ContextBudget.ContextBudget
 *
 * const used = Effect.gen(function*() {
 *   const { report } = yield* Pipeline.run(items, budget)
 *   return yield* ReportMetrics.budgetUtilization(report, budget) // 0.73: 73% of maxTokens
 * })
 * ```
 *
 * @since 0.2.0
 * @category metrics
 */
export const budgetUtilization = (
  report: Included,
  budget: ContextBudget
): Effect.Effect<number, TokenTotalError | InvalidConfigError> => {
  const sum = sumTokens(report.included, (entry) => entry.item.tokens)
  if (!sum.ok) return Effect.fail(new TokenTotalError({ what: "included items", count: sum.count }))
  if (sum.total === 0) return Effect.succeed(0)
  if (budget.maxTokens === 0) {
    return Effect.fail(
      new InvalidConfigError({
        component: "ReportMetrics.budgetUtilization",
        path: "budget.maxTokens",
        rule: `must be positive to measure a window of ${sum.total} tokens against it (got 0)`
      })
    )
  }
  return Effect.succeed(sum.total / budget.maxTokens)
}

/**
 * How many distinct kinds the included items have; 0 for an empty window. Kinds compare
 * case-insensitively, as everywhere in the specification: `"message"` and `"Message"` are one.
 *
 * @since 0.2.0
 * @category metrics
 */
export const kindDiversity = (report: Included): number => {
  const kinds = new Set<string>()
  for (const entry of report.included) kinds.add(ContextKind.fold(entry.item.kind))
  return kinds.size
}

/**
 * The fraction of included items that carry a timestamp: 1 when all do, 0 when none do, and 0
 * for an empty window (rather than the NaN of 0 / 0).
 *
 * @since 0.2.0
 * @category metrics
 */
export const timestampCoverage = (report: Included): number => {
  const n = report.included.length
  if (n === 0) return 0
  let dated = 0
  for (const entry of report.included) if (entry.item.timestamp !== undefined) dated++
  return dated / n
}
