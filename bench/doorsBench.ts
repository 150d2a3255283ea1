/**
 * The front doors' time per call (issue 25, item 6): one long generated session
 * (`test/support/sessions.ts`, tool-heavy) replayed call by call through each door at a history
 * of about `messages` messages, counts known — the conversation's calls before it (every one by
 * default, from the session's first: docs/design.md item 149), so that every message but the
 * newest step's has been counted — then `samples` timed calls, each on the next history (one
 * step more, as in an agent loop). The target is ≤ 1 ms a call at 1,000 messages; each row
 * carries its verdict.
 *
 * The doors, each with its own default counter (o200k, `gpt-tokenizer`):
 *
 * - the AI SDK middleware (`AiSdk.middleware`, stable and per-call): `wrapLanguageModel` around
 *   the SDK's mock model, each call's history sent as a provider prompt through `doGenerate`.
 *   The SDK rebuilds the provider prompt at every step (`convertToLanguageModelPrompt`), so the
 *   prompt is made of fresh objects at every call (made before the clock starts);
 * - `prepareStep` (stable and per-call): the step's `ModelMessage`s, the same objects from one
 *   step to the next, as the SDK's loop keeps them;
 * - `trim` (OpenAI chat format) and `trimModelMessages`: the same message objects appended to,
 *   and fresh copies of equal messages at every call (`JSON.parse` of the history, as a server
 *   receiving it per request has; the parse is not timed).
 *
 * The effect/ai layer's time is `SessionBench.overhead`'s (the layer less the scripted model).
 *
 * Two rows a door, as the target reads "once their counts are known" (docs/performance.md, the
 * doors; docs/design.md item 106):
 *
 * - counts **known before the call** — the verdict's rows: each door is given a counter whose
 *   answers for the session's texts were computed before the clock starts, the same o200k counts
 *   as the door's default counter (`gpt-tokenizer`: a message's text counted, plus its role's
 *   framing and its media estimate). The middleware and `prepareStep` take `counter` (a text's
 *   tokens, with `messageOverhead` the framing and `requestOverhead` the reply priming): a memo
 *   of every text a door instance of their own counted over the session's whole history, warmed
 *   outside the clock, a text it has not seen (a result the window shortened) counted in the
 *   call. `trim` and `trimModelMessages` take `count` (a message's tokens): each call's message
 *   objects are given their counts when the call is made ready (untimed), from a table of the
 *   session's messages counted once; a message the table does not hold (a shortened copy) is
 *   counted in the call.
 * - counts **counted in the call** — information: each door's default counter, which counts the
 *   newest step's messages inside the timed call (every other message's count is remembered).
 */
import { type ModelMessage, wrapLanguageModel } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import { Context, Effect, Layer } from "effect"
import { Prompt } from "effect/ai"
import * as AiSdk from "../src/adapters/AiSdk.ts"
import type * as AiSdkPrompt from "../src/adapters/AiSdkPrompt.ts"
import * as GptTokenizer from "../src/ai/GptTokenizer.ts"
import * as MediaTokens from "../src/ai/MediaTokens.ts"
import * as PromptWindow from "../src/ai/PromptWindow.ts"
import * as TokenCounter from "../src/ai/TokenCounter.ts"
import * as ModelMessages from "../src/plain/ModelMessages.ts"
import * as OpenAIChat from "../src/plain/OpenAIChat.ts"
import * as Trim from "../src/plain/Trim.ts"
import * as SessionFormats from "../test/support/sessionFormats.ts"
import { chatProjection } from "../test/support/sessionFormats.ts"
import type { Session } from "../test/support/sessions.ts"
import { median } from "./median.ts"

/** The target of every door: at most this many milliseconds a call at 1,000 messages. */
export const targetMs = 1

/** Called when the timed calls start (`true`) and end (`false`): to profile them alone. */
export interface Hooks {
  readonly timed?: ((started: boolean) => void | Promise<void>) | undefined
}

