/**
 * Session: the one core behind every front door — it turns a model call's prompt into a window
 * and settles the call (docs/design.md, "One session core").
 *
 * `WindowedLanguageModel` (`effect/ai`), the AI SDK adapter's `middleware` and `prepareStep`,
 * and `plain/Trim` only translate formats and lifecycles; what a call's window is and what is
 * recorded of it is decided here, once:
 *
 * - the default strategies: `RecencyScorer`, `FirstFitSlice`, `SectionedPlacer.conversation`,
 *   `OverflowNotifier.layerLog`; no deduplication, `Throw` on overflow;
 * - the budget: `contextWindow − outputReserve − requestOverhead − toolTokens`, corrected by
 *   the calibration (`Calibration`, rule C7);
 * - the tool definitions, counted by one rule (`ToolDefinitions`): definitions larger than the
 *   room fail the call with a `ToolDefinitionsError`;
 * - the settings fingerprint a stable window's state is written under;
 * - the figures of the span `cupel.window` and the `WindowMetrics`, and the {@link CallReport}.
 *
 * A call is {@link Service.fit}ted (its prompt becomes a {@link Fitting}: the prompt to send,
 * the pipeline's result, the budget…), then {@link Service.settle}d when it ended: its window is
 * recorded (only a call the model answered, or an AI SDK step that was sent: rule S6), its
 * calibration updated from what the provider reported, its end written on the current span and
 * in the metrics, and its report made. {@link Service.commit} records an answered call early (a
 * stream, at its first part). Both spans are the door's: `fit` and `settle` write on the current
 * one.
 *
 * Stable windows (docs/ai.md, rules S1–S11) and per-call windows are two implementations of the
 * service, chosen by layer: {@link layerStable} (a `StableWindow` over a `KeyValueStore`) and
 * {@link layerPerCall} (each call fitted from scratch, one calibration for the session).
 *
 * @since 0.3.0
 */
import { Clock, Context, Effect, Exit, Layer, type Scope } from "effect"
import type { AiError, Prompt } from "effect/ai"
import { KeyValueStore } from "effect/persistence"
import { ContextBudget } from "../ContextBudget.ts"
import { InvalidConfigError } from "../InvalidConfigError.ts"
import * as windowSpan from "./internal/windowSpan.ts"
import { setNewest } from "./internal/newest.ts"
import * as OverflowNotifier from "../OverflowNotifier.ts"
import type * as Pipeline from "../Pipeline.ts"
import type * as Placer from "../placers/Placer.ts"
import * as SectionedPlacer from "../placers/SectionedPlacer.ts"
import * as Scorer from "../scorers/Scorer.ts"
import * as RecencyScorer from "../scorers/RecencyScorer.ts"
import * as Slicer from "../slicers/Slicer.ts"
import * as FirstFitSlice from "../slicers/FirstFitSlice.ts"
import * as CacheDescriptors from "./CacheDescriptors.ts"
import * as CacheModel from "./CacheModel.ts"
import * as CachePlan from "./CachePlan.ts"
import * as Calibration from "./Calibration.ts"
import type * as CallReport from "./CallReport.ts"
import * as MemoryStore from "./MemoryStore.ts"
import * as PromptWindow from "./PromptWindow.ts"
import * as SentRequest from "./SentRequest.ts"
import * as SessionOptions from "./SessionOptions.ts"
import * as StableWindow from "./StableWindow.ts"
import * as Summarizer from "./Summarizer.ts"
import { TokenCounter } from "./TokenCounter.ts"
import * as ToolDefinitions from "./ToolDefinitions.ts"
import * as WindowMetrics from "./WindowMetrics.ts"
import * as WindowStore from "./WindowStore.ts"

/**
 * An `error` part a streamed answer carried, as a door reads it off the stream and gives it to
 * {@link Service.settle} (`Ended.providerError`).
 *
 * @since 0.3.0
 * @category models
 */
export type ProviderError = windowSpan.ProviderError

/**
 * A stream part's error, when it is an `error` part (AI SDK and `effect/ai` alike).
 *
 * @since 0.3.0
 * @category streams
 */
export const providerErrorOf: (part: unknown) => ProviderError | undefined = windowSpan.providerErrorOf

/**
 * A session's windows: stable across calls, or fitted from scratch at every call.
 *
 * @since 0.3.0
 * @category models
 */
