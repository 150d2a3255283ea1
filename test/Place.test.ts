import { assert, describe, it, layer } from "@effect/vitest"
import { Context, Effect, Layer, Result } from "effect"
import fc from "fast-check"
import {
  ChronologicalPlacer,
  ContextBudget,
  ContextItem,
  ExclusionReason,
  InvalidItemError,
  OverflowError,
  OverflowNotifier,
  Place,
  Placer,
  type ScoredItem,
  TokenTotalError,
  UShapedPlacer
} from "../src/index.ts"
import { scoredItems } from "./support/arbitraries.ts"
import { contents, frozenItems, frozenScored, item, scored } from "./support/items.ts"
import { recordSpans } from "./support/spans.ts"

const budget = (targetTokens: number, maxTokens = Math.max(targetTokens, 1000)) =>
  new ContextBudget.ContextBudget({ maxTokens, targetTokens })

/** A placer that keeps its input order and remembers every list it was given. */
const spyPlacer = () => {
  const calls: Array<ReadonlyArray<ScoredItem.ScoredItem>> = []
  const layer = Placer.fromOrder("spy", (items) => {
    calls.push(items)
    return items.map((_, i) => i)
  })
  return { calls, layer: Layer.mergeAll(layer, OverflowNotifier.layerTest) }
}

const Default = Layer.mergeAll(UShapedPlacer.layer, OverflowNotifier.layerTest)

layer(Default)("Place — edge cases (spec)", (it) => {
  it.effect("No pinned items: the merged list is the sliced items; placement proceeds normally", () =>
    Effect.gen(function*() {
      const result = yield* Place.place({ scored: [scored("a", 0.2), scored("b", 0.9)], budget: budget(100) })
      assert.deepStrictEqual(contents(result.placed), ["b", "a"])
      assert.strictEqual(result.totalTokens, 20)
      assert.isFalse(result.overflowed)
    }))

  it.effect("No sliced items: the merged list holds only pinned items", () =>
    Effect.gen(function*() {
      const result = yield* Place.place({ pinned: [item("p0"), item("p1"), item("p2")], budget: budget(100) })
      // All at score 1.0: ranks by input order, U-shaped → p0, p2, p1
      assert.deepStrictEqual(contents(result.placed), ["p0", "p2", "p1"])
      assert.deepStrictEqual(result.excluded, [])
    }))

  it.effect("Truncation cannot reach target: all non-pinned items go, pinned stay, still over budget", () =>
    Effect.gen(function*() {
      const result = yield* Place.place({
        pinned: [item("p0", { tokens: 60 }), item("p1", { tokens: 50 })],
        scored: [scored("s0", 0.9, { tokens: 1 }), scored("s1", 0.1, { tokens: 0 })],
        budget: budget(100),
        overflowStrategy: "Truncate"
      })
      assert.deepStrictEqual(contents(result.placed), ["p0", "p1"])
      assert.deepStrictEqual(contents(result.excluded.map((e) => e.item)), ["s0", "s1"])
      assert.strictEqual(result.totalTokens, 110)
      assert.strictEqual(result.tokensOverBudget, 10)
      assert.isTrue(result.overflowed)
    }))

  it.effect("Empty merged list: the placer receives and returns an empty list", () =>
    Effect.gen(function*() {
      const result = yield* Place.place({ budget: budget(0) })
      assert.deepStrictEqual(result.placed, [])
      assert.strictEqual(result.totalTokens, 0)
      assert.isFalse(result.overflowed)
      for (const strategy of ["Throw", "Truncate", "Proceed"] as const) {
        const again = yield* Place.place({ pinned: [], scored: [], budget: budget(0), overflowStrategy: strategy })
        assert.deepStrictEqual(again.placed, [])
      }
    }))
})

