import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Prompt } from "effect/ai"
import * as ScriptedSummarizer from "../../bench/scriptedSummarizer.ts"
import * as SessionBench from "../../bench/sessionBench.ts"
import * as CacheModel from "../../src/ai/CacheModel.ts"
import * as Masking from "../../src/ai/Masking.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as ResultReferences from "../../src/ai/ResultReferences.ts"
import * as Summarizer from "../../src/ai/Summarizer.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import * as Sessions from "../support/sessions.ts"

const system = Prompt.systemMessage({ content: "sys" })
const user = (text: string) => Prompt.userMessage({ content: [Prompt.textPart({ text })] })
const assistant = (text: string) => Prompt.assistantMessage({ content: [Prompt.textPart({ text })] })

/** Counts read from the text: "u600" is 600 tokens, and so is any text ending in a number. */
const byText: SessionBench.Count = (message) => {
  const n = /(\d+)$/.exec(PromptWindow.render(message))
  return n === null ? 10 : Number(n[1])
}

describe("session bench: cache figures", () => {
  it("identical consecutive requests hit the cache wholly; disjoint ones not at all", () => {
    // 2,048 tokens: a multiple of OpenAI's 128-token steps, above its 1,024 minimum.
    const request = [user("a512"), assistant("b512"), user("c512"), assistant("d512")]
    const same = SessionBench.predictions([request, request, request, request], byText, CacheModel.OpenAI, 5)
    assert.strictEqual(SessionBench.steadyState(same).hitRatio, 1)
    assert.strictEqual(SessionBench.steadyState(same).cost, 0.5)
    // The first call has nothing to read: over the whole session 3 of 4 requests hit.
    assert.strictEqual(SessionBench.ratios(same).hitRatio, 0.75)
    const disjoint = [0, 1, 2, 3].map((k) => [user(`q${k} 1024`), assistant(`r${k} 1024`)])
    const none = SessionBench.predictions(disjoint, byText, CacheModel.OpenAI, 5)
    assert.strictEqual(SessionBench.steadyState(none).hitRatio, 0)
    assert.strictEqual(SessionBench.steadyState(none).cost, 1)
    assert.strictEqual(SessionBench.steadyState(SessionBench.predictions(disjoint, byText, CacheModel.Anthropic5m, 5)).cost, 1.25)
  })

  it("the common prefix is counted message by message; equal messages need not be the same object", () => {
    const a = [system, user("u600"), assistant("a700"), user("yes, do it")]
    const b = [system, user("u600"), assistant("a700"), user("yes, do it"), assistant("b300")]
    // `sys` counts 10: 10 + 600 + 700 + 10.
    assert.strictEqual(SessionBench.commonPrefixTokens(a, b, byText), 1320)
    const copy = [system, user("u600"), assistant("a700"), user("yes, do it")]
    assert.strictEqual(SessionBench.commonPrefixTokens(a, copy, byText), 1320)
    // A cut after the system prompt leaves the system prompt in common, nothing more.
    assert.strictEqual(SessionBench.commonPrefixTokens(a, [system, assistant("a700")], byText), 10)
  })

  it("an append is read whole under both rules, a moved cut by neither (hand-checked)", () => {
    const first = [system, user("u1990")]
    const second = [...first, assistant("a500")]
    const moved = [system, assistant("a500"), user("n1000")]
    const [, append, cut] = SessionBench.predictions([first, second, moved], byText, CacheModel.Anthropic5m, 5)
    // 2,000 cached at 0.1, 500 written at 1.25.
    assert.strictEqual(append!.cost, 2000 * 0.1 + 500 * 1.25)
    // The moved cut shares 10 tokens: below the minimum, all 1,510 written at 1.25.
    assert.strictEqual(cut!.cachedTokens, 0)
    assert.strictEqual(cut!.cost, 1510 * 1.25)
    const [, openaiAppend] = SessionBench.predictions([first, second], byText, CacheModel.OpenAI, 5)
    // OpenAI reads 2,000 rounded down to 128: 1,920.
    assert.strictEqual(openaiAppend!.cachedTokens, 1920)
    // Calls further apart than the cache lives read nothing.
    const [, late] = SessionBench.predictions([first, second], byText, CacheModel.Anthropic5m, 301)
    assert.strictEqual(late!.cachedTokens, 0)
  })
})

