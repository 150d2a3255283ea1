/**
 * Slicer: which scored items fit the budget (Stage 5 of the pipeline).
 *
 * The specification's slicer is a function `Slice(sorted, budget) -> ContextItem[]` returning a
 * subset of its input. effect-cupel's slicers answer with the *indices* of the selected items in
 * the sorted list they were given — no identity lookups are needed to find their scores again —
 * and may explain an exclusion themselves (a quota's cap, say) with a data-carrying reason.
 *
 * A slicer is a plain value ({@link Definition}) so that slicers compose (quota slicers wrap an
 * inner slicer). The pipeline asks for the {@link Slicer} service, and {@link layer} turns a
 * slicer value into it.
 *
 * @since 0.2.0
 */
import { Context, Effect, Layer } from "effect"
import type { ContextItem } from "../ContextItem.ts"
import type { CountRequirementError } from "../CountRequirementError.ts"
import type { CountRequirementShortfall } from "../CountRequirementShortfall.ts"
import type { ExclusionReason } from "../ExclusionReason.ts"
import { describeThrown } from "../internal/describeThrown.ts"
import type { ScoredItem } from "../ScoredItem.ts"
import { SlicerContractError } from "./SlicerContractError.ts"
import { SlicerError } from "./SlicerError.ts"

/**
 * The budget a slicer fills: the pipeline's *effective* budget, with output reserve, pinned
 * items, reserved slots and safety margin already taken off (spec `pipeline/slice.md`).
 * A `ContextBudget` is one too.
 *
 * @since 0.2.0
 * @category models
 */
export interface Budget {
  readonly maxTokens: number
  readonly targetTokens: number
}

/**
 * What a slicer selected.
 *
 * - `selected` — the indices, in the sorted input, of the selected items, in the slicer's own
 *   order (the placer decides the final one). No index twice.
 * - `reasons` — optional: for excluded indices, the reason the slicer gives (a quota's cap, for
 *   example). Excluded items without one are reported as the pipeline's default,
 *   `BudgetExceeded` (or `PinnedOverride` when pinned items took the room).
 * - `shortfalls` — optional: kinds whose required count could not be met (count quotas under
 *   the `Degrade` scarcity rule); the pipeline puts them in its report.
 *
 * @since 0.2.0
 * @category models
 */
export interface Selection {
  readonly selected: ArrayLike<number>
  readonly reasons?: ReadonlyMap<number, ExclusionReason> | undefined
  readonly shortfalls?: ReadonlyArray<CountRequirementShortfall> | undefined
}

/**
 * The sorted list's numbers as typed arrays, which the pipeline hands its slicer alongside the
 * entries: `scores[k]` is `sorted[k].score` and `tokens[k]` is `sorted[k].item.tokens`, for
 * every `k`.
 *
 * The entries are in score order, and their items lie in memory in the order they were made,
 * so reading `sorted[k].item.tokens` for every `k` visits the items at random: at a million
 * candidates, a cache miss per entry and most of a slicer's time. The columns are read in
 * sequence. A slicer may use them or ignore them, and must give the same answer either way;
 * called without them (on its own, or by a slicer that wraps it), it reads the entries. They
 * are read only: the pipeline reads them again for its report.
 *
 * @since 0.2.0
 * @category models
 */
export interface Columns {
  readonly scores: Float64Array
  readonly tokens: Float64Array
}

/**
 * Every way a slicer can fail.
 *
 * @since 0.2.0
 * @category errors
 */
export type SliceError = SlicerError | SlicerContractError | CountRequirementError

/**
 * A slicer as a value.
 *
 * - `name` — for spans, reports and error messages.
 * - `slice(sorted, budget, columns?)` — `sorted` is score-descending (stable); returns a
 *   {@link Selection}. The pipeline also passes `columns`, the entries' numbers as typed arrays
 *   ({@link Columns}), which a slicer may read instead of the entries.
 *
 * @since 0.2.0
 * @category models
 */
export interface Definition {
  readonly name: string
  readonly slice: (
    sorted: ReadonlyArray<ScoredItem>,
    budget: Budget,
    columns?: Columns | undefined
  ) => Effect.Effect<Selection, SliceError>
}

/**
 * The slicer service the pipeline uses.
 *
 * @since 0.2.0
 * @category services
 */
export class Slicer extends Context.Service<Slicer, Definition>()("effect-cupel/Slicer") {}