describe("Place — conformance notes", () => {
  it.effect("pinned items come first in the merged list, at score 1.0, then sliced items in their order", () => {
    const spy = spyPlacer()
    return Effect.gen(function*() {
      const p0 = item("p0")
      const p1 = item("p1")
      const s = [scored("s0", 0.3), scored("s1", 0.7)]
      const result = yield* Place.place({ pinned: [p0, p1], scored: s, budget: budget(100) })
      const merged = spy.calls[0]!
      assert.deepStrictEqual(merged.map((m) => m.item.content), ["p0", "p1", "s0", "s1"])
      assert.deepStrictEqual(merged.map((m) => m.score), [1, 1, 0.3, 0.7])
      assert.strictEqual(merged[0]!.item, p0)
      assert.strictEqual(merged[2], s[0], "sliced entries are passed through, not copied")
      assert.deepStrictEqual(contents(result.placed), ["p0", "p1", "s0", "s1"])
    }).pipe(Effect.provide(spy.layer))
  })

  it.effect("overflow is detected against targetTokens, not maxTokens", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Place.place({ scored: [scored("a", 0.5, { tokens: 51 })], budget: budget(50, 1000) }))
      assert.instanceOf(error, OverflowError.OverflowError)
    }).pipe(Effect.provide(Default)))

  it.effect("merged tokens equal to the target are not an overflow", () =>
    Effect.gen(function*() {
      const result = yield* Place.place({ scored: [scored("a", 0.5, { tokens: 25 }), scored("b", 0.5, { tokens: 25 })], budget: budget(50) })
      assert.isFalse(result.overflowed)
      assert.strictEqual(result.tokensOverBudget, 0)
    }).pipe(Effect.provide(Default)))

  it.effect("Truncate walks the merged list in order: pinned first, then sliced, keeping items while they fit", () =>
    Effect.gen(function*() {
      const result = yield* Place.place({
        scored: [
          scored("s0", 0.9, { tokens: 40 }),
          scored("s1", 0.8, { tokens: 50 }), // 90 > 60: out
          scored("s2", 0.7, { tokens: 20 }), // 60: fits exactly
          scored("s3", 0.6, { tokens: 0 }) // zero tokens always fit
        ],
        budget: budget(60),
        overflowStrategy: "Truncate"
      })
      assert.deepStrictEqual(contents(result.excluded.map((e) => e.item)), ["s1"])
      assert.deepStrictEqual(result.excluded[0]!.reason, ExclusionReason.budgetExceeded(50, 20))
      assert.strictEqual(result.excluded[0]!.score, 0.8)
      assert.strictEqual(result.totalTokens, 60)
      assert.strictEqual(result.tokensOverBudget, 0)
    }).pipe(Effect.provide(Default)))

  it.effect("the placer receives the post-overflow list", () => {
    const spy = spyPlacer()
    return Effect.gen(function*() {
      yield* Place.place({
        pinned: [item("p", { tokens: 10 })],
        scored: [scored("fits", 0.9, { tokens: 10 }), scored("drops", 0.5, { tokens: 10 })],
        budget: budget(20),
        overflowStrategy: "Truncate"
      })
      assert.deepStrictEqual(spy.calls[0]!.map((s) => s.item.content), ["p", "fits"])
    }).pipe(Effect.provide(spy.layer))
  })
})

layer(Default)("Place — Throw", (it) => {
  it.effect("fails with a typed OverflowError carrying the figures and the specification's message", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Place.place({
        pinned: [item("p", { tokens: 30 })],
        scored: [scored("s", 0.5, { tokens: 40 })],
        budget: budget(50),
        overflowStrategy: "Throw"
      }))
      assert.instanceOf(error, OverflowError.OverflowError)
      if (error._tag !== "OverflowError") return assert.fail("expected OverflowError")
      assert.strictEqual(error.mergedTokens, 70)
      assert.strictEqual(error.targetTokens, 50)
      assert.strictEqual(error.tokensOverBudget, 20)
      assert.strictEqual(error.message, "Selected items require 70 tokens, exceeding target budget of 50")
    }))

  it.effect("is the default strategy", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Place.place({ scored: [scored("s", 0.5, { tokens: 40 })], budget: budget(10) }))
      assert.strictEqual(error._tag, "OverflowError")
    }))

  it.effect("can be recovered with catchTag", () =>
    Effect.gen(function*() {
      const recovered = yield* Place.place({ scored: [scored("s", 0.5, { tokens: 40 })], budget: budget(10) }).pipe(
        Effect.map((r) => r.placed.length),
        Effect.catchTag("OverflowError", (e) => Effect.succeed(-e.tokensOverBudget))
      )
      assert.strictEqual(recovered, -30)
    }))

  it.effect("does not fail without overflow", () =>
    Effect.gen(function*() {
      const result = yield* Place.place({ scored: [scored("s", 0.5, { tokens: 10 })], budget: budget(10), overflowStrategy: "Throw" })
      assert.deepStrictEqual(contents(result.placed), ["s"])
    }))

  it.effect("never notifies", () =>
    Effect.gen(function*() {
      yield* Effect.flip(Place.place({ scored: [scored("s", 0.5, { tokens: 40 })], budget: budget(10) }))
      const events = yield* OverflowNotifier.OverflowNotifierTest.use((t) => t.events)
      assert.deepStrictEqual(events, [])
    }))
})

