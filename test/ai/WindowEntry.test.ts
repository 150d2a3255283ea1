/**
 * Typed window entries (`WindowEntry`) and their stored encoding, which only `WindowState`
 * reads and writes: the runs the previous version wrote (integers: `i` a message, `-(d + 1)` a
 * document, `Number.MIN_SAFE_INTEGER` the summary) decode to the entries they meant and encode
 * back to the same runs; a state the previous version wrote is still used.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { Prompt } from "effect/ai"
import { KeyValueStore } from "effect/persistence"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as StableWindow from "../../src/ai/StableWindow.ts"
import * as Summarizer from "../../src/ai/Summarizer.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import * as WindowEntry from "../../src/ai/WindowEntry.ts"
import * as WindowState from "../../src/ai/WindowState.ts"
import { ContextBudget, ContextItem, FirstFitSlice, OverflowNotifier, RecencyScorer } from "../../src/index.ts"
import * as SectionedPlacer from "../../src/placers/SectionedPlacer.ts"
import * as Sessions from "../support/sessions.ts"

/** The previous version's encoding of an entry, as it wrote it (ba1a813's `StableWindow`). */
const storedBefore = (entry: WindowEntry.WindowEntry): number =>
  entry._tag === "Message" ? entry.index : entry._tag === "Document" ? -(entry.index + 1) : Number.MIN_SAFE_INTEGER

/** The previous version's `toRuns` over those integers. */
const toRunsBefore = (entries: ReadonlyArray<number>): Array<readonly [number, number]> => {
  const runs: Array<readonly [number, number]> = []
  let k = 0
  while (k < entries.length) {
    const first = entries[k]!
    let length = 1
    while (k + length < entries.length && entries[k + length] === first + length) length++
    runs.push([first, length])
    k += length
  }
  return runs
}

const entryArb: fc.Arbitrary<WindowEntry.WindowEntry> = fc.oneof(
  fc.integer({ min: 0, max: 70_000 }).map(WindowEntry.message),
  fc.integer({ min: 0, max: 5 }).map(WindowEntry.message),
  fc.integer({ min: 0, max: 4 }).map(WindowEntry.document),
  fc.constant(WindowEntry.summary)
)

