/**
 * The summariser of compactions (issue 19, items 1 and 3): the request a `LanguageModel`
 * summariser sends (the context, then one appended message), its window guard (context dropped,
 * chunks oldest first), the previous summary folded in, and every way a summariser fails —
 * each a typed `SummarizerError` with its reason, never a summary.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Ref, Stream } from "effect"
import { AiError, LanguageModel, Prompt, type Response } from "effect/ai"
import { TestClock } from "effect/testing"
import { InvalidConfigError } from "../../src/InvalidConfigError.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as Summarizer from "../../src/ai/Summarizer.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"

/** About four characters a token, and four for the message's framing; 3 for the request. */
const countOf = (m: Prompt.Message) => Math.ceil(PromptWindow.render(m).length / 4) + 4
const counter = TokenCounter.make(countOf, 3)
const textCount = (text: string) => countOf(Prompt.userMessage({ content: [Prompt.textPart({ text })] }))

type Answer = (n: number, prompt: Prompt.Prompt) => Effect.Effect<Array<Response.PartEncoded>, AiError.AiError>

/** A scripted model: records every prompt it is sent and answers with `answer(n, prompt)` (n from 1). */
const scripted = (answer: Answer) =>
  Effect.gen(function*() {
    const seen = yield* Ref.make<ReadonlyArray<Prompt.Prompt>>([])
    const model = yield* LanguageModel.make({
      generateText: (options) =>
        Effect.flatMap(Ref.updateAndGet(seen, (all) => [...all, options.prompt]), (all) => answer(all.length, options.prompt)),
      streamText: () => Stream.empty
    })
    return { model, seen }
  })

const text = (t: string): Effect.Effect<Array<Response.PartEncoded>, AiError.AiError> => Effect.succeed([{ type: "text", text: t }])

/** A `LanguageModel` summariser over a scripted model. */
const withModel = (answer: Answer, options: Partial<Summarizer.LanguageModelOptions> = {}) =>
  Effect.gen(function*() {
    const { model, seen } = yield* scripted(answer)
    const summarizer = yield* Effect.provide(
      Effect.gen(function*() {
        return yield* Summarizer.Summarizer
      }),
      Summarizer.layerLanguageModel({ contextWindow: 100_000, ...options }).pipe(
        Layer.provide([Layer.succeed(LanguageModel.LanguageModel, model), counter])
      )
    )
    return { summarizer, seen }
  })

/** A summariser of one's own. */
const own = <E>(
  name: string,
  f: Parameters<typeof Summarizer.make<E>>[1],
  options: Parameters<typeof Summarizer.make>[2] = {}
) =>
  Effect.provide(
    Effect.gen(function*() {
      return yield* Summarizer.Summarizer
    }),
    Summarizer.make(name, f, options).pipe(Layer.provide(counter))
  )

const user = (content: string): Prompt.Message => Prompt.userMessage({ content: [Prompt.textPart({ text: content })] })
const assistant = (content: string): Prompt.Message =>
  Prompt.assistantMessage({ content: [Prompt.textPart({ text: content })] })
const call = (id: string, query: string): Prompt.Message =>
  Prompt.assistantMessage({ content: [Prompt.toolCallPart({ id, name: "Search", params: { query }, providerExecuted: false })] })
const result = (id: string, body: string): Prompt.Message =>
  Prompt.toolMessage({
    content: [Prompt.toolResultPart({ id, name: "Search", isFailure: false, result: body, providerExecuted: false })]
  })

const conversation: ReadonlyArray<Prompt.Message> = [
  Prompt.systemMessage({ content: "You are a support agent." }),
  user("My export fails with error 42."),
  call("c1", "export error 42"),
  result("c1", "Error 42: the target folder is read-only."),
  assistant("Your target folder is read-only; make it writable."),
  user("Done, now it works. Can it sync too?")
]

/** The text of a prompt's last message. */
const lastText = (prompt: Prompt.Prompt): string => PromptWindow.render(prompt.content.at(-1)!)

