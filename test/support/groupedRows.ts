/**
 * Generated pipeline candidates of every kind a run meets: repeated contents (deduplication),
 * negative counts, optional timestamps, pinned items and groups — as rows (fast-check) and as
 * the `ContextItem`s they stand for — and the built-in strategies they run with. Shared by the
 * report tests (`test/ai/ReportTotals.test.ts`, `test/LazyExcluded.test.ts`).
 */
import { Effect, Layer } from "effect"
import * as fc from "fast-check"
import {
  ChronologicalPlacer,
  ContextItem,
  FirstFitSlice,
  GreedySlice,
  KnapsackSlice,
  OverflowNotifier,
  RecencyScorer,
  Scorer,
  Slicer,
  Timestamp,
  UShapedPlacer
} from "../../src/index.ts"
import * as SectionedPlacer from "../../src/placers/SectionedPlacer.ts"

/** One candidate's fields. */
export interface Row {
  readonly content: string
  readonly tokens: number
  readonly time: number | undefined
  readonly kind: string
  readonly pinned: boolean
  readonly group: string | undefined
}

/** Up to 20 candidates: four contents, one count in nine negative, a fifth pinned, four groups. */
export const rows: fc.Arbitrary<Array<Row>> = fc.array(
  fc.record({
    content: fc.constantFrom("a", "b", "c", "d"),
    tokens: fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 30 }) }, { weight: 1, arbitrary: fc.integer({ min: -3, max: -1 }) }),
    time: fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined }),
    kind: fc.constantFrom("Message", "ToolOutput", "Document"),
    pinned: fc.integer({ min: 0, max: 9 }).map((n) => n < 2),
    group: fc.option(fc.constantFrom("g1", "g2", "g3", "g4"), { nil: undefined })
  }),
  { maxLength: 20 }
)

/** The candidates of rows, in order (a row's time in seconds). */
export const itemsOf = (list: ReadonlyArray<Row>): Array<ContextItem.ContextItem> =>
  list.map((r) =>
    new ContextItem.ContextItem({
      content: r.content,
      tokens: r.tokens,
      kind: r.kind,
      pinned: r.pinned,
      ...(r.time === undefined ? {} : { timestamp: Timestamp.fromEpochMillis(r.time * 1000) }),
      ...(r.group === undefined ? {} : { group: r.group })
    })
  )

/**
 * Every built-in slicer and placer, in three pairs (greedy with U-shaped, knapsack with
 * chronological, first-fit with the conversation placer), each with recency scores and a silent
 * overflow notifier: the layers a generated run picks one of.
 */
export const strategyVariants = async () => {
  const knapsack = await Effect.runPromise(KnapsackSlice.make({ bucketSize: 1 }))
  return [
    Layer.mergeAll(GreedySlice.layer, UShapedPlacer.layer),
    Layer.mergeAll(Slicer.layer(knapsack), ChronologicalPlacer.layer),
    Layer.mergeAll(FirstFitSlice.layer, SectionedPlacer.conversation)
  ].map((variant) => Layer.mergeAll(Scorer.layer(RecencyScorer.make()), variant, OverflowNotifier.layerNoop))
}
