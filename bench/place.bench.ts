/**
 * `npm run bench`: placement at N = 100, 10,000, 100,000 and 1,000,000, side by side.
 *
 * For each size, on the inputs of `generate.ts` (issue 4's deterministic generator):
 *
 * - the baseline: the specification's pseudocode transcribed (`baseline.ts`), for both placers;
 * - the library's placers as the layers run them: instances from `UShapedPlacer.make()` and
 *   `ChronologicalPlacer.make()`, which keep their working buffers between calls;
 * - the pure functions `UShapedPlacer.place` and `ChronologicalPlacer.place`, which allocate
 *   their buffers on every call, for comparison;
 * - `Float64Array.prototype.sort` on the same scores, a native sort of bare keys, for reference;
 * - each placer without its sort (its read of the items and its output array), for reference:
 *   how that grows with N is the part of the placers' growth that no sort can remove;
 * - the whole `Place.place` program (validation, merge, token sum, overflow check and
 *   placement) run by the Effect runtime, with each placer. The layers are built
 *   once per task and the program runs with `Effect.runSyncWith(context)`, tracing off, so what
 *   is timed is the program, not layer construction.
 *
 * Before timing, every placer's output (for instances, a second call, on kept buffers; and
 * the radix paths' orders, whatever the size) is checked against the baseline's; any difference
 * aborts the run with exit code 1. The inputs
 * are generated once per size; the untimed variant shares the unchanged items with the timed
 * one (see `untimedVariant`).
 *
 * Timing is tinybench's (median of per-call samples; at 100 items, the best of three rounds'
 * medians, each round timing every task in turn). Then the extra heap per placed item is
 * measured (see `allocatedBytes`) and the targets are checked.
 *
 * Output: a table on stdout; with `--json`, the same figures as JSON on stdout (progress goes
 * to stderr). Run with `--expose-gc` (the npm script does) for the heap figures.
 */
import { Context, Effect, Layer, References, Scope } from "effect"
import * as v8 from "node:v8"
import { Bench } from "tinybench"
import {
  ChronologicalPlacer,
  ContextBudget,
  OverflowNotifier,
  Place,
  type ContextItem,
  type Placer,
  type ScoredItem,
  UShapedPlacer
} from "../src/index.ts"
import { chronologicalOrderFast, readTimes } from "../src/placers/internal/chronological.ts"
import { placeFromRefs, reusable, type Scratch } from "../src/internal/scratch.ts"
import { readScoresAsKeys, uShapedOrderFast } from "../src/placers/internal/uShaped.ts"
import { chronologicalBaseline, uShapedBaseline } from "./baseline.ts"
import { generate, untimedVariant } from "./generate.ts"

const json = process.argv.includes("--json")
/** `--sizes=10000,1000000`: only these sizes (for quick comparisons; targets need all four). */
const sizesArg = process.argv.find((a) => a.startsWith("--sizes="))?.slice("--sizes=".length)
/** `--only=UShaped`: only tasks whose name contains this text, and their baselines. */
const onlyArg = process.argv.find((a) => a.startsWith("--only="))?.slice("--only=".length)
const progress = (line: string): void => {
  process.stderr.write(line + "\n")
}

// ---------------------------------------------------------------------------------------------
// Settings: enough samples for a stable median, a couple of minutes in all on two cores.

interface SizeSettings {
  readonly n: number
  /** tinybench: time budget per task (ms) and minimum samples. */
  readonly time: number
  readonly iterations: number
  readonly warmupIterations: number
  /** How many times every task is timed; its figure is the best round's median. */
  readonly rounds: number
}

