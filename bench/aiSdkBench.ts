/**
 * The session bench's AI SDK strategies (issue 20, item 4): the same generated sessions
 * (`test/support/sessions.ts`) as the rest of `agent.bench.ts`, sent the way an AI SDK user
 * sends them, and measured by `SessionBench.measure` with the same counts.
 *
 * - `pruneMessages` (the AI SDK's own): each call's history as `ModelMessage`s, pruned with the
 *   options of the strategy. It takes no token budget: it removes reasoning and tool calls
 *   (with their results) from older messages, and nothing else, so what it sends is not bounded
 *   by the window ("largest / target" says by how much).
 * - this library's middleware (`effect-cupel/adapters/AiSdk`): `wrapLanguageModel` around the
 *   SDK's mock model (`ai/test`), each call's history sent as the provider-level prompt
 *   (`LanguageModelV4Prompt`) through the wrapped model's `doGenerate`; the request is the
 *   prompt the mock received. The middleware counts with its own o200k counter (its default,
 *   `GptTokenizer.layer`), as a user's would.
 *
 * Each session message is converted once (the same SDK object in every history, as the SDK's
 * own loop keeps them); what a strategy sends is read back as the session's message object when
 * it is one (or renders the same), else as a new message, counted.
 */
import { type ModelMessage, pruneMessages, wrapLanguageModel } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import { Effect } from "effect"
import { Prompt } from "effect/ai"
import * as AiSdk from "../src/adapters/AiSdk.ts"
import * as AiSdkPrompt from "../src/adapters/AiSdkPrompt.ts"
import * as PromptWindow from "../src/ai/PromptWindow.ts"
import { TokenCounter } from "../src/ai/TokenCounter.ts"
import { referencesAt, type Session } from "../test/support/sessions.ts"
import * as SessionBench from "./sessionBench.ts"

/** `pruneMessages`'s options, but its messages. */
export type PruneOptions = Omit<Parameters<typeof pruneMessages>[0], "messages">

/** An AI SDK way to make a request from the history. */
export type Strategy =
  | { readonly _tag: "prune"; readonly name: string; readonly options: PruneOptions }
  | {
    readonly _tag: "middleware"
    readonly name: string
    readonly options: Omit<AiSdk.Options, "contextWindow" | "outputReserve">
  }

const noUsage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined }
}

/** A mock model that answers every call at once (the mock records the calls' options). */
const mockModel = () =>
  new MockLanguageModelV4({
    doGenerate: async () => ({
      content: [{ type: "text", text: "ok" }],
      finishReason: { unified: "stop", raw: undefined },
      usage: noUsage,
      warnings: []
    })
  })

const renderKey = (message: Prompt.Message): string => `${message.role}\u0000${PromptWindow.render(message)}`

/**
 * The session's messages as SDK objects, each converted once, and the way back: an SDK message
 * to the session's object it stands for (by object, else by role and rendered text).
 */
const conversions = (session: Session) => {
  const all = [...session.start, ...session.steps.flatMap((step) => [step.response, ...step.next])]
  const model = new Map<Prompt.Message, ModelMessage>()
  const provider = new Map<Prompt.Message, AiSdkPrompt.ProviderMessage>()
  const back = new Map<object, Prompt.Message>()
  const byRender = new Map<string, Prompt.Message>()
  for (const message of all) {
    const m = AiSdkPrompt.fromModelMessage(message)
    const p = AiSdkPrompt.fromMessage(message)
    model.set(message, m)
    provider.set(message, p)
    back.set(m, message)
    back.set(p, message)
    if (!byRender.has(renderKey(message))) byRender.set(renderKey(message), message)
  }
  const toModel = (message: Prompt.Message): ModelMessage => model.get(message)!
  const toProvider = (message: Prompt.Message): AiSdkPrompt.ProviderMessage => provider.get(message)!
  /** The session's message an SDK message stands for, or its conversion (a message a strategy changed). */
  const fromSdk = (sent: object, convert: () => Prompt.Message): Prompt.Message => {
    const own = back.get(sent)
    if (own !== undefined) return own
    const converted = convert()
    return byRender.get(renderKey(converted)) ?? converted
  }
  const fromModel = (sent: ModelMessage) =>
    fromSdk(sent, () => AiSdkPrompt.convertModelMessages([sent]).prompt.content[0]!)
  const fromProvider = (sent: AiSdkPrompt.ProviderMessage) =>
    fromSdk(sent, () => AiSdkPrompt.convert([sent]).prompt.content[0]!)
  return { toModel, toProvider, fromModel, fromProvider }
}

/** The histories of the first `calls` calls: at each, the session's messages so far. */
const historiesOf = (session: Session, calls: number): Array<ReadonlyArray<Prompt.Message>> => {
  const histories: Array<ReadonlyArray<Prompt.Message>> = []
  const history: Array<Prompt.Message> = [...session.start]
  for (let k = 0; k < calls; k++) {
    histories.push(history.slice())
    const step = session.steps[k]!
    history.push(step.response, ...step.next)
  }
  return histories
}

