/**
 * The session bench's core (issue 18, item 5), shared by `agent.bench.ts` and the tests
 * (`test/ai/SessionBench.test.ts`): replaying a generated session (`test/support/sessions.ts`)
 * through a strategy, and the figures of a replay.
 *
 * A strategy is either the public layer — `WindowedLanguageModel.layer` with some options (a
 * mode), wrapping a scripted model that records the prompt it receives — or a baseline: a
 * function from the history to the request. The baseline here is the peers' newest suffix,
 * LangChain's `trimMessages` with `strategy: "last"` transcribed (see {@link trimLast}).
 *
 * Figures of a replay (the "requests" are what the model received, call by call):
 *
 * - cache: each request beside the one before it, through `CacheModel.predict`, with the common
 *   prefix measured message by message (equal messages: the same object, or the same role and
 *   rendered text — what the tokenizer sees) with the counter's counts, and the calls
 *   `secondsBetweenCalls` apart. Steady state is the second half of the calls: the hit ratio is
 *   the cached share of their input tokens under the OpenAI rule; the cost is their input cost
 *   over their cost without a cache, under the Anthropic 5-minute and the OpenAI rules.
 * - the largest request (the sum of its messages' counts, as the window's budget counts it)
 *   against the target;
 * - the tool parts without their partner in the requests (`PromptWindow.orphans`);
 * - the messages of the requests that are neither a message of the call's history (the same
 *   object, or the same role and text) nor a summary message: a message the window altered;
 * - the calls whose request held the history's newest user message, of those where it fits
 *   beside the system prompts; the same for the latest tool exchange (the last assistant
 *   message with a tool call, and every message linked to it: results, approvals).
 * - the summariser's requests (the "stable + compaction" mode, with the scripted summariser of
 *   `scriptedSummarizer.ts`): each is priced as `Summarizer.layerLanguageModel` sends it — the
 *   conversation's last request, then one appended message with the instruction naming the span
 *   in it (rule C5) —
 *   against the request before it (the conversation's last request: its prefix is read from the
 *   cache when the rule allows), and its prediction is added to the call's in the cache figures
 *   (hit ratio and cost); the answer's tokens are output, not input, and are left out. Calls
 *   without a summariser have no such requests, so the figures compare across strategies. The
 *   sessions' calls offer no tools, so neither request has tool definitions to price; with tools,
 *   `layerLanguageModel` sends the context's tools too, and the prefix priced here stays common.
 * - retention of referenced results: at each call whose history's newest step refers back to
 *   earlier tool results by call id (`Sessions.referencesAt`), the share of those references
 *   whose target — the tool message with that call's result — is in the request verbatim, or
 *   is named by the text of a summary message in the request (`Summarizer.readSummaryMessage`),
 *   or (issue 27) is answered by the request's copy of that result sent as a reference to an
 *   identical earlier result that the request holds (`ResultReferences`), or by a stub naming it
 *   (`Masking`): the model can ask for it again by the call it names.
 * - tokens per call (issue 27): the mean of the requests' tokens over every call, and the mean
 *   input cost per call in base-price tokens (Anthropic 5-minute and OpenAI rules, every call,
 *   the summariser's requests included).
 */
import { Context, Effect, Layer, PubSub, Stream } from "effect"
import { LanguageModel, Prompt } from "effect/ai"
import * as CacheModel from "../src/ai/CacheModel.ts"
import * as Masking from "../src/ai/Masking.ts"
import * as PromptWindow from "../src/ai/PromptWindow.ts"
import * as ResultReferences from "../src/ai/ResultReferences.ts"
import * as Summarizer from "../src/ai/Summarizer.ts"
import { TokenCounter } from "../src/ai/TokenCounter.ts"
import * as WindowedLanguageModel from "../src/ai/WindowedLanguageModel.ts"
import type * as WindowSummary from "../src/ai/WindowSummary.ts"
import { referencesAt, type Session } from "../test/support/sessions.ts"
import * as ScriptedSummarizer from "./scriptedSummarizer.ts"
import { median } from "./median.ts"

