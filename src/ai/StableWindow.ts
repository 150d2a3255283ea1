/**
 * StableWindow: a conversation's windows across calls, kept stable so that a provider's prompt
 * cache can serve their prefix (docs/ai.md, "Windows across calls", rules S1–S11).
 *
 * Fitting every call from scratch moves the selection at every call once a conversation reaches
 * its budget: the prompt changes right after the system prompt and the cache misses. A stable
 * window instead sends the previous window with the new messages appended while that fits the
 * target, and only when it no longer fits compacts it, in one step, down to a low watermark —
 * one cache write, then many calls that append again.
 *
 * {@link make} gives a session object over `PromptWindow` for any caller: {@link StableWindow.fit}
 * plans a call's window from the conversation's state in a `KeyValueStore`, and
 * {@link StableWindow.commit} records it once the model has answered (rule S6).
 * `WindowedLanguageModel.layer` uses it for every `effect/ai` call.
 *
 * This module holds the service; its parts are private modules of `ai/internal/`: the history's
 * prefix digests (`prefixDigests`), whether a stored state is usable (`storedState`), the append
 * (`appendPlan`), a window's entries (`windowEntries`) and the results made without the
 * pipeline (`stableResults`).
 *
 * @since 0.3.0
 */
import { Clock, Duration, Effect, Option, Ref } from "effect"
import { AiError, Prompt } from "effect/ai"
import { KeyValueStore } from "effect/persistence"
import type { ContextBudget } from "../ContextBudget.ts"
import { ContextBudget as Budget } from "../ContextBudget.ts"
import { InvalidConfigError } from "../InvalidConfigError.ts"
import { describeThrown } from "../internal/describeThrown.ts"
import * as HotSpans from "../internal/hotSpans.ts"
import * as ToolResultEdits from "./internal/toolResultEdits.ts"
import * as Masking from "./Masking.ts"
import * as ResultReferences from "./ResultReferences.ts"
import type * as Pipeline from "../Pipeline.ts"
import * as CacheModel from "./CacheModel.ts"
import * as Calibration from "./Calibration.ts"
import type * as CallReport from "./CallReport.ts"
import * as ConversationKey from "./ConversationKey.ts"
import { appendChange, appendPlan } from "./internal/appendPlan.ts"
import * as Hash from "./internal/hash.ts"
import { makePrefixDigests } from "./internal/prefixDigests.ts"
import { extendRuns, makeCarries, sameItems } from "./internal/appendCarry.ts"
import { makeItemMemo } from "./internal/editMessages.ts"
import { type AppendReport, appendedResult, keepRelativeOrder, makeReportEntries } from "./internal/stableResults.ts"
import { usable } from "./internal/storedState.ts"
import { entriesOf, type Extras, messageOfEntry, tokensOfEntry } from "./internal/windowEntries.ts"
import * as PromptWindow from "./PromptWindow.ts"
import * as SessionOptions from "./SessionOptions.ts"
import * as Summarizer from "./Summarizer.ts"
import type { TokenCounter } from "./TokenCounter.ts"
import type * as ToolDefinitions from "./ToolDefinitions.ts"
import * as WindowChange from "./WindowChange.ts"
import type * as WindowEntry from "./WindowEntry.ts"
import * as WindowState from "./WindowState.ts"
import * as WindowStore from "./WindowStore.ts"
import * as WindowSummary from "./WindowSummary.ts"

/**
 * The filter name in the exclusion reason of the candidates an appending call leaves out: they
 * were left out by an earlier compaction of the conversation (`Filtered`,
 * `filterName: "stable-window"`). Defined beside the results that use it
 * (`internal/stableResults.ts`), and published here.
 *
 * @since 0.3.0
 * @category constants
 */
export { stableWindowFilter } from "./internal/stableResults.ts"

