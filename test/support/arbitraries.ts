/**
 * fast-check arbitraries for placement inputs with many ties and missing timestamps.
 */
import fc from "fast-check"
import { ContextItem, ScoredItem, Timestamp } from "../../src/index.ts"

/** Few distinct scores, so ties are common; includes the pinned score 1.0, 0 and -0. */
export const score: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, -0, 0.25, 0.5, 0.75, 1),
  fc.double({ min: -2, max: 2, noNaN: true })
)

/** Few distinct instants, so ties are common; about a quarter missing. */
export const timestamp: fc.Arbitrary<number | null> = fc.option(
  fc.oneof(fc.constantFrom(0, 1_700_000_000_000, 1_700_000_000_001), fc.integer({ min: -1e12, max: 4e12 })),
  { freq: 3 }
)

const row = fc.record({
  tokens: fc.integer({ min: 0, max: 50 }),
  timestamp,
  pinned: fc.boolean(),
  score
})

const toScored = (r: typeof row extends fc.Arbitrary<infer A> ? A : never, index: number) =>
  ScoredItem.make(
    new ContextItem.ContextItem({
      content: `item-${index}`,
      tokens: r.tokens,
      pinned: r.pinned,
      ...(r.timestamp === null ? {} : { timestamp: Timestamp.fromEpochMillis(r.timestamp) })
    }),
    r.score
  )

/** A list of scored items with distinct contents (item-0, item-1, …); `pinned` flags vary. */
export const scoredItems = (maxLength = 40): fc.Arbitrary<Array<ScoredItem.ScoredItem>> =>
  fc.array(row, { maxLength }).map((rows) => rows.map(toScored))
