/**
 * `cupel run [FILE|-]`: runs the whole pipeline — Classify, Score, Deduplicate, Sort, Slice,
 * Place — on the candidates of a JSON input and prints the `PipelineResult` as JSON.
 *
 * The exit codes are those of `cupel place`:
 *
 * - success: the result on stdout, exit 0 (also when `truncate` dropped items or `proceed` went
 *   over budget: the JSON says so);
 * - a wrong request — unreadable file, malformed JSON, a field that breaks a rule, a
 *   configuration a constructor refuses (`InvalidConfigError`), token counts no double can add
 *   up (`TokenTotalError`), a knapsack table too large: one line per problem on stderr, exit 2;
 * - overflow under `throw`, and pinned items that exceed the budget (`PinnedBudgetError`): the
 *   error as one line of JSON on stderr, exit 1;
 * - a bug in cupel (a defect, a built-in strategy breaking its contract): one line on stderr,
 *   exit 3.
 *
 * Nothing is written to stdout unless the run succeeds, and never a stack trace.
 *
 * @since 0.2.0
 */
import { Console, Effect, Schema } from "effect"
import { Argument, Command } from "effect/cli"
import { CountRequirementError } from "../CountRequirementError.ts"
import type { InvalidConfigError } from "../InvalidConfigError.ts"
import * as OverflowNotifier from "../OverflowNotifier.ts"
import { OverflowError } from "../OverflowError.ts"
import { PinnedBudgetError } from "../PinnedBudgetError.ts"
import type * as Pipeline from "../Pipeline.ts"
import * as PipelineResult from "../PipelineResult.ts"
import * as Policy from "../Policy.ts"
import * as CliFailure from "./CliFailure.ts"
import * as Flags from "./Flags.ts"
import * as JsonOutput from "./JsonOutput.ts"
import type * as PipelineInput from "./PipelineInput.ts"
import * as RunInput from "./RunInput.ts"
import * as TerminalText from "./TerminalText.ts"

/**
 * Builds the strategies an input's policy names (`Policy.layer`) and runs the pipeline on its
 * items (`Policy.run`). The overflow notifier drops events: under `proceed` the result's
 * `tokensOverBudget` says the same.
 *
 * @since 0.2.0
 * @category running
 */
export const execute: (
  input: PipelineInput.PipelineInput
) => Effect.Effect<PipelineResult.PipelineResult, InvalidConfigError | Pipeline.PipelineError> = Effect.fn(
  "cli.run.execute"
)(function*(input: PipelineInput.PipelineInput) {
  return yield* Policy.run(input.items, input.budget, input).pipe(Effect.provide(OverflowNotifier.layerNoop))
})

const encodeOverflow = Schema.encodeEffect(OverflowError)
const encodePinned = Schema.encodeEffect(PinnedBudgetError)
const encodeCountRequirement = Schema.encodeEffect(CountRequirementError)

// The negative answers are printed as `cupel place` prints an overflow: the error's fields and
// its message as one line of JSON, for scripts to read.
const negative = (encoded: Effect.Effect<object, Schema.SchemaError>, message: string) =>
  encoded.pipe(
    Effect.orDie,
    Effect.flatMap((fields) => Console.error(JSON.stringify({ ...fields, message }))),
    Effect.andThen(Effect.fail(CliFailure.failure()))
  )

/**
 * Reports a failed run and fails with its exit code; each error has one code and one line on
 * stderr:
 *
 * - `OverflowError`, `PinnedBudgetError`, `CountRequirementError` — the error as JSON, exit 1
 *   (the answer is "does not fit");
 * - `InvalidConfigError` — `invalid configuration (SOURCE): ` and the component, the option's
 *   path in the input and the rule, exit 2;
 * - `TokenTotalError`, `InvalidItemError`, `ScorerError`, `SlicerError` — the input cannot be
 *   run (token totals past `Number.MAX_SAFE_INTEGER`, scores a double cannot hold, a knapsack
 *   table too large): `invalid input (SOURCE): ` and the message, exit 2;
 * - `SlicerContractError`, `PlacerError`, `PlacerContractError` — only built-in strategies run
 *   here, which keep their contracts: a bug in cupel, exit 3.
 *
 * `command` names the command in the lines (`run`, `explain`, `budget`).
 *
 * @since 0.2.0
 * @category reporting
 */
