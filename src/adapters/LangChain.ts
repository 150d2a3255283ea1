/**
 * LangChain: the LangChain.js adapter — a middleware for `createAgent` (langchain 1.x) that fits
 * every model call's messages to a context window, and {@link trimBaseMessages}, one awaited
 * call over an array of `BaseMessage`s (docs/langchain.md).
 *
 * `createAgent({ model, tools, middleware: [LangChain.middleware({ contextWindow, outputReserve })] })`
 * gives an agent whose every model call sends a window of its messages: the system message
 * first, tool calls with their results, thinking blocks in their `AIMessage`, the newest human
 * message kept (rules K1–K6 of docs/ai.md), and, per thread (the run's
 * `configurable.thread_id`), windows stable across calls so that the provider's prompt cache
 * serves their prefix (rules S1–S11). It is the session core (`Session`) behind the messages'
 * conversion (`LangChainPrompt`), as the AI SDK adapter is: the messages sent are the agent's
 * own objects; only the window's own (a K6-shortened tool result, a summary) and those that
 * carry a cache mark are new. The provider cache marks come from the same planner as every
 * door's (`CachePlan`): Anthropic's `cache_control` on the block that ends each of the window's
 * stable boundaries as `ChatAnthropic` sends it (`LangChainCacheMarks`: a marked tool result is
 * the user message of its `tool_result` block), OpenAI's `promptCacheKey` call option for
 * `ChatOpenAI` (which the client sends as `prompt_cache_key`).
 *
 * `langchain` and `@langchain/core` are optional peer dependencies, loaded only by this entry
 * point (`effect-cupel/adapters/LangChain`), and only when a call needs them: the middleware
 * object is made without importing `langchain`, and `@langchain/core`'s message classes and
 * JSON Schema converter are imported at the first model call (so that the module loads in an
 * install without them).
 *
 * @since 0.3.0
 */
import { Effect, Exit, Layer, ManagedRuntime, Predicate, type Tracer } from "effect"
import { AiError } from "effect/ai"
import type { BaseMessage, SystemMessage } from "@langchain/core/messages"
import type { ClientTool, ServerTool } from "@langchain/core/tools"
import type * as JsonSchema from "@langchain/core/utils/json_schema"
import type { AgentMiddleware } from "langchain"
import { InvalidConfigError } from "../InvalidConfigError.ts"
import * as CachePlan from "../ai/CachePlan.ts"
import * as CallReport from "../ai/CallReport.ts"
import * as GptTokenizer from "../ai/GptTokenizer.ts"
import * as MediaTokens from "../ai/MediaTokens.ts"
import * as MemoryStore from "../ai/MemoryStore.ts"
import * as PromptCacheMarks from "../ai/PromptCacheMarks.ts"
import * as PromptWindow from "../ai/PromptWindow.ts"
import * as Session from "../ai/Session.ts"
import * as SessionOptions from "../ai/SessionOptions.ts"
import * as Summarizer from "../ai/Summarizer.ts"
import * as TokenCounter from "../ai/TokenCounter.ts"
import * as ToolDefinitions from "../ai/ToolDefinitions.ts"
import { describeThrown } from "../internal/describeThrown.ts"
import * as HotSpans from "../internal/hotSpans.ts"
import { endSpan, fitInSpan } from "./internal/spannedFit.ts"
import * as Trim from "../plain/Trim.ts"
import { InvalidInput } from "../plain/InvalidInput.ts"
import * as LangChainCacheMarks from "./LangChainCacheMarks.ts"
import * as LangChainPrompt from "./LangChainPrompt.ts"

/**
 * What a summariser function of the middleware is given: the messages a compaction drops,
 * written out as text (`Summarizer.renderSpan`: each message on its own lines, tool calls with
 * their results), the summary this one replaces, and the budget of the summary's text.
 *
 * @since 0.3.0
 * @category models
 */
export interface SummaryRequest {
  readonly span: string
  readonly previous: string | undefined
  readonly maxTokens: number
}

