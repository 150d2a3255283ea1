import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { InvalidConfigError } from "../../src/InvalidConfigError.ts"
import * as TagScorer from "../../src/scorers/TagScorer.ts"
import { items as arbitraryItems, weight } from "../support/scorerArbitraries.ts"
import { scorerItem as item } from "../support/scorerItems.ts"
import * as Spec from "../support/specScorers.ts"

const scoresOf = (weights: TagScorer.Weights, items: Parameters<typeof Spec.runScorer>[1], options?: TagScorer.Options) =>
  Effect.flatMap(TagScorer.make(weights, options), (s) => s.scoreAll(items)).pipe(Effect.map((s) => Array.from(s)))

describe("TagScorer — chapter rules", () => {
  it.effect("is named \"tag\"", () => Effect.map(TagScorer.make({ a: 1 }), (s) => assert.strictEqual(s.name, "tag")))

  it.effect("score is matched weight / total weight (vector tag-basic)", () =>
    Effect.gen(function*() {
      const items = [
        item("full match", { tags: ["important", "recent", "archived"] }),
        item("partial match", { tags: ["important"] }),
        item("small match", { tags: ["archived"] }),
        item("no match", { tags: ["other"] })
      ]
      assert.deepStrictEqual(yield* scoresOf({ important: 3, recent: 2, archived: 1 }, items), [1, 0.5, 1 / 6, 0])
    }))

  it.effect("item has no tags: 0.0 (vector tag-no-tags)", () =>
    Effect.gen(function*() {
      const items = [item("has tags", { tags: ["important"] }), item("no tags", { tags: [] })]
      assert.deepStrictEqual(yield* scoresOf({ important: 5 }, items), [1, 0])
    }))

  it.effect("totalWeight is 0.0 (all weights zero, or none configured): 0.0", () =>
    Effect.gen(function*() {
      const items = [item("a", { tags: ["x"] })]
      assert.deepStrictEqual(yield* scoresOf({ x: 0, y: 0 }, items), [0])
      assert.deepStrictEqual(yield* scoresOf({}, items), [0])
    }))

  it.effect("item has tags but none match: 0.0", () =>
    Effect.map(scoresOf({ x: 1 }, [item("a", { tags: ["y", "z"] })]), (s) => assert.deepStrictEqual(s, [0])))

  it.effect("the denominator is the sum of all configured weights, not of the matched ones", () =>
    Effect.map(scoresOf({ x: 1, y: 3 }, [item("a", { tags: ["x"] })]), (s) => assert.deepStrictEqual(s, [0.25])))

  it.effect("duplicate tags each add to matchedSum; the result is clamped to 1.0", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* scoresOf({ x: 1, y: 3 }, [item("a", { tags: ["x", "x"] })]), [0.5])
      assert.deepStrictEqual(yield* scoresOf({ x: 3, y: 1 }, [item("a", { tags: ["x", "x"] })]), [1])
    }))

  it.effect("lookup is ordinal (case-sensitive) by default", () =>
    Effect.map(scoresOf({ Important: 1 }, [item("a", { tags: ["important"] }), item("b", { tags: ["Important"] })]), (s) =>
      assert.deepStrictEqual(s, [0, 1])))

  it.effect("caseInsensitive: true compares tags under ASCII folding", () =>
    Effect.gen(function*() {
      const items = [item("a", { tags: ["important"] }), item("b", { tags: ["IMPORTANT"] }), item("c", { tags: ["ÜBER"] })]
      assert.deepStrictEqual(yield* scoresOf({ Important: 1, über: 1 }, items, { caseInsensitive: true }), [0.5, 0.5, 0])
    }))

  it.effect("construction: negative weights are refused, naming the tag", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(TagScorer.make({ a: 1, b: -2 }))
      assert.instanceOf(error, InvalidConfigError)
      assert.deepStrictEqual([error.component, error.path], ["TagScorer", "weights[\"b\"]"])
      assert.match(error.rule, /non-negative/)
    }))

  it.effect("construction: NaN and infinite weights are refused", () =>
    Effect.gen(function*() {
      for (const w of [NaN, Infinity]) {
        const error = yield* Effect.flip(TagScorer.make(new Map([["a", w]])))
        assert.match(error.rule, /finite/)
      }
    }))

  it.effect("construction: finite weights whose sum is not finite are refused (an item matching both would score NaN)", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(TagScorer.make({ a: 1e308, b: 1e308 }))
      assert.instanceOf(error, InvalidConfigError)
      assert.deepStrictEqual([error.component, error.path], ["TagScorer", "weights"])
      assert.match(error.rule, /sum is finite/)
      // The largest double alone, or two that still add up below it, are accepted.
      assert.deepStrictEqual(yield* scoresOf({ a: Number.MAX_VALUE }, [item("x", { tags: ["a"] })]), [1])
      assert.deepStrictEqual(
        yield* scoresOf({ a: Number.MAX_VALUE / 2, b: Number.MAX_VALUE / 2 }, [item("x", { tags: ["a", "b"] })]),
        [1]
      )
    }))

  it.effect("construction, case-insensitive: tags that differ only in case are refused", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(TagScorer.make({ a: 1, A: 2 }, { caseInsensitive: true }))
      assert.strictEqual(error.path, "weights[\"A\"]")
      // Case-sensitive, they are two tags.
      assert.deepStrictEqual(yield* scoresOf({ a: 1, A: 3 }, [item("x", { tags: ["A"] })]), [0.75])
    }))
})

const tagNames = fc.constantFrom("web", "Web", "api", "API", "db", "cli", "x", "ß", "Ü", "ü", "a", "k")

describe("TagScorer — against the chapter's pseudocode", () => {
  it("construction fails exactly when CONSTRUCT-TAG-SCORER does; scores equal TAG-SCORE exactly (same summation order)", () =>
    fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.tuple(tagNames, weight), { selector: ([t]) => t, maxLength: 6 }),
        arbitraryItems(20),
        async (weights, items) => {
          const spec = Spec.constructTag(weights)
          const result = await Effect.runPromise(Effect.result(TagScorer.make(new Map(weights))))
          assert.strictEqual(result._tag === "Failure", "error" in spec)
          if (result._tag === "Success" && "totalWeight" in spec) {
            assert.deepStrictEqual(await Spec.runScorer(result.success, items), Spec.scoreEach(Spec.tag(weights, spec.totalWeight), items))
          }
        }
      ),
      { numRuns: 300 }
    ))

  it("case-insensitive: equals TAG-SCORE with an ASCII-folding comparer", () =>
    fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.tuple(tagNames, fc.double({ min: 0, max: 5, noNaN: true })), { selector: ([t]) => t.toLowerCase(), maxLength: 6 }),
        arbitraryItems(20),
        async (weights, items) => {
          const spec = Spec.constructTag(weights)
          const scorer = await Effect.runPromise(TagScorer.make(new Map(weights), { caseInsensitive: true }))
          if (!("totalWeight" in spec)) return assert.fail("valid weights")
          assert.deepStrictEqual(
            await Spec.runScorer(scorer, items),
            Spec.scoreEach(Spec.tag(weights, spec.totalWeight, Spec.tagCaseInsensitive), items)
          )
        }
      ),
      { numRuns: 300 }
    ))
})
