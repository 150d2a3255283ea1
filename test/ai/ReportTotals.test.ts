/**
 * The report's excluded figures read from its invariants, and a grouped run's excluded entries
 * made when first read (docs/design.md item 131).
 *
 * - `excludedTokens` (every candidate's tokens less the window's) and `excludedCount` (every
 *   candidate less the included) equal a pass over the excluded entries, on every result a
 *   call can have: `Pipeline.run` over generated grouped candidates with each built-in
 *   strategy, overflow strategy and deduplication; the per-call fit of generated agent
 *   sessions (K3's dropped openers, K6's shortened results, the current turn kept); and the
 *   stable sessions' appends and compactions, with a summariser.
 * - The excluded list of a grouped run is the list an eager expansion makes (a literal
 *   transcription of it below), the same array at every read, enumerable in the place the
 *   data property stood among the report's keys.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { Prompt } from "effect/ai"
import * as fc from "fast-check"
import {
  ContextBudget,
  ContextItem,
  FirstFitSlice,
  OverflowNotifier,
  Pipeline,
  RecencyScorer
} from "../../src/index.ts"
import type { PipelineResult } from "../../src/PipelineResult.ts"
import { excludedCount, excludedTokens } from "../../src/ai/internal/windowSpan.ts"
import * as ItemCache from "../../src/ai/ItemCache.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as Session from "../../src/ai/Session.ts"
import * as Summarizer from "../../src/ai/Summarizer.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import * as SectionedPlacer from "../../src/placers/SectionedPlacer.ts"
import * as Sessions from "../support/sessions.ts"
import { itemsOf, rows, strategyVariants } from "../support/groupedRows.ts"

/** The figures as a pass over the excluded entries gives them (what `windowSpan` did before). */
const literal = (result: PipelineResult) => {
  let tokens = 0
  for (const entry of result.report.excluded) tokens += entry.item.tokens
  return { tokens, count: result.report.excluded.length }
}

const assertTotals = (result: PipelineResult) => {
  // Read first from the invariants (the excluded entries not made yet), then the pass.
  const fromInvariants = { tokens: excludedTokens(result), count: excludedCount(result) }
  assert.deepStrictEqual(fromInvariants, literal(result))
}

const countOf = (m: Prompt.Message) => Math.ceil(PromptWindow.render(m).length / 4) + 4
const counter = TokenCounter.make(countOf)
const strategies = Layer.mergeAll(RecencyScorer.layer, FirstFitSlice.layer, SectionedPlacer.conversation, OverflowNotifier.layerNoop)

describe("the report's excluded figures from its invariants (design item 131)", () => {
  it("Pipeline.run on grouped candidates, every built-in strategy: the figures of a pass over the excluded entries", async () => {
    const variants = await strategyVariants()
    await fc.assert(
      fc.asyncProperty(
        rows,
        fc.integer({ min: 0, max: 150 }),
        fc.constantFrom(0, 1, 2),
        fc.constantFrom("Throw" as const, "Truncate" as const, "Proceed" as const),
        fc.boolean(),
        async (list, target, variant, overflowStrategy, deduplication) => {
          const layers = variants[variant]!
          const budget = new ContextBudget.ContextBudget({ maxTokens: 150, targetTokens: target })
          const outcome = await Effect.runPromise(Effect.result(
            Pipeline.run(itemsOf(list), budget, { overflowStrategy, deduplication }).pipe(Effect.provide(layers))
          ))
          if (outcome._tag === "Success") assertTotals(outcome.success)
        }
      ),
      { seed: 1314, numRuns: 400 }
    )
  })

  for (const [shape, seed] of [["tool-heavy", 1315], ["mixed", 1316], ["large-results", 1317], ["chatty", 1318]] as const) {
    it(`${shape}: the per-call fit, call after call (K3 drops, K6 shortenings, the kept turn)`, () => {
      const itemCache = ItemCache.makeItemCache()
      let checked = 0
      for (const history of Sessions.histories(Sessions.generate(shape, 50, seed))) {
        const exit = Effect.runSync(Effect.exit(PromptWindow.fit(
          Prompt.fromMessages(history),
          new ContextBudget.ContextBudget({ maxTokens: 4_000, targetTokens: 3_000 }),
          { itemCache }
        ).pipe(Effect.provide(Layer.mergeAll(strategies, counter)))))
        if (exit._tag === "Failure") continue
        assertTotals(exit.value.result)
        checked++
      }
      assert.isAbove(checked, 20)
    })

    it(`${shape}: a stable session's appends and compactions, with a summariser`, () =>
      Effect.runPromise(Effect.gen(function*() {
        const summarizer = Summarizer.make("short", (request) => `summary of ${request.span.length} messages`).pipe(Layer.provide(counter))
        const session = yield* Layer.build(Session.layerStable({ contextWindow: 3_000, outputReserve: 200, summarizer }).pipe(Layer.provide(counter)))
        const service = Context.get(session, Session.Session)
        let actions = new Set<string>()
        for (const history of Sessions.histories(Sessions.generate(shape, 50, seed))) {
          const fitted = yield* Effect.exit(service.fit({ method: "generate", prompt: Prompt.fromMessages(history) }))
          if (fitted._tag === "Failure") continue
          assertTotals(fitted.value.fitted.result)
          if (fitted.value.plan !== undefined) actions = new Set([...actions, fitted.value.plan.change.action])
          yield* service.settle(fitted.value, { outcome: "answered", reported: undefined })
        }
        assert.isTrue(actions.has("append"))
        assert.isTrue(actions.has("compact"))
      }).pipe(Effect.scoped)))
  }
})

describe("a grouped run's excluded entries, made when first read (design item 131)", () => {
  it("the same array at every read, enumerable where the data property stood, equal to its data copy", () => {
    const items = [
      new ContextItem.ContextItem({ content: "call", tokens: 5, group: "g" }),
      new ContextItem.ContextItem({ content: "note", tokens: 2 }),
      new ContextItem.ContextItem({ content: "result", tokens: 9, group: "g" }),
      new ContextItem.ContextItem({ content: "late", tokens: 30 })
    ]
    const result = Effect.runSync(Pipeline.run(items, new ContextBudget.ContextBudget({ maxTokens: 20, targetTokens: 20 })).pipe(
      Effect.provide(strategies)
    ))
    const report = result.report
    assert.deepStrictEqual(Object.keys(report), ["events", "included", "excluded", "totalCandidates", "totalTokensConsidered", "countRequirementShortfalls"])
    assert.isTrue(Object.getOwnPropertyDescriptor(report, "excluded")?.enumerable)
    const first = report.excluded
    assert.strictEqual(report.excluded, first)
    assert.deepStrictEqual(first.map((entry) => entry.item.content), ["late"])
    // A copy (spread, JSON) has the entries as data.
    const copy = { ...report }
    assert.strictEqual(Object.getOwnPropertyDescriptor(copy, "excluded")?.value, first)
    assert.deepStrictEqual(JSON.parse(JSON.stringify(report)).excluded, JSON.parse(JSON.stringify(first)))
    // Both members of a group left out are listed, with the unit's score and reason.
    const tight = Effect.runSync(Pipeline.run(items, new ContextBudget.ContextBudget({ maxTokens: 10, targetTokens: 10 })).pipe(
      Effect.provide(strategies)
    ))
    assert.deepStrictEqual(tight.report.excluded.map((entry) => entry.item.content).sort(), ["call", "late", "result"])
    assertTotals(tight)
  })
})
