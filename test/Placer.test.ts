import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer } from "effect"
import { ContextBudget, OverflowNotifier, Place, Placer, type ScoredItem } from "../src/index.ts"
import { scored } from "./support/items.ts"

const items = [scored("a", 0.1), scored("b", 0.9), scored("c", 0.5)]

type Method = "order" | "place"

/** Calls one method of the placer a layer builds. */
const call = (layer: Layer.Layer<Placer.Placer>, method: Method) =>
  Placer.Placer.use((placer) => method === "order" ? Effect.asVoid(placer.order(items)) : Effect.asVoid(placer.place(items))).pipe(
    Effect.provide(layer)
  )

/** The PlacerError a method fails with; anything else fails the test. */
const placerError = (layer: Layer.Layer<Placer.Placer>, method: Method) =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(call(layer, method))
    if (Exit.isSuccess(exit)) return assert.fail(`${method}: expected a PlacerError, got success`)
    const error = Cause.findErrorOption(exit.cause)
    if (error._tag === "None") return assert.fail(`${method}: expected a PlacerError, got ${Cause.pretty(exit.cause)}`)
    if (error.value._tag !== "PlacerError") return assert.fail(`${method}: expected a PlacerError, got ${error.value._tag}`)
    return error.value
  })

const boom = new TypeError("the ranking service is down")

const throwing: ReadonlyArray<readonly [string, Layer.Layer<Placer.Placer>]> = [
  ["make", Placer.make("ranker", () => {
    throw boom
  })],
  ["makeEffect", Placer.makeEffect("ranker", () => {
    throw boom
  })],
  ["fromOrder", Placer.fromOrder("ranker", () => {
    throw boom
  })]
]

describe("Placer — custom placers that throw", () => {
  for (const [constructor, layer] of throwing) {
    for (const method of ["order", "place"] as const) {
      it.effect(`Placer.${constructor}: a throw from the function fails ${method} with PlacerError naming the placer, the message and the thrown value`, () =>
        Effect.gen(function*() {
          const error = yield* placerError(layer, method)
          assert.strictEqual(error.placer, "ranker")
          assert.include(error.reason, "the ranking service is down")
          assert.strictEqual(error.cause, boom)
          assert.strictEqual(error.message, `Placer "ranker" failed: threw TypeError: the ranking service is down`)
        }))
    }

    it.effect(`Placer.${constructor}: Place.place fails with the PlacerError, which can be caught by tag`, () =>
      Effect.gen(function*() {
        const out = yield* Place.place({
          scored: items,
          budget: new ContextBudget.ContextBudget({ maxTokens: 100, targetTokens: 100 })
        }).pipe(
          Effect.map(() => "placed"),
          Effect.catchTag("PlacerError", (e) => Effect.succeed(e.placer)),
          Effect.provide(Layer.mergeAll(layer, OverflowNotifier.layerNoop))
        )
        assert.strictEqual(out, "ranker")
      }))
  }

  it.effect("a thrown value that is not an Error is described as it is", () =>
    Effect.gen(function*() {
      const stringly = yield* placerError(Placer.make("stringly", () => {
        throw "out of cheese"
      }), "place")
      assert.strictEqual(stringly.reason, `threw "out of cheese"`)
      assert.strictEqual(stringly.cause, "out of cheese")
      const numeric = yield* placerError(Placer.fromOrder("numeric", () => {
        throw 42
      }), "order")
      assert.strictEqual(numeric.reason, "threw 42")
    }))

  it.effect("a thrown value whose own toString throws is still reported", () =>
    Effect.gen(function*() {
      const nasty = { toString: (): string => { throw new Error("nope") } }
      const error = yield* placerError(Placer.make("nasty", () => {
        throw nasty
      }), "place")
      assert.strictEqual(error.reason, "threw a value that cannot be shown")
      assert.strictEqual(error.cause, nasty)
    }))

  it.effect("Placer.makeEffect: a defect inside the returned effect stays a defect", () =>
    Effect.gen(function*() {
      const dying = Placer.makeEffect("dying", () =>
        Effect.sync((): ReadonlyArray<ScoredItem.ScoredItem["item"]> => {
          throw boom
        }))
      const exit = yield* Effect.exit(call(dying, "place"))
      assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
    }))

  it.effect("a placer that throws on one call places the next: nothing is left broken", () =>
    Effect.gen(function*() {
      let calls = 0
      const flaky = Placer.make("flaky", (xs) => {
        calls++
        if (calls === 1) throw new Error("first call")
        return xs.map((s) => s.item)
      })
      const first = yield* placerError(flaky, "place")
      assert.include(first.reason, "first call")
      const placed = yield* Placer.place(items).pipe(Effect.provide(flaky))
      assert.deepStrictEqual(placed.map((i) => i.content), ["a", "b", "c"])
    }))
})
