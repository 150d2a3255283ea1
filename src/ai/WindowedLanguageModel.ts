/**
 * WindowedLanguageModel: every model call's prompt fitted to the context window first.
 *
 * {@link layer} wraps the current `effect/ai` `LanguageModel`: each `generateText`,
 * `generateObject` and `streamText` call runs its prompt through the pipeline
 * (`PromptWindow.fit`) with the budget of the model — its context window less the output
 * reserve, the request's own overhead and the tool definitions the call offers (see
 * `ToolDefinitions`) — and sends the fitted prompt on. Agent loops and
 * `Chat` call the model again at every step, so the budget is applied again at every step:
 * the history grows, the window does not.
 *
 * - Tool calls and their results, approval requests and their responses stay together (or go
 *   together): the model never receives one without the other.
 * - With the default placer (`SectionedPlacer.conversation`) the system prompt comes first,
 *   then any documents, then the conversation in its order.
 * - A prompt that cannot fit — pinned messages beyond the window, or the `Throw` strategy's
 *   overflow — fails the call with an `AiError` whose reason is an `InvalidRequestError`
 *   (`parameter: "prompt"`), in the call's own error channel: `LanguageModel`'s methods can
 *   fail with `AiError` only. Invalid items are `InvalidRequestError`s too; a failing or
 *   contract-breaking scorer, slicer or placer is an `UnknownError`. {@link windowFailure}
 *   reads the original error's tag back.
 * - Each call's selection report is published to {@link WindowReports} (a `PubSub`); its
 *   figures, and the OpenTelemetry GenAI attributes, are the attributes of the span
 *   `cupel.window`, and it updates the `WindowMetrics` (docs/observability.md).
 *
 * @since 0.2.0
 */
import { Context, Effect, Exit, Layer, PubSub, type Schema, Stream } from "effect"
import { AiError, LanguageModel, type Prompt, type Response, type Tool } from "effect/ai"
import type { KeyValueStore } from "effect/persistence"
import type { NoExcessProperties } from "effect/Types"
import { InvalidConfigError } from "../InvalidConfigError.ts"
import * as windowSpan from "./internal/windowSpan.ts"
import * as HotSpans from "../internal/hotSpans.ts"
import * as CachePlan from "./CachePlan.ts"
import * as Report from "./CallReport.ts"
import * as PromptCacheMarks from "./PromptCacheMarks.ts"
import * as Session from "./Session.ts"
import * as SessionOptions from "./SessionOptions.ts"
import type * as Summarizer from "./Summarizer.ts"
import type { TokenCounter } from "./TokenCounter.ts"
import * as ToolDefinitions from "./ToolDefinitions.ts"

/**
 * Options of the layer.
 *
 * - `contextWindow` — the model's context window, in tokens (prompt and output together).
 * - `outputReserve` — the tokens kept free for the model's answer.
 * - `overflowStrategy` — `"Throw"` (default), `"Truncate"` or `"Proceed"`.
 * - `deduplication` — drop messages with the same text (default `false` here: a conversation
 *   may well repeat itself).
 * - `verbosity` — the pipeline's trace tier (`Verbosity`): `"StageOnly"` (default),
 *   `"StageAndExclusions"` or `"Full"`.
 * - `countTools` — count the definitions of the call's tools (`toolkit`) against the window
 *   and take them off the prompt's budget (default `true`; see `ToolDefinitions`).
 * - `scorer` / `slicer` — default recency and first fit (`FirstFitSlice`); `placer` — default
 *   `SectionedPlacer.conversation`; `notifier` — default `OverflowNotifier.layerLog`.
 * - `startOn` — `"user"` (default): every window opens on a user message; `"any"`.
 * - `mode` — `"stable"` (default): windows stay stable across calls (`StableWindow`, docs/ai.md
 *   rules S1–S11); `"per-call"`: every call is fitted from scratch.
 * - in stable mode: `lowWatermark`, `writeOverhead`, `cacheRule`, `conversationKey`, `ttl`, `storeTimeout` (see
 *   `StableWindow.Options`); `summarizer` (a `Summarizer` layer: compactions replace what they
 *   drop by a summary), `summaryTokens` and `summaryLedger` (default `true`: the facts a summary
 *   leaves out are listed after it, docs/ai.md rules L1–L6).
 * - and `PromptWindow`'s options: `annotate` (kind, pinning, priority… per message),
 *   `documents`, `startMillis`.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options extends Omit<Session.StableOptions, "store" | "summarizer"> {
  readonly mode?: "stable" | "per-call" | undefined
}

/**
 * What one model call was sent, and why: the one `CallReport` of every door
 * (`effect-cupel/ai/CallReport`), with this layer's methods and outcomes.
 *
 * @since 0.2.0
 * @category models
 */
