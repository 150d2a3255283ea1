/**
 * Decoding benchmark: reading N items from JSON text, as `cupel place` and `cupel run` do, at
 * N = 1,000, 100,000 and 1,000,000.
 *
 * Run with `node --expose-gc bench/decode.bench.ts` (`--sizes=1000000` for one size, `--json`
 * for JSON on stdout). The inputs come from the deterministic generator of `generate.ts` (its
 * scores, token counts and instants), written as a file would hold them: every item has
 * `content`, `tokens` and a `timestamp` (in UTC with milliseconds, every fifth with a `+02:00`
 * offset and no fraction); every tenth also has a `kind`, `tags`, `metadata` and a `priority`.
 *
 * Rows, each the median of several calls, in µs per item:
 *
 * - `JSON.parse` — the parse alone, for reference: no decoder can go below it;
 * - `cupel place: decodeText` — the CLI's whole path from text (`PlaceInput.decodeText`: parse,
 *   top-level checks, budget, every `{ item, score }`);
 * - `cupel run: decodeText` — the same for `PipelineInput.decodeText` (items and configuration);
 * - `cupel run --count-tokens o200k: parse, count, decode` — the same items without `tokens`,
 *   parsed, counted from their `content` by `CountTokens.fill` (gpt-tokenizer's o200k_base, loaded
 *   once before timing) and decoded, as `cupel run --count-tokens o200k` reads them;
 * - `ContextItem.decodeJsonArray` — the library's entry point for an array of items;
 * - `cupel place: schema alone` — `PlaceInput.decodeValueWithSchema` after the parse, the
 *   decoder before the fast path, at 1,000 and 100,000 items only (about 20 s at a million).
 *
 * Before timing, at every size, the fast path's result is checked against the schema decoder's
 * on the first 1,000 items; any difference aborts with exit code 1. The target, under
 * 3 µs per item for `cupel place: decodeText` at 1,000,000 items, is checked at the end (exit
 * code 1 when missed). With `--expose-gc`, a collection runs before each call (untimed), and the
 * heap the decoded input keeps is reported per item.
 */
import { Effect, Exit } from "effect"
import * as CountTokens from "../src/cli/CountTokens.ts"
import * as PipelineInput from "../src/cli/PipelineInput.ts"
import * as PlaceInput from "../src/cli/PlaceInput.ts"
import { ContextItem } from "../src/index.ts"
import { xorshift32 } from "./generate.ts"
import { median } from "./median.ts"

const json = process.argv.includes("--json")
const sizesArg = process.argv.find((a) => a.startsWith("--sizes="))?.slice("--sizes=".length)
const progress = (line: string): void => {
  process.stderr.write(line + "\n")
}
const gc = (): void => {
  const collect: unknown = Reflect.get(globalThis, "gc")
  if (typeof collect === "function") Reflect.apply(collect, undefined, [])
}
const hasGc = typeof Reflect.get(globalThis, "gc") === "function"

const allSizes = [
  { n: 1_000, samples: 30, schema: true },
  { n: 100_000, samples: 7, schema: true },
  { n: 1_000_000, samples: 5, schema: false }
]
const sizes = sizesArg === undefined ? allSizes : allSizes.filter((s) => sizesArg.split(",").map(Number).includes(s.n))

// ---------------------------------------------------------------------------------------------
// Inputs

const pad = (n: number) => String(n).padStart(2, "0")

