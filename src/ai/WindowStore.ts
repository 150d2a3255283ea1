/**
 * WindowStore: a conversation's {@link WindowState} read from and written to a `KeyValueStore`
 * (`effect/persistence`), under the rules that keep a lost or shared store harmless (docs/ai.md,
 * rules S6–S9):
 *
 * - a read never fails: a missing key, a value that does not decode (corrupt, foreign, another
 *   format), a store error and a store that does not answer within `timeout` are each a
 *   {@link ReadResult} that means "fit afresh";
 * - a write never fails either: it answers `written`, `conflict` (another call of the
 *   conversation wrote since this one read: the first to commit wins) or `store-failed`;
 * - in one `WindowStore`, the read-compare-write of a key is serialized (a lock per key, held
 *   only for the write, never across a model call);
 * - a failing store is logged once, at warning level, and once more when it answers again.
 *
 * @since 0.3.0
 */
import { Duration, Effect, Ref, Semaphore } from "effect"
import type { KeyValueStore } from "effect/persistence"
import * as WindowState from "./WindowState.ts"

/**
 * What a read found.
 *
 * @since 0.3.0
 * @category models
 */
export type ReadResult =
  | { readonly _tag: "Found"; readonly state: WindowState.WindowState }
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Corrupt"; readonly message: string }
  | { readonly _tag: "Failed"; readonly message: string }

/**
 * What a write did.
 *
 * @since 0.3.0
 * @category models
 */
export type WriteResult = "written" | "conflict" | "store-failed"

/**
 * @since 0.3.0
 * @category models
 */
export interface WindowStore {
  readonly read: (key: string) => Effect.Effect<ReadResult>
  /**
   * Writes `state` unless the stored state's revision is no longer `basedOn` (the revision the
   * call read; `undefined` when it found none that decoded).
   */
  readonly write: (key: string, state: WindowState.WindowState, basedOn: number | undefined) => Effect.Effect<WriteResult>
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
  Effect.gen(function*() {
    const timeout = Duration.fromInputUnsafe(options?.timeout ?? Duration.seconds(1))
    const failing = yield* Ref.make(false)
    const locks = new Map<string, { readonly lock: Semaphore.Semaphore; users: number }>()

    /** A store operation, bounded in time, its failure as a message. */
    const bounded = <A>(operation: Effect.Effect<A, KeyValueStore.KeyValueStoreError>, what: string) =>
      operation.pipe(
        Effect.timeoutOrElse({
          duration: timeout,
          orElse: () => Effect.fail(`the store did not answer a ${what} within ${Duration.format(timeout)}`)
        }),
        Effect.mapError((error) => (typeof error === "string" ? error : `the store's ${what} failed: ${describe(error)}`)),
        Effect.tapError((message) =>
          Effect.flatMap(
            Ref.getAndSet(failing, true),
            (was) => was ? Effect.void : Effect.logWarning(`effect-cupel: ${message}; windows are fitted afresh until it answers`)
          )
        ),
        Effect.tap(() =>
          Effect.flatMap(
            Ref.getAndSet(failing, false),
            (was) => was ? Effect.logInfo("effect-cupel: the window store answers again") : Effect.void
          )
        )
      )

    const read = (key: string): Effect.Effect<ReadResult> =>
      bounded(store.get(key), "read").pipe(
        Effect.flatMap((text): Effect.Effect<ReadResult> =>
          text === undefined
            ? Effect.succeed({ _tag: "Missing" })
            : WindowState.decodeJson(text).pipe(
              Effect.map((state): ReadResult => ({ _tag: "Found", state })),
              Effect.catch((error) => Effect.succeed<ReadResult>({ _tag: "Corrupt", message: error.message }))
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

    const write = (key: string, state: WindowState.WindowState, basedOn: number | undefined) =>
      withLock(
        key,
        Effect.gen(function*() {
          const current = yield* read(key)
          if (current._tag === "Failed") return "store-failed" as const
          const revision = current._tag === "Found" ? current.state.revision : undefined
          if (revision !== basedOn) return "conflict" as const
          const text = yield* WindowState.encodeJson(state).pipe(Effect.orDie)
          return yield* bounded(store.set(key, text), "write").pipe(
            Effect.as("written" as const),
            Effect.catch(() => Effect.succeed("store-failed" as const))
          )
        })
      )

    return { read, write }
  })
