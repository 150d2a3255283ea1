/**
 * The current turn is whole (docs/ai.md K2, K3, K6; issue 25, item 4): the newest user message
 * and everything after it, kept first; the reproductions of the defects the issue found, named
 * after the rule each broke, through `PromptWindow.fit` and each door.
 */
import { assert, describe, it } from "@effect/vitest"
import { generateText, wrapLanguageModel } from "ai"
import { Effect, Layer } from "effect"
import { AiError, LanguageModel, Prompt } from "effect/ai"
import { ContextBudget, FirstFitSlice, OverflowNotifier, RecencyScorer } from "../../src/index.ts"
import * as AiSdk from "../../src/adapters/AiSdk.ts"
import * as CurrentTurn from "../../src/ai/CurrentTurn.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as Shorten from "../../src/ai/Shorten.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import { TurnBudgetError } from "../../src/ai/TurnBudgetError.ts"
import * as WindowedLanguageModel from "../../src/ai/WindowedLanguageModel.ts"
import * as SectionedPlacer from "../../src/placers/SectionedPlacer.ts"
import { trim } from "../../src/plain/Trim.ts"
import { textModel } from "../support/textModel.ts"

// ~4 characters a token, plus 4 for the message's framing.
const countOf = (m: Prompt.Message) => Math.ceil(PromptWindow.render(m).length / 4) + 4
const counter = TokenCounter.make(countOf)
const layers = Layer.mergeAll(RecencyScorer.layer, FirstFitSlice.layer, SectionedPlacer.conversation, OverflowNotifier.layerNoop, counter)
const budget = (target: number) => new ContextBudget.ContextBudget({ maxTokens: target, targetTokens: target })

const system = (content: string) => Prompt.systemMessage({ content })
const user = (text: string) => Prompt.userMessage({ content: [Prompt.textPart({ text })] })
const assistant = (text: string) => Prompt.assistantMessage({ content: [Prompt.textPart({ text })] })
const calls = (...ids: ReadonlyArray<string>) =>
  Prompt.assistantMessage({
    content: ids.map((id) => Prompt.toolCallPart({ id, name: "lookup", params: { q: id }, providerExecuted: false }))
  })
const call = (id: string) => calls(id)
const result = (id: string, text: string) =>
  Prompt.toolMessage({
    content: [Prompt.toolResultPart({ id, name: "lookup", isFailure: false, result: text, providerExecuted: false })]
  })
const tokensOf = (messages: ReadonlyArray<Prompt.Message>) => messages.reduce((sum, m) => sum + countOf(m), 0)
const words = (n: number, tag = "w") => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ")
const keepOf = (fitted: PromptWindow.Fitted) => fitted.result.report.included.map((e) => e.item.metadata[CurrentTurn.keepKey])

