/**
 * Compaction with summaries (docs/ai.md, "Compaction with summaries", rules C1–C6), through
 * `StableWindow` with scripted summarisers; each test is named after its rule.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Logger, Ref } from "effect"
import { Prompt } from "effect/ai"
import { KeyValueStore } from "effect/persistence"
import { ContextBudget, FirstFitSlice, OverflowNotifier, RecencyScorer } from "../../src/index.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as StableWindow from "../../src/ai/StableWindow.ts"
import * as Summarizer from "../../src/ai/Summarizer.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import * as WindowState from "../../src/ai/WindowState.ts"
import * as WindowSummary from "../../src/ai/WindowSummary.ts"
import * as SectionedPlacer from "../../src/placers/SectionedPlacer.ts"
import * as Sessions from "../support/sessions.ts"

const countOf = (m: Prompt.Message) => Math.ceil(PromptWindow.render(m).length / 4) + 4
const counter = TokenCounter.make(countOf)
const layers = Layer.mergeAll(
  RecencyScorer.layer,
  FirstFitSlice.layer,
  SectionedPlacer.conversation,
  OverflowNotifier.layerNoop,
  counter,
  KeyValueStore.layerMemory
)
const budget = (target: number) => new ContextBudget.ContextBudget({ maxTokens: target, targetTokens: target })
const system = (content: string) => Prompt.systemMessage({ content })
const user = (text: string) => Prompt.userMessage({ content: [Prompt.textPart({ text })] })
const assistant = (text: string) => Prompt.assistantMessage({ content: [Prompt.textPart({ text })] })
const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ")

/** A conversation that grows by an answer and a user turn per step. */
const conversation = (steps: number): Array<Prompt.Message> => {
  const out: Array<Prompt.Message> = [system("be brief"), user("start")]
  for (let k = 0; k < steps; k++) out.push(assistant(words(30, `a${k}_`)), user(words(15, `u${k}_`)))
  return out
}

/** A scripted summariser: it records each request and answers with a short text naming the span. */
const scripted = (answer?: (request: Summarizer.SummaryRequest) => string | Effect.Effect<string, string>) =>
  Effect.gen(function*() {
    const requests = yield* Ref.make<ReadonlyArray<Summarizer.SummaryRequest>>([])
    const f = (request: Summarizer.SummaryRequest) =>
      Effect.flatMap(Ref.update(requests, (all) => [...all, request]), () => {
        const out = answer?.(request) ?? `summary of ${request.span.length} messages`
        return typeof out === "string" ? Effect.succeed(out) : out
      })
    const built = yield* Layer.build(Summarizer.make("scripted", f))
    return { summarizer: Context.get(built, Summarizer.Summarizer), requests }
  })

const step = (window: StableWindow.StableWindow, history: ReadonlyArray<Prompt.Message>, target: number) =>
  Effect.gen(function*() {
    const plan = yield* window.fit(Prompt.fromMessages(history), budget(target), { key: "k" })
    yield* window.commit(plan)
    return plan
  })

/** Runs the conversation's calls until the first compaction; returns its plan and the history. */
const untilCompaction = (window: StableWindow.StableWindow, history: ReadonlyArray<Prompt.Message>, target: number, from = 4) =>
  Effect.gen(function*() {
    for (let k = from; k <= history.length; k += 2) {
      const plan = yield* step(window, history.slice(0, k), target)
      if (plan.change.action === "compact" && plan.basedOn !== undefined) return { plan, at: k }
    }
    return yield* Effect.die(new Error("no compaction"))
  })

