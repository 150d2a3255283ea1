import { NodeServices } from "@effect/platform-node"
import { assert, describe, it, layer } from "@effect/vitest"
import { DateTime, Effect, Layer } from "effect"
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import * as PipelineInput from "../src/cli/PipelineInput.ts"
import * as PlaceInput from "../src/cli/PlaceInput.ts"
import * as RunInput from "../src/cli/RunInput.ts"
import * as Sample from "../src/cli/Sample.ts"
import {
  ChronologicalPlacer,
  CompositeScorer,
  ContextItem,
  DecayScorer,
  FrequencyScorer,
  GreedySlice,
  KindScorer,
  KnapsackSlice,
  MetadataKeyScorer,
  MetadataTrustScorer,
  OverflowNotifier,
  Pipeline,
  PipelineResult,
  Policy,
  Presets,
  PriorityScorer,
  RecencyScorer,
  ReflexiveScorer,
  ScaledScorer,
  Scorer,
  Slicer,
  TagScorer,
  UShapedPlacer
} from "../src/index.ts"
import { docBlock } from "./support/docs.ts"
import { cli, writeTemp, type Run } from "./support/cli.ts"

const root = fileURLToPath(new URL("..", import.meta.url))





const sampleText = JSON.stringify(Sample.pipeline)

/** The library's own run of the sample, with the strategies built by hand (not from the JSON). */
const inProcess = (
  placer: "u-shaped" | "chronological" = "u-shaped",
  slicer: Slicer.Definition = GreedySlice.make()
) =>
  Effect.gen(function*() {
    const input = yield* PipelineInput.decodeValue("sample", Sample.pipeline)
    const scorer = yield* CompositeScorer.make([
      { scorer: RecencyScorer.make(), weight: 0.5 },
      { scorer: PriorityScorer.make(), weight: 0.3 },
      { scorer: KindScorer.defaults, weight: 0.2 }
    ])
    const result = yield* Pipeline.run(input.items, input.budget).pipe(
      Effect.provide(Layer.mergeAll(
        Scorer.layer(scorer),
        Slicer.layer(slicer),
        placer === "u-shaped" ? UShapedPlacer.layer : ChronologicalPlacer.layer,
        OverflowNotifier.layerNoop
      ))
    )
    return yield* PipelineResult.encode(result)
  })

/** The result without the stage durations, which differ from run to run. */
const comparable = <
  A extends { readonly report: { readonly events: ReadonlyArray<{ readonly duration_ms: number }> } }
>(json: A) => ({
  ...json,
  report: { ...json.report, events: json.report.events.map(({ duration_ms: _, ...rest }) => rest) }
})

/** Asserts a failed run: its exit code, exactly one line on stderr, nothing on stdout. */
const assertOneLine = (run: Run, code: number, ...expected: ReadonlyArray<string>) => {
  assert.strictEqual(run.code, code, run.stderr)
  assert.strictEqual(run.stdout, "")
  assert.strictEqual(run.stderr.split("\n").length, 1, run.stderr)
  assert.notInclude(run.stderr, "    at ")
  for (const text of expected) assert.include(run.stderr, text)
}

const budget = `"budget": { "maxTokens": 100, "targetTokens": 50 }`
const recency = `"scorer": { "type": "recency" }`