/**
 * Options of a stable window: `PromptWindow`'s and the pipeline's, and
 *
 * - `lowWatermark` — the fraction of the target a compaction cuts down to (0 < λ <= 1); by
 *   default chosen per compaction from the cost model (rule S11);
 * - `writeOverhead` — for that choice: the share of the no-cache input cost that cache writes
 *   may add on average (default {@link defaultWriteOverhead});
 * - `summarizer` — with one, a compaction replaces what it drops by a summary (docs/ai.md,
 *   "Compaction with summaries"); `summaryTokens` — the summary's budget (default
 *   {@link defaultSummaryShare} of the target); `summaryLedger` — the facts of what a summary
 *   covers that its text leaves out are listed after it (default `true`; `SummaryLedger`,
 *   docs/ai.md rules L1–L6);
 * - `cacheRule` — the provider's cache rule for predictions and the default watermark (default
 *   `CacheModel.Anthropic5m`);
 * - `conversationKey` — the key of a call without a `ConversationKey` in context (default
 *   `ConversationKey.fromOpening`); a throw fails the call with an `AiError` naming it;
 * - `ttl` — how long a conversation's state lives after its last call (default one hour);
 * - `storeTimeout` — how long a store operation may take (default 1 second);
 * - `settings` — text naming whatever else shapes the windows (the layer's strategies): a state
 *   written under other settings is not used;
 * - `maskToolResults` — `true`: a compaction first replaces the tool results older than the
 *   stretch it keeps by stubs naming them (`Masking`, docs/ai.md "Masking old tool results");
 *   default `false`;
 * - `toolResultReferences` — `true` (default): a tool result identical to one still in the
 *   window is sent as a reference to it (`ResultReferences`, docs/ai.md "Repeated tool
 *   results"); `false`: sent whole.
 *
 * @since 0.3.0
 * @category models
 */
export interface Options extends PromptWindow.Options, Pipeline.Options, PromptWindow.FitOptions {
  readonly lowWatermark?: number | undefined
  readonly writeOverhead?: number | undefined
  readonly summarizer?: Summarizer.Summarizer["Service"] | undefined
  readonly summaryTokens?: number | undefined
  readonly summaryLedger?: boolean | undefined
  readonly cacheRule?: CacheModel.CacheRule | undefined
  readonly conversationKey?: ((prompt: Prompt.Prompt) => string) | undefined
  readonly ttl?: Duration.Input | undefined
  readonly storeTimeout?: Duration.Input | undefined
  readonly settings?: string | undefined
  readonly maskToolResults?: boolean | undefined
  readonly toolResultReferences?: boolean | undefined
}

/**
 * What a call did with the conversation's window (`WindowChange.Action`).
 *
 * @since 0.3.0
 * @category models
 */
export type Action = WindowChange.Action

/**
 * Why no state was used (`WindowChange.FreshReason`).
 *
 * @since 0.3.0
 * @category models
 */
export type FreshReason = WindowChange.FreshReason

/**
 * The change from the conversation's previous window to this call's (`WindowChange.Change`).
 *
 * @since 0.3.0
 * @category models
 */
export type Change = WindowChange.Change

/**
 * A planned call: its conversation key, the fitted prompt and result, the change, the cache
 * prediction, and the state {@link StableWindow.commit} writes.
 *
 * @since 0.3.0
 * @category models
 */
export interface Plan {
  readonly key: string
  /** The budget the window was fitted to: the call's, corrected by the calibration. */
  readonly budget: ContextBudget
  /** The calibration ratio the budget was corrected by (1: none). */
  readonly ratio: number
  /** The tokens the request counts: tool definitions, the window, the request's overhead. */
  readonly countedTokens: number
  readonly fitted: PromptWindow.Fitted
  readonly change: Change
  readonly prediction: CacheModel.Prediction
  readonly next: WindowState.WindowState
  /** The revision of the state the plan was made from (`undefined`: none decoded). */
  readonly basedOn: number | undefined
  /** What the commit needs to move `next` onto a newer state (design 92). */
  readonly lineage?: WindowStore.Lineage | undefined
}

/**
 * A call's own figures: the conversation `key` (else from context or the options) and the
 * tokens of the tool definitions sent before the prompt.
 *
 * @since 0.3.0
 * @category models
 */
export interface Call {
  readonly key?: string | undefined
  readonly toolTokens?: number | undefined
  /** The tokens a request costs besides its messages (`TokenCounter.requestOverhead`), for calibration. */
  readonly requestOverhead?: number | undefined
  /**
   * The call's tool definitions, in order (since 0.3.0): a compaction's summary request sends
   * them with the conversation's last request, when that request had tools of the same count.
   */
  readonly tools?: ReadonlyArray<ToolDefinitions.AnyTool> | undefined
}

/**
 * What the provider reported of a call's input, in the form this module took before 0.3.0's
 * `CallReport.Reported` (its `inputTokens` is that one's `total`). {@link StableWindow.commit}
 * takes either.
 *
 * @since 0.3.0
 * @category models
 */
export interface Reported {
  readonly inputTokens: number
  readonly model?: string | undefined
}

