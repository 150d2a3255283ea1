import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { ChronologicalPlacer, Placer } from "../src/index.ts"
import { scoredItems } from "./support/arbitraries.ts"
import { contents, frozenScored, scored } from "./support/items.ts"
import { chronologicalBaseline as chronologicalReference } from "../bench/baseline.ts"

describe("ChronologicalPlacer — edge cases (spec table)", () => {
  it("Empty input: empty list", () => {
    assert.deepStrictEqual(ChronologicalPlacer.place([]), [])
  })

  it("Single item: that item returned as-is", () => {
    const only = scored("only", 0.3)
    const placed = ChronologicalPlacer.place([only])
    assert.strictEqual(placed[0], only.item)
    assert.strictEqual(placed.length, 1)
  })

  it("All items have timestamps: sorted ascending by timestamp", () => {
    const items = [
      scored("recent", 0.9, { timestamp: "2024-12-01T00:00:00Z" }),
      scored("middle", 0.5, { timestamp: "2024-06-01T00:00:00Z" }),
      scored("old", 0.3, { timestamp: "2024-01-01T00:00:00Z" })
    ]
    assert.deepStrictEqual(contents(ChronologicalPlacer.place(items)), ["old", "middle", "recent"])
  })

  it("No items have timestamps: original input order preserved", () => {
    const items = [scored("c", 0.1), scored("a", 0.9), scored("b", 0.5)]
    assert.deepStrictEqual(contents(ChronologicalPlacer.place(items)), ["c", "a", "b"])
  })

  it("Mixed timestamped and non-timestamped: timestamped first (ascending), then the rest in input order", () => {
    const items = [
      scored("no-time-a", 0.5),
      scored("recent", 0.9, { timestamp: "2024-12-01T00:00:00Z" }),
      scored("no-time-b", 0.3),
      scored("old", 0.7, { timestamp: "2024-01-01T00:00:00Z" })
    ]
    assert.deepStrictEqual(contents(ChronologicalPlacer.place(items)), ["old", "recent", "no-time-a", "no-time-b"])
  })

  it("All items have the same timestamp: original input order preserved", () => {
    const at = "2024-06-01T00:00:00Z"
    const items = ["p", "q", "r", "s"].map((c, i) => scored(c, 1 - i / 10, { timestamp: at }))
    assert.deepStrictEqual(contents(ChronologicalPlacer.place(items)), ["p", "q", "r", "s"])
  })
})

describe("ChronologicalPlacer — rules", () => {
  it("compares instants, not text: offsets are normalised", () => {
    const items = [
      // 2024-06-01T00:00Z
      scored("utc-midnight", 0.5, { timestamp: "2024-06-01T00:00:00Z" }),
      // 2024-05-31T23:30Z — earlier, though its text sorts later
      scored("paris-0130", 0.5, { timestamp: "2024-06-01T01:30:00+02:00" }),
      // 2024-06-01T05:00Z — later, though its text sorts earlier
      scored("ny-0000", 0.5, { timestamp: "2024-06-01T00:00:00-05:00" }),
      // the same instant as utc-midnight, given later in the input
      scored("kolkata-0530", 0.5, { timestamp: "2024-06-01T05:30:00+05:30" })
    ]
    assert.deepStrictEqual(contents(ChronologicalPlacer.place(items)), ["paris-0130", "utc-midnight", "kolkata-0530", "ny-0000"])
  })

  it("scores never influence the order", () => {
    const a = [scored("x", 0.1, { timestamp: "2024-01-01T00:00:00Z" }), scored("y", 0.9), scored("z", 0.5)]
    const b = [scored("x", 0.9, { timestamp: "2024-01-01T00:00:00Z" }), scored("y", 0.1), scored("z", 1)]
    assert.deepStrictEqual(contents(ChronologicalPlacer.place(a)), ["x", "y", "z"])
    assert.deepStrictEqual(contents(ChronologicalPlacer.place(b)), ["x", "y", "z"])
  })

  it("timestamps before 1970 and far in the future order correctly", () => {
    const items = [
      scored("far", 0.5, { timestamp: "3282-11-20T06:21:38-05:00" }),
      scored("early", 0.5, { timestamp: "1901-01-01T00:00:00Z" }),
      scored("epoch", 0.5, { timestamp: "1970-01-01T00:00:00Z" })
    ]
    assert.deepStrictEqual(contents(ChronologicalPlacer.place(items)), ["early", "epoch", "far"])
  })

  it("returns the same item objects and leaves a frozen input untouched", () => {
    const items = frozenScored([scored("b", 0.1, { timestamp: "2024-02-01T00:00:00Z" }), scored("a", 0.9, { timestamp: "2024-01-01T00:00:00Z" })])
    const placed = ChronologicalPlacer.place(items)
    assert.strictEqual(placed[0], items[1]!.item)
    assert.strictEqual(placed[1], items[0]!.item)
  })

  it.effect("is provided as the Placer service by ChronologicalPlacer.layer", () =>
    Effect.gen(function*() {
      const items = [scored("b", 0.1, { timestamp: "2024-02-01T00:00:00Z" }), scored("n", 0.9), scored("a", 0.9, { timestamp: "2024-01-01T00:00:00Z" })]
      assert.deepStrictEqual(contents(yield* Placer.place(items)), ["a", "b", "n"])
      assert.strictEqual(yield* Placer.Placer.use((p) => Effect.succeed(p.name)), "chronological")
    }).pipe(Effect.provide(ChronologicalPlacer.layer)))
})

describe("ChronologicalPlacer — properties", () => {
  it("agrees with a literal transcription of the specification's pseudocode", () => {
    fc.assert(fc.property(scoredItems(60), (items) => {
      const placed = ChronologicalPlacer.place(items)
      const expected = chronologicalReference(items)
      placed.forEach((p, k) => assert.strictEqual(p, expected[k]))
      assert.strictEqual(placed.length, expected.length)
    }), { numRuns: 300 })
  })

  it("is sorted by instant, missing timestamps last, ties in input order", () => {
    fc.assert(fc.property(scoredItems(), (items) => {
      const indexOf = new Map(items.map((s, i) => [s.item, i]))
      const placed = ChronologicalPlacer.place(items)
      assert.strictEqual(new Set(placed).size, items.length)
      for (let k = 1; k < placed.length; k++) {
        const prev = placed[k - 1]!
        const next = placed[k]!
        const pt = prev.timestamp?.epochMilliseconds
        const nt = next.timestamp?.epochMilliseconds
        if (pt === undefined) assert.isUndefined(nt, "an untimed item is followed only by untimed items")
        if (pt === undefined || nt === undefined || pt === nt) {
          if ((pt === undefined) === (nt === undefined)) assert.isBelow(indexOf.get(prev)!, indexOf.get(next)!)
        } else {
          assert.isBelow(pt, nt)
        }
      }
    }))
  })

  it("is deterministic", () => {
    fc.assert(fc.property(scoredItems(), (items) => {
      assert.deepStrictEqual(ChronologicalPlacer.place(items), ChronologicalPlacer.place(items))
    }))
  })
})