const allSizes: ReadonlyArray<SizeSettings> = [
  // Three rounds at 100 items, where a task's turn is short enough for a burst of other work on
  // the machine to move its median by half (seen in some full runs, baselines included).
  { n: 100, time: 600, iterations: 200, warmupIterations: 200, rounds: 3 },
  { n: 10_000, time: 600, iterations: 30, warmupIterations: 20, rounds: 1 },
  { n: 100_000, time: 800, iterations: 10, warmupIterations: 3, rounds: 1 },
  // The baseline takes over a second a call here: a few samples, and one warm-up call (the code
  // is already optimised by the smaller sizes).
  { n: 1_000_000, time: 1500, iterations: 5, warmupIterations: 1, rounds: 1 }
]

const sizes = sizesArg === undefined
  ? allSizes
  : allSizes.filter((size) => sizesArg.split(",").map(Number).includes(size.n))

// ---------------------------------------------------------------------------------------------
// The Effect program. Each task builds its layers once (`programFor`), outside the timing, and
// runs the program with them; the heap figure for a first call builds them anew.

const budget = new ContextBudget.ContextBudget({
  maxTokens: Number.MAX_SAFE_INTEGER,
  targetTokens: Number.MAX_SAFE_INTEGER
})

const contextFor = (placer: Layer.Layer<Placer.Placer>) =>
  Effect.runSync(
    Layer.buildWithScope(Layer.mergeAll(placer, OverflowNotifier.layerNoop), Scope.makeUnsafe())
  ).pipe(Context.add(References.TracerEnabled, false))

/** `Place.place` on `items` with `placer`, its layers built once: a function per call. */
const programFor = (
  placer: Layer.Layer<Placer.Placer>,
  items: ReadonlyArray<ScoredItem.ScoredItem>
): () => ReadonlyArray<ContextItem.ContextItem> => {
  const run = Effect.runSyncWith(contextFor(placer))
  return () => run(Place.place({ scored: items, budget })).placed
}

// ---------------------------------------------------------------------------------------------
// The tasks.

type Variant = "timed" | "untimed"

interface TaskSpec {
  readonly name: string
  /** Which inputs it runs on. */
  readonly variant: Variant
  /** The task whose median this one is compared with (itself for a baseline). */
  readonly baseline: string
  /**
   * `placer`: a placer instance, as the layers build them (working buffers kept between calls);
   * `function`: the pure functions, which allocate their buffers on every call.
   */
  readonly kind: "baseline" | "placer" | "function" | "program" | "reference"
  /**
   * The task on these items: `call` runs it once (its result is kept, so the work cannot be
   * optimised away); `beforeEach`, if any, runs untimed before each call.
   */
  readonly make: (items: ReadonlyArray<ScoredItem.ScoredItem>) => Timed
  /** Output to compare with the baseline's before timing, if any. */
  readonly output?: (items: ReadonlyArray<ScoredItem.ScoredItem>) => ArrayLike<ContextItem.ContextItem>
}

interface Timed {
  readonly call: () => unknown
  readonly beforeEach?: () => void
}

const U_BASE = "baseline u-shaped (spec pseudocode)"
const C_BASE = "baseline chronological (spec pseudocode)"
const C_BASE_UNTIMED = "baseline chronological, 10% untimed"
const U_PLACER = "UShapedPlacer.make().place"
const C_PLACER = "ChronologicalPlacer.make().place"

/**
 * A placer instance's task: each `make` builds an instance, timed call after call; the output
 * checked is an instance's second call, the one that runs on buffers kept from the first.
 */
const instanceTask = (makePlacer: () => Placer.Functions): Pick<TaskSpec, "make" | "output"> => ({
  make: (items) => {
    const placer = makePlacer()
    return { call: () => placer.place(items) }
  },
  output: (items) => {
    const placer = makePlacer()
    placer.place(items)
    return placer.place(items)
  }
})

/** The `Place.place` program's task with `placer` (see `programFor`). */
const programTask = (placer: Layer.Layer<Placer.Placer>): Pick<TaskSpec, "make" | "output"> => ({
  make: (items) => ({ call: programFor(placer, items) }),
  output: (items) => programFor(placer, items)()
})

