/**
 * The LangChain side by side (issue 29, item 3): the same generated sessions
 * (`test/support/sessions.ts`) driven through LangChain's own `createAgent` loop
 * (`test/support/langchain.ts`: a scripted chat model, the session's tool results) with each of
 *
 * - `trimMessages` — LangChain's own, from `@langchain/core/messages`, in a `wrapModelCall`
 *   middleware: `strategy: "last"`, `includeSystem: true`, `startOn: "human"`, `maxTokens` the
 *   window's target less the tool definitions, the same token counter;
 * - `summarizationMiddleware` — LangChain's own, from `langchain`, with a scripted summariser
 *   model (a fixed-size summary): `trigger: { tokens }` at the same target, its default `keep`
 *   (20 messages), the same token counter;
 * - `LangChain.middleware` — this library's adapter (stable windows, the same counter).
 *
 * Figures per strategy and session: orphaned tool parts in the requests (a call without its
 * result or a result without its call), the calls whose request does not open with the system
 * message, the calls whose request lacks the newest human message the agent was given, the
 * largest request against the target, and, through `CacheModel.predict` as `sessionBench.ts`
 * prices them (each request beside the one before it, the common prefix message by message),
 * the cached share of the input tokens and the input cost over the cost without a cache, under
 * the Anthropic 5-minute rule, over the second half of the calls — the summariser's own
 * requests priced too (they share no prefix with the conversation's). Time per call: each
 * strategy's own work at a history of 100 and of 1,000 messages (the model not called).
 */
import { AIMessage, type BaseMessage, SystemMessage, trimMessages } from "@langchain/core/messages"
import { type AgentMiddleware, createMiddleware, summarizationMiddleware } from "langchain"
import * as LangChain from "../src/adapters/LangChain.ts"
import * as LangChainPrompt from "../src/adapters/LangChainPrompt.ts"
import * as CacheModel from "../src/ai/CacheModel.ts"
import * as PromptWindow from "../src/ai/PromptWindow.ts"
import { contentKey, runAgentSession, ScriptedChatModel, toBaseMessages, toolIds } from "../test/support/langchain.ts"
import { generate, historyAt, type Session, type Shape } from "../test/support/sessions.ts"
import { median } from "./median.ts"

/** The window, and the pace of the calls (for the caches' lifetimes). */
export interface Settings {
  readonly contextWindow: number
  readonly outputReserve: number
  readonly secondsBetweenCalls: number
}

/** The strategies, in the table's order. */
export const strategies = ["trimMessages", "summarizationMiddleware", "effect-cupel"] as const
export type Strategy = typeof strategies[number]

/** One strategy's figures over one session. */
export interface Row {
  readonly strategy: Strategy
  readonly shape: Shape
  readonly calls: number
  readonly orphans: number
  readonly systemNotFirst: number
  readonly newestHumanMissing: number
  readonly largestRequest: number
  readonly target: number
  readonly overTarget: number
  readonly hitRatio: number
  readonly cost: number
  readonly summarizerCalls: number
}

/** A message's tokens, as every strategy counts them: a quarter of its rendered text, and 4. */
export const messageTokens = (message: BaseMessage): number =>
  LangChainPrompt.convert([message]).prompt.content.reduce((sum, m) => sum + Math.ceil(PromptWindow.render(m).length / 4) + 4, 0)

/**
 * The counts, remembered by what a message's count depends on — its tool calls (an AIMessage
 * that has some), else its content — so that the copies `trimMessages` makes of the messages
 * (which keep their fields' values) are counted once too: every strategy is timed with counts
 * already known, as the adapter's counter knows them.
 */
const byObject = new WeakMap<object, number>()
// One map a type: a content string is its own key (V8 keeps a string's hash on it).
const byText = new Map<string, Map<string, number>>()
const textMap = (type: string) => {
  let map = byText.get(type)
  if (map === undefined) byText.set(type, map = new Map())
  return map
}
const tokensOf = (message: BaseMessage): number => {
  const calls = "tool_calls" in message && Array.isArray(message.tool_calls) && message.tool_calls.length > 0
    ? message.tool_calls
    : undefined
  const content: unknown = message.content
  const key = calls ?? content
  const known = typeof key === "string"
    ? textMap(message.type).get(key)
    : typeof key === "object" && key !== null
    ? byObject.get(key)
    : undefined
  if (known !== undefined) return known
  const n = messageTokens(message)
  if (typeof key === "string") textMap(message.type).set(key, n)
  else if (typeof key === "object" && key !== null) byObject.set(key, n)
  return n
}
const requestTokens = (messages: ReadonlyArray<BaseMessage>) => messages.reduce((sum, m) => sum + tokensOf(m), 0)
const counter = (text: string) => Math.ceil(text.length / 4)

/** The orphaned tool parts of a request: calls without their result, results without their call. */
export const orphansOf = (messages: ReadonlyArray<BaseMessage>): number => {
  const { calls, results } = toolIds(messages)
  return calls.filter((id) => !results.includes(id)).length + results.filter((id) => !calls.includes(id)).length
}

