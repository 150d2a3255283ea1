/**
 * Stable windows over their stores (issue 18, "windows that stay right across calls", done
 * when for stores): generated agent sessions (test/support/sessions.ts) replayed through
 * `WindowedLanguageModel.layer` in its default stable mode, with the state in memory and in a
 * real `redis-server` on 127.0.0.1 (test/support/redisServer.ts), wired as an application
 * wires it (`RedisStore.layer` over `NodeRedis.layer`).
 *
 * A replay's calls are compared by what the scripted model received: each request as the
 * positions, in the call's history, of the messages it holds (the session's message objects
 * are the same objects in every history, and the layer sends the caller's objects).
 */
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import { assert, describe, it } from "@effect/vitest"
import { Clock, Context, Deferred, Effect, Exit, Fiber, Layer, Logger, PubSub, Schedule, type Scope, Stream } from "effect"
import { AiError, LanguageModel, Prompt } from "effect/ai"
import * as KeyValueStore from "effect/persistence/KeyValueStore"
import * as Redis from "effect/persistence/Redis"
import { TestClock } from "effect/testing"
import * as ConversationKey from "../../src/ai/ConversationKey.ts"
import * as MemoryStore from "../../src/ai/MemoryStore.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as RedisStore from "../../src/ai/RedisStore.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import * as WindowedLanguageModel from "../../src/ai/WindowedLanguageModel.ts"
import * as WindowState from "../../src/ai/WindowState.ts"
import { describeWithRedis, type RedisServer, redisServer } from "../support/redisServer.ts"
import { positionIn } from "../support/positions.ts"
import * as Sessions from "../support/sessions.ts"

// ---------------------------------------------------------------------------------------------
// The agent under test

/** A deterministic and cheap count: about four characters a token, four for the framing. */
const Counter = TokenCounter.make((message) => Math.ceil(PromptWindow.render(message).length / 4) + 4)

/** A window small enough that the sessions below outgrow it many times (target 10,000). */
const window = { contextWindow: 12_000, outputReserve: 2_000 } as const

type Messages = ReadonlyArray<Prompt.Message>
type CallReport = WindowedLanguageModel.CallReport

/**
 * What the scripted model does before it answers, given the prompt it received: nothing by
 * default; a test may make it wait, hang or fail.
 */
type Behaviour = (prompt: Messages) => Effect.Effect<void, AiError.AiError>

/** One build of the layer over a scripted model, and a subscription to its reports. */
interface Agent {
  /** Every prompt the model received, in order (also those of calls that then failed or hung). */
  readonly received: Array<Messages>
  /** What the model does next; set by a test. */
  behaviour: Behaviour
  /** One `generateText` call on `history`; its exit. */
  readonly send: (history: Messages) => Effect.Effect<Exit.Exit<unknown, AiError.AiError>>
  /** The next call report. */
  readonly report: Effect.Effect<CallReport>
  /** `send` then `report`: the call must succeed. */
  readonly call: (history: Messages) => Effect.Effect<CallReport>
}

type Options = Omit<WindowedLanguageModel.Options, "contextWindow" | "outputReserve">

/** The layer in stable mode (the default) over a scripted model, built in the current scope. */
const agent = <SE = never, SR = never>(
  store: Layer.Layer<KeyValueStore.KeyValueStore, SE, SR> | undefined,
  options: Options = {}
) =>
  Effect.gen(function*() {
    const received: Array<Messages> = []
    const self: Agent = {
      received,
      behaviour: () => Effect.void,
      send: (history) => Effect.exit(model.generateText({ prompt: Prompt.fromMessages(history) })),
      report: Effect.suspend(() => PubSub.take(reports)),
      call: (history) =>
        Effect.gen(function*() {
          const exit = yield* self.send(history)
          assert.isTrue(Exit.isSuccess(exit), `the call failed: ${String(exit)}`)
          return yield* self.report
        })
    }
    const inner = yield* LanguageModel.make({
      generateText: (request) =>
        Effect.gen(function*() {
          received.push(request.prompt.content)
          yield* self.behaviour(request.prompt.content)
          return [{ type: "text" as const, text: "ok" }]
        }),
      streamText: () => Stream.empty
    })
    const context = yield* Layer.build(
      WindowedLanguageModel.layer({ ...window, ...options, store }).pipe(
        Layer.provide([Layer.succeed(LanguageModel.LanguageModel, inner), Counter])
      )
    )
    const model = Context.get(context, LanguageModel.LanguageModel)
    const reports = yield* PubSub.subscribe(Context.get(context, WindowedLanguageModel.WindowReports))
    return self
  })

