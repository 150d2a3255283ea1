/**
 * OverflowNotifier: the observer Place tells when it proceeds over budget.
 *
 * The specification leaves delivery of an `OverflowEvent` to the implementation. Here it is a
 * service, so the choice is a layer:
 *
 * - {@link layerLog} — a warning through Effect's logger (the usual choice);
 * - {@link layerPubSub} — events published to a `PubSub` that any fiber can subscribe to
 *   (see {@link OverflowEvents});
 * - {@link layerTest} — events recorded for assertions (see {@link OverflowNotifierTest});
 * - {@link layerNoop} — events dropped;
 * - {@link make} — your own handler.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, PubSub, Ref } from "effect"
import type { OverflowEvent } from "./OverflowEvent.ts"

/**
 * The overflow observer.
 *
 * @since 0.1.0
 * @category services
 */
export class OverflowNotifier extends Context.Service<OverflowNotifier, {
  readonly notify: (event: OverflowEvent) => Effect.Effect<void>
}>()("effect-cupel/OverflowNotifier") {}

/**
 * Makes a notifier layer from a handler.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { OverflowNotifier } from "effect-cupel"
 *
 * const Metrics = OverflowNotifier.make((event) =>
 *   Effect.sync(() => console.log(`over by ${event.tokensOverBudget}`))
 * )
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (notify: (event: OverflowEvent) => Effect.Effect<void>): Layer.Layer<OverflowNotifier> =>
  Layer.succeed(OverflowNotifier, OverflowNotifier.of({ notify }))

/**
 * Logs each overflow as a warning, with the figures as log annotations.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerLog: Layer.Layer<OverflowNotifier> = make((event) =>
  Effect.logWarning(
    `Context window over budget by ${event.tokensOverBudget} tokens ` +
      `(target ${event.budget.targetTokens}, ${event.overflowingItems.length} items); proceeding`
  ).pipe(
    Effect.annotateLogs({
      "cupel.tokens_over_budget": event.tokensOverBudget,
      "cupel.target_tokens": event.budget.targetTokens,
      "cupel.items": event.overflowingItems.length
    })
  )
)

/**
 * Drops every event.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerNoop: Layer.Layer<OverflowNotifier> = make(() => Effect.void)

/**
 * The stream of overflow events published by {@link layerPubSub}.
 *
 * @since 0.1.0
 * @category services
 */
export class OverflowEvents extends Context.Service<OverflowEvents, PubSub.PubSub<OverflowEvent>>()(
  "effect-cupel/OverflowNotifier/OverflowEvents"
) {}

/**
 * Publishes each event to an unbounded `PubSub`, provided as {@link OverflowEvents}. Subscribers
 * receive the events published after they subscribe.
 *
 * @example
 * ```ts
 * import { Effect, PubSub } from "effect"
 * import { OverflowNotifier } from "effect-cupel"
 *
 * const watch = Effect.gen(function*() {
 *   const events = yield* OverflowNotifier.OverflowEvents
 *   const subscription = yield* PubSub.subscribe(events)
 *   // … run placements; then
 *   const event = yield* PubSub.take(subscription)
 * })
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerPubSub: Layer.Layer<OverflowNotifier | OverflowEvents> = Layer.effect(
  OverflowNotifier,
  OverflowEvents.use((pubsub) =>
    Effect.succeed(OverflowNotifier.of({ notify: (event) => Effect.asVoid(PubSub.publish(pubsub, event)) })))
).pipe(Layer.provideMerge(Layer.effect(OverflowEvents, PubSub.unbounded<OverflowEvent>())))

/**
 * The events recorded by {@link layerTest}, oldest first.
 *
 * @since 0.1.0
 * @category services
 */
export class OverflowNotifierTest extends Context.Service<OverflowNotifierTest, {
  readonly events: Effect.Effect<ReadonlyArray<OverflowEvent>>
  readonly clear: Effect.Effect<void>
}>()("effect-cupel/OverflowNotifier/OverflowNotifierTest") {}

/**
 * Records every event; read them through {@link OverflowNotifierTest}.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerTest: Layer.Layer<OverflowNotifier | OverflowNotifierTest> = Layer.effectContext(
  Effect.map(Ref.make<ReadonlyArray<OverflowEvent>>([]), (ref) =>
    Context.make(OverflowNotifier, OverflowNotifier.of({ notify: (event) => Ref.update(ref, (all) => [...all, event]) }))
      .pipe(Context.add(OverflowNotifierTest, OverflowNotifierTest.of({ events: Ref.get(ref), clear: Ref.set(ref, []) }))))
)
