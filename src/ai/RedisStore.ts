/**
 * RedisStore: Effect's `KeyValueStore` over Effect's `Redis` service, for servers that share
 * one conversation across machines.
 *
 * The library brings no Redis client: the `Redis` service comes from the application — on
 * Node, `@effect/platform-node/NodeRedis`'s `layer` (node-redis) provides it.
 *
 * - Keys are namespaced: every key is stored as `prefix + key` (default
 *   `"effect-cupel:window:"`), and `clear`, `size` and `keys` see the prefix's keys only
 *   (`SCAN … MATCH prefix*`, then `DEL`): never `FLUSHDB`, other data in the database is left
 *   alone.
 * - `ttl`: every `set` is a `SET … PX ttl`, so Redis itself forgets an entry that long after
 *   it was last set, whichever process wrote it.
 * - `timeout` (default 1 second): every Redis command must answer within it, or the
 *   operation fails with a `KeyValueStoreError`. A client can otherwise wait a long time: a
 *   hung server never answers, and node-redis holds commands while it reconnects (for up to
 *   its own command timeout of 5 seconds).
 * - Every failure — the timeout, a `RedisError`, a reply of an unexpected shape — is a
 *   `KeyValueStoreError` naming the operation (`method`), the key, where (`url`'s host and
 *   port, when given) and what happened.
 * - The layer also provides `WindowStore.CompareAndSet`: one Lua script (`EVAL`) that sets a
 *   conversation's state only if the stored one's version (`revision` and history digest) is still
 *   the one the call read
 *   (design 92), so that servers sharing a conversation never overwrite a newer state.
 *
 * @since 0.3.0
 */
import { Context, Duration, Effect, Layer, Schema } from "effect"
import * as KeyValueStore from "effect/persistence/KeyValueStore"
import * as Redis from "effect/persistence/Redis"
import { InvalidConfigError } from "../InvalidConfigError.ts"
import { connect, describeFailure } from "./internal/connecting.ts"
import { positiveMillis } from "./internal/storeOptions.ts"
import * as WindowStore from "./WindowStore.ts"

/**
 * Options of {@link layer}.
 *
 * - `prefix` — put before every key (default {@link defaultPrefix}); not empty, since the
 *   store's `clear` removes every key that starts with it.
 * - `ttl` — how long Redis keeps an entry after it was last set (default: for ever).
 * - `timeout` — how long one Redis command may take before the operation fails (default
 *   {@link defaultTimeout}; `Infinity` waits as long as the client does).
 * - `url` — the address the application's `Redis` connects to, named in error messages (its
 *   host and port only: never its credentials). The store does not connect itself.
 *
 * @since 0.3.0
 * @category models
 */
export interface Options {
  readonly prefix?: string | undefined
  readonly ttl?: Duration.Input | undefined
  readonly timeout?: Duration.Input | undefined
  readonly url?: string | undefined
}

/**
 * Where a URL points, for messages: `host:port` (6379 when it names none), without user or
 * password; the text itself when it is no URL.
 *
 * @since 0.3.0
 * @category constructors
 */
export const describeUrl = (url: string): string => {
  try {
    const parsed = new URL(url)
    return `${parsed.hostname}:${parsed.port === "" ? "6379" : parsed.port}`
  } catch {
    return "an address that is not a URL"
  }
}

/**
 * The prefix when none is given.
 *
 * @since 0.3.0
 * @category constants
 */
export const defaultPrefix = "effect-cupel:window:"

/**
 * The timeout when none is given: far above a healthy Redis's latency (well under a
 * millisecond on a local network), and short enough that a request whose store is down is
 * not held up for long.
 *
 * @since 0.3.0
 * @category constants
 */
export const defaultTimeout: Duration.Duration = Duration.seconds(1)

const component = "RedisStore"

/** Keys per `DEL` when clearing, and the `COUNT` hint per `SCAN` step. */
const batch = 500

