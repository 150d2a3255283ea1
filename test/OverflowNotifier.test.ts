import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Logger, PubSub } from "effect"
import { ContextBudget, OverflowNotifier, Place, UShapedPlacer } from "../src/index.ts"
import { scored } from "./support/items.ts"

const overflowing = Place.place({
  scored: [scored("a", 0.9, { tokens: 60 }), scored("b", 0.1, { tokens: 60 })],
  budget: new ContextBudget.ContextBudget({ maxTokens: 200, targetTokens: 100 }),
  overflowStrategy: "Proceed"
})

describe("OverflowNotifier", () => {
  it.effect("layerLog writes one warning with the figures", () => {
    const logs: Array<{ level: string; message: unknown; annotations: Readonly<Record<string, unknown>> }> = []
    const capture = Logger.make((options) => {
      logs.push({ level: options.logLevel, message: options.message, annotations: {} })
    })
    return Effect.gen(function*() {
      yield* overflowing
      assert.strictEqual(logs.length, 1)
      assert.strictEqual(logs[0]!.level, "Warn")
      assert.include(String(logs[0]!.message), "over budget by 20 tokens")
      assert.include(String(logs[0]!.message), "target 100")
    }).pipe(Effect.provide(Layer.mergeAll(UShapedPlacer.layer, OverflowNotifier.layerLog, Logger.layer([capture]))))
  })

  it.effect("layerPubSub publishes each event to subscribers", () =>
    Effect.gen(function*() {
      const events = yield* OverflowNotifier.OverflowEvents
      const subscription = yield* PubSub.subscribe(events)
      yield* overflowing
      yield* overflowing
      const first = yield* PubSub.take(subscription)
      const second = yield* PubSub.take(subscription)
      assert.strictEqual(first.tokensOverBudget, 20)
      assert.deepStrictEqual(first.overflowingItems.map((i) => i.content), ["a", "b"])
      assert.strictEqual(second.tokensOverBudget, 20)
    }).pipe(Effect.provide(Layer.mergeAll(UShapedPlacer.layer, OverflowNotifier.layerPubSub))))

  it.effect("layerPubSub delivers to a subscriber in another fiber", () =>
    Effect.gen(function*() {
      const events = yield* OverflowNotifier.OverflowEvents
      const subscription = yield* PubSub.subscribe(events)
      const listener = yield* Effect.forkChild(PubSub.take(subscription))
      yield* overflowing
      const event = yield* Fiber.join(listener)
      assert.strictEqual(event.budget.targetTokens, 100)
    }).pipe(Effect.provide(Layer.mergeAll(UShapedPlacer.layer, OverflowNotifier.layerPubSub))))

  it.effect("layerTest records events in order, and clear forgets them", () =>
    Effect.gen(function*() {
      const test = yield* OverflowNotifier.OverflowNotifierTest
      yield* overflowing
      yield* overflowing
      assert.strictEqual((yield* test.events).length, 2)
      yield* test.clear
      assert.deepStrictEqual(yield* test.events, [])
    }).pipe(Effect.provide(Layer.mergeAll(UShapedPlacer.layer, OverflowNotifier.layerTest))))

  it.effect("make builds a custom notifier; layerNoop drops events", () => {
    const seen: Array<number> = []
    return Effect.gen(function*() {
      yield* overflowing.pipe(Effect.provide(OverflowNotifier.make((e) => Effect.sync(() => seen.push(e.tokensOverBudget)))))
      yield* overflowing.pipe(Effect.provide(OverflowNotifier.layerNoop))
      assert.deepStrictEqual(seen, [20])
    }).pipe(Effect.provide(UShapedPlacer.layer))
  })
})
