/**
 * Candidates built without the schema (docs/design.md item 110): a message nobody annotated
 * gets the item the checked constructor makes from the same fields; annotated messages and
 * invalid values still go through the schema, and fail as before.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect } from "effect"
import { Prompt } from "effect/ai"
import * as fc from "fast-check"
import * as Candidates from "../../src/ai/Candidates.ts"
import { messageIndexKey } from "../../src/ai/MessageIndex.ts"
import * as PromptRender from "../../src/ai/PromptRender.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import * as ContextItem from "../../src/ContextItem.ts"
import * as ContextKind from "../../src/ContextKind.ts"
import * as Sessions from "../support/sessions.ts"

const counter = TokenCounter.make((m) => Math.ceil(PromptWindow.render(m).length / 4) + 4)

/** The item the checked constructor makes for message `i` of a prompt without annotations. */
const checkedItem = (message: Prompt.Message, i: number, group: string | undefined, start: number) =>
  ContextItem.make({
    content: PromptRender.render(message),
    tokens: Math.ceil(PromptWindow.render(message).length / 4) + 4,
    kind: message.role === "system"
      ? ContextKind.SystemPrompt
      : message.role === "tool"
      ? ContextKind.ToolOutput
      : ContextKind.Message,
    source: "Chat",
    pinned: message.role === "system",
    tags: [],
    metadata: { role: message.role, [messageIndexKey]: i },
    timestamp: DateTime.makeUnsafe(start + i),
    ...(group === undefined ? {} : { group })
  })

describe("Candidates", () => {
  it.effect("an unannotated message's item is the item the checked constructor makes, over generated sessions", () =>
    Effect.gen(function*() {
      const samples = fc.sample(
        fc.record({ shape: fc.constantFrom(...Sessions.allShapes), seed: fc.integer({ min: 1, max: 1_000_000 }), start: fc.integer({ min: 0, max: 2_000_000_000_000 }) }),
        { numRuns: 12, seed: 110 }
      )
      for (const { seed, shape, start } of samples) {
        const session = Sessions.generate(shape, 12, seed)
        const history = Sessions.historyAt(session, 12)
        const { groups, items } = yield* Candidates.toCandidates(Prompt.fromMessages(history), { startMillis: start }).pipe(
          Effect.provide(counter)
        )
        for (let i = 0; i < history.length; i++) {
          const checked = yield* checkedItem(history[i]!, i, groups[i], start)
          const made = items[i]!
          assert.instanceOf(made, ContextItem.ContextItem)
          assert.deepStrictEqual(made, checked, `${shape} seed ${seed} message ${i}`)
          // The same fields in the same order: what an encoder or a report writes is the same.
          assert.deepStrictEqual(Object.keys(made), Object.keys(checked))
        }
      }
    }))

  it.effect("messageOf answers as a map from each message's item to its message, documents and strangers unknown", () =>
    Effect.gen(function*() {
      const history = Sessions.historyAt(Sessions.generate("tool-heavy", 10, 3), 10)
      // A document that claims a message's index in its metadata is still no message's item.
      const document = new ContextItem.ContextItem({ content: "doc", tokens: 3, metadata: { messageIndex: 1 } })
      const stranger = new ContextItem.ContextItem({ content: "x", tokens: 1, metadata: { messageIndex: 0 } })
      const candidates = yield* Candidates.toCandidates(Prompt.fromMessages(history), { documents: [document] }).pipe(
        Effect.provide(counter)
      )
      const { items, messageOf, messages } = candidates
      const expected = new Map(messages.map((message, i) => [items[i]!, message] as const))
      assert.strictEqual(messageOf.size, expected.size)
      assert.deepStrictEqual([...messageOf], [...expected])
      assert.deepStrictEqual([...messageOf.keys()], [...expected.keys()])
      assert.deepStrictEqual([...messageOf.values()], [...expected.values()])
      assert.deepStrictEqual([...new Map(messageOf)], [...expected])
      for (const [item, message] of expected) {
        assert.strictEqual(messageOf.get(item), message)
        assert.isTrue(messageOf.has(item))
      }
      assert.strictEqual(messageOf.get(document), undefined)
      assert.strictEqual(messageOf.get(stranger), undefined)
      assert.isFalse(messageOf.has(document))
      const seen: Array<number> = []
      messageOf.forEach((message, item) => {
        assert.strictEqual(expected.get(item), message)
        seen.push(messages.indexOf(message))
      })
      assert.deepStrictEqual(seen, messages.map((_, i) => i))
    }))

  it.effect("an annotated message goes through the schema, and gets the same item when the annotation changes nothing", () =>
    Effect.gen(function*() {
      const history = Sessions.historyAt(Sessions.generate("mixed", 10, 7), 10)
      const plain = yield* Candidates.toCandidates(Prompt.fromMessages(history)).pipe(Effect.provide(counter))
      const annotated = yield* Candidates.toCandidates(Prompt.fromMessages(history), { annotate: () => ({}) }).pipe(
        Effect.provide(counter)
      )
      assert.deepStrictEqual(annotated.items, plain.items)
      const invalid = yield* Effect.flip(
        Candidates.toCandidates(Prompt.fromMessages(history), { annotate: () => ({ priority: 1.5 }) }).pipe(
          Effect.provide(counter)
        )
      )
      assert.strictEqual(invalid._tag, "CandidateError")
      if (invalid._tag === "CandidateError") assert.strictEqual(invalid.field, "priority")
    }))
})
