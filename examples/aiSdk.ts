import { generateText, isStepCount, tool, wrapLanguageModel } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import { z } from "zod"
import * as AiSdk from "../src/adapters/AiSdk.ts"

// A tool whose answers are long: a few calls outgrow the window.
const searchDocs = tool({
  description: "Search the product documentation",
  inputSchema: z.object({ query: z.string() }),
  execute: async ({ query }) => `Results for "${query}": ${"the widget supports export, import and sync; ".repeat(40)}`
})

// A stand-in for your provider's model (no network): it thinks, searches twelve times, then answers.
export const scriptedModel = () => {
  let step = 0
  return new MockLanguageModelV4({
    doGenerate: async () => {
      step++
      return {
        content: step <= 12
          ? [
            { type: "reasoning", text: `Topic ${step} is not covered yet.` },
            { type: "tool-call", toolCallId: `call-${step}`, toolName: "searchDocs", input: JSON.stringify({ query: `widget topic ${step}` }) }
          ]
          : [{ type: "text", text: "The widget exports, imports and syncs." }],
        finishReason: { unified: step <= 12 ? "tool-calls" : "stop", raw: undefined },
        usage: {
          inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: undefined, text: undefined, reasoning: undefined }
        },
        warnings: []
      }
    }
  })
}

export const main = async () => {
  const provider = scriptedModel()
  const reports: Array<AiSdk.Report> = []
  // Every step's prompt is fitted first: a 4,000-token window with 500 kept for the answer,
  // counted offline with o200k_base (gpt-tokenizer). The window stays stable across steps: the
  // previous prompt and the new messages while they fit, one compaction when they do not.
  const model = wrapLanguageModel({
    model: provider,
    middleware: AiSdk.middleware({ contextWindow: 4_000, outputReserve: 500, onReport: (report) => reports.push(report) })
  })
  const result = await generateText({
    model,
    instructions: "You are a support agent. Search the docs before answering.",
    prompt: "What can the widget do?",
    tools: { searchDocs },
    stopWhen: isStepCount(20)
  })
  reports.forEach((report, i) =>
    console.log(
      `step ${String(i + 1).padStart(2)}: ${report.change!.action.padEnd(7)} ${report.prompt.length} of ${report.candidates} messages, ` +
        `${report.result.totalTokens} tokens; cache read ${report.prediction!.cachedTokens}`
    )
  )
  console.log(result.text)
  return { provider, reports, text: result.text }
}

await main()
