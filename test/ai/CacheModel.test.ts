import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import * as CacheModel from "../../src/ai/CacheModel.ts"

const { Anthropic1h, Anthropic5m, GeminiImplicit, OpenAI, predict } = CacheModel

/** A request that follows `previous` tokens after `seconds`, sharing `common` with it. */
const after = (previous: number, common: number, total: number, seconds = 10): CacheModel.Request => ({
  previousTokens: previous,
  commonPrefixTokens: common,
  totalTokens: total,
  secondsSincePrevious: seconds
})
const first = (total: number): CacheModel.Request => after(0, 0, total, Infinity)

/**
 * The rule as the module's documentation states it, transcribed literally: no previous request
 * or one older than the ttl reads nothing; `any` reads the common prefix rounded down to the
 * granularity, nothing below the minimum; `request-end` reads the whole previous request
 * (rounded down to the granularity) when this one starts with all of it and it reaches the
 * minimum; a request that reaches the minimum writes everything it did not read.
 */
const transcription = (rule: CacheModel.CacheRule, request: CacheModel.Request) => {
  const total = request.totalTokens
  const previous = request.previousTokens
  const common = Math.min(request.commonPrefixTokens, previous, total)
  let cached: number
  if (previous === 0) cached = 0
  else if (request.secondsSincePrevious > rule.ttlSeconds) cached = 0
  else if (rule.breakpoints === "any") {
    const rounded = Math.floor(common / rule.granularity) * rule.granularity
    cached = rounded < rule.minimumPrefix ? 0 : rounded
  } else {
    const whole = Math.floor(previous / rule.granularity) * rule.granularity
    cached = common >= previous && whole >= rule.minimumPrefix ? whole : 0
  }
  const written = total >= rule.minimumPrefix ? total - cached : 0
  const uncached = total - cached
  return {
    totalTokens: total,
    cachedTokens: cached,
    writtenTokens: written,
    uncachedTokens: uncached,
    cost: cached * rule.readPrice + written * rule.writePrice + (uncached - written) * 1,
    costWithoutCache: total
  }
}

const arbRule: fc.Arbitrary<CacheModel.CacheRule> = fc.record({
  minimumPrefix: fc.integer({ min: 0, max: 5000 }),
  granularity: fc.integer({ min: 1, max: 300 }),
  readPrice: fc.double({ min: 0, max: 1, noNaN: true }),
  writePrice: fc.double({ min: 0, max: 3, noNaN: true }),
  ttlSeconds: fc.integer({ min: 1, max: 7200 }),
  breakpoints: fc.constantFrom("request-end" as const, "any" as const)
}).map((fields) => new CacheModel.CacheRule({ name: "generated", ...fields }))

const arbRequest: fc.Arbitrary<CacheModel.Request> = fc
  .record({
    previous: fc.integer({ min: 0, max: 200_000 }),
    total: fc.integer({ min: 0, max: 200_000 }),
    shared: fc.double({ min: 0, max: 1, noNaN: true }),
    whole: fc.boolean(),
    seconds: fc.oneof(fc.integer({ min: 0, max: 8000 }), fc.constant(Infinity))
  })
  .map(({ previous, total, shared, whole, seconds }) => {
    const most = Math.min(previous, total)
    // Half the time the request starts with all of the previous one (an append), as in an agent loop.
    const common = whole ? most : Math.floor(most * shared)
    return after(previous, common, whole ? Math.max(total, previous) : total, seconds)
  })

