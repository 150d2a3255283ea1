/**
 * The placers' two paths — a comparison sort for small inputs, a radix sort of the keys' bit
 * patterns for large ones — must give exactly the specification's order, and each other's.
 *
 * Checked here against an oracle that transcribes the specification's pseudocode (pairs sorted
 * with a comparator), on inputs built to be hard: few distinct scores and timestamps (many
 * ties), -0 and +0, ±Infinity, subnormals, missing and negative timestamps, keys whose varying
 * bits sit in chosen places (to reach every pass-skipping branch of the radix sort), and sizes
 * on both sides of the threshold where the placers switch paths.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fc from "fast-check"
import {
  ChronologicalPlacer,
  ContextBudget,
  ContextItem,
  OverflowNotifier,
  Place,
  Placer,
  Timestamp,
  UShapedPlacer
} from "../src/index.ts"
import type { ScoredItem } from "../src/index.ts"
import * as Chronological from "../src/placers/internal/chronological.ts"
import { type Keys, sortKeys, sortWholeNumbers, toKeys } from "../src/internal/radix.ts"
import * as Scratch from "../src/internal/scratch.ts"
import * as UShaped from "../src/placers/internal/uShaped.ts"

// ---------------------------------------------------------------------------------------------
// Oracles: the specification's pseudocode, returning input indices in placed order.

const uShapedOracle = (scores: ReadonlyArray<number>): Array<number> => {
  const pairs = scores.map((score, index) => ({ score, index }))
  pairs.sort((a, b) => a.score > b.score ? -1 : a.score < b.score ? 1 : a.index - b.index)
  const result = new Array<number>(scores.length)
  let left = 0
  let right = scores.length - 1
  pairs.forEach((pair, rank) => {
    if (rank % 2 === 0) result[left++] = pair.index
    else result[right--] = pair.index
  })
  return result
}

const chronologicalOracle = (times: ReadonlyArray<number | undefined>): Array<number> => {
  const pairs = times.map((time, index) => ({ time, index }))
  pairs.sort((a, b) => {
    if (a.time !== undefined && b.time !== undefined) return a.time !== b.time ? (a.time < b.time ? -1 : 1) : a.index - b.index
    if (a.time !== undefined) return -1
    if (b.time !== undefined) return 1
    return a.index - b.index
  })
  return pairs.map((pair) => pair.index)
}

// ---------------------------------------------------------------------------------------------
// Inputs.

/**
 * Items for order tests. Orders are compared as index arrays, so items may be shared: one item
 * per distinct timestamp keeps thousands-long inputs cheap to build. Each test makes its own.
 */
const itemMaker = () => {
  const cache = new Map<number | undefined, ContextItem.ContextItem>()
  const itemAt = (time: number | undefined): ContextItem.ContextItem => {
    let item = cache.get(time)
    if (item === undefined) {
      item = time === undefined
        ? new ContextItem.ContextItem({ content: "untimed", tokens: 1 })
        : new ContextItem.ContextItem({ content: `t${time}`, tokens: 1, timestamp: Timestamp.fromEpochMillis(time) })
      cache.set(time, item)
    }
    return item
  }
  return (scores: ReadonlyArray<number>, times: ReadonlyArray<number | undefined>): Array<ScoredItem.ScoredItem> =>
    scores.map((score, i) => ({ item: itemAt(times[i]), score }))
}

/** Scores with many ties and every awkward double. */
const trickyScores: ReadonlyArray<number> = [
  0, -0, 1, 0.5, -0.5, 1e-300, -1e-300, Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE, -Number.MAX_VALUE,
  Infinity, -Infinity, 0.1, 0.2 + 0.1, 2 ** -1022, 2 ** -1023
]
const score: fc.Arbitrary<number> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...trickyScores) },
  { weight: 1, arbitrary: fc.double({ noNaN: true }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 2 ** 32 - 1 }).map((k) => k / 2 ** 32) }
)

/** Timestamps (epoch ms) with many ties, negative ones, and missing ones. */
const time: fc.Arbitrary<number | undefined> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  { weight: 3, arbitrary: fc.constantFrom(0, -1, 1, -86_400_000, 1_700_000_000_000, 1_700_000_000_001, -8_640_000_000_000_000, 8_640_000_000_000_000) },
  { weight: 2, arbitrary: fc.integer({ min: -5, max: 5 }).map((k) => 1_700_000_000_000 + k * 1000) },
  { weight: 1, arbitrary: fc.integer({ min: -8_640_000_000_000_000, max: 8_640_000_000_000_000 }) }
)

