/**
 * Policy: a whole pipeline configuration as one value — the scorer tree, the slicer, the placer,
 * deduplication and the overflow strategy — with one `Schema` for its JSON form.
 *
 * Pipelines are configuration: teams keep them in files, review them and compare them. A policy
 * is plain data that round-trips through JSON (`decode` / `encode`), and becomes the pipeline's
 * three strategy layers in one call ({@link layer}), or a run ({@link run}).
 *
 * ```json
 * {
 *   "name": "support-chat",
 *   "scorer": {
 *     "type": "composite",
 *     "scorers": [
 *       { "type": "recency", "weight": 3 },
 *       { "type": "kind", "weight": 1 }
 *     ]
 *   },
 *   "slicer": { "type": "count_quota", "entries": [{ "kind": "ToolOutput", "capCount": 2 }] },
 *   "placer": "conversation",
 *   "deduplication": true,
 *   "overflowStrategy": "truncate"
 * }
 * ```
 *
 * The JSON form is the `cupel run` configuration (docs/cli.md) extended to every component:
 * every node is an object whose `type` is its module's name, with that module's options in
 * camelCase; `"greedy"`, `"knapsack"`, `"u-shaped"`, `"chronological"` and `"conversation"` may
 * be written as bare strings. Decoding checks shapes and reports unknown keys (a misspelt
 * `"weigths"` would otherwise run with default weights), every problem with its path, as a
 * `SchemaError`. The rules of each component (a positive weight, a bucket size of at least 1, a
 * require under its cap…) are checked when the policy is built, by the modules' own `make`, so a
 * policy file and the library refuse exactly the same configurations: a break is the module's
 * `InvalidConfigError`, its `path` the option's place in the policy (`scorer.scorers[1].weight`).
 *
 * A decoded policy states what runs: `slicer`, `placer`, `deduplication`, `overflowStrategy` and a
 * quota slicer's `inner` are filled with their defaults (`greedy`, `u-shaped`, `true`, `Throw`,
 * `greedy`) and shorthand strings become objects; a component's own options stay absent when not
 * given, and the component's default applies. `overflowStrategy` and `scarcity` are written in
 * lower case in JSON (`"truncate"`, `"degrade"`), as `cupel run` and the conformance vectors
 * write them, and hold the library's values (`"Truncate"`, `"Degrade"`) in memory.
 *
 * @since 0.2.0
 */
import { type Context, DateTime, Effect, Layer, Schema, SchemaGetter } from "effect"
import type { Scope } from "effect/Scope"
import type { ContextBudget } from "./ContextBudget.ts"
import type { ContextItem } from "./ContextItem.ts"
import { InvalidConfigError } from "./InvalidConfigError.ts"
import type * as OverflowNotifier from "./OverflowNotifier.ts"
import * as OverflowStrategy from "./OverflowStrategy.ts"
import * as Pipeline from "./Pipeline.ts"
import type { PipelineResult } from "./PipelineResult.ts"
import type * as Placer from "./Placer.ts"
import * as ChronologicalPlacer from "./placers/ChronologicalPlacer.ts"
import * as SectionedPlacer from "./placers/SectionedPlacer.ts"
import * as UShapedPlacer from "./placers/UShapedPlacer.ts"
import * as Scorer from "./Scorer.ts"
import * as CompositeScorer from "./scorers/CompositeScorer.ts"
import * as DecayScorer from "./scorers/DecayScorer.ts"
import * as FrequencyScorer from "./scorers/FrequencyScorer.ts"
import * as KindScorer from "./scorers/KindScorer.ts"
import * as MetadataKeyScorer from "./scorers/MetadataKeyScorer.ts"
import * as MetadataTrustScorer from "./scorers/MetadataTrustScorer.ts"
import * as PriorityScorer from "./scorers/PriorityScorer.ts"
import * as RecencyScorer from "./scorers/RecencyScorer.ts"
import * as ReflexiveScorer from "./scorers/ReflexiveScorer.ts"
import * as ScaledScorer from "./scorers/ScaledScorer.ts"
import * as TagScorer from "./scorers/TagScorer.ts"
import * as Slicer from "./Slicer.ts"
import * as CountConstrainedKnapsackSlice from "./slicers/CountConstrainedKnapsackSlice.ts"
import * as CountQuotaSlice from "./slicers/CountQuotaSlice.ts"
import * as GreedySlice from "./slicers/GreedySlice.ts"
import * as KnapsackSlice from "./slicers/KnapsackSlice.ts"
import * as QuotaSlice from "./slicers/QuotaSlice.ts"
import { Timestamp } from "./Timestamp.ts"

