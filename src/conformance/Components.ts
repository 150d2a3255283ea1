/**
 * Components: the scorers, slicers, placers and overflow strategies that vectors name, decoded
 * from their tables into a policy's configuration (`Policy.ScorerConfig`, `Policy.SlicerConfig`)
 * and built, as every configuration is, by `Policy.scorer` and `Policy.slicer`.
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
 * Decoding checks the shape of the fields (a weight is a number…) and translates the vector's
 * snake_case fields into the policy's camelCase ones; the scorers' own rules (a weight is not
 * negative, a boost is positive…) are theirs to check when `Policy.scorer` builds them, and a
 * break of one is their `InvalidConfigError`, which is what `expect_construction_error` vectors
 * look for.
 *
 * @since 0.2.0
 */
import { Effect, type Layer, Result, Schema } from "effect"
import type * as OverflowStrategy from "../OverflowStrategy.ts"
import type * as Placer from "../placers/Placer.ts"
import * as ChronologicalPlacer from "../placers/ChronologicalPlacer.ts"
import * as UShapedPlacer from "../placers/UShapedPlacer.ts"
import * as Policy from "../Policy.ts"
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
 * An overflow strategy as vectors (and the `cupel` command) name it: lower case. The JSON side
 * of `Policy.OverflowStrategyName`, which maps it to the library's strategy.
 *
 * @since 0.1.0
 * @category names
 */
export const OverflowStrategyName = Policy.OverflowStrategyName.from

/**
 * @since 0.1.0
 * @category names
 */
export type OverflowStrategyName = typeof OverflowStrategyName.Type

const decodeStrategy = Schema.decodeSync(Policy.OverflowStrategyName)

/**
 * The library's strategy for a lower-case name, by `Policy.OverflowStrategyName` (a name of
 * the type always decodes).
 *
 * @since 0.1.0
 * @category names
 */
export const overflowStrategy = (name: OverflowStrategyName): OverflowStrategy.OverflowStrategy => decodeStrategy(name)

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
 * A `[[config.scorers]]` (or `[[children]]`) entry: its scorer, as a policy's scorer node, and
 * its weight.
 *
 * @since 0.2.0
 * @category models
 */
export interface ScorerEntry {
  readonly scorer: Policy.ScorerConfig
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

// A vector lists weights as `[[weights]]` entries; a policy keys them by name. A name listed
// twice keeps its last weight, as a map built from the entries would.
const weightRecord = <K extends string>(
  entries: ReadonlyArray<{ readonly weight: number } & { readonly [key in K]: string }>,
  key: K
): Record<string, number> => Object.fromEntries(entries.map((entry) => [entry[key], entry.weight]))

// Vectors give durations in seconds; a policy's numeric durations are milliseconds.
const millis = (seconds: number): number => seconds * 1000

const decodeCurve = (table: unknown, path: ReadonlyArray<PropertyKey>): Effect.Effect<Policy.CurveConfig, VectorProblems> =>
  Effect.flatMap(decodeAt(CurveType, table, path), ({ type }) => {
    switch (type) {
      case "exponential":
        return Effect.map(
          decodeAt(ExponentialCurve, table, path),
          (c): Policy.CurveConfig => ({ type, halfLife: millis(c.half_life_secs) })
        )
      case "window":
        return Effect.map(
          decodeAt(WindowCurve, table, path),
          (c): Policy.CurveConfig => ({ type, maxAge: millis(c.max_age_secs) })
        )
      case "step":
        return Effect.map(decodeAt(StepCurve, table, path), (c): Policy.CurveConfig => ({
          type,
          windows: c.windows.map((w) => ({ maxAge: millis(w.max_age_secs), score: w.score }))
        }))
    }
  })

/**
 * Decodes the configuration of a scorer of type `type` from `table`, found at `path` in the
 * vector, as a policy's scorer node (`Policy.ScorerConfig`): weight tables become records,
 * seconds become milliseconds, `reference_time` is `referenceTime`, `null_timestamp_score`
 * `nullTimestampScore`, `default_score` `defaultScore`, `inner_scorer` `inner`, and a
 * composite's children its `scorers`, each with its `weight`. A composite's children are read
 * from `childrenKey` (`scorers` at the top of `[config]`, `children` in a `[[config.scorers]]`
 * entry).
 *
 * @since 0.2.0
 * @category decoding
 */
export const decodeScorer = (
  type: ScorerName,
  table: unknown,
  path: ReadonlyArray<PropertyKey>,
  childrenKey: "scorers" | "children" = "children"
): Effect.Effect<Policy.ScorerConfig, VectorProblems> => {
  switch (type) {
    case "recency":
    case "priority":
    case "frequency":
    case "reflexive":
      return Effect.succeed({ type })
    case "kind":
      return Effect.map(decodeAt(KindConfig, table, path), (c): Policy.ScorerConfig =>
        c.use_default_weights === true || c.weights === undefined
          ? { type }
          : { type, weights: weightRecord(c.weights, "kind") })
    case "tag":
      return Effect.map(decodeAt(TagConfig, table, path), (c): Policy.ScorerConfig => ({
        type,
        weights: weightRecord(c.tag_weights, "tag")
      }))
    case "composite":
      return Effect.gen(function*() {
        const entries = childrenKey === "scorers"
          ? (yield* decodeAt(CompositeScorers, table, path)).scorers
          : (yield* decodeAt(CompositeChildren, table, path)).children
        const children = yield* decodeAll(entries.map((entry, i) => decodeEntry(entry, [...path, childrenKey, i])))
        return composite(children)
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
        return c.null_timestamp_score === undefined
          ? { type, curve, referenceTime: c.reference_time }
          : { type, curve, referenceTime: c.reference_time, nullTimestampScore: c.null_timestamp_score }
      })
    case "metadata_trust":
      return Effect.map(decodeAt(MetadataTrustConfig, table, path), (c): Policy.ScorerConfig =>
        c.default_score === undefined ? { type } : { type, defaultScore: c.default_score })
    case "metadata_key":
      return Effect.map(decodeAt(MetadataKeyConfig, table, path), (c): Policy.ScorerConfig => ({ type, ...c }))
  }
}

const composite = (children: ReadonlyArray<ScorerEntry>): Policy.ScorerConfig => ({
  type: "composite",
  scorers: children.map(({ scorer, weight }): Policy.WeightedScorerConfig => ({ ...scorer, weight }))
})

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
): Effect.Effect<ScorerEntry, VectorProblems> =>
  Effect.gen(function*() {
    const head = yield* decodeAt(EntryHead, table, path)
    const scorer = yield* decodeScorer(head.type, table, path)
    return { scorer, weight: head.weight }
  })