/** The window the replay fits to, and the pace of its calls. */
export interface Settings {
  readonly contextWindow: number
  readonly outputReserve: number
  /** The time between two calls, for the caches' lifetimes (all the built-in ones are >= 300 s). */
  readonly secondsBetweenCalls: number
}

/** How a request is made from the history. */
export type Strategy =
  | {
    readonly _tag: "layer"
    readonly name: string
    readonly options: Partial<WindowedLanguageModel.Options>
    /** With it, compactions are summarised by the scripted summariser of this size. */
    readonly summarizer?: ScriptedSummarizer.Options | undefined
  }
  | {
    readonly _tag: "baseline"
    readonly name: string
    /** LangChain's `startOn`: drop the oldest kept messages until the first is a user message. */
    readonly startOn: "user" | undefined
  }

/**
 * A summariser's request, as `Summarizer.layerLanguageModel` would send it: made during call
 * `call`, its messages the conversation's last request then the instruction message.
 */
export interface SummarizerRequest {
  readonly call: number
  readonly messages: ReadonlyArray<Prompt.Message>
}

/** How many compactions of a replay wrote a summary, kept the old one, failed, or had no room. */
export type SummaryOutcomes = Readonly<Record<WindowSummary.Outcome["_tag"], number>>

/**
 * A replayed session: for each call, the history, what the model received and the call ids
 * the history's newest step refers back to; the summariser's requests, their outcomes, and the
 * counts of the messages that are not the session's (summaries, instruction messages).
 */
export interface Replay {
  readonly strategy: string
  /** The request's budget: the window less the output reserve and the request's overhead. */
  readonly target: number
  readonly histories: ReadonlyArray<ReadonlyArray<Prompt.Message>>
  readonly requests: ReadonlyArray<ReadonlyArray<Prompt.Message>>
  readonly references: ReadonlyArray<ReadonlyArray<string>>
  readonly summarizerRequests: ReadonlyArray<SummarizerRequest>
  readonly summaryOutcomes: SummaryOutcomes
  readonly extraCounts: ReadonlyMap<Prompt.Message, number>
}

const noOutcomes: SummaryOutcomes = { written: 0, kept: 0, failed: 0, "no-room": 0 }

/** A message's tokens, as the counter gave them. */
export type Count = (message: Prompt.Message) => number

/** Every message of a session, counted once through the `TokenCounter` in context. */
export const countsOf = (session: Session): Effect.Effect<Map<Prompt.Message, number>, unknown, TokenCounter> =>
  Effect.gen(function*() {
    const counter = yield* TokenCounter
    const counts = new Map<Prompt.Message, number>()
    const all = [...session.start, ...session.steps.flatMap((step) => [step.response, ...step.next])]
    for (const message of all) counts.set(message, yield* counter.count(message))
    return counts
  })

/** A count function over a map of counts; a message not in it is a bug of the bench. */
export const countFrom = (counts: ReadonlyMap<Prompt.Message, number>): Count => (message) => {
  const n = counts.get(message)
  if (n === undefined) throw new Error(`uncounted ${message.role} message`)
  return n
}

/** Each message's text, rendered once: a request's copies (stubs, references) are compared with every message of the history. */
const rendered = new WeakMap<Prompt.Message, string>()
const renderOf = (message: Prompt.Message): string => {
  let text = rendered.get(message)
  if (text === undefined) {
    text = PromptWindow.render(message)
    rendered.set(message, text)
  }
  return text
}

/** Two messages the tokenizer sees the same way: the same object, or the same role and text. */
export const sameMessage = (a: Prompt.Message, b: Prompt.Message): boolean =>
  a === b || (a.role === b.role && renderOf(a) === renderOf(b))