const Bulk = Schema.NullOr(Schema.String)
/**
 * `[1, key, expected]`: set; `[0, key]`: nothing stored any more; `[0, key, current]`: another
 * revision is stored. The reply names the key and the version it was asked for: a client whose
 * replies fell out of step (after garbage on the wire) would otherwise take another command's
 * `[1]` for its own write and report a state committed that Redis never set (found by the
 * fleet suite, design 92); a reply for another key or version is an unexpected reply, a failed
 * write.
 */
const casReply = (fullKey: string, expected: string) =>
  Schema.Union([
    Schema.Tuple([Schema.Literal(1), Schema.Literal(fullKey), Schema.Literal(expected)]),
    Schema.Tuple([Schema.Literal(0), Schema.Literal(fullKey)]),
    Schema.Tuple([Schema.Literal(0), Schema.Literal(fullKey), Schema.String])
  ])

/**
 * The compare-and-set: `KEYS[1]` the key; `ARGV[1]` the expected version (`""`: none),
 * `ARGV[2]` the value, `ARGV[3]` the `PX` in milliseconds (`""`: no expiry). The stored
 * version is read as `WindowStore.versionOf` reads it: a JSON object's whole-number
 * `revision` and its `historyDigest`, as `revision/digest`; anything else none. A script runs atomically: no command of another client comes
 * between the `GET` and the `SET`.
 */
const compareAndSetLua = `
local current = redis.call('GET', KEYS[1])
local revision = ''
if current then
  local ok, decoded = pcall(cjson.decode, current)
  if ok and type(decoded) == 'table' and type(decoded['revision']) == 'number' then
    local r = decoded['revision']
    if r == math.floor(r) and r >= -9007199254740991 and r <= 9007199254740991 then
      local digest = ''
      if type(decoded['historyDigest']) == 'string' then digest = decoded['historyDigest'] end
      revision = string.format('%d', r) .. '/' .. digest
    end
  end
end
if revision ~= ARGV[1] then
  if current then return {0, KEYS[1], current} end
  return {0, KEYS[1]}
end
if ARGV[3] == '' then
  redis.call('SET', KEYS[1], ARGV[2])
else
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return {1, KEYS[1], ARGV[1]}
`
const ScanReply = Schema.Tuple([Schema.String, Schema.Array(Schema.String)])

/** `MATCH` reads a glob: a prefix's own `*`, `?`, `[`, `]` and `\` must match themselves. */
const escapeGlob = (text: string): string => text.replace(/[*?[\]\\]/g, "\\$&")

/**
 * The store over a `Redis` service, built from checked options.
 *
 * @since 0.3.0
 * @category constructors
 */
export const make = (
  options: Options = {}
): Effect.Effect<KeyValueStore.KeyValueStore, InvalidConfigError, Redis.Redis> =>
  Effect.map(makeContext(options), Context.get(KeyValueStore.KeyValueStore))

/**
 * The store and its compare-and-set (`WindowStore.CompareAndSet`), over one `Redis`.
 *
 * @since 0.3.0
 * @category constructors
 */
export const makeContext = (
  options: Options = {}
): Effect.Effect<
  Context.Context<KeyValueStore.KeyValueStore | WindowStore.CompareAndSet>,
  InvalidConfigError,
  Redis.Redis
> => Effect.flatMap(Redis.Redis, (redis) => makeWith({ get: Effect.succeed(redis), outcome: () => Effect.void }, options))

type Services = Context.Context<KeyValueStore.KeyValueStore | WindowStore.CompareAndSet>