layer(Default)("Place — Truncate", (it) => {
  it.effect("keeps pinned items always and reports dropped items as PinnedOverride when pinned items are present", () =>
    Effect.gen(function*() {
      const result = yield* Place.place({
        pinned: [item("system", { tokens: 30 }), item("rules", { tokens: 10 })],
        scored: [scored("a", 0.9, { tokens: 20 }), scored("b", 0.8, { tokens: 20 }), scored("c", 0.7, { tokens: 5 })],
        budget: budget(65),
        overflowStrategy: "Truncate"
      })
      assert.deepStrictEqual(result.excluded.map((e) => [e.item.content, e.reason]), [
        ["b", ExclusionReason.pinnedOverride("system")]
      ])
      assert.sameMembers(contents(result.placed), ["system", "rules", "a", "c"])
      assert.strictEqual(result.totalTokens, 65)
    }))

  it.effect("reports BudgetExceeded with the item's tokens and the tokens still available when nothing is pinned", () =>
    Effect.gen(function*() {
      const result = yield* Place.place({
        scored: [scored("a", 0.9, { tokens: 70 }), scored("b", 0.8, { tokens: 50 }), scored("c", 0.7, { tokens: 31 }), scored("d", 0.6, { tokens: 30 })],
        budget: budget(100),
        overflowStrategy: "Truncate"
      })
      assert.deepStrictEqual(result.excluded.map((e) => [e.item.content, e.reason]), [
        ["b", ExclusionReason.budgetExceeded(50, 30)],
        ["c", ExclusionReason.budgetExceeded(31, 30)]
      ])
      assert.deepStrictEqual(contents(result.placed), ["a", "d"])
      assert.strictEqual(result.totalTokens, 100)
    }))

  it.effect("an item in the pinned list is pinned whatever its flag says", () =>
    Effect.gen(function*() {
      const result = yield* Place.place({
        pinned: [item("unflagged", { tokens: 80, pinned: false })],
        scored: [scored("a", 0.9, { tokens: 30 })],
        budget: budget(100),
        overflowStrategy: "Truncate"
      })
      assert.deepStrictEqual(contents(result.placed), ["unflagged"])
      assert.deepStrictEqual(result.excluded.map((e) => e.reason), [ExclusionReason.pinnedOverride("unflagged")])
    }))

  it.effect("does not notify", () =>
    Effect.gen(function*() {
      const test = yield* OverflowNotifier.OverflowNotifierTest
      yield* test.clear
      yield* Place.place({ scored: [scored("a", 0.9, { tokens: 70 })], budget: budget(10), overflowStrategy: "Truncate" })
      assert.deepStrictEqual(yield* test.events, [])
    }))

  it.effect("without overflow excludes nothing", () =>
    Effect.gen(function*() {
      const result = yield* Place.place({ scored: [scored("a", 0.9, { tokens: 7 })], budget: budget(10), overflowStrategy: "Truncate" })
      assert.deepStrictEqual(result.excluded, [])
      assert.isFalse(result.overflowed)
    }))
})

layer(Default)("Place — Proceed", (it) => {
  it.effect("keeps everything and calls the notifier exactly once with the event", () =>
    Effect.gen(function*() {
      const test = yield* OverflowNotifier.OverflowNotifierTest
      yield* test.clear
      const p = item("p", { tokens: 30 })
      const s = scored("s", 0.5, { tokens: 40 })
      const b = budget(50)
      const result = yield* Place.place({ pinned: [p], scored: [s], budget: b, overflowStrategy: "Proceed" })
      assert.sameMembers(contents(result.placed), ["p", "s"])
      assert.strictEqual(result.tokensOverBudget, 20)
      assert.isTrue(result.overflowed)
      const events = yield* test.events
      assert.strictEqual(events.length, 1)
      assert.strictEqual(events[0]!.tokensOverBudget, 20)
      assert.strictEqual(events[0]!.budget, b)
      assert.deepStrictEqual(events[0]!.overflowingItems, [p, s.item])
    }))

  it.effect("does not notify without overflow", () =>
    Effect.gen(function*() {
      const test = yield* OverflowNotifier.OverflowNotifierTest
      yield* test.clear
      yield* Place.place({ scored: [scored("s", 0.5, { tokens: 40 })], budget: budget(40), overflowStrategy: "Proceed" })
      assert.deepStrictEqual(yield* test.events, [])
    }))
})

