/**
 * MetadataKeyScorer: a multiplier for items whose metadata carries a given value at a given key.
 *
 * An item scores `boost` when `metadata[key]` equals `value`, and the neutral multiplier 1.0
 * otherwise (key absent, value different). Scores are not clamped: the scorer is meant as a
 * factor inside a `CompositeScorer`. `boost` must be finite and greater than 0.0.
 *
 * The comparison is string to string. Metadata is untyped here, as in .NET, so a number,
 * bigint or boolean value is compared by its JavaScript string form (`1.5` as `"1.5"`, `true`
 * as `"true"`); any other value (an object, `null`) never matches.
 *
 * @since 0.2.0
 */
import { Effect } from "effect"
import type { ContextItem } from "../ContextItem.ts"
import { InvalidConfigError } from "../InvalidConfigError.ts"
import type * as Scorer from "./Scorer.ts"

/**
 * The scorer's name.
 *
 * @since 0.2.0
 * @category constants
 */
export const name = "metadata_key"

/**
 * The score of items that do not match: a neutral multiplier.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultMultiplier = 1.0

/**
 * Options: the metadata `key` to read, the `value` to match, the `boost` for a match.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  readonly key: string
  readonly value: string
  readonly boost: number
}

/**
 * The string a metadata value compares as, or `undefined` when it has none.
 *
 * @since 0.2.0
 * @category parsing
 */
export const asString = (raw: unknown): string | undefined =>
  typeof raw === "string"
    ? raw
    : typeof raw === "number" || typeof raw === "bigint" || typeof raw === "boolean"
    ? String(raw)
    : undefined

const scoreWith = (options: Options, items: ReadonlyArray<ContextItem>): Float64Array => {
  const n = items.length
  const scores = new Float64Array(n)
  const { boost, key, value } = options
  for (let i = 0; i < n; i++) {
    const metadata = items[i]!.metadata
    scores[i] = Object.hasOwn(metadata, key) && asString(metadata[key]) === value ? boost : defaultMultiplier
  }
  return scores
}

/**
 * A metadata-key scorer. Fails with an `InvalidConfigError` when `boost` is zero, negative, NaN
 * or infinite.
 *
 * @example
 * ```ts
 * import { MetadataKeyScorer } from "effect-cupel"
 *
 * const scorer = MetadataKeyScorer.make({ key: "cupel:priority", value: "high", boost: 1.5 })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<Scorer.Definition, InvalidConfigError> => {
  const { boost } = options
  if (!(Number.isFinite(boost) && boost > 0)) {
    return Effect.fail(
      new InvalidConfigError({
        component: "MetadataKeyScorer",
        path: "boost",
        rule: `must be finite and greater than 0.0, got ${String(boost)}`
      })
    )
  }
  const config: Options = { key: options.key, value: options.value, boost }
  return Effect.succeed({ name, scoreAll: (items) => Effect.sync(() => scoreWith(config, items)) })
}
