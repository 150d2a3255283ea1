/**
 * The session bench's AI SDK strategies (`bench/aiSdkBench.ts`): the generated sessions sent as
 * the SDK's messages through `pruneMessages` and through this library's middleware, read back
 * and measured as the other strategies are.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Prompt } from "effect/ai"
import * as AiSdkBench from "../../bench/aiSdkBench.ts"
import * as SessionBench from "../../bench/sessionBench.ts"
import * as GptTokenizer from "../../src/ai/GptTokenizer.ts"
import * as Sessions from "../support/sessions.ts"

const settings: SessionBench.Settings = { contextWindow: 8_000, outputReserve: 1_000, secondsBetweenCalls: 5 }
const prune: AiSdkBench.Strategy = {
  _tag: "prune",
  name: "prune",
  options: { reasoning: "before-last-message", toolCalls: "before-last-2-messages", emptyMessages: "remove" }
}
const middleware: AiSdkBench.Strategy = { _tag: "middleware", name: "middleware", options: {} }

/** The call ids of a message's tool calls and results. */
const toolIds = (message: Prompt.Message): Array<string> =>
  message.role === "system"
    ? []
    : message.content.flatMap((part) => part.type === "tool-call" || part.type === "tool-result" ? [part.id] : [])

describe("session bench: the AI SDK strategies", () => {
  it.effect("the middleware's requests are the history's own messages, system first, within the target, the newest user message kept", () =>
    Effect.gen(function*() {
      const session = Sessions.generate("tool-heavy", 40, 18)
      const count = SessionBench.countFrom(yield* SessionBench.countsOf(session))
      const run = yield* AiSdkBench.replay(session, middleware, settings)
      assert.strictEqual(run.requests.length, 40)
      run.requests.forEach((request, k) => {
        const positions = request.map((m) => run.histories[k]!.indexOf(m))
        assert.isTrue(positions.every((p) => p >= 0), "every message sent is the history's own object")
        assert.strictEqual(request[0]!.role, "system")
      })
      const figures = SessionBench.measure(run, count, settings)
      assert.strictEqual(figures.overTarget, 0)
      assert.isAtMost(figures.largestRequest, run.target)
      assert.strictEqual(figures.notFromHistory, 0)
      assert.strictEqual(figures.newestUser.kept, figures.newestUser.fit)
      // The history outgrew the window: the middleware cut it.
      assert.isBelow(run.requests.at(-1)!.length, run.histories.at(-1)!.length)
    }).pipe(Effect.provide(GptTokenizer.layer)))

  it.effect("pruneMessages removes the tool parts of other calls before the last two messages and cuts nothing for the budget: requests go over the target", () =>
    Effect.gen(function*() {
      const session = Sessions.generate("tool-heavy", 40, 18)
      const count = SessionBench.countFrom(yield* SessionBench.countsOf(session))
      // A window the pruned history outgrows.
      const small = { ...settings, contextWindow: 3_000 }
      const run = yield* AiSdkBench.replay(session, prune, small)
      run.requests.forEach((request) => {
        // Before the last two messages, only the tool parts of the calls those two hold.
        const kept = new Set(request.slice(-2).flatMap(toolIds))
        assert.isTrue(request.slice(0, -2).flatMap(toolIds).every((id) => kept.has(id)), "no other tool part before the last two messages")
      })
      const figures = SessionBench.measure(run, count, small)
      assert.isAbove(figures.overTarget, 0)
      assert.isAbove(figures.largestRequest, run.target)
      // Messages it emptied of their tool parts are altered, and counted as they are sent.
      assert.isAbove(figures.notFromHistory, 0)
      assert.isAbove(run.extraCounts.size, 0)
    }).pipe(Effect.provide(GptTokenizer.layer)))

  it("timePerCall times the calls from the first history with that many messages", async () => {
    const session = Sessions.generate("chatty", 80, 5)
    const make = AiSdkBench.caller(session, middleware, settings)
    const timing = await AiSdkBench.timePerCall(session, "middleware", make, 100, 5, 2)
    assert.strictEqual(timing.samples, 5)
    assert.isAtLeast(timing.messages, 100)
    assert.isAbove(timing.medianMs, 0)
    const rejected = await AiSdkBench.timePerCall(session, "middleware", make, 100_000, 5, 2).then(() => false, () => true)
    assert.isTrue(rejected, "a session shorter than asked is an error")
  })
})
