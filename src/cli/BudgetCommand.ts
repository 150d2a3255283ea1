/**
 * `cupel budget [FILE|-]`: the budget analyses of `BudgetAnalysis` on a `cupel run` input, one
 * per call:
 *
 * - `--marginal SLACK` — the items the window would lose if the budget shrank by SLACK tokens
 *   (`getMarginalItems`);
 * - `--min-budget-for CONTENT [--ceiling N]` — the smallest budget whose window holds the first
 *   candidate with that content (`findMinBudgetFor`; the ceiling defaults to the input's
 *   `maxTokens`);
 * - `--compare PRESET_OR_FILE` (repeatable) — the items whose status changes between the run's
 *   policy and each preset or Policy JSON file named (`policySensitivity`).
 *
 * The input and the policy are read as `cupel run` reads them (`--policy`, `--preset` and the
 * overrides apply to the run's policy; compared policies are taken as they are). JSON on
 * standard output by default, `--text` for a table. A refusal of the library — a quota slicer
 * (its inclusion is not monotonic in the budget), a slack or ceiling out of range, an unknown
 * content — is a usage error, exit 2, with the library's message; pipeline failures are
 * reported as `cupel run` reports them.
 *
 * @since 0.2.0
 */
import { Console, Effect, Layer, Option, Schema } from "effect"
import { Command, Flag } from "effect/cli"
import * as BudgetAnalysis from "../BudgetAnalysis.ts"
import * as ContextItem from "../ContextItem.ts"
import type { InvalidConfigError } from "../InvalidConfigError.ts"
import type * as Pipeline from "../Pipeline.ts"
import * as Policy from "../Policy.ts"
import * as CliFailure from "./CliFailure.ts"
import * as JsonOutput from "./JsonOutput.ts"
import * as Render from "./Render.ts"
import * as RunCommand from "./RunCommand.ts"
import * as RunInput from "./RunInput.ts"

/**
 * The parsed arguments of `budget`.
 *
 * @since 0.2.0
 * @category handlers
 */
export interface Config extends RunInput.Options {
  readonly marginal: Option.Option<number>
  readonly minBudgetFor: Option.Option<string>
  readonly ceiling: Option.Option<number>
  readonly compare: ReadonlyArray<string>
  readonly text: boolean
}

const encodeStatus = Schema.encodeEffect(BudgetAnalysis.VariantStatus)

const tokensOf = (items: ReadonlyArray<{ readonly item: ContextItem.ContextItem }>): number =>
  items.reduce((sum, e) => sum + e.item.tokens, 0)

type AnalysisError =
  | BudgetAnalysis.NonMonotonicSlicerError
  | BudgetAnalysis.SlackTokensError
  | BudgetAnalysis.TargetNotInItemsError
  | BudgetAnalysis.SearchCeilingError
  | BudgetAnalysis.TooFewVariantsError

/**
 * An analysis the library refuses is a usage error with its message; a failed run, or a policy
 * the library refuses to build, is reported as `cupel run` reports it.
 */
const failed = (loaded: RunInput.Loaded) =>
(
  error: AnalysisError | InvalidConfigError | Pipeline.PipelineError
): Effect.Effect<never, CliFailure.CliFailure> => {
  switch (error._tag) {
    case "NonMonotonicSlicerError":
    case "SlackTokensError":
    case "TargetNotInItemsError":
    case "SearchCeilingError":
    case "TooFewVariantsError":
      return RunInput.usage("budget", error.message)
    default:
      return RunCommand.reportRunError(
        error._tag === "InvalidConfigError" ? loaded.policySource : loaded.source,
        error,
        "budget"
      )
  }
}

const marginal = Effect.fnUntraced(function*(loaded: RunInput.Loaded, slack: number, text: boolean) {
  const { budget, items } = loaded.input
  const lost = yield* BudgetAnalysis.getMarginalItems(items, budget, slack, Policy.options(loaded.input)).pipe(
    Effect.provide(Policy.layer(loaded.input)),
    Effect.catch(failed(loaded))
  )
  const reduced = { maxTokens: budget.maxTokens - slack, targetTokens: budget.targetTokens - slack }
  if (text) {
    return yield* Console.log([
      `cupel budget: ${loaded.source} · policy ${loaded.label}`,
      `budget: target ${Render.count(budget.targetTokens)}, max ${Render.count(budget.maxTokens)}; ` +
      `${Render.count(slack)} tokens less: target ${Render.count(reduced.targetTokens)}, max ${Render.count(reduced.maxTokens)}`,
      lost.length === 0
        ? "no item of the window would fall out"
        : `${lost.length} ${lost.length === 1 ? "item" : "items"} (${
          Render.count(lost.reduce((sum, item) => sum + item.tokens, 0))
        } tokens) would fall out:`,
      ...lost.map((item) =>
        `  ${Render.kindTag(item.kind).padEnd(4)}  ${Render.preview(item.content, 56)}  ${Render.count(item.tokens).padStart(6)}`
      )
    ].join("\n"))
  }
  // Items decoded by the library always encode.
  const encoded = yield* Effect.forEach(lost, (item) => ContextItem.encode(item)).pipe(Effect.orDie)
  yield* JsonOutput.log({
    analysis: "marginal",
    policy: loaded.label,
    slackTokens: slack,
    budget: { maxTokens: budget.maxTokens, targetTokens: budget.targetTokens },
    reducedBudget: reduced,
    items: encoded
  })
})