/**
 * `Calibration.calibrationBounds`, kept here for the code that imported it from this module.
 *
 * @since 0.3.0
 * @category constants
 */
export const calibrationBounds = Calibration.calibrationBounds

/**
 * `Calibration.ratioOf` on a {@link Reported}, kept here for the code that imported it from
 * this module.
 *
 * @since 0.3.0
 * @category calibration
 */
export const ratioOf = (reported: Reported, countedTokens: number): number =>
  Calibration.ratioOf(reported.inputTokens, countedTokens)

/**
 * `Calibration.calibrated`, kept here for the code that imported it from this module.
 *
 * @since 0.3.0
 * @category calibration
 */
export const calibrated = Calibration.calibrated

/** A report in either form, as `CallReport.Reported`. */
const reportedOf = (reported: CallReport.Reported | Reported | undefined): CallReport.Reported | undefined =>
  reported === undefined || !("inputTokens" in reported)
    ? reported
    : {
      total: reported.inputTokens,
      cacheRead: undefined,
      cacheWrite: undefined,
      uncached: undefined,
      ...(reported.model === undefined ? {} : { model: reported.model })
    }

/**
 * @since 0.3.0
 * @category models
 */
export interface StableWindow {
  /** Plans a call's window (nothing is written). */
  readonly fit: (
    prompt: Prompt.RawInput,
    budget: ContextBudget,
    call?: Call
  ) => Effect.Effect<
    Plan,
    PromptWindow.FitError | AiError.AiError | PromptWindow.CandidateError,
    Pipeline.Services | TokenCounter
  >
  /**
   * Records a planned call as sent, with what the provider reported of its input (for
   * calibration); never fails (rules S6–S8).
   */
  readonly commit: (plan: Plan, reported?: CallReport.Reported | Reported) => Effect.Effect<WindowStore.WriteResult>
  /**
   * Updates the calibration of a call already committed (a stream's usage comes with its last
   * part); written only while the state is still that commit's.
   */
  readonly calibrate: (plan: Plan, reported: CallReport.Reported | Reported) => Effect.Effect<WindowStore.WriteResult>
}

/**
 * The write overhead the default low watermark allows: cache writes may add 8% of the no-cache
 * input cost. With `CacheModel.lowWatermark`'s λ = √(1 − 2(w − r)ε / overhead), a cycle's cache
 * writes are T and its requests T(1 − λ²)/(2ε) tokens, so under a rule that writes at the base
 * price (OpenAI's) the hit ratio is 1 − 2ε/(1 − λ²) = 1 − overhead/(w − r) with Anthropic's w − r
 * of 1.15: 93% at 0.08 (91% at 0.1), whatever the growth, while λ stays above its lower bound.
 *
 * @since 0.3.0
 * @category constants
 */
export const defaultWriteOverhead = 0.08

/**
 * The default budget of a compaction's summary, as a share of the call's target: 10%.
 *
 * @since 0.3.0
 * @category constants
 */
export const defaultSummaryShare = 0.1

/** The default lifetime of a state: the longest prompt-cache lifetime (Anthropic's 1 hour). */
const defaultTtl = Duration.hours(1)

/** A fit's span, made once (no stack trace a call: docs/design.md item 145). */
const fitSpan = HotSpans.withSpan("cupel.stable_window.fit")

/**
 * A stable window over the `KeyValueStore` in context.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { KeyValueStore } from "effect/persistence"
 * import { ContextBudget, FirstFitSlice, OverflowNotifier, RecencyScorer } from "effect-cupel"
 * import * as StableWindow from "effect-cupel/ai/StableWindow"
 * import * as TokenCounter from "effect-cupel/ai/TokenCounter"
 * import * as SectionedPlacer from "effect-cupel/placers/SectionedPlacer"
 *
 * const program = Effect.gen(function*() {
 *   const window = yield* StableWindow.make({})
 *   const budget = new ContextBudget.ContextBudget({ maxTokens: 8_000, targetTokens: 6_000 })
 *   const plan = yield* window.fit([{ role: "user", content: "hi" }], budget)
 *   // … send plan.fitted.prompt to the model; once it answered:
 *   yield* window.commit(plan)
 * })
 * const layers = Layer.mergeAll(
 *   KeyValueStore.layerMemory, RecencyScorer.layer, FirstFitSlice.layer, SectionedPlacer.conversation,
 *   OverflowNotifier.layerLog, TokenCounter.make((m) => 4 + JSON.stringify(m).length / 4)
 * )
 * ```
 *
 * @since 0.3.0
 * @category constructors
 */
