/**
 * CliFailure: how a command ends with a non-zero exit code after it has said why.
 *
 * Commands print their own messages (JSON on stderr for an overflow, field-by-field problems for
 * bad input) and then fail with a `CliFailure` carrying the exit code. The runtime reads the code
 * from it and, because the failure is marked as reported, prints nothing more.
 *
 * @since 0.1.0
 */
import { Data, Runtime } from "effect"

/**
 * The exit codes of `cupel`.
 *
 * - `0` — success (a `conformance` run with 0 failed, a placed window, the demo);
 * - `1` — the work was done and the answer is "no": an overflow under `throw`, a failed or
 *   unreadable conformance vector;
 * - `2` — the request was wrong: malformed JSON, an input that breaks a rule, an unknown flag
 *   or value, a file that cannot be read.
 *
 * @since 0.1.0
 * @category constants
 */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2
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
