import { NodeServices } from "@effect/platform-node"
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import * as PipelineInput from "../src/cli/PipelineInput.ts"
import * as PlaceInput from "../src/cli/PlaceInput.ts"
import * as Render from "../src/cli/Render.ts"
import * as RunCommand from "../src/cli/RunCommand.ts"
import * as Sample from "../src/cli/Sample.ts"
import { ContextItem } from "../src/index.ts"
import { cli, writeTemp } from "./support/cli.ts"



/** The lines of the section whose heading starts with `── title`. */
const sectionOf = (stdout: string, title: string): Array<string> => {
  const lines = stdout.split("\n")
  const start = lines.findIndex((l) => l.startsWith(`── ${title}`))
  assert.isAtLeast(start, 0, `no section "${title}" in\n${stdout}`)
  const end = lines.findIndex((l, i) => i > start && (l.startsWith("── ") || l === ""))
  return lines.slice(start + 1, end < 0 ? undefined : end)
}

const cliDoc = readFileSync(fileURLToPath(new URL("../docs/cli.md", import.meta.url)), "utf8")

const sampleRun = Effect.gen(function*() {
  const input = yield* PipelineInput.decodeValue("embedded sample", Sample.pipeline)
  return { input, result: yield* RunCommand.execute(input) }
})