/**
 * One call of a strategy, made ready from a history (the session's messages, converted to the
 * SDK's objects — not timed: an AI SDK user holds those already): `run` makes the request,
 * `read` gives what the model received, as session messages where they are.
 */
export interface Call {
  readonly run: () => Promise<void>
  readonly read: () => ReadonlyArray<Prompt.Message>
}

/** A strategy's calls, in order: each made from a history (its state carries over, for the middleware). */
export const caller = (
  session: Session,
  strategy: Strategy,
  settings: SessionBench.Settings
): (history: ReadonlyArray<Prompt.Message>) => Call => {
  const sdk = conversions(session)
  if (strategy._tag === "prune") {
    return (history) => {
      const messages = history.map(sdk.toModel)
      let sent: ReadonlyArray<ModelMessage> = []
      return {
        run: async () => {
          sent = pruneMessages({ messages, ...strategy.options })
        },
        read: () => sent.map(sdk.fromModel)
      }
    }
  }
  const inner = mockModel()
  const model = wrapLanguageModel({
    model: inner,
    middleware: AiSdk.middleware({
      contextWindow: settings.contextWindow,
      outputReserve: settings.outputReserve,
      ...strategy.options
    })
  })
  return (history) => {
    const prompt = history.map(sdk.toProvider)
    return {
      run: async () => {
        await model.doGenerate({ prompt })
      },
      read: () => (inner.doGenerateCalls.at(-1)?.prompt ?? []).map(sdk.fromProvider)
    }
  }
}

/** LangChain's `trimMessages` as the bench transcribes it (`SessionBench.trimLast`), as calls. */
export const trimLastCaller = (
  settings: SessionBench.Settings,
  requestOverhead: number,
  count: SessionBench.Count,
  startOn: "user" | undefined
) =>
(history: ReadonlyArray<Prompt.Message>): Call => {
  let sent: ReadonlyArray<Prompt.Message> = []
  return {
    run: async () => {
      sent = SessionBench.trimLast(history, SessionBench.targetOf(settings, requestOverhead), count, startOn)
    },
    read: () => sent
  }
}

/**
 * Replays a session through an AI SDK strategy: at each call the full history so far is sent;
 * the request is what the strategy made of it. The messages that are not the session's are
 * counted with the `TokenCounter` in context (the same as the session's counts).
 */
export const replay = (
  session: Session,
  strategy: Strategy,
  settings: SessionBench.Settings,
  calls = session.steps.length
): Effect.Effect<SessionBench.Replay, unknown, TokenCounter> =>
  Effect.gen(function*() {
    const counter = yield* TokenCounter
    const target = SessionBench.targetOf(settings, counter.requestOverhead)
    const histories = historiesOf(session, calls)
    const make = caller(session, strategy, settings)
    const requests: Array<ReadonlyArray<Prompt.Message>> = []
    for (const history of histories) {
      const call = make(history)
      yield* Effect.promise(call.run)
      requests.push(call.read())
    }
    const own = new Set(histories.at(-1) ?? [])
    for (const step of session.steps) for (const m of [step.response, ...step.next]) own.add(m)
    const extraCounts = new Map<Prompt.Message, number>()
    for (const request of requests) {
      for (const m of request) if (!own.has(m) && !extraCounts.has(m)) extraCounts.set(m, yield* counter.count(m))
    }
    return {
      strategy: strategy.name,
      target,
      histories,
      requests,
      references: histories.map((_, k) => referencesAt(session, k)),
      summarizerRequests: [],
      summaryOutcomes: { written: 0, kept: 0, failed: 0, "no-room": 0 },
      extraCounts
    }
  })

/** The time of one call, by a strategy, at a history's size. */
export interface Timing {
  readonly strategy: string
  /** The messages of the first timed call's history. */
  readonly messages: number
  readonly samples: number
  /** The median, in milliseconds. */
  readonly medianMs: number
}

/**
 * The time per call of a strategy at `messages` messages: `warmup` calls on the histories
 * before the first with `messages` messages (a stable window's state builds up), then
 * `samples` timed calls, each on the next history (one step more, as in an agent loop). The
 * session's histories must hold `messages` messages and `samples` steps after them.
 */
export const timePerCall = async (
  session: Session,
  name: string,
  make: (history: ReadonlyArray<Prompt.Message>) => Call,
  messages: number,
  samples = 40,
  warmup = 10
): Promise<Timing> => {
  const histories = historiesOf(session, session.steps.length)
  const first = histories.findIndex((h) => h.length >= messages)
  if (first < 0 || first + samples > histories.length) {
    throw new Error(`the session has fewer than ${messages} messages and ${samples} steps after them`)
  }
  for (let k = Math.max(0, first - warmup); k < first; k++) await make(histories[k]!).run()
  const times: Array<number> = []
  for (let k = first; k < first + samples; k++) {
    const call = make(histories[k]!)
    const start = performance.now()
    await call.run()
    times.push(performance.now() - start)
  }
  const sorted = times.sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return {
    strategy: name,
    messages: histories[first]!.length,
    samples,
    medianMs: sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
  }
}