/** The tokens of the leading messages two requests share. */
export const commonPrefixTokens = (
  previous: ReadonlyArray<Prompt.Message>,
  current: ReadonlyArray<Prompt.Message>,
  count: Count
): number => {
  let tokens = 0
  const n = Math.min(previous.length, current.length)
  for (let i = 0; i < n && sameMessage(previous[i]!, current[i]!); i++) tokens += count(current[i]!)
  return tokens
}

/** The tokens of a request: its messages' counts. */
export const requestTokens = (request: ReadonlyArray<Prompt.Message>, count: Count): number =>
  request.reduce((sum, message) => sum + count(message), 0)

/** Each request's cache prediction under a rule, beside the request before it. */
export const predictions = (
  requests: ReadonlyArray<ReadonlyArray<Prompt.Message>>,
  count: Count,
  rule: CacheModel.CacheRule,
  secondsBetweenCalls: number
): Array<CacheModel.Prediction> => {
  const out: Array<CacheModel.Prediction> = []
  let previous: ReadonlyArray<Prompt.Message> = []
  for (const request of requests) {
    out.push(CacheModel.predict(rule, {
      totalTokens: requestTokens(request, count),
      previousTokens: requestTokens(previous, count),
      commonPrefixTokens: commonPrefixTokens(previous, request, count),
      secondsSincePrevious: out.length === 0 ? Infinity : secondsBetweenCalls
    }))
    previous = request
  }
  return out
}

/** The cached share of the input tokens, and the input cost over the cost without a cache, from call `from` on. */
export const ratios = (
  series: ReadonlyArray<CacheModel.Prediction>,
  from = 0
): { readonly hitRatio: number; readonly cost: number } => {
  let cached = 0
  let total = 0
  let cost = 0
  let without = 0
  for (const p of series.slice(from)) {
    cached += p.cachedTokens
    total += p.totalTokens
    cost += p.cost
    without += p.costWithoutCache
  }
  return { hitRatio: total === 0 ? 0 : cached / total, cost: without === 0 ? 0 : cost / without }
}

/** The steady state of a series of predictions: {@link ratios} over its second half. */
export const steadyState = (series: ReadonlyArray<CacheModel.Prediction>) =>
  ratios(series, Math.floor(series.length / 2))

/**
 * LangChain's `trimMessages(messages, { strategy: "last", maxTokens, includeSystem: true,
 * startOn, allowPartial: false })`, transcribed from langchain-core's `_last_max_tokens` and
 * `_first_max_tokens`, with a token counter that adds up the messages' counts:
 *
 * - a first system message is kept, and its tokens come off `maxTokens` (at least 0 left);
 * - the other messages are reversed and the longest prefix of them within what is left is kept
 *   (all of them if they fit) — the newest messages while they fit, stopping at the first that
 *   does not;
 * - with `startOn`, messages are then dropped from the oldest kept end until the oldest kept is
 *   of that type (all, if none is; when everything fit, the same drop applies);
 * - the result is the system message, then the kept messages in their order.
 *
 * LangChain does not keep tool calls with their results: a kept result whose call was cut is
 * an orphan (`startOn: "user"` avoids that at the cut, unless a result arrives after the user
 * message the cut starts on).
 */
export const trimLast = (
  messages: ReadonlyArray<Prompt.Message>,
  maxTokens: number,
  count: Count,
  startOn: "user" | undefined
): Array<Prompt.Message> => {
  if (messages.length === 0) return []
  const system = messages[0]!.role === "system" ? messages[0]! : undefined
  const rest = system === undefined ? messages : messages.slice(1)
  const remaining = Math.max(0, maxTokens - (system === undefined ? 0 : count(system)))
  const reversed = [...rest].reverse()
  // _first_max_tokens: the longest prefix within the limit (the counter adds up, so the
  // binary search over prefixes finds the same index as a scan).
  let idx = 0
  let sum = 0
  while (idx < reversed.length && sum + count(reversed[idx]!) <= remaining) {
    sum += count(reversed[idx]!)
    idx++
  }
  if (startOn !== undefined) {
    while (idx > 0 && reversed[idx - 1]!.role !== startOn) idx--
  }
  const kept = reversed.slice(0, idx).reverse()
  return system === undefined ? kept : [system, ...kept]
}

