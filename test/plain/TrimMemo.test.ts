import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { vi } from "vitest"
import * as ContentMemo from "../../src/internal/contentMemo.ts"
import * as ModelMessages from "../../src/plain/ModelMessages.ts"
import * as OpenAIChat from "../../src/plain/OpenAIChat.ts"
import * as Trim from "../../src/plain/Trim.ts"
import { chatProjection, toModelMessages, toOpenAIChat } from "../support/sessionFormats.ts"
import * as Sessions from "../support/sessions.ts"

const fresh = <A>(value: A): A => {
  const copy: A = JSON.parse(JSON.stringify(value))
  return copy
}

describe("ContentMemo: a bounded memo keyed by content (design item 83)", () => {
  it("an equal content gives the value made for it, whether the same object or a fresh copy", () => {
    const memo = ContentMemo.make<object>()
    const message = { role: "user", content: [{ type: "text", text: "x".repeat(100) }] }
    const made = memo.call().get(message, () => ({}))
    assert.strictEqual(memo.call().get(message, () => ({})), made)
    assert.strictEqual(memo.call().get(fresh(message), () => ({})), made)
  })

  it("contents that differ only where the fingerprint does not read are told apart", () => {
    const memo = ContentMemo.make<object>()
    const text = "a".repeat(1000)
    const a = { role: "user", content: text }
    const b = { role: "user", content: `${text.slice(0, 300)}b${text.slice(301)}` }
    const c = { role: "user", content: text, extra: 1 }
    const call = memo.call()
    const va = call.get(a, () => ({ a: true }))
    const vb = call.get(b, () => ({ b: true }))
    const vc = call.get(c, () => ({ c: true }))
    assert.notStrictEqual(va, vb)
    assert.notStrictEqual(va, vc)
    assert.strictEqual(memo.size(), 3)
  })

  it("a caller mutating its message afterwards changes nothing: the memo holds a copy", () => {
    const memo = ContentMemo.make<string>()
    const message = { role: "assistant", content: "before" }
    memo.call().get(message, () => "made for before")
    message.content = "after"
    assert.strictEqual(memo.call().get(message, () => "made for after"), "made for after")
    assert.strictEqual(memo.call().get({ role: "assistant", content: "before" }, () => "again"), "made for before")
  })

  it("a content repeated within a call gets a value of its own per occurrence, the same from one call to the next", () => {
    const memo = ContentMemo.make<object>()
    const yes = { role: "user", content: "yes, do it" }
    const first = memo.call()
    const a = first.get(yes, () => ({}))
    const b = first.get(fresh(yes), () => ({}))
    assert.notStrictEqual(a, b)
    const second = memo.call()
    assert.strictEqual(second.get(yes, () => ({})), a)
    assert.strictEqual(second.get(yes, () => ({})), b)
  })

  it("binary data, class instances and non-finite numbers are not memoised; a failure (undefined) is not stored", () => {
    const memo = ContentMemo.make<object>()
    for (const key of [{ data: new Uint8Array([1]) }, { at: new Date(0) }, { n: Number.NaN }]) {
      const a = memo.call().get(key, () => ({}))
      assert.notStrictEqual(memo.call().get(key, () => ({})), a)
    }
    assert.isUndefined(memo.call().get({ bad: true }, () => undefined))
    assert.strictEqual(memo.size(), 0)
  })

  it("two conversations in turn: each position finds its own content, whatever the call before held there", () => {
    const memo = ContentMemo.make<string>()
    const a = [{ role: "user", content: "question a" }, { role: "assistant", content: "answer a" }]
    const b = [{ role: "user", content: "question b" }, { role: "assistant", content: "answer a" }]
    const run = (messages: ReadonlyArray<object>) => {
      const call = memo.call()
      return messages.map((m) => call.get(m, () => JSON.stringify(m)))
    }
    for (let i = 0; i < 3; i++) {
      assert.deepStrictEqual(run(a), a.map((m) => JSON.stringify(m)))
      assert.deepStrictEqual(run(fresh(b)), b.map((m) => JSON.stringify(m)))
    }
    assert.strictEqual(memo.size(), 3)
  })

  it("bounded: it holds at most its entries", () => {
    const memo = ContentMemo.make<object>({ entries: 10, characters: 1_000_000 })
    const call = memo.call()
    for (let i = 0; i < 100; i++) call.get({ role: "user", content: `m${i}` }, () => ({}))
    assert.isAtMost(memo.size(), 10)
  })

  it("a content the bounds forgot is made again, even at the position where the last call found it; one aged but held is found", () => {
    const memo = ContentMemo.make<object>({ entries: 8, characters: 1_000_000 })
    const a = { role: "user", content: "the content at position 0" }
    const made: Array<object> = []
    const make = () => {
      const value = {}
      made.push(value)
      return value
    }
    const first = memo.call().get(a, make)
    // The next call finds it at position 0 (the hint), then holds enough other contents that
    // the generations turn over twice: the content is forgotten.
    const second = memo.call()
    assert.strictEqual(second.get(a, make), first)
    for (let i = 0; i < 20; i++) second.get({ role: "user", content: `other ${i}` }, make)
    const third = memo.call().get(a, make)
    assert.notStrictEqual(third, first)
    assert.strictEqual(made.at(-1), third)
    // Aged into the old generation but held: found at its position, and made no more.
    const fourth = memo.call()
    assert.strictEqual(fourth.get(a, make), third)
    for (let i = 0; i < 4; i++) fourth.get({ role: "user", content: `more ${i}` }, make)
    const count = made.length
    assert.strictEqual(memo.call().get(a, make), third)
    assert.strictEqual(made.length, count)
    assert.isAtMost(memo.size(), 8)
  })
})

