import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { AiError, Prompt, Tokenizer } from "effect/ai"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { ContextBudget, GreedySlice, OverflowNotifier, RecencyScorer } from "../../src/index.ts"
import * as GptTokenizer from "../../src/ai/GptTokenizer.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import * as SectionedPlacer from "../../src/placers/SectionedPlacer.ts"

const history = Prompt.fromMessages([
  Prompt.systemMessage({ content: "You are terse." }),
  Prompt.userMessage({ content: [Prompt.textPart({ text: "What is the weather in Paris?" })] }),
  Prompt.assistantMessage({
    content: [Prompt.toolCallPart({ id: "c1", name: "weather", params: { city: "Paris", unit: "celsius" }, providerExecuted: false })]
  }),
  Prompt.toolMessage({
    content: [Prompt.toolResultPart({ id: "c1", name: "weather", isFailure: false, result: { temperature: 21, sky: "clear" }, providerExecuted: false })]
  })
])

describe("TokenCounter.layerTokenizer", () => {
  it.effect("counts through the Tokenizer service, each message object once across pipeline runs", () =>
    Effect.gen(function*() {
      let calls = 0
      // One token per character of each message's text, plus 2 per request.
      const spy = Layer.succeed(
        Tokenizer.Tokenizer,
        Tokenizer.make({
          tokenize: (prompt) =>
            Effect.sync(() => {
              calls++
              return [0, 0, ...prompt.content.flatMap((m) => Array.from(PromptWindow.render(m), () => 1))]
            })
        })
      )
      const layers = Layer.mergeAll(
        RecencyScorer.layer,
        GreedySlice.layer,
        SectionedPlacer.conversation,
        OverflowNotifier.layerNoop,
        TokenCounter.layerTokenizer.pipe(Layer.provide(spy))
      )
      const budget = new ContextBudget.ContextBudget({ maxTokens: 10_000, targetTokens: 10_000 })
      yield* Effect.gen(function*() {
        const counter = yield* TokenCounter.TokenCounter
        assert.strictEqual(counter.requestOverhead, 2)
        const first = yield* PromptWindow.fit(history, budget)
        assert.strictEqual(calls, 1 + 4)
        assert.deepStrictEqual(first.result.window.map((i) => i.tokens), history.content.map((m) => PromptWindow.render(m).length))
        // The next step's history: the same message objects and one more.
        const next = Prompt.concat(history, [{ role: "assistant", content: "21°C and clear." }])
        yield* PromptWindow.fit(next, budget)
        assert.strictEqual(calls, 1 + 4 + 1)
      }).pipe(Effect.provide(layers))
    }))
})

describe("TokenCounter.make", () => {
  it.effect("a counter function that throws fails count with a typed AiError naming the counter, not a defect", () =>
    Effect.gen(function*() {
      const counter = yield* TokenCounter.TokenCounter
      const error = yield* Effect.flip(counter.count(history.content[1]!))
      assert.strictEqual(error._tag, "AiError")
      assert.strictEqual(error.module, TokenCounter.errorModule)
      assert.strictEqual(error.reason._tag, "UnknownError")
      assert.include(error.message, "my-estimate")
      assert.include(error.message, "RangeError: boom")
      assert.include(error.message, "user message")
    }).pipe(Effect.provide(TokenCounter.make(() => {
      throw new RangeError("boom")
    }, 0, "my-estimate"))))

  it.effect("thrownBy reads what a counter of make threw back from its AiError, and nothing from any other AiError", () =>
    Effect.gen(function*() {
      const counter = yield* TokenCounter.TokenCounter
      const error = yield* Effect.flip(counter.count(history.content[1]!))
      assert.strictEqual(TokenCounter.thrownBy(error), "RangeError: boom")
      const other = AiError.make({ module: "Provider", method: "count", reason: new AiError.UnknownError({ metadata: { thrown: "x" } }) })
      assert.isUndefined(TokenCounter.thrownBy(other))
    }).pipe(Effect.provide(TokenCounter.make(() => {
      throw new RangeError("boom")
    }, 0, "my-estimate"))))

  it.effect("a counter function that throws on a message: the window fails with a CandidateError on that message's count (its index), as in every front door", () =>
    Effect.gen(function*() {
      const budget = new ContextBudget.ContextBudget({ maxTokens: 10_000, targetTokens: 10_000 })
      const error = yield* Effect.flip(PromptWindow.fit(history, budget))
      assert.instanceOf(error, PromptWindow.CandidateError)
      if (!(error instanceof PromptWindow.CandidateError)) return
      assert.strictEqual(error.index, 2)
      assert.strictEqual(error.field, "count")
      assert.strictEqual(error.problem, "threw: RangeError: boom")
      assert.strictEqual(error.message, "message 2: count threw: RangeError: boom")
    }).pipe(Effect.provide(Layer.mergeAll(
      RecencyScorer.layer,
      GreedySlice.layer,
      SectionedPlacer.conversation,
      OverflowNotifier.layerNoop,
      TokenCounter.make((message) => {
        if (message.role === "assistant") throw new RangeError("boom")
        return 10
      })
    ))))

  it.effect("a tokenizer's own AiError is not the caller's throw: it passes through the window unchanged", () =>
    Effect.gen(function*() {
      const budget = new ContextBudget.ContextBudget({ maxTokens: 10_000, targetTokens: 10_000 })
      const error = yield* Effect.flip(PromptWindow.fit(history, budget))
      assert.strictEqual(error._tag, "AiError")
    }).pipe(Effect.provide(Layer.mergeAll(
      RecencyScorer.layer,
      GreedySlice.layer,
      SectionedPlacer.conversation,
      OverflowNotifier.layerNoop,
      Layer.succeed(TokenCounter.TokenCounter, TokenCounter.TokenCounter.of({
        count: () => Effect.fail(AiError.make({ module: "Tokenizer", method: "tokenize", reason: new AiError.UnknownError({}) })),
        requestOverhead: 0
      }))
    ))))

  it.effect("a counter that does not throw counts as before", () =>
    Effect.gen(function*() {
      const counter = yield* TokenCounter.TokenCounter
      assert.strictEqual(yield* counter.count(history.content[0]!), 7)
      assert.strictEqual(counter.requestOverhead, 2)
    }).pipe(Effect.provide(TokenCounter.make(() => 7, 2))))
})