/** An item that is none of the candidates (the library compares by identity). */
const notACandidate = (): ContextItem.ContextItem =>
  new ContextItem.ContextItem({ content: "(no candidate has this content)", tokens: 0 })

const minBudget = Effect.fnUntraced(function*(
  loaded: RunInput.Loaded,
  content: string,
  ceiling: Option.Option<number>,
  text: boolean
) {
  const { budget, items } = loaded.input
  const searchCeiling = Option.getOrElse(ceiling, () => budget.maxTokens)
  // The library decides what it refuses first (a quota slicer, then a target that is not a
  // candidate, then the ceiling): a content no candidate has is passed on as an item that is
  // not one of them.
  const target = items.find((item) => item.content === content) ?? notACandidate()
  const found = yield* BudgetAnalysis.findMinBudgetFor(items, budget, target, searchCeiling, Policy.options(loaded.input))
    .pipe(
      Effect.provide(Policy.layer(loaded.input)),
      Effect.catch((error) =>
        error._tag === "TargetNotInItemsError"
          ? RunInput.usage("budget", `${error.message}: no candidate has the content ${JSON.stringify(content)}`)
          : failed(loaded)(error)
      )
    )
  if (text) {
    return yield* Console.log([
      `cupel budget: ${loaded.source} · policy ${loaded.label}`,
      `${Render.quote(content, 56)} (${Render.count(target.tokens)} tokens): ` +
      Option.match(found, {
        onNone: () => `no budget up to ${Render.count(searchCeiling)} tokens holds it`,
        onSome: (m) => `the smallest budget that holds it is ${Render.count(m)} tokens (maxTokens = targetTokens)`
      })
    ].join("\n"))
  }
  yield* JsonOutput.log({
    analysis: "minBudgetFor",
    policy: loaded.label,
    content,
    tokens: target.tokens,
    searchCeiling,
    minBudget: Option.getOrNull(found)
  })
})

const compare = Effect.fnUntraced(function*(loaded: RunInput.Loaded, names: ReadonlyArray<string>, text: boolean) {
  const { budget, items } = loaded.input
  const others = yield* Effect.forEach(names, (name) => RunInput.presetOrFile("budget", name))
  const policies = [{ label: loaded.label, source: loaded.policySource, policy: loaded.input }, ...others]
  // Each policy's strategies are built here, before the comparison, so that a policy the library
  // refuses is reported with its own source (its file, its preset), not the run's.
  const variants = yield* Effect.forEach(policies, ({ label, policy, source }) =>
    Layer.build(Policy.layer(policy)).pipe(
      Effect.map((context) => ({ label, layer: Layer.succeedContext(context) })),
      Effect.catch((error) => RunCommand.reportRunError(source, error, "budget"))
    ))
  const report = yield* BudgetAnalysis.policySensitivity(items, budget, variants, Policy.options(loaded.input)).pipe(
    Effect.catch(failed(loaded))
  )
  if (text) {
    const labels = report.variants.map((v) => v.label)
    const width = Math.max(5, ...labels.map((l) => l.length))
    return yield* Console.log([
      `cupel budget: ${loaded.source} · ${labels.length} policies compared`,
      ...report.variants.map(({ label, report: r }) =>
        `  ${label.padEnd(width)}  ${String(r.included.length).padStart(4)} in  ${String(r.excluded.length).padStart(4)} out  ` +
        `${Render.count(tokensOf(r.included)).padStart(8)} tokens`
      ),
      "",
      report.diffs.length === 0
        ? "every item has the same status under every policy"
        : `${report.diffs.length} ${report.diffs.length === 1 ? "item changes" : "items change"} status:`,
      ...(report.diffs.length === 0 ? [] : [
        `  ${Render.fit("content", 44)}  ${labels.map((l) => l.padEnd(width)).join("  ")}`,
        ...report.diffs.map((d) =>
          `  ${Render.preview(d.content, 44)}  ${
            d.statuses.map((s) => (s.status === "Included" ? "in" : "out").padEnd(width)).join("  ")
          }`
        )
      ])
    ].join("\n"))
  }
  // Every status holds values the library built: they always encode.
  const diffs = yield* Effect.forEach(report.diffs, (d) =>
    Effect.map(Effect.forEach(d.statuses, (s) => encodeStatus(s)), (statuses) => ({
      content: d.content,
      kind: d.item.kind,
      tokens: d.item.tokens,
      statuses
    }))).pipe(Effect.orDie)
  yield* JsonOutput.log({
    analysis: "compare",
    variants: report.variants.map(({ label, report: r }) => ({
      label,
      included: r.included.length,
      excluded: r.excluded.length,
      totalTokens: tokensOf(r.included)
    })),
    diffs
  })
})