/** The scripted model: it records each prompt it receives and answers with the next response. */
const scripted = (session: Session, received: Array<ReadonlyArray<Prompt.Message>>) =>
  LanguageModel.make({
    generateText: (options) =>
      Effect.sync(() => {
        received.push(options.prompt.content)
        const step = session.steps[received.length - 1]
        // The answer's text is all the caller reads; the replay appends the session's own
        // message objects, so that a message is one object in every history.
        return [{ type: "text" as const, text: step === undefined ? "done" : PromptWindow.render(step.response) }]
      }),
    streamText: () => Stream.empty
  })

/** The budget target of the layer for these settings: window − reserve − the request's overhead. */
export const targetOf = (settings: Settings, requestOverhead: number): number =>
  settings.contextWindow - settings.outputReserve - requestOverhead

/**
 * Replays a session through a strategy: at each call the full history so far is the prompt;
 * the request is what the model received (the layer's window, or the baseline's trim).
 * Needs the `TokenCounter` (shared: counts are memoised per message object in it).
 */
export const replay = (
  session: Session,
  strategy: Strategy,
  settings: Settings,
  count: Count,
  calls = session.steps.length
): Effect.Effect<Replay, unknown, TokenCounter> =>
  Effect.gen(function*() {
    const counter = yield* TokenCounter
    const target = targetOf(settings, counter.requestOverhead)
    const histories: Array<ReadonlyArray<Prompt.Message>> = []
    const history: Array<Prompt.Message> = [...session.start]
    for (let k = 0; k < calls; k++) {
      histories.push(history.slice())
      const step = session.steps[k]!
      history.push(step.response, ...step.next)
    }
    const references = histories.map((_, k) => referencesAt(session, k))
    if (strategy._tag === "baseline") {
      const requests = histories.map((h) => trimLast(h, target, count, strategy.startOn))
      return {
        strategy: strategy.name,
        target,
        histories,
        requests,
        references,
        summarizerRequests: [],
        summaryOutcomes: noOutcomes,
        extraCounts: new Map()
      }
    }
    const received: Array<ReadonlyArray<Prompt.Message>> = []
    const summaries: Array<{ readonly call: number; readonly request: Summarizer.SummaryRequest }> = []
    const inner = yield* scripted(session, received)
    const context = yield* Layer.build(
      layerOf(strategy, settings, inner, counter, (request) => summaries.push({ call: received.length, request }))
    )
    const model = Context.get(context, LanguageModel.LanguageModel)
    const reports = yield* PubSub.subscribe(Context.get(context, WindowedLanguageModel.WindowReports))
    const outcomes = { ...noOutcomes }
    for (const h of histories) {
      yield* model.generateText({ prompt: Prompt.fromMessages(h) })
      for (const report of yield* PubSub.takeAll(reports)) {
        const tag = report.change?.summary?._tag
        if (tag !== undefined) outcomes[tag]++
      }
    }
    // The messages that are not the session's own objects: the summaries sent, the
    // instruction messages, and any message the layer sent as a copy.
    const own = new Set(histories.at(-1) ?? [])
    for (const step of session.steps) for (const m of [step.response, ...step.next]) own.add(m)
    const extraCounts = new Map<Prompt.Message, number>()
    const countExtra = (messages: ReadonlyArray<Prompt.Message>) =>
      Effect.gen(function*() {
        for (const m of messages) if (!own.has(m) && !extraCounts.has(m)) extraCounts.set(m, yield* counter.count(m))
      })
    for (const request of received) yield* countExtra(request)
    const summarizerRequests: Array<SummarizerRequest> = []
    for (const { call, request } of summaries) {
      const messages = [...request.context, ScriptedSummarizer.instructionMessage(request)]
      yield* countExtra(messages)
      summarizerRequests.push({ call, messages })
    }
    return {
      strategy: strategy.name,
      target,
      histories,
      requests: received,
      references,
      summarizerRequests,
      summaryOutcomes: outcomes,
      extraCounts
    }
  }).pipe(Effect.scoped)

