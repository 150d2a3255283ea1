/**
 * Placer instances (`UShapedPlacer.make()`, `ChronologicalPlacer.make()`, and the placers the
 * layers build) keep their working buffers between calls. Reuse must never show: every call
 * gives the pure function's result in new arrays, earlier results stay as they were, a
 * re-entrant call gets buffers of its own, and no item stays referenced after a call.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { chronologicalBaseline, uShapedBaseline } from "../bench/baseline.ts"
import { ChronologicalPlacer, ContextItem, Placer, type ScoredItem, Timestamp, UShapedPlacer } from "../src/index.ts"
import * as Scratch from "../src/internal/scratch.ts"
import { placeUShaped } from "../src/placers/internal/uShaped.ts"

/** `n` items whose scores and timestamps depend on `seed`, with ties and untimed items. */
const itemsOf = (n: number, seed: number): Array<ScoredItem.ScoredItem> =>
  Array.from({ length: n }, (_, i) => {
    const k = (i * 7919 + seed * 104729) % 1009
    const item = k % 10 === 0
      ? new ContextItem.ContextItem({ content: `item-${seed}-${i}`, tokens: 1 })
      : new ContextItem.ContextItem({
        content: `item-${seed}-${i}`,
        tokens: 1,
        timestamp: Timestamp.fromEpochMillis(1_700_000_000_000 + (k % 97) * 1000)
      })
    return { item, score: (k % 31) / 31 }
  })

const sameItems = (actual: ReadonlyArray<ContextItem.ContextItem>, expected: ReadonlyArray<ContextItem.ContextItem>) => {
  assert.strictEqual(actual.length, expected.length)
  expected.forEach((item, k) => assert.strictEqual(actual[k], item, `position ${k}`))
}

// Large sizes take the radix path (from 1,024 items), which is where buffers are kept; the
// sizes shrink and grow so that kept buffers are larger than needed, then too small.
const sizes = [3000, 1500, 5000, 1024, 5001, 10, 2048]

