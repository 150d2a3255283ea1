/**
 * Issue 26's table, measured on the code before the wiring: a generated tool-heavy session (150
 * calls, seed 18, at 32k with 4,096 reserved, 5 s apart — the session bench's settings) through
 * `AiSdk.middleware` (stable mode, with `promptCache: false`: the calls as the SDK makes them,
 * which is what every call sent before the library's cache plan was wired — the default since)
 * wrapped around the real provider clients,
 * whose `fetch` is a fake endpoint applying each provider's documented cache rules
 * (docs/providers.md). Billed (the fake's usage) beside predicted (the middleware's reports).
 *
 * The figures are printed and asserted loosely, as today's facts: the middleware places no
 * Anthropic mark, so nothing is billed as read; a caller's mark on the last message brings the
 * bill to the prediction; the planner (`CacheBreakpoints` + `AiSdkCacheMarks`), wired here by a
 * test middleware that knows the previous request as the session core will, does at least as
 * well; OpenAI's automatic caching bills what is predicted. The acceptance test of the wired
 * library is test/providers/BilledCache.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import type { LanguageModelMiddleware } from "ai"
import { countTokens } from "gpt-tokenizer/encoding/o200k_base"
import * as AiSdk from "../../src/adapters/AiSdk.ts"
import * as AiSdkCacheMarks from "../../src/adapters/AiSdkCacheMarks.ts"
import type * as AiSdkPrompt from "../../src/adapters/AiSdkPrompt.ts"
import * as CacheBreakpoints from "../../src/ai/CacheBreakpoints.ts"
import * as CacheModel from "../../src/ai/CacheModel.ts"
import * as BilledSession from "../support/billedSession.ts"
import { generate } from "../support/sessions.ts"

const session = generate("tool-heavy", 150, 18)
const settings = { contextWindow: 32_000, outputReserve: 4096 } as const

const middleware = (reports: Array<AiSdk.Report>, extra: Partial<AiSdk.Options> = {}) =>
  AiSdk.middleware({ ...settings, promptCache: false, ...extra, onReport: (report) => void reports.push(report) })

/** A caller who marks the last message of every request by hand (a fresh copy: no pile-up). */
const markLast = (prompt: AiSdkPrompt.ProviderPrompt): AiSdkPrompt.ProviderPrompt => {
  const last = prompt.at(-1)
  if (last === undefined) return prompt
  return [...prompt.slice(0, -1), { ...last, providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } } }]
}

/**
 * The planner as the session core will call it, simulated: the previous request's end is the
 * previous prompt when this one starts with it (the same message objects), else unknown.
 */
const plannedMarks = (): LanguageModelMiddleware => {
  let previous: AiSdkPrompt.ProviderPrompt | undefined
  const planner: CacheBreakpoints.Planner = {
    provider: "anthropic",
    plan: (window) =>
      CacheBreakpoints.plan({ blocks: window.blocks, boundaries: window.boundaries, minimumPrefix: CacheBreakpoints.anthropicMinimumPrefix(window.model) }),
    settings: () => ({})
  }
  return {
    specificationVersion: "v4",
    transformParams: async ({ params }) => {
      const prompt = AiSdkCacheMarks.strip(params.prompt)
      const previousEnd = previous !== undefined && previous.length <= prompt.length && previous.every((m, i) => m === prompt[i])
        ? previous.length
        : undefined
      previous = prompt
      return AiSdkCacheMarks.markCall(params, { planner, count: countTokens, previousEnd, model: "claude-sonnet-4-5" }).call
    }
  }
}

const gpt41 = new CacheModel.CacheRule({ ...CacheModel.OpenAI, name: "openai-gpt-4.1", readPrice: BilledSession.openAIReadPrice })

describe("billed cache, measured on today's code (issue 26's table)", () => {
  it("Anthropic, AI SDK middleware: nothing billed as read (no request carries a mark)", async () => {
    const reports: Array<AiSdk.Report> = []
    const m = await BilledSession.replay({ session, provider: "anthropic", middlewares: [middleware(reports)], reports })
    console.log(BilledSession.describe("anthropic, middleware", m))
    assert.strictEqual(m.maxMarks, 0)
    assert.strictEqual(m.billed.readShare, 0)
    assert.isAbove(m.billed.costRatio, 0.99)
    assert.isAbove(m.predicted.readShare, 0.85, "the prediction assumes a mark at every request's end")
  })

  it("Anthropic, middleware + a mark on the last message by hand: billed ≈ predicted", async () => {
    const reports: Array<AiSdk.Report> = []
    const m = await BilledSession.replay({ session, provider: "anthropic", middlewares: [middleware(reports)], reports, prepare: markLast })
    console.log(BilledSession.describe("anthropic, middleware + hand mark", m))
    assert.strictEqual(m.maxMarks, 1)
    assert.approximately(m.billed.readShare, m.predicted.readShare, 0.02)
    assert.approximately(m.billed.costRatio, m.predicted.costRatio, 0.03)
  })

  it("Anthropic, middleware + the planner (wired by a test middleware): billed ≥ predicted − 1 point, ≤ 4 marks", async () => {
    const reports: Array<AiSdk.Report> = []
    const m = await BilledSession.replay({ session, provider: "anthropic", middlewares: [middleware(reports), plannedMarks()], reports })
    console.log(BilledSession.describe("anthropic, middleware + planner", m))
    assert.isAtMost(m.maxMarks, 4)
    assert.isAtLeast(m.billed.readShare, m.predicted.readShare - 0.01)
    assert.isAtLeast(m.billed.readShare, 0.9)
    assert.isAtMost(m.billed.costRatio, 0.2)
  })

  it("Anthropic with six tool definitions: the planner's tools-and-system mark keeps them read across compactions", async () => {
    const hand: Array<AiSdk.Report> = []
    const byHand = await BilledSession.replay({
      session,
      provider: "anthropic",
      middlewares: [middleware(hand)],
      reports: hand,
      prepare: markLast,
      tools: BilledSession.sessionTools
    })
    console.log(BilledSession.describe("anthropic + tools, middleware + hand mark", byHand))
    const planned: Array<AiSdk.Report> = []
    const byPlanner = await BilledSession.replay({
      session,
      provider: "anthropic",
      middlewares: [middleware(planned), plannedMarks()],
      reports: planned,
      tools: BilledSession.sessionTools
    })
    console.log(BilledSession.describe("anthropic + tools, middleware + planner", byPlanner))
    assert.isAtMost(byPlanner.maxMarks, 4)
    assert.isAtLeast(byPlanner.maxMarks, 2)
    assert.isAbove(byPlanner.billed.readShare, byHand.billed.readShare)
    assert.isBelow(byPlanner.billed.costRatio, byHand.billed.costRatio)
  })

  for (const provider of ["openai-chat", "openai-responses"] as const) {
    it(`OpenAI (${provider}), AI SDK middleware: automatic caching bills what is predicted`, async () => {
      const reports: Array<AiSdk.Report> = []
      const m = await BilledSession.replay({ session, provider, middlewares: [middleware(reports, { cacheRule: gpt41 })], reports })
      console.log(BilledSession.describe(`${provider}, middleware`, m))
      assert.approximately(m.billed.readShare, m.predicted.readShare, 0.03)
      assert.isAbove(m.billed.readShare, 0.85)
    })
  }
})
