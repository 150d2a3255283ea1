/**
 * The front doors that fit an agent's prompt to a window, each driven the same way: a session
 * (`test/support/sessions.ts`) replayed call by call — the history before call k is call k's
 * prompt — through one fresh instance of the door, with the same settings and the same
 * counter, each call's outcome read back as session indices ({@link Outcome}).
 *
 * - `layer` — the effect/ai layer (`WindowedLanguageModel.layer`) over a model that answers
 *   "ok"; the window is the prompt the model received, the figures the call's `CallReport`.
 * - `middleware` — the AI SDK middleware (`AiSdk.middleware`) in `wrapLanguageModel` around the
 *   SDK's `MockLanguageModelV4`, called with the provider-level prompt (`doGenerate`: what
 *   `transformParams` sees; `generateText` would drop the approval responses first); the window
 *   is the prompt the mock received, the figures the `onReport` report.
 * - `prepareStep` — `AiSdk.prepareStep` on the history's `ModelMessage`s (the system message
 *   among them); the window is the messages it returns.
 * - `trimModelMessages`, `trim` — `plain/Trim` on `ModelMessage`s and on the OpenAI chat format
 *   (the latter for a session the chat format can carry: `sessionFormats.chatProjection`).
 *
 * The counter is one deterministic function every door can express: a message costs a quarter
 * of the characters of `PromptWindow.render` of the door's own reading of it, rounded up, plus 4,
 * plus its images' and PDFs' estimate (`MediaTokens.ofMessage`, OpenAI's rule, the AI SDK doors' default);
 * a request costs nothing more (`trim`'s request overhead with a function is 0, so the others'
 * is set to 0). The replay goes on after a call that fails: the history does not depend on the
 * answers.
 */
import { type ModelMessage, wrapLanguageModel } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import type { JSONSchema7 } from "@ai-sdk/provider"
import { Context, Effect, Layer, PubSub, Schema, Stream } from "effect"
import { AiError, LanguageModel, Prompt, Tool, Toolkit } from "effect/ai"
import * as AiSdk from "../../src/adapters/AiSdk.ts"
import * as AiSdkPrompt from "../../src/adapters/AiSdkPrompt.ts"
import * as GptTokenizer from "../../src/ai/GptTokenizer.ts"
import * as MediaTokens from "../../src/ai/MediaTokens.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as Shorten from "../../src/ai/Shorten.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import * as ToolDefinitions from "../../src/ai/ToolDefinitions.ts"
import * as WindowedLanguageModel from "../../src/ai/WindowedLanguageModel.ts"
import type { PipelineResult } from "../../src/PipelineResult.ts"
import * as OpenAIChat from "../../src/plain/OpenAIChat.ts"
import * as Trim from "../../src/plain/Trim.ts"
import { indexOf, toModelMessages, toOpenAIChat, toProviderPrompt } from "./sessionFormats.ts"
import { histories, historyAt, type Session } from "./sessions.ts"

/** The settings every door gets. */
export interface Settings {
  readonly contextWindow: number
  readonly outputReserve: number
  readonly mode: "per-call" | "stable"
  /** `"quarter"` (default): {@link messageTokens}; `"o200k"`: gpt-tokenizer's o200k_base in every door. */
  readonly counter?: "quarter" | "o200k" | undefined
  /**
   * A tool every call offers, its description this many words long (none when absent): the
   * layer gets it as a `Toolkit`, the middleware as a function tool of the same JSON, and
   * `prepareStep` and the trims as `toolTokens`, its count with the doors' counter.
   */
  readonly toolWords?: number | undefined
  /** Stable windows only: the option `maskToolResults` (rules X1–X7), given to every door. */
  readonly maskToolResults?: boolean | undefined
  /**
   * `true`: each window also carries the text of every message sent as the model reads it
   * (`PromptWindow.render` of the door's sent message read back into `effect/ai`), so that a
   * stub, a reference or a shortened result must read the same through every door.
   */
  readonly texts?: boolean | undefined
}

/** The tool of {@link Settings.toolWords}. */
export const lookupTool = (words: number) =>
  Tool.make("lookup", {
    description: Array.from({ length: words }, (_, i) => `word${i % 10}`).join(" "),
    parameters: Schema.Struct({ query: Schema.String }),
    success: Schema.String
  })