/** The store over a `Redis` that may not be there yet (`connection` fails with why not). */
const makeWith = (
  connection: {
    readonly get: Effect.Effect<Redis.Redis["Service"], string>
    readonly outcome: (ok: boolean, why?: string) => Effect.Effect<void>
  },
  options: Options
): Effect.Effect<Services, InvalidConfigError> =>
  Effect.gen(function*() {
    const prefix = options.prefix ?? defaultPrefix
    if (prefix === "") {
      return yield* new InvalidConfigError({
        component,
        path: "prefix",
        rule: "must not be empty: the store's clear would remove every key of the database"
      })
    }
    const ttl = yield* positiveMillis(component, "ttl", options.ttl, Number.POSITIVE_INFINITY)
    const timeout = yield* positiveMillis(component, "timeout", options.timeout, Duration.toMillis(defaultTimeout))
    const where = options.url === undefined ? "" : ` at ${describeUrl(options.url)}`
    // PX takes whole milliseconds, at least one.
    const expiry: ReadonlyArray<string> = ttl === Number.POSITIVE_INFINITY
      ? []
      : ["PX", String(Math.max(1, Math.ceil(ttl)))]

    /** One command, its reply checked, every failure a `KeyValueStoreError`. */
    const command = <A>(
      schema: Schema.Codec<A, unknown>,
      method: string,
      key: string | undefined,
      name: string,
      ...args: ReadonlyArray<string>
    ): Effect.Effect<A, KeyValueStore.KeyValueStoreError> => {
      const about = (key === undefined ? "" : ` for key ${JSON.stringify(key)}`) + where
      const fail = (message: string, cause?: unknown) =>
        new KeyValueStore.KeyValueStoreError({
          method,
          message,
          ...(key === undefined ? {} : { key }),
          ...(cause === undefined ? {} : { cause })
        })
      const sent = connection.get.pipe(
        Effect.mapError((why) => fail(`Redis ${name}${about} not sent: ${why}`)),
        Effect.flatMap((redis) =>
          redis.send(name, ...args).pipe(
            Effect.mapError((error) => fail(`Redis ${name}${about} failed: ${describeFailure(error)}`, error))
          )
        )
      )
      const bounded = timeout === Number.POSITIVE_INFINITY ? sent : sent.pipe(
        Effect.timeoutOrElse({
          duration: Duration.millis(timeout),
          orElse: () =>
            Effect.fail(fail(`Redis did not answer ${name}${about} within ${Duration.format(Duration.millis(timeout))}`))
        })
      )
      return bounded.pipe(
        Effect.flatMap((reply) =>
          Schema.decodeUnknownEffect(schema)(reply).pipe(
            Effect.mapError((error) => fail(`Redis ${name}${about} gave an unexpected reply: ${error.message}`, error))
          )
        ),
        // A connection whose every command fails is built again (design 91).
        Effect.tapError((error) => connection.outcome(false, error.message)),
        Effect.tap(() => connection.outcome(true))
      )
    }

    /** The full Redis keys under `under` (a prefix of the store's keys), each once. */
    const scan = (method: string, under: string) =>
      Effect.gen(function*() {
        const full = prefix + under
        const pattern = `${escapeGlob(full)}*`
        // SCAN may return a key more than once (while Redis rehashes): a Set counts it once.
        const found = new Set<string>()
        let cursor = "0"
        do {
          const [next, keys] = yield* command(
            ScanReply,
            method,
            undefined,
            "SCAN",
            cursor,
            "MATCH",
            pattern,
            "COUNT",
            String(batch)
          )
          for (const key of keys) if (key.startsWith(full)) found.add(key)
          cursor = next
        } while (cursor !== "0")
        return Array.from(found)
      })

    const removeAll = (method: string, under: string) =>
      Effect.gen(function*() {
        const keys = yield* scan(method, under)
        for (let i = 0; i < keys.length; i += batch) {
          yield* command(Schema.Unknown, method, undefined, "DEL", ...keys.slice(i, i + batch))
        }
      })

    const store = KeyValueStore.makeStringOnly({
      get: (key) =>
        command(Bulk, "get", key, "GET", prefix + key).pipe(Effect.map((value) => value ?? undefined)),
      set: (key, value) => command(Schema.Unknown, "set", key, "SET", prefix + key, value, ...expiry).pipe(Effect.asVoid),
      remove: (key) => command(Schema.Unknown, "remove", key, "DEL", prefix + key).pipe(Effect.asVoid),
      clear: removeAll("clear", ""),
      clearPrefix: (under) => removeAll("clearPrefix", under),
      size: Effect.map(scan("size", ""), (keys) => keys.length),
      keys: Effect.map(scan("keys", ""), (keys) => keys.map((key) => key.slice(prefix.length)))
    })
    const compareAndSet = WindowStore.CompareAndSet.of({
      compareAndSet: (key, expected, value) =>
        command(
          casReply(prefix + key, expected ?? ""),
          "compareAndSet",
          key,
          "EVAL",
          compareAndSetLua,
          "1",
          prefix + key,
          expected ?? "",
          value,
          expiry.length === 0 ? "" : expiry[1]!
        ).pipe(Effect.map((reply): WindowStore.SetResult =>
          reply[0] === 1 ? { _tag: "Set" } : { _tag: "Changed", current: reply.length === 3 ? reply[2] : undefined }
        ))
    })
    return Context.make(KeyValueStore.KeyValueStore, store).pipe(Context.add(WindowStore.CompareAndSet, compareAndSet))
  })

