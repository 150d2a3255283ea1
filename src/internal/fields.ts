/**
 * Field helpers shared by the data-model schemas.
 *
 * @internal
 */
import { Effect, Option, Schema, SchemaGetter } from "effect"

/**
 * A key that may be absent, with a default applied both when decoding and when constructing,
 * and always written when encoding.
 */
export const withDefault = <S extends Schema.Top & Schema.WithoutConstructorDefault>(
  schema: S,
  value: () => S["Type"] & S["Encoded"] & S["~type.make.in"]
) =>
  schema.pipe(
    Schema.withDecodingDefaultKey(Effect.sync(value)),
    Schema.withConstructorDefault(Effect.sync(value))
  )

/**
 * An optional key whose absence may also be written as `null` on the wire, as other Cupel
 * implementations do ("integer or null"). `null` decodes to an absent key; an absent key is
 * encoded as absent.
 */
export const optionalNullable = <S extends Schema.Top>(schema: S) =>
  Schema.optionalKey(Schema.NullOr(schema)).pipe(
    Schema.decodeTo(Schema.optionalKey(Schema.toType(schema)), {
      decode: SchemaGetter.transformOptional(Option.filter((v) => v !== null)),
      encode: SchemaGetter.passthroughSupertype()
    })
  )

/**
 * An integer a double holds exactly: `Number.isSafeInteger`. Its message says the rule, so that
 * `1e20` is not reported as "not an integer" (it is one, but beyond what counts exactly).
 */
export const SafeInt = Schema.Number.check(
  Schema.isInt({ expected: `a safe integer (a whole number from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER})` })
)