/** What the tool's definition costs with the doors' counter (`ToolDefinitions.message`, counted). */
export const toolTokensOf = (words: number): number => messageTokens(ToolDefinitions.message(lookupTool(words)))

/** The tool as the AI SDK's provider-level function tool: the JSON the layer counts. */
const sdkToolOf = (words: number) => {
  const definition: { readonly name: string; readonly description: string; readonly parameters: JSONSchema7 } = JSON.parse(
    ToolDefinitions.text(lookupTool(words))
  )
  return { type: "function" as const, name: definition.name, description: definition.description, inputSchema: definition.parameters }
}

/**
 * The options every door takes for `toolTokens` beside its own: `prepareStep` and the trims
 * have the option (the trims since issue 25).
 */
const toolTokenOption = (settings: Settings): { readonly toolTokens?: number } =>
  settings.toolWords === undefined ? {} : { toolTokens: toolTokensOf(settings.toolWords) }

/**
 * One call's window as session indices: the messages `sent` in the order sent, those the door
 * reports `dropped` (ascending), the tool messages it `shortened` (`[index, keptTokens]`,
 * ascending), the `tokens` of the messages sent and the `targetTokens` they had.
 */
export interface Window {
  readonly _tag: "Window"
  readonly sent: ReadonlyArray<number>
  readonly dropped: ReadonlyArray<number>
  readonly shortened: ReadonlyArray<readonly [number, number]>
  readonly tokens: number
  readonly targetTokens: number
  /** With {@link Settings.texts}: the text of each message sent, in the order sent. */
  readonly texts?: ReadonlyArray<string> | undefined
}

/** One call that failed: the tag of its error (`cupelError` behind the layer's `AiError`). */
export interface Failure {
  readonly _tag: "Failure"
  readonly error: string
}

/** What one call of a replay gave. */
export type Outcome = Window | Failure

/** The names of the doors. */
export type DoorName = "layer" | "middleware" | "prepareStep" | "trimModelMessages" | "trim"

/** A door: replays a session with the settings, one outcome per call. */
export type Door = (session: Session, settings: Settings) => Promise<Array<Outcome>>

const assert: (condition: boolean, message: string) => asserts condition = (condition, message) => {
  if (!condition) throw new Error(message)
}

/** Four characters a token, rounded up. */
export const quarter = (text: string): number => Math.ceil(text.length / 4)

/**
 * What a message costs with the doors' counter: its text's quarter, 4 for its framing, and its
 * images and PDFs by OpenAI's rule (`MediaTokens.ofMessage`, 0 for a message with none), as the
 * AI SDK doors add to their `counter` option's count.
 */
export const messageTokens = (message: Prompt.Message): number =>
  quarter(PromptWindow.render(message)) + 4 + MediaTokens.ofMessage(message, MediaTokens.defaultProvider)

/** The counter of the effect/ai layer. */
export const layerCounter = TokenCounter.make(messageTokens, 0, "doors")

/** The counter of `trimModelMessages`: the message as the door reads it, counted. */
export const modelMessageTokens = (message: ModelMessage): number =>
  messageTokens(Prompt.make([AiSdkPrompt.toModelMessage(message)]).content[0]!)

/** The counter of `trim`: the message as the door reads it (its tool names from `all`), counted. */
export const chatTokens = (all: ReadonlyArray<OpenAIChat.Message>) => {
  const names = OpenAIChat.toolNames(all)
  return (message: OpenAIChat.Message): number => messageTokens(OpenAIChat.toPromptMessage(message, names))
}

/**
 * The tag of what a door rejected with: the pipeline's error behind the layer's `AiError`, else
 * `_tag`. Each error under the one name `windowFailure` gives it: the layer names a
 * `ToolDefinitionsError` `"ToolDefinitions"` (docs/ai.md, "Tool definitions": the name it had
 * before the error had a class), the other doors reject with the error itself.
 */
export const tagOf = (error: unknown): string => {
  if (AiError.isAiError(error)) return WindowedLanguageModel.windowFailure(error) ?? `AiError(${error.reason._tag})`
  if (error instanceof ToolDefinitions.ToolDefinitionsError) return "ToolDefinitions"
  if (typeof error === "object" && error !== null && "_tag" in error && typeof error._tag === "string") return error._tag
  return `untagged: ${String(error)}`
}

