/**
 * The content memo's comparison (docs/design.md item 104) and the count function's items
 * (item 105): what makes the doors' conversion cost a small constant a message seen before,
 * and never a wrong hit.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import * as ContentMemo from "../../src/internal/contentMemo.ts"
import * as AiSdk from "../../src/adapters/AiSdk.ts"
import * as AiSdkCacheMarks from "../../src/adapters/AiSdkCacheMarks.ts"
import * as CacheBreakpoints from "../../src/ai/CacheBreakpoints.ts"
import type * as OpenAIChat from "../../src/plain/OpenAIChat.ts"
import * as Trim from "../../src/plain/Trim.ts"
import { chatProjection, toModelMessages, toOpenAIChat } from "../support/sessionFormats.ts"
import * as Sessions from "../support/sessions.ts"

const fresh = <A>(value: A): A => {
  const copy: A = JSON.parse(JSON.stringify(value))
  return copy
}

/** A JSON-like value of a few levels, as a message is: objects, arrays, strings, numbers, booleans, null. */
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.string(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), tie("value"), { maxKeys: 4 })
  )
})).value

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** The containers of a value and the key or index of each child: every place an edit can be made. */
const places = (value: unknown): Array<{ readonly container: Record<string, unknown> | Array<unknown>; readonly key: string | number }> => {
  const out: Array<{ readonly container: Record<string, unknown> | Array<unknown>; readonly key: string | number }> = []
  const walk = (v: unknown) => {
    if (Array.isArray(v)) {
      const items: Array<unknown> = v
      items.forEach((child, i) => {
        out.push({ container: items, key: i })
        walk(child)
      })
    } else if (isRecord(v)) {
      for (const key of Object.keys(v)) {
        out.push({ container: v, key })
        walk(v[key])
      }
    }
  }
  walk(value)
  return out
}

/** A string equal to `s` that is another string object (built from pieces). */
const equalString = (s: string): string => [...s].join("")

