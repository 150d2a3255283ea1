/**
 * Why a call missed (src/ai/CacheMiss.ts; docs/ai.md, "Why a call missed", rules M1–M4): each
 * cause injected into a request that otherwise repeats the previous one, and named; and a
 * property over generated requests.
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import * as fc from "fast-check"
import * as CacheMiss from "../../src/ai/CacheMiss.ts"

const anthropic: CacheMiss.Rule = { ttlSeconds: 300, granularity: 1, breakpoints: "request-end", minimumPrefix: 1024, lookback: 20 }
const openai: CacheMiss.Rule = { ttlSeconds: 300, granularity: 128, breakpoints: "any", minimumPrefix: 1024, lookback: 20 }

const tool = (name: string, fields: Partial<CacheMiss.Tool> = {}): CacheMiss.Tool => ({
  name,
  description: `d-${name}`,
  parameters: `p-${name}`,
  flags: "",
  ...fields
})

const message = (hash: string, blocks = 1): CacheMiss.Message => ({ hash, blocks })

const previous: CacheMiss.Descriptor = {
  at: 1_000_000,
  tools: [tool("read_file"), tool("grep"), tool("run_tests")],
  system: "system-1",
  systemBlocks: 1,
  messages: [message("u1"), message("a1", 2), message("t1"), message("a2")]
}

/** The previous request with two new messages, 5 s later: a call that appends. */
const appended: CacheMiss.Descriptor = { ...previous, at: previous.at + 5_000, messages: [...previous.messages, message("t2"), message("a3")] }

const input = (current: CacheMiss.Descriptor, fields: Partial<CacheMiss.Input> = {}): CacheMiss.Input => ({
  previous,
  current,
  cachedTokens: 0,
  previousTokens: 5_000,
  source: "billed",
  compaction: false,
  rule: anthropic,
  ...fields
})

const causeOf = (current: CacheMiss.Descriptor, fields: Partial<CacheMiss.Input> = {}) =>
  CacheMiss.missOf(input(current, fields))?.cause

