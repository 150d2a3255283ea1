/**
 * The LangChain side by side (issue 29, item 3; `langchainBench.ts`): generated sessions driven
 * through LangChain's `createAgent` loop with LangChain's `trimMessages`, its
 * `summarizationMiddleware` (a scripted summariser) and this library's `LangChain.middleware`,
 * and each one's time per call at 100 and 1,000 messages.
 *
 * Options: `--steps=N` (calls per session, default 200), `--window=N` (default 32,000 tokens,
 * 4,096 for the output), `--shapes=tool-heavy,chatty`, `--seed=N` (default 29). Output: a table;
 * with `--json`, the figures as JSON with its `targets` (the adapter: 0 orphaned tool parts,
 * the system message first and the newest human message in every request, no request over the
 * target).
 */
import * as LangChainBench from "./langchainBench.ts"
import { shapes as allShapes, type Shape } from "../test/support/sessions.ts"

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)
const json = process.argv.includes("--json")
const steps = Number(arg("steps") ?? 200)
const contextWindow = Number(arg("window") ?? 32_000)
const seed = Number(arg("seed") ?? 29)
const shapes = (arg("shapes")?.split(",") ?? allShapes).filter((s): s is Shape => allShapes.some((known) => known === s))
const settings: LangChainBench.Settings = { contextWindow, outputReserve: 4_096, secondsBetweenCalls: 5 }

const log = (line: string) => process.stderr.write(`${line}\n`)
log(`langchain bench: ${shapes.join(", ")}, ${steps} calls, window ${contextWindow}`)
const rows = await LangChainBench.compare(shapes, steps, settings, seed)
const timings = await LangChainBench.timeCalls([100, 1_000], { ...settings, contextWindow: 128_000 })

const adapter = rows.filter((r) => r.strategy === "effect-cupel")
const sum = (f: (r: LangChainBench.Row) => number) => adapter.reduce((s, r) => s + f(r), 0)
const targets = [
  { target: "LangChain adapter: 0 orphaned tool parts", measured: String(sum((r) => r.orphans)), met: sum((r) => r.orphans) === 0 },
  {
    target: "LangChain adapter: the system message first in every request",
    measured: `${sum((r) => r.systemNotFirst)} without`,
    met: sum((r) => r.systemNotFirst) === 0
  },
  {
    target: "LangChain adapter: the newest human message in every request",
    measured: `${sum((r) => r.newestHumanMissing)} without`,
    met: sum((r) => r.newestHumanMissing) === 0
  },
  {
    target: "LangChain adapter: no request over the window",
    measured: `${sum((r) => r.overTarget)} over`,
    met: sum((r) => r.overTarget) === 0
  }
]

const pct = (x: number) => `${(100 * x).toFixed(1)}%`
if (json) {
  process.stdout.write(JSON.stringify({ settings, steps, seed, rows, timings, targets }, null, 2) + "\n")
} else {
  const out: Array<string> = []
  out.push(`LangChain side by side — ${steps} calls a session, window ${contextWindow} (4,096 for the output), Anthropic 5-minute prices, second half`)
  out.push(`${"shape".padEnd(11)} ${"strategy".padEnd(24)} ${"orphans".padStart(7)} ${"no sys".padStart(6)} ${"no human".padStart(8)} ${"largest/target".padStart(15)} ${"over".padStart(5)} ${"hit".padStart(7)} ${"cost".padStart(6)} ${"summ.".padStart(5)}`)
  for (const r of rows) {
    out.push(
      `${r.shape.padEnd(11)} ${r.strategy.padEnd(24)} ${String(r.orphans).padStart(7)} ${String(r.systemNotFirst).padStart(6)} ${String(r.newestHumanMissing).padStart(8)} ${`${r.largestRequest}/${r.target}`.padStart(15)} ${String(r.overTarget).padStart(5)} ${pct(r.hitRatio).padStart(7)} ${r.cost.toFixed(2).padStart(6)} ${String(r.summarizerCalls).padStart(5)}`
    )
  }
  out.push("")
  out.push("time per call (the strategy's own work, 128,000-token window):")
  for (const t of timings) out.push(`  ${t.strategy.padEnd(24)} ${String(t.messages).padStart(5)} messages  ${t.millisPerCall.toFixed(2)} ms`)
  out.push("")
  for (const t of targets) out.push(`  [${t.met ? "met" : "NOT MET"}] ${t.target}: ${t.measured}`)
  process.stdout.write(out.join("\n") + "\n")
}
process.exitCode = targets.every((t) => t.met) ? 0 : 1