export interface CallReport extends
  Report.CallReport<
    Prompt.Prompt,
    "generateText" | "generateObject" | "streamText",
    "answered" | "failed" | "interrupted"
  >
{}

/**
 * The input tokens a provider reported for a call: `CallReport.Reported`.
 *
 * @since 0.3.0
 * @category models
 */
export type Reported = Report.Reported

/**
 * The reports of the calls, published as each call ends (answered, failed or interrupted).
 * Subscribe (in a scope) before the calls whose reports you want.
 *
 * @since 0.2.0
 * @category services
 */
export class WindowReports extends Context.Service<WindowReports, PubSub.PubSub<CallReport>>()(
  "effect-cupel/ai/WindowReports"
) {}

/**
 * The module name on the `AiError`s this layer raises.
 *
 * @since 0.2.0
 * @category constants
 */
export const errorModule = "effect-cupel/WindowedLanguageModel"

/**
 * The tag of the error behind an `AiError` raised by this layer (`"OverflowError"`,
 * `"PinnedBudgetError"`, `"TurnBudgetError"`, `"ScorerError"`, `"CandidateError"`…); `undefined` for any other
 * `AiError` (the wrapped model's, or the token counter's).
 *
 * @since 0.2.0
 * @category errors
 */
export const windowFailure = (error: AiError.AiError): string | undefined => {
  if (error.module !== errorModule) return undefined
  const reason = error.reason
  if (reason._tag !== "InvalidRequestError" && reason._tag !== "UnknownError") return undefined
  const tag = reason.metadata["cupelError"]
  return typeof tag === "string" ? tag : undefined
}

/** An error of the window's own making, before the model is called. */
type WindowError = Exclude<Session.FitError, AiError.AiError>

/**
 * What a window error says about the request, as an `AiError` reason.
 *
 * - The prompt cannot fit (`PinnedBudgetError`, `OverflowError` under `Throw`), its newest
 *   user message cannot fit beside the system prompts (`TurnBudgetError`), or the slicer's
 *   count requirements cannot be met by it (`CountRequirementError`): an
 *   `InvalidRequestError` on `prompt` — the request must change.
 * - The request's items are invalid — a message's item (`CandidateError`: the counter's count,
 *   an annotation, `startMillis`), a document (`InvalidItemError`), or token counts whose
 *   total no number holds exactly (`TokenTotalError`): an `InvalidRequestError` on the
 *   offending part.
 * - The tool definitions cannot be counted, or leave the prompt no room
 *   (`ToolDefinitionsError`): an `InvalidRequestError` on `toolkit` (its `cupelError` is
 *   `"ToolDefinitions"`, as it was before the error had a class).
 * - A strategy failed (`ScorerError`, `SlicerError`, `PlacerError`) or broke its contract
 *   (`SlicerContractError`, `PlacerContractError`: a bug in a custom scorer, slicer or placer):
 *   an `UnknownError` — nothing in the request is at fault, and it is not retryable.
 *
 * Each carries the error's tag as `metadata.cupelError` (what {@link windowFailure} reads) and
 * its message as `description`.
 */
