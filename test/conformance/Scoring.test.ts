import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Conformance from "../../src/Conformance.ts"

const parse = (text: string) => Conformance.parseVector("scoring.toml", text)
const runText = (text: string) => Effect.flatMap(parse(text), Conformance.runVector)
const problems = (text: string) =>
  Effect.map(Effect.flip(parse(text)), (error) => (error._tag === "InvalidVectorError" ? [...error.problems] : [error.message]))

const recency = (expected: string, extra = "") => `
[test]
name = "recency"
stage = "scoring"
scorer = "recency"
${extra}

[[items]]
content = "old"
tokens = 10
timestamp = 2024-01-01T00:00Z

[[items]]
content = "new"
tokens = 10
timestamp = 2024-12-01T00:00Z

${expected}
`

const expectScores = (oldScore: string, newScore: string) =>
  `[[expected]]\ncontent = "old"\nscore_approx = ${oldScore}\n\n[[expected]]\ncontent = "new"\nscore_approx = ${newScore}\n`

const metadataKey = (boost: string, expectError: boolean) => `
[test]
name = "metadata key"
stage = "scoring"
scorer = "metadata_key"
${expectError ? "expect_construction_error = true" : ""}

[config]
key = "k"
value = "v"
boost = ${boost}

[[items]]
content = "a"
tokens = 1
metadata = { k = "v" }

${expectError ? "" : "[[expected]]\ncontent = \"a\"\nscore_approx = 1.5\n"}
`

describe("Conformance — scoring vectors", () => {
  it.effect("a right expectation passes; the default epsilon is 1e-9", () =>
    Effect.gen(function*() {
      const outcome = yield* runText(recency(expectScores("0.0", "1.0")))
      assert.strictEqual(outcome._tag, "Passed", Conformance.formatOutcome(outcome))
      const vector = yield* parse(recency(expectScores("0.0", "1.0")))
      assert.strictEqual(vector._tag === "ScoringVector" && vector.epsilon, 1e-9)
    }))

  it.effect("a wrong score is failed, naming the item, both scores and the difference", () =>
    Effect.gen(function*() {
      const outcome = yield* runText(recency(expectScores("0.25", "1.0")))
      assert.strictEqual(outcome._tag, "Failed")
      assert.include(
        Conformance.formatOutcome(outcome),
        `score of "old": expected 0.25 (±1e-9), got 0 (off by 0.25)`
      )
    }))

  it.effect("the comparison is strict: a difference equal to score_epsilon fails, a smaller one passes", () =>
    Effect.gen(function*() {
      const tolerance = "[tolerance]\nscore_epsilon = 0.5\n"
      const equal = yield* runText(recency(expectScores("0.5", "1.0") + tolerance))
      assert.strictEqual(equal._tag, "Failed")
      const within = yield* runText(recency(expectScores("0.49", "1.0") + tolerance))
      assert.strictEqual(within._tag, "Passed")
    }))

  it.effect("expect_construction_error passes when the scorer's InvalidConfigError is raised", () =>
    Effect.gen(function*() {
      const outcome = yield* runText(metadataKey("0.0", true))
      assert.strictEqual(outcome._tag, "Passed", Conformance.formatOutcome(outcome))
    }))

  it.effect("expect_construction_error fails when the scorer is built", () =>
    Effect.gen(function*() {
      const outcome = yield* runText(metadataKey("1.5", true))
      assert.strictEqual(outcome._tag, "Failed")
      assert.include(
        Conformance.formatOutcome(outcome),
        "expect_construction_error: expected InvalidConfigError, got a metadata_key scorer was built"
      )
    }))

  it.effect("an unexpected construction error fails, with the scorer's message", () =>
    Effect.gen(function*() {
      const outcome = yield* runText(metadataKey("-1", false))
      assert.strictEqual(outcome._tag, "Failed")
      assert.include(Conformance.formatOutcome(outcome), "config: expected a metadata_key scorer, got InvalidConfigError: MetadataKeyScorer: boost")
    }))

  it.effect("decay uses reference_time as its fixed now, whatever the clock says", () =>
    Effect.gen(function*() {
      // it.effect runs with a TestClock at 0 (1970): the score must come from reference_time.
      const outcome = yield* runText(`
[test]
name = "decay"
stage = "scoring"
scorer = "decay"

[config]
reference_time = 2025-01-01T12:00:00Z

[config.curve]
type = "exponential"
half_life_secs = 3600.0

[[items]]
content = "two hours old"
tokens = 1
timestamp = 2025-01-01T10:00:00Z

[[expected]]
content = "two hours old"
score_approx = 0.25
`)
      assert.strictEqual(outcome._tag, "Passed", Conformance.formatOutcome(outcome))
    }))

  it.effect("composite children are entries with type, weight and their own fields; children nest", () =>
    Effect.gen(function*() {
      const outcome = yield* runText(`
[test]
name = "composite"
stage = "scoring"
scorer = "composite"

[[config.scorers]]
type = "tag"
weight = 3.0
tag_weights = [{ tag = "a", weight = 1.0 }]

[[config.scorers]]
type = "composite"
weight = 1.0

[[config.scorers.children]]
type = "reflexive"
weight = 1.0

[[items]]
content = "x"
tokens = 1
tags = ["a"]
futureRelevanceHint = 0.2

[[expected]]
content = "x"
score_approx = 0.8
`)
      // 0.75 × 1.0 (tag) + 0.25 × 0.2 (nested composite of reflexive)
      assert.strictEqual(outcome._tag, "Passed", Conformance.formatOutcome(outcome))
    }))

  it.effect("scaled takes its inner scorer by name or as a table with its own fields", () =>
    Effect.gen(function*() {
      const vector = (inner: string) => `
[test]
name = "scaled"
stage = "scoring"
scorer = "scaled"

[config]
${inner}

[[items]]
content = "a"
tokens = 1
tags = ["t"]
futureRelevanceHint = 0.2

[[items]]
content = "b"
tokens = 1
futureRelevanceHint = 0.8

[[expected]]
content = "a"
score_approx = ${inner.includes("tag") ? "1.0" : "0.0"}
`
      const byName = yield* runText(vector(`inner_scorer = "reflexive"`))
      assert.strictEqual(byName._tag, "Passed", Conformance.formatOutcome(byName))
      const byTable = yield* runText(vector(`inner_scorer = { type = "tag", tag_weights = [{ tag = "t", weight = 1.0 }] }`))
      assert.strictEqual(byTable._tag, "Passed", Conformance.formatOutcome(byTable))
    }))
})

