/**
 * What the span `cupel.window` carries and what a call's end records, for both integrations
 * that open it — `WindowedLanguageModel` (`effect/ai`) and the AI SDK adapter — so that the two
 * write the same attributes under the same names and update the same metrics
 * (docs/observability.md, docs/design.md item 71): the OpenTelemetry GenAI attributes, cupel's
 * own figures beside them, and at the call's end the usage the provider reported and the
 * `WindowMetrics`.
 *
 * @internal
 */
import { Effect } from "effect"
import * as CacheMiss from "../CacheMiss.ts"
import type * as CacheModel from "../CacheModel.ts"
import type * as StableWindow from "../StableWindow.ts"
import * as WindowMetrics from "../WindowMetrics.ts"
import type * as WindowStore from "../WindowStore.ts"
import type { PipelineResult } from "../../PipelineResult.ts"

/** A fitted call's figures, as the span's attributes and the metrics take them. */
export interface Fit {
  readonly method: WindowMetrics.CallFigures["method"]
  readonly mode: WindowMetrics.CallFigures["mode"]
  readonly result: PipelineResult
  /** The tokens counted for the call's tool definitions. */
  readonly toolTokens: number
  /** The target the prompt was fitted to (the calibrated budget's). */
  readonly targetTokens: number
  /** The calibration the budget was corrected by (rule C7). */
  readonly calibration: number
  /** The request as counted: the window, the tool definitions, the request's overhead. */
  readonly predictedInputTokens: number
  /** Stable mode: the conversation's key, the change made to its window, the cache prediction. */
  readonly stable: {
    readonly key: string
    readonly change: StableWindow.Change
    readonly prediction: CacheModel.Prediction
  } | undefined
}

/** The input tokens a provider reported, in the fields both integrations' usages share. */
export interface InputUsage {
  readonly total?: number | undefined
  readonly cacheRead?: number | undefined
  readonly cacheWrite?: number | undefined
}

/**
 * The tokens of the candidates a call left out (the report's excluded items): every candidate's
 * less the window's, as the report's invariants give them (docs/design.md items 81 and 131:
 * each candidate included or excluded once, the window the included items, `totalTokens` their
 * sum, `totalTokensConsidered` every candidate's, negative counts included) — no pass over
 * the excluded entries, which a grouped run makes only when they are read.
 */
export const excludedTokens = (result: PipelineResult): number =>
  result.report.totalTokensConsidered - result.totalTokens

/** How many candidates a call left out, by the same invariants: every candidate less the included. */
export const excludedCount = (result: PipelineResult): number =>
  result.report.totalCandidates - result.report.included.length

/** The attributes written on `cupel.window` once the prompt is fitted. */
export const fitAttributes = (fit: Fit): Record<string, unknown> => {
  const report = fit.result.report
  const stable = fit.stable
  return {
    // OpenTelemetry GenAI conventions (docs/design.md item 71): each method is a chat.
    "gen_ai.operation.name": "chat",
    ...(stable === undefined ? {} : { "gen_ai.conversation.id": stable.key }),
    "cupel.window.predicted_input_tokens": fit.predictedInputTokens,
    "cupel.window.excluded_tokens": excludedTokens(fit.result),
    "cupel.window.method": fit.method,
    "cupel.window.mode": fit.mode,
    "cupel.window.candidates": report.totalCandidates,
    "cupel.window.included": report.included.length,
    "cupel.window.excluded": excludedCount(fit.result),
    "cupel.window.tokens": fit.result.totalTokens,
    "cupel.window.tool_tokens": fit.toolTokens,
    "cupel.window.target_tokens": fit.targetTokens,
    "cupel.window.calibration": fit.calibration,
    "cupel.window.tokens_over_budget": fit.result.tokensOverBudget,
    ...(stable === undefined ? {} : {
      "cupel.window.conversation": stable.key,
      "cupel.window.action": stable.change.action,
      "cupel.window.fresh": stable.change.fresh ?? "",
      "cupel.window.kept": stable.change.kept,
      "cupel.window.added": stable.change.added,
      "cupel.window.dropped": stable.change.dropped,
      "cupel.window.cache.predicted_read_tokens": stable.prediction.cachedTokens,
      "cupel.window.cache.predicted_write_tokens": stable.prediction.writtenTokens,
      "cupel.window.cache.predicted_cost": stable.prediction.cost,
      "cupel.window.cache.cost_without_cache": stable.prediction.costWithoutCache
    })
  }
}

