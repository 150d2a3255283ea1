/**
 * AiSdk: the Vercel AI SDK adapter — a language model middleware that fits every call's prompt
 * to a context window (docs/ai-sdk.md).
 *
 * `wrapLanguageModel({ model, middleware: AiSdk.middleware({ contextWindow, outputReserve }) })`
 * gives a model whose every `generateText` / `streamText` step sends a window of its prompt:
 * the system messages first, tool calls with their results, reasoning with its tool calls (the
 * same assistant message), the newest user message kept (rules K1–K6 of docs/ai.md), and the
 * windows stable across calls so that the provider's prompt cache serves their prefix (rules
 * S1–S11). It is the session core (`Session`: `layerStable`, or `layerPerCall`) behind the
 * provider-level prompt's conversion (`AiSdkPrompt`): the messages sent are the SDK's own
 * objects. This module only translates the SDK's shapes and lifecycle: the window, the budget,
 * the tool counts, the calibration, the span's figures and the report are the core's, the same
 * as `WindowedLanguageModel`'s.
 * {@link prepareStep} does the same on a step's `ModelMessage`s, for `generateText` /
 * `streamText`'s `prepareStep`.
 *
 * `ai` is an optional peer dependency: only this entry point (`effect-cupel/adapters/AiSdk`)
 * uses it, and only its types.
 *
 * @since 0.3.0
 */
import { DateTime, Duration, Effect, Exit, Layer, ManagedRuntime, Predicate, type Tracer } from "effect"
import type { Instructions, LanguageModelMiddleware, ModelMessage, SystemModelMessage } from "ai"
import { AiError, type Prompt } from "effect/ai"
import { InvalidConfigError } from "../InvalidConfigError.ts"
import * as CacheDescriptors from "../ai/CacheDescriptors.ts"
import * as CachePlan from "../ai/CachePlan.ts"
import * as CallReport from "../ai/CallReport.ts"
import * as GptTokenizer from "../ai/GptTokenizer.ts"
import * as MemoryStore from "../ai/MemoryStore.ts"
import * as PromptWindow from "../ai/PromptWindow.ts"
import * as Session from "../ai/Session.ts"
import * as SessionOptions from "../ai/SessionOptions.ts"
import * as MediaTokens from "../ai/MediaTokens.ts"
import * as TokenCounter from "../ai/TokenCounter.ts"
import * as ToolDefinitions from "../ai/ToolDefinitions.ts"
import { describeThrown } from "../internal/describeThrown.ts"
import * as HotSpans from "../internal/hotSpans.ts"
import { endSpan, fitInSpan } from "./internal/spannedFit.ts"
import { makeRegistry, watchStream } from "./internal/watchStream.ts"
import * as AiSdkCacheMarks from "./AiSdkCacheMarks.ts"
import * as AiSdkPrompt from "./AiSdkPrompt.ts"

/**
 * Options of the middleware:
 *
 * - `contextWindow`, `outputReserve` — the model's window and the tokens kept for its answer;
 * - `counter` — the tokens of a text; a message costs `counter(PromptWindow.render(message))`
 *   plus `messageOverhead` (default 4), a request `requestOverhead` (default 3) more. Without a
 *   counter, `gpt-tokenizer`'s o200k_base counts the OpenAI chat format (`GptTokenizer.layer`;
 *   install `gpt-tokenizer`);
 * - `media` — whose rule counts images and PDFs (`MediaTokens`): `"openai"` (default),
 *   `"anthropic"` or `"gemini"`; added to either counter's count of the message's text;
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
 *   `cacheRule`, `ttl`, `storeTimeout`, `maskToolResults`, `toolResultReferences`), `startOn`,
 *   `shortenToolResults`, `maxConversations` (the in-memory store's bound);
 * - `promptCache` — the provider's prompt cache on the wire, in stable mode (default on;
 *   `CachePlan.Options`): Anthropic's `cache_control` marks at the window's stable boundaries
 *   for an `anthropic.*` model (and `toolStreaming: false`, so that `generateText` and
 *   `streamText` send the same tool definitions), OpenAI's hashed `promptCacheKey` for an
 *   `openai.*` model; `false` sends the calls as the SDK made them (docs/ai-sdk.md, "What is
 *   sent to each provider").
 *
 * The options are checked when the middleware (or `prepareStep`) is made: an option it does not
 * know (with the one it most likely stands for: `outputReserv` → "did you mean
 * outputReserve?"), or a value out of range (the value printed as JSON), throws an
 * `InvalidConfigError` there and then.
 *
 * @since 0.3.0
 * @category models
 */