describe("CacheMiss.missOf", () => {
  it("M1: a call that read all of its previous request did not miss", () => {
    assert.isUndefined(CacheMiss.missOf(input(appended, { cachedTokens: 5_000 })))
    assert.isUndefined(CacheMiss.missOf(input(appended, { cachedTokens: 5_100 })))
  })

  it("M1: OpenAI's 128-token steps: a read short of the previous request by less than a step is no miss", () => {
    assert.isUndefined(CacheMiss.missOf(input(appended, { cachedTokens: 4_992, rule: openai })))
    assert.isDefined(CacheMiss.missOf(input(appended, { cachedTokens: 4_872, rule: openai })))
  })

  it("M1: the figures and their source are in the miss", () => {
    const miss = CacheMiss.missOf(input(appended, { cachedTokens: 1_200, previousTokens: 5_000, source: "predicted" }))
    assert.deepStrictEqual(
      { cachedTokens: miss?.cachedTokens, previousTokens: miss?.previousTokens, source: miss?.source },
      { cachedTokens: 1_200, previousTokens: 5_000, source: "predicted" }
    )
  })

  it("M4: no previous request (0 tokens) is no miss", () => {
    assert.isUndefined(CacheMiss.missOf(input(appended, { previousTokens: 0 })))
  })

  it("tool reordered: tools-changed, the first tool out of place, field order", () => {
    const current = { ...appended, tools: [tool("grep"), tool("read_file"), tool("run_tests")] }
    assert.deepStrictEqual(causeOf(current), { _tag: "tools-changed", tool: "read_file", field: "order" })
  })

  it("flag added: tools-changed, the tool, field flags", () => {
    const current = { ...appended, tools: [tool("read_file"), tool("grep", { flags: "eager" }), tool("run_tests")] }
    assert.deepStrictEqual(causeOf(current), { _tag: "tools-changed", tool: "grep", field: "flags" })
  })

  it("tools-changed: description, parameters, renamed, added and removed are each named", () => {
    const at = (tools: ReadonlyArray<CacheMiss.Tool>) => causeOf({ ...appended, tools })
    assert.deepStrictEqual(at([tool("read_file", { description: "new" }), tool("grep"), tool("run_tests")]), {
      _tag: "tools-changed",
      tool: "read_file",
      field: "description"
    })
    assert.deepStrictEqual(at([tool("read_file"), tool("grep"), tool("run_tests", { parameters: "new" })]), {
      _tag: "tools-changed",
      tool: "run_tests",
      field: "parameters"
    })
    assert.deepStrictEqual(at([tool("read_file"), tool("search"), tool("run_tests")]), {
      _tag: "tools-changed",
      tool: "grep",
      field: "name"
    })
    assert.deepStrictEqual(at([tool("read_file"), tool("grep"), tool("run_tests"), tool("http_get")]), {
      _tag: "tools-changed",
      tool: "http_get",
      field: "added"
    })
    assert.deepStrictEqual(at([tool("read_file"), tool("http_get"), tool("grep"), tool("run_tests")]), {
      _tag: "tools-changed",
      tool: "http_get",
      field: "added"
    })
    assert.deepStrictEqual(at([tool("read_file"), tool("run_tests")]), { _tag: "tools-changed", tool: "grep", field: "removed" })
  })

  it("system edited: system-changed", () => {
    assert.deepStrictEqual(causeOf({ ...appended, system: "system-2" }), { _tag: "system-changed" })
    assert.deepStrictEqual(causeOf({ ...appended, systemBlocks: 2 }), { _tag: "system-changed" })
  })

  it("earlier message edited: message-changed, with its position", () => {
    const messages = appended.messages.map((m, i) => (i === 2 ? message("t1-edited") : m))
    assert.deepStrictEqual(causeOf({ ...appended, messages }), { _tag: "message-changed", message: 2 })
    // A message whose parts changed in number is changed too.
    const split = appended.messages.map((m, i) => (i === 1 ? message("a1", 3) : m))
    assert.deepStrictEqual(causeOf({ ...appended, messages: split }), { _tag: "message-changed", message: 1 })
  })

  it("compaction: a planned compaction is named, with the first message it changed", () => {
    const compacted = { ...appended, messages: [message("summary"), message("a2"), message("t2")] }
    assert.deepStrictEqual(causeOf(compacted, { compaction: true }), { _tag: "compaction", message: 0 })
    // The same change unplanned is an edit of the caller's history.
    assert.deepStrictEqual(causeOf(compacted), { _tag: "message-changed", message: 0 })
  })

  it("TTL expired: expired, with the time since the previous call and the lifetime", () => {
    const late = { ...appended, at: previous.at + 400_000 }
    assert.deepStrictEqual(causeOf(late), { _tag: "expired", seconds: 400, ttlSeconds: 300 })
    // Exactly at the lifetime is still in time.
    assert.notStrictEqual(causeOf({ ...appended, at: previous.at + 300_000 })?._tag, "expired")
  })

  it("expired comes first: a request that also changed its system prompt, too late, expired", () => {
    assert.strictEqual(causeOf({ ...appended, at: previous.at + 400_000, system: "other" })?._tag, "expired")
  })

  it(">20 blocks appended: lookback-exceeded, with the blocks appended", () => {
    const many = { ...appended, messages: [...previous.messages, ...Array.from({ length: 12 }, (_, i) => message(`x${i}`, 2))] }
    assert.deepStrictEqual(causeOf(many), { _tag: "lookback-exceeded", appendedBlocks: 24, lookback: 20 })
    // 19 blocks are within reach: the provider did not report the read.
    const fewer = { ...appended, messages: [...previous.messages, ...Array.from({ length: 19 }, (_, i) => message(`x${i}`))] }
    assert.strictEqual(causeOf(fewer)?._tag, "not-reported")
  })

  it("lookback-exceeded only where the cache is read at request ends (Anthropic), not OpenAI's", () => {
    const many = { ...appended, messages: [...previous.messages, ...Array.from({ length: 30 }, (_, i) => message(`x${i}`))] }
    assert.strictEqual(causeOf(many, { rule: openai })?._tag, "not-reported")
  })

  it("below minimum: below-minimum, with the prefix and the model's minimum", () => {
    assert.deepStrictEqual(causeOf(appended, { previousTokens: 900, rule: { ...anthropic, minimumPrefix: 4096 } }), {
      _tag: "below-minimum",
      prefixTokens: 900,
      minimumPrefix: 4096
    })
  })

  it("not-reported: the prefix was intact and in time, and the provider read none of it", () => {
    assert.deepStrictEqual(causeOf(appended, { previousCacheWrite: 0 }), { _tag: "not-reported", previousCacheWrite: 0 })
    assert.deepStrictEqual(causeOf(appended), { _tag: "not-reported" })
  })

  it("a miss encodes and decodes as its Schema (the log's form)", () => {
    const miss = CacheMiss.missOf(input({ ...appended, system: "other" }))!
    const json = Schema.encodeSync(CacheMiss.Miss)(miss)
    assert.deepStrictEqual(Schema.decodeUnknownSync(CacheMiss.Miss)(JSON.parse(JSON.stringify(json))), miss)
  })

  it("every cause has words", () => {
    const samples: ReadonlyArray<CacheMiss.Cause> = [
      { _tag: "expired", seconds: 400, ttlSeconds: 300 },
      { _tag: "tools-changed", tool: "grep", field: "flags" },
      { _tag: "tools-changed", tool: "grep", field: "order" },
      { _tag: "system-changed" },
      { _tag: "compaction", message: 3 },
      { _tag: "message-changed", message: 3 },
      { _tag: "below-minimum", prefixTokens: 900, minimumPrefix: 1024 },
      { _tag: "lookback-exceeded", appendedBlocks: 24, lookback: 20 },
      { _tag: "not-reported", previousCacheWrite: 0 }
    ]
    for (const cause of samples) assert.isAbove(CacheMiss.describe(cause).length, 10)
    assert.deepStrictEqual([...new Set(samples.map((c) => c._tag))], CacheMiss.causes)
  })
})

