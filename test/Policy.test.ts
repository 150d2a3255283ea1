import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer, Result, Schema } from "effect"
import * as fc from "fast-check"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import {
  ChronologicalPlacer,
  CompositeScorer,
  ContextBudget,
  ContextItem,
  CountConstrainedKnapsackSlice,
  CountQuotaSlice,
  DecayScorer,
  FrequencyScorer,
  GreedySlice,
  InvalidConfigError,
  KindScorer,
  KnapsackSlice,
  MetadataKeyScorer,
  MetadataTrustScorer,
  OverflowNotifier,
  Pipeline,
  type Placer,
  PriorityScorer,
  QuotaSlice,
  RecencyScorer,
  ReflexiveScorer,
  ScaledScorer,
  Scorer,
  SectionedPlacer,
  Slicer,
  TagScorer,
  Timestamp,
  UShapedPlacer
} from "../src/index.ts"
import * as Root from "../src/index.ts"
import * as PlacerConfig from "../src/placers/PlacerConfig.ts"
import * as Policy from "../src/Policy.ts"
import * as ScorerConfig from "../src/scorers/ScorerConfig.ts"
import * as SlicerConfig from "../src/slicers/SlicerConfig.ts"
import * as Presets from "../src/Presets.ts"
import { recordSpans } from "./support/spans.ts"

// ---------------------------------------------------------------------------------------------
// A sample with something for every scorer, slicer and placer to tell apart
// ---------------------------------------------------------------------------------------------

const minute = 60_000
const t0 = Date.parse("2024-06-03T09:00:00Z")
const item = (
  content: string,
  tokens: number,
  extra: Partial<{
    kind: string
    priority: number
    minutes: number
    tags: Array<string>
    metadata: Record<string, unknown>
    hint: number
    pinned: boolean
  }> = {}
) =>
  new ContextItem.ContextItem({
    content,
    tokens,
    ...(extra.kind === undefined ? {} : { kind: extra.kind }),
    ...(extra.priority === undefined ? {} : { priority: extra.priority }),
    ...(extra.minutes === undefined ? {} : { timestamp: Timestamp.fromEpochMillis(t0 + extra.minutes * minute) }),
    ...(extra.tags === undefined ? {} : { tags: extra.tags }),
    ...(extra.metadata === undefined ? {} : { metadata: extra.metadata }),
    ...(extra.hint === undefined ? {} : { futureRelevanceHint: extra.hint }),
    ...(extra.pinned === undefined ? {} : { pinned: extra.pinned })
  })

const sample: ReadonlyArray<ContextItem.ContextItem> = [
  item("You are terse.", 8, { kind: "SystemPrompt", pinned: true }),
  item("user: the build is red", 12, { minutes: 1, tags: ["ci", "Build"], hint: 0.4 }),
  item("assistant: which job?", 9, { minutes: 2, tags: ["ci"], hint: 0.2 }),
  item("user: the lint job", 7, { minutes: 3, tags: ["ci", "lint"], hint: 0.9, metadata: { topic: "lint" } }),
  item("tool: eslint output", 45, { kind: "ToolOutput", minutes: 4, priority: 7, tags: ["lint"], hint: 0.7 }),
  item("tool: npm ls", 30, { kind: "ToolOutput", minutes: 5, priority: 2, tags: ["deps"], hint: 0.1 }),
  item("doc: lint rules", 40, { kind: "Document", priority: 9, tags: ["lint", "docs"], hint: 0.8 }),
  item("doc: lint rules", 40, { kind: "Document", priority: 3, tags: ["docs"], hint: 0.3 }),
  item("doc: contributing", 25, { kind: "Document", priority: 5, metadata: { "cupel:trust": 0.9 }, hint: 0.5 }),
  item("memory: prefers pnpm", 6, { kind: "Memory", minutes: -600, metadata: { "cupel:trust": "0.2" } }),
  item("image: screenshot", 0, { kind: "Image", minutes: 6 }),
  item("user: any ideas?", 5, { minutes: 7, metadata: { topic: "lint" }, hint: 0.6 })
]
const budget = new ContextBudget.ContextBudget({ maxTokens: 1000, targetTokens: 120 })

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

const decode = (json: unknown) => Policy.decode(json)

/** The problems of a failed decoding, each as `path: message`. */
const problems = (json: unknown) =>
  Effect.gen(function*() {
    const error = yield* Effect.flip(decode(json))
    assert.instanceOf(error, Schema.SchemaError)
    return error.message
  })

const buildError = (policy: Policy.Policy) =>
  Effect.flip(Effect.scoped(Layer.build(Policy.layer(policy))))

const runPolicy = (policy: Policy.Policy, items = sample) =>
  Effect.result(Policy.run(items, budget, policy).pipe(Effect.provide(OverflowNotifier.layerNoop)))

const runHand = (
  layers: Effect.Effect<Layer.Layer<Scorer.Scorer | Slicer.Slicer | Placer.Placer>, InvalidConfigError.InvalidConfigError>,
  options: Pipeline.Options = {},
  items = sample
) =>
  Effect.result(
    Effect.flatMap(
      layers,
      (layer) =>
        Pipeline.run(items, budget, options).pipe(Effect.provide(Layer.mergeAll(layer, OverflowNotifier.layerNoop)))
    )
  )

const strategies = (
  scorer: Effect.Effect<Scorer.Definition, InvalidConfigError.InvalidConfigError>,
  slicer: Effect.Effect<Slicer.Definition, InvalidConfigError.InvalidConfigError> = Effect.succeed(GreedySlice.make()),
  placer: Layer.Layer<Placer.Placer> = UShapedPlacer.layer
) =>
  Effect.map(
    Effect.all([scorer, slicer]),
    ([sc, sl]) => Layer.mergeAll(Scorer.layer(sc), Slicer.layer(sl), placer)
  )

// A scorer with spread-out scores, for the slicer and placer cases.
const mixJson = {
  type: "composite",
  scorers: [{ type: "priority", weight: 2 }, { type: "recency", weight: 1 }, { type: "kind", weight: 1 }]
} as const
const mixHand = CompositeScorer.make([
  { scorer: PriorityScorer.make(), weight: 2 },
  { scorer: RecencyScorer.make(), weight: 1 },
  { scorer: KindScorer.defaults, weight: 1 }
])

