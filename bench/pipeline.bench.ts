/**
 * The whole pipeline at N = 100, 10,000, 100,000 and 1,000,000 candidates, side by side in one
 * process (issue 11): the specification's pseudocode transcribed (`pipelineBaseline.ts`,
 * quadratic scorers and all) against the library's `Pipeline.run` as an Effect program, its
 * layers built once.
 *
 * Inputs: `generateCandidates` (`generate.ts`), budget max 128,000, target 100,000, output
 * reserve 0. Configurations, all with deduplication on and the Throw strategy:
 *
 * - (a) composite of recency 0.5 + priority 0.3 + kind 0.2 (default weights), greedy, U-shaped;
 * - (b) the same with knapsack (bucket 100), up to 100,000 candidates (a million would be a DP
 *   table of 10^9 cells, beyond the slicer's default limit);
 * - (c) (a) with chronological placement.
 *
 * Before timing, each configuration's window and report (included and excluded items, their
 * scores and reasons, in order) are compared with the transcription's; any difference aborts the
 * run with exit code 1. The literal transcription runs up to `--baseline-max` candidates
 * (default 10,000: at 100,000 its quadratic scorers alone would take minutes); above it, the
 * outputs are compared with the same transcription given the scores of an independent
 * O(n log n) rank computation (written here, not the library's) and, for knapsack, a keep table
 * of byte rows: the chapters' results, computed in time.
 *
 * Per row, the stages' times: for the library, the medians of the report's own events
 * (Classify, Score, Deduplicate, Slice — which includes Sort, as Sort has no event — and Place),
 * Sort timed on its own on the same scores, and "report": the rest of the call (assembling the
 * report's lists, the Effect runtime; the reasons of what the slicer left out are worked out in
 * Slice's span and counted in its event); for the transcription, timestamps taken between its stages.
 *
 * Then, with `--expose-gc`, the heap per candidate of a library run: everything a call
 * allocates, what its result (window and report) keeps, and the difference. The targets
 * are printed as met or not met.
 *
 * Options: `--sizes=100,10000`, `--only=a` (configurations whose letter is listed: `--only=ac`),
 * `--baseline-max=N`, `--json` (the figures as JSON on stdout; progress goes to stderr).
 */
import { Context, Effect, Layer, References, Scope } from "effect"
import * as v8 from "node:v8"
import { Bench } from "tinybench"
import {
  ChronologicalPlacer,
  type ContextItem,
  GreedySlice,
  KnapsackSlice,
  OverflowNotifier,
  Pipeline,
  type PipelineResult,
  type Placer,
  Scorer,
  type ScoredItem,
  Slicer,
  Sort,
  UShapedPlacer
} from "../src/index.ts"
import { generateCandidates } from "./generate.ts"
import * as Baseline from "./pipelineBaseline.ts"
import { budget, composite } from "./configA.ts"
import { median } from "./median.ts"

const json = process.argv.includes("--json")
const argValue = (key: string): string | undefined =>
  process.argv.find((a) => a.startsWith(`--${key}=`))?.slice(key.length + 3)
const sizesArg = argValue("sizes")
const onlyArg = argValue("only")
const baselineMax = Number(argValue("baseline-max") ?? 10_000)
const progress = (line: string): void => {
  process.stderr.write(line + "\n")
}

// ---------------------------------------------------------------------------------------------
// Settings.

interface SizeSettings {
  readonly n: number
  /** tinybench, for the library's program: time budget (ms), minimum samples, warm-up calls. */
  readonly time: number
  readonly iterations: number
  readonly warmupIterations: number
  /** The same for the transcription, whose calls are far longer from 10,000 candidates up. */
  readonly baselineIterations: number
  readonly baselineWarmup: number
  /** Rounds: each task's figure is its best round's median (as in place.bench.ts). */
  readonly rounds: number
}

