import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as GptTokenizer from "../../src/ai/GptTokenizer.ts"
import { render } from "../../src/ai/PromptWindow.ts"
import { Prompt } from "effect/ai"
import * as OpenAIChat from "../../src/plain/OpenAIChat.ts"
import { trim } from "../../src/plain/Trim.ts"
import { openAIHistory } from "../support/openAIHistory.ts"

type Message = OpenAIChat.Message

const history = openAIHistory

/** The invariants of a trimmed history: system first, calls with their results, originals. */
const checkWindow = (input: ReadonlyArray<Message>, output: ReadonlyArray<Message>) => {
  assert.strictEqual(output[0], input[0], "the system message first")
  const positions = output.map((m) => input.indexOf(m))
  assert.isTrue(positions.every((p) => p >= 0), "every message is one of the caller's objects")
  assert.deepStrictEqual(positions, positions.slice().sort((a, b) => a - b), "in the input's order")
  const calls = new Set<string>()
  const results = new Set<string>()
  for (const m of output) {
    if (m.role === "assistant") for (const c of m.tool_calls ?? []) calls.add(c.id)
    if (m.role === "tool") results.add(m.tool_call_id)
  }
  for (const id of results) assert.isTrue(calls.has(id), `result ${id} without its call`)
  for (const id of calls) assert.isTrue(results.has(id), `call ${id} without its result`)
  const newestUser = input.findLastIndex((m) => m.role === "user")
  assert.include(output, input[newestUser], "the newest user message")
  assert.strictEqual(output.find((m) => m.role !== "system")?.role, "user", "opens on a user message")
}

