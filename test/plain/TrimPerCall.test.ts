/**
 * The per-call path's fixed costs cut (docs/design.md item 130): a count function's items found
 * by the last call's messages and counts give what items made afresh give, whatever changed
 * between calls (the counts, the messages, a message at two places); the budget a per-call
 * session reuses is the one its figures make; the items continued from the last call's messages
 * when a call appends to them (item 139) are those items made afresh give.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { Prompt } from "effect/ai"
import { ContextBudget } from "../../src/ContextBudget.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as Session from "../../src/ai/Session.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import type * as OpenAIChat from "../../src/plain/OpenAIChat.ts"
import * as Trim from "../../src/plain/Trim.ts"
import { chatProjection, toOpenAIChat } from "../support/sessionFormats.ts"
import * as Sessions from "../support/sessions.ts"

const fresh = <A>(value: A): A => JSON.parse(JSON.stringify(value))

/** A count of a chat message by its text, scaled, plus `extra` at one index. */
const baseCount = (message: OpenAIChat.Message): number => Math.ceil(JSON.stringify(message).length / 4) + 4

describe("a count function's items found by the last call (design item 130)", () => {
  it("gives what a function seen for the first time gives, call after call, as counts and messages change", async () => {
    for (const seed of [7, 130, 2026]) {
      const session = chatProjection(Sessions.generate("tool-heavy", 40, seed))
      let scale = 1
      let bumpAt = -1
      // One function for the whole run: its items are found again from call to call.
      const count = (message: OpenAIChat.Message, index: number) => baseCount(message) * scale + (index === bumpAt ? 7 : 0)
      const same = toOpenAIChat(Sessions.historyAt(session, 30))
      const calls: Array<{ readonly chat: ReadonlyArray<OpenAIChat.Message>; readonly scale: number; readonly bumpAt: number }> = [
        { chat: same, scale: 1, bumpAt: -1 },
        { chat: same, scale: 1, bumpAt: -1 },
        // The same messages, every count changed: the last call's items are not the ones.
        { chat: same, scale: 2, bumpAt: -1 },
        { chat: same, scale: 2, bumpAt: -1 },
        // One count changed.
        { chat: same, scale: 2, bumpAt: 5 },
        { chat: same, scale: 2, bumpAt: -1 },
        // Fewer, then more messages; fresh copies.
        { chat: same.slice(0, 20), scale: 2, bumpAt: -1 },
        { chat: toOpenAIChat(Sessions.historyAt(session, 40)), scale: 2, bumpAt: -1 },
        { chat: fresh(same), scale: 2, bumpAt: -1 },
        { chat: same, scale: 1, bumpAt: -1 }
      ]
      for (const call of calls) {
        scale = call.scale
        bumpAt = call.bumpAt
        const options = { contextWindow: 5_000 * scale, outputReserve: 300 }
        const warm = await Trim.trim(call.chat, { ...options, count })
        // A function never seen: every item made afresh.
        const cold = await Trim.trim(call.chat, { ...options, count: (m, i) => count(m, i) })
        assert.deepStrictEqual(warm.report, cold.report)
        assert.deepStrictEqual(warm.messages, cold.messages)
        assert.isAbove(warm.report.dropped.length, 0)
      }
    }
  })

  it("a message object at two places of one call counts as before (trimConverted)", async () => {
    const messages: Array<OpenAIChat.Message> = [
      { role: "system", content: "You are terse." },
      { role: "user", content: "first question, a long one ".repeat(20) },
      { role: "assistant", content: "an answer ".repeat(20) },
      { role: "user", content: "again" }
    ]
    const user = Prompt.userMessage({ content: [Prompt.textPart({ text: "again" })] })
    const prompt: Array<Prompt.Message> = [
      Prompt.systemMessage({ content: "You are terse." }),
      user,
      Prompt.assistantMessage({ content: [Prompt.textPart({ text: "an answer ".repeat(20) })] }),
      user
    ]
    let scale = 1
    // A count that depends on the place: the same object counts differently at its two places.
    const count = (_: OpenAIChat.Message, index: number) => (index + 1) * 30 * scale
    const run = (f: typeof count) =>
      Effect.runPromise(Effect.exit(Trim.trimConverted(messages, prompt, { contextWindow: 400, count: f }, () => undefined)))
    for (const s of [1, 1, 2, 2, 1]) {
      scale = s
      const warm = await run(count)
      const cold = await run((m, i) => count(m, i))
      assert.strictEqual(Exit.isSuccess(warm), Exit.isSuccess(cold))
      assert.deepStrictEqual(JSON.stringify(warm), JSON.stringify(cold))
    }
  })
})

