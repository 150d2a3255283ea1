/**
 * What a door's calls leave in V8's old generation as garbage (docs/design.md item 144), in a
 * Node process of its own started with `--expose-gc` (test/CallsLeaveNoGarbage.test.ts): each
 * door replays a long tool-heavy session call by call — the history before call k is call k's
 * messages, the same objects from call to call, each call's result dropped — once to warm,
 * then again from a full collection. The old generation's size at the end of the second
 * replay, less its size after a full collection then, is what its calls promoted and no longer
 * use. Printed as JSON: bytes a call, by door.
 *
 * A call's own objects should die young: a scavenge copies what is alive, and what it has
 * copied twice it promotes. Before item 144 a generator closure made at every call kept the
 * call's values past two scavenges, and a call's objects were promoted whole.
 */
import type { ModelMessage } from "ai"
import { getHeapSpaceStatistics } from "node:v8"
import * as AiSdk from "../../src/adapters/AiSdk.ts"
import * as Trim from "../../src/plain/Trim.ts"
import { chatTokens, memoized, middlewareOptions, modelMessageTokens } from "./doors.ts"
import { chatProjection, toModelMessages, toOpenAIChat } from "./sessionFormats.ts"
import * as Sessions from "./sessions.ts"

const collect = (): void => {
  const gc: unknown = Reflect.get(globalThis, "gc")
  if (typeof gc !== "function") throw new Error("run with --expose-gc")
  gc()
}

const oldSpace = (): number => getHeapSpaceStatistics().find((space) => space.space_name === "old_space")?.space_used_size ?? 0

// The chat format carries the session's messages (`trim` reads it): reasoning and approvals
// projected away, for every door alike.
const session = chatProjection(Sessions.generate("tool-heavy", 260, 144))
const sizes = [...Sessions.histories(session)].map((history) => history.length)
const full = Sessions.historyAt(session, session.steps.length)
const window = { contextWindow: 24_000, outputReserve: 1_000 }

/** One door: a call on the first `n` messages of the session. */
type Door = () => (n: number) => Promise<unknown>

const chat = toOpenAIChat(full)
const model: ReadonlyArray<ModelMessage> = toModelMessages(full)
const doors: Readonly<Record<string, Door>> = {
  trim: () => {
    const count = memoized(chatTokens(chat))
    return (n) => Trim.trim(chat.slice(0, n), { ...window, count })
  },
  trimModelMessages: () => {
    const count = memoized(modelMessageTokens)
    return (n) => Trim.trimModelMessages(model.slice(0, n), { ...window, count })
  },
  "prepareStep per-call": () => {
    const step = AiSdk.prepareStep(middlewareOptions({ ...window, mode: "per-call" }))
    return (n) => step({ messages: model.slice(0, n) })
  }
}

const replay = async (door: Door): Promise<void> => {
  const call = door()
  for (const n of sizes) await call(n)
}

const out: Record<string, { readonly calls: number; readonly bytesPerCall: number }> = {}
for (const [name, door] of Object.entries(doors)) {
  await replay(door)
  collect()
  await replay(door)
  const before = oldSpace()
  collect()
  const garbage = Math.max(0, before - oldSpace())
  out[name] = { calls: sizes.length, bytesPerCall: Math.round(garbage / sizes.length) }
}
process.stdout.write(JSON.stringify(out))
