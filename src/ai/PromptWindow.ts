/**
 * PromptWindow: an `effect/ai` `Prompt` in, a `Prompt` that fits the budget out.
 *
 * {@link fit} makes one candidate item per message (`Candidates.toCandidates`: system messages
 * pinned, the conversation's order as recency, tool calls grouped with their results by
 * `ToolGroups`, each message counted by the `TokenCounter` and written as `PromptRender.render`
 * writes it), applies the rules of the current turn around the pipeline (`TurnRules`: K2, K6;
 * K1 and K3 here), runs `Pipeline.run`, and turns the window back into a prompt of the original
 * message objects (`Candidates.toPrompt`). As the groups are never split, the window holds no
 * tool result without its call and no call without its results, unless the input prompt
 * already did (`ToolGroups.orphans` finds those).
 *
 * This module holds the fit alone. The steps it is made of are modules of their own, whose
 * names it re-exports for the code that imported them from here: `PromptRender` (a message's
 * text), `ToolGroups` (which messages belong together), `ItemCache` (items kept across calls),
 * `Candidates` (the conversion both ways) and `TurnRules` (the rules of the current turn).
 *
 * @since 0.2.0
 */
import { Effect } from "effect"
import type { AiError, Prompt } from "effect/ai"
import type { ContextBudget } from "../ContextBudget.ts"
import * as ContextItem from "../ContextItem.ts"
import { trusted } from "../internal/fastDecode.ts"
import * as HotSpans from "../internal/hotSpans.ts"
import * as Pipeline from "../Pipeline.ts"
import type { PipelineResult } from "../PipelineResult.ts"
import { PinnedBudgetError } from "../PinnedBudgetError.ts"
import { type Candidates, type CandidateError, type Options, promptOf, toCandidates } from "./Candidates.ts"
import * as CurrentTurn from "./CurrentTurn.ts"
import { keepingOf } from "./internal/keeping.ts"
import { messageIndexOf } from "./MessageIndex.ts"
import type { TokenCounter } from "./TokenCounter.ts"
import type { TurnBudgetError } from "./TurnBudgetError.ts"
import { type Shortening, shortenTurn, turnBudgetError } from "./TurnRules.ts"

// The steps of a fit, each a module of its own, re-exported under the names this module gave
// them before 0.3.0 (the public API and the callers that import them from here).
export { type Annotation, type Candidates, CandidateError, type Options, toCandidates, toPrompt } from "./Candidates.ts"
export { type ItemCache, type ItemsState, makeItemCache } from "./ItemCache.ts"
export { render, renderEffect } from "./PromptRender.ts"
export { groupPrefix, groups, type GroupsState, type Orphan, orphans } from "./ToolGroups.ts"
export {
  applyShortenings,
  checkTurn,
  keeping,
  type Shortening,
  shortenTurn,
  turnBudgetError
} from "./TurnRules.ts"

/**
 * What {@link fit} does besides the pipeline (docs/ai.md, "Right within a call").
 *
 * - `startOn` — `"user"` (default): the window's first conversation message is a user message
 *   (rule K3); `"any"`: no such rule.
 * - `shortenToolResults` — `true` (default): a current turn too large for the room has its
 *   largest tool result shortened so that it fits whole, else its newest unit and latest tool
 *   exchange are shortened to fit beside the newest user message (rule K6); `false`: what does
 *   not fit is left out.
 *
 * @since 0.3.0
 * @category models
 */
export interface FitOptions {
  readonly startOn?: "user" | "any" | undefined
  readonly shortenToolResults?: boolean | undefined
}

/**
 * The fitted prompt and the pipeline's result (its window, report and totals).
 *
 * @since 0.2.0
 * @category models
 */
export interface Fitted {
  readonly prompt: Prompt.Prompt
  readonly result: PipelineResult
  /** The tool messages shortened for the call (rule K6), if any. */
  readonly shortened?: ReadonlyArray<Shortening> | undefined
}

