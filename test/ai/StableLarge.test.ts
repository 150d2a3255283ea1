/**
 * The stable window with a huge result, and a free event loop (issue 27, item 5; docs/design.md
 * item 103): the prefix digests hash a long message in pieces (`Hash.hashStringEffect`, the
 * same hash as `Hash.hashString`), and the summary ledger reads a long text in pieces of lines
 * (`SummaryLedger.extractEffect`, the same facts as `extract`), yielding between them.
 *
 * The stall is measured as `test/plain/TrimLarge.test.ts` does (`test/support/stall.ts`,
 * docs/design.md item 113): the most CPU time of the main thread between two ticks of a 1 ms
 * timer — neither another process's time nor V8's helper threads': the per-call fit
 * (`PromptWindow.fit`) and the stable window's `fit` + `commit` (the better of two runs) held
 * to the 50 ms target itself since design items 117–119 (7–20 ms measured, 15–23 ms beside
 * another test run; 24–48 ms and twice the target before, item 114) — it is the effect/ai
 * layer's and the AI SDK middleware's core in stable mode; both with a 5 MB log-like result.
 * (A 5 MB JSON tree through the stable window still stalls over 100 ms: design items 114 and
 * 119, not held here.)
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Prompt } from "effect/ai"
import { KeyValueStore } from "effect/persistence"
import * as fc from "fast-check"
import * as GptTokenizer from "../../src/ai/GptTokenizer.ts"
import * as Hash from "../../src/ai/internal/hash.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as StableWindow from "../../src/ai/StableWindow.ts"
import * as SummaryLedger from "../../src/ai/SummaryLedger.ts"
import { ContextBudget, FirstFitSlice, OverflowNotifier, RecencyScorer } from "../../src/index.ts"
import * as SectionedPlacer from "../../src/placers/SectionedPlacer.ts"
import { wordText } from "../support/wordText.ts"
import { measured } from "../support/stall.ts"

const targets = { stallMs: 50, stableMargin: 1 }

/** A log-like text of `n` characters with facts in it: words, paths, errors, line breaks. */
const bigTextWords = ["alpha", "beta", "src/a/b.ts", "Error: boom", "TODO fix", "x_y1", "https://e.io/p", "12345", "résumé", "\n", "\n"]
const bigText = (n: number, seed = 1): string =>
  wordText(bigTextWords, n, seed)

