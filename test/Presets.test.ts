import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fc from "fast-check"
import {
  CompositeScorer,
  ContextBudget,
  ContextItem,
  FrequencyScorer,
  GreedySlice,
  KindScorer,
  KnapsackSlice,
  OverflowNotifier,
  Pipeline,
  type Placer,
  PriorityScorer,
  RecencyScorer,
  ReflexiveScorer,
  Scorer,
  SectionedPlacer,
  Slicer,
  Timestamp
} from "../src/index.ts"
import * as Policy from "../src/Policy.ts"
import * as Presets from "../src/Presets.ts"

// The seven presets of Cupel .NET, transcribed from src/Wollax.Cupel/CupelPresets.cs (wollax/cupel):
// each scorer entry with its weight, in order, the slicer (and the knapsack's bucket size), the
// placer. Every preset there deduplicates and uses OverflowStrategy.Throw. The placer is .NET's
// and not ours: every preset here places with `conversation`, so that the system prompt comes
// first (docs/design.md, "Presets put the system prompt first").
const dotnet: ReadonlyArray<{
  readonly name: Presets.PresetName
  readonly dotnetName: string
  readonly scorers: ReadonlyArray<readonly [string, number]>
  readonly slicer: "Greedy" | "Knapsack"
  readonly bucketSize?: number
  readonly placer: "Chronological" | "UShaped"
}> = [
  { name: "chat", dotnetName: "Chat", scorers: [["Recency", 3], ["Kind", 1]], slicer: "Greedy", placer: "Chronological" },
  {
    name: "codeReview",
    dotnetName: "CodeReview",
    scorers: [["Kind", 2], ["Priority", 2], ["Recency", 1]],
    slicer: "Greedy",
    placer: "Chronological"
  },
  { name: "rag", dotnetName: "Rag", scorers: [["Reflexive", 3], ["Kind", 1]], slicer: "Greedy", placer: "UShaped" },
  {
    name: "documentQa",
    dotnetName: "DocumentQa",
    scorers: [["Kind", 2], ["Reflexive", 2], ["Priority", 1]],
    slicer: "Knapsack",
    bucketSize: 100,
    placer: "UShaped"
  },
  {
    name: "toolUse",
    dotnetName: "ToolUse",
    scorers: [["Kind", 2], ["Recency", 2], ["Priority", 1]],
    slicer: "Greedy",
    placer: "Chronological"
  },
  {
    name: "longRunning",
    dotnetName: "LongRunning",
    scorers: [["Recency", 3], ["Frequency", 1], ["Kind", 1]],
    slicer: "Greedy",
    placer: "Chronological"
  },
  {
    name: "debugging",
    dotnetName: "Debugging",
    scorers: [["Priority", 3], ["Kind", 2], ["Recency", 1]],
    slicer: "Greedy",
    placer: "Chronological"
  }
]

// .NET's ScorerType names → the policy's scorer types.
const scorerType: Record<string, string> = {
  Recency: "recency",
  Kind: "kind",
  Priority: "priority",
  Reflexive: "reflexive",
  Frequency: "frequency"
}

// ---------------------------------------------------------------------------------------------
// A small sample: a debugging session with an agent
// ---------------------------------------------------------------------------------------------

const t0 = Date.parse("2024-06-03T09:00:00Z")
const item = (
  content: string,
  tokens: number,
  extra: Partial<{ kind: string; priority: number; minute: number; tags: Array<string>; hint: number; pinned: boolean }> =
    {}
) =>
  new ContextItem.ContextItem({
    content,
    tokens,
    ...(extra.kind === undefined ? {} : { kind: extra.kind }),
    ...(extra.priority === undefined ? {} : { priority: extra.priority }),
    ...(extra.minute === undefined ? {} : { timestamp: Timestamp.fromEpochMillis(t0 + extra.minute * 60_000) }),
    ...(extra.tags === undefined ? {} : { tags: extra.tags }),
    ...(extra.hint === undefined ? {} : { futureRelevanceHint: extra.hint }),
    ...(extra.pinned === undefined ? {} : { pinned: extra.pinned })
  })

const sample: ReadonlyArray<ContextItem.ContextItem> = [
  item("system: you help debug services", 10, { kind: "SystemPrompt", pinned: true }),
  item("user: checkout is slow", 8, { minute: 0, tags: ["checkout"], hint: 0.5 }),
  item("assistant: let me look at the logs", 9, { minute: 1, tags: ["logs"], hint: 0.3 }),
  item("tool: error log, pool exhausted", 60, { kind: "ToolOutput", minute: 2, priority: 9, tags: ["logs", "db"], hint: 0.9 }),
  item("tool: deploy history", 35, { kind: "ToolOutput", minute: 3, priority: 4, tags: ["deploy"], hint: 0.4 }),
  item("doc: connection pool runbook", 50, { kind: "Document", priority: 7, tags: ["db"], hint: 0.95 }),
  item("doc: service overview", 45, { kind: "Document", priority: 2, hint: 0.2 }),
  item("memory: user is on-call", 6, { kind: "Memory", minute: -300, tags: ["checkout"] }),
  item("user: was it the deploy?", 7, { minute: 4, tags: ["deploy", "checkout"], hint: 0.6 }),
  item("assistant: the pool size was halved", 11, { minute: 5, tags: ["db"], hint: 0.7 })
]
const budget = new ContextBudget.ContextBudget({ maxTokens: 4096, targetTokens: 150 })

