/**
 * Components: the scorers, slicers, placers and overflow strategies that vectors name, decoded
 * from their tables and built as effect-cupel values.
 *
 * A scorer is named by `[test] scorer` (scoring vectors) or by the `type` of a
 * `[[config.scorers]]` entry (pipeline vectors, composite scorers), and configured by the fields
 * of the table it is named in:
 *
 * | type | fields |
 * |---|---|
 * | `recency`, `priority`, `frequency`, `reflexive` | none |
 * | `kind` | `use_default_weights` (bool), `[[weights]]` (`kind`, `weight`); the defaults when no weights are given |
 * | `tag` | `[[tag_weights]]` (`tag`, `weight`) |
 * | `composite` | `[[scorers]]` at the top of `[config]`, `[[children]]` in an entry: each a table with `type`, `weight` and the child's own fields |
 * | `scaled` | `inner_scorer`: a name, or a table with `type` and the inner scorer's fields |
 * | `decay` | `reference_time` (the fixed "now"), `null_timestamp_score`, `[curve]` (`type` = `exponential` with `half_life_secs`, `window` with `max_age_secs`, `step` with `[[windows]]` of `max_age_secs` and `score`) |
 * | `metadata_trust` | `default_score` |
 * | `metadata_key` | `key`, `value`, `boost` |
 *
 * Decoding checks the shape of the fields (a weight is a number…); the scorers' own rules (a
 * weight is not negative, a boost is positive…) are theirs to check, and a break of one is
 * their `InvalidConfigError`, which is what `expect_construction_error` vectors look for.
 *
 * @since 0.2.0
 */
import { Data, type DateTime, Duration, Effect, type Layer, Result, Schema } from "effect"
import type { InvalidConfigError } from "../InvalidConfigError.ts"
import type * as OverflowStrategy from "../OverflowStrategy.ts"
import type * as Placer from "../Placer.ts"
import * as ChronologicalPlacer from "../placers/ChronologicalPlacer.ts"
import * as UShapedPlacer from "../placers/UShapedPlacer.ts"
import type * as Scorer from "../Scorer.ts"
import * as CompositeScorer from "../scorers/CompositeScorer.ts"
import * as DecayScorer from "../scorers/DecayScorer.ts"
import * as FrequencyScorer from "../scorers/FrequencyScorer.ts"
import * as KindScorer from "../scorers/KindScorer.ts"
import * as MetadataKeyScorer from "../scorers/MetadataKeyScorer.ts"
import * as MetadataTrustScorer from "../scorers/MetadataTrustScorer.ts"
import * as PriorityScorer from "../scorers/PriorityScorer.ts"
import * as RecencyScorer from "../scorers/RecencyScorer.ts"
import * as ReflexiveScorer from "../scorers/ReflexiveScorer.ts"
import * as ScaledScorer from "../scorers/ScaledScorer.ts"
import * as TagScorer from "../scorers/TagScorer.ts"
import type * as Slicer from "../Slicer.ts"
import * as CountConstrainedKnapsackSlice from "../slicers/CountConstrainedKnapsackSlice.ts"
import * as CountQuotaSlice from "../slicers/CountQuotaSlice.ts"
import * as GreedySlice from "../slicers/GreedySlice.ts"
import * as KnapsackSlice from "../slicers/KnapsackSlice.ts"
import * as QuotaSlice from "../slicers/QuotaSlice.ts"
import { decodeAll, decodeAt, VectorInstant, VectorProblems } from "./Vector.ts"

// ---------------------------------------------------------------------------------------------
// Placers and overflow strategies
// ---------------------------------------------------------------------------------------------

/**
 * A placer as vectors (and the `cupel` command) name it.
 *
 * @since 0.1.0
 * @category names
 */
export const PlacerName = Schema.Literals(["u-shaped", "chronological"])

/**
 * @since 0.1.0
 * @category names
 */
export type PlacerName = typeof PlacerName.Type

/**
 * The placer layer a name stands for.
 *
 * @since 0.1.0
 * @category names
 */
