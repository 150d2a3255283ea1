import { Effect, Layer, Tracer } from "effect"
import { FetchHttpClient } from "effect/http"
import { Otlp } from "effect/observability"

// Spans, metrics and logs, as OTLP/HTTP JSON, to a collector or a vendor's endpoint
// (`baseUrl`, e.g. "http://localhost:4318"): one layer, provided once to the whole program.
export const Telemetry = (baseUrl: string) =>
  Otlp.layerJson({ baseUrl, resource: { serviceName: "support-agent" } }).pipe(
    Layer.provide(FetchHttpClient.layer)
  )

// The same, without the pipeline's spans: `cupel.window` (with its attributes) and the model's
// span are exported, the fitting below them is not. A span the tracer marks as not sampled is
// not exported, and neither are its children.
const pipelineSpans = new Set(["cupel.stable_window.fit", "cupel.prompt_window.fit", "cupel.pipeline", "Place.place"])

export const TelemetryWithoutPipeline = (baseUrl: string) =>
  Layer.effect(
    Tracer.Tracer,
    Effect.map(Effect.tracer, (tracer) =>
      Tracer.make({
        span: (options) => tracer.span({ ...options, sampled: options.sampled && !pipelineSpans.has(options.name) }),
        context: tracer.context
      }))
  ).pipe(Layer.provideMerge(Telemetry(baseUrl)))
