/**
 * AiSdk: the Vercel AI SDK adapter — a language model middleware that fits every call's prompt
 * to a context window (docs/ai-sdk.md).
 *
 * `wrapLanguageModel({ model, middleware: AiSdk.middleware({ contextWindow, outputReserve }) })`
 * gives a model whose every `generateText` / `streamText` step sends a window of its prompt:
 * the system messages first, tool calls with their results, reasoning with its tool calls (the
 * same assistant message), the newest user message kept (rules K1–K6 of docs/ai.md), and the
 * windows stable across calls so that the provider's prompt cache serves their prefix (rules
 * S1–S11). It is `StableWindow` (or, per call, `PromptWindow.fit`) behind the provider-level
 * prompt's conversion (`AiSdkPrompt`): the messages sent are the SDK's own objects.
 * {@link prepareStep} does the same on a step's `ModelMessage`s, for `generateText` /
 * `streamText`'s `prepareStep`.
 *
 * `ai` is an optional peer dependency: only this entry point (`effect-cupel/adapters/AiSdk`)
 * uses it, and only its types.
 *
 * @since 0.3.0
 */
import { Clock, Effect, Exit, Layer, ManagedRuntime, Predicate, Ref, type Tracer } from "effect"
import type { Instructions, LanguageModelMiddleware, ModelMessage } from "ai"
import { AiError, Prompt } from "effect/ai"
import * as ContextBudget from "../ContextBudget.ts"
import type { OverflowStrategy } from "../OverflowStrategy.ts"
import * as OverflowNotifier from "../OverflowNotifier.ts"
import type * as Placer from "../Placer.ts"
import * as Scorer from "../Scorer.ts"
import * as Slicer from "../Slicer.ts"
import * as SectionedPlacer from "../placers/SectionedPlacer.ts"
import * as RecencyScorer from "../scorers/RecencyScorer.ts"
import * as FirstFitSlice from "../slicers/FirstFitSlice.ts"
import type * as CacheModel from "../ai/CacheModel.ts"
import * as GptTokenizer from "../ai/GptTokenizer.ts"
import * as MemoryStore from "../ai/MemoryStore.ts"
import * as PromptWindow from "../ai/PromptWindow.ts"
import * as StableWindow from "../ai/StableWindow.ts"
import * as TokenCounter from "../ai/TokenCounter.ts"
import * as WindowMetrics from "../ai/WindowMetrics.ts"
import type * as WindowedLanguageModel from "../ai/WindowedLanguageModel.ts"
import type * as WindowStore from "../ai/WindowStore.ts"
import { describeThrown } from "../internal/describeThrown.ts"
import { watchStream } from "../internal/watchStream.ts"
import * as windowSpan from "../internal/windowSpan.ts"
import type { Verbosity } from "../Verbosity.ts"
import * as AiSdkPrompt from "./AiSdkPrompt.ts"

/**
 * Options of the middleware:
 *
 * - `contextWindow`, `outputReserve` — the model's window and the tokens kept for its answer;
 * - `counter` — the tokens of a text; a message costs `counter(PromptWindow.render(message))`
 *   plus `messageOverhead` (default 4), a request `requestOverhead` (default 3) more. Without a
 *   counter, `gpt-tokenizer`'s o200k_base counts the OpenAI chat format (`GptTokenizer.layer`;
 *   install `gpt-tokenizer`);
 * - `mode` — `"stable"` (default: windows stable across calls) or `"per-call"`;
 * - `conversationKey` — the key of a call's conversation (rule S1; default: a hash of the
 *   prompt's opening, up to its first user message); one that throws rejects the call with an
 *   `AiError` naming it;
 * - `countTools` — count the call's function tools against the window (default `true`), each
 *   as the JSON of its name, description and input schema;
 * - `onReport` — called with each call's {@link Report} when the call has ended (a streamed
 *   call: when its stream has ended, before the end reaches the caller); a promise it returns
 *   is awaited, and one that throws or rejects is logged;
 * - `verbosity` — the pipeline's trace tier (`Verbosity`): `"StageOnly"` (default),
 *   `"StageAndExclusions"` (a `cupel.exclusion` event per excluded message) or `"Full"`;
 * - `telemetry` — a `ManagedRuntime` of the application's telemetry (e.g. of `Otlp.layerJson`
 *   from `effect/observability`): each call's `cupel.window` span (the fit, and the call until
 *   its usage is known), the pipeline's spans below it and the `WindowMetrics` go to its tracer
 *   and its metric registry, so its exporter sends them. One runtime can serve every middleware
 *   and `prepareStep`; dispose of it when the application ends, to flush what is left;
 * - `tracer` — the tracer of the `cupel.window` span and the spans below it (before
 *   `telemetry`'s); without either, spans go to Effect's default tracer;
 * - the strategies (`scorer`, `slicer`, `placer`, `notifier`), `overflowStrategy`,
 *   `deduplication`, and the stable window's options (`lowWatermark`, `writeOverhead`,
 *   `cacheRule`, `ttl`, `storeTimeout`), `startOn`, `shortenToolResults`, `maxConversations`
 *   (the in-memory store's bound).
 *
 * @since 0.3.0
 * @category models
 */
