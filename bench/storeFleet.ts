/**
 * The store fleet (issue 28, item 3; design 93), shared by `store.bench.ts` and
 * `test/ai/StoreFleet.test.ts`: several Node processes (`storeWorker.ts`) serve many
 * conversations' calls at once — the calls of one conversation concurrently, on different
 * processes — with their states in one real `redis-server` on 127.0.0.1 (durable: an
 * append-only file synced at every write), reached through a TCP proxy on loopback. While they
 * run, faults are injected: Redis killed (SIGKILL) and restarted, frozen (SIGSTOP), paused
 * (`CLIENT PAUSE`), and the proxy slowed past the store's timeout, cut, and turned to garbage.
 *
 * What is checked, from outside the processes:
 *
 * - every call answered (the model's answer came back), within its bound (a read and a write,
 *   each bounded by the store's timeout, plus slack for a loaded 2-core machine);
 * - every state Redis applied — seen on a `MONITOR` connection, straight to Redis, as the
 *   `SET`s its scripts ran — decodes as a `WindowState` (none half-applied) and is a valid
 *   successor of the state before it under the same key: revision + 1, calls + 1, a history at
 *   least as long, and a window that extends the one before or is a compaction (compactions +
 *   1); the first is revision 1;
 * - no state lost: the stored state is the last applied, and each conversation has at least as
 *   many applied states as calls that reported theirs committed (`written` or `rebased`);
 * - after the faults, every conversation appends again and reads from the cache.
 */
import { Effect, type Scope } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as net from "node:net"
import { fileURLToPath } from "node:url"
import * as WindowState from "../src/ai/WindowState.ts"
import { tcpProxy } from "../test/support/faultyRedis.ts"
import { redisServerWith } from "../test/support/redisServer.ts"
import type { Answer } from "./storeWorker.ts"

export interface FleetOptions {
  readonly workers: number
  readonly conversations: number
  /** How long the load runs, faults included (ms). */
  readonly loadMillis: number
  readonly storeTimeoutMillis: number
  readonly seed: number
}

export const defaultFleet: FleetOptions = {
  workers: 4,
  conversations: 12,
  loadMillis: 16_000,
  // The default: a shorter one, on a loaded 2-core machine, counts a busy event loop as a
  // store failure.
  storeTimeoutMillis: 1_000,
  seed: 28
}

export interface Fault {
  readonly kind: string
  readonly atMillis: number
}

export interface FleetFigures {
  readonly workers: number
  readonly conversations: number
  readonly calls: number
  readonly answered: number
  readonly boundMillis: number
  readonly withinBound: number
  readonly maxMillis: number
  readonly p99Millis: number
  readonly concurrentRounds: number
  readonly faults: ReadonlyArray<Fault>
  readonly committed: Readonly<Record<string, number>>
  readonly statesApplied: number
  readonly halfApplied: number
  readonly invalidSuccessors: number
  readonly statesLost: number
  readonly recovered: number
  /** From the end of the last fault until every process committed a state again. */
  readonly recoveryMillis: number
  /** Calls made before the recovery calls (the load's and the recovery probes). */
  readonly probes: number
  readonly seconds: number
  readonly problems: ReadonlyArray<string>
}

const HOST = "127.0.0.1"
const prefix = "effect-cupel:window:"

/** A small deterministic generator (mulberry32). */
const random = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The arguments of a `MONITOR` line (`+<time> [db addr] "SET" "key" "value"`), unescaped. */
export const monitorArgs = (line: string): Array<string> => {
  const out: Array<string> = []
  const start = line.indexOf("] ")
  let i = start < 0 ? line.length : start + 2
  while (i < line.length) {
    if (line[i] !== "\"") {
      i++
      continue
    }
    i++
    let value = ""
    while (i < line.length && line[i] !== "\"") {
      const c = line[i]!
      if (c === "\\") {
        const n = line[i + 1]
        if (n === "x") {
          value += String.fromCharCode(parseInt(line.slice(i + 2, i + 4), 16))
          i += 4
          continue
        }
        value += n === "n" ? "\n" : n === "r" ? "\r" : n === "t" ? "\t" : n === "a" ? "\u0007" : n === "b" ? "\b" : n ?? ""
        i += 2
        continue
      }
      value += c
      i++
    }
    i++
    out.push(value)
  }
  return out
}