const byName = (name: string) => {
  switch (name) {
    case "Recency":
      return RecencyScorer.make()
    case "Priority":
      return PriorityScorer.make()
    case "Reflexive":
      return ReflexiveScorer.make()
    case "Frequency":
      return FrequencyScorer.make()
    default:
      return KindScorer.defaults
  }
}

// The .NET preset built by hand from the transcription, with the modules' constructors.
const handLayers = (
  entry: typeof dotnet[number]
): Effect.Effect<Layer.Layer<Scorer.Scorer | Slicer.Slicer | Placer.Placer>, unknown> =>
  Effect.gen(function*() {
    const scorer = yield* CompositeScorer.make(entry.scorers.map(([n, weight]) => ({ scorer: byName(n), weight })))
    const slicer = entry.slicer === "Greedy" ? GreedySlice.make() : yield* KnapsackSlice.make({ bucketSize: entry.bucketSize })
    // .NET's scorer and slicer, and the placer every preset here has instead of .NET's.
    return Layer.mergeAll(Scorer.layer(scorer), Slicer.layer(slicer), SectionedPlacer.conversation)
  })

const run = (policy: Policy.Policy) =>
  Policy.run(sample, budget, policy).pipe(Effect.provide(OverflowNotifier.layerNoop))

const contents = (items: ReadonlyArray<ContextItem.ContextItem>) => items.map((i) => i.content)

// The conversation placer's sections: system prompts, reference material, the conversation.
const sectionOf = (kind: string): number =>
  kind === "SystemPrompt" ? 0 : kind === "Document" || kind === "Memory" ? 1 : 2

describe("Presets — the seven presets of Cupel .NET", () => {
  for (const entry of dotnet) {
    it.effect(`${entry.name} has the weights and slicer of CupelPresets.${entry.dotnetName}(), and the conversation placer`, () =>
      Effect.gen(function*() {
        const policy = Presets.all[entry.name]
        assert.strictEqual(policy.name, entry.name)
        assert.isString(policy.description)
        assert.deepStrictEqual<unknown>(policy.scorer, {
          type: "composite",
          scorers: entry.scorers.map(([n, weight]) => ({ type: scorerType[n], weight }))
        })
        assert.deepStrictEqual<unknown>(
          policy.slicer,
          entry.slicer === "Greedy" ? { type: "greedy" } : { type: "knapsack", bucketSize: entry.bucketSize }
        )
        // Not .NET's chronological or u-shaped: the conversation placer, system prompts first.
        assert.deepStrictEqual(policy.placer, { type: "conversation" })
        assert.strictEqual(policy.deduplication, true)
        assert.strictEqual(policy.overflowStrategy, "Throw")
        // The policy's presets are valid policies, and the same values after a trip through JSON.
        assert.deepStrictEqual(yield* Policy.decodeJson(yield* Policy.encodeJson(policy)), policy)
      }))

    it.effect(`${entry.name} runs the pipeline on a small sample as the hand-built .NET preset does, placed by conversation`, () =>
      Effect.gen(function*() {
        const policy = Presets.all[entry.name]
        const result = yield* run(policy)
        const layers = yield* handLayers(entry)
        const expected = yield* Pipeline.run(sample, budget, { deduplication: true, overflowStrategy: "Throw" }).pipe(
          Effect.provide(Layer.mergeAll(layers, OverflowNotifier.layerNoop))
        )
        assert.deepStrictEqual(result, expected)
        assert.isAtMost(result.totalTokens, budget.targetTokens)
        assert.include(contents(result.window), "system: you help debug services")
        assert.strictEqual(result.report.included.length + result.report.excluded.length, sample.length)
        // The conversation placer: the system prompt first, then documents and memory, then the
        // conversation oldest first (items without a timestamp after the timed ones).
        assert.strictEqual(result.window[0]!.content, "system: you help debug services")
        const sections = result.window.map((i) => sectionOf(i.kind))
        assert.deepStrictEqual(sections, [...sections].sort((a, b) => a - b))
        const times = result.window.filter((i) => sectionOf(i.kind) === 2).map((i) =>
          i.timestamp?.epochMilliseconds ?? Number.POSITIVE_INFINITY
        )
        assert.deepStrictEqual(times, [...times].sort((a, b) => a - b))
      }))
  }

  it.effect("each preset chooses a different window for the same candidates where its weights say so", () =>
    Effect.gen(function*() {
      const chat = contents((yield* run(Presets.chat)).window)
      const rag = contents((yield* run(Presets.rag)).window)
      const debugging = contents((yield* run(Presets.debugging)).window)
      // Recency first: the latest turn is in; relevance first: the runbook (hint 0.95) is in;
      // priority first: the error log (priority 9) is in.
      assert.include(chat, "assistant: the pool size was halved")
      assert.include(rag, "doc: connection pool runbook")
      assert.include(debugging, "tool: error log, pool exhausted")
    }))

  it.effect("a preset's weights are relative: chat is three quarters recency, one quarter kind", () =>
    Effect.gen(function*() {
      const scorer = yield* Policy.scorer(Presets.chat.scorer)
      // Two messages: recency ranks them 0 and 1, kind gives a message 0.2.
      const scores = yield* scorer.scoreAll([item("older", 1, { minute: 0 }), item("newer", 1, { minute: 1 })])
      assert.closeTo(scores[0]!, 0.25 * 0.2, 1e-12)
      assert.closeTo(scores[1]!, 0.75 + 0.25 * 0.2, 1e-12)
    }))
})

