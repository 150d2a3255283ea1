/**
 * CallReport: what one model call was sent, and why — one shape for every front door
 * (`WindowedLanguageModel`, the AI SDK adapter's `middleware` and `prepareStep`), made by the
 * session core (`Session`) when the call is settled.
 *
 * It also holds {@link Reported}, the one shape of what a provider reported of a call's input:
 * the total, the tokens read from its cache, written to it and neither, and the model that
 * answered. Calibration (rule C7) reads its `total`; the report and `cupel.window` carry the rest.
 *
 * @since 0.3.0
 */
import type * as ContextBudget from "../ContextBudget.ts"
import type { PipelineResult } from "../PipelineResult.ts"
import type * as CacheMiss from "./CacheMiss.ts"
import type * as CacheModel from "./CacheModel.ts"
import type * as CachePlan from "./CachePlan.ts"
import type * as SentRequest from "./SentRequest.ts"
import type * as WindowChange from "./WindowChange.ts"
import type * as WindowStore from "./WindowStore.ts"

/**
 * The input tokens a provider reported for a call — the total, those read from its cache,
 * those written to it, and those neither — and the model that answered (its response
 * metadata's `modelId`), when it said. A call whose provider reported none of the four figures
 * has no `Reported` (`undefined`).
 *
 * @since 0.3.0
 * @category models
 */
export interface Reported {
  readonly total: number | undefined
  readonly cacheRead: number | undefined
  readonly cacheWrite: number | undefined
  readonly uncached: number | undefined
  /** The model that answered, when the provider named it. */
  readonly model?: string | undefined
  /**
   * What was odd in the provider's usage, when something was (since 0.3.0): a figure that is
   * not a number of tokens (negative, `NaN`, infinite: left out of the figures above), or cache
   * figures above the total. The call is not failed for it; calibration does not use such a
   * report.
   */
  readonly odd?: ReadonlyArray<string> | undefined
}

/**
 * A provider's input usage as the two APIs give it: `effect/ai`'s `Response.Usage.inputTokens`
 * (`uncached`) or the AI SDK's `usage.inputTokens` (`noCache`).
 *
 * @since 0.3.0
 * @category models
 */
export interface InputUsage {
  readonly total?: number | undefined
  readonly cacheRead?: number | undefined
  readonly cacheWrite?: number | undefined
  readonly uncached?: number | undefined
  readonly noCache?: number | undefined
}

/**
 * The {@link Reported} of a provider's input usage and the model that answered; `undefined`
 * when the usage reports none of its figures.
 *
 * @since 0.3.0
 * @category constructors
 */
export const reportedOf = (input: InputUsage | undefined, model: string | undefined): Reported | undefined => {
  if (input === undefined) return undefined
  const odd: Array<string> = []
  // A provider's usage is data from the wire: a figure that is no count of tokens is left out
  // and said, never a failure of a call the model answered.
  const figure = (name: string, value: unknown): number | undefined => {
    if (value === undefined || value === null) return undefined
    if (typeof value === "number" && Number.isFinite(value) && value >= 0) return value
    odd.push(`${name} is not a number of tokens (${typeof value === "number" ? String(value) : typeof value})`)
    return undefined
  }
  const total = figure("total", input.total)
  const cacheRead = figure("cacheRead", input.cacheRead)
  const cacheWrite = figure("cacheWrite", input.cacheWrite)
  const uncached = figure("uncached", input.uncached ?? input.noCache)
  if (total === undefined && cacheRead === undefined && cacheWrite === undefined && uncached === undefined && odd.length === 0) {
    return undefined
  }
  const cached = (cacheRead ?? 0) + (cacheWrite ?? 0)
  if (total !== undefined && cached > total) {
    odd.push(`cacheRead (${cacheRead ?? 0}) and cacheWrite (${cacheWrite ?? 0}) exceed total (${total})`)
  }
  const figures = { total, cacheRead, cacheWrite, uncached, ...(odd.length === 0 ? {} : { odd }) }
  return model === undefined ? figures : { ...figures, model }
}

