/**
 * The conversation-state stores: `MemoryStore` (bounded, expiring, in process; TestClock) and
 * `RedisStore` against a real `redis-server` on 127.0.0.1 (test/support/redisServer.ts),
 * through `@effect/platform-node/NodeRedis` as an application would wire it — including what
 * the store does while Redis is down, hung, and back empty.
 */
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import { assert, describe, it } from "@effect/vitest"
import { Clock, Context, type Duration, Effect, Exit, Layer, References, Schedule } from "effect"
import * as KeyValueStore from "effect/persistence/KeyValueStore"
import * as Redis from "effect/persistence/Redis"
import { TestClock } from "effect/testing"
import { InvalidConfigError } from "../../src/InvalidConfigError.ts"
import { MemoryStore, RedisStore } from "../../src/index.ts"
import { describeWithRedis, type RedisServer, redisServer } from "../support/redisServer.ts"

const memory = (options?: MemoryStore.Options) =>
  Effect.map(Layer.build(MemoryStore.layer(options)), Context.get(KeyValueStore.KeyValueStore))

describe("MemoryStore", () => {
  it.effect("set, get, remove, size, keys and clear", () =>
    Effect.gen(function*() {
      const store = yield* memory()
      yield* store.set("a", "1")
      yield* store.set("b", "2")
      assert.strictEqual(yield* store.get("a"), "1")
      assert.strictEqual(yield* store.get("missing"), undefined)
      assert.strictEqual(yield* store.size, 2)
      assert.deepStrictEqual([...(yield* store.keys)].sort(), ["a", "b"])
      yield* store.remove("a")
      assert.strictEqual(yield* store.get("a"), undefined)
      yield* store.clear
      assert.strictEqual(yield* store.size, 0)
    }))

  it.effect("Uint8Array values come back as they were set", () =>
    Effect.gen(function*() {
      const store = yield* memory()
      const bytes = new Uint8Array([0, 1, 254, 255])
      yield* store.set("bytes", bytes)
      assert.deepStrictEqual(yield* store.getUint8Array("bytes"), bytes)
    }))

  it.effect("ttl: an entry expires ttl after it was set (Clock time)", () =>
    Effect.gen(function*() {
      const store = yield* memory({ ttl: "10 seconds" })
      yield* store.set("k", "v")
      yield* TestClock.adjust("9999 millis")
      assert.strictEqual(yield* store.get("k"), "v")
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(yield* store.get("k"), undefined)
      assert.isFalse(yield* store.has("k"))
    }))

  it.effect("ttl: setting an entry again renews it", () =>
    Effect.gen(function*() {
      const store = yield* memory({ ttl: "10 seconds" })
      yield* store.set("k", "v1")
      yield* TestClock.adjust("8 seconds")
      yield* store.set("k", "v2")
      yield* TestClock.adjust("8 seconds")
      assert.strictEqual(yield* store.get("k"), "v2")
      yield* TestClock.adjust("2 seconds")
      assert.strictEqual(yield* store.get("k"), undefined)
    }))

  it.effect("ttl: size and keys leave expired entries out", () =>
    Effect.gen(function*() {
      const store = yield* memory({ ttl: "10 seconds" })
      yield* store.set("old", "1")
      yield* TestClock.adjust("6 seconds")
      yield* store.set("new", "2")
      yield* TestClock.adjust("6 seconds")
      assert.strictEqual(yield* store.size, 1)
      assert.deepStrictEqual(yield* store.keys, ["new"])
      assert.isFalse(yield* store.isEmpty)
    }))

  it.effect("maxEntries: setting one more evicts the entry set longest ago", () =>
    Effect.gen(function*() {
      const store = yield* memory({ maxEntries: 3 })
      for (const key of ["a", "b", "c"]) yield* store.set(key, key)
      yield* store.set("a", "a2") // a is now the newest
      yield* store.set("d", "d")
      assert.strictEqual(yield* store.size, 3)
      assert.strictEqual(yield* store.get("b"), undefined)
      assert.deepStrictEqual([...(yield* store.keys)].sort(), ["a", "c", "d"])
      assert.strictEqual(yield* store.get("a"), "a2")
    }))

  it.effect("maxEntries: reading an entry does not renew it", () =>
    Effect.gen(function*() {
      const store = yield* memory({ maxEntries: 2 })
      yield* store.set("a", "1")
      yield* store.set("b", "2")
      assert.strictEqual(yield* store.get("a"), "1")
      yield* store.set("c", "3")
      assert.strictEqual(yield* store.get("a"), undefined)
      assert.strictEqual(yield* store.get("b"), "2")
    }))

  it.effect("maxEntries: the default bound is 10,000", () =>
    Effect.gen(function*() {
      const store = yield* memory()
      for (let i = 0; i <= MemoryStore.defaultMaxEntries; i++) yield* store.set(`k${i}`, "v")
      assert.strictEqual(yield* store.size, 10_000)
      assert.strictEqual(yield* store.get("k0"), undefined)
      assert.strictEqual(yield* store.get("k1"), "v")
    }))

  it.effect("invalid options fail with InvalidConfigError", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [MemoryStore.Options, string]> = [
        [{ ttl: 0 }, "ttl"],
        [{ ttl: "-1 seconds" }, "ttl"],
        [{ ttl: Number.NaN }, "ttl"],
        [{ maxEntries: 0 }, "maxEntries"],
        [{ maxEntries: 1.5 }, "maxEntries"],
        [{ maxEntries: Number.NaN }, "maxEntries"]
      ]
      for (const [options, path] of cases) {
        const error = yield* Effect.flip(memory(options))
        assert.instanceOf(error, InvalidConfigError)
        assert.strictEqual(error.component, "MemoryStore")
        assert.strictEqual(error.path, path)
      }
    }))
})