/**
 * The pipeline's scorer from its `[[config.scorers]]` entries: one entry is that scorer (its
 * weight unused), several are a composite with their weights.
 *
 * @since 0.2.0
 * @category decoding
 */
export const pipelineScorer = (entries: ReadonlyArray<ScorerEntry>): Policy.ScorerConfig =>
  entries.length === 1 ? entries[0]!.scorer : composite(entries)

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
  scarcity_behavior: Schema.optionalKey(Policy.ScarcityName),
  entries: Schema.Array(Schema.Struct({
    kind: Schema.String,
    require_count: Schema.optionalKey(Schema.Number),
    cap_count: Schema.optionalKey(Schema.Number)
  }))
})
const KnapsackInner = Schema.Struct({ inner_slicer: Schema.optionalKey(Schema.Literal("knapsack")) })

// `require_count` defaults to 0 and `scarcity_behavior` to degrade (format.md); both are written
// out, so a decoded vector shows what runs. An absent `cap_count` is no cap: the key stays absent.
const decodeCountQuota = (table: unknown, path: ReadonlyArray<PropertyKey>) =>
  Effect.map(decodeAt(CountQuotaConfig, table, path), (c) => ({
    scarcity: c.scarcity_behavior ?? "Degrade" as const,
    entries: c.entries.map((e): Policy.CountEntryConfig =>
      e.cap_count === undefined
        ? { kind: e.kind, requireCount: e.require_count ?? 0 }
        : { kind: e.kind, requireCount: e.require_count ?? 0, capCount: e.cap_count }
    )
  }))

const bucketSize = (c: typeof KnapsackConfig.Type) => c.bucket_size === undefined ? {} : { bucketSize: c.bucket_size }

/**
 * A decorator's `inner_slicer` (default `greedy`): a name, configured by the fields of the table
 * it is named in (a knapsack's `bucket_size`), or an inline table with `type` and the inner
 * slicer's own fields. A quota slicer named as a string would read the decorator's own table
 * again: it must have a table of its own.
 */
const decodeInner = (
  table: unknown,
  path: ReadonlyArray<PropertyKey>
): Effect.Effect<Policy.SlicerConfig, VectorProblems> =>
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
 * Decodes a slicer's configuration from the table it is configured in (`[config]`), as a
 * policy's slicer (`Policy.SlicerConfig`: `bucket_size` is `bucketSize`, `require_count` and
 * `cap_count` `requireCount` and `capCount`, `scarcity_behavior` the `scarcity` `"Degrade"` or
 * `"Throw"`):
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
): Effect.Effect<Policy.SlicerConfig, VectorProblems> => {
  switch (type) {
    case "greedy":
      return Effect.succeed({ type })
    case "knapsack":
      return Effect.map(decodeAt(KnapsackConfig, table, path), (c): Policy.SlicerConfig => ({ type, ...bucketSize(c) }))
    case "quota":
      return Effect.map(
        together(decodeInner(table, path), decodeAt(QuotaConfig, table, path)),
        ([inner, config]): Policy.SlicerConfig => ({ type, inner, quotas: config.quotas })
      )
    case "count_quota":
      return Effect.map(
        together(decodeInner(table, path), decodeCountQuota(table, path)),
        ([inner, config]): Policy.SlicerConfig => ({ type, inner, ...config })
      )
    case "count_constrained_knapsack":
      return Effect.map(
        together(
          decodeAt(KnapsackConfig, table, path),
          together(decodeAt(KnapsackInner, table, path), decodeCountQuota(table, path))
        ),
        ([knapsack, [, config]]): Policy.SlicerConfig => ({ type, ...bucketSize(knapsack), ...config })
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