// ---------------------------------------------------------------------------------------------
// Shared pieces
// ---------------------------------------------------------------------------------------------

/**
 * Bare strings standing for the objects `{ type }`: `"greedy"` for `{ "type": "greedy" }`. One
 * union member for all of them, so that an unknown string gets one message listing them; listed
 * after the object forms, so that encoding always writes the object.
 */
const shorthands = <const L extends readonly [string, ...Array<string>]>(types: L) =>
  Schema.Literals(types).pipe(
    Schema.decodeTo(Schema.Struct({ type: Schema.Literals(types) }), {
      decode: SchemaGetter.transform((type: L[number]) => ({ type })),
      encode: SchemaGetter.transform((object: { readonly type: L[number] }) => object.type)
    })
  )

const capitalStrategy = (name: "throw" | "truncate" | "proceed"): OverflowStrategy.OverflowStrategy => {
  switch (name) {
    case "throw":
      return "Throw"
    case "truncate":
      return "Truncate"
    case "proceed":
      return "Proceed"
  }
}

const lowerStrategy = (strategy: OverflowStrategy.OverflowStrategy): "throw" | "truncate" | "proceed" => {
  switch (strategy) {
    case "Throw":
      return "throw"
    case "Truncate":
      return "truncate"
    case "Proceed":
      return "proceed"
  }
}

/**
 * The overflow strategy: `"throw"`, `"truncate"` or `"proceed"` in JSON (as `cupel run` writes
 * it), the library's `OverflowStrategy` (`"Throw"`…) in memory.
 *
 * @since 0.2.0
 * @category schemas
 */
export const OverflowStrategyName = Schema.Literals(["throw", "truncate", "proceed"]).pipe(
  Schema.decodeTo(OverflowStrategy.OverflowStrategy, {
    decode: SchemaGetter.transform(capitalStrategy),
    encode: SchemaGetter.transform(lowerStrategy)
  })
)

/**
 * A count quota's scarcity behavior: `"degrade"` or `"throw"` in JSON (as the conformance
 * vectors write it), `CountQuotaSlice.ScarcityBehavior` (`"Degrade"`, `"Throw"`) in memory.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ScarcityName = Schema.Literals(["degrade", "throw"]).pipe(
  Schema.decodeTo(Schema.Literals(["Degrade", "Throw"]), {
    decode: SchemaGetter.transform((name: "degrade" | "throw") => name === "degrade" ? "Degrade" as const : "Throw" as const),
    encode: SchemaGetter.transform((value: CountQuotaSlice.ScarcityBehavior) =>
      value === "Degrade" ? "degrade" as const : "throw" as const
    )
  })
)

// ---------------------------------------------------------------------------------------------
// Scorers
// ---------------------------------------------------------------------------------------------

/**
 * A duration as `DecayScorer` takes it: a number of milliseconds, or a string such as
 * `"24 hours"` or `"90 minutes"` (an Effect `Duration` in memory).
 *
 * @since 0.2.0
 * @category schemas
 */
export const DurationInput = Schema.Union([Schema.Number, Schema.DurationFromString]).annotate({
  identifier: "DurationInput"
})

/**
 * A decay curve: `{ "type": "exponential", "halfLife": … }`, `{ "type": "window", "maxAge": … }`
 * or `{ "type": "step", "windows": [{ "maxAge": …, "score": … }, …] }`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const CurveConfig = Schema.Union([
  Schema.Struct({ type: Schema.Literal("exponential"), halfLife: DurationInput }),
  Schema.Struct({ type: Schema.Literal("window"), maxAge: DurationInput }),
  Schema.Struct({
    type: Schema.Literal("step"),
    windows: Schema.Array(Schema.Struct({ maxAge: DurationInput, score: Schema.Number }))
  })
]).annotate({ expected: `a decay curve: an object whose "type" is "exponential", "window" or "step"` })

/**
 * @since 0.2.0
 * @category models
 */
export type CurveConfig = typeof CurveConfig.Type

/**
 * A weight per name (a kind, a tag).
 *
 * @since 0.2.0
 * @category schemas
 */
export const Weights = Schema.Record(Schema.String, Schema.Number)

const firstInstant = DateTime.makeUnsafe(Date.parse("0000-01-01T00:00:00.000Z"))
const lastInstant = DateTime.makeUnsafe(Date.parse("9999-12-31T23:59:59.999Z"))

/**
 * A fixed reference time: an RFC 3339 date-time with an offset in JSON, a `DateTime.Utc` in
 * memory. RFC 3339 writes years 0000 to 9999 only, so an instant outside them cannot be encoded
 * (and is never generated by `Arbitrary.schema`).
 *
 * @since 0.2.0
 * @category schemas
 */