export const make = (
  options: Options
): Effect.Effect<StableWindow, InvalidConfigError, KeyValueStore.KeyValueStore> =>
  Effect.gen(function*() {
    yield* check(options)
    const store = yield* WindowStore.make(yield* KeyValueStore.KeyValueStore, {
      timeout: options.storeTimeout,
      // The store's atomic write, when its layer provides one (design 92).
      compareAndSet: Option.getOrUndefined(yield* Effect.serviceOption(WindowStore.CompareAndSet))
    })
    return fromStore(store, options)
  })

/**
 * Checks the options a stable window cannot work with: `lowWatermark` outside (0, 1],
 * `writeOverhead` not above 0, `summaryTokens` not a whole number above 0, a `ttl` or
 * `storeTimeout` that is not a positive duration, `maskToolResults` or `toolResultReferences`
 * not a boolean; fails
 * with an `InvalidConfigError` naming the option.
 *
 * @since 0.3.0
 * @category validation
 */
export const check = (options: Options): Effect.Effect<void, InvalidConfigError> => {
  const {
    lowWatermark,
    writeOverhead,
    summaryTokens,
    summaryLedger,
    ttl,
    storeTimeout,
    maskToolResults,
    toolResultReferences
  } = SessionOptions.stable
  const problem = SessionOptions.checkValues(
    { ...options },
    { lowWatermark, writeOverhead, summaryTokens, summaryLedger, ttl, storeTimeout, maskToolResults, toolResultReferences },
    new Set()
  )
  return problem === undefined
    ? Effect.void
    : Effect.fail(new InvalidConfigError({ component: "StableWindow", ...problem }))
}

/**
 * A stable window over a {@link WindowStore.WindowStore}. Options are taken as they are: check
 * them with {@link check} when they come from elsewhere.
 *
 * @since 0.3.0
 * @category constructors
 */