export interface Options extends
  Pick<
    Session.StableOptions,
    | "contextWindow"
    | "outputReserve"
    | "startOn"
    | "shortenToolResults"
    | "countTools"
    | "verbosity"
    | "scorer"
    | "slicer"
    | "placer"
    | "notifier"
    | "overflowStrategy"
    | "deduplication"
    | "lowWatermark"
    | "writeOverhead"
    | "cacheRule"
    | "ttl"
    | "storeTimeout"
    | "promptCache"
    | "maskToolResults"
    | "toolResultReferences"
  >
{
  readonly counter?: ((text: string) => number) | undefined
  /** @since 0.3.0 */
  readonly media?: MediaTokens.Provider | undefined
  readonly messageOverhead?: number | undefined
  readonly requestOverhead?: number | undefined
  readonly mode?: "stable" | "per-call" | undefined
  readonly conversationKey?: ((prompt: AiSdkPrompt.ProviderPrompt) => string) | undefined
  readonly onReport?: ((report: Report) => void) | undefined
  readonly tracer?: Tracer.Tracer | undefined
  /** @since 0.3.0 */
  readonly telemetry?: ManagedRuntime.ManagedRuntime<never, unknown> | undefined
  readonly maxConversations?: number | undefined
  /**
   * How long a streamed call's stream may wait for its reader to ask for the next part before
   * it is settled as `interrupted` (an abandoned stream; default `"2 minutes"`, `"Infinity"`:
   * only when it is garbage collected). docs/ai-sdk.md, "Streams"; design 95.
   *
   * @since 0.3.0
   */
  readonly streamIdleTimeout?: Duration.Input | undefined
}

/**
 * What one call was sent, and why: the one `CallReport` of every door
 * (`effect-cupel/ai/CallReport`) with the SDK's message objects as its `prompt` (provider
 * messages for the middleware, `ModelMessage`s for {@link prepareStep}), its `method` also as
 * `type` (`generate`, `stream`, `step`), and its `reported` also as `inputTokens` (the total, the
 * name it had before 0.3.0's one `Reported`). `outcome` is `sent` for a step, whose answer
 * `prepareStep` does not see; a stream's `reported` is that of its `finish` part.
 *
 * @since 0.3.0
 * @category models
 */
export interface Report<M = AiSdkPrompt.ProviderMessage>
  extends Omit<CallReport.CallReport<ReadonlyArray<M>, "generate" | "stream" | "step">, "reported">
{
  readonly type: "generate" | "stream" | "step"
  readonly reported: Reported | undefined
  /**
   * When the call ended, from the runtime's `Clock` (as the effect/ai door's log lines carry
   * it): `CallReportLog.encode` writes it as the line's `at`.
   */
  readonly at: DateTime.Utc
}

/**
 * What the provider reported of a call's input: `CallReport.Reported`, and its `total` as
 * `inputTokens` (kept for the reports of 0.3.0's first releases).
 *
 * @since 0.3.0
 * @category models
 */
export interface Reported extends CallReport.Reported {
  readonly inputTokens: number | undefined
}

/** A fitted call: the core's fitting and its `cupel.window` span, open until the call ends. */
interface Call<M> {
  readonly fitting: Session.Fitting<Report["type"]>
  readonly span: Tracer.Span
  readonly prompt: ReadonlyArray<M>
}

/** The options the window itself takes: all but the SDK-facing ones. */
type CoreOptions = Omit<Options, "conversationKey" | "onReport" | "countTools" | "streamIdleTimeout">

const { rules } = SessionOptions