/** A door's time per call. */
export interface DoorTiming {
  readonly door: string
  readonly mode: "stable" | "per-call" | undefined
  /**
   * The history each call gets: the same message objects as the call before, fresh copies (JSON
   * parsed: every string a new one), or the fresh provider prompt the AI SDK builds at each step
   * (new message and part objects that carry the caller's own strings and values).
   */
  readonly history: "same objects" | "fresh copies" | "fresh objects, as the SDK builds them"
  /**
   * Whether every message's count was known before the timed call (a counter given the
   * session's counts, warmed outside the clock: the target's rows), or the door's default
   * counter counted the newest step's messages in the call (information); `none (the floor)`
   * for the rows of {@link floors}, which count nothing (information).
   */
  readonly counts: "known before the call" | "counted in the call" | "none (the floor)"
  /** The messages of the first timed call's history. */
  readonly messages: number
  readonly samples: number
  /** The median, the fastest and the slowest call, in milliseconds. */
  readonly medianMs: number
  readonly minMs: number
  readonly maxMs: number
  /**
   * The median CPU time of the process during a call (`process.cpuUsage`, every thread: the
   * collector's too): on a machine shared with other work, the call's own cost, where the wall
   * clock also counts the time the process waited for a core.
   */
  readonly cpuMedianMs: number
  readonly targetMs: number
  /** The target's verdict, on the rows whose counts were known; `information` on the others. */
  readonly verdict: "met" | "missed" | "information"
}

/** The histories of a session: at call k, its start and its first k steps (the same objects). */
export const historiesOf = (session: Session): Array<ReadonlyArray<Prompt.Message>> => {
  const out: Array<ReadonlyArray<Prompt.Message>> = []
  const history: Array<Prompt.Message> = [...session.start]
  for (const step of session.steps) {
    out.push(history.slice())
    history.push(step.response, ...step.next)
  }
  return out
}

const lastOf = <A>(histories: ReadonlyArray<ReadonlyArray<A>>): ReadonlyArray<A> => histories[histories.length - 1] ?? []

/** One door's calls: a call made ready from the history of call k (not timed), then run (timed). */
type Door = (k: number) => (() => PromiseLike<unknown>) | Promise<() => PromiseLike<unknown>>

/** How the middleware's prompts are made: by the SDK's own conversion, or as JSON copies. */
type MiddlewarePrompt = "as the SDK builds them" | "JSON copies"

const noUsage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined }
}

const fresh = <A>(value: A): A => {
  const copy: A = JSON.parse(JSON.stringify(value))
  return copy
}

/**
 * Times a door: up to `warmup` calls on the histories before the first with `messages` messages
 * (the last ones, up to all of them), then `samples` calls, each on the next.
 */
const time = async (
  name: Omit<DoorTiming, "messages" | "samples" | "medianMs" | "minMs" | "maxMs" | "cpuMedianMs" | "targetMs" | "verdict">,
  histories: ReadonlyArray<ReadonlyArray<unknown>>,
  door: Door,
  messages: number,
  samples: number,
  warmup: number,
  hooks: Hooks | undefined,
  /** Whether the row is one of the target's (its counts known too), or information only. */
  target = true
): Promise<DoorTiming> => {
  const first = histories.findIndex((h) => h.length >= messages)
  if (first < 0 || first + samples > histories.length) {
    throw new Error(`the session has fewer than ${messages} messages and ${samples} steps after them`)
  }
  for (let k = Math.max(0, first - warmup); k < first; k++) await (await door(k))()
  await hooks?.timed?.(true)
  const times: Array<number> = []
  const cpu: Array<number> = []
  for (let k = first; k < first + samples; k++) {
    const run = await door(k)
    const cpuStart = process.cpuUsage()
    const start = performance.now()
    await run()
    times.push(performance.now() - start)
    const used = process.cpuUsage(cpuStart)
    cpu.push((used.user + used.system) / 1000)
  }
  await hooks?.timed?.(false)
  const medianMs = median(times)
  return {
    ...name,
    messages: histories[first]!.length,
    samples,
    medianMs,
    minMs: Math.min(...times),
    maxMs: Math.max(...times),
    cpuMedianMs: median(cpu),
    targetMs,
    verdict: !target || name.counts !== "known before the call" ? "information" : medianMs <= targetMs ? "met" : "missed"
  }
}

/**
 * o200k's counts, as the doors' default counter makes them (`GptTokenizer.layerEncoding`): a
 * message's rendered text counted, plus its role's framing (`<|im_start|>role<|im_sep|>` and
 * `<|im_end|>`) and its media estimate; a request's reply priming once.
 */