const reasonOf = (error: WindowError): AiError.AiErrorReason => {
  const metadata = { cupelError: error._tag }
  const invalid = (parameter: string, constraint: string) =>
    new AiError.InvalidRequestError({ parameter, constraint, description: error.message, metadata })
  switch (error._tag) {
    case "PinnedBudgetError":
    case "OverflowError":
      return invalid("prompt", "the prompt must fit the context window")
    case "TurnBudgetError":
      return invalid("prompt", "the newest user message must fit the context window")
    case "CountRequirementError":
      return invalid("prompt", "the prompt must hold the items the slicer's count requirements ask for")
    case "CandidateError":
      return invalid("prompt", `each message must make a valid item (${error.field})`)
    case "InvalidItemError":
      return invalid("documents", "every item must have a valid token count")
    case "TokenTotalError":
      return invalid("prompt", "token totals must stay within Number.MAX_SAFE_INTEGER")
    case "ToolDefinitionsError":
      return new AiError.InvalidRequestError({
        parameter: "toolkit",
        constraint: "the tool definitions must fit the context window",
        description: error.message,
        metadata: { cupelError: "ToolDefinitions" }
      })
    case "ScorerError":
    case "SlicerError":
    case "PlacerError":
    case "SlicerContractError":
    case "PlacerContractError":
      return new AiError.UnknownError({ description: error.message, metadata })
  }
}

/** A call's `toolkit` option, whatever its form (`undefined` without one). */
const toolkitOf = (options: object): unknown => ("toolkit" in options ? options.toolkit : undefined)

const toAiError = (method: string) => (error: WindowError | AiError.AiError): AiError.AiError =>
  AiError.isAiError(error) ? error : AiError.make({ module: errorModule, method, reason: reasonOf(error) })

type AnyTools = Record<string, Tool.Any>
type WithoutToolkit = Omit<LanguageModel.GenerateTextOptions<{}>, "toolkit"> & { readonly toolkit?: undefined }
type WithToolkit<Tools extends AnyTools> = LanguageModel.GenerateTextOptions<Tools> & {
  readonly toolkit: LanguageModel.ToolkitInput<Tools>
}
type ToolkitOf<Options> = LanguageModel.GenerateTextOptions<LanguageModel.ExtractTools<Options>> & {
  readonly toolkit: Options["toolkit" & keyof Options]
}

/**
 * How a wrapped call ended, for {@link Sent.done}: answered (with the usage the provider
 * reported, if any), failed, or interrupted.
 *
 * @since 0.3.0
 * @category models
 */
export type Outcome =
  | ({ readonly _tag: "Answered" } & Answer)
  | { readonly _tag: "Failed" }
  | { readonly _tag: "Interrupted" }

/**
 * What a model's answer says of the call: the usage it reported, and the model that answered
 * (its response metadata's `modelId`), when it said.
 *
 * @since 0.3.0
 * @category models
 */
export interface Answer {
  readonly usage: Response.Usage | undefined
  readonly model: string | undefined
  /**
   * A stream's first `error` part, when it had one (since 0.3.0): the provider answered and
   * then reported an error, which reached the caller as the part it was. The call stays
   * answered (rule S6); `cupel.window` gets the error's `error.type` (docs/design.md item 75).
   */
  readonly providerError?: { readonly error: unknown } | undefined
}

/**
 * What {@link wrap}'s `fit` gives: the prompt to send, and what to do when the call ends
 * (`streamText`: when its first part arrives, as `Answered` without usage, and when the stream
 * ends, with the usage of its finish part).
 *
 * @since 0.3.0
 * @category models
 */
export interface Sent {
  readonly prompt: Prompt.Prompt
  /** The model answered: a generate call's response, or a stream's first part (no usage yet). */
  readonly answered: (answer: Answer) => Effect.Effect<void>
  /** A stream that answered has ended with its finish part's usage. */
  readonly settled: (answer: Answer) => Effect.Effect<void>
  readonly ended: (outcome: Outcome) => Effect.Effect<void>
}

const outcomeOf = <A, E>(exit: Exit.Exit<A, E>, answer: (a: A) => Answer): Outcome =>
  Exit.isSuccess(exit)
    ? { _tag: "Answered", ...answer(exit.value) }
    : Exit.hasInterrupts(exit)
    ? { _tag: "Interrupted" }
    : { _tag: "Failed" }

