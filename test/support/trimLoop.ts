/**
 * The agent loop of issue 27 ("`trim` of 1,000 messages in a 50-step loop ≤ 5 ms per step after
 * the first"), run as a script in a Node process of its own, as a user's program runs the
 * library: `node test/support/trimLoop.ts` prints one JSON object (docs/design.md item 120).
 *
 * Why a process of its own rather than inside the test runner: vitest runs the sources through
 * its module runner, which rewrites every import into a property read on a module object and
 * shares the worker with the other test files' leftovers; the same loop measured 2–4 times
 * slower there than under Node. And why a warm-up first: a fresh process compiles `trim`'s code
 * while it runs its first calls (V8's optimising compiler works on helper threads, counted in
 * the process's CPU time); a server that runs an agent loop has done that long before. The
 * warm-up is another conversation (another seed), so the measured loop's messages are new to
 * every memo; its first step counts them all, and is left out as the issue says.
 *
 * A step's cost is the process's CPU time (`process.cpuUsage`), which a loaded machine does not
 * inflate as it does the wall clock; the wall clock is printed beside it. The loop runs twice:
 * the same message objects from step to step, and fresh JSON copies at every step.
 */
import * as Trim from "../../src/plain/Trim.ts"
import { chatProjection, toOpenAIChat } from "./sessionFormats.ts"
import * as Sessions from "./sessions.ts"
import { measured } from "./stall.ts"

/** One loop's figures: the medians over the steps after the first, and the first step's. */
export interface LoopFigures {
  readonly copies: boolean
  readonly medianCpuMs: number
  readonly medianWallMs: number
  readonly longestStallMs: number
  readonly firstStepCpuMs: number
  readonly droppedAtLastStep: number
}

/** What the script prints. */
export interface Figures {
  readonly warmUp: ReadonlyArray<LoopFigures>
  readonly loops: ReadonlyArray<LoopFigures>
}

const median = (xs: ReadonlyArray<number>): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

const options = { contextWindow: 32_000, outputReserve: 2_000 }

/** 50 steps over a session of `seed`: 1,000 messages, then two more at every step. */
const loop = async (seed: number, copies: boolean): Promise<LoopFigures> => {
  const session = chatProjection(Sessions.generate("chatty", 700, seed))
  const all = toOpenAIChat(Sessions.historyAt(session, 700))
  if (all.length < 1_100) throw new Error(`the session of seed ${seed} has ${all.length} messages, fewer than 1,100`)
  const cpu: Array<number> = []
  const wall: Array<number> = []
  let stall = 0
  let first = 0
  let dropped = 0
  for (let step = 0; step < 50; step++) {
    const history = all.slice(0, 1_000 + 2 * step)
    const input: ReadonlyArray<(typeof all)[number]> = copies ? JSON.parse(JSON.stringify(history)) : history
    const run = await measured(() => Trim.trim(input, options))
    if (step === 0) first = run.cpu
    else {
      cpu.push(run.cpu)
      wall.push(run.wall)
      stall = Math.max(stall, run.stall)
    }
    dropped = run.value.report.dropped.length
  }
  return {
    copies,
    medianCpuMs: median(cpu),
    medianWallMs: median(wall),
    longestStallMs: stall,
    firstStepCpuMs: first,
    droppedAtLastStep: dropped
  }
}

/** The warm-up loops (seed 26), then the measured ones (seed 27, the test's session). */
export const run = async (): Promise<Figures> => {
  const warmUp = [await loop(26, false), await loop(26, true)]
  const loops = [await loop(27, false), await loop(27, true)]
  return { warmUp, loops }
}

if (import.meta.main) {
  process.stdout.write(`${JSON.stringify(await run())}\n`)
}