export const ReferenceTime = Timestamp.check(
  Schema.makeFilter(
    (utc: DateTime.Utc) => DateTime.Order(utc, firstInstant) >= 0 && DateTime.Order(utc, lastInstant) <= 0,
    {
      expected: "an instant in the years 0000 to 9999 (what RFC 3339 can write)",
      arbitraryConstraint: { minimum: firstInstant, maximum: lastInstant, order: DateTime.Order }
    }
  )
)

// The leaves of a scorer tree, each with its module's options (`type` is the module's `name`).
// `extra` adds the `weight` that a composite's children carry.
const leaves = <Extra extends Schema.Struct.Fields>(extra: Extra) =>
  [
    Schema.Struct({ type: Schema.Literal(RecencyScorer.name), ...extra }),
    Schema.Struct({ type: Schema.Literal(PriorityScorer.name), ...extra }),
    Schema.Struct({ type: Schema.Literal(ReflexiveScorer.name), ...extra }),
    Schema.Struct({ type: Schema.Literal(FrequencyScorer.name), ...extra }),
    Schema.Struct({ type: Schema.Literal(KindScorer.name), weights: Schema.optionalKey(Weights), ...extra }),
    Schema.Struct({
      type: Schema.Literal(TagScorer.name),
      weights: Weights,
      caseInsensitive: Schema.optionalKey(Schema.Boolean),
      ...extra
    }),
    Schema.Struct({
      type: Schema.Literal(DecayScorer.name),
      curve: CurveConfig,
      nullTimestampScore: Schema.optionalKey(Schema.Number),
      referenceTime: Schema.optionalKey(ReferenceTime),
      ...extra
    }),
    Schema.Struct({
      type: Schema.Literal(MetadataKeyScorer.name),
      key: Schema.String,
      value: Schema.String,
      boost: Schema.Number,
      ...extra
    }),
    Schema.Struct({
      type: Schema.Literal(MetadataTrustScorer.name),
      defaultScore: Schema.optionalKey(Schema.Number),
      ...extra
    })
  ] as const

const Leaf = Schema.Union(leaves({}))

/**
 * A scorer without children.
 *
 * @since 0.2.0
 * @category models
 */
export type LeafConfig = typeof Leaf.Type

type LeafEncoded = typeof Leaf.Encoded

/**
 * A node of a scorer tree.
 *
 * @since 0.2.0
 * @category models
 */
export type ScorerConfig =
  | LeafConfig
  | { readonly type: "scaled"; readonly inner: ScorerConfig }
  | { readonly type: "composite"; readonly scorers: ReadonlyArray<WeightedScorerConfig> }

/**
 * A child of a composite: a scorer node and its relative weight.
 *
 * @since 0.2.0
 * @category models
 */
export type WeightedScorerConfig = ScorerConfig & { readonly weight: number }

/**
 * The JSON form of a scorer node.
 *
 * @since 0.2.0
 * @category models
 */
export type ScorerConfigEncoded =
  | LeafEncoded
  | { readonly type: "scaled"; readonly inner: ScorerConfigEncoded }
  | { readonly type: "composite"; readonly scorers: ReadonlyArray<WeightedScorerConfigEncoded> }

/**
 * The JSON form of a composite's child.
 *
 * @since 0.2.0
 * @category models
 */
export type WeightedScorerConfigEncoded = ScorerConfigEncoded & { readonly weight: number }

/**
 * The `type` of every scorer node, each the `name` of its module.
 *
 * @since 0.2.0
 * @category constants
 */
export const scorerTypes: ReadonlyArray<ScorerConfig["type"]> = [
  RecencyScorer.name,
  PriorityScorer.name,
  ReflexiveScorer.name,
  FrequencyScorer.name,
  KindScorer.name,
  TagScorer.name,
  DecayScorer.name,
  MetadataKeyScorer.name,
  MetadataTrustScorer.name,
  ScaledScorer.name,
  CompositeScorer.name
]

const scorerTypeList = scorerTypes.join(", ")

const nodes = <Extra extends Schema.Struct.Fields>(extra: Extra) =>
  [
    ...leaves(extra),
    Schema.Struct({
      type: Schema.Literal(ScaledScorer.name),
      inner: Schema.suspend((): Schema.Codec<ScorerConfig, ScorerConfigEncoded> => ScorerConfig),
      ...extra
    }),
    Schema.Struct({
      type: Schema.Literal(CompositeScorer.name),
      scorers: Schema.Array(
        Schema.suspend((): Schema.Codec<WeightedScorerConfig, WeightedScorerConfigEncoded> => WeightedScorerConfig)
      ),
      ...extra
    })
  ] as const