describe("Place — invalid items", () => {
  const run = (options: Place.Options) => Effect.flip(Place.place(options)).pipe(Effect.provide(Default))

  it.effect("refuses a pinned item with negative tokens, naming it", () =>
    Effect.gen(function*() {
      const error = yield* run({ pinned: [item("ok"), item("bad pin", { tokens: -3 })], budget: budget(100) })
      assert.instanceOf(error, InvalidItemError.InvalidItemError)
      if (error._tag !== "InvalidItemError") return assert.fail("expected InvalidItemError")
      assert.strictEqual(error.problem, "NegativeTokens")
      assert.strictEqual(error.list, "pinned")
      assert.strictEqual(error.index, 1)
      assert.strictEqual(error.content, "bad pin")
      assert.include(error.message, "pinned[1]")
      assert.include(error.message, "bad pin")
      assert.include(error.message, "-3")
    }))

  it.effect("refuses a scored item with negative tokens, even when it would be truncated", () =>
    Effect.gen(function*() {
      const error = yield* run({
        scored: [scored("a", 0.5), scored("neg", 0.1, { tokens: -1 })],
        budget: budget(5),
        overflowStrategy: "Truncate"
      })
      assert.strictEqual(error._tag, "InvalidItemError")
      if (error._tag === "InvalidItemError") assert.deepStrictEqual([error.list, error.index, error.problem], ["scored", 1, "NegativeTokens"])
    }))

  it.effect("refuses fractional tokens on items that bypassed decoding", () =>
    Effect.gen(function*() {
      const forged = { ...item("frac"), tokens: 1.5 }
      const error = yield* run({ scored: [{ item: Object.assign(Object.create(Object.getPrototypeOf(item("x"))), forged), score: 0.5 }], budget: budget(100) })
      assert.strictEqual(error._tag, "InvalidItemError")
      if (error._tag === "InvalidItemError") assert.strictEqual(error.problem, "NonIntegerTokens")
    }))

  it.effect("refuses a NaN score", () =>
    Effect.gen(function*() {
      const error = yield* run({ scored: [scored("nan", Number.NaN)], budget: budget(100) })
      assert.strictEqual(error._tag, "InvalidItemError")
      if (error._tag === "InvalidItemError") {
        assert.strictEqual(error.problem, "InvalidScore")
        assert.include(error.message, "NaN")
      }
    }))

  it.effect("refuses a scored item marked pinned: pinned items belong in the pinned list", () =>
    Effect.gen(function*() {
      const error = yield* run({ scored: [scored("a", 0.5), scored("flagged", 0.1, { pinned: true })], budget: budget(100) })
      if (error._tag !== "InvalidItemError") return assert.fail(`expected InvalidItemError, got ${error._tag}`)
      assert.deepStrictEqual([error.list, error.index, error.problem], ["scored", 1, "PinnedInScored"])
      assert.include(error.message, "pinned list")
    }))

  it("reports the first invalid item of a long list, in list order, whatever follows it", () => {
    type Defect = "NegativeTokens" | "NonIntegerTokens" | "InvalidScore" | "PinnedInScored" | "NegativeTokensAndNaN"
    const forgedTokens = (content: string, tokens: number) =>
      Object.assign(Object.create(Object.getPrototypeOf(item("x"))), { ...item(content), tokens })
    const defective = (i: number, defect: Defect): ScoredItem.ScoredItem => {
      switch (defect) {
        case "NegativeTokens":
          return scored(`d${i}`, 0.5, { tokens: -1 })
        case "NonIntegerTokens":
          return { item: forgedTokens(`d${i}`, 2.5), score: 0.5 }
        case "InvalidScore":
          return { item: item(`d${i}`), score: Number.NaN }
        case "PinnedInScored":
          return scored(`d${i}`, 0.5, { pinned: true })
        case "NegativeTokensAndNaN":
          // Two problems in one item: the token count is checked first.
          return { item: item(`d${i}`, { tokens: -2 }), score: Number.NaN }
      }
    }
    const expectedProblem = (defect: Defect) => defect === "NegativeTokensAndNaN" ? "NegativeTokens" : defect
    const defects = fc.constantFrom<Defect>("NegativeTokens", "NonIntegerTokens", "InvalidScore", "PinnedInScored", "NegativeTokensAndNaN")
    return fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 40 }),
        fc.array(fc.tuple(fc.nat(), defects), { maxLength: 3 }),
        fc.boolean(),
        async (n, injected, withPinned) => {
          const list: Array<ScoredItem.ScoredItem> = Array.from({ length: n }, (_, i) => scored(`s${i}`, (i % 7) / 7))
          const at = new Map<number, Defect>()
          for (const [position, defect] of injected) if (n > 0) at.set(position % n, defect)
          for (const [index, defect] of at) list[index] = defective(index, defect)
          const result = await Effect.runPromise(
            Effect.result(
              Place.place({ pinned: withPinned ? [item("pin")] : [], scored: list, budget: budget(1_000_000) })
            ).pipe(Effect.provide(Default))
          )
          const first = [...at.keys()].sort((a, b) => a - b)[0]
          if (first === undefined) return assert.isTrue(Result.isSuccess(result))
          if (!Result.isFailure(result) || result.failure._tag !== "InvalidItemError") return assert.fail("expected InvalidItemError")
          const error = result.failure
          assert.deepStrictEqual([error.list, error.index, error.problem], ["scored", first, expectedProblem(at.get(first)!)])
        }
      ),
      { numRuns: 300 }
    )
  })

  it.effect("can be caught by tag", () =>
    Effect.gen(function*() {
      const out = yield* Place.place({ pinned: [item("bad", { tokens: -1 })], budget: budget(10) }).pipe(
        Effect.map(() => "placed"),
        Effect.catchTag("InvalidItemError", (e) => Effect.succeed(e.problem))
      )
      assert.strictEqual(out, "NegativeTokens")
    }).pipe(Effect.provide(Default)))
})

