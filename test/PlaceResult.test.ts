import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { ContextBudget, OverflowNotifier, Place, PlaceResult, UShapedPlacer } from "../src/index.ts"
import { item, scored } from "./support/items.ts"

describe("PlaceResult", () => {
  it.effect("encodes to JSON-ready data: RFC 3339 timestamps and the specification's reason envelope", () =>
    Effect.gen(function*() {
      const result = yield* Place.place({
        pinned: [item("sys", { tokens: 10 })],
        scored: [scored("a", 0.9, { tokens: 10, timestamp: "2024-06-01T02:00:00+02:00" }), scored("b", 0.5, { tokens: 50 })],
        budget: new ContextBudget.ContextBudget({ maxTokens: 100, targetTokens: 30 }),
        overflowStrategy: "Truncate"
      })
      const encoded = yield* PlaceResult.encode(result)
      assert.deepStrictEqual(encoded.placed.map((i) => [i.content, i.timestamp]), [["sys", undefined], ["a", "2024-06-01T00:00:00.000Z"]])
      assert.deepStrictEqual(encoded.excluded[0]!.reason, { reason: "PinnedOverride", displaced_by: "sys" })
      assert.deepInclude(encoded, {
        totalTokens: 20,
        mergedTokens: 70,
        targetTokens: 30,
        overflowStrategy: "Truncate",
        overflowed: true,
        tokensOverBudget: 0
      })
      // And back again.
      const json = JSON.stringify(encoded)
      const decoded = yield* Schema.decodeUnknownEffect(Schema.fromJsonString(PlaceResult.PlaceResult))(json)
      assert.deepStrictEqual(decoded.excluded[0]!.reason, { _tag: "PinnedOverride", displacedBy: "sys" })
      assert.strictEqual(decoded.placed[1]!.timestamp?.epochMilliseconds, Date.parse("2024-06-01T00:00:00Z"))
    }).pipe(Effect.provide(Layer.mergeAll(UShapedPlacer.layer, OverflowNotifier.layerNoop))))
})
