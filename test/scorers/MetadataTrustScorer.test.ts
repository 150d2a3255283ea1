import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { InvalidConfigError } from "../../src/InvalidConfigError.ts"
import * as MetadataTrustScorer from "../../src/scorers/MetadataTrustScorer.ts"
import * as Scorer from "../../src/scorers/Scorer.ts"
import { items as arbitraryItems } from "../support/scorerArbitraries.ts"
import { scorerItem as item } from "../support/scorerItems.ts"
import * as Spec from "../support/specScorers.ts"

const trust = (value: unknown) => item(`trust ${String(value)}`, { metadata: { "cupel:trust": value } })
const scoresOf = (items: Parameters<typeof Spec.runScorer>[1], defaultScore = 0.5) =>
  Effect.flatMap(MetadataTrustScorer.make({ defaultScore }), (s) => s.scoreAll(items)).pipe(Effect.map((s) => Array.from(s)))

describe("MetadataTrustScorer — chapter rules", () => {
  it.effect("is named \"metadata_trust\"", () => Effect.map(MetadataTrustScorer.make(), (s) => assert.strictEqual(s.name, "metadata_trust")))

  it.effect("present and valid: the parsed value (vector metadata-trust-present-valid)", () =>
    Effect.map(scoresOf([trust("0.85")]), (s) => assert.deepStrictEqual(s, [0.85])))

  it.effect("key absent: defaultScore (vector metadata-trust-key-absent)", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* scoresOf([item("no-trust-key")]), [0.5])
      assert.deepStrictEqual(yield* scoresOf([item("no-trust-key")], 0.2), [0.2])
    }))

  it.effect("unparseable (\"high\", \"\"): defaultScore (vector metadata-trust-unparseable)", () =>
    Effect.map(scoresOf([trust("high"), trust("")], 0.3), (s) => assert.deepStrictEqual(s, [0.3, 0.3])))

  it.effect("\"NaN\", \"+Infinity\", \"-Infinity\", \"inf\", \"1e400\": defaultScore, not a clamped bound (vector metadata-trust-non-finite)", () =>
    Effect.map(scoresOf([trust("NaN"), trust("+Infinity"), trust("-Infinity"), trust("inf"), trust("1e400")], 0.4), (s) =>
      assert.deepStrictEqual(s, [0.4, 0.4, 0.4, 0.4, 0.4])))

  it.effect("\"0.0\", \"0.75\", \"1.0\" pass through", () =>
    Effect.map(scoresOf([trust("0.0"), trust("0.75"), trust("1.0")]), (s) => assert.deepStrictEqual(s, [0, 0.75, 1])))

  it.effect("\"-0.1\" clamps to 0.0 and \"1.5\" to 1.0 (vector metadata-trust-out-of-range-high)", () =>
    Effect.map(scoresOf([trust("-0.1"), trust("1.5")]), (s) => assert.deepStrictEqual(s, [0, 1])))

  it.effect("numbers are used directly, without string conversion; non-finite numbers score the default", () =>
    Effect.map(scoresOf([trust(0.85), trust(2), trust(-3), trust(NaN), trust(Infinity), trust(1n)], 0.5), (s) =>
      assert.deepStrictEqual(s, [0.85, 1, 0, 0.5, 0.5, 1])))

  it.effect("any other type (boolean, null, object, array) is a parse failure: defaultScore", () =>
    Effect.map(scoresOf([trust(true), trust(null), trust({ value: 0.9 }), trust([0.9]), trust(undefined)], 0.1), (s) =>
      assert.deepStrictEqual(s, [0.1, 0.1, 0.1, 0.1, 0.1])))

  it("strings follow str::parse::<f64>: signs, bare points and exponents parse; whitespace, hex, separators do not", () => {
    const parses: ReadonlyArray<readonly [string, number | undefined]> = [
      ["0.5", 0.5], ["+0.5", 0.5], [".5", 0.5], ["5.", 5], ["5e-1", 0.5], ["5E-1", 0.5], ["-0", -0],
      [" 0.5", undefined], ["0.5 ", undefined], ["0x1", undefined], ["1_0", undefined], [".", undefined],
      ["1e", undefined], ["e1", undefined], ["−0.5", undefined], ["", undefined], ["0.5.1", undefined]
    ]
    for (const [raw, value] of parses) assert.strictEqual(MetadataTrustScorer.parseTrust(raw), value, raw)
  })

  it.effect("the key must be the item's own: a prototype's \"cupel:trust\" is not read", () =>
    Effect.gen(function*() {
      const metadata: Record<string, unknown> = Object.create({ "cupel:trust": "0.9" })
      assert.deepStrictEqual(yield* scoresOf([item("proto", { metadata })], 0.5), [0.5])
    }))

  it.effect("construction: defaultScore outside [0.0, 1.0] or NaN is refused", () =>
    Effect.gen(function*() {
      for (const defaultScore of [-0.1, 1.1, NaN, Infinity]) {
        const error = yield* Effect.flip(MetadataTrustScorer.make({ defaultScore }))
        assert.instanceOf(error, InvalidConfigError)
        assert.deepStrictEqual([error.component, error.path], ["MetadataTrustScorer", "defaultScore"])
      }
      assert.deepStrictEqual(yield* scoresOf([item("x")], 0), [0])
      assert.deepStrictEqual(yield* scoresOf([item("x")], 1), [1])
    }))

  it.effect("layer provides the trust scorer with defaultScore 0.5", () =>
    Effect.map(Scorer.scoreAll([item("x"), trust("0.25")]), (s) => assert.deepStrictEqual(Array.from(s), [0.5, 0.25])).pipe(
      Effect.provide(MetadataTrustScorer.layer)
    ))
})

