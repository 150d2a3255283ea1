/**
 * The options the state stores share (`MemoryStore`, `RedisStore`): durations that must be
 * positive, where an infinite one means "no limit".
 *
 * @internal
 */
import { Duration, Effect, Option } from "effect"
import { InvalidConfigError } from "../../InvalidConfigError.ts"

/**
 * A positive duration in milliseconds (`Infinity` for an infinite one), or the default when the
 * option is absent; an `InvalidConfigError` naming the option otherwise.
 */
export const positiveMillis = (
  component: string,
  path: string,
  input: Duration.Input | undefined,
  fallback: number
): Effect.Effect<number, InvalidConfigError> => {
  if (input === undefined) return Effect.succeed(fallback)
  const fail = (rule: string) => Effect.fail(new InvalidConfigError({ component, path, rule }))
  // Duration reads NaN as zero: refuse it before it is converted.
  if (typeof input === "number" && Number.isNaN(input)) return fail("must be a positive duration, got NaN")
  const duration = Duration.fromInput(input)
  if (Option.isNone(duration)) return fail(`must be a duration, got ${JSON.stringify(input)}`)
  if (!Duration.isFinite(duration.value)) {
    return Duration.isNegative(duration.value)
      ? fail("must be a positive duration, got -Infinity")
      : Effect.succeed(Number.POSITIVE_INFINITY)
  }
  const millis = Duration.toMillis(duration.value)
  return millis > 0 ? Effect.succeed(millis) : fail(`must be a positive duration, got ${Duration.format(duration.value)}`)
}
