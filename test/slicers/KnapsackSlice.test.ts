/**
 * KnapsackSlice (spec `slicers/knapsack.md`): every rule and edge case of the chapter, the
 * conformance vectors `knapsack-*` as unit tests, construction errors, the table-too-large
 * error, and property tests against a literal transcription of the chapter's pseudocode
 * (`test/support/specSlicers.ts`).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { ContextItem } from "../../src/ContextItem.ts"
import { InvalidConfigError } from "../../src/InvalidConfigError.ts"
import type { ScoredItem } from "../../src/ScoredItem.ts"
import * as Slicer from "../../src/slicers/Slicer.ts"
import { SlicerError } from "../../src/slicers/SlicerError.ts"
import * as KnapsackSlice from "../../src/slicers/KnapsackSlice.ts"
import { knapsackSlice } from "../support/specSlicers.ts"

const scored = (content: string, tokens: number, score: number): ScoredItem => ({
  item: new ContextItem({ content, tokens }),
  score
})

const budget = (targetTokens: number): Slicer.Budget => ({ maxTokens: Math.max(targetTokens, 0) * 2, targetTokens })

/** Slices with a KnapsackSlice built from `options` and returns the selected contents, in order. */
const sliceContents = (sorted: ReadonlyArray<ScoredItem>, targetTokens: number, options?: KnapsackSlice.Options) =>
  Effect.gen(function*() {
    const slicer = yield* KnapsackSlice.make(options)
    const selection = yield* slicer.slice(sorted, budget(targetTokens))
    return Array.from(selection.selected, (i) => sorted[i]!.item.content)
  })

const config = (bucketSize: number, maxCells = KnapsackSlice.defaultMaxCells): KnapsackSlice.Config => ({
  bucketSize,
  maxCells
})

/** `select`'s result under `settings`, which must not be an error. */
const selectOk = (sorted: ReadonlyArray<ScoredItem>, targetTokens: number, settings: KnapsackSlice.Config): Array<number> => {
  const selected = KnapsackSlice.select(sorted, targetTokens, settings)
  if (selected instanceof SlicerError) throw new Error(selected.message)
  return Array.from(selected)
}

/** `select`'s error under `settings`, which must be one. */
const selectError = (sorted: ReadonlyArray<ScoredItem>, targetTokens: number, settings: KnapsackSlice.Config): SlicerError => {
  const selected = KnapsackSlice.select(sorted, targetTokens, settings)
  if (!(selected instanceof SlicerError)) throw new Error(`expected a SlicerError, got [${Array.from(selected)}]`)
  return selected
}

const indices = (sorted: ReadonlyArray<ScoredItem>, targetTokens: number, bucketSize: number): Array<number> =>
  selectOk(sorted, targetTokens, config(bucketSize))

/** The transcription's items as indices of `sorted` (items are distinct objects). */
const specIndices = (sorted: ReadonlyArray<ScoredItem>, targetTokens: number, bucketSize: number): Array<number> => {
  const index = new Map(sorted.map((s, i) => [s.item, i] as const))
  return knapsackSlice(sorted, { targetTokens }, bucketSize).map((item) => index.get(item)!)
}