describe("Summarizer.layerLanguageModel", () => {
  it.effect("C5: the request is the context as it was sent plus one short instruction naming the span in it (the cache's prefix, the span not sent twice)", () =>
    Effect.gen(function*() {
      const { summarizer, seen } = yield* withModel(() => text("  The export failed: folder was read-only; fixed.  \n"))
      const span = conversation.slice(1, 5)
      const summary = yield* summarizer.summarize({ span, context: conversation, maxTokens: 200 })
      const [prompt] = yield* Ref.get(seen)
      assert.strictEqual(prompt!.content.length, conversation.length + 1)
      // The prefix is exactly the context: the same messages, in order, unchanged.
      assert.deepStrictEqual(prompt!.content.slice(0, conversation.length), [...conversation])
      const appended = prompt!.content.at(-1)!
      assert.strictEqual(appended.role, "user")
      const asked = lastText(prompt!)
      assert.isTrue(asked.startsWith(Summarizer.defaultInstruction))
      assert.include(asked, "Write at most 200 tokens.")
      // The span is named by its places among the messages above (the system prompt not
      // counted), with the first words of its first and last messages; it is not written again.
      assert.include(asked, "counting the messages above from 1, the system prompt not counted")
      assert.include(
        asked,
        `- messages 1–4 above, from the one that begins "My export fails with error 42." to the one that begins "Your target folder`
      )
      assert.notInclude(asked, "<messages>")
      assert.notInclude(asked, "result of Search [call c1]")
      assert.notInclude(asked, "<summary-so-far>")
      assert.strictEqual(asked, Summarizer.requestText(Summarizer.defaultInstruction, 200, undefined, conversation, span))
      // Far shorter than the span written out.
      const written = Summarizer.instructionText(Summarizer.defaultInstruction, 200, undefined, span)
      assert.isBelow(asked.length, written.length)
      // The answer, trimmed, is the summary.
      assert.strictEqual(summary.text, "The export failed: folder was read-only; fixed.")
      assert.strictEqual(summary.tokens, textCount(summary.text))
      assert.strictEqual(summary.chunks, 1)
      assert.isTrue(summary.withContext)
      assert.isUndefined(summary.usage)
    }))

  it.effect("C5: a span message the context does not hold is written out where it stands in the span; those it holds are named", () =>
    Effect.gen(function*() {
      const { summarizer, seen } = yield* withModel(() => text("ok"))
      // The conversation's last request no longer held its first message (dropped earlier,
      // unsummarised), and a message came after it that it does not hold yet.
      const context = [conversation[0]!, ...conversation.slice(2, 5)]
      const span = conversation.slice(1, 6)
      yield* summarizer.summarize({ span, context, maxTokens: 100 })
      const asked = lastText((yield* Ref.get(seen))[0]!)
      const older = asked.indexOf(`<messages>\n${Summarizer.renderSpan([conversation[1]!])}\n</messages>`)
      const named = asked.indexOf("- messages 1–3 above")
      const newer = asked.indexOf(`<messages>\n${Summarizer.renderSpan([conversation[5]!])}\n</messages>`)
      assert.isAbove(older, 0)
      assert.isBelow(older, named)
      assert.isBelow(named, newer)
      // A message equal in role and text is the context's, whatever its object.
      const copy = Prompt.userMessage({ content: [Prompt.textPart({ text: "My export fails with error 42." })] })
      assert.include(
        Summarizer.requestText("Summarise.", 10, undefined, conversation, [copy]),
        `- message 1 above, the one that begins "My export fails`
      )
    }))

  it.effect("the instruction option replaces the default instruction", () =>
    Effect.gen(function*() {
      const { summarizer, seen } = yield* withModel(() => text("ok"), { instruction: "Résume en français." })
      yield* summarizer.summarize({ span: conversation.slice(1, 2), context: [], maxTokens: 50 })
      const asked = lastText((yield* Ref.get(seen))[0]!)
      assert.isTrue(asked.startsWith("Résume en français.\nWrite at most 50 tokens."))
      assert.notInclude(asked, Summarizer.defaultInstruction)
    }))

  it.effect("the window guard drops the context when context and span would overflow the summariser's window", () =>
    Effect.gen(function*() {
      const span = conversation.slice(1, 5)
      const message = Prompt.userMessage({
        content: [Prompt.textPart({ text: Summarizer.instructionText(Summarizer.defaultInstruction, 100, undefined, span) })]
      })
      const named = Prompt.userMessage({
        content: [Prompt.textPart({ text: Summarizer.requestText(Summarizer.defaultInstruction, 100, undefined, conversation, span) })]
      })
      const contextTokens = conversation.reduce((sum, m) => sum + countOf(m), 0)
      // Room for the span written out alone, not for the context and the message naming the
      // span in it (less the reserve of 100 and the request's 3).
      const contextWindow = countOf(named) + 100 + 3 + contextTokens - 1
      assert.isAtMost(countOf(message) + 100 + 3, contextWindow)
      const { summarizer, seen } = yield* withModel(() => text("summary"), { contextWindow })
      const summary = yield* summarizer.summarize({ span, context: conversation, maxTokens: 100 })
      const prompts = yield* Ref.get(seen)
      assert.strictEqual(prompts.length, 1)
      assert.strictEqual(prompts[0]!.content.length, 1)
      assert.strictEqual(lastText(prompts[0]!), PromptWindow.render(message))
      assert.isFalse(summary.withContext)
      assert.strictEqual(summary.chunks, 1)
      // One token more and the context fits again.
      const wider = yield* withModel(() => text("summary"), { contextWindow: contextWindow + 1 })
      const withContext = yield* wider.summarizer.summarize({ span, context: conversation, maxTokens: 100 })
      assert.isTrue(withContext.withContext)
      assert.strictEqual((yield* Ref.get(wider.seen))[0]!.content.length, conversation.length + 1)
    }))

  it.effect("the window guard counts outputReserve (default maxTokens) and the counter's request overhead", () =>
    Effect.gen(function*() {
      const span = conversation.slice(1, 3)
      const message = Prompt.userMessage({
        content: [Prompt.textPart({ text: Summarizer.instructionText(Summarizer.defaultInstruction, 100, undefined, span) })]
      })
      const fits = countOf(message) + 3
      // A reserve of 0 lets the message fit a window of exactly its tokens and the overhead …
      const a = yield* withModel(() => text("s"), { contextWindow: fits, outputReserve: 0 })
      assert.strictEqual((yield* a.summarizer.summarize({ span, context: [], maxTokens: 100 })).chunks, 1)
      // … the default reserve, maxTokens, does not.
      const b = yield* withModel(() => text("s"), { contextWindow: fits })
      const e = yield* Effect.flip(b.summarizer.summarize({ span, context: [], maxTokens: 100 }))
      assert.strictEqual(e.reason, "span-too-large")
    }))

  it.effect("the window guard summarises a span larger than the summariser's window in chunks, oldest first, reporting chunks", () =>
    Effect.gen(function*() {
      const span = Array.from({ length: 12 }, (_, i) => user(`message ${i}: ${"lorem ipsum ".repeat(30)}`))
      const { summarizer, seen } = yield* withModel((n) => text(`S${n}`), { contextWindow: 600, outputReserve: 50 })
      const summary = yield* summarizer.summarize({ span, context: conversation, maxTokens: 50 })
      const prompts = yield* Ref.get(seen)
      assert.isAbove(prompts.length, 1)
      assert.strictEqual(summary.chunks, prompts.length)
      assert.isFalse(summary.withContext)
      assert.strictEqual(summary.text, `S${prompts.length}`)
      // Each chunk's request is one message that fits the window; together they hold every
      // message of the span once, oldest first, and each folds in the summary before it.
      let next = 0
      for (const [k, prompt] of prompts.entries()) {
        assert.strictEqual(prompt.content.length, 1)
        assert.isAtMost(countOf(prompt.content[0]!) + 3, 600 - 50)
        const asked = lastText(prompt)
        if (k === 0) assert.notInclude(asked, "<summary-so-far>")
        else assert.include(asked, `<summary-so-far>\nS${k}\n</summary-so-far>`)
        const numbers = [...asked.matchAll(/\[user\] message (\d+):/g)].map((m) => Number(m[1]))
        assert.isAbove(numbers.length, 0)
        for (const i of numbers) assert.strictEqual(i, next++)
      }
      assert.strictEqual(next, span.length)
    }))

  it.effect("a chunk never parts a tool call from its result", () =>
    Effect.gen(function*() {
      const span = Array.from({ length: 6 }, (_, i) => [
        call(`c${i}`, `q${i}`),
        result(`c${i}`, `${"data ".repeat(40)}${i}`)
      ]).flat()
      const { summarizer, seen } = yield* withModel((n) => text(`S${n}`), { contextWindow: 500, outputReserve: 20 })
      const summary = yield* summarizer.summarize({ span, context: [], maxTokens: 20 })
      const prompts = yield* Ref.get(seen)
      assert.isAbove(summary.chunks, 1)
      for (const prompt of prompts) {
        const asked = lastText(prompt)
        const calls = [...asked.matchAll(/\[assistant\] Search\(.*\) \[call (c\d+)\]/g)].map((m) => m[1])
        const results = [...asked.matchAll(/\[tool\] result of Search \[call (c\d+)\]/g)].map((m) => m[1])
        assert.deepStrictEqual(calls, results)
      }
    }))

  it.effect("a group that does not fit one request alone is split between its messages", () =>
    Effect.gen(function*() {
      const span = [call("c1", "q"), result("c1", "data ".repeat(200)), result("c1", "more ".repeat(200))]
      const asking = (previous: string | undefined, messages: ReadonlyArray<Prompt.Message>) =>
        countOf(Prompt.userMessage({
          content: [Prompt.textPart({ text: Summarizer.instructionText(Summarizer.defaultInstruction, 20, previous, messages) })]
        }))
      // Each message fits with the instruction and the summary so far; the group together does not.
      const contextWindow = asking("S9", span.slice(2)) + 20 + 3
      assert.isAbove(asking(undefined, span) + 20 + 3, contextWindow)
      const { summarizer, seen } = yield* withModel((n) => text(`S${n}`), { contextWindow, outputReserve: 20 })
      const summary = yield* summarizer.summarize({ span, context: [], maxTokens: 20 })
      assert.isAbove(summary.chunks, 1)
      assert.strictEqual((yield* Ref.get(seen)).length, summary.chunks)
    }))

  it.effect("a message that does not fit the summariser's window even alone is span-too-large, and no model call", () =>
    Effect.gen(function*() {
      const { summarizer, seen } = yield* withModel(() => text("never"), { contextWindow: 300, outputReserve: 20 })
      const span = [user("short"), user("huge ".repeat(400))]
      const e = yield* Effect.flip(summarizer.summarize({ span, context: [], maxTokens: 20 }))
      assert.instanceOf(e, Summarizer.SummarizerError)
      assert.strictEqual(e.reason, "span-too-large")
      assert.strictEqual(e.summarizer, "LanguageModel")
      assert.include(e.message, "message 1 of the span")
      // The first chunk (the short message) was summarised before the huge one was reached.
      assert.strictEqual((yield* Ref.get(seen)).length, 1)
    }))

  it.effect("the previous summary is folded into the request", () =>
    Effect.gen(function*() {
      const { summarizer, seen } = yield* withModel(() => text("new summary"))
      const summary = yield* summarizer.summarize({
        span: conversation.slice(4, 6),
        previous: "The user's export failed (error 42, read-only folder).",
        context: conversation,
        maxTokens: 100
      })
      const asked = lastText((yield* Ref.get(seen))[0]!)
      assert.include(
        asked,
        "<summary-so-far>\nThe user's export failed (error 42, read-only folder).\n</summary-so-far>"
      )
      // The summary so far comes before the messages.
      assert.isBelow(asked.indexOf("<summary-so-far>"), asked.indexOf("The messages to summarise"))
      assert.strictEqual(summary.text, "new summary")
    }))

  it.effect("C5: a summary so far that the context holds is named by its place, not sent again", () =>
    Effect.gen(function*() {
      const { summarizer, seen } = yield* withModel(() => text("new summary"))
      const previous = "The user's export failed (error 42, read-only folder)."
      const context = [conversation[0]!, Summarizer.summaryMessage({ text: previous }, "summary-1"), ...conversation.slice(4)]
      yield* summarizer.summarize({ span: conversation.slice(4, 5), previous, context, maxTokens: 100 })
      const asked = lastText((yield* Ref.get(seen))[0]!)
      assert.include(asked, "The summary so far is message 1 above; fold it into your new summary.")
      assert.notInclude(asked, "<summary-so-far>")
      assert.include(asked, "- message 2 above")
    }))

  it.effect("the previous summary is folded into the first chunk", () =>
    Effect.gen(function*() {
      const span = Array.from({ length: 8 }, (_, i) => user(`message ${i}: ${"lorem ipsum ".repeat(30)}`))
      const { summarizer, seen } = yield* withModel((n) => text(`S${n}`), { contextWindow: 600, outputReserve: 50 })
      yield* summarizer.summarize({ span, previous: "OLD", context: [], maxTokens: 50 })
      const prompts = yield* Ref.get(seen)
      assert.isAbove(prompts.length, 1)
      assert.include(lastText(prompts[0]!), "<summary-so-far>\nOLD\n</summary-so-far>")
      assert.include(lastText(prompts[1]!), "<summary-so-far>\nS1\n</summary-so-far>")
    }))

  it.effect("an empty span keeps the previous summary without a request; with no previous it is empty", () =>
    Effect.gen(function*() {
      const { summarizer, seen } = yield* withModel(() => text("never"))
      const kept = yield* summarizer.summarize({ span: [], previous: " old ", context: conversation, maxTokens: 50 })
      assert.strictEqual(kept.text, "old")
      assert.strictEqual(kept.chunks, 0)
      const e = yield* Effect.flip(summarizer.summarize({ span: [], context: conversation, maxTokens: 50 }))
      assert.strictEqual(e.reason, "empty")
      assert.strictEqual((yield* Ref.get(seen)).length, 0)
    }))

  it.effect("the usage the model reported is summed over the chunks", () =>
    Effect.gen(function*() {
      const span = Array.from({ length: 8 }, (_, i) => user(`message ${i}: ${"lorem ipsum ".repeat(30)}`))
      const { summarizer } = yield* withModel(
        (n) =>
          Effect.succeed([
            { type: "text", text: `S${n}` },
            {
              type: "finish",
              reason: "stop",
              usage: { inputTokens: { total: 100, cacheRead: 10 }, outputTokens: { total: 5 } }
            }
          ]),
        { contextWindow: 600, outputReserve: 50 }
      )
      const summary = yield* summarizer.summarize({ span, context: [], maxTokens: 50 })
      assert.deepStrictEqual(summary.usage, {
        inputTokens: 100 * summary.chunks,
        outputTokens: 5 * summary.chunks,
        cacheReadTokens: 10 * summary.chunks,
        cacheWriteTokens: undefined
      })
    }))
})

