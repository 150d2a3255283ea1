/**
 * CliFailure: how a command ends with a non-zero exit code after it has said why.
 *
 * Commands print their own messages (JSON on stderr for an overflow, field-by-field problems for
 * bad input) and then fail with a `CliFailure` carrying the exit code. The runtime reads the code
 * from it and, because the failure is marked as reported, prints nothing more.
 *
 * @since 0.1.0
 */
import { Data, Effect, Runtime } from "effect"
import * as TerminalText from "./TerminalText.ts"

/**
 * The exit codes of `cupel`.
 *
 * - `0` — success (a `conformance` run with 0 failed, a placed window, the demo);
 * - `1` — the work was done and the answer is "no": an overflow under `throw`, a failed or
 *   unreadable conformance vector;
 * - `2` — the request was wrong: malformed JSON, an input that breaks a rule (tokens that add
 *   up past `Number.MAX_SAFE_INTEGER` among them), an unknown flag or value, a file that cannot
 *   be read;
 * - `3` — an internal error: a bug in cupel (a defect, or a built-in placer breaking its
 *   contract), reported in one line on stderr. Kept apart from `1` so that a script acting on
 *   an overflow never mistakes a bug for one.
 *
 * @since 0.1.0
 * @category constants
 */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  internal: 3
} as const

/**
 * A command's failure, already reported to the user.
 *
 * @since 0.1.0
 * @category errors
 */
export class CliFailure extends Data.TaggedError("CliFailure")<{ readonly exitCode: number }> {
  // The command has printed the reason; the runtime must not log the failure again.
  override readonly [Runtime.errorReported] = false

  override get [Runtime.errorExitCode](): number {
    return this.exitCode
  }
}

/**
 * Bad input or usage: exit code 2.
 *
 * @since 0.1.0
 * @category constructors
 */
export const usage = (): CliFailure => new CliFailure({ exitCode: ExitCode.usage })

/**
 * A negative answer: exit code 1.
 *
 * @since 0.1.0
 * @category constructors
 */
export const failure = (): CliFailure => new CliFailure({ exitCode: ExitCode.failure })

/**
 * A bug in cupel: exit code 3.
 *
 * @since 0.2.0
 * @category constructors
 */
export const internal = (): CliFailure => new CliFailure({ exitCode: ExitCode.internal })

/**
 * The one line that reports a defect: its message (or the value itself), on one line. A
 * thrown value's own `toString` may throw too, hence the guard.
 *
 * @since 0.2.0
 * @category reporting
 */
export const describeDefect = (defect: unknown): string => {
  let text: string
  try {
    text = defect instanceof Error ? `${defect.name}: ${defect.message}` : String(defect)
  } catch {
    text = "a value that cannot be shown"
  }
  return text.replace(/\s*\n\s*/g, " ")
}

/**
 * Reports a defect of `command` — a bug, never the user's doing — as one line on stderr, and
 * fails with exit code 3. Without it the runtime would log the defect with its stack trace on
 * standard output, where a caller expects only results.
 *
 * @since 0.2.0
 * @category reporting
 */
export const catchDefects = (command: string) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.catchDefect(self, (defect) =>
    TerminalText.printError(
      `cupel ${command}: internal error (a bug in cupel, please report it): ${describeDefect(defect)}`
    ).pipe(
      Effect.andThen(Effect.fail(internal()))
    ))