/** A request as the positions of its messages in the history it was made from. */
const positions = (request: Messages, history: Messages): Array<number> =>
  request.map((message) => {
    // The history's own message, or the tool message a shortened one stands for (rule K6).
    const i = positionIn(history, message)
    assert.isAtLeast(i, 0, `the request holds a ${message.role} message that is not in its history`)
    return i
  })

/** The histories of the first `calls` calls of a session. */
const historiesOf = (session: Sessions.Session, calls: number): Array<Messages> =>
  Array.from(Sessions.histories(session)).slice(0, calls)

/** What a replay gives, call by call. */
interface Replay {
  readonly requests: ReadonlyArray<Array<number>>
  readonly reports: ReadonlyArray<CallReport>
}

/** Replays `histories` through `agent`, one call each. */
const replay = (target: Agent, histories: ReadonlyArray<Messages>) =>
  Effect.gen(function*() {
    const reports: Array<CallReport> = []
    const requests: Array<Array<number>> = []
    for (const history of histories) {
      reports.push(yield* target.call(history))
      requests.push(positions(target.received.at(-1)!, history))
    }
    return { requests, reports } satisfies Replay
  })

/** Replays `histories` through a fresh build of the layer with the default in-memory store. */
const alone = (histories: ReadonlyArray<Messages>, options: Options = {}) =>
  Effect.flatMap(agent(undefined, options), (target) => replay(target, histories)).pipe(Effect.scoped)

/** What each call did, in short: `append`, `compact`, `fresh`, with the fresh reason. */
const actions = (reports: ReadonlyArray<CallReport>): Array<string> =>
  reports.map((r) => r.change === undefined ? "none" : `${r.change.action}${r.change.fresh === undefined ? "" : `:${r.change.fresh}`}`)

/** Calls through the layer that appended, compacted, started fresh. */
const tally = (reports: ReadonlyArray<CallReport>) => {
  const count = (action: string) => reports.filter((r) => r.change?.action === action).length
  return { append: count("append"), compact: count("compact"), fresh: count("fresh") }
}

// ---------------------------------------------------------------------------------------------
// Stores

/**
 * A store the test can see behind: `kv` (the test's own handle), `layer()` (the store for a
 * layer: in Redis over a client of its own to the same data, as another server would have it),
 * `wipe` (the data gone).
 */
interface Fixture {
  readonly kv: KeyValueStore.KeyValueStore
  readonly layer: () => Layer.Layer<KeyValueStore.KeyValueStore, unknown>
  readonly wipe: Effect.Effect<void, unknown>
}

const memoryFixture = Effect.gen(function*() {
  const kv = Context.get(yield* Layer.build(MemoryStore.layer()), KeyValueStore.KeyValueStore)
  return {
    kv,
    layer: () => Layer.succeed(KeyValueStore.KeyValueStore, kv),
    wipe: kv.clear
  } satisfies Fixture
})

const prefix = "test:stable:"

type ClientOptions = Omit<NonNullable<Parameters<typeof NodeRedis.layer>[0]>, "url">

/** A `RedisStore` over a `NodeRedis` client of its own, as an application wires it. */
const redisLayer = (server: RedisServer, client: ClientOptions = {}) =>
  RedisStore.layer({ prefix }).pipe(Layer.provide(NodeRedis.layer({ ...client, url: server.url })))

const redisFixture = (server: RedisServer, client: ClientOptions = {}) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(Layer.merge(redisLayer(server, client), NodeRedis.layer({ url: server.url })))
    const kv = Context.get(context, KeyValueStore.KeyValueStore)
    const redis = Context.get(context, Redis.Redis)
    return {
      kv,
      layer: () => redisLayer(server, client),
      // Everything, not only the store's prefix: what a Redis that lost its data looks like.
      wipe: Effect.asVoid(redis.send("FLUSHALL"))
    } satisfies Fixture
  })

