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
      assert.strictEqual(sent.length, 6)
      assert.strictEqual(history.content.length, 2 + 5 * 2 + 1)
      for (const report of sent) {
        assert.deepStrictEqual(PromptWindow.orphans(report.prompt), [])
        assert.strictEqual(report.prompt.content[0]!.role, "system")
        assert.isAtMost(report.result.totalTokens, report.budget.targetTokens)
      }
      assert.deepStrictEqual(sent.map((r) => r.result.report.excluded.length), [0, 0, 0, 0, 2, 4])
      // The newest tool result is always sent.
      assert.strictEqual(sent.at(-1)!.prompt.content.at(-1)!.role, "tool")
    }))

  it("docs/ai.md shows the example verbatim", () => {
    const doc = readFileSync(`${root}docs/ai.md`, "utf8")
    const example = readFileSync(`${root}examples/agent.ts`, "utf8").replace(/"\.\.\/src\/(.*?)\.ts"/g, `"effect-cupel/$1"`)
    assert.include(doc, example)
  })
})
