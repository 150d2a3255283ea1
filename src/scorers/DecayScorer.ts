/**
 * DecayScorer: scores that fall as items age, against a reference time.
 *
 * An item's age is the reference time minus its timestamp, clamped at zero (a future-dated
 * item is as fresh as can be); the curve turns the age into a score:
 *
 * - {@link exponential}`(halfLife)` — `2^(−age / halfLife)`: 1.0 when new, 0.5 at one half-life.
 * - {@link step}`(windows)` — the score of the first window whose `maxAge` is strictly greater
 *   than the age (an age on a boundary falls into the older window); past every boundary, the
 *   last window's score.
 * - {@link window}`(maxAge)` — 1.0 for ages in `[0, maxAge)`, 0.0 from `maxAge` on.
 *
 * Items without a timestamp score `nullTimestampScore` (default 0.5, in [0.0, 1.0]).
 *
 * The reference time is read from Effect's `Clock` each time the list is scored (the
 * specification's injected time provider; in tests, `TestClock`), unless a fixed
 * `referenceTime` is given. All options are checked when the scorer is made.
 *
 * @since 0.2.0
 */
import { Clock, DateTime, Duration, Effect, Option } from "effect"
import type { ContextItem } from "../ContextItem.ts"
import { InvalidConfigError } from "../InvalidConfigError.ts"
import type * as Scorer from "./Scorer.ts"

/**
 * The scorer's name.
 *
 * @since 0.2.0
 * @category constants
 */
export const name = "decay"

const component = "DecayScorer"

/**
 * One window of a step curve: ages below `maxAge` (and at or above the previous window's)
 * score `score`.
 *
 * @since 0.2.0
 * @category models
 */
export interface StepWindow {
  readonly maxAge: Duration.Input
  readonly score: number
}

/**
 * A decay curve, as data; {@link make} checks it.
 *
 * @since 0.2.0
 * @category models
 */
export type Curve =
  | { readonly _tag: "Exponential"; readonly halfLife: Duration.Input }
  | { readonly _tag: "Step"; readonly windows: ReadonlyArray<StepWindow> }
  | { readonly _tag: "Window"; readonly maxAge: Duration.Input }

/**
 * An exponential curve: the score halves every `halfLife` (which must be positive and finite).
 *
 * @since 0.2.0
 * @category constructors
 */
export const exponential = (halfLife: Duration.Input): Curve => ({ _tag: "Exponential", halfLife })

/**
 * A step curve: `windows` from youngest to oldest, each `maxAge` positive, finite and greater
 * than the one before, each score in [0.0, 1.0]; at least one window.
 *
 * @since 0.2.0
 * @category constructors
 */
export const step = (windows: ReadonlyArray<StepWindow>): Curve => ({ _tag: "Step", windows })

/**
 * A window curve: 1.0 below `maxAge` (positive and finite), 0.0 from it on.
 *
 * @since 0.2.0
 * @category constructors
 */
export const window = (maxAge: Duration.Input): Curve => ({ _tag: "Window", maxAge })

/**
 * Options: the `curve`; `nullTimestampScore` (default 0.5); `referenceTime`, a fixed "now"
 * (default: Effect's `Clock`, read on every scoring).
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  readonly curve: Curve
  readonly nullTimestampScore?: number
  readonly referenceTime?: DateTime.DateTime
}

/** A checked curve, durations in milliseconds (the unit of item ages). */
type Checked =
  | { readonly _tag: "Exponential"; readonly halfLifeSeconds: number }
  | { readonly _tag: "Step"; readonly maxAgeMillis: Float64Array; readonly scores: Float64Array }
  | { readonly _tag: "Window"; readonly maxAgeMillis: number }

const fail = (path: string, rule: string) => Effect.fail(new InvalidConfigError({ component, path, rule }))

/** A positive, finite duration in milliseconds, or why the input is not one. */
const positiveMillis = (input: Duration.Input): number | string => {
  // Duration reads NaN as zero: refuse it before it is converted.
  if (typeof input === "number" && Number.isNaN(input)) return "must be a positive, finite duration, got NaN"
  const duration = Duration.fromInput(input)
  if (Option.isNone(duration)) return `must be a duration, got ${JSON.stringify(input)}`
  if (!Duration.isFinite(duration.value)) return "must be a positive, finite duration, got an infinite one"
  const millis = Duration.toMillis(duration.value)
  return millis > 0 ? millis : `must be a positive duration, got ${Duration.format(duration.value)}`
}