/**
 * The store as a layer of Effect's `KeyValueStore` service, over the application's `Redis`.
 * Fails with an `InvalidConfigError` when `prefix` is empty or `ttl` / `timeout` is not a
 * positive duration.
 *
 * @example
 * ```ts
 * import * as NodeRedis from "@effect/platform-node/NodeRedis"
 * import { Layer } from "effect"
 * import { RedisStore } from "effect-cupel"
 *
 * const store = RedisStore.layer({ ttl: "1 day" }).pipe(
 *   Layer.provide(NodeRedis.layer({ url: "redis://127.0.0.1:6379", disableOfflineQueue: true }))
 * )
 * ```
 *
 * @since 0.3.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<KeyValueStore.KeyValueStore | WindowStore.CompareAndSet, InvalidConfigError, Redis.Redis> =>
  Layer.effectContext(makeContext(options))

/**
 * The store over a `Redis` layer it builds itself, in the background (design 91): the layer
 * is built within the store's `timeout`, and while it is not — nothing listening, a server that
 * accepts the connection and says nothing (node-redis's `connect` then waits for ever), one
 * that answers garbage — the layer is still built and every operation fails at once with a
 * `KeyValueStoreError` saying what and where (`Redis GET for key "k" at 127.0.0.1:6379 not
 * sent: Redis at 127.0.0.1:6379: did not connect within 1s`); the connection is tried again in
 * the background (backoff 100 ms to 2 s; never while an attempt is pending). Fails only with an
 * `InvalidConfigError` for an invalid option.
 *
 * @example
 * ```ts
 * import * as NodeRedis from "@effect/platform-node/NodeRedis"
 * import { RedisStore } from "effect-cupel"
 *
 * const url = "redis://127.0.0.1:6379"
 * const store = RedisStore.layerFrom(NodeRedis.layer({ url, disableOfflineQueue: true }), { url, ttl: "1 day" })
 * ```
 *
 * @since 0.3.0
 * @category layers
 */
export const layerFrom = <E, R>(
  redis: Layer.Layer<Redis.Redis, E, R>,
  options: Options = {}
): Layer.Layer<KeyValueStore.KeyValueStore | WindowStore.CompareAndSet, InvalidConfigError, R> =>
  Layer.effectContext(Effect.gen(function*() {
    // The options first: an invalid one fails the layer before anything connects.
    yield* makeWith({ get: Effect.fail("not connected"), outcome: () => Effect.void }, options)
    const timeout = yield* positiveMillis(component, "timeout", options.timeout, Duration.toMillis(defaultTimeout))
    const connection = yield* connect(redis, {
      timeout,
      what: options.url === undefined ? "Redis" : `Redis at ${describeUrl(options.url)}`,
      fatal: (_): _ is never => false
    })
    return yield* makeWith({ get: Effect.map(connection.get, Context.get(Redis.Redis)), outcome: connection.outcome }, options)
  }))