describe("session bench: the newest-suffix baseline (LangChain trimMessages, strategy last)", () => {
  const history = [system, user("u100"), assistant("a300"), user("v50"), assistant("b200"), user("w40")]

  it("keeps the system prompt and the newest messages while they fit, stopping at the first that does not", () => {
    // 10 (system) + 40 + 200 + 50 = 300 fits 330; a300 does not, and u100 after it is not tried.
    assert.deepStrictEqual(SessionBench.trimLast(history, 330, byText, undefined), [system, ...history.slice(3)])
    // Everything fits: everything.
    assert.deepStrictEqual(SessionBench.trimLast(history, 10_000, byText, undefined), history)
    // Not even the newest fits: the system prompt alone.
    assert.deepStrictEqual(SessionBench.trimLast(history, 45, byText, undefined), [system])
  })

  it("startOn user drops the oldest kept messages until the first is a user message", () => {
    // 10 + 40 + 200 = 250: w40 and b200 fit, v50 would not (300 > 255): the kept stretch starts
    // on the assistant, so it is dropped to start on w40.
    assert.deepStrictEqual(SessionBench.trimLast(history, 255, byText, "user"), [system, history[5]!])
    assert.deepStrictEqual(SessionBench.trimLast(history, 255, byText, undefined), [system, ...history.slice(4)])
    const noSystem = history.slice(1)
    assert.deepStrictEqual(SessionBench.trimLast(noSystem, 10_000, byText, "user"), noSystem)
  })

  it("on generated sessions every request is the system prompt and a suffix that cannot grow by one more message", () => {
    for (const shape of Sessions.shapes) {
      const session = Sessions.generate(shape, 40, 7)
      const count: SessionBench.Count = (m) => Math.ceil(PromptWindow.render(m).length / 4) + 4
      for (const history of Sessions.histories(session)) {
        const request = SessionBench.trimLast(history, 6000, count, undefined)
        assert.strictEqual(request[0], history[0])
        const kept = request.slice(1)
        const from = history.length - kept.length
        assert.deepStrictEqual(kept, history.slice(from))
        if (from > 1) assert.isAbove(SessionBench.requestTokens(request, count) + count(history[from - 1]!), 6000)
      }
    }
  })
})

describe("session bench: generated sessions", () => {
  it("the same seed gives the same session; every history a call sees is complete (no orphaned tool part)", () => {
    for (const shape of Sessions.shapes) {
      const a = Sessions.generate(shape, 120, 42)
      const b = Sessions.generate(shape, 120, 42)
      assert.deepStrictEqual(
        Sessions.historyAt(a, 120).map(PromptWindow.render),
        Sessions.historyAt(b, 120).map(PromptWindow.render)
      )
      for (const history of Sessions.histories(a)) {
        assert.deepStrictEqual(PromptWindow.orphans(Prompt.fromMessages(history)), [], shape)
      }
    }
  })

  it("tool-heavy sessions hold approvals, several calls in one message, late results and repeated user messages", () => {
    const history = Sessions.historyAt(Sessions.generate("tool-heavy", 300, 18), 300)
    const parts = history.flatMap((m): ReadonlyArray<Prompt.Part> => (m.role === "system" ? [] : m.content))
    assert.isTrue(parts.some((p) => p.type === "tool-approval-request"))
    assert.isTrue(parts.some((p) => p.type === "tool-approval-response" && !p.approved))
    assert.isTrue(
      history.some((m) => m.role === "assistant" && m.content.filter((p) => p.type === "tool-call").length > 1)
    )
    // A late result: a user message between a call message and one of its results.
    const groups = PromptWindow.groups(history)
    assert.isTrue(history.some((m, i) => m.role === "user" && groups[i - 1] !== undefined && groups[i - 1] === groups[i + 1]))
    const users = history.filter((m) => m.role === "user").map(PromptWindow.render)
    assert.isAbove(users.filter((u) => u === "yes, do it").length, 1)
  })

  it("the latest tool exchange is the last call message with everything linked to it, late results included", () => {
    const call = Prompt.toolCallPart({ id: "c1", name: "grep", params: {}, providerExecuted: false })
    const call2 = Prompt.toolCallPart({ id: "c2", name: "grep", params: {}, providerExecuted: false })
    const calls = Prompt.assistantMessage({ content: [call, call2] })
    const result = (id: string) =>
      Prompt.toolMessage({
        content: [Prompt.toolResultPart({ id, name: "grep", isFailure: false, result: "r", providerExecuted: false })]
      })
    const interject = user("also this")
    const history = [system, user("go"), calls, result("c1"), interject, result("c2"), assistant("done")]
    assert.deepStrictEqual(SessionBench.latestToolExchange(history), [calls, history[3]!, history[5]!])
    assert.strictEqual(SessionBench.newestUser(history), interject)
    assert.deepStrictEqual(SessionBench.latestToolExchange([system, user("go")]), [])
  })
})