export const fromStore = (store: WindowStore.WindowStore, options: Options): StableWindow => {
  // The summariser's failures are logged once, and once more when it writes a summary again.
  const summarizerFailing = Ref.makeUnsafe(false)
  let lastSummary: WindowSummary.Summary | undefined
  const summaryOf = (state: WindowState.SummaryState): WindowSummary.Summary => {
    if (lastSummary === undefined || lastSummary.state.id !== state.id || lastSummary.state.text !== state.text) {
      lastSummary = WindowSummary.fromState(state)
    }
    return lastSummary
  }
  const itemCache = options.itemCache ?? PromptWindow.makeItemCache()
  const reportEntries = makeReportEntries()
  const { digestsOf, hashOf, prepare } = makePrefixDigests()
  const maskMemo = Masking.makeMemo()
  const referenceMemo = ResultReferences.makeMemo()
  const itemMemo = makeItemMemo()
  // Design 108: what each conversation's last call carries over to its next append.
  const carries = makeCarries()
  const masking = options.maskToolResults === true
  const referencing = options.toolResultReferences !== false
  const rule = options.cacheRule ?? CacheModel.Anthropic5m
  const ttlMillis = Duration.toMillis(Duration.fromInputUnsafe(options.ttl ?? defaultTtl))
  const documents = options.documents ?? []
  const settings = Hash.hashString(JSON.stringify([
    options.settings ?? "",
    options.startOn ?? "user",
    options.deduplication ?? false,
    options.overflowStrategy ?? "Throw",
    documents.map((d) => [d.content, d.tokens, d.kind, d.pinned]),
    // Only when not the defaults: the states written before these options keep their fingerprint.
    ...(masking ? ["mask"] : []),
    ...(referencing ? [] : ["no-references"])
  ]))

  // One generator function for the window's calls, made once with the window: a generator
  // closure made at every call kept the call's values past two scavenges (docs/design.md item 144).
  const fitBody = Effect.fnUntraced(function*(prompt: Prompt.RawInput, callBudget: ContextBudget, call: Call | undefined) {
    let budget = callBudget
    const made = yield* PromptWindow.toCandidates(prompt, { ...options, itemCache })
    const messages = made.messages
    const n = messages.length
    // Design 103: a huge message is hashed in pieces, with yields, before the key and the
    // digests read its hash.
    yield* prepare(messages)
    const keyOf = options.conversationKey
    const key = call?.key ?? (yield* ConversationKey.ConversationKey) ??
      (keyOf === undefined
        ? ConversationKey.fromOpening(messages, hashOf)
        // The caller's function: a throw is the call's typed failure, naming it, not a defect.
        : yield* Effect.try({
          try: () => keyOf(Prompt.fromMessages(messages)),
          catch: (cause) =>
            AiError.make({
              module: "effect-cupel/ai/StableWindow",
              method: "conversationKey",
              reason: new AiError.UnknownError({
                description: `the conversationKey function threw: ${describeThrown(cause)}`
              })
            })
        }))
    const now = yield* Clock.currentTimeMillis
    const toolTokens = call?.toolTokens ?? 0
    const found = yield* store.read(key)
    const basedOn = found._tag === "Found" ? found.state.revision : undefined
    const digests = digestsOf(messages)
    // Read now: the array is the layer's, and a later call may extend it.
    const historyDigest = digests[n]!
    const carried = carries.get(key)
    const previous = usable(found, { settings, now, ttlMillis, n, digests, documents: documents.length }, carried)
    // The carry continues only the state it was made for (usable then gave its entries back).
    const carry = carried !== undefined && previous._tag === "Usable" && previous.entries === carried.entries
      ? carried
      : undefined
    // C7: the counts corrected by the provider's last report, while the state is this layer's.
    const calibration = found._tag === "Found" && found.state.fingerprint === settings &&
        now - found.state.updatedAtMillis <= ttlMillis
      ? found.state.calibration
      : undefined
    const ratio = calibration?.ratio ?? 1
    const overhead = call?.requestOverhead ?? 0
    budget = Calibration.calibrated(budget, ratio, toolTokens, overhead)
    const state = previous._tag === "Usable" ? previous.state : undefined
    const previousEntries = previous._tag === "Usable" ? previous.entries : undefined
    // K6: the tool messages the window shortened are sent shortened again, the same way.
    const kept: ReadonlyArray<PromptWindow.Shortening> = (state?.shortened ?? []).map(([index, keepTokens]) => ({
      index,
      keepTokens
    }))
    let candidates = yield* PromptWindow.applyShortenings(made, kept)
    // R1 over the previous window's results: read by the last call up to where it read them.
    const poolIndex = carry?.pool ?? ResultReferences.makePoolIndex()
    // X3, R1–R2: the state's stubs and references made again; references for the new messages.
    let edited = yield* ToolResultEdits.atCall(candidates, {
      masked: state?.masked ?? [],
      pairs: state?.references ?? [],
      pool: previousEntries ?? [],
      poolIndex,
      seen: state?.historyLength ?? 0,
      references: referencing,
      memo: maskMemo,
      referenceMemo,
      itemMemo
    })
    candidates = edited.candidates
    // K2: a newest user message that does not fit the call's whole target fails the call,
    // whether it would append or compact (a compaction fits to a lower target).
    yield* PromptWindow.checkTurn(candidates, budget.targetTokens)
    let shortenings = kept
    const oldSummary = state?.summary === undefined ? undefined : summaryOf(state.summary)
    // The carry's tokens and report hold for this call's items only when they are the same objects.
    const itemsCarry = carry !== undefined && sameItems(carry, candidates.items, oldSummary?.item) ? carry : undefined
    let summary = oldSummary
    const extras = (): Extras => ({ candidates, documents, summary })
    const tokensBefore = (entry: WindowEntry.WindowEntry): number =>
      tokensOfEntry(entry, { candidates, documents, summary: oldSummary })

    let fitted: PromptWindow.Fitted | undefined
    let action: Action
    let watermark: number | undefined
    let entries: Array<WindowEntry.WindowEntry>
    let appended = 0
    // S3: append while it fits.
    const append = previousEntries === undefined || state === undefined
      ? undefined
      : appendPlan(
        candidates,
        previousEntries,
        state.historyLength,
        tokensBefore,
        budget.targetTokens,
        itemsCarry?.windowTokens
      )
    let summaryOutcome: WindowSummary.Outcome | undefined
    let appendReport: AppendReport | undefined
    if (append !== undefined && state !== undefined && previousEntries !== undefined) {
      action = "append"
      entries = append.entries
      appended = append.addedTokens
      const made = appendedResult(extras(), previousEntries, entries, budget.targetTokens, reportEntries, itemsCarry?.report)
      fitted = made.fitted
      appendReport = made.report
    } else {
      // K6, with the cut at the low watermark (what a compaction cuts to) so that the calls
      // after it can append.
      // S11: the mean growth, or a high quantile of the recent steps when larger — bursty growth
      // (a new file among references) is not seen by a mean, and a watermark set from the mean
      // cuts too little for the bursts that end a cycle.
      const growth = state !== undefined && state.appends > 0
        ? Math.max(state.addedTokens / state.appends, recentStepQuantile(candidates))
        : lastStepTokens(candidates)
      const lambda = options.lowWatermark ?? CacheModel.lowWatermark(rule, {
        growthPerCall: growth,
        targetTokens: budget.targetTokens,
        writeOverhead: options.writeOverhead ?? defaultWriteOverhead
      })
      if (options.shortenToolResults !== false) {
        const shortened = yield* PromptWindow.shortenTurn(
          candidates,
          budget.targetTokens,
          Math.floor(lambda * budget.targetTokens)
        )
        candidates = shortened.candidates
        shortenings = [...shortenings, ...shortened.shortenings]
      }
      const total = candidates.items.reduce((sum, item) => sum + item.tokens, 0)
      if (total <= budget.targetTokens) {
        // S5 and K1: everything fits (nothing remembered, or the previous window cannot be
        // extended as it is — a late member of a group sent earlier): the whole history.
        action = state === undefined ? "fresh" : "compact"
        fitted = yield* PromptWindow.fitCandidates(candidates, budget, options)
        // R4: a reference whose target the window left out is sent whole again.
        const repaired = yield* ToolResultEdits.repair(fitted, edited, (c) => PromptWindow.fitCandidates(c, budget, options))
        fitted = repaired.fitted
        edited = repaired.edited
        candidates = edited.candidates
      } else {
        // S4: compact in one step to the low watermark, at least what the call must keep.
        action = "compact"
        watermark = lambda
        const must = PromptWindow.keeping(candidates, budget.targetTokens)
        const need = must.pinnedTokens + must.keptTokens
        const summarizer = options.summarizer
        // With a summariser, room for the summary comes off the watermark, not off what the
        // call must keep.
        const reserve = summarizer === undefined
          ? 0
          : options.summaryTokens ?? Math.floor(defaultSummaryShare * budget.targetTokens)
        const low = Math.max(Math.floor(watermark * budget.targetTokens) - reserve, need)
        let lowBudget = new Budget({ ...budget, targetTokens: Math.min(budget.targetTokens, low) })
        const fitTo = (to: ContextBudget) => (c: PromptWindow.Candidates) =>
          Effect.map(
            PromptWindow.fitCandidates(c, to, options),
            (run) => previousEntries === undefined ? run : keepRelativeOrder(run, c, documents, previousEntries)
          )
        // X7: the images of the window this cut keeps are masked (X2), and the room they free
        // is left to the calls to come: the low target less what they save.
        if (masking) {
          const room = yield* ToolResultEdits.imageRoom(candidates, yield* fitTo(lowBudget)(candidates), {
            keep: new Set(must.kept.keys()),
            masked: edited.masked,
            memo: maskMemo
          })
          if (room > 0) {
            lowBudget = new Budget({ ...budget, targetTokens: Math.max(lowBudget.targetTokens - room, Math.min(need, lowBudget.targetTokens)) })
          }
        }
        // X2: mask first, down to the low watermark; what still does not fit is left out or summarised.
        if (masking) {
          edited = yield* ToolResultEdits.atCompaction({ ...edited, candidates }, {
            lowTokens: lowBudget.targetTokens,
            keep: new Set(must.kept.keys()),
            memo: maskMemo
          })
          candidates = edited.candidates
        }
        // R4: a reference whose target the compaction left out is sent whole again.
        const repaired = yield* ToolResultEdits.repair(yield* fitTo(lowBudget)(candidates), { ...edited, candidates }, fitTo(lowBudget))
        fitted = repaired.fitted
        edited = repaired.edited
        candidates = edited.candidates
        if (summarizer !== undefined) {
          const inWindow = new Set<number>()
          for (const entry of entriesOf(fitted.result.window, documents)) {
            if (entry._tag === "Message") inWindow.add(entry.index)
          }
          // The summary request's prefix: the conversation's last request, as it was sent.
          const context = previousEntries === undefined
            ? []
            : previousEntries.map((entry) => messageOfEntry(entry, { candidates, documents, summary: oldSummary }))
          const written = yield* WindowSummary.summarize({
            summarizer,
            candidates,
            inWindow,
            previous: oldSummary?.state,
            context,
            // The last request's tools, as far as they are known: this call's, when the state
            // says that request's tools counted the same (the check the cache model makes).
            tools: state !== undefined && state.toolTokens === toolTokens ? call?.tools ?? [] : [],
            maxTokens: Math.min(reserve, budget.targetTokens - fitted.result.totalTokens),
            ledger: options.summaryLedger
          })
          summaryOutcome = written.outcome
          yield* logSummarizer(summarizerFailing, written.outcome)
          summary = written.summary === undefined ? undefined : summaryOf(written.summary)
          if (summary !== undefined) {
            fitted = WindowSummary.insert(fitted, candidates, summary, PromptWindow.toPrompt, budget.targetTokens)
          }
        } else summary = undefined
      }
      entries = entriesOf(fitted.result.window, documents)
    }
    const tokensAfter = (entry: WindowEntry.WindowEntry): number => tokensOfEntry(entry, extras())
    const summaryReplaced = oldSummary !== undefined && summary !== oldSummary

    const windowTokens = fitted.result.totalTokens
    // An append's change and common prefix follow from its plan (the previous window is the
    // new one's start): no pass over both windows.
    const change = action === "append" && append !== undefined && previousEntries !== undefined
      ? appendChange(append, previousEntries.length)
      : WindowChange.changeOf(
        { previous: previousEntries, current: entries, tokensBefore, tokensAfter, summaryReplaced },
        action,
        previous._tag === "Unusable" ? previous.reason : undefined,
        watermark,
        found._tag === "Failed" ? found.message : undefined,
        summaryOutcome
      )
    const sameTools = state !== undefined && state.toolTokens === toolTokens
    const common = previousEntries === undefined || !sameTools
      ? 0
      : toolTokens + (action === "append" && append !== undefined
        ? append.previousTokens
        : WindowChange.commonPrefix(previousEntries, entries, tokensAfter, summaryReplaced))
    const prediction = CacheModel.predict(rule, {
      totalTokens: toolTokens + windowTokens,
      previousTokens: found._tag === "Found" ? found.state.toolTokens + found.state.windowTokens : 0,
      commonPrefixTokens: common,
      secondsSincePrevious: found._tag === "Found" ? Math.max(0, now - found.state.updatedAtMillis) / 1000 : Infinity
    })
    const shortenedInWindow = shortenedIn(shortenings, entries)
    if (shortenedInWindow.length > 0) fitted = { ...fitted, shortened: shortenedInWindow }
    // Made unchecked, checked when it is written (design 124): a state is encoded, every field
    // checked, before a store holds it; one never written is never read (a carry continues
    // only the state its store holds). The checks at every call were a second pass over its
    // arrays.
    const next = new WindowState.WindowState({
      format: 1,
      fingerprint: settings,
      revision: (basedOn ?? 0) + 1,
      historyLength: n,
      historyDigest,
      // An append's runs continue the stored ones (its entries start with theirs, decoded from them).
      window: action === "append" && state !== undefined && previousEntries !== undefined
        ? extendRuns(state.window, WindowState.runsOf(entries.slice(previousEntries.length)))
        : WindowState.runsOf(entries),
      windowTokens,
      toolTokens,
      calls: (state?.calls ?? 0) + 1,
      compactions: (state?.compactions ?? 0) + (action === "compact" ? 1 : 0),
      appends: (state?.appends ?? 0) + (action === "append" ? 1 : 0),
      addedTokens: (state?.addedTokens ?? 0) + appended,
      updatedAtMillis: now,
      ...(summary === undefined ? {} : { summary: summary.state }),
      ...(shortenedInWindow.length === 0 ? {} : {
        shortened: shortenedInWindow.map((sh) => [sh.index, sh.keepTokens] as const)
      }),
      // A carried append's masks and references are all in its window: the state's were, and the
      // appended messages are (design 108).
      ...(action === "append" && carry !== undefined
        ? ToolResultEdits.inState(edited, undefined)
        : ToolResultEdits.inState(edited, entries)),
      ...(calibration === undefined ? {} : { calibration })
    }, { disableChecks: true })
    const countedTokens = toolTokens + windowTokens + overhead
    // The digests array is extended in place by later calls that continue this history, never
    // changed below n + 1 (a history that does not continue it gets an array of its own).
    const history = digests
    const lineage: WindowStore.Lineage = {
      stored: found._tag === "Found"
        ? WindowStore.versionOfState(found.state)
        : found._tag === "Corrupt"
        ? found.version
        : undefined,
      base: found._tag === "Found" ? found.state : undefined,
      digestAt: (length) => (length <= n ? history[length] : undefined)
    }
    carries.set(key, {
      state: next,
      entries,
      items: candidates.items,
      summaryItem: summary?.item,
      windowTokens: action === "append" && append !== undefined
        ? append.previousTokens + append.addedTokens
        : entries.reduce((sum, entry) => sum + tokensAfter(entry), 0),
      report: appendReport,
      // The next call's pool is this window: it starts with this call's pool only after an append.
      pool: action === "append" && referencing ? poolIndex : undefined
    })
    return { key, budget, ratio, countedTokens, fitted, change, prediction, next, basedOn, lineage }
  })
  const fit: StableWindow["fit"] = (prompt, callBudget, call) =>
    fitBody(prompt, callBudget, call).pipe(fitSpan)

  // S8: a call whose read failed does not write. The store is down or hung: the write's own
  // read would hold the call up for another storeTimeout (two waits a call, not one), and
  // the next call reads again anyway.
  const commit: StableWindow["commit"] = (plan, reported) =>
    plan.change.storeFailure !== undefined
      ? Effect.succeed("store-failed")
      : store.write(
        plan.key,
        Calibration.withCalibration(plan.next, plan.countedTokens, reportedOf(reported)),
        plan.basedOn,
        plan.lineage
      )

  const calibrate: StableWindow["calibrate"] = (plan, reported) => {
    const next = new WindowState.WindowState({ ...plan.next, revision: plan.next.revision + 1 })
    return store.write(
      plan.key,
      Calibration.withCalibration(next, plan.countedTokens, reportedOf(reported)),
      plan.next.revision
    )
  }

  return { fit, commit, calibrate }
}