/**
 * A scorer tree: `{ "type": "recency" }`, `{ "type": "scaled", "inner": … }`,
 * `{ "type": "composite", "scorers": [{ "type": "priority", "weight": 0.3 }, …] }`…
 *
 * @since 0.2.0
 * @category schemas
 */
export const ScorerConfig: Schema.Codec<ScorerConfig, ScorerConfigEncoded> = Schema.Union(nodes({})).annotate({
  expected: `a scorer: an object whose "type" is one of ${scorerTypeList}`
})

/**
 * A composite's child: any scorer node with a `weight`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const WeightedScorerConfig: Schema.Codec<WeightedScorerConfig, WeightedScorerConfigEncoded> = Schema.Union(
  nodes({ weight: Schema.Number })
).annotate({ expected: `a weighted scorer: an object with a "weight" and a "type", one of ${scorerTypeList}` })

// ---------------------------------------------------------------------------------------------
// Slicers
// ---------------------------------------------------------------------------------------------

/**
 * One percentage quota of QuotaSlice: `kind`, `require` (default 0) and `cap` (default 100).
 *
 * @since 0.2.0
 * @category schemas
 */
export const QuotaConfig = Schema.Struct({
  kind: Schema.String,
  require: Schema.optionalKey(Schema.Number),
  cap: Schema.optionalKey(Schema.Number)
})

/**
 * @since 0.2.0
 * @category models
 */
export type QuotaConfig = typeof QuotaConfig.Type

/**
 * One count-quota entry: `kind`, `requireCount` (default 0) and `capCount` (default: no cap).
 *
 * @since 0.2.0
 * @category schemas
 */
export const CountEntryConfig = Schema.Struct({
  kind: Schema.String,
  requireCount: Schema.optionalKey(Schema.Number),
  capCount: Schema.optionalKey(Schema.Number)
})

/**
 * @since 0.2.0
 * @category models
 */
export type CountEntryConfig = typeof CountEntryConfig.Type

const GreedyConfig = Schema.Struct({ type: Schema.Literal(GreedySlice.name) })
const KnapsackConfig = Schema.Struct({
  type: Schema.Literal(KnapsackSlice.name),
  bucketSize: Schema.optionalKey(Schema.Number),
  maxCells: Schema.optionalKey(Schema.Number)
})
const CountConstrainedKnapsackConfig = Schema.Struct({
  type: Schema.Literal(CountConstrainedKnapsackSlice.name),
  entries: Schema.Array(CountEntryConfig),
  scarcity: Schema.optionalKey(ScarcityName),
  bucketSize: Schema.optionalKey(Schema.Number),
  maxCells: Schema.optionalKey(Schema.Number)
})

/**
 * A slicer.
 *
 * @since 0.2.0
 * @category models
 */
export type SlicerConfig =
  | typeof GreedyConfig.Type
  | typeof KnapsackConfig.Type
  | { readonly type: "quota"; readonly inner: SlicerConfig; readonly quotas: ReadonlyArray<QuotaConfig> }
  | {
    readonly type: "count_quota"
    readonly inner: SlicerConfig
    readonly entries: ReadonlyArray<CountEntryConfig>
    readonly scarcity?: CountQuotaSlice.ScarcityBehavior
  }
  | typeof CountConstrainedKnapsackConfig.Type

/**
 * The JSON form of a slicer.
 *
 * @since 0.2.0
 * @category models
 */
export type SlicerConfigEncoded =
  | "greedy"
  | "knapsack"
  | typeof GreedyConfig.Encoded
  | typeof KnapsackConfig.Encoded
  | {
    readonly type: "quota"
    readonly inner?: SlicerConfigEncoded
    readonly quotas: ReadonlyArray<typeof QuotaConfig.Encoded>
  }
  | {
    readonly type: "count_quota"
    readonly inner?: SlicerConfigEncoded
    readonly entries: ReadonlyArray<typeof CountEntryConfig.Encoded>
    readonly scarcity?: "degrade" | "throw"
  }
  | typeof CountConstrainedKnapsackConfig.Encoded

/**
 * The `type` of every slicer, each the `name` of its module.
 *
 * @since 0.2.0
 * @category constants
 */
export const slicerTypes: ReadonlyArray<SlicerConfig["type"]> = [
  GreedySlice.name,
  KnapsackSlice.name,
  QuotaSlice.name,
  CountQuotaSlice.name,
  CountConstrainedKnapsackSlice.name
]

