/**
 * A real `redis-server` for tests: a child process on 127.0.0.1, on a free port, with no config
 * file, no persistence (`--save "" --appendonly no`) and a temporary directory of its own, killed
 * when the scope closes.
 *
 * `stop` kills it (Redis is down: connections drop, new ones are refused); `start` starts it
 * again on the same port — empty, since nothing was saved (Redis is back, without its data);
 * `pause` / `resume` freeze and thaw the process (SIGSTOP / SIGCONT): the port stays open but
 * nothing answers, the way a hung server or a dead network path looks to a client.
 *
 * Nothing here connects anywhere but 127.0.0.1: the server binds it, `url` names it, and the
 * readiness probe dials it.
 *
 * When `redis-server` is not installed, {@link availability} says so: CI (where `CI` is set)
 * must fail, elsewhere the Redis tests may skip, loudly (see {@link describeWithRedis}).
 */
import { Data, Effect, type Scope } from "effect"
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { type Availability, describeWhenAvailable } from "./needs.ts"

const HOST = "127.0.0.1"

export class RedisServerError extends Data.TaggedError("RedisServerError")<{
  readonly message: string
}> {}

export interface RedisServer {
  readonly port: number
  /** `redis://127.0.0.1:<port>` */
  readonly url: string
  /** Kills the server and waits until it has exited. Does nothing when it is not running. */
  readonly stop: Effect.Effect<void>
  /** Starts the server again on the same port (empty) and waits until it answers PING. */
  readonly start: Effect.Effect<void, RedisServerError>
  /** `stop` then `start`: Redis is back, without its data. */
  readonly restart: Effect.Effect<void, RedisServerError>
  /** Freezes the process (SIGSTOP): connections stay open, nothing answers. */
  readonly pause: Effect.Effect<void>
  /** Thaws a paused process (SIGCONT). */
  readonly resume: Effect.Effect<void>
}

/** Whether `redis-server` can be run here, and if not, what to do about it. */
export const availability = (): Availability => {
  const probe = spawnSync("redis-server", ["--version"], { encoding: "utf8" })
  if (probe.error === undefined && probe.status === 0) return { available: true }
  return {
    available: false,
    message: "redis-server is not installed, so the tests against a real Redis cannot run. " +
      "Install it (Debian/Ubuntu: `apt-get install redis-server`; .ci/run does this in CI)."
  }
}

/**
 * `describe` for a block that needs a real Redis. Without `redis-server`: under CI, a test that
 * fails with the reason; elsewhere the block is skipped and a warning says so, loudly.
 */
export const describeWithRedis = (name: string, body: () => void): void =>
  describeWhenAvailable(name, "redis-server", availability(), body)

/** A port that was free a moment ago: the OS picks one, we let it go. */
const freePort: Effect.Effect<number, RedisServerError> = Effect.callback((resume) => {
  const server = net.createServer()
  server.unref()
  server.once("error", (cause) => resume(Effect.fail(new RedisServerError({ message: `no free port: ${cause}` }))))
  server.listen(0, HOST, () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : undefined
    server.close(() =>
      resume(
        port === undefined
          ? Effect.fail(new RedisServerError({ message: "no free port: no address" }))
          : Effect.succeed(port)
      )
    )
  })
})

/** One PING over a fresh connection: true on `+PONG`. */
const ping = (port: number): Effect.Effect<boolean> =>
  Effect.callback((resume) => {
    let reply = ""
    const socket = net.connect({ host: HOST, port })
    const done = (ok: boolean) => {
      socket.destroy()
      resume(Effect.succeed(ok))
    }
    socket.setTimeout(500, () => done(false))
    socket.once("error", () => done(false))
    socket.once("connect", () => socket.write("PING\r\n"))
    socket.on("data", (chunk) => {
      reply += chunk.toString("utf8")
      if (reply.includes("\r\n")) done(reply.startsWith("+PONG"))
    })
    return Effect.sync(() => socket.destroy())
  })

const exited = (child: ChildProcess): Effect.Effect<void> =>
  Effect.callback((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.once("exit", () => resume(Effect.void))
  })