describe("plain/Trim", () => {
  it.live("1,000 OpenAI-format messages with tool calls in one call: within the window by o200k, whole tool exchanges, the caller's objects", () =>
    Effect.gen(function*() {
      const input = history(1000)
      const { messages, report } = yield* Effect.promise(() => trim(input, { contextWindow: 8_000, outputReserve: 1_000 }))
      checkWindow(input, messages)
      assert.isBelow(messages.length, input.length)
      // Counted again with the same counter: gpt-tokenizer's o200k over the whole request.
      const tokenizer = yield* GptTokenizer.make("o200k_base")
      const prompt = OpenAIChat.toPromptMessages(messages)
      const sent = (yield* tokenizer.tokenize(Prompt.fromMessages(prompt))).length
      assert.isAtMost(sent, 8_000 - 1_000)
      assert.strictEqual(sent, report.tokens + report.requestOverhead)
      assert.deepStrictEqual(report.kept, messages.map((m) => input.indexOf(m)))
      assert.strictEqual(report.kept.length + report.dropped.length, input.length)
    }))

  it.live("a count function: the window's counts by that function are within contextWindow - outputReserve", () =>
    Effect.gen(function*() {
      const input = history(1000)
      const count = (m: Message) => Math.ceil(JSON.stringify(m).length / 4)
      const { messages, report } = yield* Effect.promise(() => trim(input, { contextWindow: 5_000, outputReserve: 500, count }))
      checkWindow(input, messages)
      const total = messages.reduce((sum, m) => sum + count(m), 0)
      assert.isAtMost(total, 4_500)
      assert.strictEqual(total, report.tokens)
      assert.deepStrictEqual([report.requestOverhead, report.targetTokens], [0, 4_500])
    }))

  it.live("everything fits: the same array of objects comes back (K1)", () =>
    Effect.gen(function*() {
      const input = history(12)
      const { messages, report } = yield* Effect.promise(() => trim(input, { contextWindow: 100_000 }))
      assert.deepStrictEqual(messages, input)
      messages.forEach((m, i) => assert.strictEqual(m, input[i]))
      assert.deepStrictEqual(report.dropped, [])
    }))

  it.live("a tool result larger than the room is sent as a shortened copy of its message (K6), listed in the report", () =>
    Effect.gen(function*() {
      const big: Message = { role: "tool", tool_call_id: "c", content: "line of output\n".repeat(3_000) }
      const input: Array<Message> = [
        { role: "system", content: "sys" },
        { role: "user", content: "run it" },
        { role: "assistant", tool_calls: [{ id: "c", type: "function", function: { name: "run", arguments: "{}" } }] },
        big
      ]
      const { messages, report } = yield* Effect.promise(() => trim(input, { contextWindow: 2_000 }))
      assert.strictEqual(messages.length, 4)
      assert.deepStrictEqual(messages.slice(0, 3), input.slice(0, 3))
      const copy = messages[3]!
      assert.notStrictEqual(copy, big)
      assert(copy.role === "tool")
      assert.strictEqual(copy.tool_call_id, "c")
      assert.isString(copy.content)
      assert.include(copy.content, "tokens left out")
      assert.deepStrictEqual(report.shortened.map((s) => s.index), [3])
      assert.isAtMost(report.tokens + report.requestOverhead, 2_000)
    }))

  it.live("rejections carry _tag: InvalidInput (message index and field, options), CandidateError (count threw), PinnedBudgetError", () =>
    Effect.gen(function*() {
      const rejected = (p: Promise<unknown>) => Effect.promise(() => p.then(() => undefined, (e: unknown) => e))
      const fields = (e: unknown) => ({
        error: e instanceof Error,
        _tag: Reflect.get(Object(e), "_tag"),
        index: Reflect.get(Object(e), "index"),
        field: Reflect.get(Object(e), "field")
      })
      // What a plain JavaScript caller may pass: a tool message without tool_call_id.
      const malformed = JSON.parse(`[{ "role": "user", "content": "a" }, { "role": "tool", "content": "b" }]`)
      const bad = yield* rejected(trim(malformed, { contextWindow: 100 }))
      assert.deepStrictEqual(fields(bad), { error: true, _tag: "InvalidInput", index: 1, field: "tool_call_id" })
      const option = yield* rejected(trim([], { contextWindow: -1 }))
      assert.deepStrictEqual(fields(option), { error: true, _tag: "InvalidInput", index: undefined, field: "contextWindow" })
      const threw = yield* rejected(trim(history(5), {
        contextWindow: 100,
        count: (_m, i) => {
          if (i === 3) throw new Error("boom")
          return 1
        }
      }))
      assert.deepStrictEqual(fields(threw), { error: true, _tag: "CandidateError", index: 3, field: "count" })
      const pinned = yield* rejected(trim([{ role: "system", content: "x".repeat(4_000) }, { role: "user", content: "hi" }], {
        contextWindow: 100
      }))
      assert.strictEqual(fields(pinned)._tag, "PinnedBudgetError")
    }))

  it.live("a count function's counts are the ones the fit uses (keyed by the prompt's own message objects): the window is within them", () =>
    Effect.gen(function*() {
      const input = history(200)
      const prompt = OpenAIChat.toPromptMessages(input)
      const byRender = (_m: Message, i: number) => Math.ceil(render(prompt[i]!).length / 4) + 4
      const { messages } = yield* Effect.promise(() => trim(input, { contextWindow: 1_500, count: byRender }))
      checkWindow(input, messages)
      assert.isAtMost(messages.reduce((sum, m) => sum + byRender(m, input.indexOf(m)), 0), 1_500)
    }))
})

describe("plain/Trim: the count function", () => {
  it.live("is called with the caller's own message objects, their extra fields included", () =>
    Effect.gen(function*() {
      const input: Array<Message & { readonly id: string }> = [
        { role: "system", content: "sys", id: "m0" },
        { role: "user", content: "hello", id: "m1" }
      ]
      const seen: Array<unknown> = []
      yield* Effect.promise(() =>
        trim(input, {
          contextWindow: 100,
          count: (message) => {
            seen.push(message)
            return 1
          }
        })
      )
      assert.strictEqual(seen.length, 2)
      assert.strictEqual(seen[0], input[0])
      assert.strictEqual(seen[1], input[1])
    }))
})

