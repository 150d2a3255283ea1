/**
 * WindowStore: a conversation's {@link WindowState} read from and written to a `KeyValueStore`
 * (`effect/persistence`), under the rules that keep a lost or shared store harmless (docs/ai.md,
 * rules S6–S9):
 *
 * - a read never fails: a missing key, a value that does not decode (corrupt, foreign, another
 *   format), a store error and a store that does not answer within `timeout` are each a
 *   {@link ReadResult} that means "fit afresh";
 * - a write never fails either: it answers `written`, `rebased` (another call of the
 *   conversation committed since this one read, and this call's window extends that one's: it
 *   was written on top of it), `conflict` (another call committed since, and this call's window
 *   does not extend its: the newer state stays, this one is not committed) or `store-failed`;
 * - a store that provides {@link CompareAndSet} (`MemoryStore`, `RedisStore`) writes
 *   atomically, across processes: a write lands only on the revision the call read (design
 *   92); over any other `KeyValueStore`, the read-compare-write is serialized in this
 *   `WindowStore` only (a lock per key, held only for the write, never across a model call),
 *   and across processes the last write wins;
 * - a failing store is logged once, at warning level, and once more when it answers again;
 *   each failed operation is counted (`WindowMetrics.storeFailures`).
 *
 * @since 0.3.0
 */
import { Context, Duration, Effect, type Layer, Metric, Option, Ref, type Schema, type Scope, Semaphore } from "effect"
import { KeyValueStore } from "effect/persistence"
import * as connecting from "./internal/connecting.ts"
import { stateJson } from "./internal/stateJson.ts"
import * as StateTexts from "./internal/stateTexts.ts"
import * as WindowMetrics from "./WindowMetrics.ts"
import * as WindowState from "./WindowState.ts"

/**
 * What a compare-and-set found: it `Set` the value, or the stored value had `Changed` (its
 * version was not the one expected) and is `current` (`undefined`: nothing stored).
 *
 * @since 0.3.0
 * @category models
 */
export type SetResult =
  | { readonly _tag: "Set" }
  | { readonly _tag: "Changed"; readonly current: string | undefined }

/**
 * An atomic write of a conversation's state, which a store provides beside its
 * `KeyValueStore` (`MemoryStore.layer` and `RedisStore.layer` do): `value` is stored under
 * `key` only if the stored value's version ({@link versionOf}: its revision and history digest)
 * is still `expected` (`undefined`: no value, or one with no version), in one step no other writer can come
 * between — a Lua script in Redis, one synchronous step in memory.
 *
 * @since 0.3.0
 * @category services
 */
export class CompareAndSet extends Context.Service<CompareAndSet, {
  readonly compareAndSet: (
    key: string,
    expected: string | undefined,
    value: string
  ) => Effect.Effect<SetResult, KeyValueStore.KeyValueStoreError>
}>()("effect-cupel/ai/WindowStore/CompareAndSet") {}

/**
 * The version of a stored value, what {@link CompareAndSet} compares: its JSON's top-level
 * whole-number `revision` and its `historyDigest`, as `"<revision>/<digest>"` (the digest empty
 * when there is none); `undefined` for anything else (no value, not JSON, a foreign value). The
 * digest makes the version say whose state it is: a state misdelivered from another
 * conversation (a client whose replies are out of step) has another digest, even at the same
 * revision. A Redis script reads it the same way (`cjson`).
 *
 * @since 0.3.0
 * @category versions
 */
export const versionOf = (text: string | undefined): string | undefined => {
  if (text === undefined) return undefined
  try {
    const value: unknown = JSON.parse(text)
    if (typeof value !== "object" || value === null || Array.isArray(value) || !("revision" in value)) return undefined
    const revision = value.revision
    if (typeof revision !== "number" || !Number.isSafeInteger(revision)) return undefined
    const digest = "historyDigest" in value && typeof value.historyDigest === "string" ? value.historyDigest : ""
    return `${revision}/${digest}`
  } catch {
    return undefined
  }
}

