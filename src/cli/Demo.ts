/**
 * `cupel demo`: shows what effect-cupel does, at a glance.
 *
 * - `cupel demo` runs the whole pipeline on an embedded sample of raw candidates (or on a
 *   `cupel run` input with `--input`): the candidates in, the window out with each item's score
 *   and why it is there, every excluded item with its reason in plain words, and the stages.
 * - `cupel demo --place` places a scored sample (or a `cupel place` input) with each placer and
 *   each overflow strategy, and draws every window, so the difference shows.
 *
 * @since 0.1.0
 */
import { Config, Console, Effect, Option, Stdio } from "effect"
import { Command, Flag } from "effect/cli"
import * as Conformance from "../Conformance.ts"
import type { InvalidConfigError } from "../InvalidConfigError.ts"
import type * as Pipeline from "../Pipeline.ts"
import * as CliFailure from "./CliFailure.ts"
import * as Flags from "./Flags.ts"
import * as PipelineInput from "./PipelineInput.ts"
import type * as Policy from "../Policy.ts"
import * as PlaceInput from "./PlaceInput.ts"
import * as Placement from "./Placement.ts"
import * as PolicySummary from "./PolicySummary.ts"
import * as Render from "./Render.ts"
import * as RunCommand from "./RunCommand.ts"
import * as RunInput from "./RunInput.ts"
import * as Sample from "./Sample.ts"
import * as TerminalText from "./TerminalText.ts"

/**
 * Colour when standard output is a terminal, unless `NO_COLOR` is set (https://no-color.org).
 *
 * @since 0.1.0
 * @category rendering
 */
export const style: Effect.Effect<Render.Style, never, Stdio.Stdio> = Effect.gen(function*() {
  const stdio = yield* Stdio.Stdio
  const terminal = yield* stdio.stdoutIsTerminal
  const noColor = yield* Config.option(Config.String("NO_COLOR")).pipe(
    Effect.orElseSucceed(() => Option.none<string>())
  )
  return { color: terminal && Option.isNone(Option.filter(noColor, (v) => v !== "")) }
})

/**
 * The input with `--budget` (target) and `--max` applied, checked by the budget's own rules
 * (`RunInput.withBudget`, which `cupel run` uses too).
 *
 * @since 0.1.0
 * @category input
 */
export const withBudget = RunInput.withBudget

const describeInput = (input: PlaceInput.PlaceInput): string => {
  const kinds = new Map<string, number>()
  for (const { item } of input.scored) kinds.set(item.kind, (kinds.get(item.kind) ?? 0) + 1)
  const byKind = [...kinds].map(([kind, n]) => `${n} ${kind}`).join(", ")
  const tokens = [...input.pinned, ...input.scored.map((s) => s.item)].reduce((sum, item) => sum + item.tokens, 0)
  return `${input.pinned.length + input.scored.length} candidate items: ${input.pinned.length} pinned, ` +
    `${input.scored.length} scored${byKind === "" ? "" : ` (${byKind})`} · ${Render.count(tokens)} tokens`
}

/**
 * The parsed arguments of `demo`.
 *
 * @since 0.2.0
 * @category handlers
 */
export interface Config {
  readonly place: boolean
  readonly placer: Option.Option<Conformance.PlacerName>
  readonly overflow: Option.Option<Conformance.OverflowStrategyName>
  readonly slicer: Option.Option<"greedy" | "knapsack" | "first_fit">
  readonly budget: Option.Option<number>
  readonly max: Option.Option<number>
  readonly input: Option.Option<string>
  readonly printSample: boolean
}

/**
 * `cupel demo --place`: the Place stage with each placer and each overflow strategy.
 *
 * @since 0.2.0
 * @category handlers
 */