describe("KnapsackSlice — construction", () => {
  it.effect("defaults: bucket size 100, maxCells 2^28", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* KnapsackSlice.validate(), { bucketSize: 100, maxCells: 2 ** 28 })
      assert.strictEqual(KnapsackSlice.defaultBucketSize, 100)
      assert.strictEqual(KnapsackSlice.defaultMaxCells, 268_435_456)
      const slicer = yield* KnapsackSlice.make()
      assert.strictEqual(slicer.name, "knapsack")
    }))

  it.effect("bucketSize MUST be a positive integer: 0, negatives, fractions, NaN and Infinity fail with InvalidConfigError", () =>
    Effect.gen(function*() {
      for (const bucketSize of [0, -1, -100, 1.5, NaN, Infinity, 2 ** 53]) {
        const error = yield* Effect.flip(KnapsackSlice.make({ bucketSize }))
        assert.instanceOf(error, InvalidConfigError)
        assert.strictEqual(error.component, "KnapsackSlice")
        assert.strictEqual(error.path, "bucketSize")
        assert.include(error.rule, "positive integer")
        assert.include(error.rule, String(bucketSize))
      }
    }))

  it.effect("bucketSize 1 and large bucket sizes are accepted", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* KnapsackSlice.validate({ bucketSize: 1 })).bucketSize, 1)
      assert.strictEqual((yield* KnapsackSlice.validate({ bucketSize: 1_000_000 })).bucketSize, 1_000_000)
    }))

  it.effect("maxCells must be an integer from 1 to 2^31", () =>
    Effect.gen(function*() {
      for (const maxCells of [0, -5, 2.5, NaN, Infinity, 2 ** 31 + 1]) {
        const error = yield* Effect.flip(KnapsackSlice.make({ maxCells }))
        assert.instanceOf(error, InvalidConfigError)
        assert.strictEqual(error.path, "maxCells")
      }
      assert.strictEqual((yield* KnapsackSlice.validate({ maxCells: 1 })).maxCells, 1)
      assert.strictEqual((yield* KnapsackSlice.validate({ maxCells: 2 ** 31 })).maxCells, 2 ** 31)
    }))

  it.effect("KnapsackSlice.layer provides the Slicer service; invalid options fail the layer", () =>
    Effect.gen(function*() {
      const program = Effect.gen(function*() {
        return yield* Slicer.slice([scored("a", 10, 0.5)], budget(100))
      })
      const selection = yield* Effect.provide(program, KnapsackSlice.layer({ bucketSize: 10 }))
      assert.deepStrictEqual(Array.from(selection.selected), [0])
      const error = yield* Effect.flip(Effect.provide(program, KnapsackSlice.layer({ bucketSize: 0 })))
      assert.instanceOf(error, InvalidConfigError)
    }))
})

describe("KnapsackSlice — edge cases (spec table)", () => {
  it.effect("Empty scoredItems: empty list", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* sliceContents([], 500), [])
    }))

  it.effect("budget.targetTokens <= 0: empty list, zero-token items included", () =>
    Effect.gen(function*() {
      const items = [scored("zero", 0, 0.9), scored("a", 10, 0.5)]
      assert.deepStrictEqual(yield* sliceContents(items, 0), [])
      assert.deepStrictEqual(yield* sliceContents(items, -1), [])
    }))

  it.effect("All items are zero-token: all selected, in input order", () =>
    Effect.gen(function*() {
      const items = [scored("x", 0, 0.3), scored("y", 0, 0.9), scored("z", 0, 0.1)]
      assert.deepStrictEqual(yield* sliceContents(items, 1000), ["x", "y", "z"])
    }))

  it.effect("capacity = 0 after discretization: only zero-token items", () =>
    Effect.gen(function*() {
      // floor(99 / 100) = 0, although the 50-token item would fit the real budget.
      const items = [scored("a", 50, 0.9), scored("zero", 0, 0.1)]
      assert.deepStrictEqual(yield* sliceContents(items, 99), ["zero"])
    }))

  it.effect("All items exceed discretized capacity: only zero-token items", () =>
    Effect.gen(function*() {
      const items = [scored("a", 301, 0.9), scored("zero-1", 0, 0.1), scored("b", 400, 0.8), scored("zero-2", 0, 0.5)]
      assert.deepStrictEqual(yield* sliceContents(items, 300), ["zero-1", "zero-2"])
    }))

  it.effect("Single candidate fits: that candidate plus zero-token items", () =>
    Effect.gen(function*() {
      const items = [scored("a", 100, 0.5), scored("zero", 0, 0.1)]
      assert.deepStrictEqual(yield* sliceContents(items, 100), ["zero", "a"])
    }))
})

describe("KnapsackSlice — conformance vectors (slicing/knapsack-*)", () => {
  it.effect("knapsack-basic: selects optimally where greedy would not", () =>
    Effect.gen(function*() {
      const items = [scored("big", 250, 0.7), scored("small-a", 150, 0.5), scored("small-b", 150, 0.45)]
      assert.deepStrictEqual(yield* sliceContents(items, 300, { bucketSize: 100 }), ["big"])
    }))

  it.effect("knapsack-zero-tokens: zero-token items are pre-filtered and always included", () =>
    Effect.gen(function*() {
      const items = [scored("zero", 0, 0.1), scored("fits", 200, 0.6), scored("no-fit", 300, 0.9)]
      assert.deepStrictEqual(yield* sliceContents(items, 200, { bucketSize: 100 }), ["zero", "fits"])
    }))
})

