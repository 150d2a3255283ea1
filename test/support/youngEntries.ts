/**
 * Run by `test/YoungEntries.test.ts` in a Node process of its own, with
 * `--allow-natives-syntax`: whether the entries a pipeline run makes for its items are made in
 * V8's young generation (docs/design.md item 142), printed as JSON, in a process where V8 makes
 * an object literal's objects in the old generation — that literal is the control the check
 * must tell apart.
 *
 * V8 decides it at a scavenge with the young generation at its largest, for a literal whose
 * objects made since the last scavenge are nearly all alive: the test runs this process with the
 * young generation held at one size (every scavenge is then at the largest), and the process
 * first fills it with objects it keeps, then makes the control's objects and the pipeline's runs
 * while keeping every one of them.
 *
 * The loops run in a function, and the checks from this module's code, which has none: with the
 * loops at the top level, 1 run in 10 under a loaded machine (the whole suite running beside it)
 * found the control young, and 1 in 20 with the size held; with the loops in a function, none
 * in 75. The likely cause: V8 had compiled the top level while its loop ran, the literal inlined,
 * and that code went on making young objects after V8 had decided on old ones, until its frame
 * returned — which the module's own frame never does before the check.
 */
import { Effect, Layer } from "effect"
import {
  ContextBudget,
  ContextItem,
  GreedySlice,
  OverflowNotifier,
  Pipeline,
  RecencyScorer,
  Timestamp,
  UShapedPlacer
} from "../../src/index.ts"

// The natives syntax is not TypeScript: a function made from text, with the flag on.
const native = new Function("o", "return %InYoungGeneration(o)")
const isYoung = (value: object): boolean => Reflect.apply(native, undefined, [value]) === true

class Held {
  readonly k: number
  constructor(k: number) {
    this.k = k
  }
}
const kept: Array<unknown> = []
const fill = (count: number, make: (k: number) => unknown) => {
  for (let k = 0; k < count; k++) kept.push(make(k))
}
fill(2_000_000, (k) => new Held(k))

// The control: an object literal made in a loop, every object kept.
const literal = (k: number) => ({ k, twice: k * 2 })
fill(1_000_000, literal)
const control = isYoung(literal(1))

// 2,000 candidates, about half of them left out by the slicer, 200 runs kept.
const items = Array.from({ length: 2_000 }, (_, i) =>
  new ContextItem.ContextItem({
    content: `item ${i}`,
    tokens: 1 + (i % 17),
    timestamp: Timestamp.fromEpochMillis(Date.UTC(2026, 0, 1) + i * 1000)
  }))
const strategies = Layer.mergeAll(RecencyScorer.layer, GreedySlice.layer, UShapedPlacer.layer, OverflowNotifier.layerNoop)
const budget = new ContextBudget.ContextBudget({ maxTokens: 9_000, targetTokens: 9_000 })
const run = () => Effect.runSync(Pipeline.run(items, budget).pipe(Effect.provide(strategies)))
fill(200, () => {
  const result = run()
  return [result, result.report.excluded]
})
const last = run()
const { included, excluded } = last.report
process.stdout.write(JSON.stringify({
  control,
  included: included.length > 0 && included.every(isYoung),
  excluded: excluded.length > 0 && excluded.every(isYoung),
  kept: kept.length
}))
