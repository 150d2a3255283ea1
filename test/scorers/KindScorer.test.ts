import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { InvalidConfigError } from "../../src/InvalidConfigError.ts"
import * as KindScorer from "../../src/scorers/KindScorer.ts"
import * as Scorer from "../../src/scorers/Scorer.ts"
import { items as arbitraryItems, weight } from "../support/scorerArbitraries.ts"
import { scorerItem as item } from "../support/scorerItems.ts"
import * as Spec from "../support/specScorers.ts"

describe("KindScorer — chapter rules", () => {
  it.effect("is named \"kind\"", () =>
    Effect.gen(function*() {
      assert.strictEqual(KindScorer.defaults.name, "kind")
      assert.strictEqual((yield* KindScorer.make({})).name, "kind")
    }))

  it.effect("default weights: SystemPrompt 1.0, Memory 0.8, ToolOutput 0.6, Document 0.4, Message 0.2 (vector kind-default-weights)", () =>
    Effect.gen(function*() {
      const items = ["SystemPrompt", "Memory", "ToolOutput", "Document", "Message"].map((kind) => item(kind, { kind }))
      assert.deepStrictEqual(Array.from(yield* KindScorer.defaults.scoreAll(items)), [1.0, 0.8, 0.6, 0.4, 0.2])
      assert.deepStrictEqual(Array.from(yield* (yield* KindScorer.make()).scoreAll(items)), [1.0, 0.8, 0.6, 0.4, 0.2])
    }))

  it("the default weight map holds exactly the five well-known kinds", () => {
    assert.deepStrictEqual(Array.from(KindScorer.defaultWeights), Spec.kindDefaultWeights.map(([k, w]) => [k, w]))
  })

  it.effect("item's kind is not in the weight map: 0.0 (vector kind-unknown)", () =>
    Effect.gen(function*() {
      const items = [item("known kind", { kind: "SystemPrompt" }), item("unknown kind", { kind: "CustomKind" })]
      assert.deepStrictEqual(Array.from(yield* KindScorer.defaults.scoreAll(items)), [1, 0])
    }))

  it.effect("kind comparison is case-insensitive (ASCII folding): \"Message\" matches \"message\" and \"MESSAGE\"", () =>
    Effect.gen(function*() {
      const items = ["message", "MESSAGE", "mEsSaGe", "systemprompt"].map((kind) => item(kind, { kind }))
      assert.deepStrictEqual(Array.from(yield* KindScorer.defaults.scoreAll(items)), [0.2, 0.2, 0.2, 1])
      const custom = yield* KindScorer.make({ memory: 3 })
      assert.deepStrictEqual(Array.from(yield* custom.scoreAll([item("m", { kind: "MEMORY" })])), [3])
    }))

  it.effect("folding is ASCII only: non-ASCII letters must match exactly", () =>
    Effect.gen(function*() {
      const scorer = yield* KindScorer.make({ Straße: 1, Über: 2 })
      const items = [item("a", { kind: "STRAßE" }), item("b", { kind: "über" }), item("c", { kind: "ÜBER" })]
      assert.deepStrictEqual(Array.from(yield* scorer.scoreAll(items)), [1, 0, 2])
    }))

  it.effect("custom weight map is empty: all items score 0.0", () =>
    Effect.gen(function*() {
      const scorer = yield* KindScorer.make(new Map())
      assert.deepStrictEqual(Array.from(yield* scorer.scoreAll([item("a"), item("b", { kind: "Memory" })])), [0, 0])
    }))

  it.effect("custom weight exceeds 1.0: returned as-is, no clamping; zero weights are valid", () =>
    Effect.gen(function*() {
      const scorer = yield* KindScorer.make({ Memory: 7.5, Message: 0 })
      assert.deepStrictEqual(Array.from(yield* scorer.scoreAll([item("m", { kind: "Memory" }), item("x")])), [7.5, 0])
    }))

  it.effect("construction: a negative weight is refused, naming the kind", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(KindScorer.make({ Memory: 1, Message: -0.5 }))
      assert.instanceOf(error, InvalidConfigError)
      assert.strictEqual(error.component, "KindScorer")
      assert.strictEqual(error.path, "weights[\"Message\"]")
      assert.match(error.rule, /non-negative/)
    }))

  it.effect("construction: NaN and ±Infinity weights are refused (−Infinity as negative, as the chapter checks sign first)", () =>
    Effect.gen(function*() {
      for (const [w, rule] of [[NaN, /finite/], [Infinity, /finite/], [-Infinity, /non-negative/]] as const) {
        const error = yield* Effect.flip(KindScorer.make(new Map([["Memory", w]])))
        assert.instanceOf(error, InvalidConfigError)
        assert.match(error.rule, rule)
      }
    }))

  it.effect("construction: two kinds differing only in case are refused (one weight would be lost)", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(KindScorer.make({ Memory: 1, memory: 2 }))
      assert.strictEqual(error.path, "weights[\"memory\"]")
      assert.match(error.rule, /case-insensitively/)
    }))

  it.effect("the weight map is copied: later changes to it do not affect the scorer", () =>
    Effect.gen(function*() {
      const weights = new Map([["Memory", 1]])
      const scorer = yield* KindScorer.make(weights)
      weights.set("Memory", 5)
      assert.deepStrictEqual(Array.from(yield* scorer.scoreAll([item("m", { kind: "Memory" })])), [1])
    }))

  it.effect("layer provides the default kind scorer", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(Array.from(yield* Scorer.scoreAll([item("m", { kind: "Memory" })])), [0.8])
    }).pipe(Effect.provide(KindScorer.layer)))
})

const kinds = fc.constantFrom("Message", "Memory", "SystemPrompt", "Document", "ToolOutput", "Custom", "Straße", "Ünicode")

describe("KindScorer — against the chapter's pseudocode", () => {
  it("default weights: equals KIND-SCORE exactly", () =>
    fc.assert(
      fc.asyncProperty(arbitraryItems(30), async (items) => {
        assert.deepStrictEqual(await Spec.runScorer(KindScorer.defaults, items), Spec.scoreEach(Spec.kind(Spec.kindDefaultWeights), items))
      }),
      { numRuns: 300 }
    ))

  it("custom weights: construction fails exactly when VALIDATE-KIND-WEIGHTS does, and scores equal KIND-SCORE", () =>
    fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.tuple(kinds, weight), { selector: ([k]) => k, maxLength: 6 }), arbitraryItems(20), async (weights, items) => {
        const specError = Spec.validateKindWeights(weights)
        const result = await Effect.runPromise(Effect.result(KindScorer.make(new Map(weights))))
        if (specError !== undefined) {
          assert.strictEqual(result._tag, "Failure")
          if (result._tag === "Failure") assert.include(specError.toLowerCase(), result.failure.rule.split(",")[0]!.replace("must be ", ""))
          return
        }
        assert.strictEqual(result._tag, "Success")
        if (result._tag === "Success") {
          assert.deepStrictEqual(await Spec.runScorer(result.success, items), Spec.scoreEach(Spec.kind(weights), items))
        }
      }),
      { numRuns: 300 }
    ))
})