/** A generate call's answer: its usage and the model that answered. */
const answerOf = (response: unknown): Answer => {
  const usage = typeof response === "object" && response !== null && "usage" in response && isUsage(response.usage)
    ? response.usage
    : undefined
  const content = typeof response === "object" && response !== null && "content" in response &&
      Array.isArray(response.content)
    ? response.content
    : []
  let model: string | undefined
  for (const part of content) model = modelOf(part) ?? model
  return { usage, model }
}

/** A response part's `modelId`, when it is the response metadata part and has one. */
const modelOf = (part: unknown): string | undefined =>
  typeof part === "object" && part !== null && "type" in part && part.type === "response-metadata" &&
    "modelId" in part && typeof part.modelId === "string"
    ? part.modelId
    : undefined

const isUsage = (value: unknown): value is Response.Usage =>
  typeof value === "object" && value !== null && "inputTokens" in value && "outputTokens" in value

/** A stream part's usage, when it is the finish part. */
const finishUsage = (part: unknown): Response.Usage | undefined =>
  typeof part === "object" && part !== null && "type" in part && part.type === "finish" && "usage" in part &&
    isUsage(part.usage)
    ? part.usage
    : undefined

/** The span each wrapped call runs in. */
const spanName = "cupel.window"
/** A call's span, made once (no stack trace a call: docs/design.md item 145). */
const callSpan = HotSpans.withSpan(spanName)

/**
 * Wraps a language model so that each call's prompt is first fitted by `fit`, which is also
 * given the call's `toolkit` option (`undefined` without one); the {@link Sent} it gives is
 * told when the model answered and when the call ended (uninterruptibly).
 *
 * Each call runs in a span `cupel.window` (since 0.3.0: the whole call, the fitting and the
 * wrapped model's call below it, a stream until it ends), so that what is known only once the
 * model answered — the usage it reported — is written on the span by {@link Sent.ended}.
 *
 * `LanguageModel`'s methods are generic and overloaded; the functions below repeat the
 * overloads, so each keeps its exact type for callers, and share one implementation that
 * swaps the prompt and hands the options, otherwise untouched, to the wrapped model. The
 * implementation's own signature is erased (TypeScript checks overloads against it loosely):
 * it returns exactly what the wrapped model returns, and fails with `AiError` only.
 *
 * @since 0.2.0
 * @category constructors
 */