layer(NodeServices.layer)("cupel run: the result", (it) => {
  it.effect("is listed by --help", () =>
    Effect.gen(function*() {
      const run = yield* cli(["--help"])
      assert.match(run.stdout, /^  run\s/m)
    }))

  it.effect("round-trips the example in docs/cli.md: the documented command prints the documented output", () =>
    Effect.gen(function*() {
      assert.strictEqual(docBlock("run-example:command"), "cupel run trains.json")
      const file = yield* writeTemp("trains.json", docBlock("run-example:input"))
      const run = yield* cli(["run", file])
      assert.strictEqual(run.code, 0, run.stderr)
      assert.deepStrictEqual(comparable(JSON.parse(run.stdout)), comparable(JSON.parse(docBlock("run-example:output"))))
    }))

  it.effect("on the sample gives the same window and report as Pipeline.run in process", () =>
    Effect.gen(function*() {
      const file = yield* writeTemp("sample.json", sampleText)
      const run = yield* cli(["run", file])
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(run.stderr, "")
      const output = JSON.parse(run.stdout)
      const expected = yield* inProcess()
      assert.deepStrictEqual(output.window, expected.window)
      assert.deepStrictEqual(comparable(output), comparable(expected))
      assert.strictEqual(output.window.length, 15)
      assert.strictEqual(output.totalTokens, 682)
    }))

  it.effect("prints the report in the specification's wire form", () =>
    Effect.gen(function*() {
      const run = yield* cli(["run"], sampleText)
      const output = JSON.parse(run.stdout)
      assert.deepStrictEqual(Object.keys(output), ["window", "report", "totalTokens", "tokensOverBudget"])
      assert.strictEqual(output.report.total_candidates, 20)
      assert.strictEqual(output.report.total_tokens_considered, 5449)
      assert.deepStrictEqual(output.report.events.map((e: { stage: string }) => e.stage), [
        "Classify",
        "Score",
        "Deduplicate",
        "Slice",
        "Place"
      ])
      const reasons = output.report.excluded.map((e: { reason: { reason: string } }) => e.reason.reason)
      assert.sameMembers([...new Set(reasons)], ["BudgetExceeded", "PinnedOverride", "Deduplicated"])
      assert.deepStrictEqual(output.report.included[0].reason, { reason: "Pinned" })
      // Every item printed decodes back to an item of the input.
      const decoded = yield* PipelineInput.decodeValue("sample", Sample.pipeline)
      for (const json of output.window) {
        const item = yield* ContextItem.decode(json)
        assert.isTrue(decoded.items.some((i) => i.content === item.content && i.tokens === item.tokens))
      }
    }))

  it.effect("reads standard input with - or no file; `demo --print-sample | run` works", () =>
    Effect.gen(function*() {
      const printed = yield* cli(["demo", "--print-sample"])
      assert.strictEqual(printed.code, 0)
      const a = yield* cli(["run", "-"], printed.stdout)
      const b = yield* cli(["run"], printed.stdout)
      assert.strictEqual(a.code, 0, a.stderr)
      assert.deepStrictEqual(JSON.parse(a.stdout).window, JSON.parse(b.stdout).window)
      assert.deepStrictEqual(JSON.parse(a.stdout).window, (yield* inProcess()).window)
    }))

  it.effect("--placer and --slicer override the input's choice", () =>
    Effect.gen(function*() {
      const chronological = yield* cli(["run", "--placer", "chronological"], sampleText)
      assert.strictEqual(chronological.code, 0, chronological.stderr)
      assert.deepStrictEqual(JSON.parse(chronological.stdout).window, (yield* inProcess("chronological")).window)
      const knapsack = yield* cli(["run", "--slicer", "knapsack"], sampleText)
      assert.strictEqual(knapsack.code, 0, knapsack.stderr)
      const expected = yield* inProcess("u-shaped", yield* KnapsackSlice.make())
      assert.deepStrictEqual(JSON.parse(knapsack.stdout).window, expected.window)
    }))

  it.effect("a knapsack with options, and --overflow proceed, as the input and the flags say", () =>
    Effect.gen(function*() {
      const input = { ...Sample.pipeline, slicer: { type: "knapsack", bucketSize: 10 } }
      const run = yield* cli(["run"], JSON.stringify(input))
      assert.strictEqual(run.code, 0, run.stderr)
      const expected = yield* inProcess("u-shaped", yield* KnapsackSlice.make({ bucketSize: 10 }))
      assert.deepStrictEqual(JSON.parse(run.stdout).window, expected.window)
      // Pinned items over the target: proceed keeps them and says how far over.
      const over = `{ ${budget}, ${recency}, "items": [{ "content": "p", "tokens": 80, "pinned": true }] }`
      const proceed = yield* cli(["run", "--overflow", "proceed"], over)
      assert.strictEqual(proceed.code, 0, proceed.stderr)
      assert.strictEqual(JSON.parse(proceed.stdout).tokensOverBudget, 30)
    }))

  it.effect("deduplication: false keeps byte-identical items", () =>
    Effect.gen(function*() {
      const input = { ...Sample.pipeline, budget: { maxTokens: 8000, targetTokens: 8000 }, deduplication: false }
      const run = yield* cli(["run"], JSON.stringify(input))
      assert.strictEqual(run.code, 0, run.stderr)
      const output = JSON.parse(run.stdout)
      assert.strictEqual(output.window.length, 20)
      assert.deepStrictEqual(output.report.excluded, [])
    }))
})