describe("Summarizer failures (fail soft, loudly): a typed SummarizerError, never a summary", () => {
  const request = { span: conversation.slice(1, 5), context: conversation, maxTokens: 30 }

  it.effect("a model that fails is failed, its error text in the error, not in a summary", () =>
    Effect.gen(function*() {
      const { summarizer } = yield* withModel(() =>
        Effect.fail(AiError.make({
          module: "Test",
          method: "generateText",
          reason: new AiError.UnknownError({ description: "provider overloaded" })
        }))
      )
      const e = yield* Effect.flip(summarizer.summarize(request))
      assert.instanceOf(e, Summarizer.SummarizerError)
      assert.strictEqual(e.reason, "failed")
      assert.include(e.message, "provider overloaded")
      assert.include(e.message, "\"LanguageModel\"")
    }))

  it.effect("a model that dies is failed, not a defect", () =>
    Effect.gen(function*() {
      const { summarizer } = yield* withModel(() => Effect.die(new Error("boom")))
      const e = yield* Effect.flip(summarizer.summarize(request))
      assert.strictEqual(e.reason, "failed")
      assert.include(e.detail, "boom")
    }))

  it.effect("a model whose answer finished with an error is failed, even with text", () =>
    Effect.gen(function*() {
      const { summarizer } = yield* withModel(() =>
        Effect.succeed([
          { type: "text", text: "Internal error: upstream 500" },
          { type: "finish", reason: "error", usage: { inputTokens: {}, outputTokens: {} } }
        ])
      )
      const e = yield* Effect.flip(summarizer.summarize(request))
      assert.strictEqual(e.reason, "failed")
    }))

  it.effect("a model that returns empty text is empty", () =>
    Effect.gen(function*() {
      for (const answer of ["", "   \n  "]) {
        const { summarizer } = yield* withModel(() => text(answer))
        const e = yield* Effect.flip(summarizer.summarize(request))
        assert.strictEqual(e.reason, "empty")
      }
      // No text part at all (reasoning only) is empty too.
      const { summarizer } = yield* withModel(() => Effect.succeed([{ type: "reasoning", text: "Let me think." }]))
      assert.strictEqual((yield* Effect.flip(summarizer.summarize(request))).reason, "empty")
    }))

  it.effect("a model that returns text over the summary's budget is over-budget", () =>
    Effect.gen(function*() {
      const long = "word ".repeat(200)
      const { summarizer } = yield* withModel(() => text(long))
      const e = yield* Effect.flip(summarizer.summarize(request))
      assert.strictEqual(e.reason, "over-budget")
      assert.include(e.detail, `${textCount(long.trim())} tokens`)
      assert.notInclude(e.detail, long.trim())
      // Exactly at the budget is a summary.
      const fits = yield* withModel(() => text("x".repeat(4 * (30 - 4))))
      assert.strictEqual((yield* fits.summarizer.summarize(request)).tokens, 30)
    }))

  it.effect("a model whose answer was cut off for length is over-budget", () =>
    Effect.gen(function*() {
      const { summarizer } = yield* withModel(() =>
        Effect.succeed([
          { type: "text", text: "A summary that stops in the mid" },
          { type: "finish", reason: "length", usage: { inputTokens: {}, outputTokens: {} } }
        ])
      )
      assert.strictEqual((yield* Effect.flip(summarizer.summarize(request))).reason, "over-budget")
    }))

  it.effect("a chunk's summary over budget fails the summary, naming the chunk", () =>
    Effect.gen(function*() {
      const span = Array.from({ length: 8 }, (_, i) => user(`message ${i}: ${"lorem ipsum ".repeat(30)}`))
      const { summarizer } = yield* withModel(
        (n) => text(n === 2 ? "word ".repeat(200) : `S${n}`),
        { contextWindow: 600, outputReserve: 50 }
      )
      const e = yield* Effect.flip(summarizer.summarize({ span, context: [], maxTokens: 50 }))
      assert.strictEqual(e.reason, "over-budget")
      assert.include(e.detail, "(chunk 2)")
    }))

  it.effect("a model that takes longer than the timeout is timeout", () =>
    Effect.gen(function*() {
      const { summarizer } = yield* withModel(() => Effect.never, { timeout: "10 seconds" })
      const fiber = yield* Effect.forkChild(Effect.flip(summarizer.summarize(request)))
      yield* TestClock.adjust("10 seconds")
      const e = yield* Fiber.join(fiber)
      assert.strictEqual(e.reason, "timeout")
    }))

  it.effect("the default timeout is two minutes", () =>
    Effect.gen(function*() {
      const { summarizer } = yield* withModel(() => Effect.never)
      const fiber = yield* Effect.forkChild(Effect.flip(summarizer.summarize(request)))
      yield* TestClock.adjust("119 seconds")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* Fiber.join(fiber)).reason, "timeout")
    }))

  it.effect("a maxTokens that is not a positive whole number is failed", () =>
    Effect.gen(function*() {
      const { summarizer, seen } = yield* withModel(() => text("s"))
      for (const maxTokens of [0, -1, 1.5, Number.NaN]) {
        const e = yield* Effect.flip(summarizer.summarize({ ...request, maxTokens }))
        assert.strictEqual(e.reason, "failed")
      }
      assert.strictEqual((yield* Ref.get(seen)).length, 0)
    }))

  it.effect("a token counter that throws is failed, not a defect", () =>
    Effect.gen(function*() {
      const { model } = yield* scripted(() => text("s"))
      const summarizer = yield* Effect.provide(
        Effect.gen(function*() {
          return yield* Summarizer.Summarizer
        }),
        Summarizer.layerLanguageModel({ contextWindow: 10_000 }).pipe(
          Layer.provide([
            Layer.succeed(LanguageModel.LanguageModel, model),
            TokenCounter.make(() => {
              throw new Error("no tokenizer")
            }, 0, "broken")
          ])
        )
      )
      const e = yield* Effect.flip(summarizer.summarize(request))
      assert.strictEqual(e.reason, "failed")
      assert.include(e.detail, "no tokenizer")
    }))

  it.effect("options out of range fail the layer with an InvalidConfigError naming the option", () =>
    Effect.gen(function*() {
      const { model } = yield* scripted(() => text("s"))
      const cases: Array<[Summarizer.LanguageModelOptions, string]> = [
        [{ contextWindow: 0 }, "contextWindow"],
        [{ contextWindow: 1.5 }, "contextWindow"],
        [{ contextWindow: 100, outputReserve: -1 }, "outputReserve"],
        [{ contextWindow: 100, timeout: "0 millis" }, "timeout"]
      ]
      for (const [options, path] of cases) {
        const e = yield* Effect.flip(
          Effect.provide(
            Effect.gen(function*() {
              return yield* Summarizer.Summarizer
            }),
            Summarizer.layerLanguageModel(options).pipe(
              Layer.provide([Layer.succeed(LanguageModel.LanguageModel, model), counter])
            )
          )
        )
        assert.instanceOf(e, InvalidConfigError)
        assert.strictEqual(e.path, path)
      }
    }))
})

