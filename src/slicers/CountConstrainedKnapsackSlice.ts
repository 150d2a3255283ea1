/**
 * CountConstrainedKnapsackSlice: count quotas per kind over a knapsack (spec
 * `slicers/count-constrained-knapsack.md`).
 *
 * The three phases of CountQuotaSlice, with KnapsackSlice built in as Phase 2:
 *
 * 1. **Count-Satisfy** — for each entry with `requireCount > 0`, in configuration order, the
 *    best `requireCount` items of its kind are committed and their tokens taken off the budget;
 *    a kind with too few candidates is a shortfall (`Degrade`: reported; `Throw`: the slice
 *    fails with `CountRequirementError`).
 * 2. **Knapsack-Distribute** — KnapsackSlice (its bucket size and table limit) selects from the
 *    other items within the budget that is left; its output is then re-sorted by score,
 *    descending and stable (D180), so that the caps keep the best items.
 * 3. **Cap Enforcement** — counts start from Phase 1's commitments (D181); an item whose kind
 *    is at its `capCount` is excluded with the reason `CountCapExceeded`.
 *
 * The knapsack is KnapsackSlice's own `select`: the same discretisation, DP and limits.
 *
 * @since 0.2.0
 */
import { Effect, Layer } from "effect"
import * as CountQuota from "./internal/countQuota.ts"
import { InvalidConfigError } from "../InvalidConfigError.ts"
import * as Slicer from "./Slicer.ts"
import { SlicerError } from "./SlicerError.ts"
import type { Entry, ScarcityBehavior } from "./CountQuotaSlice.ts"
import * as KnapsackSlice from "./KnapsackSlice.ts"

/**
 * The slicer's name, as it appears in spans, reports and errors.
 *
 * @since 0.2.0
 * @category constants
 */
export const name = "count_constrained_knapsack"

/**
 * Options of {@link make}: the count-quota entries and scarcity behavior (as for
 * CountQuotaSlice), and the knapsack's `bucketSize` (default 100) and `maxCells` (default
 * `KnapsackSlice.defaultMaxCells`).
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  readonly entries: ReadonlyArray<Entry>
  readonly scarcity?: ScarcityBehavior | undefined
  readonly bucketSize?: number | undefined
  readonly maxCells?: number | undefined
}

const component = "CountConstrainedKnapsackSlice"

/**
 * CountConstrainedKnapsackSlice, or an {@link InvalidConfigError} naming the option and the
 * rule it breaks: the entries' rules (as for CountQuotaSlice), an unknown scarcity behavior,
 * or KnapsackSlice's (`bucketSize` a positive integer, `maxCells` an integer from 1 to
 * `KnapsackSlice.maxMaxCells`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { CountConstrainedKnapsackSlice } from "effect-cupel"
 *
 * const slicer = CountConstrainedKnapsackSlice.make({
 *   entries: [{ kind: "ToolOutput", requireCount: 1, capCount: 2 }],
 *   bucketSize: 50
 * })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<Slicer.Definition, InvalidConfigError> =>
  Effect.gen(function*() {
    const config = yield* KnapsackSlice.validate({ bucketSize: options.bucketSize, maxCells: options.maxCells }).pipe(
      Effect.mapError((error) => new InvalidConfigError({ component, path: error.path, rule: error.rule }))
    )
    const policy = yield* CountQuota.validate(component, options.entries, options.scarcity ?? "Degrade")
    const settings: CountQuota.Settings = {
      name,
      innerName: KnapsackSlice.name,
      policy,
      resortPhase2: true,
      inner: (residual, budget) =>
        Effect.suspend(() => {
          const selected = KnapsackSlice.select(residual, budget.targetTokens, config)
          return selected instanceof SlicerError
            ? Effect.fail(
              new SlicerError({
                slicer: name,
                reason: `its knapsack phase: ${selected.reason}`,
                ...(selected.cause === undefined ? {} : { cause: selected.cause })
              })
            )
            : Effect.succeed({ selected })
        })
    }
    return { name, slice: (sorted, budget) => CountQuota.slice(settings, sorted, budget) }
  })

/**
 * Provides CountConstrainedKnapsackSlice as the pipeline's slicer; building the layer fails
 * with an {@link InvalidConfigError} on invalid options.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<Slicer.Slicer, InvalidConfigError> =>
  Layer.effect(Slicer.Slicer, make(options))
