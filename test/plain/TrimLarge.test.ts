/**
 * Huge results fast, and a free event loop (issue 27, item 5; docs/design.md item 90,
 * docs/performance.md): `trim` with one 5 MB tool result resolves within a second and never
 * holds the event loop for more than 50 ms; `trim` in an agent loop over 1,000 messages costs
 * at most 5 ms a step after the first, with the same message objects and with fresh copies.
 *
 * Timings on a loaded 2-core machine (seven engineers' tests, load averages of 10–20 seen):
 * a call's time is the process's CPU time (`process.cpuUsage`, user + system), which the
 * machine's load does not inflate as it does the wall clock; the wall clock is printed beside
 * it. The longest stall (`test/support/stall.ts`, docs/design.md item 113) is the most CPU time
 * of the *main thread* between two ticks of a 1 ms timer: a stretch the event loop was held
 * for — not one the operating system gave to another process (the wall clock), nor V8's helper
 * threads' work beside the loop (the process's CPU time). Fifty medium results, through `trim`
 * (OpenAI chat) and `trimModelMessages` (the AI SDK's messages), are held to the 50 ms target
 * itself, the better of two runs (12–26 ms measured, 57 ms once with the whole suite's files
 * running beside it). The 5 MB log-like string's stall, the median of three runs, is held to
 * the target itself since design items 117–119 (its whole text is no longer made as one
 * 10 MB string: 8–19 ms measured, 7–17 ms beside another test run; was 40–53 ms); 5 MB of
 * base64 met for the first time since item 122 (0.66–0.70 s CPU and 8–11 ms outside the
 * runner; was 1.2–3.5 s and 74–617 ms: `gpt-tokenizer`'s merge cache, and a shortening's
 * candidates cut apart). Not held yet (items 119, 122, 123): a 5 MB JSON tree (0.76–0.88 s,
 * 42–46 ms: no margin) or a 5 MB string deep in one.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { Prompt } from "effect/ai"
import type * as OpenAIChat from "../../src/plain/OpenAIChat.ts"
import * as Trim from "../../src/plain/Trim.ts"
import { toModelMessages, toOpenAIChat } from "../support/sessionFormats.ts"
import { wordText } from "../support/wordText.ts"
import { randomBytes } from "../support/mediaFixtures.ts"
import { measured } from "../support/stall.ts"
import type * as TrimLoop from "../support/trimLoop.ts"

const execFileAsync = promisify(execFile)

/**
 * The targets (issue 27) and the margins: the CPU time of a huge call is held to its target, and
 * the longest stall of the first two tests to the 50 ms target itself (the 5 MB string result:
 * 8–19 ms of main-thread CPU, design item 119; it was held to twice the target while its whole
 * text was made as one 10 MB string, item 114); a loop step (median, in a Node process of its
 * own: `test/support/trimLoop.ts`, design item 120) to its 5 ms target itself. The figures are
 * printed for docs/performance.md.
 */
const targets = { hugeCallMs: 1_000, stallMs: 50, stallMargin: 1, stepMs: 5 }

const median = (xs: ReadonlyArray<number>): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

/** A log-like text of `n` characters: words, numbers, JSON, line breaks. */
const bigTextWords = ["alpha", "beta", "gamma", "delta", "error", "value", "12345", "{\"k\":1}", "ok", "résumé", "—", "\n"]
const bigText = (n: number, seed = 1): string =>
  wordText(bigTextWords, n, seed)

const withResult = (content: string): Array<OpenAIChat.Message> => [
  { role: "system", content: "you are an agent" },
  { role: "user", content: "read the build log" },
  { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: "{\"path\":\"build.log\"}" } }] },
  { role: "tool", tool_call_id: "c1", content }
]

/** A history of tool calls and their results, as `effect/ai` messages (converted per door). */
const withResults = (results: ReadonlyArray<unknown>): Array<Prompt.Message> => [
  Prompt.systemMessage({ content: "you are an agent" }),
  Prompt.userMessage({ content: [Prompt.textPart({ text: "read the build log" })] }),
  ...results.flatMap((result, i) => [
    Prompt.assistantMessage({ content: [Prompt.toolCallPart({ id: `c${i}`, name: "read", params: { path: `f${i}.log` }, providerExecuted: false })] }),
    Prompt.toolMessage({ content: [Prompt.toolResultPart({ id: `c${i}`, name: "read", isFailure: false, result, providerExecuted: false })] })
  ])
]

type Run = { readonly name: string; readonly cpu: number; readonly wall: number; readonly stall: number; readonly processStall: number; readonly wallStall: number }

const row = (r: Run): string =>
  `${r.name}: ${r.cpu.toFixed(0)} ms CPU (${r.wall.toFixed(0)} ms wall), stall ${r.stall.toFixed(1)} ms main-thread CPU (${r.processStall.toFixed(1)} ms process CPU, ${r.wallStall.toFixed(0)} ms wall)`

