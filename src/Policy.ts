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
 * Each family's configuration lives beside the family: `ScorerConfig` (src/scorers/),
 * `SlicerConfig` (src/slicers/) and `PlacerConfig` (src/placers/), each with its schema and its
 * builder. This module is the policy itself — the whole pipeline's schema, its JSON, its layers
 * and its run — and re-exports their names (`Policy.ScorerConfig`, `Policy.scorer`…).
 *
 * @since 0.2.0
 */
import { Effect, Layer, Schema, SchemaGetter } from "effect"
import type { ContextBudget } from "./ContextBudget.ts"
import type { ContextItem } from "./ContextItem.ts"
import type { InvalidConfigError } from "./InvalidConfigError.ts"
import type * as OverflowNotifier from "./OverflowNotifier.ts"
import * as OverflowStrategy from "./OverflowStrategy.ts"
import * as Pipeline from "./Pipeline.ts"
import type { PipelineResult } from "./PipelineResult.ts"
import type * as Placer from "./placers/Placer.ts"
import * as PlacerConfig from "./placers/PlacerConfig.ts"
import * as Scorer from "./scorers/Scorer.ts"
import * as ScorerConfig from "./scorers/ScorerConfig.ts"
import * as Slicer from "./slicers/Slicer.ts"
import * as SlicerConfig from "./slicers/SlicerConfig.ts"
import * as Verbosity from "./Verbosity.ts"

// ---------------------------------------------------------------------------------------------
// The overflow strategy's JSON names
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// The families' configurations, under the names a policy's readers use
// ---------------------------------------------------------------------------------------------

// Each is documented in its own module, and is the same value here: `Policy.ScorerConfig` is
// `ScorerConfig.ScorerConfig`. (Inside this module, `ScorerConfig` is that module.)
export {
  /**
   * @since 0.2.0
   * @category schemas
   */
  CurveConfig,
  /**
   * @since 0.2.0
   * @category schemas
   */
  DurationInput,
  /**
   * @since 0.2.0
   * @category models
   */
  type LeafConfig,
  /**
   * @since 0.2.0
   * @category schemas
   */
  ReferenceTime,
  /**
   * @since 0.2.0
   * @category schemas
   */
  ScorerConfig,
  /**
   * @since 0.2.0
   * @category models
   */
  type ScorerConfigEncoded,
  /**
   * @since 0.2.0
   * @category constants
   */
  scorerTypes,
  /**
   * @since 0.2.0
   * @category schemas
   */
  WeightedScorerConfig,
  /**
   * @since 0.2.0
   * @category models
   */
  type WeightedScorerConfigEncoded,
  /**
   * @since 0.2.0
   * @category schemas
   */
  Weights
} from "./scorers/ScorerConfig.ts"

export {
  /**
   * @since 0.2.0
   * @category schemas
   */
  CountEntryConfig,
  /**
   * @since 0.2.0
   * @category schemas
   */
  QuotaConfig,
  /**
   * @since 0.2.0
   * @category schemas
   */
  ScarcityName,
  /**
   * @since 0.2.0
   * @category schemas
   */
  SlicerConfig,
  /**
   * @since 0.2.0
   * @category models
   */
  type SlicerConfigEncoded,
  /**
   * @since 0.2.0
   * @category constants
   */
  slicerTypes
} from "./slicers/SlicerConfig.ts"

export {
  /**
   * @since 0.2.0
   * @category schemas
   */
  PlacerConfig,
  /**
   * @since 0.2.0
   * @category models
   */
  type PlacerConfigEncoded,
  /**
   * @since 0.2.0
   * @category models
   */
  type SectionConfig,
  /**
   * @since 0.2.0
   * @category models
   */
  type SectionConfigEncoded,
  /**
   * @since 0.2.0
   * @category constants
   */
  placerTypes
} from "./placers/PlacerConfig.ts"

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
  scorer: ScorerConfig.ScorerConfig,
  slicer: SlicerConfig.SlicerConfig.pipe(
    Schema.withDecodingDefaultKey(Effect.succeed<SlicerConfig.SlicerConfigEncoded>("greedy"))
  ),
  placer: PlacerConfig.PlacerConfig.pipe(
    Schema.withDecodingDefaultKey(Effect.succeed<PlacerConfig.PlacerConfigEncoded>("u-shaped"))
  ),
  deduplication: Schema.Boolean.pipe(Schema.withDecodingDefaultKey(Effect.succeed(true))),
  overflowStrategy: OverflowStrategyName.pipe(
    Schema.withDecodingDefaultKey(Effect.succeed<"throw" | "truncate" | "proceed">("throw"))
  ),
  /**
   * The trace's tier (`Verbosity`, spec `integrations/opentelemetry.md`), by the chapter's
   * names: `"StageOnly"`, `"StageAndExclusions"` or `"Full"`. Optional, and absent when not
   * given (the run's default, `StageOnly`, then applies): how much a run tells its trace is
   * usually the deployment's choice, not the policy's.
   *
   * @since 0.3.0
   */
  verbosity: Schema.optionalKey(Verbosity.Verbosity)
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

/**
 * Builds the scorer a tree describes (`ScorerConfig.build`), an error's path in the policy:
 * `path` is where the node sits (default `"scorer"`; `""` keeps the modules' paths).
 *
 * @since 0.2.0
 * @category building
 */
export const scorer = (
  config: ScorerConfig.ScorerConfig,
  path = "scorer"
): Effect.Effect<Scorer.Definition, InvalidConfigError> => ScorerConfig.build(config, path)

/**
 * Builds the slicer a policy names (`SlicerConfig.build`), an error's path in the policy
 * (`slicer.inner.quotas[0].cap`): `path` is where the slicer sits (default `"slicer"`; `""`
 * keeps the modules' paths).
 *
 * @since 0.2.0
 * @category building
 */
export const slicer = (
  config: SlicerConfig.SlicerConfig,
  path = "slicer"
): Effect.Effect<Slicer.Definition, InvalidConfigError> => SlicerConfig.build(config, path)

/**
 * The placer layer a policy names (`PlacerConfig.layer`), a sectioned placer's configuration
 * error with its path in the policy (`placer.sections[2].kinds`).
 *
 * @since 0.2.0
 * @category building
 */
export const placer = (
  config: PlacerConfig.PlacerConfig,
  path = "placer"
): Layer.Layer<Placer.Placer, InvalidConfigError> => PlacerConfig.layer(config, path)

/**
 * The options of `Pipeline.run` a policy sets: deduplication, the overflow strategy and, when it
 * has one, the verbosity tier.
 *
 * @since 0.2.0
 * @category building
 */
export const options = (policy: Policy): Pipeline.Options => ({
  deduplication: policy.deduplication,
  overflowStrategy: policy.overflowStrategy,
  verbosity: policy.verbosity
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