export const placerLayer = (name: PlacerName): Layer.Layer<Placer.Placer> =>
  name === "u-shaped" ? UShapedPlacer.layer : ChronologicalPlacer.layer

/**
 * An overflow strategy as vectors (and the `cupel` command) name it: lower case.
 *
 * @since 0.1.0
 * @category names
 */
export const OverflowStrategyName = Schema.Literals(["throw", "truncate", "proceed"])

/**
 * @since 0.1.0
 * @category names
 */
export type OverflowStrategyName = typeof OverflowStrategyName.Type

/**
 * The library's strategy for a lower-case name.
 *
 * @since 0.1.0
 * @category names
 */
export const overflowStrategy = (name: OverflowStrategyName): OverflowStrategy.OverflowStrategy => {
  switch (name) {
    case "throw":
      return "Throw"
    case "truncate":
      return "Truncate"
    case "proceed":
      return "Proceed"
  }
}

// ---------------------------------------------------------------------------------------------
// Unavailable components
// ---------------------------------------------------------------------------------------------

/**
 * A vector names a component effect-cupel does not implement yet: its vector is skipped, with
 * this reason, never passed or failed.
 *
 * @since 0.2.0
 * @category errors
 */
export class ComponentUnavailable extends Data.TaggedError("ComponentUnavailable")<{
  readonly reason: string
}> {}

// ---------------------------------------------------------------------------------------------
// Scorers
// ---------------------------------------------------------------------------------------------

/**
 * Every scorer a vector may name.
 *
 * @since 0.2.0
 * @category names
 */
export const ScorerName = Schema.Literals([
  "recency",
  "priority",
  "kind",
  "tag",
  "frequency",
  "reflexive",
  "composite",
  "scaled",
  "decay",
  "metadata_trust",
  "metadata_key"
])

/**
 * @since 0.2.0
 * @category names
 */
export type ScorerName = typeof ScorerName.Type

/**
 * A decoded scorer configuration, ready to be built.
 *
 * @since 0.2.0
 * @category models
 */
export type ScorerSpec =
  | { readonly type: "recency" | "priority" | "frequency" | "reflexive" }
  | { readonly type: "kind"; readonly weights: ReadonlyMap<string, number> | undefined }
  | { readonly type: "tag"; readonly weights: ReadonlyMap<string, number> }
  | { readonly type: "composite"; readonly children: ReadonlyArray<WeightedScorerSpec> }
  | { readonly type: "scaled"; readonly inner: ScorerSpec }
  | {
    readonly type: "decay"
    readonly curve: DecayScorer.Curve
    readonly nullTimestampScore: number | undefined
    readonly referenceTime: DateTime.Utc
  }
  | { readonly type: "metadata_trust"; readonly defaultScore: number | undefined }
  | { readonly type: "metadata_key"; readonly key: string; readonly value: string; readonly boost: number }

/**
 * A scorer with its weight, as a composite's child.
 *
 * @since 0.2.0
 * @category models
 */
export interface WeightedScorerSpec {
  readonly scorer: ScorerSpec
  readonly weight: number
}

const AnyTable = Schema.Record(Schema.String, Schema.Unknown)
const Tables = Schema.Array(AnyTable)
const CompositeScorers = Schema.Struct({ scorers: Tables })
const CompositeChildren = Schema.Struct({ children: Tables })

const KindConfig = Schema.Struct({
  use_default_weights: Schema.optionalKey(Schema.Boolean),
  weights: Schema.optionalKey(Schema.Array(Schema.Struct({ kind: Schema.String, weight: Schema.Number })))
})
const TagConfig = Schema.Struct({
  tag_weights: Schema.Array(Schema.Struct({ tag: Schema.String, weight: Schema.Number }))
})
const ScaledConfig = Schema.Struct({ inner_scorer: Schema.Union([ScorerName, AnyTable]) })
const DecayConfig = Schema.Struct({
  reference_time: VectorInstant,
  null_timestamp_score: Schema.optionalKey(Schema.Number),
  curve: AnyTable
})
const CurveType = Schema.Struct({ type: Schema.Literals(["exponential", "window", "step"]) })
const ExponentialCurve = Schema.Struct({ half_life_secs: Schema.Number })
const WindowCurve = Schema.Struct({ max_age_secs: Schema.Number })
const StepCurve = Schema.Struct({
  windows: Schema.Array(Schema.Struct({ max_age_secs: Schema.Number, score: Schema.Number }))
})
const MetadataTrustConfig = Schema.Struct({ default_score: Schema.optionalKey(Schema.Number) })
const MetadataKeyConfig = Schema.Struct({ key: Schema.String, value: Schema.String, boost: Schema.Number })
const EntryHead = Schema.Struct({ type: ScorerName, weight: Schema.Number })
const InnerHead = Schema.Struct({ type: ScorerName })