describe("CacheModel rules", () => {
  it("minimum prefix: a prefix shorter than minimumPrefix is never read from the cache", () => {
    // 1,000 shared tokens are below the 1,024 minimum of every built-in rule.
    for (const rule of [OpenAI, Anthropic5m, Anthropic1h, GeminiImplicit]) {
      assert.strictEqual(predict(rule, after(1000, 1000, 1500)).cachedTokens, 0, rule.name)
      assert.isAbove(predict(rule, after(1100, 1100, 1500)).cachedTokens, 0, rule.name)
    }
  })

  it("granularity: the cached prefix is the common prefix rounded down to a multiple of granularity", () => {
    assert.strictEqual(predict(OpenAI, after(5000, 1023, 6000)).cachedTokens, 0)
    assert.strictEqual(predict(OpenAI, after(5000, 1024, 6000)).cachedTokens, 1024)
    assert.strictEqual(predict(OpenAI, after(5000, 1151, 6000)).cachedTokens, 1024)
    assert.strictEqual(predict(OpenAI, after(5000, 1152, 6000)).cachedTokens, 1152)
    assert.strictEqual(predict(OpenAI, after(5000, 1500, 6000)).cachedTokens, 1408)
    // Anthropic and Gemini match to the token.
    assert.strictEqual(predict(GeminiImplicit, after(5000, 1500, 6000)).cachedTokens, 1500)
  })

  it("ttl: a previous request older than ttlSeconds leaves nothing to read; at exactly the ttl it is still there", () => {
    assert.strictEqual(predict(Anthropic5m, after(5000, 5000, 6000, 300)).cachedTokens, 5000)
    assert.strictEqual(predict(Anthropic5m, after(5000, 5000, 6000, 301)).cachedTokens, 0)
    assert.strictEqual(predict(Anthropic1h, after(5000, 5000, 6000, 3600)).cachedTokens, 5000)
    assert.strictEqual(predict(Anthropic1h, after(5000, 5000, 6000, 3601)).cachedTokens, 0)
    assert.strictEqual(predict(OpenAI, after(5000, 5000, 6000, 301)).cachedTokens, 0)
  })

  it("no previous request: nothing is read, everything is written once the request reaches the minimum", () => {
    const p = predict(Anthropic5m, first(5000))
    assert.strictEqual(p.cachedTokens, 0)
    assert.strictEqual(p.writtenTokens, 5000)
    assert.strictEqual(p.cost, 6250)
  })

  it("request-end vs any: request-end reads only the whole previous request, any reads the common prefix wherever it ends", () => {
    // The new request shares 4,000 of the previous 5,000 tokens (the window was cut after them).
    assert.strictEqual(predict(Anthropic5m, after(5000, 4000, 4500)).cachedTokens, 0)
    assert.strictEqual(predict(GeminiImplicit, after(5000, 4000, 4500)).cachedTokens, 4000)
    assert.strictEqual(predict(OpenAI, after(5000, 4000, 4500)).cachedTokens, 3968)
    // An append: the previous request is a prefix of this one, read whole by both.
    assert.strictEqual(predict(Anthropic5m, after(5000, 5000, 5200)).cachedTokens, 5000)
    assert.strictEqual(predict(GeminiImplicit, after(5000, 5000, 5200)).cachedTokens, 5000)
    // An identical request: all of it is read.
    assert.strictEqual(predict(Anthropic5m, after(5000, 5000, 5000)).uncachedTokens, 0)
  })

  it("write pricing: what is not read is billed at writePrice when the request reaches the minimum, else at the base price", () => {
    const append = predict(Anthropic5m, after(10_000, 10_000, 10_500))
    assert.deepStrictEqual(
      { cached: append.cachedTokens, written: append.writtenTokens, uncached: append.uncachedTokens, cost: append.cost },
      { cached: 10_000, written: 500, uncached: 500, cost: 10_000 * 0.1 + 500 * 1.25 }
    )
    assert.strictEqual(predict(Anthropic1h, after(10_000, 10_000, 10_500)).cost, 10_000 * 0.1 + 500 * 2)
    // Below the minimum nothing is written: the base price.
    const short = predict(Anthropic5m, first(900))
    assert.strictEqual(short.writtenTokens, 0)
    assert.strictEqual(short.cost, 900)
    // OpenAI and Gemini write at no premium.
    assert.strictEqual(predict(OpenAI, first(5000)).cost, 5000)
  })

  it("cost vs no caching: an append costs the read price on the old prefix, and never more than writing it all", () => {
    const openai = predict(OpenAI, after(10_000, 10_000, 10_500))
    assert.strictEqual(openai.cachedTokens, 9984)
    assert.strictEqual(openai.cost, 9984 * 0.5 + 516)
    assert.strictEqual(openai.costWithoutCache, 10_500)
    // A request that changes right after its first tokens costs more than no caching under Anthropic…
    const moved = predict(Anthropic5m, after(10_000, 200, 10_500))
    assert.strictEqual(moved.cost, 10_500 * 1.25)
    assert.isAbove(moved.cost / moved.costWithoutCache, 1)
    // …and the same as no caching under OpenAI.
    assert.strictEqual(predict(OpenAI, after(10_000, 200, 10_500)).cost, 10_500)
  })

  it("inputs out of range are read as the nearest meaningful ones (negative or non-finite tokens as 0, common prefix at most the shorter request)", () => {
    assert.strictEqual(predict(GeminiImplicit, after(5000, 9000, 6000)).cachedTokens, 5000)
    assert.strictEqual(predict(GeminiImplicit, after(5000, 9000, 3000)).cachedTokens, 3000)
    const odd = predict(GeminiImplicit, after(Number.NaN, 100, -5))
    assert.strictEqual(odd.totalTokens, 0)
    assert.strictEqual(odd.cost, 0)
  })

  it("predict agrees with a literal transcription of the rule on generated rules and requests", () => {
    fc.assert(
      fc.property(arbRule, arbRequest, (rule, request) => {
        const got = predict(rule, request)
        const want = transcription(rule, request)
        assert.deepStrictEqual({ ...got }, want)
        assert.strictEqual(got.cachedTokens + got.uncachedTokens, got.totalTokens)
        assert.isAtMost(got.writtenTokens, got.uncachedTokens)
        assert.isAtMost(got.cachedTokens, Math.min(request.commonPrefixTokens, request.previousTokens, request.totalTokens))
      }),
      { numRuns: 2000 }
    )
  })
})