/**
 * The version of a state (see {@link versionOf}).
 *
 * @since 0.3.0
 * @category versions
 */
export const versionOfState = (state: WindowState.WindowState): string => `${state.revision}/${state.historyDigest}`

/**
 * What a write needs to move its state onto a newer one (`WindowState.rebase`): the state the
 * call read, and the digest of the call's history at a length.
 *
 * @since 0.3.0
 * @category models
 */
export interface Lineage {
  /** The version of the value the call read, as stored (that of a corrupt one too). */
  readonly stored: string | undefined
  readonly base: WindowState.WindowState | undefined
  readonly digestAt: (length: number) => string | undefined
}

/** Attempts of one write before it gives up as a `conflict` (each one after another commit). */
const maxAttempts = 4

/**
 * What a read found.
 *
 * @since 0.3.0
 * @category models
 */
export type ReadResult =
  | { readonly _tag: "Found"; readonly state: WindowState.WindowState }
  | { readonly _tag: "Missing" }
  | {
    readonly _tag: "Corrupt"
    readonly message: string
    /** The stored value's own version ({@link versionOf}), what a compare-and-set expects. */
    readonly version?: string | undefined
  }
  | { readonly _tag: "Failed"; readonly message: string }

/**
 * What a write did.
 *
 * @since 0.3.0
 * @category models
 */
export type WriteResult = "written" | "rebased" | "conflict" | "store-failed"

/**
 * @since 0.3.0
 * @category models
 */
export interface WindowStore {
  readonly read: (key: string) => Effect.Effect<ReadResult>
  /**
   * Writes `state` unless the stored state's revision is no longer `basedOn` (the revision the
   * call read; `undefined` when it found none that decoded). With a `lineage` and a store that
   * provides {@link CompareAndSet}, a state that a newer one overtook is moved onto it when its
   * window extends the newer one (`rebased`).
   */
  readonly write: (
    key: string,
    state: WindowState.WindowState,
    basedOn: number | undefined,
    lineage?: Lineage
  ) => Effect.Effect<WriteResult>
}

/**
 * Options: `timeout` — how long a store operation may take before it counts as failed
 * (default 1 second).
 *
 * @since 0.3.0
 * @category models
 */
export interface Options {
  readonly timeout?: Duration.Input | undefined
  /** The store's atomic write, when it has one (`WindowStore.build` finds it beside the store). */
  readonly compareAndSet?: CompareAndSet["Service"] | undefined
}

const describe = (error: unknown): string =>
  typeof error === "object" && error !== null && "message" in error && typeof error.message === "string"
    ? error.message
    : String(error)

/**
 * A `WindowStore` over a `KeyValueStore`.
 *
 * @since 0.3.0
 * @category constructors
 */
export const make = (store: KeyValueStore.KeyValueStore, options?: Options): Effect.Effect<WindowStore> =>
  makeWith(Effect.succeed({ store, compareAndSet: options?.compareAndSet }), options)

/**
 * A `WindowStore` over a store's layer, built in the background within `timeout` (design 91):
 * a store that cannot be reached or hangs while it connects does not hold up nor fail the
 * build — its operations fail (each call is fitted afresh, logged once, counted) until it is
 * built, tried again in the background. Only an `InvalidConfigError` of the layer (an invalid
 * option) fails the build. The store's {@link CompareAndSet}, when its layer provides one, is
 * used for writes.
 *
 * @since 0.3.0
 * @category constructors
 */
export const build = <E, R>(
  layer: Layer.Layer<KeyValueStore.KeyValueStore, E, R>,
  options?: Options
): Effect.Effect<WindowStore, E, R | Scope.Scope> =>
  Effect.gen(function*() {
    const timeout = Duration.fromInputUnsafe(options?.timeout ?? Duration.seconds(1))
    const connection = yield* connecting.connect(layer, {
      timeout: Duration.isFinite(timeout) ? Duration.toMillis(timeout) : Number.POSITIVE_INFINITY,
      what: "the state store",
      fatal: (error): error is E =>
        typeof error === "object" && error !== null && "_tag" in error && error._tag === "InvalidConfigError"
    })
    const access = Effect.map(connection.get, (context): Backend => ({
      store: Context.get(context, KeyValueStore.KeyValueStore),
      compareAndSet: Option.getOrUndefined(Context.getOption(context, CompareAndSet))
    }))
    return yield* makeWith(access, options)
  })