/**
 * A placer without its sort: its work besides sorting. Each call reads the items as the
 * library's placer does (`read`, into buffers kept between calls, as the instances keep theirs)
 * and returns them in a new array, in input order. How its time per item grows from 10,000 to
 * 1,000,000 items is the part of a placer's growth that no sort can remove (see
 * docs/performance.md).
 */
const withoutSort = (
  read: (items: ReadonlyArray<ScoredItem.ScoredItem>, scratch: Scratch, refs: Array<ContextItem.ContextItem | undefined>) => void
): TaskSpec["make"] =>
(items) => {
  const n = items.length
  const scratch = reusable()
  const inputOrder = Uint32Array.from({ length: n }, (_, i) => i)
  return {
    call: () => {
      const refs = scratch.refs(n)
      read(items, scratch, refs)
      return placeFromRefs(refs, inputOrder, n, scratch)
    }
  }
}

const allTasks: ReadonlyArray<TaskSpec> = [
  {
    name: U_BASE,
    variant: "timed",
    baseline: U_BASE,
    kind: "baseline",
    make: (items) => ({ call: () => uShapedBaseline(items) })
  },
  {
    name: U_PLACER,
    variant: "timed",
    baseline: U_BASE,
    kind: "placer",
    ...instanceTask(UShapedPlacer.make)
  },
  {
    name: "UShapedPlacer.place (new buffers every call)",
    variant: "timed",
    baseline: U_BASE,
    kind: "function",
    make: (items) => ({ call: () => UShapedPlacer.place(items) }),
    output: UShapedPlacer.place
  },
  {
    name: "Place.place, u-shaped (Effect program)",
    variant: "timed",
    baseline: U_BASE,
    kind: "program",
    ...programTask(UShapedPlacer.layer)
  },
  {
    name: "Float64Array.prototype.sort (scores)",
    variant: "timed",
    baseline: U_BASE,
    kind: "reference",
    make: (items) => {
      const scores = Float64Array.from(items, (s) => s.score)
      const work = new Float64Array(scores.length)
      // Each call sorts a fresh copy of the scores; the copying is not timed.
      return { call: () => work.sort(), beforeEach: () => work.set(scores) }
    }
  },
  {
    name: "reference: UShapedPlacer without its sort",
    variant: "timed",
    baseline: U_BASE,
    kind: "reference",
    make: withoutSort((items, scratch, refs) => readScoresAsKeys(items, scratch.keys(items.length), refs))
  },
  {
    name: C_BASE,
    variant: "timed",
    baseline: C_BASE,
    kind: "baseline",
    make: (items) => ({ call: () => chronologicalBaseline(items) })
  },
  {
    name: "reference: ChronologicalPlacer without its sort",
    variant: "timed",
    baseline: C_BASE,
    kind: "reference",
    make: withoutSort((items, scratch, refs) => readTimes(items, scratch.keys(items.length), scratch.ids(items.length), refs))
  },
  {
    name: C_PLACER,
    variant: "timed",
    baseline: C_BASE,
    kind: "placer",
    ...instanceTask(ChronologicalPlacer.make)
  },
  {
    name: "ChronologicalPlacer.place (new buffers every call)",
    variant: "timed",
    baseline: C_BASE,
    kind: "function",
    make: (items) => ({ call: () => ChronologicalPlacer.place(items) }),
    output: ChronologicalPlacer.place
  },
  {
    name: "Place.place, chronological (Effect program)",
    variant: "timed",
    baseline: C_BASE,
    kind: "program",
    ...programTask(ChronologicalPlacer.layer)
  },
  {
    name: C_BASE_UNTIMED,
    variant: "untimed",
    baseline: C_BASE_UNTIMED,
    kind: "baseline",
    make: (items) => ({ call: () => chronologicalBaseline(items) })
  },
  {
    name: `${C_PLACER}, 10% untimed`,
    variant: "untimed",
    baseline: C_BASE_UNTIMED,
    kind: "placer",
    ...instanceTask(ChronologicalPlacer.make)
  }
]

