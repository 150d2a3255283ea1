/**
 * Runs the `cupel` command in process, as a user's shell would see it: standard input given,
 * output captured by a fresh test console, the exit code as the runtime would compute it.
 */
import { Cause, Console, Effect, Exit, FileSystem, Path, Runtime, Sink, Stdio, Stream } from "effect"
import { TestConsole } from "effect/testing"
import * as Main from "../../src/cli/Main.ts"

export interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/**
 * Standard input's text, or that (as text or as raw bytes) and whether standard output and
 * standard input are terminals (default: neither).
 */
export type Input = string | {
  readonly stdin?: string | Uint8Array
  readonly terminal?: boolean
  readonly stdinTerminal?: boolean
}

/** Runs any part of the CLI as `cli` runs the whole: output captured, exit code computed. */
export const capture = <A, E, R>(program: Effect.Effect<A, E, R>, input: Input = "") =>
  Effect.gen(function*() {
    const stdin = typeof input === "string" ? input : input.stdin ?? ""
    const terminal = typeof input === "string" ? false : input.terminal ?? false
    const stdinTerminal = typeof input === "string" ? false : input.stdinTerminal ?? false
    // A console of its own per run: a shared test console would mix the output of several runs.
    const console = yield* TestConsole.make
    // What is written to standard output's stream rather than logged (`--compact`).
    const streamed: Array<string> = []
    const decoder = new TextDecoder()
    const stdoutStream = Sink.forEach((chunk: string | Uint8Array) =>
      Effect.sync(() => streamed.push(typeof chunk === "string" ? chunk : decoder.decode(chunk)))
    )
    const exit = yield* Effect.exit(program).pipe(
      Effect.provideService(Console.Console, console),
      Effect.provide(Stdio.layerTest({
        stdin: Stream.make(typeof stdin === "string" ? new TextEncoder().encode(stdin) : stdin),
        stdout: () => stdoutStream,
        stdoutIsTerminal: Effect.succeed(terminal),
        stdinIsTerminal: Effect.succeed(stdinTerminal)
      }))
    )
    // The logged lines, then the streamed text, its last newline dropped as the lines' are.
    const logged = (yield* console.logLines).join("\n")
    const text = streamed.join("").replace(/\n$/, "")
    const stdout = logged === "" ? text : text === "" ? logged : `${logged}\n${text}`
    const stderr = (yield* console.errorLines).join("\n")
    const code = Exit.isSuccess(exit) ? 0 : Runtime.getErrorExitCode(Cause.squash(exit.cause))
    return { code, stdout, stderr } satisfies Run
  })

/** Runs `cupel args…` with real files and paths. */
export const cli = (args: ReadonlyArray<string>, input: Input = "") => capture(Main.runWith(args), input)

/** Writes `text` to a file `name` in a fresh temporary folder, removed with the test's scope. */
export const writeTemp = (name: string, text: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const dir = yield* fs.makeTempDirectoryScoped({ prefix: "cupel-cli-" })
    const file = path.join(dir, name)
    yield* fs.writeFileString(file, text)
    return file
  })
