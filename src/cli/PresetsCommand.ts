/**
 * `cupel presets [NAME] [--json]`: the preset policies (`Presets`) — each one's name, what it is
 * for, and its scorer, slicer and placer; with `--json`, as Policy JSON, ready to be saved as a
 * file for `--policy` and edited.
 *
 * @since 0.2.0
 */
import { Console, Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as Policy from "../Policy.ts"
import * as Presets from "../Presets.ts"
import * as CliFailure from "./CliFailure.ts"
import * as JsonOutput from "./JsonOutput.ts"
import * as PolicySummary from "./PolicySummary.ts"
import * as RunInput from "./RunInput.ts"

/**
 * The text listing: per preset, its name and description, then its policy on one line.
 *
 * @since 0.2.0
 * @category rendering
 */
export const lines = (presets: ReadonlyArray<readonly [string, Policy.Policy]>): Array<string> => {
  const width = Math.max(...presets.map(([name]) => name.length)) + 2
  return presets.flatMap(([name, policy]) => [
    `${name.padEnd(width)}${policy.description ?? ""}`,
    `${" ".repeat(width)}${PolicySummary.line(policy)}`
  ])
}

/**
 * The parsed arguments of `presets`.
 *
 * @since 0.2.0
 * @category handlers
 */
export interface Config {
  readonly name: Option.Option<string>
  readonly json: boolean
}

/**
 * Runs `presets` with parsed arguments. An unknown name is a usage error listing the presets.
 *
 * @since 0.2.0
 * @category handlers
 */
export const handler = Effect.fn("cli.presets")(function*(config: Config) {
  const chosen: ReadonlyArray<readonly [string, Policy.Policy]> = Option.isSome(config.name)
    ? [[config.name.value, yield* RunInput.preset("presets", config.name.value)]]
    : Presets.names.map((name) => [name, Presets.all[name]] as const)
  if (config.json) {
    // Presets are valid policies: failing to encode one is a bug.
    const json = yield* Effect.forEach(chosen, ([, policy]) => Policy.encode(policy)).pipe(Effect.orDie)
    return yield* JsonOutput.log(Option.isSome(config.name) ? json[0] : json)
  }
  const header = Option.isSome(config.name)
    ? []
    : [
      `${chosen.length} presets: starting points, not measured optima. Run one with cupel run --preset NAME; ` +
      `save one as a policy file with cupel presets NAME --json > policy.json, edit it, and run it with --policy.`,
      ""
    ]
  yield* Console.log([...header, ...lines(chosen)].join("\n"))
}, CliFailure.catchDefects("presets"))

/**
 * The `presets` command.
 *
 * @since 0.2.0
 * @category commands
 */
export const command = Command.make("presets", {
  name: Argument.String("name").pipe(
    Argument.withDescription("one preset (default: all of them)"),
    Argument.optional
  ),
  json: Flag.Boolean("json").pipe(
    Flag.withDescription("print Policy JSON: an array of every preset, or the one named (a policy file)"),
    Flag.withDefault(false)
  )
}, handler).pipe(
  Command.withShortDescription("List the preset policies, or print them as Policy JSON"),
  Command.withDescription(
    "List the seven preset policies (chat, codeReview, rag, documentQa, toolUse, longRunning, debugging): what " +
      "each is for, and its scorer, slicer and placer. With --json, print them as Policy JSON (each decodes with " +
      "Policy.decode); with a NAME, that preset alone. Exit codes: 0 success, 2 an unknown name."
  ),
  Command.withExamples([
    { command: "cupel presets" },
    { command: "cupel presets rag --json > rag.json", description: "a policy file to edit and run with --policy" }
  ])
)