const weightMap = <K extends string>(
  entries: ReadonlyArray<{ readonly weight: number } & { readonly [key in K]: string }>,
  key: K
): ReadonlyMap<string, number> => new Map(entries.map((entry) => [entry[key], entry.weight]))

const decodeCurve = (table: unknown, path: ReadonlyArray<PropertyKey>): Effect.Effect<DecayScorer.Curve, VectorProblems> =>
  Effect.flatMap(decodeAt(CurveType, table, path), ({ type }) => {
    switch (type) {
      case "exponential":
        return Effect.map(
          decodeAt(ExponentialCurve, table, path),
          (c) => DecayScorer.exponential(Duration.seconds(c.half_life_secs))
        )
      case "window":
        return Effect.map(decodeAt(WindowCurve, table, path), (c) => DecayScorer.window(Duration.seconds(c.max_age_secs)))
      case "step":
        return Effect.map(decodeAt(StepCurve, table, path), (c) =>
          DecayScorer.step(c.windows.map((w) => ({ maxAge: Duration.seconds(w.max_age_secs), score: w.score }))))
    }
  })

/**
 * Decodes the configuration of a scorer of type `type` from `table`, found at `path` in the
 * vector. A composite's children are read from `childrenKey` (`scorers` at the top of
 * `[config]`, `children` in a `[[config.scorers]]` entry).
 *
 * @since 0.2.0
 * @category decoding
 */
export const decodeScorer = (
  type: ScorerName,
  table: unknown,
  path: ReadonlyArray<PropertyKey>,
  childrenKey: "scorers" | "children" = "children"
): Effect.Effect<ScorerSpec, VectorProblems> => {
  switch (type) {
    case "recency":
    case "priority":
    case "frequency":
    case "reflexive":
      return Effect.succeed({ type })
    case "kind":
      return Effect.map(decodeAt(KindConfig, table, path), (c): ScorerSpec => ({
        type,
        weights: c.use_default_weights === true || c.weights === undefined ? undefined : weightMap(c.weights, "kind")
      }))
    case "tag":
      return Effect.map(decodeAt(TagConfig, table, path), (c): ScorerSpec => ({
        type,
        weights: weightMap(c.tag_weights, "tag")
      }))
    case "composite":
      return Effect.gen(function*() {
        const entries = childrenKey === "scorers"
          ? (yield* decodeAt(CompositeScorers, table, path)).scorers
          : (yield* decodeAt(CompositeChildren, table, path)).children
        const children = yield* decodeAll(entries.map((entry, i) => decodeEntry(entry, [...path, childrenKey, i])))
        return { type, children }
      })
    case "scaled":
      return Effect.gen(function*() {
        const { inner_scorer } = yield* decodeAt(ScaledConfig, table, path)
        const innerPath = [...path, "inner_scorer"]
        if (typeof inner_scorer === "string") {
          return { type, inner: yield* decodeScorer(inner_scorer, {}, innerPath) }
        }
        const head = yield* decodeAt(InnerHead, inner_scorer, innerPath)
        return { type, inner: yield* decodeScorer(head.type, inner_scorer, innerPath) }
      })
    case "decay":
      return Effect.gen(function*() {
        const c = yield* decodeAt(DecayConfig, table, path)
        const curve = yield* decodeCurve(c.curve, [...path, "curve"])
        return { type, curve, nullTimestampScore: c.null_timestamp_score, referenceTime: c.reference_time }
      })
    case "metadata_trust":
      return Effect.map(decodeAt(MetadataTrustConfig, table, path), (c): ScorerSpec => ({
        type,
        defaultScore: c.default_score
      }))
    case "metadata_key":
      return Effect.map(decodeAt(MetadataKeyConfig, table, path), (c): ScorerSpec => ({ type, ...c }))
  }
}