const referenceTime = "2024-06-03T09:10:00Z"
const referenceUtc = Timestamp.fromEpochMillis(Date.parse(referenceTime))

interface Case {
  readonly name: string
  readonly json: Policy.PolicyJson
  readonly hand: Effect.Effect<
    Layer.Layer<Scorer.Scorer | Slicer.Slicer | Placer.Placer>,
    InvalidConfigError.InvalidConfigError
  >
  readonly options?: Pipeline.Options
}

const scorerCase = (
  name: string,
  scorer: Policy.ScorerConfigEncoded,
  hand: Effect.Effect<Scorer.Definition, InvalidConfigError.InvalidConfigError>
): Case => ({ name: `scorer ${name}`, json: { scorer }, hand: strategies(hand) })

const slicerCase = (
  name: string,
  slicer: Policy.SlicerConfigEncoded,
  hand: Effect.Effect<Slicer.Definition, InvalidConfigError.InvalidConfigError>
): Case => ({ name: `slicer ${name}`, json: { scorer: mixJson, slicer }, hand: strategies(mixHand, hand) })

const placerCase = (name: string, placer: Policy.PlacerConfigEncoded, hand: Layer.Layer<Placer.Placer>): Case => ({
  name: `placer ${name}`,
  json: { scorer: mixJson, placer },
  hand: strategies(mixHand, undefined, hand)
})