const tasks = onlyArg === undefined
  ? allTasks
  : allTasks.filter((t) => t.kind === "baseline" || t.name.includes(onlyArg))

// ---------------------------------------------------------------------------------------------
// Checks before timing.

const sameItems = (
  what: string,
  n: number,
  actual: ArrayLike<ContextItem.ContextItem>,
  expected: ArrayLike<ContextItem.ContextItem>
): void => {
  if (actual.length !== expected.length) {
    throw new Error(`${what} at N=${n}: ${actual.length} items placed, the baseline placed ${expected.length}`)
  }
  for (let k = 0; k < expected.length; k++) {
    if (actual[k] !== expected[k]) {
      throw new Error(`${what} at N=${n}: position ${k} differs from the baseline`)
    }
  }
}

/** The radix paths' orders, checked whatever the size (the placers use them only above it). */
const checkFastPaths = (
  n: number,
  variant: Variant,
  items: ReadonlyArray<ScoredItem.ScoredItem>,
  expectedU: ReadonlyArray<ContextItem.ContextItem> | undefined,
  expectedC: ReadonlyArray<ContextItem.ContextItem>
): void => {
  const byOrder = (order: Uint32Array) => Array.from(order, (index) => items[index]!.item)
  if (expectedU !== undefined) sameItems(`radix u-shaped order (${variant})`, n, byOrder(uShapedOrderFast(items)), expectedU)
  sameItems(`radix chronological order (${variant})`, n, byOrder(chronologicalOrderFast(items)), expectedC)
}

/** The shared-object untimed variant holds exactly the values the generator gives it. */
const checkVariant = (n: number): void => {
  const derived = untimedVariant(generate(n, "timed"))
  const fresh = generate(n, "untimed")
  for (let i = 0; i < n; i++) {
    const a = derived[i]!
    const b = fresh[i]!
    if (
      a.score !== b.score || a.item.content !== b.item.content || a.item.tokens !== b.item.tokens ||
      a.item.timestamp?.epochMilliseconds !== b.item.timestamp?.epochMilliseconds
    ) throw new Error(`untimedVariant differs from the generator at item ${i}`)
  }
}

// ---------------------------------------------------------------------------------------------
// Heap per placed item.

/**
 * Bytes allocated by one call of `run`, JavaScript heap and ArrayBuffer memory together.
 *
 * Method: collect garbage (twice, so that the first collection's sweeping is finished and
 * nothing is freed behind our back), read `process.memoryUsage()` (`heapUsed` is the JavaScript
 * heap, `arrayBuffers` the memory behind typed arrays, which lives outside it), call `run`, read
 * again: the difference is what the call allocated. A `v8.GCProfiler` records any collection
 * during the call; the heap it freed was allocated by the call, so it is added back. (Typed
 * arrays it frees are released later, so `arrayBuffers` needs no correction.) The smallest of
 * a few calls is reported: other work can only add to a call's figure (a JIT compilation that
 * lands in the heap meanwhile, numbers boxed by code not yet optimised), never take from it.
 */
const allocatedBytes = (run: () => unknown, calls: number): number | undefined => {
  const collect = globalThis.gc
  if (collect === undefined) return undefined
  const samples: Array<number> = []
  for (let attempt = 0; attempt < calls; attempt++) {
    collect()
    collect()
    const profiler = new v8.GCProfiler()
    const before = process.memoryUsage()
    profiler.start()
    const result = run()
    const collections = profiler.stop().statistics
    const after = process.memoryUsage()
    keep(result)
    let freed = 0
    for (const c of collections) freed += c.beforeGC.heapStatistics.usedHeapSize - c.afterGC.heapStatistics.usedHeapSize
    samples.push(after.heapUsed - before.heapUsed + freed + (after.arrayBuffers - before.arrayBuffers))
  }
  return Math.min(...samples)
}