/** A `MONITOR` connection: every `SET` of a state, in the order Redis ran them. */
const monitor = (port: number, sets: Array<{ readonly key: string; readonly value: string }>) =>
  new Promise<net.Socket>((resolve, reject) => {
    const socket = net.connect({ host: HOST, port })
    let buffer = ""
    socket.once("error", reject)
    socket.once("connect", () => socket.write("MONITOR\r\n"))
    socket.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("latin1")
      let end: number
      while ((end = buffer.indexOf("\r\n")) >= 0) {
        const line = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        if (line === "+OK") {
          socket.off("error", reject)
          socket.on("error", () => {})
          resolve(socket)
          continue
        }
        const args = monitorArgs(line)
        if (args[0]?.toUpperCase() === "SET" && args[1]?.startsWith(prefix) === true && args[2] !== undefined) {
          // latin1 read: the value's bytes; back to text as Redis holds it (UTF-8).
          sets.push({ key: args[1].slice(prefix.length), value: Buffer.from(args[2], "latin1").toString("utf8") })
        }
      }
    })
  })

/** One command on a fresh connection, its first reply line. */
const command = (port: number, text: string) =>
  new Promise<string>((resolve) => {
    const socket = net.connect({ host: HOST, port })
    let reply = ""
    socket.on("error", () => resolve("error"))
    socket.once("connect", () => socket.write(text))
    socket.on("data", (chunk: Buffer) => {
      reply += chunk.toString("utf8")
      if (reply.includes("\r\n")) {
        socket.destroy()
        resolve(reply)
      }
    })
  })

/** `GET key` on a fresh connection: the value, or undefined. */
const get = (port: number, key: string) =>
  new Promise<string | undefined>((resolve) => {
    const socket = net.connect({ host: HOST, port })
    let reply = Buffer.alloc(0)
    socket.on("error", () => resolve(undefined))
    socket.once("connect", () => socket.write(`*2\r\n$3\r\nGET\r\n$${Buffer.byteLength(key)}\r\n${key}\r\n`))
    socket.on("data", (chunk: Buffer) => {
      reply = Buffer.concat([reply, chunk])
      const text = reply.toString("utf8")
      if (text.startsWith("$-1\r\n")) {
        socket.destroy()
        resolve(undefined)
        return
      }
      const header = text.indexOf("\r\n")
      if (header < 0) return
      const length = Number(text.slice(1, header))
      if (reply.length >= header + 2 + length + 2) {
        socket.destroy()
        resolve(reply.subarray(header + 2, header + 2 + length).toString("utf8"))
      }
    })
  })

/** A worker's answer line (the worker writes only these and its `ready`). */
const isAnswer = (u: object): u is Answer =>
  "id" in u && typeof u.id === "number" && "ok" in u && typeof u.ok === "boolean" && "millis" in u &&
  typeof u.millis === "number"

interface Worker {
  readonly child: ChildProcess
  readonly pending: Map<number, (answer: Answer) => void>
}

const startWorker = (url: string, timeout: number): Promise<Worker> =>
  new Promise((resolve, reject) => {
    const script = fileURLToPath(new URL("./storeWorker.ts", import.meta.url))
    const child = spawn(process.execPath, [script, url, String(timeout)], { stdio: ["pipe", "pipe", "inherit"] })
    const pending = new Map<number, (answer: Answer) => void>()
    let buffer = ""
    child.once("error", reject)
    child.stdout!.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8")
      let end: number
      while ((end = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, end)
        buffer = buffer.slice(end + 1)
        const message: unknown = JSON.parse(line)
        if (typeof message !== "object" || message === null) continue
        if ("ready" in message) resolve({ child, pending })
        else if (isAnswer(message)) {
          const done = pending.get(message.id)
          pending.delete(message.id)
          done?.(message)
        }
      }
    })
  })

