import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import * as CompositeScorer from "../../src/scorers/CompositeScorer.ts"
import * as FrequencyScorer from "../../src/scorers/FrequencyScorer.ts"
import * as KindScorer from "../../src/scorers/KindScorer.ts"
import * as PriorityScorer from "../../src/scorers/PriorityScorer.ts"
import * as RecencyScorer from "../../src/scorers/RecencyScorer.ts"
import * as ReflexiveScorer from "../../src/scorers/ReflexiveScorer.ts"
import * as ScaledScorer from "../../src/scorers/ScaledScorer.ts"
import * as Scorer from "../../src/scorers/Scorer.ts"
import { InvalidConfigError } from "../../src/InvalidConfigError.ts"
import { items as arbitraryItems, weight } from "../support/scorerArbitraries.ts"
import { scorerItem as item } from "../support/scorerItems.ts"
import * as Spec from "../support/specScorers.ts"

const recency = RecencyScorer.make()
const priority = PriorityScorer.make()
const reflexive = ReflexiveScorer.make()

const vectorItems = () => [
  item("old-low", { timestamp: "2024-01-01T00:00Z", priority: 1 }),
  item("new-high", { timestamp: "2024-12-01T00:00Z", priority: 10 }),
  item("old-high", { timestamp: "2024-01-01T00:00Z", priority: 10 })
]