/** The options {@link middleware} knows, and their rules. */
const middlewareOptions: Readonly<Record<string, SessionOptions.Rule>> = {
  contextWindow: rules.positiveInt,
  outputReserve: rules.outputReserve,
  counter: rules.function,
  media: rules.oneOf(["openai", "anthropic", "gemini"]),
  messageOverhead: rules.nonNegativeInt,
  requestOverhead: rules.nonNegativeInt,
  mode: SessionOptions.stable.mode,
  conversationKey: rules.function,
  countTools: rules.boolean,
  onReport: rules.function,
  tracer: rules.object,
  telemetry: rules.object,
  verbosity: SessionOptions.core.verbosity,
  scorer: rules.object,
  slicer: rules.object,
  placer: rules.layer,
  notifier: rules.layer,
  overflowStrategy: SessionOptions.core.overflowStrategy,
  deduplication: rules.boolean,
  startOn: SessionOptions.core.startOn,
  shortenToolResults: rules.boolean,
  lowWatermark: SessionOptions.stable.lowWatermark,
  writeOverhead: SessionOptions.stable.writeOverhead,
  cacheRule: rules.object,
  ttl: rules.duration,
  storeTimeout: rules.duration,
  maxConversations: rules.positiveInt,
  promptCache: SessionOptions.stable.promptCache,
  streamIdleTimeout: rules.duration,
  maskToolResults: SessionOptions.stable.maskToolResults,
  toolResultReferences: SessionOptions.stable.toolResultReferences
}

/** The options {@link prepareStep} knows: the middleware's, `toolTokens` for `countTools`. */
const { countTools: _countTools, streamIdleTimeout: _streamIdleTimeout, ...stepBase } = middlewareOptions
const prepareStepOptions: Readonly<Record<string, SessionOptions.Rule>> = { ...stepBase, toolTokens: rules.nonNegativeInt }

/** Checks a door's options when it is made: a problem is thrown, as the typed error it is. */
const checkOptions = (options: unknown, known: Readonly<Record<string, SessionOptions.Rule>>, component: string): void => {
  const problem = SessionOptions.check(options, known)
  // Made outside any Effect (a plain function returning the middleware): the typed error is
  // thrown, carrying its `_tag`, so that a bad option stops the program where it is written.
  if (problem !== undefined) throw new InvalidConfigError({ component, ...problem })
}

/** The module name on the `AiError`s this adapter raises. */
const errorModule = "effect-cupel/adapters/AiSdk"

/**
 * A prompt the adapter cannot read (not the SDK's shape: a caller's `transformParams` or a
 * custom model gave something else) rejects the call as an `AiError` on `prompt`, not as the
 * `TypeError` the conversion would throw.
 */
const convertOrFail = <A>(method: string, convert: () => A): A => {
  try {
    return convert()
  } catch (cause) {
    throw AiError.make({
      module: errorModule,
      method,
      reason: new AiError.InvalidRequestError({
        parameter: "prompt",
        constraint: "the prompt must be the AI SDK's messages",
        description: `the prompt cannot be read: ${describeThrown(cause)}`
      })
    })
  }
}

/**
 * The window of one middleware or `prepareStep` instance: its runtime (counter, session core,
 * in-memory store), and the fitting and settling of a call.
 */