/**
 * The layer of a strategy over the scripted model: `WindowedLanguageModel.layer` with the
 * strategy's options, and with its scripted summariser when it has one (`record` is given each
 * of its requests).
 */
const layerOf = (
  strategy: Extract<Strategy, { readonly _tag: "layer" }>,
  settings: Settings,
  inner: LanguageModel.LanguageModel,
  counter: TokenCounter["Service"],
  record: (request: Summarizer.SummaryRequest) => void
) =>
  WindowedLanguageModel.layer({
    contextWindow: settings.contextWindow,
    outputReserve: settings.outputReserve,
    ...strategy.options,
    ...(strategy.summarizer === undefined
      ? {}
      : { summarizer: ScriptedSummarizer.layer(counter, strategy.summarizer, record) })
  }).pipe(Layer.provide([Layer.succeed(LanguageModel.LanguageModel, inner), Layer.succeed(TokenCounter, counter)]))

/** How often a required part of the history was in the request, of the calls where it fit. */
export interface Presence {
  readonly kept: number
  readonly fit: number
}

/** The history's newest user message, or `undefined`. */
export const newestUser = (history: ReadonlyArray<Prompt.Message>): Prompt.Message | undefined =>
  history.findLast((m) => m.role === "user")

/**
 * The latest tool exchange of a history: the last assistant message with a (non-provider)
 * tool call and every message linked to it (its results, approvals), in order; empty without
 * one.
 */
export const latestToolExchange = (history: ReadonlyArray<Prompt.Message>): Array<Prompt.Message> => {
  const at = history.findLastIndex((m) =>
    m.role === "assistant" && m.content.some((part) => part.type === "tool-call" && !part.providerExecuted)
  )
  if (at < 0) return []
  const groups = PromptWindow.groups(history)
  const group = groups[at]
  return group === undefined ? [history[at]!] : history.filter((_, i) => groups[i] === group)
}

/** A message's tool result with the call id `id`: the tool message holding it. */
const holdsResult = (message: Prompt.Message, id: string): boolean =>
  message.role === "tool" && message.content.some((part) => part.type === "tool-result" && part.id === id)

/**
 * References to earlier tool results, and where the request had them: `verbatim` (the tool
 * message with the result is in the request) or `summarized` (not verbatim, but a summary
 * message in the request names its call id).
 */
export interface Retention {
  readonly references: number
  readonly verbatim: number
  readonly summarized: number
  /** Sent as a reference to an identical earlier result the request holds verbatim (issue 27). */
  readonly byReference: number
  /** Sent as a stub naming the call (issue 27): the model can call the tool again. */
  readonly stubbed: number
}

/** The part of a request that holds the result of call `id`, if any. */
const resultPartOf = (request: ReadonlyArray<Prompt.Message>, id: string): Prompt.ToolResultPart | undefined => {
  for (const m of request) {
    if (m.role !== "tool") continue
    for (const part of m.content) if (part.type === "tool-result" && part.id === id) return part
  }
  return undefined
}

/**
 * The retention of a replay: at each call, each call id the history's newest step refers back
 * to, checked against the call's request (see {@link Retention}). A reference whose result is
 * not in the history is a bug of the generator.
 */