const allSizes: ReadonlyArray<SizeSettings> = [
  { n: 100, time: 500, iterations: 300, warmupIterations: 300, baselineIterations: 300, baselineWarmup: 100, rounds: 3 },
  { n: 10_000, time: 600, iterations: 30, warmupIterations: 10, baselineIterations: 3, baselineWarmup: 1, rounds: 1 },
  { n: 100_000, time: 800, iterations: 8, warmupIterations: 3, baselineIterations: 1, baselineWarmup: 0, rounds: 1 },
  { n: 1_000_000, time: 1000, iterations: 5, warmupIterations: 1, baselineIterations: 1, baselineWarmup: 0, rounds: 1 }
]
const sizes = sizesArg === undefined
  ? allSizes
  : allSizes.filter((size) => sizesArg.split(",").map(Number).includes(size.n))

const bucketSize = 100

// ---------------------------------------------------------------------------------------------
// Configurations.

const specComposite = Baseline.composite([[Baseline.recency, 0.5], [Baseline.priority, 0.3], [Baseline.kind, 0.2]])

interface Config {
  readonly id: "a" | "b" | "c"
  readonly label: string
  readonly maxN: number
  readonly slicer: () => Slicer.Definition
  readonly placer: Layer.Layer<Placer.Placer>
  readonly specSlicer: (large: boolean) => Baseline.SpecSlicer
  readonly specPlacer: Baseline.SpecPlacer
}

const allConfigs: ReadonlyArray<Config> = [
  {
    id: "a",
    label: "(a) composite, greedy, u-shaped",
    maxN: Infinity,
    slicer: GreedySlice.make,
    placer: UShapedPlacer.layer,
    specSlicer: () => Baseline.greedy,
    specPlacer: Baseline.uShaped
  },
  {
    id: "b",
    label: "(b) composite, knapsack 100, u-shaped",
    maxN: 100_000,
    slicer: () => Effect.runSync(KnapsackSlice.make({ bucketSize })),
    placer: UShapedPlacer.layer,
    specSlicer: (large) => Baseline.knapsack(bucketSize, large),
    specPlacer: Baseline.uShaped
  },
  {
    id: "c",
    label: "(c) composite, greedy, chronological",
    maxN: Infinity,
    slicer: GreedySlice.make,
    placer: ChronologicalPlacer.layer,
    specSlicer: () => Baseline.greedy,
    specPlacer: Baseline.chronological
  }
]
const configs = onlyArg === undefined ? allConfigs : allConfigs.filter((c) => onlyArg.includes(c.id))

/** The program with its layers built once, tracing off: a function per call. */
const programFor = (config: Config): (items: ReadonlyArray<ContextItem.ContextItem>) => PipelineResult.PipelineResult => {
  const layers = Layer.mergeAll(
    Scorer.layer(composite),
    Slicer.layer(config.slicer()),
    config.placer,
    OverflowNotifier.layerNoop
  )
  const context = Effect.runSync(Layer.buildWithScope(layers, Scope.makeUnsafe())).pipe(
    Context.add(References.TracerEnabled, false)
  )
  const run = Effect.runSyncWith(context)
  return (items) => run(Pipeline.run(items, budget))
}

// ---------------------------------------------------------------------------------------------
// The check: library against transcription.

/**
 * Ranks by sorting a copy of the keys with a comparator and searching each key's first
 * position: the chapters' `rank / (count - 1)`, independently of the library, in O(n log n).
 */
const rankByKey = (keys: ReadonlyArray<number>): Array<number> => {
  const sorted = [...keys].sort((x, y) => x - y)
  return keys.map((key) => {
    let lo = 0
    let hi = sorted.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (sorted[mid]! < key) lo = mid + 1
      else hi = mid
    }
    return sorted.length <= 1 ? 1 : lo / (sorted.length - 1)
  })
}

