/**
 * Masking (rules X1–X5) and references (R1–R5) over generated sessions
 * (`test/support/sessions.ts`): whatever the session, the window and the options, every request
 * has no orphaned tool part, extends the one before except at a compaction, sends each reference
 * beside the result it names, verbatim, and each stub beside the call it names.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Prompt } from "effect/ai"
import { KeyValueStore } from "effect/persistence"
import * as fc from "fast-check"
import { ContextBudget, FirstFitSlice, OverflowNotifier, RecencyScorer } from "../../src/index.ts"
import * as Masking from "../../src/ai/Masking.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as ResultReferences from "../../src/ai/ResultReferences.ts"
import * as StableWindow from "../../src/ai/StableWindow.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import * as SectionedPlacer from "../../src/placers/SectionedPlacer.ts"
import * as Sessions from "../support/sessions.ts"

const countOf = (m: Prompt.Message) => Math.ceil(PromptWindow.render(m).length / 4) + 4
const layers = Layer.mergeAll(
  RecencyScorer.layer,
  FirstFitSlice.layer,
  SectionedPlacer.conversation,
  OverflowNotifier.layerNoop,
  TokenCounter.make(countOf),
  KeyValueStore.layerMemory
)
const tokensOf = (messages: ReadonlyArray<Prompt.Message>) => messages.reduce((sum, m) => sum + countOf(m), 0)

/** Every tool-result part of some messages, by call id. */
const resultParts = (messages: ReadonlyArray<Prompt.Message>): Map<string, Prompt.ToolResultPart> => {
  const out = new Map<string, Prompt.ToolResultPart>()
  for (const m of messages) if (m.role === "tool") for (const p of m.content) if (p.type === "tool-result") out.set(p.id, p)
  return out
}

/** The call ids of the tool calls in some messages. */
const callIds = (messages: ReadonlyArray<Prompt.Message>): Set<string> =>
  new Set(messages.flatMap((m) => (m.role === "assistant" ? m.content.flatMap((p) => (p.type === "tool-call" ? [p.id] : [])) : [])))

const sameResult = (a: Prompt.ToolResultPart, b: Prompt.ToolResultPart) =>
  a.isFailure === b.isFailure && JSON.stringify([a.result, a.modelOutput]) === JSON.stringify([b.result, b.modelOutput])

describe("masking and references, on generated sessions", () => {
  it.effect("no orphaned tool part, the prefix stable between compactions, each reference beside its result verbatim, each stub beside its call", () =>
    Effect.gen(function*() {
      const samples = fc.sample(
        fc.record({
          shape: fc.constantFrom<Sessions.Shape>("rereading", "screenshot", "tool-heavy", "large-results"),
          seed: fc.integer({ min: 1, max: 2_000_000_000 }),
          target: fc.integer({ min: 3_000, max: 16_000 }),
          mask: fc.boolean()
        }),
        { numRuns: 12, seed: 27_2026 }
      )
      let references = 0
      let stubs = 0
      let compactions = 0
      for (const sample of samples) {
        const label = JSON.stringify(sample)
        const window = yield* StableWindow.make({ maskToolResults: sample.mask })
        const session = Sessions.generate(sample.shape, 70, sample.seed)
        let previous: ReadonlyArray<Prompt.Message> | undefined
        for (const history of Sessions.histories(session)) {
          const asked = history.findLast((m) => m.role === "user")
          if (asked !== undefined && tokensOf([history[0]!, asked]) > sample.target) continue
          const budget = new ContextBudget.ContextBudget({ maxTokens: sample.target, targetTokens: sample.target })
          const plan = yield* window.fit(Prompt.fromMessages(history), budget)
          yield* window.commit(plan)
          const sent = plan.fitted.prompt.content
          assert.deepStrictEqual(PromptWindow.orphans(plan.fitted.prompt), [], label)
          if (plan.change.action === "append" && previous !== undefined) {
            assert.deepStrictEqual(sent.slice(0, previous.length).map(PromptWindow.render), previous.map(PromptWindow.render), label)
          }
          if (plan.change.action === "compact") compactions++
          const original = resultParts(history)
          const inRequest = resultParts(sent)
          const calls = callIds(sent)
          for (const part of inRequest.values()) {
            const of = ResultReferences.readReference(part)
            if (of !== undefined) {
              references++
              const target = inRequest.get(of)
              assert.isDefined(target, `${label}: ${part.id} refers to ${of}, not in the request`)
              assert.isTrue(sameResult(target!, original.get(of)!), `${label}: ${of} is not verbatim`)
              assert.isTrue(sameResult(original.get(part.id)!, original.get(of)!), `${label}: ${part.id} is not a repeat of ${of}`)
            }
            const stub = Masking.readStub(part)
            if (stub !== undefined) {
              stubs++
              assert.strictEqual(stub.id, part.id, label)
              assert.isTrue(calls.has(stub.id), `${label}: the stub of ${stub.id} has no call in the request`)
            }
          }
          previous = sent
        }
      }
      // The samples did exercise the rules.
      assert.isAbove(references, 0)
      assert.isAbove(stubs, 0)
      assert.isAbove(compactions, 0)
    }).pipe(Effect.provide(layers)), 240_000)
})
