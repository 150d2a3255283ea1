/**
 * GreedySlice (spec `slicers/greedy.md`): every rule and edge case of the chapter, the
 * conformance vectors `greedy-*` as unit tests, and property tests against a literal
 * transcription of the chapter's pseudocode (`test/support/specSlicers.ts`).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { ContextItem } from "../../src/ContextItem.ts"
import type { ScoredItem } from "../../src/ScoredItem.ts"
import * as Slicer from "../../src/slicers/Slicer.ts"
import { SlicerError } from "../../src/slicers/SlicerError.ts"
import * as GreedySlice from "../../src/slicers/GreedySlice.ts"
import { greedySlice } from "../support/specSlicers.ts"

const scored = (content: string, tokens: number, score: number): ScoredItem => ({
  item: new ContextItem({ content, tokens }),
  score
})

const budget = (targetTokens: number): Slicer.Budget => ({ maxTokens: Math.max(targetTokens, 0) * 2, targetTokens })

/** Slices with GreedySlice as the Slicer service and returns the selected contents, in order. */
const sliceContents = (sorted: ReadonlyArray<ScoredItem>, targetTokens: number) =>
  Slicer.slice(sorted, budget(targetTokens)).pipe(
    Effect.map((selection) => Array.from(selection.selected, (i) => sorted[i]!.item.content)),
    Effect.provide(GreedySlice.layer)
  )

/** `select`'s result, which must not be an error. */
const indices = (sorted: ReadonlyArray<ScoredItem>, targetTokens: number): Array<number> => {
  const selected = GreedySlice.select(sorted, targetTokens)
  if (selected instanceof SlicerError) throw new Error(selected.message)
  return Array.from(selected)
}

/** The transcription's items as indices of `sorted` (items are distinct objects). */
const specIndices = (sorted: ReadonlyArray<ScoredItem>, targetTokens: number): Array<number> => {
  const index = new Map(sorted.map((s, i) => [s.item, i] as const))
  return greedySlice(sorted, { targetTokens }).map((item) => index.get(item)!)
}

describe("GreedySlice — edge cases (spec table)", () => {
  it.effect("Empty scoredItems: empty list", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* sliceContents([], 500), [])
    }))

  it.effect("budget.targetTokens <= 0: empty list, zero-token items included", () =>
    Effect.gen(function*() {
      const items = [scored("zero", 0, 0.9), scored("a", 10, 0.5)]
      assert.deepStrictEqual(yield* sliceContents(items, 0), [])
      assert.deepStrictEqual(yield* sliceContents(items, -100), [])
    }))

  it.effect("All items are zero-token: all selected, in input order", () =>
    Effect.gen(function*() {
      const items = [scored("x", 0, 0.3), scored("y", 0, 0.9), scored("z", 0, 0.1)]
      assert.deepStrictEqual(yield* sliceContents(items, 1), ["x", "y", "z"])
    }))

  it.effect("Single item fits within budget: that item is selected", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* sliceContents([scored("only", 50, 0.4)], 100), ["only"])
    }))

  it.effect("Single item exceeds budget: empty list (only zero-token items, if any)", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* sliceContents([scored("big", 101, 0.9)], 100), [])
      assert.deepStrictEqual(yield* sliceContents([scored("big", 101, 0.9), scored("zero", 0, 0.1)], 100), ["zero"])
    }))

  it.effect("All items exceed budget individually: only zero-token items are selected", () =>
    Effect.gen(function*() {
      const items = [scored("a", 200, 0.9), scored("z1", 0, 0.5), scored("b", 150, 0.4), scored("z2", 0, 0.2)]
      assert.deepStrictEqual(yield* sliceContents(items, 100), ["z1", "z2"])
    }))

  it.effect("All items fit within budget: all items selected", () =>
    Effect.gen(function*() {
      const items = [scored("a", 10, 0.9), scored("b", 20, 0.5), scored("c", 30, 0.1)]
      assert.deepStrictEqual((yield* sliceContents(items, 60)).sort(), ["a", "b", "c"])
    }))
})