/** The composite's scores by `rankByKey` (every generated item has a timestamp and a priority). */
const fastSpecScorer = (items: ReadonlyArray<ContextItem.ContextItem>): Baseline.SpecScorer => {
  const recency = rankByKey(items.map((item) => item.timestamp!.epochMilliseconds))
  const priority = rankByKey(items.map((item) => item.priority!))
  const score = new Map<ContextItem.ContextItem, number>()
  items.forEach((item, i) => score.set(item, 0 + recency[i]! * 0.5 + priority[i]! * 0.3 + Baseline.kind(item, items) * 0.2))
  return (item) => score.get(item)!
}

const fail = (message: string): never => {
  throw new Error(message)
}

const checkSame = (what: string, actual: PipelineResult.PipelineResult, expected: Baseline.BaselineRun): void => {
  const report = actual.report
  if (actual.window.length !== expected.window.length) {
    fail(`${what}: ${actual.window.length} items in the window, the transcription has ${expected.window.length}`)
  }
  actual.window.forEach((item, k) => item === expected.window[k] || fail(`${what}: window position ${k} differs`))
  if (report.included.length !== expected.included.length) fail(`${what}: included lengths differ`)
  report.included.forEach((entry, k) => {
    const e = expected.included[k]!
    if (entry.item !== e.item || !Object.is(entry.score, e.score) || entry.reason._tag !== e.reason._tag) {
      fail(`${what}: included[${k}] differs`)
    }
  })
  if (report.excluded.length !== expected.excluded.length) {
    fail(`${what}: ${report.excluded.length} excluded, the transcription has ${expected.excluded.length}`)
  }
  report.excluded.forEach((entry, k) => {
    const e = expected.excluded[k]!
    if (
      entry.item !== e.item || !Object.is(entry.score, e.score) ||
      JSON.stringify(entry.reason) !== JSON.stringify(e.reason)
    ) fail(`${what}: excluded[${k}] differs (${JSON.stringify(entry.reason)} vs ${JSON.stringify(e.reason)})`)
  })
  if (report.totalCandidates !== expected.totalCandidates) fail(`${what}: totalCandidates differs`)
  if (report.totalTokensConsidered !== expected.totalTokensConsidered) fail(`${what}: totalTokensConsidered differs`)
}

// ---------------------------------------------------------------------------------------------
// Heap.

let sink: unknown
const keep = (value: unknown): void => {
  sink = value
}

const used = (): number => {
  const m = process.memoryUsage()
  return m.heapUsed + m.arrayBuffers
}

/**
 * What one call of `run` allocates (JS heap and array buffers, collections during the call
 * added back: see place.bench.ts's `allocatedBytes`) and what its result keeps alive: the heap
 * after a collection with the result held, less the heap after one without it. The smallest of
 * `calls` calls for each.
 */
const heapOf = (run: () => unknown, calls: number): { allocated: number; retained: number } | undefined => {
  const collect = globalThis.gc
  if (collect === undefined) return undefined
  let allocated = Infinity
  let retained = Infinity
  for (let attempt = 0; attempt < calls; attempt++) {
    keep(undefined)
    Effect.runSync(Effect.void)
    collect()
    collect()
    const profiler = new v8.GCProfiler()
    const before = used()
    profiler.start()
    // Held by `sink` only (a local would keep it alive through the measure without it).
    keep(run())
    const collections = profiler.stop().statistics
    const after = used()
    let freed = 0
    for (const c of collections) freed += c.beforeGC.heapStatistics.usedHeapSize - c.afterGC.heapStatistics.usedHeapSize
    allocated = Math.min(allocated, after - before + freed)
    // What the result keeps: the heap with it, less the heap once it is dropped.
    collect()
    collect()
    const withResult = used()
    keep(undefined)
    // The runtime may still reach the last program's fiber, and its result: run another.
    Effect.runSync(Effect.void)
    collect()
    collect()
    retained = Math.min(retained, withResult - used())
  }
  return { allocated, retained }
}

// ---------------------------------------------------------------------------------------------
// Running.