const makeCore = (options: CoreOptions & { readonly countTools?: boolean | undefined }) => {
  const { counter, media, messageOverhead, requestOverhead, tracer, telemetry, maxConversations, mode, ...sessionOptions } = options
  // A message's count asked of the caller's counter once per message object, as the default
  // counter remembers its own (design item 106): the memo gives the same message objects from
  // call to call, and rendering a thousand messages at every call was most of a call's cost.
  const counted = new WeakMap<Prompt.Message, number>()
  const counterLayer = counter === undefined
    ? GptTokenizer.layerEncoding("o200k_base", media)
    : TokenCounter.make(
      (message) => {
        const known = counted.get(message)
        if (known !== undefined) return known
        const n = counter(PromptWindow.render(message)) + (messageOverhead ?? 4) + MediaTokens.ofMessage(message, media)
        counted.set(message, n)
        return n
      },
      requestOverhead ?? 3,
      "AiSdk counter"
    )
  const session = mode === "per-call"
    ? Session.layerPerCall(sessionOptions)
    : Session.layerStable({ ...sessionOptions, store: MemoryStore.layer({ maxEntries: maxConversations }) })
  // The application's telemetry (its tracer, its metric registry, its logger) under the
  // window's own services: the spans and metrics of the calls go where the application's go.
  // Built at the first call: the runtime's layers (the tokenizer's encoding) load then.
  const runtime = ManagedRuntime.make(session.pipe(
    Layer.provide(counterLayer),
    Layer.provideMerge(telemetry === undefined ? Layer.empty : Layer.effectContext(telemetry.contextEffect))
  ))
  const traced = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    tracer === undefined ? effect : Effect.withTracer(effect, tracer)

  /**
   * Fits a prompt in a span `cupel.window` that stays open after the fit: the call's end
   * ({@link settle}) writes the provider's usage on it and ends it, so that it spans the whole
   * call. A call the window fails (or that is interrupted while fitted) ends it at once (the
   * core counts it as `rejected`, or `interrupted`).
   */
  const fit = (call: Session.Call<Report["type"]>) => traced(fitInSpan(call))

  /**
   * Settles a call (the core records it if it was answered or sent, and writes its end on its
   * span and in the metrics), hands its {@link Report} to `onReport`, and ends its span.
   */
  const settle = <M>(
    call: Call<M>,
    ended: Session.Ended & { readonly exit: Exit.Exit<unknown, unknown> },
    onReport: ((report: Report<M>) => void) | undefined
  ) =>
    Effect.flatMap(Session.Session, (core) => core.settle(call.fitting, ended)).pipe(
      HotSpans.withParentSpan(call.span),
      Effect.flatMap((report) => handOver(call, report, onReport)),
      Effect.ensuring(endSpan(call.span, ended.exit)),
      traced
    )

  /** Records an answered call before its end (a stream, once its end is known). */
  const commit = (call: Call<unknown>, reported: CallReport.Reported | undefined) =>
    Effect.flatMap(Session.Session, (core) => core.commit(call.fitting, reported))

  return { runtime, fit, settle, commit }
}

/** Hands a call's {@link Report} to `onReport`; a callback that throws or rejects is logged. */
const handOver = <M>(
  call: Call<M>,
  report: CallReport.CallReport<Prompt.Prompt, Report["type"]>,
  onReport: ((report: Report<M>) => void) | undefined
) => {
  if (onReport === undefined) return Effect.void
  const reported = report.reported
  // A callback that throws or rejects must not fail a call the model has answered; a promise
  // it returns is awaited (the report is made before the call ends), and never left unhandled.
  return DateTime.now.pipe(
    Effect.map((at): Report<M> => ({
      ...report,
      type: report.method,
      prompt: call.prompt,
      reported: reported === undefined ? undefined : { ...reported, inputTokens: reported.total },
      at
    })),
    Effect.flatMap((value) => Effect.try((): unknown => onReport(value))),
    Effect.flatMap((out) => Predicate.isPromiseLike(out) ? Effect.tryPromise(() => Promise.resolve(out)) : Effect.void),
    Effect.catchCause((cause) => Effect.logWarning("AiSdk: onReport threw", cause))
  )
}

const runOptions = (signal: AbortSignal | undefined) => signal === undefined ? undefined : { signal }

/** A call that did not end well: its outcome and its span's exit (an interruption, or the error). */
const unansweredEnd = (signal: AbortSignal | undefined, error: unknown) => {
  const outcome = signal?.aborted === true ? "interrupted" as const : "failed" as const
  return { outcome, exit: outcome === "interrupted" ? Exit.interrupt() : Exit.fail(error) }
}

/**
 * A provider's usage as `CallReport.Reported` (none without any input figure; odd figures said,
 * never thrown: `CallReport.reportedOf`).
 */
const reportedOf = (
  usage: {
    readonly inputTokens?: {
      readonly total: number | undefined
      readonly noCache: number | undefined
      readonly cacheRead: number | undefined
      readonly cacheWrite: number | undefined
    } | undefined
  } | undefined,
  model: string | undefined
): CallReport.Reported | undefined => CallReport.reportedOf(usage?.inputTokens, model)

type Tools = NonNullable<AiSdkPrompt.CallOptions["tools"]>
type CallProviderOptions = NonNullable<AiSdkPrompt.CallOptions["providerOptions"]>

/**
 * Whether `@ai-sdk/anthropic` sends a function tool with `eager_input_streaming: true`: the
 * tool's own `eagerInputStreaming`, else a streamed call's `toolStreaming` (default `true`).
 */