describe("GreedySlice — conformance vectors (slicing/greedy-*)", () => {
  it.effect("greedy-density: selects items by value density", () =>
    Effect.gen(function*() {
      const items = [
        scored("high-score-big", 400, 0.9),
        scored("medium-score-small", 100, 0.7),
        scored("low-score-small", 100, 0.5),
        scored("tiny-score-medium", 200, 0.1)
      ]
      assert.deepStrictEqual(yield* sliceContents(items, 300), ["medium-score-small", "low-score-small"])
    }))

  it.effect("greedy-exact-fit: items that exactly fill the budget", () =>
    Effect.gen(function*() {
      const items = [scored("a", 100, 0.9), scored("b", 100, 0.8), scored("c", 100, 0.7), scored("d", 100, 0.6)]
      assert.deepStrictEqual(yield* sliceContents(items, 300), ["a", "b", "c"])
    }))

  it.effect("greedy-zero-tokens: zero-token items are always included", () =>
    Effect.gen(function*() {
      const items = [scored("zero-a", 0, 0.1), scored("zero-b", 0, 0.05), scored("normal", 100, 0.8), scored("too-big", 200, 0.9)]
      assert.deepStrictEqual(yield* sliceContents(items, 150), ["zero-a", "zero-b", "normal"])
    }))

  it.effect("greedy-empty-input (optional): empty input produces empty output", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* sliceContents([], 500), [])
    }))
})

describe("GreedySlice — the algorithm's rules", () => {
  it("Value density: score / tokens, densest first, whatever the input order", () => {
    const items = [scored("a", 400, 0.9), scored("b", 10, 0.1), scored("c", 100, 0.5)]
    // densities: a 0.00225, b 0.01, c 0.005
    assert.deepStrictEqual(indices(items, 1000), [1, 2, 0])
  })

  it("Output order is the greedy iteration order (density descending), not the input order", () => {
    const items = [scored("low-density", 100, 0.9), scored("high-density", 10, 0.5)]
    assert.deepStrictEqual(indices(items, 1000), [1, 0])
  })

  it("Zero-token items have density MAX_FLOAT: they come first and are always included", () => {
    const items = [scored("dense", 1, 1), scored("zero", 0, 0), scored("other", 5, 0.2)]
    assert.deepStrictEqual(indices(items, 1), [1, 0])
  })

  it("Deterministic tie-break: equal densities keep the lower original index first", () => {
    // All have density 0.01.
    const items = [scored("A", 100, 1), scored("B", 50, 0.5), scored("C", 200, 2)]
    assert.deepStrictEqual(indices(items, 400), [0, 1, 2])
  })

  it("Deterministic tie-break: with room for two of three equal densities, the last in input order is dropped", () => {
    const items = [scored("first", 30, 0.6), scored("second", 30, 0.6), scored("third", 30, 0.6)]
    assert.deepStrictEqual(indices(items, 60), [0, 1])
  })

  it("Deterministic tie-break: identical output for identical inputs, call after call", () => {
    const items = Array.from({ length: 3000 }, (_, i) => scored(`i${i}`, 1 + (i % 7), (i % 5) / 4))
    const first = indices(items, 2500)
    for (let k = 0; k < 5; k++) assert.deepStrictEqual(indices(items, 2500), first)
  })

  it("Among zero-token items, score values do not affect order: original index only", () => {
    const items = [scored("X", 0, 0.3), scored("Y", 0, 0.9), scored("Z", 0, -5)]
    assert.deepStrictEqual(indices(items, 50), [0, 1, 2])
  })

  it("Items that do not fit are skipped, not deferred: a later smaller item is still taken, no backtracking", () => {
    // Density order: a (0.01, 60), b (0.009, 50), c (0.005, 30). After a, 40 are left: b is
    // skipped, c fits. Backtracking would find b + c = 80 instead of a + c = 90: not done.
    const items = [scored("a", 60, 0.6), scored("b", 50, 0.45), scored("c", 30, 0.15)]
    assert.deepStrictEqual(indices(items, 100), [0, 2])
  })

  it("An item fits when tokens <= remaining (exact fit)", () => {
    assert.deepStrictEqual(indices([scored("a", 70, 0.7), scored("b", 30, 0.1)], 100), [0, 1])
  })

  it("Ties between -0 and +0 densities are ties: the lower index first (numeric comparison)", () => {
    // Rust's total_cmp would put +0 before -0; the chapter compares densities as numbers.
    const items = [scored("minus-zero", 10, -0), scored("plus-zero", 10, 0)]
    assert.deepStrictEqual(indices(items, 100), [0, 1])
  })

  it("Negative densities come after zero and positive ones", () => {
    const items = [scored("neg", 10, -0.5), scored("zero-score", 10, 0), scored("pos", 10, 0.5)]
    assert.deepStrictEqual(indices(items, 100), [2, 1, 0])
  })

  it("A +Infinity score on an item with tokens has density +Infinity, above MAX_FLOAT (the pseudocode taken literally)", () => {
    const items = [scored("zero", 0, 0), scored("infinite", 10, Infinity)]
    assert.deepStrictEqual(indices(items, 100), [1, 0])
    assert.deepStrictEqual(indices(items, 100), specIndices(items, 100))
  })

  it("A negative token count (not expected: Classify excludes them) is handled as the pseudocode says: it fits and adds to what is left", () => {
    const items = [scored("big", 150, 0.9), scored("negative", -50, -0.5)]
    // densities: big 0.006, negative 0.01 → negative first, remaining 100 + 50 = 150, then big fits.
    assert.deepStrictEqual(indices(items, 100), [1, 0])
    assert.deepStrictEqual(specIndices(items, 100), [1, 0])
  })

  it("Large inputs (the radix path, from 1,024 items) select as the chapter does", () => {
    const items = Array.from({ length: 5000 }, (_, i) => scored(`i${i}`, i % 13, ((i * 7919) % 17) / 8))
    assert.deepStrictEqual(indices(items, 3000), specIndices(items, 3000))
  })
})

