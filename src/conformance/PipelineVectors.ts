/**
 * PipelineVectors: Cupel's `pipeline` vectors — all six stages, end to end, and their
 * diagnostics.
 *
 * `[config]` names the scorers (`[[config.scorers]]`: one entry is that scorer, several a
 * composite with their weights), the slicer (with its own fields, such as `bucket_size`, in
 * `[config]` too), the placer, `deduplication` (default true) and `overflow_strategy` (default
 * `"throw"`). `Pipeline.run` runs the `[[items]]` against `[budget]`; the window must equal
 * `[[expected_output]]` in order.
 *
 * `[expected.diagnostics]` (format.md, "Diagnostics Vectors") is checked against the run's
 * `SelectionReport`: `included` in placed order (content, score within the tolerance, inclusion
 * reason), `excluded` in report order (content, score, exclusion reason, and each data field the
 * entry gives — `item_tokens`, `available_tokens`, `deduplicated_against`, `displaced_by`,
 * `tokens`… — compared with the reason's wire form), and the `summary` counts. Each part is
 * optional.
 *
 * @since 0.2.0
 */
import { Effect, Layer, Result, Schema } from "effect"
import type * as ContextBudget from "../ContextBudget.ts"
import type * as ContextItem from "../ContextItem.ts"
import * as ExclusionReason from "../ExclusionReason.ts"
import { showList } from "../internal/conformanceMessages.ts"
import * as OverflowNotifier from "../OverflowNotifier.ts"
import type * as OverflowStrategy from "../OverflowStrategy.ts"
import * as Pipeline from "../Pipeline.ts"
import * as Policy from "../Policy.ts"
import * as Scorer from "../scorers/Scorer.ts"
import type * as SelectionReport from "../SelectionReport.ts"
import * as Slicer from "../slicers/Slicer.ts"
import {
  decodeEntry,
  decodeSlicer,
  pipelineScorer,
  PlacerName,
  type ScorerEntry,
  SlicerName
} from "./Components.ts"
import {
  compareList,
  compareScore,
  compareValue,
  describeError,
  judge,
  type Mismatch,
  type Outcome
} from "./Report.ts"
import {
  decodeAll,
  decodeAt,
  defaultEmpty,
  ScoreApprox,
  Tolerance,
  VectorBudget,
  VectorItem,
  VectorProblems
} from "./Vector.ts"

/**
 * An expected `[[expected.diagnostics.included]]` entry.
 *
 * @since 0.2.0
 * @category models
 */
export interface ExpectedIncluded {
  readonly content: string
  readonly scoreApprox: number
  readonly reason: "Scored" | "Pinned" | "ZeroToken"
}

/**
 * An expected `[[expected.diagnostics.excluded]]` entry. `data` holds the reason's fields the
 * entry gives, by their wire names (`item_tokens`, `deduplicated_against`…).
 *
 * @since 0.2.0
 * @category models
 */
export interface ExpectedExcluded {
  readonly content: string
  readonly scoreApprox: number
  readonly reason: ExclusionReason.ExclusionReason["_tag"]
  readonly data: ReadonlyArray<readonly [field: string, value: number | string]>
}

/**
 * `[expected.diagnostics]`: each part is checked only when given.
 *
 * @since 0.2.0
 * @category models
 */
export interface ExpectedDiagnostics {
  readonly included: ReadonlyArray<ExpectedIncluded> | undefined
  readonly excluded: ReadonlyArray<ExpectedExcluded> | undefined
  readonly totalCandidates: number | undefined
  readonly totalTokensConsidered: number | undefined
}

/**
 * A Cupel `pipeline` vector.
 *
 * @since 0.2.0
 * @category models
 */
export interface PipelineVector {
  readonly _tag: "PipelineVector"
  readonly file: string
  readonly name: string
  readonly items: ReadonlyArray<ContextItem.ContextItem>
  readonly budget: ContextBudget.ContextBudget
  readonly scorers: ReadonlyArray<ScorerEntry>
  readonly slicer: Policy.SlicerConfig
  readonly placer: PlacerName
  readonly deduplication: boolean
  readonly overflowStrategy: OverflowStrategy.OverflowStrategy
  readonly expectedOutput: ReadonlyArray<string>
  readonly diagnostics: ExpectedDiagnostics | undefined
  readonly epsilon: number
}

const ExclusionReasonName = Schema.Literals([
  "BudgetExceeded",
  "ScoredTooLow",
  "Deduplicated",
  "QuotaCapExceeded",
  "CountCapExceeded",
  "QuotaRequireDisplaced",
  "NegativeTokens",
  "PinnedOverride",
  "Filtered"
])

