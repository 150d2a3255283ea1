/**
 * The front doors' time per call (issue 25, item 6): one long generated session
 * (`test/support/sessions.ts`, tool-heavy) replayed call by call through each door at a history
 * of about `messages` messages, counts known — `warmup` calls on the histories before, so that
 * every message but the newest step's has been counted — then `samples` timed calls, each on
 * the next history (one step more, as in an agent loop). The target is ≤ 1 ms a call at 1,000
 * messages; each row carries its verdict.
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
 */
import { type ModelMessage, wrapLanguageModel } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import type { Prompt } from "effect/ai"
import * as AiSdk from "../src/adapters/AiSdk.ts"
import type * as AiSdkPrompt from "../src/adapters/AiSdkPrompt.ts"
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
  /** The history each call gets: the same message objects as the call before, or fresh copies. */
  readonly history: "same objects" | "fresh copies"
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
  readonly verdict: "met" | "missed"
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
type Door = (k: number) => () => PromiseLike<unknown>

const noUsage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined }
}

const fresh = <A>(value: A): A => {
  const copy: A = JSON.parse(JSON.stringify(value))
  return copy
}

/**
 * Times a door: `warmup` calls on the histories before the first with `messages` messages,
 * then `samples` calls, each on the next.
 */
const time = async (
  name: Omit<DoorTiming, "messages" | "samples" | "medianMs" | "minMs" | "maxMs" | "cpuMedianMs" | "targetMs" | "verdict">,
  histories: ReadonlyArray<ReadonlyArray<unknown>>,
  door: Door,
  messages: number,
  samples: number,
  warmup: number,
  hooks: Hooks | undefined
): Promise<DoorTiming> => {
  const first = histories.findIndex((h) => h.length >= messages)
  if (first < 0 || first + samples > histories.length) {
    throw new Error(`the session has fewer than ${messages} messages and ${samples} steps after them`)
  }
  for (let k = Math.max(0, first - warmup); k < first; k++) await door(k)()
  await hooks?.timed?.(true)
  const times: Array<number> = []
  const cpu: Array<number> = []
  for (let k = first; k < first + samples; k++) {
    const run = door(k)
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
    verdict: medianMs <= targetMs ? "met" : "missed"
  }
}

/** The middleware's calls: fresh provider prompts at every call, as the SDK builds them. */
const middlewareDoor = (histories: ReadonlyArray<ReadonlyArray<Prompt.Message>>, mode: "stable" | "per-call", contextWindow: number, outputReserve: number): Door => {
  const model = wrapLanguageModel({
    model: new MockLanguageModelV4({
      doGenerate: async () => ({ content: [{ type: "text", text: "ok" }], finishReason: { unified: "stop", raw: undefined }, usage: noUsage, warnings: [] })
    }),
    middleware: AiSdk.middleware({ contextWindow, outputReserve, mode })
  })
  // The session's messages in the provider's format (every history is a prefix of the last).
  const provider: ReadonlyArray<AiSdkPrompt.ProviderMessage> = SessionFormats.toProviderPrompt(lastOf(histories))
  return (k) => {
    const prompt = fresh(provider.slice(0, histories[k]!.length))
    return () => model.doGenerate({ prompt })
  }
}

/** `prepareStep`'s calls: the same `ModelMessage` objects from one step to the next. */
const prepareStepDoor = (histories: ReadonlyArray<ReadonlyArray<Prompt.Message>>, mode: "stable" | "per-call", contextWindow: number, outputReserve: number): Door => {
  const step = AiSdk.prepareStep({ contextWindow, outputReserve, mode })
  const all: ReadonlyArray<ModelMessage> = SessionFormats.toModelMessages(lastOf(histories))
  return (k) => {
    const [system, ...rest] = all.slice(0, histories[k]!.length)
    const instructions = system !== undefined && system.role === "system" ? system.content : undefined
    const messages = instructions === undefined ? all.slice(0, histories[k]!.length) : rest
    return () => step({ messages, ...(instructions === undefined ? {} : { instructions }) })
  }
}

/** `trimModelMessages`'s calls: the same objects, or fresh copies. */
const trimModelMessagesDoor = (histories: ReadonlyArray<ReadonlyArray<Prompt.Message>>, copies: boolean, contextWindow: number, outputReserve: number): Door => {
  const all: ReadonlyArray<ModelMessage> = SessionFormats.toModelMessages(lastOf(histories))
  return (k) => {
    const length = histories[k]!.length
    const messages = copies ? fresh(all.slice(0, length)) : all.slice(0, length)
    return () => Trim.trimModelMessages(messages, { contextWindow, outputReserve })
  }
}

/** `trim`'s calls (OpenAI chat format, the session's chat projection): the same objects, or fresh copies. */
const trimDoor = (histories: ReadonlyArray<ReadonlyArray<Prompt.Message>>, copies: boolean, contextWindow: number, outputReserve: number): Door => {
  const all: ReadonlyArray<SessionFormats.IndexedChatMessage> = SessionFormats.toOpenAIChat(lastOf(histories))
  return (k) => {
    const length = histories[k]!.length
    const messages = copies ? fresh(all.slice(0, length)) : all.slice(0, length)
    return () => Trim.trim(messages, { contextWindow, outputReserve })
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
    readonly hooks?: Hooks | undefined
  }
): Promise<Array<DoorTiming>> => {
  const { contextWindow, outputReserve } = options
  const messages = options.messages ?? 1000
  const samples = options.samples ?? 40
  const warmup = options.warmup ?? 10
  const doors = options.doors ?? doorNames
  const histories = historiesOf(session)
  const chat = historiesOf(chatProjection(session))
  const out: Array<DoorTiming> = []
  const run = async (name: Parameters<typeof time>[0], hs: ReadonlyArray<ReadonlyArray<Prompt.Message>>, door: Door) => {
    out.push(await time(name, hs, door, messages, samples, warmup, options.hooks))
  }
  for (const mode of ["stable", "per-call"] as const) {
    if (doors.includes("middleware")) {
      await run({ door: "AI SDK middleware", mode, history: "fresh copies" }, histories, middlewareDoor(histories, mode, contextWindow, outputReserve))
    }
    if (doors.includes("prepareStep")) {
      await run({ door: "AI SDK prepareStep", mode, history: "same objects" }, histories, prepareStepDoor(histories, mode, contextWindow, outputReserve))
    }
  }
  for (const copies of [false, true]) {
    const history = copies ? "fresh copies" as const : "same objects" as const
    if (doors.includes("trimModelMessages")) {
      await run({ door: "trimModelMessages", mode: undefined, history }, histories, trimModelMessagesDoor(histories, copies, contextWindow, outputReserve))
    }
    if (doors.includes("trim")) {
      await run({ door: "trim", mode: undefined, history }, chat, trimDoor(chat, copies, contextWindow, outputReserve))
    }
  }
  return out
}