describe("CacheMiss.missOf over generated requests", () => {
  const descriptor = fc.record({
    tools: fc.uniqueArray(fc.constantFrom("a", "b", "c", "d", "e", "f"), { minLength: 2, maxLength: 6 }),
    messages: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 2, maxLength: 30 })
  }).map(({ messages, tools }): CacheMiss.Descriptor => ({
    at: 0,
    tools: tools.map((name) => tool(name)),
    system: "s",
    systemBlocks: 1,
    messages: messages.map((blocks, i) => message(`m${i}`, blocks))
  }))
  const injected = fc.constantFrom(...CacheMiss.causes)

  it("M3: one cause injected into a request that appends a step is the cause named", () => {
    fc.assert(
      fc.property(descriptor, injected, fc.nat(), (before, cause, pick) => {
        let current: CacheMiss.Descriptor = { ...before, at: 5_000, messages: [...before.messages, message("new")] }
        const fields: Partial<CacheMiss.Input> = { previous: before }
        const k = pick % before.messages.length
        switch (cause) {
          case "expired":
            current = { ...current, at: 301_000 }
            break
          case "tools-changed":
            current = { ...current, tools: [...before.tools.slice(1), before.tools[0]!] }
            break
          case "system-changed":
            current = { ...current, system: "s2" }
            break
          case "compaction":
          case "message-changed":
            current = { ...current, messages: current.messages.map((m, i) => (i === k ? message(`${m.hash}'`, m.blocks) : m)) }
            Object.assign(fields, { compaction: cause === "compaction" })
            break
          case "below-minimum":
            Object.assign(fields, { previousTokens: 500 })
            break
          case "lookback-exceeded":
            current = { ...current, messages: [...before.messages, ...Array.from({ length: 20 }, (_, i) => message(`n${i}`))] }
            break
          case "not-reported":
            break
        }
        const named = CacheMiss.missOf(input(current, fields))?.cause
        assert.strictEqual(named?._tag, cause)
        if (named?._tag === "compaction" || named?._tag === "message-changed") assert.strictEqual(named.message, k)
      }),
      { seed: 26, numRuns: 300 }
    )
  })
})
