/**
 * An AI SDK mock model (`MockLanguageModelV4`) whose every `doGenerate` answers with one text and
 * reports no usage: for tests of what the middleware sends or refuses, not of what it records.
 */
import { MockLanguageModelV4 } from "ai/test"

export const textModel = (text: string): MockLanguageModelV4 =>
  new MockLanguageModelV4({
    doGenerate: async () => ({
      content: [{ type: "text" as const, text }],
      finishReason: { unified: "stop" as const, raw: undefined },
      usage: {
        inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: undefined, text: undefined, reasoning: undefined }
      },
      warnings: []
    })
  })