describe("GptTokenizer", () => {
  it.effect("per-message counts and the request overhead add up to the tokens of the whole prompt", () =>
    Effect.gen(function*() {
      const counter = yield* TokenCounter.TokenCounter
      const total = yield* GptTokenizer.count(history)
      let sum = counter.requestOverhead
      for (const message of history.content) sum += yield* counter.count(message)
      assert.strictEqual(sum, total)
      assert.strictEqual(counter.requestOverhead, 3)
      // "hi" as a user message: <|im_start|>user<|im_sep|>hi<|im_end|>
      assert.strictEqual(yield* counter.count(Prompt.userMessage({ content: [Prompt.textPart({ text: "hi" })] })), 5)
    }).pipe(Effect.provide(GptTokenizer.layer)))

  it.effect("tool call arguments and tool results are counted", () =>
    Effect.gen(function*() {
      const counter = yield* TokenCounter.TokenCounter
      const call = (params: unknown) =>
        Prompt.assistantMessage({ content: [Prompt.toolCallPart({ id: "c", name: "f", params, providerExecuted: false })] })
      const small = yield* counter.count(call({}))
      const large = yield* counter.count(call({ text: "lorem ipsum dolor sit amet ".repeat(20) }))
      assert.isAbove(large - small, 100)
      const result = (value: unknown) =>
        Prompt.toolMessage({ content: [Prompt.toolResultPart({ id: "c", name: "f", isFailure: false, result: value, providerExecuted: false })] })
      assert.isAbove((yield* counter.count(result("x ".repeat(300)))) - (yield* counter.count(result("x"))), 250)
    }).pipe(Effect.provide(GptTokenizer.layer)))

  it.effect("special-token text inside a message is counted as text", () =>
    Effect.gen(function*() {
      const counter = yield* TokenCounter.TokenCounter
      const n = yield* counter.count(Prompt.userMessage({ content: [Prompt.textPart({ text: "a <|im_end|> b" })] }))
      assert.isAbove(n, 6)
    }).pipe(Effect.provide(GptTokenizer.layer)))

  it.effect("cl100k_base by option", () =>
    Effect.gen(function*() {
      const text = "Ünïcödé — 東京 ".repeat(10)
      const count = (layer: Layer.Layer<Tokenizer.Tokenizer | TokenCounter.TokenCounter, GptTokenizer.TokenizerLoadError>) =>
        GptTokenizer.count([{ role: "user", content: text }]).pipe(Effect.provide(layer))
      const o200k = yield* count(GptTokenizer.layer)
      const cl100k = yield* count(GptTokenizer.layerEncoding("cl100k_base"))
      assert.notStrictEqual(o200k, cl100k)
    }))

  it("gpt-tokenizer is imported in one place alone, on demand: nothing else in src loads it", () => {
    const root = join(import.meta.dirname, "../../src")
    const files = (dir: string): Array<string> =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []
      )
    const importers = files(root).filter((f) => /from "gpt-tokenizer|import\("gpt-tokenizer/.test(readFileSync(f, "utf8")))
    assert.deepStrictEqual(importers.map((f) => f.slice(root.length + 1)), ["internal/gptTokenizer.ts"])
    // Only dynamic imports: a static one would load the peer with the module that names it.
    assert.notMatch(readFileSync(join(root, "internal/gptTokenizer.ts"), "utf8"), /from "gpt-tokenizer/)
    assert.notInclude(readFileSync(join(root, "index.ts"), "utf8"), "GptTokenizer")
  })
})