// The data fields of the reasons, by wire name, as the reasons' encoded form spells them.
const reasonData = {
  item_tokens: Schema.optionalKey(Schema.Int),
  available_tokens: Schema.optionalKey(Schema.Int),
  deduplicated_against: Schema.optionalKey(Schema.String),
  displaced_by: Schema.optionalKey(Schema.String),
  tokens: Schema.optionalKey(Schema.Int),
  kind: Schema.optionalKey(Schema.String),
  cap: Schema.optionalKey(Schema.Int),
  actual: Schema.optionalKey(Schema.Int),
  count: Schema.optionalKey(Schema.Int),
  displaced_by_kind: Schema.optionalKey(Schema.String),
  score: Schema.optionalKey(Schema.Number),
  threshold: Schema.optionalKey(Schema.Number),
  filter_name: Schema.optionalKey(Schema.String)
}
const reasonDataFields = Object.keys(reasonData)

// format.md marks these fields "conditional": required with their reason.
const requiredData: Partial<Record<typeof ExclusionReasonName.Type, ReadonlyArray<string>>> = {
  BudgetExceeded: ["item_tokens", "available_tokens"],
  Deduplicated: ["deduplicated_against"]
}

const ExcludedToml = Schema.Struct({
  content: Schema.String,
  score_approx: ScoreApprox,
  exclusion_reason: ExclusionReasonName,
  ...reasonData
}).check(
  Schema.makeFilter((entry) => {
    const missing = (requiredData[entry.exclusion_reason] ?? []).find((field) => !(field in entry))
    return missing === undefined || {
      path: [missing],
      issue: `is required when exclusion_reason = ${JSON.stringify(entry.exclusion_reason)}`
    }
  })
)

const IncludedToml = Schema.Struct({
  content: Schema.String,
  score_approx: ScoreApprox,
  inclusion_reason: Schema.Literals(["Scored", "Pinned", "ZeroToken"])
})

const DiagnosticsToml = Schema.Struct({
  included: Schema.optionalKey(Schema.Array(IncludedToml)),
  excluded: Schema.optionalKey(Schema.Array(ExcludedToml)),
  summary: Schema.optionalKey(Schema.Struct({
    total_candidates: Schema.optionalKey(Schema.Int),
    total_tokens_considered: Schema.optionalKey(Schema.Int)
  }))
})

const PipelineVectorToml = Schema.Struct({
  test: Schema.Struct({ name: Schema.String, stage: Schema.Literal("pipeline") }),
  budget: VectorBudget,
  config: Schema.Struct({
    slicer: SlicerName,
    placer: PlacerName,
    deduplication: Schema.Boolean.pipe(Schema.withDecodingDefaultKey(Effect.succeed(true))),
    overflow_strategy: Policy.OverflowStrategyName.pipe(Schema.withDecodingDefaultKey(Effect.succeed("throw"))),
    scorers: Schema.Array(Schema.Record(Schema.String, Schema.Unknown)).check(
      Schema.makeFilter((scorers) => scorers.length > 0 || "a pipeline needs at least one scorer")
    )
  }),
  items: defaultEmpty(VectorItem),
  expected_output: defaultEmpty(Schema.Struct({ content: Schema.String })),
  expected: Schema.optionalKey(Schema.Struct({ diagnostics: Schema.optionalKey(DiagnosticsToml) })),
  tolerance: Tolerance
})

type DiagnosticsToml = typeof DiagnosticsToml.Type

const expectedDiagnostics = (d: DiagnosticsToml): ExpectedDiagnostics => ({
  included: d.included?.map((e) => ({ content: e.content, scoreApprox: e.score_approx, reason: e.inclusion_reason })),
  excluded: d.excluded?.map((e) => {
    const data: Array<readonly [string, number | string]> = []
    for (const [field, value] of Object.entries(e)) {
      if (reasonDataFields.includes(field) && (typeof value === "number" || typeof value === "string")) {
        data.push([field, value])
      }
    }
    return { content: e.content, scoreApprox: e.score_approx, reason: e.exclusion_reason, data }
  }),
  totalCandidates: d.summary?.total_candidates,
  totalTokensConsidered: d.summary?.total_tokens_considered
})

/**
 * Decodes a `pipeline` vector from its parsed TOML.
 *
 * @since 0.2.0
 * @category decoding
 */
export const decode = (file: string, table: unknown): Effect.Effect<PipelineVector, VectorProblems> =>
  Effect.gen(function*() {
    const v = yield* decodeAt(PipelineVectorToml, table)
    const config: unknown = typeof table === "object" && table !== null && "config" in table ? table.config : {}
    const scorers = yield* Effect.result(
      decodeAll(v.config.scorers.map((entry, i) => decodeEntry(entry, ["config", "scorers", i])))
    )
    const slicer = yield* Effect.result(decodeSlicer(v.config.slicer, config, ["config"]))
    if (Result.isFailure(scorers) || Result.isFailure(slicer)) {
      return yield* new VectorProblems({
        problems: [
          ...(Result.isFailure(scorers) ? scorers.failure.problems : []),
          ...(Result.isFailure(slicer) ? slicer.failure.problems : [])
        ]
      })
    }
    return {
      _tag: "PipelineVector",
      file,
      name: v.test.name,
      items: v.items,
      budget: v.budget,
      scorers: scorers.success,
      slicer: slicer.success,
      placer: v.config.placer,
      deduplication: v.config.deduplication,
      overflowStrategy: v.config.overflow_strategy,
      expectedOutput: v.expected_output.map((e) => e.content),
      diagnostics: v.expected?.diagnostics === undefined ? undefined : expectedDiagnostics(v.expected.diagnostics),
      epsilon: v.tolerance.score_epsilon
    }
  })