describe("CompositeScorer — chapter rules", () => {
  it.effect("is named \"composite\" and exposes its children with normalised weights", () =>
    Effect.gen(function*() {
      const composite = yield* CompositeScorer.make([{ scorer: recency, weight: 3 }, { scorer: priority, weight: 1 }])
      assert.strictEqual(composite.name, "composite")
      assert.deepStrictEqual(composite.children.map((c) => [c.scorer, c.weight]), [[recency, 0.75], [priority, 0.25]])
    }))

  it.effect("weighted average with weights normalised to sum 1 (vector composite-weighted)", () =>
    Effect.gen(function*() {
      const composite = yield* CompositeScorer.make([{ scorer: recency, weight: 3 }, { scorer: priority, weight: 1 }])
      assert.deepStrictEqual(Array.from(yield* composite.scoreAll(vectorItems())), [0, 0.875, 0.125])
    }))

  it.effect("weights are relative: 3 : 1 and 0.75 : 0.25 give identical results", () =>
    Effect.gen(function*() {
      const a = yield* CompositeScorer.make([{ scorer: recency, weight: 3 }, { scorer: priority, weight: 1 }])
      const b = yield* CompositeScorer.make([{ scorer: recency, weight: 0.75 }, { scorer: priority, weight: 0.25 }])
      assert.deepStrictEqual(Array.from(yield* a.scoreAll(vectorItems())), Array.from(yield* b.scoreAll(vectorItems())))
    }))

  it.effect("nested composite (vector composite-nested)", () =>
    Effect.gen(function*() {
      const inner = yield* CompositeScorer.make([{ scorer: recency, weight: 1 }, { scorer: priority, weight: 1 }])
      const outer = yield* CompositeScorer.make([{ scorer: inner, weight: 1 }, { scorer: reflexive, weight: 1 }])
      const items = [
        item("a", { timestamp: "2024-01-01T00:00Z", priority: 1, hint: 0.8 }),
        item("b", { timestamp: "2024-12-01T00:00Z", priority: 5, hint: 0.2 })
      ]
      const scores = Array.from(yield* outer.scoreAll(items))
      assert.closeTo(scores[0]!, 0.4, 1e-9)
      assert.closeTo(scores[1]!, 0.6, 1e-9)
    }))

  it.effect("single entry: normalised weight 1.0, delegates to the child", () =>
    Effect.gen(function*() {
      const composite = yield* CompositeScorer.make([{ scorer: recency, weight: 0.3 }])
      assert.deepStrictEqual(composite.children[0]!.weight, 1)
      assert.deepStrictEqual(Array.from(yield* composite.scoreAll(vectorItems())), [0, 1, 0])
    }))

  it.effect("all children return 0.0: 0.0; all return 1.0: 1.0", () =>
    Effect.gen(function*() {
      const zero = Scorer.makeAll("zero", (items) => items.map(() => 0))
      const one = Scorer.makeAll("one", (items) => items.map(() => 1))
      const zeros = yield* CompositeScorer.make([{ scorer: zero, weight: 2 }, { scorer: zero, weight: 5 }])
      const ones = yield* CompositeScorer.make([{ scorer: one, weight: 1 }, { scorer: one, weight: 1 }])
      assert.deepStrictEqual(Array.from(yield* zeros.scoreAll(vectorItems())), [0, 0, 0])
      assert.deepStrictEqual(Array.from(yield* ones.scoreAll(vectorItems())), [1, 1, 1])
    }))

  it.effect("construction: an empty entries list is refused", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(CompositeScorer.make([]))
      assert.instanceOf(error, InvalidConfigError)
      assert.deepStrictEqual([error.component, error.path], ["CompositeScorer", "entries"])
    }))

  it.effect("construction: zero, negative, NaN and infinite weights are refused, naming the entry", () =>
    Effect.gen(function*() {
      for (const [w, rule] of [[0, /positive/], [-1, /positive/], [NaN, /finite/], [Infinity, /finite/], [-Infinity, /positive/]] as const) {
        const error = yield* Effect.flip(CompositeScorer.make([{ scorer: recency, weight: 1 }, { scorer: priority, weight: w }]))
        assert.strictEqual(error.path, "entries[1].weight")
        assert.match(error.rule, rule)
      }
    }))

  it.effect("construction: an entry whose scorer or weight cannot be shown (no prototype) is refused, not thrown", () =>
    Effect.gen(function*() {
      const unshowable: unknown = Object.create(null)
      const noScorer = [{ scorer: unshowable, weight: 1 }] as unknown as ReadonlyArray<CompositeScorer.Entry>
      const badScorer = yield* Effect.flip(CompositeScorer.make(noScorer))
      assert.deepStrictEqual([badScorer.path, badScorer.rule], ["entries[0].scorer", "must be a scorer, got a value that cannot be shown"])
      const noWeight = [{ scorer: recency, weight: unshowable }] as unknown as ReadonlyArray<CompositeScorer.Entry>
      const badWeight = yield* Effect.flip(CompositeScorer.make(noWeight))
      assert.deepStrictEqual([badWeight.path, badWeight.rule], ["entries[0].weight", "must be finite, got a value that cannot be shown"])
    }))

  it.effect("construction: a missing scorer (untyped callers) is refused", () =>
    Effect.gen(function*() {
      const entries = JSON.parse("[{\"scorer\":null,\"weight\":1}]") as ReadonlyArray<CompositeScorer.Entry>
      const error = yield* Effect.flip(CompositeScorer.make(entries))
      assert.strictEqual(error.path, "entries[0].scorer")
    }))

  it.effect("construction: weights whose sum overflows are refused (normalised weights would all be 0)", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        CompositeScorer.make([{ scorer: recency, weight: Number.MAX_VALUE }, { scorer: priority, weight: Number.MAX_VALUE }])
      )
      assert.strictEqual(error.path, "entries")
    }))

  it.effect("cycles: re-using one scorer value (as two children, or in two composites) is not a cycle", () =>
    Effect.gen(function*() {
      const shared = yield* CompositeScorer.make([{ scorer: recency, weight: 1 }])
      const diamond = yield* CompositeScorer.make([
        { scorer: shared, weight: 1 },
        { scorer: ScaledScorer.make(shared), weight: 1 },
        { scorer: shared, weight: 2 }
      ])
      const scores = Array.from(yield* diamond.scoreAll(vectorItems()))
      assert.deepStrictEqual(scores, [0, 1, 0])
    }))

  it.effect("cycles: children are copied and frozen, so a composite can never be made its own descendant", () =>
    Effect.gen(function*() {
      const entries: Array<CompositeScorer.Entry> = [{ scorer: recency, weight: 1 }]
      const composite = yield* CompositeScorer.make(entries)
      entries.push({ scorer: composite, weight: 1 })
      assert.strictEqual(composite.children.length, 1)
      assert.isTrue(Object.isFrozen(composite.children))
      assert.isTrue(Object.isFrozen(composite.children[0]))
    }))

  it.effect("children are invoked in entry order, each once per list", () =>
    Effect.gen(function*() {
      const calls: Array<string> = []
      const tracked = (name: string) => Scorer.makeAll(name, (items) => (calls.push(name), items.map(() => 0.5)))
      const composite = yield* CompositeScorer.make([
        { scorer: tracked("first"), weight: 1 },
        { scorer: tracked("second"), weight: 1 },
        { scorer: tracked("third"), weight: 1 }
      ])
      yield* composite.scoreAll(vectorItems())
      assert.deepStrictEqual(calls, ["first", "second", "third"])
    }))

  it.effect("a copy of a built-in scorer with a scoreAll of its own is scored by that scoreAll, not the built-in's", () =>
    Effect.gen(function*() {
      // Built-in children write into a shared buffer instead of calling scoreAll; a copy is a
      // different scorer, whatever it was copied from.
      const copy: Scorer.Definition = { ...recency, scoreAll: (items) => Effect.succeed(items.map(() => 0.25)) }
      const composite = yield* CompositeScorer.make([{ scorer: copy, weight: 1 }])
      const items = vectorItems()
      assert.deepStrictEqual(Array.from(yield* composite.scoreAll(items)), [0.25, 0.25, 0.25])
      const original = yield* CompositeScorer.make([{ scorer: recency, weight: 1 }])
      assert.deepStrictEqual(Array.from(yield* original.scoreAll(items)), Array.from(yield* recency.scoreAll(items)))
    }))

  it.effect("a child's failure is the composite's failure (a hand-made child returning NaN is caught)", () =>
    Effect.gen(function*() {
      const bad: Scorer.Definition = { name: "bad", scoreAll: (items) => Effect.succeed(items.map(() => NaN)) }
      const composite = yield* CompositeScorer.make([{ scorer: recency, weight: 1 }, { scorer: bad, weight: 1 }])
      const error = yield* Effect.flip(composite.scoreAll(vectorItems()))
      assert.strictEqual(error.scorer, "bad")
    }))
})