export const placeDemo = Effect.fn("cli.demo.place")(function*(config: Config) {
  const input = yield* Option.match(config.input, {
    onNone: () => PlaceInput.decodeValue("embedded sample", Sample.json),
    onSome: (file) => PlaceInput.read(Option.some(file), "demo")
  }).pipe(
    Effect.flatMap((loaded) => withBudget(loaded, config.budget, config.max)),
    Effect.catchTag("InputError", (error) =>
      TerminalText.printError(`cupel demo: invalid input (${error.source}):`, ...error.problems.map((p) => `  ${p}`))
        .pipe(Effect.andThen(Effect.fail(CliFailure.usage()))))
  )
  const source = Option.getOrElse(config.input, () => "embedded sample")
  const s = yield* style
  const placers = Option.match(config.placer, { onNone: () => Conformance.PlacerName.literals, onSome: (p) => [p] })
  const strategies = Option.match(config.overflow, {
    onNone: () => Conformance.OverflowStrategyName.literals,
    onSome: (o) => [o]
  })
  // Every run first: an item that placement refuses is bad input, reported before any drawing.
  const runs: Array<{
    readonly placer: Conformance.PlacerName
    readonly strategy: Conformance.OverflowStrategyName
    readonly body: ReadonlyArray<string>
  }> = []
  for (const placer of placers) {
    for (const strategy of strategies) {
      const outcome = yield* Effect.result(Placement.run(input, placer, Conformance.overflowStrategy(strategy)))
      if (outcome._tag === "Failure" && outcome.failure._tag === "InvalidItemError") {
        yield* TerminalText.printError(`cupel demo: invalid input (${source}):`, `  ${outcome.failure.message}`)
        return yield* CliFailure.usage()
      }
      const body = outcome._tag === "Success"
        ? Render.placement(s, outcome.success, input.budget.maxTokens)
        : outcome.failure._tag === "OverflowError"
        ? Render.overflowError(s, outcome.failure)
        : [`  ${Render.red(s, `✗ ${outcome.failure._tag}: ${outcome.failure.message}`)}`]
      runs.push({ placer, strategy, body })
    }
  }
  const budget = input.budget
  yield* Console.log([
    Render.bold(s, `effect-cupel demo: Stage 6 "Place" of the Cupel specification`),
    `${source}: ${describeInput(input)}`,
    `budget: target ${Render.count(budget.targetTokens)} tokens, max ${Render.count(budget.maxTokens)} · ` +
    `scored items in ${
      Option.isNone(config.input) ? "slicer order (highest score first)" : "the file's order"
    }: truncation keeps from the front`,
    Render.dim(s, `P = pinned (enters with score 1.0) · the bars draw each item's score: u-shaped windows are high at both ends`),
    ""
  ].join("\n"))
  for (const [i, run] of runs.entries()) {
    const header = Render.runHeader(s, i + 1, runs.length, run.placer, run.strategy)
    yield* Console.log([header, ...run.body, ""].join("\n"))
  }
  yield* Console.log(Render.dim(
    s,
    "try: cupel demo --place --placer chronological --overflow truncate --budget 1500\n" +
      "     cupel demo --place --print-sample > items.json && cupel place items.json --overflow truncate"
  ))
})

const placerNote = (placer: Policy.PlacerConfig): string => {
  switch (placer.type) {
    case "u-shaped":
      return "u-shaped: the best scores at both ends, where a model attends most; the weakest in the middle"
    case "chronological":
      return "chronological: oldest first, untimed items last"
    case "conversation":
      return "conversation: system messages first, documents and memory u-shaped, then the conversation in order"
    case "sectioned":
      return "sectioned: each section of kinds placed by its own placer, the sections in order"
  }
}

/** The failures the pipeline demo draws instead of reporting: the pipeline's "does not fit". */
const isDrawn = (error: InvalidConfigError | Pipeline.PipelineError): boolean =>
  error._tag === "OverflowError" || error._tag === "PinnedBudgetError" || error._tag === "CountRequirementError"

/**
 * `cupel demo`: the whole pipeline on the embedded sample (or a `cupel run` input), drawn.
 *
 * @since 0.2.0
 * @category handlers
 */