describe("Conformance — scoring vectors: decoding errors name the field", () => {
  it.effect("an unknown scorer", () =>
    Effect.gen(function*() {
      const [problem] = yield* problems(recency(expectScores("0", "1")).replace(`scorer = "recency"`, `scorer = "recentcy"`))
      assert.match(problem!, /^test\.scorer: Expected "recency" \| "priority" .*, got "recentcy"$/)
    }))

  it.effect("wrong item and expectation types", () =>
    Effect.gen(function*() {
      const found = yield* problems(
        recency(expectScores(`"high"`, "1")).replace("tokens = 10\ntimestamp = 2024-01-01T00:00Z", `tokens = "ten"\ntimestamp = 2024-01-01T00:00Z`)
      )
      assert.sameMembers(found, [
        `items[0].tokens: Expected a number, got "ten"`,
        `expected[0].score_approx: Expected a number, got "high"`
      ])
    }))

  it.effect("a missing or mistyped configuration field, with its full path", () =>
    Effect.gen(function*() {
      const tag = yield* problems(`[test]\nname = "t"\nstage = "scoring"\nscorer = "tag"\n[[items]]\ncontent = "a"\ntokens = 1\n[[expected]]\ncontent = "a"\nscore_approx = 0\n`)
      assert.deepStrictEqual(tag, ["config.tag_weights: is required but missing"])
      const weight = yield* problems(
        `[test]\nname = "c"\nstage = "scoring"\nscorer = "composite"\n[[config.scorers]]\ntype = "recency"\nweight = 1.0\n` +
          `[[config.scorers]]\ntype = "priority"\nweight = "heavy"\n[[config.scorers]]\ntype = "recent"\nweight = 1.0\n` +
          `[[items]]\ncontent = "a"\ntokens = 1\n[[expected]]\ncontent = "a"\nscore_approx = 0\n`
      )
      assert.strictEqual(weight.length, 2)
      assert.include(weight[0]!, `config.scorers[1].weight: Expected a number, got "heavy"`)
      assert.match(weight[1]!, /^config\.scorers\[2\]\.type: Expected "recency" \| .*, got "recent"$/)
      const curve = yield* problems(
        `[test]\nname = "d"\nstage = "scoring"\nscorer = "decay"\n[config]\nreference_time = 2025-01-01T00:00Z\n` +
          `[config.curve]\ntype = "linear"\n[[items]]\ncontent = "a"\ntokens = 1\n[[expected]]\ncontent = "a"\nscore_approx = 0\n`
      )
      assert.match(curve[0]!, /^config\.curve\.type: Expected "exponential" \| "window" \| "step", got "linear"$/)
    }))

  it.effect("an expectation that names no item, a non-positive epsilon, a vector that expects nothing", () =>
    Effect.gen(function*() {
      const found = yield* problems(recency(`[[expected]]\ncontent = "olde"\nscore_approx = 0\n`))
      assert.deepStrictEqual(found, [`expected[0].content: no item has the content "olde"`])
      const twice = yield* problems(recency(expectScores("0", "1") + `[[expected]]\ncontent = "new"\nscore_approx = 1\n`))
      assert.deepStrictEqual(twice, [`expected[2].content: more [[expected]] entries than items with the content "new"`])
      const epsilon = yield* problems(recency(expectScores("0", "1") + "[tolerance]\nscore_epsilon = 0\n"))
      assert.deepStrictEqual(epsilon, ["tolerance.score_epsilon: score_epsilon must be a finite number > 0, got 0"])
      const nothing = yield* problems(recency(""))
      assert.include(nothing[0]!, "a scoring vector needs [[expected]] entries")
    }))

  it.effect("unknown fields are ignored, in every table", () =>
    Effect.gen(function*() {
      const outcome = yield* runText(
        recency(expectScores("0", "1"), `note = "written by hand"\nversion = 2`)
          .replace(`content = "old"\ntokens = 10`, `content = "old"\ntokens = 10\ncolour = "blue"`) +
          "[config]\nunused = true\n[meta]\nauthor = \"x\"\n"
      )
      assert.strictEqual(outcome._tag, "Passed", Conformance.formatOutcome(outcome))
    }))
})
