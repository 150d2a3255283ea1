/**
 * Bare strings that stand for configuration objects, for the slicer and placer schemas.
 *
 * @internal
 */
import { Schema, SchemaGetter } from "effect"

/**
 * Bare strings standing for the objects `{ type }`: `"greedy"` for `{ "type": "greedy" }`. One
 * union member for all of them, so that an unknown string gets one message listing them; listed
 * after the object forms, so that encoding always writes the object.
 */
export const shorthands = <const L extends readonly [string, ...Array<string>]>(types: L) =>
  Schema.Literals(types).pipe(
    Schema.decodeTo(Schema.Struct({ type: Schema.Literals(types) }), {
      decode: SchemaGetter.transform((type: L[number]) => ({ type })),
      encode: SchemaGetter.transform((object: { readonly type: L[number] }) => object.type)
    })
  )