/** Sizes on both sides of where the placers switch paths, and small ones. */
const around = (threshold: number): fc.Arbitrary<number> =>
  fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: threshold - 3, max: threshold + 3 }), fc.integer({ min: 0, max: 2 * threshold }))

/** `n` elements drawn from `arb`, from a pool of `distinct` values (few distinct values: many ties). */
const manyTies = <A>(arb: fc.Arbitrary<A>, n: number): fc.Arbitrary<Array<A>> =>
  fc.integer({ min: 1, max: 12 }).chain((distinct) =>
    fc.array(arb, { minLength: distinct, maxLength: distinct }).chain((pool) =>
      fc.array(fc.integer({ min: 0, max: distinct - 1 }), { minLength: n, maxLength: n }).map((picks) =>
        picks.map((p) => pool[p]!)
      )
    )
  )

const listOf = <A>(arb: fc.Arbitrary<A>, threshold: number): fc.Arbitrary<Array<A>> =>
  around(threshold).chain((n) => fc.oneof(manyTies(arb, n), fc.array(arb, { minLength: n, maxLength: n })))

const sameOrder = (actual: ArrayLike<number>, expected: ArrayLike<number>): void => {
  assert.strictEqual(actual.length, expected.length)
  for (let k = 0; k < expected.length; k++) {
    if (actual[k] !== expected[k]) assert.fail(`position ${k}: ${actual[k]} instead of ${expected[k]}`)
  }
}

// ---------------------------------------------------------------------------------------------
// The key transform.

/** Key `j` as an unsigned 64-bit integer. */
const keyOf = (keys: Keys, j: number): bigint =>
  (BigInt(keys.words[2 * j + 1]!) << 32n) | BigInt(keys.words[2 * j]!)

const keysOf = (values: ReadonlyArray<number>, descending: boolean): Keys =>
  toKeys(Float64Array.from(values), values.length, descending)

/** The U-shaped placer's keys, made while it reads the scores (always descending). */
const keysReadFrom = (values: ReadonlyArray<number>): Keys =>
  UShaped.readScoresAsKeys(itemMaker()(values, []), new Float64Array(values.length), undefined)

/** Both ways of making keys: a pass over the doubles, and the U-shaped placer's reading. */
const keyMakers: ReadonlyArray<readonly [string, fc.Arbitrary<boolean>, (values: ReadonlyArray<number>, descending: boolean) => Keys]> = [
  ["toKeys", fc.boolean(), keysOf],
  ["readScoresAsKeys", fc.constant(true), (values) => keysReadFrom(values)]
]

/** The sign of a numeric comparison, with -0 equal to +0. */
const compare = (a: number, b: number): number => a < b ? -1 : a > b ? 1 : 0
const compareBig = (a: bigint, b: bigint): number => a < b ? -1 : a > b ? 1 : 0

const orderedDoubles: ReadonlyArray<number> = [
  -Infinity, -Number.MAX_VALUE, -1e300, -2, -1.0000000000000002, -1, -0.5, -(2 ** -1022), -(2 ** -1023),
  -Number.MIN_VALUE, 0, Number.MIN_VALUE, 2 * Number.MIN_VALUE, 2 ** -1023, 2 ** -1022, 1e-300, 0.1, 0.5,
  1, 1.0000000000000002, 2, 1_700_000_000_000, 2 ** 53, 1e300, Number.MAX_VALUE, Infinity
]

