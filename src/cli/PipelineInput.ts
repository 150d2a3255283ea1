/**
 * PipelineInput: the JSON that `cupel run` reads — candidate items, a budget, and the pipeline's
 * configuration (scorer tree, slicer, placer, deduplication, overflow strategy).
 *
 * ```json
 * {
 *   "budget": { "maxTokens": 8192, "targetTokens": 2000 },
 *   "items": [
 *     { "content": "You are terse.", "tokens": 5, "kind": "SystemPrompt", "pinned": true },
 *     { "content": "Paris is the capital of France.", "tokens": 8, "priority": 3 }
 *   ],
 *   "scorer": {
 *     "type": "composite",
 *     "scorers": [{ "type": "recency", "weight": 0.7 }, { "type": "priority", "weight": 0.3 }]
 *   },
 *   "slicer": "greedy",
 *   "placer": "u-shaped"
 * }
 * ```
 *
 * Items are `ContextItem`s in the library's JSON form, as `cupel place` reads them; a pinned item
 * is one with `"pinned": true`. The scorer is a tree of `{ "type": … }` nodes taking each scorer
 * module's own options. Decoding checks shapes only; the rules of each scorer and slicer (a
 * positive weight, a positive half-life…) are checked when they are built, by the library's own
 * constructors, so that the CLI and the library refuse exactly the same configurations.
 *
 * @since 0.2.0
 */
import { Effect, Exit, Result, Schema } from "effect"
import * as Conformance from "../Conformance.ts"
import * as ContextBudget from "../ContextBudget.ts"
import * as ContextItem from "../ContextItem.ts"
import { schemaProblems } from "../internal/conformanceMessages.ts"
import * as DecodeItems from "../internal/decodeItems.ts"
import * as FastDecode from "../internal/fastDecode.ts"
import { InvalidConfigError } from "../InvalidConfigError.ts"
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
import * as GreedySlice from "../slicers/GreedySlice.ts"
import * as KnapsackSlice from "../slicers/KnapsackSlice.ts"
import { Timestamp } from "../Timestamp.ts"
import { InputError } from "./PlaceInput.ts"

// ---------------------------------------------------------------------------------------------
// Scorers
// ---------------------------------------------------------------------------------------------

/**
 * A duration as `DecayScorer` takes it: a number of milliseconds, or a string such as
 * `"24 hours"` or `"90 minutes"`.
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
]).annotate({ identifier: "CurveConfig" })

const Weights = Schema.Record(Schema.String, Schema.Number)

// The leaves of a scorer tree, each with the options of its module (`type` is the module's
// `name`). `extra` adds the `weight` a composite's children carry.
const leaves = <Extra extends Schema.Struct.Fields>(extra: Extra) =>
  [
    Schema.Struct({ type: Schema.Literal("recency"), ...extra }),
    Schema.Struct({ type: Schema.Literal("priority"), ...extra }),
    Schema.Struct({ type: Schema.Literal("reflexive"), ...extra }),
    Schema.Struct({ type: Schema.Literal("frequency"), ...extra }),
    Schema.Struct({ type: Schema.Literal("kind"), weights: Schema.optionalKey(Weights), ...extra }),
    Schema.Struct({
      type: Schema.Literal("tag"),
      weights: Weights,
      caseInsensitive: Schema.optionalKey(Schema.Boolean),
      ...extra
    }),
    Schema.Struct({
      type: Schema.Literal("decay"),
      curve: CurveConfig,
      nullTimestampScore: Schema.optionalKey(Schema.Number),
      referenceTime: Schema.optionalKey(Timestamp),
      ...extra
    }),
    Schema.Struct({
      type: Schema.Literal("metadata_key"),
      key: Schema.String,
      value: Schema.String,
      boost: Schema.Number,
      ...extra
    }),
    Schema.Struct({ type: Schema.Literal("metadata_trust"), defaultScore: Schema.optionalKey(Schema.Number), ...extra })
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
export const scorerTypes: ReadonlyArray<string> = Object.keys(
  {
    recency: null,
    priority: null,
    reflexive: null,
    frequency: null,
    kind: null,
    tag: null,
    decay: null,
    metadata_key: null,
    metadata_trust: null,
    scaled: null,
    composite: null
  } satisfies { readonly [K in ScorerConfig["type"]]: null }
)

const typeList = scorerTypes.join(", ")

const nodes = <Extra extends Schema.Struct.Fields>(extra: Extra) =>
  [
    ...leaves(extra),
    Schema.Struct({
      type: Schema.Literal("scaled"),
      inner: Schema.suspend((): Schema.Codec<ScorerConfig, ScorerConfigEncoded> => ScorerConfig),
      ...extra
    }),
    Schema.Struct({
      type: Schema.Literal("composite"),
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
  expected: `a scorer: an object whose "type" is one of ${typeList}`
})

/**
 * A composite's child: any scorer node with a `weight`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const WeightedScorerConfig: Schema.Codec<WeightedScorerConfig, WeightedScorerConfigEncoded> = Schema.Union(
  nodes({ weight: Schema.Number })
).annotate({ expected: `a weighted scorer: an object with a "weight" and a "type", one of ${typeList}` })

// ---------------------------------------------------------------------------------------------
// Slicers
// ---------------------------------------------------------------------------------------------

/**
 * The slicer: `"greedy"`, `"knapsack"`, or an object with options
 * (`{ "type": "knapsack", "bucketSize": 100, "maxCells": 268435456 }`).
 *
 * @since 0.2.0
 * @category schemas
 */
