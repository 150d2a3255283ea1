/**
 * The verbosity tier of the run in progress, and the per-item span events it asks for.
 *
 * The pipeline provides {@link CurrentVerbosity}; a stage run on its own sees the default,
 * `StageOnly`. At `StageOnly` the helpers below return before reading a single item, so the
 * per-item events cost nothing when the tier is off.
 *
 * @internal
 */
import { Clock, Context, Effect, Option, type Tracer } from "effect"
import type { ContextItem } from "../ContextItem.ts"
import type { ExclusionReason } from "../ExclusionReason.ts"
import { defaultVerbosity, type Verbosity } from "../Verbosity.ts"

/** The tier in force. */
export const CurrentVerbosity: Context.Reference<Verbosity> = Context.Reference<Verbosity>(
  "effect-cupel/internal/CurrentVerbosity",
  { defaultValue: () => defaultVerbosity }
)

/** Calls `emit` once per excluded item, with the item and its reason. */
export type EachExclusion = (emit: (item: ContextItem, reason: ExclusionReason) => void) => void

/** Calls `emit` once per included item, with the item and its score. */
export type EachInclusion = (emit: (item: ContextItem, score: number) => void) => void

const currentSpan: Effect.Effect<Option.Option<Tracer.Span>> = Effect.option(Effect.currentSpan)

/**
 * On the current (stage) span, from `StageAndExclusions` up: `cupel.exclusion.count` and one
 * `cupel.exclusion` event per excluded item. Nothing at `StageOnly`.
 */
export const annotateExclusions = (count: number, each: EachExclusion): Effect.Effect<void> =>
  annotateExclusionsBody(count, each)

// A generator function of the module, not a generator closure made at every call (docs/design.md item 144).
const annotateExclusionsBody = Effect.fnUntraced(function*(count: number, each: EachExclusion) {
  const verbosity = yield* CurrentVerbosity
  if (verbosity === "StageOnly") return
  const span = yield* currentSpan
  if (Option.isNone(span)) return
  span.value.attribute("cupel.exclusion.count", count)
  if (count === 0) return
  const at = (yield* Clock.Clock).currentTimeNanosUnsafe()
  const target = span.value
  each((item, reason) =>
    target.event("cupel.exclusion", at, {
      "cupel.exclusion.reason": reason._tag,
      "cupel.exclusion.item_kind": item.kind,
      "cupel.exclusion.item_tokens": item.tokens
    })
  )
})

/** On the current (place) span, at `Full` only: one `cupel.item.included` event per item in the window. */
export const annotateInclusions = (each: EachInclusion): Effect.Effect<void> => annotateInclusionsBody(each)

// A generator function of the module, not a generator closure made at every call (docs/design.md item 144).
const annotateInclusionsBody = Effect.fnUntraced(function*(each: EachInclusion) {
  const verbosity = yield* CurrentVerbosity
  if (verbosity !== "Full") return
  const span = yield* currentSpan
  if (Option.isNone(span)) return
  const at = (yield* Clock.Clock).currentTimeNanosUnsafe()
  const target = span.value
  each((item, score) =>
    target.event("cupel.item.included", at, {
      "cupel.item.kind": item.kind,
      "cupel.item.tokens": item.tokens,
      "cupel.item.score": score
    })
  )
})