// Each scorer node gives the scores of the scorer its module builds from the same options.
const items = [
  { content: "a", tokens: 1, priority: 3, tags: ["x", "y"], metadata: { "cupel:trust": 0.9, tier: "gold" }, timestamp: "2024-06-01T10:00:00Z", futureRelevanceHint: 0.2, kind: "Document" },
  { content: "b", tokens: 2, priority: 1, tags: ["y"], metadata: { tier: "silver" }, timestamp: "2024-06-01T08:00:00Z", futureRelevanceHint: 0.7 },
  { content: "c", tokens: 3, tags: ["z"], kind: "SystemPrompt" },
  { content: "d", tokens: 4, priority: 7, timestamp: "2024-05-31T22:00:00+02:00", kind: "Memory" }
]
const scorerCases: ReadonlyArray<readonly [string, unknown, Effect.Effect<Scorer.Definition, unknown>]> = [
  ["recency", { type: "recency" }, Effect.succeed(RecencyScorer.make())],
  ["priority", { type: "priority" }, Effect.succeed(PriorityScorer.make())],
  ["reflexive", { type: "reflexive" }, Effect.succeed(ReflexiveScorer.make())],
  ["frequency", { type: "frequency" }, Effect.succeed(FrequencyScorer.make())],
  ["kind (default weights)", { type: "kind" }, KindScorer.make()],
  ["kind (weights)", { type: "kind", weights: { memory: 2, Document: 0.5 } }, KindScorer.make({ memory: 2, Document: 0.5 })],
  ["tag", { type: "tag", weights: { X: 2, y: 1 }, caseInsensitive: true }, TagScorer.make({ X: 2, y: 1 }, { caseInsensitive: true })],
  [
    "decay (exponential)",
    { type: "decay", curve: { type: "exponential", halfLife: "6 hours" }, referenceTime: "2024-06-01T12:00:00Z", nullTimestampScore: 0.25 },
    DecayScorer.make({
      curve: DecayScorer.exponential("6 hours"),
      referenceTime: DateTime.makeUnsafe("2024-06-01T12:00:00Z"),
      nullTimestampScore: 0.25
    })
  ],
  [
    "decay (step, durations in milliseconds)",
    { type: "decay", curve: { type: "step", windows: [{ maxAge: 3_600_000, score: 1 }, { maxAge: 36_000_000, score: 0.4 }] }, referenceTime: "2024-06-01T10:30:00Z" },
    DecayScorer.make({
      curve: DecayScorer.step([{ maxAge: 3_600_000, score: 1 }, { maxAge: 36_000_000, score: 0.4 }]),
      referenceTime: DateTime.makeUnsafe("2024-06-01T10:30:00Z")
    })
  ],
  [
    "decay (window)",
    { type: "decay", curve: { type: "window", maxAge: "3 hours" }, referenceTime: "2024-06-01T10:30:00Z" },
    DecayScorer.make({ curve: DecayScorer.window("3 hours"), referenceTime: DateTime.makeUnsafe("2024-06-01T10:30:00Z") })
  ],
  ["metadata_key", { type: "metadata_key", key: "tier", value: "gold", boost: 1.5 }, MetadataKeyScorer.make({ key: "tier", value: "gold", boost: 1.5 })],
  ["metadata_trust", { type: "metadata_trust", defaultScore: 0.3 }, MetadataTrustScorer.make({ defaultScore: 0.3 })],
  ["scaled", { type: "scaled", inner: { type: "reflexive" } }, Effect.succeed(ScaledScorer.make(ReflexiveScorer.make()))],
  [
    "composite (nested)",
    {
      type: "composite",
      scorers: [
        { type: "priority", weight: 3 },
        { type: "composite", weight: 1, scorers: [{ type: "kind", weight: 1 }, { type: "scaled", inner: { type: "recency" }, weight: 1 }] }
      ]
    },
    Effect.gen(function*() {
      const inner = yield* CompositeScorer.make([
        { scorer: KindScorer.defaults, weight: 1 },
        { scorer: ScaledScorer.make(RecencyScorer.make()), weight: 1 }
      ])
      return yield* CompositeScorer.make([{ scorer: PriorityScorer.make(), weight: 3 }, { scorer: inner, weight: 1 }])
    })
  ]
]

