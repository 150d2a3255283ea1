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
import { Console, Effect, type FileSystem, Layer, Option, Schema, type Stdio } from "effect"
import { Argument, Command } from "effect/cli"
import * as Conformance from "../Conformance.ts"
import type { InvalidConfigError } from "../InvalidConfigError.ts"
import * as OverflowNotifier from "../OverflowNotifier.ts"
import { OverflowError } from "../OverflowError.ts"
import { CountRequirementError } from "../CountRequirementError.ts"
import { PinnedBudgetError } from "../PinnedBudgetError.ts"
import * as Pipeline from "../Pipeline.ts"
import * as PipelineResult from "../PipelineResult.ts"
import * as Scorer from "../Scorer.ts"
import * as Slicer from "../Slicer.ts"
import * as CliFailure from "./CliFailure.ts"
import * as JsonOutput from "./JsonOutput.ts"
import * as Flags from "./Flags.ts"
import * as PipelineInput from "./PipelineInput.ts"
import * as PlaceInput from "./PlaceInput.ts"

/**
 * Builds the strategies an input configures and runs the pipeline on its items. The overflow
 * notifier drops events: under `proceed` the result's `tokensOverBudget` says the same.
 *
 * @since 0.2.0
 * @category running
 */
export const execute: (
  input: PipelineInput.PipelineInput
) => Effect.Effect<PipelineResult.PipelineResult, InvalidConfigError | Pipeline.PipelineError> = Effect.fn(
  "cli.run.execute"
)(function*(input: PipelineInput.PipelineInput) {
  const scorer = yield* PipelineInput.scorer(input.scorer)
  const slicer = yield* PipelineInput.slicer(input.slicer)
  return yield* Pipeline.run(input.items, input.budget, {
    deduplication: input.deduplication,
    overflowStrategy: Conformance.overflowStrategy(input.overflowStrategy)
  }).pipe(
    Effect.provide(Layer.mergeAll(
      Scorer.layer(scorer),
      Slicer.layer(slicer),
      Conformance.placerLayer(input.placer),
      OverflowNotifier.layerNoop
    ))
  )
})

/**
 * The input with the command-line overrides applied. A `--slicer` naming the input's own slicer
 * keeps its options.
 *
 * @since 0.2.0
 * @category input
 */
export const withOverrides = (
  input: PipelineInput.PipelineInput,
  overrides: {
    readonly placer: Option.Option<Conformance.PlacerName>
    readonly overflow: Option.Option<Conformance.OverflowStrategyName>
    readonly slicer: Option.Option<"greedy" | "knapsack">
  }
): PipelineInput.PipelineInput => {
  const inputSlicer = typeof input.slicer === "string" ? input.slicer : input.slicer.type
  return {
    ...input,
    placer: Option.getOrElse(overrides.placer, () => input.placer),
    overflowStrategy: Option.getOrElse(overrides.overflow, () => input.overflowStrategy),
    slicer: Option.match(Option.filter(overrides.slicer, (s) => s !== inputSlicer), {
      onNone: () => input.slicer,
      onSome: (name) => name
    })
  }
}

const usage = (...lines: ReadonlyArray<string>) =>
  Effect.forEach(lines, (text) => Console.error(`cupel run: ${text}`), { discard: true }).pipe(
    Effect.andThen(Effect.fail(CliFailure.usage()))
  )

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
 * @since 0.2.0
 * @category reporting
 */
export const reportRunError = (
  source: string,
  error: InvalidConfigError | Pipeline.PipelineError
): Effect.Effect<never, CliFailure.CliFailure> => {
  switch (error._tag) {
    case "OverflowError":
      return negative(encodeOverflow(error), error.message)
    case "PinnedBudgetError":
      return negative(encodePinned(error), error.message)
    case "CountRequirementError":
      return negative(encodeCountRequirement(error), error.message)
    case "InvalidConfigError":
      return usage(`invalid configuration (${source}): ${error.message}`)
    case "TokenTotalError":
    case "InvalidItemError":
    case "ScorerError":
    case "SlicerError":
      return usage(`invalid input (${source}): ${error.message}`)
    case "SlicerContractError":
    case "PlacerError":
    case "PlacerContractError":
      return Console.error(`cupel run: internal error (a bug in cupel, please report it): ${error.message}`).pipe(
        Effect.andThen(Effect.fail(CliFailure.internal()))
      )
  }
}

/**
 * Reads and decodes an input, reporting every problem on a line of its own (`cupel run: invalid
 * input (stdin): scorer.scorers[0].weight: is required but missing`), exit 2.
 *
 * @since 0.2.0
 * @category reading
 */
export const read = (
  file: Option.Option<string>
): Effect.Effect<
  { readonly source: string; readonly input: PipelineInput.PipelineInput },
  CliFailure.CliFailure,
  FileSystem.FileSystem | Stdio.Stdio
> =>
  PlaceInput.readText(file).pipe(
    Effect.flatMap(({ source, text }) =>
      Effect.map(PipelineInput.decodeText(source, text), (input) => ({ source, input }))
    ),
    Effect.catchTag("InputError", (error) =>
      usage(...error.problems.map((problem) => `invalid input (${error.source}): ${problem}`)))
  )

/**
 * Runs `run` with parsed arguments.
 *
 * @since 0.2.0
 * @category handlers
 */
export const handler = Effect.fn("cli.run")(function*(config: {
  readonly file: Option.Option<string>
  readonly placer: Option.Option<Conformance.PlacerName>
  readonly overflow: Option.Option<Conformance.OverflowStrategyName>
  readonly slicer: Option.Option<"greedy" | "knapsack">
}) {
  const { input, source } = yield* read(config.file)
  const result = yield* execute(withOverrides(input, config)).pipe(
    Effect.catch((error) => reportRunError(source, error))
  )
  // Every value here was decoded or built by the library: failing to encode it is a bug.
  const json = yield* PipelineResult.encode(result).pipe(Effect.orDie)
  yield* JsonOutput.log(json)
}, CliFailure.catchDefects("run"))

/**
 * The `run` command.
 *
 * @since 0.2.0
 * @category commands
 */
export const command = Command.make("run", {
  file: Argument.String("file").pipe(
    Argument.withDescription("the JSON input; - or nothing reads standard input"),
    Argument.optional
  ),
  placer: Flags.placerOverride,
  overflow: Flags.overflowOverride,
  slicer: Flags.slicerOverride
}, handler).pipe(
  Command.withShortDescription("Run the whole pipeline on the candidates of a JSON input and print the result as JSON"),
  Command.withDescription(
    "Run the whole pipeline (classify, score, deduplicate, sort, slice, place) on a JSON input " +
      "({ budget, items, scorer, slicer?, placer?, deduplication?, overflowStrategy? }) and print the " +
      "window and the selection report as JSON. Exit codes: 0 success, 1 overflow under throw or pinned " +
      "items over budget (the error as JSON on stderr), 2 bad input or configuration, 3 a bug in cupel."
  ),
  Command.withExamples([
    { command: "cupel run input.json --overflow truncate" },
    { command: "cupel demo --print-sample | cupel run --slicer knapsack", description: "the demo's sample" }
  ])
)