const stageNames = ["classify", "score", "dedupe", "sort", "slice", "place", "report"] as const
type Stage = typeof stageNames[number]

interface Row {
  readonly n: number
  readonly config: Config["id"]
  readonly task: string
  readonly kind: "baseline" | "program"
  readonly medianMs: number
  readonly perCandidateNs: number
  readonly samples: number
  /** Median per stage (ms). For the program, "slice" excludes Sort, which is timed on its own. */
  readonly stages: Record<Stage, number>
  /** The program's median divided into the transcription's (at sizes where it ran). */
  speedup?: number | undefined
  heap?: { readonly allocatedPerCandidate: number; readonly retainedPerCandidate: number; readonly extraPerCandidate: number } | undefined
}

const rows: Array<Row> = []

/** Times `call` with tinybench; the best round's median and the samples behind it. */
const time = (
  name: string,
  call: () => void,
  settings: { time: number; iterations: number; warmupIterations: number },
  rounds: number
): { medianMs: number; samples: number } => {
  let best = Infinity
  let samples = 0
  for (let round = 0; round < rounds; round++) {
    const bench = new Bench({ ...settings, warmupTime: 0, throws: true, setup: () => globalThis.gc?.() })
    bench.add(name, call)
    bench.runSync()
    const result = bench.getTask(name)?.result
    if (result === undefined || !("latency" in result)) throw new Error(`${name}: no result`)
    best = Math.min(best, result.latency.p50)
    samples += result.latency.samplesCount
  }
  return { medianMs: best, samples }
}

const runSize = (settings: SizeSettings): void => {
  const { n } = settings
  progress(`N=${n}: generating candidates…`)
  const items = generateCandidates(n)
  const literal = n <= baselineMax
  const scorer = literal ? specComposite : fastSpecScorer(items)
  // The scores Sort receives (all candidates survive deduplication here), for Sort's own timing.
  const scores = Effect.runSync(composite.scoreAll(items))

  for (const config of configs) {
    if (n > config.maxN) continue
    const what = `${config.label} at N=${n}`
    const program = programFor(config)

    progress(`${what}: checking against the ${literal ? "literal " : ""}transcription…`)
    const expected = Baseline.runBaseline(items, budget, scorer, config.specSlicer(!literal), config.specPlacer, true)
    checkSame(what, program(items), expected)
    checkSame(`${what}, second call`, program(items), expected)

    let baselineMedian: number | undefined
    if (literal) {
      progress(`${what}: timing the transcription…`)
      const times: Array<Array<number>> = stageNames.map(() => [])
      const marks = new Float64Array(8)
      const { medianMs, samples } = time(
        "baseline",
        () => {
          keep(Baseline.runBaseline(items, budget, specComposite, config.specSlicer(false), config.specPlacer, true, marks))
          for (let s = 0; s < stageNames.length; s++) times[s]!.push(marks[s + 1]! - marks[s]!)
        },
        {
          time: 0,
          iterations: settings.baselineIterations,
          warmupIterations: settings.baselineWarmup
        },
        settings.rounds
      )
      baselineMedian = medianMs
      rows.push({
        n,
        config: config.id,
        task: `transcription ${config.label}`,
        kind: "baseline",
        medianMs,
        perCandidateNs: (medianMs * 1e6) / n,
        samples,
        stages: Object.fromEntries(stageNames.map((s, k) => [s, median(times[k]!)])) as Record<Stage, number>
      })
    }

    progress(`${what}: timing Pipeline.run…`)
    const eventTimes = new Map<string, Array<number>>()
    const totals: Array<number> = []
    const { medianMs, samples } = time(
      "program",
      () => {
        const started = performance.now()
        const result = program(items)
        totals.push(performance.now() - started)
        let sum = 0
        for (const event of result.report.events) {
          const list = eventTimes.get(event.stage) ?? []
          list.push(event.durationMs)
          eventTimes.set(event.stage, list)
          sum += event.durationMs
        }
        const rest = eventTimes.get("rest") ?? []
        rest.push(totals[totals.length - 1]! - sum)
        eventTimes.set("rest", rest)
        keep(result)
      },
      settings,
      settings.rounds
    )
    // Sort on its own: what the pipeline does between Deduplicate and Slice, on the same scores.
    const sortTime = time(
      "sort",
      () => {
        const order = Sort.order(scores)
        // The pipeline's entries carry the report's `reason` slot too (see Pipeline.ts).
        const sorted = new Array<ScoredItem.ScoredItem & { reason: undefined }>(order.length)
        for (let k = 0; k < sorted.length; k++) sorted[k] = { item: items[order[k]!]!, score: scores[order[k]!]!, reason: undefined }
        keep(sorted)
      },
      settings,
      1
    ).medianMs
    const ev = (stage: string) => median(eventTimes.get(stage) ?? [])
    let heap: Row["heap"]
    if (globalThis.gc !== undefined && n >= 10_000) {
      progress(`${what}: measuring the heap…`)
      const measured = heapOf(() => program(items), n >= 1_000_000 ? 2 : 3)
      if (measured !== undefined) {
        heap = {
          allocatedPerCandidate: measured.allocated / n,
          retainedPerCandidate: measured.retained / n,
          extraPerCandidate: (measured.allocated - measured.retained) / n
        }
      }
    }
    rows.push({
      n,
      config: config.id,
      task: `Pipeline.run ${config.label}`,
      kind: "program",
      medianMs,
      perCandidateNs: (medianMs * 1e6) / n,
      samples,
      stages: {
        classify: ev("Classify"),
        score: ev("Score"),
        dedupe: ev("Deduplicate"),
        sort: sortTime,
        slice: Math.max(0, ev("Slice") - sortTime),
        place: ev("Place"),
        report: ev("rest")
      },
      speedup: baselineMedian === undefined ? undefined : baselineMedian / medianMs,
      heap
    })
  }
}