/**
 * How a call is reported: which door and method made it (`generateText`, `generateObject`,
 * `streamText` for `effect/ai`; `generate`, `stream`, `step` for the AI SDK adapter; `trim` for
 * `plain/Trim`).
 *
 * @since 0.3.0
 * @category models
 */
export type Method = "generateText" | "generateObject" | "streamText" | "generate" | "stream" | "step" | "trim"

/**
 * How a call ended: the model answered, failed, or the call was interrupted; `sent` for an AI
 * SDK step, whose answer `prepareStep` does not see.
 *
 * @since 0.3.0
 * @category models
 */
export type Outcome = "answered" | "failed" | "interrupted" | "sent"

/**
 * What one model call was sent, and why. `P` is the prompt's form: an `effect/ai` `Prompt` for
 * `WindowedLanguageModel`, the SDK's message objects for the AI SDK adapter.
 *
 * @since 0.3.0
 * @category models
 */
export interface CallReport<P, M extends Method = Method, O extends Outcome = Outcome> {
  readonly method: M
  /** The prompt the model received. */
  readonly prompt: P
  /**
   * The candidates the pipeline weighed: the messages of the prompt the caller gave, plus the
   * `documents` (the selection report's `totalCandidates`).
   */
  readonly candidates: number
  /** The pipeline's result: window, selection report, totals. */
  readonly result: PipelineResult
  /** The tokens counted for the call's tool definitions (0 without tools, or with `countTools: false`). */
  readonly toolTokens: number
  /**
   * The budget the prompt was fitted to: the session's, less {@link CallReport.toolTokens} from
   * its target, corrected by the calibration.
   */
  readonly budget: ContextBudget.ContextBudget
  /**
   * The calibration the budget was corrected by: the provider's reported input tokens over the
   * counted ones at the conversation's last call that reported them (1: none yet; rule C7).
   */
  readonly calibration: number
  /** The session's mode. */
  readonly mode: "stable" | "per-call"
  /** Stable mode: the conversation's key (rule S1). */
  readonly conversation: string | undefined
  /** Stable mode: what the call did with the conversation's window (append, compact, fresh) and why. */
  readonly change: WindowChange.Change | undefined
  /**
   * Stable mode: the request as the `cacheRule` predicts it — tokens read from the cache,
   * written, and the input cost beside the cost without a cache (rule S10).
   */
  readonly prediction: CacheModel.Prediction | undefined
  /** How the call ended. */
  readonly outcome: O
  /** The input usage the provider reported with its answer, when it did. */
  readonly reported: Reported | undefined
  /** Stable mode: whether the conversation's state was written (rules S6–S8). */
  readonly committed: WindowStore.WriteResult | undefined
  /**
   * Stable mode: why the call read less from the provider's cache than its previous request,
   * when it did (docs/ai.md, "Why a call missed", rules M1–M4; since 0.3.0).
   */
  readonly miss?: CacheMiss.Miss | undefined
  /**
   * Stable mode, `promptCache` on: the call's cache boundaries, as the door applied them
   * (since 0.3.0; docs/ai.md, "What is sent to each provider").
   */
  readonly cache?: CachePlan.CachePlan | undefined
  /**
   * Stable mode: the call's tool definitions differ from its conversation's previous request's
   * — which tool, which field (since 0.3.0): the cached prefix starts with them.
   */
  readonly toolsChanged?: SentRequest.ToolsChange | undefined
  /** Stable mode: the call's request in hashes (since 0.3.0). */
  readonly sent?: SentRequest.SentRequest | undefined
  /** Stable mode: the conversation's previous request in hashes, when this session sent it (since 0.3.0). */
  readonly previousSent?: SentRequest.SentRequest | undefined
}