/**
 * Decodes one `[[config.scorers]]` (or `[[children]]`) entry: `type`, `weight`, and the
 * scorer's own fields.
 *
 * @since 0.2.0
 * @category decoding
 */
export const decodeEntry = (
  table: unknown,
  path: ReadonlyArray<PropertyKey>
): Effect.Effect<WeightedScorerSpec, VectorProblems> =>
  Effect.gen(function*() {
    const head = yield* decodeAt(EntryHead, table, path)
    const scorer = yield* decodeScorer(head.type, table, path)
    return { scorer, weight: head.weight }
  })

/**
 * Builds a scorer. Fails with the scorer's `InvalidConfigError` when its configuration breaks a
 * rule of its chapter.
 *
 * @since 0.2.0
 * @category constructors
 */
export const buildScorer = (
  spec: ScorerSpec
): Effect.Effect<Scorer.Definition, InvalidConfigError | ComponentUnavailable> => {
  switch (spec.type) {
    case "recency":
      return Effect.succeed(RecencyScorer.make())
    case "priority":
      return Effect.succeed(PriorityScorer.make())
    case "reflexive":
      return Effect.succeed(ReflexiveScorer.make())
    case "frequency":
      return Effect.succeed(FrequencyScorer.make())
    case "kind":
      return KindScorer.make(spec.weights)
    case "tag":
      return TagScorer.make(spec.weights)
    case "composite":
      return Effect.gen(function*() {
        const entries: Array<CompositeScorer.Entry> = []
        for (const child of spec.children) entries.push({ scorer: yield* buildScorer(child.scorer), weight: child.weight })
        return yield* CompositeScorer.make(entries)
      })
    case "scaled":
      return Effect.map(buildScorer(spec.inner), ScaledScorer.make)
    case "decay":
      return DecayScorer.make({
        curve: spec.curve,
        referenceTime: spec.referenceTime,
        ...(spec.nullTimestampScore === undefined ? {} : { nullTimestampScore: spec.nullTimestampScore })
      })
    case "metadata_trust":
      return MetadataTrustScorer.make(spec.defaultScore === undefined ? {} : { defaultScore: spec.defaultScore })
    case "metadata_key":
      return MetadataKeyScorer.make({ key: spec.key, value: spec.value, boost: spec.boost })
  }
}

/**
 * The pipeline's scorer from its `[[config.scorers]]` entries: one entry is that scorer (its
 * weight unused), several are a composite with their weights.
 *
 * @since 0.2.0
 * @category constructors
 */
export const buildPipelineScorer = (
  entries: ReadonlyArray<WeightedScorerSpec>
): Effect.Effect<Scorer.Definition, InvalidConfigError | ComponentUnavailable> =>
  entries.length === 1
    ? buildScorer(entries[0]!.scorer)
    : buildScorer({ type: "composite", children: entries })

// ---------------------------------------------------------------------------------------------
// Slicers
// ---------------------------------------------------------------------------------------------

/**
 * Every slicer a vector may name.
 *
 * @since 0.2.0
 * @category names
 */
export const SlicerName = Schema.Literals(["greedy", "knapsack", "quota", "count_quota", "count_constrained_knapsack"])

/**
 * @since 0.2.0
 * @category names
 */
export type SlicerName = typeof SlicerName.Type

/**
 * How a vector writes a count quota's scarcity behavior: lower case.
 *
 * @since 0.2.0
 * @category names
 */
export const ScarcityName = Schema.Literals(["degrade", "throw"])

/**
 * One count-quota entry as decoded: `require_count` (default 0) and `cap_count` (default: no cap).
 *
 * @since 0.2.0
 * @category models
 */
export interface CountEntrySpec {
  readonly kind: string
  readonly requireCount: number
  readonly capCount: number | undefined
}