for (const settings of sizes) runSize(settings)
keep(sink)

// ---------------------------------------------------------------------------------------------
// Targets (issue 11).

interface Target {
  readonly target: string
  readonly measured: string
  readonly met: boolean
}

const find = (n: number, config: Config["id"], kind: Row["kind"]): Row | undefined =>
  rows.find((r) => r.n === n && r.config === config && r.kind === kind)
const targets: Array<Target> = []

const a10k = find(10_000, "a", "program")
if (a10k?.speedup !== undefined) {
  targets.push({
    target: "N=10,000, (a): Pipeline.run at least 30× faster than the transcription",
    measured: `${a10k.speedup.toFixed(0)}×`,
    met: a10k.speedup >= 30
  })
}
for (const id of ["a", "c"] as const) {
  const small = find(10_000, id, "program")
  const large = find(1_000_000, id, "program")
  if (small === undefined || large === undefined) continue
  const growth = large.perCandidateNs / small.perCandidateNs
  targets.push({
    target: `(${id}): time per candidate grows at most 3× from N=10,000 to N=1,000,000`,
    measured: `${growth.toFixed(2)}× (${small.perCandidateNs.toFixed(0)} → ${large.perCandidateNs.toFixed(0)} ns)`,
    met: growth <= 3
  })
}
const a100 = find(100, "a", "program")
const a100Base = find(100, "a", "baseline")
if (a100 !== undefined && a100Base !== undefined) {
  const ratio = a100.medianMs / a100Base.medianMs
  targets.push({
    target: "N=100, (a): Pipeline.run within 1.5× of the transcription",
    measured: `${ratio.toFixed(2)}× (${formatMs(a100.medianMs)} vs ${formatMs(a100Base.medianMs)})`,
    met: ratio <= 1.5
  })
}
const b100k = find(100_000, "b", "program")
if (b100k !== undefined) {
  targets.push({
    target: "N=100,000, (b): knapsack pipeline identical to the spec's DP (checked) and under 1 s",
    measured: formatMs(b100k.medianMs),
    met: b100k.medianMs < 1000
  })
}
for (const row of rows.filter((r) => r.n === 1_000_000 && r.kind === "program")) {
  targets.push({
    target: `N=1,000,000, (${row.config}): extra heap per candidate under 200 B beyond the report`,
    measured: row.heap === undefined
      ? "not measured (run with --expose-gc)"
      : `${row.heap.extraPerCandidate.toFixed(0)} B (allocated ${row.heap.allocatedPerCandidate.toFixed(0)} B, ` +
        `kept by the result ${row.heap.retainedPerCandidate.toFixed(0)} B)`,
    met: row.heap !== undefined && row.heap.extraPerCandidate < 200
  })
}

