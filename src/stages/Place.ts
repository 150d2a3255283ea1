/**
 * Place: Stage 6 of the Cupel pipeline.
 *
 * Merges pinned items (at score 1.0) with the sliced scored items, checks the merged tokens
 * against `budget.targetTokens`, applies the overflow strategy, and hands the list to the
 * `Placer` service for the final order.
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import type { ContextBudget } from "../ContextBudget.ts"
import type { ContextItem } from "../ContextItem.ts"
import type { ExcludedItem } from "../ExcludedItem.ts"
import * as ExclusionReason from "../ExclusionReason.ts"
import { InvalidItemError, type InvalidItemProblem } from "../InvalidItemError.ts"
import { OverflowError } from "../OverflowError.ts"
import * as OverflowNotifier from "../OverflowNotifier.ts"
import type { OverflowStrategy } from "../OverflowStrategy.ts"
import * as Placer from "../placers/Placer.ts"
import type { PlacerContractError } from "../placers/PlacerContractError.ts"
import type { PlacerError } from "../placers/PlacerError.ts"
import type { PlaceResult } from "../PlaceResult.ts"
import type { ScoredItem } from "../ScoredItem.ts"
import { TokenTotalError } from "../TokenTotalError.ts"
import * as HotSpans from "../internal/hotSpans.ts"
import { isSafeTotal } from "../internal/tokens.ts"
import * as UShapedPlacer from "../placers/UShapedPlacer.ts"

/**
 * The inputs of a placement.
 *
 * - `pinned` — items that are always included; they enter the merge first, at score 1.0.
 *   Being in this list is what makes an item pinned here, whatever its `pinned` flag says.
 * - `scored` — the sliced items with their scores, in the slicer's order (score descending when
 *   they come from the Cupel pipeline: Truncate keeps from the front).
 * - `budget` — overflow is checked against `budget.targetTokens`.
 * - `overflowStrategy` — `"Throw"` (default), `"Truncate"` or `"Proceed"`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly pinned?: ReadonlyArray<ContextItem> | undefined
  readonly scored?: ReadonlyArray<ScoredItem> | undefined
  readonly budget: ContextBudget
  readonly overflowStrategy?: OverflowStrategy | undefined
}

/**
 * Every way a placement can fail.
 *
 * @since 0.1.0
 * @category errors
 */
export type PlaceError = OverflowError | InvalidItemError | TokenTotalError | PlacerError | PlacerContractError

/**
 * The score pinned items carry into the merge.
 *
 * @since 0.1.0
 * @category constants
 */
export const pinnedScore = 1.0

/**
 * Places the context window.
 *
 * 1. Checks every item: token counts must be non-negative integers, scores must not be NaN,
 *    and no scored item may be marked `pinned` (`InvalidItemError` names the offender).
 * 2. Merges: pinned items first at score 1.0, then the scored items in their given order.
 *    The token total must stay exact: when the pinned items, or the merged items, add up past
 *    `Number.MAX_SAFE_INTEGER`, Place fails with `TokenTotalError` (whatever the strategy),
 *    since no total, overflow check or truncation could then be trusted.
 * 3. If the merged tokens exceed `budget.targetTokens`:
 *    - `Throw` fails with `OverflowError`;
 *    - `Truncate` keeps every pinned item and the other items from the front while they fit,
 *      recording each dropped one as `PinnedOverride` (when pinned items are present) or
 *      `BudgetExceeded` (with its tokens and the tokens still available);
 *    - `Proceed` keeps everything and calls the `OverflowNotifier` once.
 * 4. Orders the kept items with the `Placer`. A custom placer made with `Placer.make`,
 *    `Placer.makeEffect` or `Placer.fromOrder` is checked to return exactly those items
 *    (`PlacerContractError` if not).
 *
 * Inputs are never modified. Runs in the span `Place.place`, annotated with item counts,
 * tokens, strategy and overflow.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { ContextBudget, ContextItem, OverflowNotifier, Place, UShapedPlacer } from "effect-cupel"
 *
 * const system = new ContextItem.ContextItem({ content: "You are terse.", tokens: 5, pinned: true })
 * const doc = new ContextItem.ContextItem({ content: "Paris is the capital of France.", tokens: 8 })
 *
 * const program = Place.place({
 *   pinned: [system],
 *   scored: [{ item: doc, score: 0.8 }],
 *   budget: new ContextBudget.ContextBudget({ maxTokens: 100, targetTokens: 50 }),
 *   overflowStrategy: "Truncate"
 * })
 *
 * const result = await Effect.runPromise(
 *   program.pipe(Effect.provide(Layer.mergeAll(UShapedPlacer.layer, OverflowNotifier.layerLog)))
 * )
 * ```
 *
 * @since 0.1.0
 * @category placing
 */