describe("a count function's items continued from the last call's messages (design item 139)", () => {
  it("gives what a function seen for the first time gives as an agent's history grows, its counts changing at times", async () => {
    for (const seed of [11, 139, 4040]) {
      const session = chatProjection(Sessions.generate("tool-heavy", 60, seed))
      const all = toOpenAIChat(Sessions.historyAt(session, 60))
      let scale = 1
      let bumpAt = -1
      let byPlace = false
      const count = (message: OpenAIChat.Message, index: number) =>
        baseCount(message) * scale + (index === bumpAt ? 7 : 0) + (byPlace ? index % 3 : 0)
      // The same message objects appended to, one to seventy at a time; among them the
      // counts of an old message, of every message and of each place change, a message stands
      // twice in what is new, and messages taken off come back counting otherwise (`bumpNew`:
      // the second newest counts 7 more, an item made for it at an earlier call no longer its).
      let length = 8
      const steps: Array<{
        readonly add: number
        readonly scale?: number
        readonly bumpAt?: number
        readonly bumpNew?: boolean
        readonly byPlace?: boolean
        readonly twice?: boolean
      }> = [
        { add: 1 }, { add: 2 }, { add: 3, bumpAt: 2 }, { add: 1 }, { add: 2, scale: 2 }, { add: 1 },
        { add: 2, twice: true }, { add: 1 }, { add: 70 }, { add: 1, byPlace: true }, { add: 2, byPlace: true },
        { add: 2, twice: true, byPlace: true }, { add: 1 }, { add: 3 }, { add: -6 }, { add: 6, bumpNew: true },
        { add: -3 }, { add: 4 }
      ]
      for (const step of steps) {
        length = Math.max(2, Math.min(all.length, length + step.add))
        scale = step.scale ?? scale
        bumpAt = step.bumpNew === true ? length - 2 : step.bumpAt ?? -1
        byPlace = step.byPlace ?? false
        const chat: Array<OpenAIChat.Message> = all.slice(0, length)
        // A message object twice among the new places: the newest user message again.
        if (step.twice === true) {
          const user = chat.findLast((message) => message.role === "user")
          if (user !== undefined) chat.push(user)
        }
        const options = { contextWindow: 4_000 * scale, outputReserve: 300 }
        const warm = await Effect.runPromise(Effect.exit(Trim.trimEffect(chat, { ...options, count })))
        const cold = await Effect.runPromise(Effect.exit(Trim.trimEffect(chat, { ...options, count: (m, i) => count(m, i) })))
        assert.deepStrictEqual(JSON.stringify(warm), JSON.stringify(cold))
      }
    }
  })
})

describe("the counter given as a service (design item 130)", () => {
  it("a count function that throws on a shortened copy rejects as with the layer's counter: the tool message named", async () => {
    const input: Array<OpenAIChat.Message> = [
      { role: "system", content: "sys" },
      { role: "user", content: "run it" },
      { role: "assistant", tool_calls: [{ id: "c", type: "function", function: { name: "run", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c", content: Array.from({ length: 900 }, (_, i) => "abcdefghi".slice(0, 1 + i % 9)).join(" ") }
    ]
    const count = (message: OpenAIChat.Message) => {
      if (!input.includes(message)) throw new Error("no copies")
      return baseCount(message)
    }
    const error = await Effect.runPromise(Effect.flip(Trim.trimEffect(input, { contextWindow: 500, count })))
    // What the path through TokenCounter.make's layer gave (checked against it when written).
    assert.strictEqual(error._tag, "CandidateError")
    const fields = error._tag === "CandidateError" ? { index: error.index, field: error.field, problem: error.problem } : undefined
    assert.deepStrictEqual(fields, { index: 3, field: "count", problem: "threw: Error: no copies" })
  })
})

describe("the budget reused for the same figures (design item 130)", () => {
  it.effect("is the budget the figures make, whichever session made one before", () =>
    Effect.gen(function*() {
      const history = [
        Prompt.systemMessage({ content: "You are terse." }),
        Prompt.userMessage({ content: [Prompt.textPart({ text: "hello" })] })
      ]
      // The same window and target with another reserve: only the request's overhead differs.
      const figures = [
        { contextWindow: 1_000, outputReserve: 100, overhead: 0 },
        { contextWindow: 1_000, outputReserve: 97, overhead: 3 },
        { contextWindow: 1_000, outputReserve: 97, overhead: 3 },
        { contextWindow: 1_200, outputReserve: 97, overhead: 3 },
        { contextWindow: 1_000, outputReserve: 100, overhead: 0 },
        { contextWindow: 1_000, outputReserve: 0, overhead: 0 }
      ]
      for (const { contextWindow, outputReserve, overhead } of figures) {
        const counter = TokenCounter.make((m) => Math.ceil(PromptWindow.render(m).length / 4) + 4, overhead)
        const budget = yield* Effect.gen(function*() {
          const session = yield* Session.makePerCall({ contextWindow, outputReserve })
          const fitting = yield* session.fit({ method: "generate", prompt: Prompt.fromMessages(history) })
          return fitting.budget
        }).pipe(Effect.scoped, Effect.provide(counter))
        const expected = new ContextBudget({ maxTokens: contextWindow, targetTokens: contextWindow - outputReserve - overhead, outputReserve })
        assert.deepStrictEqual({ ...budget }, { ...expected })
        assert.instanceOf(budget, ContextBudget)
      }
    }))
})
