/**
 * A compare-and-set's reply names its key and the version asked for (design 92): a client whose
 * replies fell out of step — after garbage on the wire, node-redis can hand one command the
 * reply of another — must not take another write's "set" for its own and report a state
 * committed that Redis never set (the fleet suite once counted 56 calls committed for 55
 * states applied). Here a real redis-server on 127.0.0.1 answers, but the store's `EVAL` is
 * sent as another command whose reply it then receives: another key's write, or a bare `[1]`.
 */
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import { assert, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import * as Redis from "effect/persistence/Redis"
import * as RedisStore from "../../src/ai/RedisStore.ts"
import * as WindowStore from "../../src/ai/WindowStore.ts"
import { describeWithRedis, redisServer } from "../support/redisServer.ts"

/** The args of `EVAL script 1 key expected value px`, rewritten before they reach Redis. */
type Reroute = (args: ReadonlyArray<string>) => ReadonlyArray<string>

/** The compare-and-set on key "k" (nothing stored expected), its `EVAL` rerouted. */
const writeOnce = (url: string, reroute: Reroute) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(NodeRedis.layer({ url }))
    const real = Context.get(context, Redis.Redis)
    const rerouted = Redis.Redis.of({
      ...real,
      send: <A>(command: string, ...args: ReadonlyArray<string>) =>
        real.send<A>(command, ...(command === "EVAL" ? reroute(args) : args))
    })
    const services = yield* RedisStore.makeContext({ prefix: "casreply:" }).pipe(
      Effect.provideService(Redis.Redis, rerouted)
    )
    const cas = Context.get(services, WindowStore.CompareAndSet)
    return yield* Effect.result(cas.compareAndSet("k", undefined, "{\"revision\":1}"))
  })

const withKey = (key: string): Reroute => (args) => [args[0]!, args[1]!, key, ...args.slice(3)]

describeWithRedis("the compare-and-set's reply names its key and version (real redis-server)", () => {
  it.live("the script's own reply is a write", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* redisServer
      const result = yield* writeOnce(server.url, (args) => args)
      assert.isTrue(result._tag === "Success" && result.success._tag === "Set")
    })))

  it.live("another key's write answered in its place is no write: an unexpected reply, a failed write", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* redisServer
      const result = yield* writeOnce(server.url, withKey("casreply:other"))
      assert.strictEqual(result._tag, "Failure")
      if (result._tag === "Failure") assert.match(result.failure.message, /unexpected reply/)
    })))

  it.live("a bare [1] (the reply of another script) is no write", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* redisServer
      const result = yield* writeOnce(server.url, () => ["return {1}", "0"])
      assert.strictEqual(result._tag, "Failure")
    })))

  it.live("a set reply naming another version is no write", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* redisServer
      const result = yield* writeOnce(server.url, (args) => ["return {1, KEYS[1], '3/abc'}", "1", args[2]!])
      assert.strictEqual(result._tag, "Failure")
    })))

  it.live("a changed reply for this key carries the stored state; for another key it is refused", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* redisServer
      const changed = yield* writeOnce(server.url, (args) => ["return {0, KEYS[1], 'stored'}", "1", args[2]!])
      assert.isTrue(changed._tag === "Success" && changed.success._tag === "Changed" && changed.success.current === "stored")
      const foreign = yield* writeOnce(server.url, () => ["return {0, KEYS[1], 'stored'}", "1", "casreply:other"])
      assert.strictEqual(foreign._tag, "Failure")
    })))
})