/**
 * Session indices of a door's sent messages: each message's own index, else (a tool message
 * the door shortened, a copy) the index of the tool message whose result it holds.
 */
const indicesOf = <M>(
  sent: ReadonlyArray<M>,
  history: ReadonlyArray<Prompt.Message>,
  own: (message: M) => number | undefined,
  callIdOf: (message: M) => string | undefined,
  window?: PipelineResult["window"]
): Array<number> => {
  const byCall = new Map<string, number>()
  history.forEach((message, i) => {
    if (message.role !== "tool") return
    for (const part of message.content) if (part.type === "tool-result") byCall.set(part.id, i)
  })
  // A message a door edited (a user message whose image was masked: a copy of its own) is
  // read off the window's item at its position, whose `messageIndex` is its session index.
  const windowIndex = (position: number): number | undefined => {
    const index = window?.[position]?.metadata["messageIndex"]
    return typeof index === "number" ? index : undefined
  }
  return sent.map((message, position) => {
    const index = own(message) ?? byCall.get(callIdOf(message) ?? "") ?? windowIndex(position)
    if (index === undefined) {
      throw new Error(`a sent message that stands for no message of the session: ${JSON.stringify(message).slice(0, 300)}`)
    }
    return index
  })
}

/** A window's figures from the pipeline's result (`messageIndex` is the session index). */
const figuresOf = (
  result: PipelineResult,
  targetTokens: number,
  sent: ReadonlyArray<number>,
  texts?: ReadonlyArray<string> | undefined
): Window => {
  const indexOfItem = (metadata: Readonly<Record<string, unknown>>) => {
    const index = metadata["messageIndex"]
    return typeof index === "number" ? index : -1
  }
  const shortened: Array<readonly [number, number]> = []
  for (const item of result.window) {
    const cut = item.metadata[Shorten.shortenedKey]
    if (typeof cut === "object" && cut !== null && "keptTokens" in cut && typeof cut.keptTokens === "number") {
      shortened.push([indexOfItem(item.metadata), cut.keptTokens])
    }
  }
  return {
    _tag: "Window",
    sent,
    dropped: result.report.excluded.map((e) => indexOfItem(e.item.metadata)).sort((a, b) => a - b),
    shortened: shortened.sort((a, b) => a[0] - b[0]),
    tokens: result.totalTokens,
    targetTokens,
    ...(texts === undefined ? {} : { texts })
  }
}

const effectCallId = (message: Prompt.Message): string | undefined =>
  message.role === "tool" ? message.content.find((p) => p.type === "tool-result")?.id : undefined

const sdkCallId = (message: { readonly role: string; readonly content: unknown }): string | undefined => {
  if (message.role !== "tool" || !Array.isArray(message.content)) return undefined
  const parts: ReadonlyArray<unknown> = message.content
  for (const part of parts) {
    if (typeof part === "object" && part !== null && "toolCallId" in part && typeof part.toolCallId === "string") {
      return part.toolCallId
    }
  }
  return undefined
}

/** A model that answers "ok" and records the prompts it received. */
const okModel = (seen: Array<Prompt.Prompt>) =>
  LanguageModel.make({
    generateText: (options) =>
      Effect.sync(() => {
        seen.push(options.prompt)
        return [{ type: "text" as const, text: "ok" }]
      }),
    streamText: () => Stream.empty
  })