describe("compaction with summaries", () => {
  it.effect("C1 a compaction replaces what it drops by one summary, before the conversation, the dropped messages Summarized", () =>
    Effect.scoped(Effect.gen(function*() {
      const { requests, summarizer } = yield* scripted()
      const window = yield* StableWindow.make({ summarizer, lowWatermark: 0.5, summaryTokens: 200 })
      const history = conversation(80)
      const { plan } = yield* untilCompaction(window, history, 2_000)
      const outcome = plan.change.summary!
      assert.strictEqual(outcome._tag, "written")
      const sent = plan.fitted.prompt.content
      assert.strictEqual(sent[0]!.role, "system")
      const read = Summarizer.readSummaryMessage(sent[1]!)
      assert.isDefined(read)
      assert.strictEqual(read!.id, outcome.id)
      const report = plan.fitted.result.report
      const summaryItem = report.included[1]!
      assert.strictEqual(summaryItem.item.metadata[WindowSummary.summaryIdKey], outcome.id)
      assert.strictEqual(summaryItem.item.kind, "Memory")
      const summarized = report.excluded.filter((e) => e.reason._tag === "Summarized")
      assert.strictEqual(summarized.length, outcome.spanMessages)
      assert.strictEqual(summarized.length, (yield* Ref.get(requests))[0]!.span.length)
      assert.isTrue(summarized.every((e) => e.reason._tag === "Summarized" && e.reason.summaryId === outcome.id))
      assert.strictEqual(report.included.length + report.excluded.length, report.totalCandidates)
      assert.isAtMost(plan.fitted.result.totalTokens, 2_000)
      assert.strictEqual(plan.fitted.result.totalTokens, sent.reduce((sum, m) => sum + countOf(m), 0))
      assert.deepStrictEqual(plan.next.summary?.id, outcome.id)
      // Every other message sent is the history's own: the current turn keeps its roles.
      for (const m of sent.filter((m) => Summarizer.readSummaryMessage(m) === undefined)) assert.include(history, m)
    })).pipe(Effect.provide(layers)))

  it.effect("C2 summaries are frozen: appending calls send it byte for byte and call no summariser; the next compaction folds the old one in, in its place", () =>
    Effect.scoped(Effect.gen(function*() {
      const { requests, summarizer } = yield* scripted((r) => `folded ${r.previous === undefined ? "nothing" : "the previous"}; ${r.span.length} new`)
      const window = yield* StableWindow.make({ summarizer, lowWatermark: 0.5, summaryTokens: 200 })
      const history = conversation(120)
      const first = yield* untilCompaction(window, history, 2_000)
      const summaryText = PromptWindow.render(first.plan.fitted.prompt.content[1]!)
      let k = first.at + 2
      let second: StableWindow.Plan | undefined
      for (; k <= history.length && second === undefined; k += 2) {
        const plan = yield* step(window, history.slice(0, k), 2_000)
        if (plan.change.action === "append") {
          assert.strictEqual(PromptWindow.render(plan.fitted.prompt.content[1]!), summaryText)
          assert.strictEqual((yield* Ref.get(requests)).length, 1)
          const report = plan.fitted.result.report
          assert.isTrue(report.excluded.some((e) => e.reason._tag === "Summarized"))
        } else second = plan
      }
      assert.isDefined(second)
      const all = yield* Ref.get(requests)
      assert.strictEqual(all.length, 2)
      assert.strictEqual(all[1]!.previous, first.plan.next.summary!.text)
      const sent = second!.fitted.prompt.content
      assert.include(PromptWindow.render(sent[1]!), "folded the previous")
      // The new summary covers the old one's messages and the newly dropped ones.
      const covers = WindowState.fromRuns(second!.next.summary!.covers)
      for (const i of WindowState.fromRuns(first.plan.next.summary!.covers)) assert.include(covers, i)
      assert.isAbove(covers.length, WindowState.fromRuns(first.plan.next.summary!.covers).length)
      // The cache: a new summary stands where the old one stood, so nothing after the system prompt is common.
      assert.strictEqual(second!.change.summary?._tag, "written")
    })).pipe(Effect.provide(layers)))

  it.effect("C3 the current turn, system prompts and whole tool groups stay verbatim; a span holds whole groups", () =>
    Effect.scoped(Effect.gen(function*() {
      const { requests, summarizer } = yield* scripted()
      const window = yield* StableWindow.make({ summarizer, summaryTokens: 300 })
      const session = Sessions.generate("tool-heavy", 60, 7)
      for (const history of Sessions.histories(session)) {
        const plan = yield* window.fit(Prompt.fromMessages(history), budget(6_000), { key: "k" })
        yield* window.commit(plan)
        assert.deepStrictEqual(PromptWindow.orphans(plan.fitted.prompt), [])
        assert.strictEqual(plan.fitted.prompt.content[0]!.role, "system")
        assert.isAtMost(plan.fitted.result.totalTokens, 6_000)
      }
      const all = yield* Ref.get(requests)
      assert.isAbove(all.length, 0)
      for (const request of all) {
        assert.deepStrictEqual(PromptWindow.orphans(Prompt.fromMessages(request.span)), [])
        assert.isTrue(request.span.every((m) => m.role !== "system"))
      }
    })).pipe(Effect.provide(layers)))

  it.effect("C4 a summariser that fails, returns empty or over-budget text: the compaction goes ahead, the call succeeds, logged once, no error text in the window", () =>
    Effect.scoped(Effect.gen(function*() {
      const answers: ReadonlyArray<(r: Summarizer.SummaryRequest) => string | Effect.Effect<string, string>> = [
        () => Effect.fail("the provider is overloaded"),
        () => "   ",
        () => words(2_000, "long")
      ]
      for (const answer of answers) {
        const logs: Array<string> = []
        const logger = Logger.make(({ message }) => {
          logs.push(String(message))
        })
        const { summarizer } = yield* scripted(answer)
        const window = yield* StableWindow.make({ summarizer, lowWatermark: 0.5, summaryTokens: 200 })
        const history = conversation(120)
        const outcomes: Array<WindowSummary.Outcome> = []
        for (let k = 4; k <= history.length; k += 2) {
          const plan = yield* step(window, history.slice(0, k), 2_000).pipe(Effect.provide(Logger.layer([logger])))
          if (plan.change.summary !== undefined) outcomes.push(plan.change.summary)
          for (const m of plan.fitted.prompt.content) {
            assert.notInclude(PromptWindow.render(m), "overloaded")
            assert.isUndefined(Summarizer.readSummaryMessage(m))
          }
          assert.isAtMost(plan.fitted.result.totalTokens, 2_000)
        }
        assert.isAtLeast(outcomes.length, 2)
        assert.isTrue(outcomes.every((o) => o._tag === "failed" && o.error !== undefined))
        assert.strictEqual(logs.filter((l) => l.includes("compactions go ahead without a summary")).length, 1)
      }
    })).pipe(Effect.provide(layers)))

  it.effect("C4 an old summary that no longer fits the room the window leaves is dropped, never sent over the target", () =>
    Effect.scoped(Effect.gen(function*() {
      // Found when the current turn became whole (issue 25): a compaction that had to keep a
      // large turn kept the old summary too, 17 tokens over its target.
      const { requests, summarizer } = yield* scripted(() => Effect.fail("down"))
      const history = conversation(4)
      const candidates = yield* PromptWindow.toCandidates(Prompt.fromMessages(history))
      const previous: WindowState.SummaryState = { id: "summary-old", text: words(40, "s"), tokens: 60, covers: [] }
      const all = new Set(history.map((_, i) => i))
      const run = (inWindow: ReadonlySet<number>, maxTokens: number) =>
        WindowSummary.summarize({ summarizer, candidates, inWindow, previous, context: [], maxTokens })
      // Nothing new dropped: the old summary stays while it fits, and goes when it does not.
      assert.strictEqual((yield* run(all, 60)).summary, previous)
      const tight = yield* run(all, 59)
      assert.isUndefined(tight.summary)
      assert.strictEqual(tight.outcome._tag, "no-room")
      // A summariser that fails: the old summary stays only while it fits.
      const some = new Set([0, 1, 2])
      assert.strictEqual((yield* run(some, 200)).summary, previous)
      const failed = yield* run(some, 59)
      assert.strictEqual(failed.outcome._tag, "failed")
      assert.isUndefined(failed.summary)
      assert.strictEqual((yield* Ref.get(requests)).length, 2)
    })).pipe(Effect.provide(layers)))

  it.effect("C5 the summary request's prefix is the conversation's last request as it was sent", () =>
    Effect.scoped(Effect.gen(function*() {
      const { requests, summarizer } = yield* scripted()
      const window = yield* StableWindow.make({ summarizer, lowWatermark: 0.5, summaryTokens: 200 })
      const history = conversation(80)
      let last: ReadonlyArray<Prompt.Message> = []
      for (let k = 4; k <= history.length; k += 2) {
        const plan = yield* step(window, history.slice(0, k), 2_000)
        if (plan.change.action === "compact" && plan.basedOn !== undefined) {
          const request = (yield* Ref.get(requests))[0]!
          assert.deepStrictEqual(request.context.map(PromptWindow.render), last.map(PromptWindow.render))
          assert.isAtMost(plan.change.summary!.summaryTokens, 200)
          return
        }
        last = plan.fitted.prompt.content
      }
      assert.fail("no compaction")
    })).pipe(Effect.provide(layers)))

  it.live("C6 a call interrupted while its summary is written leaves the state as it was", () =>
    Effect.scoped(Effect.gen(function*() {
      const started = yield* Ref.make(false)
      const { summarizer } = yield* scripted(() =>
        Effect.andThen(Ref.set(started, true), Effect.as(Effect.sleep("10 seconds"), "never"))
      )
      const window = yield* StableWindow.make({ summarizer, lowWatermark: 0.5, summaryTokens: 200 })
      const store = yield* KeyValueStore.KeyValueStore
      const history = conversation(80)
      let k = 4
      let before: string | undefined
      for (; k <= history.length; k += 2) {
        before = yield* store.get("k")
        const fiber = yield* Effect.forkChild(step(window, history.slice(0, k), 2_000))
        yield* Effect.sleep("20 millis")
        if (yield* Ref.get(started)) {
          yield* Fiber.interrupt(fiber)
          break
        }
        yield* Fiber.join(fiber)
      }
      assert.isTrue(yield* Ref.get(started))
      assert.strictEqual(yield* store.get("k"), before)
    })).pipe(Effect.provide(layers)))
})