describe("CacheModel constants", () => {
  it("the built-in rules carry the providers' documented defaults", () => {
    const row = (r: CacheModel.CacheRule) => [r.minimumPrefix, r.granularity, r.readPrice, r.writePrice, r.ttlSeconds, r.breakpoints]
    assert.deepStrictEqual(row(OpenAI), [1024, 128, 0.5, 1, 300, "any"])
    assert.deepStrictEqual(row(Anthropic5m), [1024, 1, 0.1, 1.25, 300, "request-end"])
    assert.deepStrictEqual(row(Anthropic1h), [1024, 1, 0.1, 2, 3600, "request-end"])
    assert.deepStrictEqual(row(GeminiImplicit), [1024, 1, 0.1, 1, 300, "any"])
  })
})

describe("CacheModel JSON", () => {
  it.effect("encode then decode gives each built-in rule back", () =>
    Effect.gen(function*() {
      for (const rule of [OpenAI, Anthropic5m, Anthropic1h, GeminiImplicit]) {
        const text = yield* CacheModel.encodeJson(rule)
        const back = yield* CacheModel.decodeJson(text)
        assert.deepStrictEqual({ ...back }, { ...rule })
        assert.instanceOf(back, CacheModel.CacheRule)
      }
    }))

  it.effect("decoding lists every broken field with a message that names it", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(CacheModel.decode({
        name: "",
        minimumPrefix: -1,
        granularity: 0,
        readPrice: -0.5,
        writePrice: "1.25",
        ttlSeconds: 0,
        breakpoints: "end",
        discount: 0.9
      }))
      const message = error.message
      for (
        const expected of [
          "name must not be empty",
          "minimumPrefix must be a whole number of tokens >= 0, got -1",
          "granularity must be a whole number of tokens >= 1, got 0",
          "readPrice must be a finite number >= 0 (a multiple of the base input price), got -0.5",
          `at ["writePrice"]`,
          "ttlSeconds must be a finite number of seconds > 0, got 0",
          `breakpoints must be "request-end" or "any"`,
          `is not a field of a cache rule`
        ]
      ) assert.include(message, expected)
    }))

  it.effect("malformed JSON is a SchemaError, not a throw; make validates as decode does", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(CacheModel.decodeJson("{"))
      assert.strictEqual(error._tag, "SchemaError")
      const made = yield* Effect.flip(CacheModel.make({ ...OpenAI, granularity: 1.5 }))
      assert.include(made.message, "granularity must be a whole number of tokens >= 1, got 1.5")
      const ok = yield* CacheModel.make({ ...OpenAI, name: "openai-gpt-4.1", readPrice: 0.25 })
      assert.strictEqual(ok.readPrice, 0.25)
    }))
})

/**
 * A session of `cycles` compaction cycles: the window grows by `growth` tokens a call from the
 * low watermark λ·T until one more call would pass the target T, then is cut back to λ·T (the
 * cut's request shares nothing with the previous one). Returns the input cost relative to no
 * caching over the cycles after the first.
 */
const simulate = (rule: CacheModel.CacheRule, target: number, growth: number, lambda: number, cycles: number) => {
  const low = Math.round(lambda * target)
  let previous = 0
  let window = low
  let cut = 0
  let cost = 0
  let base = 0
  let fresh = true
  while (cut <= cycles) {
    let request: CacheModel.Request
    if (fresh) {
      request = after(previous, 0, window)
      fresh = false
    } else {
      request = after(previous, previous, previous + growth)
      window = previous + growth
    }
    const p = predict(rule, request)
    if (cut > 0) {
      cost += p.cost
      base += p.costWithoutCache
    }
    previous = window
    if (window + growth > target) {
      window = low
      fresh = true
      cut++
    }
  }
  return cost / base
}

