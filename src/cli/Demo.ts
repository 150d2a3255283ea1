/**
 * `cupel demo`: places a realistic sample (or your own items) with each placer and each overflow
 * strategy, and draws every window so the difference shows at a glance.
 *
 * @since 0.1.0
 */
import { Config, Console, Effect, Option, Stdio } from "effect"
import { Command, Flag } from "effect/cli"
import * as Conformance from "../Conformance.ts"
import * as ContextBudget from "../ContextBudget.ts"
import { schemaProblems } from "../internal/conformanceMessages.ts"
import * as CliFailure from "./CliFailure.ts"
import * as Flags from "./Flags.ts"
import * as PlaceInput from "./PlaceInput.ts"
import * as Placement from "./Placement.ts"
import * as Render from "./Render.ts"
import * as Sample from "./Sample.ts"

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
 * The input with `--budget` (target) and `--max` applied, checked by the budget's own rules.
 *
 * @since 0.1.0
 * @category input
 */
export const withBudget = (
  input: PlaceInput.PlaceInput,
  target: Option.Option<number>,
  max: Option.Option<number>
): Effect.Effect<PlaceInput.PlaceInput, PlaceInput.InputError> => {
  if (Option.isNone(target) && Option.isNone(max)) return Effect.succeed(input)
  const budget = input.budget
  return ContextBudget.decode({
    maxTokens: Option.getOrElse(max, () => budget.maxTokens),
    targetTokens: Option.getOrElse(target, () => budget.targetTokens),
    outputReserve: budget.outputReserve,
    reservedSlots: budget.reservedSlots,
    estimationSafetyMarginPercent: budget.estimationSafetyMarginPercent
  }).pipe(
    Effect.map((b) => ({ ...input, budget: b })),
    Effect.mapError((error) =>
      new PlaceInput.InputError({
        source: "--budget / --max",
        problems: [
          ...schemaProblems(error).map((p) => `budget.${p}`),
          "(--budget sets targetTokens, --max sets maxTokens)"
        ]
      })
    )
  )
}

const describeInput = (input: PlaceInput.PlaceInput): string => {
  const kinds = new Map<string, number>()
  for (const { item } of input.scored) kinds.set(item.kind, (kinds.get(item.kind) ?? 0) + 1)
  const byKind = [...kinds].map(([kind, n]) => `${n} ${kind}`).join(", ")
  const tokens = [...input.pinned, ...input.scored.map((s) => s.item)].reduce((sum, item) => sum + item.tokens, 0)
  return `${input.pinned.length + input.scored.length} candidate items: ${input.pinned.length} pinned, ` +
    `${input.scored.length} scored${byKind === "" ? "" : ` (${byKind})`} · ${Render.count(tokens)} tokens`
}

/**
 * Runs `demo` with parsed arguments.
 *
 * @since 0.1.0
 * @category handlers
 */
export const handler = Effect.fn("cli.demo")(function*(config: {
  readonly placer: Option.Option<Conformance.PlacerName>
  readonly overflow: Option.Option<Conformance.OverflowStrategyName>
  readonly budget: Option.Option<number>
  readonly max: Option.Option<number>
  readonly input: Option.Option<string>
  readonly printSample: boolean
}) {
  if (config.printSample) {
    return yield* Console.log(JSON.stringify(Sample.json, null, 2))
  }
  const input = yield* Option.match(config.input, {
    onNone: () => PlaceInput.decodeValue("embedded sample", Sample.json),
    onSome: (file) => PlaceInput.read(Option.some(file))
  }).pipe(
    Effect.flatMap((loaded) => withBudget(loaded, config.budget, config.max)),
    Effect.catchTag("InputError", (error) =>
      Console.error(`cupel demo: ${error.message}`).pipe(Effect.andThen(Effect.fail(CliFailure.usage()))))
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
        yield* Console.error(`cupel demo: invalid input (${source}):\n  ${outcome.failure.message}`)
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
    "try: cupel demo --placer chronological --overflow truncate --budget 1500\n" +
      "     cupel demo --print-sample > items.json && cupel place items.json --overflow truncate"
  ))
})

const optionalInt = (name: string, description: string) =>
  Flag.Int(name).pipe(Flag.withDescription(description), Flag.optional)

/**
 * The `demo` command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("demo", {
  placer: Flags.placerOptional,
  overflow: Flags.overflowOptional,
  budget: optionalInt("budget", "the budget's target in tokens, where overflow starts (default: the input's)").pipe(
    Flag.withAlias("b")
  ),
  max: optionalInt("max", "the budget's maximum in tokens, the model's context size (default: the input's)"),
  input: Flag.String("input").pipe(
    Flag.withAlias("i"),
    Flag.withDescription("place the items of this JSON file (the format of `cupel place`) instead of the sample"),
    Flag.optional
  ),
  printSample: Flag.Boolean("print-sample").pipe(
    Flag.withDescription("print the embedded sample as `cupel place` JSON and exit"),
    Flag.withDefault(false)
  )
}, handler).pipe(
  Command.withShortDescription("Place a realistic sample (or --input FILE) with each placer and strategy, and draw the windows"),
  Command.withDescription(
    "Show what Place does: a pinned system prompt, a dozen conversation turns, retrieved documents and an " +
      "oversized tool output placed with each placer and each overflow strategy; every window drawn with " +
      "positions, previews, tokens and score bars, and what truncation dropped and why."
  ),
  Command.withExamples([
    { command: "cupel demo" },
    { command: "cupel demo --placer u-shaped --overflow truncate --budget 1500" },
    { command: "cupel demo --input items.json", description: "your own items" }
  ])
)