const eagerOf = (
  tool: Tools[number],
  type: "generate" | "stream",
  options: CallProviderOptions | undefined
): boolean => {
  const own = tool.type === "function" ? tool.providerOptions?.["anthropic"]?.["eagerInputStreaming"] : undefined
  if (typeof own === "boolean") return own
  const streaming = options?.["anthropic"]?.["toolStreaming"]
  return type === "stream" && (typeof streaming === "boolean" ? streaming : true)
}

/**
 * The tool definitions as sent, field by field (`SentRequest.ToolFields`): what a change of
 * the cached prefix's first bytes is named by. Anthropic's `eager_input_streaming` is a field
 * of every function tool the client sends it on.
 */
const toolFieldsOf = (
  tools: Tools | undefined,
  type: "generate" | "stream",
  options: CallProviderOptions | undefined,
  anthropic: boolean
) =>
  AiSdkCacheMarks.stripTools(tools ?? []).map((tool) => ({
    name: tool.name,
    fields: tool.type === "function"
      ? {
        description: tool.description,
        inputSchema: tool.inputSchema,
        strict: tool.strict,
        inputExamples: tool.inputExamples,
        providerOptions: tool.providerOptions,
        ...(anthropic && eagerOf(tool, type, options) ? { eager_input_streaming: true } : {})
      }
      : { type: tool.type, id: tool.id, args: tool.args }
  }))

/**
 * The call-level options with Anthropic's `toolStreaming` off, unless the caller set it: a
 * streamed call then sends its tool definitions as a generated one does, and a conversation
 * that mixes the two keeps its cached prefix (docs/ai-sdk.md).
 */
const steadyTools = (options: CallProviderOptions | undefined): CallProviderOptions => {
  const anthropic = options?.["anthropic"]
  if (options !== undefined && anthropic !== undefined && anthropic["toolStreaming"] !== undefined) return options
  return { ...options, anthropic: { ...anthropic, toolStreaming: false } }
}

/**
 * The tool definitions of a call, as the core counts them (a provider's own tool: its name),
 * with their provider flags (for the cache-miss diagnosis: a provider's own tool's are its args).
 */
const toolsOf = (tools: AiSdkPrompt.CallOptions["tools"]): Array<ToolDefinitions.Counted & CacheDescriptors.ToolInput> =>
  (tools ?? []).map((tool) => ({
    name: tool.name,
    text: ToolDefinitions.textOf(
      tool.type === "function"
        ? { name: tool.name, description: tool.description, parameters: tool.inputSchema }
        : { name: tool.name }
    ),
    flags: CacheDescriptors.flagsOf(tool.type === "function" ? tool.providerOptions : { args: tool.args })
  }))

/**
 * How long a stream may wait for its reader before it is settled as abandoned, when the
 * `streamIdleTimeout` option does not say (design 95).
 *
 * @since 0.3.0
 * @category constants
 */
export const defaultStreamIdleTimeout: Duration.Input = "2 minutes"

type StreamResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware["wrapStream"]>>>
type StreamPart = StreamResult["stream"] extends ReadableStream<infer P> ? P : never

