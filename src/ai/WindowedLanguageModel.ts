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
 * - Each call's selection report is published to {@link WindowReports} (a `PubSub`) and its
 *   figures are the attributes of the span `cupel.window`.
 *
 * @since 0.2.0
 */
import { Context, Effect, Layer, PubSub, type Schema, Stream } from "effect"
import { AiError, LanguageModel, type Prompt, type Response, type Tool } from "effect/ai"
import type { NoExcessProperties } from "effect/Types"
import * as ContextBudget from "../ContextBudget.ts"
import { isSafeTotal } from "../internal/tokens.ts"
import * as OverflowNotifier from "../OverflowNotifier.ts"
import type { OverflowStrategy } from "../OverflowStrategy.ts"
import type { PipelineError } from "../Pipeline.ts"
import type { PipelineResult } from "../PipelineResult.ts"
import type * as Placer from "../Placer.ts"
import * as SectionedPlacer from "../placers/SectionedPlacer.ts"
import * as Scorer from "../Scorer.ts"
import * as RecencyScorer from "../scorers/RecencyScorer.ts"
import * as Slicer from "../Slicer.ts"
import * as FirstFitSlice from "../slicers/FirstFitSlice.ts"
import * as PromptWindow from "./PromptWindow.ts"
import { TokenCounter } from "./TokenCounter.ts"
import * as ToolDefinitions from "./ToolDefinitions.ts"

/**
 * Options of the layer.
 *
 * - `contextWindow` — the model's context window, in tokens (prompt and output together).
 * - `outputReserve` — the tokens kept free for the model's answer.
 * - `overflowStrategy` — `"Throw"` (default), `"Truncate"` or `"Proceed"`.
 * - `deduplication` — drop messages with the same text (default `false` here: a conversation
 *   may well repeat itself).
 * - `countTools` — count the definitions of the call's tools (`toolkit`) against the window
 *   and take them off the prompt's budget (default `true`; see `ToolDefinitions`).
 * - `scorer` / `slicer` — default recency and greedy; `placer` — default
 *   `SectionedPlacer.conversation`; `notifier` — default `OverflowNotifier.layerLog`.
 * - and `PromptWindow`'s options: `annotate` (kind, pinning, priority… per message),
 *   `documents`, `startMillis`.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options extends PromptWindow.Options {
  readonly contextWindow: number
  readonly outputReserve: number
  readonly overflowStrategy?: OverflowStrategy | undefined
  readonly deduplication?: boolean | undefined
  readonly countTools?: boolean | undefined
  readonly scorer?: Scorer.Definition | undefined
  readonly slicer?: Slicer.Definition | undefined
  readonly placer?: Layer.Layer<Placer.Placer> | undefined
  readonly notifier?: Layer.Layer<OverflowNotifier.OverflowNotifier> | undefined
}

/**
 * What one model call was sent, and why.
 *
 * @since 0.2.0
 * @category models
 */
export interface CallReport {
  readonly method: "generateText" | "generateObject" | "streamText"
  /** The prompt the model received. */
  readonly prompt: Prompt.Prompt
  /**
   * The candidates the pipeline weighed: the messages of the prompt the caller gave, plus the
   * `documents` (the selection report's `totalCandidates`).
   */
  readonly candidates: number
  /** The pipeline's result: window, selection report, totals. */
  readonly result: PipelineResult
  /** The tokens counted for the call's tool definitions (0 without tools, or with `countTools: false`). */
  readonly toolTokens: number
  /** The budget the prompt was fitted to: the layer's, less {@link CallReport.toolTokens} from its target. */
  readonly budget: ContextBudget.ContextBudget
}

/**
 * The reports of the calls, published as they are made. Subscribe (in a scope) before the
 * calls whose reports you want.
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
 * `"PinnedBudgetError"`, `"ScorerError"`, `"CandidateError"`…); `undefined` for any other
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
type WindowError = PipelineError | PromptWindow.CandidateError

/**
 * What a window error says about the request, as an `AiError` reason.
 *
 * - The prompt cannot fit (`PinnedBudgetError`, `OverflowError` under `Throw`), or the
 *   slicer's count requirements cannot be met by it (`CountRequirementError`): an
 *   `InvalidRequestError` on `prompt` — the request must change.
 * - The request's items are invalid — a message's item (`CandidateError`: the counter's count,
 *   an annotation, `startMillis`), a document (`InvalidItemError`), or token counts whose
 *   total no number holds exactly (`TokenTotalError`): an `InvalidRequestError` on the
 *   offending part.
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
    case "CountRequirementError":
      return invalid("prompt", "the prompt must hold the items the slicer's count requirements ask for")
    case "CandidateError":
      return invalid("prompt", `each message must make a valid item (${error.field})`)
    case "InvalidItemError":
      return invalid("documents", "every item must have a valid token count")
    case "TokenTotalError":
      return invalid("prompt", "token totals must stay within Number.MAX_SAFE_INTEGER")
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

/** The tool definitions cannot be counted, or leave no room: the request's toolkit must change. */
const toolkitError = (method: string, description: string) =>
  Effect.fail(AiError.make({
    module: errorModule,
    method,
    reason: new AiError.InvalidRequestError({
      parameter: "toolkit",
      constraint: "the tool definitions must fit the context window",
      description,
      metadata: { cupelError: "ToolDefinitions" }
    })
  }))

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
 * Wraps a language model so that each call's prompt is first fitted by `fit`, which is also
 * given the call's `toolkit` option (`undefined` without one).
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
  ) => Effect.Effect<Prompt.Prompt, AiError.AiError>
): LanguageModel.LanguageModel => {
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
    return Effect.flatMap(
      fit(options.prompt, "generateText", toolkitOf(options)),
      (prompt) => inner.generateText({ ...options, prompt })
    )
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
    return Effect.flatMap(
      fit(options.prompt, "generateObject", toolkitOf(options)),
      (prompt) => inner.generateObject({ ...options, prompt })
    )
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
      Effect.map(fit(options.prompt, "streamText", toolkitOf(options)), (prompt) => inner.streamText({ ...options, prompt }))
    )
  }

  return { ...inner, generateText, generateObject, streamText }
}