describe("the current turn, through PromptWindow.fit", () => {
  it.effect("K2 the newest user message is kept before an older tool exchange that would take its room", () =>
    Effect.gen(function*() {
      // The 4 windows: the latest tool exchange came before the user's message, and
      // ranked above it, so the call and its result took the room of the question.
      const c = call("c1")
      const r = result("c1", words(300))
      const question = user("and what does the second file say?")
      const answer = assistant(words(150, "a"))
      const messages = [system("s"), user("read the first file"), c, r, question, answer]
      const target = tokensOf([messages[0]!, answer, c, r]) + 10
      // The current turn (the question and the answer after it) fits beside the system prompt.
      assert.isAtMost(tokensOf([messages[0]!, question, answer]), target)
      const fitted = yield* PromptWindow.fit(messages, budget(target), { overflowStrategy: "Truncate" })
      assert.deepStrictEqual(fitted.prompt.content.slice(-2), [question, answer])
      assert.notDeepInclude(fitted.prompt.content, r)
      const why = new Map(fitted.result.report.included.map((e) => [e.item.content, e.item.metadata[CurrentTurn.keepKey]]))
      assert.strictEqual(why.get(PromptWindow.render(question)), "newest-user")
      assert.strictEqual(why.get(PromptWindow.render(answer)), "newest")
      assert.strictEqual(why.get(PromptWindow.render(c)), undefined)
    }).pipe(Effect.provide(layers)))

  it.effect("K2 the whole turn is kept when it fits: every unit after the newest user message, marked current-turn", () =>
    Effect.gen(function*() {
      const question = user("look both up")
      const turn = [question, call("c1"), result("c1", words(60)), call("c2"), result("c2", words(60)), assistant(words(40))]
      const messages = [system("s"), user(words(200)), assistant(words(200)), ...turn]
      const target = tokensOf([messages[0]!, ...turn]) + 5
      const fitted = yield* PromptWindow.fit(messages, budget(target), { overflowStrategy: "Truncate" })
      assert.deepStrictEqual(fitted.prompt.content, [messages[0]!, ...turn])
      assert.deepStrictEqual(keepOf(fitted), [
        undefined,
        "newest-user",
        "current-turn",
        "current-turn",
        "latest-tool-exchange",
        "latest-tool-exchange",
        "newest"
      ])
    }).pipe(Effect.provide(layers)))

  it.effect("K6 the newest user message and a newer tool result both fit when the result is shortened", () =>
    Effect.gen(function*() {
      // The 54 windows: the newest unit fitted alone and was kept first; the question
      // did not fit beside it, and the result was not shortened because its unit was kept.
      const question = user(words(250, "q"))
      const c = call("c1")
      const r = result("c1", Array.from({ length: 120 }, (_, i) => `line ${i}: ${words(3)}`).join("\n"))
      const messages = [system("s"), user("hi"), assistant("hello"), question, c, r]
      const target = tokensOf([messages[0]!, c, r]) + 20
      // The newest unit fits alone, the question alone too, not both.
      assert.isAbove(tokensOf([messages[0]!, question, c, r]), target)
      assert.isAtMost(tokensOf([messages[0]!, question, c]) + 100, target)
      const fitted = yield* PromptWindow.fit(messages, budget(target), { overflowStrategy: "Truncate" })
      assert.deepStrictEqual(fitted.prompt.content.slice(0, 3), [messages[0]!, question, c])
      assert.strictEqual(fitted.prompt.content.length, 4)
      assert.match(PromptWindow.render(fitted.prompt.content[3]!), /tokens left out/)
      assert.deepStrictEqual(fitted.shortened?.map((s) => s.index), [5])
      assert.isAtMost(fitted.result.totalTokens, target)
      assert.deepStrictEqual(PromptWindow.orphans(fitted.prompt), [])
    }).pipe(Effect.provide(layers)))

  it.effect("K6 the turn's largest tool result is shortened so that the whole turn fits, its other results whole", () =>
    Effect.gen(function*() {
      const question = user("compare the three")
      const small1 = result("c1", words(40))
      const small2 = result("c2", words(40))
      const large = result("c3", Array.from({ length: 300 }, (_, i) => `row ${i}: ${words(4)}`).join("\n"))
      const turn = [question, calls("c1", "c2", "c3"), small1, small2, large]
      const messages = [system("s"), user(words(100)), assistant(words(100)), ...turn]
      const target = tokensOf([messages[0]!, ...turn.slice(0, 4)]) + 200
      const fitted = yield* PromptWindow.fit(messages, budget(target), { overflowStrategy: "Truncate" })
      assert.deepStrictEqual(fitted.prompt.content.slice(0, 5), [messages[0]!, ...turn.slice(0, 4)])
      assert.strictEqual(fitted.prompt.content.length, 6)
      const shortened = fitted.result.report.included.at(-1)!.item
      assert.deepStrictEqual(shortened.metadata[Shorten.shortenedKey], { originalTokens: countOf(large), keptTokens: shortened.tokens })
      assert.isAtMost(fitted.result.totalTokens, target)
    }).pipe(Effect.provide(layers)))

  it.effect("K2 a late result brings its call from before the newest user message, and the window opens on the user message before that call", () =>
    Effect.gen(function*() {
      const opener = user("look both up")
      const both = calls("c1", "c2")
      const first = result("c1", words(30))
      const question = user("while you wait: which one is larger?")
      const late = result("c2", words(30))
      const messages = [system("s"), user(words(300)), assistant(words(300)), opener, both, first, question, late]
      const target = tokensOf([messages[0]!, opener, both, first, question, late]) + 3
      const fitted = yield* PromptWindow.fit(messages, budget(target), { overflowStrategy: "Truncate" })
      // A group is placed where it starts, its members adjacent: the late result follows its call.
      assert.deepStrictEqual(fitted.prompt.content, [messages[0]!, opener, both, first, late, question])
      assert.deepStrictEqual(PromptWindow.orphans(fitted.prompt), [])
      const why = new Map(fitted.result.report.included.map((e) => [e.item.content, e.item.metadata[CurrentTurn.keepKey]]))
      assert.strictEqual(why.get(PromptWindow.render(question)), "newest-user")
      assert.strictEqual(why.get(PromptWindow.render(late)), "newest")
      assert.strictEqual(why.get(PromptWindow.render(opener)), "turn-opener")
      assert.deepStrictEqual(fitted.prompt.content.find((m) => m.role !== "system"), opener)
    }).pipe(Effect.provide(layers)))

  it.effect("K2 a newest user message that does not fit beside the system prompts fails the fit with TurnBudgetError", () =>
    Effect.gen(function*() {
      const question = user(words(3000))
      const messages = [system("s"), user("short question"), assistant("ok"), question]
      const target = 500
      for (const overflowStrategy of ["Throw", "Truncate", "Proceed"] as const) {
        const error = yield* Effect.flip(PromptWindow.fit(messages, budget(target), { overflowStrategy }))
        assert.instanceOf(error, TurnBudgetError, overflowStrategy)
        if (error instanceof TurnBudgetError) {
          assert.deepStrictEqual(
            [error.messageIndex, error.neededTokens, error.availableTokens, error.pinnedTokens],
            [3, countOf(question), target - countOf(messages[0]!), countOf(messages[0]!)]
          )
          assert.include(error.message, "newest user message")
        }
      }
    }).pipe(Effect.provide(layers)))

  it.effect("K4 pinned items over the target are still a PinnedBudgetError, not a TurnBudgetError", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(PromptWindow.fit([system(words(200)), user(words(300))], budget(100)))
      assert.strictEqual(error._tag, "PinnedBudgetError")
    }).pipe(Effect.provide(layers)))

  it.effect("K2 a pinned newest user message needs no room of its own: the rest of the turn is kept", () =>
    Effect.gen(function*() {
      const question = user("pinned question")
      const c = call("c1")
      const r = result("c1", words(20))
      const messages = [system("s"), user(words(300)), question, c, r]
      const target = tokensOf([messages[0]!, question, c, r]) + 2
      const fitted = yield* PromptWindow.fit(messages, budget(target), {
        annotate: (message) => (message === question ? { pinned: true } : undefined),
        overflowStrategy: "Truncate"
      })
      assert.deepStrictEqual(fitted.prompt.content, [messages[0]!, question, c, r])
    }).pipe(Effect.provide(layers)))
})