describe("KnapsackSlice — the algorithm's rules", () => {
  it("Maximises the total scaled score within the capacity", () => {
    // Capacity 10 (bucket 1): {b, c} = 11000 beats {a} = 9000 and {a, ...} combinations.
    const items = [scored("a", 8, 0.9), scored("b", 5, 0.6), scored("c", 5, 0.5), scored("d", 3, 0.1)]
    assert.deepStrictEqual(indices(items, 10, 1), [2, 1])
  })

  it("Output order: zero-token items (input order), then DP-selected items in reconstruction order (last candidate first)", () => {
    const items = [scored("a", 10, 0.5), scored("z1", 0, 0.1), scored("b", 10, 0.4), scored("z2", 0, 0.9), scored("c", 10, 0.3)]
    assert.deepStrictEqual(indices(items, 30, 10), [1, 3, 4, 2, 0])
  })

  it("Weight discretization uses ceiling division: 101 tokens weigh 2 buckets of 100", () => {
    // capacity 2: "heavy" (101 → 2) alone, or "light" (100 → 1) + "other" (1 → 1).
    const items = [scored("heavy", 101, 0.9), scored("light", 100, 0.5), scored("other", 1, 0.3)]
    assert.deepStrictEqual(indices(items, 200, 100), [0])
    // capacity 2 still at 299 tokens: floor(299 / 100).
    assert.deepStrictEqual(indices(items, 299, 100), [0])
    // capacity 3: heavy + one of the others; "light" (0.5) beats "other" (0.3).
    assert.deepStrictEqual(indices(items, 300, 100), [1, 0])
  })

  it("Capacity discretization uses floor division: the budget may be under-filled", () => {
    // Two 60-token items fit 199 tokens, but each weighs ceil(60 / 100) = 1 and capacity is 1.
    const items = [scored("a", 60, 0.5), scored("b", 60, 0.4)]
    assert.deepStrictEqual(indices(items, 199, 100), [0])
  })

  it("Exact fit: items whose weights add up to the capacity are all selected", () => {
    const items = [scored("a", 100, 0.5), scored("b", 200, 0.4), scored("c", 300, 0.3)]
    assert.deepStrictEqual(indices(items, 600, 100).sort(), [0, 1, 2])
  })

  it("Score scaling: max(0, floor(score * 10000)); scores closer than 0.0001 tie, and the earlier candidate wins the tie", () => {
    // Values 5000 and 5000: the DP only replaces on a strictly greater value.
    const tied = [scored("first", 100, 0.50001), scored("second", 100, 0.50009)]
    assert.deepStrictEqual(indices(tied, 100, 100), [0])
    // Values 5000 and 5001: the second wins.
    const apart = [scored("first", 100, 0.5), scored("second", 100, 0.5001)]
    assert.deepStrictEqual(indices(apart, 100, 100), [1])
  })

  it("Candidates of value 0 (scores below 0.0001, zero or negative) are never selected, even with room to spare", () => {
    const items = [scored("tiny", 10, 0.00009), scored("zero-score", 10, 0), scored("negative", 10, -0.5), scored("ok", 10, 0.1)]
    assert.deepStrictEqual(indices(items, 1000, 1), [3])
    assert.deepStrictEqual(specIndices(items, 1000, 1), [3])
  })

  it("Items with negative token counts are excluded from the DP candidates", () => {
    const items = [scored("negative", -50, 0.9), scored("a", 100, 0.5), scored("zero", 0, 0.2)]
    assert.deepStrictEqual(indices(items, 100, 100), [2, 1])
  })

  it("The keep table crosses 32-cell words correctly (capacities around multiples of 32)", () => {
    for (const capacity of [31, 32, 33, 63, 64, 65, 95, 96, 97]) {
      const items = Array.from({ length: 40 }, (_, i) => scored(`i${i}`, 1 + ((i * 13) % 17), ((i * 7) % 11) / 10))
      assert.deepStrictEqual(indices(items, capacity, 1), specIndices(items, capacity, 1), `capacity ${capacity}`)
    }
  })

  it("Exact integer division for discretization, even where a / b rounds to an integer", () => {
    // (2^53 - 1) / (2^53 - 2) rounds to 1, but the ceiling is 2: the item does not fit capacity 1.
    const big = Number.MAX_SAFE_INTEGER
    const items = [scored("huge", big, 0.9)]
    assert.deepStrictEqual(selectOk(items, big - 1, config(big - 1)), [])
    // And the item of exactly one bucket fits.
    assert.deepStrictEqual(selectOk([scored("one", big - 1, 0.9)], big - 1, config(big - 1)), [0])
  })

  it("Scaled scores adding up to 2^31 or more take the double-precision DP row, with the same result", () => {
    const items = Array.from({ length: 30 }, (_, i) => scored(`i${i}`, 1 + (i % 7), 1e5 + ((i * 37) % 13) * 1e4))
    assert.deepStrictEqual(indices(items, 40, 1), specIndices(items, 40, 1))
  })

  it("1,001 candidates at capacity 50,001 (beyond the Rust implementation's 5·10^7-cell limit) run with the default maxCells", () => {
    const items = Array.from({ length: 1001 }, (_, i) => scored(`item-${i}`, 1, 0.5))
    // 1,001 × 50,002 cells: the Rust implementation refuses this one.
    const selected = indices(items, 50_001, 1)
    assert.strictEqual(selected.length, 1001)
  })
})