export interface Options extends PromptWindow.FitOptions {
  readonly contextWindow: number
  readonly outputReserve: number
  readonly counter?: ((text: string) => number) | undefined
  readonly messageOverhead?: number | undefined
  readonly requestOverhead?: number | undefined
  readonly mode?: "stable" | "per-call" | undefined
  readonly conversationKey?: ((prompt: AiSdkPrompt.ProviderPrompt) => string) | undefined
  readonly countTools?: boolean | undefined
  readonly onReport?: ((report: Report) => void) | undefined
  readonly tracer?: Tracer.Tracer | undefined
  /** @since 0.3.0 */
  readonly telemetry?: ManagedRuntime.ManagedRuntime<never, unknown> | undefined
  /** @since 0.3.0 */
  readonly verbosity?: Verbosity | undefined
  readonly scorer?: Scorer.Definition | undefined
  readonly slicer?: Slicer.Definition | undefined
  readonly placer?: Layer.Layer<Placer.Placer> | undefined
  readonly notifier?: Layer.Layer<OverflowNotifier.OverflowNotifier> | undefined
  readonly overflowStrategy?: OverflowStrategy | undefined
  readonly deduplication?: boolean | undefined
  readonly lowWatermark?: number | undefined
  readonly writeOverhead?: number | undefined
  readonly cacheRule?: CacheModel.CacheRule | undefined
  readonly ttl?: StableWindow.Options["ttl"]
  readonly storeTimeout?: StableWindow.Options["storeTimeout"]
  readonly maxConversations?: number | undefined
}

/**
 * What one call was sent, and why: the `prompt` sent (the SDK's message objects: provider
 * messages for the middleware, `ModelMessage`s for {@link prepareStep}), `candidates` (the
 * messages it was given), the pipeline `result` with its report, the `toolTokens` counted, the
 * call's `budget` and the `calibration` that corrected it (rule C7: the provider's reported
 * input tokens over the counted ones at the conversation's last call that reported them, 1
 * before any), and in stable mode the `conversation` key, the `change` made to the window
 * (`append`, `compact` or `fresh`), the cache `prediction` and whether the state was
 * `committed`; `outcome` (`answered`, `failed`, `interrupted` — the call's abort signal fired,
 * or its stream was cancelled; `sent` for a step, whose answer `prepareStep` does not see) and
 * the provider's `reported` input tokens (a stream's: those of its `finish` part).
 *
 * @since 0.3.0
 * @category models
 */
export interface Report<M = AiSdkPrompt.ProviderMessage> extends
  Pick<
    WindowedLanguageModel.CallReport,
    | "candidates"
    | "result"
    | "toolTokens"
    | "budget"
    | "calibration"
    | "mode"
    | "conversation"
    | "change"
    | "prediction"
    | "committed"
  >
{
  readonly type: "generate" | "stream" | "step"
  readonly prompt: ReadonlyArray<M>
  readonly outcome: "answered" | "failed" | "interrupted" | "sent"
  readonly reported: { readonly inputTokens: number } | undefined
}