describe("the current turn, through every door", () => {
  const history = (question: string) => [
    { role: "system" as const, content: "be brief" },
    { role: "user" as const, content: "short question" },
    { role: "assistant" as const, content: "ok" },
    { role: "user" as const, content: question }
  ]

  it.live("K2 trim rejects with TurnBudgetError when the newest user message does not fit, never the previous turn", () =>
    Effect.gen(function*() {
      const error = yield* Effect.promise(() =>
        trim(history(words(5000)), { contextWindow: 1000 }).then(() => undefined, (e: unknown) => e)
      )
      assert.instanceOf(error, TurnBudgetError)
      assert.strictEqual(error instanceof TurnBudgetError ? error._tag : undefined, "TurnBudgetError")
      if (error instanceof TurnBudgetError) assert.strictEqual(error.messageIndex, 3)
      // The second case: a two-message history whose user message does not fit.
      const small = yield* Effect.promise(() =>
        trim([{ role: "system", content: "be brief" }, { role: "user", content: "hello" }], { contextWindow: 12 }).then(
          () => undefined,
          (e: unknown) => e
        )
      )
      assert.strictEqual(small instanceof TurnBudgetError ? small._tag : undefined, "TurnBudgetError")
    }))

  it.live("K2 trim sends the newest user message when it fits alone", () =>
    Effect.gen(function*() {
      const { messages } = yield* Effect.promise(() => trim(history(words(400)), { contextWindow: 1000 }))
      assert.strictEqual(messages.at(-1)?.content, words(400))
    }))

  const scripted = Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({ generateText: () => Effect.succeed([{ type: "text", text: "answered" }]), streamText: () => Effect.die("unused") as never })
  )

  for (const mode of ["stable", "per-call"] as const) {
    it.effect(`K2 the effect/ai layer (${mode}) fails the call with an InvalidRequestError on prompt whose windowFailure is TurnBudgetError`, () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(LanguageModel.generateText({ prompt: history(words(3000)) }))
        assert.isTrue(AiError.isAiError(error))
        assert.strictEqual(error.reason._tag, "InvalidRequestError")
        if (error.reason._tag === "InvalidRequestError") assert.strictEqual(error.reason.parameter, "prompt")
        assert.strictEqual(WindowedLanguageModel.windowFailure(error), "TurnBudgetError")
        assert.include(error.message, "newest user message")
      }).pipe(
        Effect.provide(
          WindowedLanguageModel.layer({ contextWindow: 1_000, outputReserve: 100, mode }).pipe(Layer.provide([scripted, counter]))
        )
      ))
  }

  for (const mode of ["stable", "per-call"] as const) {
    it(`K2 the AI SDK middleware (${mode}) rejects with TurnBudgetError, and the model is not called`, async () => {
      const provider = textModel("answered")
      const model = wrapLanguageModel({
        model: provider,
        middleware: AiSdk.middleware({ contextWindow: 1_000, outputReserve: 100, mode, counter: (text) => Math.ceil(text.length / 4) })
      })
      const error = await generateText({
        model,
        instructions: "be brief",
        messages: [
          { role: "user", content: "short question" },
          { role: "assistant", content: "ok" },
          { role: "user", content: words(3000) }
        ],
        maxRetries: 0
      }).then(() => undefined, (e: unknown) => e)
      assert.strictEqual(error instanceof Error && "_tag" in error ? error._tag : undefined, "TurnBudgetError")
      assert.strictEqual(provider.doGenerateCalls.length, 0)
    })
  }
})