const encodeReason = Schema.encodeEffect(ExclusionReason.ExclusionReason)

const compareIncluded = (
  expected: ReadonlyArray<ExpectedIncluded>,
  actual: SelectionReport.SelectionReport["included"],
  epsilon: number
): Array<Mismatch> => {
  const field = "diagnostics.included"
  const contents = compareList(field, expected.map((e) => e.content), actual.map((a) => a.item.content))
  if (contents.length > 0) return contents
  return expected.flatMap((e, i) => {
    const a = actual[i]!
    const at = `${field}[${i}] ${JSON.stringify(e.content)}`
    return [
      ...compareScore(`${at} score`, e.scoreApprox, a.score, epsilon),
      ...compareValue(`${at} inclusion_reason`, e.reason, a.reason._tag)
    ]
  })
}

const compareExcluded = Effect.fnUntraced(function*(
  expected: ReadonlyArray<ExpectedExcluded>,
  actual: SelectionReport.SelectionReport["excluded"],
  epsilon: number
) {
  const field = "diagnostics.excluded"
  const contents = compareList(field, expected.map((e) => e.content), actual.map((a) => a.item.content))
  if (contents.length > 0) return contents
  const mismatches: Array<Mismatch> = []
  for (let i = 0; i < expected.length; i++) {
    const e = expected[i]!
    const a = actual[i]!
    const at = `${field}[${i}] ${JSON.stringify(e.content)}`
    mismatches.push(...compareScore(`${at} score`, e.scoreApprox, a.score, epsilon))
    if (e.reason !== a.reason._tag) {
      // The data of another reason would only repeat the difference.
      mismatches.push(...compareValue(`${at} exclusion_reason`, e.reason, a.reason._tag))
      continue
    }
    const wire = yield* Effect.result(encodeReason(a.reason))
    if (Result.isFailure(wire)) {
      mismatches.push({ field: `${at} exclusion_reason`, expected: e.reason, actual: describeError(wire.failure) })
      continue
    }
    const encoded: Record<string, unknown> = { ...wire.success }
    for (const [name, value] of e.data) mismatches.push(...compareValue(`${at} ${name}`, value, encoded[name]))
  }
  return mismatches
})

const compareDiagnostics = Effect.fnUntraced(function*(
  expected: ExpectedDiagnostics,
  report: SelectionReport.SelectionReport,
  epsilon: number
) {
  return [
    ...(expected.totalCandidates === undefined
      ? []
      : compareValue("diagnostics.summary.total_candidates", expected.totalCandidates, report.totalCandidates)),
    ...(expected.totalTokensConsidered === undefined
      ? []
      : compareValue(
        "diagnostics.summary.total_tokens_considered",
        expected.totalTokensConsidered,
        report.totalTokensConsidered
      )),
    ...(expected.included === undefined ? [] : compareIncluded(expected.included, report.included, epsilon)),
    ...(expected.excluded === undefined ? [] : yield* compareExcluded(expected.excluded, report.excluded, epsilon))
  ]
})

/**
 * Runs a `pipeline` vector.
 *
 * @since 0.2.0
 * @category running
 */
export const run = Effect.fn("Conformance.runPipeline")(function*(vector: PipelineVector): Effect.fn.Return<Outcome> {
  // Built as a policy's components are; the path "" keeps the modules' own option paths.
  const built = yield* Effect.result(
    Effect.all([Policy.scorer(pipelineScorer(vector.scorers), ""), Policy.slicer(vector.slicer, "")])
  )
  if (Result.isFailure(built)) {
    const error = built.failure
    return judge(vector, "pipeline", [{ field: "config", expected: "a pipeline", actual: describeError(error) }])
  }
  const [scorer, slicer] = built.success
  const layers = Layer.mergeAll(
    Scorer.layer(scorer),
    Slicer.layer(slicer),
    Policy.placer({ type: vector.placer }, ""),
    OverflowNotifier.layerNoop
  )
  const ran = yield* Effect.result(
    Pipeline.run(vector.items, vector.budget, {
      deduplication: vector.deduplication,
      overflowStrategy: vector.overflowStrategy
    }).pipe(Effect.provide(layers))
  )
  if (Result.isFailure(ran)) {
    return judge(vector, "pipeline", [{
      field: "expected_output",
      expected: showList(vector.expectedOutput),
      actual: describeError(ran.failure)
    }])
  }
  const { report, window } = ran.success
  return judge(vector, "pipeline", [
    ...compareList("expected_output", vector.expectedOutput, window.map((item) => item.content)),
    ...(vector.diagnostics === undefined ? [] : yield* compareDiagnostics(vector.diagnostics, report, vector.epsilon))
  ])
})