/** An instant as a file might write it: UTC with milliseconds, or a `+02:00` offset. */
const timestamp = (millis: number, i: number): string => {
  if (i % 5 !== 0) return new Date(millis).toISOString()
  const d = new Date(millis + 2 * 3_600_000)
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:` +
    `${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}+02:00`
}

/** The generator's items in their JSON form, with their scores. */
const generateJson = (n: number): Array<{ readonly item: Record<string, unknown>; readonly score: number }> => {
  const next = xorshift32()
  const out: Array<{ readonly item: Record<string, unknown>; readonly score: number }> = []
  for (let i = 0; i < n; i++) {
    const score = next() / 2 ** 32
    const tokens = 1 + (next() % 500)
    const millis = 1_700_000_000_000 + (next() % 1_000_000_000)
    const item: Record<string, unknown> = { content: "item-" + i, tokens, timestamp: timestamp(millis, i) }
    if (i % 10 === 0) {
      item["kind"] = "Document"
      item["tags"] = ["billing", "important"]
      item["metadata"] = { id: `doc-${i}`, trust: 0.5 }
      item["priority"] = i % 7
    }
    out.push({ item, score })
  }
  return out
}

const budget = { maxTokens: 1_000_000_000, targetTokens: 500_000_000 }

const placeText = (entries: ReturnType<typeof generateJson>) => JSON.stringify({ budget, scored: entries })
const runText = (entries: ReturnType<typeof generateJson>) =>
  JSON.stringify({ budget, items: entries.map((e) => e.item), scorer: { type: "recency" }, slicer: "greedy" })
const runTextUncounted = (entries: ReturnType<typeof generateJson>) =>
  JSON.stringify({
    budget,
    items: entries.map((e) => Object.fromEntries(Object.entries(e.item).filter(([key]) => key !== "tokens"))),
    scorer: { type: "recency" },
    slicer: "greedy"
  })
const arrayText = (entries: ReturnType<typeof generateJson>) => JSON.stringify(entries.map((e) => e.item))

// ---------------------------------------------------------------------------------------------
// Checks

const fail = (message: string): never => {
  process.stderr.write(`decode.bench: ${message}\n`)
  process.exit(1)
}

/** The fast path and the schema decoder give the same input, as JSON and as instances. */
const check = async (entries: ReturnType<typeof generateJson>) => {
  const sample = entries.slice(0, 1000)
  const value: unknown = JSON.parse(placeText(sample))
  const fast = await Effect.runPromiseExit(PlaceInput.decodeValue("bench", value))
  const slow = await Effect.runPromiseExit(PlaceInput.decodeValueWithSchema("bench", value))
  if (!Exit.isSuccess(fast) || !Exit.isSuccess(slow)) return fail("an input failed to decode")
  if (JSON.stringify(fast.value) !== JSON.stringify(slow.value)) return fail("the fast path differs from the schema")
  if (!fast.value.scored.every((s) => s.item instanceof ContextItem.ContextItem)) return fail("not ContextItem instances")
  const runValue: unknown = JSON.parse(runText(sample))
  const fastRun = await Effect.runPromiseExit(PipelineInput.decodeValue("bench", runValue))
  const slowRun = await Effect.runPromiseExit(PipelineInput.decodeValueWithSchema("bench", runValue))
  if (!Exit.isSuccess(fastRun) || !Exit.isSuccess(slowRun)) return fail("a pipeline input failed to decode")
  if (JSON.stringify(fastRun.value) !== JSON.stringify(slowRun.value)) return fail("the fast path differs from the schema (run)")
}

// ---------------------------------------------------------------------------------------------
// Timing


interface Row {
  readonly n: number
  readonly task: string
  readonly medianMs: number
  readonly usPerItem: number
  readonly retainedBytesPerItem?: number
}

const rows: Array<Row> = []

/** Times `call` `samples` times; with gc, also the heap its result keeps alive. */
const time = async (n: number, task: string, samples: number, call: () => Promise<unknown>) => {
  const durations: Array<number> = []
  let retained: number | undefined
  for (let s = 0; s < samples; s++) {
    gc()
    const before = process.memoryUsage().heapUsed
    const start = performance.now()
    let result: unknown = await call()
    durations.push(performance.now() - start)
    if (hasGc && s === 0) {
      gc()
      retained = (process.memoryUsage().heapUsed - before) / n
    }
    result = undefined
    void result
  }
  const medianMs = median(durations)
  const row: Row = { n, task, medianMs, usPerItem: (medianMs * 1000) / n, ...(retained === undefined ? {} : { retainedBytesPerItem: retained }) }
  rows.push(row)
  progress(`${n.toLocaleString("en")} ${task}: ${row.usPerItem.toFixed(3)} µs/item (median of ${samples}, ${medianMs.toFixed(1)} ms)` +
    (retained === undefined ? "" : `, keeps ${retained.toFixed(0)} B/item`))
}

const orFail = <A, E>(exit: Exit.Exit<A, E>): A => (Exit.isSuccess(exit) ? exit.value : fail(`decoding failed: ${String(exit)}`))

const countO200k = await Effect.runPromise(CountTokens.load("o200k"))

for (const { n, samples, schema } of sizes) {
  progress(`generating ${n.toLocaleString("en")} items…`)
  const entries = generateJson(n)
  await check(entries)
  const place = placeText(entries)
  const run = runText(entries)
  const array = arrayText(entries)
  const uncounted = runTextUncounted(entries)
  await time(n, "JSON.parse", samples, async () => JSON.parse(place))
  await time(n, "cupel place: decodeText", samples, async () =>
    orFail(await Effect.runPromiseExit(PlaceInput.decodeText("bench", place))))
  await time(n, "cupel run: decodeText", samples, async () =>
    orFail(await Effect.runPromiseExit(PipelineInput.decodeText("bench", run))))
  await time(n, "cupel run --count-tokens o200k: parse, count, decode", samples, async () => {
    const value: unknown = JSON.parse(uncounted)
    if (CountTokens.fill(value, countO200k) !== n) fail("not every item was counted")
    return orFail(await Effect.runPromiseExit(PipelineInput.decodeValue("bench", value)))
  })
  await time(n, "ContextItem.decodeJsonArray", samples, async () =>
    orFail(await Effect.runPromiseExit(ContextItem.decodeJsonArray(array))))
  if (schema) {
    await time(n, "cupel place: schema alone", Math.min(samples, 5), async () =>
      orFail(await Effect.runPromiseExit(PlaceInput.decodeValueWithSchema("bench", JSON.parse(place)))))
  }
}

// ---------------------------------------------------------------------------------------------
// Output and target

const target = rows.find((r) => r.n === 1_000_000 && r.task === "cupel place: decodeText")
if (json) {
  process.stdout.write(JSON.stringify({ rows, target: target && { usPerItem: target.usPerItem, limit: 3, met: target.usPerItem < 3 } }, null, 2) + "\n")
} else {
  const header = ["N", "task", "µs/item", "median ms", "kept B/item"]
  const lines = rows.map((r) => [
    r.n.toLocaleString("en"),
    r.task,
    r.usPerItem.toFixed(3),
    r.medianMs.toFixed(1),
    r.retainedBytesPerItem === undefined ? "-" : r.retainedBytesPerItem.toFixed(0)
  ])
  const widths = header.map((h, k) => Math.max(h.length, ...lines.map((l) => l[k]!.length)))
  const format = (cells: ReadonlyArray<string>) => cells.map((c, k) => (k === 1 ? c.padEnd(widths[k]!) : c.padStart(widths[k]!))).join("  ")
  process.stdout.write([format(header), ...lines.map(format)].join("\n") + "\n")
  if (!hasGc) process.stdout.write("(run with --expose-gc for the heap figures and steadier timings)\n")
}
if (target !== undefined) {
  const met = target.usPerItem < 3
  progress(`target: cupel place decodeText at 1,000,000 items under 3 µs/item: ${target.usPerItem.toFixed(3)} — ${met ? "met" : "MISSED"}`)
  if (!met) process.exit(1)
}
