import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer } from "effect"
import * as CompositeScorer from "../../src/scorers/CompositeScorer.ts"
import * as ReflexiveScorer from "../../src/scorers/ReflexiveScorer.ts"
import * as ScaledScorer from "../../src/scorers/ScaledScorer.ts"
import * as Score from "../../src/stages/Score.ts"
import * as Scorer from "../../src/scorers/Scorer.ts"
import { ScorerError } from "../../src/scorers/ScorerError.ts"
import { scorerItem as item } from "../support/scorerItems.ts"

const items = [item("a", { hint: 0.1 }), item("b", { hint: 0.9 }), item("c", { hint: 0.5 })]

/** Values whose `String` throws: no prototype, or a `toString` that throws. */
const unshowable = (): ReadonlyArray<unknown> => [
  Object.create(null),
  { toString: (): string => { throw new Error("nope") } }
]

/** Runs a scorer and returns its ScorerError; a success or a defect fails the test. */
const scorerError = (scorer: Scorer.Definition, list = items) =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(scorer.scoreAll(list))
    if (Exit.isSuccess(exit)) return assert.fail("expected a ScorerError, got success")
    const error = Cause.findErrorOption(exit.cause)
    if (error._tag === "None") return assert.fail(`expected a ScorerError, got ${Cause.pretty(exit.cause)}`)
    assert.instanceOf(error.value, ScorerError)
    return error.value
  })

describe("Scorer — describing a thrown or returned value never throws (one describer)", () => {
  it.effect("Scorer.make: a thrown value whose String throws fails with ScorerError, not a defect", () =>
    Effect.gen(function*() {
      for (const value of unshowable()) {
        const error = yield* scorerError(Scorer.make("nasty", () => {
          throw value
        }))
        assert.strictEqual(error.scorer, "nasty")
        assert.strictEqual(error.index, 0)
        assert.strictEqual(error.reason, "it threw: a value that cannot be shown")
        assert.strictEqual(error.cause, value)
      }
    }))

  it.effect("Scorer.make: a returned non-number whose String throws fails with ScorerError naming the item", () =>
    Effect.gen(function*() {
      for (const value of unshowable()) {
        const error = yield* scorerError(Scorer.make("nasty", (i) => i.content === "b" ? value as number : 1))
        assert.strictEqual(error.index, 1)
        assert.strictEqual(error.reason, "it returned a value that cannot be shown, not a number")
      }
    }))

  it.effect("Scorer.makeAll: a thrown value whose String throws fails with ScorerError", () =>
    Effect.gen(function*() {
      for (const value of unshowable()) {
        const error = yield* scorerError(Scorer.makeAll("nasty", () => {
          throw value
        }))
        assert.strictEqual(error.reason, "it threw: a value that cannot be shown")
      }
    }))

  it.effect("Scorer.makeAll: a score whose String throws fails with ScorerError naming the item", () =>
    Effect.gen(function*() {
      for (const value of unshowable()) {
        const error = yield* scorerError(Scorer.makeAll("nasty", () => [1, 2, value as number]))
        assert.strictEqual(error.index, 2)
        assert.strictEqual(error.reason, "its score is a value that cannot be shown, not a number")
      }
    }))

  it.effect("Scorer.check: a list that is no list, with a throwing toString, fails with ScorerError", () =>
    Effect.gen(function*() {
      const notAList = Object.assign(() => 0, { toString: (): string => { throw new Error("nope") } })
      const error = yield* Effect.flip(Scorer.check("nasty", items, notAList as unknown as Scorer.Scores))
      assert.strictEqual(error.reason, "it returned a value that cannot be shown, not a list of scores")
    }))

  it.effect("thrown Errors are described with their name, as placers describe them", () =>
    Effect.gen(function*() {
      const error = yield* scorerError(Scorer.make("typed", () => {
        throw new TypeError("no score")
      }))
      assert.strictEqual(error.reason, "it threw: TypeError: no score")
      const stringly = yield* scorerError(Scorer.makeAll("stringly", () => {
        throw "out of cheese"
      }))
      assert.strictEqual(stringly.reason, `it threw: "out of cheese"`)
    }))

  it.effect("Scorer.makeEffect: a synchronous throw fails with ScorerError, not a defect", () =>
    Effect.gen(function*() {
      const boom = new Error("the model is down")
      const error = yield* scorerError(Scorer.makeEffect("remote", () => {
        throw boom
      }))
      assert.strictEqual(error.scorer, "remote")
      assert.strictEqual(error.reason, "it threw: Error: the model is down")
      assert.strictEqual(error.cause, boom)
    }))

  it.effect("Scorer.makeEffect: a defect inside the returned effect stays a defect", () =>
    Effect.gen(function*() {
      const dying = Scorer.makeEffect("dying", () =>
        Effect.sync((): Scorer.Scores => {
          throw new Error("inside")
        }))
      const exit = yield* Effect.exit(dying.scoreAll(items))
      assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
    }))

  it.effect("Scorer.makeEffect: its scores are checked (NaN fails naming the item)", () =>
    Effect.gen(function*() {
      const error = yield* scorerError(Scorer.makeEffect("nan", (xs) => Effect.succeed(xs.map(() => NaN))))
      assert.deepStrictEqual([error.scorer, error.index], ["nan", 0])
    }))
})

