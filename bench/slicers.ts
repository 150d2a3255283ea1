/**
 * `node bench/slicers.ts`: GreedySlice at 1,000,000 items and KnapsackSlice at 100,000 items,
 * target 100,000 tokens, bucket size 100 (a table of about 10^8 cells).
 *
 * Inputs follow the recipe of `generate.ts`, with its generator (`score = next() / 2^32`,
 * `tokens = 1 + next() % 500`), without timestamps, sorted by score descending as the Sort
 * stage hands them over. Each slicer is run a few times untimed,
 * then timed; the figure is the median. Every result is checked against the slicer contract
 * (distinct indices of the input, tokens within the target).
 *
 * Run with `--expose-gc` to collect garbage before every run: the figure is then the slicer's own
 * cost, without the major collections that the garbage of earlier runs triggers (with a million
 * items in the heap, one takes about a second on a small machine and lands in some runs).
 *
 * Options: `--greedy=N`, `--knapsack=N`, `--target=T`, `--bucket=B`, `--runs=R`.
 */
import { ContextItem } from "../src/ContextItem.ts"
import type { ScoredItem } from "../src/ScoredItem.ts"
import * as GreedySlice from "../src/slicers/GreedySlice.ts"
import * as KnapsackSlice from "../src/slicers/KnapsackSlice.ts"
import { SlicerError } from "../src/slicers/SlicerError.ts"
import { xorshift32 } from "./generate.ts"

const arg = (key: string, fallback: number): number => {
  const found = process.argv.find((a) => a.startsWith(`--${key}=`))
  return found === undefined ? fallback : Number(found.slice(key.length + 3))
}

const greedyN = arg("greedy", 1_000_000)
const knapsackN = arg("knapsack", 100_000)
const target = arg("target", 100_000)
const bucketSize = arg("bucket", 100)
const runs = arg("runs", 11)

const generate = (n: number): Array<ScoredItem> => {
  const next = xorshift32()
  const items = new Array<ScoredItem>(n)
  for (let i = 0; i < n; i++) {
    const score = next() / 2 ** 32
    const tokens = 1 + (next() % 500)
    items[i] = { item: new ContextItem({ content: "item-" + i, tokens }), score }
  }
  // Stable, score descending: what the Sort stage hands a slicer.
  return items.sort((a, b) => b.score - a.score)
}

const check = (label: string, sorted: ReadonlyArray<ScoredItem>, selected: ArrayLike<number>): number => {
  const seen = new Uint8Array(sorted.length)
  let total = 0
  for (let k = 0; k < selected.length; k++) {
    const i = selected[k]!
    if (!(i >= 0 && i < sorted.length) || seen[i] === 1) throw new Error(`${label}: bad index ${i} at ${k}`)
    seen[i] = 1
    total += sorted[i]!.item.tokens
  }
  if (total > target) throw new Error(`${label}: ${total} tokens over the target ${target}`)
  return total
}

const collect: () => void = typeof globalThis.gc === "function" ? globalThis.gc : () => {}

const time = (label: string, f: () => Uint32Array | SlicerError, sorted: ReadonlyArray<ScoredItem>): void => {
  const samples: Array<number> = []
  let last: Uint32Array | SlicerError = new Uint32Array(0)
  for (let r = 0; r < runs + 2; r++) {
    collect()
    const start = performance.now()
    last = f()
    const elapsed = performance.now() - start
    if (r >= 2) samples.push(elapsed)
  }
  if (last instanceof SlicerError) throw new Error(`${label}: ${last.message}`)
  const total = check(label, sorted, last)
  samples.sort((a, b) => a - b)
  const median = samples[samples.length >> 1]!
  console.log(
    `${label}: median ${median.toFixed(1)} ms (min ${samples[0]!.toFixed(1)}, max ${samples.at(-1)!.toFixed(1)}; ` +
      `${runs} runs${typeof globalThis.gc === "function" ? ", gc between runs" : ""}), ${last.length} selected, ${total} tokens`
  )
}

const greedyInput = generate(greedyN)
time(`greedy n=${greedyN} target=${target}`, () => GreedySlice.select(greedyInput, target), greedyInput)

const knapsackInput = generate(knapsackN)
const config = { bucketSize, maxCells: KnapsackSlice.defaultMaxCells }
const capacity = Math.floor(target / bucketSize)
time(
  `knapsack n=${knapsackN} target=${target} bucket=${bucketSize} (${knapsackN * (capacity + 1)} cells)`,
  () => KnapsackSlice.select(knapsackInput, target, config),
  knapsackInput
)