layer(NodeServices.layer)("cupel run: every scorer type", (it) => {
  for (const [name, config, library] of scorerCases) {
    it.effect(`${name}: the scores of the library's scorer built with the same options`, () =>
      Effect.gen(function*() {
        const input = { budget: { maxTokens: 1000, targetTokens: 1000 }, items, scorer: config, deduplication: false }
        const run = yield* cli(["run"], JSON.stringify(input))
        assert.strictEqual(run.code, 0, run.stderr)
        const output = JSON.parse(run.stdout)
        const decoded = yield* Effect.forEach(items, (i) => ContextItem.decode(i))
        const scorer = yield* library
        const expected = Array.from(yield* scorer.scoreAll(decoded))
        const byContent = new Map<string, number>(
          output.report.included.map((e: { item: { content: string }; score: number }) => [e.item.content, e.score])
        )
        assert.deepStrictEqual(decoded.map((i) => byContent.get(i.content)), expected)
      }))
  }
})

layer(NodeServices.layer)("cupel run: errors (exit code, one line on stderr, nothing on stdout)", (it) => {
  it.effect("malformed JSON: exit 2", () =>
    Effect.gen(function*() {
      assertOneLine(yield* cli(["run"], `{ ${budget}, `), 2, "cupel run: invalid input (stdin): malformed JSON:")
    }))

  it.effect("a missing field: exit 2, named by its path", () =>
    Effect.gen(function*() {
      assertOneLine(yield* cli(["run"], `{ ${budget}, ${recency} }`), 2, "cupel run: invalid input (stdin): items: is required but missing")
      assertOneLine(
        yield* cli(["run"], `{ ${budget}, ${recency}, "items": [{ "content": "a" }] }`),
        2,
        "items[0].tokens: is required but missing"
      )
      assertOneLine(yield* cli(["run"], `{ ${budget}, "items": [] }`), 2, "scorer: is required but missing")
    }))

  it.effect("several problems: one line each, each with its path", () =>
    Effect.gen(function*() {
      const run = yield* cli(["run"], `{ "budget": { "maxTokens": 1, "targetTokens": 5 }, "items": [{ "content": "" }],
        "scorer": { "type": "composite", "scorers": [{ "type": "priority" }] }, "slicer": "knapsak", "placr": "u-shaped" }`)
      assert.strictEqual(run.code, 2)
      assert.strictEqual(run.stdout, "")
      const lines = run.stderr.split("\n")
      for (const path of ["budget.targetTokens", "items[0].content", "items[0].tokens", "scorer.scorers[0].weight", "slicer", "placr"]) {
        assert.isTrue(lines.some((l) => l.startsWith(`cupel run: invalid input (stdin): ${path}: `)), `${path} in\n${run.stderr}`)
      }
      assert.isTrue(lines.every((l) => l.startsWith("cupel run: invalid input (stdin): ")))
    }))

  it.effect("a bad scorer configuration: an unknown type or key is a decoding error, exit 2", () =>
    Effect.gen(function*() {
      assertOneLine(
        yield* cli(["run"], `{ ${budget}, "items": [], "scorer": { "type": "recnecy" } }`),
        2,
        `scorer: Expected a scorer: an object whose "type" is one of recency, priority`
      )
      assertOneLine(
        yield* cli(["run"], `{ ${budget}, "items": [], "scorer": { "type": "kind", "weigths": { "Memory": 1 } } }`),
        2,
        "scorer.weigths: "
      )
      assertOneLine(
        yield* cli(["run"], `{ ${budget}, "items": [], "scorer": { "type": "decay", "curve": { "type": "exponential", "halfLife": "1 fortnight" } } }`),
        2,
        "scorer.curve.halfLife: "
      )
    }))

  it.effect("an option a constructor refuses (InvalidConfigError): exit 2, the path within the input", () =>
    Effect.gen(function*() {
      const composite = (child: string) =>
        `{ ${budget}, "items": [], "scorer": { "type": "composite", "scorers": [{ "type": "priority", "weight": 1 }, ${child}] } }`
      assertOneLine(
        yield* cli(["run"], composite(`{ "type": "kind", "weight": 0 }`)),
        2,
        "cupel run: invalid configuration (stdin): CompositeScorer: scorer.scorers[1].weight must be positive, got 0"
      )
      assertOneLine(
        yield* cli(["run"], composite(`{ "type": "scaled", "weight": 1, "inner": { "type": "decay", "curve": { "type": "window", "maxAge": "0 seconds" } } }`)),
        2,
        "DecayScorer: scorer.scorers[1].inner.curve.maxAge must be a positive duration"
      )
      assertOneLine(
        yield* cli(["run"], composite(`{ "type": "tag", "weight": 1, "weights": { "a": -1 } }`)),
        2,
        `TagScorer: scorer.scorers[1].weights["a"] must be non-negative, got -1`
      )
      assertOneLine(
        yield* cli(["run"], `{ ${budget}, "items": [], "scorer": { "type": "metadata_key", "key": "k", "value": "v", "boost": 0 } }`),
        2,
        "MetadataKeyScorer: scorer.boost must be finite and greater than 0.0, got 0"
      )
      assertOneLine(
        yield* cli(["run"], `{ ${budget}, "items": [], ${recency}, "slicer": { "type": "knapsack", "bucketSize": 0 } }`),
        2,
        "invalid configuration (stdin): KnapsackSlice: slicer.bucketSize"
      )
    }))

  it.effect("pinned items over maxTokens − outputReserve (PinnedBudgetError): exit 1, the error as JSON", () =>
    Effect.gen(function*() {
      const run = yield* cli(["run"], `{ ${budget}, ${recency}, "items": [{ "content": "p", "tokens": 120, "pinned": true }] }`)
      assertOneLine(run, 1)
      assert.deepStrictEqual(JSON.parse(run.stderr), {
        _tag: "PinnedBudgetError",
        pinnedTokens: 120,
        availableTokens: 100,
        pinnedCount: 1,
        message:
          "Pinned items require 120 tokens, but only 100 are available (maxTokens − outputReserve); pin fewer or smaller items, or raise maxTokens"
      })
    }))

  it.effect("overflow under throw (the default): exit 1, the OverflowError as JSON; truncate succeeds", () =>
    Effect.gen(function*() {
      const input = `{ ${budget}, ${recency}, "items": [{ "content": "p", "tokens": 80, "pinned": true }, { "content": "q", "tokens": 5 }] }`
      const run = yield* cli(["run"], input)
      assertOneLine(run, 1)
      assert.deepStrictEqual(JSON.parse(run.stderr), {
        _tag: "OverflowError",
        mergedTokens: 80,
        targetTokens: 50,
        tokensOverBudget: 30,
        message: "Selected items require 80 tokens, exceeding target budget of 50"
      })
      const truncated = yield* cli(["run", "--overflow", "truncate"], input)
      assert.strictEqual(truncated.code, 0, truncated.stderr)
      assert.strictEqual(JSON.parse(truncated.stdout).tokensOverBudget, 30)
    }))

  it.effect("token counts past Number.MAX_SAFE_INTEGER (TokenTotalError): exit 2", () =>
    Effect.gen(function*() {
      const run = yield* cli(
        ["run"],
        `{ ${budget}, ${recency}, "items": [{ "content": "a", "tokens": ${Number.MAX_SAFE_INTEGER} }, { "content": "b", "tokens": 1 }] }`
      )
      assertOneLine(run, 2, "cupel run: invalid input (stdin): the tokens of the", "Number.MAX_SAFE_INTEGER")
    }))

  it.effect("a knapsack table past maxCells (SlicerError): exit 2", () =>
    Effect.gen(function*() {
      const run = yield* cli(
        ["run"],
        `{ "budget": { "maxTokens": 100000, "targetTokens": 100000 }, ${recency},
           "slicer": { "type": "knapsack", "bucketSize": 1, "maxCells": 1000 },
           "items": [{ "content": "a", "tokens": 5 }, { "content": "b", "tokens": 6 }] }`
      )
      assertOneLine(run, 2, "cupel run: invalid input (stdin): Slicer \"knapsack\" failed")
    }))

  it.effect("a file that cannot be read: exit 2", () =>
    Effect.gen(function*() {
      assertOneLine(yield* cli(["run", `${root}no-such-input.json`]), 2, "no-such-input.json): cannot read: no such file or directory")
    }))
})