describe("radix keys", () => {
  it("order doubles as numbers, ascending", () => {
    const keys = keysOf(orderedDoubles, false)
    for (let j = 1; j < orderedDoubles.length; j++) {
      assert.isTrue(keyOf(keys, j - 1) < keyOf(keys, j), `${orderedDoubles[j - 1]} < ${orderedDoubles[j]}`)
    }
  })

  for (const [name, directions, makeKeys] of keyMakers) {
    describe(name, () => {
      it("order doubles as numbers, descending", () => {
        const keys = makeKeys(orderedDoubles, true)
        for (let j = 1; j < orderedDoubles.length; j++) {
          assert.isTrue(keyOf(keys, j - 1) > keyOf(keys, j), `${orderedDoubles[j - 1]} after ${orderedDoubles[j]}`)
        }
      })

      it("give -0 and +0 the same key", () => {
        fc.assert(
          fc.property(directions, (descending) => {
            const keys = makeKeys([-0, 0, -0], descending)
            assert.strictEqual(keyOf(keys, 0), keyOf(keys, 1))
            assert.strictEqual(keyOf(keys, 2), keyOf(keys, 1))
            assert.strictEqual(keys.variesLo, 0)
            assert.strictEqual(keys.variesHi, 0)
          })
        )
      })

      it("compare like the numbers for any two doubles", () => {
        fc.assert(
          fc.property(fc.double({ noNaN: true }), fc.double({ noNaN: true }), directions, (a, b, descending) => {
            const keys = makeKeys([a, b], descending)
            const expected = descending ? compare(b, a) : compare(a, b)
            assert.strictEqual(compareBig(keyOf(keys, 0), keyOf(keys, 1)), expected)
          }),
          { numRuns: 2000 }
        )
      })

      it("span from the smallest key to the largest", () => {
        fc.assert(
          fc.property(fc.array(fc.double({ noNaN: true }), { minLength: 1, maxLength: 20 }), directions, (values, descending) => {
            const keys = makeKeys(values, descending)
            const all = values.map((_, j) => keyOf(keys, j))
            const min = all.reduce((a, b) => (b < a ? b : a))
            const max = all.reduce((a, b) => (b > a ? b : a))
            const { minHi, minLo, spanHi, spanLo } = keys
            assert.strictEqual((BigInt(minHi) << 32n) | BigInt(minLo), min)
            assert.strictEqual((BigInt(spanHi) << 32n) | BigInt(spanLo), max - min)
          }),
          { numRuns: 1000 }
        )
      })

      it("mark exactly the bits in which some key differs from the first", () => {
        fc.assert(
          fc.property(fc.array(fc.double({ noNaN: true }), { minLength: 1, maxLength: 20 }), directions, (values, descending) => {
            const keys = makeKeys(values, descending)
            let varies = 0n
            for (let j = 0; j < values.length; j++) varies |= keyOf(keys, j) ^ keyOf(keys, 0)
            assert.strictEqual(BigInt(keys.variesLo >>> 0) | (BigInt(keys.variesHi >>> 0) << 32n), varies)
          })
        )
      })
    })
  }

  it("are the same whether made while the U-shaped placer reads the scores or in a pass of their own", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true }), { maxLength: 20 }), (values) => {
        const made = keysReadFrom(values)
        const expected = keysOf(values, true)
        assert.deepStrictEqual(Array.from(made.words), Array.from(expected.words))
        assert.deepStrictEqual({ ...made, words: [] }, { ...expected, words: [] })
      })
    )
  })
})

// ---------------------------------------------------------------------------------------------
// The radix sort itself, on keys whose varying bits are placed to reach every branch.

/** A double from its two 32-bit halves (any bit pattern but NaN's). */
const fromBits = (hi: number, lo: number): number => {
  const doubles = new Float64Array(1)
  const words = new Uint32Array(doubles.buffer)
  const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1
  words[littleEndian ? 1 : 0] = hi
  words[littleEndian ? 0 : 1] = lo
  return doubles[0]!
}

/**
 * Doubles that agree on every bit but a chosen few (up to 64 positions), so that the sort's
 * digits are in turn varying, constant, straddling the two words, or absent.
 */
const structuredDoubles: fc.Arbitrary<Array<number>> = fc
  .record({
    baseHi: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
    baseLo: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
    bits: fc.uniqueArray(fc.integer({ min: 0, max: 63 }), { minLength: 0, maxLength: 6 }),
    n: fc.integer({ min: 0, max: 3000 })
  })
  .chain(({ baseHi, baseLo, bits, n }) =>
    fc.array(fc.array(fc.boolean(), { minLength: bits.length, maxLength: bits.length }), { minLength: n, maxLength: n })
      .map((choices) =>
        choices
          .map((on) => {
            let hi = baseHi
            let lo = baseLo
            bits.forEach((bit, b) => {
              if (!on[b]) return
              if (bit >= 32) hi ^= 1 << (bit - 32)
              else lo ^= 1 << bit
            })
            return fromBits(hi >>> 0, lo >>> 0)
          })
          .filter((v) => !Number.isNaN(v))
      )
  )