const cases: ReadonlyArray<Case> = [
  scorerCase("recency", { type: "recency" }, Effect.succeed(RecencyScorer.make())),
  scorerCase("priority", { type: "priority" }, Effect.succeed(PriorityScorer.make())),
  scorerCase("reflexive", { type: "reflexive" }, Effect.succeed(ReflexiveScorer.make())),
  scorerCase("frequency", { type: "frequency" }, Effect.succeed(FrequencyScorer.make())),
  scorerCase("kind with the default weights", { type: "kind" }, KindScorer.make()),
  scorerCase(
    "kind with weights",
    { type: "kind", weights: { toolOutput: 1, Document: 0.5, image: 0.9 } },
    KindScorer.make({ toolOutput: 1, Document: 0.5, image: 0.9 })
  ),
  scorerCase(
    "tag with weights",
    { type: "tag", weights: { lint: 3, ci: 1, build: 2 } },
    TagScorer.make({ lint: 3, ci: 1, build: 2 })
  ),
  scorerCase(
    "tag caseInsensitive",
    { type: "tag", weights: { lint: 3, ci: 1, build: 2 }, caseInsensitive: true },
    TagScorer.make({ lint: 3, ci: 1, build: 2 }, { caseInsensitive: true })
  ),
  scorerCase(
    "decay exponential, half-life in milliseconds",
    { type: "decay", curve: { type: "exponential", halfLife: 3 * minute }, referenceTime },
    DecayScorer.make({ curve: DecayScorer.exponential(3 * minute), referenceTime: referenceUtc })
  ),
  scorerCase(
    "decay exponential, half-life as a string, nullTimestampScore",
    { type: "decay", curve: { type: "exponential", halfLife: "5 minutes" }, nullTimestampScore: 0.1, referenceTime },
    DecayScorer.make({ curve: DecayScorer.exponential("5 minutes"), nullTimestampScore: 0.1, referenceTime: referenceUtc })
  ),
  scorerCase(
    "decay window",
    { type: "decay", curve: { type: "window", maxAge: "6 minutes" }, referenceTime },
    DecayScorer.make({ curve: DecayScorer.window(Duration.minutes(6)), referenceTime: referenceUtc })
  ),
  scorerCase(
    "decay step",
    {
      type: "decay",
      curve: {
        type: "step",
        windows: [{ maxAge: "4 minutes", score: 1 }, { maxAge: 8 * minute, score: 0.6 }, { maxAge: "1 day", score: 0.2 }]
      },
      referenceTime
    },
    DecayScorer.make({
      curve: DecayScorer.step([
        { maxAge: "4 minutes", score: 1 },
        { maxAge: 8 * minute, score: 0.6 },
        { maxAge: "1 day", score: 0.2 }
      ]),
      referenceTime: referenceUtc
    })
  ),
  scorerCase(
    "decay on the clock (no referenceTime)",
    { type: "decay", curve: { type: "window", maxAge: "1 hour" } },
    DecayScorer.make({ curve: DecayScorer.window("1 hour") })
  ),
  scorerCase(
    "metadata_key",
    { type: "metadata_key", key: "topic", value: "lint", boost: 2.5 },
    MetadataKeyScorer.make({ key: "topic", value: "lint", boost: 2.5 })
  ),
  scorerCase("metadata_trust", { type: "metadata_trust" }, MetadataTrustScorer.make()),
  scorerCase(
    "metadata_trust with defaultScore",
    { type: "metadata_trust", defaultScore: 0.05 },
    MetadataTrustScorer.make({ defaultScore: 0.05 })
  ),
  scorerCase(
    "scaled",
    { type: "scaled", inner: { type: "metadata_key", key: "topic", value: "lint", boost: 4 } },
    Effect.map(MetadataKeyScorer.make({ key: "topic", value: "lint", boost: 4 }), ScaledScorer.make)
  ),
  scorerCase(
    "composite, nested",
    {
      type: "composite",
      scorers: [
        { type: "reflexive", weight: 3 },
        {
          type: "composite",
          weight: 1,
          scorers: [{ type: "tag", weights: { docs: 1 }, weight: 1 }, {
            type: "scaled",
            inner: { type: "priority" },
            weight: 2
          }]
        }
      ]
    },
    Effect.gen(function*() {
      const inner = yield* CompositeScorer.make([
        { scorer: yield* TagScorer.make({ docs: 1 }), weight: 1 },
        { scorer: ScaledScorer.make(PriorityScorer.make()), weight: 2 }
      ])
      return yield* CompositeScorer.make([{ scorer: ReflexiveScorer.make(), weight: 3 }, { scorer: inner, weight: 1 }])
    })
  ),
  slicerCase("greedy (shorthand)", "greedy", Effect.succeed(GreedySlice.make())),
  slicerCase("greedy (object)", { type: "greedy" }, Effect.succeed(GreedySlice.make())),
  slicerCase("knapsack (shorthand)", "knapsack", KnapsackSlice.make()),
  slicerCase(
    "knapsack with bucketSize and maxCells",
    { type: "knapsack", bucketSize: 7, maxCells: 10_000 },
    KnapsackSlice.make({ bucketSize: 7, maxCells: 10_000 })
  ),
  slicerCase(
    "quota over greedy (default inner)",
    { type: "quota", quotas: [{ kind: "Document", require: 30, cap: 40 }, { kind: "ToolOutput", cap: 25 }] },
    QuotaSlice.make({
      inner: GreedySlice.make(),
      quotas: [{ kind: "Document", require: 30, cap: 40 }, { kind: "ToolOutput", cap: 25 }]
    })
  ),
  slicerCase(
    "quota over a knapsack",
    { type: "quota", inner: { type: "knapsack", bucketSize: 5 }, quotas: [{ kind: "Message", require: 10 }] },
    Effect.flatMap(
      KnapsackSlice.make({ bucketSize: 5 }),
      (inner) => QuotaSlice.make({ inner, quotas: [{ kind: "Message", require: 10 }] })
    )
  ),
  slicerCase(
    "count_quota with entries and scarcity degrade",
    {
      type: "count_quota",
      entries: [{ kind: "ToolOutput", requireCount: 2, capCount: 2 }, { kind: "Document", capCount: 1 }, {
        kind: "Memory",
        requireCount: 3
      }],
      scarcity: "degrade"
    },
    CountQuotaSlice.make({
      inner: GreedySlice.make(),
      entries: [{ kind: "ToolOutput", requireCount: 2, capCount: 2 }, { kind: "Document", capCount: 1 }, {
        kind: "Memory",
        requireCount: 3
      }],
      scarcity: "Degrade"
    })
  ),
  slicerCase(
    "count_quota with scarcity throw (the same failure)",
    { type: "count_quota", inner: "greedy", entries: [{ kind: "Memory", requireCount: 3 }], scarcity: "throw" },
    CountQuotaSlice.make({ inner: GreedySlice.make(), entries: [{ kind: "Memory", requireCount: 3 }], scarcity: "Throw" })
  ),
  slicerCase(
    "count_quota over a quota",
    {
      type: "count_quota",
      inner: { type: "quota", quotas: [{ kind: "Document", cap: 20 }] },
      entries: [{ kind: "Message", capCount: 2 }]
    },
    Effect.flatMap(
      QuotaSlice.make({ inner: GreedySlice.make(), quotas: [{ kind: "Document", cap: 20 }] }),
      (inner) => CountQuotaSlice.make({ inner, entries: [{ kind: "Message", capCount: 2 }] })
    )
  ),
  slicerCase(
    "count_constrained_knapsack",
    {
      type: "count_constrained_knapsack",
      entries: [{ kind: "ToolOutput", requireCount: 1, capCount: 1 }],
      scarcity: "degrade",
      bucketSize: 3,
      maxCells: 100_000
    },
    CountConstrainedKnapsackSlice.make({
      entries: [{ kind: "ToolOutput", requireCount: 1, capCount: 1 }],
      scarcity: "Degrade",
      bucketSize: 3,
      maxCells: 100_000
    })
  ),
  placerCase("u-shaped (shorthand)", "u-shaped", UShapedPlacer.layer),
  placerCase("chronological (shorthand)", "chronological", ChronologicalPlacer.layer),
  placerCase("chronological (object)", { type: "chronological" }, ChronologicalPlacer.layer),
  placerCase("conversation", "conversation", SectionedPlacer.conversation),
  placerCase(
    "sectioned with a name, nested",
    {
      type: "sectioned",
      name: "mine",
      sections: [
        { kinds: ["Document", "memory"], placer: "chronological" },
        {
          kinds: ["ToolOutput", "Message"],
          placer: { type: "sectioned", sections: [{ kinds: ["message"], placer: "u-shaped" }, { placer: "chronological" }] }
        },
        { placer: "conversation" }
      ]
    },
    SectionedPlacer.make([
      { kinds: ["Document", "memory"], placer: ChronologicalPlacer.layer },
      {
        kinds: ["ToolOutput", "Message"],
        placer: SectionedPlacer.make([{ kinds: ["message"], placer: UShapedPlacer.make() }, {
          placer: ChronologicalPlacer.make()
        }]).pipe(Layer.orDie)
      },
      { placer: SectionedPlacer.conversation }
    ], { name: "mine" }).pipe(Layer.orDie)
  ),
  {
    name: "deduplication false",
    json: { scorer: mixJson, deduplication: false },
    hand: strategies(mixHand),
    options: { deduplication: false }
  },
  {
    name: "overflowStrategy truncate",
    json: { scorer: mixJson, overflowStrategy: "truncate", slicer: { type: "count_quota", entries: [{ kind: "ToolOutput", requireCount: 2 }, { kind: "Document", requireCount: 2 }] } },
    hand: strategies(
      mixHand,
      CountQuotaSlice.make({
        inner: GreedySlice.make(),
        entries: [{ kind: "ToolOutput", requireCount: 2 }, { kind: "Document", requireCount: 2 }]
      })
    ),
    options: { overflowStrategy: "Truncate" }
  },
  {
    name: "overflowStrategy proceed",
    json: { scorer: mixJson, overflowStrategy: "proceed", slicer: { type: "count_quota", entries: [{ kind: "ToolOutput", requireCount: 2 }, { kind: "Document", requireCount: 2 }] } },
    hand: strategies(
      mixHand,
      CountQuotaSlice.make({
        inner: GreedySlice.make(),
        entries: [{ kind: "ToolOutput", requireCount: 2 }, { kind: "Document", requireCount: 2 }]
      })
    ),
    options: { overflowStrategy: "Proceed" }
  },
  {
    name: "overflowStrategy throw (the default)",
    json: { scorer: mixJson, slicer: { type: "count_quota", entries: [{ kind: "ToolOutput", requireCount: 2 }, { kind: "Document", requireCount: 2 }] } },
    hand: strategies(
      mixHand,
      CountQuotaSlice.make({
        inner: GreedySlice.make(),
        entries: [{ kind: "ToolOutput", requireCount: 2 }, { kind: "Document", requireCount: 2 }]
      })
    ),
    options: { overflowStrategy: "Throw" }
  }
]

