/**
 * The cache breakpoint planner (src/ai/CacheBreakpoints.ts): where a window's marks go, each
 * rule by name, a property over generated windows, and the layers per provider.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import * as CacheBreakpoints from "../../src/ai/CacheBreakpoints.ts"

const blocks = (n: number, tokens = 200): Array<CacheBreakpoints.Block> => Array.from({ length: n }, () => ({ tokens }))

const marksOf = (plan: CacheBreakpoints.Plan) => plan.marks.map((m) => [m.index, m.reason, m.ttl] as const)

const whyOf = (plan: CacheBreakpoints.Plan, reason: CacheBreakpoints.Reason) => plan.skipped.find((s) => s.reason === reason)?.why

describe("CacheBreakpoints.plan", () => {
  it("tail: the last block is marked, so that the next call reads all of this one", () => {
    const plan = CacheBreakpoints.plan({ blocks: blocks(10), boundaries: {}, minimumPrefix: 1024 })
    assert.deepStrictEqual(marksOf(plan), [[9, "tail", "5m"]])
  })

  it("minimum prefix: no mark where the prefix is shorter than the model's minimum", () => {
    const plan = CacheBreakpoints.plan({ blocks: blocks(5), boundaries: { toolsAndSystem: 2 }, minimumPrefix: 1024 })
    assert.deepStrictEqual(marksOf(plan), [])
    assert.strictEqual(whyOf(plan, "tail"), "below-minimum")
    assert.strictEqual(whyOf(plan, "tools-and-system"), "below-minimum")
    // 6 blocks of 200 tokens reach 1,200: the tail is marked.
    assert.deepStrictEqual(marksOf(CacheBreakpoints.plan({ blocks: blocks(6), boundaries: {}, minimumPrefix: 1024 })), [[5, "tail", "5m"]])
  })

  it("tools and system: the last block of the tools and system prompts is marked", () => {
    const plan = CacheBreakpoints.plan({ blocks: blocks(30), boundaries: { toolsAndSystem: 8 }, minimumPrefix: 1024 })
    assert.deepStrictEqual(marksOf(plan), [[7, "tools-and-system", "5m"], [29, "tail", "5m"]])
  })

  it("compacted: the end of the frozen summary / kept prefix of the last compaction is marked", () => {
    const plan = CacheBreakpoints.plan({ blocks: blocks(30), boundaries: { toolsAndSystem: 8, compacted: 12 }, minimumPrefix: 1024 })
    assert.deepStrictEqual(marksOf(plan), [[7, "tools-and-system", "5m"], [11, "compacted", "5m"], [29, "tail", "5m"]])
  })

  it("read anchor: a call that appended 20 blocks or more marks the previous request's end", () => {
    const plan = CacheBreakpoints.plan({ blocks: blocks(40), boundaries: { previousEnd: 20 }, minimumPrefix: 1024 })
    assert.deepStrictEqual(marksOf(plan), [[19, "read-anchor", "5m"], [39, "tail", "5m"]])
  })

  it("read anchor: left out when the tail's lookback (its own block and 19 before) reaches it", () => {
    const within = CacheBreakpoints.plan({ blocks: blocks(40), boundaries: { previousEnd: 21 }, minimumPrefix: 1024 })
    assert.deepStrictEqual(marksOf(within), [[39, "tail", "5m"]])
    assert.strictEqual(whyOf(within, "read-anchor"), "within-lookback")
    const lookback10 = CacheBreakpoints.plan({ blocks: blocks(40), boundaries: { previousEnd: 21 }, minimumPrefix: 1024, lookback: 10 })
    assert.deepStrictEqual(marksOf(lookback10).map((m) => m[1]), ["read-anchor", "tail"])
  })

  it("read anchor: nothing appended (the previous end is the tail) is one mark", () => {
    const plan = CacheBreakpoints.plan({ blocks: blocks(40), boundaries: { previousEnd: 40 }, minimumPrefix: 1024 })
    assert.deepStrictEqual(marksOf(plan), [[39, "tail", "5m"]])
    assert.strictEqual(whyOf(plan, "read-anchor"), "same-block")
  })

  it("four marks at most: tail, read anchor, tools and system, compacted — in that priority", () => {
    const all = CacheBreakpoints.plan({
      blocks: blocks(60),
      boundaries: { toolsAndSystem: 8, compacted: 12, previousEnd: 30 },
      minimumPrefix: 1024
    })
    assert.deepStrictEqual(marksOf(all).map((m) => m[1]), ["tools-and-system", "compacted", "read-anchor", "tail"])
    const three = CacheBreakpoints.plan({
      blocks: blocks(60),
      boundaries: { toolsAndSystem: 8, compacted: 12, previousEnd: 30 },
      minimumPrefix: 1024,
      maxMarks: 3
    })
    assert.deepStrictEqual(marksOf(three).map((m) => m[1]), ["tools-and-system", "read-anchor", "tail"])
    assert.strictEqual(whyOf(three, "compacted"), "no-slot")
  })

  it("caller's marks: counted against the four and kept — the caller wins", () => {
    const window = blocks(60).map((b, i) => (i === 40 || i === 45 || i === 50 ? { ...b, mark: "5m" as const } : b))
    const plan = CacheBreakpoints.plan({
      blocks: window,
      boundaries: { toolsAndSystem: 8, compacted: 12, previousEnd: 30 },
      minimumPrefix: 1024
    })
    assert.deepStrictEqual(plan.callerMarks, [40, 45, 50])
    assert.deepStrictEqual(marksOf(plan), [[59, "tail", "5m"]])
    assert.strictEqual(whyOf(plan, "read-anchor"), "no-slot")
    const four = CacheBreakpoints.plan({ blocks: window.map((b, i) => (i === 55 ? { ...b, mark: "5m" as const } : b)), boundaries: {}, minimumPrefix: 1024 })
    assert.deepStrictEqual(four.marks, [])
    assert.strictEqual(whyOf(four, "tail"), "no-slot")
  })

  it("caller's marks: a boundary whose block the caller marked is not marked again", () => {
    const window = blocks(30).map((b, i) => (i === 7 ? { ...b, mark: "1h" as const } : b))
    const plan = CacheBreakpoints.plan({ blocks: window, boundaries: { toolsAndSystem: 8 }, minimumPrefix: 1024 })
    assert.strictEqual(whyOf(plan, "tools-and-system"), "caller-mark")
    assert.deepStrictEqual(marksOf(plan), [[29, "tail", "5m"]])
  })

  it("caller's mark on the tail: its lookback reaches the read anchor too", () => {
    const window = blocks(40).map((b, i) => (i === 39 ? { ...b, mark: "5m" as const } : b))
    const plan = CacheBreakpoints.plan({ blocks: window, boundaries: { previousEnd: 25 }, minimumPrefix: 1024 })
    assert.deepStrictEqual(plan.marks, [])
    assert.strictEqual(whyOf(plan, "read-anchor"), "within-lookback")
  })

  it("ttl: with stableTtl 1h the tools-and-system and compacted marks live an hour, before the 5-minute ones", () => {
    const plan = CacheBreakpoints.plan({
      blocks: blocks(60),
      boundaries: { toolsAndSystem: 8, compacted: 12, previousEnd: 30 },
      minimumPrefix: 1024,
      stableTtl: "1h"
    })
    assert.deepStrictEqual(marksOf(plan).map((m) => m[2]), ["1h", "1h", "5m", "5m"])
  })

  it("ttl: planned marks before the caller's 1-hour mark live an hour (a 1-hour mark never follows a 5-minute one)", () => {
    const window = blocks(40).map((b, i) => (i === 39 ? { ...b, mark: "1h" as const } : b))
    const plan = CacheBreakpoints.plan({ blocks: window, boundaries: { toolsAndSystem: 8, previousEnd: 10 }, minimumPrefix: 1024 })
    assert.deepStrictEqual(marksOf(plan), [[7, "tools-and-system", "1h"], [9, "read-anchor", "1h"]])
  })

  it("ttl: planned marks after the caller's 5-minute mark live 5 minutes", () => {
    const window = blocks(40).map((b, i) => (i === 5 ? { ...b, mark: "5m" as const } : b))
    const plan = CacheBreakpoints.plan({ blocks: window, boundaries: { toolsAndSystem: 8 }, minimumPrefix: 1024, stableTtl: "1h" })
    assert.deepStrictEqual(marksOf(plan), [[7, "tools-and-system", "5m"], [39, "tail", "5m"]])
  })

  it("boundaries outside the window are skipped, not marked", () => {
    const plan = CacheBreakpoints.plan({ blocks: blocks(10), boundaries: { previousEnd: 12, compacted: 0 }, minimumPrefix: 100 })
    assert.strictEqual(whyOf(plan, "read-anchor"), "out-of-range")
    assert.strictEqual(whyOf(plan, "compacted"), "out-of-range")
    assert.deepStrictEqual(marksOf(plan), [[9, "tail", "5m"]])
  })

  it("an empty window has no marks", () => {
    assert.deepStrictEqual(CacheBreakpoints.plan({ blocks: [], boundaries: {}, minimumPrefix: 0 }).marks, [])
  })

  it("property: at most four marks with the caller's; none below the minimum, none on a caller's block; lifetimes in order", () => {
    const window = fc.record({
      tokens: fc.array(fc.integer({ min: 0, max: 800 }), { minLength: 0, maxLength: 80 }),
      callers: fc.array(fc.tuple(fc.nat(79), fc.constantFrom("5m" as const, "1h" as const)), { maxLength: 5 }),
      toolsAndSystem: fc.option(fc.integer({ min: -2, max: 82 }), { nil: undefined }),
      compacted: fc.option(fc.integer({ min: -2, max: 82 }), { nil: undefined }),
      previousEnd: fc.option(fc.integer({ min: -2, max: 82 }), { nil: undefined }),
      minimumPrefix: fc.integer({ min: 0, max: 5000 }),
      stableTtl: fc.constantFrom("5m" as const, "1h" as const)
    })
    fc.assert(
      fc.property(window, (w) => {
        // The caller's marks in a valid order (1-hour ones first), as the provider requires.
        const callerIndices = [...new Set(w.callers.map(([i]) => i).filter((i) => i < w.tokens.length))].sort((a, b) => a - b)
        const ttlOf = new Map(callerIndices.map((i, k) => [i, k < callerIndices.length / 2 ? "1h" as const : "5m" as const]))
        const input = w.tokens.map((tokens, i) => ({ tokens, mark: ttlOf.get(i) }))
        const plan = CacheBreakpoints.plan({
          blocks: input,
          boundaries: { toolsAndSystem: w.toolsAndSystem, compacted: w.compacted, previousEnd: w.previousEnd },
          minimumPrefix: w.minimumPrefix,
          stableTtl: w.stableTtl
        })
        const prefix = (i: number) => w.tokens.slice(0, i + 1).reduce((a, b) => a + b, 0)
        assert.isAtMost(plan.marks.length, Math.max(0, 4 - callerIndices.length))
        for (const m of plan.marks) {
          assert.isAtLeast(prefix(m.index), w.minimumPrefix)
          assert.isFalse(ttlOf.has(m.index))
        }
        const indices = plan.marks.map((m) => m.index)
        assert.deepStrictEqual(indices, [...new Set(indices)].sort((a, b) => a - b))
        const all = [...plan.marks.map((m) => [m.index, m.ttl] as const), ...[...ttlOf].map(([i, t]) => [i, t] as const)]
          .sort((a, b) => a[0] - b[0])
        const firstShort = all.findIndex((m) => m[1] === "5m")
        assert.isTrue(firstShort < 0 || all.slice(firstShort).every((m) => m[1] === "5m"), JSON.stringify(all))
      }),
      { seed: 26, numRuns: 500 }
    )
  })
})

describe("CacheBreakpoints: the minimum prefix of Anthropic's models (a table as data)", () => {
  it("by the longest model-id prefix; 1,024 for a model not listed", () => {
    assert.strictEqual(CacheBreakpoints.anthropicMinimumPrefix("claude-sonnet-4-5-20250929"), 1024)
    assert.strictEqual(CacheBreakpoints.anthropicMinimumPrefix("claude-opus-4-5"), 4096)
    assert.strictEqual(CacheBreakpoints.anthropicMinimumPrefix("claude-opus-4-20250514"), 1024)
    assert.strictEqual(CacheBreakpoints.anthropicMinimumPrefix("claude-sonnet-4-6"), 2048)
    assert.strictEqual(CacheBreakpoints.anthropicMinimumPrefix("claude-haiku-4-5-20251001"), 4096)
    assert.strictEqual(CacheBreakpoints.anthropicMinimumPrefix("claude-3-5-haiku-latest"), 2048)
    assert.strictEqual(CacheBreakpoints.anthropicMinimumPrefix("some-new-model"), CacheBreakpoints.anthropicDefaultMinimum)
    assert.strictEqual(CacheBreakpoints.anthropicMinimumPrefix(undefined), 1024)
  })
})

describe("CacheBreakpoints.promptCacheKey", () => {
  it("a hash of the conversation key: stable, distinct per key, never the key itself", () => {
    const key = "alice@example.com/ticket 42"
    const hashed = CacheBreakpoints.promptCacheKey(key)
    assert.strictEqual(hashed, CacheBreakpoints.promptCacheKey(key))
    assert.notStrictEqual(hashed, CacheBreakpoints.promptCacheKey("bob@example.com/ticket 42"))
    assert.notInclude(hashed, "alice")
    assert.match(hashed, /^cupel-[0-9a-f]{32}$/)
  })
})

describe("CacheBreakpoints: a layer per provider", () => {
  const window: CacheBreakpoints.Window = { blocks: blocks(15), boundaries: { toolsAndSystem: 3 }, model: "claude-opus-4-5" }

  it.effect("Anthropic: the model's minimum prefix (3,000 tokens: below Opus 4.5's 4,096, above Sonnet 4.5's 1,024)", () =>
    Effect.gen(function*() {
      const planner = yield* CacheBreakpoints.CacheBreakpoints
      assert.strictEqual(planner.provider, "anthropic")
      assert.deepStrictEqual(marksOf(planner.plan(window)), [])
      assert.deepStrictEqual(marksOf(planner.plan({ ...window, model: "claude-sonnet-4-5" })), [[14, "tail", "5m"]])
      assert.deepStrictEqual(planner.settings("k"), {})
    }).pipe(Effect.provide(CacheBreakpoints.layerAnthropic())))

  it.effect("Anthropic with ttl 1h and a minimum of 500: the tools and system mark lives an hour", () =>
    Effect.gen(function*() {
      const planner = yield* CacheBreakpoints.CacheBreakpoints
      assert.deepStrictEqual(marksOf(planner.plan(window)), [[2, "tools-and-system", "1h"], [14, "tail", "5m"]])
    }).pipe(Effect.provide(CacheBreakpoints.layerAnthropic({ ttl: "1h", minimumPrefix: 500 }))))

  it.effect("OpenAI: no marks; the hashed prompt cache key and the retention asked for", () =>
    Effect.gen(function*() {
      const planner = yield* CacheBreakpoints.CacheBreakpoints
      assert.deepStrictEqual(planner.plan(window).marks, [])
      assert.deepStrictEqual(planner.settings("conversation-1"), {
        promptCacheKey: CacheBreakpoints.promptCacheKey("conversation-1"),
        promptCacheRetention: "24h"
      })
      assert.deepStrictEqual(planner.settings(undefined), { promptCacheRetention: "24h" })
    }).pipe(Effect.provide(CacheBreakpoints.layerOpenAI({ retention: "24h" }))))

  it.effect("none (Gemini's implicit caching needs nothing): no marks, no settings", () =>
    Effect.gen(function*() {
      const planner = yield* CacheBreakpoints.CacheBreakpoints
      assert.deepStrictEqual(planner.plan(window).marks, [])
      assert.deepStrictEqual(planner.settings("k"), {})
    }).pipe(Effect.provide(CacheBreakpoints.layerNone)))
})
