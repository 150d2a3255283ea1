/**
 * A store's layer built in the background, with a bound: the layer of a store that cannot be
 * reached, or hangs (node-redis's `connect` waits for ever on a server that accepts the
 * connection and says nothing, and its `close` then waits too), never holds up the build of
 * the layer that uses it, and never fails it for a reason of the network.
 *
 * The first build is awaited up to `timeout`; past it, or after a failure, the store is
 * *down*: {@link Connection.get} fails at once with a message naming what failed, and the
 * build is tried again in the background (backoff 100 ms doubling to 2 s) — but never while
 * an earlier attempt is still pending: a hung attempt may still complete (a paused server
 * that resumes), and each new one would leave another connection behind.
 *
 * A failure the caller calls `fatal` (an invalid option: retrying cannot help) fails the
 * build, as a layer would.
 *
 * @internal
 */
import { Clock, type Context, Deferred, Duration, Effect, Exit, Fiber, Layer, Scope } from "effect"
import { describeThrown } from "../../internal/describeThrown.ts"

export interface Connection<A> {
  /** The built services, or a message saying why there are none (yet). */
  readonly get: Effect.Effect<Context.Context<A>, string>
  /**
   * What became of an operation over the built services. A connection whose operations all
   * fail — at least {@link wedgedAfter} in a row, over at least twice the timeout — is built
   * again: a client can stay wedged (its replies out of step after garbage on the wire, or
   * offline for good), and the application's own client would not notice.
   */
  readonly outcome: (ok: boolean, why?: string) => Effect.Effect<void>
}

/** Failures in a row after which a built connection counts as wedged. */
export const wedgedAfter = 3

/** What a failure says: its message, or its cause's when the message is empty (a `RedisError`). */
export const describeFailure = (error: unknown): string => {
  if (typeof error === "object" && error !== null) {
    const message = "message" in error && typeof error.message === "string" ? error.message : ""
    if (message !== "") return message
    if ("cause" in error && error.cause !== undefined) return describeThrown(error.cause)
  }
  return describeThrown(error)
}

const maxBackoffMillis = 2_000

