/**
 * A store that cannot be reached, hangs, answers garbage or `+OK` to everything (issue 28, item
 * 1; design 91): servers started by the test on 127.0.0.1 (test/support/faultyRedis.ts). The
 * layer builds, within about the store's timeout, and every call is answered within its bound —
 * a fresh fit, the state not written — with a message that says what failed and where.
 */
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import { assert, describe, it } from "@effect/vitest"
import { Clock, Context, Effect, Exit, Layer, Logger, Metric, PubSub, References, Stream } from "effect"
import { LanguageModel, Prompt } from "effect/ai"
import * as KeyValueStore from "effect/persistence/KeyValueStore"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as RedisStore from "../../src/ai/RedisStore.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import * as WindowedLanguageModel from "../../src/ai/WindowedLanguageModel.ts"
import * as WindowMetrics from "../../src/ai/WindowMetrics.ts"
import * as WindowStore from "../../src/ai/WindowStore.ts"
import { fakeRedis, type FakeKind } from "../support/faultyRedis.ts"

const Counter = TokenCounter.make((message) => Math.ceil(PromptWindow.render(message).length / 4) + 4)
const timeoutMillis = 300
/** A call reads once and writes once, each bounded by the timeout; the rest is slack for a busy machine. */
const callBound = 2 * timeoutMillis + 700
const buildBound = timeoutMillis + 700

const elapsed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const start = yield* Clock.currentTimeMillis
    const exit = yield* Effect.exit(effect)
    return { exit, millis: (yield* Clock.currentTimeMillis) - start }
  })

/** Runs `effect` with a logger that keeps the messages, and returns them beside its result. */
const logged = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const lines: Array<string> = []
    const logger = Logger.make<unknown, void>(({ logLevel, message }) => {
      const parts = Array.isArray(message) ? message : [message]
      lines.push(`${logLevel} ${parts.map(String).join(" ")}`)
    })
    const result = yield* effect.pipe(Effect.provide(Logger.layer([logger])))
    return { result, lines }
  })

const history = (turns: number): Array<Prompt.Message> => {
  const messages: Array<Prompt.Message> = []
  for (let i = 0; i < turns; i++) {
    messages.push(Prompt.makeMessage("user", { content: [Prompt.makePart("text", { text: `question ${i}` })] }))
    messages.push(Prompt.makeMessage("assistant", { content: [Prompt.makePart("text", { text: `answer ${i}` })] }))
  }
  messages.push(Prompt.makeMessage("user", { content: [Prompt.makePart("text", { text: "and now?" })] }))
  return messages
}

/** The layer over a model that answers "ok", with `store`; its model and its reports. */
const agent = <E, R>(store: Layer.Layer<KeyValueStore.KeyValueStore, E, R>) =>
  Effect.gen(function*() {
    const inner = yield* LanguageModel.make({
      generateText: () => Effect.succeed([{ type: "text" as const, text: "ok" }]),
      streamText: () => Stream.empty
    })
    const context = yield* Layer.build(
      WindowedLanguageModel.layer({ contextWindow: 12_000, outputReserve: 2_000, storeTimeout: timeoutMillis, store })
        .pipe(Layer.provide([Layer.succeed(LanguageModel.LanguageModel, inner), Counter]))
    )
    const reports = yield* PubSub.subscribe(Context.get(context, WindowedLanguageModel.WindowReports))
    const model = Context.get(context, LanguageModel.LanguageModel)
    return {
      call: (turns: number) =>
        Effect.gen(function*() {
          const { exit, millis } = yield* elapsed(model.generateText({ prompt: Prompt.fromMessages(history(turns)) }))
          assert.isTrue(Exit.isSuccess(exit), `the call failed: ${String(exit)}`)
          return { millis, report: yield* PubSub.take(reports) }
        })
    }
  })

const client = (url: string) => NodeRedis.layer({ url, disableOfflineQueue: true })

const kinds: ReadonlyArray<FakeKind> = ["silent", "garbage", "ok", "nothing"]

