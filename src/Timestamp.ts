/**
 * Timestamps: RFC 3339 strings on the wire, `DateTime.Utc` instants in memory.
 *
 * The specification compares timestamps as instants, never as text:
 * `2024-06-01T02:00:00+02:00` and `2024-06-01T00:00:00Z` are the same moment. Decoding
 * normalises every offset to UTC; encoding writes `YYYY-MM-DDTHH:MM:SS.sssZ`. RFC 3339 writes
 * four-digit years only, so an instant outside the years 0000–9999 (which a `DateTime` can hold)
 * fails to encode, rather than being written in a form no RFC 3339 reader, this one included,
 * accepts.
 *
 * @since 0.1.0
 */
import { DateTime, Effect, Schema, SchemaGetter, SchemaIssue } from "effect"
import * as Rfc3339 from "./internal/rfc3339.ts"

/** The first and last instants RFC 3339 can write, in epoch milliseconds. */
const firstWritable = Date.parse("0000-01-01T00:00:00.000Z")
const lastWritable = Date.parse("9999-12-31T23:59:59.999Z")

/**
 * An RFC 3339 date-time string with an explicit offset, decoded to a `DateTime.Utc`.
 *
 * Strings without an offset (`2024-01-01T00:00:00`) and date-only strings are rejected: they do
 * not name one instant. Seconds may be omitted (`2024-01-01T00:00Z`), as TOML 1.1 allows.
 * Encoding an instant outside the years 0000–9999 fails: RFC 3339 cannot write it.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Timestamp } from "effect-cupel"
 *
 * const utc = Schema.decodeUnknownSync(Timestamp.Timestamp)("2024-06-01T02:00:00+02:00")
 * // DateTime.Utc(2024-06-01T00:00:00.000Z)
 * ```
 *
 * @since 0.1.0
 * @category schemas
 */
export const Timestamp = Schema.String.pipe(
  Schema.decodeTo(Schema.DateTimeUtc, {
    decode: SchemaGetter.transformEffect((s: string) => {
      const parsed = Rfc3339.parse(s)
      return parsed.ok
        ? Effect.succeed(DateTime.makeUnsafe(parsed.epochMillis))
        : Effect.fail(new SchemaIssue.InvalidValue({ message: parsed.message }, s))
    }),
    encode: SchemaGetter.transformEffect((utc: DateTime.Utc) => {
      const millis = utc.epochMilliseconds
      return millis >= firstWritable && millis <= lastWritable
        ? Effect.succeed(DateTime.formatIso(utc))
        : Effect.fail(
          new SchemaIssue.InvalidValue(
            { message: `RFC 3339 writes the years 0000 to 9999 only; ${DateTime.formatIso(utc)} is outside them` },
            utc
          )
        )
    })
  })
).annotate({ description: "an RFC 3339 date-time with an offset" })

/**
 * Parses an RFC 3339 date-time string into a `DateTime.Utc`, failing with a `SchemaError` that
 * says what is wrong with it.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode = Schema.decodeUnknownEffect(Timestamp)

/**
 * Makes a timestamp from epoch milliseconds (UTC).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromEpochMillis = (millis: number): DateTime.Utc => DateTime.makeUnsafe(millis)