export const pipelineDemo = Effect.fn("cli.demo.pipeline")(function*(config: Config) {
  const source = Option.getOrElse(config.input, () => "embedded sample")
  const loaded = yield* Option.match(config.input, {
    onNone: () => PipelineInput.decodeValue(source, Sample.pipeline),
    onSome: (file) =>
      PlaceInput.readText(Option.some(file), "demo").pipe(
        Effect.flatMap(({ text }) => PipelineInput.decodeText(file, text))
      )
  }).pipe(
    Effect.flatMap((input) => withBudget(input, config.budget, config.max)),
    Effect.catchTag("InputError", (error) =>
      RunInput.usage("demo", ...error.problems.map((problem) => `invalid input (${error.source}): ${problem}`)))
  )
  const input = RunInput.withOverrides(loaded, config)
  const outcome = yield* Effect.result(RunCommand.execute(input))
  // What cannot be run at all is reported as `cupel run` reports it; an overflow, pinned items
  // over budget or an unmet count requirement are what the pipeline answered, and are drawn.
  if (outcome._tag === "Failure" && !isDrawn(outcome.failure)) {
    return yield* RunCommand.reportRunError(source, outcome.failure, "demo")
  }
  const s = yield* style
  const items = input.items
  const pinned = items.filter((item) => item.pinned)
  const budget = input.budget
  const tokens = items.reduce((sum, item) => sum + item.tokens, 0)
  const lines = [
    Render.bold(s, "effect-cupel demo: the whole pipeline — classify, score, deduplicate, sort, slice, place"),
    `${source}: ${items.length} candidates (${pinned.length} pinned) · ${Render.count(tokens)} tokens · ` +
    `budget: target ${Render.count(budget.targetTokens)}, max ${Render.count(budget.maxTokens)}`,
    `scoring: ${PolicySummary.scorer(input.scorer)} · deduplication ${input.deduplication ? "on" : "off"}`,
    `slicing: ${PolicySummary.slicer(input.slicer)} · placing: ${PolicySummary.placer(input.placer)} · ` +
    `overflow: ${PolicySummary.overflow(input.overflowStrategy)}`,
    "",
    Render.section(s, `candidates in (${items.length})`),
    ...Render.candidates(s, items),
    Render.dim(s, "P = pinned: skips scoring and slicing, always placed (score 1.0)"),
    ""
  ]
  if (outcome._tag === "Failure") {
    const error = outcome.failure
    lines.push(
      Render.section(s, "no window"),
      ...(error._tag === "OverflowError"
        ? Render.overflowError(s, error)
        : [`  ${Render.red(s, `✗ ${error._tag}: ${error.message}`)}`]),
      ""
    )
  } else {
    const result = outcome.success
    const { report } = result
    const over = result.tokensOverBudget > 0 ? `, ${Render.count(result.tokensOverBudget)} over` : ""
    lines.push(
      Render.section(
        s,
        `window out: ${result.window.length} items, ${Render.count(result.totalTokens)} tokens ` +
          `(target ${Render.count(budget.targetTokens)}${over})`
      ),
      ...Render.window(s, report.included),
      Render.dim(
        s,
        placerNote(input.placer)
      ),
      "",
      Render.section(s, `excluded (${report.excluded.length}), best score first`),
      ...Render.exclusions(s, report.excluded, pinned, input.slicer),
      "",
      Render.section(s, "stages"),
      ...Render.stages(s, report.events),
      ""
    )
  }
  lines.push(Render.dim(
    s,
    "try: cupel demo --budget 1500 --slicer knapsack --placer chronological\n" +
      "     cupel demo --print-sample > input.json && cupel run input.json\n" +
      "     cupel demo --place   (the Place stage alone, with each placer and overflow strategy)"
  ))
  yield* Console.log(lines.join("\n"))
})

/**
 * Runs `demo` with parsed arguments.
 *
 * @since 0.1.0
 * @category handlers
 */
export const handler = Effect.fn("cli.demo")(function*(config: Config) {
  if (config.printSample) {
    return yield* Console.log(JSON.stringify(config.place ? Sample.json : Sample.pipeline, null, 2))
  }
  return yield* (config.place ? placeDemo(config) : pipelineDemo(config))
}, CliFailure.catchDefects("demo"))

/**
 * The `demo` command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("demo", {
  place: Flag.Boolean("place").pipe(
    Flag.withDescription("the Place stage alone: a scored sample placed with each placer and overflow strategy"),
    Flag.withDefault(false)
  ),
  placer: Flags.placerDemo,
  overflow: Flags.overflowDemo,
  slicer: Flags.slicerOverride,
  budget: Flags.budgetTarget,
  max: Flags.budgetMax,
  input: Flag.String("input").pipe(
    Flag.withAlias("i"),
    Flag.withDescription(
      "use this JSON file instead of the sample: a `cupel run` input (with --place, a `cupel place` input)"
    ),
    Flag.optional
  ),
  printSample: Flag.Boolean("print-sample").pipe(
    Flag.withDescription(
      "print the embedded sample as `cupel run` JSON (with --place, as `cupel place` JSON) and exit"
    ),
    Flag.withDefault(false)
  )
}, handler).pipe(
  Command.withShortDescription("Run the whole pipeline on a realistic sample (or --input FILE) and draw what it did"),
  Command.withDescription(
    "Show what effect-cupel does: a pinned system prompt, a dozen conversation turns, retrieved documents " +
      "(one of them twice), an image and an oversized tool output, scored by recency, priority and kind, " +
      "deduplicated, sliced and placed; the candidates, the window with scores, every excluded item with its " +
      "reason, and the stages. With --place: the Place stage alone, with each placer and overflow strategy."
  ),
  Command.withExamples([
    { command: "cupel demo" },
    { command: "cupel demo --budget 1500 --slicer knapsack --placer chronological" },
    { command: "cupel demo --input input.json", description: "your own `cupel run` input" },
    { command: "cupel demo --place --placer u-shaped --overflow truncate", description: "the Place stage alone" }
  ])
)