describe("MetadataTrustScorer — the layer reuses make's default", () => {
  it.effect("layer scores every item exactly as make() with no options does", () =>
    Effect.gen(function*() {
      const items = [item("x"), trust("0.25"), trust("high"), trust(7), trust(Number.NaN)]
      const fromMake = yield* Effect.flatMap(MetadataTrustScorer.make(), (s) => s.scoreAll(items))
      const fromLayer = yield* Scorer.scoreAll(items).pipe(Effect.provide(MetadataTrustScorer.layer))
      assert.deepStrictEqual(Array.from(fromLayer), Array.from(fromMake))
      assert.deepStrictEqual(Array.from(fromLayer), [0.5, 0.25, 0.5, 1, 0.5])
    }))
})

describe("MetadataTrustScorer — against the chapter's pseudocode", () => {
  it("equals METADATA-TRUST-SCORE exactly (a hand-written parser of the same grammar as reference)", () =>
    fc.assert(
      fc.asyncProperty(arbitraryItems(30), fc.double({ min: 0, max: 1, noNaN: true }), async (items, defaultScore) => {
        const scorer = await Effect.runPromise(MetadataTrustScorer.make({ defaultScore }))
        assert.deepStrictEqual(await Spec.runScorer(scorer, items), Spec.scoreEach(Spec.metadataTrust(defaultScore), items))
      }),
      { numRuns: 400 }
    ))

  it("parseTrust agrees with the reference parser on arbitrary strings", () =>
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 8 }), fc.stringMatching(/^[+-]?[0-9]{0,3}\.?[0-9]{0,3}([eE][+-]?[0-9]{0,3})?$/)), (raw) => {
        const reference = Spec.scoreEach(Spec.metadataTrust(0.5), [item("x", { metadata: { "cupel:trust": raw } })])[0]
        const parsed = MetadataTrustScorer.parseTrust(raw)
        assert.strictEqual(parsed === undefined ? 0.5 : Math.min(Math.max(parsed, 0), 1), reference)
      }),
      { numRuns: 2000 }
    ))
})
