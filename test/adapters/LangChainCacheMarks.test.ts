/**
 * The planner's Anthropic marks on LangChain messages (src/adapters/LangChainCacheMarks.ts;
 * docs/design.md item 100), checked on what `ChatAnthropic` (`@langchain/anthropic`) sends to the
 * fake endpoint: a marked copy puts `cache_control` on the message's last block on the wire and
 * changes nothing else of the request's bytes.
 */
import { ChatAnthropic } from "@langchain/anthropic"
import { assert, describe, it } from "@effect/vitest"
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages"
import * as fc from "fast-check"
import * as LangChainCacheMarks from "../../src/adapters/LangChainCacheMarks.ts"
import * as FakeAnthropic from "../support/fakeAnthropic.ts"
import { canonical, isRecord } from "../support/fakeProvider.ts"
import { toBaseMessages } from "../support/langchain.ts"
import { wireMarks } from "../support/langchainProviders.ts"
import { generate, historyAt, shapes } from "../support/sessions.ts"

const classes = { SystemMessage, HumanMessage, AIMessage, ToolMessage }

const list = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])

/** The wire's messages' blocks without their marks (a string content is one text block). */
const unmarkedBlocks = (body: Record<string, unknown>): Array<string> => {
  const out: Array<string> = [canonical(body["system"] === undefined ? null : stripAll(body["system"]))]
  for (const message of list(body["messages"])) {
    if (!isRecord(message)) continue
    const content = message["content"]
    const parts = typeof content === "string" ? [{ type: "text", text: content }] : list(content)
    parts.forEach((block, j) => out.push(canonical({ role: message["role"], opens: j === 0, block: stripMark(block) })))
  }
  return out
}
const stripMark = (block: unknown) => {
  if (!isRecord(block)) return block
  const { cache_control: _, ...rest } = block
  return rest
}
const stripAll = (system: unknown) => (typeof system === "string" ? [{ type: "text", text: system }] : list(system).map(stripMark))

/** What ChatAnthropic sends for these messages (the fake's recorded body). */
const sent = async (messages: ReadonlyArray<BaseMessage>): Promise<Record<string, unknown>> => {
  const fake = FakeAnthropic.make()
  const model = new ChatAnthropic({ model: "claude-sonnet-4-5", apiKey: "test", maxRetries: 0, clientOptions: { fetch: fake.fetch } })
  await model.invoke([...messages])
  const body = fake.calls[0]?.body
  if (!isRecord(body)) throw new Error("no request")
  return body
}

describe("LangChainCacheMarks.markedCopy", () => {
  it("a system or human message: the last text block carries the mark (a text content becomes one block)", () => {
    const human = LangChainCacheMarks.markedCopy(new HumanMessage("hello"), "5m", classes)
    assert.deepStrictEqual(human?.content, [{ type: "text", text: "hello", cache_control: { type: "ephemeral" } }])
    const system = LangChainCacheMarks.markedCopy(
      new SystemMessage({ content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] }),
      "1h",
      classes
    )
    assert.deepStrictEqual(system?.content, [{ type: "text", text: "a" }, { type: "text", text: "b", cache_control: { type: "ephemeral", ttl: "1h" } }])
    assert.isUndefined(LangChainCacheMarks.markedCopy(new HumanMessage(""), "5m", classes))
  })

  it("an AIMessage with text and tool calls: its tool calls written out as tool_use blocks, the last one marked", () => {
    const message = new AIMessage({
      content: "let me look",
      tool_calls: [{ id: "c1", name: "grep", args: { q: "x" }, type: "tool_call" }, { id: "c2", name: "ls", args: {}, type: "tool_call" }]
    })
    const copy = LangChainCacheMarks.markedCopy(message, "5m", classes)
    assert.deepStrictEqual(copy?.content, [
      { type: "text", text: "let me look" },
      { type: "tool_use", id: "c1", name: "grep", input: { q: "x" } },
      { type: "tool_use", id: "c2", name: "ls", input: {}, cache_control: { type: "ephemeral" } }
    ])
    assert.deepStrictEqual(AIMessage.isInstance(copy) ? copy.tool_calls?.map((c) => c.id) : [], ["c1", "c2"])
    // The agent's message is untouched.
    assert.strictEqual(message.content, "let me look")
  })

  it("an AIMessage whose content holds its tool_use blocks (an Anthropic answer): no block added, the last marked", () => {
    const message = new AIMessage({
      content: [{ type: "thinking", thinking: "hmm", signature: "s" }, { type: "tool_use", id: "c1", name: "grep", input: { q: "x" } }],
      tool_calls: [{ id: "c1", name: "grep", args: { q: "x" }, type: "tool_call" }]
    })
    const copy = LangChainCacheMarks.markedCopy(message, "5m", classes)
    assert.strictEqual(Array.isArray(copy?.content) ? copy.content.length : 0, 2)
    assert.deepStrictEqual(Array.isArray(copy?.content) ? copy.content[1] : undefined, {
      type: "tool_use",
      id: "c1",
      name: "grep",
      input: { q: "x" },
      cache_control: { type: "ephemeral" }
    })
  })

  it("a thinking block cannot carry a mark: an AIMessage of thinking only is not marked", () => {
    const message = new AIMessage({ content: [{ type: "thinking", thinking: "hmm", signature: "s" }] })
    assert.isUndefined(LangChainCacheMarks.markedCopy(message, "5m", classes))
  })

  it("a ToolMessage of text: a HumanMessage of its one tool_result block, marked; with images: not marked", () => {
    const copy = LangChainCacheMarks.markedCopy(new ToolMessage({ content: "found", tool_call_id: "c1", name: "grep" }), "5m", classes)
    assert.isTrue(HumanMessage.isInstance(copy))
    assert.deepStrictEqual(copy?.content, [{ type: "tool_result", tool_use_id: "c1", content: "found", cache_control: { type: "ephemeral" } }])
    const image = new ToolMessage({ content: [{ type: "image_url", image_url: "https://example.com/a.png" }], tool_call_id: "c1" })
    assert.isUndefined(LangChainCacheMarks.markedCopy(image, "5m", classes))
  })

  it("property: on generated sessions, marked copies change nothing of ChatAnthropic's request but the marks, each on a top-level block", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...shapes),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 2, max: 30 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
        async (shape, seed, at, picks) => {
          const session = generate(shape, 30, seed)
          const history = toBaseMessages(historyAt(session, Math.min(at, session.steps.length)))
          const chosen = new Set(picks.map((p) => p % history.length))
          let copies = 0
          const marked = history.map((message, i) => {
            if (!chosen.has(i)) return message
            const copy = LangChainCacheMarks.markedCopy(message, "5m", classes)
            if (copy !== undefined) copies++
            return copy ?? message
          })
          const plain = await sent(history)
          const withMarks = await sent(marked)
          assert.deepStrictEqual(unmarkedBlocks(withMarks), unmarkedBlocks(plain))
          const marks = wireMarks(withMarks)
          assert.strictEqual(marks.length, copies)
          assert.deepStrictEqual(marks.filter((m) => m.nested), [])
          assert.deepStrictEqual(wireMarks(plain), [])
        }
      ),
      { numRuns: 40, seed: 29 }
    )
  })
})