// ---------------------------------------------------------------------------------------------
// RedisStore against a real server

type ClientOptions = Omit<NonNullable<Parameters<typeof NodeRedis.layer>[0]>, "url">

/** A connection to the test server as an application would make it: `NodeRedis.layer`. */
const connect = (server: RedisServer, client: ClientOptions = {}) =>
  Layer.build(NodeRedis.layer({ ...client, url: server.url }))

/** The store over a connection to the test server, and the raw `Redis` to look behind it. */
const open = (server: RedisServer, options: RedisStore.Options = {}, client: ClientOptions = {}) =>
  Effect.gen(function*() {
    const context = yield* connect(server, client)
    const redis = Context.get(context, Redis.Redis)
    const store = yield* RedisStore.make(options).pipe(Effect.provideService(Redis.Redis, redis))
    return { store, redis }
  })

/** node-redis warns at every failed reconnection: not the tests' business. */
const quiet = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.provideService(effect, References.MinimumLogLevel, "Error")

const elapsed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const start = yield* Clock.currentTimeMillis
    const exit = yield* Effect.exit(effect)
    return { exit, millis: (yield* Clock.currentTimeMillis) - start }
  })

/** The typed failure of an exit that must have failed. */
const failure = <A>(exit: Exit.Exit<A, KeyValueStore.KeyValueStoreError>) => {
  assert.isTrue(Exit.isFailure(exit), "expected a failure")
  const error = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
  assert.strictEqual(error?._tag, "Fail", "expected a typed failure, not a defect or an interruption")
  return error?._tag === "Fail" ? error.error : assert.fail("no typed failure")
}

/** Retries `effect` until it succeeds, for at most `within`: the client reconnects on its own. */
const eventually = <A, E, R>(effect: Effect.Effect<A, E, R>, within: Duration.Input) =>
  effect.pipe(Effect.retry(Schedule.spaced("50 millis")), Effect.timeout(within))

