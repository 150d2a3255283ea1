/**
 * Working memory must not grow with the number of layer builds.
 *
 * The README's own pattern provides a placer layer on every call:
 * `for (...) await Effect.runPromise(Place.place(...).pipe(Effect.provide(UShapedPlacer.layer)))`.
 * Every `Effect.provide(layer)` builds the layer anew. When each build kept buffers of its own
 * through `WeakRef`s, none of them could be collected while the loop stayed in microtasks (V8
 * keeps a `WeakRef`'s target alive until the current job ends), and the heap grew by one call's
 * working buffers per call — 1.9 GiB after 100 calls at a million items. Builds of a kind now
 * share one set of buffers, so the heap is the same after 100 builds as after one.
 *
 * The heap is measured after a full collection, so `gc` is required: the test fails, never
 * skips, when it cannot get one.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as v8 from "node:v8"
import * as vm from "node:vm"
import {
  ChronologicalPlacer,
  CompositeScorer,
  ContextBudget,
  ContextItem,
  GreedySlice,
  KindScorer,
  OverflowNotifier,
  Pipeline,
  Place,
  Placer,
  PriorityScorer,
  RecencyScorer,
  type ScoredItem,
  Scorer,
  Slicer,
  Timestamp,
  UShapedPlacer
} from "../src/index.ts"

/**
 * A full garbage collection. Node exposes `gc` only under `--expose-gc`; setting the flag at
 * run time makes it available in contexts created afterwards, which is how a test worker that
 * was started without it gets one.
 */
const getGc = (): (() => void) | undefined => {
  const existing: unknown = Reflect.get(globalThis, "gc")
  if (typeof existing === "function") return () => void Reflect.apply(existing, undefined, [])
  v8.setFlagsFromString("--expose-gc")
  const fromContext: unknown = vm.runInNewContext("gc")
  return typeof fromContext === "function" ? () => void Reflect.apply(fromContext, undefined, []) : undefined
}

const N = 200_000
const CALLS = 100

const items: ReadonlyArray<ScoredItem.ScoredItem> = Array.from({ length: N }, (_, i) => ({
  item: new ContextItem.ContextItem({
    content: `item-${i}`,
    tokens: 1,
    timestamp: Timestamp.fromEpochMillis(1_700_000_000_000 + ((i * 7919) % 100_003) * 1000)
  }),
  score: ((i * 104729) % 1009) / 1009
}))

const budget = new ContextBudget.ContextBudget({ maxTokens: 10 * N, targetTokens: 10 * N })

const MiB = 1024 * 1024

/**
 * The memory a placement's buffers take: the JavaScript heap (item references, result arrays)
 * and the backing stores of typed arrays, which V8 keeps outside it.
 */
const used = (): number => {
  const usage = process.memoryUsage()
  return usage.heapUsed + usage.arrayBuffers
}

/**
 * The bound on growth over the heap before the loop, after a collection: 16 MiB.
 *
 * One call's working buffers are about 24 bytes per item for the U shape and 32 for the
 * chronological order (keys, radix pairs, positions, item references): 4.6 MiB and 6.1 MiB at
 * 200,000 items, and those are exactly what the shared buffers keep between calls. Add the
 * placed array of the last result (1.5 MiB) and slack for the runtime's own allocations. The
 * former per-build buffers grew the heap by 100 calls' worth: 460 MiB or more, thirty times the
 * bound, so the bound separates the two designs by a wide margin.
 */
const bound = 16 * MiB

describe("placer layers built on every call", () => {
  for (const [name, layer] of [["UShapedPlacer.layer", UShapedPlacer.layer], ["ChronologicalPlacer.layer", ChronologicalPlacer.layer]] as const) {
    it(`${name}: ${CALLS} builds in one async loop at ${N.toLocaleString("en")} items keep the heap bounded`, async () => {
      const gc = getGc()
      assert.isDefined(gc, "a garbage collector to call is required (node --expose-gc, or v8.setFlagsFromString)")
      if (gc === undefined) return
      const program = Place.place({ budget, scored: items }).pipe(
        Effect.provide(Layer.merge(layer, OverflowNotifier.layerNoop))
      )
      // One call first, so that the buffers a single build needs are in the baseline.
      const first = await Effect.runPromise(program)
      assert.strictEqual(first.placed.length, N)
      gc()
      const before = used()
      let peak = before
      for (let call = 0; call < CALLS; call++) {
        const result = await Effect.runPromise(program)
        assert.strictEqual(result.placed.length, N)
        if (call % 10 === 9) {
          gc()
          peak = Math.max(peak, used())
        }
      }
      const growth = peak - before
      assert.isBelow(
        growth,
        bound,
        `memory grew by ${(growth / MiB).toFixed(1)} MiB over ${CALLS} layer builds (bound ${bound / MiB} MiB)`
      )
    })
  }

  it.effect("each build is a placer service of its own, giving the same results", () =>
    Effect.gen(function*() {
      for (const layer of [UShapedPlacer.layer, ChronologicalPlacer.layer]) {
        const a = yield* Effect.provide(Placer.Placer.use(Effect.succeed), layer)
        const b = yield* Effect.provide(Placer.Placer.use(Effect.succeed), layer)
        assert.notStrictEqual(a, b)
        const some = items.slice(0, 5000)
        assert.deepStrictEqual(Array.from(yield* a.order(some)), Array.from(yield* b.order(some)))
      }
    }))
})