export const place: (
  options: Options
) => Effect.Effect<PlaceResult, PlaceError, Placer.Placer | OverflowNotifier.OverflowNotifier> = Effect.fnUntraced(function*(options: Options) {
  const pinned = options.pinned ?? []
  const scored = options.scored ?? []
  const budget = options.budget
  const overflowStrategy = options.overflowStrategy ?? "Throw"
  const targetTokens = budget.targetTokens

  // Refuse what the specification's earlier stages would never let through, while merging.
  const pinnedCount = pinned.length
  // Without pinned items the merged list is the scored list itself: no copy.
  const mergedCopy = pinnedCount === 0 ? undefined : new Array<ScoredItem>(pinnedCount + scored.length)
  const merged: ReadonlyArray<ScoredItem> = mergedCopy ?? scored
  const scan = mergeAndCount(pinned, scored, mergedCopy)
  if (!scan.ok) return yield* Effect.fail(scan.error)
  // Every total below is exact from here on: the merged total is a safe integer, the kept
  // items are some of the merged ones (none negative), and each difference is of two safe
  // non-negative integers.
  const mergedTokens = scan.mergedTokens

  const overflowed = mergedTokens > targetTokens
  yield* Effect.annotateCurrentSpan({
    "cupel.pinned.count": pinnedCount,
    "cupel.scored.count": scored.length,
    "cupel.merged.tokens": mergedTokens,
    "cupel.target.tokens": targetTokens,
    "cupel.overflow.strategy": overflowStrategy,
    "cupel.overflow": overflowed
  })

  let kept: ReadonlyArray<ScoredItem> = merged
  let excluded: ReadonlyArray<ExcludedItem> = []
  let totalTokens = mergedTokens
  if (overflowed) {
    switch (overflowStrategy) {
      case "Throw":
        return yield* new OverflowError({
          mergedTokens,
          targetTokens,
          tokensOverBudget: mergedTokens - targetTokens
        })
      case "Truncate": {
        const truncated = truncate(merged, pinnedCount, targetTokens, pinnedCount > 0 ? pinned[0] : undefined)
        if (!truncated.ok) return yield* Effect.fail(truncated.error)
        kept = truncated.kept
        excluded = truncated.excluded
        totalTokens = truncated.tokens
        break
      }
      case "Proceed": {
        const notifier = yield* OverflowNotifier.OverflowNotifier
        const overflowingItems = new Array<ContextItem>(merged.length)
        for (let i = 0; i < merged.length; i++) overflowingItems[i] = merged[i]!.item
        yield* notifier.notify({ tokensOverBudget: mergedTokens - targetTokens, overflowingItems, budget })
        break
      }
    }
  }

  const placed = yield* Placer.place(kept)
  const tokensOverBudget = totalTokens > targetTokens ? totalTokens - targetTokens : 0
  yield* Effect.annotateCurrentSpan({
    "cupel.placed.count": placed.length,
    "cupel.excluded.count": excluded.length,
    "cupel.placed.tokens": totalTokens,
    "cupel.tokens_over_budget": tokensOverBudget
  })
  return {
    placed,
    excluded,
    totalTokens,
    mergedTokens,
    targetTokens,
    overflowStrategy,
    overflowed,
    tokensOverBudget
  } satisfies PlaceResult
}, HotSpans.withSpan("Place.place"))

/** What the validation pass found: the merged tokens, or the first reason Place must refuse. */
type Scan =
  | { readonly ok: true; readonly mergedTokens: number }
  | { readonly ok: false; readonly error: InvalidItemError | TokenTotalError }

/**
 * Validation, merge and token sum: one pass over each list. A plain function rather than part
 * of the generator above, where V8 keeps the running sum boxed (an allocation per item) and
 * optimises the loop less well.
 */