describe("GreedySlice — errors", () => {
  it.effect("a NaN score on an item with tokens fails with a SlicerError naming the item", () =>
    Effect.gen(function*() {
      const items = [scored("a", 10, 0.5), scored("b", 10, 0.5), scored("c", 10, 0.5), scored("d", 10, 0.5), scored("nan", 10, NaN)]
      const error = yield* Effect.flip(GreedySlice.make().slice(items, budget(100)))
      assert.instanceOf(error, SlicerError)
      assert.strictEqual(error.slicer, "greedy")
      assert.include(error.reason, "item 4")
    }))

  it("a NaN score on a zero-token item is harmless: its density is MAX_FLOAT", () => {
    assert.deepStrictEqual(indices([scored("zero", 0, NaN), scored("a", 10, 0.5)], 100), [0, 1])
  })

  it.effect("negative token counts that carry the remaining budget beyond exact integers fail with a SlicerError", () =>
    Effect.gen(function*() {
      const items = [scored("negative", -Number.MAX_SAFE_INTEGER, 1)]
      const error = yield* Effect.flip(GreedySlice.make().slice(items, budget(Number.MAX_SAFE_INTEGER)))
      assert.instanceOf(error, SlicerError)
      assert.include(error.reason, "exact integer")
    }))
})

describe("GreedySlice — service", () => {
  it.effect("GreedySlice.layer provides the Slicer service, named \"greedy\"", () =>
    Effect.gen(function*() {
      const slicer = yield* Slicer.Slicer
      assert.strictEqual(slicer.name, "greedy")
      assert.strictEqual(GreedySlice.make().name, "greedy")
    }).pipe(Effect.provide(GreedySlice.layer)))

  it.effect("does not modify its input", () =>
    Effect.gen(function*() {
      const items = Object.freeze([scored("a", 10, 0.5), scored("b", 0, 0.1)].map((s) => Object.freeze(s)))
      assert.deepStrictEqual(yield* sliceContents(items, 100), ["b", "a"])
    }))
})

// ---------------------------------------------------------------------------------------------
// Properties

/** Few distinct scores and token counts, so equal densities are common; zero and negative tokens too. */
const row = fc.record({
  tokens: fc.oneof(
    { weight: 2, arbitrary: fc.constant(0) },
    { weight: 10, arbitrary: fc.constantFrom(1, 2, 4, 5, 10, 20, 40) },
    { weight: 6, arbitrary: fc.integer({ min: 1, max: 120 }) },
    { weight: 1, arbitrary: fc.integer({ min: -20, max: -1 }) }
  ),
  score: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(0, -0, 0.25, 0.5, 1, 2) },
    { weight: 3, arbitrary: fc.double({ min: -2, max: 2, noNaN: true }) },
    { weight: 1, arbitrary: fc.constantFrom(Infinity, -Infinity, Number.MAX_VALUE) }
  )
})