export const retention = (run: Replay): Retention => {
  let references = 0
  let verbatim = 0
  let summarized = 0
  let byReference = 0
  let stubbed = 0
  run.references.forEach((ids, k) => {
    if (ids.length === 0) return
    const history = run.histories[k]!
    const request = run.requests[k]!
    const sent = new Set(request)
    const summaries = request.flatMap((m) => {
      const read = Summarizer.readSummaryMessage(m)
      return read === undefined ? [] : [read.text]
    })
    for (const id of ids) {
      const target = history.find((m) => holdsResult(m, id))
      if (target === undefined) throw new Error(`call ${k} refers to ${id}, whose result is not in its history`)
      references++
      if (sent.has(target) || request.some((m) => sameMessage(m, target))) verbatim++
      else if (summaries.some((text) => ScriptedSummarizer.names(text, id))) summarized++
      else {
        const part = resultPartOf(request, id)
        const of = part === undefined ? undefined : ResultReferences.readReference(part)
        if (of !== undefined) {
          const earlier = history.find((m) => holdsResult(m, of))
          if (earlier !== undefined && request.some((m) => sameMessage(m, earlier))) byReference++
        } else if (part !== undefined && Masking.readStub(part)?.id === id) stubbed++
      }
    }
  })
  return { references, verbatim, summarized, byReference, stubbed }
}

/**
 * The share of references retained (verbatim, in a summary, by reference or by a stub naming
 * them); 1 without references.
 */
export const retained = (r: Retention): number =>
  r.references === 0 ? 1 : (r.verbatim + r.summarized + r.byReference + r.stubbed) / r.references

/**
 * The prediction of each summariser request of a replay under a rule, beside the request before
 * it: the conversation's last request (the one before the call it was made in), sent
 * `secondsBetweenCalls` earlier.
 */
export const summarizerPredictions = (
  run: Replay,
  count: Count,
  rule: CacheModel.CacheRule,
  secondsBetweenCalls: number
): Array<{ readonly call: number; readonly prediction: CacheModel.Prediction }> =>
  run.summarizerRequests.map(({ call, messages }) => {
    const previous = call === 0 ? [] : run.requests[call - 1]!
    return {
      call,
      prediction: CacheModel.predict(rule, {
        totalTokens: requestTokens(messages, count),
        previousTokens: requestTokens(previous, count),
        commonPrefixTokens: commonPrefixTokens(previous, messages, count),
        secondsSincePrevious: call === 0 ? Infinity : secondsBetweenCalls
      })
    }
  })

/**
 * The cache figures of a replay under a rule from call `from` on: the calls' requests and the
 * summariser requests made during those calls, together ({@link ratios}).
 */
export const cacheFigures = (
  run: Replay,
  count: Count,
  rule: CacheModel.CacheRule,
  secondsBetweenCalls: number,
  from: number
): { readonly hitRatio: number; readonly cost: number } =>
  ratios([
    ...predictions(run.requests, count, rule, secondsBetweenCalls).slice(from),
    ...summarizerPredictions(run, count, rule, secondsBetweenCalls).filter((s) => s.call >= from).map((s) => s.prediction)
  ])

/**
 * The messages of a request that are neither a message of the history (the same object, or the
 * same role and text) nor a summary message (`Summarizer.readSummaryMessage`).
 */
export const notFromHistory = (
  request: ReadonlyArray<Prompt.Message>,
  history: ReadonlyArray<Prompt.Message>
): Array<Prompt.Message> => {
  const own = new Set(history)
  return request.filter((m) =>
    !own.has(m) && Summarizer.readSummaryMessage(m) === undefined && !history.some((h) => sameMessage(h, m))
  )
}

/** The figures of a replay. */
export interface Figures {
  readonly calls: number
  readonly target: number
  /**
   * OpenAI rule, second half of the calls: cached input tokens / input tokens, the summariser's
   * requests included.
   */
  readonly hitRatio: number
  /** Second half of the calls: input cost / input cost without caching, the summariser's requests included. */
  readonly costAnthropic5m: number
  readonly costOpenAI: number
  /** The same over every call. */
  readonly wholeSession: { readonly hitRatio: number; readonly costAnthropic5m: number; readonly costOpenAI: number }
  /** The second half's figures of the calls' own requests, without the summariser's. */
  readonly requestsOnly: { readonly hitRatio: number; readonly costAnthropic5m: number; readonly costOpenAI: number }
  /** The summariser's requests, and what the compactions did about their summaries. */
  readonly summarizer: { readonly requests: number; readonly outcomes: SummaryOutcomes }
  readonly largestRequest: number
  readonly overTarget: number
  readonly orphans: number
  /** Messages sent that are neither the history's nor a summary (see {@link notFromHistory}). */
  readonly notFromHistory: number
  readonly newestUser: Presence
  readonly latestTool: Presence
  /** References to earlier tool results, and where the requests had them; `share` retained. */
  readonly retention: Retention & { readonly share: number }
  /** The mean tokens of a request, over every call (issue 27). */
  readonly tokensPerCall: number
  /** The mean input cost of a call in base-price tokens, every call, the summariser's requests included. */
  readonly costPerCall: { readonly anthropic5m: number; readonly openai: number }
}