// A decorator's inner slicer: greedy unless said otherwise, as in the conformance vectors.
const Inner = Schema.suspend((): Schema.Codec<SlicerConfig, SlicerConfigEncoded> => SlicerConfig).pipe(
  Schema.withDecodingDefaultKey(Effect.succeed<SlicerConfigEncoded>("greedy"))
)

/**
 * The slicer: `"greedy"`, `"knapsack"`, or an object with a `type` and its module's options —
 * `{ "type": "knapsack", "bucketSize": 100, "maxCells": 268435456 }`,
 * `{ "type": "quota", "inner": …, "quotas": [{ "kind": "Document", "require": 20, "cap": 60 }] }`,
 * `{ "type": "count_quota", "inner": …, "entries": [{ "kind": "ToolOutput", "requireCount": 1, "capCount": 3 }], "scarcity": "degrade" }`,
 * `{ "type": "count_constrained_knapsack", "entries": […], "scarcity": …, "bucketSize": …, "maxCells": … }`.
 * A decorator's `inner` defaults to `"greedy"`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const SlicerConfig: Schema.Codec<SlicerConfig, SlicerConfigEncoded> = Schema.Union([
  GreedyConfig,
  KnapsackConfig,
  Schema.Struct({ type: Schema.Literal(QuotaSlice.name), inner: Inner, quotas: Schema.Array(QuotaConfig) }),
  Schema.Struct({
    type: Schema.Literal(CountQuotaSlice.name),
    inner: Inner,
    entries: Schema.Array(CountEntryConfig),
    scarcity: Schema.optionalKey(ScarcityName)
  }),
  CountConstrainedKnapsackConfig,
  shorthands([GreedySlice.name, KnapsackSlice.name])
]).annotate({
  expected: `a slicer: "greedy", "knapsack", or an object whose "type" is one of ${slicerTypes.join(", ")}`
})

// ---------------------------------------------------------------------------------------------
// Placers
// ---------------------------------------------------------------------------------------------

const BuiltInPlacerConfig = Schema.Struct({
  type: Schema.Literals([UShapedPlacer.name, ChronologicalPlacer.name, "conversation"])
})

/**
 * A placer.
 *
 * @since 0.2.0
 * @category models
 */
export type PlacerConfig =
  | typeof BuiltInPlacerConfig.Type
  | {
    readonly type: "sectioned"
    readonly name?: string
    readonly sections: ReadonlyArray<SectionConfig>
  }

/**
 * One section of a sectioned placer: the kinds it holds (absent for the section of every other
 * kind) and its placer.
 *
 * @since 0.2.0
 * @category models
 */
export interface SectionConfig {
  readonly kinds?: ReadonlyArray<string>
  readonly placer: PlacerConfig
}

/**
 * The JSON form of a placer.
 *
 * @since 0.2.0
 * @category models
 */
export type PlacerConfigEncoded =
  | "u-shaped"
  | "chronological"
  | "conversation"
  | typeof BuiltInPlacerConfig.Encoded
  | {
    readonly type: "sectioned"
    readonly name?: string
    readonly sections: ReadonlyArray<SectionConfigEncoded>
  }

/**
 * The JSON form of a section.
 *
 * @since 0.2.0
 * @category models
 */
export interface SectionConfigEncoded {
  readonly kinds?: ReadonlyArray<string>
  readonly placer: PlacerConfigEncoded
}

/**
 * The `type` of every placer.
 *
 * @since 0.2.0
 * @category constants
 */
export const placerTypes: ReadonlyArray<PlacerConfig["type"]> = [
  UShapedPlacer.name,
  ChronologicalPlacer.name,
  "conversation",
  "sectioned"
]

/**
 * The placer: `"u-shaped"`, `"chronological"`, `"conversation"` (`SectionedPlacer.conversation`),
 * or `{ "type": "sectioned", "name"?: …, "sections": [{ "kinds"?: [kind, …], "placer": placer }, …] }`
 * (`SectionedPlacer.make`; sections nest).
 *
 * @since 0.2.0
 * @category schemas
 */
export const PlacerConfig: Schema.Codec<PlacerConfig, PlacerConfigEncoded> = Schema.Union([
  BuiltInPlacerConfig,
  Schema.Struct({
    type: Schema.Literal("sectioned"),
    name: Schema.optionalKey(Schema.String),
    sections: Schema.Array(
      Schema.Struct({
        kinds: Schema.optionalKey(Schema.Array(Schema.String)),
        placer: Schema.suspend((): Schema.Codec<PlacerConfig, PlacerConfigEncoded> => PlacerConfig)
      })
    )
  }),
  shorthands([UShapedPlacer.name, ChronologicalPlacer.name, "conversation"])
]).annotate({
  expected: `a placer: "u-shaped", "chronological", "conversation", or an object whose "type" is one of ${
    placerTypes.join(", ")
  }`
})