/**
 * A worker that is torn down (a test that timed out with its scope open) runs no finalizers,
 * and may be killed outright: where util-linux's `setpriv` is there, the server is started
 * under `--pdeathsig KILL`, so the kernel kills it with its parent; an `exit` hook covers the
 * gentler endings elsewhere.
 */
const [command, ...launch]: readonly [string, ...Array<string>] =
  spawnSync("setpriv", ["--version"]).status === 0
    ? ["setpriv", "--pdeathsig", "KILL", "redis-server"]
    : ["redis-server"]

/** `durable`: an append-only file synced at every write, so a killed server comes back with its data. */
export interface ServerOptions {
  readonly durable?: boolean | undefined
}

const spawnServer = (port: number, dir: string, options: ServerOptions = {}) =>
  Effect.gen(function*() {
    let output = ""
    const child = spawn(command, [
      ...launch,
      "--port",
      String(port),
      "--bind",
      HOST,
      "--save",
      "",
      "--appendonly",
      options.durable === true ? "yes" : "no",
      ...(options.durable === true ? ["--appendfsync", "always"] : []),
      "--dir",
      dir,
      "--logfile",
      ""
    ], { stdio: ["ignore", "pipe", "pipe"] })
    const killOnExit = () => child.kill("SIGKILL")
    process.once("exit", killOnExit)
    child.once("exit", () => process.off("exit", killOnExit))
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
    const spawnFailure = yield* Effect.callback<string | undefined>((resume) => {
      child.once("spawn", () => resume(Effect.succeed(undefined)))
      child.once("error", (cause) => resume(Effect.succeed(String(cause))))
    })
    if (spawnFailure !== undefined) {
      return yield* new RedisServerError({ message: `redis-server did not start: ${spawnFailure}` })
    }
    // Ready when it answers PING; given up after 5 s or when it exits (port taken, bad flag…).
    for (let attempt = 0; attempt < 250; attempt++) {
      if (child.exitCode !== null || child.signalCode !== null) {
        return yield* new RedisServerError({
          message: `redis-server exited (${child.exitCode ?? child.signalCode}) on port ${port}:\n${output}`
        })
      }
      if (yield* ping(port)) return child
      yield* Effect.sleep("20 millis")
    }
    child.kill("SIGKILL")
    yield* exited(child)
    return yield* new RedisServerError({ message: `redis-server did not answer PING on port ${port}:\n${output}` })
  })

const kill = (child: ChildProcess): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (child.exitCode !== null || child.signalCode !== null) return Effect.void
    // SIGKILL: a crash, no goodbye to the clients; works on a paused process too.
    child.kill("SIGKILL")
    return exited(child)
  })

/**
 * Starts a `redis-server` for the scope. The port is picked free just before the start, so
 * another process may take it in between: then it tries another, three times.
 */
export const redisServer: Effect.Effect<RedisServer, RedisServerError, Scope.Scope> = Effect.suspend(() => redisServerWith({}))

/** {@link redisServer} with options: `durable` keeps its data across `stop` / `start`. */
export const redisServerWith = (options: ServerOptions): Effect.Effect<RedisServer, RedisServerError, Scope.Scope> =>
  Effect.gen(function*() {
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "effect-cupel-redis-"))),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )
  const first = yield* Effect.gen(function*() {
    const port = yield* freePort
    const child = yield* spawnServer(port, dir, options)
    return { port, child }
  }).pipe(Effect.retry({ times: 2 }))
  const port = first.port
  let child: ChildProcess | undefined = first.child
  yield* Effect.addFinalizer(() => child === undefined ? Effect.void : kill(child))

  const stop = Effect.suspend(() => {
    const current = child
    child = undefined
    return current === undefined ? Effect.void : kill(current)
  })
  const start = Effect.gen(function*() {
    if (child !== undefined) return
    child = yield* spawnServer(port, dir, options)
  })
  const signal = (name: NodeJS.Signals) =>
    Effect.sync(() => {
      child?.kill(name)
    })
  return {
    port,
    url: `redis://${HOST}:${port}`,
    stop,
    start,
    restart: Effect.andThen(stop, start),
    pause: signal("SIGSTOP"),
    resume: signal("SIGCONT")
  } satisfies RedisServer
})