/** Measures a replay; `count` counts the session's messages (the replay's own counts the rest). */
export const measure = (run: Replay, sessionCount: Count, settings: Settings): Figures => {
  const count: Count = (message) => run.extraCounts.get(message) ?? sessionCount(message)
  const half = Math.floor(run.requests.length / 2)
  const figures = (from: number) => ({
    openai: cacheFigures(run, count, CacheModel.OpenAI, settings.secondsBetweenCalls, from),
    anthropic: cacheFigures(run, count, CacheModel.Anthropic5m, settings.secondsBetweenCalls, from)
  })
  const steady = figures(half)
  const all = figures(0)
  const openaiOnly = steadyState(predictions(run.requests, count, CacheModel.OpenAI, settings.secondsBetweenCalls))
  const anthropicOnly = steadyState(predictions(run.requests, count, CacheModel.Anthropic5m, settings.secondsBetweenCalls))
  let largest = 0
  let overTarget = 0
  let orphans = 0
  let altered = 0
  const user = { kept: 0, fit: 0 }
  const tool = { kept: 0, fit: 0 }
  run.requests.forEach((request, k) => {
    const tokens = requestTokens(request, count)
    largest = Math.max(largest, tokens)
    if (tokens > run.target) overTarget++
    orphans += PromptWindow.orphans(Prompt.fromMessages(request)).length
    altered += notFromHistory(request, run.histories[k]!).length
    const history = run.histories[k]!
    const system = requestTokens(history.filter((m) => m.role === "system"), count)
    const sent = new Set(request)
    const u = newestUser(history)
    if (u !== undefined && system + count(u) <= run.target) {
      user.fit++
      if (sent.has(u)) user.kept++
    }
    const exchange = latestToolExchange(history)
    if (exchange.length > 0 && system + requestTokens(exchange, count) <= run.target) {
      tool.fit++
      if (exchange.every((m) => sent.has(m))) tool.kept++
    }
  })
  const kept = retention(run)
  const perCall = (rule: CacheModel.CacheRule) => {
    const all = [
      ...predictions(run.requests, count, rule, settings.secondsBetweenCalls),
      ...summarizerPredictions(run, count, rule, settings.secondsBetweenCalls).map((s) => s.prediction)
    ]
    return run.requests.length === 0 ? 0 : all.reduce((sum, p) => sum + p.cost, 0) / run.requests.length
  }
  const sentTokens = run.requests.reduce((sum, request) => sum + requestTokens(request, count), 0)
  return {
    tokensPerCall: run.requests.length === 0 ? 0 : sentTokens / run.requests.length,
    costPerCall: { anthropic5m: perCall(CacheModel.Anthropic5m), openai: perCall(CacheModel.OpenAI) },
    calls: run.requests.length,
    target: run.target,
    hitRatio: steady.openai.hitRatio,
    costAnthropic5m: steady.anthropic.cost,
    costOpenAI: steady.openai.cost,
    wholeSession: { hitRatio: all.openai.hitRatio, costAnthropic5m: all.anthropic.cost, costOpenAI: all.openai.cost },
    requestsOnly: { hitRatio: openaiOnly.hitRatio, costAnthropic5m: anthropicOnly.cost, costOpenAI: openaiOnly.cost },
    summarizer: { requests: run.summarizerRequests.length, outcomes: run.summaryOutcomes },
    largestRequest: largest,
    overTarget,
    orphans,
    notFromHistory: altered,
    newestUser: user,
    latestTool: tool,
    retention: { ...kept, share: retained(kept) }
  }
}