interface O200k {
  readonly text: (text: string) => number
  readonly framing: number
  readonly requestOverhead: number
  readonly message: (message: Prompt.Message) => number
}

const loadO200k = async (): Promise<O200k> => {
  const text = await Effect.runPromise(GptTokenizer.textCounter("o200k_base"))
  // The default counter itself, asked once per role: its count of a message less its text's.
  const counter = await Effect.runPromise(
    Effect.scoped(Effect.map(Layer.build(GptTokenizer.layerEncoding("o200k_base")), (context) => Context.get(context, TokenCounter.TokenCounter)))
  )
  const framings = new Set<number>()
  for (const message of [
    Prompt.systemMessage({ content: "framing" }),
    Prompt.userMessage({ content: [Prompt.textPart({ text: "framing" })] }),
    Prompt.assistantMessage({ content: [Prompt.textPart({ text: "framing" })] }),
    Prompt.toolMessage({
      content: [Prompt.toolResultPart({ id: "c", name: "f", isFailure: false, result: "framing", providerExecuted: false })]
    })
  ]) {
    framings.add((await Effect.runPromise(counter.count(message))) - text(PromptWindow.render(message)))
  }
  // One framing for every role (o200k writes each role as one token): one `messageOverhead`.
  if (framings.size !== 1) throw new Error(`the roles' framings differ: ${[...framings].join(", ")}`)
  const framing = [...framings][0]!
  return {
    text,
    framing,
    requestOverhead: counter.requestOverhead,
    message: (message) => text(PromptWindow.render(message)) + framing + MediaTokens.ofMessage(message, MediaTokens.defaultProvider)
  }
}

/**
 * A `counter` option (a text's tokens) that knows every text the door renders for the session,
 * warmed before the clock by a door of its own over the session's whole history.
 */
interface TextCounts {
  readonly counter: (text: string) => number
  readonly record: (text: string) => number
}

const textCounts = (o200k: O200k): TextCounts => {
  const known = new Map<string, number>()
  return {
    counter: (text) => known.get(text) ?? o200k.text(text),
    record: (text) => {
      const n = o200k.text(text)
      known.set(text, n)
      return n
    }
  }
}

/** The options that give a door of the AI SDK the counts of `counts` (o200k's figures). */
const counterOptions = (o200k: O200k, counter: (text: string) => number) => ({
  counter,
  messageOverhead: o200k.framing,
  requestOverhead: o200k.requestOverhead
})

/**
 * A provider prompt as the SDK builds one at each step of its loop: the SDK's
 * `convertToLanguageModelPrompt` makes a new object for every message and part and carries the
 * caller's values into them (`text: part.text`, `input: part.input`, the tool result's output
 * object). (The SDK's function itself is not called: it refuses a history that stops between a
 * tool call awaiting approval and its result, which the generated sessions hold and the SDK's
 * loop resolves before it converts.)
 */
const sdkBuilt = (messages: ReadonlyArray<AiSdkPrompt.ProviderMessage>): AiSdkPrompt.ProviderPrompt =>
  messages.map((message): AiSdkPrompt.ProviderMessage => {
    switch (message.role) {
      case "system":
        return { ...message }
      case "user":
        return { ...message, content: message.content.map((part) => ({ ...part })) }
      case "assistant":
        return { ...message, content: message.content.map((part) => ({ ...part })) }
      case "tool":
        return { ...message, content: message.content.map((part) => ({ ...part })) }
    }
  })

/**
 * The middleware's calls: fresh provider prompts at every call, made before the clock starts —
 * as the SDK builds them ({@link sdkBuilt}), or as JSON copies (a
 * caller of `doGenerate` that parses its prompt from JSON at every call: every string a new one).
 * The first are the target's rows; no SDK call sends the second.
 */