/**
 * Options of the middleware:
 *
 * - `contextWindow`, `outputReserve` — the model's window and the tokens kept for its answer;
 * - `counter` — the tokens of a text; a message costs `counter(PromptWindow.render(message))`
 *   plus `messageOverhead` (default 4), a request `requestOverhead` (default 3) more. Without a
 *   counter, `gpt-tokenizer`'s o200k_base counts the OpenAI chat format (install
 *   `gpt-tokenizer`); `media` — whose rule counts images and files;
 * - `mode` — `"stable"` (default: windows stable across calls, one per thread) or `"per-call"`;
 * - `conversationKey` — the key of a call's conversation (rule S1), given the call's messages
 *   and its thread id; default: the thread id (`configurable.thread_id` of the run) when the run
 *   has one, else a hash of the messages' opening. One that throws rejects the call with an
 *   `AiError` naming it;
 * - `countTools` — count the agent's tools against the window (default `true`), each as the
 *   JSON of its name, description and input schema;
 * - `summarize` — a compaction replaces what it drops by a summary this function writes
 *   ({@link SummaryRequest}; a string or a promise of one; stable mode); one that throws,
 *   rejects or answers empty or over budget leaves the compaction without a summary, said in its
 *   report; `summaryTokens` — the summary's budget;
 * - `onReport` — called with each call's {@link Report} when the call has ended; a promise it
 *   returns is awaited, one that throws or rejects is logged;
 * - `telemetry`, `tracer`, `verbosity` — where the `cupel.window` span of each call and the
 *   pipeline's spans go, as `AiSdk.middleware`'s;
 * - the strategies and the stable window's options, as `AiSdk.middleware`'s (`maskToolResults`,
 *   `toolResultReferences` among them: docs/ai.md, "Masking old tool results" and "Repeats by
 *   reference");
 * - `promptCache` — the provider's prompt cache (default on; `CachePlan.Options`): Anthropic's
 *   `cache_control` marks for `ChatAnthropic`, OpenAI's `promptCacheKey` for `ChatOpenAI` (the
 *   provider read from the model's `_llmType()`); `false` sends the calls as the agent made them.
 *
 * Checked when the middleware is made: an option it does not know, or a value out of range,
 * throws an `InvalidConfigError` there and then.
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
    | "summaryTokens"
    | "maskToolResults"
    | "toolResultReferences"
  >
{
  readonly counter?: ((text: string) => number) | undefined
  readonly media?: MediaTokens.Provider | undefined
  readonly messageOverhead?: number | undefined
  readonly requestOverhead?: number | undefined
  readonly mode?: "stable" | "per-call" | undefined
  readonly conversationKey?:
    | ((call: { readonly messages: ReadonlyArray<BaseMessage>; readonly threadId: string | undefined }) => string)
    | undefined
  readonly summarize?: ((request: SummaryRequest) => string | PromiseLike<string>) | undefined
  readonly onReport?: ((report: Report) => void) | undefined
  readonly tracer?: Tracer.Tracer | undefined
  readonly telemetry?: ManagedRuntime.ManagedRuntime<never, unknown> | undefined
  readonly maxConversations?: number | undefined
}

/**
 * What one call was sent, and why: the one `CallReport` of every door with the LangChain
 * messages sent (system message first, the library's cache marks on them) as its `prompt`.
 *
 * @since 0.3.0
 * @category models
 */
export type Report = CallReport.CallReport<ReadonlyArray<BaseMessage>, "generate">

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
  summarize: rules.function,
  summaryTokens: SessionOptions.stable.summaryTokens,
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
  maskToolResults: SessionOptions.stable.maskToolResults,
  toolResultReferences: SessionOptions.stable.toolResultReferences
}

/** The module name on the `AiError`s this adapter raises. */
const errorModule = "effect-cupel/adapters/LangChain"

/** What the adapter loads of `@langchain/core` at its first call. */
interface Loaded {
  readonly classes: LangChainPrompt.Classes
  readonly toJsonSchema: typeof JsonSchema.toJsonSchema
}

/** Loads `@langchain/core`'s message classes and JSON Schema converter (once per instance). */
const loader = (): () => Promise<Loaded> => {
  let loading: Promise<Loaded> | undefined
  return () =>
    loading ??= Promise.all([import("@langchain/core/messages"), import("@langchain/core/utils/json_schema")]).then((
      [messages, jsonSchema]
    ): Loaded => ({ classes: messages, toJsonSchema: jsonSchema.toJsonSchema }))
}

