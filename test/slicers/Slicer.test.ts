import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import { ContextItem } from "../../src/ContextItem.ts"
import type { ScoredItem } from "../../src/ScoredItem.ts"
import * as Slicer from "../../src/slicers/Slicer.ts"
import { SlicerError } from "../../src/slicers/SlicerError.ts"

const sorted: ReadonlyArray<ScoredItem> = [
  { item: new ContextItem({ content: "a", tokens: 1 }), score: 0.9 },
  { item: new ContextItem({ content: "b", tokens: 1 }), score: 0.5 }
]
const budget: Slicer.Budget = { maxTokens: 10, targetTokens: 10 }

/** Values whose `String` throws: no prototype, or a `toString` that throws. */
const unshowable = (): ReadonlyArray<unknown> => [
  Object.create(null),
  { toString: (): string => { throw new Error("nope") } }
]

/** Runs a slicer and returns its SlicerError; a success, another error or a defect fails the test. */
const slicerError = (slicer: Slicer.Definition) =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(slicer.slice(sorted, budget))
    if (Exit.isSuccess(exit)) return assert.fail("expected a SlicerError, got success")
    const error = Cause.findErrorOption(exit.cause)
    if (error._tag === "None") return assert.fail(`expected a SlicerError, got ${Cause.pretty(exit.cause)}`)
    if (!(error.value instanceof SlicerError)) return assert.fail(`expected a SlicerError, got ${error.value._tag}`)
    return error.value
  })

describe("Slicer — describing a thrown value never throws (one describer)", () => {
  it.effect("Slicer.make and Slicer.fromIndices: a thrown value whose String throws fails with SlicerError, not a defect", () =>
    Effect.gen(function*() {
      for (const value of unshowable()) {
        const made = yield* slicerError(Slicer.make("nasty", () => {
          throw value
        }))
        const fromIndices = yield* slicerError(Slicer.fromIndices("nasty", () => {
          throw value
        }))
        for (const error of [made, fromIndices]) {
          assert.strictEqual(error.slicer, "nasty")
          assert.strictEqual(error.reason, "it threw: a value that cannot be shown")
          assert.strictEqual(error.cause, value)
        }
      }
    }))

  it.effect("thrown Errors are described with their name, strings quoted, as placers describe them", () =>
    Effect.gen(function*() {
      const typed = yield* slicerError(Slicer.make("typed", () => {
        throw new RangeError("too many")
      }))
      assert.strictEqual(typed.reason, "it threw: RangeError: too many")
      const stringly = yield* slicerError(Slicer.fromIndices("stringly", () => {
        throw "out of cheese"
      }))
      assert.strictEqual(stringly.reason, `it threw: "out of cheese"`)
    }))
})
