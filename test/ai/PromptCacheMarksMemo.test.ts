/**
 * `PromptCacheMarks.mark` with a caller's memo (docs/design.md item 124): the blocks of the
 * messages a prompt shares with the caller's last one — the same objects at the same positions,
 * counted the same, after the same tool definitions — are the last one's. Checked against
 * `mark` without a memo on generated sequences of prompts: histories grown, rewritten, recounted,
 * with and without tools, with the caller's own marks and the library's earlier ones.
 */
import { assert, describe, it } from "@effect/vitest"
import { Prompt } from "effect/ai"
import * as fc from "fast-check"
import * as CacheBreakpoints from "../../src/ai/CacheBreakpoints.ts"
import type * as CachePlan from "../../src/ai/CachePlan.ts"
import * as PromptCacheMarks from "../../src/ai/PromptCacheMarks.ts"

/** A pool of messages: the same number is the same object; some carry the caller's mark. */
const pool: ReadonlyArray<Prompt.Message> = Array.from({ length: 30 }, (_, k) => {
  const options = k % 7 === 3 ? { anthropic: { cacheControl: { type: "ephemeral" } } } : {}
  if (k === 0) return Prompt.systemMessage({ content: "system", options })
  if (k % 3 === 1) return Prompt.userMessage({ content: [Prompt.textPart({ text: `question ${k}` })], options })
  if (k % 3 === 2) {
    return Prompt.assistantMessage({
      content: [Prompt.textPart({ text: `answer ${k}` }), Prompt.textPart({ text: "", options }), Prompt.textPart({ text: `more ${k}` })],
      options
    })
  }
  return Prompt.toolMessage({
    content: [Prompt.toolResultPart({ id: `c${k}`, name: "f", isFailure: false, result: k, providerExecuted: false })],
    options
  })
})

const calls = fc.array(
  fc.record({
    ids: fc.array(fc.nat({ max: 29 }), { minLength: 1, maxLength: 25 }),
    grow: fc.boolean(),
    tokens: fc.array(fc.integer({ min: 0, max: 3_000 }), { minLength: 25, maxLength: 25 }),
    toolTokens: fc.constantFrom(0, 0, 500),
    previousEnd: fc.option(fc.nat({ max: 25 }), { nil: undefined })
  }),
  { minLength: 1, maxLength: 12 }
)

describe("PromptCacheMarks.mark with a memo (design item 124)", () => {
  it("marks every prompt of a sequence as it marks it alone", () =>
    fc.assert(
      fc.property(calls, (sequence) => {
        const memo = PromptCacheMarks.makeMemo()
        let ids: Array<number> = [0]
        let tokens: Array<number> = []
        for (const call of sequence) {
          // Most calls continue the last prompt with the same counts; others rewrite either.
          ids = call.grow ? [...ids, ...call.ids].slice(0, 25) : [0, ...call.ids]
          tokens = call.grow ? tokens.slice(0, ids.length).concat(call.tokens.slice(tokens.length, ids.length)) : call.tokens.slice(0, ids.length)
          const prompt = Prompt.fromMessages(ids.map((id) => pool[id]!))
          const cache: CachePlan.CachePlan = {
            conversationKey: "k",
            systemEnd: 1,
            compacted: undefined,
            previousEnd: call.previousEnd,
            messageTokens: tokens,
            toolTokens: call.toolTokens,
            options: {}
          }
          const planner = CacheBreakpoints.anthropic({ minimumPrefix: 1_024 })
          const alone = PromptCacheMarks.mark(prompt, { planner, cache })
          const remembered = PromptCacheMarks.mark(prompt, { planner, cache, memo })
          assert.deepStrictEqual(remembered, alone)
          // The marked prompt sent back as the next call's (a caller holding what was sent).
          if (call.previousEnd === 3) PromptCacheMarks.mark(alone.prompt, { planner, cache, memo })
        }
      }),
      { seed: 124, numRuns: 300 }
    ))
})