/** Logs a summariser's failure once, and once more when it writes a summary again. */
const logSummarizer = (failing: Ref.Ref<boolean>, outcome: WindowSummary.Outcome): Effect.Effect<void> =>
  outcome._tag === "failed"
    ? Effect.flatMap(Ref.getAndSet(failing, true), (was) =>
      was
        ? Effect.void
        : Effect.logWarning(
          `effect-cupel: ${outcome.error?.message ?? "the summariser failed"}; compactions go ahead without a summary`
        ))
    : outcome._tag === "written"
    ? Effect.flatMap(
      Ref.getAndSet(failing, false),
      (was) => (was ? Effect.logInfo("effect-cupel: the summariser writes summaries again") : Effect.void)
    )
    : Effect.void


/** The shortenings of messages in a window: one pass over the window, whatever their number. */
const shortenedIn = (
  shortenings: ReadonlyArray<PromptWindow.Shortening>,
  entries: ReadonlyArray<WindowEntry.WindowEntry>
): Array<PromptWindow.Shortening> => {
  if (shortenings.length === 0) return []
  const wanted = new Set<number>()
  for (const sh of shortenings) wanted.add(sh.index)
  const present = new Set<number>()
  for (const entry of entries) if (entry._tag === "Message" && wanted.has(entry.index)) present.add(entry.index)
  return shortenings.filter((sh) => present.has(sh.index))
}