export type Mode = "stable" | "per-call"

/**
 * The options of every session.
 *
 * - `contextWindow` — the model's context window, in tokens (prompt and output together);
 *   `outputReserve` — the tokens kept free for the model's answer.
 * - `countTools` — count the call's tool definitions against the window (default `true`).
 * - `scorer` / `slicer` — default recency and first fit; `placer` — default
 *   `SectionedPlacer.conversation`; `notifier` — default `OverflowNotifier.layerLog`.
 * - `overflowStrategy` — default `"Throw"`; `deduplication` — default `false` (a conversation may
 *   well repeat itself); `verbosity` — the pipeline's trace tier.
 * - and `PromptWindow`'s options: `annotate`, `documents`, `startMillis`, `itemCache`,
 *   `startOn`, `shortenToolResults`.
 *
 * @since 0.3.0
 * @category models
 */
export interface Options extends PromptWindow.Options, PromptWindow.FitOptions, Pipeline.Options {
  readonly contextWindow: number
  readonly outputReserve: number
  readonly countTools?: boolean | undefined
  readonly scorer?: Scorer.Definition | undefined
  readonly slicer?: Slicer.Definition | undefined
  readonly placer?: Layer.Layer<Placer.Placer> | undefined
  readonly notifier?: Layer.Layer<OverflowNotifier.OverflowNotifier> | undefined
}

/**
 * The options of a stable session: {@link Options}, and the stable window's (see
 * `StableWindow.Options`): `lowWatermark`, `writeOverhead`, `summaryTokens`, `summaryLedger`, `cacheRule`,
 * `conversationKey`, `ttl`, `storeTimeout`; `store` — the conversations' states (default: in
 * memory, in this layer); `summarizer` — compactions replace what they drop by a summary;
 * `promptCache` — the provider's prompt cache on the wire (default on: see `CachePlan.Options`;
 * `false` turns it off); `maskToolResults` — compactions mask old tool results first (default
 * off); `toolResultReferences` — repeated tool results sent by reference (default on).
 *
 * @since 0.3.0
 * @category models
 */
export interface StableOptions<SE = never, SR = never, ZE = never, ZR = never> extends Options {
  readonly lowWatermark?: number | undefined
  readonly writeOverhead?: number | undefined
  readonly summaryTokens?: number | undefined
  readonly summaryLedger?: boolean | undefined
  readonly cacheRule?: CacheModel.CacheRule | undefined
  readonly conversationKey?: ((prompt: Prompt.Prompt) => string) | undefined
  readonly ttl?: StableWindow.Options["ttl"]
  readonly storeTimeout?: StableWindow.Options["storeTimeout"]
  readonly store?: Layer.Layer<KeyValueStore.KeyValueStore, SE, SR> | undefined
  readonly summarizer?: Layer.Layer<Summarizer.Summarizer, ZE, ZR> | undefined
  readonly promptCache?: CachePlan.Options | undefined
  /** Compactions mask old tool results first (`StableWindow.Options`; since 0.3.0). */
  readonly maskToolResults?: boolean | undefined
  /** Repeated tool results sent by reference (default `true`; `StableWindow.Options`; since 0.3.0). */
  readonly toolResultReferences?: boolean | undefined
}

/**
 * One model call, as a door gives it.
 *
 * @since 0.3.0
 * @category models
 */
export interface Call<M extends CallReport.Method = CallReport.Method> {
  readonly method: M
  readonly prompt: Prompt.RawInput
  /**
   * The call's tool definitions, to count (each a name and `ToolDefinitions.textOf`), with the
   * provider flags the door sees (for the cache-miss diagnosis, rule M2).
   */
  readonly tools?: ReadonlyArray<ToolDefinitions.Counted & CacheDescriptors.ToolInput> | undefined
  /**
   * The call's `effect/ai` tools, when it has them: a compaction's summary request sends them
   * with the conversation's last request.
   */
  readonly toolkit?: ReadonlyArray<ToolDefinitions.AnyTool> | undefined
  /** Tokens the tools take that the door counted itself (`prepareStep`'s `toolTokens`). */
  readonly toolReserve?: number | undefined
  /** The conversation's key (rule S1), when the door has one; else the stable window's own. */
  readonly key?: Effect.Effect<string, AiError.AiError> | undefined
  /**
   * The call's tool definitions as the provider is sent them, field by field (since 0.3.0): a
   * change from the previous request's is named in the report (`toolsChanged`). Without them,
   * each of `tools`' texts is one field, `definition`.
   */
  readonly toolFields?: ReadonlyArray<SentRequest.ToolFields> | undefined
}