/** The effect/ai layer: `WindowedLanguageModel.layer` over a model that answers "ok". */
export const layerDoor: Door = (session, settings) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const seen: Array<Prompt.Prompt> = []
    const model = yield* okModel(seen)
    const context = yield* Layer.build(
      WindowedLanguageModel.layer({
        contextWindow: settings.contextWindow,
        outputReserve: settings.outputReserve,
        mode: settings.mode,
        ...(settings.maskToolResults === undefined ? {} : { maskToolResults: settings.maskToolResults })
      }).pipe(Layer.provide([
        Layer.succeed(LanguageModel.LanguageModel, model),
        settings.counter === "o200k" ? GptTokenizer.layer : layerCounter
      ]))
    )
    const reports = yield* PubSub.subscribe(Context.get(context, WindowedLanguageModel.WindowReports))
    const offered = Toolkit.make(lookupTool(settings.toolWords ?? 0))
    const toolkit = settings.toolWords === undefined ? undefined : offered
    const handlers = offered.toLayer({ lookup: () => Effect.succeed("") })
    const out: Array<Outcome> = []
    for (const history of histories(session)) {
      const before = seen.length
      const input = Prompt.fromMessages(history)
      const provided = Layer.mergeAll(Layer.succeedContext(context), handlers)
      const exit = toolkit === undefined
        ? yield* Effect.exit(Effect.asVoid(LanguageModel.generateText({ prompt: input })).pipe(Effect.provide(provided)))
        : yield* Effect.exit(Effect.asVoid(LanguageModel.generateText({ prompt: input, toolkit })).pipe(Effect.provide(provided)))
      if (exit._tag === "Failure") {
        const error = exit.cause.reasons.find((r) => r._tag === "Fail")
        out.push({ _tag: "Failure", error: error === undefined ? "defect" : tagOf(error.error) })
        continue
      }
      const report = (yield* PubSub.takeAll(reports)).at(-1)!
      // The report's prompt is the window as the layer sent it (a model with a toolkit may
      // rebuild messages, approvals for one, before its provider sees them); the model got it.
      assert(seen.length === before + 1, "the model was called once")
      const byObject = new Map(history.map((m, i) => [m, i]))
      const sent = indicesOf(report.prompt.content, history, (m) => byObject.get(m), effectCallId, report.result.window)
      const texts = settings.texts === true ? seen.at(-1)!.content.map(PromptWindow.render) : undefined
      out.push(figuresOf(report.result, report.budget.targetTokens, sent, texts))
    }
    return out
  })))

const noUsage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined }
}

/** The middleware's options for the settings, with the doors' counter. */
export const middlewareOptions = (settings: Settings) => ({
  contextWindow: settings.contextWindow,
  outputReserve: settings.outputReserve,
  mode: settings.mode,
  ...(settings.maskToolResults === undefined ? {} : { maskToolResults: settings.maskToolResults }),
  ...(settings.counter === "o200k" ? {} : { counter: quarter, messageOverhead: 4, requestOverhead: 0 })
})

/** The AI SDK middleware, in `wrapLanguageModel` around the SDK's mock model. */
export const middlewareDoor: Door = async (session, settings) => {
  const reports: Array<AiSdk.Report> = []
  const provider = new MockLanguageModelV4({
    doGenerate: async () => ({
      content: [{ type: "text" as const, text: "ok" }],
      finishReason: { unified: "stop" as const, raw: undefined },
      usage: noUsage,
      warnings: []
    })
  })
  const model = wrapLanguageModel({
    model: provider,
    middleware: AiSdk.middleware({ ...middlewareOptions(settings), onReport: (report) => void reports.push(report) })
  })
  const all = toProviderPrompt(fullHistory(session))
  const out: Array<Outcome> = []
  for (const history of histories(session)) {
    const before = reports.length
    try {
      await model.doGenerate({
        prompt: all.slice(0, history.length),
        ...(settings.toolWords === undefined ? {} : { tools: [sdkToolOf(settings.toolWords)] })
      })
    } catch (error) {
      out.push({ _tag: "Failure", error: tagOf(error) })
      continue
    }
    const report = reports[before]!
    const prompt = provider.doGenerateCalls.at(-1)!.prompt
    const sent = indicesOf(prompt, history, indexOf, sdkCallId, report.result.window)
    const texts = settings.texts === true ? AiSdkPrompt.convert(prompt).prompt.content.map(PromptWindow.render) : undefined
    out.push(figuresOf(report.result, report.budget.targetTokens, sent, texts))
  }
  return out
}

/** `AiSdk.prepareStep` on the history's `ModelMessage`s. */
export const prepareStepDoor: Door = async (session, settings) => {
  const reports: Array<AiSdk.Report<ModelMessage>> = []
  const step = AiSdk.prepareStep({
    ...middlewareOptions(settings),
    ...toolTokenOption(settings),
    onReport: (report) => void reports.push(report)
  })
  const all = toModelMessages(fullHistory(session))
  const out: Array<Outcome> = []
  for (const history of histories(session)) {
    const before = reports.length
    let messages: ReadonlyArray<ModelMessage>
    try {
      messages = (await step({ messages: all.slice(0, history.length) })).messages
    } catch (error) {
      out.push({ _tag: "Failure", error: tagOf(error) })
      continue
    }
    const report = reports[before]!
    const texts = settings.texts === true ? AiSdkPrompt.convertModelMessages(messages).prompt.content.map(PromptWindow.render) : undefined
    out.push(figuresOf(report.result, report.budget.targetTokens, indicesOf(messages, history, indexOf, sdkCallId, report.result.window), texts))
  }
  return out
}

