/**
 * The LangChain side by side (bench/langchainBench.ts) on small sessions: the adapter's figures
 * meet the issue's done-when (no orphaned tool part, the system message first and the newest
 * human message in every request, none over the window), and the peers' rows are measured on
 * the same sessions.
 */
import { assert, describe, it } from "@effect/vitest"
import * as LangChainBench from "../../bench/langchainBench.ts"

const settings: LangChainBench.Settings = { contextWindow: 16_000, outputReserve: 2_000, secondsBetweenCalls: 5 }

describe("the LangChain bench", () => {
  it("the adapter: 0 orphans, system first and the newest human message everywhere, none over the window; the peers beside it", async () => {
    const rows = await LangChainBench.compare(["tool-heavy", "mixed"], 40, settings, 29)
    assert.strictEqual(rows.length, 2 * LangChainBench.strategies.length)
    for (const row of rows.filter((r) => r.strategy === "effect-cupel")) {
      assert.strictEqual(row.orphans, 0)
      assert.strictEqual(row.systemNotFirst, 0)
      assert.strictEqual(row.newestHumanMissing, 0)
      assert.strictEqual(row.overTarget, 0)
      assert.isAtMost(row.largestRequest, row.target)
      assert.isAbove(row.hitRatio, 0.5)
    }
    for (const strategy of LangChainBench.strategies) assert.isTrue(rows.some((r) => r.strategy === strategy && r.calls >= 40))
    // The summarisation middleware called its summariser once the history outgrew the window.
    assert.isTrue(rows.some((r) => r.strategy === "summarizationMiddleware" && r.summarizerCalls > 0))
  })

  it("times each strategy's own work per call", async () => {
    const timings = await LangChainBench.timeCalls([100], settings, 1)
    assert.deepStrictEqual(timings.map((t) => t.strategy), [...LangChainBench.strategies])
    for (const t of timings) assert.isTrue(Number.isFinite(t.millisPerCall) && t.millisPerCall >= 0)
  })
})