/** What one call costs in the layer, beside what the model behind it costs. */
export interface Overhead {
  readonly strategy: string
  /** The messages of the first timed call's history. */
  readonly messages: number
  readonly samples: number
  /** Medians, in milliseconds: a call through the layer, the scripted model alone, their difference. */
  readonly layerMs: number
  readonly modelMs: number
  readonly overheadMs: number
}


const timed = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<readonly [number, A], E, R> =>
  Effect.gen(function*() {
    const start = performance.now()
    const a = yield* effect
    return [performance.now() - start, a] as const
  })

/**
 * The layer's own time per call at `messages` messages, once their counts are known (the
 * session's messages are counted first, in the shared counter): up to `warmup` calls on the
 * histories before the first with `messages` messages (by default all of them, from the
 * session's first: docs/design.md item 149), then `samples` timed calls, each on the
 * next history (one step more, as in an agent loop). Each call is timed through the layer, and
 * the scripted model alone on the request the layer sent; the overhead is the difference.
 * The histories must hold `messages` messages within the session's steps.
 */
export const overhead = (
  session: Session,
  strategy: Extract<Strategy, { readonly _tag: "layer" }>,
  settings: Settings,
  messages = 1000,
  samples = 40,
  // As the doors' rows (docs/design.md items 143, 146 and 149): every call of the conversation
  // before the first timed one, as an agent's conversation reaching 1,000 messages has made them.
  warmup = Number.POSITIVE_INFINITY,
  hooks?: { readonly timed?: ((started: boolean) => void | Promise<void>) | undefined }
): Effect.Effect<Overhead, unknown, TokenCounter> =>
  Effect.gen(function*() {
    const counter = yield* TokenCounter
    yield* countsOf(session)
    const histories: Array<ReadonlyArray<Prompt.Message>> = []
    const history: Array<Prompt.Message> = [...session.start]
    let first = -1
    for (const step of session.steps) {
      if (first < 0 && history.length >= messages) first = histories.length
      histories.push(history.slice())
      history.push(step.response, ...step.next)
    }
    if (first < 0 || first + samples > histories.length) {
      return yield* Effect.die(new Error(`the session has fewer than ${messages} messages and ${samples} steps after them`))
    }
    const received: Array<ReadonlyArray<Prompt.Message>> = []
    const inner = yield* scripted(session, received)
    const alone = yield* scripted(session, [])
    const context = yield* Layer.build(layerOf(strategy, settings, inner, counter, () => undefined))
    const model = Context.get(context, LanguageModel.LanguageModel)
    for (let k = Math.max(0, first - warmup); k < first; k++) {
      yield* model.generateText({ prompt: Prompt.fromMessages(histories[k]!) })
    }
    const layerTimes: Array<number> = []
    const modelTimes: Array<number> = []
    const differences: Array<number> = []
    if (hooks?.timed !== undefined) yield* Effect.promise(async () => hooks.timed?.(true))
    for (let k = first; k < first + samples; k++) {
      const [layerTime] = yield* timed(model.generateText({ prompt: Prompt.fromMessages(histories[k]!) }))
      const sent = Prompt.fromMessages(received.at(-1)!)
      const [modelTime] = yield* timed(alone.generateText({ prompt: sent }))
      layerTimes.push(layerTime)
      modelTimes.push(modelTime)
      differences.push(layerTime - modelTime)
    }
    if (hooks?.timed !== undefined) yield* Effect.promise(async () => hooks.timed?.(false))
    return {
      strategy: strategy.name,
      messages: histories[first]!.length,
      samples,
      layerMs: median(layerTimes),
      modelMs: median(modelTimes),
      overheadMs: median(differences)
    }
  }).pipe(Effect.scoped)