/** A fitted call, waiting for the model's answer. */
interface Fitting {
  readonly fitted: PromptWindow.Fitted
  readonly plan: StableWindow.Plan | undefined
  readonly toolTokens: number
  readonly budget: ContextBudget.ContextBudget
  /** The calibration the budget was corrected by (rule C7). */
  readonly ratio: number
  /** The tokens counted for the request: tools, messages, the request's overhead. */
  readonly countedTokens: number
  /** The call's figures, for its span and the metrics. */
  readonly figures: windowSpan.Fit
  /** The call's `cupel.window` span, open until the call ends. */
  readonly span: Tracer.Span
}

/** A fitted call and what it sent. */
type Call<M> = Fitting & { readonly type: Report["type"]; readonly prompt: ReadonlyArray<M> }

/** The options the window itself takes: all but the SDK-facing ones. */
type CoreOptions = Omit<Options, "conversationKey" | "onReport" | "countTools">

/** How many tool texts a middleware keeps the counts of before it starts over. */
const toolCountLimit = 1_000

/**
 * The window of one middleware or `prepareStep` instance: its runtime (counter, strategies,
 * in-memory store), its stable window, and the fitting and settling of a call.
 */
const makeCore = (options: CoreOptions) => {
  const { counter } = options
  const counterLayer = counter === undefined
    ? GptTokenizer.layer
    : TokenCounter.make(
      (message) => counter(PromptWindow.render(message)) + (options.messageOverhead ?? 4),
      options.requestOverhead ?? 3,
      "AiSdk counter"
    )
  // The application's telemetry (its tracer, its metric registry, its logger) under the
  // window's own services: the spans and metrics of the calls go where the application's go.
  const telemetry = options.telemetry === undefined ? Layer.empty : Layer.effectContext(options.telemetry.contextEffect)
  const runtime = ManagedRuntime.make(Layer.mergeAll(
    counterLayer,
    Scorer.layer(options.scorer ?? RecencyScorer.make()),
    Slicer.layer(options.slicer ?? FirstFitSlice.make()),
    options.placer ?? SectionedPlacer.conversation,
    options.notifier ?? OverflowNotifier.layerLog,
    MemoryStore.layer({ maxEntries: options.maxConversations }),
    Layer.effectDiscard(WindowMetrics.register)
  ).pipe(Layer.provideMerge(telemetry)))
  const mode = options.mode ?? "stable"
  const pipelineOptions = {
    startOn: options.startOn,
    shortenToolResults: options.shortenToolResults,
    deduplication: options.deduplication ?? false,
    overflowStrategy: options.overflowStrategy ?? "Throw",
    verbosity: options.verbosity,
    itemCache: PromptWindow.makeItemCache()
  } as const
  // Built once, at the first call: the runtime's layers (the tokenizer's encoding) load then.
  const stable = Effect.runSync(Effect.cached(StableWindow.make({
    ...pipelineOptions,
    lowWatermark: options.lowWatermark,
    writeOverhead: options.writeOverhead,
    cacheRule: options.cacheRule,
    ttl: options.ttl,
    storeTimeout: options.storeTimeout,
    settings: JSON.stringify([
      options.contextWindow,
      options.outputReserve,
      options.scorer?.name ?? "recency",
      options.slicer?.name ?? "first_fit"
    ])
  })))
  const tracer = options.tracer
  const traced = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    tracer === undefined ? effect : Effect.withTracer(effect, tracer)
  // Tools counted once each, by their text; bounded, since a server whose tool descriptions
  // change per call (a date, a user's name) would otherwise grow it for ever.
  const toolCounts = new Map<string, number>()
  // Per-call mode has no conversations: its calibration is the instance's (rule C7).
  const perCallRatio = Ref.makeUnsafe(1)

  /** Fits a prompt beside tools (each counted once, as its text) and a fixed tool reserve. */
  const fitIn = (
    prompt: Prompt.Prompt,
    call: {
      readonly type: Report["type"]
      readonly toolTexts: ReadonlyArray<string>
      readonly toolReserve: number
      /** The caller's `conversationKey`, applied to the call's prompt. */
      readonly key: (() => string) | undefined
    }
  ) =>
    Effect.gen(function*() {
      const keyOf = call.key
      // The caller's function: a throw rejects the call (counted, its span ended) as an AiError.
      const key = keyOf === undefined ? undefined : yield* Effect.try({
        try: keyOf,
        catch: (cause) =>
          AiError.make({
            module: "effect-cupel/adapters/AiSdk",
            method: "conversationKey",
            reason: new AiError.UnknownError({ description: `the conversationKey function threw: ${describeThrown(cause)}` })
          })
      })
      const tokenCounter = yield* TokenCounter.TokenCounter
      let toolTokens = call.toolReserve
      for (const text of call.toolTexts) {
        let n = toolCounts.get(text)
        if (n === undefined) {
          n = yield* tokenCounter.count(Prompt.makeMessage("system", { content: text }))
          if (toolCounts.size >= toolCountLimit) toolCounts.clear()
          toolCounts.set(text, n)
        }
        toolTokens += n
      }
      const overhead = tokenCounter.requestOverhead
      const budget = yield* ContextBudget.make({
        maxTokens: options.contextWindow,
        targetTokens: Math.max(0, options.contextWindow - options.outputReserve - overhead - toolTokens),
        outputReserve: options.outputReserve
      })
      const plan = mode === "stable"
        ? yield* Effect.flatMap(stable, (window) => window.fit(prompt, budget, { key, toolTokens, requestOverhead: overhead }))
        : undefined
      const ratio = plan?.ratio ?? (yield* Ref.get(perCallRatio))
      const callBudget = plan?.budget ?? StableWindow.calibrated(budget, ratio, toolTokens, overhead)
      const fitted = plan?.fitted ?? (yield* PromptWindow.fit(prompt, callBudget, pipelineOptions))
      const countedTokens = plan?.countedTokens ?? toolTokens + fitted.result.totalTokens + overhead
      const figures: windowSpan.Fit = {
        method: call.type,
        mode,
        result: fitted.result,
        toolTokens,
        targetTokens: callBudget.targetTokens,
        calibration: ratio,
        predictedInputTokens: countedTokens,
        stable: plan
      }
      yield* Effect.annotateCurrentSpan(windowSpan.fitAttributes(figures))
      return { fitted, plan, toolTokens, budget: callBudget, ratio, countedTokens, figures }
    })

  /**
   * Fits a prompt in a span `cupel.window` that stays open after the fit: the call's end
   * ({@link finish}) writes the provider's usage on it and ends it, so that it spans the whole
   * call. A call the window fails (or that is interrupted while fitted) ends it at once, and is
   * counted as `rejected` (or `interrupted`).
   */
  const fit = (prompt: Prompt.Prompt, call: Parameters<typeof fitIn>[1]) =>
    Effect.gen(function*() {
      const span = yield* Effect.makeSpan("cupel.window")
      const fitting = yield* fitIn(prompt, call).pipe(
        Effect.withParentSpan(span),
        Effect.onExit((exit) =>
          Exit.isSuccess(exit)
            ? Effect.void
            : Effect.andThen(windowSpan.unfitted(call.type, mode, Exit.hasInterrupts(exit)), endSpan(span, exit))
        )
      )
      const fitted: Fitting = { ...fitting, span }
      return fitted
    }).pipe(traced)

  /**
   * A call's end on its span and in the metrics (once per call): the usage the provider
   * reported, when it did, written on `cupel.window`, the `WindowMetrics` updated, and the span
   * ended with how the call ended.
   */
  const finish = (
    call: Fitting,
    outcome: Report["outcome"],
    usage: windowSpan.InputUsage | undefined,
    exit: Exit.Exit<unknown, unknown>,
    committed: WindowStore.WriteResult | undefined,
    providerError: windowSpan.ProviderError | undefined
  ) =>
    windowSpan.end(call.figures, outcome, usage, committed, providerError).pipe(
      Effect.withParentSpan(call.span),
      Effect.ensuring(endSpan(call.span, exit))
    )

  /**
   * Records a call as sent (rule S6: only a call the model answered — or, for a step, that was
   * sent), with what the provider reported of its input (rule C7): in stable mode the
   * conversation's state and its calibration, in one write; in per-call mode the instance's
   * calibration.
   */
  const commit = (call: Fitting, reported: StableWindow.Reported | undefined) => {
    const plan = call.plan
    if (plan !== undefined) {
      return Effect.flatMap(stable, (window) => window.commit(plan, reported)).pipe(
        Effect.map((result): WindowStore.WriteResult | undefined => result)
      )
    }
    return reported === undefined
      ? Effect.succeed(undefined)
      : Ref.set(perCallRatio, StableWindow.ratioOf(reported, call.countedTokens)).pipe(Effect.as(undefined))
  }

  /** Hands a call's {@link Report} to `onReport`; a callback that throws or rejects is logged. */
  const report = <M>(
    call: Call<M>,
    outcome: Report["outcome"],
    reported: StableWindow.Reported | undefined,
    committed: WindowStore.WriteResult | undefined,
    onReport: ((report: Report<M>) => void) | undefined
  ) => {
    if (onReport === undefined) return Effect.void
    const plan = call.plan
    const value: Report<M> = {
      type: call.type,
      prompt: call.prompt,
      candidates: call.fitted.result.report.totalCandidates,
      result: call.fitted.result,
      toolTokens: call.toolTokens,
      budget: call.budget,
      calibration: call.ratio,
      mode,
      conversation: plan?.key,
      change: plan?.change,
      prediction: plan?.prediction,
      outcome,
      reported: reported === undefined ? undefined : { inputTokens: reported.inputTokens },
      committed
    }
    // A callback that throws or rejects must not fail a call the model has answered; a promise
    // it returns is awaited (the report is made before the call ends), and never left unhandled.
    return Effect.try((): unknown => onReport(value)).pipe(
      Effect.flatMap((out) => Predicate.isPromiseLike(out) ? Effect.tryPromise(() => Promise.resolve(out)) : Effect.void),
      Effect.catchCause((cause) => Effect.logWarning("AiSdk: onReport threw", cause))
    )
  }

  /**
   * Records a call's outcome, reports it and ends its span: the state advances only for a call
   * the model answered (or, for a step, that was sent).
   */
  const settle = <M>(
    call: Call<M>,
    outcome: Report["outcome"],
    ended: Ended,
    onReport: ((report: Report<M>) => void) | undefined
  ) =>
    Effect.suspend(() => {
      // What the commit did, for the metrics at the call's end (a compaction counts if written).
      let committed: WindowStore.WriteResult | undefined
      return Effect.gen(function*() {
        committed = outcome === "answered" || outcome === "sent" ? yield* commit(call, ended.reported) : undefined
        yield* report(call, outcome, ended.reported, committed, onReport)
      }).pipe(Effect.ensuring(Effect.suspend(() => finish(call, outcome, ended.usage, ended.exit, committed, undefined))))
    })

  return { runtime, fit, commit, report, settle, finish }
}

