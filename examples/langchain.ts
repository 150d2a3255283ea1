import { BaseChatModel } from "@langchain/core/language_models/chat_models"
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages"
import type { ChatResult } from "@langchain/core/outputs"
import { createAgent, tool } from "langchain"
import { z } from "zod"
import * as LangChain from "../src/adapters/LangChain.ts"

// A tool whose answers are long: a few calls outgrow the window.
const searchDocs = tool(
  async ({ query }) => `Results for "${query}": ${"the widget supports export, import and sync; ".repeat(40)}`,
  { name: "searchDocs", description: "Search the product documentation", schema: z.object({ query: z.string() }) }
)

// A stand-in for your provider's chat model (no network): it thinks, searches twelve times, then
// answers, and keeps what it was sent.
export class ScriptedModel extends BaseChatModel {
  readonly requests: Array<Array<BaseMessage>> = []
  _llmType() {
    return "scripted"
  }
  override bindTools() {
    return this
  }
  async _generate(messages: Array<BaseMessage>): Promise<ChatResult> {
    this.requests.push(messages)
    const step = this.requests.length
    const message = step <= 12
      ? new AIMessage({
        content: [{ type: "thinking", thinking: `Topic ${step} is not covered yet.`, signature: "sig" }],
        tool_calls: [{ id: `call-${step}`, name: "searchDocs", args: { query: `widget topic ${step}` }, type: "tool_call" }]
      })
      : new AIMessage("The widget exports, imports and syncs.")
    return { generations: [{ text: message.text, message }] }
  }
}

export const main = async () => {
  const model = new ScriptedModel({})
  const reports: Array<LangChain.Report> = []
  // Every model call's messages are fitted first: a 4,000-token window with 500 kept for the
  // answer, counted offline with o200k_base (gpt-tokenizer). The window stays stable across the
  // thread's calls: the previous request and the new messages while they fit, one compaction
  // when they do not.
  const agent = createAgent({
    model,
    tools: [searchDocs],
    systemPrompt: "You are a support agent. Search the docs before answering.",
    middleware: [LangChain.middleware({ contextWindow: 4_000, outputReserve: 500, onReport: (report) => reports.push(report) })]
  })
  const result = await agent.invoke(
    { messages: [new HumanMessage("What can the widget do?")] },
    { configurable: { thread_id: "support-1" }, recursionLimit: 50 }
  )
  reports.forEach((report, i) =>
    console.log(
      `call ${String(i + 1).padStart(2)}: ${report.change!.action.padEnd(7)} ${report.prompt.length} of ${report.candidates} messages, ` +
        `${report.result.totalTokens} tokens; cache read ${report.prediction!.cachedTokens}`
    )
  )
  const answer = result.messages.at(-1)!.text
  console.log(answer)
  return { model, reports, answer }
}

await main()