/** How many of the history's newest steps the growth quantile of rule S11 reads. */
const recentSteps = 32

/** The quantile of those steps' tokens rule S11 takes: a step larger than nine in ten. */
const stepQuantile = 0.9

/**
 * The 0.9 quantile of the tokens of the history's newest steps (a step: an assistant message and
 * what follows it up to the next one), as this call would send them (masked, by reference).
 */
const recentStepQuantile = (candidates: PromptWindow.Candidates): number => {
  const messages = candidates.messages
  const steps: Array<number> = []
  let tokens = 0
  let open = false
  for (let i = messages.length - 1; i >= 0 && steps.length < recentSteps; i--) {
    tokens += candidates.items[i]!.tokens
    open = true
    if (messages[i]!.role === "assistant") {
      steps.push(tokens)
      tokens = 0
      open = false
    }
  }
  if (steps.length === 0 && open) steps.push(tokens)
  if (steps.length === 0) return 0
  steps.sort((a, b) => a - b)
  return steps[Math.min(steps.length - 1, Math.floor(stepQuantile * steps.length))]!
}

/** The tokens of the history's last step: its newest assistant message and what follows it. */
const lastStepTokens = (candidates: PromptWindow.Candidates): number => {
  const messages = candidates.messages
  let from = messages.findLastIndex((m) => m.role === "assistant")
  if (from < 0) from = messages.length - 1
  let tokens = 0
  for (let i = Math.max(0, from); i < messages.length; i++) tokens += candidates.items[i]!.tokens
  return tokens
}
