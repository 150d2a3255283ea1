import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { InvalidConfigError } from "../../src/InvalidConfigError.ts"
import * as MetadataKeyScorer from "../../src/scorers/MetadataKeyScorer.ts"
import { items as arbitraryItems } from "../support/scorerArbitraries.ts"
import { scorerItem as item } from "../support/scorerItems.ts"
import * as Spec from "../support/specScorers.ts"

const config = { key: "cupel:priority", value: "high", boost: 1.5 }
const scoresOf = (items: Parameters<typeof Spec.runScorer>[1], options: MetadataKeyScorer.Options = config) =>
  Effect.flatMap(MetadataKeyScorer.make(options), (s) => s.scoreAll(items)).pipe(Effect.map((s) => Array.from(s)))

describe("MetadataKeyScorer — chapter rules", () => {
  it.effect("is named \"metadata_key\"", () => Effect.map(MetadataKeyScorer.make(config), (s) => assert.strictEqual(s.name, "metadata_key")))

  it.effect("key present, value matches: boost (vector metadata-key-match-boost)", () =>
    Effect.map(scoresOf([item("high-priority-item", { metadata: { "cupel:priority": "high" } })]), (s) => assert.deepStrictEqual(s, [1.5])))

  it.effect("key present, value does not match: 1.0 (vector metadata-key-no-match-neutral)", () =>
    Effect.map(scoresOf([item("normal", { metadata: { "cupel:priority": "normal" } })]), (s) => assert.deepStrictEqual(s, [1])))

  it.effect("key absent: 1.0 regardless of boost (vector metadata-key-absent-neutral)", () =>
    Effect.map(scoresOf([item("no-metadata-item")], { ...config, boost: 9 }), (s) => assert.deepStrictEqual(s, [1])))

  it.effect("comparison is exact string equality: no case folding, no trimming", () =>
    Effect.map(
      scoresOf(["High", "high ", "HIGH", "high"].map((v) => item(v, { metadata: { "cupel:priority": v } }))),
      (s) => assert.deepStrictEqual(s, [1, 1, 1, 1.5])
    ))

  it.effect("scores are not clamped: a boost below 1 or above 1 is returned as it is", () =>
    Effect.gen(function*() {
      const hit = [item("h", { metadata: { "cupel:priority": "high" } })]
      assert.deepStrictEqual(yield* scoresOf(hit, { ...config, boost: 0.25 }), [0.25])
      assert.deepStrictEqual(yield* scoresOf(hit, { ...config, boost: 40 }), [40])
    }))

  it.effect("non-string values compare by their string form; objects and null never match", () =>
    Effect.gen(function*() {
      const options = { key: "k", value: "1.5", boost: 2 }
      const items = [1.5, "1.5", true, null, { toString: () => "1.5" }, [1.5]].map((v, k) => item(`v${k}`, { metadata: { k: v } }))
      assert.deepStrictEqual(yield* scoresOf(items, options), [2, 2, 1, 1, 1, 1])
      assert.deepStrictEqual(yield* scoresOf([item("b", { metadata: { k: true } })], { key: "k", value: "true", boost: 2 }), [2])
    }))

  it.effect("the key must be the item's own: inherited keys are absent", () =>
    Effect.map(scoresOf([item("x", { metadata: Object.create({ "cupel:priority": "high" }) })]), (s) => assert.deepStrictEqual(s, [1])))

  it.effect("construction: boost 0.0 is refused (vector metadata-key-zero-boost-construction-error)", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(MetadataKeyScorer.make({ ...config, boost: 0 }))
      assert.instanceOf(error, InvalidConfigError)
      assert.deepStrictEqual([error.component, error.path], ["MetadataKeyScorer", "boost"])
      assert.match(error.rule, /greater than 0/)
    }))

  it.effect("construction: negative boost is refused (vector metadata-key-negative-boost-construction-error)", () =>
    Effect.map(Effect.flip(MetadataKeyScorer.make({ ...config, boost: -1 })), (e) => assert.strictEqual(e.path, "boost")))

  it.effect("construction: NaN and infinite boosts are refused; so is −0", () =>
    Effect.gen(function*() {
      for (const boost of [NaN, Infinity, -Infinity, -0]) {
        const error = yield* Effect.flip(MetadataKeyScorer.make({ ...config, boost }))
        assert.strictEqual(error.path, "boost")
      }
    }))
})

describe("MetadataKeyScorer — against the chapter's pseudocode", () => {
  it("equals METADATA-KEY-SCORE exactly", () =>
    fc.assert(
      fc.asyncProperty(
        arbitraryItems(30),
        fc.constantFrom("cupel:priority", "other", "missing"),
        fc.constantFrom("high", "normal", "1.5", "true", ""),
        fc.double({ min: 1e-9, max: 100, noNaN: true }),
        async (items, key, value, boost) => {
          const scorer = await Effect.runPromise(MetadataKeyScorer.make({ key, value, boost }))
          assert.deepStrictEqual(await Spec.runScorer(scorer, items), Spec.scoreEach(Spec.metadataKey({ key, value, boost }), items))
        }
      ),
      { numRuns: 300 }
    ))
})
