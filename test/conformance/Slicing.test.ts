import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Conformance from "../../src/Conformance.ts"

const parse = (text: string) => Conformance.parseVector("slicing.toml", text)
const runText = (text: string) => Effect.flatMap(parse(text), Conformance.runVector)

const greedy = (selected: string, budget = "target_tokens = 150", slicer = `slicer = "greedy"`) => `
[test]
name = "greedy"
stage = "slicing"
${slicer}

[config]
bucket_size = 50

[budget]
${budget}

# deliberately not in score order
[[scored_items]]
content = "small"
tokens = 100
score = 0.2

[[scored_items]]
content = "zero"
tokens = 0
score = 0.1

[[scored_items]]
content = "big"
tokens = 120
score = 0.9

[[scored_items]]
content = "tie"
tokens = 100
score = 0.2

[expected]
selected_contents = ${selected}
`

describe("Conformance — slicing vectors", () => {
  it.effect("scored items are put in score order first, as the Sort stage does (descending, stable)", () =>
    Effect.gen(function*() {
      const vector = yield* parse(greedy(`[]`))
      assert.strictEqual(vector._tag, "SlicingVector")
      if (vector._tag !== "SlicingVector") return
      assert.deepStrictEqual(vector.sorted.map((s) => s.item.content), ["big", "small", "tie", "zero"])
      assert.deepStrictEqual([vector.budget.maxTokens, vector.budget.targetTokens], [150, 150])
    }))

  it.effect("the selection is compared as a set: any order passes", () =>
    Effect.gen(function*() {
      // densities: zero ∞, small 0.002, tie 0.002, big 0.0075 → zero, big (120), then 30 left
      const outcome = yield* runText(greedy(`["big", "zero"]`))
      assert.strictEqual(outcome._tag, "Passed", Conformance.formatOutcome(outcome))
    }))

  it.effect("a wrong selection is failed, listing both sets, what is missing and what is unexpected", () =>
    Effect.gen(function*() {
      const outcome = yield* runText(greedy(`["small", "zero"]`))
      assert.strictEqual(outcome._tag, "Failed")
      assert.include(
        Conformance.formatOutcome(outcome),
        `selected_contents: expected {"small", "zero"} (any order), got {"big", "zero"} (missing {"small"}, unexpected {"big"})`
      )
    }))

  it.effect("knapsack reads bucket_size from [config]", () =>
    Effect.gen(function*() {
      const vector = yield* parse(greedy(`["zero", "small"]`, "target_tokens = 150", `slicer = "knapsack"`))
      assert.deepStrictEqual(vector._tag === "SlicingVector" && vector.slicer, { type: "knapsack", bucketSize: 50 })
    }))

  it.effect("every quota slicer is skipped with the reason, never passed or failed", () =>
    Effect.gen(function*() {
      for (const slicer of ["quota", "count_quota", "count_constrained_knapsack"]) {
        const outcome = yield* runText(greedy(`["nothing"]`, "target_tokens = 150", `slicer = "${slicer}"`))
        assert.strictEqual(outcome._tag, "Skipped")
        assert.strictEqual(outcome._tag === "Skipped" && outcome.reason, "not implemented yet (quota slicers)")
      }
    }))

  it.effect("decoding errors name the field: slicer, budget, scored item, expectation", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        parse(greedy(`"small"`, "target_tokens = 150\nmax_tokens = 100", `slicer = "greedie"`).replace("score = 0.9", `score = "high"`))
      )
      assert.strictEqual(error._tag, "InvalidVectorError")
      if (error._tag !== "InvalidVectorError") return
      assert.sameMembers([...error.problems], [
        `test.slicer: Expected "greedy" | "knapsack" | "quota" | "count_quota" | "count_constrained_knapsack", got "greedie"`,
        "budget.targetTokens: targetTokens (150) must not exceed maxTokens (100)",
        `scored_items[2].score: Expected a number, got "high"`,
        `expected.selected_contents: Expected an array, got "small"`
      ])
    }))
})