/**
 * The whole pipeline keeps its stages' temporaries too (src/internal/stageScratch.ts) and a
 * composite's children write into a kept buffer (scoreWriters.ts): one set each for the whole
 * library, so layers built on every call must not add any. Buffers pinned per call, as the
 * placers' once were, would grow the heap by 20 MiB or more per call: 600 MiB over 30 runs.
 *
 * What is measured, and against what, has to be the same on every machine. The kept buffers
 * are held weakly, so whether they are alive at a given collection depends on which job last
 * touched them (V8 keeps a `WeakRef`'s target until the job that read it ends): a baseline
 * taken right after a run may or may not hold them. So the baseline is taken after the
 * microtask queue has emptied (a `setImmediate`), when nothing of a run but strong references
 * can be left; the loop's own checkpoints stay inside it, as the user's loop would; and no run's
 * result is held at any measurement (its report alone is 14 MiB here). Two bounds follow:
 *
 * - inside the loop, the growth is at most the kept buffers: the stages' (at most 130 bytes a
 *   candidate, 24.8 MiB at 200,000), the placer's (32 bytes an item, 6.1 MiB) and the
 *   composite's three children's scores (4.6 MiB), 35.5 MiB, plus 12 MiB for the runtime's own
 *   allocations: 48 MiB, a twelfth of what pinned buffers would add;
 * - after the loop, once its last job has ended, nothing of the 31 runs may be left beyond the
 *   placers' bound (16 MiB): a strong reference kept per run would show here at any size.
 */
describe("the pipeline with its layers built on every call", () => {
  const PIPELINE_CALLS = 30
  const candidates = Array.from({ length: N }, (_, i) =>
    new ContextItem.ContextItem({
      content: `item-${i}`,
      tokens: 1 + ((i * 7919) % 500),
      kind: ["Message", "Document", "ToolOutput"][i % 3]!,
      priority: (i * 31) % 10,
      timestamp: Timestamp.fromEpochMillis(1_700_000_000_000 + ((i * 104729) % 1_000_003) * 1000)
    }))
  const pipelineBudget = new ContextBudget.ContextBudget({ maxTokens: 128_000, targetTokens: 100_000 })

  it(`${PIPELINE_CALLS} runs in one async loop at ${N.toLocaleString("en")} candidates keep the heap bounded`, async () => {
    const gc = getGc()
    assert.isDefined(gc, "a garbage collector to call is required (node --expose-gc, or v8.setFlagsFromString)")
    if (gc === undefined) return
    const composite = await Effect.runPromise(CompositeScorer.make([
      { scorer: RecencyScorer.make(), weight: 0.5 },
      { scorer: PriorityScorer.make(), weight: 0.3 },
      { scorer: KindScorer.defaults, weight: 0.2 }
    ]))
    const program = Pipeline.run(candidates, pipelineBudget).pipe(
      Effect.provide(Layer.mergeAll(Scorer.layer(composite), Slicer.layer(GreedySlice.make()), UShapedPlacer.layer, OverflowNotifier.layerNoop))
    )
    // A run's result is dropped as soon as it is checked, so that no measurement holds one.
    const excludedBy = async () => (await Effect.runPromise(program)).report.excluded.length
    const endOfJob = () => new Promise<void>((resolve) => setImmediate(resolve))
    const excluded = await excludedBy()
    assert.isAbove(excluded, N / 2)
    await endOfJob()
    gc()
    const before = used()
    let peak = before
    for (let call = 0; call < PIPELINE_CALLS; call++) {
      assert.strictEqual(await excludedBy(), excluded)
      if (call % 5 === 4) {
        gc()
        peak = Math.max(peak, used())
      }
    }
    const growth = peak - before
    const inLoopBound = 48 * MiB
    assert.isBelow(
      growth,
      inLoopBound,
      `memory grew by ${(growth / MiB).toFixed(1)} MiB over ${PIPELINE_CALLS} runs (bound ${inLoopBound / MiB} MiB)`
    )
    await endOfJob()
    gc()
    const left = used() - before
    assert.isBelow(
      left,
      bound,
      `${(left / MiB).toFixed(1)} MiB were left after ${PIPELINE_CALLS} runs had ended (bound ${bound / MiB} MiB)`
    )
  })
})