/**
 * A fitted call, waiting for its end.
 *
 * @since 0.3.0
 * @category models
 */
export interface Fitting<M extends CallReport.Method = CallReport.Method> {
  readonly method: M
  readonly mode: Mode
  /** The prompt to send. */
  readonly prompt: Prompt.Prompt
  readonly fitted: PromptWindow.Fitted
  readonly toolTokens: number
  /** The budget the prompt was fitted to, corrected by the calibration. */
  readonly budget: ContextBudget
  /** The calibration the budget was corrected by (rule C7; 1: none). */
  readonly calibration: number
  /** The tokens the request counts: tool definitions, the window, the request's overhead. */
  readonly countedTokens: number
  /** Stable mode: the call's plan (its conversation, change, prediction, next state). */
  readonly plan: StableWindow.Plan | undefined
  /** The call's figures, for its span and the metrics. */
  readonly figures: windowSpan.Fit
  /**
   * Stable mode, `promptCache` on: the call's cache boundaries, for the door to apply to what
   * it sends (since 0.3.0; `CachePlan`).
   */
  readonly cache?: CachePlan.CachePlan | undefined
  /** Stable mode: the request in hashes, and the conversation's previous one (since 0.3.0; `SentRequest`). */
  readonly sent?: SentRequest.SentRequest | undefined
  readonly previousSent?: SentRequest.SentRequest | undefined
  /** Stable mode: how the call's tool definitions differ from the previous request's (since 0.3.0). */
  readonly toolsChanged?: SentRequest.ToolsChange | undefined
}

/**
 * How a call ended, as {@link Service.settle} takes it: its outcome, what the provider reported
 * of its input (when it answered and said), and an `error` part its answer carried.
 *
 * @since 0.3.0
 * @category models
 */
export interface Ended<O extends CallReport.Outcome = CallReport.Outcome> {
  readonly outcome: O
  readonly reported?: CallReport.Reported | undefined
  readonly providerError?: windowSpan.ProviderError | undefined
}

/**
 * What a call's fit can fail with: the pipeline's errors, a newest user message that cannot fit
 * (`TurnBudgetError`), a message that makes no valid item,
 * tool definitions that cannot be counted or leave no room, and the `AiError`s of the token
 * counter and of a door's conversation key.
 *
 * @since 0.3.0
 * @category errors
 */
export type FitError =
  | PromptWindow.FitError
  | PromptWindow.CandidateError
  | ToolDefinitions.ToolDefinitionsError
  | AiError.AiError

/**
 * @since 0.3.0
 * @category models
 */
export interface Service {
  readonly mode: Mode
  /** Fits a call's prompt (nothing is recorded); writes the fit's figures on the current span. */
  readonly fit: <M extends CallReport.Method>(call: Call<M>) => Effect.Effect<Fitting<M>, FitError>
  /**
   * Records a call as answered before its end (a stream, at its first part), with what the
   * provider reported if it already did; once per call, never fails.
   */
  readonly commit: (fitting: Fitting, reported?: CallReport.Reported) => Effect.Effect<void>
  /**
   * Settles a call, once: records it if it was answered or sent and not yet recorded (else
   * updates its calibration from what the provider reported), writes its end on the current
   * span and in the metrics, and gives its report.
   */
  readonly settle: <M extends CallReport.Method, O extends CallReport.Outcome>(
    fitting: Fitting<M>,
    ended: Ended<O>
  ) => Effect.Effect<CallReport.CallReport<Prompt.Prompt, M, O>>
}

/**
 * The session core of the calls of a door (see the module's header).
 *
 * @since 0.3.0
 * @category services
 */
export class Session extends Context.Service<Session, Service>()("effect-cupel/ai/Session") {}

/**
 * How a session's windows are made and recorded: the part that differs between stable and
 * per-call sessions.
 */
