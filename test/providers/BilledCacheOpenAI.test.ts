/**
 * Issue 26's "done when" for OpenAI: every session shape of the bench at 32k and 128k through
 * `AiSdk.middleware` around the real `@ai-sdk/openai` client (Chat Completions) and the fake
 * endpoint, default options: billed read ≥ 0.90, every request carrying the conversation's one
 * hashed `prompt_cache_key`. The sessions and steady state: `BilledSession.shapeReplays`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as BilledSession from "../support/billedSession.ts"
import { shapes } from "../support/sessions.ts"

const { viaMiddleware } = BilledSession.shapeReplays
describe("billed cache on every session shape, OpenAI (issue 26: done when)", () => {
  for (const shape of shapes) {
    for (const contextWindow of [32_000, 128_000] as const) {
      it(`OpenAI Chat, ${shape} at ${contextWindow / 1000}k, AI SDK middleware: billed read ≥ 0.90, one prompt_cache_key`, async () => {
        const m = await viaMiddleware(shape, contextWindow, "openai-chat")
        console.log(BilledSession.describe(`openai-chat ${shape} ${contextWindow / 1000}k`, m))
        assert.isAtLeast(m.billed.readShare, 0.9)
        assert.strictEqual(m.promptCacheKeys.size, 1)
      })
    }
  }
})