describe("session bench: a short replay through the layer", () => {
  const counter = TokenCounter.make((m) => Math.ceil(PromptWindow.render(m).length / 4) + 4, 3)
  const settings: SessionBench.Settings = { contextWindow: 12_000, outputReserve: 1_000, secondsBetweenCalls: 5 }

  it.effect("the model receives one request per call, each an ordered selection of the history within the target", () =>
    Effect.gen(function*() {
      const session = Sessions.generate("mixed", 30, 3)
      const counts = yield* SessionBench.countsOf(session)
      const count = SessionBench.countFrom(counts)
      const layer: SessionBench.Strategy = { _tag: "layer", name: "layer", options: {} }
      const run = yield* SessionBench.replay(session, layer, settings, count)
      assert.strictEqual(run.requests.length, 30)
      assert.strictEqual(run.target, 12_000 - 1_000 - 3)
      run.requests.forEach((request, k) => {
        const history = run.histories[k]!
        const positions = request.map((m) => history.indexOf(m))
        assert.isTrue(positions.every((p) => p >= 0), "every message sent is the history's own")
        assert.strictEqual(request[0]!.role, "system")
      })
      const figures = SessionBench.measure(run, count, settings)
      assert.strictEqual(figures.calls, 30)
      assert.strictEqual(figures.orphans, 0)
      assert.isAtMost(figures.largestRequest, run.target)
      assert.strictEqual(figures.overTarget, 0)
      assert.isAtMost(figures.hitRatio, 1)
      assert.isAtLeast(figures.costAnthropic5m, 0.1)
      // The baseline, replayed the same way, is measured the same way.
      const baseline = yield* SessionBench.replay(session, { _tag: "baseline", name: "suffix", startOn: "user" }, settings, count)
      const suffix = SessionBench.measure(baseline, count, settings)
      assert.strictEqual(suffix.calls, 30)
      assert.isAtMost(suffix.largestRequest, run.target)
    }).pipe(Effect.provide(counter)))

  it.effect("while the history fits, every request is the whole history: the cache reads all of the previous one", () =>
    Effect.gen(function*() {
      const session = Sessions.generate("chatty", 12, 5)
      const count = SessionBench.countFrom(yield* SessionBench.countsOf(session))
      const wide: SessionBench.Settings = { ...settings, contextWindow: 1_000_000 }
      const run = yield* SessionBench.replay(session, { _tag: "layer", name: "layer", options: {} }, wide, count)
      run.requests.forEach((request, k) => assert.deepStrictEqual(request, run.histories[k]))
      const series = SessionBench.predictions(run.requests, count, CacheModel.Anthropic5m, 5)
      for (let k = 1; k < series.length; k++) {
        const previous = SessionBench.requestTokens(run.requests[k - 1]!, count)
        assert.strictEqual(series[k]!.cachedTokens, previous >= 1024 ? previous : 0)
      }
    }).pipe(Effect.provide(counter)))
})