describe("placer instances", () => {
  for (const [name, make, reference] of [
    ["UShapedPlacer.make()", UShapedPlacer.make, uShapedBaseline],
    ["ChronologicalPlacer.make()", ChronologicalPlacer.make, chronologicalBaseline]
  ] as const) {
    describe(name, () => {
      it("gives the specification's order call after call, as sizes shrink and grow", () => {
        const placer = make()
        sizes.forEach((n, seed) => {
          const items = itemsOf(n, seed)
          const expected = reference(items)
          sameItems(placer.place(items), expected)
          sameItems(Array.from(placer.order(items), (index) => items[index]!.item), expected)
        })
      })

      it("returns new arrays: a later call leaves earlier results as they were", () => {
        const placer = make()
        const a = itemsOf(4000, 1)
        const b = itemsOf(4000, 2)
        const placedA = placer.place(a)
        const orderA = placer.order(a)
        const placedCopy = [...placedA]
        const orderCopy = Array.from(orderA)
        placer.place(b)
        placer.order(b)
        assert.notStrictEqual(placer.place(a), placedA)
        sameItems(placedA, placedCopy)
        assert.deepStrictEqual(Array.from(orderA), orderCopy)
      })

      it("does not modify its input", () => {
        const placer = make()
        const items = Object.freeze(itemsOf(3000, 3).map((s) => Object.freeze({ ...s })))
        sameItems(placer.place(items), reference(items))
      })

      it("a re-entrant call (an item whose score getter places again) gets buffers of its own", () => {
        const placer = make()
        const outer = itemsOf(3000, 4)
        const inner = itemsOf(2500, 5)
        let innerPlaced: ReadonlyArray<ContextItem.ContextItem> = []
        const first = outer[0]!
        // Reading this score or this item places `inner` with the same instance, mid-placement.
        const reentrant: ScoredItem.ScoredItem = {
          get item() {
            innerPlaced = placer.place(inner)
            return first.item
          },
          get score() {
            innerPlaced = placer.place(inner)
            return first.score
          }
        }
        const items = [reentrant, ...outer.slice(1)]
        sameItems(placer.place(items), reference(outer))
        sameItems(innerPlaced, reference(inner))
      })
    })
  }

  for (const [name, make, layer, reference] of [
    ["U-shaped", UShapedPlacer.make, UShapedPlacer.layer, uShapedBaseline],
    ["chronological", ChronologicalPlacer.make, ChronologicalPlacer.layer, chronologicalBaseline]
  ] as const) {
    it(`${name}: instances share the kind's buffers, so a placement started inside another instance's gets buffers of its own`, () => {
      const outerPlacer = make()
      const innerPlacer = make()
      const outer = itemsOf(3000, 8)
      const inner = itemsOf(2600, 9)
      let innerPlaced: ReadonlyArray<ContextItem.ContextItem> = []
      let innerOrder: ReadonlyArray<number> = []
      const first = outer[0]!
      // Chronological placement never reads scores; both placers read items.
      const reentrant: ScoredItem.ScoredItem = {
        get item() {
          innerPlaced = innerPlacer.place(inner)
          innerOrder = Array.from(innerPlacer.order(inner))
          return first.item
        },
        score: first.score
      }
      const items = [reentrant, ...outer.slice(1)]
      sameItems(outerPlacer.place(items), reference(outer))
      sameItems(innerPlaced, reference(inner))
      sameItems(innerOrder.map((index) => inner[index]!.item), reference(inner))
    })

    it.effect(`${name}: an instance placing inside a layer's placement gets buffers of its own`, () =>
      Effect.gen(function*() {
        const service = yield* Effect.provide(Placer.Placer.use(Effect.succeed), layer)
        const outer = itemsOf(3000, 10)
        const inner = itemsOf(2600, 11)
        let innerPlaced: ReadonlyArray<ContextItem.ContextItem> = []
        const first = outer[0]!
        const reentrant: ScoredItem.ScoredItem = {
          get item() {
            innerPlaced = make().place(inner)
            return first.item
          },
          score: first.score
        }
        sameItems(yield* service.place([reentrant, ...outer.slice(1)]), reference(outer))
        sameItems(innerPlaced, reference(inner))
        // Builds of the layer after many others still give the specification's order.
        for (let build = 0; build < 20; build++) {
          const again = yield* Effect.provide(Placer.Placer.use(Effect.succeed), layer)
          sameItems(yield* again.place(inner), reference(inner))
        }
      }))
  }

  it("keeps no item referenced after a call", () => {
    const scratch = Scratch.reusable()
    const items = itemsOf(3000, 6)
    sameItems(placeUShaped(items, scratch), uShapedBaseline(items))
    // The same kept array comes back: every slot the call used has been cleared.
    const refs = scratch.refs(3000)
    assert.strictEqual(refs.length, 3000)
    assert.isTrue(refs.every((ref) => ref === undefined))
  })

  it("keeps no item referenced, and stays usable, after a placement that throws", () => {
    const scratch = Scratch.reusable()
    const run = Scratch.guarded(scratch)
    const items = itemsOf(3000, 7)
    const failing: Array<ScoredItem.ScoredItem> = [...items]
    failing[2000] = {
      item: items[2000]!.item,
      get score(): number {
        throw new Error("score unavailable")
      }
    }
    assert.throws(() => run((s) => placeUShaped(failing, s)), "score unavailable")
    assert.isTrue(scratch.refs(3000).every((ref) => ref === undefined))
    scratch.release()
    sameItems(run((s) => placeUShaped(items, s)), uShapedBaseline(items))
  })

  it("reuses a kept buffer while it is large enough, and replaces it when it is not", () => {
    const scratch = Scratch.reusable()
    const first = scratch.keys(100)
    assert.strictEqual(scratch.keys(40).buffer, first.buffer)
    assert.strictEqual(scratch.keys(40).length, 40)
    const larger = scratch.keys(101)
    assert.notStrictEqual(larger.buffer, first.buffer)
    assert.strictEqual(scratch.keys(100).buffer, larger.buffer)
    // Each kind of buffer is its own: they never alias.
    const buffers = [scratch.keys(10).buffer, scratch.pairs(10).buffer, scratch.ids(10).buffer, scratch.moreIds(10).buffer, scratch.positions(10).buffer]
    assert.strictEqual(new Set(buffers).size, buffers.length)
  })

  it("fresh buffers are never shared", () => {
    assert.notStrictEqual(Scratch.fresh.keys(10).buffer, Scratch.fresh.keys(10).buffer)
    assert.notStrictEqual(Scratch.fresh.refs(10), Scratch.fresh.refs(10))
  })

  it.effect("a placer layer's place and order give the specification's result, call after call", () =>
    Effect.gen(function*() {
      for (const [layer, reference] of [[UShapedPlacer.layer, uShapedBaseline], [ChronologicalPlacer.layer, chronologicalBaseline]] as const) {
        const placer = yield* Effect.provide(Placer.Placer.use(Effect.succeed), layer)
        for (const [seed, n] of sizes.entries()) {
          const items = itemsOf(n, seed)
          const expected = reference(items)
          sameItems(yield* placer.place(items), expected)
          sameItems(Array.from(yield* placer.order(items), (index) => items[index]!.item), expected)
        }
      }
    }))

  it.effect("each build of a placer layer is a placer of its own", () =>
    Effect.gen(function*() {
      for (const layer of [UShapedPlacer.layer, ChronologicalPlacer.layer]) {
        const placer = Placer.Placer.use(Effect.succeed)
        const a = yield* Effect.provide(placer, layer)
        const b = yield* Effect.provide(placer, layer)
        assert.notStrictEqual(a, b)
        assert.strictEqual(a.name, b.name)
      }
    }))
})