interface Backend {
  readonly store: KeyValueStore.KeyValueStore
  readonly compareAndSet: CompareAndSet["Service"] | undefined
}

const makeWith = (access: Effect.Effect<Backend, string>, options?: Options): Effect.Effect<WindowStore> =>
  Effect.gen(function*() {
    const timeout = Duration.fromInputUnsafe(options?.timeout ?? Duration.seconds(1))
    // The operation that failed first, while the store is failing. It answers again when that
    // operation, or a write, succeeds: a store that answers reads and fails every write (a
    // `+OK` to everything) is logged once, not at every call.
    const failing = yield* Ref.make<"read" | "write" | undefined>(undefined)
    const locks = new Map<string, { readonly lock: Semaphore.Semaphore; users: number }>()
    // Design 124: the text last read or written under a key, and its state.
    const texts = StateTexts.make()
    const decode = (key: string, text: string): Effect.Effect<WindowState.WindowState, Schema.SchemaError> => {
      const known = texts.stateOf(key, text)
      return known !== undefined
        ? Effect.succeed(known)
        : Effect.tap(WindowState.decodeJson(text), (state) => Effect.sync(() => texts.remember(key, text, state)))
    }
    // The schema's text by the fast path when it answers (design 124), by the schema otherwise.
    const encode = (key: string, state: WindowState.WindowState): Effect.Effect<string> =>
      Effect.tap(
        Effect.suspend(() => {
          const fast = stateJson(state)
          return fast === undefined ? Effect.orDie(WindowState.encodeJson(state)) : Effect.succeed(fast)
        }),
        (text) => Effect.sync(() => texts.remember(key, text, state))
      )

    /** A store operation, bounded in time, its failure as a message. */
    const bounded = <A>(operation: Effect.Effect<A, KeyValueStore.KeyValueStoreError | string>, what: "read" | "write") =>
      operation.pipe(
        Effect.timeoutOrElse({
          duration: timeout,
          orElse: () => Effect.fail(`the store did not answer a ${what} within ${Duration.format(timeout)}`)
        }),
        Effect.mapError((error) => (typeof error === "string" ? error : `the store's ${what} failed: ${describe(error)}`)),
        Effect.tapError((message) =>
          Effect.andThen(Metric.update(failuresOf(what), 1), Effect.flatMap(
            Ref.getAndUpdate(failing, (was) => was ?? what),
            (was) => was !== undefined ? Effect.void : Effect.logWarning(`effect-cupel: ${message}; windows are fitted afresh until it answers`)
          ))
        ),
        Effect.tap(() =>
          Effect.flatMap(
            Ref.modify(failing, (was) =>
              was !== undefined && (was === what || what === "write") ? [true, undefined] : [false, was]
            ),
            (was) => was ? Effect.logInfo("effect-cupel: the window store answers again") : Effect.void
          )
        )
      )

    const read = (key: string): Effect.Effect<ReadResult> =>
      bounded(Effect.flatMap(access, ({ store }) => store.get(key)), "read").pipe(
        Effect.flatMap((text): Effect.Effect<ReadResult> =>
          text === undefined
            ? Effect.succeed({ _tag: "Missing" })
            : decode(key, text).pipe(
              Effect.map((state): ReadResult => ({ _tag: "Found", state })),
              Effect.catch((error) =>
                Effect.succeed<ReadResult>({ _tag: "Corrupt", message: error.message, version: versionOf(text) })
              )
            )
        ),
        Effect.catch((message) => Effect.succeed<ReadResult>({ _tag: "Failed", message }))
      )

    /** Runs `effect` holding the key's lock; the lock is forgotten when nobody holds or awaits it. */
    const withLock = <A>(key: string, effect: Effect.Effect<A>): Effect.Effect<A> =>
      Effect.suspend(() => {
        let entry = locks.get(key)
        if (entry === undefined) {
          entry = { lock: Semaphore.makeUnsafe(1), users: 0 }
          locks.set(key, entry)
        }
        const held = entry
        held.users++
        return held.lock.withPermits(1)(effect).pipe(
          Effect.ensuring(Effect.sync(() => {
            held.users--
            if (held.users === 0) locks.delete(key)
          }))
        )
      })

    const legacyWrite = (key: string, state: WindowState.WindowState, basedOn: number | undefined) =>
      Effect.gen(function*() {
        const current = yield* read(key)
        if (current._tag === "Failed") return "store-failed" as const
        const revision = current._tag === "Found" ? current.state.revision : undefined
        if (revision !== basedOn) return "conflict" as const
        const text = yield* encode(key, state)
        return yield* bounded(Effect.flatMap(access, ({ store }) => store.set(key, text)), "write").pipe(
          Effect.as("written" as const),
          Effect.catch(() => Effect.succeed("store-failed" as const))
        )
      })

    /**
     * Compare-and-set on the revision read; on a newer commit, the state moved onto it when
     * its window extends the newer one, and tried again (a few times: each retry follows
     * another commit of the conversation).
     */
    const casWrite = (
      cas: CompareAndSet["Service"],
      key: string,
      state: WindowState.WindowState,
      basedOn: number | undefined,
      lineage: Lineage | undefined
    ) =>
      Effect.gen(function*() {
        // A late call of an older history (a concurrent call sent before the one that wrote
        // the state it read) does not replace the newer state: the longer history wins.
        const base = lineage?.base
        if (base !== undefined && base.fingerprint === state.fingerprint && base.historyLength > state.historyLength) {
          return "conflict" as const
        }
        let next = state
        // Without a lineage (a calibration of the call's own state), the state read is the one
        // being rewritten: its history is this state's.
        let expected = lineage === undefined
          ? basedOn === undefined ? undefined : `${basedOn}/${state.historyDigest}`
          : lineage.stored
        for (let attempt = 0; attempt < maxAttempts; attempt++) {
          const text = yield* encode(key, next)
          const outcome = yield* bounded(cas.compareAndSet(key, expected, text), "write").pipe(
            Effect.catch(() => Effect.succeed(undefined))
          )
          if (outcome === undefined) return "store-failed" as const
          if (outcome._tag === "Set") return attempt === 0 ? "written" as const : "rebased" as const
          if (lineage === undefined) return "conflict" as const
          if (outcome.current === undefined) {
            // The newer state is gone (expired, removed): nothing to lose by writing this one.
            expected = undefined
            continue
          }
          const newer = yield* decode(key, outcome.current).pipe(Effect.option)
          if (newer._tag === "None") return "conflict" as const
          const moved = WindowState.rebase({ newer: newer.value, mine: state, base: lineage.base, digestAt: lineage.digestAt })
          if (moved === undefined) return "conflict" as const
          next = moved
          expected = versionOfState(newer.value)
        }
        return "conflict" as const
      })

    const write = (key: string, state: WindowState.WindowState, basedOn: number | undefined, lineage?: Lineage) =>
      withLock(
        key,
        Effect.flatMap(Effect.option(access), (backend) =>
          backend._tag === "None"
            // Down since the call read: the write's own read fails the same way, at once.
            ? legacyWrite(key, state, basedOn)
            : backend.value.compareAndSet === undefined
            ? legacyWrite(key, state, basedOn)
            : casWrite(backend.value.compareAndSet, key, state, basedOn, lineage))
      )

    return { read, write }
  })

const failures = {
  read: Metric.withAttributes(WindowMetrics.storeFailures, { "cupel.window.store.operation": "read" }),
  write: Metric.withAttributes(WindowMetrics.storeFailures, { "cupel.window.store.operation": "write" })
}
const failuresOf = (what: "read" | "write") => failures[what]
