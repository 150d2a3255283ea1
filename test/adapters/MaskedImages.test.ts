/**
 * Rule X6 through the doors that send their caller's own message objects (docs/design.md item
 * 121): a user message whose screenshot a compaction masked is sent as the caller's message
 * with the image replaced by its stub — its other parts (a PDF beside the screenshot, with its
 * data), its provider options and its id as the caller made them — through the AI SDK
 * middleware, `prepareStep` and the LangChain middleware. The `effect/ai` form of a message
 * holds no file's data, so a message rebuilt from it would send the PDF as a line of text.
 */
import { assert, describe, it } from "@effect/vitest"
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages"
import { type ModelMessage, wrapLanguageModel } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import { createAgent } from "langchain"
import * as AiSdk from "../../src/adapters/AiSdk.ts"
import type * as AiSdkPrompt from "../../src/adapters/AiSdkPrompt.ts"
import * as LangChain from "../../src/adapters/LangChain.ts"
import { dataUrl, pdf, png } from "../support/mediaFixtures.ts"
import { ScriptedChatModel } from "../support/langchain.ts"

const quarter = (text: string) => Math.ceil(text.length / 4)
const options = { contextWindow: 20_000, outputReserve: 500, counter: quarter, maskToolResults: true } as const
const steps = 14

const screenshot = png(1280, 800, { pixels: false })
const report = pdf(1)
const stubPattern = /^\[cleared: the image of screenshot \(call (s\d+)\) \(image\/png, \d+ tokens\) was removed to save context/

const noUsage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined }
}

/** A computer-use agent's history in the provider prompt: each step a call, its result, and a user message with the screenshot and a PDF. */
const providerHistory = (): AiSdkPrompt.ProviderPrompt => {
  const out: Array<AiSdkPrompt.ProviderMessage> = [
    { role: "system", content: "be brief" },
    { role: "user", content: [{ type: "text", text: "use the computer" }] }
  ]
  for (let k = 0; k < steps; k++) {
    out.push(
      { role: "assistant", content: [{ type: "tool-call", toolCallId: `s${k}`, toolName: "screenshot", input: {} }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: `s${k}`, toolName: "screenshot", output: { type: "text", value: "taken" } }] },
      {
        role: "user",
        content: [
          { type: "text", text: `Screenshot from s${k}:` },
          { type: "file", mediaType: "image/png", data: { type: "data", data: screenshot } },
          { type: "file", mediaType: "application/pdf", filename: `page${k}.pdf`, data: { type: "data", data: report } }
        ],
        providerOptions: { test: { step: k } }
      }
    )
  }
  return out
}

/** The same history as `ModelMessage`s. */
const modelHistory = (): Array<ModelMessage> => {
  const out: Array<ModelMessage> = [
    { role: "system", content: "be brief" },
    { role: "user", content: "use the computer" }
  ]
  for (let k = 0; k < steps; k++) {
    out.push(
      { role: "assistant", content: [{ type: "tool-call", toolCallId: `s${k}`, toolName: "screenshot", input: {} }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: `s${k}`, toolName: "screenshot", output: { type: "text", value: "taken" } }] },
      {
        role: "user",
        content: [
          { type: "text", text: `Screenshot from s${k}:` },
          { type: "image", image: screenshot, mediaType: "image/png" },
          { type: "file", mediaType: "application/pdf", filename: `page${k}.pdf`, data: report }
        ],
        providerOptions: { test: { step: k } }
      }
    )
  }
  return out
}

/** The history's prefixes that end on a user message: one call each. */
const callsOf = <M extends { readonly role: string }>(history: ReadonlyArray<M>): Array<ReadonlyArray<M>> =>
  history.flatMap((m, i) => (i >= 2 && m.role === "user" ? [history.slice(0, i + 1)] : []))