const middlewareDoor = async (
  histories: ReadonlyArray<ReadonlyArray<Prompt.Message>>,
  mode: "stable" | "per-call",
  copies: MiddlewarePrompt,
  contextWindow: number,
  outputReserve: number,
  o200k: O200k | undefined
): Promise<Door> => {
  // The SDK's mock model keeps every prompt it is called with (`doGenerateCalls`), which a
  // provider's client does not: the timed model's list is emptied before each call, off the
  // clock (docs/design.md item 147), so that the rows do not time the collection of what the
  // mock holds — a thousand messages a call.
  const mocks: Array<MockLanguageModelV4> = []
  const model = (options: Partial<AiSdk.Options>) => {
    const mock = new MockLanguageModelV4({
      doGenerate: async () => ({ content: [{ type: "text", text: "ok" }], finishReason: { unified: "stop", raw: undefined }, usage: noUsage, warnings: [] })
    })
    mocks.push(mock)
    return wrapLanguageModel({ model: mock, middleware: AiSdk.middleware({ contextWindow, outputReserve, mode, ...options }) })
  }
  // The session's messages in the provider's format (every history is a prefix of the last).
  const provider: ReadonlyArray<AiSdkPrompt.ProviderMessage> = SessionFormats.toProviderPrompt(lastOf(histories))
  const promptOf = (k: number): AiSdkPrompt.ProviderPrompt =>
    copies === "JSON copies" ? fresh(provider.slice(0, histories[k]!.length)) : sdkBuilt(provider.slice(0, histories[k]!.length))
  let options: Partial<AiSdk.Options> = {}
  if (o200k !== undefined) {
    const counts = textCounts(o200k)
    // Counts known: a per-call door of its own renders and counts every message of the history.
    await model({ ...counterOptions(o200k, counts.record), mode: "per-call" }).doGenerate({ prompt: promptOf(histories.length - 1) })
    options = counterOptions(o200k, counts.counter)
  }
  const timed = model(options)
  return (k) => {
    const prompt = promptOf(k)
    for (const mock of mocks) mock.doGenerateCalls.length = 0
    return () => timed.doGenerate({ prompt })
  }
}

/** A step of `prepareStep` on the first `length` of the session's `ModelMessage`s. */
const stepOf = (all: ReadonlyArray<ModelMessage>, length: number): AiSdk.Step => {
  const [system, ...rest] = all.slice(0, length)
  const instructions = system !== undefined && system.role === "system" ? system.content : undefined
  const messages = instructions === undefined ? all.slice(0, length) : rest
  return { messages, ...(instructions === undefined ? {} : { instructions }) }
}

/** `prepareStep`'s calls: the same `ModelMessage` objects from one step to the next. */
const prepareStepDoor = async (
  histories: ReadonlyArray<ReadonlyArray<Prompt.Message>>,
  mode: "stable" | "per-call",
  contextWindow: number,
  outputReserve: number,
  o200k: O200k | undefined
): Promise<Door> => {
  const all: ReadonlyArray<ModelMessage> = SessionFormats.toModelMessages(lastOf(histories))
  let options: Partial<AiSdk.PrepareStepOptions> = {}
  if (o200k !== undefined) {
    const counts = textCounts(o200k)
    await AiSdk.prepareStep({ contextWindow, outputReserve, ...counterOptions(o200k, counts.record), mode: "per-call" })(
      stepOf(all, all.length)
    )
    options = counterOptions(o200k, counts.counter)
  }
  const step = AiSdk.prepareStep({ contextWindow, outputReserve, mode, ...options })
  return (k) => {
    const input = stepOf(all, histories[k]!.length)
    return () => step(input)
  }
}

/**
 * A `count` option (a message's tokens) that knows the counts of a call's message objects,
 * given them when the call is made ready (`prepare`, untimed) from the session's table; any
 * other message (a copy the window shortened) is counted when asked.
 */
const messageCounts = <M>(
  table: ReadonlyArray<number>,
  slow: (message: M) => number
) => {
  let known = new WeakMap<object, number>()
  return {
    prepare: (messages: ReadonlyArray<M>) => {
      known = new WeakMap()
      messages.forEach((message, i) => {
        const n = table[i]
        if (typeof message === "object" && message !== null && n !== undefined) known.set(message, n)
      })
    },
    count: (message: M): number =>
      (typeof message === "object" && message !== null ? known.get(message) : undefined) ?? slow(message)
  }
}