describe("KnapsackSlice — errors", () => {
  it.effect("a table over maxCells fails with a SlicerError saying what to change", () =>
    Effect.gen(function*() {
      const items = Array.from({ length: 5 }, (_, i) => scored(`i${i}`, 10, 0.5))
      const slicer = yield* KnapsackSlice.make({ bucketSize: 10, maxCells: 14 })
      // 5 candidates × (floor(20 / 10) + 1) = 15 cells > 14.
      const error = yield* Effect.flip(slicer.slice(items, budget(20)))
      assert.instanceOf(error, SlicerError)
      assert.strictEqual(error.slicer, "knapsack")
      assert.include(error.reason, "15 cells")
      assert.include(error.reason, "bucket size")
      assert.include(error.reason, "target")
      assert.include(error.reason, "maxCells")
      // Exactly at the limit, it runs.
      const atLimit = yield* KnapsackSlice.make({ bucketSize: 10, maxCells: 15 })
      assert.strictEqual((yield* atLimit.slice(items, budget(20))).selected.length, 2)
    }))

  it.effect("the advice is right: the suggested bucket size and target bring the table within the limit", () =>
    Effect.gen(function*() {
      const items = Array.from({ length: 1000 }, (_, i) => scored(`i${i}`, 10, 0.5))
      const maxCells = 100_000
      const slicer = yield* KnapsackSlice.make({ bucketSize: 1, maxCells })
      const error = yield* Effect.flip(slicer.slice(items, budget(5000)))
      assert.instanceOf(error, SlicerError)
      const bucket = Number(/bucket size of at least (\d+)/.exec(error.reason)![1])
      const below = Number(/a target below (\d+)/.exec(error.reason)![1])
      assert.isAtMost(1000 * (Math.floor(5000 / bucket) + 1), maxCells)
      assert.isAbove(1000 * (Math.floor(5000 / (bucket - 1)) + 1), maxCells)
      assert.isAtMost(1000 * (below - 1 + 1), maxCells)
      assert.isAbove(1000 * (below + 1), maxCells)
    }))

  it.effect("the default limit: 1,001 candidates at bucket 1 and a 268,435-token target exceed 2^28 cells", () =>
    Effect.gen(function*() {
      const items = Array.from({ length: 1001 }, (_, i) => scored(`item-${i}`, 1, 0.5))
      const slicer = yield* KnapsackSlice.make({ bucketSize: 1 })
      const error = yield* Effect.flip(slicer.slice(items, budget(268_435)))
      assert.instanceOf(error, SlicerError)
      assert.include(error.reason, String(1001 * 268_436))
    }))

  it("an infinite target is a table too large, not a crash", () => {
    assert.include(selectError([scored("a", 10, 0.5)], Infinity, config(100)).reason, "cells")
  })

  it("a NaN score on a candidate fails with a SlicerError; on a zero-token item it is harmless", () => {
    assert.include(selectError([scored("a", 10, 0.5), scored("nan", 10, NaN)], 100, config(10)).reason, "item 1")
    assert.deepStrictEqual(indices([scored("zero", 0, NaN), scored("a", 10, 0.5)], 100, 10), [0, 1])
  })

  it("scaled scores adding up beyond 2^53 (far outside [0, 1]) fail with a SlicerError: the DP would not be exact", () => {
    for (const scores of [[Infinity], [1e300], [5e11, 5e11]]) {
      const items = scores.map((s, i) => scored(`i${i}`, 10, s))
      assert.include(selectError(items, 100, config(10)).reason, "2^53")
    }
  })
})