// ---------------------------------------------------------------------------------------------
// The policy
// ---------------------------------------------------------------------------------------------

/**
 * The fields of a policy, for schemas that embed one (the `cupel run` input is a policy with a
 * `budget` and `items`).
 *
 * @since 0.2.0
 * @category schemas
 */
export const fields = {
  name: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String),
  scorer: ScorerConfig,
  slicer: SlicerConfig.pipe(Schema.withDecodingDefaultKey(Effect.succeed<SlicerConfigEncoded>("greedy"))),
  placer: PlacerConfig.pipe(Schema.withDecodingDefaultKey(Effect.succeed<PlacerConfigEncoded>("u-shaped"))),
  deduplication: Schema.Boolean.pipe(Schema.withDecodingDefaultKey(Effect.succeed(true))),
  overflowStrategy: OverflowStrategyName.pipe(
    Schema.withDecodingDefaultKey(Effect.succeed<"throw" | "truncate" | "proceed">("throw"))
  )
}

/**
 * A whole pipeline configuration. `scorer` is required; `slicer`, `placer`, `deduplication` and
 * `overflowStrategy` default to `"greedy"`, `"u-shaped"`, `true` and `"throw"`; `name` and
 * `description` are for people.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Policy = Schema.Struct(fields).annotate({ identifier: "Policy" })

/**
 * A decoded policy: every top-level choice present.
 *
 * @since 0.2.0
 * @category models
 */
export type Policy = typeof Policy.Type

/**
 * A policy's JSON form.
 *
 * @since 0.2.0
 * @category models
 */
export type PolicyJson = typeof Policy.Encoded

/**
 * Makes a policy in memory from its scorer and the choices that differ from the defaults.
 *
 * @example
 * ```ts
 * import { Policy } from "effect-cupel"
 *
 * const policy = Policy.make({
 *   scorer: { type: "composite", scorers: [{ type: "recency", weight: 3 }, { type: "kind", weight: 1 }] },
 *   placer: { type: "chronological" }
 * })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (
  options: Pick<Policy, "scorer"> & Partial<Omit<Policy, "scorer">>
): Policy => ({
  ...options,
  slicer: options.slicer ?? { type: "greedy" },
  placer: options.placer ?? { type: "u-shaped" },
  deduplication: options.deduplication ?? true,
  overflowStrategy: options.overflowStrategy ?? OverflowStrategy.defaultStrategy
})

const parseOptions = { errors: "all", onExcessProperty: "error", reportInput: true } as const

/**
 * Decodes a policy from a parsed JSON value. Every problem is listed in the `SchemaError`, each
 * with its path (`at ["scorer"]["scorers"][1]["weight"]`); unknown keys are problems too.
 *
 * @since 0.2.0
 * @category decoding
 */
export const decode: (input: unknown) => Effect.Effect<Policy, Schema.SchemaError> = Schema.decodeUnknownEffect(
  Policy,
  parseOptions
)

/**
 * Decodes a policy from JSON text; malformed JSON is a `SchemaError` too.
 *
 * @since 0.2.0
 * @category decoding
 */
export const decodeJson: (text: string) => Effect.Effect<Policy, Schema.SchemaError> = Schema.decodeUnknownEffect(
  Schema.fromJsonString(Policy),
  parseOptions
)

/**
 * Encodes a policy to its JSON form: objects for every component, lower-case strategy names,
 * durations as strings (`"86400000 millis"`) or numbers of milliseconds as they were given.
 * `decode(encode(p))` is `p`.
 *
 * @since 0.2.0
 * @category encoding
 */
export const encode: (policy: Policy) => Effect.Effect<PolicyJson, Schema.SchemaError> = Schema.encodeEffect(Policy)

/**
 * Encodes a policy as indented JSON text, ready for a file.
 *
 * @since 0.2.0
 * @category encoding
 */
export const encodeJson = (policy: Policy): Effect.Effect<string, Schema.SchemaError> =>
  Effect.map(encode(policy), (json) => JSON.stringify(json, null, 2))

// ---------------------------------------------------------------------------------------------
// Building
// ---------------------------------------------------------------------------------------------

// A module's error names the option within its own component (`entries[1].weight`); the policy's
// reader needs its place in the policy (`scorer.scorers[1].weight`). An empty prefix keeps the
// module's path, for callers that build a component on its own.
const at = (prefix: string, rename: (path: string) => string = (p) => p) => (error: InvalidConfigError) =>
  new InvalidConfigError({
    component: error.component,
    path: prefix === "" ? rename(error.path) : `${prefix}.${rename(error.path)}`,
    rule: error.rule
  })