/** `trimModelMessages`'s calls: the same objects, or fresh copies. */
const trimModelMessagesDoor = async (
  histories: ReadonlyArray<ReadonlyArray<Prompt.Message>>,
  copies: boolean,
  contextWindow: number,
  outputReserve: number,
  o200k: O200k | undefined
): Promise<Door> => {
  const all: ReadonlyArray<ModelMessage> = SessionFormats.toModelMessages(lastOf(histories))
  let counts: ReturnType<typeof messageCounts<ModelMessage>> | undefined
  if (o200k !== undefined) {
    // `toPromptMessages` is the door's conversion without its memo (the door's own is left as
    // the timed calls find it).
    const promptOf = (messages: ReadonlyArray<ModelMessage>) => Effect.runPromise(ModelMessages.toPromptMessages(messages))
    const table = (await promptOf(all)).map(o200k.message)
    counts = messageCounts(table, (message) => {
      const [converted] = Effect.runSync(ModelMessages.toPromptMessages([message]))
      return o200k.message(converted!)
    })
  }
  return (k) => {
    const length = histories[k]!.length
    const messages = copies ? fresh(all.slice(0, length)) : all.slice(0, length)
    if (counts === undefined) return () => Trim.trimModelMessages(messages, { contextWindow, outputReserve })
    counts.prepare(messages)
    const options = { contextWindow: contextWindow - o200k!.requestOverhead, outputReserve, count: counts.count }
    return () => Trim.trimModelMessages(messages, options)
  }
}

/** `trim`'s calls (OpenAI chat format, the session's chat projection): the same objects, or fresh copies. */
const trimDoor = async (
  histories: ReadonlyArray<ReadonlyArray<Prompt.Message>>,
  copies: boolean,
  contextWindow: number,
  outputReserve: number,
  o200k: O200k | undefined
): Promise<Door> => {
  const all: ReadonlyArray<SessionFormats.IndexedChatMessage> = SessionFormats.toOpenAIChat(lastOf(histories))
  let counts: ReturnType<typeof messageCounts<OpenAIChat.Message>> | undefined
  if (o200k !== undefined) {
    const names = OpenAIChat.toolNames(all)
    const table = OpenAIChat.toPromptMessages(all).map(o200k.message)
    counts = messageCounts<OpenAIChat.Message>(table, (message) => o200k.message(OpenAIChat.toPromptMessage(message, names)))
  }
  return (k) => {
    const length = histories[k]!.length
    const messages = copies ? fresh(all.slice(0, length)) : all.slice(0, length)
    if (counts === undefined) return () => Trim.trim(messages, { contextWindow, outputReserve })
    counts.prepare(messages)
    // A function's counts carry no reply priming: the window is made smaller by it, as the
    // default counter's budget is.
    const options = { contextWindow: contextWindow - o200k!.requestOverhead, outputReserve, count: counts.count }
    return () => Trim.trim(messages, options)
  }
}

/** Which doors to time: all by default. */
export type DoorName =
  | "middleware"
  | "prepareStep"
  | "trim"
  | "trimModelMessages"

export const doorNames: ReadonlyArray<DoorName> = ["middleware", "prepareStep", "trimModelMessages", "trim"]

/**
 * Every door's time per call at `messages` messages on `session` (tool-heavy, long enough), in
 * a `contextWindow`-token window with `outputReserve` kept.
 */
