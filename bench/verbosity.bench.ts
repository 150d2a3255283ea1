/**
 * The verbosity tiers' cost (issue 21): `Pipeline.run` on the pipeline bench's inputs and
 * configuration (a) (composite scorer, greedy slice, U-shaped placer), at each tier, with
 * Effect's own tracer recording the spans (the events are real objects on real spans), and,
 * for reference, `StageOnly` with tracing off as `pipeline.bench.ts` runs it. At 1,000,000
 * candidates nearly all of them are excluded, so `StageAndExclusions` and `Full` make about a
 * million events: the figure says what that costs, not that it is advised (the chapter keeps
 * `Full` for development).
 *
 * `npm run bench -- --bench=verbosity [--sizes=10000,1000000]`
 */
import { Context, Effect, Layer, References, Scope, Tracer } from "effect"
import {
  CompositeScorer,
  ContextBudget,
  type ContextItem,
  GreedySlice,
  KindScorer,
  OverflowNotifier,
  Pipeline,
  PriorityScorer,
  RecencyScorer,
  Scorer,
  Slicer,
  UShapedPlacer,
  type Verbosity
} from "../src/index.ts"
import { generateCandidates } from "./generate.ts"

const argValue = (key: string): string | undefined =>
  process.argv.find((a) => a.startsWith(`--${key}=`))?.slice(key.length + 3)
const json = process.argv.includes("--json")
const sizes = (argValue("sizes") ?? "10000,1000000").split(",").map(Number)
const budget = new ContextBudget.ContextBudget({ maxTokens: 128_000, targetTokens: 100_000, outputReserve: 0 })

const composite = Effect.runSync(
  CompositeScorer.make([
    { scorer: RecencyScorer.make(), weight: 0.5 },
    { scorer: PriorityScorer.make(), weight: 0.3 },
    { scorer: KindScorer.defaults, weight: 0.2 }
  ])
)
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

const median = (xs: Array<number>): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

const results: Array<{ n: number; task: string; medianMs: number; events: number }> = []
for (const n of sizes) {
  process.stderr.write(`N=${n}: generating candidates…\n`)
  const items: ReadonlyArray<ContextItem.ContextItem> = generateCandidates(n)
  const iterations = n >= 1_000_000 ? 5 : 30
  for (const task of tasks) {
    const run = Effect.runSyncWith(built.pipe(Context.add(References.TracerEnabled, task.tracing)))
    let events = 0
    const once = (): number => {
      const program = Pipeline.run(items, budget, { verbosity: task.verbosity })
      const started = performance.now()
      run(program)
      return performance.now() - started
    }
    // The events of one call, counted once, outside the timing, with a tracer that keeps its spans.
    if (task.tracing) {
      const spans: Array<Tracer.NativeSpan> = []
      const tracer = Tracer.make({
        span(options) {
          const span = new Tracer.NativeSpan(options)
          spans.push(span)
          return span
        }
      })
      run(Pipeline.run(items, budget, { verbosity: task.verbosity }).pipe(Effect.withTracer(tracer)))
      for (const span of spans) events += span.events.length
    }
    for (let w = 0; w < (n >= 1_000_000 ? 1 : 10); w++) once()
    const times: Array<number> = []
    for (let i = 0; i < iterations; i++) times.push(once())
    results.push({ n, task: task.label, medianMs: median(times), events })
    process.stderr.write(`  ${task.label}: ${median(times).toFixed(2)} ms\n`)
  }
}

if (json) {
  process.stdout.write(JSON.stringify(results, null, 2) + "\n")
} else {
  process.stdout.write(`${"N".padStart(10)}  ${"tier".padEnd(24)} ${"median/call".padStart(12)}  ${"events".padStart(9)}\n`)
  for (const r of results) {
    process.stdout.write(
      `${r.n.toLocaleString("en").padStart(10)}  ${r.task.padEnd(24)} ${r.medianMs.toFixed(2).padStart(9)} ms  ${
        r.events.toLocaleString("en").padStart(9)
      }\n`
    )
  }
}