describe("a store that cannot be reached, hangs or answers garbage (design 91)", () => {
  for (const kind of kinds) {
    it.live(`${kind}: the layer over RedisStore.layer + NodeRedis.layer builds, and every call is answered within its bound`, () =>
      Effect.scoped(Effect.gen(function*() {
        const server = yield* fakeRedis(kind)
        const store = RedisStore.layer({ url: server.url, timeout: timeoutMillis }).pipe(Layer.provide(client(server.url)))
        const { result, lines } = yield* logged(Effect.gen(function*() {
          const built = yield* elapsed(agent(store))
          assert.isTrue(Exit.isSuccess(built.exit), `the layer did not build: ${String(built.exit)}`)
          assert.isBelow(built.millis, buildBound, "the build is bounded by the store's timeout")
          const target = Exit.isSuccess(built.exit) ? built.exit.value : undefined
          const calls = []
          for (let turn = 1; turn <= 3; turn++) calls.push(yield* target!.call(turn))
          return calls
        }))
        for (const { millis, report } of result) {
          assert.isBelow(millis, callBound, `a call took ${millis} ms`)
          assert.notStrictEqual(report.committed, "written", "nothing is written to a store that is not one")
          assert.notStrictEqual(report.change?.action, "append")
        }
        // Down while it connects: logged once, however many calls.
        const warnings = lines.filter((l) => l.includes("fitted afresh"))
        assert.strictEqual(warnings.length, 1, lines.join("\n"))
      })))
  }

  it.live("nothing listening: RedisStore.layerFrom builds, and its errors say what failed and where", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* fakeRedis("nothing")
      const start = yield* Clock.currentTimeMillis
      const context = yield* Layer.build(RedisStore.layerFrom(client(server.url), { url: server.url, timeout: timeoutMillis }))
      assert.isBelow((yield* Clock.currentTimeMillis) - start, buildBound)
      const store = Context.get(context, KeyValueStore.KeyValueStore)
      const error = yield* Effect.flip(store.get("conversation-1"))
      assert.include(error.message, "GET")
      assert.include(error.message, `127.0.0.1:${server.port}`)
      assert.include(error.message, "conversation-1")
      assert.match(error.message, /ECONNREFUSED|connect/)
    })))

  it.live("silent: RedisStore.layerFrom builds within the timeout, and an operation fails at once, naming where", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* fakeRedis("silent")
      const start = yield* Clock.currentTimeMillis
      const context = yield* Layer.build(RedisStore.layerFrom(client(server.url), { url: server.url, timeout: timeoutMillis }))
      assert.isBelow((yield* Clock.currentTimeMillis) - start, buildBound)
      const store = Context.get(context, KeyValueStore.KeyValueStore)
      const { exit, millis } = yield* elapsed(store.set("k", "v"))
      assert.isTrue(Exit.isFailure(exit))
      assert.isBelow(millis, 100)
      const error = yield* Effect.flip(store.set("k", "v"))
      assert.strictEqual(
        error.message,
        `Redis SET for key "k" at 127.0.0.1:${server.port} not sent: Redis at 127.0.0.1:${server.port}: did not connect within 300ms`
      )
    })))

  it.live("+OK to everything: a read is corrupt, the compare-and-set an unexpected reply — never a written state", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* fakeRedis("ok")
      const context = yield* Layer.build(RedisStore.layerFrom(client(server.url), { url: server.url, timeout: timeoutMillis }))
      const cas = Context.get(context, WindowStore.CompareAndSet)
      // Connected in the background: on a busy machine the handshake may take longer than the timeout.
      let error = yield* Effect.flip(cas.compareAndSet("k", undefined, "{}"))
      for (let k = 0; k < 30 && error.message.includes("not sent"); k++) {
        yield* Effect.sleep("100 millis")
        error = yield* Effect.flip(cas.compareAndSet("k", undefined, "{}"))
      }
      assert.include(error.message, "unexpected reply", error.message)
      assert.include(error.message, `127.0.0.1:${server.port}`)
    })))

  it.live("a failed store operation is counted in cupel.window.store.failures", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* fakeRedis("nothing")
      const failures = Metric.withAttributes(WindowMetrics.storeFailures, { "cupel.window.store.operation": "read" })
      const before = (yield* Metric.value(failures)).count
      const target = yield* agent(RedisStore.layer({ timeout: timeoutMillis }).pipe(Layer.provide(client(server.url))))
      yield* target.call(1)
      yield* target.call(2)
      assert.strictEqual((yield* Metric.value(failures)).count - before, 2)
    }).pipe(Effect.provideService(References.MinimumLogLevel, "Error"))))
})