// ---------------------------------------------------------------------------------------------
// Decoding
// ---------------------------------------------------------------------------------------------

describe("Policy — decoding", () => {
  it.effect("a policy needs only a scorer: the rest takes the defaults", () =>
    Effect.gen(function*() {
      const policy = yield* decode({ scorer: { type: "recency" } })
      assert.deepStrictEqual(policy, {
        scorer: { type: "recency" },
        slicer: { type: "greedy" },
        placer: { type: "u-shaped" },
        deduplication: true,
        overflowStrategy: "Throw"
      })
      assert.deepStrictEqual(policy, Policy.make({ scorer: { type: "recency" } }))
    }))

  it.effect("the configuration of a documented cupel run input is a policy", () =>
    Effect.gen(function*() {
      // PipelineInput's module example and docs/cli.md, without budget and items.
      const policy = yield* decode({
        scorer: {
          type: "composite",
          scorers: [{ type: "recency", weight: 0.7 }, { type: "priority", weight: 0.3 }]
        },
        slicer: "greedy",
        placer: "u-shaped"
      })
      assert.strictEqual(policy.scorer.type, "composite")
      const knapsack = yield* decode({
        scorer: { type: "kind" },
        slicer: { type: "knapsack", bucketSize: 100, maxCells: 268435456 },
        placer: "chronological",
        deduplication: false,
        overflowStrategy: "proceed"
      })
      assert.deepStrictEqual(knapsack.slicer, { type: "knapsack", bucketSize: 100, maxCells: 268435456 })
      assert.deepStrictEqual(knapsack.placer, { type: "chronological" })
      assert.strictEqual(knapsack.overflowStrategy, "Proceed")
      assert.strictEqual(knapsack.deduplication, false)
    }))

  it.effect("shorthand strings decode to objects; a decorator's inner slicer defaults to greedy", () =>
    Effect.gen(function*() {
      const policy = yield* decode({
        scorer: { type: "priority" },
        slicer: { type: "count_quota", entries: [], scarcity: "throw" },
        placer: { type: "sectioned", sections: [{ placer: "conversation" }] }
      })
      assert.deepStrictEqual(policy.slicer, { type: "count_quota", inner: { type: "greedy" }, entries: [], scarcity: "Throw" })
      assert.deepStrictEqual(policy.placer, { type: "sectioned", sections: [{ placer: { type: "conversation" } }] })
    }))

  it.effect("name and description are kept", () =>
    Effect.gen(function*() {
      const policy = yield* decode({ name: "team-a", description: "for the bot", scorer: { type: "recency" } })
      assert.strictEqual(policy.name, "team-a")
      assert.strictEqual(policy.description, "for the bot")
    }))

  it.effect("decoding errors name the path of every problem", () =>
    Effect.gen(function*() {
      const message = yield* problems({
        scorer: {
          type: "composite",
          scorers: [{ type: "recency", weight: "heavy" }, { type: "decay", weight: 1, curve: { type: "linear" } }]
        },
        slicer: { type: "quota", quotas: [{ kind: "Document", cap: "half" }] },
        placer: { type: "sectioned", sections: [{ kinds: "Document", placer: "u-shaped" }] },
        overflowStrategy: "explode"
      })
      for (
        const path of [
          `["scorer"]["scorers"][0]["weight"]`,
          `["scorer"]["scorers"][1]["curve"]`,
          `["slicer"]["quotas"][0]["cap"]`,
          `["placer"]["sections"][0]["kinds"]`,
          `["overflowStrategy"]`
        ]
      ) assert.include(message, `at ${path}`)
    }))

  it.effect("a missing scorer, or a composite child without weight, is named", () =>
    Effect.gen(function*() {
      assert.include(yield* problems({}), `at ["scorer"]`)
      assert.include(
        yield* problems({ scorer: { type: "composite", scorers: [{ type: "recency" }] } }),
        `at ["scorer"]["scorers"][0]`
      )
    }))

  it.effect("unknown keys are problems, at the top level and deep in the tree", () =>
    Effect.gen(function*() {
      const message = yield* problems({
        scorer: { type: "composite", scorers: [{ type: "kind", weigths: { Memory: 2 }, weight: 1 }] },
        slicer: { type: "knapsack", buckets: 10 },
        placer: { type: "sectioned", sections: [{ placer: "u-shaped", kind: ["Message"] }] },
        budget: { maxTokens: 10, targetTokens: 5 }
      })
      for (
        const path of [
          `["scorer"]["scorers"][0]["weigths"]`,
          `["slicer"]["buckets"]`,
          `["placer"]["sections"][0]["kind"]`,
          `["budget"]`
        ]
      ) assert.include(message, `at ${path}`)
    }))

  it.effect("an unknown type lists the known ones", () =>
    Effect.gen(function*() {
      const message = yield* problems({ scorer: { type: "bm25" }, slicer: "stream", placer: "random" })
      assert.include(message, "one of recency, priority, reflexive, frequency, kind, tag, decay, metadata_key")
      assert.include(message, `"greedy" | "knapsack"`)
      assert.include(message, `"u-shaped" | "chronological" | "conversation"`)
    }))

  it.effect("the strategy names are lower case in JSON (as cupel run reads them)", () =>
    Effect.gen(function*() {
      assert.include(yield* problems({ scorer: { type: "recency" }, overflowStrategy: "Throw" }), `["overflowStrategy"]`)
      assert.include(
        yield* problems({ scorer: { type: "recency" }, slicer: { type: "count_quota", entries: [], scarcity: "Degrade" } }),
        `["slicer"]["scarcity"]`
      )
    }))

  it.effect("a timestamp without an offset and a duration that is no duration are refused", () =>
    Effect.gen(function*() {
      const message = yield* problems({
        scorer: { type: "decay", curve: { type: "window", maxAge: "soon" }, referenceTime: "2024-01-01T00:00:00" }
      })
      assert.include(message, `["scorer"]["curve"]["maxAge"]`)
      assert.include(message, `["scorer"]["referenceTime"]`)
    }))

  it.effect("decodeJson: malformed JSON is a SchemaError too", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Policy.decodeJson(`{ "scorer": `))
      assert.instanceOf(error, Schema.SchemaError)
      const policy = yield* Policy.decodeJson(`{ "scorer": { "type": "frequency" }, "placer": "conversation" }`)
      assert.deepStrictEqual(policy.placer, { type: "conversation" })
    }))
})