/** The agent's model, as far as the adapter reads it: its provider and its id. */
const modelOf = (model: unknown): { readonly provider: string | undefined; readonly modelId: string | undefined } => {
  if (typeof model !== "object" || model === null) return { provider: undefined, modelId: undefined }
  const llmType = "_llmType" in model && typeof model._llmType === "function" ? model._llmType() : undefined
  const id = "model" in model && typeof model.model === "string"
    ? model.model
    : "modelName" in model && typeof model.modelName === "string"
    ? model.modelName
    : undefined
  // `ChatAnthropic` says "anthropic", `ChatOpenAI` "openai": the planner's provider ids.
  const provider = typeof llmType === "string" && /^(anthropic|openai)/.test(llmType) ? llmType : CachePlan.providerOfModel(id)
  return { provider, modelId: id }
}

/**
 * A tool's input schema, handed to `toJsonSchema` (which reads Zod, Standard Schema and JSON
 * Schema objects, and throws on anything else: caught by its caller).
 */
const isSchemaObject = (schema: unknown): schema is Parameters<Loaded["toJsonSchema"]>[0] =>
  typeof schema === "object" && schema !== null

const isClientTool = (tool: ClientTool | ServerTool): tool is ClientTool =>
  "invoke" in tool && typeof tool.invoke === "function"

/** The tools of a call, counted as the core counts them (a provider's own tool: its name and fields). */
const toolsOf = (
  tools: ReadonlyArray<ClientTool | ServerTool>,
  toJsonSchema: Loaded["toJsonSchema"]
): Array<ToolDefinitions.Counted> =>
  tools.map((tool) => {
    if (!isClientTool(tool)) {
      const name = typeof tool["name"] === "string" ? tool["name"] : typeof tool["type"] === "string" ? tool["type"] : "tool"
      return { name, text: JSON.stringify(tool) }
    }
    const schema: unknown = "schema" in tool ? tool.schema : undefined
    let parameters: unknown = schema
    // A schema the converter cannot read (it throws on what is not Zod or JSON Schema) is
    // counted as given.
    try {
      parameters = isSchemaObject(schema) ? toJsonSchema(schema) : schema
    } catch {
      parameters = schema
    }
    return {
      name: tool.name,
      text: ToolDefinitions.textOf({
        name: tool.name,
        ...(typeof tool.description === "string" ? { description: tool.description } : {}),
        ...(parameters === undefined ? {} : { parameters })
      })
    }
  })

/** The usage an `AIMessage` reports (`usage_metadata`), as `CallReport.Reported`. */
const reportedOf = (message: unknown, model: string | undefined): CallReport.Reported | undefined => {
  if (typeof message !== "object" || message === null || !("usage_metadata" in message)) return undefined
  const usage = message.usage_metadata
  if (typeof usage !== "object" || usage === null) return undefined
  const details = "input_token_details" in usage && typeof usage.input_token_details === "object" &&
      usage.input_token_details !== null
    ? usage.input_token_details
    : {}
  const metadata = "response_metadata" in message && typeof message.response_metadata === "object" &&
      message.response_metadata !== null
    ? message.response_metadata
    : {}
  const answered = "model_name" in metadata && typeof metadata.model_name === "string"
    ? metadata.model_name
    : "model" in metadata && typeof metadata.model === "string"
    ? metadata.model
    : model
  const figure = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined)
  // LangChain's `input_tokens` is every input token (ChatAnthropic adds the cache's to
  // Anthropic's uncached `input_tokens`; OpenAI's `prompt_tokens` hold the cached ones): the
  // uncached are what is left (design item 100).
  const total = "input_tokens" in usage ? figure(usage.input_tokens) : undefined
  const cacheRead = "cache_read" in details ? figure(details.cache_read) : undefined
  const cacheWrite = "cache_creation" in details ? figure(details.cache_creation) : undefined
  const uncached = total === undefined ? undefined : total - (cacheRead ?? 0) - (cacheWrite ?? 0)
  return CallReport.reportedOf({
    total,
    cacheRead,
    cacheWrite,
    // A negative rest (cache figures above the total) is left to `reportedOf` to say as odd.
    ...(uncached === undefined || uncached < 0 ? {} : { uncached })
  }, answered)
}

