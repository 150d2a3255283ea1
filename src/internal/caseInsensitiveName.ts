/**
 * Shared machinery for the specification's extensible, case-insensitive string enumerations
 * (ContextKind, ContextSource).
 *
 * @internal
 */
import { Equivalence, Schema } from "effect"

/** ASCII case folding, as the specification requires: non-ASCII letters are left as they are. */
export const foldAscii = (s: string): string => s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32))

/** Equality under ASCII case folding. */
export const equivalence: Equivalence.Equivalence<string> = (a, b) => a === b || foldAscii(a) === foldAscii(b)

/** A non-empty string that is not only whitespace, with a message that names what it is. */
export const nameSchema = (what: string) =>
  Schema.String.check(
    Schema.makeFilter((s) => s.trim().length > 0 || `${what} must be a non-empty name, not ${JSON.stringify(s)}`)
  )
