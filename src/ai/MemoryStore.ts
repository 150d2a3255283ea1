/**
 * MemoryStore: a process-local `KeyValueStore` that forgets — entries expire after a time to
 * live and the store holds a bounded number of them.
 *
 * Effect's own `KeyValueStore.layerMemory` is a `Map` that only grows: in a server that keeps
 * one small record per conversation, it would hold every conversation ever seen. This store
 * is the same `KeyValueStore` service with two limits:
 *
 * - `ttl` — an entry expires this long after it was last set (time from Effect's `Clock`, so
 *   `TestClock` drives it in tests). Expired entries are never returned, and are dropped as
 *   the store is used. Default: no expiry.
 * - `maxEntries` — at most this many entries; setting one more evicts the entry set longest
 *   ago (reading an entry does not renew it). Default: 10,000.
 *
 * The layer also provides `WindowStore.CompareAndSet`: a state is written only on the version
 * (revision and history digest) its call read, in one synchronous step (design 92), as `RedisStore` does across processes.
 *
 * For a store shared by several processes, see `RedisStore`.
 *
 * @since 0.3.0
 */
import { Clock, Context, type Duration, Effect, Layer } from "effect"
import * as Base64 from "effect/encoding/Base64"
import * as KeyValueStore from "effect/persistence/KeyValueStore"
import { InvalidConfigError } from "../InvalidConfigError.ts"
import { positiveMillis } from "./internal/storeOptions.ts"
import * as WindowStore from "./WindowStore.ts"

/**
 * Options of {@link layer}.
 *
 * - `ttl` — how long an entry lives after it was last set (default: for ever).
 * - `maxEntries` — the most entries the store holds, a positive integer (default 10,000;
 *   `Infinity` for no bound).
 *
 * @since 0.3.0
 * @category models
 */
export interface Options {
  readonly ttl?: Duration.Input | undefined
  readonly maxEntries?: number | undefined
}

/**
 * The bound when none is given: enough for ten thousand live conversations, and a few
 * megabytes at most for records of a few hundred bytes.
 *
 * @since 0.3.0
 * @category constants
 */
export const defaultMaxEntries = 10_000

const component = "MemoryStore"

interface Entry {
  readonly value: string | Uint8Array
  readonly expiresAt: number
}

/**
 * A bounded, expiring in-memory store, built from checked options.
 *
 * @since 0.3.0
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<KeyValueStore.KeyValueStore, InvalidConfigError> =>
  Effect.map(makeContext(options), Context.get(KeyValueStore.KeyValueStore))

/**
 * The store and its compare-and-set over the same entries.
 *
 * @since 0.3.0
 * @category constructors
 */
export const makeContext = (
  options: Options = {}
): Effect.Effect<Context.Context<KeyValueStore.KeyValueStore | WindowStore.CompareAndSet>, InvalidConfigError> =>
  Effect.gen(function*() {
    const ttl = yield* positiveMillis(component, "ttl", options.ttl, Number.POSITIVE_INFINITY)
    const maxEntries = options.maxEntries ?? defaultMaxEntries
    if (!(maxEntries === Number.POSITIVE_INFINITY || (Number.isSafeInteger(maxEntries) && maxEntries > 0))) {
      return yield* new InvalidConfigError({
        component,
        path: "maxEntries",
        rule: `must be a positive integer, got ${maxEntries}`
      })
    }
    // A Map keeps insertion order and a set re-inserts its key, so the first entry is always
    // the one set longest ago: the next to evict, and (the ttl being the same for all) the
    // first to expire.
    const entries = new Map<string, Entry>()
    const encoder = new TextEncoder()

    /** Drops the expired entries at the front: those set longest ago. */
    const dropExpiredFront = (now: number) => {
      for (const [key, entry] of entries) {
        if (entry.expiresAt > now) return
        entries.delete(key)
      }
    }
    /** Drops every expired entry (a clock set back could leave some behind the front). */
    const dropExpired = (now: number) => {
      for (const [key, entry] of entries) {
        if (entry.expiresAt <= now) entries.delete(key)
      }
    }
    const live = (key: string, now: number): Entry | undefined => {
      const entry = entries.get(key)
      if (entry === undefined) return undefined
      if (entry.expiresAt > now) return entry
      entries.delete(key)
      return undefined
    }
    const withNow = <A>(f: (now: number) => A): Effect.Effect<A> =>
      Effect.map(Clock.currentTimeMillis, f)

    const put = (key: string, value: string | Uint8Array, now: number) => {
      entries.delete(key)
      entries.set(key, { value, expiresAt: now + ttl })
      dropExpiredFront(now)
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next()
        if (oldest.done === true) break
        entries.delete(oldest.value)
      }
    }
    const textOf = (value: string | Uint8Array | undefined): string | undefined =>
      value === undefined ? undefined : typeof value === "string" ? value : new TextDecoder().decode(value)

    const store = KeyValueStore.make({
      get: (key) =>
        withNow((now) => {
          const value = live(key, now)?.value
          return value === undefined ? undefined : typeof value === "string" ? value : Base64.encode(value)
        }),
      getUint8Array: (key) =>
        withNow((now) => {
          const value = live(key, now)?.value
          return value === undefined ? undefined : typeof value === "string" ? encoder.encode(value) : value
        }),
      set: (key, value) => withNow((now) => put(key, value, now)),
      remove: (key) => Effect.sync(() => void entries.delete(key)),
      clear: Effect.sync(() => entries.clear()),
      clearPrefix: (prefix) =>
        Effect.sync(() => {
          for (const key of entries.keys()) {
            if (key.startsWith(prefix)) entries.delete(key)
          }
        }),
      size: withNow((now) => {
        dropExpired(now)
        return entries.size
      }),
      keys: withNow((now) => {
        dropExpired(now)
        return Array.from(entries.keys())
      })
    })
    // One synchronous step: no other fiber runs between the comparison and the set.
    const compareAndSet = WindowStore.CompareAndSet.of({
      compareAndSet: (key, expected, value) =>
        withNow((now): WindowStore.SetResult => {
          const current = textOf(live(key, now)?.value)
          if (WindowStore.versionOf(current) !== expected) {
            return { _tag: "Changed", current }
          }
          put(key, value, now)
          return { _tag: "Set" }
        })
    })
    return Context.make(KeyValueStore.KeyValueStore, store).pipe(Context.add(WindowStore.CompareAndSet, compareAndSet))
  })

/**
 * The store as a layer of Effect's `KeyValueStore` service; fails with an
 * `InvalidConfigError` when `ttl` is not a positive duration or `maxEntries` not a positive
 * integer.
 *
 * @example
 * ```ts
 * import { MemoryStore } from "effect-cupel"
 *
 * // conversations idle for an hour are forgotten; at most 5,000 are kept
 * const store = MemoryStore.layer({ ttl: "1 hour", maxEntries: 5_000 })
 * ```
 *
 * @since 0.3.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<KeyValueStore.KeyValueStore | WindowStore.CompareAndSet, InvalidConfigError> =>
  Layer.effectContext(makeContext(options))
