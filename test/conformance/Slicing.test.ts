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

/** The same items under a quota slicer: "tool" entries and quotas, with the other fields given. */
const quota = (slicer: string, selected: string, config = "", expected = "", requireCount = 1) => `
[test]
name = "${slicer}"
stage = "slicing"
slicer = "${slicer}"

[config]
bucket_size = 50
${config}

[[config.entries]]
kind = "tool"
require_count = ${requireCount}
cap_count = ${Math.max(2, requireCount)}

[[config.entries]]
kind = "doc"

[[config.quotas]]
kind = "tool"
require = 10.0
cap = 60.0

[budget]
target_tokens = 150

[[scored_items]]
content = "small"
tokens = 10
score = 0.2
kind = "Tool"

[[scored_items]]
content = "zero"
tokens = 0
score = 0.1

[[scored_items]]
content = "big"
tokens = 120
score = 0.9
kind = "tool"

[[scored_items]]
content = "tie"
tokens = 10
score = 0.2
kind = "tool"

[expected]
selected_contents = ${selected}
${expected}
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

  it.effect("the quota slicers run: count_quota and count_constrained_knapsack read their entries, quota its quotas", () =>
    Effect.gen(function*() {
      // quota: tool gets 15 + 135 = 150 tokens, clamped to its 60% cap (90): big (120) does not fit.
      // count_quota: big committed; greedy takes zero, small, tie in the 30 left; tie is over the cap of 2.
      // count_constrained_knapsack: big committed; 30 tokens are no bucket of 50: only the zero-token item.
      const expected = [
        ["quota", `["small", "tie"]`],
        ["count_quota", `["big", "zero", "small"]`],
        ["count_constrained_knapsack", `["big", "zero"]`]
      ] as const
      for (const [slicer, selected] of expected) {
        const outcome = yield* runText(quota(slicer, selected))
        assert.strictEqual(outcome._tag, "Passed", Conformance.formatOutcome(outcome))
      }
    }))

  it.effect("count quotas: every field is decoded, with its defaults", () =>
    Effect.gen(function*() {
      const vector = yield* parse(quota("count_quota", `[]`))
      assert.deepStrictEqual(vector._tag === "SlicingVector" && vector.slicer, {
        type: "count_quota",
        inner: { type: "greedy" },
        scarcity: "Degrade",
        entries: [{ kind: "tool", requireCount: 1, capCount: 2 }, { kind: "doc", requireCount: 0 }]
      })
      const knapsack = yield* parse(quota("count_constrained_knapsack", `[]`, `scarcity_behavior = "throw"`))
      assert.deepStrictEqual(knapsack._tag === "SlicingVector" && knapsack.slicer, {
        type: "count_constrained_knapsack",
        bucketSize: 50,
        scarcity: "Throw",
        entries: [{ kind: "tool", requireCount: 1, capCount: 2 }, { kind: "doc", requireCount: 0 }]
      })
      const percent = yield* parse(quota("quota", `[]`, `inner_slicer = "knapsack"`))
      assert.deepStrictEqual(percent._tag === "SlicingVector" && percent.slicer, {
        type: "quota",
        inner: { type: "knapsack", bucketSize: 50 },
        quotas: [{ kind: "tool", require: 10, cap: 60 }]
      })
      const nested = yield* parse(quota("quota", `[]`, `inner_slicer = { type = "count_quota", entries = [] }`))
      assert.deepStrictEqual(nested._tag === "SlicingVector" && nested.slicer, {
        type: "quota",
        inner: { type: "count_quota", inner: { type: "greedy" }, scarcity: "Degrade", entries: [] },
        quotas: [{ kind: "tool", require: 10, cap: 60 }]
      })
    }))

  it.effect("shortfall_count and cap_excluded_count are checked, and a mismatch names what was found", () =>
    Effect.gen(function*() {
      const right = yield* runText(quota("count_quota", `["big", "zero", "small"]`, "", "shortfall_count = 0\ncap_excluded_count = 1"))
      assert.strictEqual(right._tag, "Passed", Conformance.formatOutcome(right))
      const wrong = yield* runText(quota("count_quota", `["big", "zero", "small"]`, `scarcity_behavior = "degrade"`, "shortfall_count = 1\ncap_excluded_count = 0", 2))
      assert.strictEqual(wrong._tag, "Failed")
      const line = Conformance.formatOutcome(wrong)
      assert.include(line, "shortfall_count: expected 1, got 0")
      assert.include(line, `cap_excluded_count: expected 0, got 1 ({"tie"})`)
      const short = yield* runText(quota("count_quota", `["big", "zero", "small"]`, "", "shortfall_count = 0", 5))
      assert.include(Conformance.formatOutcome(short), "shortfall_count: expected 0, got 1 (tool: 3 of 5)")
    }))

  it.effect("a quota slicer's construction error fails the vector, quoting the rule", () =>
    Effect.gen(function*() {
      const outcome = yield* runText(quota("count_quota", `[]`, `inner_slicer = "knapsack"`))
      assert.strictEqual(outcome._tag, "Failed")
      assert.include(Conformance.formatOutcome(outcome), "must not be a KnapsackSlice")
    }))

  it.effect("a quota slicer's fields are checked: wrong types and values are named", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        parse(quota("count_constrained_knapsack", `[]`, `scarcity_behavior = "panic"\ninner_slicer = "greedy"`).replace(`require_count = 1`, `require_count = "one"`))
      )
      assert.strictEqual(error._tag, "InvalidVectorError")
      if (error._tag !== "InvalidVectorError") return
      assert.sameMembers([...error.problems], [
        `config.inner_slicer: Expected "knapsack", got "greedy"`,
        `config.scarcity_behavior: Expected "degrade" | "throw", got "panic"`,
        `config.entries[0].require_count: Expected a number, got "one"`
      ])
      const inner = yield* Effect.flip(parse(quota("quota", `[]`, `inner_slicer = "count_quota"`)))
      assert.include(inner.message, "config.inner_slicer: a count_quota slicer as the inner slicer needs a table of its own")
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