const sleep = (millis: number) => new Promise<void>((resolve) => setTimeout(resolve, millis))

/** Runs the fleet; its figures. */
export const runFleet = (options: FleetOptions = defaultFleet): Effect.Effect<FleetFigures, unknown, Scope.Scope> =>
  Effect.gen(function*() {
    const server = yield* redisServerWith({ durable: true })
    const proxy = yield* tcpProxy(server.port)
    const sets: Array<{ readonly key: string; readonly value: string }> = []
    let watcher = yield* Effect.promise(() => monitor(server.port, sets))
    yield* Effect.addFinalizer(() => Effect.sync(() => watcher.destroy()))
    const workers = yield* Effect.promise(() =>
      Promise.all(Array.from({ length: options.workers }, () => startWorker(proxy.url, options.storeTimeoutMillis)))
    )
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        for (const w of workers) w.child.kill("SIGKILL")
      })
    )
    return yield* Effect.promise(() => load(options, server, proxy, workers, sets, (s) => (watcher = s)))
  })

const load = async (
  options: FleetOptions,
  server: { readonly port: number; readonly stop: Effect.Effect<void>; readonly start: Effect.Effect<void, unknown>; readonly pause: Effect.Effect<void>; readonly resume: Effect.Effect<void> },
  proxy: { readonly set: (mode: "pass" | "delay" | "cut" | "garbage", delay?: number) => Effect.Effect<void> },
  workers: ReadonlyArray<Worker>,
  sets: Array<{ readonly key: string; readonly value: string }>,
  rewatch: (socket: net.Socket) => void
): Promise<FleetFigures> => {
  const run = <A>(effect: Effect.Effect<A, unknown>) => Effect.runPromise(effect)
  const next = random(options.seed)
  const started = Date.now()
  const at = () => Date.now() - started
  const answers: Array<Answer & { readonly conversation: number; readonly at: number }> = []
  const committedBy = new Map<number, number>()
  let id = 0
  let rounds = 0
  let concurrentRounds = 0
  const call = (worker: Worker, conversation: number, turns: number) =>
    new Promise<Answer>((resolve) => {
      const request = { id: id++, conversation, turns }
      worker.pending.set(request.id, (answer) => {
        answers.push({ ...answer, conversation, at: at() })
        if (answer.committed === "written" || answer.committed === "rebased") {
          committedBy.set(conversation, (committedBy.get(conversation) ?? 0) + 1)
        }
        resolve(answer)
      })
      worker.child.stdin!.write(JSON.stringify(request) + "\n")
    })
  const pick = (n: number): Array<Worker> => {
    const order = workers.map((w) => ({ w, r: next() })).sort((a, b) => a.r - b.r).map((x) => x.w)
    return order.slice(0, n)
  }

  const faults: Array<Fault> = []
  const timeline = async () => {
    const t = options.storeTimeoutMillis
    const at = loadAt
    await sleep(2_000)
    // Killed and restarted: the proxy refuses while the monitor is reconnected, so that no
    // applied state escapes it.
    faults.push({ kind: "redis-server killed (SIGKILL) and restarted", atMillis: at() })
    await run(proxy.set("cut"))
    // The monitor's feed of the last commands before the kill is flushed first: a SIGKILL
    // drops what Redis had not yet sent it (not what it applied: the append-only file has that).
    await sleep(300)
    await run(server.stop)
    await sleep(500)
    await run(server.start)
    rewatch(await monitor(server.port, sets))
    await run(proxy.set("pass"))
    await sleep(2_000)
    faults.push({ kind: "redis-server frozen (SIGSTOP) 1.5 s", atMillis: at() })
    await run(server.pause)
    await sleep(1_500)
    await run(server.resume)
    await sleep(1_500)
    faults.push({ kind: "CLIENT PAUSE 1.5 s (ALL)", atMillis: at() })
    await command(server.port, "CLIENT PAUSE 1500 ALL\r\n")
    await sleep(2_500)
    faults.push({ kind: `proxy delays every chunk ${1.5 * t} ms (past the timeout) for 2 s`, atMillis: at() })
    await run(proxy.set("delay", 1.5 * t))
    await sleep(2_000)
    await run(proxy.set("pass"))
    await sleep(1_200)
    faults.push({ kind: "proxy cuts every connection, refuses new ones 600 ms", atMillis: at() })
    await run(proxy.set("cut"))
    await sleep(600)
    await run(proxy.set("pass"))
    await sleep(1_200)
    faults.push({ kind: "proxy answers garbage 600 ms", atMillis: at() })
    await run(proxy.set("garbage"))
    await sleep(600)
    await run(proxy.set("pass"))
  }

  // Warm-up: each process answers a call with its state written before the clock starts (its
  // modules loaded, its client connected).
  for (let w = 0; w < workers.length; w++) {
    for (let k = 0; k < 50; k++) {
      const probe = await call(workers[w]!, 1_000 + w, k + 1)
      if (probe.committed === "written") break
      await sleep(200)
    }
  }
  answers.length = 0
  committedBy.clear()
  const loadStarted = Date.now()
  const loadAt = () => Date.now() - loadStarted

  const turnsOf = new Map<number, number>()
  const conversationLoop = async (conversation: number) => {
    let turns = 0
    while (loadAt() < options.loadMillis) {
      // One to three calls at once, each on another process, each history extending the last.
      const r = 1 + Math.floor(next() * Math.min(3, workers.length))
      const on = pick(r)
      rounds++
      if (r > 1) concurrentRounds++
      await Promise.all(on.map((w, k) => call(w, conversation, turns + k + 1)))
      turns += r
      await sleep(50 + Math.floor(next() * 100))
    }
    turnsOf.set(conversation, turns)
  }

  await Promise.all([timeline(), ...Array.from({ length: options.conversations }, (_, c) => conversationLoop(c))])
  // Recovery: every fault is over. Each process is probed until a call of its own commits
  // again (its client reconnected, or the store built again after the garbage): how long that
  // took is a figure.
  const faultsOver = Date.now()
  let recoveryMillis = 0
  await Promise.all(workers.map(async (worker, w) => {
    for (let k = 0; k < 200; k++) {
      const probe = await call(worker, 2_000 + w, k + 1)
      if (probe.committed === "written") break
      await sleep(100)
    }
    recoveryMillis = Math.max(recoveryMillis, Date.now() - faultsOver)
  }))
  const probes = answers.length
  let recovered = 0
  const problems: Array<string> = []
  for (let c = 0; c < options.conversations; c++) {
    const turns = turnsOf.get(c) ?? 0
    // Three calls in turn, on three processes: the last appends and reads from the cache.
    const after: Array<Answer> = []
    for (let k = 1; k <= 3; k++) after.push(await call(workers[(c + k) % workers.length]!, c, turns + k))
    if (after.every((a) => a.ok && a.committed === "written") && after.some((a) => a.action === "append" && a.cachedTokens > 0)) {
      recovered++
    }
    else problems.push(`conversation ${c} after recovery: ${JSON.stringify(after)}`)
  }

  // The chains of applied states, once the monitor's feed has caught up with the last calls.
  await sleep(500)
  const byKey = new Map<string, Array<string>>()
  for (const { key, value } of sets) {
    const list = byKey.get(key) ?? []
    list.push(value)
    byKey.set(key, list)
  }
  let halfApplied = 0
  let invalidSuccessors = 0
  let lost = 0
  const decode = (text: string) => Effect.runSync(Effect.option(WindowState.decodeJson(text)))
  for (const [key, values] of byKey) {
    let previous: WindowState.WindowState | undefined
    for (const value of values) {
      const decoded = decode(value)
      if (decoded._tag === "None") {
        halfApplied++
        problems.push(`${key}: an applied state does not decode`)
        previous = undefined
        continue
      }
      const state = decoded.value
      const valid = previous === undefined
        ? state.revision === 1 && state.calls === 1
        : successor(previous, state)
      if (!valid) {
        invalidSuccessors++
        if (problems.length < 20) {
          const brief = (s: WindowState.WindowState | undefined) =>
            s === undefined ? "none" : JSON.stringify({ r: s.revision, c: s.calls, k: s.compactions, h: s.historyLength, w: s.window })
          problems.push(`${key}: ${brief(state)} is no successor of ${brief(previous)}`)
        }
      }
      previous = state
    }
    const stored = await get(server.port, prefix + key)
    if (stored !== values[values.length - 1]) {
      lost++
      problems.push(`${key}: the stored state is not the last applied`)
    }
  }
  for (const [conversation, committed] of committedBy) {
    const applied = byKey.get(`conversation-${conversation}`)?.length ?? 0
    if (applied < committed) {
      lost += committed - applied
      problems.push(`conversation-${conversation}: ${committed} calls committed, ${applied} states applied`)
    }
  }

  const boundMillis = 2 * options.storeTimeoutMillis + 1_500
  const millis = answers.map((a) => a.millis).sort((a, b) => a - b)
  const committed: Record<string, number> = {}
  for (const a of answers) {
    const k = a.committed ?? "none"
    committed[k] = (committed[k] ?? 0) + 1
  }
  for (const a of answers) if (!a.ok && problems.length < 30) problems.push(`a call failed: ${a.error}`)
  if (process.env["FLEET_DEBUG"] !== undefined) {
    const perSecond = new Map<number, Record<string, number>>()
    for (const a of answers) {
      const second = Math.floor(a.at / 1000)
      const row = perSecond.get(second) ?? {}
      const k = a.committed ?? "none"
      row[k] = (row[k] ?? 0) + 1
      perSecond.set(second, row)
    }
    for (const [second, row] of [...perSecond].sort((a, b) => a[0] - b[0])) console.error(second, JSON.stringify(row))
    for (const f of faults) console.error("fault", f.atMillis, f.kind)
    for (const a of answers.filter((a) => a.millis > 1000).slice(0, 10)) console.error("slow", a.at, a.millis, a.storeFailure)
    const reasons = new Map<string, number>()
    for (const a of answers) if (a.storeFailure !== undefined) {
      const k = a.storeFailure.replace(/conversation-\d+/g, "c").replace(/\d+ failures/, "n failures").slice(0, 160)
      reasons.set(k, (reasons.get(k) ?? 0) + 1)
    }
    for (const [k, n] of reasons) console.error(n, k)
  }
  return {
    workers: options.workers,
    conversations: options.conversations,
    calls: answers.length,
    answered: answers.filter((a) => a.ok).length,
    boundMillis,
    withinBound: answers.filter((a) => a.ok && a.millis <= boundMillis).length,
    maxMillis: millis[millis.length - 1] ?? 0,
    p99Millis: millis[Math.floor(millis.length * 0.99)] ?? 0,
    concurrentRounds,
    faults,
    committed,
    statesApplied: sets.length,
    halfApplied,
    invalidSuccessors,
    statesLost: lost + invalidSuccessors,
    recovered,
    recoveryMillis,
    probes,
    seconds: Math.round((Date.now() - started) / 100) / 10,
    problems
  }
}

/** Whether `next` is a valid successor of `previous` (see the module's header). */
export const successor = (previous: WindowState.WindowState, next: WindowState.WindowState): boolean => {
  if (next.revision !== previous.revision + 1 || next.calls !== previous.calls + 1) return false
  if (next.historyLength < previous.historyLength) return false
  const before = WindowState.fromRuns(previous.window)
  const after = WindowState.fromRuns(next.window)
  const extends_ = before.length <= after.length && before.every((e, i) => after[i] === e)
  return extends_ || next.compactions === previous.compactions + 1
}
