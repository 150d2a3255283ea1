/**
 * LangChainPrompt: LangChain messages as an effect/ai Prompt and back (docs/design.md item 97).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Messages from "@langchain/core/messages"
import { AIMessage, ChatMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage } from "@langchain/core/messages"
import * as fc from "fast-check"
import * as LangChainPrompt from "../../src/adapters/LangChainPrompt.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import { toBaseMessages } from "../support/langchain.ts"
import { withReasoning } from "../support/sessionFormats.ts"
import { generate, historyAt } from "../support/sessions.ts"

const convert = (messages: ReadonlyArray<Messages.BaseMessage>) => LangChainPrompt.convert(messages).prompt.content

describe("LangChainPrompt", () => {
  it("kinds: system and developer are system, human is user, ai is assistant, tool is tool, a ChatMessage by its role", () => {
    const out = convert([
      new SystemMessage("s"),
      new ChatMessage({ content: "d", role: "developer" }),
      new HumanMessage("h"),
      new ChatMessage({ content: "u", role: "user" }),
      new AIMessage("a"),
      new ChatMessage({ content: "b", role: "assistant" })
    ])
    assert.deepStrictEqual(out.map((m) => m.role), ["system", "system", "user", "user", "assistant", "assistant"])
  })

  it("a message of another type is refused", () => {
    assert.throws(() => convert([new RemoveMessage({ id: "x" })]), /not a system, human, ai or tool message/)
  })

  it("an AIMessage's tool calls are its tool_calls; its tool_use blocks are not read again", () => {
    const [message] = convert([
      new AIMessage({
        content: [{ type: "text", text: "let me look" }, { type: "tool_use", id: "c1", name: "search", input: { q: "x" } }],
        tool_calls: [{ id: "c1", name: "search", args: { q: "x" }, type: "tool_call" }]
      })
    ])
    assert.strictEqual(message!.role, "assistant")
    const parts = message!.role === "assistant" ? message!.content : []
    assert.deepStrictEqual(parts.map((p) => p.type), ["text", "tool-call"])
  })

  it("thinking, reasoning and redacted_thinking blocks are reasoning parts of their AIMessage", () => {
    const [message] = convert([
      new AIMessage({
        content: [
          { type: "thinking", thinking: "first", signature: "s" },
          { type: "reasoning", reasoning: "second" },
          { type: "redacted_thinking", data: "xyz" }
        ],
        tool_calls: [{ id: "c1", name: "search", args: {}, type: "tool_call" }]
      })
    ])
    const parts = message!.role === "assistant" ? message!.content : []
    assert.deepStrictEqual(parts.map((p) => p.type), ["reasoning", "reasoning", "reasoning", "tool-call"])
    assert.deepStrictEqual(parts.flatMap((p) => (p.type === "reasoning" ? [p.text] : [])), ["first", "second", "xyz"])
  })

  it("a tool call without an id gets one from its place", () => {
    const [message] = convert([new AIMessage({ content: "", tool_calls: [{ name: "search", args: {}, type: "tool_call" }] })])
    const parts = message!.role === "assistant" ? message!.content : []
    assert.deepStrictEqual(parts.flatMap((p) => (p.type === "tool-call" ? [p.id] : [])), ["lc_call_0_0"])
  })

  it("a ToolMessage is a result of its call, named by the call when it has no name, a failure when its status is error", () => {
    const out = convert([
      new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "search", args: {}, type: "tool_call" }] }),
      new ToolMessage({ content: "boom", tool_call_id: "c1", status: "error" })
    ])
    const part = out[1]!.role === "tool" ? out[1]!.content[0] : undefined
    assert.isTrue(part !== undefined && part.type === "tool-result")
    if (part?.type === "tool-result") {
      assert.strictEqual(part.id, "c1")
      assert.strictEqual(part.name, "search")
      assert.isTrue(part.isFailure)
      assert.strictEqual(part.result, "boom")
    }
  })

  it("a human message's image is a file part, measured from its data URL", () => {
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    const [message] = convert([
      new HumanMessage({ content: [{ type: "text", text: "look" }, { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } }] })
    ])
    const parts = message!.role === "user" ? message!.content : []
    assert.deepStrictEqual(parts.map((p) => p.type), ["text", "file"])
    const file = parts[1]
    assert.isTrue(file?.type === "file" && file.mediaType === "image/png")
  })

  it("back gives the original objects, and makes the window's own messages with the classes given", () => {
    const messages = [new SystemMessage("s"), new HumanMessage("h"), new AIMessage("a")]
    const converted = LangChainPrompt.convert(messages)
    const back = converted.back(converted.prompt, Messages)
    assert.deepStrictEqual(back, messages)
    back.forEach((m, i) => assert.strictEqual(m, messages[i]))
  })

  it("the memo: the same object converts to the same effect/ai message; one changed in place, or twice in a history, anew", () => {
    const memo = LangChainPrompt.makeMessageMemo()
    const human = new HumanMessage("h")
    const first = LangChainPrompt.convert([human], memo).prompt.content[0]
    assert.strictEqual(LangChainPrompt.convert([human], memo).prompt.content[0], first)
    const twice = LangChainPrompt.convert([human, human], memo).prompt.content
    assert.notStrictEqual(twice[0], twice[1])
    human.content = "changed"
    const after = LangChainPrompt.convert([human], memo).prompt.content[0]
    assert.notStrictEqual(after, first)
    assert.strictEqual(PromptWindow.render(after!), PromptWindow.render(convert([new HumanMessage("changed")])[0]!))
  })

  it("property: generated sessions convert one message each, tool calls and results paired, and back to themselves", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 5, max: 60 }), (seed, steps) => {
        const session = withReasoning(generate("mixed", steps, seed), 0.5)
        const messages = toBaseMessages(historyAt(session, steps))
        const converted = LangChainPrompt.convert(messages)
        assert.strictEqual(converted.prompt.content.length, messages.length)
        assert.deepStrictEqual(PromptWindow.orphans(converted.prompt), [])
        const back = converted.back(converted.prompt, Messages)
        back.forEach((m, i) => assert.strictEqual(m, messages[i]))
      }),
      { numRuns: 25, seed: 29 }
    )
  })
})