export const wrap = (
  inner: LanguageModel.LanguageModel,
  fit: (
    prompt: Prompt.RawInput,
    method: CallReport["method"],
    toolkit: unknown
  ) => Effect.Effect<Sent, AiError.AiError>
): LanguageModel.LanguageModel => {
  /** Runs a generate call on the fitted prompt and tells `sent` how it went. */
  const generate = <A, E, R>(sent: Sent, call: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.onExit(call, (exit) => {
      const outcome = outcomeOf(exit, answerOf)
      return outcome._tag === "Answered"
        ? Effect.andThen(sent.answered(outcome), sent.ended(outcome))
        : sent.ended(outcome)
    })

  function generateText<Options extends NoExcessProperties<WithoutToolkit, Options>>(
    options: Options & WithoutToolkit
  ): Effect.Effect<
    LanguageModel.GenerateTextResponse<{}, LanguageModel.ExtractToolParametersModeWithoutToolkit<Options>>,
    LanguageModel.ExtractError<Options>,
    LanguageModel.ExtractServices<Options>
  >
  function generateText<Tools extends AnyTools, Options extends NoExcessProperties<WithToolkit<Tools>, Options>>(
    options: Options & WithToolkit<Tools>
  ): Effect.Effect<
    LanguageModel.GenerateTextResponse<Tools, LanguageModel.ExtractToolParametersMode<Options>>,
    LanguageModel.ExtractError<Options>,
    LanguageModel.ExtractServices<Options>
  >
  function generateText<
    Options extends
      & { readonly toolkit: LanguageModel.ToolkitOption<AnyTools> }
      & NoExcessProperties<LanguageModel.GenerateTextOptions<AnyTools>, Options>
  >(
    options: Options & ToolkitOf<Options>
  ): Effect.Effect<
    LanguageModel.GenerateTextResponse<LanguageModel.ExtractTools<Options>, LanguageModel.ExtractToolParametersMode<Options>>,
    LanguageModel.ExtractError<Options>,
    LanguageModel.ExtractServices<Options>
  >
  function generateText(options: { readonly prompt: Prompt.RawInput }): Effect.Effect<unknown, unknown, unknown> {
    // No interruption between a fit that succeeded and the call's end being watched: the call
    // is reported and counted once, whenever it is interrupted (the fit and the model stay
    // interruptible).
    return Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(
        restore(fit(options.prompt, "generateText", toolkitOf(options))),
        (sent) => generate(sent, restore(inner.generateText({ ...options, prompt: sent.prompt })))
      )
    ).pipe(callSpan)
  }

  function generateObject<
    ObjectEncoded extends Record<string, unknown>,
    StructuredOutputSchema extends Schema.Encoder<ObjectEncoded, unknown>,
    Options extends NoExcessProperties<LanguageModel.GenerateObjectOptions<AnyTools, StructuredOutputSchema>, Options>,
    Tools extends AnyTools = {}
  >(options: Options & LanguageModel.GenerateObjectOptions<Tools, StructuredOutputSchema>): Effect.Effect<
    LanguageModel.GenerateObjectResponse<
      Tools,
      StructuredOutputSchema["Type"],
      LanguageModel.ExtractToolParametersMode<Options>
    >,
    LanguageModel.ExtractError<Options>,
    LanguageModel.ExtractServices<Options> | StructuredOutputSchema["DecodingServices"]
  >
  function generateObject(options: {
    readonly prompt: Prompt.RawInput
    readonly schema: Schema.Encoder<Record<string, unknown>, unknown>
  }): Effect.Effect<unknown, unknown, unknown> {
    // No interruption between a fit that succeeded and the call's end being watched: the call
    // is reported and counted once, whenever it is interrupted (the fit and the model stay
    // interruptible).
    return Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(
        restore(fit(options.prompt, "generateObject", toolkitOf(options))),
        (sent) => generate(sent, restore(inner.generateObject({ ...options, prompt: sent.prompt })))
      )
    ).pipe(callSpan)
  }

  function streamText<Options extends NoExcessProperties<WithoutToolkit, Options>>(
    options: Options & WithoutToolkit
  ): Stream.Stream<
    Response.StreamPart<{}, LanguageModel.ExtractToolParametersModeWithoutToolkit<Options>>,
    LanguageModel.ExtractError<Options>,
    LanguageModel.ExtractServices<Options>
  >
  function streamText<Tools extends AnyTools, Options extends NoExcessProperties<WithToolkit<Tools>, Options>>(
    options: Options & WithToolkit<Tools>
  ): Stream.Stream<
    Response.StreamPart<Tools, LanguageModel.ExtractToolParametersMode<Options>>,
    LanguageModel.ExtractError<Options>,
    LanguageModel.ExtractServices<Options>
  >
  function streamText<
    Options extends
      & { readonly toolkit: LanguageModel.ToolkitOption<AnyTools> }
      & NoExcessProperties<LanguageModel.GenerateTextOptions<AnyTools>, Options>
  >(
    options: Options & ToolkitOf<Options>
  ): Stream.Stream<
    Response.StreamPart<LanguageModel.ExtractTools<Options>, LanguageModel.ExtractToolParametersMode<Options>>,
    LanguageModel.ExtractError<Options>,
    LanguageModel.ExtractServices<Options>
  >
  function streamText(options: { readonly prompt: Prompt.RawInput }): Stream.Stream<unknown, unknown, unknown> {
    return Stream.unwrap(
      Effect.map(fit(options.prompt, "streamText", toolkitOf(options)), (sent) => {
        let usage: Response.Usage | undefined
        let model: string | undefined
        let providerError: windowSpan.ProviderError | undefined
        return inner.streamText({ ...options, prompt: sent.prompt }).pipe(
          Stream.onFirst(() => Effect.uninterruptible(sent.answered({ usage: undefined, model: undefined }))),
          Stream.tap((part: unknown) =>
            Effect.sync(() => {
              usage = finishUsage(part) ?? usage
              model = modelOf(part) ?? model
              providerError ??= windowSpan.providerErrorOf(part)
            })
          ),
          Stream.onExit((exit) => {
            const outcome = outcomeOf(exit, () => ({ usage, model, providerError }))
            return outcome._tag === "Answered"
              ? Effect.andThen(sent.settled(outcome), sent.ended(outcome))
              : sent.ended(outcome)
          })
        )
      })
    ).pipe(Stream.withSpan(spanName, { captureStackTrace: false }))
  }

  return { ...inner, generateText, generateObject, streamText }
}