/** The specification's U layout of ranked ids: even ranks from the left, odd from the right. */
const layOutU = (ranked: ReadonlyArray<number>): Array<number> => {
  const placed = new Array<number>(ranked.length)
  ranked.forEach((id, r) => {
    placed[r % 2 === 0 ? r / 2 : ranked.length - 1 - (r - 1) / 2] = id
  })
  return placed
}

const referenceRanks = (values: ReadonlyArray<number>, descending: boolean): Array<number> =>
  values.map((_, i) => i).sort((a, b) => (descending ? compare(values[b]!, values[a]!) : compare(values[a]!, values[b]!)) || a - b)

describe("radix sort", () => {
  const keptScratch = Scratch.reusable()
  it("sorts whole numbers within 2^32 of the smallest as numbers, and declines any others untouched", () => {
    const near = (base: number) => fc.integer({ min: 0, max: 2 ** 32 - 1 }).map((k) => base + k)
    const wholeNumbers = fc.oneof(
      // A base (small, an epoch instant, or at the edge of the safe integers) and offsets from it.
      fc.constantFrom(0, -1, 1_700_000_000_000, -8_640_000_000_000_000, Number.MAX_SAFE_INTEGER - 2 ** 32 + 1, -Number.MAX_SAFE_INTEGER)
        .chain((base) => fc.array(fc.oneof(near(base), fc.constantFrom(base, base + 1, base + 2 ** 32 - 1)), { maxLength: 2000 })),
      // Spans of exactly 2^32 - 1 and 2^32, -0 among zeros, and numbers that are not whole or not safe.
      fc.array(fc.constantFrom(0, -0, 1, 2 ** 32 - 1, 2 ** 32, 0.5, -1e-300, Infinity, -Infinity, 2 ** 53, -(2 ** 53), Number.MAX_SAFE_INTEGER), { maxLength: 50 })
    )
    fc.assert(
      fc.property(wholeNumbers, fc.boolean(), fc.boolean(), fc.boolean(), (values, withIds, inverse, reuse) => {
        const n = values.length
        const ids = withIds ? Uint32Array.from(values, (_, j) => 5 * j + 3) : undefined
        const idOf = (j: number) => ids === undefined ? j : ids[j]!
        const ranked = referenceRanks(values, false).map(idOf)
        const least = Math.min(...values)
        const most = Math.max(...values)
        const sortable = values.every((v) => Number.isSafeInteger(v)) && (n === 0 || most - least < 2 ** 32)
        const buffer = Float64Array.from(values)
        const out = new Uint32Array(inverse ? 5 * n + 3 : n)
        const result = sortWholeNumbers(buffer, n, ids, { uShape: false, inverse }, reuse ? keptScratch : Scratch.fresh, out)
        if (!sortable) {
          assert.isUndefined(result)
          assert.deepStrictEqual(Array.from(buffer), values)
          return
        }
        assert.strictEqual(result, out)
        if (inverse) ranked.forEach((id, position) => assert.strictEqual(out[id], position))
        else sameOrder(out, ranked)
      }),
      { numRuns: 300 }
    )
  })

  it("sorts stably, in every layout, with and without ids", () => {
    fc.assert(
      fc.property(
        structuredDoubles,
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom("ids", "own output", "sort's scratch as output"),
        fc.boolean(),
        (values, descending, uShape, inverse, mode, reuse) => {
          const n = values.length
          // Ids other than 0 … n-1 in order, to see that they travel with their keys.
          const ids = mode === "ids" ? Uint32Array.from(values, (_, j) => 3 * j + 7) : undefined
          const idOf = (j: number) => ids === undefined ? j : ids[j]!
          // Computed first: the sort may use `ids` as scratch.
          const ranked = referenceRanks(values, descending).map(idOf)
          const placed = uShape ? layOutU(ranked) : ranked
          const given = mode === "sort's scratch as output" ? undefined : new Uint32Array(inverse ? 3 * n + 7 : n)
          // A kept scratch is shared by every run: buffers hold the previous run's data.
          const scratch = reuse ? keptScratch : Scratch.fresh
          const out = sortKeys(keysOf(values, descending), n, ids, { uShape, inverse }, scratch, given)
          if (given !== undefined) assert.strictEqual(out, given)
          else assert.strictEqual(out.length, n)
          if (inverse) placed.forEach((id, position) => assert.strictEqual(out[id], position))
          else sameOrder(out, placed)
        }
      ),
      { numRuns: 300 }
    )
  })
})

