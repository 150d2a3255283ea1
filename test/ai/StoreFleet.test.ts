/**
 * The fault and load suite (issue 28, item 3; design 93): `bench/storeFleet.ts` run as a test —
 * four Node processes serving twelve conversations at once (the calls of one conversation
 * concurrently, on different processes), their states in one real `redis-server` on 127.0.0.1
 * behind a TCP proxy on loopback, while Redis is killed and restarted, frozen, paused, and the
 * proxy delays past the store's timeout, cuts, and answers garbage. Under CI a missing
 * redis-server fails the suite (test/support/needs.ts). About 25 s.
 */
import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { defaultFleet, monitorArgs, runFleet } from "../../bench/storeFleet.ts"
import { describeWithRedis } from "../support/redisServer.ts"

describeWithRedis("the store fleet under faults (real processes, real redis-server on 127.0.0.1)", () => {
  it.live("every call answered within its bound, no state lost, doubled or half-applied, the cache hit back after recovery", () =>
    Effect.gen(function*() {
      const figures = yield* Effect.scoped(runFleet(defaultFleet))
      const about = JSON.stringify({ ...figures, problems: figures.problems.slice(0, 10) }, null, 1)
      assert.isAtLeast(figures.calls, 200, about)
      assert.isAtLeast(figures.concurrentRounds, 30, `calls of one conversation ran concurrently: ${about}`)
      assert.strictEqual(figures.faults.length, 6, about)
      assert.strictEqual(figures.answered, figures.calls, about)
      assert.strictEqual(figures.withinBound, figures.calls, about)
      assert.strictEqual(figures.halfApplied, 0, about)
      assert.strictEqual(figures.invalidSuccessors, 0, about)
      assert.strictEqual(figures.statesLost, 0, about)
      assert.isAbove(figures.statesApplied, 50, about)
      // Calls overtaken by another process's commit: moved onto it, or not committed.
      assert.isAbove((figures.committed["rebased"] ?? 0) + (figures.committed["conflict"] ?? 0), 0, about)
      assert.strictEqual(figures.recovered, figures.conversations, about)
    }), 120_000)

  it("MONITOR lines are read back to the bytes Redis was sent", () => {
    assert.deepStrictEqual(
      monitorArgs(`1700000000.123456 [0 lua] "SET" "effect-cupel:window:k" "{\\"a\\":\\"x\\\\ny\\"}" "\\xc3\\xa9"`),
      ["SET", "effect-cupel:window:k", "{\"a\":\"x\\ny\"}", "\u00c3\u00a9"]
    )
  })
})