/**
 * Every way a fit can fail besides the counter and the candidates: the pipeline's errors, and
 * `TurnBudgetError` when the newest user message does not fit beside the system prompts
 * and pinned items (rule K2; the pipeline never raises it, so it is no `PipelineError`).
 *
 * @since 0.3.0
 * @category errors
 */
export type FitError = Pipeline.PipelineError | TurnBudgetError

/**
 * Fits a prompt into a budget: `Candidates.toCandidates`, `Pipeline.run` (with the scorer, slicer,
 * placer and notifier in context), `Candidates.toPrompt`. Pipeline failures — `OverflowError` under
 * the `Throw` strategy, `PinnedBudgetError` when the pinned messages alone cannot fit — are in
 * the error channel, as are `TurnBudgetError` (the newest user message cannot fit beside them),
 * the token counter's and `CandidateError`.
 *
 * Place with `SectionedPlacer.conversation` for a window providers accept: system messages
 * first, documents next, then the conversation in order.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { Prompt } from "effect/ai"
 * import { ContextBudget, GreedySlice, OverflowNotifier, RecencyScorer } from "effect-cupel"
 * import * as PromptWindow from "effect-cupel/ai/PromptWindow"
 * import * as TokenCounter from "effect-cupel/ai/TokenCounter"
 * import * as SectionedPlacer from "effect-cupel/placers/SectionedPlacer"
 *
 * const history = Prompt.make([
 *   { role: "system", content: "You are terse." },
 *   { role: "user", content: "hi" }
 * ])
 * const program = PromptWindow.fit(history, new ContextBudget.ContextBudget({ maxTokens: 100, targetTokens: 80 }))
 * const layers = Layer.mergeAll(
 *   RecencyScorer.layer, GreedySlice.layer, SectionedPlacer.conversation, OverflowNotifier.layerLog,
 *   TokenCounter.make((m) => Math.ceil(PromptWindow.render(m).length / 4) + 4)
 * )
 * const { prompt } = await Effect.runPromise(program.pipe(Effect.provide(layers)))
 * ```
 *
 * @since 0.2.0
 * @category running
 */
export const fit = (
  prompt: Prompt.RawInput,
  budget: ContextBudget,
  options?: Options & Pipeline.Options & FitOptions
): Effect.Effect<Fitted, FitError | AiError.AiError | CandidateError, Pipeline.Services | TokenCounter> =>
  fitBody(prompt, budget, options).pipe(fitSpan)

/** The fit's span, made once (no stack trace a call: docs/design.md item 145). */
const fitSpan = HotSpans.withSpan("cupel.prompt_window.fit")

// A generator function of the module, not a generator closure made at every call (docs/design.md item 144).
const fitBody = Effect.fnUntraced(function*(
  prompt: Prompt.RawInput,
  budget: ContextBudget,
  options: (Options & Pipeline.Options & FitOptions) | undefined
) {
  const made = yield* toCandidates(prompt, options)
  const { candidates, shortenings } = options?.shortenToolResults === false
    ? { candidates: made, shortenings: [] }
    : yield* shortenTurn(made, budget.targetTokens)
  const fitted = yield* fitCandidates(candidates, budget, options)
  return shortenings.length === 0 ? fitted : { ...fitted, shortened: shortenings }
})

/**
 * The copies of items kept for a call (rule K2), by item and reason (docs/design.md item 134): a
 * copy is a function of both (the item pinned, its metadata saying why) and an immutable value,
 * so the same copy is given at every call that keeps the same item for the same reason. An
 * agent keeps its current turn call after call; new copies at every call made the groups they
 * belong to new units at every call (`Groups.collapse` gives the unit made before only for the
 * same member objects), and their report entries new (item 126). Held weakly by the item: a pure
 * function's memo, no conversation's state.
 */
const keptCopies = new WeakMap<ContextItem.ContextItem, Map<CurrentTurn.Keep, ContextItem.ContextItem>>()