/** The state a store holds for a conversation, decoded. */
const stateOf = (kv: KeyValueStore.KeyValueStore, key: string) =>
  Effect.gen(function*() {
    const text = yield* kv.get(key)
    assert.isDefined(text, `no state under ${key}`)
    return yield* WindowState.decodeJson(text ?? "")
  })

// ---------------------------------------------------------------------------------------------
// Sessions

/** Shapes and seeds, long enough to compact several times at a target of 10,000. */
const sessions = {
  toolHeavy: Sessions.generate("tool-heavy", 100, 7),
  chatty: Sessions.generate("chatty", 120, 11),
  mixed: Sessions.generate("mixed", 80, 3),
  retrieval: Sessions.generate("retrieval", 60, 5),
  // The stress shape (results of 200–3,000 tokens): a compaction every other call or so.
  largeResults: Sessions.generate("large-results", 100, 13)
}

/** `session`'s steps after another opening: the opening of `opening`. */
const withOpening = (session: Sessions.Session, opening: Sessions.Session): Sessions.Session => ({
  ...session,
  start: opening.start
})

// ---------------------------------------------------------------------------------------------
// Tests run with either store

/** Logs at warning level and above, and the store's "answers again", as text. */
const capture = () => {
  const lines: Array<{ readonly level: string; readonly text: string }> = []
  const logger = Logger.make((options) => {
    const message = options.message
    lines.push({
      level: options.logLevel,
      text: Array.isArray(message) ? message.map(String).join(" ") : String(message)
    })
  })
  const ours = (level: string) => lines.filter((line) => line.level === level && line.text.startsWith("effect-cupel:"))
  return {
    lines,
    warnings: () => ours("Warn"),
    infos: () => ours("Info"),
    /** Runs `effect` with this logger only (node-redis's reconnection warnings land here too). */
    around: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.provideService(effect, Logger.CurrentLoggers, new Set([logger]))
  }
}