describe("a masked screenshot is sent as the caller's message, its other parts kept", () => {
  it("the AI SDK middleware: the image's part replaced by its stub, the PDF and the provider options the caller's", async () => {
    const model = new MockLanguageModelV4({
      doGenerate: async () => ({ content: [{ type: "text", text: "ok" }], finishReason: { unified: "stop", raw: undefined }, usage: noUsage, warnings: [] })
    })
    const wrapped = wrapLanguageModel({ model, middleware: AiSdk.middleware(options) })
    const history = providerHistory()
    let masked = 0
    for (const prompt of callsOf(history)) {
      await wrapped.doGenerate({ prompt: [...prompt] })
      const sent = model.doGenerateCalls.at(-1)!.prompt
      for (const message of sent) {
        if (message.role !== "user" || message.content.length !== 3) continue
        const original = history.find((m) => m.role === "user" && m.providerOptions?.["test"]?.["step"] === message.providerOptions?.["test"]?.["step"])
        assert.isDefined(original)
        const [text, image, file] = message.content
        assert.deepStrictEqual(text, original!.role === "user" ? original!.content[0] : undefined)
        assert.deepStrictEqual(file, original!.role === "user" ? original!.content[2] : undefined)
        if (image?.type === "text") {
          assert.match(image.text, stubPattern)
          masked++
        } else assert.strictEqual(image, original!.role === "user" ? original!.content[1] : undefined)
      }
      // The newest screenshot (the current turn) is never masked.
      const newest = sent.at(-1)!
      assert.isTrue(newest.role === "user" && newest.content[1]?.type === "file")
    }
    assert.isAbove(masked, 5)
  })

  it("prepareStep: the same, on the step's ModelMessages", async () => {
    const step = AiSdk.prepareStep(options)
    const history = modelHistory()
    let masked = 0
    for (const messages of callsOf(history)) {
      const { messages: sent } = await step({ messages: [...messages] })
      for (const message of sent) {
        if (message.role !== "user" || typeof message.content === "string") continue
        const original = history.find((m) => m.role === "user" && m.providerOptions?.["test"]?.["step"] === message.providerOptions?.["test"]?.["step"])
        if (original === undefined || original.role !== "user" || typeof original.content === "string") continue
        assert.strictEqual(message.content.length, 3)
        assert.strictEqual(message.content[0], original.content[0])
        assert.strictEqual(message.content[2], original.content[2])
        const image = message.content[1]!
        if (image.type === "text") {
          assert.match(image.text, stubPattern)
          masked++
        } else assert.strictEqual(image, original.content[1])
      }
    }
    assert.isAbove(masked, 5)
  })

  it("the LangChain middleware: the HumanMessage's image block replaced by its stub's text block, its PDF block and id the caller's", async () => {
    const model = new ScriptedChatModel({ answer: () => new AIMessage({ content: "ok" }) })
    const agent = createAgent({ model, tools: [], systemPrompt: "be brief", middleware: [LangChain.middleware(options)] })
    const history: Array<BaseMessage> = [new HumanMessage({ content: "use the computer" })]
    for (let k = 0; k < steps; k++) {
      history.push(
        new AIMessage({ content: "", tool_calls: [{ id: `s${k}`, name: "screenshot", args: {}, type: "tool_call" }] }),
        new ToolMessage({ content: "taken", tool_call_id: `s${k}`, name: "screenshot" }),
        new HumanMessage({
          id: `shot-${k}`,
          content: [
            { type: "text", text: `Screenshot from s${k}:` },
            { type: "image_url", image_url: { url: dataUrl("image/png", screenshot) } },
            { type: "file", mimeType: "application/pdf", data: Buffer.from(report).toString("base64"), source_type: "base64" }
          ]
        })
      )
    }
    let masked = 0
    const calls = history.flatMap((m, i) => (i >= 1 && m.type === "human" ? [history.slice(0, i + 1)] : []))
    for (const messages of calls) {
      await agent.invoke({ messages: [...messages] }, { configurable: { thread_id: "screens" } })
      const sent = model.requests.at(-1)!
      for (const message of sent) {
        if (message.type !== "human" || typeof message.content === "string") continue
        const original = history.find((m) => m.id !== undefined && m.id === message.id)
        if (original === undefined || typeof original.content === "string") continue
        assert.strictEqual(message.content.length, 3)
        assert.deepStrictEqual(message.content[0], original.content[0])
        assert.deepStrictEqual(message.content[2], original.content[2])
        const image = message.content[1]!
        if (image.type === "text" && "text" in image && typeof image.text === "string") {
          assert.match(image.text, stubPattern)
          masked++
        } else assert.deepStrictEqual(image, original.content[1])
      }
    }
    assert.isAbove(masked, 5)
  })
})
