/**
 * `cupel explain [FILE|-]`: the run `cupel run` makes, printed for a person to read — every
 * candidate in input order, in the window or out of it and why, with its tokens and score; then
 * the totals, the report's metrics (`ReportMetrics`) and the stages.
 *
 * Same input, flags and exit codes as `cupel run`; the text goes to standard output, coloured
 * when it is a terminal and `NO_COLOR` is not set, as the demo's.
 *
 * @since 0.2.0
 */
import { Console, Effect } from "effect"
import { Command } from "effect/cli"
import type { ContextItem } from "../ContextItem.ts"
import * as ContextKind from "../ContextKind.ts"
import type { PipelineResult } from "../PipelineResult.ts"
import * as ReportMetrics from "../ReportMetrics.ts"
import type { SlicerConfig } from "../slicers/SlicerConfig.ts"
import * as CliFailure from "./CliFailure.ts"
import * as Demo from "./Demo.ts"
import * as PolicySummary from "./PolicySummary.ts"
import * as Render from "./Render.ts"
import * as RunCommand from "./RunCommand.ts"
import * as RunInput from "./RunInput.ts"
import * as TerminalText from "./TerminalText.ts"

/**
 * One candidate's fate: in the window at `position` (from 1), or out; its score and the reason
 * in words.
 *
 * @since 0.2.0
 * @category models
 */
export interface Fate {
  readonly included: boolean
  readonly position: number | undefined
  readonly score: number
  readonly why: string
}

/**
 * Each candidate's fate, by identity: the report holds the very item objects it was given.
 * `slicer` is the run's, for the words of a budget reason (`Render.humanReason`).
 *
 * @since 0.2.0
 * @category explaining
 */
export const fates = (
  result: PipelineResult,
  items: ReadonlyArray<ContextItem>,
  slicer?: SlicerConfig
): Map<ContextItem, Fate> => {
  const pinned = items.filter((item) => item.pinned)
  const out = new Map<ContextItem, Fate>()
  result.report.included.forEach(({ item, reason, score }, i) =>
    out.set(item, { included: true, position: i + 1, score, why: Render.inclusionWords(reason) })
  )
  for (const { item, reason, score } of result.report.excluded) {
    if (!out.has(item)) out.set(item, { included: false, position: undefined, score, why: Render.humanReason(reason, pinned, slicer) })
  }
  return out
}

const contentWidth = 44

const percent = (x: number): string => `${(x * 100).toFixed(1)}%`

/**
 * The explanation's lines.
 *
 * @since 0.2.0
 * @category rendering
 */
