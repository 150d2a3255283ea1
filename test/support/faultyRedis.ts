/**
 * Servers that look like a Redis and are not, and a proxy in front of a real one, each started
 * by a test on 127.0.0.1 (a port the OS picks) and closed with its scope:
 *
 * - `silent`: accepts the connection and never answers (a hung server, a dead network path);
 * - `garbage`: answers every chunk with bytes that are no RESP;
 * - `ok`: answers `+OK` to every command (a mock, a wrong service on the port);
 * - `nothing`: a port where nothing listens (the connection is refused).
 *
 * {@link tcpProxy} forwards to a real server and can, while it runs, add a delay to every chunk,
 * cut every connection (and refuse new ones), or answer garbage instead of forwarding.
 *
 * Nothing here connects anywhere but 127.0.0.1.
 */
import { Effect, type Scope } from "effect"
import * as net from "node:net"

const HOST = "127.0.0.1"

export type FakeKind = "silent" | "garbage" | "ok" | "nothing"

export interface Listening {
  readonly port: number
  readonly url: string
}

const listen = (server: net.Server): Effect.Effect<number, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<number>((resume) => {
      server.listen(0, HOST, () => {
        const address = server.address()
        resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0))
      })
    }),
    () =>
      Effect.callback<void>((resume) => {
        server.close(() => resume(Effect.void))
      })
  )

/** Tracks a server's sockets, destroyed when it closes (a `close` waits for them otherwise). */
const tracked = (server: net.Server): Set<net.Socket> => {
  const sockets = new Set<net.Socket>()
  server.on("connection", (socket) => {
    sockets.add(socket)
    socket.on("error", () => {})
    socket.once("close", () => sockets.delete(socket))
  })
  const close = server.close.bind(server)
  server.close = (callback) => {
    for (const socket of sockets) socket.destroy()
    return close(callback)
  }
  return sockets
}

/** A fake server of `kind` for the scope. */
export const fakeRedis = (kind: FakeKind): Effect.Effect<Listening, never, Scope.Scope> =>
  Effect.gen(function*() {
    const server = net.createServer((socket) => {
      if (kind === "garbage") socket.on("data", () => socket.write("\u0000\u00ffnot RESP at all\r\n$-7\r\n"))
      if (kind === "ok") {
        socket.on("data", (chunk) => {
          // One +OK per command of the chunk (a command of RESP starts with `*n\r\n`).
          const commands = chunk.toString("latin1").match(/\*\d+\r\n\$/g)?.length ?? 1
          socket.write("+OK\r\n".repeat(commands))
        })
      }
    })
    tracked(server)
    const port = yield* listen(server)
    if (kind === "nothing") {
      // The port was free a moment ago; nothing listens on it once it is closed again.
      yield* Effect.callback<void>((resume) => {
        server.close(() => resume(Effect.void))
      })
    }
    return { port, url: `redis://${HOST}:${port}` }
  })

export type ProxyMode = "pass" | "delay" | "cut" | "garbage"

export interface TcpProxy extends Listening {
  /** What the proxy does from now on; `cut` also drops every open connection. */
  readonly set: (mode: ProxyMode, delayMillis?: number) => Effect.Effect<void>
  readonly connections: () => number
}

/** A proxy on loopback in front of `target` (a port on 127.0.0.1), for the scope. */
export const tcpProxy = (target: number): Effect.Effect<TcpProxy, never, Scope.Scope> =>
  Effect.gen(function*() {
    let mode: ProxyMode = "pass"
    let delay = 0
    const pairs = new Set<{ readonly client: net.Socket; readonly upstream: net.Socket }>()
    const server = net.createServer((client) => {
      client.on("error", () => {})
      if (mode === "cut") {
        client.destroy()
        return
      }
      const upstream = net.connect({ host: HOST, port: target })
      upstream.on("error", () => client.destroy())
      client.on("error", () => upstream.destroy())
      const pair = { client, upstream }
      pairs.add(pair)
      const drop = () => {
        pairs.delete(pair)
        client.destroy()
        upstream.destroy()
      }
      client.once("close", drop)
      upstream.once("close", drop)
      const forward = (to: net.Socket, chunk: Buffer, reply: boolean) => {
        if (mode === "garbage" && reply) {
          to.write("\u0000\u00ffgarbage\r\n")
          return
        }
        if (mode === "delay" && delay > 0) setTimeout(() => to.destroyed || to.write(chunk), delay)
        else to.write(chunk)
      }
      client.on("data", (chunk: Buffer) => forward(upstream, chunk, false))
      upstream.on("data", (chunk: Buffer) => forward(client, chunk, true))
    })
    tracked(server)
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        for (const { client, upstream } of pairs) {
          client.destroy()
          upstream.destroy()
        }
      })
    )
    const port = yield* listen(server)
    return {
      port,
      url: `redis://${HOST}:${port}`,
      connections: () => pairs.size,
      set: (next, delayMillis = 0) =>
        Effect.sync(() => {
          mode = next
          delay = delayMillis
          if (next === "cut") {
            for (const { client, upstream } of pairs) {
              client.destroy()
              upstream.destroy()
            }
          }
        })
    }
  })
