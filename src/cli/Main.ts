/**
 * Main: the `cupel` command and its subcommands, ready to run.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { type CliError, CliOutput, Command } from "effect/cli"
import * as BudgetCommand from "./BudgetCommand.ts"
import * as CliFailure from "./CliFailure.ts"
import * as ConformanceCommand from "./ConformanceCommand.ts"
import * as Demo from "./Demo.ts"
import * as ExplainCommand from "./ExplainCommand.ts"
import * as PlaceCommand from "./PlaceCommand.ts"
import * as PresetsCommand from "./PresetsCommand.ts"
import * as RunCommand from "./RunCommand.ts"
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
 * Runs `cupel` with explicit arguments (without the program name), as tests do.
 *
 * @since 0.1.0
 * @category running
 */
export const runWith = (args: ReadonlyArray<string>) =>
  Command.runWith(command, { version })(args).pipe(Effect.catchTag("ShowHelp", onShowHelp), Effect.provide(usageOutput))

/**
 * Runs `cupel` with the process's arguments.
 *
 * @since 0.1.0
 * @category running
 */
export const run = Command.run(command, { version }).pipe(
  Effect.catchTag("ShowHelp", onShowHelp),
  Effect.provide(usageOutput)
)
