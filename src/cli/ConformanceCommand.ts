/**
 * `cupel conformance PATH...`: runs conformance vectors and reports failures.
 *
 * Prints one line per failed or skipped vector (every vector, then the counts per stage, with
 * `--verbose`) and ends with the line `N passed, M failed, K skipped`. Exits 1 when anything
 * failed or a file could not be read or parsed, 0 otherwise.
 *
 * @since 0.1.0
 */
import { Console, Effect } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as Conformance from "../Conformance.ts"
import * as CliFailure from "./CliFailure.ts"

/**
 * Runs `conformance` with parsed arguments.
 *
 * @since 0.1.0
 * @category handlers
 */
export const handler = Effect.fn("cli.conformance")(function*(config: {
  readonly paths: ReadonlyArray<string>
  readonly verbose: boolean
}) {
  const report = yield* Conformance.run(config.paths)
  yield* Console.log(Conformance.formatReport(report, { verbose: config.verbose }).join("\n"))
  if (report.failed > 0) return yield* CliFailure.failure()
}, CliFailure.catchDefects("conformance"))

/**
 * The `conformance` command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("conformance", {
  paths: Argument.String("path").pipe(
    Argument.withDescription("a vector file, or a folder searched for .toml files at any depth"),
    Argument.atLeast(1)
  ),
  verbose: Flag.Boolean("verbose").pipe(
    Flag.withDescription("also list the vectors that passed, and the counts per stage"),
    Flag.withDefault(false)
  )
}, handler).pipe(
  Command.withShortDescription("Run conformance vectors (TOML) of every stage and report failures"),
  Command.withDescription(
    "Run conformance vectors: Cupel's scoring, slicing, placing and pipeline vectors, and this project's " +
      "place vectors (docs/conformance.md). Vectors of components not implemented yet (the quota slicers) " +
      "are counted as skipped, with the reason. Prints one line per failed or skipped vector, then " +
      "\"N passed, M failed, K skipped\"; exits 1 if anything failed or could not be parsed."
  ),
  Command.withExamples([
    { command: "cupel conformance ../shared/conformance test/vectors" },
    { command: "cupel conformance --verbose ../shared/conformance/cupel/required/scoring" },
    { command: "cupel conformance --verbose test/vectors/place/u-shaped-five.toml" }
  ])
)
