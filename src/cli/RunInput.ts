/**
 * RunInput: what `cupel run`, `cupel explain` and `cupel budget` run — the candidates and budget
 * of a `cupel run` input, and the policy, from one of three places.
 *
 * Precedence, the most specific first:
 *
 * 1. `--placer`, `--slicer`, `--overflow` override one field each (and `--budget`, `--max`
 *    the budget's target and maximum);
 * 2. `--policy FILE` (a Policy JSON file) or `--preset NAME` (`Presets.get`) replaces the input's
 *    whole policy — scorer, slicer, placer, deduplication, overflow strategy; the two flags
 *    together are a usage error (each names a whole policy);
 * 3. otherwise the policy is the input's own fields.
 *
 * Every problem is one line on standard error, `cupel COMMAND: …`, and exit code 2.
 *
 * @since 0.2.0
 */
import { Effect, type FileSystem, Option, type Stdio } from "effect"
import * as Conformance from "../Conformance.ts"
import * as ContextBudget from "../ContextBudget.ts"
import { schemaProblems } from "../internal/conformanceMessages.ts"
import type * as PlacerConfig from "../placers/PlacerConfig.ts"
import * as Policy from "../Policy.ts"
import * as Presets from "../Presets.ts"
import * as CliFailure from "./CliFailure.ts"
import * as CountTokens from "./CountTokens.ts"
import * as PipelineInput from "./PipelineInput.ts"
import * as PlaceInput from "./PlaceInput.ts"
import * as TerminalText from "./TerminalText.ts"
import * as UnknownKeys from "./UnknownKeys.ts"

/**
 * The single-field overrides: absent, the policy's choice stands.
 *
 * @since 0.2.0
 * @category models
 */
export interface Overrides {
  readonly placer: Option.Option<PlacerConfig.PlacerName>
  readonly overflow: Option.Option<Conformance.OverflowStrategyName>
  readonly slicer: Option.Option<"greedy" | "knapsack" | "first_fit">
}

/**
 * Where the input and the policy come from, as the flags say.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options extends Overrides {
  readonly file: Option.Option<string>
  readonly policy: Option.Option<string>
  readonly preset: Option.Option<string>
  /** `--budget`: the budget's target instead of the input's. */
  readonly budget: Option.Option<number>
  /** `--max`: the budget's maximum instead of the input's. */
  readonly max: Option.Option<number>
  /** `--strict`: unknown keys in items refuse the input instead of a warning. */
  readonly strict: boolean
  /**
   * `--count-tokens`: items without `tokens` counted from their `content` (`CountTokens`);
   * absent (or the field left out), every item needs `tokens`.
   */
  readonly countTokens?: Option.Option<CountTokens.Encoding> | undefined
}

/**
 * A loaded input: the run's items, budget and policy; `source` names the input in messages,
 * `policySource` the policy (the input itself, a file, or `preset NAME`), and `label` the policy
 * in comparisons (its file, its preset's name, or `input`).
 *
 * @since 0.2.0
 * @category models
 */
export interface Loaded {
  readonly source: string
  readonly policySource: string
  readonly label: string
  readonly input: PipelineInput.PipelineInput
}

/**
 * A policy with the command-line overrides applied. A `--slicer` naming the policy's own slicer
 * keeps its options.
 *
 * @since 0.2.0
 * @category input
 */
export const withOverrides = <P extends Policy.Policy>(input: P, overrides: Overrides): P => ({
  ...input,
  placer: Option.match(overrides.placer, { onNone: () => input.placer, onSome: (type) => ({ type }) }),
  overflowStrategy: Option.match(overrides.overflow, {
    onNone: () => input.overflowStrategy,
    onSome: Conformance.overflowStrategy
  }),
  slicer: Option.match(Option.filter(overrides.slicer, (type) => type !== input.slicer.type), {
    onNone: () => input.slicer,
    onSome: (type) => ({ type })
  })
})

/**
 * The input with `--budget` (target) and `--max` applied, checked by the budget's own rules:
 * a target above the maximum, or a negative one, is an {@link PlaceInput.InputError} whose
 * source is `--budget / --max`. The rest of the budget (`outputReserve`…) is the input's.
 *
 * @since 0.3.0
 * @category input
 */