// ---------------------------------------------------------------------------------------------
// Round trip
// ---------------------------------------------------------------------------------------------

// JSON policies as a file would hold them, every form included (shorthands, defaults left out),
// with numbers JSON can carry.
const jsonNumber = fc.oneof(
  fc.integer({ min: -5, max: 1_000_000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0))
)
const name = fc.constantFrom("Message", "Document", "tool", "x", "", "ß", "__proto__", "1", "a b")
const duration = fc.oneof(jsonNumber, fc.constantFrom("24 hours", "90 minutes", "1500 millis", "7 nanos", "2 days"))
const weights = fc.dictionary(name, jsonNumber, { maxKeys: 4 })
const leaf = fc.oneof(
  fc.constantFrom({ type: "recency" }, { type: "priority" }, { type: "reflexive" }, { type: "frequency" }),
  fc.record({ type: fc.constant("kind"), weights }, { requiredKeys: ["type"] }),
  fc.record({ type: fc.constant("tag"), weights, caseInsensitive: fc.boolean() }, { requiredKeys: ["type", "weights"] }),
  fc.record(
    {
      type: fc.constant("decay"),
      curve: fc.oneof(
        fc.record({ type: fc.constant("exponential"), halfLife: duration }),
        fc.record({ type: fc.constant("window"), maxAge: duration }),
        fc.record({
          type: fc.constant("step"),
          windows: fc.array(fc.record({ maxAge: duration, score: jsonNumber }), { maxLength: 3 })
        })
      ),
      nullTimestampScore: jsonNumber,
      referenceTime: fc.constantFrom("2024-01-01T00:00:00.000Z", "2024-06-03T09:00:00+02:00", "2024-01-01T00:00Z")
    },
    { requiredKeys: ["type", "curve"] }
  ),
  fc.record({ type: fc.constant("metadata_key"), key: name, value: name, boost: jsonNumber }),
  fc.record({ type: fc.constant("metadata_trust"), defaultScore: jsonNumber }, { requiredKeys: ["type"] })
)
const { scorerJson } = fc.letrec<{ scorerJson: unknown }>((tie) => ({
  scorerJson: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.record({ type: fc.constant("scaled"), inner: tie("scorerJson") }),
    fc.record({
      type: fc.constant("composite"),
      scorers: fc.array(
        fc.tuple(tie("scorerJson"), jsonNumber).map(([scorer, weight]) => ({ ...Object(scorer), weight })),
        { maxLength: 3 }
      )
    })
  )
}))
const countEntry = fc.record({ kind: name, requireCount: jsonNumber, capCount: jsonNumber }, { requiredKeys: ["kind"] })
const { slicerJson } = fc.letrec<{ slicerJson: unknown }>((tie) => ({
  slicerJson: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom("greedy", "knapsack", { type: "greedy" }),
    fc.record({ type: fc.constant("knapsack"), bucketSize: jsonNumber, maxCells: jsonNumber }, { requiredKeys: ["type"] }),
    fc.record(
      {
        type: fc.constant("quota"),
        inner: tie("slicerJson"),
        quotas: fc.array(fc.record({ kind: name, require: jsonNumber, cap: jsonNumber }, { requiredKeys: ["kind"] }), {
          maxLength: 3
        })
      },
      { requiredKeys: ["type", "quotas"] }
    ),
    fc.record(
      {
        type: fc.constant("count_quota"),
        inner: tie("slicerJson"),
        entries: fc.array(countEntry, { maxLength: 3 }),
        scarcity: fc.constantFrom("degrade", "throw")
      },
      { requiredKeys: ["type", "entries"] }
    ),
    fc.record(
      {
        type: fc.constant("count_constrained_knapsack"),
        entries: fc.array(countEntry, { maxLength: 3 }),
        scarcity: fc.constantFrom("degrade", "throw"),
        bucketSize: jsonNumber,
        maxCells: jsonNumber
      },
      { requiredKeys: ["type", "entries"] }
    )
  )
}))
const { placerJson } = fc.letrec<{ placerJson: unknown }>((tie) => ({
  placerJson: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom("u-shaped", "chronological", "conversation", { type: "u-shaped" }, { type: "conversation" }),
    fc.record(
      {
        type: fc.constant("sectioned"),
        name,
        sections: fc.array(
          fc.record({ kinds: fc.array(name, { maxLength: 3 }), placer: tie("placerJson") }, { requiredKeys: ["placer"] }),
          { maxLength: 3 }
        )
      },
      { requiredKeys: ["type", "sections"] }
    )
  )
}))
const policyJson = fc.record(
  {
    name,
    description: fc.string(),
    scorer: scorerJson,
    slicer: slicerJson,
    placer: placerJson,
    deduplication: fc.boolean(),
    overflowStrategy: fc.constantFrom("throw", "truncate", "proceed"),
    verbosity: fc.constantFrom("StageOnly", "StageAndExclusions", "Full")
  },
  { requiredKeys: ["scorer"] }
)