let sink: unknown
const keep = (value: unknown): void => {
  sink = value
}

// ---------------------------------------------------------------------------------------------
// Running.

interface Row {
  readonly n: number
  readonly task: string
  readonly kind: TaskSpec["kind"]
  readonly baseline: string
  readonly medianMs: number
  readonly perItemNs: number
  readonly samples: number
  /** Baseline median ÷ this median. */
  speedup: number
  /**
   * Bytes a call allocates per item beyond the placed array. For placer instances and programs,
   * a first call (buffers allocated); `reusedBytesPerItem` is a later call on the same instance.
   */
  extraBytesPerItem?: number | undefined
  reusedBytesPerItem?: number | undefined
}

const rows: Array<Row> = []

const runSize = (settings: SizeSettings): void => {
  const { n } = settings
  progress(`N=${n}: generating items…`)
  const timed = generate(n, "timed")
  for (const variant of ["timed", "untimed"] as const) {
    const items = variant === "timed" ? timed : untimedVariant(timed)
    const expectedU = variant === "timed" ? uShapedBaseline(items) : undefined
    const expectedC = chronologicalBaseline(items)
    checkFastPaths(n, variant, items, expectedU, expectedC)
    const mine = tasks.filter((t) => t.variant === variant)
    for (const task of mine) {
      if (task.output === undefined) continue
      const expected = task.baseline === U_BASE ? expectedU : expectedC
      if (expected !== undefined) sameItems(task.name, n, task.output(items), expected)
    }

    // Each round times every task once, one after the other; a task's figure is its best
    // round's median, so that a burst of other work on the machine during one task's turn
    // (seen at 100 items, where a task's turn is short) does not stand for its speed.
    const medians = new Map<string, number>()
    const samples = new Map<string, number>()
    for (let round = 1; round <= settings.rounds; round++) {
      const bench = new Bench({
        time: settings.time,
        iterations: settings.iterations,
        warmupIterations: settings.warmupIterations,
        warmupTime: 100,
        throws: true,
        // Each task starts on a collected heap, so one task's garbage is not another's pause.
        setup: () => globalThis.gc?.()
      })
      for (const task of mine) {
        const { beforeEach, call } = task.make(items)
        bench.add(task.name, () => keep(call()), beforeEach === undefined ? {} : { beforeEach })
      }
      progress(`N=${n} (${variant}): timing ${mine.length} tasks, round ${round} of ${settings.rounds}…`)
      bench.runSync()
      for (const task of mine) {
        const result = bench.getTask(task.name)?.result
        if (result === undefined || !("latency" in result)) throw new Error(`${task.name} at N=${n}: no result`)
        medians.set(task.name, Math.min(medians.get(task.name) ?? Infinity, result.latency.p50))
        samples.set(task.name, (samples.get(task.name) ?? 0) + result.latency.samplesCount)
      }
    }

    // The output array a placement must return: measured the same way, and subtracted.
    const outputBytes = allocatedBytes(() => {
      const placed = new Array<ContextItem.ContextItem>(n)
      for (let k = 0; k < n; k++) placed[k] = items[k]!.item
      return placed
    }, 5)
    for (const task of mine) {
      const medianMs = medians.get(task.name) ?? Number.NaN
      const perItem = (bytes: number | undefined) =>
        bytes === undefined || outputBytes === undefined ? undefined : (bytes - outputBytes) / n
      let extraBytesPerItem: number | undefined
      let reusedBytesPerItem: number | undefined
      if (task.kind === "placer" || task.kind === "program") {
        // A new instance (or layer build) per call: the first call, which allocates its buffers.
        extraBytesPerItem = perItem(allocatedBytes(() => task.make(items).call(), 5))
        // One instance called again and again: what a call allocates once its buffers are kept.
        const { call } = task.make(items)
        call()
        reusedBytesPerItem = perItem(allocatedBytes(call, 5))
      } else if (task.kind !== "reference") {
        // Fewer calls for the slow baselines at a million.
        extraBytesPerItem = perItem(allocatedBytes(task.make(items).call, n >= 1_000_000 && task.kind === "baseline" ? 2 : 5))
      }
      rows.push({
        n,
        task: task.name,
        kind: task.kind,
        baseline: task.baseline,
        medianMs,
        perItemNs: (medianMs * 1e6) / n,
        samples: samples.get(task.name) ?? 0,
        speedup: 0,
        extraBytesPerItem,
        reusedBytesPerItem
      })
    }
  }
  for (const row of rows) {
    if (row.n !== n) continue
    const base = rows.find((r) => r.n === n && r.task === row.baseline)
    row.speedup = base === undefined ? Number.NaN : base.medianMs / row.medianMs
  }
}

