import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { main } from "../../examples/agent.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))

describe("examples/agent.ts", () => {
  it.effect("runs the tool loop within the window: no orphaned tool part, system first, a report per call", () =>
    Effect.gen(function*() {
      const { history, sent } = yield* main
      assert.strictEqual(sent.length, 13)
      assert.strictEqual(history.content.length, 2 + 12 * 2 + 1)
      for (const report of sent) {
        assert.deepStrictEqual(PromptWindow.orphans(report.prompt), [])
        assert.strictEqual(report.prompt.content[0]!.role, "system")
        assert.isAtMost(report.result.totalTokens, report.budget.targetTokens)
        // The newest tool result is always sent.
        if (report.candidates > 2) assert.strictEqual(report.prompt.content.at(-1)!.role, "tool")
      }
      // One fresh fit, appends while the window fits, one compaction, then appends again.
      const actions = sent.map((r) => r.change?.action)
      assert.deepStrictEqual(actions, ["fresh", ...Array(8).fill("append"), "compact", "append", "append", "append"])
      sent.forEach((report, k) => {
        if (k > 0 && report.change?.action === "append") {
          const before = sent[k - 1]!.prompt.content
          assert.deepStrictEqual(report.prompt.content.slice(0, before.length), before)
        }
      })
      // The cache reads what the previous request sent, once the prompt is past the rule's minimum.
      assert.strictEqual(sent[5]!.prediction!.cachedTokens, sent[4]!.prediction!.totalTokens)
    }))

  it("docs/ai.md shows the example verbatim", () => {
    const doc = readFileSync(`${root}docs/ai.md`, "utf8")
    const example = readFileSync(`${root}examples/agent.ts`, "utf8").replace(/"\.\.\/src\/(.*?)\.ts"/g, `"effect-cupel/$1"`)
    assert.include(doc, example)
  })
})