describe("Policy — round trip", () => {
  it.effect.prop(
    "decode(encode(policy)) is the policy, for any policy (Arbitrary.schema)",
    [Policy.Policy],
    ([policy]) =>
      Effect.gen(function*() {
        const back = yield* decode(yield* Policy.encode(policy))
        assert.deepStrictEqual(back, policy)
      }),
    { arbitrary: { runs: 300 } }
  )

  it("any JSON policy decodes, encodes, and decodes again to the same policy, through JSON text", () =>
    fc.assert(
      fc.asyncProperty(policyJson, (json) =>
        Effect.runPromise(Effect.gen(function*() {
          const decoded = yield* Policy.decodeJson(JSON.stringify(json))
          const text = yield* Policy.encodeJson(decoded)
          const again = yield* Policy.decodeJson(text)
          assert.deepStrictEqual(again, decoded)
          // The encoded form is canonical: encoding it again gives the same text.
          assert.strictEqual(yield* Policy.encodeJson(again), text)
        }))),
      { numRuns: 500 }
    ))

  it.effect("a referenceTime RFC 3339 cannot write fails to encode, naming its path", () =>
    Effect.gen(function*() {
      const policy = Policy.make({
        scorer: {
          type: "decay",
          curve: { type: "window", maxAge: 1000 },
          referenceTime: Timestamp.fromEpochMillis(Date.parse("+010000-01-01T00:00:00Z"))
        }
      })
      const error = yield* Effect.flip(Policy.encode(policy))
      assert.include(error.message, `at ["scorer"]["referenceTime"]`)
      // The years RFC 3339 writes are fine, the first and the last included.
      for (const text of ["0000-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z"]) {
        const edge = Policy.make({
          scorer: { type: "decay", curve: { type: "window", maxAge: 1000 }, referenceTime: Timestamp.fromEpochMillis(Date.parse(text)) }
        })
        assert.deepStrictEqual(yield* decode(yield* Policy.encode(edge)), edge)
      }
    }))

  it.effect("encoding writes objects for every component and lower-case names", () =>
    Effect.gen(function*() {
      const policy = yield* decode({
        scorer: { type: "decay", curve: { type: "exponential", halfLife: "24 hours" }, referenceTime: "2024-06-03T11:00:00+02:00" },
        slicer: { type: "count_quota", entries: [{ kind: "ToolOutput", capCount: 2 }], scarcity: "throw" },
        placer: "conversation",
        overflowStrategy: "truncate"
      })
      assert.deepStrictEqual(yield* Policy.encode(policy), {
        scorer: {
          type: "decay",
          curve: { type: "exponential", halfLife: "86400000 millis" },
          referenceTime: "2024-06-03T09:00:00.000Z"
        },
        slicer: { type: "count_quota", inner: { type: "greedy" }, entries: [{ kind: "ToolOutput", capCount: 2 }], scarcity: "throw" },
        placer: { type: "conversation" },
        deduplication: true,
        overflowStrategy: "truncate"
      })
    }))
})

// ---------------------------------------------------------------------------------------------
// Building: the modules' own rules, with paths in the policy
// ---------------------------------------------------------------------------------------------

const refused = (json: unknown, component: string, path: string) =>
  Effect.gen(function*() {
    const policy = yield* decode(json)
    const error = yield* buildError(policy)
    assert.instanceOf(error, InvalidConfigError.InvalidConfigError)
    assert.strictEqual(error.component, component)
    assert.strictEqual(error.path, path)
    return error
  })

describe("Policy — building through the modules' make", () => {
  it.effect("a negative weight in a policy file is an InvalidConfigError naming its path", () =>
    Effect.gen(function*() {
      const policy = yield* Policy.decodeJson(
        `{ "scorer": { "type": "composite", "scorers": [{ "type": "recency", "weight": 1 }, { "type": "kind", "weight": -2 }] } }`
      )
      const error = yield* buildError(policy)
      assert.strictEqual(error.component, "CompositeScorer")
      assert.strictEqual(error.path, "scorer.scorers[1].weight")
      assert.strictEqual(error.message, "CompositeScorer: scorer.scorers[1].weight must be positive, got -2")
      // Policy.run fails the same way, before any item is looked at.
      assert.deepStrictEqual(yield* runPolicy(policy), Result.fail(error))
    }))

  it.effect("scorer rules, each at its place in the tree", () =>
    Effect.gen(function*() {
      yield* refused({ scorer: { type: "composite", scorers: [] } }, "CompositeScorer", "scorer.scorers")
      yield* refused({ scorer: { type: "kind", weights: { Memory: -1 } } }, "KindScorer", `scorer.weights["Memory"]`)
      yield* refused({ scorer: { type: "tag", weights: { a: 1, A: 2 }, caseInsensitive: true } }, "TagScorer", `scorer.weights["A"]`)
      yield* refused(
        { scorer: { type: "decay", curve: { type: "exponential", halfLife: 0 } } },
        "DecayScorer",
        "scorer.curve.halfLife"
      )
      yield* refused(
        { scorer: { type: "decay", curve: { type: "step", windows: [{ maxAge: "2 hours", score: 1 }, { maxAge: "1 hour", score: 0 }] } } },
        "DecayScorer",
        "scorer.curve.windows[1].maxAge"
      )
      yield* refused(
        { scorer: { type: "decay", curve: { type: "window", maxAge: 5 }, nullTimestampScore: 2 } },
        "DecayScorer",
        "scorer.nullTimestampScore"
      )
      yield* refused(
        { scorer: { type: "scaled", inner: { type: "metadata_key", key: "k", value: "v", boost: 0 } } },
        "MetadataKeyScorer",
        "scorer.inner.boost"
      )
      yield* refused({ scorer: { type: "metadata_trust", defaultScore: 1.5 } }, "MetadataTrustScorer", "scorer.defaultScore")
      yield* refused(
        {
          scorer: {
            type: "composite",
            scorers: [{ type: "recency", weight: 1 }, {
              type: "composite",
              weight: 1,
              scorers: [{ type: "priority", weight: 1 }, { type: "tag", weights: { x: -1 }, weight: 1 }]
            }]
          }
        },
        "TagScorer",
        `scorer.scorers[1].scorers[1].weights["x"]`
      )
    }))

  it.effect("slicer rules, inner slicers included", () =>
    Effect.gen(function*() {
      const scorer = { type: "recency" }
      yield* refused({ scorer, slicer: { type: "knapsack", bucketSize: 0 } }, "KnapsackSlice", "slicer.bucketSize")
      yield* refused({ scorer, slicer: { type: "knapsack", maxCells: 2.5 } }, "KnapsackSlice", "slicer.maxCells")
      yield* refused({ scorer, slicer: { type: "quota", quotas: [{ kind: "Document", require: 50, cap: 40 }] } }, "QuotaSlice", "slicer.quotas[0].require")
      yield* refused(
        { scorer, slicer: { type: "quota", inner: { type: "knapsack", bucketSize: -1 }, quotas: [] } },
        "KnapsackSlice",
        "slicer.inner.bucketSize"
      )
      yield* refused({ scorer, slicer: { type: "count_quota", inner: "knapsack", entries: [] } }, "CountQuotaSlice", "slicer.inner")
      yield* refused(
        { scorer, slicer: { type: "count_quota", entries: [{ kind: "Memory", requireCount: 1.5 }] } },
        "CountQuotaSlice",
        "slicer.entries[0].requireCount"
      )
      yield* refused(
        { scorer, slicer: { type: "quota", inner: { type: "count_quota", entries: [{ kind: "a" }, { kind: "A" }] }, quotas: [] } },
        "CountQuotaSlice",
        "slicer.inner.entries[1].kind"
      )
      yield* refused(
        { scorer, slicer: { type: "count_constrained_knapsack", entries: [], maxCells: 0 } },
        "CountConstrainedKnapsackSlice",
        "slicer.maxCells"
      )
      yield* refused(
        { scorer, slicer: { type: "count_constrained_knapsack", entries: [{ kind: "x", requireCount: 2, capCount: 1 }] } },
        "CountConstrainedKnapsackSlice",
        "slicer.entries[0].requireCount"
      )
    }))

  it.effect("placer rules, nested sections included", () =>
    Effect.gen(function*() {
      const scorer = { type: "recency" }
      yield* refused(
        { scorer, placer: { type: "sectioned", sections: [{ kinds: ["Message"], placer: "u-shaped" }, { kinds: ["message"], placer: "chronological" }] } },
        "SectionedPlacer",
        "placer.sections[1].kinds"
      )
      yield* refused(
        {
          scorer,
          placer: {
            type: "sectioned",
            sections: [{ kinds: ["Document"], placer: "u-shaped" }, {
              placer: { type: "sectioned", sections: [{ placer: "u-shaped" }, { placer: "chronological" }] }
            }]
          }
        },
        "SectionedPlacer",
        "placer.sections[1].placer.sections[1].kinds"
      )
    }))

  it.effect("the scorer is checked first, then the slicer, then the placer", () =>
    Effect.gen(function*() {
      const json = {
        scorer: { type: "kind", weights: { Memory: -1 } },
        slicer: { type: "knapsack", bucketSize: 0 },
        placer: { type: "sectioned", sections: [{ placer: "u-shaped" }, { placer: "u-shaped" }] }
      }
      yield* refused(json, "KindScorer", `scorer.weights["Memory"]`)
      yield* refused({ ...json, scorer: { type: "recency" } }, "KnapsackSlice", "slicer.bucketSize")
      yield* refused({ ...json, scorer: { type: "recency" }, slicer: "greedy" }, "SectionedPlacer", "placer.sections[1].kinds")
    }))

  it.effect("built alone, with an empty path, a component keeps its module's paths", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Policy.slicer({ type: "quota", inner: { type: "greedy" }, quotas: [{ kind: "a", cap: 101 }] }, ""))
      assert.strictEqual(error.path, "quotas[0].cap")
      const nested = yield* Effect.flip(
        Policy.scorer({ type: "composite", scorers: [{ type: "scaled", inner: { type: "metadata_trust", defaultScore: -1 }, weight: 1 }] }, "")
      )
      assert.strictEqual(nested.path, "scorers[0].inner.defaultScore")
    }))
})

