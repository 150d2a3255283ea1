/**
 * The verbosity tiers' cost (issue 21): `Pipeline.run` on the pipeline bench's inputs and
 * configuration (a) (composite scorer, greedy slice, U-shaped placer), at each tier, with
 * Effect's own tracer recording the spans (the events are real objects on real spans), and,
 * for reference, `StageOnly` with tracing off as `pipeline.bench.ts` runs it. At 1,000,000
 * candidates nearly all of them are excluded, so `StageAndExclusions` and `Full` make about a
 * million events: the figure says what that costs, not that it is advised (the chapter keeps
 * `Full` for development).
 *
 * The tiers are timed in rounds, each a block of consecutive calls per tier that opens with a
 * full collection and an untimed call (so that no tier pays for another's garbage), starting with a
 * different tier each round: 6 rounds of 10 calls at 10,000 candidates, 2 of 3 at a million,
 * after 20 (or 1) warm-up calls each. The figures are medians of wall clock and CPU time, and
 * each tier's difference from `StageOnly` with tracing off: `StageOnly` with tracing on is the
 * cost of the spans themselves.
 *
 * `npm run bench -- --bench=verbosity [--sizes=10000,1000000]`
 */
import { Context, Effect, Layer, References, Scope } from "effect"
import {
  type ContextItem,
  GreedySlice,
  OverflowNotifier,
  Pipeline,
  Scorer,
  Slicer,
  UShapedPlacer,
  type Verbosity
} from "../src/index.ts"
import { generateCandidates } from "./generate.ts"
import { budget, composite } from "./configA.ts"
import { recordSpans } from "../test/support/spans.ts"
import { median } from "./median.ts"

const argValue = (key: string): string | undefined =>
  process.argv.find((a) => a.startsWith(`--${key}=`))?.slice(key.length + 3)
const json = process.argv.includes("--json")
const sizes = (argValue("sizes") ?? "10000,1000000").split(",").map(Number)

const layers = Layer.mergeAll(
  Scorer.layer(composite),
  Slicer.layer(GreedySlice.make()),
  UShapedPlacer.layer,
  OverflowNotifier.layerNoop
)
const built = Effect.runSync(Layer.buildWithScope(layers, Scope.makeUnsafe()))

interface Task {
  readonly label: string
  readonly verbosity: Verbosity.Verbosity
  readonly tracing: boolean
}
const tasks: ReadonlyArray<Task> = [
  { label: "StageOnly, tracing off", verbosity: "StageOnly", tracing: false },
  { label: "StageOnly", verbosity: "StageOnly", tracing: true },
  { label: "StageAndExclusions", verbosity: "StageAndExclusions", tracing: true },
  { label: "Full", verbosity: "Full", tracing: true }
]


interface Row {
  readonly n: number
  readonly task: string
  readonly medianMs: number
  readonly cpuMs: number
  readonly overTracingOffMs: number
  readonly events: number
}
const results: Array<Row> = []
for (const n of sizes) {
  process.stderr.write(`N=${n}: generating candidates…\n`)
  const items: ReadonlyArray<ContextItem.ContextItem> = generateCandidates(n)
  const large = n >= 1_000_000
  const rounds = large ? 2 : 6
  const block = large ? 3 : 10
  const timed = tasks.map((task) => {
    const run = Effect.runSyncWith(built.pipe(Context.add(References.TracerEnabled, task.tracing)))
    const options = { verbosity: task.verbosity }
    // Wall and CPU time of one call (the CPU time is the process's, every thread: the garbage
    // collector's helpers count too); the program is built outside the timing.
    const once = (): readonly [number, number] => {
      const program = Pipeline.run(items, budget, options)
      const cpu = process.cpuUsage()
      const started = performance.now()
      run(program)
      const wall = performance.now() - started
      const used = process.cpuUsage(cpu)
      return [wall, (used.user + used.system) / 1000]
    }
    // The events of one call, counted once, outside the timing, with a tracer that keeps its spans.
    let events = 0
    if (task.tracing) {
      const { spans, tracer } = recordSpans()
      run(Pipeline.run(items, budget, options).pipe(Effect.withTracer(tracer)))
      for (const span of spans) events += span.events.length
    }
    return { task, once, events, wall: new Array<number>(), cpu: new Array<number>() }
  })
  for (let w = 0; w < (large ? 1 : 20); w++) for (const t of timed) t.once()
  // Rounds of blocks: each round times every tier in a block of consecutive calls, starting
  // with a different tier each round, so that a busy moment of the machine falls on all of them
  // alike. A block opens with a full collection and an untimed call, and its calls follow each
  // other: a tier's garbage (a million events after Full) is not charged to the next tier's
  // calls. (A full collection before every call instead would time the heap growing back.)
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < timed.length; k++) {
      const t = timed[(r + k) % timed.length]!
      // A full collection first (the bench runs with --expose-gc): the tier before may have left
      // a million events' spans to collect, which would otherwise fall in this tier's calls.
      globalThis.gc?.()
      t.once()
      for (let c = 0; c < block; c++) {
        const [wall, cpu] = t.once()
        t.wall.push(wall)
        t.cpu.push(cpu)
      }
    }
  }
  const off = median(timed[0]!.wall)
  for (const t of timed) {
    const row = {
      n,
      task: t.task.label,
      medianMs: median(t.wall),
      cpuMs: median(t.cpu),
      overTracingOffMs: median(t.wall) - off,
      events: t.events
    }
    results.push(row)
    process.stderr.write(`  ${row.task}: ${row.medianMs.toFixed(2)} ms (cpu ${row.cpuMs.toFixed(2)} ms)\n`)
  }
}

const ms = (x: number, width: number): string => `${x.toFixed(2).padStart(width)} ms`
if (json) {
  process.stdout.write(JSON.stringify(results, null, 2) + "\n")
} else {
  process.stdout.write(
    `${"N".padStart(10)}  ${"tier".padEnd(24)} ${"median/call".padStart(12)}  ${"cpu/call".padStart(11)}  ${
      "vs tracing off".padStart(14)
    }  ${"events".padStart(9)}\n`
  )
  for (const r of results) {
    const over = r.task === tasks[0]!.label ? "" : `${r.overTracingOffMs >= 0 ? "+" : "−"}${ms(Math.abs(r.overTracingOffMs), 0)}`
    process.stdout.write(
      `${r.n.toLocaleString("en").padStart(10)}  ${r.task.padEnd(24)} ${ms(r.medianMs, 9)}  ${ms(r.cpuMs, 8)}  ${
        over.padStart(14)
      }  ${r.events.toLocaleString("en").padStart(9)}\n`
    )
  }
}