/** Each request's cache prediction beside the one before it (messages equal by content). */
const predictions = (requests: ReadonlyArray<ReadonlyArray<BaseMessage>>, settings: Settings) => {
  const out: Array<CacheModel.Prediction> = []
  let previous: ReadonlyArray<BaseMessage> = []
  for (const request of requests) {
    let common = 0
    for (let i = 0; i < Math.min(previous.length, request.length); i++) {
      if (previous[i] !== request[i] && contentKey(previous[i]!) !== contentKey(request[i]!)) break
      common += tokensOf(request[i]!)
    }
    out.push(CacheModel.predict(CacheModel.Anthropic5m, {
      totalTokens: requestTokens(request),
      previousTokens: requestTokens(previous),
      commonPrefixTokens: common,
      secondsSincePrevious: out.length === 0 ? Infinity : settings.secondsBetweenCalls
    }))
    previous = request
  }
  return out
}

/** A summariser model: a summary of about 150 words, whatever it is asked. */
const summariser = () =>
  new ScriptedChatModel({
    answer: (_messages, call) => new AIMessage(`Summary ${call}: ${"the agent read, searched and edited files; ".repeat(25)}`)
  })

/** Whether a value is an agent middleware (a name, and hooks). */
const isMiddleware = (value: unknown): value is AgentMiddleware =>
  typeof value === "object" && value !== null && "name" in value && typeof value.name === "string"

/**
 * LangChain's `summarizationMiddleware` with a scripted summariser. Its config type is `never`
 * under this project's `exactOptionalPropertyTypes` (langchain infers it from a Zod 3 schema
 * whose optional fields do not admit that setting), so it is called through `Reflect.apply` and
 * its result checked.
 */
const summarization = (config: {
  readonly model: ScriptedChatModel
  readonly trigger: { readonly tokens: number }
  readonly tokenCounter: (messages: Array<BaseMessage>) => number
}): AgentMiddleware => {
  const made: unknown = Reflect.apply(summarizationMiddleware, undefined, [config])
  if (!isMiddleware(made)) throw new Error("summarizationMiddleware made no middleware")
  return made
}

/** LangChain's `trimMessages` as a middleware: the request is the trimmed state. */
const trimMiddleware = (maxTokens: number): AgentMiddleware =>
  createMiddleware({
    name: "trimMessages",
    wrapModelCall: async (request, handler) => {
      const all = [request.systemMessage, ...request.messages]
      const trimmed = await trimMessages(all, {
        maxTokens,
        strategy: "last",
        includeSystem: true,
        startOn: "human",
        tokenCounter: (messages: Array<BaseMessage>) => requestTokens(messages)
      })
      // When nothing is kept, not even the system message, trimMessages gives `[undefined]`.
      return handler({ ...request, messages: trimmed.filter((m) => m !== undefined && m.type !== "system") })
    }
  })

/** The middleware of a strategy, for a window whose message budget is `target` (tools counted). */
const middlewareOf = (strategy: Strategy, settings: Settings, toolTokens: number, summaries: ScriptedChatModel) => {
  const target = settings.contextWindow - settings.outputReserve - 3
  switch (strategy) {
    case "trimMessages":
      return trimMiddleware(target - toolTokens)
    case "summarizationMiddleware":
      return summarization({
        model: summaries,
        trigger: { tokens: target - toolTokens },
        tokenCounter: (messages: Array<BaseMessage>) => requestTokens(messages)
      })
    case "effect-cupel":
      return LangChain.middleware({
        contextWindow: settings.contextWindow,
        outputReserve: settings.outputReserve,
        counter,
        messageOverhead: 4
      })
  }
}

/** The tokens of a session's tool definitions, as the adapter counts them (one call to see it). */
const toolTokensOf = async (session: Session, settings: Settings): Promise<number> => {
  const reports: Array<LangChain.Report> = []
  await runAgentSession(session, [
    LangChain.middleware({
      contextWindow: settings.contextWindow,
      outputReserve: settings.outputReserve,
      counter,
      messageOverhead: 4,
      onReport: (r) => void reports.push(r)
    })
  ], { calls: 1 })
  return reports[0]?.toolTokens ?? 0
}