describe("Presets — the system prompt first", () => {
  // Every preset is for a window sent to a chat model, which takes its instructions first
  // (docs/design.md, "Presets put the system prompt first"): whatever the items' timestamps,
  // pins and scores, no system prompt in the window comes after an item of another kind.
  const kinds = ["SystemPrompt", "Message", "Document", "Memory", "ToolOutput", "Image"] as const
  const arbItem = fc.record({
    kind: fc.constantFrom(...kinds),
    tokens: fc.integer({ min: 0, max: 60 }),
    pinned: fc.boolean(),
    minute: fc.option(fc.integer({ min: -600, max: 600 }), { nil: undefined }),
    priority: fc.option(fc.integer({ min: 0, max: 9 }), { nil: undefined }),
    hint: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined })
  })
  const arbItems = fc.array(arbItem, { maxLength: 16 }).map((raw) =>
    raw.map((r, i) =>
      item(`${r.kind} ${i}`, r.pinned ? Math.min(r.tokens, 10) : r.tokens, {
        kind: r.kind,
        // At most four pinned items of at most 10 tokens: they always fit a target of 50 or more.
        pinned: r.pinned && raw.slice(0, i).filter((p) => p.pinned).length < 4,
        ...(r.minute === undefined ? {} : { minute: r.minute }),
        ...(r.priority === undefined ? {} : { priority: r.priority }),
        ...(r.hint === undefined ? {} : { hint: r.hint })
      })
    )
  )

  it("every preset puts every system prompt before every other item, pinned or not, timed or not", () =>
    fc.assert(
      fc.asyncProperty(arbItems, fc.integer({ min: 50, max: 400 }), async (items, target) => {
        const b = new ContextBudget.ContextBudget({ maxTokens: 4096, targetTokens: target })
        for (const name of Presets.names) {
          const result = await Effect.runPromise(
            Policy.run(items, b, Presets.all[name]).pipe(Effect.provide(OverflowNotifier.layerNoop))
          )
          const kindsInWindow = result.window.map((i) => i.kind)
          const firstOther = kindsInWindow.findIndex((k) => k !== "SystemPrompt")
          const lastSystem = kindsInWindow.lastIndexOf("SystemPrompt")
          assert.isTrue(
            firstOther < 0 || lastSystem < firstOther,
            `${name}: ${kindsInWindow.join(", ")}`
          )
          // A pinned system prompt is always in the window, so the window starts with one.
          if (items.some((i) => i.pinned && i.kind === "SystemPrompt")) {
            assert.strictEqual(kindsInWindow[0], "SystemPrompt", name)
          }
        }
      }),
      { numRuns: 150 }
    ))
})

describe("Presets — lookup", () => {
  it("all holds the seven presets in the .NET order, names lists them", () => {
    assert.deepStrictEqual(Object.keys(Presets.all), dotnet.map((e) => e.name))
    assert.deepStrictEqual(Presets.names, dotnet.map((e) => e.name))
  })

  it.effect("get returns the preset of that name", () =>
    Effect.gen(function*() {
      for (const name of Presets.names) assert.strictEqual(yield* Presets.get(name), Presets.all[name])
    }))

  it.effect("get fails with UnknownPresetError listing the known names", () =>
    Effect.gen(function*() {
      for (const name of ["Chat", "code-review", "", "toString", "__proto__"]) {
        const error = yield* Effect.flip(Presets.get(name))
        assert.instanceOf(error, Presets.UnknownPresetError)
        assert.strictEqual(error.name, name)
        assert.deepStrictEqual(error.known, [...Presets.names])
        assert.include(error.message, "chat, codeReview, rag, documentQa, toolUse, longRunning, debugging")
      }
    }))

  it.effect("a preset is a starting point: spread it and change what differs", () =>
    Effect.gen(function*() {
      const policy: Policy.Policy = { ...Presets.documentQa, overflowStrategy: "Truncate" }
      const json = yield* Policy.encode(policy)
      assert.strictEqual(json.overflowStrategy, "truncate")
      assert.deepStrictEqual(json.slicer, { type: "knapsack", bucketSize: 100 })
    }))
})
