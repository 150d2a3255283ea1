/**
 * The shortcuts of a stable window's appending call (docs/design.md item 85), each held to the
 * general computation it stands for, over generated sessions (`test/support/sessions.ts`):
 *
 * - an append's change and common prefix, taken from its plan, are `WindowChange.changeOf`'s and
 *   `WindowChange.commonPrefix`'s over the previous and the new window (and so is the cache
 *   prediction made from them);
 * - rule K2's error, read without the units the turn keeps, is the one `keeping` and
 *   `CurrentTurn.anchors` give.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Prompt } from "effect/ai"
import * as fc from "fast-check"
import * as CacheModel from "../../src/ai/CacheModel.ts"
import * as Candidates from "../../src/ai/Candidates.ts"
import * as CurrentTurn from "../../src/ai/CurrentTurn.ts"
import { messageIndexOf } from "../../src/ai/MessageIndex.ts"
import * as StableWindow from "../../src/ai/StableWindow.ts"
import * as TurnRules from "../../src/ai/TurnRules.ts"
import * as WindowChange from "../../src/ai/WindowChange.ts"
import * as WindowEntry from "../../src/ai/WindowEntry.ts"
import * as WindowState from "../../src/ai/WindowState.ts"
import * as WindowSummary from "../../src/ai/WindowSummary.ts"
import type { ContextItem } from "../../src/ContextItem.ts"
import * as Sessions from "../support/sessions.ts"
import { budget, layers } from "../support/stableFixtures.ts"


/** The entry of an item of a window with no documents: the summary's, or its message's. */
const entryOf = (item: ContextItem): WindowEntry.WindowEntry | undefined => {
  if (item.metadata[WindowSummary.summaryIdKey] !== undefined) return WindowEntry.summary
  const index = messageIndexOf(item)
  return index === undefined ? undefined : WindowEntry.message(index)
}

const samples = (seed: number, runs: number) =>
  fc.sample(
    fc.record({
      shape: fc.constantFrom(...Sessions.allShapes),
      seed: fc.integer({ min: 1, max: 2_000_000_000 }),
      target: fc.integer({ min: 3_000, max: 40_000 })
    }),
    { numRuns: runs, seed }
  )

describe("a stable window's appending call", () => {
  it.effect("an append's change and common prefix are changeOf's and commonPrefix's over both windows", () =>
    Effect.gen(function*() {
      let appends = 0
      for (const sample of samples(85_2026, 10)) {
        const label = JSON.stringify(sample)
        const window = yield* StableWindow.make({})
        let last: StableWindow.Plan | undefined
        for (const history of Sessions.histories(Sessions.generate(sample.shape, 60, sample.seed))) {
          const fitted = yield* Effect.result(window.fit(Prompt.fromMessages(history), budget(sample.target)))
          // A newest user message that cannot fit (K2) fails the call: nothing is committed.
          if (fitted._tag === "Failure") continue
          const plan = fitted.success
          if (plan.change.action === "append" && last !== undefined) {
            appends++
            const tokens = new WindowEntry.EntryMap<number>()
            for (const item of plan.fitted.result.window) {
              const entry = entryOf(item)
              if (entry !== undefined) tokens.set(entry, item.tokens)
            }
            const tokensOf = (entry: WindowEntry.WindowEntry) => tokens.get(entry) ?? Number.NaN
            const previous = WindowState.entriesOf(last.next.window)
            const current = WindowState.entriesOf(plan.next.window)
            const change = WindowChange.changeOf(
              { previous, current, tokensBefore: tokensOf, tokensAfter: tokensOf, summaryReplaced: false },
              "append",
              undefined,
              undefined,
              undefined,
              undefined
            )
            assert.deepStrictEqual(plan.change, change, label)
            const prediction = CacheModel.predict(CacheModel.Anthropic5m, {
              totalTokens: plan.next.windowTokens,
              previousTokens: last.next.toolTokens + last.next.windowTokens,
              commonPrefixTokens: WindowChange.commonPrefix(previous, current, tokensOf, false),
              secondsSincePrevious: 0
            })
            assert.deepStrictEqual(plan.prediction, prediction, label)
          }
          yield* window.commit(plan)
          last = plan
        }
      }
      assert.isAbove(appends, 100)
    }).pipe(Effect.provide(layers)))
})

describe("rule K2's error", () => {
  it.effect("turnBudgetError is the error keeping and CurrentTurn.anchors give, at every target", () =>
    Effect.gen(function*() {
      let errors = 0
      for (const sample of samples(85_2027, 8)) {
        const label = JSON.stringify(sample)
        for (const history of Sessions.histories(Sessions.generate(sample.shape, 30, sample.seed))) {
          const candidates = yield* Candidates.toCandidates(history)
          const tokens = candidates.items.slice(0, history.length).map((item) => item.tokens)
          // The targets at which the answer turns: the pinned items' tokens, and those with the
          // newest user message's.
          const pinned = candidates.items.reduce((sum, item) => sum + (item.pinned && item.tokens > 0 ? item.tokens : 0), 0)
          const asked = history.findLastIndex((m) => m.role === "user")
          const needed = asked < 0 ? 0 : candidates.items[asked]!.tokens
          const targets = [sample.target, 200, pinned - 1, pinned, pinned + needed - 1, pinned + needed]
          for (const target of targets.filter((t) => t >= 0)) {
            const keeping = TurnRules.keeping(candidates, target)
            const turn = { messages: candidates.messages, groups: candidates.groups, tokens, conversation: keeping.conversation }
            const user = CurrentTurn.anchors(turn)["newest-user"]
            const expected = keeping.pinnedTokens > target || user < 0 || keeping.conversation[user] !== true ||
                candidates.items[user]!.tokens <= target - keeping.pinnedTokens
              ? undefined
              : {
                messageIndex: user,
                neededTokens: candidates.items[user]!.tokens,
                availableTokens: target - keeping.pinnedTokens,
                pinnedTokens: keeping.pinnedTokens
              }
            const error = TurnRules.turnBudgetError(candidates, target)
            if (error !== undefined) errors++
            assert.deepStrictEqual(
              error === undefined
                ? undefined
                : {
                  messageIndex: error.messageIndex,
                  neededTokens: error.neededTokens,
                  availableTokens: error.availableTokens,
                  pinnedTokens: error.pinnedTokens
                },
              expected,
              `${label} at ${target}`
            )
          }
        }
      }
      assert.isAbove(errors, 10)
    }).pipe(Effect.provide(layers)))
})