const storeTests = (fixture: () => Effect.Effect<Fixture, unknown, Scope.Scope>) => {
  it.live("state lost (store emptied) mid-session: the next call succeeds as a new conversation, then appends", () =>
    Effect.gen(function*() {
      const store = yield* fixture()
      const histories = historiesOf(sessions.toolHeavy, 30)
      const target = yield* agent(store.layer())
      const before = yield* replay(target, histories.slice(0, 15))
      assert.isAbove(tally(before.reports).append, 0)
      yield* store.wipe
      const lost = yield* target.call(histories[15]!)
      assert.strictEqual(lost.outcome, "answered")
      assert.strictEqual(lost.change?.fresh, "new")
      assert.strictEqual(lost.committed, "written")
      const state = yield* stateOf(store.kv, lost.conversation ?? "")
      assert.strictEqual(state.calls, 1, "the conversation starts again from its first call")
      assert.strictEqual(state.revision, 1)
      const next = yield* target.call(histories[16]!)
      assert.isUndefined(next.change?.fresh, "the state written after the loss is used")
      assert.strictEqual(next.committed, "written")
      assert.strictEqual((yield* stateOf(store.kv, lost.conversation ?? "")).calls, 2)
    }))

  it.live("corrupt state (garbage, foreign JSON, another format, a window of another history): a fresh fit, reported corrupt", () =>
    Effect.gen(function*() {
      const store = yield* fixture()
      const histories = historiesOf(sessions.mixed, 20)
      const target = yield* agent(store.layer())
      const first = yield* replay(target, histories.slice(0, 8))
      const key = first.reports[0]!.conversation ?? ""
      const good = yield* stateOf(store.kv, key)
      const corruptions: ReadonlyArray<readonly [string, string]> = [
        ["garbage", "\u0000not json {"],
        ["foreign JSON", JSON.stringify({ conversation: "x", messages: ["hello"] })],
        ["another format", JSON.stringify({ ...good, format: 2 })],
        ["an extra field", JSON.stringify({ ...good, extra: true })],
        ["a window naming a message it never saw", JSON.stringify({ ...good, window: [[good.historyLength, 1]] })],
        ["an empty value", ""]
      ]
      let k = 8
      for (const [what, text] of corruptions) {
        yield* store.kv.set(key, text)
        const report = yield* target.call(histories[k++]!)
        assert.strictEqual(report.outcome, "answered", what)
        assert.strictEqual(report.change?.fresh, "corrupt", what)
        assert.notStrictEqual(report.change?.action, "append", what)
        assert.strictEqual(report.committed, "written", `${what}: the corrupt state is replaced`)
        const next = yield* target.call(histories[k++]!)
        assert.isUndefined(next.change?.fresh, `${what}: the state written after it is used`)
      }
    }))

  it.live("interleaved conversations (different openings) each get the prompts they get alone", () =>
    Effect.gen(function*() {
      const store = yield* fixture()
      const a = historiesOf(sessions.toolHeavy, 60)
      const b = historiesOf(sessions.chatty, 60)
      const soloA = yield* alone(a)
      const soloB = yield* alone(b)
      const target = yield* agent(store.layer())
      const together = { a: [] as Array<CallReport>, b: [] as Array<CallReport> }
      const requests = { a: [] as Array<Array<number>>, b: [] as Array<Array<number>> }
      for (let k = 0; k < 60; k++) {
        together.a.push(yield* target.call(a[k]!))
        requests.a.push(positions(target.received.at(-1)!, a[k]!))
        together.b.push(yield* target.call(b[k]!))
        requests.b.push(positions(target.received.at(-1)!, b[k]!))
      }
      assert.notStrictEqual(together.a[0]!.conversation, together.b[0]!.conversation)
      assert.deepStrictEqual(requests.a, soloA.requests)
      assert.deepStrictEqual(requests.b, soloB.requests)
      assert.deepStrictEqual(actions(together.a), actions(soloA.reports))
      assert.deepStrictEqual(actions(together.b), actions(soloB.reports))
      assert.isAbove(tally(soloA.reports).compact, 0)
    }))

  it.live("interleaved conversations with one opening, told apart by ConversationKey, each get their own prompts", () =>
    Effect.gen(function*() {
      const store = yield* fixture()
      // Two sessions opening with the very same messages: by default they would share a key.
      const a = historiesOf(sessions.toolHeavy, 50)
      const b = historiesOf(withOpening(sessions.retrieval, sessions.toolHeavy), 50)
      assert.strictEqual(a[0]![0], b[0]![0])
      const soloA = yield* alone(a)
      const soloB = yield* alone(b)
      const target = yield* agent(store.layer())
      const together = { a: [] as Array<CallReport>, b: [] as Array<CallReport> }
      const requests = { a: [] as Array<Array<number>>, b: [] as Array<Array<number>> }
      for (let k = 0; k < 50; k++) {
        together.a.push(yield* target.call(a[k]!).pipe(ConversationKey.provide("ticket-a")))
        requests.a.push(positions(target.received.at(-1)!, a[k]!))
        together.b.push(yield* target.call(b[k]!).pipe(ConversationKey.provide("ticket-b")))
        requests.b.push(positions(target.received.at(-1)!, b[k]!))
      }
      assert.isTrue(together.a.every((r) => r.conversation === "ticket-a"))
      assert.isTrue(together.b.every((r) => r.conversation === "ticket-b"))
      assert.deepStrictEqual(requests.a, soloA.requests)
      assert.deepStrictEqual(requests.b, soloB.requests)
      assert.deepStrictEqual(actions(together.a), actions(soloA.reports))
      assert.deepStrictEqual(actions(together.b), actions(soloB.reports))
      assert.deepStrictEqual(yield* Effect.map(store.kv.keys, (keys) => [...keys].sort()), ["ticket-a", "ticket-b"])
    }))

  it.live("shared opening without keys: one state, every request still a window of its own history (rule S1)", () =>
    Effect.gen(function*() {
      const store = yield* fixture()
      const a = historiesOf(sessions.toolHeavy, 20)
      const b = historiesOf(withOpening(sessions.retrieval, sessions.toolHeavy), 20)
      const target = yield* agent(store.layer())
      for (let k = 1; k < 20; k++) {
        const ra = yield* target.call(a[k]!)
        positions(target.received.at(-1)!, a[k]!)
        const rb = yield* target.call(b[k]!)
        positions(target.received.at(-1)!, b[k]!)
        assert.strictEqual(ra.conversation, rb.conversation)
        // Each call finds the other's state (a history it does not extend) or its own; a call
        // whose history is shorter than the stored state's does not replace it (design 92).
        for (const r of [ra, rb]) {
          if (r.change?.fresh === "history-changed") assert.include(["written", "conflict"], r.committed)
        }
        if (k > 1) assert.isTrue([ra, rb].some((r) => r.change?.fresh === "history-changed"), "one state for both")
      }
    }))

  it.live("a call interrupted before the model answers leaves the state as it was (rule S6)", () =>
    Effect.gen(function*() {
      const store = yield* fixture()
      const histories = historiesOf(sessions.toolHeavy, 40)
      const solo = yield* alone(histories)
      // Interrupt a call that compacts in the solo replay: had it been recorded, the retry
      // would append to its window instead of compacting.
      const at = solo.reports.findIndex((r, k) => k > 5 && r.change?.action === "compact")
      assert.isAbove(at, 5)
      const target = yield* agent(store.layer())
      const before = yield* replay(target, histories.slice(0, at))
      const key = before.reports[0]!.conversation ?? ""
      const stored = yield* store.kv.get(key)
      const entered = yield* Deferred.make<void>()
      target.behaviour = () => Effect.andThen(Deferred.succeed(entered, undefined), Effect.never)
      const fiber = yield* Effect.forkChild(target.send(histories[at]!))
      yield* Deferred.await(entered)
      yield* Fiber.interrupt(fiber)
      const interrupted = yield* target.report
      assert.strictEqual(interrupted.outcome, "interrupted")
      assert.isUndefined(interrupted.committed)
      assert.strictEqual(interrupted.change?.action, "compact")
      assert.strictEqual(yield* store.kv.get(key), stored, "the stored state is untouched")
      target.behaviour = () => Effect.void
      const after = yield* replay(target, histories.slice(at))
      assert.deepStrictEqual([...before.requests, ...after.requests], solo.requests)
      assert.deepStrictEqual(actions([...before.reports, ...after.reports]), actions(solo.reports))
      const state = yield* stateOf(store.kv, key)
      assert.strictEqual(state.calls, histories.length)
      assert.strictEqual(state.revision, histories.length)
    }))

  it.live("a call whose model fails leaves the state as it was (rule S6)", () =>
    Effect.gen(function*() {
      const store = yield* fixture()
      const histories = historiesOf(sessions.chatty, 40)
      const solo = yield* alone(histories)
      const at = solo.reports.findIndex((r, k) => k > 5 && r.change?.action === "compact")
      assert.isAbove(at, 5)
      const target = yield* agent(store.layer())
      const before = yield* replay(target, histories.slice(0, at))
      const key = before.reports[0]!.conversation ?? ""
      const stored = yield* store.kv.get(key)
      target.behaviour = () =>
        Effect.fail(AiError.make({
          module: "test",
          method: "generateText",
          reason: new AiError.UnknownError({ description: "the provider is down" })
        }))
      // Twice: a failing call neither advances the state nor disturbs the next failing one.
      for (let i = 0; i < 2; i++) {
        const exit = yield* target.send(histories[at]!)
        assert.isTrue(Exit.isFailure(exit), "the model's failure is the call's")
        const failed = yield* target.report
        assert.strictEqual(failed.outcome, "failed")
        assert.isUndefined(failed.committed)
        assert.strictEqual(yield* store.kv.get(key), stored, "the stored state is untouched")
      }
      target.behaviour = () => Effect.void
      const after = yield* replay(target, histories.slice(at))
      assert.deepStrictEqual([...before.requests, ...after.requests], solo.requests)
      assert.deepStrictEqual(actions([...before.reports, ...after.reports]), actions(solo.reports))
      assert.strictEqual((yield* stateOf(store.kv, key)).calls, histories.length)
    }))

  it.live("concurrent calls of one conversation: the first to commit wins, the other reports a conflict (rule S7)", () =>
    Effect.gen(function*() {
      const store = yield* fixture()
      const histories = historiesOf(sessions.toolHeavy, 30)
      // Both orders: the call on the longer history answers first, then the other.
      for (const fast of ["longer", "shorter"] as const) {
        yield* store.wipe
        const target = yield* agent(store.layer())
        const k = 12
        const before = yield* replay(target, histories.slice(0, k))
        const key = before.reports[0]!.conversation ?? ""
        const last = yield* stateOf(store.kv, key)
        // Both extend the last committed history (k − 1).
        const shorter = histories[k]!
        const longer = histories[k + 1]!
        const winner = fast === "longer" ? longer : shorter
        const loser = fast === "longer" ? shorter : longer
        // Both calls have read the state and reached the model before either answers; then
        // the winner answers at once, the other 100 ms later.
        const bothIn = yield* Deferred.make<void>()
        let entered = 0
        target.behaviour = (prompt) =>
          Effect.gen(function*() {
            if (++entered === 2) yield* Deferred.succeed(bothIn, undefined)
            yield* Deferred.await(bothIn)
            if (prompt.at(-1) === loser.at(-1)) yield* Effect.sleep("100 millis")
          })
        const exits = yield* Effect.all([target.send(shorter), target.send(longer)], { concurrency: 2 })
        assert.isTrue(exits.every(Exit.isSuccess), "both calls succeed")
        const reports = [yield* target.report, yield* target.report]
        const of = (history: Messages) => reports.find((r) => r.candidates === history.length)!
        assert.strictEqual(of(winner).committed, "written", `${fast} first: it commits`)
        assert.strictEqual(of(loser).committed, "conflict", `${fast} first: the other does not`)
        assert.isUndefined(of(winner).change?.fresh)
        assert.isUndefined(of(loser).change?.fresh, "both calls read the last committed state")
        const now = yield* stateOf(store.kv, key)
        assert.strictEqual(now.revision, last.revision + 1, "one write")
        assert.strictEqual(now.calls, last.calls + 1, "one call counted")
        assert.strictEqual(now.historyLength, winner.length, "the state is the winner's")
        target.behaviour = () => Effect.void
        // The conversation goes on from the winner's window.
        const next = yield* target.call(histories[k + 2]!)
        assert.isUndefined(next.change?.fresh)
        assert.strictEqual(next.committed, "written")
        assert.strictEqual((yield* stateOf(store.kv, key)).revision, last.revision + 2)
      }
    }))
}