const runOptions = (signal: AbortSignal | undefined) => signal === undefined ? undefined : { signal }

/**
 * How a call ended, as its settling takes it: the usage reported for calibration and the
 * report, the usage for the span (the provider's input figures), and the span's exit.
 */
interface Ended {
  readonly reported: StableWindow.Reported | undefined
  readonly usage: windowSpan.InputUsage | undefined
  readonly exit: Exit.Exit<unknown, unknown>
}

/** A call that did not end well: its span's exit (an interruption, or the error). */
const unansweredEnd = (outcome: Report["outcome"], error: unknown): Ended => ({
  reported: undefined,
  usage: undefined,
  exit: outcome === "interrupted" ? Exit.interrupt() : Exit.fail(error)
})

/** Ends a span now (the runtime's clock), with how its call ended. */
const endSpan = (span: Tracer.Span, exit: Exit.Exit<unknown, unknown>) =>
  Effect.flatMap(Clock.currentTimeNanos, (now) => Effect.sync(() => span.end(now, exit)))

/** A provider's usage as a report for calibration (none without an input total). */
const reportedOf = (
  usage: { readonly inputTokens: { readonly total: number | undefined } },
  model: string | undefined
): StableWindow.Reported | undefined => {
  const total = usage.inputTokens.total
  return total === undefined ? undefined : { inputTokens: total, model }
}