describe("Scorer — scores are checked where they enter from outside", () => {
  const handMade = (name: string, scores: ReadonlyArray<unknown>): Scorer.Definition => ({
    name,
    scoreAll: () => Effect.succeed(scores as ReadonlyArray<number>)
  })
  const stage = (scorer: Scorer.Definition) => Effect.flip(Score.score(items).pipe(Effect.provide(Scorer.layer(scorer))))

  it.effect("the Score stage refuses NaN from a hand-made scorer, naming it and the item", () =>
    Effect.gen(function*() {
      const error = yield* stage(handMade("hand", [0, NaN, 1]))
      assert.deepStrictEqual([error.scorer, error.index, error.content], ["hand", 1, "b"])
    }))

  it.effect("the Score stage refuses a wrong number of scores and non-numbers from a hand-made scorer", () =>
    Effect.gen(function*() {
      assert.match((yield* stage(handMade("short", [0]))).reason, /1 scores for 3 items/)
      assert.strictEqual((yield* stage(handMade("stringly", [0, "1", 1]))).index, 1)
    }))

  it.effect("a composite names a hand-made child's NaN or non-number, found in its summing loop", () =>
    Effect.gen(function*() {
      for (const bad of [NaN, undefined, "0.5", Object.create(null)]) {
        const composite = yield* CompositeScorer.make([
          { scorer: ReflexiveScorer.make(), weight: 1 },
          { scorer: handMade("child", [0, 0, bad]), weight: 1 }
        ])
        const error = yield* scorerError(composite)
        assert.deepStrictEqual([error.scorer, error.index], ["child", 2])
      }
    }))

  it.effect("a hand-made grandchild's NaN is named through two composites", () =>
    Effect.gen(function*() {
      const inner = yield* CompositeScorer.make([{ scorer: handMade("grandchild", [NaN, 0, 0]), weight: 1 }])
      const outer = yield* CompositeScorer.make([{ scorer: inner, weight: 1 }])
      const error = yield* scorerError(outer)
      assert.deepStrictEqual([error.scorer, error.index], ["grandchild", 0])
    }))

  it.effect("a scaled scorer names its hand-made inner scorer's NaN, which the 0.5 fill would otherwise hide", () =>
    Effect.gen(function*() {
      // Every other score equal: min = max, and all four would score 0.5, NaN included.
      const error = yield* scorerError(ScaledScorer.make(handMade("inner", [1, 1, NaN])))
      assert.deepStrictEqual([error.scorer, error.index], ["inner", 2])
    }))

  it.effect("a composite and a scaled scorer refuse a child's wrong number of scores under the child's name", () =>
    Effect.gen(function*() {
      const composite = yield* CompositeScorer.make([{ scorer: handMade("short", [0]), weight: 1 }])
      assert.strictEqual((yield* scorerError(composite)).scorer, "short")
      assert.strictEqual((yield* scorerError(ScaledScorer.make(handMade("short", [0])))).scorer, "short")
    }))

  it.effect("a pipeline layer over a composite of custom scorers still scores (the checks pass good scores)", () =>
    Effect.gen(function*() {
      const composite = yield* CompositeScorer.make([
        { scorer: Scorer.make("half", () => 0.5), weight: 1 },
        { scorer: Scorer.makeAll("hint", (xs) => xs.map((x) => x.futureRelevanceHint ?? 0)), weight: 1 }
      ])
      const scores = yield* Score.score(items).pipe(Effect.provide(Layer.succeed(Scorer.Scorer, composite)))
      assert.deepStrictEqual(Array.from(scores), [0.3, 0.7, 0.5])
    }))
})