describe("stable windows in memory (the layer's default store)", () => {
  storeTests(() => memoryFixture)

  it.effect("a state older than ttl (Clock time, default one hour) is a fresh fit, reported expired (rule S9)", () =>
    Effect.gen(function*() {
      const histories = historiesOf(sessions.toolHeavy, 10)
      const target = yield* agent(undefined)
      yield* replay(target, histories.slice(0, 4))
      assert.strictEqual(yield* Clock.currentTimeMillis, 0)
      yield* TestClock.adjust("1 hour")
      const atTtl = yield* target.call(histories[4]!)
      assert.isUndefined(atTtl.change?.fresh, "exactly ttl after the last call, the state is still used")
      yield* TestClock.adjust("3600001 millis")
      const expired = yield* target.call(histories[5]!)
      assert.strictEqual(expired.outcome, "answered")
      assert.strictEqual(expired.change?.fresh, "expired")
      assert.strictEqual(expired.committed, "written")
      const next = yield* target.call(histories[6]!)
      assert.isUndefined(next.change?.fresh)
    }))

  it.effect("the ttl option: a state older than it is expired", () =>
    Effect.gen(function*() {
      const histories = historiesOf(sessions.chatty, 10)
      const target = yield* agent(undefined, { ttl: "5 minutes" })
      yield* replay(target, histories.slice(0, 3))
      yield* TestClock.adjust("5 minutes")
      assert.isUndefined((yield* target.call(histories[3]!)).change?.fresh)
      yield* TestClock.adjust("300001 millis")
      assert.strictEqual((yield* target.call(histories[4]!)).change?.fresh, "expired")
    }))
})

