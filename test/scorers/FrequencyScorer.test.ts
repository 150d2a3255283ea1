import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { positionsOfRepeats } from "../../src/scorers/internal/repeatedObjects.ts"
import * as FrequencyScorer from "../../src/scorers/FrequencyScorer.ts"
import * as Scorer from "../../src/scorers/Scorer.ts"
import { items as arbitraryItems } from "../support/scorerArbitraries.ts"
import { scorerItem as item } from "../support/scorerItems.ts"
import * as Spec from "../support/specScorers.ts"

const scorer = FrequencyScorer.make()
const score = (items: Parameters<typeof Spec.runScorer>[1]) => Spec.runScorer(scorer, items)

describe("FrequencyScorer — chapter rules", () => {
  it("is named \"frequency\"", () => assert.strictEqual(scorer.name, "frequency"))

  it("scores the proportion of peers sharing a tag (vector frequency-basic)", async () => {
    const items = [
      item("A", { tags: ["web", "api"] }),
      item("B", { tags: ["web"] }),
      item("C", { tags: ["api", "db"] }),
      item("D", { tags: ["cli"] })
    ]
    assert.deepStrictEqual(await score(items), [2 / 3, 1 / 3, 1 / 3, 0])
  })

  it("item has no tags: 0.0", async () => {
    assert.deepStrictEqual(await score([item("a"), item("b", { tags: ["x"] })]), [0, 0])
  })

  it("only one item: 0.0", async () => {
    assert.deepStrictEqual(await score([item("a", { tags: ["x"] })]), [0])
  })

  it("no peer shares any tag: 0.0; all peers share one: 1.0", async () => {
    assert.deepStrictEqual(await score([item("a", { tags: ["x"] }), item("b", { tags: ["y"] })]), [0, 0])
    assert.deepStrictEqual(await score([item("a", { tags: ["x", "y"] }), item("b", { tags: ["y"] }), item("c", { tags: ["x"] })]), [1, 0.5, 0.5])
  })

  it("a peer without tags does not match, but stays in the denominator (length − 1)", async () => {
    assert.deepStrictEqual(await score([item("a", { tags: ["x"] }), item("b", { tags: ["x"] }), item("c")]), [0.5, 0.5, 0])
  })

  it("tags are compared case-insensitively (ASCII folding): \"Important\" matches \"important\"", async () => {
    assert.deepStrictEqual(await score([item("a", { tags: ["Important"] }), item("b", { tags: ["IMPORTANT"] })]), [1, 1])
    assert.deepStrictEqual(await score([item("a", { tags: ["Über"] }), item("b", { tags: ["über"] })]), [0, 0])
  })

  it("a peer sharing several tags counts once", async () => {
    assert.deepStrictEqual(await score([item("a", { tags: ["x", "y", "X"] }), item("b", { tags: ["y", "x"] })]), [1, 1])
  })

  it("self-exclusion is by reference: copies with equal content count as peers", async () => {
    const a = item("same", { tags: ["x"] })
    const b = item("same", { tags: ["x"] })
    assert.deepStrictEqual(await score([a, b]), [1, 1])
  })

  it("the same object twice: every position holding it is skipped; the denominator stays length − 1", async () => {
    const a = item("a", { tags: ["x"] })
    const b = item("b", { tags: ["x"] })
    assert.deepStrictEqual(await score([a, a, b]), [0.5, 0.5, 1])
  })

  it("repeated objects (one helper, positionsOfRepeats): none repeated is undefined; repeats map to their positions", () => {
    const a = item("a")
    const b = item("b")
    assert.isUndefined(positionsOfRepeats([a, b, item("a")]))
    assert.isUndefined(positionsOfRepeats([]))
    const repeats = positionsOfRepeats([a, b, a, a])
    assert.deepStrictEqual(repeats === undefined ? undefined : [...repeats], [[a, [0, 2, 3]], [b, [1]]])
  })

  it("the same object three times among tagged peers: each copy leaves out all three", async () => {
    const a = item("a", { tags: ["x"] })
    const b = item("b", { tags: ["x"] })
    const c = item("c", { tags: ["y"] })
    // n = 5, denominator 4; "a" meets a, a, a, b (4) less its 3 copies = 1.
    assert.deepStrictEqual(await score([a, b, a, c, a]), [0.25, 0.75, 0.25, 0, 0.25])
  })

  it("large tag sets (more than subsetLimit distinct tags) are counted exactly", async () => {
    const many = Array.from({ length: FrequencyScorer.subsetLimit + 3 }, (_, k) => `t${k}`)
    const items = [
      item("big", { tags: many }),
      item("big-2", { tags: [...many.slice(5), "other"] }),
      item("small", { tags: ["t0"] }),
      item("small-2", { tags: ["other", "zzz"] }),
      item("none", { tags: ["q"] })
    ]
    assert.deepStrictEqual(await score(items), Spec.scoreEach(Spec.frequency, items))
    assert.deepStrictEqual(await score(items), [2 / 4, 2 / 4, 1 / 4, 1 / 4, 0])
  })

  it.effect("layer provides the frequency scorer", () =>
    Effect.map(Scorer.scoreAll([item("a", { tags: ["x"] }), item("b", { tags: ["X"] })]), (s) => assert.deepStrictEqual(Array.from(s), [1, 1])).pipe(
      Effect.provide(FrequencyScorer.layer)
    ))
})

describe("FrequencyScorer — against the chapter's pseudocode", () => {
  it("equals FREQUENCY-SCORE exactly (case variants, large tag sets, repeated objects)", () =>
    fc.assert(
      fc.asyncProperty(arbitraryItems(40), async (items) => {
        assert.deepStrictEqual(await score(items), Spec.scoreEach(Spec.frequency, items))
      }),
      { numRuns: 500 }
    ))
})
