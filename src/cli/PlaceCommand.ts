/**
 * `cupel place [FILE|-]`: places the items of a JSON input and prints the result as JSON.
 *
 * - success: the result on stdout, exit 0 (also when `truncate` dropped items or `proceed` went
 *   over budget: the JSON says so);
 * - bad input (unreadable file, malformed JSON, a field that breaks a rule): a message naming each
 *   field on stderr, exit 2; an item that placement refuses, or tokens that add up past
 *   `Number.MAX_SAFE_INTEGER`: one line on stderr, exit 2;
 * - overflow under `throw`: the `OverflowError` as JSON on stderr (one line), exit 1;
 * - a bug in cupel (a defect, a built-in placer breaking its contract): one line on stderr,
 *   exit 3.
 *
 * Standard output gets the result and nothing else: every failure leaves it empty.
 *
 * @since 0.1.0
 */
import { Console, Effect, Option, Schema } from "effect"
import { Argument, Command } from "effect/cli"
import * as Conformance from "../Conformance.ts"
import { OverflowError } from "../OverflowError.ts"
import type * as Place from "../stages/Place.ts"
import * as CliFailure from "./CliFailure.ts"
import * as JsonOutput from "./JsonOutput.ts"
import * as Flags from "./Flags.ts"
import * as PlaceInput from "./PlaceInput.ts"
import * as Placement from "./Placement.ts"
import * as TerminalText from "./TerminalText.ts"

const encodeOverflow = Schema.encodeEffect(OverflowError)

// The header, then one indented line per problem, as `InputError.message` words them.
const reportInputError = (error: PlaceInput.InputError) =>
  TerminalText.printError(
    `cupel place: invalid input (${error.source}):`,
    ...error.problems.map((problem) => `  ${problem}`)
  ).pipe(Effect.andThen(Effect.fail(CliFailure.usage())))

/**
 * Reports a failed placement and fails with its exit code. Each of the library's errors has
 * one documented code and one line on stderr:
 *
 * - `OverflowError` — the error as JSON, exit 1 (the answer is "does not fit");
 * - `InvalidItemError`, `TokenTotalError` — the input passed the schema but breaks a rule of
 *   placement (a negative token count, totals past `Number.MAX_SAFE_INTEGER`), exit 2;
 * - `PlacerError`, `PlacerContractError` — the command runs only built-in placers, which never
 *   fail: a bug in cupel, exit 3.
 *
 * @since 0.2.0
 * @category reporting
 */
export const reportPlaceError = (source: string, error: Place.PlaceError): Effect.Effect<never, CliFailure.CliFailure> => {
  switch (error._tag) {
    case "OverflowError":
      return encodeOverflow(error).pipe(
        Effect.orDie,
        Effect.flatMap((encoded) => Console.error(JSON.stringify({ ...encoded, message: error.message }))),
        Effect.andThen(Effect.fail(CliFailure.failure()))
      )
    case "InvalidItemError":
    case "TokenTotalError":
      return TerminalText.printError(`cupel place: invalid input (${source}): ${error.message}`).pipe(
        Effect.andThen(Effect.fail(CliFailure.usage()))
      )
    case "PlacerError":
    case "PlacerContractError":
      return TerminalText.printError(`cupel place: internal error (a bug in cupel, please report it): ${error.message}`).pipe(
        Effect.andThen(Effect.fail(CliFailure.internal()))
      )
  }
}

/**
 * Runs `place` with parsed arguments.
 *
 * @since 0.1.0
 * @category handlers
 */
export const handler = Effect.fn("cli.place")(function*(config: {
  readonly file: Option.Option<string>
  readonly placer: Conformance.PlacerName
  readonly overflow: Conformance.OverflowStrategyName
  readonly compact: boolean
  readonly strict: boolean
}) {
  const source = Option.getOrElse(Option.filter(config.file, (f) => f !== "-"), () => "stdin")
  const input = yield* PlaceInput.read(config.file, "place", config.strict).pipe(
    Effect.catchTag("InputError", reportInputError)
  )
  const placement = yield* Placement.run(input, config.placer, Conformance.overflowStrategy(config.overflow)).pipe(
    Effect.catch((error) => reportPlaceError(source, error))
  )
  const json = yield* Placement.toJson(placement)
  yield* (config.compact ? JsonOutput.logCompact(json) : JsonOutput.log(json))
}, CliFailure.catchDefects("place"))

/**
 * The `place` command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("place", {
  file: Argument.String("file").pipe(
    Argument.withDescription("the JSON input; - or nothing reads standard input"),
    Argument.optional
  ),
  placer: Flags.placer,
  overflow: Flags.overflow,
  compact: Flags.compact,
  strict: Flags.strict
}, handler).pipe(
  Command.withShortDescription("Place the items of a JSON input and print the result as JSON"),
  Command.withDescription(
    "Place the items of a JSON input ({ budget, pinned, scored }) and print the result as JSON: the " +
      "window in order, what truncation excluded and why, the token totals and any overflow. Exit codes: " +
      "0 placed, 1 overflow under --overflow throw (the error as JSON on stderr), 2 bad input, " +
      "3 internal error (a bug in cupel)."
  ),
  Command.withExamples([
    { command: "cupel place input.json --placer chronological --overflow truncate" },
    { command: "cat input.json | cupel place - --overflow proceed", description: "read standard input" }
  ])
)