interface Windows {
  readonly mode: Mode
  readonly fit: (
    prompt: Prompt.RawInput,
    budget: ContextBudget,
    call: { readonly key: string | undefined; readonly toolTokens: number; readonly overhead: number; readonly toolkit: ReadonlyArray<ToolDefinitions.AnyTool> | undefined }
  ) => Effect.Effect<
    { readonly fitted: PromptWindow.Fitted; readonly ratio: number; readonly budget: ContextBudget; readonly plan: StableWindow.Plan | undefined },
    FitError,
    Pipeline.Services | TokenCounter
  >
  readonly commit: (fitting: Fitting, reported: CallReport.Reported | undefined) => Effect.Effect<WindowStore.WriteResult | undefined>
  /** Stable mode: the provider's cache rule, for the calls' cache misses (rules M1–M4). */
  readonly cacheRule?: CacheModel.CacheRule | undefined
  /** A call already committed: its calibration from a report that came after. */
  readonly calibrate: (
    fitting: Fitting,
    reported: CallReport.Reported,
    committed: WindowStore.WriteResult | undefined
  ) => Effect.Effect<void>
}

/** What became of a fitted call so far. */
interface Progress {
  committed: boolean
  result: WindowStore.WriteResult | undefined
  reported: CallReport.Reported | undefined
}

/**
 * The settings a stable window's state is written under (docs/ai.md, rule S5): a state written
 * under another window, reserve or strategies is not used.
 *
 * @since 0.3.0
 * @category models
 */
export const settingsOf = (options: Options): string =>
  JSON.stringify([
    options.contextWindow,
    options.outputReserve,
    options.scorer?.name ?? "recency",
    options.slicer?.name ?? "first_fit"
  ])

/**
 * The strategies of a session: the options', else the agent defaults.
 *
 * @since 0.3.0
 * @category layers
 */
export const strategies = (options: Options): Layer.Layer<Pipeline.Services> =>
  Layer.mergeAll(
    Scorer.layer(options.scorer ?? RecencyScorer.make()),
    Slicer.layer(options.slicer ?? FirstFitSlice.make()),
    options.placer ?? SectionedPlacer.conversation,
    options.notifier ?? OverflowNotifier.layerLog
  )

/**
 * The agent defaults built, by the library's notifier they were built with (docs/design.md item
 * 133): the recency scorer, the first-fit slicer and the conversation placer hold no resource
 * and no conversation's state (each call's data is its own; the placers' working buffers are
 * scratch, as a layer's placer is for all its conversations), and their layers capture nothing
 * of the context they are built in. A door that makes a session at every call (`trim`) built
 * them at every call: a few dozen microseconds hot, a few hundred in a call that has just read
 * a thousand messages.
 */
const builtDefaults = new Map<Layer.Layer<OverflowNotifier.OverflowNotifier>, Context.Context<Pipeline.Services>>()

/** The strategies of a session, built: the defaults' once a process, any other at each session. */
const servicesOf = (options: Options): Effect.Effect<Context.Context<Pipeline.Services>, never, Scope.Scope> => {
  const notifier = options.notifier ?? OverflowNotifier.layerLog
  const defaults = options.scorer === undefined && options.slicer === undefined && options.placer === undefined &&
    (notifier === OverflowNotifier.layerLog || notifier === OverflowNotifier.layerNoop)
  if (!defaults) return Layer.build(strategies(options))
  const known = builtDefaults.get(notifier)
  if (known !== undefined) return Effect.succeed(known)
  return Effect.tap(Layer.build(strategies(options)), (built) => Effect.sync(() => builtDefaults.set(notifier, built)))
}

/** The pipeline's options with the agent defaults: no deduplication, `Throw` on overflow. */
const pipelineOptionsOf = <O extends Options>(options: O): O & { readonly deduplication: boolean; readonly overflowStrategy: NonNullable<Options["overflowStrategy"]> } => ({
  ...options,
  deduplication: options.deduplication ?? false,
  overflowStrategy: options.overflowStrategy ?? "Throw"
})

/** The options' values, checked (their names are the door's to check). */
const checkOptions = (options: Options, rules: Readonly<Record<string, SessionOptions.Rule>>) => {
  const problem = SessionOptions.checkValues({ ...options }, rules)
  return problem === undefined ? Effect.void : Effect.fail(new InvalidConfigError({ component: "Session", ...problem }))
}