describe("trim: huge results fast, a free event loop", () => {
  it("one 5 MB tool result: ≤ 1 s (median of 3) and no long event-loop stall (50 ms target); the result shortened to fit", async () => {
    // The tokenizer loaded and warmed first: its loading is not the call's.
    await Trim.trim(withResult("warm up"), { contextWindow: 128_000 })
    const runs: Array<Run> = []
    for (const seed of [1, 2, 3]) {
      const content = bigText(5_000_000, seed)
      const { value, ...run } = await measured(() => Trim.trim(withResult(content), { contextWindow: 128_000, outputReserve: 4_000 }))
      runs.push({ name: `log text, seed ${seed}`, ...run })
      const tool = value.messages.at(-1)!
      assert.strictEqual(tool.role, "tool")
      assert.isBelow(typeof tool.content === "string" ? tool.content.length : Infinity, content.length)
      assert.strictEqual(value.report.shortened?.length, 1)
    }
    console.log(`5 MB trim: ${runs.map(row).join("; ")}`)
    assert.isAtMost(median(runs.map((r) => r.cpu)), targets.hugeCallMs)
    assert.isAtMost(median(runs.map((r) => r.stall)), targets.stallMs * targets.stallMargin)
  }, 120_000)

  it("one 5 MB base64 tool result (random bytes, met for the first time): ≤ 1 s (median of 3) and no long event-loop stall (50 ms target)", async () => {
    await Trim.trim(withResult("warm up"), { contextWindow: 128_000 })
    const runs: Array<Run> = []
    for (const seed of [1, 2, 3]) {
      const content = Buffer.from(randomBytes(3_750_000, seed)).toString("base64")
      const { value, ...run } = await measured(() => Trim.trim(withResult(content), { contextWindow: 128_000, outputReserve: 4_000 }))
      runs.push({ name: `base64, seed ${seed}`, ...run })
      assert.strictEqual(value.report.shortened?.length, 1)
    }
    console.log(`5 MB base64 trim: ${runs.map(row).join("; ")}`)
    assert.isAtMost(median(runs.map((r) => r.cpu)), targets.hugeCallMs, runs.map(row).join("; "))
    assert.isAtMost(median(runs.map((r) => r.stall)), targets.stallMs, runs.map(row).join("; "))
  }, 120_000)

  it("fifty medium results, through trim and trimModelMessages: no event-loop stall over 50 ms (the better of two runs)", async () => {
    const options = { contextWindow: 128_000, outputReserve: 4_000 }
    await Trim.trimModelMessages(toModelMessages(withResults([{ warm: "up" }])), options)
    const inputs: ReadonlyArray<readonly [string, () => ReadonlyArray<unknown>]> = [
      ["fifty results of 100 kB", () => Array.from({ length: 50 }, (_, i) => bigText(100_000, 100 * runs.length + i))]
    ]
    const runs: Array<Run> = []
    for (const [name, results] of inputs) {
      // Twice each door, a fresh input each time (the tokenizer's cache of pre-tokens would
      // serve a repeat): the better run is held, as a main-thread GC pause or the machine's
      // memory contention lands in one run or the other.
      for (const attempt of [1, 2]) {
        const chat = toOpenAIChat(withResults(results()))
        const { value: trimmed, ...first } = await measured(() => Trim.trim(chat, options))
        runs.push({ name: `trim, ${name}, run ${attempt}`, ...first })
        assert.isAtLeast(trimmed.report.shortened.length + trimmed.report.dropped.length, 1)
        const model = toModelMessages(withResults(results()))
        const { value, ...run } = await measured(() => Trim.trimModelMessages(model, options))
        runs.push({ name: `trimModelMessages, ${name}, run ${attempt}`, ...run })
        assert.isAtLeast(value.report.shortened.length + value.report.dropped.length, 1)
      }
    }
    console.log(`huge inputs: ${runs.map(row).join("; ")}`)
    for (const door of ["trim,", "trimModelMessages,"]) {
      const of = runs.filter((r) => r.name.startsWith(door))
      assert.isAtMost(Math.min(...of.map((r) => r.stall)), targets.stallMs, of.map(row).join("; "))
    }
  }, 300_000)

  it("an agent loop of 1,000 messages, two appended a step, 50 steps: at most 5 ms a step after the first (median), the same objects and fresh JSON copies, in a Node process as a user's", async () => {
    // The loop runs in a Node process of its own, after a warm-up loop on another conversation
    // (test/support/trimLoop.ts says why; docs/design.md item 120).
    const { stdout } = await execFileAsync(process.execPath, [fileURLToPath(new URL("../support/trimLoop.ts", import.meta.url))], {
      maxBuffer: 1 << 20
    })
    const figures: TrimLoop.Figures = JSON.parse(stdout)
    const row = (l: TrimLoop.LoopFigures) =>
      `${l.copies ? "fresh copies" : "same objects"}: median ${l.medianCpuMs.toFixed(2)} ms CPU (${l.medianWallMs.toFixed(2)} ms wall) a step, first step ${l.firstStepCpuMs.toFixed(0)} ms, longest stall ${l.longestStallMs.toFixed(1)} ms`
    console.log(`1,000-message loop: ${figures.loops.map(row).join("; ")} (warm-up loop, another conversation: ${figures.warmUp.map(row).join("; ")})`)
    assert.strictEqual(figures.loops.length, 2)
    for (const loop of figures.loops) {
      assert.isAbove(loop.droppedAtLastStep, 0)
      assert.isAtMost(loop.medianCpuMs, targets.stepMs, row(loop))
    }
  }, 300_000)
})
