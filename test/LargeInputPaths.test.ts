/**
 * The paths the library takes only on large inputs (issue 11's performance work), held to the
 * chapters' transcriptions: rank scores by counting and by radix order (from 1,024 keyed
 * items), Deduplicate's hash table (from 256 items) and its hand-over to the `Map`, and the
 * pipeline's report assembly (runs merged, `BudgetExceeded` reasons shared) on lists of a few
 * thousand candidates.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fc from "fast-check"
import {
  CompositeScorer,
  ContextBudget,
  ContextItem,
  Deduplicate,
  GreedySlice,
  KindScorer,
  OverflowNotifier,
  Pipeline,
  PriorityScorer,
  RecencyScorer,
  Scorer,
  Slicer,
  Timestamp,
  UShapedPlacer
} from "../src/index.ts"
import { uShapedBaseline } from "../bench/baseline.ts"
import { specPipeline } from "./support/specPipeline.ts"
import { constructComposite, kind, kindDefaultWeights, priority, recency, scoreEach } from "./support/specScorers.ts"
import { greedySlice } from "./support/specSlicers.ts"

const item = (i: number, fields: { tokens?: number; priority?: number; time?: number; content?: string; pinned?: boolean }) =>
  new ContextItem.ContextItem({
    content: fields.content ?? `item-${i}`,
    tokens: fields.tokens ?? 1,
    pinned: fields.pinned ?? false,
    ...(fields.priority === undefined ? {} : { priority: fields.priority }),
    ...(fields.time === undefined ? {} : { timestamp: Timestamp.fromEpochMillis(fields.time) })
  })

const sameScores = (actual: ArrayLike<number>, expected: ReadonlyArray<number>): void => {
  assert.strictEqual(actual.length, expected.length)
  for (let i = 0; i < expected.length; i++) {
    if (!Object.is(actual[i], expected[i])) assert.fail(`score ${i}: ${actual[i]} vs ${expected[i]}`)
  }
}

describe("rank scores on large lists", () => {
  it("PriorityScorer counts per value (narrow whole-number range) and equals PRIORITY-SCORE", () =>
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.integer({ min: -20, max: 20 }), { nil: undefined, freq: 8 }), { minLength: 1024, maxLength: 1500 }),
        (priorities) => {
          const items = priorities.map((p, i) => item(i, p === undefined ? {} : { priority: p }))
          sameScores(PriorityScorer.scores(items), scoreEach(priority, items))
        }
      ),
      { numRuns: 15 }
    ))

  it("PriorityScorer with a wide range (radix order) equals PRIORITY-SCORE, ties and all", () =>
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.constantFrom(-(2 ** 40), -7, 0, 3, 2 ** 35, Number.MAX_SAFE_INTEGER), { nil: undefined, freq: 8 }), {
          minLength: 1024,
          maxLength: 1300
        }),
        (priorities) => {
          const items = priorities.map((p, i) => item(i, p === undefined ? {} : { priority: p }))
          sameScores(PriorityScorer.scores(items), scoreEach(priority, items))
        }
      ),
      { numRuns: 10 }
    ))

  it("RecencyScorer (radix order of whole milliseconds) equals RECENCY-SCORE, ties and missing timestamps", () =>
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.integer({ min: 0, max: 5000 }), { nil: undefined, freq: 8 }), { minLength: 1024, maxLength: 1300 }),
        fc.constantFrom(1_700_000_000_000, 0, -86_400_000),
        fc.constantFrom(1, 1000, 10_000_000),
        (offsets, base, step) => {
          const items = offsets.map((o, i) => item(i, o === undefined ? {} : { time: base + o * step }))
          sameScores(RecencyScorer.scores(items), scoreEach(recency, items))
        }
      ),
      { numRuns: 15 }
    ))

  it("a lone keyed item among a thousand scores 1.0, and no keyed item scores all 0", () => {
    const items = Array.from({ length: 1100 }, (_, i) => item(i, i === 500 ? { priority: 3 } : {}))
    sameScores(PriorityScorer.scores(items), scoreEach(priority, items))
    const none = Array.from({ length: 1100 }, (_, i) => item(i, {}))
    sameScores(PriorityScorer.scores(none), scoreEach(priority, none))
  })
})

describe("composites of built-in scorers on large lists", () => {
  it.effect("children written into kept buffers, a nested composite among them, equal COMPOSITE-SCORE, call after call", () =>
    Effect.gen(function*() {
      const inner = yield* CompositeScorer.make([{ scorer: RecencyScorer.make(), weight: 2 }, { scorer: KindScorer.defaults, weight: 1 }])
      const outer = yield* CompositeScorer.make([
        { scorer: PriorityScorer.make(), weight: 0.3 },
        { scorer: inner, weight: 0.5 },
        { scorer: RecencyScorer.make(), weight: 0.2 }
      ])
      const specInner = constructComposite([{ scorer: recency, weight: 2 }, { scorer: kind(kindDefaultWeights), weight: 1 }])
      if (!("scorer" in specInner)) return assert.fail("valid")
      const specOuter = constructComposite([
        { scorer: priority, weight: 0.3 },
        { scorer: specInner.scorer, weight: 0.5 },
        { scorer: recency, weight: 0.2 }
      ])
      if (!("scorer" in specOuter)) return assert.fail("valid")
      // Two lists of different sizes, each scored twice: the buffers are reused, shorter and
      // longer, and every call gives the chapter's scores.
      for (const n of [3000, 1200, 3000]) {
        const items = Array.from({ length: n }, (_, i) =>
          new ContextItem.ContextItem({
            content: `item-${i}`,
            tokens: 1,
            kind: ["Message", "Document", "ToolOutput"][i % 3]!,
            ...(i % 7 === 0 ? {} : { priority: (i * 31) % 11 }),
            ...(i % 5 === 0 ? {} : { timestamp: Timestamp.fromEpochMillis(1_700_000_000_000 + ((i * 7919) % 2003) * 1000) })
          }))
        const expected = scoreEach(specOuter.scorer, items)
        sameScores(yield* outer.scoreAll(items), expected)
        sameScores(yield* outer.scoreAll(items), expected)
      }
    }))
})

/** DEDUPLICATE of pipeline/deduplicate.md on bare scores: kept indices and (index, survivor). */
const specDeduplicate = (contents: ReadonlyArray<string>, scores: ReadonlyArray<number>) => {
  const best = new Map<string, number>()
  contents.forEach((c, i) => {
    const existing = best.get(c)
    if (existing === undefined || scores[i]! > scores[existing]!) best.set(c, i)
  })
  const kept: Array<number> = []
  const removed: Array<{ index: number; survivor: number }> = []
  contents.forEach((c, i) => (best.get(c) === i ? kept.push(i) : removed.push({ index: i, survivor: best.get(c)! })))
  return { kept, removed }
}