const MAX = Number.MAX_SAFE_INTEGER
const strategies = ["Throw", "Truncate", "Proceed"] as const

describe("Place — exact token totals", () => {
  const run = (options: Place.Options) => Place.place(options).pipe(Effect.provide(Default))
  const tokenError = (options: Place.Options) =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(run(options))
      if (error._tag !== "TokenTotalError") return assert.fail(`expected TokenTotalError, got ${error._tag}: ${error.message}`)
      assert.instanceOf(error, TokenTotalError.TokenTotalError)
      return error
    })

  it.effect("sums at exactly MAX_SAFE_INTEGER pass, pinned-only, scored-only and mixed, with every strategy", () =>
    Effect.gen(function*() {
      const inputs = {
        "pinned-only": { pinned: [item("p0", { tokens: MAX - 1 }), item("p1", { tokens: 1 })] },
        "scored-only": { scored: [scored("s0", 0.9, { tokens: MAX - 1 }), scored("s1", 0.5, { tokens: 1 })] },
        "mixed": { pinned: [item("p0", { tokens: MAX - 5 })], scored: [scored("s0", 0.9, { tokens: 2 }), scored("s1", 0.5, { tokens: 3 })] }
      }
      for (const [name, input] of Object.entries(inputs)) {
        for (const strategy of strategies) {
          const result = yield* run({ ...input, budget: budget(MAX, MAX), overflowStrategy: strategy })
          assert.strictEqual(result.mergedTokens, MAX, `${name}, ${strategy}`)
          assert.strictEqual(result.totalTokens, MAX, `${name}, ${strategy}`)
          assert.isFalse(result.overflowed)
          assert.strictEqual(result.tokensOverBudget, 0)
        }
      }
    }))

  it.effect("a total of exactly MAX_SAFE_INTEGER over a small target: exact figures from Throw, Truncate and Proceed", () =>
    Effect.gen(function*() {
      const input = { scored: [scored("big", 0.9, { tokens: MAX - 1 }), scored("one", 0.5, { tokens: 1 })], budget: budget(10) }
      const overflow = yield* Effect.flip(run({ ...input, overflowStrategy: "Throw" }))
      if (overflow._tag !== "OverflowError") return assert.fail(`expected OverflowError, got ${overflow._tag}`)
      assert.deepStrictEqual([overflow.mergedTokens, overflow.tokensOverBudget], [MAX, MAX - 10])
      const truncated = yield* run({ ...input, overflowStrategy: "Truncate" })
      assert.deepStrictEqual(contents(truncated.placed), ["one"])
      assert.deepStrictEqual([truncated.mergedTokens, truncated.totalTokens, truncated.tokensOverBudget], [MAX, 1, 0])
      assert.deepStrictEqual(truncated.excluded[0]?.reason, ExclusionReason.budgetExceeded(MAX - 1, 10))
      const proceeded = yield* run({ ...input, overflowStrategy: "Proceed" })
      assert.deepStrictEqual([proceeded.totalTokens, proceeded.tokensOverBudget], [MAX, MAX - 10])
    }))

  it.effect("one past MAX_SAFE_INTEGER fails with TokenTotalError, scored-only, for Throw, Truncate and Proceed", () =>
    Effect.gen(function*() {
      for (const strategy of strategies) {
        const error = yield* tokenError({
          scored: [scored("max", 0.9, { tokens: MAX }), scored("one", 0.5, { tokens: 1 })],
          budget: budget(50),
          overflowStrategy: strategy
        })
        assert.deepStrictEqual([error.what, error.count], ["merged items", 2], strategy)
      }
    }))

  it.effect("one past MAX_SAFE_INTEGER fails with TokenTotalError, pinned-only, for Throw, Truncate and Proceed", () =>
    Effect.gen(function*() {
      for (const strategy of strategies) {
        const error = yield* tokenError({
          pinned: [item("one", { tokens: 1 }), item("max", { tokens: MAX }), item("after", { tokens: 5 })],
          budget: budget(50),
          overflowStrategy: strategy
        })
        assert.deepStrictEqual([error.what, error.count], ["pinned items", 2], strategy)
      }
    }))

  it.effect("pinned items that fit and scored items that take the merged total one past fail with TokenTotalError", () =>
    Effect.gen(function*() {
      for (const strategy of strategies) {
        const error = yield* tokenError({
          pinned: [item("p", { tokens: MAX - 1 })],
          scored: [scored("one", 0.9, { tokens: 1 }), scored("tips", 0.5, { tokens: 1 })],
          budget: budget(MAX, MAX),
          overflowStrategy: strategy
        })
        // The pinned item, then both scored items: the third addition leaves the safe range.
        assert.deepStrictEqual([error.what, error.count], ["merged items", 3], strategy)
      }
    }))

  it.effect("the error message names the total, the limit and the count", () =>
    Effect.gen(function*() {
      const merged = yield* tokenError({ scored: [scored("max", 0.9, { tokens: MAX }), scored("one", 0.5, { tokens: 1 })], budget: budget(50) })
      assert.include(merged.message, "merged items")
      assert.include(merged.message, String(MAX))
      assert.include(merged.message, "after 2 items")
      const pinned = yield* tokenError({ pinned: [item("max", { tokens: MAX }), item("one", { tokens: 1 })], budget: budget(50) })
      assert.include(pinned.message, "pinned items")
    }))

  it.effect("can be caught by tag", () =>
    Effect.gen(function*() {
      const out = yield* Place.place({ pinned: [item("max", { tokens: MAX }), item("one", { tokens: 1 })], budget: budget(10) }).pipe(
        Effect.map(() => "placed"),
        Effect.catchTag("TokenTotalError", (e) => Effect.succeed(e.what))
      )
      assert.strictEqual(out, "pinned items")
    }).pipe(Effect.provide(Default)))

  it.effect("items are checked in list order: an invalid item before the overflow is reported, one after it is not", () =>
    Effect.gen(function*() {
      const before = yield* Effect.flip(run({
        scored: [scored("neg", 0.1, { tokens: -1 }), scored("max", 0.9, { tokens: MAX }), scored("one", 0.5, { tokens: 1 })],
        budget: budget(50)
      }))
      assert.strictEqual(before._tag, "InvalidItemError")
      const after = yield* tokenError({
        scored: [scored("max", 0.9, { tokens: MAX }), scored("one", 0.5, { tokens: 1 }), scored("neg", 0.1, { tokens: -1 })],
        budget: budget(50)
      })
      assert.strictEqual(after.count, 2)
    }))

  it("the four-at-a-time sum agrees with an exact (BigInt) sum: the same total, or the first item past the limit", () => {
    // Counts near the limit and small ones, so overflows fall at every position of a block of four.
    const tokens = fc.oneof(
      fc.integer({ min: 0, max: 3 }),
      fc.integer({ min: MAX - 3, max: MAX }),
      fc.integer({ min: 2 ** 51, max: 2 ** 52 }),
      fc.integer({ min: 0, max: MAX })
    )
    return fc.assert(
      fc.asyncProperty(
        fc.array(tokens, { maxLength: 4 }),
        fc.array(tokens, { maxLength: 24 }),
        fc.constantFrom(...strategies),
        async (pinnedTokens, scoredTokens, strategy) => {
          const all = [...pinnedTokens, ...scoredTokens]
          let exact = 0n
          let firstPast: number | undefined
          for (const [k, t] of all.entries()) {
            exact += BigInt(t)
            if (firstPast === undefined && exact > BigInt(MAX)) firstPast = k + 1
          }
          const result = await Effect.runPromise(
            Effect.result(Place.place({
              pinned: pinnedTokens.map((t, i) => item(`p${i}`, { tokens: t })),
              scored: scoredTokens.map((t, i) => scored(`s${i}`, 0.5, { tokens: t })),
              budget: budget(MAX, MAX),
              overflowStrategy: strategy
            })).pipe(Effect.provide(Default))
          )
          if (firstPast === undefined) {
            if (!Result.isSuccess(result)) return assert.fail(`expected success, got ${result.failure._tag}`)
            assert.strictEqual(BigInt(result.success.mergedTokens), exact)
            assert.strictEqual(result.success.totalTokens, result.success.mergedTokens)
            return
          }
          if (!Result.isFailure(result) || result.failure._tag !== "TokenTotalError") return assert.fail("expected TokenTotalError")
          assert.strictEqual(result.failure.count, firstPast)
          assert.strictEqual(result.failure.what, firstPast <= pinnedTokens.length ? "pinned items" : "merged items")
        }
      ),
      { numRuns: 500 }
    )
  })
})