export const render = (
  style: Render.Style,
  loaded: RunInput.Loaded,
  result: PipelineResult,
  utilization: number | undefined
): Array<string> => {
  const { input } = loaded
  const { items, budget } = input
  const { report } = result
  const byItem = fates(result, items, input.slicer)
  const tokens = items.reduce((sum, item) => sum + item.tokens, 0)
  const pinnedCount = items.filter((item) => item.pinned).length
  const excludedTokens = report.excluded.reduce((sum, e) => sum + e.item.tokens, 0)
  const kinds = [...new Set(report.included.map((e) => ContextKind.fold(e.item.kind)))]
  const kindNames = kinds.map((folded) => report.included.find((e) => ContextKind.fold(e.item.kind) === folded)!.item.kind)
  const dated = report.included.filter((e) => e.item.timestamp !== undefined).length
  const diversity = ReportMetrics.kindDiversity(report)
  const coverage = ReportMetrics.timestampCoverage(report)
  const underOver = result.tokensOverBudget > 0
    ? `${Render.count(result.tokensOverBudget)} over the target`
    : `${Render.count(Math.max(0, budget.targetTokens - result.totalTokens))} under the target`
  return [
    // The source, the policy's names and the kinds are the user's text: escaped, as the items are.
    Render.bold(style, `cupel explain: ${TerminalText.escape(loaded.source)}`),
    `${items.length} candidates (${pinnedCount} pinned) · ${Render.count(tokens)} tokens · ` +
    `budget: target ${Render.count(budget.targetTokens)}, max ${Render.count(budget.maxTokens)}`,
    TerminalText.escape(`policy (${loaded.policySource}): ${PolicySummary.line(input)}`),
    "",
    Render.section(
      style,
      `candidates (${items.length}): ${report.included.length} in the window, ${report.excluded.length} left out`
    ),
    Render.dim(
      style,
      `${"#".padStart(4)}    kind  ${Render.fit("content", contentWidth)}  ${"tokens".padStart(6)}  ${
        "score".padStart(5)
      }  ${"status".padEnd(7)}  why`
    ),
    ...items.map((item, i) => {
      const fate = byItem.get(item)
      const status = fate === undefined
        ? Render.dim(style, "—".padEnd(7))
        : fate.included
        ? Render.green(style, `in #${fate.position}`.padEnd(7))
        : Render.red(style, "out".padEnd(7))
      return `${String(i + 1).padStart(4)}  ${item.pinned ? Render.cyan(style, Render.bold(style, "P")) : " "} ${
        Render.kindTag(item.kind).padEnd(4)
      }  ${Render.preview(item.content, contentWidth)}  ${Render.count(item.tokens).padStart(6)}  ${
        (fate === undefined ? "—" : fate.score.toFixed(2)).padStart(5)
      }  ${status}  ${fate === undefined ? Render.dim(style, "not in the report") : fate.why}`
    }),
    Render.dim(style, "P = pinned: skips scoring and slicing, always placed (score 1.00) · # is the input's order"),
    "",
    Render.section(style, "totals"),
    `    window       ${String(report.included.length).padStart(5)} items  ${
      Render.count(result.totalTokens).padStart(8)
    } tokens  (${underOver})`,
    `    left out     ${String(report.excluded.length).padStart(5)} items  ${Render.count(excludedTokens).padStart(8)} tokens`,
    `    considered   ${String(report.totalCandidates).padStart(5)} items  ${
      Render.count(report.totalTokensConsidered).padStart(8)
    } tokens`,
    "",
    Render.section(style, "metrics"),
    `    budget utilization  ${(utilization === undefined ? "n/a" : percent(utilization)).padStart(6)}  ${
      Render.dim(style, `the window's ${Render.count(result.totalTokens)} tokens of maxTokens ${Render.count(budget.maxTokens)}`)
    }`,
    `    kind diversity      ${String(diversity).padStart(6)}  ${
      Render.dim(style, diversity === 0 ? "an empty window" : TerminalText.escape(kindNames.join(", ")))
    }`,
    `    timestamp coverage  ${percent(coverage).padStart(6)}  ${
      Render.dim(style, `${dated} of the ${report.included.length} window items are dated`)
    }`,
    "",
    Render.section(style, "stages"),
    ...Render.stages(style, report.events)
  ]
}

/**
 * Runs `explain` with parsed arguments.
 *
 * @since 0.2.0
 * @category handlers
 */
export const handler = Effect.fn("cli.explain")(function*(config: RunInput.Options) {
  const loaded = yield* RunInput.load("explain", config)
  const result = yield* RunCommand.execute(loaded.input).pipe(
    Effect.catch((error) =>
      RunCommand.reportRunError(
        error._tag === "InvalidConfigError" ? loaded.policySource : loaded.source,
        error,
        "explain"
      )
    )
  )
  // The pipeline has checked every token total of this run, so the window's cannot overflow; the
  // metric has no value only for a window of tokens over a maxTokens of 0 (Proceed): "n/a".
  const utilization = yield* ReportMetrics.budgetUtilization(result.report, loaded.input.budget).pipe(
    Effect.map((u): number | undefined => u),
    Effect.catchTag("InvalidConfigError", () => Effect.succeed(undefined)),
    Effect.orDie
  )
  const style = yield* Demo.style
  yield* Console.log(render(style, loaded, result, utilization).join("\n"))
}, CliFailure.catchDefects("explain"))

/**
 * The `explain` command.
 *
 * @since 0.2.0
 * @category commands
 */
export const command = Command.make("explain", RunCommand.inputParams, handler).pipe(
  Command.withShortDescription("Run the pipeline as `cupel run` does and explain every decision in a table"),
  Command.withDescription(
    "Run the whole pipeline on a `cupel run` input and print, for a person: every candidate in input order, in " +
      "the window (and where) or left out, why, its tokens and score; the totals; the budget utilization, kind " +
      "diversity and timestamp coverage of the window; and the stages. Same input, flags and exit codes as " +
      "`cupel run`."
  ),
  Command.withExamples([
    { command: "cupel explain input.json" },
    { command: "cupel demo --print-sample | cupel explain --preset chat", description: "the sample under a preset" }
  ])
)
