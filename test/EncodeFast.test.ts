/**
 * The fast encoding path (src/internal/fastEncode.ts) against the schema encoder it stands in
 * for: on items decoded from arbitrary inputs, and on items built with unusual values, whenever
 * the fast path answers, its output is the schema's, key order and `undefined` values included;
 * it answers for every item in the common forms; and the encoders that use it
 * (`PipelineResult.encode`, `SelectionReport.encode`, `PlaceResult.encode`) give the schema's
 * output, or the schema's error.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Schema } from "effect"
import * as fc from "fast-check"
import {
  ChronologicalPlacer,
  CompositeScorer,
  ContextBudget,
  ContextItem,
  GreedySlice,
  KindScorer,
  OverflowNotifier,
  Pipeline,
  PipelineResult,
  Place,
  PlaceResult,
  PriorityScorer,
  RecencyScorer,
  Scorer,
  SelectionReport,
  Slicer,
  Timestamp,
  UShapedPlacer
} from "../src/index.ts"
import * as FastEncode from "../src/internal/fastEncode.ts"
import { itemLike, validItem } from "./support/itemInputs.ts"

const decodeItem = Schema.decodeUnknownExit(ContextItem.ContextItem)
const schemaEncode = Schema.encodeUnknownExit(ContextItem.ContextItem)

/** The same value with the same keys in the same order, at every depth. */
const sameEncoding = (fast: unknown, expected: unknown): void => {
  assert.deepStrictEqual(fast, expected)
  assert.strictEqual(JSON.stringify(fast), JSON.stringify(expected))
  if (typeof fast === "object" && fast !== null && typeof expected === "object" && expected !== null) {
    assert.deepStrictEqual(Object.keys(fast), Object.keys(expected))
  }
}

/**
 * Valid items in the forms a JSON file holds but one: metadata with an own `__proto__` key is
 * left to the schema by design (fastEncode.ts; "metadata the schema may write differently…"
 * holds the schema's output for it), and fc.string() makes that key now and then.
 */
const commonForm = validItem.filter((input) => {
  const metadata = input["metadata"]
  return typeof metadata !== "object" || metadata === null || !Object.hasOwn(metadata, "__proto__")
})

describe("the fast path for encoding one item", () => {
  it("whenever it answers, answers what the schema writes", () => {
    fc.assert(
      fc.property(fc.oneof(itemLike, validItem), (input) => {
        const decoded = decodeItem(input)
        if (Exit.isFailure(decoded)) return
        const fast = FastEncode.item(decoded.value)
        if (fast === undefined) return
        const expected = schemaEncode(decoded.value)
        assert.isTrue(Exit.isSuccess(expected))
        if (Exit.isSuccess(expected)) sameEncoding(fast, expected.value)
      }),
      { numRuns: 600 }
    )
  })

  it("answers for every valid item in the forms a JSON file holds", () => {
    fc.assert(
      fc.property(commonForm, (input) => {
        const decoded = decodeItem(input)
        assert.isTrue(Exit.isSuccess(decoded))
        if (Exit.isSuccess(decoded)) assert.isDefined(FastEncode.item(decoded.value))
      }),
      { numRuns: 300 }
    )
  })

  it("metadata the schema may write differently is left to it; what it writes is then the schema's", () => {
    const unusual = [
      JSON.parse(`{"__proto__": {"polluted": true}, "a": 1}`),
      Object.create(null),
      { b: undefined, c: { nested: [1, 2] } },
      Object.defineProperties({ [Symbol("s")]: 1, shown: 2 }, { hidden: { value: 3, enumerable: false } })
    ]
    for (const metadata of unusual) {
      const item = new ContextItem.ContextItem({ content: "m", tokens: 1, metadata })
      const fast = FastEncode.item(item)
      const expected = schemaEncode(item)
      if (fast !== undefined && Exit.isSuccess(expected)) sameEncoding(fast, expected.value)
      else assert.isUndefined(fast)
    }
  })

  it("a timestamp RFC 3339 cannot write is left to the schema, which refuses it", () => {
    const item = new ContextItem.ContextItem({ content: "far", tokens: 1, timestamp: Timestamp.fromEpochMillis(Date.parse("+010000-01-01T00:00:00Z")) })
    assert.isUndefined(FastEncode.item(item))
    assert.isTrue(Exit.isFailure(schemaEncode(item)))
  })

  it("an object that is not a ContextItem instance is left to the schema", () => {
    const item = new ContextItem.ContextItem({ content: "x", tokens: 1 })
    const lookalike = { ...item }
    assert.isFalse(lookalike instanceof ContextItem.ContextItem)
    assert.isUndefined(FastEncode.item(Object.assign(Object.create(null), lookalike)))
    assert.isDefined(FastEncode.item(item))
  })

  it.effect("items: all of them encoded, or undefined as soon as one is not", () =>
    Effect.sync(() => {
      const good = [new ContextItem.ContextItem({ content: "a", tokens: 1 }), new ContextItem.ContextItem({ content: "b", tokens: 2, priority: 3 })]
      const encoded = FastEncode.items(good)
      assert.isDefined(encoded)
      assert.deepStrictEqual(encoded, good.map((i) => Schema.encodeSync(ContextItem.ContextItem)(i)))
      const far = new ContextItem.ContextItem({ content: "far", tokens: 1, timestamp: Timestamp.fromEpochMillis(Date.parse("+010000-01-01T00:00:00Z")) })
      assert.isUndefined(FastEncode.items([...good, far]))
    }))
})