describe("Place — custom placers and the placer contract", () => {
  const items = [scored("a", 0.1), scored("b", 0.9), scored("c", 0.5)]
  const run = (placer: Layer.Layer<Placer.Placer>) =>
    Place.place({ scored: items, budget: budget(100) }).pipe(
      Effect.provide(Layer.mergeAll(placer, OverflowNotifier.layerNoop))
    )

  it.effect("a pure custom placer in the specification's shape", () =>
    Effect.gen(function*() {
      const reversed = Placer.make("reversed", (xs) => xs.map((s) => s.item).reverse())
      assert.deepStrictEqual(contents((yield* run(reversed)).placed), ["c", "b", "a"])
    }))

  it.effect("an effectful custom placer that uses a service from its layer's context", () =>
    Effect.gen(function*() {
      class Descending extends Context.Service<Descending, boolean>()("test/Descending") {}
      const byScore = Placer.makeEffect("by-score", (xs) =>
        Descending.use((descending) => Effect.succeed(
          [...xs].sort((x, y) => descending ? y.score - x.score : x.score - y.score).map((s) => s.item))))
      const down = byScore.pipe(Layer.provide(Layer.succeed(Descending, true)))
      const up = byScore.pipe(Layer.provide(Layer.succeed(Descending, false)))
      assert.deepStrictEqual(contents((yield* run(down)).placed), ["b", "c", "a"])
      assert.deepStrictEqual(contents((yield* run(up)).placed), ["a", "c", "b"])
    }))

  it.effect("a custom placer's own array is not handed back: the window is a new array", () =>
    Effect.gen(function*() {
      const theirs = [items[2]!.item, items[0]!.item, items[1]!.item]
      for (const placer of [Placer.make("kept", () => theirs), Placer.makeEffect("kept", () => Effect.succeed(theirs))]) {
        const placed = (yield* run(placer)).placed
        assert.notStrictEqual(placed, theirs)
        assert.deepStrictEqual(contents(placed), ["c", "a", "b"])
      }
    }))

  it.effect("an order-returning custom placer", () =>
    Effect.gen(function*() {
      const fixed = Placer.fromOrder("fixed", () => [2, 0, 1])
      assert.deepStrictEqual(contents((yield* run(fixed)).placed), ["c", "a", "b"])
    }))

  it.effect("a placer that drops an item fails with PlacerContractError (WrongLength)", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(run(Placer.make("dropper", (xs) => xs.slice(1).map((s) => s.item))))
      assert.strictEqual(error._tag, "PlacerContractError")
      if (error._tag === "PlacerContractError") {
        assert.strictEqual(error.violation, "WrongLength")
        assert.strictEqual(error.expectedLength, 3)
        assert.strictEqual(error.actualLength, 2)
        assert.include(error.message, "dropper")
      }
    }))

  it.effect("a placer that adds an item (or a copy) fails with PlacerContractError (UnknownItem)", () =>
    Effect.gen(function*() {
      const copier = Placer.make("copier", (xs) => xs.map((s, i) => i === 1 ? item(s.item.content) : s.item))
      const error = yield* Effect.flip(run(copier))
      assert.strictEqual(error._tag, "PlacerContractError")
      if (error._tag === "PlacerContractError") assert.deepStrictEqual([error.violation, error.position], ["UnknownItem", 1])
    }))

  it.effect("a placer that repeats an item fails with PlacerContractError (RepeatedItem)", () =>
    Effect.gen(function*() {
      const repeater = Placer.make("repeater", (xs) => [xs[0]!.item, xs[1]!.item, xs[0]!.item])
      const error = yield* Effect.flip(run(repeater))
      if (error._tag !== "PlacerContractError") return assert.fail(`expected PlacerContractError, got ${error._tag}`)
      assert.deepStrictEqual([error.violation, error.position], ["RepeatedItem", 2])
    }))

  it.effect("an order with an out-of-range, fractional or repeated index is refused", () =>
    Effect.gen(function*() {
      for (const [order, violation] of [[[0, 1, 3], "UnknownItem"], [[0, 1.5, 2], "UnknownItem"], [[0, -1, 2], "UnknownItem"], [[0, 0, 1], "RepeatedItem"], [[0, 1], "WrongLength"]] as const) {
        const error = yield* Effect.flip(run(Placer.fromOrder("bad-order", () => order)))
        if (error._tag !== "PlacerContractError") return assert.fail(`expected PlacerContractError, got ${error._tag}`)
        assert.strictEqual(error.violation, violation)
      }
    }))

  it.effect("an item that occurs twice in the input may occur twice in the output", () =>
    Effect.gen(function*() {
      const twice = item("twice")
      const result = yield* Place.place({ scored: [{ item: twice, score: 0.2 }, { item: twice, score: 0.4 }], budget: budget(100) }).pipe(
        Effect.provide(Layer.mergeAll(Placer.make("identity", (xs) => xs.map((s) => s.item)), OverflowNotifier.layerNoop))
      )
      assert.deepStrictEqual(result.placed, [twice, twice])
    }))

  it.effect("a PlacerError from a custom placer reaches the caller by tag", () =>
    Effect.gen(function*() {
      const failing = Placer.makeEffect("remote", () => Effect.fail(Placer.fail("remote", "service unavailable")))
      const error = yield* Effect.flip(run(failing))
      if (error._tag !== "PlacerError") return assert.fail(`expected PlacerError, got ${error._tag}`)
      assert.strictEqual(error.message, `Placer "remote" failed: service unavailable`)
    }))
})