checkVariant(10_000)
for (const settings of sizes) runSize(settings)
keep(sink)

// ---------------------------------------------------------------------------------------------
// Targets (issue 4).

interface Target {
  readonly target: string
  readonly measured: string
  readonly met: boolean
  /**
   * The targets are for the placers as the library runs them (instances, which the
   * layers build). The pure functions, which take new buffers on every call, are checked
   * against the same figures for comparison only.
   */
  readonly comparisonOnly: boolean
}

const find = (n: number, task: string): Row | undefined => rows.find((r) => r.n === n && r.task === task)

// Each target is checked when its rows were measured (all of them, unless --sizes/--only).
const targets: Array<Target> = []
const f64Sort = find(1_000_000, "Float64Array.prototype.sort (scores)")
const placerLike = (r: Row) => r.kind === "placer" || r.kind === "function"
for (const row of rows.filter((r) => placerLike(r) && r.n === 1_000_000)) {
  const comparisonOnly = row.kind === "function"
  targets.push({
    target: `N=1,000,000: ${row.task} at least 20× faster than its baseline`,
    measured: `${row.speedup.toFixed(1)}×`,
    met: row.speedup >= 20,
    comparisonOnly
  })
  if (f64Sort !== undefined) {
    targets.push({
      target: `N=1,000,000: ${row.task} faster than Float64Array.prototype.sort on the scores`,
      measured: `${formatMs(row.medianMs)} vs ${formatMs(f64Sort.medianMs)}`,
      met: row.medianMs < f64Sort.medianMs,
      comparisonOnly
    })
  }
}
for (const row of rows.filter((r) => r.kind === "program" && r.n === 100)) {
  const base = find(100, row.baseline)
  if (base === undefined) continue
  const ratio = row.medianMs / base.medianMs
  targets.push({
    target: `N=100: ${row.task} within 1.5× of the baseline placer alone`,
    measured: `${ratio.toFixed(2)}× (${formatMs(row.medianMs)} vs ${formatMs(base.medianMs)})`,
    met: ratio <= 1.5,
    comparisonOnly: false
  })
}
for (const large of rows.filter((r) => (placerLike(r) || r.kind === "program") && r.n === 1_000_000)) {
  const small = find(10_000, large.task)
  if (small === undefined) continue
  const growth = large.perItemNs / small.perItemNs
  targets.push({
    target: `${large.task}: time per item grows at most 1.5× from N=10,000 to N=1,000,000`,
    measured: `${growth.toFixed(2)}× (${small.perItemNs.toFixed(1)} → ${large.perItemNs.toFixed(1)} ns/item)`,
    met: growth <= 1.5,
    comparisonOnly: large.kind === "function"
  })
}
for (const row of rows.filter((r) => r.n === 1_000_000 && (placerLike(r) || r.kind === "program"))) {
  const bytes = row.extraBytesPerItem
  targets.push({
    target: `N=1,000,000: ${row.task} allocates under 40 bytes per item beyond the output array`,
    measured: bytes === undefined ? "not measured (run with --expose-gc)" : `${bytes.toFixed(1)} B/item`,
    met: bytes !== undefined && bytes < 40,
    comparisonOnly: row.kind === "function"
  })
}

