import { assert, describe, it } from "@effect/vitest"
import { DateTime, Duration, Effect } from "effect"
import { TestClock } from "effect/testing"
import fc from "fast-check"
import { InvalidConfigError } from "../../src/InvalidConfigError.ts"
import * as DecayScorer from "../../src/scorers/DecayScorer.ts"
import { items as arbitraryItems } from "../support/scorerArbitraries.ts"
import { scorerItem as item } from "../support/scorerItems.ts"
import * as Spec from "../support/specScorers.ts"

const reference = "2025-01-01T12:00:00Z"
const referenceTime = DateTime.makeUnsafe(Date.parse(reference))
const steps = DecayScorer.step([
  { maxAge: "1 hour", score: 0.9 },
  { maxAge: "24 hours", score: 0.5 },
  { maxAge: "72 hours", score: 0.1 }
])
const at = (timestamp: string) => item(timestamp, { timestamp })
const scoresOf = (options: DecayScorer.Options, items: Parameters<typeof Spec.runScorer>[1]) =>
  Effect.flatMap(DecayScorer.make(options), (s) => s.scoreAll(items)).pipe(Effect.map((s) => Array.from(s)))
const hoursBefore = (h: number) => new Date(Date.parse(reference) - h * 3_600_000).toISOString()

describe("DecayScorer — chapter rules", () => {
  it.effect("is named \"decay\"", () =>
    Effect.map(DecayScorer.make({ curve: DecayScorer.window("1 hour") }), (s) => assert.strictEqual(s.name, "decay")))

  it.effect("Exponential, one half-life age: 0.5 (vector decay-exponential-half-life)", () =>
    Effect.map(scoresOf({ curve: DecayScorer.exponential(Duration.seconds(86400)), referenceTime }, [at("2024-12-31T12:00:00Z")]), (s) =>
      assert.deepStrictEqual(s, [0.5])))

  it.effect("Exponential: 1.0 at age zero, 0.25 at two half-lives, approaches 0 but never negative", () =>
    Effect.map(
      scoresOf({ curve: DecayScorer.exponential("24 hours"), referenceTime }, [at(reference), at(hoursBefore(48)), at("1970-01-01T00:00:00Z")]),
      (s) => {
        assert.deepStrictEqual(s.slice(0, 2), [1, 0.25])
        assert.isAtLeast(s[2]!, 0)
        assert.isBelow(s[2]!, 1e-100)
      }
    ))

  it.effect("future-dated item: age clamps to zero, 1.0 (vector decay-future-dated)", () =>
    Effect.map(scoresOf({ curve: DecayScorer.exponential("24 hours"), referenceTime }, [at("2025-01-02T00:00Z")]), (s) =>
      assert.deepStrictEqual(s, [1])))

  it.effect("future-dated item: the clamp comes before every curve (Step: first window; Window: 1.0)", () =>
    Effect.gen(function*() {
      const future = [at("2025-06-01T00:00:00Z")]
      assert.deepStrictEqual(yield* scoresOf({ curve: steps, referenceTime }, future), [0.9])
      assert.deepStrictEqual(yield* scoresOf({ curve: DecayScorer.window("1 hour"), referenceTime }, future), [1])
    }))

  it.effect("null timestamp: nullTimestampScore regardless of the curve; default 0.5 (vector decay-null-timestamp)", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* scoresOf({ curve: DecayScorer.exponential("1 day"), referenceTime }, [item("none")]), [0.5])
      assert.deepStrictEqual(yield* scoresOf({ curve: steps, nullTimestampScore: 0.2, referenceTime }, [item("none")]), [0.2])
    }))

  it.effect("Step, age 6h: second window's score (vector decay-step-second-window)", () =>
    Effect.map(scoresOf({ curve: steps, referenceTime }, [at("2025-01-01T06:00:00Z")]), (s) => assert.deepStrictEqual(s, [0.5])))

  it.effect("Step boundaries are strict: age 0h → 0.9, 1h → 0.5, 24h → 0.1, 72h → 0.1 (falls through to the last)", () =>
    Effect.map(scoresOf({ curve: steps, referenceTime }, [0, 1, 24, 72, 1000].map((h) => at(hoursBefore(h)))), (s) =>
      assert.deepStrictEqual(s, [0.9, 0.5, 0.1, 0.1, 0.1])))

  it.effect("Window, age exactly maxAge: 0.0 (vector decay-window-at-boundary); just below: 1.0", () =>
    Effect.gen(function*() {
      const curve = DecayScorer.window(Duration.seconds(21600))
      assert.deepStrictEqual(yield* scoresOf({ curve, referenceTime }, [at("2025-01-01T06:00:00Z")]), [0])
      assert.deepStrictEqual(yield* scoresOf({ curve, referenceTime }, [at("2025-01-01T06:00:00.001Z")]), [1])
    }))

  it.effect("reads the time from Effect's Clock when no referenceTime is given (TestClock)", () =>
    Effect.gen(function*() {
      const scorer = yield* DecayScorer.make({ curve: DecayScorer.exponential("24 hours") })
      const items = [at("2024-12-31T12:00:00Z")]
      yield* TestClock.setTime(Date.parse(reference))
      assert.deepStrictEqual(Array.from(yield* scorer.scoreAll(items)), [0.5])
      // The same scorer, later: the clock is read on every scoring, not once at construction.
      yield* TestClock.adjust("24 hours")
      assert.deepStrictEqual(Array.from(yield* scorer.scoreAll(items)), [0.25])
    }))

  it.effect("a fixed referenceTime ignores the Clock", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(0)
      assert.deepStrictEqual(yield* scoresOf({ curve: DecayScorer.exponential("24 hours"), referenceTime }, [at("2024-12-31T12:00:00Z")]), [0.5])
    }))

  it.effect("construction: halfLife must be positive and finite, naming curve.halfLife", () =>
    Effect.gen(function*() {
      for (const halfLife of [0, -5, NaN, Infinity, "Infinity", Duration.zero] as const) {
        const error = yield* Effect.flip(DecayScorer.make({ curve: DecayScorer.exponential(halfLife) }))
        assert.instanceOf(error, InvalidConfigError)
        assert.deepStrictEqual([error.component, error.path], ["DecayScorer", "curve.halfLife"])
      }
    }))

  it.effect("construction: Window maxAge must be positive and finite", () =>
    Effect.gen(function*() {
      for (const maxAge of [0, -1, NaN, Infinity] as const) {
        const error = yield* Effect.flip(DecayScorer.make({ curve: DecayScorer.window(maxAge) }))
        assert.strictEqual(error.path, "curve.maxAge")
      }
    }))

  it.effect("construction: Step needs at least one window, no zero-width window, ascending maxAge, scores in [0, 1]", () =>
    Effect.gen(function*() {
      const paths: Array<string> = []
      for (const windows of [
        [],
        [{ maxAge: 0, score: 0.5 }],
        [{ maxAge: "1 hour", score: 0.5 }, { maxAge: "-1 hour", score: 0.5 }],
        [{ maxAge: "2 hours", score: 0.5 }, { maxAge: "1 hour", score: 0.4 }],
        [{ maxAge: "1 hour", score: 0.5 }, { maxAge: "1 hour", score: 0.4 }],
        [{ maxAge: "1 hour", score: 1.5 }],
        [{ maxAge: "1 hour", score: NaN }]
      ] as const) {
        const error = yield* Effect.flip(DecayScorer.make({ curve: DecayScorer.step(windows) }))
        paths.push(error.path)
      }
      assert.deepStrictEqual(paths, [
        "curve.windows",
        "curve.windows[0].maxAge",
        "curve.windows[1].maxAge",
        "curve.windows[1].maxAge",
        "curve.windows[1].maxAge",
        "curve.windows[0].score",
        "curve.windows[0].score"
      ])
    }))

  it.effect("construction: nullTimestampScore must be in [0.0, 1.0]", () =>
    Effect.gen(function*() {
      for (const nullTimestampScore of [-0.01, 1.01, NaN]) {
        const error = yield* Effect.flip(DecayScorer.make({ curve: DecayScorer.window("1 hour"), nullTimestampScore }))
        assert.strictEqual(error.path, "nullTimestampScore")
      }
    }))
})