export const timeDoors = async (
  session: Session,
  options: {
    readonly contextWindow: number
    readonly outputReserve: number
    readonly messages?: number | undefined
    readonly samples?: number | undefined
    readonly warmup?: number | undefined
    readonly doors?: ReadonlyArray<DoorName> | undefined
    /** Which rows: both by default, the counts known first. */
    readonly counts?: ReadonlyArray<DoorTiming["counts"]> | undefined
    readonly hooks?: Hooks | undefined
  }
): Promise<Array<DoorTiming>> => {
  const { contextWindow, outputReserve } = options
  const messages = options.messages ?? 1000
  const samples = options.samples ?? 40
  // Every call of the conversation before the first timed one (docs/design.md item 149): a
  // conversation that reaches 1,000 messages has made them all through its door, and a door's
  // code settles at its top tier only over that many calls (items 143, 149).
  const warmup = options.warmup ?? Number.POSITIVE_INFINITY
  const doors = options.doors ?? doorNames
  const histories = historiesOf(session)
  const chat = historiesOf(chatProjection(session))
  const out: Array<DoorTiming> = []
  const o200k = await loadO200k()
  const run = async (name: Parameters<typeof time>[0], hs: ReadonlyArray<ReadonlyArray<Prompt.Message>>, door: Door, target = true) => {
    out.push(await time(name, hs, door, messages, samples, warmup, options.hooks, target))
  }
  const countings = options.counts ?? ["known before the call", "counted in the call"]
  for (const counts of countings) {
    const known = counts === "known before the call" ? o200k : undefined
    for (const mode of ["stable", "per-call"] as const) {
      if (doors.includes("middleware")) {
        await run(
          { door: "AI SDK middleware", mode, history: "fresh objects, as the SDK builds them", counts },
          histories,
          await middlewareDoor(histories, mode, "as the SDK builds them", contextWindow, outputReserve, known)
        )
        // Information: no SDK call sends a prompt of new strings (its conversion carries the
        // caller's); a caller of `doGenerate` that parses its prompt from JSON would.
        await run(
          { door: "AI SDK middleware", mode, history: "fresh copies", counts },
          histories,
          await middlewareDoor(histories, mode, "JSON copies", contextWindow, outputReserve, known),
          false
        )
      }
      if (doors.includes("prepareStep")) {
        await run(
          { door: "AI SDK prepareStep", mode, history: "same objects", counts },
          histories,
          await prepareStepDoor(histories, mode, contextWindow, outputReserve, known)
        )
      }
    }
    for (const copies of [false, true]) {
      const history = copies ? "fresh copies" as const : "same objects" as const
      if (doors.includes("trimModelMessages")) {
        await run(
          { door: "trimModelMessages", mode: undefined, history, counts },
          histories,
          await trimModelMessagesDoor(histories, copies, contextWindow, outputReserve, known)
        )
      }
      if (doors.includes("trim")) {
        await run({ door: "trim", mode: undefined, history, counts }, chat, await trimDoor(chat, copies, contextWindow, outputReserve, known))
      }
    }
  }
  return out
}

/**
 * Whether two JSON values are equal: every node of both read (arrays element by element, objects
 * key by key in order, strings by their characters when they are not the same string).
 */
const deepEqual = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false
    return true
  }
  if (Array.isArray(b)) return false
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  if (ka.length !== kb.length) return false
  for (let i = 0; i < ka.length; i++) {
    const key = ka[i]!
    if (key !== kb[i] || !deepEqual(Reflect.get(a, key), Reflect.get(b, key))) return false
  }
  return true
}

/**
 * The floor of an exact door on fresh copies (information; docs/design.md item 121): at each
 * call, no door at all — only the fresh copy of the history compared, node by node and
 * character by character, with the previous call's copy over their common length. Any door
 * that knows a fresh copy's messages for what they are (rather than by which objects they are)
 * reads at least this much; what a door costs beyond it is its own. Rows for the middleware's
 * provider prompt and `trim`'s chat messages, on the session the doors are timed on.
 */
export const floors = async (
  session: Session,
  options: { readonly messages?: number | undefined; readonly samples?: number | undefined; readonly warmup?: number | undefined }
): Promise<Array<DoorTiming>> => {
  const messages = options.messages ?? 1000
  const samples = options.samples ?? 40
  const warmup = options.warmup ?? 10
  const histories = historiesOf(session)
  const chat = historiesOf(chatProjection(session))
  const reading = <A>(all: ReadonlyArray<A>, hs: ReadonlyArray<ReadonlyArray<unknown>>): Door => {
    let previous: ReadonlyArray<A> = []
    return (k) => {
      const copy = fresh(all.slice(0, hs[k]!.length))
      return async () => {
        const n = Math.min(previous.length, copy.length)
        for (let i = 0; i < n; i++) {
          if (!deepEqual(previous[i], copy[i])) throw new Error(`message ${i} differs from the previous call's`)
        }
        previous = copy
      }
    }
  }
  const provider: ReadonlyArray<AiSdkPrompt.ProviderMessage> = SessionFormats.toProviderPrompt(lastOf(histories))
  const openAI = SessionFormats.toOpenAIChat(lastOf(chat))
  return [
    await time(
      { door: "floor: reading a fresh provider prompt (the middleware's input), no door", mode: undefined, history: "fresh copies", counts: "none (the floor)" },
      histories,
      reading(provider, histories),
      messages,
      samples,
      warmup,
      undefined
    ),
    await time(
      { door: "floor: reading fresh chat messages (trim's input), no door", mode: undefined, history: "fresh copies", counts: "none (the floor)" },
      chat,
      reading(openAI, chat),
      messages,
      samples,
      warmup,
      undefined
    )
  ]
}
