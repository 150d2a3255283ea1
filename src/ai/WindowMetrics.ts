/**
 * WindowMetrics: the metrics `WindowedLanguageModel` and the AI SDK adapter (`adapters/AiSdk`)
 * update once per model call (docs/observability.md).
 *
 * They are Effect `Metric`s, so whatever exports the application's metrics exports them —
 * `Otlp.layerJson` (`effect/observability/Otlp`), the layer that exports the spans, sends them
 * to `/v1/metrics`; `PrometheusMetrics` serves them. The unit of each is its `unit` attribute
 * (Effect's OTLP exporter reads it from there), in UCUM's curly-brace notation for counts.
 *
 * | metric | kind | unit | per call |
 * | --- | --- | --- | --- |
 * | `cupel.window.calls` | counter | `{call}` | 1, by `cupel.window.method`, `.mode` and `.outcome` |
 * | `cupel.window.tokens.sent` | histogram | `{token}` | the window's tokens (the prompt's messages and documents as sent) |
 * | `cupel.window.tokens.dropped` | histogram | `{token}` | the tokens of the candidates the call did not send |
 * | `cupel.window.compactions` | counter | `{compaction}` | 1 for a stable-mode compaction |
 * | `cupel.window.cache.predicted_read_tokens` | counter | `{token}` | the tokens the `cacheRule` predicts read from the cache (stable mode) |
 * | `cupel.window.cache.reported_read_tokens` | counter | `{token}` | the cache reads the provider reported, when it did |
 *
 * `cupel.window.calls` counts every call: `answered`, `failed` (the model failed), `interrupted`,
 * `rejected` (the window failed it before the model was called: a prompt that cannot fit, an
 * invalid item, a failing strategy), and `sent` (the AI SDK adapter's `prepareStep`, which
 * never sees the answer). The token and cache metrics count the calls the model answered (or,
 * for a step, that were sent) only. `cupel.window.compactions` counts the compactions whose
 * state was written, whatever the call's outcome: a call that fails before the model answered
 * leaves the state as it was (rule S6) and the next call compacts again, while a stream that
 * fails or is cancelled after its first part has written its window, and the next call starts
 * from it.
 *
 * @since 0.3.0
 */
import { Effect, Metric } from "effect"

/**
 * How a call ended, for `cupel.window.calls`: the three outcomes of a `CallReport`, `rejected`
 * for a call the window failed before the model was called, and `sent` for a step the AI SDK
 * adapter's `prepareStep` fitted (it does not see the answer).
 *
 * @since 0.3.0
 * @category models
 */
export type Outcome = "answered" | "failed" | "interrupted" | "rejected" | "sent"

/**
 * One call's figures, as {@link record} takes them.
 *
 * @since 0.3.0
 * @category models
 */
export interface CallFigures {
  /**
   * `WindowedLanguageModel`'s method, or the AI SDK adapter's call: `generate` (its
   * `doGenerate`: `generateText` and `generateObject`), `stream` (`doStream`) or `step`
   * (`prepareStep`); `trim` for `plain/Trim` (since 0.3.0: its calls are `sent`, as steps are).
   */
  readonly method: "generateText" | "generateObject" | "streamText" | "generate" | "stream" | "step" | "trim"
  readonly mode: "stable" | "per-call"
  readonly outcome: Outcome
  /** The window's tokens (`PipelineResult.totalTokens`); absent for a rejected call. */
  readonly sentTokens?: number | undefined
  /** The tokens of the candidates left out (the report's excluded items). */
  readonly droppedTokens?: number | undefined
  /**
   * Stable mode: the call compacted the conversation's window and that state was written —
   * counted whatever the outcome (a stream that fails after its first part wrote it).
   */
  readonly compacted?: boolean | undefined
  /** Stable mode: the tokens the `cacheRule` predicts read from the cache. */
  readonly predictedReadTokens?: number | undefined
  /** The cache reads the provider reported (`Response.Usage.inputTokens.cacheRead`). */
  readonly reportedReadTokens?: number | undefined
}

/**
 * The bucket boundaries of the token histograms: powers of 4 from 1 to 4^13 (67,108,864), the
 * boundaries the OpenTelemetry GenAI conventions recommend for `gen_ai.client.token.usage`.
 *
 * @since 0.3.0
 * @category constants
 */
export const tokenBoundaries: ReadonlyArray<number> = Array.from({ length: 14 }, (_, k) => 4 ** k)

/**
 * Model calls, by `cupel.window.method`, `cupel.window.mode` and `cupel.window.outcome`.
 *
 * @since 0.3.0
 * @category metrics
 */
export const calls: Metric.Counter<number> = Metric.counter("cupel.window.calls", {
  description: "Model calls through WindowedLanguageModel or the AI SDK adapter",
  attributes: { unit: "{call}" },
  incremental: true
})

