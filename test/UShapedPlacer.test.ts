import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { Placer, UShapedPlacer } from "../src/index.ts"
import { scoredItems } from "./support/arbitraries.ts"
import { contents, frozenScored, scored } from "./support/items.ts"
import { uShapedBaseline as uShapedReference } from "../bench/baseline.ts"

describe("UShapedPlacer — edge cases (spec table)", () => {
  it("Empty input: empty list", () => {
    assert.deepStrictEqual(UShapedPlacer.place([]), [])
  })

  it("Single item: that item returned as-is", () => {
    const only = scored("only", 0.3)
    const placed = UShapedPlacer.place([only])
    assert.strictEqual(placed.length, 1)
    assert.strictEqual(placed[0], only.item)
  })

  it("Two items: higher-scored at index 0, lower-scored at index 1", () => {
    assert.deepStrictEqual(contents(UShapedPlacer.place([scored("low", 0.2), scored("high", 0.8)])), ["high", "low"])
    assert.deepStrictEqual(contents(UShapedPlacer.place([scored("high", 0.8), scored("low", 0.2)])), ["high", "low"])
  })

  it("All items have the same score: input order ranks them, alternating placement still applies", () => {
    const items = ["X", "Y", "Z", "W"].map((c) => scored(c, 0.5))
    assert.deepStrictEqual(contents(UShapedPlacer.place(items)), ["X", "Z", "W", "Y"])
  })

  it("Pinned items (score 1.0): not special-cased, they rank highly and sort to the edges", () => {
    const items = [scored("doc", 0.6), scored("pin-a", 1.0, { pinned: true }), scored("pin-b", 1.0, { pinned: true }), scored("low", 0.1)]
    const placed = contents(UShapedPlacer.place(items))
    assert.strictEqual(placed[0], "pin-a")
    assert.strictEqual(placed[placed.length - 1], "pin-b")
    // ranks: pin-a, pin-b, doc, low → positions 0, 3, 1, 2
    assert.deepStrictEqual(placed, ["pin-a", "doc", "low", "pin-b"])
  })
})

describe("UShapedPlacer — rules", () => {
  it("the specification's 7-item example: A C E G F D B", () => {
    const items = [["A", 0.9], ["B", 0.8], ["C", 0.7], ["D", 0.6], ["E", 0.5], ["F", 0.4], ["G", 0.3]] as const
    assert.deepStrictEqual(contents(UShapedPlacer.place(items.map(([c, s]) => scored(c, s)))), ["A", "C", "E", "G", "F", "D", "B"])
  })

  it("ranks by score, not by input position", () => {
    const items = [scored("E", 0.1), scored("C", 0.5), scored("A", 0.9), scored("D", 0.3), scored("B", 0.7)]
    assert.deepStrictEqual(contents(UShapedPlacer.place(items)), ["A", "C", "E", "D", "B"])
  })

  it("ties are broken by ascending input index", () => {
    const items = [scored("t0", 0.5), scored("hi", 0.9), scored("t2", 0.5), scored("t3", 0.5)]
    // ranks: hi, t0, t2, t3 → positions 0, 3, 1, 2
    assert.deepStrictEqual(contents(UShapedPlacer.place(items)), ["hi", "t2", "t3", "t0"])
  })

  it("-0 and +0 are the same score (ties by index)", () => {
    const items = [scored("neg", -0), scored("pos", 0), scored("neg2", -0)]
    assert.deepStrictEqual(contents(UShapedPlacer.place(items)), ["neg", "neg2", "pos"])
  })

  it("scores outside [0, 1] and infinities are ordered like any other double", () => {
    const items = [scored("big", 7), scored("minf", -Infinity), scored("inf", Infinity), scored("neg", -3)]
    // ranks: inf, big, neg, minf → positions 0, 3, 1, 2
    assert.deepStrictEqual(contents(UShapedPlacer.place(items)), ["inf", "neg", "minf", "big"])
  })

  it("returns the same item objects and leaves a frozen input untouched", () => {
    const items = frozenScored([scored("a", 0.1), scored("b", 0.9), scored("c", 0.5)])
    const placed = UShapedPlacer.place(items)
    for (const p of placed) assert.isTrue(items.some((s) => s.item === p))
  })

  it.effect("is provided as the Placer service by UShapedPlacer.layer", () =>
    Effect.gen(function*() {
      const items = [scored("a", 0.1), scored("b", 0.9), scored("c", 0.5)]
      const placed = yield* Placer.place(items)
      assert.deepStrictEqual(contents(placed), ["b", "a", "c"])
      const name = yield* Placer.Placer.use((p) => Effect.succeed(p.name))
      assert.strictEqual(name, "u-shaped")
    }).pipe(Effect.provide(UShapedPlacer.layer)))
})

describe("UShapedPlacer — properties", () => {
  it("agrees with a literal transcription of the specification's pseudocode", () => {
    fc.assert(fc.property(scoredItems(60), (items) => {
      const placed = UShapedPlacer.place(items)
      const expected = uShapedReference(items)
      assert.strictEqual(placed.length, expected.length)
      placed.forEach((p, k) => assert.strictEqual(p, expected[k]))
    }), { numRuns: 300 })
  })

  it("output is a permutation of the input items", () => {
    fc.assert(fc.property(scoredItems(), (items) => {
      const placed = UShapedPlacer.place(items)
      assert.strictEqual(placed.length, items.length)
      assert.strictEqual(new Set(placed).size, items.length)
      for (const s of items) assert.isTrue(placed.includes(s.item))
    }))
  })

  it("is deterministic", () => {
    fc.assert(fc.property(scoredItems(), (items) => {
      assert.deepStrictEqual(UShapedPlacer.place(items), UShapedPlacer.place(items))
    }))
  })

  it("scores never increase from either edge toward the middle", () => {
    fc.assert(fc.property(scoredItems(), (items) => {
      const scoreOf = new Map(items.map((s) => [s.item, s.score]))
      const placed = UShapedPlacer.place(items).map((i) => scoreOf.get(i)!)
      const n = placed.length
      const middle = Math.ceil(n / 2) // positions [0, middle) filled from the left
      for (let k = 1; k < middle; k++) assert.isAtMost(placed[k]!, placed[k - 1]!)
      for (let k = n - 2; k >= middle; k--) assert.isAtMost(placed[k]!, placed[k + 1]!)
      // The left edge holds the best item, the right edge the second best.
      if (n > 0) assert.strictEqual(placed[0], Math.max(...placed))
    }))
  })
})