/**
 * One percentage quota as decoded: `require` (default 0) and `cap` (default 100).
 *
 * @since 0.2.0
 * @category models
 */
export interface QuotaSpec {
  readonly kind: string
  readonly require: number | undefined
  readonly cap: number | undefined
}

/**
 * A decoded slicer configuration.
 *
 * @since 0.2.0
 * @category models
 */
export type SlicerSpec =
  | { readonly type: "greedy" }
  | { readonly type: "knapsack"; readonly bucketSize: number }
  | { readonly type: "quota"; readonly inner: SlicerSpec; readonly quotas: ReadonlyArray<QuotaSpec> }
  | {
    readonly type: "count_quota"
    readonly inner: SlicerSpec
    readonly entries: ReadonlyArray<CountEntrySpec>
    readonly scarcity: CountQuotaSlice.ScarcityBehavior
  }
  | {
    readonly type: "count_constrained_knapsack"
    readonly bucketSize: number
    readonly entries: ReadonlyArray<CountEntrySpec>
    readonly scarcity: CountQuotaSlice.ScarcityBehavior
  }

/**
 * The knapsack's bucket size when `bucket_size` is absent (format.md: 100).
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultBucketSize = KnapsackSlice.defaultBucketSize

const KnapsackConfig = Schema.Struct({ bucket_size: Schema.optionalKey(Schema.Number) })
const InnerSlicerConfig = Schema.Struct({ inner_slicer: Schema.optionalKey(Schema.Union([SlicerName, AnyTable])) })
const InnerSlicerHead = Schema.Struct({ type: SlicerName })
const QuotaConfig = Schema.Struct({
  quotas: Schema.Array(Schema.Struct({
    kind: Schema.String,
    require: Schema.optionalKey(Schema.Number),
    cap: Schema.optionalKey(Schema.Number)
  }))
})
const CountQuotaConfig = Schema.Struct({
  scarcity_behavior: Schema.optionalKey(ScarcityName),
  entries: Schema.Array(Schema.Struct({
    kind: Schema.String,
    require_count: Schema.optionalKey(Schema.Number),
    cap_count: Schema.optionalKey(Schema.Number)
  }))
})
const KnapsackInner = Schema.Struct({ inner_slicer: Schema.optionalKey(Schema.Literal("knapsack")) })

const decodeCountQuota = (table: unknown, path: ReadonlyArray<PropertyKey>) =>
  Effect.map(decodeAt(CountQuotaConfig, table, path), (c) => ({
    scarcity: c.scarcity_behavior === "throw" ? "Throw" as const : "Degrade" as const,
    entries: c.entries.map((e): CountEntrySpec => ({
      kind: e.kind,
      requireCount: e.require_count ?? 0,
      capCount: e.cap_count
    }))
  }))

/**
 * A decorator's `inner_slicer` (default `greedy`): a name, configured by the fields of the table
 * it is named in (a knapsack's `bucket_size`), or an inline table with `type` and the inner
 * slicer's own fields. A quota slicer named as a string would read the decorator's own table
 * again: it must have a table of its own.
 */
const decodeInner = (table: unknown, path: ReadonlyArray<PropertyKey>): Effect.Effect<SlicerSpec, VectorProblems> =>
  Effect.gen(function*() {
    const { inner_slicer } = yield* decodeAt(InnerSlicerConfig, table, path)
    const innerPath = [...path, "inner_slicer"]
    if (inner_slicer === undefined) return { type: "greedy" as const }
    if (typeof inner_slicer === "string") {
      if (inner_slicer === "greedy" || inner_slicer === "knapsack") return yield* decodeSlicer(inner_slicer, table, path)
      return yield* new VectorProblems({
        problems: [`${innerPath.join(".")}: a ${inner_slicer} slicer as the inner slicer needs a table of its own (type and fields)`]
      })
    }
    const head = yield* decodeAt(InnerSlicerHead, inner_slicer, innerPath)
    return yield* decodeSlicer(head.type, inner_slicer, innerPath)
  })

