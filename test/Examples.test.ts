import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Configured, Reversed, ShortestFirst } from "../examples/customPlacers.ts"
import { ContextBudget, OverflowNotifier, Place, type Placer } from "../src/index.ts"
import { contents, scored } from "./support/items.ts"

const root = fileURLToPath(new URL("..", import.meta.url))

const items = [
  scored("long-new", 0.5, { tokens: 30, timestamp: "2024-06-03T00:00:00Z" }),
  scored("short-old", 0.9, { tokens: 5, timestamp: "2024-06-01T00:00:00Z" }),
  scored("mid-mid", 0.1, { tokens: 10, timestamp: "2024-06-02T00:00:00Z" })
]
const run = (placer: Layer.Layer<Placer.Placer>) =>
  Place.place({ scored: items, budget: new ContextBudget.ContextBudget({ maxTokens: 100, targetTokens: 100 }) }).pipe(
    Effect.map((r) => contents(r.placed)),
    Effect.provide(Layer.mergeAll(placer, OverflowNotifier.layerNoop))
  )

describe("docs/design.md custom placers", () => {
  it("the document shows the example file verbatim", () => {
    const doc = readFileSync(`${root}docs/design.md`, "utf8")
    const example = readFileSync(`${root}examples/customPlacers.ts`, "utf8").replace(`"../src/index.ts"`, `"effect-cupel"`)
    assert.include(doc, example)
  })

  it.effect("Reversed reverses the merged order", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* run(Reversed), ["mid-mid", "short-old", "long-new"])
    }))

  it.effect("Configured reads its configuration from the layer's context", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* run(Configured), ["short-old", "mid-mid", "long-new"])
      const newestFirst = Configured.pipe(
        Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ NEWEST_FIRST: "true" })))
      )
      assert.deepStrictEqual(yield* run(newestFirst), ["long-new", "mid-mid", "short-old"])
    }))

  it.effect("Configured fails with a PlacerError on bad configuration", () =>
    Effect.gen(function*() {
      const broken = Configured.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ NEWEST_FIRST: "maybe" }))))
      const error = yield* Effect.flip(run(broken))
      assert.strictEqual(error._tag, "PlacerError")
    }))

  it.effect("ShortestFirst orders by tokens", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* run(ShortestFirst), ["short-old", "mid-mid", "long-new"])
    }))
})