describe("the stable window: huge results, a free event loop", () => {
  it("Hash.hashStringEffect gives hashString's hash, whole or in pieces", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "grapheme", maxLength: 64 }), fc.integer({ min: 0, max: 3 }), fc.integer(), async (unit, times, seed) => {
        // Short texts (hashed at once) and texts past one piece (hashed in pieces).
        const text = times === 0 ? unit : unit.repeat(Math.ceil((Hash.hashPiece * times + 7) / Math.max(1, unit.length)))
        const chunked = await Effect.runPromise(Hash.hashStringEffect(text, seed))
        assert.strictEqual(chunked, Hash.hashString(text, seed))
      }),
      { numRuns: 40, seed: 103 }
    )
  })

  it("SummaryLedger.extractEffect gives extract's facts, a long text read in pieces of lines", async () => {
    const lines = fc.array(
      fc.oneof(
        fc.constantFrom("", "  ", "Error: no such file /tmp/x.log", "TODO: retry", "see https://a.io/x).", "fix src/deep/path/mod.ts", "id 3f2a9c1 and user_id", "FAIL test/a.test.ts", "\r"),
        fc.string({ maxLength: 30 })
      ),
      { minLength: 1, maxLength: 40 }
    )
    await fc.assert(
      fc.asyncProperty(lines, fc.boolean(), fc.boolean(), async (ls, failure, long) => {
        const block = ls.join("\n")
        const text = long ? Array.from({ length: Math.ceil(SummaryLedger.extractPiece * 2.5 / (block.length + 1)) }, () => block).join("\n") : block
        const span = [
          Prompt.toolMessage({ content: [Prompt.toolResultPart({ id: "c1", name: "read", isFailure: failure, result: text, providerExecuted: false })] })
        ]
        const chunked = await Effect.runPromise(SummaryLedger.extractEffect(span, long ? text : undefined))
        assert.deepStrictEqual(chunked, SummaryLedger.extract(span, long ? text : undefined))
      }),
      { numRuns: 25, seed: 103 }
    )
  })

  it("a stable window's fit and commit, and the per-call fit, with one 5 MB tool result: no long event-loop stall (50 ms target; the per-call fit held to it)", async () => {
    const layers = Layer.mergeAll(
      RecencyScorer.layer,
      FirstFitSlice.layer,
      SectionedPlacer.conversation,
      OverflowNotifier.layerNoop,
      KeyValueStore.layerMemory,
      GptTokenizer.layer
    )
    const history = (result: unknown) => [
      Prompt.systemMessage({ content: "you are an agent" }),
      Prompt.userMessage({ content: [Prompt.textPart({ text: "read the build log" })] }),
      Prompt.assistantMessage({ content: [Prompt.toolCallPart({ id: "c1", name: "read", params: { path: "build.log" }, providerExecuted: false })] }),
      Prompt.toolMessage({ content: [Prompt.toolResultPart({ id: "c1", name: "read", isFailure: false, result, providerExecuted: false })] })
    ]
    const budget = new ContextBudget.ContextBudget({ maxTokens: 128_000, targetTokens: 120_000 })
    const stable = (result: unknown) =>
      Effect.gen(function*() {
        const window = yield* StableWindow.make({})
        const plan = yield* window.fit(Prompt.fromMessages(history(result)), budget, {})
        yield* window.commit(plan)
        return plan.countedTokens
      }).pipe(Effect.provide(layers))
    const perCall = (result: unknown) =>
      PromptWindow.fit(Prompt.fromMessages(history(result)), budget).pipe(
        // The one result shortened to fit (rule K6): 0 then, past any target otherwise.
        Effect.map((fitted) => (fitted.shortened?.length === 1 ? 0 : Infinity)),
        Effect.provide(layers)
      )
    // The tokenizer loaded and warmed first: its loading is not the call's.
    await Effect.runPromise(stable("warm up"))
    const runs: Array<{ name: string; cpu: number; stall: number; processStall: number; wallStall: number }> = []
    const cases: ReadonlyArray<readonly [string, (result: unknown) => Effect.Effect<number, unknown>, () => unknown]> = [
      ["stable, log text seed 1", stable, () => bigText(5_000_000, 1)],
      ["stable, log text seed 2", stable, () => bigText(5_000_000, 2)],
      ["per-call, log text", perCall, () => bigText(5_000_000, 3)]
    ]
    for (const [name, call, result] of cases) {
      const input = result()
      const { value, ...run } = await measured(() => Effect.runPromise(call(input)))
      runs.push({ name, ...run })
      assert.isAtMost(value, 120_000)
    }
    const row = (r: (typeof runs)[number]) =>
      `${r.name}: cpu ${r.cpu.toFixed(0)} ms, stall ${r.stall.toFixed(1)} ms main-thread CPU (${r.processStall.toFixed(1)} process CPU, ${r.wallStall.toFixed(0)} ms wall)`
    console.log(`5 MB fits: ${runs.map(row).join("; ")}`)
    // The stable window: the better of its two runs, to the target itself (7–20 ms since design
    // items 117–119: the long text is a rope hashed from its pieces); the per-call fit: its run.
    assert.isAtMost(Math.min(...runs.filter((r) => r.name.startsWith("stable")).map((r) => r.stall)), targets.stallMs * targets.stableMargin, runs.map(row).join("; "))
    for (const r of runs.filter((r) => r.name.startsWith("per-call"))) assert.isAtMost(r.stall, targets.stallMs, row(r))
  }, 300_000)
})