describe("session bench: references to earlier tool results", () => {
  it("references are deterministic and point to earlier results, named in the text of the step that makes them", () => {
    for (const shape of Sessions.allShapes) {
      const a = Sessions.generate(shape, 120, 42)
      const b = Sessions.generate(shape, 120, 42)
      let made = 0
      for (let k = 0; k <= 120; k++) {
        const ids = Sessions.referencesAt(a, k)
        assert.deepStrictEqual(ids, Sessions.referencesAt(b, k))
        if (ids.length === 0) continue
        made += ids.length
        // Results of the steps before the newest one: the history before call k − 1 holds them.
        const earlier = Sessions.resultIds(Sessions.historyAt(a, k - 1))
        const step = a.steps[k - 1]!
        const text = [step.response, ...step.next].map(PromptWindow.render).join("\n")
        for (const id of ids) {
          assert.include(earlier, id, `${shape}: call ${k} refers to ${id}`)
          assert.match(text, new RegExp(`\\b${id}\\b`))
        }
      }
      assert.isAbove(made, 5, shape)
    }
    assert.deepStrictEqual(Sessions.referencesAt(Sessions.generate("chatty", 5, 1), 0), [])
  })

  it("references leave the rest of a session as it was: repeated approvals and tool results untouched", () => {
    const session = Sessions.generate("tool-heavy", 300, 18)
    const carriers = session.steps.filter((step) => step.references.length > 0)
    assert.isAbove(carriers.length, 20)
    // A reference is carried by a user message of the user's own words, never by a repeated
    // approval, else by the response.
    for (const step of carriers) {
      const carrier = [step.response, ...step.next].find((m) => /see the result of|Going back to the result of/.test(PromptWindow.render(m)))
      assert.isDefined(carrier)
      if (carrier!.role === "user") {
        const own = PromptWindow.render(carrier!).split(" (see the result of")[0]!
        assert.notInclude(["yes, do it", "ok, continue"], own)
        assert.isAbove(own.length, 0)
      } else assert.strictEqual(carrier!.role, "assistant")
    }
    const users = Sessions.historyAt(session, 300).filter((m) => m.role === "user").map(PromptWindow.render)
    assert.isAbove(users.filter((u) => u === "yes, do it").length, 1)
    // Every result carries no reference text: references live in user and assistant messages.
    const results = Sessions.historyAt(session, 300).filter((m) => m.role === "tool").map(PromptWindow.render)
    assert.isTrue(results.every((r) => !r.includes("see the result of") && !r.includes("Going back to")))
  })
})

const toolResult = (id: string, text: string) =>
  Prompt.toolMessage({
    content: [Prompt.toolResultPart({ id, name: "grep", isFailure: false, result: text, providerExecuted: false })]
  })
const toolCall = (...ids: ReadonlyArray<string>) =>
  Prompt.assistantMessage({
    content: ids.map((id) => Prompt.toolCallPart({ id, name: "grep", params: {}, providerExecuted: false }))
  })

describe("session bench: the scripted summariser", () => {
  const counter = TokenCounter.make((m) => Math.ceil(PromptWindow.render(m).length / 4) + 4, 3)

  it.effect("the scripted summariser names the ids of its span and of the summary it replaces, within its size", () =>
    Effect.gen(function*() {
      const service = yield* TokenCounter.TokenCounter
      const span = [toolCall("call_3", "call_7"), toolResult("call_3", "found it"), toolResult("call_7", "nothing"), user("thanks")]
      const request = { span, previous: "Summary: call_1 found the result;", maxTokens: 500 }
      assert.deepStrictEqual(ScriptedSummarizer.idsOf(request), ["call_1", "call_3", "call_7"])
      const text = yield* ScriptedSummarizer.summaryText(service, request, { tokens: 200 })
      for (const id of ["call_1", "call_3", "call_7"]) assert.isTrue(ScriptedSummarizer.names(text, id), id)
      assert.isFalse(ScriptedSummarizer.names(text, "call_30"))
      const tokens = yield* service.count(user(text))
      assert.isAtMost(tokens, 200)
      assert.isAtLeast(tokens, 195)
      // Its budget below its size: the budget, less the margin.
      const small = yield* ScriptedSummarizer.summaryText(service, { ...request, maxTokens: 60 }, { tokens: 200 })
      assert.isAtMost(yield* service.count(user(small)), 60 - ScriptedSummarizer.margin)
      // Too many ids for the size: the newest are named, the oldest left out.
      const many = Array.from({ length: 40 }, (_, i) => `call_${i + 1}`)
      const crowded = yield* ScriptedSummarizer.summaryText(service, {
        span: [toolCall(...many), ...many.map((id) => toolResult(id, "r"))],
        maxTokens: 500
      }, { tokens: 60 })
      assert.isTrue(ScriptedSummarizer.names(crowded, "call_40"))
      assert.isFalse(ScriptedSummarizer.names(crowded, "call_1"))
      // The same request, the same summary.
      assert.strictEqual(yield* ScriptedSummarizer.summaryText(service, request, { tokens: 200 }), text)
    }).pipe(Effect.provide(counter)))
})

