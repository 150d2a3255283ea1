import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as OpenAIChat from "../../src/plain/OpenAIChat.ts"

describe("OpenAIChat", () => {
  it.effect("each role becomes its prompt message, one for one", () =>
    Effect.gen(function*() {
      const messages = yield* OpenAIChat.decode([
        { role: "system", content: "be terse" },
        { role: "developer", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] },
        { role: "user", content: "hi" },
        { role: "assistant", content: "hello" },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{\"dir\":\"/\"}" } }] },
        { role: "tool", tool_call_id: "c1", content: "a.txt" }
      ])
      const prompt = OpenAIChat.toPromptMessages(messages)
      assert.deepStrictEqual(prompt.map((m) => m.role), ["system", "system", "user", "assistant", "assistant", "tool"])
      assert.strictEqual(prompt[1]!.content, "a\nb")
      const call = prompt[4]!
      assert(call.role === "assistant")
      const part = call.content[0]!
      assert(part.type === "tool-call")
      assert.deepStrictEqual([part.id, part.name, part.params], ["c1", "ls", { dir: "/" }])
      const result = prompt[5]!
      assert(result.role === "tool")
      const resultPart = result.content[0]!
      assert(resultPart.type === "tool-result")
      assert.deepStrictEqual([resultPart.id, resultPart.name, resultPart.result], ["c1", "ls", "a.txt"])
    }))

  it.effect("tool call arguments that are not JSON are kept as the string; a result without its call is named unknown", () =>
    Effect.gen(function*() {
      const messages = yield* OpenAIChat.decode([
        { role: "assistant", tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "not json" } }] },
        { role: "tool", tool_call_id: "other", content: [{ type: "text", text: "x" }] }
      ])
      const [call, result] = OpenAIChat.toPromptMessages(messages)
      assert(call?.role === "assistant" && call.content[0]?.type === "tool-call")
      assert.strictEqual(call.content[0].params, "not json")
      assert(result?.role === "tool" && result.content[0]?.type === "tool-result")
      assert.strictEqual(result.content[0].name, "unknown")
    }))

  it.effect("content parts: text, image_url (a data URL's media type), input_audio, file; refusals as text", () =>
    Effect.gen(function*() {
      const messages = yield* OpenAIChat.decode([
        {
          role: "user",
          content: [
            { type: "text", text: "look" },
            { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
            { type: "image_url", image_url: { url: "https://x/y.jpg", detail: "low" } },
            { type: "input_audio", input_audio: { data: "AAAA", format: "wav" } },
            { type: "file", file: { file_id: "f1", filename: "a.pdf" } }
          ]
        },
        { role: "assistant", content: [{ type: "refusal", refusal: "no" }] }
      ])
      const [user, assistant] = OpenAIChat.toPromptMessages(messages)
      assert(user?.role === "user")
      assert.deepStrictEqual(
        user.content.map((p) => (p.type === "file" ? p.mediaType : p.text)),
        ["look", "image/png", "image/*", "audio/wav", "application/octet-stream"]
      )
      assert(assistant?.role === "assistant" && assistant.content[0]?.type === "text")
      assert.strictEqual(assistant.content[0].text, "no")
    }))

  it.effect("a malformed message fails with InvalidInput naming its index and field", () =>
    Effect.gen(function*() {
      const badRole = yield* Effect.flip(OpenAIChat.decode([{ role: "user", content: "a" }, { role: "bot", content: "b" }]))
      assert.deepStrictEqual([badRole._tag, badRole.index, badRole.field], ["InvalidInput", 1, "role"])
      const badPart = yield* Effect.flip(OpenAIChat.decode([{ role: "user", content: [{ type: "text", text: 5 }] }]))
      assert.deepStrictEqual([badPart.index, badPart.field], [0, "content[0].text"])
      const badTool = yield* Effect.flip(OpenAIChat.decode([{ role: "tool", content: "x" }]))
      assert.deepStrictEqual([badTool.index, badTool.field], [0, "tool_call_id"])
      assert.match(badTool.message, /^message 0: tool_call_id /)
      const notArray = yield* Effect.flip(OpenAIChat.decode({ role: "user" }))
      assert.deepStrictEqual([notArray.index, notArray.field], [undefined, "messages"])
    }))
})