/**
 * The options {@link layer} knows: the session's, the stable window's, `mode`, `store` and
 * `summarizer`.
 */
const knownOptions: Readonly<Record<string, SessionOptions.Rule>> = {
  ...SessionOptions.core,
  ...SessionOptions.stable,
  store: SessionOptions.rules.layer,
  summarizer: SessionOptions.rules.layer
}

/**
 * Wraps the current `LanguageModel` with the {@link Session.Session} in context — any session:
 * `Session.layerStable`, `Session.layerPerCall`, or a test's own — and provides
 * {@link WindowReports}. Each `generateText`, `generateObject` and `streamText` call's prompt is
 * fitted by the session; the call runs in the span `cupel.window` and its report is published
 * when it ends.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import * as GptTokenizer from "effect-cupel/ai/GptTokenizer"
 * import * as Session from "effect-cupel/ai/Session"
 * import * as WindowedLanguageModel from "effect-cupel/ai/WindowedLanguageModel"
 *
 * // ProviderModel: your provider's LanguageModel layer.
 * const Model = WindowedLanguageModel.layerFromSession.pipe(
 *   Layer.provide(Session.layerPerCall({ contextWindow: 128_000, outputReserve: 4_096 })),
 *   Layer.provide([ProviderModel, GptTokenizer.layer])
 * )
 * ```
 *
 * @since 0.3.0
 * @category layers
 */
export const layerFromSession: Layer.Layer<
  LanguageModel.LanguageModel | WindowReports,
  never,
  LanguageModel.LanguageModel | Session.Session
> = Layer.effectContext(Effect.gen(function*() {
  const inner = yield* LanguageModel.LanguageModel
  const session = yield* Session.Session
  const reports = yield* PubSub.unbounded<CallReport>()
  // Each tool's text, once per tool object: an agent offers the same tools at every step (the
  // session counts each text once).
  const texts = new WeakMap<object, ToolDefinitions.Counted>()
  const countedOf = (tool: ToolDefinitions.AnyTool): ToolDefinitions.Counted => {
    let counted = texts.get(tool)
    if (counted === undefined) {
      counted = { name: tool.name, text: ToolDefinitions.text(tool) }
      texts.set(tool, counted)
    }
    return counted
  }
  const fieldsOf = new WeakMap<object, { readonly name: string; readonly fields: Readonly<Record<string, unknown>> }>()
  const toolFieldsOf = (tool: ToolDefinitions.AnyTool) => {
    let known = fieldsOf.get(tool)
    if (known === undefined) {
      const { name, ...fields } = ToolDefinitions.definitionOf(tool)
      known = { name, fields }
      fieldsOf.set(tool, known)
    }
    return known
  }
  // The model that last answered (its response metadata's id): `LanguageModel` does not name
  // its provider, the answer's model id does. Until a model has answered, no planner is known.
  let answeredBy: string | undefined
  // The blocks of the layer's last prompt, which its next one continues (design 124).
  const marksMemo = PromptCacheMarks.makeMemo()
  const plannerOf = (options: CachePlan.CachePlan["options"]) =>
    CachePlan.plannerFor(CachePlan.providerOfModel(answeredBy), options)
  const fit = (prompt: Prompt.RawInput, method: CallReport["method"], toolkit: unknown) => {
    const tools = ToolDefinitions.toolsOf(toolkit)
    return session.fit({ method, prompt, tools: tools.map(countedOf), toolkit: tools, toolFields: tools.map(toolFieldsOf) }).pipe(
      Effect.map((fitting): Sent => ({
        // The cache plan's marks, in the options `effect/ai`'s Anthropic provider reads, once a
        // Claude model has answered: the report keeps the prompt as fitted.
        prompt: fitting.cache === undefined
          ? fitting.prompt
          : PromptCacheMarks.mark(fitting.prompt, {
            planner: plannerOf(fitting.cache.options),
            cache: fitting.cache,
            model: answeredBy,
            memo: marksMemo
          }).prompt,
        answered: (answer) => session.commit(fitting, Report.reportedOf(answer.usage?.inputTokens, answer.model)),
        // The session takes the finish part's usage when the call is settled.
        settled: () => Effect.void,
        ended: (outcome) =>
          Effect.andThen(
            Effect.sync(() => {
              if (outcome._tag === "Answered") answeredBy = outcome.model ?? answeredBy
            }),
            Effect.flatMap(
              session.settle(fitting, {
                outcome: outcome._tag === "Answered" ? "answered" : outcome._tag === "Failed" ? "failed" : "interrupted",
                reported: outcome._tag === "Answered"
                  ? Report.reportedOf(outcome.usage?.inputTokens, outcome.model)
                  : undefined,
                providerError: outcome._tag === "Answered" ? outcome.providerError : undefined
              }),
              (report) => PubSub.publish(reports, report)
            )
          )
      })),
      Effect.mapError(toAiError(method))
    )
  }
  return Context.make(LanguageModel.LanguageModel, wrap(inner, fit)).pipe(Context.add(WindowReports, reports))
}))

