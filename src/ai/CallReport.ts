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
  const uncached = input.uncached ?? input.noCache
  if (input.total === undefined && input.cacheRead === undefined && input.cacheWrite === undefined && uncached === undefined) {
    return undefined
  }
  const figures = { total: input.total, cacheRead: input.cacheRead, cacheWrite: input.cacheWrite, uncached }
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
}