/** The budget of every call before its tools: the window less the reserve and the request's overhead. */
const baseBudget = (options: Options, requestOverhead: number) => {
  const targetTokens = options.contextWindow - options.outputReserve - requestOverhead
  // A target of 0 holds no message: every call would send nothing, or fail.
  return targetTokens < 1
    ? Effect.fail(
      new InvalidConfigError({
        component: "Session",
        path: "contextWindow",
        rule: `leaves the prompt no room: ${options.contextWindow} less outputReserve ${options.outputReserve} and the request's ${requestOverhead} tokens is ${targetTokens}`
      })
    )
    : Effect.succeed(budgetOf(options.contextWindow, targetTokens, options.outputReserve))
}

/**
 * The last budget made, by its figures (docs/design.md item 130): a `ContextBudget` is immutable
 * data, and the one of the same figures is the same value; a door that makes a session at
 * every call (`trim`) made it again at every call, its schema's parser and checks included.
 */
let lastBudget: ContextBudget | undefined

/** The budget of these figures: the last one made when they are its. */
const budgetOf = (maxTokens: number, targetTokens: number, outputReserve: number): ContextBudget => {
  const last = lastBudget
  if (
    last !== undefined && Object.is(last.maxTokens, maxTokens) && Object.is(last.targetTokens, targetTokens) &&
    Object.is(last.outputReserve, outputReserve)
  ) return last
  const made = new ContextBudget({ maxTokens, targetTokens, outputReserve })
  lastBudget = made
  return made
}

/**
 * The previous requests of the conversations a session sent, in hashes, the newest
 * `maxPreviousRequests` conversations: what a call's report compares its prefix with.
 */
const maxPreviousRequests = 1_000

/** The conversations whose last request's messages are kept to lend their hashes (design 124). */
const maxPreviousContents = 64

/**
 * What a session's calls read: its settings, counters and memory. The calls' bodies below are
 * generator functions of the module given this, not generator closures made at every call
 * (docs/design.md item 144): on Node 22 a generator closure kept what it closed over — here the
 * session, and through its progress the call's whole fit — past two scavenges, and a door that
 * makes a session at every call (`trim`) promoted each call to the old generation.
 */
interface Core {
  readonly mode: Mode
  readonly countTools: boolean
  readonly toolCounts: ReturnType<typeof ToolDefinitions.makeCounts>
  readonly counter: TokenCounter["Service"]
  readonly budget: ContextBudget
  readonly window: Windows
  readonly overhead: number
  readonly promptCache: CachePlan.Options | false
  readonly progress: WeakMap<Fitting, Progress>
  readonly misses: ReturnType<typeof CacheDescriptors.make> | undefined
  readonly sentOf: (
    call: Call,
    plan: StableWindow.Plan,
    prompt: Prompt.Prompt
  ) => Effect.Effect<{
    readonly sent: SentRequest.SentRequest
    readonly previousSent: SentRequest.SentRequest | undefined
    readonly toolsChanged: SentRequest.ToolsChange | undefined
  }>
  readonly progressOf: (fitting: Fitting) => Progress
  readonly commit: (fitting: Fitting, reported?: CallReport.Reported) => Effect.Effect<void>
}