/**
 * Provides a slicer value as the pipeline's slicer.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (slicer: Definition): Layer.Layer<Slicer> => Layer.succeed(Slicer, slicer)

/**
 * Slices with the current slicer.
 *
 * @since 0.2.0
 * @category accessors
 */
export const slice = (
  sorted: ReadonlyArray<ScoredItem>,
  budget: Budget,
  columns?: Columns | undefined
): Effect.Effect<Selection, SliceError, Slicer> =>
  Slicer.use((slicer) => slicer.slice(sorted, budget, columns))

/**
 * A custom slicer in the specification's shape: given the sorted scored items and the effective
 * budget, return the selected items (the same objects). The result is checked to be a subset
 * of the input — matched by identity, an item given twice may be returned twice — and a
 * function that throws makes the slice fail with a {@link SlicerError} naming the slicer.
 *
 * @example
 * ```ts
 * import { Slicer } from "effect-cupel"
 *
 * // The best three items, whatever their size.
 * const topThree = Slicer.make("top-three", (sorted) => sorted.slice(0, 3).map((s) => s.item))
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (
  name: string,
  slice: (sorted: ReadonlyArray<ScoredItem>, budget: Budget) => ReadonlyArray<ContextItem>
): Definition => ({
  name,
  slice: (sorted, budget) =>
    Effect.suspend((): Effect.Effect<Selection, SlicerError | SlicerContractError> => {
      let items: ReadonlyArray<ContextItem>
      try {
        items = slice(sorted, budget)
      } catch (cause) {
        return Effect.fail(thrown(name, cause))
      }
      return indicesOfItems(name, sorted, items)
    })
})

/**
 * A custom slicer that answers with indices into the sorted list (the fast shape). The indices
 * are checked: each must be an index of the input, and none may repeat.
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromIndices = (
  name: string,
  slice: (sorted: ReadonlyArray<ScoredItem>, budget: Budget) => ArrayLike<number>
): Definition => ({
  name,
  slice: (sorted, budget) =>
    Effect.suspend((): Effect.Effect<Selection, SlicerError | SlicerContractError> => {
      let selected: ArrayLike<number>
      try {
        selected = slice(sorted, budget)
      } catch (cause) {
        return Effect.fail(thrown(name, cause))
      }
      return checkIndices(name, sorted.length, selected)
    })
})

/**
 * Checks that `selected` holds distinct indices below `n`, and wraps it as a selection. A
 * violation is a {@link SlicerContractError} naming the slicer `name` and the position in
 * `selected`; a slicer that wraps another (a quota) checks its inner slicer's answer with the
 * inner slicer's name and the length of the list it gave it.
 *
 * @since 0.2.0
 * @category utils
 */
export const checkIndices = (
  name: string,
  n: number,
  selected: ArrayLike<number>
): Effect.Effect<Selection, SlicerContractError> => {
  const seen = new Uint8Array(n)
  for (let k = 0; k < selected.length; k++) {
    const index = selected[k]!
    // `index >>> 0 === index` admits exactly the integers 0 … 2^32-1; the bound does the rest.
    if (index >>> 0 !== index || index >= n) return contract(name, "UnknownItem", k)
    if (seen[index] === 1) return contract(name, "RepeatedItem", k)
    seen[index] = 1
  }
  return Effect.succeed({ selected })
}

/** Turns a slicer's items back into indices of the sorted input, matching by identity. */
const indicesOfItems = (
  name: string,
  sorted: ReadonlyArray<ScoredItem>,
  items: ReadonlyArray<ContextItem>
): Effect.Effect<Selection, SlicerContractError> => {
  // For each item, the input indices not yet used, lowest last (popped first).
  const positions = new Map<ContextItem, Array<number>>()
  for (let i = sorted.length - 1; i >= 0; i--) {
    const item = sorted[i]!.item
    const list = positions.get(item)
    if (list === undefined) positions.set(item, [i])
    else list.push(i)
  }
  const selected = new Array<number>(items.length)
  for (let k = 0; k < items.length; k++) {
    const list = positions.get(items[k]!)
    if (list === undefined) return contract(name, "UnknownItem", k)
    const index = list.pop()
    if (index === undefined) return contract(name, "RepeatedItem", k)
    selected[k] = index
  }
  return Effect.succeed({ selected })
}

const contract = (slicer: string, violation: "UnknownItem" | "RepeatedItem", position: number) =>
  Effect.fail(new SlicerContractError({ slicer, violation, position }))

const thrown = (slicer: string, cause: unknown): SlicerError =>
  new SlicerError({ slicer, reason: `it threw: ${describeThrown(cause)}`, cause })