const checkDeduplicate = async (contents: ReadonlyArray<string>, scores: ReadonlyArray<number>) => {
  const items = contents.map((content, i) => item(i, { content }))
  const actual = await Effect.runPromise(Deduplicate.deduplicate(items, scores, true))
  const expected = specDeduplicate(contents, scores)
  assert.deepStrictEqual(Array.from(actual.kept), expected.kept)
  assert.deepStrictEqual(actual.removed, expected.removed)
}

describe("Deduplicate on large lists", () => {
  it("the hash table keeps the best scored of equal contents, the earliest on a tie", () =>
    fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.string({ unit: fc.constantFrom("a", "b", "é", "\u{1F600}"), maxLength: 4 }), fc.integer({ min: 0, max: 3 })), {
          minLength: 256,
          maxLength: 700
        }),
        (pairs) => checkDeduplicate(pairs.map(([c]) => c + "x"), pairs.map(([, s]) => s / 3))
      ),
      { numRuns: 25 }
    ))

  it("long contents that differ only in their middle: the table hands over to the Map, same result", async () => {
    const head = "h".repeat(40)
    const tail = "t".repeat(40)
    const contents = Array.from({ length: 600 }, (_, i) => `${head}${String(i % 450).padStart(5, "0")}${tail}`)
    const scores = contents.map((_, i) => (i * 7919) % 13)
    await checkDeduplicate(contents, scores)
  })

  it("long contents with distinct ends are told apart without the Map, and exact duplicates found", async () => {
    const contents = Array.from({ length: 800 }, (_, i) => `${i % 500}:` + "x".repeat(100) + `:${i % 500}`)
    await checkDeduplicate(contents, contents.map((_, i) => i % 5))
  })
})

describe("the pipeline's report on large lists", () => {
  const layers = Layer.mergeAll(
    Scorer.layer(PriorityScorer.make()),
    Slicer.layer(GreedySlice.make()),
    UShapedPlacer.layer,
    OverflowNotifier.layerNoop
  )
  it("equals the chapters' transcription: duplicates, negative and zero tokens, pinned items, many exclusions", () =>
    fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            content: fc.integer({ min: 0, max: 1500 }),
            tokens: fc.integer({ min: -3, max: 60 }),
            priority: fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined }),
            pinned: fc.integer({ min: 0, max: 199 }).map((k) => k === 0)
          }),
          { minLength: 1100, maxLength: 1600 }
        ),
        fc.integer({ min: 0, max: 5000 }),
        async (fields, target) => {
          const items = fields.map((f, i) =>
            item(i, {
              content: `c${f.content}`,
              tokens: f.pinned ? Math.max(0, f.tokens) : f.tokens,
              pinned: f.pinned,
              ...(f.priority === undefined ? {} : { priority: f.priority })
            })
          )
          const budget = new ContextBudget.ContextBudget({ maxTokens: 20_000, targetTokens: target + 2000 })
          const expected = specPipeline(
            items,
            budget,
            priority,
            greedySlice,
            uShapedBaseline,
            true,
            "Truncate"
          )
          const actual = await Effect.runPromise(
            Effect.result(Pipeline.run(items, budget, { overflowStrategy: "Truncate" }).pipe(Effect.provide(layers)))
          )
          if (!expected.ok) {
            assert.strictEqual(actual._tag, "Failure")
            return
          }
          assert.strictEqual(actual._tag, "Success")
          if (actual._tag !== "Success") return
          const report = actual.success.report
          assert.deepStrictEqual(actual.success.window, expected.run.output)
          assert.deepStrictEqual(report.included.map((i) => [i.item, i.score, i.reason._tag]), expected.run.included.map((i) => [i.item, i.score, i.reason]))
          assert.deepStrictEqual(report.excluded.map((e) => [e.item, e.score, e.reason._tag]), expected.run.excluded.map((e) => [e.item, e.score, e.reason]))
          // Each BudgetExceeded reason carries its own item's tokens, shared objects or not.
          for (const e of report.excluded) {
            if (e.reason._tag === "BudgetExceeded") assert.strictEqual(e.reason.itemTokens, e.item.tokens)
          }
        }
      ),
      { numRuns: 15 }
    ))
})