describe("ContentMemo's comparison (design item 104)", () => {
  it("a message edited in place at any depth is seen as changed: the value made for its new content, never the old", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), json, { minKeys: 1, maxKeys: 4 }), fc.nat(), (message, pick) => {
        const memo = ContentMemo.make<string>()
        const before = JSON.stringify(message)
        assert.strictEqual(memo.call().get(message, () => before), before)
        const at = places(message)
        const place = at[pick % at.length]!
        // The edit: a value no generated value is (a fresh marker object, or a changed string).
        const old = Array.isArray(place.container) ? place.container[Number(place.key)] : place.container[String(place.key)]
        const next = typeof old === "string" ? `${old}!` : { edited: [old ?? 0] }
        if (Array.isArray(place.container)) place.container[Number(place.key)] = next
        else place.container[String(place.key)] = next
        const after = JSON.stringify(message)
        assert.strictEqual(memo.call().get(message, () => after), after)
        // The content before, in a new object, still finds its own value.
        assert.strictEqual(memo.call().get(JSON.parse(before), () => "made again"), before)
      }),
      { seed: 104, numRuns: 300 }
    )
  })

  it("a key added or removed in place at any depth is seen as changed", () => {
    const memo = ContentMemo.make<string>()
    const message: { role: string; content: Array<Record<string, unknown>> } = {
      role: "tool",
      content: [{ type: "tool-result", toolCallId: "c1", output: { type: "text", value: "ok" } }]
    }
    const a = memo.call().get(message, () => "a")
    message.content[0]!["extra"] = undefined
    assert.strictEqual(memo.call().get(message, () => "b"), "b")
    delete message.content[0]!["extra"]
    assert.strictEqual(memo.call().get(message, () => "c"), a)
    message.content.push({ type: "text", text: "" })
    assert.strictEqual(memo.call().get(message, () => "d"), "d")
  })

  it("a string replaced by an equal string (another string object) still hits, the same object or a fresh copy", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), json, { minKeys: 1, maxKeys: 4 }), (message) => {
        const memo = ContentMemo.make<object>()
        const made = memo.call().get(message, () => ({}))
        // Every string of the message replaced, in place, by an equal one built anew.
        for (const place of places(message)) {
          if (Array.isArray(place.container)) {
            const v = place.container[Number(place.key)]
            if (typeof v === "string") place.container[Number(place.key)] = equalString(v)
          } else {
            const v = place.container[String(place.key)]
            if (typeof v === "string") place.container[String(place.key)] = equalString(v)
          }
        }
        assert.strictEqual(memo.call().get(message, () => ({})), made)
        assert.strictEqual(memo.call().get(fresh(message), () => ({})), made)
      }),
      { seed: 1041, numRuns: 200 }
    )
  })

  it("a value of more than 65,536 nodes is not memoised: made at every call, its content never compared (item 123); one under the bound is", () => {
    const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i, name: `row ${i}` }))
    // Five nodes a row (the object, two keys, two values): 10,000 rows under the bound, 20,000 past it.
    for (const [n, memoised] of [[10_000, true], [20_000, false]] as const) {
      const memo = ContentMemo.make<object>()
      const value = { role: "tool", content: [{ type: "tool-result", output: { type: "json", value: rows(n) } }] }
      let made = 0
      const first = memo.call().get(value, () => ({ made: ++made }))
      const again = memo.call().get(value, () => ({ made: ++made }))
      const copy = memo.call().get(fresh(value), () => ({ made: ++made }))
      assert.strictEqual(again === first && copy === first, memoised, `${n} rows`)
      assert.strictEqual(made, memoised ? 1 : 3, `${n} rows`)
    }
  })

  it("an object of the same content with its keys in another order is a miss (made again), never another content's value", () => {
    const memo = ContentMemo.make<string>()
    assert.strictEqual(memo.call().get({ role: "user", content: "hi" }, () => "first"), "first")
    assert.strictEqual(memo.call().get({ content: "hi", role: "user" }, () => "reordered"), "reordered")
    assert.strictEqual(memo.call().get({ role: "user", content: "hi" }, () => "again"), "first")
  })

  it("an array and an object of the same entries, null and undefined, 0 and '0' are told apart", () => {
    const memo = ContentMemo.make<string>()
    const call = memo.call()
    const keys: ReadonlyArray<unknown> = [
      { v: ["a"] },
      { v: { 0: "a" } },
      { v: null },
      { v: undefined },
      { v: 0 },
      { v: "0" },
      { v: false },
      {}
    ]
    const values = keys.map((key, i) => call.get(key, () => `v${i}`))
    assert.deepStrictEqual(values, keys.map((_, i) => `v${i}`))
    const again = memo.call()
    // structuredClone keeps a key whose value is undefined (a JSON copy would drop it).
    assert.deepStrictEqual(keys.map((key) => again.get(structuredClone(key), () => "miss")), values)
  })

  it("a number where a stored copy opens an array or an object, and an array or an object where it held a number, are misses (item 150: the tape's markers are numbers)", () => {
    // The markers of `[x]`, `{ k }`, `[]` and `{}` are 2, 3, 0 and 1 (a size and a bit): a
    // caller's number of that value, in its place, must not read as the marker.
    const memo = ContentMemo.make<string>()
    const stored: ReadonlyArray<unknown> = [{ v: ["a"] }, { v: { k: 1 } }, { v: [] }, { v: {} }, { v: 2 }, { v: 3 }, { v: 0 }, { v: 1 }]
    const first = memo.call()
    stored.forEach((key, i) => first.get(key, () => `s${i}`))
    const probes: ReadonlyArray<unknown> = [{ v: 2 }, { v: 3 }, { v: 0 }, { v: 1 }, { v: ["a"] }, { v: { k: 1 } }, { v: [] }, { v: {} }]
    // Each probe is another stored key's content: it hits that key's value, never its position's.
    const again = memo.call()
    assert.deepStrictEqual(probes.map((key) => again.get(structuredClone(key), () => "miss")), ["s4", "s5", "s6", "s7", "s0", "s1", "s2", "s3"])
    const other = ContentMemo.make<string>()
    const one = other.call()
    stored.forEach((key, i) => one.get(key, () => `s${i}`))
    const swapped = other.call()
    assert.deepStrictEqual(
      [{ v: 2.5 }, { v: -0 }, { v: [2] }, { v: { k: 2 } }].map((key) => swapped.get(key, () => "miss")),
      ["miss", "s6", "miss", "miss"]
    )
  })
})

const session = chatProjection(Sessions.generate("tool-heavy", 40, 105))

