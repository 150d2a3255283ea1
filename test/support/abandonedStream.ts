/**
 * Run by test/adapters/AiSdkStream.test.ts in a child `node --expose-gc`: a streamed call whose
 * stream is read to its first part and then dropped (no cancel, no idle time: `"Infinity"`), the
 * garbage collector run until the call is settled; prints the reports' outcomes as JSON.
 */
import { wrapLanguageModel } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import * as AiSdk from "../../src/adapters/AiSdk.ts"

const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) throw new Error("run with node --expose-gc")
const cancelled: Array<unknown> = []
const reports: Array<AiSdk.Report> = []
const model = wrapLanguageModel({
  model: new MockLanguageModelV4({
    doStream: async () => ({
      stream: new ReadableStream({
        start(controller) {
          controller.enqueue({ type: "stream-start", warnings: [] })
          controller.enqueue({ type: "text-start", id: "t" })
        },
        cancel(reason) {
          cancelled.push(reason instanceof Error ? reason.message : String(reason))
        }
      })
    })
  }),
  middleware: AiSdk.middleware({
    contextWindow: 1_500,
    outputReserve: 200,
    counter: (text) => Math.ceil(text.length / 4),
    streamIdleTimeout: "Infinity",
    onReport: (r) => void reports.push(r)
  })
})

const abandon = async () => {
  const reader = (await model.doStream({ prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }] })).stream.getReader()
  await reader.read()
  // The reader and its stream are dropped here: never read to the end, never cancelled.
}
await abandon()
for (let i = 0; i < 50 && reports.length === 0; i++) {
  gc()
  await new Promise((resolve) => setTimeout(resolve, 20))
}
gc()
await new Promise((resolve) => setTimeout(resolve, 50))
console.log(JSON.stringify({
  outcomes: reports.map((r) => r.outcome),
  committed: reports.map((r) => r.committed),
  cancelled
}))
