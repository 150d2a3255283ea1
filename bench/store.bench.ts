/**
 * The store fleet bench (issue 28, item 3; `storeFleet.ts`, design 93): several processes
 * serving many conversations, their states in one real `redis-server` on 127.0.0.1, while
 * Redis is killed and restarted, frozen, paused, and the proxy in front of it slowed, cut and
 * turned to garbage. Prints the figures — calls, conversations, faults injected, calls
 * answered and within their bound, states applied, states lost — and, with `--json`, one JSON
 * document whose `targets` hold the verdicts (every call answered within its bound, 0 states
 * lost, 0 half-applied, every conversation back on the cache after the faults).
 */
import { Effect } from "effect"
import { defaultFleet, runFleet } from "./storeFleet.ts"

const json = process.argv.includes("--json")
const figures = await Effect.runPromise(Effect.scoped(runFleet(defaultFleet)))
const targets = [
  { target: "every call answered", measured: `${figures.answered} of ${figures.calls}`, met: figures.answered === figures.calls },
  {
    target: `every call within its bound (${figures.boundMillis} ms)`,
    measured: `${figures.withinBound} of ${figures.calls} (max ${figures.maxMillis} ms)`,
    met: figures.withinBound === figures.calls
  },
  { target: "states lost = 0", measured: String(figures.statesLost), met: figures.statesLost === 0 },
  { target: "states half-applied = 0", measured: String(figures.halfApplied), met: figures.halfApplied === 0 },
  {
    target: "every conversation appends and reads the cache after the faults",
    measured: `${figures.recovered} of ${figures.conversations}`,
    met: figures.recovered === figures.conversations
  }
]
const ok = targets.every((t) => t.met)
if (json) process.stdout.write(JSON.stringify({ ...figures, targets }, null, 2) + "\n")
else {
  const lines = [
    `store fleet: ${figures.workers} processes, ${figures.conversations} conversations, ${figures.seconds} s`,
    `  calls ${figures.calls} (${figures.concurrentRounds} rounds of 2-3 concurrent calls of one conversation)`,
    `  faults injected ${figures.faults.length}: ${figures.faults.map((f) => f.kind).join("; ")}`,
    `  answered ${figures.answered}, within ${figures.boundMillis} ms ${figures.withinBound} (p99 ${figures.p99Millis} ms, max ${figures.maxMillis} ms)`,
    `  committed ${JSON.stringify(figures.committed)}`,
    `  states applied ${figures.statesApplied}, half-applied ${figures.halfApplied}, invalid successors ${figures.invalidSuccessors}, lost ${figures.statesLost}`,
    `  every process committing again ${figures.recoveryMillis} ms after the last fault; back on the cache: ${figures.recovered} of ${figures.conversations} conversations`,
    ...targets.map((t) => `  ${t.met ? "met   " : "MISSED"} ${t.target}: ${t.measured}`),
    ...figures.problems.slice(0, 10).map((p) => `  problem: ${p}`)
  ]
  process.stdout.write(lines.join("\n") + "\n")
}
process.exit(ok ? 0 : 1)