/** A LangChain `SystemMessage`, by its `type`. */
const isSystem = (message: BaseMessage): message is SystemMessage => message.type === "system"

/**
 * The window of one middleware instance: its runtime (counter, session core, in-memory store,
 * summariser), and the fitting and settling of a call, as the AI SDK adapter's.
 */
const makeCore = (options: Options) => {
  const {
    counter,
    media,
    messageOverhead,
    requestOverhead,
    tracer,
    telemetry,
    maxConversations,
    mode,
    conversationKey: _key,
    onReport: _report,
    summarize,
    ...sessionOptions
  } = options
  const counterLayer = counter === undefined
    ? GptTokenizer.layerEncoding("o200k_base", media)
    : TokenCounter.make(
      (message) => counter(PromptWindow.render(message)) + (messageOverhead ?? 4) + MediaTokens.ofMessage(message, media),
      requestOverhead ?? 3,
      "LangChain counter"
    )
  const summarizer = summarize === undefined ? undefined : Summarizer.make("LangChain summarize", (request) =>
    summarize({ span: Summarizer.renderSpan(request.span), previous: request.previous, maxTokens: request.maxTokens }))
  const session = mode === "per-call"
    ? Session.layerPerCall(sessionOptions)
    : Session.layerStable({
      ...sessionOptions,
      store: MemoryStore.layer({ maxEntries: maxConversations }),
      ...(summarizer === undefined ? {} : { summarizer })
    })
  const runtime = ManagedRuntime.make(session.pipe(
    Layer.provide(counterLayer),
    Layer.provideMerge(telemetry === undefined ? Layer.empty : Layer.effectContext(telemetry.contextEffect))
  ))
  const traced = <A, E, R>(effect: Effect.Effect<A, E, R>) => tracer === undefined ? effect : Effect.withTracer(effect, tracer)

  /** Fits a call in a span `cupel.window` left open until the call ends (see `AiSdk`). */
  const fit = (call: Session.Call<"generate">) => traced(fitInSpan(call))

  /** Settles a call, hands its report to `onReport`, and ends its span. */
  const settle = (
    call: { readonly fitting: Session.Fitting<"generate">; readonly span: Tracer.Span; readonly prompt: ReadonlyArray<BaseMessage> },
    ended: Session.Ended & { readonly exit: Exit.Exit<unknown, unknown> },
    onReport: Options["onReport"]
  ) =>
    Effect.flatMap(Session.Session, (core) => core.settle(call.fitting, ended)).pipe(
      HotSpans.withParentSpan(call.span),
      Effect.flatMap((report) => {
        if (onReport === undefined) return Effect.void
        const value: Report = { ...report, prompt: call.prompt }
        // A callback that throws or rejects must not fail a call the model has answered.
        return Effect.try((): unknown => onReport(value)).pipe(
          Effect.flatMap((out) => Predicate.isPromiseLike(out) ? Effect.tryPromise(() => Promise.resolve(out)) : Effect.void),
          Effect.catchCause((cause) => Effect.logWarning("LangChain: onReport threw", cause))
        )
      }),
      Effect.ensuring(endSpan(call.span, ended.exit)),
      traced
    )

  return { runtime, fit, settle }
}

/** The thread of a run: its `configurable.thread_id`. */
const threadOf = (runtime: unknown): string | undefined => {
  if (typeof runtime !== "object" || runtime === null || !("configurable" in runtime)) return undefined
  const configurable = runtime.configurable
  if (typeof configurable !== "object" || configurable === null || !("thread_id" in configurable)) return undefined
  const id = configurable.thread_id
  return typeof id === "string" || typeof id === "number" ? String(id) : undefined
}

/** A message list the adapter cannot read rejects the call as an `AiError` on `messages`. */
const convertOrFail = <A>(convert: () => A): A => {
  try {
    return convert()
  } catch (cause) {
    throw AiError.make({
      module: errorModule,
      method: "wrapModelCall",
      reason: new AiError.InvalidRequestError({
        parameter: "messages",
        constraint: "the messages must be LangChain system, human, ai or tool messages",
        description: `the messages cannot be read: ${describeThrown(cause)}`
      })
    })
  }
}