// ---------------------------------------------------------------------------------------------
// The placers: fast path, simple path and oracle agree, across the threshold.

describe("U-shaped placer", () => {
  it("fast and simple paths give the specification's order", () => {
    const scoredItems = itemMaker()
    // One instance for every run: its kept buffers hold the previous run's keys and positions.
    const instance = UShapedPlacer.make()
    const kept = Scratch.reusable()
    fc.assert(
      fc.property(listOf(score, UShaped.radixThreshold), (scores) => {
        const items = scoredItems(scores, [])
        const expected = uShapedOracle(scores)
        sameOrder(UShaped.uShapedOrderFast(items), expected)
        sameOrder(UShaped.uShapedOrderFast(items, kept), expected)
        sameOrder(UShaped.uShapedOrderSimple(items), expected)
        sameOrder(UShapedPlacer.order(items), expected)
        sameOrder(instance.order(items), expected)
        sameOrder(UShaped.uShapedOrderAny(items), expected)
        const placed = instance.place(items)
        assert.strictEqual(placed.length, items.length)
        placed.forEach((item, k) => assert.strictEqual(item, items[expected[k]!]!.item))
      }),
      { numRuns: 150 }
    )
  })

  it("places the same item objects as the oracle, on both sides of the threshold", () => {
    for (const n of [0, 1, 2, 3, UShaped.radixThreshold - 1, UShaped.radixThreshold, UShaped.radixThreshold + 1, 3000]) {
      const scores = Array.from({ length: n }, (_, i) => trickyScores[(i * 7) % trickyScores.length]! / ((i % 3) + 1))
      const items = scores.map((s, i) => ({ item: new ContextItem.ContextItem({ content: `item-${i}`, tokens: 1 }), score: s }))
      const placed = UShapedPlacer.place(items)
      const expected = uShapedOracle(scores).map((i) => items[i]!.item)
      assert.strictEqual(placed.length, n)
      placed.forEach((item, k) => assert.strictEqual(item, expected[k]))
    }
  })
})

describe("chronological placer", () => {
  it("fast and simple paths give the specification's order", () => {
    const scoredItems = itemMaker()
    // One instance for every run: its kept buffers hold the previous run's keys and positions.
    const instance = ChronologicalPlacer.make()
    const kept = Scratch.reusable()
    fc.assert(
      fc.property(listOf(fc.tuple(time, score), Chronological.radixThreshold), (pairs) => {
        const times = pairs.map(([t]) => t)
        const items = scoredItems(pairs.map(([, s]) => s), times)
        const expected = chronologicalOracle(times)
        sameOrder(Chronological.chronologicalOrderFast(items), expected)
        sameOrder(Chronological.chronologicalOrderFast(items, kept), expected)
        sameOrder(Chronological.chronologicalOrderSimple(items), expected)
        sameOrder(ChronologicalPlacer.order(items), expected)
        sameOrder(instance.order(items), expected)
        sameOrder(Chronological.chronologicalOrderAny(items), expected)
        const placed = instance.place(items)
        assert.strictEqual(placed.length, items.length)
        placed.forEach((item, k) => assert.strictEqual(item, items[expected[k]!]!.item))
      }),
      { numRuns: 150 }
    )
  })

  it("ignores scores", () => {
    const scoredItems = itemMaker()
    fc.assert(
      fc.property(fc.array(time, { minLength: 0, maxLength: 2500 }), fc.array(score, { minLength: 2500, maxLength: 2500 }), (times, scores) => {
        const a = scoredItems(times.map(() => 0), times)
        const b = scoredItems(times.map((_, i) => scores[i]!), times)
        sameOrder(Chronological.chronologicalOrderFast(b), Chronological.chronologicalOrderFast(a))
        sameOrder(Chronological.chronologicalOrderSimple(b), Chronological.chronologicalOrderSimple(a))
      }),
      { numRuns: 30 }
    )
  })

  it("places the same item objects as the oracle, on both sides of the threshold", () => {
    const r = Chronological.radixThreshold
    for (const n of [0, 1, 2, r - 1, r, r + 1, 3000]) {
      const times = Array.from({ length: n }, (_, i) => i % 10 === 0 ? undefined : ((i * 7919) % 101) - 50)
      const items = times.map((t, i) => ({
        item: t === undefined
          ? new ContextItem.ContextItem({ content: `item-${i}`, tokens: 1 })
          : new ContextItem.ContextItem({ content: `item-${i}`, tokens: 1, timestamp: Timestamp.fromEpochMillis(t) }),
        score: 0
      }))
      const placed = ChronologicalPlacer.place(items)
      const expected = chronologicalOracle(times).map((i) => items[i]!.item)
      assert.strictEqual(placed.length, n)
      placed.forEach((item, k) => assert.strictEqual(item, expected[k]))
    }
  })
})