describeWithRedis("RedisStore (real redis-server on 127.0.0.1)", () => {
  it.live("set, get and remove", () =>
    Effect.gen(function*() {
      const server = yield* redisServer
      const { store } = yield* open(server)
      yield* store.set("conversation-1", "{\"sent\":3}")
      assert.strictEqual(yield* store.get("conversation-1"), "{\"sent\":3}")
      assert.strictEqual(yield* store.get("conversation-2"), undefined)
      assert.isTrue(yield* store.has("conversation-1"))
      assert.isFalse(yield* store.has("conversation-2"))
      yield* store.set("conversation-1", "{\"sent\":4}")
      assert.strictEqual(yield* store.get("conversation-1"), "{\"sent\":4}")
      yield* store.remove("conversation-1")
      assert.strictEqual(yield* store.get("conversation-1"), undefined)
    }))

  it.live("unicode values come back unchanged", () =>
    Effect.gen(function*() {
      const server = yield* redisServer
      const { store } = yield* open(server)
      const values = [
        "",
        "héllo wörld",
        "日本語のテキスト",
        "emoji 👩‍👩‍👧 🇫🇷 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
        "e\u0301 (combining) \u200b (zero width) \u0000 (NUL)",
        JSON.stringify({ text: "« quoted » \"and\" \\ escaped\n", n: 1 }),
        "ж".repeat(200_000)
      ]
      for (const [i, value] of values.entries()) yield* store.set(`k${i}`, value)
      for (const [i, value] of values.entries()) assert.strictEqual(yield* store.get(`k${i}`), value)
      // keys may be unicode too
      yield* store.set("разговор/💬", "ok")
      assert.strictEqual(yield* store.get("разговор/💬"), "ok")
    }))

  it.live("Uint8Array values come back as they were set", () =>
    Effect.gen(function*() {
      const server = yield* redisServer
      const { store } = yield* open(server)
      const bytes = new Uint8Array([0, 1, 127, 128, 254, 255])
      yield* store.set("bytes", bytes)
      assert.deepStrictEqual(yield* store.getUint8Array("bytes"), bytes)
    }))

  it.live("keys are stored under the prefix, default effect-cupel:window:", () =>
    Effect.gen(function*() {
      const server = yield* redisServer
      const { store, redis } = yield* open(server)
      const custom = yield* RedisStore.make({ prefix: "app:" }).pipe(Effect.provideService(Redis.Redis, redis))
      yield* store.set("c1", "default")
      yield* custom.set("c1", "custom")
      assert.strictEqual(yield* redis.send("GET", "effect-cupel:window:c1"), "default")
      assert.strictEqual(yield* redis.send("GET", "app:c1"), "custom")
      assert.strictEqual(yield* redis.send("DBSIZE"), 2)
    }))

  it.live("ttl: Redis itself expires an entry (SET … PX)", () =>
    Effect.gen(function*() {
      const server = yield* redisServer
      const { store, redis } = yield* open(server, { ttl: "300 millis" })
      yield* store.set("k", "v")
      const pttl = yield* redis.send("PTTL", "effect-cupel:window:k")
      assert.isTrue(typeof pttl === "number" && pttl > 0 && pttl <= 300, `PTTL ${String(pttl)}`)
      assert.strictEqual(yield* store.get("k"), "v")
      yield* Effect.sleep("500 millis")
      assert.strictEqual(yield* store.get("k"), undefined)
      assert.strictEqual(yield* redis.send("EXISTS", "effect-cupel:window:k"), 0)
    }))

  it.live("ttl: setting an entry again renews it", () =>
    Effect.gen(function*() {
      const server = yield* redisServer
      const { store } = yield* open(server, { ttl: "400 millis" })
      yield* store.set("k", "v1")
      yield* Effect.sleep("250 millis")
      yield* store.set("k", "v2")
      yield* Effect.sleep("250 millis")
      assert.strictEqual(yield* store.get("k"), "v2")
    }))

  it.live("ttl: without one, an entry does not expire", () =>
    Effect.gen(function*() {
      const server = yield* redisServer
      const { store, redis } = yield* open(server)
      yield* store.set("k", "v")
      assert.strictEqual(yield* redis.send("PTTL", "effect-cupel:window:k"), -1)
    }))

  it.live("prefix isolation: clearing one store leaves the other's entries and foreign keys", () =>
    Effect.gen(function*() {
      const server = yield* redisServer
      const { redis } = yield* open(server)
      const storeOn = (prefix: string) => RedisStore.make({ prefix }).pipe(Effect.provideService(Redis.Redis, redis))
      const a = yield* storeOn("a:")
      const b = yield* storeOn("b:")
      // a prefix with glob characters must match itself only, not "px:…"
      const glob = yield* storeOn("p*:")
      const px = yield* storeOn("px:")
      for (const store of [a, b, glob, px]) {
        yield* store.set("1", "v")
        yield* store.set("2", "v")
      }
      yield* redis.send("SET", "foreign", "keep me")
      yield* a.clear
      yield* glob.clear
      assert.strictEqual(yield* a.size, 0)
      assert.strictEqual(yield* glob.size, 0)
      assert.strictEqual(yield* b.size, 2)
      assert.strictEqual(yield* px.size, 2)
      assert.deepStrictEqual([...(yield* b.keys)].sort(), ["1", "2"])
      assert.strictEqual(yield* redis.send("GET", "foreign"), "keep me")
    }))

  it.live("size, keys and clear walk every SCAN step (more keys than one batch)", () =>
    Effect.gen(function*() {
      const server = yield* redisServer
      const { store, redis } = yield* open(server, { prefix: "many:" })
      const n = 1_234
      // through Redis directly: a thousand round trips would only slow the test down
      yield* redis.send("MSET", ...Array.from({ length: n }, (_, i) => [`many:k${i}`, "v"]).flat())
      yield* redis.send("SET", "other:k", "v")
      assert.strictEqual(yield* store.size, n)
      const keys = yield* store.keys
      assert.strictEqual(new Set(keys).size, n)
      assert.isTrue(keys.every((key) => /^k\d+$/.test(key)))
      yield* store.clear
      assert.strictEqual(yield* store.size, 0)
      assert.strictEqual(yield* redis.send("DBSIZE"), 1)
    }))

  it.live("clearPrefix removes the keys under it, within the store's prefix", () =>
    Effect.gen(function*() {
      const server = yield* redisServer
      const { store, redis } = yield* open(server)
      yield* store.set("user-1:a", "v")
      yield* store.set("user-1:b", "v")
      yield* store.set("user-2:a", "v")
      yield* redis.send("SET", "user-1:a", "foreign")
      yield* store.clearPrefix("user-1:")
      assert.deepStrictEqual(yield* store.keys, ["user-2:a"])
      assert.strictEqual(yield* redis.send("GET", "user-1:a"), "foreign")
    }))

  it.live("an error from Redis is a KeyValueStoreError naming the method, the key and the reply", () =>
    Effect.gen(function*() {
      const server = yield* redisServer
      const { store, redis } = yield* open(server)
      yield* redis.send("LPUSH", "effect-cupel:window:list", "x")
      const error = failure(yield* Effect.exit(store.get("list")))
      assert.instanceOf(error, KeyValueStore.KeyValueStoreError)
      assert.strictEqual(error.method, "get")
      assert.strictEqual(error.key, "list")
      assert.match(error.message, /^Redis GET for key "list" failed: .*WRONGTYPE/)
    }))

  it.live("invalid options fail with InvalidConfigError", () =>
    Effect.gen(function*() {
      const server = yield* redisServer
      const { redis } = yield* open(server)
      const cases: ReadonlyArray<readonly [RedisStore.Options, string]> = [
        [{ prefix: "" }, "prefix"],
        [{ ttl: 0 }, "ttl"],
        [{ ttl: "-5 seconds" }, "ttl"],
        [{ timeout: 0 }, "timeout"],
        [{ timeout: "-Infinity" }, "timeout"]
      ]
      for (const [options, path] of cases) {
        const error = yield* Effect.flip(RedisStore.make(options).pipe(Effect.provideService(Redis.Redis, redis)))
        assert.instanceOf(error, InvalidConfigError)
        assert.strictEqual(error.component, "RedisStore")
        assert.strictEqual(error.path, path)
      }
    }))

  describe("when Redis fails", () => {
    it.live("down: get and set fail with KeyValueStoreError within the default timeout (1 s)", () =>
      quiet(Effect.gen(function*() {
        const server = yield* redisServer
        const { store } = yield* open(server)
        yield* store.set("k", "v")
        yield* server.stop
        for (const operation of [store.get("k"), store.set("k", "v2")]) {
          const { exit, millis } = yield* elapsed(operation)
          const error = failure(exit)
          assert.instanceOf(error, KeyValueStore.KeyValueStoreError)
          assert.strictEqual(error.key, "k")
          assert.match(error.message, /within 1s|failed/)
          assert.isBelow(millis, 1_500, `took ${millis} ms`)
        }
        // node-redis's close waits for the commands it queued while offline: with Redis never
        // back, closing the scope would hang. Back, they are sent and the client closes.
        yield* server.start
        yield* eventually(store.get("k"), "5 seconds")
      })))

    it.live("down, with node-redis's disableOfflineQueue: the error is immediate", () =>
      quiet(Effect.gen(function*() {
        const server = yield* redisServer
        const { store } = yield* open(server, {}, { disableOfflineQueue: true })
        yield* store.set("k", "v")
        yield* server.stop
        yield* Effect.sleep("100 millis")
        const { exit, millis } = yield* elapsed(store.get("k"))
        const error = failure(exit)
        assert.strictEqual(error.method, "get")
        assert.match(error.message, /^Redis GET for key "k" failed: .*offline/)
        assert.isBelow(millis, 200, `took ${millis} ms`)
      })))

    it.live("hung (no answer on an open connection): the operation fails within the timeout", () =>
      quiet(Effect.gen(function*() {
        const server = yield* redisServer
        const { store } = yield* open(server, { timeout: "300 millis" })
        yield* store.set("k", "v")
        yield* server.pause
        const { exit, millis } = yield* elapsed(store.get("k")).pipe(Effect.ensuring(server.resume))
        const error = failure(exit)
        assert.strictEqual(error.message, "Redis did not answer GET for key \"k\" within 300ms")
        assert.isAtLeast(millis, 290)
        assert.isBelow(millis, 800, `took ${millis} ms`)
      })))

    it.live("back (empty): the store works again, without the old entries", () =>
      quiet(Effect.gen(function*() {
        const server = yield* redisServer
        const { store } = yield* open(server, { timeout: "300 millis" })
        yield* store.set("old", "v")
        yield* server.stop
        assert.isTrue(Exit.isFailure(yield* Effect.exit(store.get("old"))))
        yield* Effect.sleep("500 millis")
        yield* server.start
        // node-redis reconnects with a backoff of at most ~2.2 s
        const { millis } = yield* elapsed(eventually(store.set("new", "v"), "5 seconds"))
        assert.isBelow(millis, 5_000)
        assert.strictEqual(yield* store.get("new"), "v")
        assert.strictEqual(yield* store.get("old"), undefined)
      })))

    it.live("a set that timed out while Redis was down: applied on reconnect unless the offline queue is off", () =>
      quiet(Effect.gen(function*() {
        const run = (client: ClientOptions) =>
          Effect.scoped(Effect.gen(function*() {
            const server = yield* redisServer
            const { store } = yield* open(server, { timeout: "200 millis" }, client)
            yield* server.stop
            assert.isTrue(Exit.isFailure(yield* Effect.exit(store.set("k", "stale"))))
            yield* server.start
            yield* eventually(store.get("probe"), "5 seconds")
            return yield* store.get("k")
          }))
        // node-redis's default queues commands while it reconnects (up to its 5 s command
        // timeout): the store's timeout gives up waiting, but cannot take the command back.
        assert.strictEqual(yield* run({}), "stale")
        assert.strictEqual(yield* run({ disableOfflineQueue: true }), undefined)
      })))

    it.live("NodeRedis.layer fails to build when Redis is down at start", () =>
      quiet(Effect.gen(function*() {
        const server = yield* redisServer
        yield* server.stop
        const { exit, millis } = yield* elapsed(Effect.scoped(connect(server)))
        assert.isTrue(Exit.isFailure(exit))
        assert.isBelow(millis, 1_000)
      })))
  })
})