// How the reference rows' time per item grows: the native sort, and the placers without their sort.
const referenceGrowth = rows
  .filter((r) => r.kind === "reference" && r.n === 1_000_000)
  .flatMap((large) => {
    const small = find(10_000, large.task)
    return small === undefined ? [] : [{
      task: large.task,
      perItemNs10k: small.perItemNs,
      perItemNs1M: large.perItemNs,
      growth: large.perItemNs / small.perItemNs
    }]
  })

// ---------------------------------------------------------------------------------------------
// Output.

function formatMs(ms: number): string {
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
        generator: "xorshift32, seed 0x9E3779B9 (issue 4)",
        rows,
        targets,
        referenceGrowth
      },
      null,
      2
    ) + "\n"
  )
} else {
  const header = ["N", "task", "median/call", "per item", "vs baseline", "extra heap/item", "reused", "samples"]
  const table = rows.map((r) => [
    r.n.toLocaleString("en-US"),
    r.task,
    formatMs(r.medianMs),
    `${r.perItemNs.toFixed(1)} ns`,
    r.kind === "baseline"
      ? "1.00×"
      : r.speedup >= 1
      ? `${r.speedup >= 10 ? r.speedup.toFixed(0) : r.speedup.toFixed(2)}× faster`
      : `${(1 / r.speedup).toFixed(2)}× slower`,
    r.extraBytesPerItem === undefined ? "" : `${r.extraBytesPerItem.toFixed(1)} B`,
    r.reusedBytesPerItem === undefined ? "" : `${r.reusedBytesPerItem.toFixed(1)} B`,
    String(r.samples)
  ])
  const widths = header.map((h, c) => Math.max(h.length, ...table.map((line) => line[c]!.length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((cell, c) => (c === 1 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("  ")
  const out: Array<string> = []
  out.push(`node ${process.version}, v8 ${process.versions.v8}; inputs: issue 4's xorshift32 generator`)
  out.push("")
  out.push(line(header))
  let lastN = -1
  for (let i = 0; i < table.length; i++) {
    if (rows[i]!.n !== lastN && lastN !== -1) out.push("")
    lastN = rows[i]!.n
    out.push(line(table[i]!))
  }
  out.push("")
  out.push("Extra heap/item: bytes a call allocates (JS heap + ArrayBuffers), less a bare output array of N items, ÷ N;")
  out.push("for placer instances and programs, a first call (a new instance, or new layers, allocating their buffers).")
  out.push("Reused: a later call on the same instance or layers (buffers kept).")
  out.push("")
  out.push("Targets (issue 4):")
  for (const t of targets.filter((t) => !t.comparisonOnly)) out.push(`  [${t.met ? "met" : "NOT MET"}] ${t.target}: ${t.measured}`)
  const comparisons = targets.filter((t) => t.comparisonOnly)
  if (comparisons.length > 0) {
    out.push("")
    out.push("The pure functions against the same figures, for comparison (the targets are for the placers above):")
    for (const t of comparisons) out.push(`  (${t.met ? "would meet" : "would miss"}) ${t.target}: ${t.measured}`)
  }
  if (referenceGrowth.length > 0) {
    out.push("")
    out.push("The references' time per item from N=10,000 to N=1,000,000 (Float64Array.sort, and the placers' work besides sorting):")
    for (const g of referenceGrowth) {
      out.push(`  ${g.task}: ${g.growth.toFixed(2)}× (${g.perItemNs10k.toFixed(1)} → ${g.perItemNs1M.toFixed(1)} ns/item)`)
    }
  }
  process.stdout.write(out.join("\n") + "\n")
}