describe("WindowEntry", () => {
  it("the stored runs are the previous version's: entries encode to its runs and decode back to the same entries", () => {
    fc.assert(
      fc.property(fc.uniqueArray(entryArb, { selector: storedBefore, maxLength: 40 }), (entries) => {
        const runs = WindowState.runsOf(entries)
        assert.deepStrictEqual(runs, toRunsBefore(entries.map(storedBefore)))
        const back = WindowState.entriesOf(runs)
        assert.strictEqual(back.length, entries.length)
        back.forEach((entry, k) => {
          assert.isTrue(WindowEntry.equals(entry, entries[k]!))
          assert.deepStrictEqual({ ...entry }, { ...entries[k]! })
        })
      }),
      { seed: 19, numRuns: 500 }
    )
  })

  it("entries are equal by tag and index, shared or not; sets and maps find them so", () => {
    const far = 1 << 20
    assert.isTrue(WindowEntry.equals(WindowEntry.message(far), WindowEntry.message(far)))
    assert.notStrictEqual(WindowEntry.message(far), WindowEntry.message(far))
    assert.strictEqual(WindowEntry.message(3), WindowEntry.message(3))
    assert.isFalse(WindowEntry.equals(WindowEntry.message(0), WindowEntry.document(0)))
    assert.isTrue(WindowEntry.equals(WindowEntry.summary, { _tag: "Summary" }))
    const set = new WindowEntry.EntrySet([WindowEntry.message(far), WindowEntry.document(1)])
    assert.isTrue(set.has({ _tag: "Message", index: far }))
    assert.isFalse(set.has(WindowEntry.message(1)))
    assert.isFalse(set.add(WindowEntry.document(1)))
    assert.isTrue(set.add(WindowEntry.summary))
    assert.isTrue(set.has(WindowEntry.summary))
    const map = new WindowEntry.EntryMap<string>().set(WindowEntry.summary, "s").set(WindowEntry.document(0), "d")
    assert.strictEqual(map.get({ _tag: "Summary" }), "s")
    assert.strictEqual(map.get(WindowEntry.document(0)), "d")
    assert.isUndefined(map.get(WindowEntry.message(0)))
  })

  // The state the previous version (ba1a813) wrote after call 1 of the "retrieval" session of
  // seed 4 with two documents and a summariser: the system prompt, both documents, the summary,
  // then messages. Its next call appended messages 6 and 7 and wrote `nextBefore`.
  const stateBefore =
    `{"format":1,"fingerprint":"d9b88d1b58207b40","revision":2,"historyLength":6,"historyDigest":"b67cb11ccb959066","window":[[0,1],[-1,1],[-2,1],[-9007199254740991,1],[1,1]],"windowTokens":1597,"toolTokens":0,"calls":2,"compactions":1,"appends":0,"addedTokens":0,"updatedAtMillis":1795859000011,"summary":{"id":"summary-e37ae21b","text":"summary of 4 messages, previous none","tokens":28,"covers":[[2,4]]}}`
  const nextBefore =
    `{"format":1,"fingerprint":"d9b88d1b58207b40","revision":3,"historyLength":8,"historyDigest":"6e490c0dc640e02c","window":[[0,1],[-1,1],[-2,1],[-9007199254740991,1],[1,1],[6,2]],"windowTokens":2039,"toolTokens":0,"calls":3,"compactions":1,"appends":1,"addedTokens":442,"updatedAtMillis":1795859000018,"summary":{"id":"summary-e37ae21b","text":"summary of 4 messages, previous none","tokens":28,"covers":[[2,4]]}}`

  it.effect("a state the previous version wrote (documents, summary, messages) is decoded and appended to as it would have been", () =>
    Effect.scoped(Effect.gen(function*() {
      const documents = [
        new ContextItem.ContextItem({ content: "doc zero " + "z ".repeat(200), tokens: 110, kind: "Document", pinned: true }),
        new ContextItem.ContextItem({ content: "doc one " + "o ".repeat(100), tokens: 60, kind: "Document" })
      ]
      const built = yield* Layer.build(Summarizer.make("s", () => Effect.succeed("unused")))
      const summarizer = Context.get(built, Summarizer.Summarizer)
      const kv = yield* KeyValueStore.KeyValueStore
      yield* kv.set("retrieval4", stateBefore)
      yield* TestClock.setTime(1795859000018)
      const window = yield* StableWindow.make({ summarizer, summaryTokens: 300, documents, lowWatermark: 0.6 })
      const history = [...Sessions.histories(Sessions.generate("retrieval", 60, 4))][2]!
      const plan = yield* window.fit(Prompt.fromMessages(history), new ContextBudget.ContextBudget({
        maxTokens: 4_000,
        targetTokens: 4_000
      }), { key: "retrieval4" })
      assert.strictEqual(plan.change.action, "append")
      assert.strictEqual(plan.change.fresh, undefined)
      assert.deepStrictEqual(yield* WindowState.encodeJson(plan.next), nextBefore)
      const sent = plan.fitted.prompt.content
      const summary = Summarizer.summaryMessage({ text: "summary of 4 messages, previous none" }, "summary-e37ae21b")
      assert.deepStrictEqual(sent.map((m) => PromptWindow.render(m)), [
        history[0]!,
        Prompt.systemMessage({ content: documents[0]!.content }),
        Prompt.systemMessage({ content: documents[1]!.content }),
        summary,
        history[1]!,
        history[6]!,
        history[7]!
      ].map((m) => PromptWindow.render(m)))
      const report = plan.fitted.result.report
      assert.deepStrictEqual(
        report.excluded.filter((e) => e.reason._tag === "Summarized").map((e) => e.item.content),
        [2, 3, 4, 5].map((i) => PromptWindow.render(history[i]!))
      )
    })).pipe(Effect.provide(Layer.mergeAll(
      RecencyScorer.layer,
      FirstFitSlice.layer,
      SectionedPlacer.conversation,
      OverflowNotifier.layerNoop,
      KeyValueStore.layerMemory,
      TokenCounter.make((m) => Math.ceil(PromptWindow.render(m).length / 4) + 4)
    ))))
})