export const withBudget = <A extends { readonly budget: ContextBudget.ContextBudget }>(
  input: A,
  target: Option.Option<number>,
  max: Option.Option<number>
): Effect.Effect<A, PlaceInput.InputError> => {
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

/**
 * Fails with exit code 2 after writing each line, prefixed with `cupel COMMAND: `, its control
 * characters escaped (`TerminalText.printError`).
 *
 * @since 0.2.0
 * @category reporting
 */
export const usage = (command: string, ...lines: ReadonlyArray<string>): Effect.Effect<never, CliFailure.CliFailure> =>
  Effect.forEach(lines, (text) => TerminalText.printError(`cupel ${command}: ${text}`), { discard: true }).pipe(
    Effect.andThen(Effect.fail(CliFailure.usage()))
  )

/**
 * Reads a Policy JSON file and decodes it with `Policy.decode`: every problem with its path.
 *
 * `-` is refused, never read: standard input holds the run's input, and reading it for the
 * policy would leave the input empty. The refusal is an unreadable file's `InputError`
 * (`unreadable`), so that callers report it as they report a file that cannot be read.
 *
 * @since 0.2.0
 * @category reading
 */
export const readPolicy = (
  path: string
): Effect.Effect<Policy.Policy, PlaceInput.InputError, FileSystem.FileSystem | Stdio.Stdio> =>
  (path === "-"
    ? Effect.fail(
      new PlaceInput.InputError({
        source: "-",
        problems: ["cannot read: standard input holds the run's input, not a policy: name the policy's file"],
        unreadable: true
      })
    )
    : PlaceInput.readText(Option.some(path))).pipe(
    Effect.flatMap(({ source, text }) =>
      PlaceInput.parseJson(source, text).pipe(
        Effect.flatMap((value) =>
          Policy.decode(value).pipe(
            Effect.mapError((error) => new PlaceInput.InputError({ source, problems: schemaProblems(error) }))
          )
        )
      )
    )
  )

const policyProblems = (command: string) => (error: PlaceInput.InputError) =>
  usage(command, ...error.problems.map((problem) => `invalid policy (${error.source}): ${problem}`))

const inputProblems = (command: string) => (error: PlaceInput.InputError) =>
  usage(command, ...error.problems.map((problem) => `invalid input (${error.source}): ${problem}`))

/**
 * The preset of that name, or a usage error listing the presets.
 *
 * @since 0.2.0
 * @category reading
 */
export const preset = (command: string, name: string): Effect.Effect<Policy.Policy, CliFailure.CliFailure> =>
  Presets.get(name).pipe(Effect.catchTag("UnknownPresetError", (error) => usage(command, error.message)))

/**
 * A policy named on the command line by a preset's name, or else by the path of a Policy JSON
 * file (`cupel budget --compare`): the policy, its label, and its source in messages (the file,
 * or `preset NAME`). A name that is neither — a file that cannot be read, `-` included — is a
 * usage error naming the presets and why the file could not be read; a file that was read and
 * is not a valid policy is reported with every problem.
 *
 * @since 0.2.0
 * @category reading
 */
export const presetOrFile = (
  command: string,
  name: string
): Effect.Effect<
  { readonly label: string; readonly source: string; readonly policy: Policy.Policy },
  CliFailure.CliFailure,
  FileSystem.FileSystem | Stdio.Stdio
> =>
  Presets.names.some((known) => known === name)
    ? Effect.map(preset(command, name), (policy) => ({ label: name, source: `preset ${name}`, policy }))
    : readPolicy(name).pipe(
      Effect.map((policy) => ({ label: name, source: name, policy })),
      Effect.catchTag("InputError", (error) =>
        error.unreadable === true
          ? usage(
            command,
            `${JSON.stringify(name)} is neither a preset (${Presets.names.join(", ")}) nor a policy file ` +
              `(${error.problems.join("; ")})`
          )
          : policyProblems(command)(error))
    )

/**
 * Reads the input and the policy as the flags say, with the overrides applied.
 *
 * @since 0.2.0
 * @category reading
 */
export const load = (
  command: string,
  options: Options
): Effect.Effect<Loaded, CliFailure.CliFailure, FileSystem.FileSystem | Stdio.Stdio> =>
  Effect.gen(function*() {
    if (Option.isSome(options.policy) && Option.isSome(options.preset)) {
      return yield* usage(command, "--policy and --preset each give the whole policy: use one of them")
    }
    const external = Option.isSome(options.preset)
      ? Option.some({
        policy: yield* preset(command, options.preset.value),
        policySource: `preset ${options.preset.value}`,
        label: options.preset.value
      })
      : Option.isSome(options.policy)
      ? Option.some({
        policy: yield* readPolicy(options.policy.value).pipe(Effect.catchTag("InputError", policyProblems(command))),
        policySource: options.policy.value,
        label: options.policy.value
      })
      : Option.none()
    const { source, text } = yield* PlaceInput.readText(options.file, command).pipe(
      Effect.catchTag("InputError", inputProblems(command))
    )
    const value = yield* PlaceInput.parseJson(source, text).pipe(Effect.catchTag("InputError", inputProblems(command)))
    const encoding = options.countTokens ?? Option.none()
    if (Option.isSome(encoding)) {
      // The value was just parsed and is ours: the counts are written into it.
      CountTokens.fill(value, yield* CountTokens.load(encoding.value).pipe(Effect.catchTag("InputError", inputProblems(command))))
      CountTokens.holdUncountable(value)
    }
    const decodeWith = <A extends { readonly budget: ContextBudget.ContextBudget }>(
      decode: (source: string, value: unknown) => Effect.Effect<A, PlaceInput.InputError>
    ) =>
      PlaceInput.decodeWithUnknownKeys({
        command,
        source,
        value,
        unknown: UnknownKeys.inRunInput(value),
        strict: options.strict,
        decode
      }).pipe(
        Effect.flatMap((decoded) => withBudget(decoded, options.budget, options.max)),
        Effect.catchTag("InputError", inputProblems(command))
      )
    if (Option.isNone(external)) {
      const input = yield* decodeWith(PipelineInput.decodeValue)
      return { source, policySource: source, label: "input", input: withOverrides(input, options) }
    }
    const candidates = yield* decodeWith(PipelineInput.decodeCandidatesValue)
    // The input's own policy fields were checked and are replaced, whole.
    const input: PipelineInput.PipelineInput = {
      ...external.value.policy,
      budget: candidates.budget,
      items: candidates.items
    }
    return {
      source,
      policySource: external.value.policySource,
      label: external.value.label,
      input: withOverrides(input, options)
    }
  })
