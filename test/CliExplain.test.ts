import { NodeServices } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as PipelineInput from "../src/cli/PipelineInput.ts"
import * as Render from "../src/cli/Render.ts"
import * as RunCommand from "../src/cli/RunCommand.ts"
import * as Sample from "../src/cli/Sample.ts"
import { Presets, ReportMetrics } from "../src/index.ts"
import { cli } from "./support/cli.ts"


/** The lines of the section whose heading starts with `── title`, up to the next blank line. */
const sectionOf = (stdout: string, title: string): Array<string> => {
  const lines = stdout.split("\n")
  const start = lines.findIndex((l) => l.startsWith(`── ${title}`))
  assert.isAtLeast(start, 0, `no section "${title}" in\n${stdout}`)
  const end = lines.findIndex((l, i) => i > start && (l.startsWith("── ") || l === ""))
  return lines.slice(start + 1, end < 0 ? undefined : end)
}

const sampleText = JSON.stringify(Sample.pipeline)

const sampleRun = Effect.gen(function*() {
  const input = yield* PipelineInput.decodeValue("sample", Sample.pipeline)
  return { input, result: yield* RunCommand.execute(input) }
})

layer(NodeServices.layer)("cupel explain", (it) => {
  it.effect("budget utilization has no value for tokens over a maxTokens of 0 (proceed): n/a, not a crash", () =>
    Effect.gen(function*() {
      const input = JSON.stringify({
        budget: { maxTokens: 0, targetTokens: 0 },
        items: [{ content: "pinned", tokens: 5, pinned: true }],
        scorer: { type: "recency" },
        overflowStrategy: "proceed"
      })
      const run = yield* cli(["explain"], { stdin: input })
      // Pinned items over maxTokens − outputReserve are a PinnedBudgetError: exit 1, the error on stderr.
      assert.strictEqual(run.code, 1, run.stderr)
      const zeroTokens = JSON.stringify({
        budget: { maxTokens: 0, targetTokens: 0 },
        items: [{ content: "free", tokens: 0 }],
        scorer: { type: "recency" }
      })
      const ok = yield* cli(["explain"], { stdin: zeroTokens })
      assert.strictEqual(ok.code, 0, ok.stderr)
      assert.match(ok.stdout, /budget utilization\s+0\.0%/)
    }))

  it.effect("is listed by --help", () =>
    Effect.gen(function*() {
      assert.match((yield* cli(["--help"])).stdout, /^  explain\s/m)
    }))

  it.effect("every candidate, in input order: in the window (at its position) or out, why, tokens, score", () =>
    Effect.gen(function*() {
      const run = yield* cli(["explain"], { stdin: sampleText })
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(run.stderr, "")
      const { input, result } = yield* sampleRun
      const rows = sectionOf(run.stdout, "candidates (20): 15 in the window, 5 left out").slice(1, 21)
      assert.strictEqual(rows.length, 20)
      const pinned = input.items.filter((i) => i.pinned)
      input.items.forEach((item, i) => {
        const row = rows[i]!
        assert.match(row, new RegExp(`^\\s+${i + 1}  `))
        assert.include(row, Render.preview(item.content, 44))
        assert.include(row, ` ${Render.count(item.tokens)} `)
        const position = result.report.included.findIndex((e) => e.item === item)
        if (position >= 0) {
          const entry = result.report.included[position]!
          assert.include(row, `${entry.score.toFixed(2)}  in #${position + 1} `)
          assert.isTrue(row.endsWith(Render.inclusionWords(entry.reason)), row)
        } else {
          const entry = result.report.excluded.find((e) => e.item === item)!
          assert.include(row, `${entry.score.toFixed(2)}  out `)
          assert.isTrue(row.endsWith(Render.humanReason(entry.reason, pinned)), row)
        }
      })
      // The reasons in words: each kind of exclusion the sample has.
      assert.include(run.stdout, "did not fit: 3,830 tokens, 18 left")
      assert.include(run.stdout, "displaced by the pinned system prompt")
      assert.include(run.stdout, "duplicate of “Runbook: checkout-db conn…”")
      assert.include(run.stdout, "zero tokens")
    }))

  it.effect("the header names the source, the budget and the policy", () =>
    Effect.gen(function*() {
      const run = yield* cli(["explain"], { stdin: sampleText })
      assert.include(run.stdout, "20 candidates (1 pinned) · 5,449 tokens · budget: target 700, max 4,096")
      assert.include(
        run.stdout,
        "policy (stdin): scorer composite(recency 0.5, priority 0.3, kind 0.2) · slicer greedy · placer u-shaped · overflow throw · deduplication on"
      )
    }))

  it.effect("totals, the report's metrics and the stages", () =>
    Effect.gen(function*() {
      const run = yield* cli(["explain"], { stdin: sampleText })
      const { input, result } = yield* sampleRun
      const totals = sectionOf(run.stdout, "totals")
      assert.match(totals[0]!, /^\s+window\s+15 items\s+682 tokens\s+\(18 under the target\)$/)
      assert.match(totals[1]!, /^\s+left out\s+5 items\s+4,767 tokens$/)
      assert.match(totals[2]!, /^\s+considered\s+20 items\s+5,449 tokens$/)
      const metrics = sectionOf(run.stdout, "metrics")
      const utilization = yield* ReportMetrics.budgetUtilization(result.report, input.budget)
      assert.match(metrics[0]!, new RegExp(`budget utilization\\s+${(utilization * 100).toFixed(1)}%  `))
      assert.include(metrics[0]!, "682 tokens of maxTokens 4,096")
      assert.match(metrics[1]!, new RegExp(`kind diversity\\s+${ReportMetrics.kindDiversity(result.report)}  `))
      assert.include(metrics[1]!, "SystemPrompt, Message, Document, Image")
      assert.include(metrics[2]!, `${(ReportMetrics.timestampCoverage(result.report) * 100).toFixed(1)}%`)
      assert.include(metrics[2]!, "12 of the 15 window items are dated")
      const stages = sectionOf(run.stdout, "stages")
      assert.deepStrictEqual(stages.slice(0, 5).map((l) => /^\s+(\w+)\s+(\d+) items/.exec(l)!.slice(1, 3)), [
        ["Classify", "20"],
        ["Score", "19"],
        ["Deduplicate", "18"],
        ["Slice", "14"],
        ["Place", "15"]
      ])
    }))

  it.effect("takes run's flags: --preset, --placer", () =>
    Effect.gen(function*() {
      const run = yield* cli(["explain", "--preset", "chat", "--placer", "u-shaped"], { stdin: sampleText })
      assert.strictEqual(run.code, 0, run.stderr)
      assert.include(run.stdout, `policy (preset chat): scorer composite(recency 3, kind 1) · slicer greedy · placer u-shaped`)
      assert.strictEqual(Presets.chat.placer.type, "conversation")
    }))

  it.effect("plain text when not a terminal, colour on a terminal (Demo.style)", () =>
    Effect.gen(function*() {
      assert.notInclude((yield* cli(["explain"], { stdin: sampleText })).stdout, "\u001b[")
      assert.include((yield* cli(["explain"], { stdin: sampleText, terminal: true })).stdout, "\u001b[")
    }))

  it.effect("run's exit codes: bad input 2 (one line, `cupel explain:`), pinned over budget 1 (JSON)", () =>
    Effect.gen(function*() {
      const bad = yield* cli(["explain"], { stdin: `{ "budget": { "maxTokens": 100, "targetTokens": 50 }, "items": [] }` })
      assert.strictEqual(bad.code, 2)
      assert.strictEqual(bad.stdout, "")
      assert.strictEqual(bad.stderr, "cupel explain: invalid input (stdin): scorer: is required but missing")
      const pinned = yield* cli(["explain"], {
        stdin: `{ "budget": { "maxTokens": 100, "targetTokens": 50 }, "scorer": { "type": "recency" },
                  "items": [{ "content": "p", "tokens": 120, "pinned": true }] }`
      })
      assert.strictEqual(pinned.code, 1)
      assert.strictEqual(pinned.stdout, "")
      assert.strictEqual(JSON.parse(pinned.stderr)._tag, "PinnedBudgetError")
      const refused = yield* cli(["explain"], {
        stdin: `{ "budget": { "maxTokens": 100, "targetTokens": 50 }, "items": [],
                  "scorer": { "type": "metadata_key", "key": "k", "value": "v", "boost": 0 } }`
      })
      assert.strictEqual(refused.code, 2)
      assert.include(refused.stderr, "cupel explain: invalid configuration (stdin): MetadataKeyScorer: scorer.boost")
    }))
})