/**
 * The language model middleware. Each instance owns its runtime: its conversations' states (in
 * memory), its token counter and strategies. A prompt that cannot fit rejects the call with the
 * window's error itself (an `Error` whose `_tag` names it: `PinnedBudgetError`,
 * `OverflowError`, `ToolDefinitionsError`…) and the model is not called; a prompt that is not
 * the SDK's messages rejects it with an `AiError` on `prompt`. An option it does not know, or
 * out of its range, throws an `InvalidConfigError` when the middleware is made.
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
  checkOptions(options, middlewareOptions, "AiSdk.middleware")
  const { conversationKey, onReport, streamIdleTimeout, ...core } = options
  const { runtime, fit, settle, commit } = makeCore(core)
  // An abandoned stream is settled after its reader's idle time, or when it is garbage (design 95).
  const abandon = {
    idleMs: Duration.toMillis(Duration.fromInputUnsafe(streamIdleTimeout ?? defaultStreamIdleTimeout)),
    registry: makeRegistry()
  }
  const promptCache = options.mode === "per-call" ? false : options.promptCache ?? {}
  const pending = new WeakMap<AiSdkPrompt.CallOptions, Call<AiSdkPrompt.ProviderMessage>>()
  // A call's fit is taken once, by the call that sends its params: left in the map, each call's
  // params (a key made at every call) kept its whole fit past two scavenges on Node 22, until a
  // full collection (docs/design.md item 144).
  const take = (params: AiSdkPrompt.CallOptions): Call<AiSdkPrompt.ProviderMessage> | undefined => {
    const call = pending.get(params)
    if (call !== undefined) pending.delete(params)
    return call
  }
  const memo = AiSdkPrompt.makeMessageMemo()

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
    let reported: CallReport.Reported | undefined
    let providerError: Session.ProviderError | undefined
    return watchStream<StreamPart>(stream, {
      chunk: (part) => {
        started = true
        providerError ??= Session.providerErrorOf(part)
        if (part.type === "response-metadata") model = part.modelId ?? model
        if (part.type === "finish") reported = reportedOf(part.usage, model)
      },
      end: (end) => {
        const outcome = end._tag === "Cancelled" || end._tag === "Abandoned" || signal?.aborted === true
          ? "interrupted" as const
          : end._tag === "Closed" && started
          ? "answered" as const
          : "failed" as const
        const exit = end._tag === "Closed"
          ? Exit.void
          : end._tag === "Errored"
          ? Exit.fail(end.error)
          : Exit.interrupt()
        return runtime.runPromise(Effect.asVoid(Effect.andThen(
          // Answered by its first part, whatever came after (rule S6).
          started ? commit(call, reported) : Effect.void,
          settle(call, { outcome, reported, providerError, exit }, onReport)
        )))
      }
    }, abandon)
  }

  return {
    specificationVersion: "v4",
    transformParams: async ({ params: given, type, model }) => {
      // The planner of the model's provider: Anthropic's calls send the same tool definitions
      // whether they stream or not.
      const planner = promptCache === false ? undefined : CachePlan.plannerFor(model.provider, promptCache)
      const anthropic = planner?.provider === "anthropic"
      const params = anthropic ? { ...given, providerOptions: steadyTools(given.providerOptions) } : given
      const converted = convertOrFail("transformParams", () => AiSdkPrompt.convert(params.prompt, memo))
      const { fitting, span } = await runtime.runPromise(
        fit({
          method: type,
          prompt: converted.prompt,
          tools: toolsOf(params.tools),
          toolFields: toolFieldsOf(params.tools, type, params.providerOptions, model.provider.startsWith("anthropic")),
          key: conversationKey === undefined ? undefined : Effect.try({
            try: () => conversationKey(params.prompt),
            // The caller's function: a throw rejects the call (counted, its span ended) as an AiError.
            catch: (cause) =>
              AiError.make({
                module: errorModule,
                method: "conversationKey",
                reason: new AiError.UnknownError({ description: `the conversationKey function threw: ${describeThrown(cause)}` })
              })
          })
        }),
        runOptions(params.abortSignal)
      )
      const prompt = converted.back(fitting.prompt)
      const cache = fitting.cache
      const transformed = cache === undefined || planner === undefined ? { ...params, prompt } : AiSdkCacheMarks.markCall(
        { ...params, prompt },
        {
          planner,
          count: () => 0,
          tokens: { tools: cache.toolTokens, messages: cache.messageTokens },
          conversationKey: cache.conversationKey,
          model: model.modelId,
          compacted: cache.compacted,
          previousEnd: cache.previousEnd
        }
      ).call
      // The report's prompt: the messages sent, the library's marks on them.
      pending.set(transformed, { fitting, span, prompt: transformed.prompt })
      return transformed
    },
    wrapGenerate: async ({ doGenerate, params }) => {
      const call = take(params)
      if (call === undefined) return doGenerate()
      let result: Awaited<ReturnType<typeof doGenerate>>
      try {
        result = await doGenerate()
      } catch (error) {
        await runtime.runPromise(settle(call, unansweredEnd(params.abortSignal, error), onReport))
        throw error
      }
      await runtime.runPromise(settle(call, {
        outcome: "answered",
        reported: reportedOf(result.usage, result.response?.modelId),
        exit: Exit.void
      }, onReport))
      return result
    },
    wrapStream: async ({ doStream, params }) => {
      const call = take(params)
      if (call === undefined) return doStream()
      let result: StreamResult
      try {
        result = await doStream()
      } catch (error) {
        await runtime.runPromise(settle(call, unansweredEnd(params.abortSignal, error), onReport))
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
  /**
   * The step's model (since 0.3.0): its provider chooses the cache planner (a model id string
   * is read as a gateway's `provider/model`).
   */
  readonly model?: string | { readonly provider: string; readonly modelId: string } | undefined
}