/**
 * Wraps the current `LanguageModel` (provide the provider's layer to this one) and provides
 * {@link WindowReports}: {@link layerFromSession} over the session the options make —
 * `Session.layerStable` (the default `mode: "stable"`) or `Session.layerPerCall`
 * (`mode: "per-call"`). Needs a `TokenCounter` — `effect-cupel/ai/GptTokenizer`'s `layer`
 * offline, or `TokenCounter.layerTokenizer` over any `Tokenizer`. Fails to build with an
 * `InvalidConfigError` naming an option it does not know (and the one it most likely stands
 * for) or one out of its range, the value printed as JSON, and when the window less the
 * reserves leaves the prompt no room.
 *
 * In the default `stable` mode the conversations' states live in the `store` option's
 * `KeyValueStore` (default: in memory, in this layer; `RedisStore.layer` shares them between
 * processes); its build errors and requirements become the layer's.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import * as GptTokenizer from "effect-cupel/ai/GptTokenizer"
 * import * as WindowedLanguageModel from "effect-cupel/ai/WindowedLanguageModel"
 *
 * // ProviderModel: your provider's LanguageModel layer.
 * const Model = WindowedLanguageModel.layer({ contextWindow: 128_000, outputReserve: 4_096 }).pipe(
 *   Layer.provide([ProviderModel, GptTokenizer.layer])
 * )
 * ```
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = <SE = never, SR = never, ZE = never, ZR = never>(
  options: Options & {
    readonly store?: Layer.Layer<KeyValueStore.KeyValueStore, SE, SR> | undefined
    readonly summarizer?: Layer.Layer<Summarizer.Summarizer, ZE, ZR> | undefined
  }
): Layer.Layer<
  LanguageModel.LanguageModel | WindowReports,
  InvalidConfigError | SE | ZE,
  LanguageModel.LanguageModel | TokenCounter | SR | ZR
> => {
  const problem = SessionOptions.check(options, knownOptions)
  if (problem !== undefined) {
    return Layer.effectContext(
      Effect.fail(new InvalidConfigError({ component: "WindowedLanguageModel.layer", ...problem }))
    )
  }
  const { mode, ...rest } = options
  const session: Layer.Layer<Session.Session, InvalidConfigError | SE | ZE, TokenCounter | SR | ZR> = mode === "per-call"
    ? Session.layerPerCall(rest)
    : Session.layerStable(rest)
  return layerFromSession.pipe(Layer.provide(session))
}
