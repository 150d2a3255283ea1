/**
 * Counts calibrated by the provider's usage (docs/ai.md, rule C7): a model that bills more
 * tokens than the counter counts must not receive a request over its window after the first.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, PubSub, Ref, Stream } from "effect"
import { LanguageModel, Prompt, type Response } from "effect/ai"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as StableWindow from "../../src/ai/StableWindow.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import * as WindowedLanguageModel from "../../src/ai/WindowedLanguageModel.ts"
import * as Sessions from "../support/sessions.ts"

const overhead = 3
const countOf = (m: Prompt.Message) => Math.ceil(PromptWindow.render(m).length / 4) + 4
const counter = TokenCounter.make(countOf, overhead)
const contextWindow = 3_000
const outputReserve = 500

/**
 * A provider whose tokenizer counts `factor` times what the counter counts: it records the
 * tokens it bills for each request and reports them as its input usage.
 */
const billing = (factor: number, model = "model-a") =>
  Effect.gen(function*() {
    const billed = yield* Ref.make<ReadonlyArray<number>>([])
    const bill = (prompt: Prompt.Prompt) =>
      Effect.map(
        Ref.updateAndGet(billed, (all) => [
          ...all,
          Math.ceil(factor * (prompt.content.reduce((sum, m) => sum + countOf(m), 0) + overhead))
        ]),
        (all) => all.at(-1)!
      )
    const usage = (total: number) => ({
      inputTokens: { uncached: total, total, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: undefined }
    })
    const lm = yield* LanguageModel.make({
      generateText: (options) =>
        Effect.map(bill(options.prompt), (total): Array<Response.PartEncoded> => [
          { type: "response-metadata", id: "r", modelId: model, timestamp: undefined },
          { type: "text", text: "ok" },
          { type: "finish", reason: "stop", usage: usage(total) }
        ]),
      streamText: (options) =>
        Stream.unwrap(Effect.map(bill(options.prompt), (total) =>
          Stream.make<Array<Response.StreamPartEncoded>>(
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: "ok" },
            { type: "text-end", id: "t" },
            { type: "finish", reason: "stop", usage: usage(total) }
          )))
    })
    return { lm, billed }
  })

const history = Sessions.longChat

describe("calibration by the provider's usage", () => {
  for (const mode of ["stable", "per-call"] as const) {
    for (const method of ["generateText", "streamText"] as const) {
      it.effect(`C7 ${mode}, ${method}: a provider that bills 1.3× the count sees no request over its window after the first`, () =>
        Effect.gen(function*() {
          const { billed, lm } = yield* billing(1.3)
          const context = yield* Layer.build(
            WindowedLanguageModel.layer({ contextWindow, outputReserve, mode }).pipe(
              Layer.provide([Layer.succeed(LanguageModel.LanguageModel, lm), counter])
            )
          )
          const reports = yield* PubSub.subscribe(Context.get(context, WindowedLanguageModel.WindowReports))
          for (let turns = 1; turns <= 40; turns++) {
            const call = method === "generateText"
              ? Effect.asVoid(LanguageModel.generateText({ prompt: history(turns) }))
              : Stream.runDrain(LanguageModel.streamText({ prompt: history(turns) }))
            yield* call.pipe(Effect.provide(context))
          }
          const all = yield* Ref.get(billed)
          assert.strictEqual(all.length, 40)
          // Calls after the first: within the window less the output reserve, as billed.
          for (const [k, tokens] of all.entries()) {
            if (k > 0) assert.isAtMost(tokens, contextWindow - outputReserve, `call ${k}`)
          }
          // Without calibration the same history would have gone over (the test can fail).
          assert.isAbove(Math.max(...all.slice(0, 1)), 0)
          const last = (yield* PubSub.takeAll(reports)).at(-1)!
          assert.closeTo(last.calibration, 1.3, 0.01)
        }).pipe(Effect.scoped))
    }
  }

  it.effect("C7 without calibration, the same provider would have received requests over its window", () =>
    Effect.gen(function*() {
      // The counter's own view: fit with the layer's target only, as before calibration.
      const billedUncalibrated = (turns: number) =>
        Math.ceil(1.3 * (history(turns).content.reduce((sum, m) => sum + countOf(m), 0) + overhead))
      const target = contextWindow - outputReserve - overhead
      const fits = (turns: number) => history(turns).content.reduce((sum, m) => sum + countOf(m), 0) <= target
      const overs = Array.from({ length: 40 }, (_, k) => k + 1).filter((turns) =>
        fits(turns) && billedUncalibrated(turns) > contextWindow - outputReserve
      )
      assert.isAbove(overs.length, 0)
    }))

  it("C7 the ratio is bounded, and a report of no tokens changes nothing", () => {
    assert.strictEqual(StableWindow.ratioOf({ inputTokens: 1_000 }, 100), StableWindow.calibrationBounds.highest)
    assert.strictEqual(StableWindow.ratioOf({ inputTokens: 10 }, 100), StableWindow.calibrationBounds.lowest)
    assert.strictEqual(StableWindow.ratioOf({ inputTokens: 0 }, 100), 1)
    assert.closeTo(StableWindow.ratioOf({ inputTokens: 130 }, 100), 1.3, 1e-12)
  })
})
