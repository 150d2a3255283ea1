/**
 * A call's fit in its span `cupel.window`, shared by the adapters (`AiSdk`, `LangChain`): the
 * span is made before the fit and left open for the call's end to write the provider's usage
 * on it and end it; a call the window fails (or that is interrupted while fitted) ends it at
 * once.
 *
 * @internal
 */
import { Clock, Effect, Exit, type Tracer } from "effect"
import * as Session from "../../ai/Session.ts"
import * as HotSpans from "../../internal/hotSpans.ts"
import type * as CallReport from "../../ai/CallReport.ts"

/** Ends a span now (the runtime's clock), with how its call ended. */
export const endSpan = (span: Tracer.Span, exit: Exit.Exit<unknown, unknown>) =>
  Effect.flatMap(Clock.currentTimeNanos, (now) => Effect.sync(() => span.end(now, exit)))

/**
 * The call's fit and its open span: a generator function of the module, not a generator closure
 * made at every call (docs/design.md item 144).
 */
export const fitInSpan = Effect.fnUntraced(function*<M extends CallReport.Method>(call: Session.Call<M>) {
  const span = yield* Effect.makeSpan("cupel.window")
  const core = yield* Session.Session
  const fitting = yield* core.fit(call).pipe(
    HotSpans.withParentSpan(span),
    Effect.onExit((exit) => Exit.isSuccess(exit) ? Effect.void : endSpan(span, exit))
  )
  return { fitting, span }
})