/**
 * The middleware for `createAgent`: its `wrapModelCall` fits each model call's messages (the
 * system message counted and kept first) and sends the window; the agent's state keeps its
 * whole history. Each instance owns its runtime: its threads' windows (in memory), its token
 * counter and strategies. A call that cannot fit rejects with the window's error itself (an
 * `Error` whose `_tag` names it: `PinnedBudgetError`, `TurnBudgetError`,
 * `ToolDefinitionsError`…) and the model is not called; LangChain wraps it in its
 * `MiddlewareError`, whose `cause` it is. An option it does not know, or out of its range,
 * throws an `InvalidConfigError` when the middleware is made.
 *
 * @example
 * ```ts
 * import { createAgent } from "langchain"
 * import * as LangChain from "effect-cupel/adapters/LangChain"
 *
 * declare const model: Parameters<typeof createAgent>[0]["model"]
 * const agent = createAgent({
 *   model,
 *   tools: [],
 *   middleware: [LangChain.middleware({ contextWindow: 128_000, outputReserve: 4_000 })]
 * })
 * ```
 *
 * @since 0.3.0
 * @category constructors
 */
export const middleware = (options: Options): AgentMiddleware => {
  const problem = SessionOptions.check(options, middlewareOptions)
  // Made outside any Effect: the typed error is thrown where the middleware is written.
  if (problem !== undefined) throw new InvalidConfigError({ component: "LangChain.middleware", ...problem })
  const { conversationKey, onReport } = options
  const { runtime, fit, settle } = makeCore(options)
  const promptCache = options.mode === "per-call" ? false : options.promptCache ?? {}
  const load = loader()
  const memo = LangChainPrompt.makeMessageMemo()
  // The blocks of the last prompt marked, which the next one continues (design 124).
  const marksMemo = PromptCacheMarks.makeMemo()

  const wrapModelCall: NonNullable<AgentMiddleware["wrapModelCall"]> = async (request, handler) => {
    const { classes, toJsonSchema } = await load()
    const system = request.systemMessage
    const hasSystem = system !== undefined && system.text !== ""
    const given: ReadonlyArray<BaseMessage> = hasSystem ? [system, ...request.messages] : request.messages
    const converted = convertOrFail(() => LangChainPrompt.convert(given, memo))
    const threadId = threadOf(request.runtime)
    const model = modelOf(request.model)
    const key = conversationKey !== undefined
      ? Effect.try({
        try: () => conversationKey({ messages: given, threadId }),
        catch: (cause) =>
          AiError.make({
            module: errorModule,
            method: "conversationKey",
            reason: new AiError.UnknownError({ description: `the conversationKey function threw: ${describeThrown(cause)}` })
          })
      })
      : threadId === undefined
      ? undefined
      : Effect.succeed(`langchain-thread:${threadId}`)
    const { fitting, span } = await runtime.runPromise(fit({
      method: "generate",
      prompt: converted.prompt,
      tools: toolsOf(request.tools, toJsonSchema),
      key
    }))
    const fitted = converted.back(fitting.prompt, classes)
    const cache = fitting.cache
    const planner = promptCache === false || cache === undefined ? undefined : CachePlan.plannerFor(model.provider, promptCache)
    const sent = planner === undefined || cache === undefined || planner.provider !== "anthropic"
      ? fitted
      : LangChainCacheMarks.apply(
        fitted,
        fitting.prompt,
        PromptCacheMarks.mark(fitting.prompt, { planner, cache, model: model.modelId, memo: marksMemo }).prompt,
        classes
      )
    const settings = planner === undefined || cache === undefined ? {} : planner.settings(cache.conversationKey)
    const modelSettings = request.modelSettings ?? {}
    const extra = {
      ...(settings.promptCacheKey === undefined || modelSettings["promptCacheKey"] !== undefined
        ? {}
        : { promptCacheKey: settings.promptCacheKey }),
      ...(settings.promptCacheRetention === undefined || modelSettings["promptCacheRetention"] !== undefined
        ? {}
        : { promptCacheRetention: settings.promptCacheRetention })
    }
    // The system message leads the window (rule K1): it goes back as the request's own.
    const first = sent[0]
    const systemSent = hasSystem && first !== undefined && isSystem(first) ? first : undefined
    const messages = systemSent === undefined ? sent : sent.slice(1)
    const call = { fitting, span, prompt: sent }
    let response: Awaited<ReturnType<typeof handler>>
    try {
      response = await handler({
        ...request,
        messages: [...messages],
        ...(systemSent === undefined || systemSent === system ? {} : { systemMessage: systemSent }),
        ...(Object.keys(extra).length === 0 ? {} : { modelSettings: { ...modelSettings, ...extra } })
      })
    } catch (error) {
      const aborted = request.runtime.signal?.aborted === true
      await runtime.runPromise(settle(call, {
        outcome: aborted ? "interrupted" : "failed",
        exit: aborted ? Exit.interrupt() : Exit.fail(error)
      }, onReport))
      throw error
    }
    await runtime.runPromise(settle(call, {
      outcome: "answered",
      reported: reportedOf(response, model.modelId),
      exit: Exit.void
    }, onReport))
    return response
  }

  return {
    // The brand `createMiddleware` sets (`Symbol.for("AgentMiddleware")`): made here without
    // loading `langchain`.
    [Symbol.for("AgentMiddleware")]: true,
    name: "effect-cupel",
    wrapModelCall
  }
}