describe("cupel run: the real program", () => {
  const node = `${root}node_modules/.bin/node`
  const cupel = (args: ReadonlyArray<string>, input?: string) =>
    spawnSync(node, [`${root}src/bin/cupel.ts`, ...args], { encoding: "utf8", input, cwd: root })

  it("exit codes reach the process, and a failure leaves stdout empty", () => {
    const sample = cupel(["demo", "--print-sample"])
    assert.strictEqual(sample.status, 0, sample.stderr)
    const ok = cupel(["run"], sample.stdout)
    assert.strictEqual(ok.status, 0, ok.stderr)
    assert.strictEqual(JSON.parse(ok.stdout).window.length, 15)
    const pinned = cupel(["run"], `{ ${budget}, ${recency}, "items": [{ "content": "p", "tokens": 120, "pinned": true }] }`)
    assert.strictEqual(pinned.status, 1)
    assert.strictEqual(pinned.stdout, "")
    assert.strictEqual(JSON.parse(pinned.stderr)._tag, "PinnedBudgetError")
    const bad = cupel(["run"], "{")
    assert.strictEqual(bad.status, 2)
    assert.strictEqual(bad.stdout, "")
    assert.strictEqual(bad.stderr.trim().split("\n").length, 1)
  })
})

// The policy from the input, a Policy JSON file (--policy) or a preset (--preset); flags over all.
const candidatesOnly = JSON.stringify({ budget: Sample.pipeline.budget, items: Sample.pipeline.items })

