/**
 * TerminalText: a user's text made safe to show on a terminal, in one line.
 *
 * Anything `cupel` echoes — a file name, a flag's value, a parser's message quoting the input,
 * an item's content in `cupel explain` — may hold control characters: a newline that breaks the
 * one line a script reads, a NUL from a binary or UTF-16 file, an ANSI escape sequence
 * (`ESC [ 3 1 m`) that recolours the terminal, moves its cursor or rewrites its title. Each is
 * written as an escape instead, as JSON would write it (`\n`, `\t`, `\u001b`), so what the
 * terminal shows is exactly the characters the text holds, and nothing acts on the terminal.
 *
 * @since 0.3.0
 */
import { Console, type Effect } from "effect"

// C0 controls, DEL and the C1 controls (U+009B is a one-character CSI, as `ESC [` is), and the
// line and paragraph separators that some terminals and editors break lines at.
const control = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g

const escapeOne = (c: string): string => {
  switch (c) {
    case "\n":
      return "\\n"
    case "\r":
      return "\\r"
    case "\t":
      return "\\t"
    default:
      return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`
  }
}

/**
 * `text` with every control character written as an escape: `\n`, `\r`, `\t`, or `\u` and four
 * hexadecimal digits (`\u0000`, `\u001b`). Text without one is returned as it is.
 *
 * @since 0.3.0
 * @category formatting
 */
export const escape = (text: string): string => text.replace(control, escapeOne)

/**
 * Writes lines to standard error, each {@link escape}d: how every error line of `cupel` is
 * written, so that no input can break a line or reach the terminal as a control sequence.
 *
 * @since 0.3.0
 * @category output
 */
export const printError = (...lines: ReadonlyArray<string>): Effect.Effect<void> =>
  Console.error(lines.map(escape).join("\n"))