export const reportRunError = (
  source: string,
  error: InvalidConfigError | Pipeline.PipelineError,
  command = "run"
): Effect.Effect<never, CliFailure.CliFailure> => {
  switch (error._tag) {
    case "OverflowError":
      return negative(encodeOverflow(error), error.message)
    case "PinnedBudgetError":
      return negative(encodePinned(error), error.message)
    case "CountRequirementError":
      return negative(encodeCountRequirement(error), error.message)
    case "InvalidConfigError":
      return RunInput.usage(command, `invalid configuration (${source}): ${error.message}`)
    case "TokenTotalError":
    case "InvalidItemError":
    case "ScorerError":
    case "SlicerError":
      return RunInput.usage(command, `invalid input (${source}): ${error.message}`)
    case "SlicerContractError":
    case "PlacerError":
    case "PlacerContractError":
      return TerminalText.printError(
        `cupel ${command}: internal error (a bug in cupel, please report it): ${error.message}`
      ).pipe(
        Effect.andThen(Effect.fail(CliFailure.internal()))
      )
  }
}

/**
 * The parsed arguments of `run`.
 *
 * @since 0.2.0
 * @category handlers
 */
export interface Config extends RunInput.Options {
  /** `--compact`: the JSON on one line. */
  readonly compact: boolean
}

/**
 * Runs `run` with parsed arguments.
 *
 * @since 0.2.0
 * @category handlers
 */
export const handler = Effect.fn("cli.run")(function*(config: Config) {
  const { input, policySource, source } = yield* RunInput.load("run", config)
  const result = yield* execute(input).pipe(
    Effect.catch((error) => reportRunError(error._tag === "InvalidConfigError" ? policySource : source, error))
  )
  // Every value here was decoded or built by the library: failing to encode it is a bug.
  const json = yield* PipelineResult.encode(result).pipe(Effect.orDie)
  yield* (config.compact ? JsonOutput.logCompact(json) : JsonOutput.log(json))
}, CliFailure.catchDefects("run"))

/**
 * The flags and argument shared by `run`, `explain` and `budget`: the input, where the policy
 * comes from, and the single-field overrides.
 *
 * @since 0.2.0
 * @category commands
 */
export const inputParams = {
  file: Argument.String("file").pipe(
    Argument.withDescription("the JSON input; - or nothing reads standard input"),
    Argument.optional
  ),
  policy: Flags.policyFile,
  preset: Flags.preset,
  placer: Flags.placerOverride,
  overflow: Flags.overflowOverride,
  slicer: Flags.slicerOverride,
  budget: Flags.budgetTarget,
  max: Flags.budgetMax,
  strict: Flags.strict,
  countTokens: Flags.countTokens
} as const

/**
 * The `run` command.
 *
 * @since 0.2.0
 * @category commands
 */
export const command = Command.make("run", { ...inputParams, compact: Flags.compact }, handler).pipe(
  Command.withShortDescription("Run the whole pipeline on the candidates of a JSON input and print the result as JSON"),
  Command.withDescription(
    "Run the whole pipeline (classify, score, deduplicate, sort, slice, place) on a JSON input " +
      "({ budget, items, scorer, slicer?, placer?, deduplication?, overflowStrategy? }) and print the " +
      "window and the selection report as JSON. The policy is the input's, or --policy FILE's, or --preset " +
      "NAME's; --placer, --slicer and --overflow override single fields. Exit codes: 0 success, 1 overflow under throw or pinned " +
      "items over budget (the error as JSON on stderr), 2 bad input or configuration, 3 a bug in cupel."
  ),
  Command.withExamples([
    { command: "cupel run input.json --overflow truncate" },
    { command: "cupel run input.json --preset rag", description: "a preset's policy instead of the input's" },
    { command: "cupel run input.json --policy policy.json", description: "a Policy JSON file's" },
    { command: "cupel demo --print-sample | cupel run --slicer knapsack", description: "the demo's sample" },
    { command: "cupel run input.json --budget 2000 --max 8192 --compact", description: "another budget, one line of JSON" }
  ])
)