const mergeAndCount = (
  pinned: ReadonlyArray<ContextItem>,
  scored: ReadonlyArray<ScoredItem>,
  mergedCopy: Array<ScoredItem> | undefined
): Scan => {
  const pinnedCount = pinned.length
  let mergedTokens = 0
  for (let i = 0; mergedCopy !== undefined && i < pinnedCount; i++) {
    const item = pinned[i]!
    const problem = tokenProblem(item.tokens)
    if (problem !== undefined) return invalid(problem, "pinned", i, item)
    mergedTokens += item.tokens
    if (!isSafeTotal(mergedTokens)) return tooManyTokens("pinned items", i + 1)
    mergedCopy[i] = { item, score: pinnedScore }
  }
  const n = scored.length
  let i = 0
  // Four items at a time, every load issued before any check: once the items outgrow the
  // caches each is a cache miss or two away, and overlapping four items' misses measured about
  // 2.6 ns per item faster at a million items (no different at 10,000). A block with any
  // problem is checked again item by item below, so the first problem is the one reported.
  for (; i + 4 <= n; i += 4) {
    const ea = scored[i]!
    const eb = scored[i + 1]!
    const ec = scored[i + 2]!
    const ed = scored[i + 3]!
    const a = ea.item
    const b = eb.item
    const c = ec.item
    const d = ed.item
    const ta = a.tokens
    const tb = b.tokens
    const tc = c.tokens
    const td = d.tokens
    if (
      !(validTokens(ta) && validTokens(tb) && validTokens(tc) && validTokens(td)) ||
      !(validScore(ea.score) && validScore(eb.score) && validScore(ec.score) && validScore(ed.score)) ||
      a.pinned || b.pinned || c.pinned || d.pinned
    ) break
    // One check per block is as good as one after each addition. The total before the block
    // is safe and each count is a safe non-negative integer. While the exact partial sums stay
    // at or below MAX_SAFE_INTEGER they are doubles themselves, so no addition rounds; once one
    // reaches 2^53 (a double too), rounding to nearest cannot take it back below 2^53, and
    // adding non-negative counts cannot either. So the block's total is safe exactly when every
    // partial sum was, and then it is exact; five safe integers stay far from Infinity. A block
    // that leaves the safe range is walked again item by item below, which finds the count.
    const total = mergedTokens + ta + tb + tc + td
    if (!isSafeTotal(total)) break
    mergedTokens = total
    if (mergedCopy !== undefined) {
      mergedCopy[pinnedCount + i] = ea
      mergedCopy[pinnedCount + i + 1] = eb
      mergedCopy[pinnedCount + i + 2] = ec
      mergedCopy[pinnedCount + i + 3] = ed
    }
  }
  for (; i < n; i++) {
    const entry = scored[i]!
    const item = entry.item
    const problem = tokenProblem(item.tokens)
    if (problem !== undefined) return invalid(problem, "scored", i, item)
    if (!validScore(entry.score)) return invalid("InvalidScore", "scored", i, item, entry.score)
    // Pinned items bypass scoring and slicing; one in the scored list is a caller's mistake,
    // and Truncate's order-dependent walk would give it a meaning no caller intends.
    if (item.pinned) return invalid("PinnedInScored", "scored", i, item)
    mergedTokens += item.tokens
    if (!isSafeTotal(mergedTokens)) return tooManyTokens("merged items", pinnedCount + i + 1)
    if (mergedCopy !== undefined) mergedCopy[pinnedCount + i] = entry
  }
  return { ok: true, mergedTokens }
}

/** The rule of {@link tokenProblem}, as a yes or no for the four-at-a-time loop. */
const validTokens = (tokens: number): boolean => tokenProblem(tokens) === undefined

const validScore = (score: number): boolean => typeof score === "number" && !Number.isNaN(score)

const tokenProblem = (tokens: number): "NegativeTokens" | "NonIntegerTokens" | undefined =>
  !Number.isSafeInteger(tokens) ? "NonIntegerTokens" : tokens < 0 ? "NegativeTokens" : undefined

const invalid = (
  problem: InvalidItemProblem,
  list: "pinned" | "scored",
  index: number,
  item: ContextItem,
  score?: number
): Scan => ({
  ok: false,
  error: score === undefined
    ? new InvalidItemError({ problem, list, index, content: item.content, tokens: item.tokens })
    : new InvalidItemError({ problem, list, index, content: item.content, tokens: item.tokens, score })
})

const tooManyTokens = (what: string, count: number): { readonly ok: false; readonly error: TokenTotalError } => ({
  ok: false,
  error: new TokenTotalError({ what, count })
})

/**
 * The specification's Truncate: walk the merged list from the front, keep pinned items always
 * and other items while they fit in `targetTokens`.
 */
const truncate = (
  merged: ReadonlyArray<ScoredItem>,
  pinnedCount: number,
  targetTokens: number,
  firstPinned: ContextItem | undefined
):
  | { readonly ok: true; readonly kept: Array<ScoredItem>; readonly excluded: Array<ExcludedItem>; readonly tokens: number }
  | { readonly ok: false; readonly error: TokenTotalError } =>
{
  const kept: Array<ScoredItem> = []
  const excluded: Array<ExcludedItem> = []
  const pinnedOverride = firstPinned === undefined ? undefined : ExclusionReason.pinnedOverride(firstPinned.content)
  let tokens = 0
  for (let i = 0; i < merged.length; i++) {
    const entry = merged[i]!
    const itemTokens = entry.item.tokens
    if (i < pinnedCount || tokens + itemTokens <= targetTokens) {
      kept.push(entry)
      tokens += itemTokens
      // The kept items are some of the merged ones, whose total was checked: this cannot fire
      // on Place's own input. It is kept so that this walk, like every token sum of the
      // library, holds its own total to the rule whatever list it is given.
      if (!isSafeTotal(tokens)) return tooManyTokens("kept items", kept.length)
    } else {
      excluded.push({
        item: entry.item,
        score: entry.score,
        reason: pinnedOverride ?? ExclusionReason.budgetExceeded(itemTokens, targetTokens - tokens)
      })
    }
  }
  return { ok: true, kept, excluded, tokens }
}

/**
 * The layers most programs start with: the U-shaped placer and a notifier that logs overflow
 * as a warning.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerDefault: Layer.Layer<Placer.Placer | OverflowNotifier.OverflowNotifier> = Layer.mergeAll(
  UShapedPlacer.layer,
  OverflowNotifier.layerLog
)
