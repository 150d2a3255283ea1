import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { ContextBudget, ContextItem, Place } from "../src/index.ts"

describe("smoke", () => {
  it.effect("places a window", () =>
    Effect.gen(function*() {
      const a = new ContextItem.ContextItem({ content: "a", tokens: 1 })
      const result = yield* Place.place({
        scored: [{ item: a, score: 0.5 }],
        budget: new ContextBudget.ContextBudget({ maxTokens: 10, targetTokens: 10 })
      }).pipe(Effect.provide(Place.layerDefault))
      assert.deepStrictEqual(result.placed, [a])
    }))
})
