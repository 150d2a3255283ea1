/**
 * CountQuotaSlice: at least `requireCount` and at most `capCount` items of a kind, the rest
 * left to an inner slicer (spec `slicers/count-quota.md`).
 *
 * A decorator over another slicer, in three phases:
 *
 * 1. **Count-Satisfy** — for each entry with `requireCount > 0`, in configuration order, the
 *    best `requireCount` items of its kind (score descending) are committed, whatever their
 *    size; their tokens are taken off the budget. A kind with too few candidates is a
 *    *shortfall*: under `Degrade` (the default) it is reported in the selection (the pipeline
 *    puts it in its report's `countRequirementShortfalls`); under `Throw` the slice fails with
 *    a `CountRequirementError`.
 * 2. **Budget-Distribute** — the inner slicer gets the other items and the budget that is left
 *    (`targetTokens − committed tokens`, at least 0; `maxTokens` unchanged).
 * 3. **Cap Enforcement** — the inner slicer's items, in its order, are kept while their kind is
 *    under its `capCount` (committed items count); the others are excluded with the reason
 *    `CountCapExceeded`.
 *
 * Committed items are never dropped by a cap and never by the budget: required items that
 * together exceed the target are all selected (the chapter's pre-processing trade-off), and the
 * inner slicer then gets nothing to spend. KnapsackSlice cannot be the inner slicer (the
 * chapter forbids it); use CountConstrainedKnapsackSlice.
 *
 * @since 0.2.0
 */
import { Effect, Layer } from "effect"
import * as CountQuota from "./internal/countQuota.ts"
import { InvalidConfigError } from "../InvalidConfigError.ts"
import * as Slicer from "./Slicer.ts"
import * as KnapsackSlice from "./KnapsackSlice.ts"

/**
 * The slicer's name, as it appears in spans, reports and errors.
 *
 * @since 0.2.0
 * @category constants
 */
export const name = "count_quota"

/**
 * One kind's constraint. `kind` compares case-insensitively; `requireCount` (default 0) and
 * `capCount` (default: no cap) are non-negative integers with `requireCount ≤ capCount`.
 *
 * @since 0.2.0
 * @category models
 */
export interface Entry {
  readonly kind: string
  readonly requireCount?: number | undefined
  readonly capCount?: number | undefined
}

/**
 * What happens when a kind has fewer candidates than its `requireCount`: `"Degrade"` selects
 * what there is and reports the shortfall; `"Throw"` fails with `CountRequirementError`.
 *
 * @since 0.2.0
 * @category models
 */
export type ScarcityBehavior = "Degrade" | "Throw"

/**
 * Options of {@link make}.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  readonly inner: Slicer.Definition
  readonly entries: ReadonlyArray<Entry>
  readonly scarcity?: ScarcityBehavior | undefined
}

const component = "CountQuotaSlice"

/**
 * CountQuotaSlice over `inner`, or an {@link InvalidConfigError} naming the entry and the rule
 * it breaks: a count that is not a non-negative integer, `requireCount > capCount`, a zero cap
 * with a positive requirement, a kind configured twice (case-insensitively), a blank kind, an
 * unknown scarcity behavior, or a KnapsackSlice (`name === "knapsack"`) as the inner slicer.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { CountQuotaSlice, GreedySlice } from "effect-cupel"
 *
 * // At least two tool outputs and at most four; the rest by greedy density.
 * const slicer = CountQuotaSlice.make({
 *   inner: GreedySlice.make(),
 *   entries: [{ kind: "ToolOutput", requireCount: 2, capCount: 4 }]
 * })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<Slicer.Definition, InvalidConfigError> => {
  const inner = options.inner
  if (inner.name === KnapsackSlice.name) {
    return Effect.fail(
      new InvalidConfigError({
        component,
        path: "inner",
        rule: `must not be a KnapsackSlice (the count-quota chapter forbids it); use CountConstrainedKnapsackSlice ` +
          `for count quotas over a knapsack, or another inner slicer such as GreedySlice`
      })
    )
  }
  return Effect.map(
    CountQuota.validate(component, options.entries, options.scarcity ?? "Degrade"),
    (policy): Slicer.Definition => {
      const settings: CountQuota.Settings = {
        name,
        innerName: inner.name,
        policy,
        resortPhase2: false,
        inner: inner.slice
      }
      return { name, slice: (sorted, budget) => CountQuota.slice(settings, sorted, budget) }
    }
  )
}

/**
 * Provides CountQuotaSlice as the pipeline's slicer; building the layer fails with an
 * {@link InvalidConfigError} on invalid options.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<Slicer.Slicer, InvalidConfigError> =>
  Layer.effect(Slicer.Slicer, make(options))