/**
 * What {@link prepareStep}'s function returns: the step's messages, and, when the library's
 * cache plan marks or unmarks the system prompt, the step's instructions (since 0.3.0).
 *
 * @since 0.3.0
 * @category models
 */
export interface StepResult {
  messages: Array<ModelMessage>
  instructions?: Array<SystemModelMessage>
}

/** A step model's provider and id (a gateway's model string: `provider/model`). */
const stepModel = (model: Step["model"]): { readonly provider: string | undefined; readonly modelId: string | undefined } => {
  if (model === undefined) return { provider: undefined, modelId: undefined }
  if (typeof model !== "string") return model
  const slash = model.indexOf("/")
  return slash < 0 ? { provider: undefined, modelId: model } : { provider: model.slice(0, slash), modelId: model.slice(slash + 1) }
}

const systemMessages = (instructions: Instructions | undefined): Array<SystemModelMessage> =>
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
export const prepareStep = (options: PrepareStepOptions): (step: Step) => Promise<StepResult> => {
  checkOptions(options, prepareStepOptions, "AiSdk.prepareStep")
  const { conversationKey, onReport, toolTokens, ...core } = options
  const { runtime, fit, settle } = makeCore(core)
  const memo = AiSdkPrompt.makeMessageMemo()
  const promptCache = options.mode === "per-call" ? false : options.promptCache ?? {}
  return async (step) => {
    // The instructions and messages carry forward from step to step, with the marks of the
    // step before: those are stripped before anything else reads them.
    const givenSystem = systemMessages(step.instructions)
    const system = AiSdkCacheMarks.stripModelMessages(givenSystem)
    const messages = AiSdkCacheMarks.stripModelMessages(step.messages)
    const converted = convertOrFail("prepareStep", () => AiSdkPrompt.convertModelMessages([...system, ...messages], memo))
    const { fitting, span } = await runtime.runPromise(fit({
      method: "step",
      prompt: converted.prompt,
      toolReserve: toolTokens ?? 0,
      key: conversationKey === undefined ? undefined : Effect.try({
        try: () => conversationKey(step.messages),
        catch: (cause) =>
          AiError.make({
            module: errorModule,
            method: "conversationKey",
            reason: new AiError.UnknownError({ description: `the conversationKey function threw: ${describeThrown(cause)}` })
          })
      })
    }))
    const fitted = converted.back(fitting.prompt)
    const cache = fitting.cache
    const model = stepModel(step.model)
    const prompt = cache === undefined || promptCache === false ? fitted : AiSdkCacheMarks.markModelMessages(fitted, {
      planner: CachePlan.plannerFor(model.provider, promptCache),
      tokens: { tools: toolTokens ?? 0, messages: cache.messageTokens },
      conversationKey: cache.conversationKey,
      model: model.modelId,
      compacted: cache.compacted,
      previousEnd: cache.previousEnd,
      // Made of the step's stripped messages (their originals, masked copies of them, or made
      // anew): no mark of the library's to strip.
      stripped: true
    }).messages
    await runtime.runPromise(settle({ fitting, span, prompt }, { outcome: "sent", exit: Exit.void }, onReport))
    // The instructions go as the step's system prompt, as the SDK sends them: given back when
    // the cache plan marks them (or a mark of the step before is taken off).
    const given: ReadonlyArray<ModelMessage> = system
    const isSystem = fitted.map((message) => given.includes(message))
    const instructions = prompt.filter((message, i): message is SystemModelMessage => isSystem[i] === true && message.role === "system")
    const out = prompt.filter((_, i) => isSystem[i] !== true)
    const changed = instructions.length !== givenSystem.length || instructions.some((message, i) => message !== givenSystem[i])
    return changed ? { messages: out, instructions } : { messages: out }
  }
}
