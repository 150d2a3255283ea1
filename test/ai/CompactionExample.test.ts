import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { main } from "../../examples/compaction.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as Shorten from "../../src/ai/Shorten.ts"
import * as Summarizer from "../../src/ai/Summarizer.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))

describe("examples/compaction.ts", () => {
  it.effect("compacts once with a summary of the dropped exchanges, shortens the log, and every request fits", () =>
    Effect.gen(function*() {
      const { sent } = yield* main
      const actions = sent.map((r) => r.change?.action)
      assert.deepStrictEqual(actions, ["fresh", ...Array(11).fill("append"), "compact"])
      for (const report of sent) {
        assert.deepStrictEqual(PromptWindow.orphans(report.prompt), [])
        assert.isAtMost(report.result.totalTokens, report.budget.targetTokens)
      }
      const last = sent.at(-1)!
      assert.strictEqual(last.change?.summary?._tag, "written")
      const summary = last.prompt.content.map(Summarizer.readSummaryMessage).find((s) => s !== undefined)
      // C1: the summary stands right after the system prompt, before the conversation (it was
      // sent last, after the newest tool result, when every conversation message was kept).
      assert.isDefined(Summarizer.readSummaryMessage(last.prompt.content[1]!))
      assert.deepStrictEqual(last.prompt.content.map((m) => m.role), ["system", "user", "user", "assistant", "tool"])
      assert.isDefined(last.result.report.included[1]!.item.metadata["summaryId"])
      for (let i = 1; i <= 11; i++) assert.include(summary!.text, `src/m${i}.ts`)
      const log = last.result.report.included.find((e) => e.item.metadata[Shorten.shortenedKey] !== undefined)
      assert.isDefined(log)
      assert.include(log!.item.content, "FAILED: step 1,999")
      assert.include(log!.item.content, "build step 0: ok")
    }))

  it("docs/ai.md shows the example verbatim", () => {
    const doc = readFileSync(`${root}docs/ai.md`, "utf8")
    const example = readFileSync(`${root}examples/compaction.ts`, "utf8").replace(/"\.\.\/src\/(.*?)\.ts"/g, `"effect-cupel/$1"`)
    assert.include(doc, example)
  })
})