/** A call's fit ({@link Service}'s `fit`), without the session's services. */
const fitCall = Effect.fnUntraced(function*<M extends CallReport.Method>(core: Core, call: Call<M>) {
  const { countTools, toolCounts, counter, budget, window, overhead, promptCache, progress, misses, sentOf, mode } = core
  const key = call.key === undefined ? undefined : yield* call.key
  const counted = countTools && call.tools !== undefined ? yield* ToolDefinitions.count(call.tools, counter, toolCounts) : 0
  const toolTokens = counted + (call.toolReserve ?? 0)
  if (toolTokens > budget.targetTokens) {
    return yield* new ToolDefinitions.ToolDefinitionsError({ problem: "room", tokens: toolTokens, availableTokens: budget.targetTokens })
  }
  const callBudget = toolTokens === 0 ? budget : new ContextBudget({ ...budget, targetTokens: budget.targetTokens - toolTokens })
  const made = yield* window.fit(call.prompt, callBudget, { key, toolTokens, overhead, toolkit: call.toolkit })
  const countedTokens = toolTokens + made.fitted.result.totalTokens + overhead
  const figures: windowSpan.Fit = {
    method: call.method,
    mode,
    result: made.fitted.result,
    toolTokens,
    targetTokens: made.budget.targetTokens,
    calibration: made.ratio,
    predictedInputTokens: countedTokens,
    stable: made.plan
  }
  yield* Effect.annotateCurrentSpan(windowSpan.fitAttributes(figures))
  const plan = made.plan
  const wire = plan === undefined ? undefined : yield* sentOf(call, plan, made.fitted.prompt)
  const cache = plan === undefined || promptCache === false ? undefined : CachePlan.ofStable(plan, toolTokens, promptCache)
  if (wire?.toolsChanged !== undefined) {
    yield* Effect.annotateCurrentSpan({
      "cupel.window.tools_changed.name": wire.toolsChanged.name,
      "cupel.window.tools_changed.field": wire.toolsChanged.field
    })
  }
  const fitting: Fitting<M> = {
    method: call.method,
    mode,
    prompt: made.fitted.prompt,
    fitted: made.fitted,
    toolTokens,
    budget: made.budget,
    calibration: made.ratio,
    countedTokens,
    plan: made.plan,
    figures,
    ...(cache === undefined ? {} : { cache }),
    ...(wire === undefined ? {} : {
      sent: wire.sent,
      previousSent: wire.previousSent,
      toolsChanged: wire.toolsChanged
    })
  }
  progress.set(fitting, { committed: false, result: undefined, reported: undefined })
  if (misses !== undefined) misses.describe(fitting, fitting.prompt, call.tools, yield* Clock.currentTimeMillis)
  return fitting
})

/** A call's settling ({@link Service}'s `settle`). */
const settleCall = Effect.fnUntraced(function*<M extends CallReport.Method, O extends CallReport.Outcome>(
  core: Core,
  fitting: Fitting<M>,
  ended: Ended<O>
) {
  const { progressOf, commit, window, misses, mode } = core
  const known = progressOf(fitting)
  const reported = ended.reported
  if (ended.outcome === "answered" || ended.outcome === "sent") {
    if (!known.committed) yield* commit(fitting, reported)
    else if (reported !== undefined && known.reported === undefined) {
      // A stream committed at its first part: its usage comes with its last.
      known.reported = reported
      yield* window.calibrate(fitting, reported, known.result)
    }
  }
  yield* windowSpan.end(fitting.figures, ended.outcome, reported, known.result, ended.providerError)
  const plan = fitting.plan
  const miss = misses?.settle(fitting, {
    key: plan?.key,
    outcome: ended.outcome,
    reported,
    prediction: plan?.prediction,
    compaction: plan?.change.action === "compact"
  })
  if (miss !== undefined) yield* Effect.annotateCurrentSpan(windowSpan.missAttributes(miss))
  return {
    method: fitting.method,
    prompt: fitting.prompt,
    candidates: fitting.fitted.result.report.totalCandidates,
    result: fitting.fitted.result,
    toolTokens: fitting.toolTokens,
    budget: fitting.budget,
    calibration: fitting.calibration,
    mode,
    conversation: plan?.key,
    change: plan?.change,
    prediction: plan?.prediction,
    outcome: ended.outcome,
    reported,
    committed: known.result,
    ...(miss === undefined ? {} : { miss }),
    cache: fitting.cache,
    toolsChanged: fitting.toolsChanged,
    sent: fitting.sent,
    previousSent: fitting.previousSent
  }
})