// ---------------------------------------------------------------------------------------------
// Each family's configuration lives beside the family; Policy keeps its names
// ---------------------------------------------------------------------------------------------

describe("Policy — each family's configuration beside its family", () => {
  it("Policy's configuration names are the family modules' own values, also exported from the package root", () => {
    assert.strictEqual(Policy.ScorerConfig, ScorerConfig.ScorerConfig)
    assert.strictEqual(Policy.WeightedScorerConfig, ScorerConfig.WeightedScorerConfig)
    assert.strictEqual(Policy.CurveConfig, ScorerConfig.CurveConfig)
    assert.strictEqual(Policy.DurationInput, ScorerConfig.DurationInput)
    assert.strictEqual(Policy.ReferenceTime, ScorerConfig.ReferenceTime)
    assert.strictEqual(Policy.Weights, ScorerConfig.Weights)
    assert.strictEqual(Policy.scorerTypes, ScorerConfig.scorerTypes)
    assert.strictEqual(Policy.SlicerConfig, SlicerConfig.SlicerConfig)
    assert.strictEqual(Policy.QuotaConfig, SlicerConfig.QuotaConfig)
    assert.strictEqual(Policy.CountEntryConfig, SlicerConfig.CountEntryConfig)
    assert.strictEqual(Policy.ScarcityName, SlicerConfig.ScarcityName)
    assert.strictEqual(Policy.slicerTypes, SlicerConfig.slicerTypes)
    assert.strictEqual(Policy.PlacerConfig, PlacerConfig.PlacerConfig)
    assert.strictEqual(Policy.placerTypes, PlacerConfig.placerTypes)
    assert.strictEqual(Root.ScorerConfig.ScorerConfig, ScorerConfig.ScorerConfig)
    assert.strictEqual(Root.SlicerConfig.SlicerConfig, SlicerConfig.SlicerConfig)
    assert.strictEqual(Root.PlacerConfig.PlacerConfig, PlacerConfig.PlacerConfig)
  })

  it.effect("a family's builder keeps its modules' paths by default; Policy's puts them in the policy", () =>
    Effect.gen(function*() {
      const scorer = { type: "scaled", inner: { type: "kind", weights: { Memory: -1 } } } as const
      assert.strictEqual((yield* Effect.flip(ScorerConfig.build(scorer))).path, `inner.weights["Memory"]`)
      assert.strictEqual((yield* Effect.flip(Policy.scorer(scorer))).path, `scorer.inner.weights["Memory"]`)
      const slicer = { type: "knapsack", bucketSize: 0 } as const
      assert.strictEqual((yield* Effect.flip(SlicerConfig.build(slicer))).path, "bucketSize")
      assert.strictEqual((yield* Effect.flip(Policy.slicer(slicer))).path, "slicer.bucketSize")
      const placer = { type: "sectioned", sections: [{ placer: { type: "u-shaped" } }, { placer: { type: "u-shaped" } }] } as const
      const built = (layer: Layer.Layer<Placer.Placer, InvalidConfigError.InvalidConfigError>) =>
        Effect.flip(Effect.scoped(Layer.build(layer)))
      assert.strictEqual((yield* built(PlacerConfig.layer(placer))).path, "sections[1].kinds")
      assert.strictEqual((yield* built(Policy.placer(placer))).path, "placer.sections[1].kinds")
    }))
})

// ---------------------------------------------------------------------------------------------
// Every option gives what the module built by hand gives
// ---------------------------------------------------------------------------------------------

