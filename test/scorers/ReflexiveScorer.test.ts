import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import * as ReflexiveScorer from "../../src/scorers/ReflexiveScorer.ts"
import * as Scorer from "../../src/scorers/Scorer.ts"
import { items as arbitraryItems } from "../support/scorerArbitraries.ts"
import { scorerItem as item } from "../support/scorerItems.ts"
import * as Spec from "../support/specScorers.ts"

const scorer = ReflexiveScorer.make()

describe("ReflexiveScorer — chapter rules", () => {
  it("is named \"reflexive\"", () => assert.strictEqual(scorer.name, "reflexive"))

  it("passes the hint through, clamped to [0.0, 1.0] (vector reflexive-basic)", async () => {
    const items = [0.0, 0.5, 1.0, 1.5, -0.3].map((hint) => item(`h${hint}`, { hint }))
    assert.deepStrictEqual(await Spec.runScorer(scorer, items), [0, 0.5, 1, 1, 0])
  })

  it("futureRelevanceHint is null: 0.0 (vector reflexive-null)", async () => {
    assert.deepStrictEqual(await Spec.runScorer(scorer, [item("has hint", { hint: 0.75 }), item("no hint")]), [0.75, 0])
  })

  // Items cannot carry a non-finite hint (the schema refuses it), so the rule is tested on the
  // scoring function itself.
  it("futureRelevanceHint is NaN, +infinity or −infinity: 0.0, not a clamped bound", () => {
    assert.strictEqual(ReflexiveScorer.scoreHint(NaN), 0)
    assert.strictEqual(ReflexiveScorer.scoreHint(Infinity), 0)
    assert.strictEqual(ReflexiveScorer.scoreHint(-Infinity), 0)
  })

  it("−0.3 clamps to 0.0 and 1.7 to 1.0; extremes clamp too", () => {
    assert.strictEqual(ReflexiveScorer.scoreHint(-0.3), 0)
    assert.strictEqual(ReflexiveScorer.scoreHint(1.7), 1)
    assert.strictEqual(ReflexiveScorer.scoreHint(Number.MAX_VALUE), 1)
    assert.strictEqual(ReflexiveScorer.scoreHint(-Number.MAX_VALUE), 0)
    assert.strictEqual(ReflexiveScorer.scoreHint(Number.MIN_VALUE), Number.MIN_VALUE)
  })

  it.effect("layer provides the reflexive scorer", () =>
    Effect.map(Scorer.scoreAll([item("a", { hint: 0.25 })]), (s) => assert.deepStrictEqual(Array.from(s), [0.25])).pipe(
      Effect.provide(ReflexiveScorer.layer)
    ))
})

describe("ReflexiveScorer — against the chapter's pseudocode", () => {
  it("equals REFLEXIVE-SCORE exactly on random lists", () =>
    fc.assert(
      fc.asyncProperty(arbitraryItems(30), async (items) => {
        assert.deepStrictEqual(await Spec.runScorer(scorer, items), Spec.scoreEach(Spec.reflexive, items))
      }),
      { numRuns: 300 }
    ))

  it("scoreHint equals the pseudocode on any double, NaN and infinities included", () =>
    fc.assert(
      fc.property(fc.double(), (hint) => {
        const viaSpec = Number.isFinite(hint) ? Math.min(Math.max(hint, 0), 1) : 0
        assert.isTrue(Object.is(ReflexiveScorer.scoreHint(hint), hint === 0 ? hint : viaSpec))
      })
    ))
})
