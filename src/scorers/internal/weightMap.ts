/**
 * Reading and checking the weight maps that KindScorer and TagScorer are configured with.
 *
 * @internal
 */
import { Effect } from "effect"
import { InvalidConfigError } from "../../InvalidConfigError.ts"

/** A weight per name, as a `Map` or a plain record. */
export type WeightsInput = ReadonlyMap<string, number> | Readonly<Record<string, number>>

/**
 * The entries of `weights` in their iteration order (a Map's insertion order, a record's key
 * order), each weight checked as both chapters require: non-negative first, then finite. With
 * `fold`, names that fold to the same key are refused: one of the two weights would be silently
 * lost. The returned map is keyed by the folded names.
 */
export const checkWeights = (
  component: string,
  option: string,
  weights: WeightsInput,
  fold: ((name: string) => string) | undefined
): Effect.Effect<Map<string, number>, InvalidConfigError> =>
  Effect.suspend(() => {
    const entries: ReadonlyArray<readonly [string, number]> = isMap(weights)
      ? Array.from(weights.entries())
      : Object.entries(weights)
    const out = new Map<string, number>()
    const spelled = new Map<string, string>()
    for (const [name, weight] of entries) {
      const path = `${option}[${JSON.stringify(name)}]`
      if (weight < 0) {
        return Effect.fail(new InvalidConfigError({ component, path, rule: `must be non-negative, got ${weight}` }))
      }
      if (typeof weight !== "number" || !Number.isFinite(weight)) {
        return Effect.fail(new InvalidConfigError({ component, path, rule: `must be finite, got ${String(weight)}` }))
      }
      const key = fold === undefined ? name : fold(name)
      const earlier = spelled.get(key)
      if (earlier !== undefined) {
        return Effect.fail(
          new InvalidConfigError({
            component,
            path,
            rule: `must not repeat ${JSON.stringify(earlier)}: names are compared case-insensitively`
          })
        )
      }
      spelled.set(key, name)
      out.set(key, weight)
    }
    return Effect.succeed(out)
  })

const isMap = (weights: WeightsInput): weights is ReadonlyMap<string, number> => weights instanceof Map
