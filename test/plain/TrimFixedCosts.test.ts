// docs/design.md item 130: trim's fixed costs cut — counts by position for the doors' own
// conversions, one conversion closure and tool key a call, kept indices marked in an array.
import { assert, describe, it } from "@effect/vitest"
import * as OpenAIChat from "../../src/plain/OpenAIChat.ts"
import * as Trim from "../../src/plain/Trim.ts"
import { chatProjection, toOpenAIChat } from "../support/sessionFormats.ts"
import * as Sessions from "../support/sessions.ts"

const session = chatProjection(Sessions.generate("tool-heavy", 80, 31))
const chat: ReadonlyArray<OpenAIChat.Message> = toOpenAIChat(Sessions.historyAt(session, 80))
const options = { contextWindow: 6_000, outputReserve: 500 }
const lengthCount = (m: OpenAIChat.Message): number => Math.ceil(JSON.stringify(m).length / 4) + 3

describe("trim's counts by position (design 130)", () => {
  it("a count function whose answers changed is not given the items made with its old answers", async () => {
    let scale = 1
    const count = (m: OpenAIChat.Message): number => lengthCount(m) * scale
    await Trim.trim(chat, { ...options, count })
    scale = 2
    const changed = await Trim.trim(chat, { ...options, count })
    // A function of its own with the new answers: nothing remembered.
    const fresh = await Trim.trim(chat, { ...options, count: (m: OpenAIChat.Message) => lengthCount(m) * 2 })
    assert.deepStrictEqual(changed.report, fresh.report)
    assert.deepStrictEqual(changed.messages, fresh.messages)
  })

  it("every message of a long prompt is counted by its own position, near the end or not", async () => {
    assert.isAbove(chat.length, 64)
    const count = (_m: OpenAIChat.Message, i: number): number => 5 + (i % 7)
    const { messages, report } = await Trim.trim(chat, { contextWindow: 100_000, count })
    assert.deepStrictEqual(report.dropped, [])
    assert.strictEqual(messages.length, chat.length)
    assert.strictEqual(report.tokens, chat.reduce((sum, _m, i) => sum + 5 + (i % 7), 0))
  })

  it("a warm call that appends messages counts them at their positions and reports as a fresh function does", async () => {
    const count = (m: OpenAIChat.Message, i: number): number => lengthCount(m) + (i % 3)
    for (const k of [40, 60, 80]) {
      const input = toOpenAIChat(Sessions.historyAt(session, k))
      const warm = await Trim.trim(input, { ...options, count })
      const cold = await Trim.trim(input, { ...options, count: (m: OpenAIChat.Message, i: number) => lengthCount(m) + (i % 3) })
      assert.deepStrictEqual(warm.report, cold.report)
      assert.deepStrictEqual(warm.messages, cold.messages)
    }
  })

  it("a throwing count is named by its message's index", async () => {
    const count = (_m: OpenAIChat.Message, i: number): number => {
      if (i === 50) throw new Error("no")
      return 5
    }
    const error: unknown = await Trim.trim(chat, { ...options, count }).then(() => undefined, (e: unknown) => e)
    assert.deepInclude(error, { _tag: "CandidateError", index: 50, field: "count" })
  })
})
