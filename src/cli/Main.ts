/**
 * Main: the `cupel` command and its subcommands, ready to run.
 *
 * @since 0.1.0
 */
import { Effect, Stdio } from "effect"
import { type CliError, CliOutput, Command } from "effect/cli"
import * as BudgetCommand from "./BudgetCommand.ts"
import * as CliFailure from "./CliFailure.ts"
import * as ConformanceCommand from "./ConformanceCommand.ts"
import * as Demo from "./Demo.ts"
import * as ExplainCommand from "./ExplainCommand.ts"
import * as PlaceCommand from "./PlaceCommand.ts"
import * as PresetsCommand from "./PresetsCommand.ts"
import * as RunCommand from "./RunCommand.ts"
import * as TerminalText from "./TerminalText.ts"
import * as Usage from "./Usage.ts"
import * as ViewCommand from "./ViewCommand.ts"

/**
 * The version `cupel --version` prints (the package's version).
 *
 * @since 0.1.0
 * @category constants
 */
export const version = "0.2.0"

/**
 * The `cupel` command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("cupel").pipe(
  Command.withDescription(
    "effect-cupel: the context window an LLM sees, built by the Cupel specification's pipeline. " +
      "Exit codes: 0 success, 1 overflow (or pinned items over budget) or failed vectors, 2 bad input or usage, " +
      "3 a bug in cupel."
  ),
  Command.withSubcommands([
    Demo.command,
    RunCommand.command,
    ExplainCommand.command,
    PlaceCommand.command,
    BudgetCommand.command,
    ViewCommand.command,
    PresetsCommand.command,
    ConformanceCommand.command
  ])
)

// The presenter (Usage) has already written the error, or the help; a usage error exits 2, as
// is customary. Help asked for (or shown for a bare `cupel`) is a success.
const onShowHelp = (help: CliError.ShowHelp) => help.errors.length > 0 ? Effect.fail(CliFailure.usage()) : Effect.void

// Usage errors as one line on stderr, never the help on stdout (see Usage).
const usageOutput = CliOutput.layerPresenter(Usage.presenter)

/**
 * The message of `cupel --wizard` away from a terminal.
 *
 * @since 0.3.0
 * @category constants
 */
export const wizardNeedsTerminal =
  "cupel --wizard: the wizard asks its questions on a terminal, and standard input and output are not both one " +
  "(a pipe or a file); run the command with its flags instead (cupel --help lists them)"

// `--wizard` (Effect's built-in global flag) draws prompts with cursor escapes and reads keys:
// into a pipe it would write escape codes and exit 0 with nothing done. Refused there, as a
// usage error (docs/cli.md, "The wizard"); flags after `--` are arguments, not the flag.
const guardWizard = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const end = args.indexOf("--")
    if (!(end === -1 ? args : args.slice(0, end)).includes("--wizard")) return
    const stdio = yield* Stdio.Stdio
    if ((yield* stdio.stdinIsTerminal) && (yield* stdio.stdoutIsTerminal)) return
    yield* TerminalText.printError(wizardNeedsTerminal)
    return yield* CliFailure.usage()
  })

/**
 * Runs `cupel` with explicit arguments (without the program name), as tests do.
 *
 * @since 0.1.0
 * @category running
 */
export const runWith = (args: ReadonlyArray<string>) =>
  guardWizard(args).pipe(
    Effect.andThen(Command.runWith(command, { version })(args)),
    Effect.catchTag("ShowHelp", onShowHelp),
    Effect.provide(usageOutput)
  )

/**
 * Runs `cupel` with the process's arguments.
 *
 * @since 0.1.0
 * @category running
 */
export const run = Effect.gen(function*() {
  const stdio = yield* Stdio.Stdio
  yield* guardWizard(yield* stdio.args)
  return yield* Command.run(command, { version })
}).pipe(
  Effect.catchTag("ShowHelp", onShowHelp),
  Effect.provide(usageOutput)
)