describe("Summarizer.make (a summariser of your own)", () => {
  const request = { span: conversation.slice(1, 3), context: conversation, maxTokens: 30 }

  it.effect("a sync, async or Effect function gives a summary, trimmed and counted", () =>
    Effect.gen(function*() {
      for (
        const f of [
          () => " sync ",
          () => Promise.resolve(" sync "),
          () => Effect.succeed(" sync ")
        ]
      ) {
        const summarizer = yield* own("mine", f)
        const summary = yield* summarizer.summarize(request)
        assert.deepStrictEqual(summary, { text: "sync", tokens: textCount("sync"), chunks: 1, withContext: false })
      }
    }))

  it.effect("the function is given the request", () =>
    Effect.gen(function*() {
      let given: Summarizer.SummaryRequest | undefined
      const summarizer = yield* own("mine", (r) => {
        given = r
        return "ok"
      })
      const r = { ...request, previous: "before" }
      yield* summarizer.summarize(r)
      assert.strictEqual(given, r)
    }))

  it.effect("a user summariser that throws is failed, naming it", () =>
    Effect.gen(function*() {
      const summarizer = yield* own("mine", () => {
        throw new TypeError("cannot read x")
      })
      const e = yield* Effect.flip(summarizer.summarize(request))
      assert.instanceOf(e, Summarizer.SummarizerError)
      assert.strictEqual(e.reason, "failed")
      assert.strictEqual(e.summarizer, "mine")
      assert.include(e.message, "\"mine\"")
      assert.include(e.detail, "TypeError: cannot read x")
    }))

  it.effect("a user summariser that rejects is failed, naming it", () =>
    Effect.gen(function*() {
      const summarizer = yield* own("mine", () => Promise.reject(new Error("network down")))
      const e = yield* Effect.flip(summarizer.summarize(request))
      assert.strictEqual(e.reason, "failed")
      assert.strictEqual(e.summarizer, "mine")
      assert.include(e.detail, "network down")
    }))

  it.effect("a user summariser whose Effect fails or dies is failed", () =>
    Effect.gen(function*() {
      const failing = yield* own("mine", () => Effect.fail("quota exceeded"))
      const e1 = yield* Effect.flip(failing.summarize(request))
      assert.strictEqual(e1.reason, "failed")
      assert.include(e1.detail, "quota exceeded")
      const dying = yield* own("mine", () => Effect.die(new Error("bug")))
      const e2 = yield* Effect.flip(dying.summarize(request))
      assert.strictEqual(e2.reason, "failed")
      assert.include(e2.detail, "bug")
    }))

  it.effect("a user summariser that returns no string is failed", () =>
    Effect.gen(function*() {
      // A JavaScript caller's function may return anything.
      const f: (r: Summarizer.SummaryRequest) => string = JSON.parse("null") ?? ((): string => JSON.parse("42"))
      const summarizer = yield* own("mine", f)
      const e = yield* Effect.flip(summarizer.summarize(request))
      assert.strictEqual(e.reason, "failed")
      assert.include(e.detail, "number")
    }))

  it.effect("a user summariser that returns empty text is empty", () =>
    Effect.gen(function*() {
      const summarizer = yield* own("mine", () => "  ")
      assert.strictEqual((yield* Effect.flip(summarizer.summarize(request))).reason, "empty")
    }))

  it.effect("a user summariser that returns text over budget is over-budget", () =>
    Effect.gen(function*() {
      const summarizer = yield* own("mine", () => "word ".repeat(100))
      assert.strictEqual((yield* Effect.flip(summarizer.summarize(request))).reason, "over-budget")
    }))

  it.live("a user summariser that never answers is timeout (real clock)", () =>
    Effect.gen(function*() {
      const summarizer = yield* own("mine", () => new Promise<string>(() => {}), { timeout: "30 millis" })
      const e = yield* Effect.flip(summarizer.summarize(request))
      assert.strictEqual(e.reason, "timeout")
      assert.strictEqual(e.summarizer, "mine")
    }))

  it.effect("a user summariser's timeout out of range fails the layer", () =>
    Effect.gen(function*() {
      const e = yield* Effect.flip(own("mine", () => "s", { timeout: "-1 seconds" }))
      assert.instanceOf(e, InvalidConfigError)
      assert.strictEqual(e.path, "timeout")
    }))
})

describe("Summarizer.summaryMessage", () => {
  it("the summary message is a user message with a header naming it, read back by readSummaryMessage", () => {
    const message = Summarizer.summaryMessage({ text: "The export works again." }, "s-3")
    assert.strictEqual(message.role, "user")
    assert.strictEqual(
      PromptWindow.render(message),
      "[Summary of the earlier conversation, id s-3]\nThe export works again."
    )
    assert.deepStrictEqual(Summarizer.readSummaryMessage(message), { id: "s-3", text: "The export works again." })
    assert.isUndefined(Summarizer.readSummaryMessage(conversation[1]!))
    assert.isUndefined(Summarizer.readSummaryMessage(conversation[0]!))
  })
})