describe("session bench: retention of referenced results", () => {
  const r1 = toolResult("call_1", "one")
  const r2 = toolResult("call_2", "two")
  const history = [system, user("go"), toolCall("call_1"), r1, toolCall("call_2"), r2, user("see the result of call_1 and call_2")]
  const summary = (text: string) => Summarizer.summaryMessage({ text }, "s1")
  const replayOf = (request: ReadonlyArray<Prompt.Message>): SessionBench.Replay => ({
    strategy: "test",
    target: 1000,
    histories: [history],
    requests: [request],
    references: [["call_1", "call_2"]],
    summarizerRequests: [],
    summaryOutcomes: { written: 0, kept: 0, failed: 0, "no-room": 0 },
    extraCounts: new Map()
  })

  it("retention counts a reference inside a summary that names it, and one verbatim", () => {
    const run = replayOf([system, summary("Summary: call_1 found one;"), toolCall("call_2"), r2, history[6]!])
    assert.deepStrictEqual(SessionBench.retention(run), { references: 2, verbatim: 1, summarized: 1, byReference: 0, stubbed: 0 })
    assert.strictEqual(SessionBench.retained(SessionBench.retention(run)), 1)
  })

  it("retention: a summary naming call_17 does not name call_1; a result sent as another role is not verbatim", () => {
    const run = replayOf([system, summary("Summary: call_17 found one;"), history[6]!])
    assert.deepStrictEqual(SessionBench.retention(run), { references: 2, verbatim: 0, summarized: 0, byReference: 0, stubbed: 0 })
    const asSystem = Prompt.systemMessage({ content: PromptWindow.render(r2) })
    const altered = replayOf([system, asSystem, history[6]!])
    assert.strictEqual(SessionBench.retention(altered).verbatim, 0)
    assert.deepStrictEqual(SessionBench.notFromHistory([system, asSystem, history[6]!], history), [asSystem])
    assert.deepStrictEqual(SessionBench.notFromHistory([system, summary("x"), r1], history), [])
  })

  it("retention counts a result sent as a reference to an earlier one the request holds, and a stub naming it", () => {
    const sentAs = (id: string, result: string) =>
      Prompt.toolMessage({
        content: [Prompt.toolResultPart({ id, name: "lookup", isFailure: false, result, providerExecuted: false })]
      })
    const r0 = toolResult("call_0", "two")
    const withEarlier = [system, user("go"), toolCall("call_0"), r0, ...history.slice(1)]
    const run = {
      ...replayOf([]),
      histories: [withEarlier],
      requests: [[
        system,
        toolCall("call_0"),
        r0,
        toolCall("call_1"),
        sentAs("call_1", Masking.stubText({ id: "call_1", name: "lookup", tokens: 3 })),
        toolCall("call_2"),
        sentAs("call_2", ResultReferences.referenceText("call_0")),
        history[6]!
      ]]
    }
    assert.deepStrictEqual(SessionBench.retention(run), { references: 2, verbatim: 0, summarized: 0, byReference: 1, stubbed: 1 })
    assert.strictEqual(SessionBench.retained(SessionBench.retention(run)), 1)
    // A reference to a result the request does not hold answers nothing.
    const dangling = { ...run, requests: [run.requests[0]!.filter((m) => m !== r0)] }
    assert.strictEqual(SessionBench.retention(dangling).byReference, 0)
  })
})