const layers = Layer.mergeAll(
  Scorer.layer(Effect.runSync(CompositeScorer.make([
    { scorer: RecencyScorer.make(), weight: 0.5 },
    { scorer: PriorityScorer.make(), weight: 0.3 },
    { scorer: KindScorer.defaults, weight: 0.2 }
  ]))),
  Slicer.layer(GreedySlice.make()),
  UShapedPlacer.layer,
  OverflowNotifier.layerNoop
)

/** Decoded valid items, with duplicates, pinned and negative-token items among them. */
// Items of the common forms: the test below says the fast path writes every one of the results.
const candidates = fc.array(commonForm, { maxLength: 30 }).map((inputs) =>
  inputs.flatMap((input) => {
    const decoded = decodeItem(input)
    return Exit.isSuccess(decoded) ? [decoded.value] : []
  })
)

describe("the result encoders", () => {
  it("PipelineResult.encode and SelectionReport.encode write what their schemas write", async () => {
    await fc.assert(
      fc.asyncProperty(candidates, fc.integer({ min: 0, max: 3000 }), fc.constantFrom("Throw", "Truncate", "Proceed") , async (items, target, overflowStrategy) => {
        const budget = new ContextBudget.ContextBudget({ maxTokens: 10 ** 12, targetTokens: target })
        const run = await Effect.runPromise(Effect.exit(Pipeline.run(items, budget, { overflowStrategy }).pipe(Effect.provide(layers))))
        if (Exit.isFailure(run)) return
        const result = run.value
        const fast = await Effect.runPromise(PipelineResult.encode(result))
        sameEncoding(fast, await Effect.runPromise(Schema.encodeEffect(PipelineResult.PipelineResult)(result)))
        const report = await Effect.runPromise(SelectionReport.encode(result.report))
        sameEncoding(report, await Effect.runPromise(Schema.encodeEffect(SelectionReport.SelectionReport)(result.report)))
        // The pipeline's own results are all in the common forms: the fast path wrote them.
        assert.isDefined(FastEncode.items(result.window))
      }),
      { numRuns: 150 }
    )
  })

  it("PlaceResult.encode writes what its schema writes", async () => {
    await fc.assert(
      fc.asyncProperty(candidates, fc.integer({ min: 0, max: 3000 }), async (items, target) => {
        const scored = items.filter((i) => i.tokens >= 0).map((item, k) => ({ item, score: (k % 7) / 7 }))
        const budget = new ContextBudget.ContextBudget({ maxTokens: 10 ** 12, targetTokens: target })
        const run = await Effect.runPromise(Effect.exit(
          Place.place({ scored, budget, overflowStrategy: "Truncate" }).pipe(
            Effect.provide(Layer.merge(ChronologicalPlacer.layer, OverflowNotifier.layerNoop))
          )
        ))
        if (Exit.isFailure(run)) return
        const fast = await Effect.runPromise(PlaceResult.encode(run.value))
        sameEncoding(fast, await Effect.runPromise(Schema.encodeEffect(PlaceResult.PlaceResult)(run.value)))
      }),
      { numRuns: 100 }
    )
  })

  it.effect("a result the schema cannot write fails with the schema's error", () =>
    Effect.gen(function*() {
      const far = new ContextItem.ContextItem({ content: "far", tokens: 1, timestamp: Timestamp.fromEpochMillis(Date.parse("+010000-01-01T00:00:00Z")) })
      const budget = new ContextBudget.ContextBudget({ maxTokens: 100, targetTokens: 100 })
      const result = yield* Pipeline.run([far, new ContextItem.ContextItem({ content: "near", tokens: 1 })], budget).pipe(Effect.provide(layers))
      const fast = yield* Effect.flip(PipelineResult.encode(result))
      const schema = yield* Effect.flip(Schema.encodeEffect(PipelineResult.PipelineResult)(result))
      assert.strictEqual(fast.message, schema.message)
      assert.include(fast.message, "RFC 3339 writes the years 0000 to 9999 only")
    }))
})