const join = (prefix: string, key: string): string => prefix === "" ? key : `${prefix}.${key}`

// CompositeScorer calls its children `entries`; a policy calls them `scorers`.
const compositePath = (path: string): string => path.replace(/^entries/, "scorers")

const curve = (config: CurveConfig): DecayScorer.Curve => {
  switch (config.type) {
    case "exponential":
      return DecayScorer.exponential(config.halfLife)
    case "window":
      return DecayScorer.window(config.maxAge)
    case "step":
      return DecayScorer.step(config.windows)
  }
}

/**
 * Builds the scorer a tree describes, with each scorer module's `make`: an option that breaks a
 * scorer's rules fails with that module's `InvalidConfigError`, its path made relative to the
 * policy. `path` is where the node sits (default `"scorer"`; `""` keeps the modules' paths).
 *
 * @since 0.2.0
 * @category building
 */
export const scorer = (
  config: ScorerConfig,
  path = "scorer"
): Effect.Effect<Scorer.Definition, InvalidConfigError> => {
  switch (config.type) {
    case "recency":
      return Effect.succeed(RecencyScorer.make())
    case "priority":
      return Effect.succeed(PriorityScorer.make())
    case "reflexive":
      return Effect.succeed(ReflexiveScorer.make())
    case "frequency":
      return Effect.succeed(FrequencyScorer.make())
    case "kind":
      return KindScorer.make(config.weights).pipe(Effect.mapError(at(path)))
    case "tag":
      return TagScorer.make(
        config.weights,
        config.caseInsensitive === undefined ? {} : { caseInsensitive: config.caseInsensitive }
      ).pipe(Effect.mapError(at(path)))
    case "decay":
      return DecayScorer.make({
        curve: curve(config.curve),
        ...(config.nullTimestampScore === undefined ? {} : { nullTimestampScore: config.nullTimestampScore }),
        ...(config.referenceTime === undefined ? {} : { referenceTime: config.referenceTime })
      }).pipe(Effect.mapError(at(path)))
    case "metadata_key":
      return MetadataKeyScorer.make({ key: config.key, value: config.value, boost: config.boost }).pipe(
        Effect.mapError(at(path))
      )
    case "metadata_trust":
      return MetadataTrustScorer.make(
        config.defaultScore === undefined ? {} : { defaultScore: config.defaultScore }
      ).pipe(Effect.mapError(at(path)))
    case "scaled":
      return Effect.map(scorer(config.inner, join(path, "inner")), ScaledScorer.make)
    case "composite":
      return Effect.forEach(config.scorers, (child, k) =>
        Effect.map(scorer(child, `${join(path, "scorers")}[${k}]`), (definition) => ({
          scorer: definition,
          weight: child.weight
        }))).pipe(
          Effect.flatMap((entries) => CompositeScorer.make(entries).pipe(Effect.mapError(at(path, compositePath))))
        )
  }
}

/**
 * Builds the slicer a policy names, with each slicer module's `make` (a decorator's inner slicer
 * first): a break of a slicer's rules fails with that module's `InvalidConfigError`, its path
 * made relative to the policy (`slicer.inner.quotas[0].cap`). `path` is where the slicer sits
 * (default `"slicer"`; `""` keeps the modules' paths).
 *
 * @since 0.2.0
 * @category building
 */
export const slicer = (
  config: SlicerConfig,
  path = "slicer"
): Effect.Effect<Slicer.Definition, InvalidConfigError> => {
  switch (config.type) {
    case "greedy":
      return Effect.succeed(GreedySlice.make())
    case "knapsack":
      return KnapsackSlice.make({ bucketSize: config.bucketSize, maxCells: config.maxCells }).pipe(
        Effect.mapError(at(path))
      )
    case "quota":
      return Effect.flatMap(
        slicer(config.inner, join(path, "inner")),
        (inner) => QuotaSlice.make({ inner, quotas: config.quotas }).pipe(Effect.mapError(at(path)))
      )
    case "count_quota":
      return Effect.flatMap(
        slicer(config.inner, join(path, "inner")),
        (inner) =>
          CountQuotaSlice.make({ inner, entries: config.entries, scarcity: config.scarcity }).pipe(
            Effect.mapError(at(path))
          )
      )
    case "count_constrained_knapsack":
      return CountConstrainedKnapsackSlice.make({
        entries: config.entries,
        scarcity: config.scarcity,
        bucketSize: config.bucketSize,
        maxCells: config.maxCells
      }).pipe(Effect.mapError(at(path)))
  }
}