describe("session bench: stable + compaction", () => {
  const counter = TokenCounter.make((m) => Math.ceil(PromptWindow.render(m).length / 4) + 4, 3)
  const settings: SessionBench.Settings = { contextWindow: 12_000, outputReserve: 1_000, secondsBetweenCalls: 5 }
  const compaction: SessionBench.Strategy = { _tag: "layer", name: "compaction", options: {}, summarizer: { tokens: 300 } }

  it.effect("the compaction strategy's cost includes the summariser's requests: the last request read from the cache, the instruction written", () =>
    Effect.gen(function*() {
      const session = Sessions.generate("tool-heavy", 60, 7)
      const count = SessionBench.countFrom(yield* SessionBench.countsOf(session))
      const run = yield* SessionBench.replay(session, compaction, settings, count)
      const all: SessionBench.Count = (m) => run.extraCounts.get(m) ?? count(m)
      assert.isAbove(run.summarizerRequests.length, 1)
      assert.strictEqual(run.summaryOutcomes.written, run.summarizerRequests.length)
      for (const { call, messages } of run.summarizerRequests) {
        // The request: the conversation's last request, then the instruction message.
        const previous = run.requests[call - 1]!
        assert.deepStrictEqual(messages.slice(0, -1), previous)
        assert.include(PromptWindow.render(messages.at(-1)!), Summarizer.defaultInstruction)
        // The call it was made in sent a summary naming what it summarised.
        assert.isTrue(run.requests[call]!.some((m) => Summarizer.readSummaryMessage(m) !== undefined))
      }
      const anthropic = SessionBench.summarizerPredictions(run, all, CacheModel.Anthropic5m, 5)
      for (const { call, prediction } of anthropic) {
        const previous = SessionBench.requestTokens(run.requests[call - 1]!, all)
        assert.strictEqual(prediction.cachedTokens, previous >= 1024 ? previous : 0)
        assert.strictEqual(prediction.totalTokens, SessionBench.requestTokens(run.summarizerRequests.find((r) => r.call === call)!.messages, all))
      }
      // Cost = (requests' cost + summariser requests' cost) / (their costs without a cache), second half.
      const half = Math.floor(run.requests.length / 2)
      const main = SessionBench.predictions(run.requests, all, CacheModel.Anthropic5m, 5).slice(half)
      const extra = anthropic.filter((s) => s.call >= half).map((s) => s.prediction)
      assert.isAbove(extra.length, 0)
      const sum = (ps: ReadonlyArray<CacheModel.Prediction>, f: (p: CacheModel.Prediction) => number) =>
        ps.reduce((s, p) => s + f(p), 0)
      const expected = (sum(main, (p) => p.cost) + sum(extra, (p) => p.cost)) /
        (sum(main, (p) => p.costWithoutCache) + sum(extra, (p) => p.costWithoutCache))
      const figures = SessionBench.measure(run, count, settings)
      assert.closeTo(figures.costAnthropic5m, expected, 1e-12)
      assert.notStrictEqual(figures.costAnthropic5m, figures.requestsOnly.costAnthropic5m)
      assert.strictEqual(figures.summarizer.requests, run.summarizerRequests.length)
      // Without a summariser there are no summariser requests, and the figures are the requests' own.
      const plain = yield* SessionBench.replay(session, { _tag: "layer", name: "stable", options: {} }, settings, count)
      const plainFigures = SessionBench.measure(plain, count, settings)
      assert.strictEqual(plain.summarizerRequests.length, 0)
      assert.strictEqual(plainFigures.costAnthropic5m, plainFigures.requestsOnly.costAnthropic5m)
    }).pipe(Effect.provide(counter)))

  it.effect("with summaries naming what they cover, the compaction strategy retains at least what the stable window alone does", () =>
    Effect.gen(function*() {
      const session = Sessions.generate("tool-heavy", 80, 11)
      const count = SessionBench.countFrom(yield* SessionBench.countsOf(session))
      const stable = SessionBench.measure(
        yield* SessionBench.replay(session, { _tag: "layer", name: "stable", options: {} }, settings, count),
        count,
        settings
      )
      const compacted = SessionBench.measure(yield* SessionBench.replay(session, compaction, settings, count), count, settings)
      assert.isAbove(compacted.retention.references, 0)
      assert.isAbove(compacted.retention.summarized, 0)
      assert.isAtLeast(compacted.retention.share, stable.retention.share)
    }).pipe(Effect.provide(counter)))
})