/**
 * The provider's input usage under the OpenTelemetry GenAI names, each only when reported:
 * `gen_ai.usage.input_tokens` (all input, cache reads and writes included),
 * `gen_ai.usage.cache_read.input_tokens` and `gen_ai.usage.cache_creation.input_tokens`.
 */
export const usageAttributes = (input: InputUsage): Record<string, number> => {
  const attributes: Record<string, number> = {}
  if (input.total !== undefined) attributes["gen_ai.usage.input_tokens"] = input.total
  if (input.cacheRead !== undefined) attributes["gen_ai.usage.cache_read.input_tokens"] = input.cacheRead
  if (input.cacheWrite !== undefined) attributes["gen_ai.usage.cache_creation.input_tokens"] = input.cacheWrite
  return attributes
}

/**
 * A call's cache miss (docs/ai.md, rules M1–M4): `cupel.window.cache.miss` names the cause,
 * `cupel.window.cache.miss_detail` says it in words, `cupel.window.cache.missed_tokens` is the
 * previous request's tokens not read, and `cupel.window.cache.miss_source` whether the figures
 * are billed or predicted.
 */
export const missAttributes = (miss: CacheMiss.Miss): Record<string, string | number> => ({
  "cupel.window.cache.miss": miss.cause._tag,
  "cupel.window.cache.miss_detail": CacheMiss.describe(miss.cause),
  "cupel.window.cache.missed_tokens": Math.max(0, miss.previousTokens - miss.cachedTokens),
  "cupel.window.cache.miss_source": miss.source
})

/**
 * An `error` part the model's answer carried (docs/design.md item 75): the provider answered —
 * the call is answered for the window's state (rule S6) — and then reported an error, which
 * reached the caller as the part it was.
 */
export interface ProviderError {
  readonly error: unknown
}

/** The first `error` part of a model's answer, if it has one. */
export const providerErrorOf = (part: unknown): ProviderError | undefined =>
  typeof part === "object" && part !== null && "type" in part && part.type === "error"
    ? { error: "error" in part ? part.error : undefined }
    : undefined

/**
 * The OpenTelemetry `error.type` of an error: a class of error, not its message (which may
 * carry a user's data): an Effect error's `_tag`, an `Error`'s `name`, else `_OTHER`, the
 * convention's fallback.
 */
export const errorType = (error: unknown): string => {
  if (typeof error === "object" && error !== null) {
    if ("_tag" in error && typeof error._tag === "string" && error._tag !== "") return error._tag
    if (error instanceof Error && error.name !== "") return error.name
  }
  return "_OTHER"
}

/**
 * A fitted call's end, once: the usage the provider reported (if it did) and the `error.type`
 * of an error part its answer carried written on the current span — `cupel.window` — and the
 * call counted in the `WindowMetrics`. `committed` is
 * what became of the call's state: its compaction counts when the state was written, whatever
 * the outcome (a stream that fails after its first part has advanced the state, and the next
 * call does not compact again).
 */
export const end = (
  fit: Fit,
  outcome: WindowMetrics.Outcome,
  usage: InputUsage | undefined,
  committed: WindowStore.WriteResult | undefined,
  providerError: ProviderError | undefined
): Effect.Effect<void> =>
  Effect.andThen(
    Effect.annotateCurrentSpan({
      ...(usage === undefined ? {} : usageAttributes(usage)),
      ...(providerError === undefined ? {} : { "error.type": errorType(providerError.error) })
    }),
    WindowMetrics.record({
      method: fit.method,
      mode: fit.mode,
      outcome,
      sentTokens: fit.result.totalTokens,
      droppedTokens: excludedTokens(fit.result),
      compacted: fit.stable?.change.action === "compact" && (committed === "written" || committed === "rebased"),
      predictedReadTokens: fit.stable?.prediction.cachedTokens,
      reportedReadTokens: usage?.cacheRead
    })
  )

/** A call the window failed (`rejected`) or that was interrupted before the model was called. */
export const unfitted = (
  method: WindowMetrics.CallFigures["method"],
  mode: WindowMetrics.CallFigures["mode"],
  interrupted: boolean
): Effect.Effect<void> => WindowMetrics.record({ method, mode, outcome: interrupted ? "interrupted" : "rejected" })
