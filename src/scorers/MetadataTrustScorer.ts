/**
 * MetadataTrustScorer: the caller's trust value, read from `metadata["cupel:trust"]`.
 *
 * An item scores its trust value clamped to [0.0, 1.0]. The value may be a number (used as it
 * is) or a decimal string (parsed). The configured `defaultScore` applies instead when the key
 * is absent, when the value does not parse, when it is not finite (`"NaN"`, `"inf"`, `1e999`),
 * and when it is any other type: in that order, the finiteness check before the clamp.
 *
 * Strings are parsed with the grammar of Rust's `str::parse::<f64>()`, which the chapter names:
 * an optional sign, digits with an optional decimal point, an optional exponent; no surrounding
 * whitespace, no hexadecimal, no digit separators. `""` and `" 0.5"` therefore do not parse.
 *
 * @since 0.2.0
 */
import { Effect } from "effect"
import type { ContextItem } from "../ContextItem.ts"
import { InvalidConfigError } from "../InvalidConfigError.ts"
import * as Scorer from "./Scorer.ts"

/**
 * The scorer's name.
 *
 * @since 0.2.0
 * @category constants
 */
export const name = "metadata_trust"

/**
 * The metadata key the trust value is read from.
 *
 * @since 0.2.0
 * @category constants
 */
export const key = "cupel:trust"

/**
 * Options: `defaultScore`, in [0.0, 1.0], default 0.5.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  readonly defaultScore?: number
}

/** The `defaultScore` when none is given: the layer's and {@link make}'s alike. */
const standardDefaultScore = 0.5

// Infinity and NaN spellings are left out: they would only parse to non-finite values, which
// score the default exactly as a failed parse does.
const decimal = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/

/**
 * The trust value stored in a metadata value, or `undefined` when there is none that counts:
 * not a number or a decimal string, or not finite.
 *
 * @since 0.2.0
 * @category parsing
 */
export const parseTrust = (raw: unknown): number | undefined => {
  let value: number
  if (typeof raw === "number") value = raw
  else if (typeof raw === "bigint") value = Number(raw)
  else if (typeof raw === "string" && decimal.test(raw)) value = Number(raw)
  else return undefined
  return Number.isFinite(value) ? value : undefined
}

const scoreWith = (defaultScore: number, items: ReadonlyArray<ContextItem>): Float64Array => {
  const n = items.length
  const scores = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    const metadata = items[i]!.metadata
    // Own keys only: "cupel:trust" on a prototype is not the item's metadata.
    const value = Object.hasOwn(metadata, key) ? parseTrust(metadata[key]) : undefined
    scores[i] = value === undefined ? defaultScore : value < 0 ? 0 : value > 1 ? 1 : value
  }
  return scores
}

/**
 * A trust scorer. Fails with an `InvalidConfigError` when `defaultScore` is outside
 * [0.0, 1.0] (or NaN).
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<Scorer.Definition, InvalidConfigError> => {
  const defaultScore = options.defaultScore ?? standardDefaultScore
  if (!(defaultScore >= 0 && defaultScore <= 1)) {
    return Effect.fail(
      new InvalidConfigError({
        component: "MetadataTrustScorer",
        path: "defaultScore",
        rule: `must be in [0.0, 1.0], got ${String(defaultScore)}`
      })
    )
  }
  return Effect.succeed(withDefault(defaultScore))
}

const withDefault = (defaultScore: number): Scorer.Definition => ({
  name,
  scoreAll: (items) => Effect.sync(() => scoreWith(defaultScore, items))
})

/**
 * Provides the trust scorer with `defaultScore` 0.5 as the pipeline's `Scorer`.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = Scorer.layer(withDefault(standardDefaultScore))