const list = (maxLength: number) =>
  fc.array(row, { maxLength }).map((rows) => rows.map((r, i) => scored(`item-${i}`, r.tokens, r.score)))

const target = fc.oneof(fc.integer({ min: -50, max: 0 }), fc.integer({ min: 1, max: 600 }), fc.constant(1e12))

/** Score descending, stable: how the Sort stage hands items over. */
const bySort = (items: ReadonlyArray<ScoredItem>) => [...items].sort((a, b) => (a.score > b.score ? -1 : a.score < b.score ? 1 : 0))

describe("GreedySlice — properties", () => {
  it("selects what the chapter's pseudocode selects, in the same order", () => {
    fc.assert(
      fc.property(list(60), target, fc.boolean(), (items, t, sorted) => {
        const input = sorted ? bySort(items) : items
        assert.deepStrictEqual(indices(input, t), specIndices(input, t))
      }),
      { numRuns: 1000 }
    )
  })

  it("selects what the chapter's pseudocode selects on inputs large enough for the radix sort", () => {
    fc.assert(
      fc.property(fc.array(row, { minLength: 1024, maxLength: 3000 }), fc.integer({ min: 1, max: 20000 }), (rows, t) => {
        const input = rows.map((r, i) => scored(`item-${i}`, r.tokens, r.score))
        assert.deepStrictEqual(indices(input, t), specIndices(input, t))
      }),
      { numRuns: 15 }
    )
  })

  it("given the columns (Slicer.Columns), selects exactly what it selects reading the entries, small inputs and large", () => {
    fc.assert(
      fc.property(
        fc.oneof(list(60), fc.array(row, { minLength: 1024, maxLength: 2000 }).map((rows) => rows.map((r, i) => scored(`item-${i}`, r.tokens, r.score)))),
        target,
        (items, t) => {
          const columns: Slicer.Columns = {
            scores: Float64Array.from(items, (s) => s.score),
            tokens: Float64Array.from(items, (s) => s.item.tokens)
          }
          const withColumns = GreedySlice.select(items, t, columns)
          const without = GreedySlice.select(items, t)
          if (withColumns instanceof SlicerError || without instanceof SlicerError) {
            assert.strictEqual(withColumns instanceof SlicerError, without instanceof SlicerError)
          } else assert.deepStrictEqual(Array.from(withColumns), Array.from(without))
        }
      ),
      { numRuns: 200 }
    )
  })

  it("columns of the wrong length are not trusted: the entries are read", () => {
    const items = [scored("a", 10, 0.5), scored("b", 5, 0.4)]
    const short: Slicer.Columns = { scores: new Float64Array([9]), tokens: new Float64Array([1]) }
    assert.deepStrictEqual(GreedySlice.select(items, 12, short), GreedySlice.select(items, 12))
  })

  it("keeps the slicer contract: distinct indices of the input, within the target, every zero-token item", () => {
    fc.assert(
      fc.property(list(60), target, (items, t) => {
        const selected = indices(items, t)
        const seen = new Set<number>()
        let total = 0
        for (const i of selected) {
          assert.isTrue(Number.isInteger(i) && i >= 0 && i < items.length)
          assert.isFalse(seen.has(i))
          seen.add(i)
          total += items[i]!.item.tokens
        }
        assert.isTrue(t <= 0 ? selected.length === 0 : total <= t)
        if (t > 0) items.forEach((s, i) => s.item.tokens === 0 && assert.isTrue(seen.has(i)))
      }),
      { numRuns: 500 }
    )
  })

  it.effect("the Slicer value's selection passes Slicer.checkIndices", () =>
    Effect.gen(function*() {
      const items = Array.from({ length: 2000 }, (_, i) => scored(`i${i}`, i % 9, ((i * 31) % 11) / 10))
      const selection = yield* GreedySlice.make().slice(items, budget(4000))
      yield* Slicer.checkIndices("greedy", items.length, selection.selected)
    }))
})
