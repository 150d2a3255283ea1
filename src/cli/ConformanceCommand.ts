/**
 * `cupel conformance [PATH...]`: runs conformance vectors and reports failures.
 *
 * Without a path it runs the suites that ship with effect-cupel, found next to the package
 * (not in the working directory): the vendored Cupel suite `conformance/cupel` and this
 * project's own `place` vectors `conformance/place`.
 *
 * Prints one line per failed or skipped vector (every vector, then the counts per stage, with
 * `--verbose`) and ends with the line `N passed, M failed, K skipped`. Exits 1 when anything
 * failed or a file could not be read or parsed (a missing default suite among them), 0 otherwise.
 *
 * @since 0.1.0
 */
import { Console, Effect, Path } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as Conformance from "../Conformance.ts"
import * as CliFailure from "./CliFailure.ts"

// src/cli/ in a clone, dist/cli/ in a build: the package's root is two levels up either way.
const packageRoot = new URL("../../", import.meta.url)

/**
 * The paths `cupel conformance` runs when given none: the vendored Cupel suite and this
 * project's `place` vectors, resolved against the package's own folder, so that the command
 * works from any directory. A folder that is missing is reported as a failed path by the runner,
 * never skipped.
 *
 * @since 0.2.0
 * @category defaults
 */
export const defaultPaths: Effect.Effect<ReadonlyArray<string>, never, Path.Path> = Effect.gen(function*() {
  const path = yield* Path.Path
  // A module of this package always has a file: URL under Node; anything else is a bug.
  const root = yield* Effect.orDie(path.fromFileUrl(packageRoot))
  const cwd = path.resolve(".")
  // Shown relative to the working directory when inside it (`npm run` starts in the package), so
  // that result lines read `conformance/cupel/…`; absolute otherwise.
  const shown = (folder: string) => {
    const relative = path.relative(cwd, folder)
    return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative : folder
  }
  return [shown(path.join(root, "conformance", "cupel")), shown(path.join(root, "conformance", "place"))]
})

/**
 * Runs `conformance` with parsed arguments; no path means {@link defaultPaths}.
 *
 * @since 0.1.0
 * @category handlers
 */
export const handler = Effect.fn("cli.conformance")(function*(config: {
  readonly paths: ReadonlyArray<string>
  readonly verbose: boolean
}) {
  const paths = config.paths.length > 0 ? config.paths : yield* defaultPaths
  const report = yield* Conformance.run(paths)
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
    Argument.withDescription(
      "a vector file, or a folder searched for .toml files at any depth; none: the vendored Cupel suite " +
        "(conformance/cupel) and this project's place vectors (conformance/place)"
    ),
    Argument.variadic()
  ),
  verbose: Flag.Boolean("verbose").pipe(
    Flag.withDescription("also list the vectors that passed, and the counts per stage"),
    Flag.withDefault(false)
  )
}, handler).pipe(
  Command.withShortDescription("Run conformance vectors (TOML) of every stage and report failures"),
  Command.withDescription(
    "Run conformance vectors: Cupel's scoring, slicing, placing and pipeline vectors, and this project's " +
      "place vectors (docs/conformance.md). With no path, runs the copies that ship with effect-cupel: " +
      "the Cupel 1.3.0 suite (conformance/cupel, vendored unmodified) and conformance/place. A vector that " +
      "needs a component effect-cupel does not implement is counted as skipped, with the reason. Prints " +
      "one line per failed or skipped vector, then \"N passed, M failed, K skipped\"; exits 1 if anything " +
      "failed or could not be read or parsed."
  ),
  Command.withExamples([
    { command: "cupel conformance" },
    { command: "cupel conformance --verbose conformance/cupel/required/scoring" },
    { command: "cupel conformance --verbose conformance/place/u-shaped-seven-shuffled.toml" }
  ])
)
