import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import type { ContextItem } from "../../src/ContextItem.ts"
import * as FrequencyScorer from "../../src/scorers/FrequencyScorer.ts"
import * as KindScorer from "../../src/scorers/KindScorer.ts"
import * as PriorityScorer from "../../src/scorers/PriorityScorer.ts"
import * as RecencyScorer from "../../src/scorers/RecencyScorer.ts"
import * as ReflexiveScorer from "../../src/scorers/ReflexiveScorer.ts"
import * as ScaledScorer from "../../src/scorers/ScaledScorer.ts"
import * as Scorer from "../../src/scorers/Scorer.ts"
import { ScorerError } from "../../src/scorers/ScorerError.ts"
import { items as arbitraryItems } from "../support/scorerArbitraries.ts"
import { scorerItem as item } from "../support/scorerItems.ts"
import * as Spec from "../support/specScorers.ts"

const reflexive = ScaledScorer.make(ReflexiveScorer.make())
const hints = (...values: Array<number>) => values.map((hint, k) => item(`i${k}`, { hint }))

describe("ScaledScorer — chapter rules", () => {
  it("is named \"scaled\" and exposes its inner scorer", () => {
    assert.strictEqual(reflexive.name, "scaled")
    assert.strictEqual(reflexive.inner.name, "reflexive")
  })

  it("min–max normalises the inner scores (vector scaled-basic)", async () => {
    const scores = await Spec.runScorer(reflexive, hints(0.2, 0.5, 0.8))
    assert.deepStrictEqual(scores, [0, (0.5 - 0.2) / (0.8 - 0.2), 1])
    assert.closeTo(scores[1]!, 0.5, 1e-12)
  })

  it("all items receive the same inner score: exactly 0.5 (vector scaled-degenerate)", async () => {
    assert.deepStrictEqual(await Spec.runScorer(reflexive, hints(0.4, 0.4, 0.4)), [0.5, 0.5, 0.5])
  })

  it("single item: 0.5", async () => {
    assert.deepStrictEqual(await Spec.runScorer(reflexive, hints(0.9)), [0.5])
  })

  it("empty list: no scores (the chapter's 0.5 for an empty list has no item to go to)", async () => {
    assert.deepStrictEqual(await Spec.runScorer(reflexive, []), [])
  })

  it("two items with distinct inner scores: one gets 0.0, the other 1.0", async () => {
    assert.deepStrictEqual(await Spec.runScorer(reflexive, hints(0.7, 0.1)), [1, 0])
  })

  it.effect("inner scores outside [0.0, 1.0] still scale into [0.0, 1.0]", () =>
    Effect.gen(function*() {
      const kind = yield* KindScorer.make({ Memory: 40, Document: 10, Message: 20 })
      const items = ["Memory", "Document", "Message"].map((k) => item(k, { kind: k }))
      assert.deepStrictEqual(Array.from(yield* ScaledScorer.make(kind).scoreAll(items)), [1, 0, 1 / 3])
    }))

  it("−0 and +0 inner scores are equal: degenerate 0.5", async () => {
    const inner = Scorer.makeAll("signed-zero", (items) => items.map((_, k) => (k % 2 === 0 ? 0 : -0)))
    assert.deepStrictEqual(await Spec.runScorer(ScaledScorer.make(inner), hints(1, 2, 3).map(() => item("x"))), [0.5, 0.5, 0.5])
  })

  it("the same object twice: its raw score is the inner score at its last position (reference identity)", async () => {
    const a = item("a")
    const b = item("b")
    // An inner scorer that scores positions, not items: the one way the two copies can differ.
    const positional = Scorer.makeAll("positional", (items) => items.map((_, k) => k))
    // Inner scores by position: [0, 1, 2, 3]; min 0, max 3; "a" takes the score of position 2.
    const items = [a, b, a, item("c")]
    assert.deepStrictEqual(await Spec.runScorer(ScaledScorer.make(positional), items), [2 / 3, 1 / 3, 2 / 3, 1])
  })

  it("the inner scorer is asked once per list, not once per item", async () => {
    let calls = 0
    const counting = Scorer.makeAll("counting", (items) => {
      calls++
      return items.map((_, k) => k)
    })
    await Spec.runScorer(ScaledScorer.make(counting), hints(1, 2, 3, 4, 5))
    assert.strictEqual(calls, 1)
  })

  it("max − min overflowing to infinity: computed on halved values, no NaN", async () => {
    const inner = Scorer.makeAll("huge", () => [-Number.MAX_VALUE, 0, Number.MAX_VALUE, Number.MAX_VALUE / 2])
    const scores = await Spec.runScorer(ScaledScorer.make(inner), hints(1, 2, 3, 4))
    assert.deepStrictEqual(scores, [0, 0.5, 1, 0.75])
  })

  it.effect("an infinite inner score fails with a ScorerError naming the item (min–max is undefined)", () =>
    Effect.gen(function*() {
      const inner = Scorer.makeAll("unbounded", () => [0, Infinity, 1])
      const error = yield* Effect.flip(ScaledScorer.make(inner).scoreAll(hints(1, 2, 3)))
      assert.instanceOf(error, ScorerError)
      assert.strictEqual(error.scorer, "scaled")
      assert.strictEqual(error.index, 1)
      assert.match(error.reason, /unbounded/)
    }))

  it.effect("an inner scorer's failure (NaN, wrong length) is passed on as its ScorerError", () =>
    Effect.gen(function*() {
      const broken: Scorer.Definition = { name: "broken", scoreAll: () => Effect.succeed([0.5]) }
      const error = yield* Effect.flip(ScaledScorer.make(broken).scoreAll(hints(1, 2)))
      assert.strictEqual(error.scorer, "broken")
    }))

  it("nests: a scaled scaled scorer equals the nested pseudocode", async () => {
    const items = hints(0.2, 0.5, 0.8, 0.3)
    assert.deepStrictEqual(
      await Spec.runScorer(ScaledScorer.make(reflexive), items),
      Spec.scoreEach(Spec.scaled(Spec.scaled(Spec.reflexive)), items)
    )
  })
})

