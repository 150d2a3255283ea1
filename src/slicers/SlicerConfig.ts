/**
 * SlicerConfig: a slicer as data — a policy's `slicer` — with one `Schema` for its JSON form,
 * and {@link build}, which makes the `Slicer.Definition` it describes with each slicer module's
 * own `make`.
 *
 * ```json
 * { "type": "quota", "inner": "knapsack", "quotas": [{ "kind": "Document", "require": 20, "cap": 60 }] }
 * ```
 *
 * `"greedy"`, `"knapsack"` and `"first_fit"` may be written as bare strings; every other slicer is an object
 * whose `type` is its module's `name`, with that module's options in camelCase, and a
 * decorator's `inner` slicer defaults to `"greedy"`. The shapes are checked when decoding; the
 * rules of each slicer (a bucket size of at least 1, a require under its cap…) when building,
 * by the slicer modules themselves. `Policy` embeds this schema as its `slicer`
 * (`Policy.SlicerConfig` is this module's `SlicerConfig`).
 *
 * @since 0.3.0
 */
import { Effect, Schema, SchemaGetter } from "effect"
import { at, join } from "../internal/configPath.ts"
import { shorthands } from "../internal/shorthands.ts"
import type { InvalidConfigError } from "../InvalidConfigError.ts"
import type * as Slicer from "./Slicer.ts"
import * as CountConstrainedKnapsackSlice from "./CountConstrainedKnapsackSlice.ts"
import * as CountQuotaSlice from "./CountQuotaSlice.ts"
import * as FirstFitSlice from "./FirstFitSlice.ts"
import * as GreedySlice from "./GreedySlice.ts"
import * as KnapsackSlice from "./KnapsackSlice.ts"
import * as QuotaSlice from "./QuotaSlice.ts"

/**
 * A count quota's scarcity behavior: `"degrade"` or `"throw"` in JSON (as the conformance
 * vectors write it), `CountQuotaSlice.ScarcityBehavior` (`"Degrade"`, `"Throw"`) in memory.
 *
 * @since 0.3.0
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

/**
 * One percentage quota of QuotaSlice: `kind`, `require` (default 0) and `cap` (default 100).
 *
 * @since 0.3.0
 * @category schemas
 */
export const QuotaConfig = Schema.Struct({
  kind: Schema.String,
  require: Schema.optionalKey(Schema.Number),
  cap: Schema.optionalKey(Schema.Number)
})

/**
 * @since 0.3.0
 * @category models
 */
export type QuotaConfig = typeof QuotaConfig.Type

/**
 * One count-quota entry: `kind`, `requireCount` (default 0) and `capCount` (default: no cap).
 *
 * @since 0.3.0
 * @category schemas
 */
export const CountEntryConfig = Schema.Struct({
  kind: Schema.String,
  requireCount: Schema.optionalKey(Schema.Number),
  capCount: Schema.optionalKey(Schema.Number)
})

/**
 * @since 0.3.0
 * @category models
 */
export type CountEntryConfig = typeof CountEntryConfig.Type

const GreedyConfig = Schema.Struct({ type: Schema.Literal(GreedySlice.name) })
const FirstFitConfig = Schema.Struct({ type: Schema.Literal(FirstFitSlice.name) })
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
 * @since 0.3.0
 * @category models
 */
export type SlicerConfig =
  | typeof GreedyConfig.Type
  | typeof FirstFitConfig.Type
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
 * @since 0.3.0
 * @category models
 */
export type SlicerConfigEncoded =
  | "greedy"
  | "knapsack"
  | "first_fit"
  | typeof GreedyConfig.Encoded
  | typeof FirstFitConfig.Encoded
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
 * @since 0.3.0
 * @category constants
 */
export const slicerTypes: ReadonlyArray<SlicerConfig["type"]> = [
  GreedySlice.name,
  KnapsackSlice.name,
  FirstFitSlice.name,
  QuotaSlice.name,
  CountQuotaSlice.name,
  CountConstrainedKnapsackSlice.name
]

// A decorator's inner slicer: greedy unless said otherwise, as in the conformance vectors.
const Inner = Schema.suspend((): Schema.Codec<SlicerConfig, SlicerConfigEncoded> => SlicerConfig).pipe(
  Schema.withDecodingDefaultKey(Effect.succeed<SlicerConfigEncoded>("greedy"))
)

/**
 * The slicer: `"greedy"`, `"knapsack"`, `"first_fit"`, or an object with a `type` and its module's options —
 * `{ "type": "knapsack", "bucketSize": 100, "maxCells": 268435456 }`,
 * `{ "type": "quota", "inner": …, "quotas": [{ "kind": "Document", "require": 20, "cap": 60 }] }`,
 * `{ "type": "count_quota", "inner": …, "entries": [{ "kind": "ToolOutput", "requireCount": 1, "capCount": 3 }], "scarcity": "degrade" }`,
 * `{ "type": "count_constrained_knapsack", "entries": […], "scarcity": …, "bucketSize": …, "maxCells": … }`.
 * A decorator's `inner` defaults to `"greedy"`.
 *
 * @since 0.3.0
 * @category schemas
 */
export const SlicerConfig: Schema.Codec<SlicerConfig, SlicerConfigEncoded> = Schema.Union([
  GreedyConfig,
  KnapsackConfig,
  FirstFitConfig,
  Schema.Struct({ type: Schema.Literal(QuotaSlice.name), inner: Inner, quotas: Schema.Array(QuotaConfig) }),
  Schema.Struct({
    type: Schema.Literal(CountQuotaSlice.name),
    inner: Inner,
    entries: Schema.Array(CountEntryConfig),
    scarcity: Schema.optionalKey(ScarcityName)
  }),
  CountConstrainedKnapsackConfig,
  shorthands([GreedySlice.name, KnapsackSlice.name, FirstFitSlice.name])
]).annotate({
  expected: `a slicer: "greedy", "knapsack", "first_fit", or an object whose "type" is one of ${slicerTypes.join(", ")}`
})

/**
 * Builds the slicer a configuration names, with each slicer module's `make` (a decorator's inner
 * slicer first): a break of a slicer's rules fails with that module's `InvalidConfigError`, its
 * path prefixed with `path`, where the slicer sits (`"slicer"` in a policy, as `Policy.slicer`
 * puts it: `slicer.inner.quotas[0].cap`; by default `""`, which keeps the modules' paths).
 *
 * @since 0.3.0
 * @category building
 */
export const build = (
  config: SlicerConfig,
  path = ""
): Effect.Effect<Slicer.Definition, InvalidConfigError> => {
  switch (config.type) {
    case "greedy":
      return Effect.succeed(GreedySlice.make())
    case "first_fit":
      return Effect.succeed(FirstFitSlice.make())
    case "knapsack":
      return KnapsackSlice.make({ bucketSize: config.bucketSize, maxCells: config.maxCells }).pipe(
        Effect.mapError(at(path))
      )
    case "quota":
      return Effect.flatMap(
        build(config.inner, join(path, "inner")),
        (inner) => QuotaSlice.make({ inner, quotas: config.quotas }).pipe(Effect.mapError(at(path)))
      )
    case "count_quota":
      return Effect.flatMap(
        build(config.inner, join(path, "inner")),
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