describeWithRedis("stable windows in Redis (real redis-server on 127.0.0.1)", () => {
  storeTests(() => Effect.flatMap(redisServer, (server) => redisFixture(server)))

  it.live("the same prompts, call by call, with the state in memory and in Redis", () =>
    Effect.gen(function*() {
      const server = yield* redisServer
      for (const session of [sessions.toolHeavy, sessions.chatty, sessions.mixed, sessions.largeResults]) {
        const histories = historiesOf(session, session.steps.length)
        const inMemory = yield* alone(histories)
        const inRedis = yield* Effect.scoped(Effect.flatMap(agent(redisLayer(server)), (target) => replay(target, histories)))
        const name = `${session.shape} ${session.seed}`
        assert.deepStrictEqual(inRedis.requests, inMemory.requests, name)
        assert.deepStrictEqual(actions(inRedis.reports), actions(inMemory.reports), name)
        assert.isTrue(inRedis.reports.every((r) => r.committed === "written"), `${name}: every state written`)
        const counts = tally(inRedis.reports)
        assert.isAtLeast(counts.compact, 2, `${name}: compactions happen (${JSON.stringify(counts)})`)
        assert.isAtLeast(counts.append, histories.length / 3, `${name}: many calls append (${JSON.stringify(counts)})`)
      }
    }))

  it.live("two servers (two builds, two clients, one Redis) alternating one conversation send what one sends", () =>
    Effect.gen(function*() {
      const server = yield* redisServer
      const histories = historiesOf(sessions.toolHeavy, 100)
      const solo = yield* alone(histories)
      const servers = [yield* agent(redisLayer(server)), yield* agent(redisLayer(server))] as const
      const reports: Array<CallReport> = []
      const requests: Array<Array<number>> = []
      for (const [k, history] of histories.entries()) {
        const target = servers[k % 2]!
        reports.push(yield* target.call(history))
        requests.push(positions(target.received.at(-1)!, history))
      }
      assert.deepStrictEqual(requests, solo.requests)
      assert.deepStrictEqual(actions(reports), actions(solo.reports))
      assert.isTrue(reports.every((r) => r.committed === "written"))
      assert.strictEqual(servers[0].received.length, 50)
      assert.strictEqual(servers[1].received.length, 50)
      assert.isAtLeast(tally(reports).compact, 2)
    }))

  it.live("a state older than the ttl option is expired, while Redis still holds it", () =>
    Effect.gen(function*() {
      const server = yield* redisServer
      const store = yield* redisFixture(server)
      const histories = historiesOf(sessions.chatty, 10)
      const target = yield* agent(store.layer(), { ttl: "300 millis" })
      const first = yield* replay(target, histories.slice(0, 3))
      yield* Effect.sleep("400 millis")
      assert.isDefined(yield* store.kv.get(first.reports[0]!.conversation ?? ""))
      const expired = yield* target.call(histories[3]!)
      assert.strictEqual(expired.change?.fresh, "expired")
      assert.strictEqual(expired.committed, "written")
      assert.isUndefined((yield* target.call(histories[4]!)).change?.fresh)
    }))

  /** A short store timeout keeps these tests quick. */
  const storeTimeout = 400
  /**
   * How long a call may take while the store is down or hung: the store timeout once, and
   * room for the call itself — well below twice the timeout (a second wait for the store).
   */
  const bound = storeTimeout * 1.5

  /** A call, and how long it took. */
  const timed = (target: Agent, history: Messages) =>
    Effect.gen(function*() {
      const start = yield* Clock.currentTimeMillis
      const report = yield* target.call(history)
      return { report, millis: (yield* Clock.currentTimeMillis) - start }
    })

  for (const [name, client] of [["node-redis's defaults", {}], ["disableOfflineQueue", { disableOfflineQueue: true }]] as const) {
    it.live(`Redis down, then back empty (${name}): every call succeeds within the store timeout, store-failed, logged once; then new, then appends (rule S8)`, () => {
      const logs = capture()
      return logs.around(Effect.gen(function*() {
        const server = yield* redisServer
        const store = yield* redisFixture(server, client)
        const histories = historiesOf(sessions.toolHeavy, 40)
        // The layer on the fixture's own client, to know when it is connected again.
        const target = yield* agent(Layer.succeed(KeyValueStore.KeyValueStore, store.kv), { storeTimeout })
        // node-redis closes a client only once it could send what it queued while offline:
        // whatever happens below, Redis is up and the client back when the scope closes.
        yield* Effect.addFinalizer(() =>
          Effect.ignore(server.start).pipe(
            Effect.andThen(store.kv.get("probe").pipe(Effect.retry(Schedule.spaced("50 millis")), Effect.timeout("5 seconds"))),
            Effect.ignore
          )
        )
        const before = yield* replay(target, histories.slice(0, 10))
        let k = 10
        assert.isTrue(before.reports.every((r) => r.committed === "written"))
        yield* server.stop
        for (let i = 0; i < 4; i++) {
          const { report, millis } = yield* timed(target, histories[k++]!)
          assert.strictEqual(report.outcome, "answered")
          assert.strictEqual(report.change?.fresh, "store-failed")
          assert.isString(report.change?.storeFailure)
          assert.strictEqual(report.committed, "store-failed")
          assert.isBelow(millis, bound, `call ${k - 1} took ${millis} ms`)
        }
        assert.strictEqual(logs.warnings().length, 1, JSON.stringify(logs.warnings()))
        yield* server.start
        // The client reconnects on its own (within about 2.2 s): calls fail over to fresh fits
        // until then.
        let back: CallReport | undefined
        while (back === undefined && k < 30) {
          const report = yield* target.call(histories[k++]!)
          assert.strictEqual(report.outcome, "answered")
          if (report.change?.fresh !== "store-failed") back = report
          else yield* Effect.sleep("100 millis")
        }
        assert.isDefined(back, "the store answered again")
        assert.strictEqual(back?.change?.fresh, "new", "Redis came back empty")
        assert.strictEqual(back?.committed, "written")
        assert.strictEqual((yield* stateOf(store.kv, back?.conversation ?? "")).calls, 1)
        const next = yield* target.call(histories[k++]!)
        assert.isUndefined(next.change?.fresh)
        assert.strictEqual(next.committed, "written")
        const again = yield* target.call(histories[k++]!)
        assert.isUndefined(again.change?.fresh)
        assert.isTrue([next, again].some((r) => r.change?.action === "append"), actions([next, again]).join())
        assert.strictEqual(logs.warnings().length, 1, "warned once for the whole outage")
        assert.strictEqual(logs.infos().filter((l) => l.text.includes("answers again")).length, 1)
      }))
    })
  }

  it.live("Redis hung (no answer): a call waits for it at most the store timeout; a write that timed out leaves the state as it was (rule S8)", () => {
    const logs = capture()
    return logs.around(Effect.gen(function*() {
      const server = yield* redisServer
      const store = yield* redisFixture(server)
      const histories = historiesOf(sessions.chatty, 20)
      const target = yield* agent(store.layer(), { storeTimeout })
      // A client waits for the replies of a paused server, also when it closes.
      yield* Effect.addFinalizer(() => server.resume)
      const before = yield* replay(target, histories.slice(0, 10))
      const key = before.reports[0]!.conversation ?? ""
      const stored = yield* store.kv.get(key)
      // Redis hangs while the model answers: the call read the state, its write times out.
      target.behaviour = () => Effect.andThen(server.pause, Effect.sleep("20 millis"))
      const during = yield* timed(target, histories[10]!)
      target.behaviour = () => Effect.void
      assert.strictEqual(during.report.outcome, "answered")
      assert.isUndefined(during.report.change?.fresh, "the read answered")
      assert.strictEqual(during.report.committed, "store-failed")
      assert.isBelow(during.millis, bound + 20, `the call took ${during.millis} ms`)
      // Still hung at the next call: its read times out, and it does not wait again to write.
      const hung = yield* timed(target, histories[11]!)
      assert.strictEqual(hung.report.outcome, "answered")
      assert.strictEqual(hung.report.change?.fresh, "store-failed")
      assert.strictEqual(hung.report.committed, "store-failed")
      assert.isBelow(hung.millis, bound, `the call took ${hung.millis} ms`)
      yield* server.resume
      // A compare-and-set sent before Redis hung runs when it resumes (design 92): it lands only
      // on the revision its call read, so the state is the one before or that call's, never
      // another. Nothing else was written.
      const resumed = yield* store.kv.get(key)
      const landed = resumed !== stored
      if (landed) {
        const before = yield* WindowState.decodeJson(stored!)
        const after = yield* WindowState.decodeJson(resumed!)
        assert.strictEqual(after.revision, before.revision + 1, "the late write is the successor of the state it read")
        assert.strictEqual(after.calls, before.calls + 1)
        assert.strictEqual(after.historyLength, histories[10]!.length)
      }
      // Back: the conversation goes on from the last state written (call 9's, or 10's).
      const after = yield* target.call(histories[12]!)
      assert.isUndefined(after.change?.fresh)
      assert.strictEqual(after.committed, "written")
      assert.strictEqual((yield* stateOf(store.kv, key)).calls, landed ? 12 : 11)
      assert.strictEqual(logs.warnings().length, 1, JSON.stringify(logs.warnings()))
      assert.strictEqual(logs.infos().filter((l) => l.text.includes("answers again")).length, 1)
    }))
  })
})
