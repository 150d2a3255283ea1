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
 * token counts whose sum leaves the safe integers. An empty window uses 0 of any budget, a
 * zero one included; some tokens over a zero budget are `Infinity`, as IEEE-754 division has it
 * (the specification forbids `maxTokens` 0; this library's `ContextBudget` allows it).
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
): Effect.Effect<number, TokenTotalError> => {
  const sum = sumTokens(report.included, (entry) => entry.item.tokens)
  if (!sum.ok) return Effect.fail(new TokenTotalError({ what: "included items", count: sum.count }))
  return Effect.succeed(sum.total === 0 ? 0 : sum.total / budget.maxTokens)
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