export const SlicerConfig = Schema.Union([
  Schema.Literals(["greedy", "knapsack"]),
  Schema.Struct({ type: Schema.Literal("greedy") }),
  Schema.Struct({
    type: Schema.Literal("knapsack"),
    bucketSize: Schema.optionalKey(Schema.Number),
    maxCells: Schema.optionalKey(Schema.Number)
  })
]).annotate({ identifier: "SlicerConfig" })

/**
 * @since 0.2.0
 * @category models
 */
export type SlicerConfig = typeof SlicerConfig.Type

// ---------------------------------------------------------------------------------------------
// The input
// ---------------------------------------------------------------------------------------------

const configFields = {
  scorer: ScorerConfig,
  slicer: SlicerConfig.pipe(Schema.withDecodingDefaultKey(Effect.succeed<SlicerConfig>("greedy"))),
  placer: Conformance.PlacerName.pipe(
    Schema.withDecodingDefaultKey(Effect.succeed<Conformance.PlacerName>("u-shaped"))
  ),
  deduplication: Schema.Boolean.pipe(Schema.withDecodingDefaultKey(Effect.succeed(true))),
  overflowStrategy: Conformance.OverflowStrategyName.pipe(
    Schema.withDecodingDefaultKey(Effect.succeed<Conformance.OverflowStrategyName>("throw"))
  )
}

/**
 * The input schema. `budget`, `items` and `scorer` are required; the rest default to
 * `"greedy"`, `"u-shaped"`, `true` and `"throw"` (the specification's default strategy).
 *
 * @since 0.2.0
 * @category schemas
 */
export const PipelineInput = Schema.Struct({
  budget: ContextBudget.ContextBudget,
  items: Schema.Array(ContextItem.ContextItem),
  ...configFields
}).annotate({ identifier: "PipelineInput" })

/**
 * @since 0.2.0
 * @category models
 */
export type PipelineInput = typeof PipelineInput.Type

/**
 * The JSON form of an input.
 *
 * @since 0.2.0
 * @category models
 */
export type PipelineInputJson = typeof PipelineInput.Encoded

// Unknown keys are reported at the top level and anywhere in the configuration: a misspelt
// "weigths" would otherwise run with the default weights without a word. Unknown keys inside
// items are left alone (other tools add them), as `cupel place` does.
const Strict = Schema.Struct({
  budget: Schema.Unknown,
  items: Schema.Unknown,
  ...configFields
}).annotate({
  messageUnexpectedKey: "unknown key"
})

const checkStrict = Schema.decodeUnknownEffect(Strict, { errors: "all", onExcessProperty: "error", reportInput: true })
const decodeInput = Schema.decodeUnknownEffect(PipelineInput, { errors: "all", reportInput: true })

/**
 * Decodes a parsed JSON value with the schemas alone: what {@link decodeValue} answers, more
 * slowly (about 20 µs an item). Kept as the reference the fast path is tested against.
 *
 * @since 0.2.0
 * @category decoding
 */
export const decodeValueWithSchema = (source: string, value: unknown): Effect.Effect<PipelineInput, InputError> =>
  Effect.gen(function*() {
    // Both passes run so that one message lists every problem; the same problem found by both
    // is listed once.
    const strict = yield* Effect.result(checkStrict(value))
    const decoded = yield* Effect.result(decodeInput(value))
    const problems = [
      ...(Result.isFailure(strict) ? schemaProblems(strict.failure) : []),
      ...(Result.isFailure(decoded) ? schemaProblems(decoded.failure) : [])
    ]
    if (Result.isFailure(decoded) || problems.length > 0) {
      return yield* new InputError({ source, problems: [...new Set(problems)] })
    }
    return decoded.success
  })