describe("Policy — the same results as the modules built by hand", () => {
  for (const c of cases) {
    it.effect(c.name, () =>
      Effect.gen(function*() {
        const policy = yield* decode(c.json)
        const viaPolicy = yield* runPolicy(policy)
        const byHand = yield* runHand(c.hand, c.options)
        assert.deepStrictEqual(viaPolicy, byHand)
      }))
  }

  it.effect("the cases tell the options apart (they are not all one window)", () =>
    Effect.gen(function*() {
      const windows = new Set<string>()
      for (const c of cases) {
        const result = yield* runPolicy(yield* decode(c.json))
        windows.add(Result.isSuccess(result) ? result.success.window.map((i) => i.content).join("|") : String(result))
      }
      assert.isAbove(windows.size, cases.length / 2)
    }))

  it.effect("Policy.layer with Policy.options is Policy.run", () =>
    Effect.gen(function*() {
      const policy = yield* decode(cases[cases.length - 3]!.json)
      const viaLayer = yield* Effect.result(
        Pipeline.run(sample, budget, Policy.options(policy)).pipe(
          Effect.provide([Policy.layer(policy), OverflowNotifier.layerNoop])
        )
      )
      assert.deepStrictEqual(viaLayer, yield* runPolicy(policy))
    }))

  it.effect("verbosity: optional and absent when not given, by the chapter's names, round-trips, and is the run's cupel.verbosity; another name is refused", () => {
    const { spans, tracer } = recordSpans()
    return Effect.gen(function*() {
      const plain = yield* decode({ scorer: mixJson })
      assert.notProperty(plain, "verbosity")
      assert.notProperty(yield* Policy.encode(plain), "verbosity")
      assert.isUndefined(Policy.options(plain).verbosity)
      for (const verbosity of ["StageOnly", "StageAndExclusions", "Full"] as const) {
        const policy = yield* decode({ scorer: mixJson, verbosity })
        assert.strictEqual(policy.verbosity, verbosity)
        assert.deepStrictEqual(yield* decode(yield* Policy.encode(policy)), policy)
        assert.strictEqual(Policy.options(policy).verbosity, verbosity)
        yield* runPolicy(policy)
        const root = spans.filter((s) => s.name === "cupel.pipeline").at(-1)!
        assert.strictEqual(root.attributes.get("cupel.verbosity"), verbosity)
      }
      assert.include(yield* problems({ scorer: mixJson, verbosity: "stageonly" }), `["verbosity"]`)
    }).pipe(Effect.withTracer(tracer))
  })

  it.effect("Policy.run tells the OverflowNotifier under proceed", () =>
    Effect.gen(function*() {
      const policy = yield* decode({
        scorer: mixJson,
        overflowStrategy: "proceed",
        slicer: { type: "count_quota", entries: [{ kind: "ToolOutput", requireCount: 2 }, { kind: "Document", requireCount: 2 }] }
      })
      const [result, events] = yield* Effect.gen(function*() {
        const result = yield* Policy.run(sample, budget, policy)
        const test = yield* OverflowNotifier.OverflowNotifierTest
        return [result, yield* test.events] as const
      }).pipe(Effect.provide(OverflowNotifier.layerTest))
      assert.isAbove(result.tokensOverBudget, 0)
      assert.strictEqual(events.length, 1)
      assert.strictEqual(events[0]!.tokensOverBudget, result.tokensOverBudget)
    }))
})

// ---------------------------------------------------------------------------------------------
// docs/policies.md says what the code does
// ---------------------------------------------------------------------------------------------

const policiesDoc = readFileSync(fileURLToPath(new URL("../docs/policies.md", import.meta.url)), "utf8")

/** The fenced block that follows the `<!-- marker -->` comment. */
const docBlock = (marker: string): string => {
  const at = policiesDoc.indexOf(`<!-- ${marker} -->`)
  assert.isAtLeast(at, 0, `docs/policies.md has no ${marker}`)
  const open = policiesDoc.indexOf("\n", policiesDoc.indexOf("```", at))
  return policiesDoc.slice(open + 1, policiesDoc.indexOf("\n```", open) + 1)
}

describe("docs/policies.md", () => {
  it.effect("the full example decodes, builds and runs", () =>
    Effect.gen(function*() {
      const policy = yield* Policy.decodeJson(docBlock("policy-example"))
      assert.strictEqual(policy.overflowStrategy, "Truncate")
      const result = yield* Policy.run(sample, budget, policy).pipe(Effect.provide(OverflowNotifier.layerNoop))
      assert.isAtMost(result.totalTokens, budget.targetTokens)
      assert.strictEqual(result.window[0]!.kind, "SystemPrompt")
      // At most two tool outputs.
      assert.isAtMost(result.window.filter((i) => i.kind === "ToolOutput").length, 2)
    }))

  it.effect("the shape errors shown are the ones decoding gives", () =>
    Effect.gen(function*() {
      const message = yield* problems({
        scorer: {
          type: "composite",
          scorers: [{ type: "recency", weight: "heavy" }, { type: "kind", weigths: { Memory: 2 }, weight: 1 }]
        },
        overflowStrategy: "Throw"
      })
      assert.strictEqual(`${message}\n`, docBlock("policy-shapes"))
    }))

  it.effect("the rule errors shown are the ones building gives", () =>
    Effect.gen(function*() {
      const messages: Array<string> = []
      for (
        const json of [
          { scorer: { type: "composite", scorers: [{ type: "recency", weight: 1 }, { type: "kind", weight: -2 }] } },
          {
            scorer: { type: "recency" },
            slicer: { type: "quota", inner: { type: "quota", quotas: [{ kind: "Document", require: 50, cap: 40 }] }, quotas: [] }
          },
          {
            scorer: { type: "recency" },
            placer: {
              type: "sectioned",
              sections: [{ kinds: ["Message"], placer: "u-shaped" }, { kinds: ["message"], placer: "chronological" }]
            }
          }
        ]
      ) messages.push((yield* buildError(yield* decode(json))).message)
      assert.strictEqual(messages.map((m) => `${m}\n`).join(""), docBlock("policy-rules"))
    }))

  it.effect("a preset encoded is the file shown", () =>
    Effect.gen(function*() {
      const documentQa = yield* Effect.flatMap(Presets.get("documentQa"), Policy.encodeJson)
      assert.strictEqual(`${documentQa}\n`, docBlock("preset-example"))
    }))
})