/** A session over `windows`: the budget, tool counting, figures and reports they share. */
const make = Effect.fnUntraced(function*(
  options: Options & { readonly promptCache?: CachePlan.Options | undefined },
  windows: (counter: TokenCounter["Service"]) => Windows
) {
  yield* WindowMetrics.register
  const counter = yield* TokenCounter
  const budget = yield* baseBudget(options, counter.requestOverhead)
  const services = yield* servicesOf(options)
  const window = windows(counter)
  const mode = window.mode
  const countTools = options.countTools ?? true
  const toolCounts = ToolDefinitions.makeCounts()
  const progress = new WeakMap<Fitting, Progress>()
  const overhead = counter.requestOverhead
  // Stable mode: each request described once, and each call's cache miss (rules M1–M4).
  const misses = window.cacheRule === undefined ? undefined : CacheDescriptors.make(window.cacheRule)
  const promptCache = options.promptCache ?? {}
  const previousRequests = new Map<string, SentRequest.SentRequest>()
  // The messages of the newest conversations' last requests, which lend their hashes to the
  // next (design 124): fewer conversations than the hashes, as they hold the messages.
  const previousContents = new Map<string, ReadonlyArray<Prompt.Message>>()
  const messageHashes = new WeakMap<Prompt.Message, string>()
  const toolHashes = new WeakMap<object, SentRequest.Tool>()
  const toolOf = (tool: SentRequest.ToolFields): SentRequest.Tool => {
    let known = toolHashes.get(tool)
    if (known === undefined) {
      known = SentRequest.toolOf(tool)
      toolHashes.set(tool, known)
    }
    return known
  }

  /** The request a stable window's call sends, in hashes, beside its conversation's previous one. */
  const sentOf = (call: Call, plan: StableWindow.Plan, prompt: Prompt.Prompt) =>
    Effect.map(Clock.currentTimeMillis, (now) => {
      const tools = call.toolFields !== undefined
        ? call.toolFields.map(toolOf)
        : (call.tools ?? []).map((tool) => toolOf({ name: tool.name, fields: { definition: tool.text } }))
      const previousSent = previousRequests.get(plan.key)
      const content = previousContents.get(plan.key)
      const sent = SentRequest.make(
        prompt,
        tools,
        now,
        messageHashes,
        previousSent === undefined || content === undefined ? undefined : { content, messages: previousSent.messages }
      )
      const toolsChanged = previousSent === undefined ? undefined : SentRequest.toolsChange(previousSent.tools, sent.tools)
      return { sent, previousSent, toolsChanged }
    })

  /** Remembers a conversation's request once it was sent (the newest conversations only). */
  const remember = (fitting: Fitting) => {
    const key = fitting.plan?.key
    if (key === undefined || fitting.sent === undefined) return
    setNewest(previousRequests, key, fitting.sent, maxPreviousRequests)
    setNewest(previousContents, key, fitting.prompt.content, maxPreviousContents)
  }

  const fit = <M extends CallReport.Method>(call: Call<M>): Effect.Effect<Fitting<M>, FitError> =>
    fitCall(core, call).pipe(
      Effect.provideContext(services),
      Effect.provideService(TokenCounter, counter),
      // A call the window fails never reaches `settle`: it is counted here.
      Effect.onExit((exit) => Exit.isSuccess(exit) ? Effect.void : windowSpan.unfitted(call.method, mode, Exit.hasInterrupts(exit)))
    )

  const progressOf = (fitting: Fitting): Progress => {
    let known = progress.get(fitting)
    if (known === undefined) {
      // A fitting this session did not make (a door's copy): recorded from now on.
      known = { committed: false, result: undefined, reported: undefined }
      progress.set(fitting, known)
    }
    return known
  }

  const commit = (fitting: Fitting, reported?: CallReport.Reported): Effect.Effect<void> =>
    Effect.suspend(() => {
      const known = progressOf(fitting)
      if (known.committed) return Effect.void
      known.committed = true
      known.reported = reported
      remember(fitting)
      return Effect.map(window.commit(fitting, reported), (result) => {
        known.result = result
      })
    })

  const settle = <M extends CallReport.Method, O extends CallReport.Outcome>(
    fitting: Fitting<M>,
    ended: Ended<O>
  ): Effect.Effect<CallReport.CallReport<Prompt.Prompt, M, O>> => settleCall(core, fitting, ended)

  const core: Core = {
    mode,
    countTools,
    toolCounts,
    counter,
    budget,
    window,
    overhead,
    promptCache,
    progress,
    misses,
    sentOf,
    progressOf,
    commit
  }
  return Session.of({ mode, fit, commit, settle })
})