describe("plain/Trim: the session core's rules, as every door has them (issue 25)", () => {
  const rejected = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e)
  const fields = (e: unknown) => ({
    _tag: Reflect.get(Object(e), "_tag"),
    field: Reflect.get(Object(e), "field"),
    problem: Reflect.get(Object(e), "problem")
  })
  const count = (m: Message) => Math.ceil(JSON.stringify(m).length / 4)

  it("toolTokens: the tools' tokens come off the target by the core's rule, as prepareStep's", async () => {
    const input = history(200)
    const without = await trim(input, { contextWindow: 2_000, outputReserve: 100, count })
    const { messages, report } = await trim(input, { contextWindow: 2_000, outputReserve: 100, count, toolTokens: 700 })
    assert.strictEqual(without.report.targetTokens, 1_900)
    assert.strictEqual(report.targetTokens, 1_200)
    assert.isAtMost(report.tokens, 1_200)
    assert.isBelow(messages.length, without.messages.length)
    checkWindow(input, messages)
  })

  it("toolTokens larger than the room the window leaves: rejects with ToolDefinitionsError (room), as every door", async () => {
    const error = await rejected(trim(history(4), { contextWindow: 1_000, outputReserve: 100, count, toolTokens: 901 }))
    assert.strictEqual(Reflect.get(Object(error), "_tag"), "ToolDefinitionsError")
    assert.strictEqual(Reflect.get(Object(error), "problem"), "room")
    assert.strictEqual(Reflect.get(Object(error), "availableTokens"), 900)
  })

  it("toolTokens that is not a whole number of at least 0: rejects with InvalidInput naming it", async () => {
    for (const toolTokens of [2.5, -1, Number.NaN]) {
      const error = await rejected(trim(history(4), { contextWindow: 1_000, count, toolTokens }))
      assert.deepStrictEqual(fields(error)._tag, "InvalidInput")
      assert.deepStrictEqual(fields(error).field, "toolTokens")
    }
  })

  it("mode: \"per-call\" is accepted (a trim's only mode); any other mode rejects with InvalidInput naming mode", async () => {
    const input = history(6)
    const same = await trim(input, { contextWindow: 1_000, count, mode: "per-call" })
    assert.deepStrictEqual(same.report, (await trim(input, { contextWindow: 1_000, count })).report)
    for (const mode of ["stable", "sometimes"]) {
      const error = await rejected(Reflect.apply(trim, undefined, [input, { contextWindow: 1_000, count, mode }]))
      assert.strictEqual(fields(error)._tag, "InvalidInput")
      assert.strictEqual(fields(error).field, "mode")
      assert.include(String(fields(error).problem), "must be \"per-call\"")
      assert.include(String(fields(error).problem), `(got "${mode}")`)
    }
  })

  it("a shortened tool result's keptTokens are the tokens of the copy sent: the report's figures add up to tokens", async () => {
    const big: Message = { role: "tool", tool_call_id: "c", content: Array.from({ length: 900 }, (_, i) => "abcdefghi".slice(0, 1 + i % 9)).join(" ") }
    const input: Array<Message> = [
      { role: "system", content: "sys" },
      { role: "user", content: "run it" },
      { role: "assistant", tool_calls: [{ id: "c", type: "function", function: { name: "run", arguments: "{}" } }] },
      big
    ]
    const { messages, report } = await trim(input, { contextWindow: 500, count })
    assert.deepStrictEqual(report.shortened.map((s) => s.index), [3])
    assert.strictEqual(report.shortened[0]!.keptTokens, count(messages[3]!))
    assert.strictEqual(messages.reduce((sum, m) => sum + count(m), 0), report.tokens)
  })

  // docs/design.md item 125: the tool index a shortened copy is counted by is made at the first copy.
  it("a count function is asked for a shortened copy with the index of the tool message it stands for", async () => {
    const big = (id: string): Message => ({
      role: "tool",
      tool_call_id: id,
      content: Array.from({ length: 900 }, (_, i) => "abcdefghi".slice(0, 1 + i % 9)).join(" ")
    })
    const input: Array<Message> = [
      { role: "system", content: "sys" },
      { role: "user", content: "run them" },
      {
        role: "assistant",
        tool_calls: ["a", "c"].map((id) => ({ id, type: "function" as const, function: { name: "run", arguments: "{}" } }))
      },
      { role: "tool", tool_call_id: "a", content: "small" },
      big("c")
    ]
    const asked: Array<[Message, number]> = []
    const { messages, report } = await trim(input, {
      contextWindow: 500,
      count: (message, index) => {
        asked.push([message, index])
        return count(message)
      }
    })
    assert.deepStrictEqual(report.shortened.map((s) => s.index), [4])
    const copies = asked.filter(([message]) => !input.includes(message))
    assert.isAbove(copies.length, 0)
    for (const [message, index] of copies) {
      assert.strictEqual(index, 4)
      assert.strictEqual(message.role, "tool")
    }
    assert.strictEqual(messages.reduce((sum, m) => sum + count(m), 0), report.tokens)
  })
})