/**
 * Wraps the current `LanguageModel` (provide the provider's layer to this one) and provides
 * {@link WindowReports}. Needs a `TokenCounter` — `effect-cupel/ai/GptTokenizer`'s `layer`
 * offline, or `TokenCounter.layerTokenizer` over any `Tokenizer`. Fails to build with a
 * `SchemaError` if the window less the reserves is negative.
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
export const layer = (
  options: Options
): Layer.Layer<
  LanguageModel.LanguageModel | WindowReports,
  Schema.SchemaError,
  LanguageModel.LanguageModel | TokenCounter
> =>
  Layer.effectContext(Effect.gen(function*() {
    const inner = yield* LanguageModel.LanguageModel
    const counter = yield* TokenCounter
    const reports = yield* PubSub.unbounded<CallReport>()
    const budget = yield* ContextBudget.make({
      maxTokens: options.contextWindow,
      targetTokens: options.contextWindow - options.outputReserve - counter.requestOverhead,
      outputReserve: options.outputReserve
    })
    const strategies = yield* Layer.build(Layer.mergeAll(
      Scorer.layer(options.scorer ?? RecencyScorer.make()),
      Slicer.layer(options.slicer ?? FirstFitSlice.make()),
      options.placer ?? SectionedPlacer.conversation,
      options.notifier ?? OverflowNotifier.layerLog
    ))
    const countTools = options.countTools ?? true
    // Each tool's count, once per tool object and build: an agent offers the same tools at
    // every step.
    const toolCounts = new WeakMap<object, number>()
    const toolTokens = (toolkit: unknown, method: string) =>
      Effect.gen(function*() {
        let total = 0
        if (!countTools) return total
        for (const tool of ToolDefinitions.toolsOf(toolkit)) {
          let n = toolCounts.get(tool)
          if (n === undefined) {
            n = yield* counter.count(ToolDefinitions.message(tool))
            if (!Number.isSafeInteger(n) || n < 0) {
              return yield* toolkitError(
                method,
                `the token counter gave ${n} for the tool "${tool.name}"; counts must be whole and not negative`
              )
            }
            toolCounts.set(tool, n)
          }
          total += n
          if (!isSafeTotal(total)) {
            return yield* toolkitError(method, "the tool definitions' token counts add up past Number.MAX_SAFE_INTEGER")
          }
        }
        return total
      })
    const budgetFor = (tools: number, method: string) => {
      if (tools === 0) return Effect.succeed(budget)
      const targetTokens = budget.targetTokens - tools
      if (targetTokens < 0) {
        return toolkitError(
          method,
          `the tool definitions take ${tools} tokens, more than the ${budget.targetTokens} the window leaves for the prompt`
        )
      }
      return Effect.succeed(new ContextBudget.ContextBudget({ ...budget, targetTokens }))
    }
    const fit = (prompt: Prompt.RawInput, method: CallReport["method"], toolkit: unknown) =>
      Effect.gen(function*() {
        const tools = yield* toolTokens(toolkit, method)
        const callBudget = yield* budgetFor(tools, method)
        const fitted = yield* PromptWindow.fit(prompt, callBudget, {
          ...options,
          deduplication: options.deduplication ?? false,
          overflowStrategy: options.overflowStrategy ?? "Throw"
        })
        const report = fitted.result.report
        yield* Effect.annotateCurrentSpan({
          "cupel.window.method": method,
          "cupel.window.candidates": report.totalCandidates,
          "cupel.window.included": report.included.length,
          "cupel.window.excluded": report.excluded.length,
          "cupel.window.tokens": fitted.result.totalTokens,
          "cupel.window.tool_tokens": tools,
          "cupel.window.target_tokens": callBudget.targetTokens,
          "cupel.window.tokens_over_budget": fitted.result.tokensOverBudget
        })
        yield* PubSub.publish(reports, {
          method,
          prompt: fitted.prompt,
          candidates: report.totalCandidates,
          result: fitted.result,
          toolTokens: tools,
          budget: callBudget
        })
        return fitted.prompt
      }).pipe(
        Effect.provideContext(strategies),
        Effect.provideService(TokenCounter, counter),
        Effect.mapError(toAiError(method)),
        Effect.withSpan("cupel.window")
      )
    return Context.make(LanguageModel.LanguageModel, wrap(inner, fit)).pipe(Context.add(WindowReports, reports))
  }))
