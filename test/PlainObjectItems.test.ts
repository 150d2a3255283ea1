/**
 * Issue 17, item 5e: candidates that are not `ContextItem` instances — plain objects from
 * JavaScript, `null` — fail `Pipeline.run` and `Policy.run` with a typed `InvalidItemError`
 * that names the item, not with a `TypeError` from deep inside a stage.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import {
  ContextBudget,
  ContextItem,
  GreedySlice,
  InvalidItemError,
  OverflowNotifier,
  Pipeline,
  Policy,
  Presets,
  RecencyScorer,
  Scorer,
  Slicer,
  UShapedPlacer
} from "../src/index.ts"

const budget = new ContextBudget.ContextBudget({ maxTokens: 100, targetTokens: 50 })
const item = (content: string, fields: Partial<ConstructorParameters<typeof ContextItem.ContextItem>[0]> = {}) =>
  new ContextItem.ContextItem({ content, tokens: 5, ...fields })

/** Candidates as JavaScript could pass them: the type says ContextItem, the values are anything. */
const fromJavaScript = (values: ReadonlyArray<unknown>): ReadonlyArray<ContextItem.ContextItem> =>
  values.filter((_): _ is ContextItem.ContextItem => true)

const layers = Layer.mergeAll(
  Scorer.layer(RecencyScorer.make()),
  Slicer.layer(GreedySlice.make()),
  UShapedPlacer.layer,
  OverflowNotifier.layerNoop
)

class Message {
  readonly content = "from a class"
  readonly tokens = 4
}

describe("candidates that are not ContextItems (issue 17, item 5e)", () => {
  it.effect("a plain object among ContextItems: an InvalidItemError naming its index, content and what it is", () =>
    Effect.gen(function*() {
      const items = fromJavaScript([item("fine"), { content: "a plain one", tokens: 3 }])
      const error = yield* Effect.flip(Pipeline.run(items, budget).pipe(Effect.provide(layers)))
      assert.instanceOf(error, InvalidItemError.InvalidItemError)
      assert.strictEqual(error._tag, "InvalidItemError")
      if (error._tag !== "InvalidItemError") return
      assert.strictEqual(error.problem, "NotAContextItem")
      assert.strictEqual(error.list, "candidates")
      assert.strictEqual(error.index, 1)
      assert.strictEqual(error.content, "a plain one")
      assert.strictEqual(error.tokens, 3)
      assert.strictEqual(error.received, "a plain object")
      assert.strictEqual(
        error.message,
        `candidates[1] ("a plain one") is a plain object, not a ContextItem: make items with ` +
          `new ContextItem.ContextItem({ content, tokens }) or decode them with ContextItem.decodeMany, which fill in ` +
          `the other fields`
      )
    }))

  it.effect("Policy.run, with every preset: the same typed error, never a defect", () =>
    Effect.gen(function*() {
      const items = fromJavaScript([{ content: "a", tokens: 3 }, { content: "b", tokens: 4, pinned: true }])
      for (const name of Presets.names) {
        const policy = yield* Presets.get(name)
        const exit = yield* Effect.exit(Policy.run(items, budget, policy).pipe(Effect.provide(OverflowNotifier.layerNoop)))
        assert.isTrue(exit._tag === "Failure", name)
        const error = yield* Effect.flip(Policy.run(items, budget, policy).pipe(Effect.provide(OverflowNotifier.layerNoop)))
        assert.strictEqual(error._tag, "InvalidItemError", name)
        if (error._tag === "InvalidItemError") assert.strictEqual(error.index, 0, name)
      }
    }))

  it.effect("null, a string, another class, an object whose getter throws: each named, never a TypeError", () =>
    Effect.gen(function*() {
      const throwing = Object.defineProperty({}, "content", {
        get: () => {
          throw new Error("no")
        }
      })
      const cases: ReadonlyArray<readonly [unknown, string, string]> = [
        [null, "null", "candidates[0] is null, not a ContextItem"],
        [undefined, "undefined", "candidates[0] is undefined, not a ContextItem"],
        ["text", "a string", "candidates[0] is a string, not a ContextItem"],
        [[1, 2], "an array", "candidates[0] is an array, not a ContextItem"],
        [new Message(), "an instance of Message", `candidates[0] ("from a class") is an instance of Message`],
        [throwing, "a plain object", "candidates[0] is a plain object, not a ContextItem"]
      ]
      for (const [value, received, message] of cases) {
        // Also before an item with a group: the grouped path is never taken with a bad candidate.
        const items = fromJavaScript([value, item("g1", { group: "g" }), item("g2", { group: "g" })])
        const error = yield* Effect.flip(Pipeline.run(items, budget).pipe(Effect.provide(layers)))
        assert.strictEqual(error._tag, "InvalidItemError", received)
        if (error._tag !== "InvalidItemError") continue
        assert.strictEqual(error.received, received)
        assert.include(error.message, message)
      }
    }))

  it.effect("a bad candidate after a grouped one is found too; ContextItems, grouped or not, still run", () =>
    Effect.gen(function*() {
      const items = fromJavaScript([item("g1", { group: "g" }), item("g2", { group: "g" }), { content: "late", tokens: 1 }])
      const error = yield* Effect.flip(Pipeline.run(items, budget).pipe(Effect.provide(layers)))
      assert.strictEqual(error._tag, "InvalidItemError")
      if (error._tag === "InvalidItemError") assert.strictEqual(error.index, 2)
      const ok = yield* Pipeline.run([item("g1", { group: "g" }), item("g2", { group: "g" }), item("solo")], budget).pipe(
        Effect.provide(layers)
      )
      assert.strictEqual(ok.window.length, 3)
    }))

  it.effect("the call itself never throws: the check runs when the Effect runs", () =>
    Effect.gen(function*() {
      const program = Pipeline.run(fromJavaScript([null]), budget)
      const error = yield* Effect.flip(program.pipe(Effect.provide(layers)))
      assert.strictEqual(error._tag, "InvalidItemError")
    }))
})