describe("KnapsackSlice — service", () => {
  it.effect("does not modify its input", () =>
    Effect.gen(function*() {
      const items = Object.freeze([scored("a", 10, 0.5), scored("b", 0, 0.1)].map((s) => Object.freeze(s)))
      assert.deepStrictEqual(yield* sliceContents(items, 100, { bucketSize: 10 }), ["b", "a"])
    }))
})

// ---------------------------------------------------------------------------------------------
// Properties

const row = fc.record({
  tokens: fc.oneof(
    { weight: 2, arbitrary: fc.constant(0) },
    { weight: 10, arbitrary: fc.integer({ min: 1, max: 60 }) },
    { weight: 1, arbitrary: fc.integer({ min: -20, max: -1 }) }
  ),
  // Few distinct scores, so equal values are common; below 0.0001 and negative ones scale to 0.
  score: fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(0, -0, 0.00005, 0.25, 0.5, 0.50001, 1) },
    { weight: 4, arbitrary: fc.double({ min: -1, max: 2, noNaN: true }) }
  )
})

const list = (maxLength: number) =>
  fc.array(row, { maxLength }).map((rows) => rows.map((r, i) => scored(`item-${i}`, r.tokens, r.score)))

const target = fc.oneof({ weight: 1, arbitrary: fc.integer({ min: -20, max: 0 }) }, { weight: 6, arbitrary: fc.integer({ min: 1, max: 400 }) })
const bucket = fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 30 }), fc.constant(100))

describe("KnapsackSlice — properties", () => {
  it("selects what the chapter's pseudocode selects, in the same order", () => {
    fc.assert(
      fc.property(list(40), target, bucket, (items, t, b) => {
        assert.deepStrictEqual(indices(items, t, b), specIndices(items, t, b))
      }),
      { numRuns: 1000 }
    )
  })

  it("given the columns (Slicer.Columns), selects exactly what it selects reading the entries, and leaves them unchanged", () => {
    fc.assert(
      fc.property(list(40), target, bucket, (items, t, b) => {
        const scores = Float64Array.from(items, (s) => s.score)
        const tokens = Float64Array.from(items, (s) => s.item.tokens)
        const withColumns = KnapsackSlice.select(items, t, config(b), { scores, tokens })
        const without = KnapsackSlice.select(items, t, config(b))
        if (withColumns instanceof SlicerError || without instanceof SlicerError) {
          assert.strictEqual(withColumns instanceof SlicerError, without instanceof SlicerError)
        } else assert.deepStrictEqual(Array.from(withColumns), Array.from(without))
        assert.deepStrictEqual(Array.from(scores), items.map((s) => s.score))
        assert.deepStrictEqual(Array.from(tokens), items.map((s) => s.item.tokens))
      }),
      { numRuns: 300 }
    )
  })

  it("selects what the chapter's pseudocode selects when scaled scores outgrow 31 bits (the double-precision row)", () => {
    const large = fc.record({ tokens: fc.integer({ min: 0, max: 30 }), score: fc.double({ min: 0, max: 1e7, noNaN: true }) })
    fc.assert(
      fc.property(fc.array(large, { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 200 }), bucket, (rows, t, b) => {
        const items = rows.map((r, i) => scored(`item-${i}`, r.tokens, r.score))
        assert.deepStrictEqual(indices(items, t, b), specIndices(items, t, b))
      }),
      { numRuns: 300 }
    )
  })

  it("keeps the slicer contract: distinct indices of the input, within the target, every zero-token item", () => {
    fc.assert(
      fc.property(list(60), target, bucket, (items, t, b) => {
        const selected = indices(items, t, b)
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
      const items = Array.from({ length: 500 }, (_, i) => scored(`i${i}`, i % 40, ((i * 31) % 11) / 10))
      const slicer = yield* KnapsackSlice.make({ bucketSize: 7 })
      const selection = yield* slicer.slice(items, budget(3000))
      yield* Slicer.checkIndices("knapsack", items.length, selection.selected)
    }))
})