/** The copy of `item` kept for `why`: pinned, `keep` in its metadata (see {@link keptCopies}). */
const keptCopyOf = (item: ContextItem.ContextItem, why: CurrentTurn.Keep): ContextItem.ContextItem => {
  let copies = keptCopies.get(item)
  const known = copies?.get(why)
  if (known !== undefined) return known
  // A valid item with one more metadata key: what the checked constructor would make.
  const fields = { ...item, pinned: true, metadata: { ...item.metadata, [CurrentTurn.keepKey]: why } }
  const copy = trusted(ContextItem.ContextItem, fields) ?? new ContextItem.ContextItem(fields)
  if (copies === undefined) {
    copies = new Map()
    keptCopies.set(item, copies)
  }
  copies.set(why, copy)
  return copy
}

/**
 * {@link fit} on candidates already made: the rules K1–K4 of docs/ai.md around `Pipeline.run`.
 *
 * - K4: the pinned items (system prompts, messages pinned by `annotate`, pinned documents) alone
 *   over the target fail with `PinnedBudgetError`, whatever `maxTokens` says.
 * - K2: the newest user message over what they leave fails with `TurnBudgetError`
 *   (`TurnRules.turnBudgetError`); the current turn's units ({@link CurrentTurn.keep}) are pinned
 *   for the call, their items' metadata `keep` saying why.
 * - K1: conversation messages are not deduplicated unless `deduplication: true`.
 * - K3: with `startOn: "user"` (default), the window opens on a user message
 *   ({@link CurrentTurn.openOnUser}).
 *
 * @since 0.3.0
 * @category running
 */
export const fitCandidates = (
  candidates: Candidates,
  budget: ContextBudget,
  options?: Pipeline.Options & FitOptions
): Effect.Effect<Fitted, FitError, Pipeline.Services> => fitCandidatesBody(candidates, budget, options)

// A generator function of the module, not a generator closure made at every call (docs/design.md item 144).
const fitCandidatesBody = Effect.fnUntraced(function*(
  candidates: Candidates,
  budget: ContextBudget,
  options: (Pipeline.Options & FitOptions) | undefined
) {
  const { items, messages } = candidates
  const { conversation, kept, pinnedCount, pinnedTokens } = keepingOf(candidates, budget.targetTokens).keeping
  if (pinnedTokens > budget.targetTokens) {
    return yield* new PinnedBudgetError({
      pinnedTokens,
      availableTokens: budget.targetTokens,
      pinnedCount,
      limit: "targetTokens"
    })
  }
  const turnError = turnBudgetError(candidates, budget.targetTokens)
  if (turnError !== undefined) return yield* turnError
  const runItems = items.slice()
  // The kept copies' messages; every other item's is the candidates' (not copied: a thousand
  // entries a call).
  const keptMessages = new Map<ContextItem.ContextItem, Prompt.Message>()
  const keptItems = new Set<ContextItem.ContextItem>()
  for (const [i, why] of kept) {
    const item = items[i]!
    const copy = keptCopyOf(item, why)
    runItems[i] = copy
    keptMessages.set(copy, messages[i]!)
    keptItems.add(copy)
  }
  const messageOf = (item: ContextItem.ContextItem): Prompt.Message | undefined =>
    keptMessages.get(item) ?? candidates.messageOf.get(item)
  const run = yield* Pipeline.run(runItems, budget, {
    ...options,
    deduplication: options?.deduplication ?? false
  })
  const result = (options?.startOn ?? "user") === "user"
    ? CurrentTurn.openOnUser(run, (item) => {
      const message = messageOf(item)
      if (message === undefined || message.role === "system") return undefined
      const index = messageIndexOf(item)
      return index !== undefined && conversation[index] === true ? message.role : undefined
    }, keptItems)
    : run
  return { prompt: promptOf(result.window, messageOf), result }
})