/** How a call that did not end well ended: interrupted when its abort signal fired. */
const unanswered = (signal: AbortSignal | undefined): Report["outcome"] =>
  signal?.aborted === true ? "interrupted" : "failed"

type StreamResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware["wrapStream"]>>>
type StreamPart = StreamResult["stream"] extends ReadableStream<infer P> ? P : never

/**
 * The language model middleware. Each instance owns its runtime: its conversations' states (in
 * memory), its token counter and strategies. A prompt that cannot fit rejects the call with the
 * pipeline's error itself (an `Error` whose `_tag` names it: `PinnedBudgetError`,
 * `OverflowError`, …) and the model is not called; a bad option rejects every call with an
 * `InvalidConfigError`.
 *
 * @example
 * ```ts
 * import { wrapLanguageModel } from "ai"
 * import * as AiSdk from "effect-cupel/adapters/AiSdk"
 *
 * declare const provider: Parameters<typeof wrapLanguageModel>[0]["model"]
 * const model = wrapLanguageModel({
 *   model: provider,
 *   middleware: AiSdk.middleware({ contextWindow: 128_000, outputReserve: 4_000 })
 * })
 * ```
 *
 * @since 0.3.0
 * @category constructors
 */
export const middleware = (options: Options): LanguageModelMiddleware => {
  const { runtime, fit, commit, report, settle, finish } = makeCore(options)
  const pending = new WeakMap<AiSdkPrompt.CallOptions, Call<AiSdkPrompt.ProviderMessage>>()
  const countTools = options.countTools ?? true
  const memo = AiSdkPrompt.makeMessageMemo()
  const onReport = options.onReport

  /**
   * A streamed call's stream, passed on unchanged. The call is answered by its first part
   * (rule S6) and its usage comes with its `finish` part; the call is recorded when the stream
   * ends — closed, failed or cancelled — in one write, as a generate call is: the window, with
   * the calibration of the finish part's usage when it came (rule C7). A stream that ends
   * before its first part leaves the state as it was. The record and the report are done
   * before the end reaches the caller, so the next step of a tool loop sees them; then the
   * call's `cupel.window` span gets the finish part's usage and ends (the metrics with it). An
   * `error` part after the first is passed on too; the call stays answered and the span gets
   * its `error.type` (docs/design.md item 75).
   */
  const watch = (stream: StreamResult["stream"], call: Call<AiSdkPrompt.ProviderMessage>, signal: AbortSignal | undefined) => {
    let started = false
    let model: string | undefined
    let reported: StableWindow.Reported | undefined
    let usage: windowSpan.InputUsage | undefined
    let providerError: windowSpan.ProviderError | undefined
    return watchStream<StreamPart>(stream, {
      chunk: (part) => {
        started = true
        providerError ??= windowSpan.providerErrorOf(part)
        if (part.type === "response-metadata") model = part.modelId ?? model
        if (part.type === "finish") {
          reported = reportedOf(part.usage, model)
          usage = part.usage.inputTokens
        }
      },
      end: (end) => {
        const outcome: Report["outcome"] = end._tag === "Cancelled" || signal?.aborted === true
          ? "interrupted"
          : end._tag === "Closed" && started
          ? "answered"
          : "failed"
        const exit = end._tag === "Closed"
          ? Exit.void
          : end._tag === "Errored"
          ? Exit.fail(end.error)
          : Exit.interrupt()
        let committed: WindowStore.WriteResult | undefined
        return runtime.runPromise(Effect.gen(function*() {
          committed = started ? yield* commit(call, reported) : undefined
          yield* report(call, outcome, reported, committed, onReport)
        }).pipe(Effect.ensuring(Effect.suspend(() => finish(call, outcome, usage, exit, committed, providerError)))))
      }
    })
  }

  return {
    specificationVersion: "v4",
    transformParams: async ({ params, type }) => {
      const converted = AiSdkPrompt.convert(params.prompt, memo)
      const toolTexts = countTools
        ? (params.tools ?? []).flatMap((tool) =>
          tool.type === "function"
            ? [JSON.stringify({ name: tool.name, description: tool.description, parameters: tool.inputSchema })]
            : []
        )
        : []
      const conversationKey = options.conversationKey
      const fitting = await runtime.runPromise(
        fit(converted.prompt, {
          type,
          toolTexts,
          toolReserve: 0,
          key: conversationKey === undefined ? undefined : () => conversationKey(params.prompt)
        }),
        runOptions(params.abortSignal)
      )
      const prompt = converted.back(fitting.fitted.prompt)
      const transformed = { ...params, prompt }
      pending.set(transformed, { ...fitting, type, prompt })
      return transformed
    },
    wrapGenerate: async ({ doGenerate, params }) => {
      const call = pending.get(params)
      if (call === undefined) return doGenerate()
      let result: Awaited<ReturnType<typeof doGenerate>>
      try {
        result = await doGenerate()
      } catch (error) {
        const outcome = unanswered(params.abortSignal)
        await runtime.runPromise(settle(call, outcome, unansweredEnd(outcome, error), onReport))
        throw error
      }
      await runtime.runPromise(settle(call, "answered", {
        reported: reportedOf(result.usage, result.response?.modelId),
        usage: result.usage.inputTokens,
        exit: Exit.void
      }, onReport))
      return result
    },
    wrapStream: async ({ doStream, params }) => {
      const call = pending.get(params)
      if (call === undefined) return doStream()
      let result: StreamResult
      try {
        result = await doStream()
      } catch (error) {
        const outcome = unanswered(params.abortSignal)
        await runtime.runPromise(settle(call, outcome, unansweredEnd(outcome, error), onReport))
        throw error
      }
      return { ...result, stream: watch(result.stream, call, params.abortSignal) }
    }
  }
}