/**
 * Runs `budget` with parsed arguments: exactly one analysis.
 *
 * @since 0.2.0
 * @category handlers
 */
export const handler = Effect.fn("cli.budget")(function*(config: Config) {
  const chosen = [
    Option.isSome(config.marginal) ? "--marginal" : undefined,
    Option.isSome(config.minBudgetFor) ? "--min-budget-for" : undefined,
    config.compare.length > 0 ? "--compare" : undefined
  ].filter((flag) => flag !== undefined)
  if (chosen.length !== 1) {
    return yield* RunInput.usage(
      "budget",
      chosen.length === 0
        ? "name one analysis: --marginal SLACK, --min-budget-for CONTENT or --compare PRESET_OR_FILE"
        : `one analysis at a time: ${chosen.join(", ")} were given`
    )
  }
  if (Option.isSome(config.ceiling) && Option.isNone(config.minBudgetFor)) {
    return yield* RunInput.usage("budget", "--ceiling goes with --min-budget-for")
  }
  const loaded = yield* RunInput.load("budget", config)
  if (Option.isSome(config.marginal)) return yield* marginal(loaded, config.marginal.value, config.text)
  if (Option.isSome(config.minBudgetFor)) {
    return yield* minBudget(loaded, config.minBudgetFor.value, config.ceiling, config.text)
  }
  // The compared policies' strategies live as long as the comparison.
  return yield* Effect.scoped(compare(loaded, config.compare, config.text))
}, CliFailure.catchDefects("budget"))

/**
 * The `budget` command.
 *
 * @since 0.2.0
 * @category commands
 */
export const command = Command.make("budget", {
  ...RunCommand.inputParams,
  marginal: Flag.Finite("marginal").pipe(
    Flag.withDescription("SLACK: the window's items that would fall out if the budget shrank by SLACK tokens"),
    Flag.optional
  ),
  minBudgetFor: Flag.String("min-budget-for").pipe(
    Flag.withDescription("CONTENT: the smallest budget whose window holds the first candidate with this content"),
    Flag.optional
  ),
  ceiling: Flag.Finite("ceiling").pipe(
    Flag.withDescription("N: the largest budget --min-budget-for tries (default: the input's maxTokens)"),
    Flag.optional
  ),
  compare: Flag.String("compare").pipe(
    Flag.withDescription(
      "PRESET_OR_FILE: a preset name or a Policy JSON file to compare with the run's policy; repeat the flag " +
        "for more: the items whose status changes"
    ),
    Flag.atLeast(0)
  ),
  text: Flag.Boolean("text").pipe(
    Flag.withDescription("print a table for a person instead of JSON"),
    Flag.withDefault(false)
  )
}, handler).pipe(
  Command.withShortDescription("Budget analyses: marginal items, the smallest budget for an item, policy sensitivity"),
  Command.withDescription(
    "Run the budget analyses of the specification on a `cupel run` input: --marginal SLACK (the items lost if " +
      "the budget shrank by SLACK), --min-budget-for CONTENT [--ceiling N] (the smallest budget that keeps an " +
      "item), or --compare PRESET_OR_FILE… (the items whose status changes between policies). JSON by default, " +
      "--text for a table. Exit codes: 0 success, 1 the run's overflow or pinned items over budget, 2 bad input, " +
      "usage or an analysis the library refuses (quota slicers are not monotonic), 3 a bug in cupel."
  ),
  Command.withExamples([
    { command: "cupel budget input.json --marginal 100" },
    { command: "cupel budget input.json --min-budget-for \"Runbook: …\" --ceiling 8000" },
    { command: "cupel budget input.json --compare chat --compare rag --text" }
  ])
)