/** The session's whole history: every call's prompt is a prefix of it. */
const fullHistory = (session: Session): Array<Prompt.Message> => historyAt(session, session.steps.length)

/** A count function remembering its counts by message object (a caller keeps its array across calls). */
export const memoized = <M extends object>(count: (message: M) => number) => {
  const known = new WeakMap<M, number>()
  return (message: M): number => {
    let n = known.get(message)
    if (n === undefined) {
      n = count(message)
      known.set(message, n)
    }
    return n
  }
}

/** A trim's report as a {@link Window}. */
const trimmed = <M>(
  result: Trim.Trimmed<M>,
  history: ReadonlyArray<Prompt.Message>,
  callIdOf: (message: M) => string | undefined
): Window => {
  const sent = indicesOf(result.messages, history, indexOf, callIdOf)
  return {
    _tag: "Window",
    sent,
    dropped: result.report.dropped,
    shortened: result.report.shortened.map((s) => [s.index, s.keptTokens] as const).sort((a, b) => a[0] - b[0]),
    tokens: result.report.tokens,
    targetTokens: result.report.targetTokens
  }
}

/** `trimModelMessages` on the history's `ModelMessage`s, per call (it has no stable mode). */
export const trimModelMessagesDoor: Door = async (session, settings) => {
  const all = toModelMessages(fullHistory(session))
  const count: Trim.Options<ModelMessage>["count"] = settings.counter === "o200k" ? "o200k" : memoized(modelMessageTokens)
  const out: Array<Outcome> = []
  for (const history of histories(session)) {
    try {
      const options = {
        contextWindow: settings.contextWindow,
        outputReserve: settings.outputReserve,
        count,
        ...toolTokenOption(settings)
      }
      const result = await Trim.trimModelMessages(all.slice(0, history.length), options)
      out.push(trimmed(result, history, sdkCallId))
    } catch (error) {
      out.push({ _tag: "Failure", error: tagOf(error) })
    }
  }
  return out
}

/** `trim` on the history in the OpenAI chat format, per call (for a chat projection). */
export const trimDoor: Door = async (session, settings) => {
  const all = toOpenAIChat(fullHistory(session))
  const count: Trim.Options["count"] = settings.counter === "o200k" ? "o200k" : memoized(chatTokens(all))
  const out: Array<Outcome> = []
  for (const history of histories(session)) {
    try {
      const options = {
        contextWindow: settings.contextWindow,
        outputReserve: settings.outputReserve,
        count,
        ...toolTokenOption(settings)
      }
      const result = await Trim.trim(all.slice(0, history.length), options)
      out.push(trimmed(result, history, (m) => (m.role === "tool" ? m.tool_call_id : undefined)))
    } catch (error) {
      out.push({ _tag: "Failure", error: tagOf(error) })
    }
  }
  return out
}

/** Every door by name. */
export const doors: Readonly<Record<DoorName, Door>> = {
  layer: layerDoor,
  middleware: middlewareDoor,
  prepareStep: prepareStepDoor,
  trimModelMessages: trimModelMessagesDoor,
  trim: trimDoor
}

/** Whether two outcomes are the same: the same window and figures, or the same error. */
export const sameOutcome = (a: Outcome, b: Outcome): boolean => JSON.stringify(a) === JSON.stringify(b)

/** An outcome in one line, for a failure's message. */
export const showOutcome = (o: Outcome): string =>
  o._tag === "Failure"
    ? `fails ${o.error}`
    : `sent [${o.sent.join(",")}] dropped [${o.dropped.join(",")}] shortened [${
      o.shortened.map(([i, t]) => `${i}:${t}`).join(",")
    }] tokens ${o.tokens} target ${o.targetTokens}`

/**
 * Calls `f` as a JavaScript caller would: with arguments its types do not check (an option
 * misspelt, a mode out of its union), for the tests of what a door does with them at run time.
 */
export const jsCall = <A extends ReadonlyArray<unknown>, R>(f: (...args: A) => R) =>
(...args: ReadonlyArray<unknown>): R => Reflect.apply(f, undefined, args)