export const connect = <A, E, R, F extends E = E>(
  layer: Layer.Layer<A, E, R>,
  options: {
    /** Milliseconds (`Infinity`: wait for the first build as long as it takes). */
    readonly timeout: number
    /** What is built, for messages: "the state store", "Redis at 127.0.0.1:6379". */
    readonly what: string
    readonly fatal: (error: E) => error is F
  }
): Effect.Effect<Connection<A>, F, R | Scope.Scope> =>
  Effect.gen(function*() {
    const outer = yield* Effect.scope
    const services = yield* Effect.context<R>()
    let state: { readonly _tag: "Up"; readonly context: Context.Context<A>; readonly scope: Scope.Closeable } | {
      readonly _tag: "Down"
      message: string
    } = { _tag: "Down", message: `${options.what}: connecting` }
    let failures = 0
    let firstFailureAt = 0
    const first = yield* Deferred.make<void, F>()
    const timeoutText = options.timeout === Number.POSITIVE_INFINITY
      ? "ever"
      : Duration.format(Duration.millis(options.timeout))

    /** Closes a build's scope without waiting for it: a client's close can hang. */
    const release = (scope: Scope.Closeable, exit: Exit.Exit<unknown, unknown>) =>
      Effect.asVoid(Effect.forkDetach(Scope.close(scope, exit)))

    let closed = false
    yield* Scope.addFinalizer(outer, Effect.sync(() => (closed = true)))

    /**
     * One build, in a fiber of its own: a layer's build is not interruptible while it acquires
     * (a client's `connect`), so the attempt is awaited, never interrupted — a hung one is
     * left to finish or fail on its own, and the end of the outer scope does not wait for it.
     */
    const build = (abandoned: { value: boolean }) => Effect.gen(function*() {
      const scope = yield* Scope.make()
      const exit = yield* Effect.exit(Layer.buildWithScope(layer, scope).pipe(Effect.provideContext(services)))
      if (Exit.isFailure(exit) || closed || abandoned.value) yield* release(scope, exit)
      else {
        // At the end, the client is closed; a close that hangs (a silent server) is waited
        // for no longer than the timeout.
        yield* Scope.addFinalizer(
          outer,
          Effect.flatMap(
            Effect.forkDetach(Scope.close(scope, Exit.void)),
            (closing) =>
              options.timeout === Number.POSITIVE_INFINITY
                ? Effect.asVoid(Fiber.await(closing))
                : Effect.interruptible(Fiber.await(closing)).pipe(
                  Effect.timeoutOption(Duration.millis(options.timeout)),
                  Effect.asVoid
                )
          )
        )
      }
      return Exit.map(exit, (context) => ({ context, scope }))
    })
    /**
     * An attempt still pending after `abandonAfter` (a client waiting for a handshake that never
     * comes: garbage on the wire, a silent server) is abandoned — left to end on its own, and
     * closed if it ever succeeds — and the next one is tried; each abandon doubles the wait
     * before the next (up to a minute), so that a server that stays silent costs a connection
     * a minute at most.
     */
    let abandonAfter = Math.max(4 * options.timeout, 2_000)
    const attempt = Effect.gen(function*() {
      const abandoned = { value: false }
      const fiber = yield* Effect.forkDetach(build(abandoned))
      if (!Number.isFinite(abandonAfter)) return yield* Effect.flatten(Fiber.await(fiber))
      const done = yield* Fiber.await(fiber).pipe(Effect.timeoutOption(Duration.millis(abandonAfter)))
      if (done._tag === "Some") return yield* done.value
      abandoned.value = true
      return undefined
    })

    const loop = (initial: boolean) => Effect.gen(function*() {
      let delay = 100
      let tries = 0
      while (true) {
        tries++
        const exit = yield* attempt
        if (exit === undefined) {
          state = { _tag: "Down", message: `${options.what}: did not connect within ${Duration.format(Duration.millis(abandonAfter))}` }
          abandonAfter = Math.min(abandonAfter * 2, 60_000)
          yield* Deferred.succeed(first, undefined)
          continue
        }
        if (Exit.isSuccess(exit)) {
          failures = 0
          state = { _tag: "Up", context: exit.value.context, scope: exit.value.scope }
          yield* Deferred.succeed(first, undefined)
          return
        }
        const error = exit.cause.reasons.find((r) => r._tag === "Fail")
        if (initial && tries === 1 && error !== undefined && error._tag === "Fail") {
          const failure = error.error
          if (options.fatal(failure)) {
            yield* Deferred.fail(first, failure)
            return
          }
        }
        state = {
          _tag: "Down",
          message: `${options.what}: could not connect: ${
            error !== undefined && error._tag === "Fail" ? describeFailure(error.error) : "the build died"
          }`
        }
        yield* Deferred.succeed(first, undefined)
        yield* Effect.sleep(Duration.millis(delay))
        delay = Math.min(delay * 2, maxBackoffMillis)
      }
    })
    // Interrupted with the outer scope; an attempt in flight is abandoned, not awaited.
    yield* Effect.forkIn(Effect.interruptible(loop(true)), outer, { startImmediately: true })

    const settled = options.timeout === Number.POSITIVE_INFINITY
      ? yield* Effect.asSome(Deferred.await(first))
      : yield* Deferred.await(first).pipe(Effect.timeoutOption(Duration.millis(options.timeout)))
    if (settled._tag === "None") {
      state = { _tag: "Down", message: `${options.what}: did not connect within ${timeoutText}` }
    }
    const outcome = (ok: boolean, why?: string): Effect.Effect<void> =>
      Effect.gen(function*() {
        if (state._tag !== "Up") return
        if (ok) {
          failures = 0
          return
        }
        const now = yield* Clock.currentTimeMillis
        if (failures === 0) firstFailureAt = now
        failures++
        const span = options.timeout === Number.POSITIVE_INFINITY ? 0 : 2 * options.timeout
        if (failures < wedgedAfter || now - firstFailureAt < span || closed) return
        const wedged = state.scope
        state = { _tag: "Down", message: `${options.what}: connecting again after ${failures} failures in a row (${why ?? "no answer"})` }
        failures = 0
        yield* release(wedged, Exit.void)
        yield* Effect.forkIn(Effect.interruptible(loop(false)), outer, { startImmediately: true })
      })
    return {
      get: Effect.suspend(() => state._tag === "Up" ? Effect.succeed(state.context) : Effect.fail(state.message)),
      outcome
    }
  })