/** The library's run of the sample's items under `policy`, encoded. */
const underPolicy = (policy: Policy.Policy) =>
  Effect.gen(function*() {
    const input = yield* PipelineInput.decodeValue("sample", Sample.pipeline)
    const result = yield* Policy.run(input.items, input.budget, policy).pipe(Effect.provide(OverflowNotifier.layerNoop))
    return yield* PipelineResult.encode(result)
  })

layer(NodeServices.layer)("cupel run: --policy and --preset", (it) => {
  it.effect("--preset NAME runs the preset's policy, the input's policy fields replaced (the scorer not needed)", () =>
    Effect.gen(function*() {
      for (const name of Presets.names) {
        const run = yield* cli(["run", "--preset", name], candidatesOnly)
        assert.strictEqual(run.code, 0, run.stderr)
        assert.deepStrictEqual(comparable(JSON.parse(run.stdout)), comparable(yield* underPolicy(Presets.all[name])))
      }
      const replaced = yield* cli(["run", "--preset", "chat"], sampleText)
      assert.deepStrictEqual(JSON.parse(replaced.stdout).window, (yield* underPolicy(Presets.chat)).window)
    }))

  it.effect("--policy FILE runs a Policy JSON file, such as `cupel presets NAME --json` prints", () =>
    Effect.gen(function*() {
      const printed = yield* cli(["presets", "documentQa", "--json"])
      const file = yield* writeTemp("policy.json", printed.stdout)
      const run = yield* cli(["run", "--policy", file], candidatesOnly)
      assert.strictEqual(run.code, 0, run.stderr)
      assert.deepStrictEqual(comparable(JSON.parse(run.stdout)), comparable(yield* underPolicy(Presets.documentQa)))
      const custom = yield* writeTemp("custom.json", JSON.stringify({ scorer: { type: "priority" }, placer: "chronological" }))
      const own = yield* cli(["run", "--policy", custom], sampleText)
      assert.strictEqual(own.code, 0, own.stderr)
      assert.deepStrictEqual(
        JSON.parse(own.stdout).window,
        (yield* underPolicy(Policy.make({ scorer: { type: "priority" }, placer: { type: "chronological" } }))).window
      )
    }))

  it.effect("precedence: --placer, --slicer, --overflow override the preset's or file's fields", () =>
    Effect.gen(function*() {
      const run = yield* cli(["run", "--preset", "chat", "--placer", "u-shaped", "--slicer", "knapsack", "--overflow", "truncate"], candidatesOnly)
      assert.strictEqual(run.code, 0, run.stderr)
      const expected = yield* underPolicy({
        ...Presets.chat,
        placer: { type: "u-shaped" },
        slicer: { type: "knapsack" },
        overflowStrategy: "Truncate"
      })
      assert.deepStrictEqual(comparable(JSON.parse(run.stdout)), comparable(expected))
      // --slicer naming the policy's own slicer keeps its options.
      const same = yield* cli(["run", "--preset", "documentQa", "--slicer", "knapsack"], candidatesOnly)
      assert.deepStrictEqual(JSON.parse(same.stdout).window, (yield* underPolicy(Presets.documentQa)).window)
    }))

  it.effect("an input may carry a policy's name and description (Policy's format extends the input)", () =>
    Effect.gen(function*() {
      const run = yield* cli(["run"], JSON.stringify({ ...Sample.pipeline, name: "demo", description: "the sample" }))
      assert.strictEqual(run.code, 0, run.stderr)
      assert.deepStrictEqual(JSON.parse(run.stdout).window, (yield* inProcess()).window)
    }))

  it.effect("an unknown preset: exit 2, one line listing the presets", () =>
    Effect.gen(function*() {
      assertOneLine(
        yield* cli(["run", "--preset", "chatty"], candidatesOnly),
        2,
        `cupel run: no preset is named "chatty"; the presets are chat, codeReview, rag, documentQa, toolUse, longRunning, debugging`
      )
    }))

  it.effect("--policy and --preset together: exit 2, one line", () =>
    Effect.gen(function*() {
      const file = yield* writeTemp("p.json", JSON.stringify({ scorer: { type: "recency" } }))
      assertOneLine(yield* cli(["run", "--policy", file, "--preset", "rag"], candidatesOnly), 2, "use one of them")
    }))

  it.effect("a bad policy file: exit 2, each problem with its path, naming the file", () =>
    Effect.gen(function*() {
      const file = yield* writeTemp("bad.json", JSON.stringify({ scorer: { type: "kind", weigths: {} }, slicer: "knapsak" }))
      const run = yield* cli(["run", "--policy", file], candidatesOnly)
      assert.strictEqual(run.code, 2)
      assert.strictEqual(run.stdout, "")
      const lines = run.stderr.split("\n")
      assert.isTrue(lines.every((l) => l.startsWith(`cupel run: invalid policy (${file}): `)), run.stderr)
      assert.isTrue(lines.some((l) => l.includes("scorer.weigths")), run.stderr)
      assert.isTrue(lines.some((l) => l.includes("slicer: ")), run.stderr)
      assertOneLine(yield* cli(["run", "--policy", `${root}no-such-policy.json`], candidatesOnly), 2, "cannot read: no such file or directory")
      const malformed = yield* writeTemp("m.json", "{")
      assertOneLine(yield* cli(["run", "--policy", malformed], candidatesOnly), 2, "malformed JSON")
    }))

  it.effect("a policy file the library refuses (InvalidConfigError): exit 2, the path within the file", () =>
    Effect.gen(function*() {
      const file = yield* writeTemp(
        "refused.json",
        JSON.stringify({ scorer: { type: "composite", scorers: [{ type: "recency", weight: 0 }] } })
      )
      assertOneLine(
        yield* cli(["run", "--policy", file], candidatesOnly),
        2,
        `cupel run: invalid configuration (${file}): CompositeScorer: scorer.scorers[0].weight must be positive`
      )
    }))

  it.effect("the input's own policy fields are still checked with --preset: a misspelt key is reported", () =>
    Effect.gen(function*() {
      assertOneLine(
        yield* cli(["run", "--preset", "rag"], JSON.stringify({ ...JSON.parse(candidatesOnly), placr: "u-shaped" })),
        2,
        "cupel run: invalid input (stdin): placr: "
      )
    }))

  it.effect("--policy -: refused with exit 2 before reading; standard input is read once, for the input", () =>
    Effect.gen(function*() {
      const run = yield* cli(["run", "--policy", "-"], sampleText)
      assertOneLine(run, 2, "cupel run: invalid policy (-): cannot read: standard input holds the run's input")
      assert.notInclude(run.stderr, "malformed JSON")
      const error = yield* Effect.flip(RunInput.readPolicy("-"))
      assert.isTrue(error.unreadable)
    }))

  it.effect("a policy file that cannot be read and one that is not a policy are told apart by the error's type", () =>
    Effect.gen(function*() {
      const missing = yield* Effect.flip(RunInput.readPolicy(`${root}no-such-policy.json`))
      assert.isTrue(missing.unreadable)
      const malformed = yield* Effect.flip(RunInput.readPolicy(yield* writeTemp("m.json", "{")))
      assert.isUndefined(malformed.unreadable)
      // A problem worded like an unreadable file is still an invalid policy.
      const worded = yield* Effect.flip(
        RunInput.readPolicy(yield* writeTemp("w.json", JSON.stringify({ scorer: { type: "recency" }, "cannot read:": 1 })))
      )
      assert.isUndefined(worded.unreadable)
    }))

  it.effect("malformed JSON is worded by one helper, PlaceInput.parseJson, for every reader", () =>
    Effect.gen(function*() {
      const expected = (yield* Effect.flip(PlaceInput.parseJson("s", "{"))).problems
      assert.strictEqual(expected.length, 1)
      assert.match(expected[0]!, /^malformed JSON: /)
      assert.deepStrictEqual((yield* Effect.flip(PlaceInput.decodeText("s", "{"))).problems, expected)
      assert.deepStrictEqual((yield* Effect.flip(PipelineInput.decodeText("s", "{"))).problems, expected)
      assert.deepStrictEqual((yield* Effect.flip(PipelineInput.decodeCandidatesText("s", "{"))).problems, expected)
      assert.deepStrictEqual((yield* Effect.flip(RunInput.readPolicy(yield* writeTemp("m.json", "{")))).problems, expected)
    }))

  it.effect("the fast path decodes the policy fields once and answers as the schemas do (a budget's unknown keys allowed)", () =>
    Effect.gen(function*() {
      const inputs = [
        Sample.pipeline,
        { ...Sample.pipeline, budget: { ...Sample.pipeline.budget, note: "kept lenient" } },
        { ...Sample.pipeline, slicer: { type: "knapsack", bucketSize: 10 }, placer: "chronological", overflowStrategy: "truncate" }
      ]
      for (const value of inputs) {
        assert.deepStrictEqual(
          yield* PipelineInput.decodeValue("s", value),
          yield* PipelineInput.decodeValueWithSchema("s", value)
        )
      }
      const candidates = { budget: { ...Sample.pipeline.budget, note: 1 }, items: Sample.pipeline.items, placer: "chronological" }
      const decoded = yield* PipelineInput.decodeCandidatesValue("s", candidates)
      assert.strictEqual(decoded.items.length, Sample.pipeline.items.length)
      assert.strictEqual(decoded.budget.maxTokens, Sample.pipeline.budget.maxTokens)
      // A misspelt key in the policy is still reported, by the schemas.
      const misspelt = yield* Effect.flip(PipelineInput.decodeValue("s", { ...Sample.pipeline, placr: "u-shaped" }))
      assert.include(misspelt.problems.join("\n"), "placr")
    }))
})