describe("Place — inputs are never mutated", () => {
  it.effect("frozen arrays and items, with each strategy and both placers", () =>
    Effect.gen(function*() {
      for (const placer of [UShapedPlacer.layer, ChronologicalPlacer.layer]) {
        for (const strategy of ["Truncate", "Proceed", "Throw"] as const) {
          const pinned = frozenItems([item("p", { tokens: 30, timestamp: "2024-01-02T00:00:00Z" })])
          const scoredList = frozenScored([scored("a", 0.9, { tokens: 30 }), scored("b", 0.1, { tokens: 30, timestamp: "2024-01-01T00:00:00Z" })])
          const b = Object.freeze(budget(strategy === "Throw" ? 100 : 50))
          const result = yield* Place.place({ pinned, scored: scoredList, budget: b, overflowStrategy: strategy }).pipe(
            Effect.provide(Layer.mergeAll(placer, OverflowNotifier.layerTest))
          )
          assert.strictEqual(pinned.length, 1)
          assert.strictEqual(scoredList.length, 2)
          assert.strictEqual(scoredList[0]!.score, 0.9)
          for (const p of result.placed) assert.isTrue(p === pinned[0] || scoredList.some((s) => s.item === p))
        }
      }
    }))
})

describe("Place — tracing", () => {
  it.effect("runs in a span named Place.place, annotated with counts, tokens, strategy and overflow", () => {
    const { spans, tracer } = recordSpans()
    return Effect.gen(function*() {
      yield* Place.place({
        pinned: [item("p", { tokens: 10 })],
        scored: [scored("a", 0.5, { tokens: 20 }), scored("b", 0.4, { tokens: 20 })],
        budget: budget(35),
        overflowStrategy: "Truncate"
      })
      const span = spans.find((s) => s.name === "Place.place")
      assert.isDefined(span)
      const attributes = Object.fromEntries(span!.attributes)
      assert.deepInclude(attributes, {
        "cupel.pinned.count": 1,
        "cupel.scored.count": 2,
        "cupel.merged.tokens": 50,
        "cupel.target.tokens": 35,
        "cupel.overflow.strategy": "Truncate",
        "cupel.overflow": true,
        "cupel.placed.count": 2,
        "cupel.excluded.count": 1,
        "cupel.placed.tokens": 30,
        "cupel.tokens_over_budget": 0
      })
    }).pipe(Effect.provide(Default), Effect.withTracer(tracer))
  })
})

