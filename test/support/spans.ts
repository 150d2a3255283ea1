/**
 * A tracer that keeps every span it starts, for tests that read spans back.
 */
import { Tracer } from "effect"

export interface Recorder {
  /** Every span started, in start order. */
  readonly spans: ReadonlyArray<Tracer.NativeSpan>
  /** Provide with `Effect.withTracer(recorder.tracer)`. */
  readonly tracer: Tracer.Tracer
}

export const recordSpans = (): Recorder => {
  const spans: Array<Tracer.NativeSpan> = []
  const tracer = Tracer.make({
    span(options) {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    }
  })
  return { spans, tracer }
}