const checkCurve = (curve: Curve): Effect.Effect<Checked, InvalidConfigError> => {
  switch (curve._tag) {
    case "Exponential": {
      const millis = positiveMillis(curve.halfLife)
      return typeof millis === "string"
        ? fail("curve.halfLife", millis)
        : Effect.succeed({ _tag: "Exponential", halfLifeSeconds: millis / 1000 })
    }
    case "Window": {
      const millis = positiveMillis(curve.maxAge)
      return typeof millis === "string"
        ? fail("curve.maxAge", millis)
        : Effect.succeed({ _tag: "Window", maxAgeMillis: millis })
    }
    case "Step": {
      const windows = curve.windows
      if (windows.length === 0) return fail("curve.windows", "must hold at least one window")
      const maxAgeMillis = new Float64Array(windows.length)
      const scores = new Float64Array(windows.length)
      for (let w = 0; w < windows.length; w++) {
        const millis = positiveMillis(windows[w]!.maxAge)
        if (typeof millis === "string") return fail(`curve.windows[${w}].maxAge`, millis)
        if (w > 0 && !(millis > maxAgeMillis[w - 1]!)) {
          return fail(
            `curve.windows[${w}].maxAge`,
            `must be greater than the previous window's (windows go from youngest to oldest), got ${millis} ms after ${
              maxAgeMillis[w - 1]
            } ms`
          )
        }
        const score = windows[w]!.score
        if (!(score >= 0 && score <= 1)) {
          return fail(`curve.windows[${w}].score`, `must be in [0.0, 1.0], got ${String(score)}`)
        }
        maxAgeMillis[w] = millis
        scores[w] = score
      }
      return Effect.succeed({ _tag: "Step", maxAgeMillis, scores })
    }
  }
}

/** The curve's score for an age in milliseconds (already clamped at zero). */
const applyCurve = (curve: Checked, ageMillis: number): number => {
  switch (curve._tag) {
    case "Exponential":
      // In seconds, as the chapter writes it, so that the quotient is rounded the same way.
      return Math.pow(2, -(ageMillis / 1000) / curve.halfLifeSeconds)
    case "Window":
      return ageMillis < curve.maxAgeMillis ? 1 : 0
    case "Step": {
      const { maxAgeMillis, scores } = curve
      const last = maxAgeMillis.length - 1
      for (let w = 0; w < last; w++) if (maxAgeMillis[w]! > ageMillis) return scores[w]!
      return scores[last]!
    }
  }
}

const scoreWith = (
  curve: Checked,
  nullTimestampScore: number,
  now: number,
  items: ReadonlyArray<ContextItem>
): Float64Array => {
  const n = items.length
  const scores = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    const timestamp = items[i]!.timestamp
    if (timestamp === undefined) {
      scores[i] = nullTimestampScore
      continue
    }
    const age = now - timestamp.epochMilliseconds
    // The clamp comes before the curve, as the chapter requires: future-dated items are age zero.
    scores[i] = applyCurve(curve, age > 0 ? age : 0)
  }
  return scores
}

/**
 * A decay scorer. Fails with an `InvalidConfigError` naming the option when a half-life or
 * maximum age is not a positive, finite duration, when a step curve has no windows, windows out
 * of order or a score outside [0.0, 1.0], or when `nullTimestampScore` is outside [0.0, 1.0].
 *
 * @example
 * ```ts
 * import { DecayScorer } from "effect-cupel"
 *
 * const scorer = DecayScorer.make({ curve: DecayScorer.exponential("24 hours") })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<Scorer.Definition, InvalidConfigError> =>
  Effect.gen(function*() {
    const nullTimestampScore = options.nullTimestampScore ?? 0.5
    if (!(nullTimestampScore >= 0 && nullTimestampScore <= 1)) {
      return yield* fail("nullTimestampScore", `must be in [0.0, 1.0], got ${String(nullTimestampScore)}`)
    }
    const curve = yield* checkCurve(options.curve)
    const fixed = options.referenceTime === undefined ? undefined : DateTime.toEpochMillis(options.referenceTime)
    const now: Effect.Effect<number> = fixed === undefined ? Clock.currentTimeMillis : Effect.succeed(fixed)
    return {
      name,
      scoreAll: (items) => Effect.map(now, (millis) => scoreWith(curve, nullTimestampScore, millis, items))
    }
  })
