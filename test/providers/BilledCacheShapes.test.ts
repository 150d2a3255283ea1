/**
 * Issue 26's "done when", on every session shape of the bench (tool-heavy, chatty, retrieval,
 * mixed: test/support/sessions.ts, seed 18) at 32k and 128k (4,096 reserved), through both
 * doors — `AiSdk.middleware` around the real clients, and `WindowedLanguageModel.layer` over a
 * test-only `effect/ai` `LanguageModel` that sends through the same clients
 * (test/support/aiSdkLanguageModel.ts) — to the fake endpoints applying each provider's cache
 * rules (docs/providers.md). Default options.
 *
 * Steady state: the calls from the 15th on (the first ones write the cache). The sessions are
 * 100 calls at 32k (several compactions each) and 40 at 128k (appends only: a 128k window
 * compacts after ~150 calls of these shapes, and the compaction's bill is measured at 32k) —
 * lengths chosen to keep the providers folder well under a minute. OpenAI is billed through the
 * AI SDK door only (test/providers/BilledCacheOpenAI.test.ts): the `effect/ai` door sends it
 * nothing of its own (its `prompt_cache_key` is the provider layer's configuration). The AI SDK door sends the
 * session generator's six tool definitions (about 1,500 tokens, as an agent would); the
 * `effect/ai` door sends none (its replay has no toolkit), so both boundaries' cases are
 * billed.
 */
import { assert, describe, it } from "@effect/vitest"
import * as BilledSession from "../support/billedSession.ts"
import { generate, shapes } from "../support/sessions.ts"

const outputReserve = BilledSession.shapeReplays.outputReserve

const { viaMiddleware, viaLayer } = BilledSession.shapeReplays

describe("billed cache on every session shape, both doors (issue 26: done when)", () => {
  for (const shape of shapes) {
    for (const contextWindow of [32_000, 128_000] as const) {
      for (const [door, replay] of [["AI SDK middleware", viaMiddleware], ["effect/ai layer", viaLayer]] as const) {
        it(`Anthropic, ${shape} at ${contextWindow / 1000}k, ${door}: billed read ≥ 0.90, cost ≤ 0.20×, within 1 point of the prediction, ≤ 4 marks`, async () => {
          const m = await replay(shape, contextWindow, "anthropic")
          console.log(BilledSession.describe(`anthropic ${shape} ${contextWindow / 1000}k ${door}`, m))
          assert.isAtMost(m.maxMarks, 4)
          assert.isAtLeast(m.billed.readShare, 0.9)
          assert.isAtMost(m.billed.costRatio, 0.2)
          assert.approximately(m.billed.readShare, m.predicted.readShare, 0.01)
        })
      }
    }
  }

  it("effect/ai layer: a conversation alternating generateText and streamText keeps its prefix (Anthropic, tool-heavy at 32k)", async () => {
    const m = await BilledSession.replayEffect({
      session: generate("tool-heavy", 60, 18),
      provider: "anthropic",
      contextWindow: 32_000,
      outputReserve,
      steadyFrom: 10,
      streamEvery: 2
    })
    console.log(BilledSession.describe("anthropic tool-heavy 32k effect/ai, generate/stream alternating", m))
    assert.isAtLeast(m.billed.readShare, 0.9)
    assert.approximately(m.billed.readShare, m.predicted.readShare, 0.01)
  })
})
