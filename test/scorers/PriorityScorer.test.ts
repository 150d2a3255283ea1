import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import fc from "fast-check"
import * as PriorityScorer from "../../src/scorers/PriorityScorer.ts"
import * as Scorer from "../../src/scorers/Scorer.ts"
import { items as arbitraryItems } from "../support/scorerArbitraries.ts"
import { scorerItem as item } from "../support/scorerItems.ts"
import * as Spec from "../support/specScorers.ts"

const scorer = PriorityScorer.make()
const score = (items: Parameters<typeof Spec.runScorer>[1]) => Spec.runScorer(scorer, items)

describe("PriorityScorer — chapter rules", () => {
  it("is named \"priority\"", () => {
    assert.strictEqual(scorer.name, "priority")
  })

  it("higher priority scores higher: rank / (N − 1) (vector priority-basic)", async () => {
    const items = [item("low", { priority: 1 }), item("medium", { priority: 5 }), item("high", { priority: 10 })]
    assert.deepStrictEqual(await score(items), [0, 0.5, 1])
  })

  it("item.priority is null: 0.0; denominator counts only prioritized items (vector priority-null)", async () => {
    const items = [item("low-priority", { priority: 3 }), item("high-priority", { priority: 7 }), item("no-priority")]
    assert.deepStrictEqual(await score(items), [0, 1, 0])
  })

  it("all items have null priorities: all score 0.0", async () => {
    assert.deepStrictEqual(await score([item("a"), item("b")]), [0, 0])
  })

  it("only one item has a priority: that item scores 1.0", async () => {
    assert.deepStrictEqual(await score([item("a"), item("only", { priority: -4 })]), [0, 1])
  })

  it("all items share the same priority: all score 0.0", async () => {
    assert.deepStrictEqual(await score([item("a", { priority: 2 }), item("b", { priority: 2 })]), [0, 0])
  })

  it("tied priorities share the rank of the items strictly lower (vector composite-weighted's priorities)", async () => {
    const items = [item("old-low", { priority: 1 }), item("new-high", { priority: 10 }), item("old-high", { priority: 10 })]
    assert.deepStrictEqual(await score(items), [0, 0.5, 0.5])
  })

  it("negative priorities and the safe-integer extremes rank numerically", async () => {
    const items = [
      item("max", { priority: Number.MAX_SAFE_INTEGER }),
      item("min", { priority: Number.MIN_SAFE_INTEGER }),
      item("minus-one", { priority: -1 }),
      item("zero", { priority: 0 }),
      item("minus-zero", { priority: -0 })
    ]
    assert.deepStrictEqual(await score(items), [1, 0, 0.25, 0.5, 0.5])
  })

  it("empty list: no scores", async () => {
    assert.deepStrictEqual(await score([]), [])
  })

  it.effect("layer provides the priority scorer as the Scorer service", () =>
    Effect.gen(function*() {
      const scores = yield* Scorer.scoreAll([item("a", { priority: 9 }), item("b", { priority: 2 })])
      assert.deepStrictEqual(Array.from(scores), [1, 0])
    }).pipe(Effect.provide(PriorityScorer.layer)))

  it("Layer value is a Layer", () => {
    assert.isTrue(Layer.isLayer(PriorityScorer.layer))
  })
})

describe("PriorityScorer — against the chapter's pseudocode", () => {
  it("equals PRIORITY-SCORE exactly on random lists (ties, nulls, extreme instants, repeated objects)", () =>
    fc.assert(
      fc.asyncProperty(arbitraryItems(40), async (items) => {
        assert.deepStrictEqual(await score(items), Spec.scoreEach(Spec.priority, items))
      }),
      { numRuns: 400 }
    ))
})
