import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Prompt } from "effect/ai"
import * as SessionBench from "../../bench/sessionBench.ts"
import * as CacheModel from "../../src/ai/CacheModel.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
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