// ---------------------------------------------------------------------------------------------
// Output.

function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return "–"
  if (ms < 1e-3) return `${(ms * 1e6).toFixed(0)} ns`
  if (ms < 1) return `${(ms * 1e3).toFixed(ms < 0.01 ? 2 : 1)} µs`
  if (ms < 1000) return `${ms.toFixed(ms < 10 ? 2 : 1)} ms`
  return `${(ms / 1000).toFixed(2)} s`
}

if (json) {
  process.stdout.write(
    JSON.stringify(
      {
        node: process.version,
        v8: process.versions.v8,
        generator: "xorshift32, seed 0x9E3779B9; tokens, timestamp, priority, kind (issue 11)",
        budget: { maxTokens: 128_000, targetTokens: 100_000, outputReserve: 0 },
        rows,
        targets
      },
      null,
      2
    ) + "\n"
  )
} else {
  const header = ["N", "task", "median/call", "per cand.", "vs transcr.", ...stageNames, "heap/cand.", "samples"]
  const table = rows.map((r) => [
    r.n.toLocaleString("en-US"),
    r.task,
    formatMs(r.medianMs),
    `${r.perCandidateNs.toFixed(0)} ns`,
    r.kind === "baseline" ? "1.00×" : r.speedup === undefined ? "" : r.speedup >= 1
      ? `${r.speedup >= 10 ? r.speedup.toFixed(0) : r.speedup.toFixed(2)}× faster`
      : `${(1 / r.speedup).toFixed(2)}× slower`,
    ...stageNames.map((s) => formatMs(r.stages[s])),
    r.heap === undefined ? "" : `${r.heap.extraPerCandidate.toFixed(0)} B + ${r.heap.retainedPerCandidate.toFixed(0)} B`,
    String(r.samples)
  ])
  const widths = header.map((h, c) => Math.max(h.length, ...table.map((line) => line[c]!.length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((cell, c) => (c === 1 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("  ")
  const out: Array<string> = []
  out.push(`node ${process.version}, v8 ${process.versions.v8}; inputs: generateCandidates (xorshift32), budget 128,000 / 100,000`)
  out.push("")
  out.push(line(header))
  let lastN = -1
  for (let i = 0; i < table.length; i++) {
    if (rows[i]!.n !== lastN && lastN !== -1) out.push("")
    lastN = rows[i]!.n
    out.push(line(table[i]!))
  }
  out.push("")
  out.push("Stages: the library's from its report's events (Slice less Sort, which is timed on its own on the same")
  out.push("scores); \"report\" is the rest of the call (the report's assembly, the runtime). The transcription's from")
  out.push("timestamps between its stages. Heap/cand.: what a call allocates beyond what its result keeps, + what")
  out.push("the result (window and report) keeps, per candidate.")
  out.push("")
  out.push("Targets (issue 11):")
  for (const t of targets) out.push(`  [${t.met ? "met" : "NOT MET"}] ${t.target}: ${t.measured}`)
  process.stdout.write(out.join("\n") + "\n")
}