/**
 * Decodes a slicer's configuration from the table it is configured in (`[config]`):
 *
 * | slicer | fields |
 * |---|---|
 * | `greedy` | none |
 * | `knapsack` | `bucket_size` (default 100) |
 * | `quota` | `inner_slicer` (default `greedy`), `[[quotas]]` (`kind`, `require`, `cap`: percentages) |
 * | `count_quota` | `inner_slicer` (default `greedy`), `scarcity_behavior` (`degrade` default, `throw`), `[[entries]]` (`kind`, `require_count` default 0, `cap_count` default none) |
 * | `count_constrained_knapsack` | `bucket_size`, `scarcity_behavior`, `[[entries]]`; `inner_slicer` may only say `knapsack` |
 *
 * @since 0.2.0
 * @category decoding
 */
export const decodeSlicer = (
  type: SlicerName,
  table: unknown,
  path: ReadonlyArray<PropertyKey>
): Effect.Effect<SlicerSpec, VectorProblems> => {
  switch (type) {
    case "greedy":
      return Effect.succeed({ type })
    case "knapsack":
      return Effect.map(
        decodeAt(KnapsackConfig, table, path),
        (c): SlicerSpec => ({ type, bucketSize: c.bucket_size ?? defaultBucketSize })
      )
    case "quota":
      return Effect.map(
        together(decodeInner(table, path), decodeAt(QuotaConfig, table, path)),
        ([inner, config]): SlicerSpec => ({
          type,
          inner,
          quotas: config.quotas.map((q) => ({ kind: q.kind, require: q.require, cap: q.cap }))
        })
      )
    case "count_quota":
      return Effect.map(
        together(decodeInner(table, path), decodeCountQuota(table, path)),
        ([inner, config]): SlicerSpec => ({ type, inner, ...config })
      )
    case "count_constrained_knapsack":
      return Effect.map(
        together(
          decodeAt(KnapsackConfig, table, path),
          together(decodeAt(KnapsackInner, table, path), decodeCountQuota(table, path))
        ),
        ([knapsack, [, config]]): SlicerSpec => ({
          type,
          bucketSize: knapsack.bucket_size ?? defaultBucketSize,
          ...config
        })
      )
  }
}

/** Two independent decoders, reporting the problems of both. */
const together = <A, B>(
  first: Effect.Effect<A, VectorProblems>,
  second: Effect.Effect<B, VectorProblems>
): Effect.Effect<readonly [A, B], VectorProblems> =>
  Effect.flatMap(Effect.all([Effect.result(first), Effect.result(second)]), ([a, b]) =>
    Result.isSuccess(a) && Result.isSuccess(b)
      ? Effect.succeed([a.success, b.success] as const)
      : Effect.fail(
        new VectorProblems({
          problems: [
            ...(Result.isFailure(a) ? a.failure.problems : []),
            ...(Result.isFailure(b) ? b.failure.problems : [])
          ]
        })
      ))

/**
 * Builds a slicer. Fails with the slicer's `InvalidConfigError` when its configuration breaks a
 * rule of its chapter (a knapsack inside a count quota, a require above its cap…).
 *
 * @since 0.2.0
 * @category constructors
 */
export const buildSlicer = (
  spec: SlicerSpec
): Effect.Effect<Slicer.Definition, InvalidConfigError | ComponentUnavailable> => {
  switch (spec.type) {
    case "greedy":
      return Effect.succeed(GreedySlice.make())
    case "knapsack":
      return KnapsackSlice.make({ bucketSize: spec.bucketSize })
    case "quota":
      return Effect.flatMap(buildSlicer(spec.inner), (inner) => QuotaSlice.make({ inner, quotas: spec.quotas }))
    case "count_quota":
      return Effect.flatMap(
        buildSlicer(spec.inner),
        (inner) => CountQuotaSlice.make({ inner, entries: spec.entries, scarcity: spec.scarcity })
      )
    case "count_constrained_knapsack":
      return CountConstrainedKnapsackSlice.make({
        entries: spec.entries,
        scarcity: spec.scarcity,
        bucketSize: spec.bucketSize
      })
  }
}