describe("a count function's items are reused while it answers the same (design item 105)", () => {
  it("the same function over an agent loop gives what a new function of the same answers gives, at every call", async () => {
    const count = (message: OpenAIChat.Message): number => JSON.stringify(message).length >> 2
    for (let k = 5; k <= 40; k += 5) {
      const chat = toOpenAIChat(Sessions.historyAt(session, k))
      const options = { contextWindow: 4_000, outputReserve: 200 }
      const reused = await Trim.trim(chat, { ...options, count })
      const copies = await Trim.trim(fresh(chat), { ...options, count })
      const first = await Trim.trim(chat, { ...options, count: (m: OpenAIChat.Message) => count(m) })
      assert.deepStrictEqual(reused.report, first.report)
      assert.deepStrictEqual(copies.report, first.report)
      if (k === 40) assert.isAbove(first.report.dropped.length, 0)
    }
  })

  it("a function whose answer for a message changes: the new count is used, nothing made with the old one", async () => {
    const chat = toOpenAIChat(Sessions.historyAt(session, 20))
    let heavy = -1
    const count = (_: OpenAIChat.Message, index: number): number => (index === heavy ? 1_000 : 10)
    const options = { contextWindow: 1_200, outputReserve: 0, startOn: "any" as const, count }
    const before = await Trim.trim(chat, options)
    assert.deepStrictEqual(before.report.dropped, [])
    assert.strictEqual(before.report.tokens, 10 * chat.length)
    heavy = 1
    const after = await Trim.trim(chat, options)
    const expected = await Trim.trim(chat, { ...options, count: (m: OpenAIChat.Message, i: number) => count(m, i) })
    assert.deepStrictEqual(after.report, expected.report)
    assert.notDeepEqual(after.report, before.report)
  })

  it("trimModelMessages: the same function, the same objects and fresh copies, as a new function", async () => {
    const count = (message: unknown): number => JSON.stringify(message).length >> 2
    const model = toModelMessages(Sessions.historyAt(session, 30))
    const options = { contextWindow: 5_000, outputReserve: 200 }
    const expected = await Trim.trimModelMessages(model, { ...options, count: (m) => count(m) })
    for (const input of [model, model, fresh(model)]) {
      assert.deepStrictEqual((await Trim.trimModelMessages(input, { ...options, count })).report, expected.report)
    }
  })
})

describe("stripModelMessages (design item 106)", () => {
  it("messages without the library's marks are the step's own objects; the library's marks on parts are stripped, the caller's kept", () => {
    const messages = toModelMessages(Sessions.historyAt(session, 10))
    AiSdkCacheMarks.stripModelMessages(messages).forEach((message, i) => assert.strictEqual(message, messages[i]))
    const planner = CacheBreakpoints.anthropic({ minimumPrefix: 0 })
    const marked = AiSdkCacheMarks.markModelMessages(messages, { planner, tokens: { tools: 0, messages: messages.map(() => 2_000) } }).messages
    const changed = marked.flatMap((message, i) => (message === messages[i] ? [] : [i]))
    assert.isAbove(changed.length, 0)
    const stripped = AiSdkCacheMarks.stripModelMessages(marked)
    assert.deepStrictEqual(stripped, messages)
    stripped.forEach((message, i) => {
      if (!changed.includes(i)) assert.strictEqual(message, messages[i])
    })
  })
})

describe("markModelMessages on messages stripped already (design item 124)", () => {
  it("`stripped: true` on stripModelMessages' output marks as markModelMessages does on the messages themselves", () => {
    for (const steps of [3, 10, 25]) {
      const messages = toModelMessages(Sessions.historyAt(session, steps))
      // The caller's own mark on one message of four, the library's marks of an earlier step on the rest.
      const callers = messages.map((message, i) =>
        i % 4 === 1 ? { ...message, providerOptions: { ...message.providerOptions, anthropic: { cacheControl: { type: "ephemeral" } } } } : message
      )
      for (const planner of [CacheBreakpoints.anthropic({ minimumPrefix: 0 }), CacheBreakpoints.anthropic({ minimumPrefix: 4_096 })]) {
        const earlier = AiSdkCacheMarks.markModelMessages(callers, { planner, tokens: { tools: 0, messages: callers.map(() => 1_500) } }).messages
        for (const options of [
          { planner, tokens: { tools: 100, messages: earlier.map((_, i) => 500 + 37 * i) }, previousEnd: Math.floor(earlier.length / 2) },
          { planner, count: (text: string) => text.length >> 2 }
        ]) {
          const expected = AiSdkCacheMarks.markModelMessages(earlier, options)
          const actual = AiSdkCacheMarks.markModelMessages(AiSdkCacheMarks.stripModelMessages(earlier), { ...options, stripped: true })
          assert.deepStrictEqual(actual, expected)
        }
      }
    }
  })
})

describe("the AI SDK doors ask a caller's counter once a message (design item 106)", () => {
  for (const mode of ["stable", "per-call"] as const) {
    it(`prepareStep (${mode}): a step that appends two messages asks the counter for those two only, on the same objects and on fresh copies`, async () => {
      const asked: Array<string> = []
      const step = AiSdk.prepareStep({
        contextWindow: 1_000_000,
        outputReserve: 0,
        mode,
        counter: (text) => {
          asked.push(text)
          return Math.ceil(text.length / 4)
        }
      })
      const all = toModelMessages(Sessions.historyAt(session, 12))
      const first = all.slice(0, all.length - 2)
      await step({ messages: first })
      assert.isAtLeast(asked.length, first.length)
      asked.length = 0
      await step({ messages: all })
      assert.strictEqual(asked.length, 2)
      asked.length = 0
      await step({ messages: fresh(all) })
      assert.strictEqual(asked.length, 0)
    })
  }
})