layer(NodeServices.layer)("cupel demo: the whole pipeline", (it) => {
  it.effect("prints the candidates, then the window in placed order with scores and reasons", () =>
    Effect.gen(function*() {
      const run = yield* cli(["demo"])
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(run.stderr, "")
      const { input, result } = yield* sampleRun
      assert.include(run.stdout, "embedded sample: 20 candidates (1 pinned) · 5,449 tokens · budget: target 700, max 4,096")
      assert.include(run.stdout, "scoring: composite(recency 0.5, priority 0.3, kind 0.2) · deduplication on")
      assert.include(run.stdout, "slicing: greedy · placing: u-shaped · overflow: throw")

      const candidates = sectionOf(run.stdout, "candidates in (20)")
      assert.strictEqual(candidates.length, 1 + 20 + 1) // heading row, items, legend
      input.items.forEach((item, i) => assert.include(candidates[i + 1]!, Render.preview(item.content, 46)))

      const window = sectionOf(run.stdout, "window out: 15 items, 682 tokens (target 700)")
      const rows = window.slice(1, 1 + result.window.length)
      assert.strictEqual(rows.length, 15)
      result.report.included.forEach(({ item, reason, score }, i) => {
        const row = rows[i]!
        assert.match(row, new RegExp(`^\\s+${i + 1}  `))
        assert.include(row, Render.preview(item.content, 46))
        assert.include(row, score.toFixed(2))
        assert.isTrue(row.endsWith(Render.inclusionWords(reason)), row)
      })
      assert.include(rows[0]!, "P sys")
      assert.isTrue(rows[0]!.endsWith("pinned"))
      assert.isTrue(rows.some((r) => r.includes("img") && r.endsWith("zero tokens")))
    }))

  it.effect("docs/cli.md shows the demo as it prints: every documented line but the durations", () =>
    Effect.gen(function*() {
      const section = cliDoc.slice(cliDoc.indexOf("## `cupel demo`"))
      const block = /```text\n([\s\S]*?)\n```/.exec(section)![1]!
      const printed = (yield* cli(["demo"])).stdout.split("\n")
      const documented = block.split("\n").filter((l) => l.trim() !== "…" && !/ ms$/.test(l))
      assert.isAtLeast(documented.length, 30)
      for (const line of documented) assert.include(printed, line)
    }))

  it.effect("the u-shaped window is high at both ends", () =>
    Effect.gen(function*() {
      const run = yield* cli(["demo"])
      const rows = sectionOf(run.stdout, "window out").slice(1, 16)
      const scores = rows.map((r) => Number(/ (\d\.\d\d)  /.exec(r)![1]))
      const sorted = [...scores].sort((a, b) => b - a)
      assert.deepStrictEqual([scores[0], scores.at(-1)], [sorted[0], sorted[1]])
      assert.strictEqual(Math.min(...scores), scores[Math.floor(scores.length / 2)])
    }))

  it.effect("prints every excluded item with a one-line human reason", () =>
    Effect.gen(function*() {
      const run = yield* cli(["demo"])
      const { input, result } = yield* sampleRun
      const excluded = sectionOf(run.stdout, "excluded (5), best score first").slice(1)
      assert.strictEqual(excluded.length, result.report.excluded.length)
      const pinned = input.items.filter((i) => i.pinned)
      result.report.excluded.forEach((e, i) => {
        assert.include(excluded[i]!, Render.preview(e.item.content, 34))
        assert.isTrue(excluded[i]!.endsWith(Render.humanReason(e.reason, pinned)), excluded[i])
      })
      // The words themselves, one for each reason the sample exercises.
      assert.include(excluded[0]!, "tool  $ kubectl logs")
      assert.isTrue(excluded[0]!.endsWith("did not fit: 3,830 tokens, 18 left"))
      assert.isTrue(excluded[1]!.endsWith("displaced by the pinned system prompt"))
      assert.isTrue(excluded[3]!.endsWith("duplicate of “Runbook: checkout-db conn…”"))
      assert.isTrue(excluded[4]!.endsWith("did not fit: 24 tokens, 18 left"))
    }))

  it.effect("prints the stage events: each stage and the items it passed on", () =>
    Effect.gen(function*() {
      const run = yield* cli(["demo"])
      const stages = sectionOf(run.stdout, "stages")
      const counts = stages.slice(0, 5).map((l) => /^\s+(\w+)\s+(\d+) items\s+\d+\.\d\d ms$/.exec(l)!.slice(1, 3))
      assert.deepStrictEqual(counts, [["Classify", "20"], ["Score", "19"], ["Deduplicate", "18"], ["Slice", "14"], [
        "Place",
        "15"
      ]])
      assert.match(stages[5]!, /^\s+total\s+\d+\.\d\d ms$/)
    }))

  it.effect("plain text when not a terminal, colour on a terminal", () =>
    Effect.gen(function*() {
      assert.notInclude((yield* cli(["demo"])).stdout, "\u001b[")
      assert.include((yield* cli(["demo"], { terminal: true })).stdout, "\u001b[")
    }))

  it.effect("--print-sample prints the sample as `cupel run` input", () =>
    Effect.gen(function*() {
      const printed = yield* cli(["demo", "--print-sample"])
      assert.strictEqual(printed.code, 0)
      assert.deepStrictEqual(JSON.parse(printed.stdout), Sample.pipeline)
      const input = yield* PipelineInput.decodeText("sample", printed.stdout)
      assert.strictEqual(input.items.length, 20)
      // Raw candidates: no precomputed scores, every kind of case the demo shows.
      assert.isTrue(input.items.every((item) => !("score" in item)))
      assert.strictEqual(input.items.filter((i) => i.pinned).length, 1)
      assert.isTrue(input.items.some((i) => i.tokens === 0))
      const contents = input.items.map((i) => i.content)
      assert.strictEqual(new Set(contents).size, contents.length - 1)
      // Every sample item is a valid ContextItem that encodes back to its JSON defaults applied.
      for (const item of input.items) assert.deepStrictEqual(yield* ContextItem.decode(yield* ContextItem.encode(item)), item)
    }))

  it.effect("--budget, --placer and --slicer change the run; a target above the max is refused with exit 2", () =>
    Effect.gen(function*() {
      const run = yield* cli(["demo", "--budget", "1500", "--placer", "chronological", "--slicer", "knapsack"])
      assert.strictEqual(run.code, 0, run.stderr)
      assert.include(run.stdout, "budget: target 1,500, max 4,096")
      assert.include(run.stdout, "slicing: knapsack · placing: chronological")
      assert.include(run.stdout, "chronological: oldest first, untimed items last")
      const refused = yield* cli(["demo", "--budget", "5000"])
      assert.strictEqual(refused.code, 2)
      assert.strictEqual(refused.stdout, "")
      assert.include(refused.stderr, "budget.targetTokens: targetTokens (5000) must not exceed maxTokens (4096)")
    }))

  it.effect("--input runs a `cupel run` file; an overflow under throw is drawn, not an error", () =>
    Effect.gen(function*() {
      const file = yield* writeTemp("over.json", JSON.stringify({
        budget: { maxTokens: 100, targetTokens: 50 },
        scorer: { type: "recency" },
        items: [{ content: "p", tokens: 80, pinned: true }, { content: "q", tokens: 5 }]
      }))
      const run = yield* cli(["demo", "--input", file])
      assert.strictEqual(run.code, 0, run.stderr)
      assert.include(run.stdout, `${file}: 2 candidates (1 pinned) · 85 tokens`)
      assert.include(run.stdout, "✗ OverflowError: Selected items require 80 tokens, exceeding target budget of 50")
      const truncated = yield* cli(["demo", "--input", file, "--overflow", "truncate"])
      assert.include(truncated.stdout, "window out: 1 items, 80 tokens (target 50, 30 over)")
      // q would fit the target alone, not beside the pinned item.
      assert.include(truncated.stdout, "displaced by the pinned message")
    }))

  it.effect("--input with a bad file or configuration: one line per problem on stderr, nothing drawn, exit 2", () =>
    Effect.gen(function*() {
      const bad = yield* writeTemp("bad.json", `{ "budget": { "maxTokens": 1, "targetTokens": 2 }, "items": [] }`)
      const run = yield* cli(["demo", "--input", bad])
      assert.strictEqual(run.code, 2)
      assert.strictEqual(run.stdout, "")
      assert.sameMembers(run.stderr.split("\n"), [
        `cupel demo: invalid input (${bad}): budget.targetTokens: targetTokens (2) must not exceed maxTokens (1)`,
        `cupel demo: invalid input (${bad}): scorer: is required but missing`
      ])
      const config = yield* writeTemp("config.json", JSON.stringify({
        ...Sample.pipeline,
        scorer: { type: "composite", scorers: [{ type: "recency", weight: -1 }] }
      }))
      const refused = yield* cli(["demo", "--input", config])
      assert.strictEqual(refused.code, 2)
      assert.strictEqual(refused.stdout, "")
      assert.include(refused.stderr, "CompositeScorer: scorer.scorers[0].weight must be positive, got -1")
    }))

  it.effect("errors the demo does not draw are reported by RunCommand.reportRunError, as `cupel run` reports them", () =>
    Effect.gen(function*() {
      const cases = [
        // InvalidConfigError
        { ...Sample.pipeline, scorer: { type: "composite", scorers: [{ type: "recency", weight: -1 }] } },
        // TokenTotalError
        {
          budget: { maxTokens: 100, targetTokens: 50 },
          scorer: { type: "recency" },
          items: [{ content: "a", tokens: Number.MAX_SAFE_INTEGER }, { content: "b", tokens: Number.MAX_SAFE_INTEGER }]
        }
      ]
      for (const [i, input] of cases.entries()) {
        const file = yield* writeTemp(`case${i}.json`, JSON.stringify(input))
        const demo = yield* cli(["demo", "--input", file])
        const run = yield* cli(["run", file])
        assert.strictEqual(demo.code, run.code)
        assert.strictEqual(demo.code, 2, demo.stderr)
        assert.strictEqual(demo.stdout, "")
        assert.strictEqual(demo.stderr, run.stderr.replaceAll("cupel run: ", "cupel demo: "))
      }
    }))
})

