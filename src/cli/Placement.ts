/**
 * Placement: one run of `Place.place` for the command line, with the overflow events it caused
 * and the score each placed item carried.
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import * as Conformance from "../Conformance.ts"
import type { ContextItem } from "../ContextItem.ts"
import type { InvalidItemError } from "../InvalidItemError.ts"
import * as OverflowNotifier from "../OverflowNotifier.ts"
import type { OverflowEvent } from "../OverflowEvent.ts"
import type { OverflowStrategy } from "../OverflowStrategy.ts"
import * as Place from "../stages/Place.ts"
import * as PlaceResult from "../PlaceResult.ts"
import type { TokenTotalError } from "../TokenTotalError.ts"
import * as PlaceInput from "./PlaceInput.ts"

/**
 * A finished placement.
 *
 * - `events` — what the `OverflowNotifier` heard (one event under `proceed` when over budget).
 * - `scores` — the score each item entered the merge with (pinned items: 1.0); `result.placed`
 *   carries items only.
 *
 * @since 0.1.0
 * @category models
 */
export interface Placement {
  readonly placer: Conformance.PlacerName
  readonly result: PlaceResult.PlaceResult
  readonly events: ReadonlyArray<OverflowEvent>
  readonly scores: ReadonlyMap<ContextItem, number>
}

/**
 * Places an input with the named placer and strategy. The notifier records events rather than
 * logging them, so the caller reports them with the result.
 *
 * @since 0.1.0
 * @category running
 */
export const run: (
  input: PlaceInput.PlaceInput,
  placer: Conformance.PlacerName,
  strategy: OverflowStrategy
) => Effect.Effect<Placement, Place.PlaceError> = Effect.fn("cli.Placement.run")(function*(
  input: PlaceInput.PlaceInput,
  placer: Conformance.PlacerName,
  strategy: OverflowStrategy
) {
  yield* Effect.annotateCurrentSpan({ "cupel.placer": placer, "cupel.overflow.strategy": strategy })
  const { events, result } = yield* Effect.gen(function*() {
    const result = yield* Place.place({
      pinned: input.pinned,
      scored: input.scored,
      budget: input.budget,
      overflowStrategy: strategy
    })
    const events = yield* OverflowNotifier.OverflowNotifierTest.use((test) => test.events)
    return { result, events }
  }).pipe(Effect.provide(Layer.mergeAll(Conformance.placerLayer(placer), OverflowNotifier.layerTest)))
  const scores = new Map<ContextItem, number>()
  for (const item of input.pinned) scores.set(item, Place.pinnedScore)
  for (const { item, score } of input.scored) if (!scores.has(item)) scores.set(item, score)
  return { placer, result, events, scores }
})

/**
 * Whether a failed placement was refused for its input — an item that breaks a rule of
 * placement, or tokens that add up past `Number.MAX_SAFE_INTEGER` — so that a command reports
 * it as bad input (exit 2) rather than as an answer or a bug.
 *
 * @since 0.2.0
 * @category errors
 */
export const refusesInput = (error: Place.PlaceError): error is InvalidItemError | TokenTotalError =>
  error._tag === "InvalidItemError" || error._tag === "TokenTotalError"

/**
 * The JSON `cupel place` prints: the figures first, then the window and the exclusions in the
 * library's encoded form (exclusion reasons in the specification's wire envelope).
 *
 * @since 0.1.0
 * @category encoding
 */
export const toJson = (placement: Placement) =>
  PlaceResult.encode(placement.result).pipe(
    Effect.map((encoded) => {
      const event = placement.events[0]
      return {
        placer: placement.placer,
        overflowStrategy: encoded.overflowStrategy,
        targetTokens: encoded.targetTokens,
        mergedTokens: encoded.mergedTokens,
        totalTokens: encoded.totalTokens,
        overflowed: encoded.overflowed,
        tokensOverBudget: encoded.tokensOverBudget,
        overflowEvent: event === undefined
          ? null
          : { tokensOverBudget: event.tokensOverBudget, overflowingItems: event.overflowingItems.length },
        placed: encoded.placed,
        // An infinite score as the input spells it: JSON.stringify would write null.
        excluded: encoded.excluded.map((entry) =>
          Number.isFinite(entry.score) ? entry : { ...entry, score: PlaceInput.encodeScore(entry.score) }
        )
      }
    }),
    // Every value here was decoded or built by the library: failing to encode it is a bug.
    Effect.orDie
  )