/**
 * The window's tokens per answered call.
 *
 * @since 0.3.0
 * @category metrics
 */
export const tokensSent: Metric.Histogram<number> = Metric.histogram("cupel.window.tokens.sent", {
  description: "Tokens of the messages and documents a call sent (the fitted window)",
  attributes: { unit: "{token}" },
  boundaries: tokenBoundaries
})

/**
 * The tokens of the candidates an answered call did not send.
 *
 * @since 0.3.0
 * @category metrics
 */
export const tokensDropped: Metric.Histogram<number> = Metric.histogram("cupel.window.tokens.dropped", {
  description: "Tokens of the messages and documents a call left out of its window",
  attributes: { unit: "{token}" },
  boundaries: tokenBoundaries
})

/**
 * Stable-mode compactions whose state was written.
 *
 * @since 0.3.0
 * @category metrics
 */
export const compactions: Metric.Counter<number> = Metric.counter("cupel.window.compactions", {
  description: "Stable-window compactions (the pipeline chose the window again, down to the low watermark)",
  attributes: { unit: "{compaction}" },
  incremental: true
})

/**
 * The tokens the cache rule predicted read from the provider's cache, over answered calls.
 *
 * @since 0.3.0
 * @category metrics
 */
export const predictedReadTokens: Metric.Counter<number> = Metric.counter("cupel.window.cache.predicted_read_tokens", {
  description: "Input tokens the cache rule predicted read from the provider's cache",
  attributes: { unit: "{token}" },
  incremental: true
})

/**
 * The cache reads providers reported, over answered calls.
 *
 * @since 0.3.0
 * @category metrics
 */
export const reportedReadTokens: Metric.Counter<number> = Metric.counter("cupel.window.cache.reported_read_tokens", {
  description: "Input tokens the provider reported read from its cache",
  attributes: { unit: "{token}" },
  incremental: true
})

/**
 * Operations of a conversation-state store that failed (did not answer within `storeTimeout`,
 * could not connect, errored or answered garbage), by `cupel.window.store.operation`
 * (`connect`, `read`, `write`): each one's call was fitted afresh or its state not written
 * (docs/stores.md, "When the store is down").
 *
 * @since 0.3.0
 * @category metrics
 */
export const storeFailures: Metric.Counter<number> = Metric.counter("cupel.window.store.failures", {
  description: "Operations of the conversation-state store that failed or timed out",
  attributes: { unit: "{operation}" },
  incremental: true
})

/**
 * Registers the metrics that have no attributes of their own (`WindowedLanguageModel.layer` does
 * when it is built, the AI SDK adapter when its runtime is), so that they are exported from the start — a count of 0 compactions is a
 * figure, a missing series is not.
 *
 * @since 0.3.0
 * @category recording
 */
export const register: Effect.Effect<void> = Effect.asVoid(Effect.all([
  Metric.value(tokensSent),
  Metric.value(tokensDropped),
  Metric.value(compactions),
  Metric.value(predictedReadTokens),
  Metric.value(reportedReadTokens),
  Metric.value(storeFailures)
]))

// One tagged counter per (method, mode, outcome): a few dozen at most, made once each.
const tagged = new Map<string, Metric.Metric<number, unknown>>()
const callsOf = (figures: CallFigures): Metric.Metric<number, unknown> => {
  const key = `${figures.method} ${figures.mode} ${figures.outcome}`
  let metric = tagged.get(key)
  if (metric === undefined) {
    metric = Metric.withAttributes(calls, {
      "cupel.window.method": figures.method,
      "cupel.window.mode": figures.mode,
      "cupel.window.outcome": figures.outcome
    })
    tagged.set(key, metric)
  }
  return metric
}

/**
 * Updates the metrics with one call's figures (once per call).
 *
 * @since 0.3.0
 * @category recording
 */
export const record = (figures: CallFigures): Effect.Effect<void> => recordBody(figures)

// A generator function of the module, not a generator closure made at every call (docs/design.md item 144).
const recordBody = Effect.fnUntraced(function*(figures: CallFigures) {
  yield* Metric.update(callsOf(figures), 1)
  // A compaction is counted when its state was written: once, as the next call starts from it.
  if (figures.compacted === true) yield* Metric.update(compactions, 1)
  if (figures.outcome !== "answered" && figures.outcome !== "sent") return
  if (figures.sentTokens !== undefined) yield* Metric.update(tokensSent, figures.sentTokens)
  if (figures.droppedTokens !== undefined) yield* Metric.update(tokensDropped, figures.droppedTokens)
  if (figures.predictedReadTokens !== undefined) yield* Metric.update(predictedReadTokens, figures.predictedReadTokens)
  if (figures.reportedReadTokens !== undefined) yield* Metric.update(reportedReadTokens, figures.reportedReadTokens)
})