const innerScorers: ReadonlyArray<readonly [string, Scorer.Definition, Spec.SpecScorer]> = [
  ["reflexive", ReflexiveScorer.make(), Spec.reflexive],
  ["recency", RecencyScorer.make(), Spec.recency],
  ["priority", PriorityScorer.make(), Spec.priority],
  ["frequency", FrequencyScorer.make(), Spec.frequency],
  ["kind", KindScorer.defaults, Spec.kind(Spec.kindDefaultWeights)]
]

describe("ScaledScorer — against the chapter's pseudocode", () => {
  for (const [innerName, inner, specInner] of innerScorers) {
    it(`equals SCALED-SCORE exactly over ${innerName} (quadratic inner calls in the reference)`, () =>
      fc.assert(
        fc.asyncProperty(arbitraryItems(25), async (items) => {
          assert.deepStrictEqual(await Spec.runScorer(ScaledScorer.make(inner), items), Spec.scoreEach(Spec.scaled(specInner), items))
        }),
        { numRuns: 150 }
      ))
  }

  it("equals SCALED-SCORE exactly over a custom scorer with extreme finite values", () =>
    fc.assert(
      fc.asyncProperty(
        arbitraryItems(20),
        fc.array(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, -0, 1, 1e-310, -1e300)), { minLength: 20, maxLength: 20 }),
        async (items, values) => {
          // Scores attached to objects, so that repeated objects score alike, as a pure scorer's do.
          const valueOf = (x: ContextItem, all: ReadonlyArray<ContextItem>) => values[all.indexOf(x)]!
          const inner = Scorer.make("custom", valueOf)
          const expected = Spec.scoreEach(Spec.scaled(valueOf), items)
          const actual = await Spec.runScorer(ScaledScorer.make(inner), items)
          // Where max − min overflows the reference computes 0 or NaN; the scorer computes the
          // intended quotient (tested above). Compare only when the reference's range is finite.
          const raw = items.map((x) => valueOf(x, items))
          if (items.length > 0 && !Number.isFinite(Math.max(...raw) - Math.min(...raw))) return
          assert.deepStrictEqual(actual, expected)
        }
      ),
      { numRuns: 300 }
    ))
})