const durationMs = fc.oneof(fc.constantFrom(1, 1000, 3_600_000, 86_400_000, 21_600_000), fc.integer({ min: 1, max: 1e11 }))
const curve: fc.Arbitrary<readonly [DecayScorer.Curve, Spec.SpecCurve]> = fc.oneof(
  durationMs.map((ms) => [DecayScorer.exponential(ms), { _tag: "Exponential", halfLifeMs: ms }] as const),
  durationMs.map((ms) => [DecayScorer.window(ms), { _tag: "Window", maxAgeMs: ms }] as const),
  fc.uniqueArray(fc.tuple(durationMs, fc.double({ min: 0, max: 1, noNaN: true })), { selector: ([ms]) => ms, minLength: 1, maxLength: 5 }).map((ws) => {
    const sorted = [...ws].sort(([a], [b]) => a - b)
    return [
      DecayScorer.step(sorted.map(([ms, score]) => ({ maxAge: ms, score }))),
      { _tag: "Step", windows: sorted.map(([ms, score]) => ({ maxAgeMs: ms, score })) }
    ] as const
  })
)

describe("DecayScorer — against the chapter's pseudocode", () => {
  it("equals DECAY-SCORE exactly for random curves, reference times and lists", () =>
    fc.assert(
      fc.asyncProperty(
        arbitraryItems(30),
        curve,
        fc.oneof(fc.constantFrom(1_700_000_000_000, 0), fc.integer({ min: 1_690_000_000_000, max: 1_710_000_000_000 })),
        fc.double({ min: 0, max: 1, noNaN: true }),
        async (items, [libraryCurve, specCurve], now, nullTimestampScore) => {
          const scorer = await Effect.runPromise(DecayScorer.make({ curve: libraryCurve, nullTimestampScore, referenceTime: DateTime.makeUnsafe(now) }))
          assert.deepStrictEqual(await Spec.runScorer(scorer, items), Spec.scoreEach(Spec.decay({ now, curve: specCurve, nullTimestampScore }), items))
        }
      ),
      { numRuns: 400 }
    ))
})