describe("Place — properties", () => {
  const strategies = fc.constantFrom("Truncate" as const, "Proceed" as const)
  const placers = fc.constantFrom(UShapedPlacer.layer, ChronologicalPlacer.layer)

  it("placed ∪ excluded is the merged list; truncate keeps every pinned item and stays within the target unless pinned items alone exceed it", () =>
    fc.assert(
        fc.asyncProperty(scoredItems(30), scoredItems(6), fc.integer({ min: 0, max: 400 }), strategies, placers, (flagged, pinnedScored, target, strategy, placer) => {
          const pinned = pinnedScored.map((p) => p.item)
          // Scored items are never flagged pinned (Place refuses them); rebuild them unflagged.
          const s = flagged.map((x) => ({ item: new ContextItem.ContextItem({ ...x.item, pinned: false }), score: x.score }))
          return Effect.runPromise(
            Place.place({ pinned, scored: s, budget: budget(target), overflowStrategy: strategy }).pipe(
              Effect.provide(Layer.mergeAll(placer, OverflowNotifier.layerNoop)),
              Effect.map((result) => {
                const merged = [...pinned, ...s.map((x) => x.item)]
                const mergedTokens = merged.reduce((n, i) => n + i.tokens, 0)
                assert.strictEqual(result.mergedTokens, mergedTokens)
                assert.strictEqual(result.placed.length + result.excluded.length, merged.length)
                assert.sameMembers([...result.placed, ...result.excluded.map((e) => e.item)], merged)
                assert.strictEqual(result.totalTokens, result.placed.reduce((n, i) => n + i.tokens, 0))
                if (strategy === "Proceed") assert.strictEqual(result.excluded.length, 0)
                for (const p of pinned) assert.include(result.placed, p)
                const pinnedTokens = pinned.reduce((n, i) => n + i.tokens, 0)
                if (strategy === "Truncate" && pinnedTokens <= target) assert.isAtMost(result.totalTokens, target)
                if (strategy === "Truncate" && result.excluded.length > 0) {
                  // The excluded items keep their merged order.
                  const order = result.excluded.map((e) => merged.indexOf(e.item))
                  assert.deepStrictEqual(order, [...order].sort((a, b) => a - b))
                }
              })
            )
          )
        }),
        { numRuns: 200 }
      ))
})
