/**
 * Usage: how `cupel` reports a usage error (an unknown flag or subcommand, a bad value, a
 * missing value or argument).
 *
 * effect/cli's default presenter prints the whole help text on standard output and the errors
 * below it on standard error: `cupel place --placer x | jq` would feed the help to `jq`. This
 * presenter keeps standard output for results: a usage error is one line on standard error,
 * `cupel place: Invalid value for flag --placer: "x". …`, then the hint
 * `see: cupel place --help`. Help that was asked for (`--help`, a bare `cupel`) and `--version`
 * are unchanged: standard output, exit code 0. The exit code 2 is set by `Main`.
 *
 * @since 0.2.0
 */
import { Console, Effect } from "effect"
import { type CliError, CliOutput } from "effect/cli"
import * as TerminalText from "./TerminalText.ts"

// A user's text is echoed in the message; a newline or other control character in it must not
// break the one line (nor move the terminal's cursor).
const escapeControl = TerminalText.escape

// Messages of several lines (a schema's issues) become one; what is left is escaped.
const oneLine = (text: string): string => escapeControl(text.trim().replace(/\s*\n\s*/g, " "))

const didYouMean = (suggestions: ReadonlyArray<string>): string =>
  suggestions.length === 0 ? "" : ` (did you mean ${suggestions.map(escapeControl).join(", ")}?)`

/**
 * One usage error on one line. The errors that carry a user's text or suggestions are rebuilt
 * from their fields, in effect/cli's wording (the text escaped, the suggestions inline, the
 * command left out as the line's prefix names it); other messages have their lines joined.
 *
 * @since 0.2.0
 * @category formatting
 */
export const describeError = (error: CliError.NonShowHelpErrors): string => {
  switch (error._tag) {
    case "UnrecognizedOption":
      return `Unrecognized flag: ${escapeControl(error.option)}${didYouMean(error.suggestions)}`
    case "UnknownSubcommand":
      return `Unknown subcommand "${escapeControl(error.subcommand)}"${didYouMean(error.suggestions)}`
    case "InvalidValue": {
      const expected = oneLine(error.expected)
      const expectation = expected.startsWith("Expected") ? expected : `Expected: ${expected}`
      const option = escapeControl(error.option)
      if (error.kind === "argument") {
        return `Invalid value for argument <${option}>: "${escapeControl(error.value)}". ${expectation}`
      }
      return error.value.length === 0
        ? `Missing value for flag --${option}. ${expectation}`
        : `Invalid value for flag --${option}: "${escapeControl(error.value)}". ${expectation}`
    }
    default:
      return oneLine(error.message)
  }
}

/**
 * The lines written to standard error for a usage error of the command `commandPath`
 * (e.g. `["cupel", "place"]`): the errors on one line, joined by `; `, then the hint.
 *
 * @since 0.2.0
 * @category formatting
 */
export const lines = (
  commandPath: ReadonlyArray<string>,
  errors: ReadonlyArray<CliError.NonShowHelpErrors>
): readonly [string, string] => {
  const command = commandPath.join(" ")
  return [`${command}: ${errors.map(describeError).join("; ")}`, `see: ${command} --help`]
}

/**
 * The presenter `cupel` runs with: usage errors as {@link lines} on standard error and nothing
 * on standard output; help and version as effect/cli prints them.
 *
 * @since 0.2.0
 * @category presenters
 */
export const presenter: CliOutput.Presenter = {
  present: (event) =>
    event._tag === "InvalidInvocation"
      ? Effect.forEach(lines(event.commandPath, event.errors), (line) => Console.error(line), { discard: true })
      : CliOutput.defaultPresenter.present(event)
}