layer(NodeServices.layer)("cupel demo --place: the Place stage alone, as before", (it) => {
  it.effect("--place --print-sample prints the scored sample as `cupel place` input", () =>
    Effect.gen(function*() {
      const printed = yield* cli(["demo", "--place", "--print-sample"])
      assert.deepStrictEqual(JSON.parse(printed.stdout), Sample.json)
      const input = yield* PlaceInput.decodeText("sample", printed.stdout)
      assert.strictEqual(input.pinned.length + input.scored.length, 17)
    }))

  it.effect("--place with its flags: one placer, one strategy", () =>
    Effect.gen(function*() {
      const run = yield* cli(["demo", "--place", "-p", "chronological", "-s", "throw", "--budget", "5000", "--max", "8192"])
      assert.strictEqual(run.code, 0, run.stderr)
      assert.include(run.stdout, "window: 4,633 tokens in 17 items (target 5,000;")
    }))
})

describe("Render: reasons in words", () => {
  const prompt = new ContextItem.ContextItem({ content: "You are terse.", tokens: 4, kind: "SystemPrompt", pinned: true })

  it("each exclusion reason reads as one line", () => {
    assert.strictEqual(
      Render.humanReason({ _tag: "BudgetExceeded", itemTokens: 3830, availableTokens: 212 }, []),
      "did not fit: 3,830 tokens, 212 left"
    )
    assert.strictEqual(
      Render.humanReason({ _tag: "PinnedOverride", displacedBy: "You are terse." }, [prompt]),
      "displaced by the pinned system prompt"
    )
    assert.strictEqual(
      Render.humanReason({ _tag: "PinnedOverride", displacedBy: "unknown" }, [prompt]),
      "displaced by the pinned “unknown”"
    )
    assert.strictEqual(
      Render.humanReason({ _tag: "Deduplicated", deduplicatedAgainst: "Paris is the capital of France, and a lot more." }, []),
      "duplicate of “Paris is the capital of F…”"
    )
    assert.strictEqual(
      Render.humanReason({ _tag: "NegativeTokens", tokens: -3 }, []),
      "negative token count (-3): not a candidate"
    )
    for (const text of [
      Render.humanReason({ _tag: "BudgetExceeded", itemTokens: 1, availableTokens: 0 }, []),
      Render.humanReason({ _tag: "Deduplicated", deduplicatedAgainst: "a\nb\nc" }, [])
    ]) assert.notInclude(text, "\n")
  })

  it("kinds and inclusion reasons in words", () => {
    assert.strictEqual(Render.kindWords("SystemPrompt"), "system prompt")
    assert.strictEqual(Render.kindWords("ToolOutput"), "tool output")
    assert.strictEqual(Render.kindWords("Image"), "image")
    assert.strictEqual(Render.inclusionWords({ _tag: "Pinned" }), "pinned")
    assert.strictEqual(Render.inclusionWords({ _tag: "ZeroToken" }), "zero tokens")
    assert.strictEqual(Render.inclusionWords({ _tag: "Scored" }), "scored")
  })
})