const builtInPlacer = (type: typeof BuiltInPlacerConfig.Type["type"]): Layer.Layer<Placer.Placer> => {
  switch (type) {
    case "u-shaped":
      return UShapedPlacer.layer
    case "chronological":
      return ChronologicalPlacer.layer
    case "conversation":
      return SectionedPlacer.conversation
  }
}

type SectionedConfig = Extract<PlacerConfig, { readonly type: "sectioned" }>

// A section takes a `Placer` layer that cannot fail; a nested sectioned placer is built first
// (in the enclosing layer's scope) so that its own configuration error keeps its path.
const sectioned = (
  config: SectionedConfig,
  path: string
): Effect.Effect<Context.Context<Placer.Placer>, InvalidConfigError, Scope> =>
  Effect.gen(function*() {
    const sections: Array<SectionedPlacer.Section> = []
    for (let s = 0; s < config.sections.length; s++) {
      const section = config.sections[s]!
      const inner = section.placer
      const placer = inner.type === "sectioned"
        ? Layer.succeedContext(yield* sectioned(inner, `${join(path, "sections")}[${s}].placer`))
        : builtInPlacer(inner.type)
      sections.push(section.kinds === undefined ? { placer } : { kinds: section.kinds, placer })
    }
    return yield* Layer.build(SectionedPlacer.make(sections, { name: config.name })).pipe(Effect.mapError(at(path)))
  })

/**
 * The placer layer a policy names: `UShapedPlacer.layer`, `ChronologicalPlacer.layer`,
 * `SectionedPlacer.conversation`, or `SectionedPlacer.make` with its sections' placers. A
 * sectioned placer's configuration error has its path in the policy (`placer.sections[2].kinds`).
 *
 * @since 0.2.0
 * @category building
 */
export const placer = (config: PlacerConfig, path = "placer"): Layer.Layer<Placer.Placer, InvalidConfigError> =>
  config.type === "sectioned" ? Layer.effectContext(sectioned(config, path)) : builtInPlacer(config.type)

/**
 * The options of `Pipeline.run` a policy sets: deduplication and the overflow strategy.
 *
 * @since 0.2.0
 * @category building
 */
export const options = (policy: Policy): Pipeline.Options => ({
  deduplication: policy.deduplication,
  overflowStrategy: policy.overflowStrategy
})

/**
 * The pipeline's `Scorer`, `Slicer` and `Placer` layers, in one, built by the modules' own
 * constructors. Building fails with the first `InvalidConfigError` met (scorer, then slicer,
 * then placer), its path in the policy.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ContextBudget, ContextItem, OverflowNotifier, Pipeline, Policy, Presets } from "effect-cupel"
 *
 * const policy = Presets.chat
 * const items = [new ContextItem.ContextItem({ content: "hello", tokens: 2 })]
 * const budget = new ContextBudget.ContextBudget({ maxTokens: 100, targetTokens: 50 })
 * const program = Pipeline.run(items, budget, Policy.options(policy)).pipe(
 *   Effect.provide([Policy.layer(policy), OverflowNotifier.layerLog])
 * )
 * ```
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (
  policy: Policy
): Layer.Layer<Scorer.Scorer | Slicer.Slicer | Placer.Placer, InvalidConfigError> =>
  Layer.unwrap(
    Effect.gen(function*() {
      const scorerDefinition = yield* scorer(policy.scorer)
      const slicerDefinition = yield* slicer(policy.slicer)
      return Layer.mergeAll(Scorer.layer(scorerDefinition), Slicer.layer(slicerDefinition), placer(policy.placer))
    })
  )

/**
 * Runs the pipeline on `items` within `budget` as `policy` says. The `OverflowNotifier` is the
 * caller's choice (`OverflowNotifier.layerLog`, `layerNoop`…); it is told only under `"Proceed"`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ContextBudget, ContextItem, OverflowNotifier, Policy, Presets } from "effect-cupel"
 *
 * const items = [new ContextItem.ContextItem({ content: "hello", tokens: 2 })]
 * const budget = new ContextBudget.ContextBudget({ maxTokens: 100, targetTokens: 50 })
 * const result = await Effect.runPromise(
 *   Policy.run(items, budget, Presets.rag).pipe(Effect.provide(OverflowNotifier.layerLog))
 * )
 * ```
 *
 * @since 0.2.0
 * @category running
 */
export const run = (
  items: ReadonlyArray<ContextItem>,
  budget: ContextBudget,
  policy: Policy
): Effect.Effect<PipelineResult, Pipeline.PipelineError | InvalidConfigError, OverflowNotifier.OverflowNotifier> =>
  Pipeline.run(items, budget, options(policy)).pipe(Effect.provide(layer(policy)))
