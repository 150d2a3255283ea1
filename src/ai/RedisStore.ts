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
 *   `KeyValueStoreError` naming the operation (`method`), the key and what happened.
 *
 * @since 0.3.0
 */
import { Duration, Effect, Layer, Schema } from "effect"
import * as KeyValueStore from "effect/persistence/KeyValueStore"
import * as Redis from "effect/persistence/Redis"
import { InvalidConfigError } from "../InvalidConfigError.ts"
import { describeThrown } from "../internal/describeThrown.ts"
import { positiveMillis } from "./internal/storeOptions.ts"

/**
 * Options of {@link layer}.
 *
 * - `prefix` — put before every key (default {@link defaultPrefix}); not empty, since the
 *   store's `clear` removes every key that starts with it.
 * - `ttl` — how long Redis keeps an entry after it was last set (default: for ever).
 * - `timeout` — how long one Redis command may take before the operation fails (default
 *   {@link defaultTimeout}; `Infinity` waits as long as the client does).
 *
 * @since 0.3.0
 * @category models
 */
export interface Options {
  readonly prefix?: string | undefined
  readonly ttl?: Duration.Input | undefined
  readonly timeout?: Duration.Input | undefined
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
    const redis = yield* Redis.Redis
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
      const about = key === undefined ? "" : ` for key ${JSON.stringify(key)}`
      const fail = (message: string, cause?: unknown) =>
        new KeyValueStore.KeyValueStoreError({
          method,
          message,
          ...(key === undefined ? {} : { key }),
          ...(cause === undefined ? {} : { cause })
        })
      const sent = redis.send(name, ...args).pipe(
        Effect.mapError((error) => fail(`Redis ${name}${about} failed: ${describeThrown(error.cause)}`, error))
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
        )
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

    return KeyValueStore.makeStringOnly({
      get: (key) =>
        command(Bulk, "get", key, "GET", prefix + key).pipe(Effect.map((value) => value ?? undefined)),
      set: (key, value) => command(Schema.Unknown, "set", key, "SET", prefix + key, value, ...expiry).pipe(Effect.asVoid),
      remove: (key) => command(Schema.Unknown, "remove", key, "DEL", prefix + key).pipe(Effect.asVoid),
      clear: removeAll("clear", ""),
      clearPrefix: (under) => removeAll("clearPrefix", under),
      size: Effect.map(scan("size", ""), (keys) => keys.length),
      keys: Effect.map(scan("keys", ""), (keys) => keys.map((key) => key.slice(prefix.length)))
    })
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
): Layer.Layer<KeyValueStore.KeyValueStore, InvalidConfigError, Redis.Redis> =>
  Layer.effect(KeyValueStore.KeyValueStore, make(options))