const session = chatProjection(Sessions.generate("tool-heavy", 60, 25))
const history = Sessions.historyAt(session, 60)

describe("conversions with the memo give what the uncached ones give", () => {
  it.effect("OpenAIChat.convert equals decode then toPromptMessages, on fresh copies too", () =>
    Effect.gen(function*() {
      const chat = toOpenAIChat(history)
      const uncached = OpenAIChat.toPromptMessages(yield* OpenAIChat.decode(chat))
      for (const input of [chat, chat, fresh(chat)]) assert.deepStrictEqual(yield* OpenAIChat.convert(input), uncached)
      const bad = [...fresh(chat), { role: "tool", content: 5, tool_call_id: "x" }]
      assert.deepStrictEqual(yield* Effect.flip(OpenAIChat.convert(bad)), yield* Effect.flip(OpenAIChat.decode(bad)))
    }))

  it.effect("ModelMessages.convert equals decode then toPromptMessages, and fails with decode's first failure", () =>
    Effect.gen(function*() {
      const model = toModelMessages(history)
      const uncached = yield* ModelMessages.toPromptMessages(yield* ModelMessages.decode(model))
      for (const input of [model, model, fresh(model)]) assert.deepStrictEqual(yield* ModelMessages.convert(input), uncached)
      // A part the prompt schema refuses, then a message of the wrong shape: decode finds the shape first.
      const schemaBad = { role: "user", content: [{ type: "file", mediaType: 5, data: "" }] }
      const shapeBad = { role: "bot", content: "x" }
      const input = [...fresh(model), schemaBad, shapeBad]
      const expected = yield* Effect.flip(ModelMessages.decode(input))
      assert.deepStrictEqual(yield* Effect.flip(ModelMessages.convert(input)), expected)
    }))
})

describe("trim with counts and items reused gives what a fresh trim gives (design item 83)", () => {
  it("an agent loop through a warmed trim, with the same objects and with fresh copies, equals a trim of a fresh module at every checked call", async () => {
    vi.resetModules()
    const steps = [10, 30, 45, 60]
    for (const k of steps) {
      const chat = toOpenAIChat(Sessions.historyAt(session, k))
      const model = toModelMessages(Sessions.historyAt(session, k))
      const options = { contextWindow: 6_000, outputReserve: 500 }
      // Warm: every earlier history through the same module, so that counts and items are known.
      for (let j = Math.max(0, k - 3); j < k; j++) await Trim.trim(toOpenAIChat(Sessions.historyAt(session, j)), options)
      const warm = await Trim.trim(chat, options)
      const warmCopies = await Trim.trim(fresh(chat), options)
      const warmModel = await Trim.trimModelMessages(fresh(model), options)
      // Cold: a module instance of its own, nothing remembered.
      vi.resetModules()
      const Cold: typeof Trim = await import("../../src/plain/Trim.ts")
      const cold = await Cold.trim(chat, options)
      const coldModel = await Cold.trimModelMessages(model, options)
      // The window is a real trim: something is left out at the later calls.
      if (k >= 30) assert.isAbove(cold.report.dropped.length, 0)
      assert.deepStrictEqual(warm.report, cold.report)
      assert.deepStrictEqual(warmCopies.report, cold.report)
      assert.deepStrictEqual(warmCopies.messages, cold.messages)
      assert.deepStrictEqual(warmModel.report, coldModel.report)
      assert.deepStrictEqual(warmModel.messages, coldModel.messages)
      // The caller's own objects come back.
      warm.messages.forEach((m, i) => assert.strictEqual(m, chat[warm.report.kept[i]!] ?? m))
    }
  })
})
