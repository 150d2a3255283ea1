/**
 * Calibration (rule C7 of docs/ai.md): the token counter's counts corrected by what the provider
 * reports.
 *
 * A counter that is not the provider's tokenizer counts a little off — a few percent, or a
 * third for a rough characters-over-four estimate. Once a provider has reported a call's input
 * tokens, the ratio of its figure to the tokens counted for the same request corrects the next
 * call's budget: everything the request counts (tool definitions, messages, the request's
 * overhead) is scaled by it. A stable window keeps the ratio in the conversation's state
 * ({@link withCalibration}); a per-call session has no conversations and keeps one ratio for
 * the session ({@link makePerCall}).
 *
 * @since 0.3.0
 */
import { Effect, Ref } from "effect"
import { ContextBudget } from "../ContextBudget.ts"
import type * as CallReport from "./CallReport.ts"
import * as WindowState from "./WindowState.ts"

/**
 * The bounds of a calibration ratio (reported input tokens over counted ones): a provider's
 * report outside them is taken as at the bound.
 *
 * @since 0.3.0
 * @category constants
 */
export const calibrationBounds = { lowest: 0.5, highest: 4 } as const

/**
 * The calibration ratio of a report: the reported input tokens over the counted ones, within
 * {@link calibrationBounds}; 1 when either is not above 0.
 *
 * @since 0.3.0
 * @category calibration
 */
export const ratioOf = (reportedTokens: number, countedTokens: number): number =>
  reportedTokens > 0 && countedTokens > 0
    ? Math.min(calibrationBounds.highest, Math.max(calibrationBounds.lowest, reportedTokens / countedTokens))
    : 1

/**
 * Whether a report can calibrate: it gives a total of input tokens above 0 for a call that
 * counted some. A report of no tokens, of a call that counted none, or with something odd in
 * it (`Reported.odd`: cache figures above the total) changes nothing.
 *
 * @since 0.3.0
 * @category calibration
 */
export const calibrates = (reported: CallReport.Reported | undefined, countedTokens: number): reported is
  & CallReport.Reported
  & { readonly total: number } =>
  reported?.total !== undefined && reported.total > 0 && countedTokens > 0 && reported.odd === undefined

/**
 * The budget of a call fitted with counts corrected by `ratio` (reported over counted tokens):
 * everything the request counts — tool definitions, messages, the request's overhead — is
 * scaled by the ratio, so the messages may take
 * `⌊(target + tools + overhead) / ratio⌋ − tools − overhead`, at least 0.
 *
 * @since 0.3.0
 * @category calibration
 */
export const calibrated = (budget: ContextBudget, ratio: number, toolTokens: number, overhead: number): ContextBudget => {
  if (ratio === 1) return budget
  const target = Math.max(0, Math.floor((budget.targetTokens + toolTokens + overhead) / ratio) - toolTokens - overhead)
  return new ContextBudget({ ...budget, targetTokens: Math.min(target, budget.maxTokens) })
}

/**
 * A conversation's next state with its calibration updated from what the provider reported:
 * the ratio of the reported input tokens to the counted ones, within {@link calibrationBounds};
 * a report from another model than the last one's starts the calibration afresh. A report
 * that cannot calibrate ({@link calibrates}) leaves the calibration as it was.
 *
 * @since 0.3.0
 * @category calibration
 */
export const withCalibration = (
  next: WindowState.WindowState,
  countedTokens: number,
  reported: CallReport.Reported | undefined
): WindowState.WindowState => {
  if (!calibrates(reported, countedTokens)) return next
  const ratio = ratioOf(reported.total, countedTokens)
  const model = reported.model ?? next.calibration?.model
  return new WindowState.WindowState({
    ...next,
    calibration: model === undefined ? { ratio } : { ratio, model }
  })
}

/**
 * The calibration of a per-call session: one ratio for the session (it has no conversations),
 * replaced by each report that can calibrate.
 *
 * @since 0.3.0
 * @category models
 */
export interface PerCall {
  readonly ratio: Effect.Effect<number>
  readonly record: (reported: CallReport.Reported | undefined, countedTokens: number) => Effect.Effect<void>
}

/**
 * A per-call session's calibration, starting at 1.
 *
 * @since 0.3.0
 * @category constructors
 */
export const makePerCall = (): PerCall => {
  const ratio = Ref.makeUnsafe(1)
  return {
    ratio: Ref.get(ratio),
    record: (reported, countedTokens) =>
      calibrates(reported, countedTokens) ? Ref.set(ratio, ratioOf(reported.total, countedTokens)) : Effect.void
  }
}