/** One strategy driven through one session. */
export const runStrategy = async (strategy: Strategy, session: Session, settings: Settings, toolTokens: number): Promise<Row> => {
  const summaries = summariser()
  const run = await runAgentSession(session, [middlewareOf(strategy, settings, toolTokens, summaries)])
  const target = settings.contextWindow - settings.outputReserve - 3 - toolTokens
  let orphans = 0
  let systemNotFirst = 0
  let newestHumanMissing = 0
  let largest = 0
  run.requests.forEach((request, k) => {
    orphans += orphansOf(request)
    if (request[0]?.type !== "system") systemNotFirst++
    const human = run.humans[k]
    if (human !== undefined && !request.some((m) => m === human || contentKey(m) === contentKey(human))) newestHumanMissing++
    largest = Math.max(largest, requestTokens(request))
  })
  // The summariser's requests, each after the conversation's request before it: no common prefix.
  const series = predictions(run.requests, settings)
  const summaryPredictions = summaries.requests.map((request) =>
    CacheModel.predict(CacheModel.Anthropic5m, {
      totalTokens: requestTokens(request),
      previousTokens: 0,
      commonPrefixTokens: 0,
      secondsSincePrevious: Infinity
    })
  )
  const from = Math.floor(series.length / 2)
  const steady = [...series.slice(from), ...summaryPredictions.slice(Math.floor(summaryPredictions.length / 2))]
  let cached = 0
  let total = 0
  let cost = 0
  let without = 0
  for (const p of steady) {
    cached += p.cachedTokens
    total += p.totalTokens
    cost += p.cost
    without += p.costWithoutCache
  }
  return {
    strategy,
    shape: session.shape,
    calls: run.requests.length,
    orphans,
    systemNotFirst,
    newestHumanMissing,
    largestRequest: largest,
    target,
    overTarget: run.requests.filter((r) => requestTokens(r) > target).length,
    hitRatio: total === 0 ? 0 : cached / total,
    cost: without === 0 ? 0 : cost / without,
    summarizerCalls: summaries.requests.length
  }
}

/** Every strategy over one session each of the given shapes. */
export const compare = async (
  shapes: ReadonlyArray<Shape>,
  steps: number,
  settings: Settings,
  seed = 1
): Promise<Array<Row>> => {
  const rows: Array<Row> = []
  for (const shape of shapes) {
    const session = generate(shape, steps, seed)
    const toolTokens = await toolTokensOf(session, settings)
    for (const strategy of strategies) rows.push(await runStrategy(strategy, session, settings, toolTokens))
  }
  return rows
}

/** The time of one strategy's own work for one call, at a history of `messages` messages. */
export interface Timing {
  readonly strategy: Strategy
  readonly messages: number
  readonly millisPerCall: number
}

/** A LangChain history of at least `n` messages, from a tool-heavy session, ending on a tool result. */
const historyOf = (n: number): Array<BaseMessage> => {
  const session = generate("tool-heavy", Math.ceil(n / 1.5) + 10, 3)
  for (let k = 1; k <= session.steps.length; k++) {
    const history = toBaseMessages(historyAt(session, k))
    if (history.length >= n) return history.slice(0, n)
  }
  throw new Error(`no history of ${n} messages`)
}

/**
 * Each strategy's time per call: its own work on a history of `n` messages, the model not
 * called (a handler that answers at once). The adapter's window is warmed by the call before
 * (the history less two messages), as in a running session; the summarisation middleware's
 * `beforeModel` runs on the whole history (its summariser answers at once).
 */
export const timeCalls = async (sizes: ReadonlyArray<number>, settings: Settings, repeats = 5): Promise<Array<Timing>> => {
  const out: Array<Timing> = []
  const answer = new AIMessage("ok")
  for (const n of sizes) {
    const all = historyOf(n + 2)
    const system = new SystemMessage(all[0]!.text)
    const rest = all.slice(1)
    const target = settings.contextWindow - settings.outputReserve - 3
    // Every message counted before the clocks start (the adapter's counter is warmed by its call before).
    requestTokens(all)
    for (const strategy of strategies) {
      const times: Array<number> = []
      for (let r = 0; r < repeats; r++) {
        const messages = rest.slice(0, n - 1)
        const started = performance.now()
        if (strategy === "trimMessages") {
          await trimMessages([system, ...messages], {
            maxTokens: target,
            strategy: "last",
            includeSystem: true,
            startOn: "human",
            tokenCounter: (ms: Array<BaseMessage>) => requestTokens(ms)
          })
          times.push(performance.now() - started)
        } else if (strategy === "summarizationMiddleware") {
          const middleware = summarization({
            model: summariser(),
            trigger: { tokens: target },
            tokenCounter: (ms: Array<BaseMessage>) => requestTokens(ms)
          })
          const hook = middleware.beforeModel
          const before = typeof hook === "function" ? hook : hook?.hook
          const start = performance.now()
          await before?.({ messages: [...messages] }, { context: { summaryPrompt: "Summarize the conversation so far." } })
          times.push(performance.now() - start)
        } else {
          const middleware = LangChain.middleware({
            contextWindow: settings.contextWindow,
            outputReserve: settings.outputReserve,
            counter,
            messageOverhead: 4
          })
          const wrap = middleware.wrapModelCall!
          const request = (history: ReadonlyArray<BaseMessage>) => ({
            model: new ScriptedChatModel({ answer: () => answer }),
            messages: [...history],
            systemPrompt: system.text,
            systemMessage: system,
            tools: [],
            state: { messages: [...history] },
            runtime: { configurable: { thread_id: `timing-${n}-${r}` } }
          })
          // The call before, then this one: a running session's call (not timed: the first).
          await wrap(request(messages.slice(0, -2)), async () => answer)
          const start = performance.now()
          await wrap(request(messages), async () => answer)
          times.push(performance.now() - start)
        }
      }
      out.push({ strategy, messages: n, millisPerCall: median(times) })
    }
  }
  return out
}
