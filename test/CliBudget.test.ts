import { NodeServices } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as PipelineInput from "../src/cli/PipelineInput.ts"
import * as Sample from "../src/cli/Sample.ts"
import { BudgetAnalysis, ContextItem, Policy, Presets } from "../src/index.ts"
import { cli, writeTemp } from "./support/cli.ts"


const assertOneLine = (run: { code: number; stdout: string; stderr: string }, code: number, text: string) => {
  assert.strictEqual(run.code, code, run.stderr)
  assert.strictEqual(run.stdout, "")
  assert.strictEqual(run.stderr.split("\n").length, 1, run.stderr)
  assert.include(run.stderr, text)
}


const sampleText = JSON.stringify(Sample.pipeline)
const sample = PipelineInput.decodeValue("sample", Sample.pipeline)
const deployGuide = Sample.pipeline.items[16]!.content

layer(NodeServices.layer)("cupel budget", (it) => {
  it.effect("is listed by --help", () =>
    Effect.gen(function*() {
      assert.match((yield* cli(["--help"])).stdout, /^  budget\s/m)
    }))

  it.effect("--marginal SLACK: the items getMarginalItems finds, as JSON", () =>
    Effect.gen(function*() {
      const run = yield* cli(["budget", "--marginal", "100"], sampleText)
      assert.strictEqual(run.code, 0, run.stderr)
      const output = JSON.parse(run.stdout)
      const input = yield* sample
      const expected = yield* BudgetAnalysis.getMarginalItems(input.items, input.budget, 100, Policy.options(input)).pipe(
        Effect.provide(Policy.layer(input))
      )
      assert.isAbove(expected.length, 0)
      assert.deepStrictEqual(output.items, yield* Effect.forEach(expected, (i) => ContextItem.encode(i)))
      assert.deepStrictEqual(output.reducedBudget, { maxTokens: 3996, targetTokens: 600 })
      assert.strictEqual(output.analysis, "marginal")
      const text = yield* cli(["budget", "--marginal", "100", "--text"], sampleText)
      assert.include(text.stdout, `${expected.length} ${expected.length === 1 ? "item" : "items"} (`)
      assert.include(text.stdout, "target 600, max 3,996")
    }))

  it.effect("--marginal: a slack the library refuses is exit 2 with its message", () =>
    Effect.gen(function*() {
      assertOneLine(yield* cli(["budget", "--marginal", "800"], sampleText), 2, "cupel budget: slackTokens (800) must not exceed targetTokens (700)")
      assertOneLine(yield* cli(["budget", "--marginal", "1.5"], sampleText), 2, "slackTokens (1.5) must be a non-negative integer")
    }))

  it.effect("--min-budget-for CONTENT --ceiling N: findMinBudgetFor's answer; the ceiling defaults to maxTokens", () =>
    Effect.gen(function*() {
      const input = yield* sample
      const target = input.items[16]!
      const expected = yield* BudgetAnalysis.findMinBudgetFor(input.items, input.budget, target, 2000, Policy.options(input))
        .pipe(Effect.provide(Policy.layer(input)))
      const run = yield* cli(["budget", "--min-budget-for", deployGuide, "--ceiling", "2000"], sampleText)
      assert.strictEqual(run.code, 0, run.stderr)
      const output = JSON.parse(run.stdout)
      assert.strictEqual(output.minBudget, Option.getOrNull(expected))
      assert.isNotNull(output.minBudget)
      assert.deepStrictEqual([output.searchCeiling, output.tokens], [2000, target.tokens])
      const byDefault = JSON.parse((yield* cli(["budget", "--min-budget-for", deployGuide], sampleText)).stdout)
      assert.strictEqual(byDefault.searchCeiling, 4096)
      // No budget in range: null.
      const none = JSON.parse((yield* cli(["budget", "--min-budget-for", deployGuide, "--ceiling", "100"], sampleText)).stdout)
      assert.isNull(none.minBudget)
    }))

  it.effect("--min-budget-for: an unknown content or a bad ceiling is the library's error, exit 2", () =>
    Effect.gen(function*() {
      assertOneLine(
        yield* cli(["budget", "--min-budget-for", "no such item"], sampleText),
        2,
        `cupel budget: targetItem must be an element of items: no candidate has the content "no such item"`
      )
      assertOneLine(yield* cli(["budget", "--min-budget-for", deployGuide, "--ceiling", "10"], sampleText), 2, "cupel budget: searchCeiling must be >= targetItem.Tokens")
      assertOneLine(yield* cli(["budget", "--min-budget-for", deployGuide, "--ceiling", "500.5"], sampleText), 2, "searchCeiling must be an integer, got 500.5")
    }))

  it.effect("a quota slicer: the non-monotonic guard, exit 2 with the chapter's message", () =>
    Effect.gen(function*() {
      const quota = JSON.stringify({ ...Sample.pipeline, slicer: { type: "quota", quotas: [{ kind: "Document", cap: 50 }] } })
      assertOneLine(yield* cli(["budget", "--marginal", "10"], quota), 2, "cupel budget: GetMarginalItems requires monotonic item inclusion.")
      assertOneLine(
        yield* cli(["budget", "--min-budget-for", deployGuide], quota),
        2,
        "cupel budget: FindMinBudgetFor requires monotonic item inclusion."
      )
    }))

  it.effect("--compare: policySensitivity across the input's policy and the presets or files named", () =>
    Effect.gen(function*() {
      const run = yield* cli(["budget", "--compare", "chat", "--compare", "rag"], sampleText)
      assert.strictEqual(run.code, 0, run.stderr)
      const output = JSON.parse(run.stdout)
      const input = yield* sample
      const expected = yield* BudgetAnalysis.policySensitivity(input.items, input.budget, [
        { label: "input", layer: Policy.layer(input) },
        { label: "chat", layer: Policy.layer(Presets.chat) },
        { label: "rag", layer: Policy.layer(Presets.rag) }
      ], Policy.options(input))
      assert.deepStrictEqual(output.variants.map((v: { label: string }) => v.label), ["input", "chat", "rag"])
      assert.deepStrictEqual(
        output.variants.map((v: { included: number }) => v.included),
        expected.variants.map((v) => v.report.included.length)
      )
      assert.isAbove(expected.diffs.length, 0)
      assert.deepStrictEqual(output.diffs.map((d: { content: string }) => d.content), expected.diffs.map((d) => d.content))
      assert.deepStrictEqual(
        output.diffs.map((d: { statuses: ReadonlyArray<{ status: string }> }) => d.statuses.map((s) => s.status)),
        expected.diffs.map((d) => d.statuses.map((s) => s.status))
      )
      assert.deepStrictEqual(Object.keys(output.diffs[0].statuses[0]), ["label", "status", "score", "reason"])
      const text = yield* cli(["budget", "--compare", "chat", "--text"], sampleText)
      assert.match(text.stdout, /\d+ items? changes? status:/)
    }))

  it.effect("--compare: a name that is neither a preset nor a file is exit 2, listing the presets", () =>
    Effect.gen(function*() {
      assertOneLine(yield* cli(["budget", "--compare", "chatty"], sampleText), 2, `"chatty" is neither a preset (chat, codeReview`)
    }))

  it.effect("exactly one analysis: none, or two, is a usage error, exit 2", () =>
    Effect.gen(function*() {
      assertOneLine(yield* cli(["budget"], sampleText), 2, "cupel budget: name one analysis")
      assertOneLine(yield* cli(["budget", "--marginal", "1", "--compare", "chat"], sampleText), 2, "one analysis at a time")
      assertOneLine(yield* cli(["budget", "--marginal", "1", "--ceiling", "9"], sampleText), 2, "--ceiling goes with --min-budget-for")
    }))

  it.effect("bad input is reported as cupel run reports it", () =>
    Effect.gen(function*() {
      assertOneLine(yield* cli(["budget", "--marginal", "1"], "{"), 2, "cupel budget: invalid input (stdin): malformed JSON")
    }))

  it.effect("--compare: a compared policy the library refuses is reported with its own file, not the run's", () =>
    Effect.gen(function*() {
      const bad = yield* writeTemp(
        "bad.json",
        JSON.stringify({ scorer: { type: "composite", scorers: [{ type: "recency", weight: 0 }] } })
      )
      const run = yield* cli(["budget", "--compare", "chat", "--compare", bad], sampleText)
      assertOneLine(run, 2, `cupel budget: invalid configuration (${bad}): CompositeScorer: scorer.scorers[0].weight must be positive`)
      assert.notInclude(run.stderr, "(stdin)")
      // The run's own policy is still reported with its source.
      const own = JSON.stringify({ ...Sample.pipeline, scorer: { type: "composite", scorers: [{ type: "recency", weight: 0 }] } })
      assertOneLine(yield* cli(["budget", "--compare", "chat"], own), 2, "cupel budget: invalid configuration (stdin): ")
    }))

  it.effect("--compare -: refused, standard input is not read for a policy", () =>
    Effect.gen(function*() {
      const run = yield* cli(["budget", "--compare", "-"], sampleText)
      assertOneLine(run, 2, `"-" is neither a preset (chat,`)
      assert.include(run.stderr, "standard input holds the run's input")
      assert.notInclude(run.stderr, "malformed JSON")
    }))

  it.effect("--min-budget-for: the library decides the order, a quota slicer is refused before an unknown content", () =>
    Effect.gen(function*() {
      const quota = JSON.stringify({ ...Sample.pipeline, slicer: { type: "quota", quotas: [{ kind: "Document", cap: 50 }] } })
      const run = yield* cli(["budget", "--min-budget-for", "no such item"], quota)
      assertOneLine(run, 2, "cupel budget: FindMinBudgetFor requires monotonic item inclusion.")
      assert.notInclude(run.stderr, "no such item")
      // An unknown content comes before a bad ceiling, as in the library.
      assertOneLine(
        yield* cli(["budget", "--min-budget-for", "no such item", "--ceiling", "0.5"], sampleText),
        2,
        `cupel budget: targetItem must be an element of items: no candidate has the content "no such item"`
      )
    }))
})