/**
 * Options of {@link trimBaseMessages}: `plain/Trim`'s, `count` a function of a `BaseMessage`.
 *
 * @since 0.3.0
 * @category models
 */
export type TrimOptions = Trim.Options<BaseMessage>

/**
 * {@link trimBaseMessages} as an Effect: the same work, its failures typed (`Trim.TrimError`).
 *
 * @since 0.3.0
 * @category running
 */
export const trimBaseMessagesEffect = <M extends BaseMessage>(
  messages: ReadonlyArray<M>,
  options: TrimOptions
): Effect.Effect<Trim.Trimmed<M | BaseMessage>, Trim.TrimError> =>
  trimBaseMessagesEffectBody(messages, options)

// A generator function of the module, not a generator closure made at every call (docs/design.md item 144).
const trimBaseMessagesEffectBody = Effect.fnUntraced(function*<M extends BaseMessage>(
  messages: ReadonlyArray<M>,
  options: TrimOptions
) {
  const { classes } = yield* Effect.promise(loader())
  const converted = yield* Effect.try({
    try: () => LangChainPrompt.convert(messages),
    catch: (cause) => new InvalidInput({ field: "messages", problem: describeThrown(cause) })
  })
  return yield* Trim.trimConverted<M | BaseMessage>(
    messages,
    converted.prompt.content,
    options,
    (original, shortened) => (original.type === "tool" ? LangChainPrompt.fromMessage(shortened, classes, original) : undefined)
  )
})

/**
 * Fits LangChain messages (`BaseMessage`s, system messages among them) into
 * `contextWindow - outputReserve` tokens by one awaited call, as `plain/Trim`'s `trim` does for
 * the OpenAI chat format: resolves with the messages to send — the caller's own objects, in
 * order, system messages first (a K6-shortened tool result is a new `ToolMessage`) — and a
 * report; rejects with a typed error carrying `_tag` (`InvalidInput`, `TokenizerLoadError`,
 * `CandidateError`, `ToolDefinitionsError`, `PinnedBudgetError`, `TurnBudgetError`).
 *
 * @example
 * ```ts
 * import type { BaseMessage, SystemMessage } from "@langchain/core/messages"
 * import { trimBaseMessages } from "effect-cupel/adapters/LangChain"
 *
 * declare const history: Array<BaseMessage>
 * const { messages } = await trimBaseMessages(history, { contextWindow: 8_000, outputReserve: 1_000 })
 * ```
 *
 * @since 0.3.0
 * @category running
 */
export const trimBaseMessages = <M extends BaseMessage>(
  messages: ReadonlyArray<M>,
  options: TrimOptions
): Promise<Trim.Trimmed<M | BaseMessage>> => Effect.runPromise(trimBaseMessagesEffect(messages, options))
