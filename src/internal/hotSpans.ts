/**
 * The spans of the per-call path, made without a stack trace (docs/design.md item 145).
 *
 * `Effect.fn`, `Effect.withSpan` and `Effect.withParentSpan` capture a stack trace (a `new
 * Error()`) each time they are called, for the span's code location in a failure's pretty
 * print. The pipeline's and the windows' spans are made at every call of every front door —
 * four to ten a call — and the captures were about a sixth of a four-message `trim` (its
 * 231–262 µs a call were 199–200 without them).
 * Their code location would only ever name this library's own modules; their names,
 * attributes, parents and timing are the same as before.
 *
 * @internal
 */
import { Effect, type Tracer } from "effect"

const noStack: Tracer.TraceOptions = { captureStackTrace: false }

/**
 * `Effect.withSpan(name)`, its stack trace not captured: made once where it is used (a module
 * constant), or at each call — either way no `Error` is made.
 */
export const withSpan = (name: string) => Effect.withSpan(name, undefined, noStack)

/** `Effect.withParentSpan(span)`, its stack trace not captured. */
export const withParentSpan = (span: Tracer.AnySpan) => Effect.withParentSpan(span, noStack)
