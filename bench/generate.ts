/**
 * The benchmark's inputs: the deterministic generator of issue 4, so that other implementations
 * of Cupel can reproduce them exactly.
 *
 * A 32-bit xorshift (13, 17, 5) seeded with 0x9E3779B9. For item `i`, three draws in this order:
 * `score = next() / 2^32`, `tokens = 1 + next() % 500`,
 * `timestamp = 1_700_000_000_000 + next() % 1_000_000_000` (epoch milliseconds, UTC), and
 * `content = "item-" + i`. The "untimed" variant draws the same numbers but leaves the timestamp
 * out when `i % 10 == 0`, so both variants have the same scores and tokens.
 *
 * Items are real `ContextItem` instances built with the class constructor, as a caller would
 * build them (about 6 µs each: a million take a few seconds).
 */
import { ContextItem, Timestamp } from "../src/index.ts"
import type { ScoredItem } from "../src/index.ts"

/** The generator's stream: each call returns the next unsigned 32-bit value. */
export const xorshift32 = (seed = 0x9E3779B9): () => number => {
  let state = seed >>> 0
  return () => {
    // `>>> 0` after each step keeps the state an unsigned 32-bit integer, as the issue requires.
    state = (state ^ (state << 13)) >>> 0
    state = (state ^ (state >>> 17)) >>> 0
    state = (state ^ (state << 5)) >>> 0
    return state
  }
}

/** `n` scored items from the generator; with `untimed`, every tenth item has no timestamp. */
export const generate = (n: number, variant: "timed" | "untimed"): Array<ScoredItem.ScoredItem> => {
  const next = xorshift32()
  const items = new Array<ScoredItem.ScoredItem>(n)
  for (let i = 0; i < n; i++) {
    const score = next() / 2 ** 32
    const tokens = 1 + (next() % 500)
    const epochMillis = 1_700_000_000_000 + (next() % 1_000_000_000)
    const content = "item-" + i
    const item = variant === "untimed" && i % 10 === 0
      ? new ContextItem.ContextItem({ content, tokens })
      : new ContextItem.ContextItem({ content, tokens, timestamp: Timestamp.fromEpochMillis(epochMillis) })
    items[i] = { item, score }
  }
  return items
}

/**
 * The "untimed" variant of `timed` (the output of `generate(n, "timed")`): equal, item for item,
 * to `generate(n, "untimed")`, but sharing the unchanged items (items are immutable) and making
 * only every tenth one anew, without its timestamp.
 *
 * Why not generate it afresh: a second million items allocated into the heap the first million
 * left behind lie scattered, and every placer reading them runs about a third slower than on
 * the first million (measured, whichever variant comes second). That is an artefact of the
 * benchmark's order, not of the placers, and sharing keeps the two variants' layouts alike.
 */
export const untimedVariant = (
  timed: ReadonlyArray<ScoredItem.ScoredItem>
): Array<ScoredItem.ScoredItem> =>
  timed.map((entry, i) =>
    i % 10 === 0
      ? { item: new ContextItem.ContextItem({ content: entry.item.content, tokens: entry.item.tokens }), score: entry.score }
      : entry
  )

/** The three kinds the pipeline inputs draw from, in the order `next() % 3` indexes them. */
export const pipelineKinds = ["Message", "Document", "ToolOutput"] as const

/**
 * `n` candidate items for the whole pipeline (issue 11), from the same generator and seed. For
 * item `i`, four draws in this order: `tokens = 1 + next() % 500`,
 * `timestamp = 1_700_000_000_000 + next() % 1_000_000_000` (epoch milliseconds, UTC),
 * `priority = next() % 10`, `kind = ["Message", "Document", "ToolOutput"][next() % 3]`; and
 * `content = "item-" + i`. Every item has a timestamp and a priority; none is pinned.
 */
export const generateCandidates = (n: number): Array<ContextItem.ContextItem> => {
  const next = xorshift32()
  const items = new Array<ContextItem.ContextItem>(n)
  for (let i = 0; i < n; i++) {
    const tokens = 1 + (next() % 500)
    const epochMillis = 1_700_000_000_000 + (next() % 1_000_000_000)
    const priority = next() % 10
    const kind = pipelineKinds[next() % 3]!
    items[i] = new ContextItem.ContextItem({
      content: "item-" + i,
      tokens,
      kind,
      priority,
      timestamp: Timestamp.fromEpochMillis(epochMillis)
    })
  }
  return items
}
