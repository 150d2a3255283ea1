import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Conformance from "../../src/Conformance.ts"

const parse = (text: string) => Conformance.parseVector("pipeline.toml", text)
const runText = (text: string) => Effect.flatMap(parse(text), Conformance.runVector)
const line = (text: string) => Effect.map(runText(text), Conformance.formatOutcome)

// Recency: "old" 0.0, "new" 1.0. Greedy, target 200: new (150) fits, 50 left; old (100) does not.
const pipeline = (expected: string, config = "") => `
[test]
name = "pipeline"
stage = "pipeline"

[budget]
max_tokens = 1000
target_tokens = 200

[config]
slicer = "greedy"
placer = "chronological"
deduplication = false
${config}

[[config.scorers]]
type = "recency"
weight = 1.0

[[items]]
content = "old"
tokens = 100
timestamp = 2024-01-01T00:00Z

[[items]]
content = "new"
tokens = 150
timestamp = 2024-06-01T00:00Z

${expected}
`

const right = `
[[expected_output]]
content = "new"

[expected.diagnostics.summary]
total_candidates = 2
total_tokens_considered = 250

[[expected.diagnostics.included]]
content = "new"
score_approx = 1.0
inclusion_reason = "Scored"

[[expected.diagnostics.excluded]]
content = "old"
score_approx = 0.0
exclusion_reason = "BudgetExceeded"
item_tokens = 100
available_tokens = 50
`

describe("Conformance — pipeline vectors", () => {
  it.effect("the window and every part of the diagnostics are checked; a right vector passes", () =>
    Effect.gen(function*() {
      const outcome = yield* runText(pipeline(right))
      assert.strictEqual(outcome._tag, "Passed", Conformance.formatOutcome(outcome))
    }))

  it.effect("a wrong window order is failed", () =>
    Effect.gen(function*() {
      const text = yield* line(pipeline(`[[expected_output]]\ncontent = "old"\n`))
      assert.include(text, `expected_output: expected ["old"], got ["new"]`)
    }))

  it.effect("a wrong reason datum is failed, naming entry and field", () =>
    Effect.gen(function*() {
      const text = yield* line(pipeline(right.replace("available_tokens = 50", "available_tokens = 60")))
      assert.include(text, `diagnostics.excluded[0] "old" available_tokens: expected 60, got 50`)
    }))

  it.effect("a wrong reason, score, inclusion reason and summary are each reported", () =>
    Effect.gen(function*() {
      const text = yield* line(pipeline(
        right
          .replace(`exclusion_reason = "BudgetExceeded"\nitem_tokens = 100\navailable_tokens = 50`, `exclusion_reason = "PinnedOverride"`)
          .replace(`score_approx = 1.0\ninclusion_reason = "Scored"`, `score_approx = 0.5\ninclusion_reason = "Pinned"`)
          .replace("total_candidates = 2", "total_candidates = 3")
      ))
      assert.include(text, "diagnostics.summary.total_candidates: expected 3, got 2")
      assert.include(text, `diagnostics.included[0] "new" score: expected 0.5 (±1e-9), got 1 (off by 0.5)`)
      assert.include(text, `diagnostics.included[0] "new" inclusion_reason: expected "Pinned", got "Scored"`)
      assert.include(text, `diagnostics.excluded[0] "old" exclusion_reason: expected "PinnedOverride", got "BudgetExceeded"`)
    }))

  it.effect("several scorers make a composite with their weights; the slicer's fields are read from [config]", () =>
    Effect.gen(function*() {
      const vector = yield* parse(
        pipeline(right, `bucket_size = 10`).replace(`slicer = "greedy"`, `slicer = "knapsack"`) +
          `\n[[config.scorers]]\ntype = "kind"\nweight = 3.0\n`
      )
      assert.strictEqual(vector._tag, "PipelineVector")
      if (vector._tag !== "PipelineVector") return
      assert.deepStrictEqual(vector.slicer, { type: "knapsack", bucketSize: 10 })
      assert.deepStrictEqual(vector.scorers.map((s) => [s.scorer.type, s.weight]), [["recency", 1], ["kind", 3]])
      assert.deepStrictEqual([vector.deduplication, vector.overflowStrategy], [false, "Throw"])
    }))

  it.effect("a pipeline error is a failure that says what went wrong", () =>
    Effect.gen(function*() {
      // 250 tokens of unsliced pinned items: more than target 200 under Throw.
      const text = yield* line(pipeline(`[[expected_output]]\ncontent = "new"\n`).replaceAll("\ntokens = 1", "\npinned = true\ntokens = 1"))
      assert.include(text, `expected_output: expected ["new"], got OverflowError: `)
    }))

  it.effect("decoding errors name the field", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(parse(
        pipeline(
          right.replace("item_tokens = 100\n", "").replace(`inclusion_reason = "Scored"`, `inclusion_reason = "Chosen"`),
          `overflow_strategy = "drop"`
        ).replace(`placer = "chronological"`, `placer = "sideways"`).replace("weight = 1.0", "weight = true")
      ))
      assert.strictEqual(error._tag, "InvalidVectorError")
      if (error._tag !== "InvalidVectorError") return
      assert.sameMembers([...error.problems], [
        `config.placer: Expected "u-shaped" | "chronological", got "sideways"`,
        `config.overflow_strategy: Expected "throw" | "truncate" | "proceed", got "drop"`,
        `expected.diagnostics.included[0].inclusion_reason: Expected "Scored" | "Pinned" | "ZeroToken", got "Chosen"`,
        `expected.diagnostics.excluded[0].item_tokens: is required when exclusion_reason = "BudgetExceeded"`
      ])
      // The scorer entries are decoded once the [config] table is sound.
      const weight = yield* Effect.flip(parse(pipeline(right).replace("weight = 1.0", "weight = true")))
      assert.include(weight.message, "config.scorers[0].weight: Expected a number, got true")
      const none = yield* Effect.flip(parse(pipeline(right).replace(`[[config.scorers]]\ntype = "recency"\nweight = 1.0`, "")))
      assert.include(none.message, "config.scorers: is required but missing")
    }))

  it.effect("a count-quota slicer is configured from [config] and its CountCapExceeded reason (kind, cap, count) is checked", () =>
    Effect.gen(function*() {
      const vector = pipeline(
        `
[[expected_output]]
content = "new"

[[expected.diagnostics.excluded]]
content = "old"
score_approx = 0.0
exclusion_reason = "CountCapExceeded"
kind = "message"
cap = 1
count = 1
`,
        `
[[config.entries]]
kind = "message"
cap_count = 1
`
      ).replace(`slicer = "greedy"`, `slicer = "count_quota"`).replace("target_tokens = 200", "target_tokens = 500")
      const outcome = yield* runText(vector)
      assert.strictEqual(outcome._tag, "Passed", Conformance.formatOutcome(outcome))
      const wrong = yield* line(vector.replace("\ncount = 1", "\ncount = 2"))
      assert.include(wrong, `diagnostics.excluded[0] "old" count: expected 2, got 1`)
    }))
})