/**
 * Options of {@link prepareStep}: the middleware's, with `conversationKey` and `onReport` on the
 * step's `ModelMessage`s, and `toolTokens` — what the step's tool definitions take (default 0:
 * `prepareStep` does not see them).
 *
 * @since 0.3.0
 * @category models
 */
export interface PrepareStepOptions extends CoreOptions {
  readonly toolTokens?: number | undefined
  readonly conversationKey?: ((messages: ReadonlyArray<ModelMessage>) => string) | undefined
  readonly onReport?: ((report: Report<ModelMessage>) => void) | undefined
}

/**
 * What {@link prepareStep}'s function reads of a step: its messages and its instructions (the
 * system prompt, counted and kept, and not returned).
 *
 * @since 0.3.0
 * @category models
 */
export interface Step {
  readonly messages: Array<ModelMessage>
  readonly instructions?: Instructions | undefined
}

const systemMessages = (instructions: Instructions | undefined): Array<ModelMessage> =>
  instructions === undefined
    ? []
    : typeof instructions === "string"
    ? [{ role: "system", content: instructions }]
    : Array.isArray(instructions)
    ? [...instructions]
    : [instructions]

/**
 * A `prepareStep` for `generateText` / `streamText` (and agents): each step's messages fitted
 * to the window, by the same rules as {@link middleware}, the step's `instructions` counted
 * and kept first. It returns `{ messages }`: the original `ModelMessage` objects of the window.
 * The state of a stable window advances when the step's messages are returned (`prepareStep`
 * does not see the answer); a prompt that cannot fit rejects the step as the middleware does.
 *
 * @example
 * ```ts
 * import { generateText } from "ai"
 * import * as AiSdk from "effect-cupel/adapters/AiSdk"
 *
 * declare const model: Parameters<typeof generateText>[0]["model"]
 * const fit = AiSdk.prepareStep({ contextWindow: 128_000, outputReserve: 4_000, toolTokens: 500 })
 * await generateText({ model, prompt: "hi", prepareStep: fit })
 * ```
 *
 * @since 0.3.0
 * @category constructors
 */
export const prepareStep = (options: PrepareStepOptions): (step: Step) => Promise<{ messages: Array<ModelMessage> }> => {
  const { runtime, fit, settle } = makeCore(options)
  const memo = AiSdkPrompt.makeMessageMemo()
  return async (step) => {
    const system = systemMessages(step.instructions)
    const all = [...system, ...step.messages]
    const converted = AiSdkPrompt.convertModelMessages(all, memo)
    const conversationKey = options.conversationKey
    const fitting = await runtime.runPromise(fit(converted.prompt, {
      type: "step",
      toolTexts: [],
      toolReserve: options.toolTokens ?? 0,
      key: conversationKey === undefined ? undefined : () => conversationKey(step.messages)
    }))
    const prompt = converted.back(fitting.fitted.prompt)
    await runtime.runPromise(
      settle({ ...fitting, type: "step", prompt }, "sent", { reported: undefined, usage: undefined, exit: Exit.void }, options.onReport)
    )
    // The instructions go as the step's system prompt, as the SDK sends them.
    return { messages: prompt.filter((message) => !system.includes(message)) }
  }
}