describe("lowWatermark", () => {
  it("the cycle cost f(λ) = r + 2(w − r)ε/(1 − λ²) matches a simulated session of cycles", () => {
    const target = 100_000
    for (const rule of [Anthropic5m, Anthropic1h, OpenAI, GeminiImplicit]) {
      const r = rule.readPrice
      for (const growth of [20, 200, 1000]) {
        for (const lambda of [0.3, 0.5, 0.6, 0.8, 0.9]) {
          const epsilon = growth / target
          // Compare the write overhead f − r, the term the watermark is chosen by.
          const simulated = simulate(rule, target, growth, lambda, 30) - r
          const closed = CacheModel.cycleCost(rule, lambda, epsilon) - r
          // The closed form is the limit of small steps: a cycle of n = (1 − λ)/ε calls has n + 1
          // requests, so a real session's write term is smaller by about ε/(1 − λ) of itself;
          // and a granularity above 1 leaves granularity/2 tokens a call unread on average.
          const rounding = rule.granularity > 1 ? ((1 - r) * rule.granularity) / ((1 + lambda) * target) : 0
          const tolerance = closed * (epsilon / (1 - lambda)) * 1.2 + rounding + 1e-6
          assert.approximately(simulated, closed, tolerance, `${rule.name} g=${growth} λ=${lambda}`)
        }
      }
    }
    // At small steps the two agree to a fraction of a percent (written with w instead of w − r,
    // the overhead would be 9% too high under Anthropic 5m, 100% under OpenAI).
    const fine = new CacheModel.CacheRule({ ...OpenAI, name: "openai-by-the-token", granularity: 1 })
    for (const rule of [Anthropic5m, Anthropic1h, GeminiImplicit, fine]) {
      const simulated = simulate(rule, target, 20, 0.6, 10) - rule.readPrice
      const closed = CacheModel.cycleCost(rule, 0.6, 20 / target) - rule.readPrice
      assert.approximately(simulated, closed, 0.002 * closed, rule.name)
    }
  })

  it("the default keeps the amortised write overhead f − r at writeOverhead, at the most context that allows", () => {
    const rule = Anthropic5m
    const target = 100_000
    for (const [growth, overhead] of [[1000, 0.1], [2000, 0.1], [1000, 0.05], [300, 0.02]] as const) {
      const lambda = CacheModel.lowWatermark(rule, { growthPerCall: growth, targetTokens: target, writeOverhead: overhead })
      const epsilon = growth / target
      assert.isBelow(lambda, 0.9)
      assert.isAbove(lambda, 0.25)
      assert.approximately(CacheModel.cycleCost(rule, lambda, epsilon) - rule.readPrice, overhead, 1e-9)
      // A shallower cut costs more than the overhead allows, a deeper one less.
      assert.isAbove(CacheModel.cycleCost(rule, lambda + 0.02, epsilon) - rule.readPrice, overhead)
      assert.isBelow(CacheModel.cycleCost(rule, lambda - 0.02, epsilon) - rule.readPrice, overhead)
    }
    // On a simulated session at small steps, the overhead at the default is the one asked for.
    const lambda = CacheModel.lowWatermark(rule, { growthPerCall: 100, targetTokens: target, writeOverhead: 0.01 })
    assert.approximately(simulate(rule, target, 100, lambda, 20) - rule.readPrice, 0.01, 0.0005)
    // The module's example: ε = 0.01, λ = √(1 − 2 · 1.15 · 0.01 / 0.1).
    assert.approximately(
      CacheModel.lowWatermark(Anthropic5m, { growthPerCall: 1_000, targetTokens: 100_000 }),
      Math.sqrt(0.77),
      1e-12
    )
  })

  it("clamping: the watermark stays within [0.25, 0.9], 0.25 when the root is not real or an input is out of range", () => {
    const at = (growthPerCall: number, targetTokens = 100_000, writeOverhead?: number) =>
      CacheModel.lowWatermark(Anthropic5m, { growthPerCall, targetTokens, writeOverhead })
    // No growth: no writes to amortise, the shallowest cut.
    assert.strictEqual(at(0), 0.9)
    assert.strictEqual(at(100), 0.9)
    // Growth so fast that even the deepest cut overruns the overhead: the root is not real.
    assert.strictEqual(at(10_000), 0.25)
    // Real root below 0.25: clamped up.
    const epsilonAtQuarter = ((1 - 0.2 * 0.2) * 0.1) / (2 * 1.15)
    assert.strictEqual(at(Math.round(epsilonAtQuarter * 100_000)), 0.25)
    for (const bad of [at(-1), at(Number.NaN), at(100, 0), at(100, -5), at(100, 100_000, 0), at(100, 100_000, -1)]) {
      assert.strictEqual(bad, 0.25)
    }
    // A rule whose writes cost no more than its reads has no write overhead.
    const flat = new CacheModel.CacheRule({ ...OpenAI, name: "flat", readPrice: 1, writePrice: 1 })
    assert.strictEqual(CacheModel.lowWatermark(flat, { growthPerCall: 5_000, targetTokens: 100_000 }), 0.9)
  })
})