// ---------------------------------------------------------------------------------------------
// The contract check builds large outputs another way (inverse permutation): same results.

describe("Placer.applyOrder", () => {
  const makeItems = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ item: new ContextItem.ContextItem({ content: `item-${i}`, tokens: 1 }), score: 0 }))
  // One size on each side of the switch (16,384 items).
  const small = makeItems(100)
  const large = makeItems(70_000)

  it.effect("places by a valid order, at both sizes", () =>
    Effect.gen(function*() {
      for (const items of [small, large]) {
        const n = items.length
        const order = Array.from({ length: n }, (_, k) => (k * 11 + 3) % n)
        const placed = yield* Placer.applyOrder("test", items, order)
        placed.forEach((item, k) => assert.strictEqual(item, items[order[k]!]!.item))
      }
    }))

  it.effect("reports the same violation at the same position, at both sizes", () =>
    Effect.gen(function*() {
      for (const items of [small, large]) {
        const n = items.length
        const cases: ReadonlyArray<{ order: Array<number>; violation: string; position?: number }> = [
          { order: [0], violation: "WrongLength" },
          { order: Array.from({ length: n }, (_, k) => k === 5 ? n : k), violation: "UnknownItem", position: 5 },
          { order: Array.from({ length: n }, (_, k) => k === 6 ? -1 : k), violation: "UnknownItem", position: 6 },
          { order: Array.from({ length: n }, (_, k) => k === 7 ? 1.5 : k), violation: "UnknownItem", position: 7 },
          { order: Array.from({ length: n }, (_, k) => k === 9 ? 2 : k), violation: "RepeatedItem", position: 9 },
          // The index first placed at position 0.
          { order: Array.from({ length: n }, (_, k) => k === 4 ? 0 : k), violation: "RepeatedItem", position: 4 }
        ]
        for (const c of cases) {
          const error = yield* Effect.flip(Placer.applyOrder("test", items, c.order))
          assert.strictEqual(error.violation, c.violation)
          assert.strictEqual(error.position, c.position)
        }
      }
    }))
})

// ---------------------------------------------------------------------------------------------
// The whole program, large enough for every fast path (radix sort, inverse-permutation check).

describe("Place.place on a large input", () => {
  const n = 20_000
  const times = Array.from({ length: n }, (_, i) => i % 10 === 0 ? undefined : ((i * 7919) % 5003) * 1000)
  const scores = Array.from({ length: n }, (_, i) => ((i * 104729) % 1009) / 1009)
  const items = scores.map((score, i) => ({
    item: times[i] === undefined
      ? new ContextItem.ContextItem({ content: `item-${i}`, tokens: 1 })
      : new ContextItem.ContextItem({ content: `item-${i}`, tokens: 1, timestamp: Timestamp.fromEpochMillis(times[i]!) }),
    score
  }))
  const budget = new ContextBudget.ContextBudget({ maxTokens: n, targetTokens: n })
  const cases = [
    { name: "u-shaped", layer: UShapedPlacer.layer, expected: uShapedOracle(scores) },
    { name: "chronological", layer: ChronologicalPlacer.layer, expected: chronologicalOracle(times) }
  ]
  for (const { expected, layer, name } of cases) {
    it.effect(`places as the specification says (${name})`, () =>
      Effect.gen(function*() {
        const result = yield* Place.place({ scored: items, budget }).pipe(
          Effect.provide(Layer.mergeAll(layer, OverflowNotifier.layerNoop))
        )
        assert.strictEqual(result.placed.length, n)
        result.placed.forEach((item, k) => assert.strictEqual(item, items[expected[k]!]!.item))
      }))
  }
})