const children: ReadonlyArray<readonly [Scorer.Definition, Spec.SpecScorer]> = [
  [recency, Spec.recency],
  [priority, Spec.priority],
  [reflexive, Spec.reflexive],
  [FrequencyScorer.make(), Spec.frequency],
  [KindScorer.defaults, Spec.kind(Spec.kindDefaultWeights)],
  [ScaledScorer.make(priority), Spec.scaled(Spec.priority)]
]

describe("CompositeScorer — against the chapter's pseudocode", () => {
  it("construction fails exactly when CONSTRUCT-COMPOSITE does; scores equal COMPOSITE-SCORE exactly (same summation order)", () =>
    fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat({ max: children.length - 1 }), weight), { maxLength: 5 }),
        arbitraryItems(25),
        async (picks, items) => {
          const spec = Spec.constructComposite(picks.map(([k, w]) => ({ scorer: children[k]![1], weight: w })))
          const result = await Effect.runPromise(
            Effect.result(CompositeScorer.make(picks.map(([k, w]) => ({ scorer: children[k]![0], weight: w }))))
          )
          // One rule beyond the chapter's: weights whose sum overflows (it would divide by Infinity).
          const total = picks.reduce((sum, [, w]) => sum + w, 0)
          const refused = "error" in spec || !Number.isFinite(total)
          assert.strictEqual(result._tag, refused ? "Failure" : "Success")
          if (result._tag === "Success" && "scorer" in spec) {
            assert.deepStrictEqual(await Spec.runScorer(result.success, items), Spec.scoreEach(spec.scorer, items))
          }
        }
      ),
      { numRuns: 300 }
    ))

  it("nested composites equal the nested pseudocode exactly", () =>
    fc.assert(
      fc.asyncProperty(fc.double({ min: 0.01, max: 10, noNaN: true }), fc.double({ min: 0.01, max: 10, noNaN: true }), arbitraryItems(25), async (w1, w2, items) => {
        const inner = await Effect.runPromise(CompositeScorer.make([{ scorer: recency, weight: w1 }, { scorer: priority, weight: w2 }]))
        const outer = await Effect.runPromise(CompositeScorer.make([{ scorer: inner, weight: w2 }, { scorer: reflexive, weight: w1 }]))
        const specInner = Spec.constructComposite([{ scorer: Spec.recency, weight: w1 }, { scorer: Spec.priority, weight: w2 }])
        if (!("scorer" in specInner)) return assert.fail("valid")
        const specOuter = Spec.constructComposite([{ scorer: specInner.scorer, weight: w2 }, { scorer: Spec.reflexive, weight: w1 }])
        if (!("scorer" in specOuter)) return assert.fail("valid")
        assert.deepStrictEqual(await Spec.runScorer(outer, items), Spec.scoreEach(specOuter.scorer, items))
      }),
      { numRuns: 200 }
    ))
})