/**
 * A session of stable windows (docs/ai.md, "Windows across calls"): each conversation's window
 * is kept in the `store` (default: in memory, in this layer) and appended to while it fits,
 * compacted in one step when it does not. Needs a `TokenCounter`. Fails to build with an
 * `InvalidConfigError` naming an option out of its range.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerStable = <SE = never, SR = never, ZE = never, ZR = never>(
  options: StableOptions<SE, SR, ZE, ZR>
): Layer.Layer<Session, InvalidConfigError | SE | ZE, TokenCounter | SR | ZR> =>
  Layer.effect(
    Session,
    Effect.gen(function*() {
      const { store: storeLayer, summarizer: summarizerLayer, ...rest } = options
      yield* checkOptions(rest, { ...SessionOptions.core, ...SessionOptions.stable })
      // Bounded: a store that cannot be reached while it connects is down, not a hung or
      // failed build (design 91). The default options are valid: the in-memory store cannot
      // fail to build.
      const store = yield* WindowStore.build(storeLayer ?? MemoryStore.layer().pipe(Layer.orDie), {
        timeout: options.storeTimeout
      })
      const summarizer = summarizerLayer === undefined
        ? undefined
        : Context.get(yield* Layer.build(summarizerLayer), Summarizer.Summarizer)
      const stable = StableWindow.fromStore(store, {
        ...pipelineOptionsOf(rest),
        summarizer,
        itemCache: options.itemCache ?? PromptWindow.makeItemCache(),
        // The strategies shape every window: a state written under others is not used.
        settings: settingsOf(options)
      })
      return yield* make(rest, () => ({
        mode: "stable",
        cacheRule: options.cacheRule ?? CacheModel.Anthropic5m,
        fit: (prompt, budget, call) =>
          Effect.map(
            stable.fit(prompt, budget, {
              key: call.key,
              toolTokens: call.toolTokens,
              requestOverhead: call.overhead,
              tools: call.toolkit
            }),
            (plan) => ({ fitted: plan.fitted, ratio: plan.ratio, budget: plan.budget, plan })
          ),
        commit: (fitting, reported) => fitting.plan === undefined ? Effect.succeed(undefined) : stable.commit(fitting.plan, reported),
        calibrate: (fitting, reported, committed) =>
          fitting.plan !== undefined && committed === "written"
            ? Effect.asVoid(stable.calibrate(fitting.plan, reported))
            : Effect.void
      }))
    })
  )

/**
 * A session of per-call windows: every call is fitted from scratch (`PromptWindow.fit`), and
 * the session keeps one calibration (it has no conversations: rule C7). Needs a `TokenCounter`.
 * Fails to build with an `InvalidConfigError` naming an option out of its range.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerPerCall = (options: Options): Layer.Layer<Session, InvalidConfigError, TokenCounter> =>
  Layer.effect(Session, makePerCall(options))

/**
 * A per-call session as an Effect (what {@link layerPerCall} builds): for a door that makes
 * its session per call, as `plain/Trim` does.
 *
 * @since 0.3.0
 * @category constructors
 */
export const makePerCall = (options: Options): Effect.Effect<Service, InvalidConfigError, TokenCounter | Scope.Scope> =>
  makePerCallBody(options)

// Generator functions of the module, not generator closures made at every call (docs/design.md
// item 144): `trim` makes a per-call session at every call.
const makePerCallBody = Effect.fnUntraced(function*(options: Options) {
  yield* checkOptions(options, SessionOptions.core)
  const pipelineOptions = { ...pipelineOptionsOf(options), itemCache: options.itemCache ?? PromptWindow.makeItemCache() }
  const calibration = Calibration.makePerCall()
  return yield* make(options, () => ({
    mode: "per-call",
    fit: (prompt, budget, call) => perCallFit(calibration, pipelineOptions, prompt, budget, call),
    commit: (fitting, reported) => Effect.as(calibration.record(reported, fitting.countedTokens), undefined),
    calibrate: (fitting, reported) => calibration.record(reported, fitting.countedTokens)
  }))
})

/** A per-call session's window: the calibrated budget, and the fit from scratch. */
const perCallFit = Effect.fnUntraced(function*(
  calibration: Calibration.PerCall,
  pipelineOptions: PromptWindow.Options & Pipeline.Options & PromptWindow.FitOptions,
  prompt: Prompt.RawInput,
  budget: ContextBudget,
  call: { readonly toolTokens: number; readonly overhead: number }
) {
  const ratio = yield* calibration.ratio
  const callBudget = Calibration.calibrated(budget, ratio, call.toolTokens, call.overhead)
  const fitted = yield* PromptWindow.fit(prompt, callBudget, pipelineOptions)
  return { fitted, ratio, budget: callBudget, plan: undefined }
})
