/**
 * The copies of the items a call keeps (rule K2) are given again for the same item and reason
 * (docs/design.md item 134): checked on generated agent sessions fitted call after call through
 * one item cache, in a window small enough that most of the history is left out. Every kept
 * copy is the value the checked constructor makes of its item (pinned, its metadata saying why,
 * as before item 134), its reason is the one rule K2 gives (worked out apart), and a call that
 * keeps the same item for the same reason as the call before sends the same copy.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Prompt } from "effect/ai"
import { ContextBudget, ContextItem, FirstFitSlice, OverflowNotifier, RecencyScorer } from "../../src/index.ts"
import * as CurrentTurn from "../../src/ai/CurrentTurn.ts"
import * as ItemCache from "../../src/ai/ItemCache.ts"
import { messageIndexOf } from "../../src/ai/MessageIndex.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import * as SectionedPlacer from "../../src/placers/SectionedPlacer.ts"
import * as Sessions from "../support/sessions.ts"

const countOf = (m: Prompt.Message) => Math.ceil(PromptWindow.render(m).length / 4) + 4
const layers = Layer.mergeAll(
  RecencyScorer.layer,
  FirstFitSlice.layer,
  SectionedPlacer.conversation,
  OverflowNotifier.layerNoop,
  TokenCounter.make(countOf)
)


/** The kept copies of a fit: the items of its report that carry a `keep` reason. */
const keptOf = (fitted: PromptWindow.Fitted): Array<ContextItem.ContextItem> =>
  [
    ...fitted.result.report.included.map((entry) => entry.item),
    ...fitted.result.report.excluded.map((entry) => entry.item)
  ].filter((item) => item.metadata[CurrentTurn.keepKey] !== undefined)

const target = 5_000

describe("kept copies (design item 134)", () => {
  for (const [shape, seed] of [["tool-heavy", 1341], ["mixed", 1342], ["large-results", 1343]] as const) {
    it(`${shape}: each kept copy is the checked constructor's value for K2's reason, and the same object while kept for it`, () => {
      const itemCache = ItemCache.makeItemCache()
      let previous = new Map<string, ContextItem.ContextItem>()
      let reused = 0
      let kept = 0
      for (const history of Sessions.histories(Sessions.generate(shape, 60, seed))) {
        const prompt = Prompt.fromMessages(history)
        const outcome = Effect.runSync(Effect.exit(Effect.provide(
          Effect.all([
            PromptWindow.fit(prompt, new ContextBudget.ContextBudget({ maxTokens: 6_000, targetTokens: target }), { itemCache }),
            // The items the fit started from, made apart (equal values, other objects).
            PromptWindow.toCandidates(prompt)
          ]),
          layers
        )))
        if (outcome._tag === "Failure") continue
        const [fitted, candidates] = outcome.value
        // Why each is kept, worked out apart (rule K2) when nothing was shortened: the same items.
        const reasons = fitted.shortened === undefined ? PromptWindow.keeping(candidates, target).kept : undefined
        const next = new Map<string, ContextItem.ContextItem>()
        for (const copy of keptOf(fitted)) {
          const index = messageIndexOf(copy)!
          const why = copy.metadata[CurrentTurn.keepKey]
          if (reasons !== undefined) assert.strictEqual(why, reasons.get(index))
          // A tool result the fit shortened (K6) is kept as its shortened item: the checked
          // constructor's value of the same fields; any other, of the item it was made from.
          const original = copy.originalTokens === undefined ? candidates.items[index]! : { ...copy, pinned: false }
          const expected = new ContextItem.ContextItem({
            ...original,
            pinned: true,
            metadata: { ...original.metadata, [CurrentTurn.keepKey]: why }
          })
          assert.deepStrictEqual(copy, expected)
          const key = `${index}:${String(why)}`
          kept++
          if (previous.get(key) === copy) reused++
          next.set(key, copy)
        }
        previous = next
      }
      // The copies of a turn kept call after call are the same objects.
      assert.isAbove(kept, 0)
      assert.isAbove(reused, 0)
    })
  }
})