// Everything but the items, by the schemas: small, whatever the number of items.
const Rest = Schema.Struct({
  budget: ContextBudget.ContextBudget,
  items: Schema.Unknown,
  ...configFields
})
const strictExit = Schema.decodeUnknownExit(Strict, { onExcessProperty: "error" })
const restExit = Schema.decodeUnknownExit(Rest)

/**
 * The input by the fast path: the configuration and the budget by their schemas, the items by
 * fastDecode.ts. `undefined` whenever anything fails, so that the schemas decode the whole
 * input again and word every problem as they always have.
 */
const decodeFast = (value: unknown): PipelineInput | undefined => {
  if (!FastDecode.isRecord(value) || !Exit.isSuccess(strictExit(value))) return undefined
  const rest = FastDecode.successOrUndefined(restExit(value))
  if (rest === undefined) return undefined
  const items = DecodeItems.items(rest.items)
  if (items === undefined) return undefined
  // The schema's key order: `items` keeps its place.
  return { ...rest, items }
}

/**
 * Decodes a parsed JSON value. `source` names it in messages (a file name, `stdin`). Every
 * problem is listed, each starting with the path of its field.
 *
 * Items take a fast path (about 1 µs an item instead of 20) that checks each field with the
 * schema's rules; when any part of the input is invalid the schemas decode it all again, so the
 * problems listed are exactly those of {@link decodeValueWithSchema}.
 *
 * @since 0.2.0
 * @category decoding
 */
export const decodeValue = (source: string, value: unknown): Effect.Effect<PipelineInput, InputError> =>
  Effect.suspend(() => {
    const fast = decodeFast(value)
    return fast === undefined ? decodeValueWithSchema(source, value) : Effect.succeed(fast)
  })

/**
 * Parses and decodes JSON text.
 *
 * @since 0.2.0
 * @category decoding
 */
export const decodeText = (source: string, text: string): Effect.Effect<PipelineInput, InputError> =>
  Effect.try({
    try: (): unknown => JSON.parse(text),
    catch: (cause) =>
      new InputError({
        source,
        problems: [`malformed JSON: ${cause instanceof Error ? cause.message : String(cause)}`]
      })
  }).pipe(Effect.flatMap((value) => decodeValue(source, value)))

/**
 * Encodes an input to its JSON form (what `cupel demo --print-sample` prints).
 *
 * @since 0.2.0
 * @category encoding
 */
export const encode = Schema.encodeEffect(PipelineInput)

// ---------------------------------------------------------------------------------------------
// Building the strategies
// ---------------------------------------------------------------------------------------------

// A constructor's error names the option within its own component (`curve.halfLife`,
// `entries[1].weight`); the input's user needs its place in the file (`scorer.scorers[1]…`).
const at = (prefix: string, rename: (path: string) => string = (p) => p) => (error: InvalidConfigError) =>
  new InvalidConfigError({ component: error.component, path: `${prefix}.${rename(error.path)}`, rule: error.rule })

const compositePath = (path: string): string => path.replace(/^entries/, "scorers")

/**
 * Builds the scorer a tree describes, with the library's constructors: an option that breaks a
 * scorer's rules fails with the `InvalidConfigError` that constructor raises, its path made
 * relative to the input (`scorer.scorers[1].weight`). `path` is where the node sits.
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
      return Effect.map(scorer(config.inner, `${path}.inner`), ScaledScorer.make)
    case "composite":
      return Effect.forEach(config.scorers, (child, k) =>
        Effect.map(scorer(child, `${path}.scorers[${k}]`), (definition) => ({
          scorer: definition,
          weight: child.weight
        }))).pipe(
          Effect.flatMap((entries) => CompositeScorer.make(entries).pipe(Effect.mapError(at(path, compositePath))))
        )
  }
}

const curve = (config: typeof CurveConfig.Type): DecayScorer.Curve => {
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
 * Builds the slicer the input names; a knapsack's options are checked by `KnapsackSlice`.
 *
 * @since 0.2.0
 * @category building
 */
export const slicer = (config: SlicerConfig): Effect.Effect<Slicer.Definition, InvalidConfigError> => {
  if (config === "greedy" || (typeof config === "object" && config.type === "greedy")) {
    return Effect.succeed(GreedySlice.make())
  }
  const options = typeof config === "object" && config.type === "knapsack"
    ? { bucketSize: config.bucketSize, maxCells: config.maxCells }
    : {}
  return KnapsackSlice.make(options).pipe(Effect.mapError(at("slicer")))
}
