/**
 * The LangChain adapter through LangChain's real provider clients (issue 29; docs/design.md
 * item 100): `ChatAnthropic` (`clientOptions.fetch`) and `ChatOpenAI` (`configuration.fetch`)
 * answered by the fake endpoints that apply each provider's documented cache rules
 * (docs/providers.md A1–A12, O1–O8), in a `createAgent` tool loop over a generated session with
 * the adapter's middleware (test/support/langchainProviders.ts). What is checked is on the wire
 * (the request bodies the clients sent) and in what is billed, read back through LangChain's
 * own `usage_metadata.input_token_details`.
 */
import { ChatAnthropic } from "@langchain/anthropic"
import { assert, describe, it } from "@effect/vitest"
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages"
import * as LangChain from "../../src/adapters/LangChain.ts"
import * as LangChainCacheMarks from "../../src/adapters/LangChainCacheMarks.ts"
import * as CacheBreakpoints from "../../src/ai/CacheBreakpoints.ts"
import * as FakeAnthropic from "../support/fakeAnthropic.ts"
import { canonical, isRecord } from "../support/fakeProvider.ts"
import { type ProviderRun, runProviderSession, wireMarks } from "../support/langchainProviders.ts"
import { generate } from "../support/sessions.ts"

const settings = { contextWindow: 32_000, outputReserve: 4096 } as const
/** The billed read share may differ from the predicted one by at most this (one point). */
const tolerance = 0.01
/** Steady state: the calls from this one on (the first ones write the conversation's prefix). */
const steadyFrom = 10

const list = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])

/** An Anthropic body's blocks in prefix order (A3), as the fake names them: without their marks. */
const blocksOf = (body: Record<string, unknown>): Array<string> => {
  const strip = (block: unknown) => {
    if (!isRecord(block)) return block
    const { cache_control: _, ...rest } = block
    return rest
  }
  const out = list(body["tools"]).map((t) => canonical({ at: "tools", block: strip(t) }))
  const system = body["system"]
  for (const block of typeof system === "string" ? [{ type: "text", text: system }] : list(system)) {
    out.push(canonical({ at: "system", block: strip(block) }))
  }
  for (const message of list(body["messages"])) {
    if (!isRecord(message)) continue
    const content = message["content"]
    const parts = typeof content === "string" ? [{ type: "text", text: content }] : list(content)
    parts.forEach((block, j) => out.push(canonical({ at: message["role"], opens: j === 0, block: strip(block) })))
  }
  return out
}

/** The tool_use ids and tool_result ids an Anthropic body pairs, and those left unpaired. */
const wireOrphans = (body: Record<string, unknown>): Array<string> => {
  const uses = new Set<string>()
  const results = new Set<string>()
  for (const message of list(body["messages"])) {
    if (!isRecord(message)) continue
    for (const block of list(message["content"])) {
      if (!isRecord(block)) continue
      if (block["type"] === "tool_use") uses.add(String(block["id"]))
      if (block["type"] === "tool_result") results.add(String(block["tool_use_id"]))
    }
  }
  return [...[...uses].filter((id) => !results.has(id)), ...[...results].filter((id) => !uses.has(id))]
}

/** Every cache_control anywhere in LangChain messages' content (the agent's state must have none). */
const stateMarks = (messages: ReadonlyArray<BaseMessage>) =>
  messages.flatMap((m) => (JSON.stringify(m.content).includes("cache_control") ? [m.type] : []))

/** What LangChain's `usage_metadata` of an answer says was billed. */
const usageOf = (answer: BaseMessage) => {
  const usage: unknown = "usage_metadata" in answer ? answer.usage_metadata : undefined
  if (!isRecord(usage) || typeof usage["input_tokens"] !== "number") throw new Error("an answer without usage_metadata")
  const details = isRecord(usage["input_token_details"]) ? usage["input_token_details"] : {}
  const figure = (value: unknown) => (typeof value === "number" ? value : 0)
  return { total: usage["input_tokens"], read: figure(details["cache_read"]), written: figure(details["cache_creation"]) }
}

/** Billed (LangChain's usage_metadata) beside predicted (the reports), from call `from` on. */
const shares = (run: ProviderRun, reports: ReadonlyArray<LangChain.Report>, from: number) => {
  let total = 0
  let read = 0
  let predictedTotal = 0
  let predictedRead = 0
  run.answers.forEach((answer, k) => {
    if (k < from) return
    const usage = usageOf(answer)
    total += usage.total
    read += usage.read
    const prediction = reports[k]?.prediction
    assert.isDefined(prediction, `call ${k} has no prediction`)
    predictedTotal += prediction!.totalTokens
    predictedRead += prediction!.cachedTokens
  })
  return { billed: read / total, predicted: predictedRead / predictedTotal }
}

const percent = (share: number) => `${(share * 100).toFixed(1)}%`

describe("LangChain adapter through ChatAnthropic and ChatOpenAI (fake endpoints, issue 29)", () => {
  const session = generate("tool-heavy", 150, 18)

  it("ChatAnthropic, tool-heavy at 32k: ≤ 4 marks on the stable prefix, the state unmarked, billed read ≥ 0.90 and within a point of the prediction", async () => {
    const reports: Array<LangChain.Report> = []
    const run = await runProviderSession(session, "anthropic", [
      LangChain.middleware({ ...settings, onReport: (r) => void reports.push(r) })
    ])
    const calls = run.anthropic.calls
    assert.isAtLeast(calls.length, 150)
    assert.strictEqual(reports.length, calls.length)
    assert.isTrue(calls.every((call) => call.status === 200), "the fake refused a request")
    let compactions = 0
    let marked = 0
    calls.forEach((call, k) => {
      const body = run.bodies[k]!
      const marks = wireMarks(body)
      assert.isAtMost(marks.length, 4, `request ${k}`)
      assert.isAbove(marks.length, 0, `request ${k} has no mark`)
      // Every mark ends a top-level block (A1): none nested in a tool_result's content.
      assert.deepStrictEqual(marks.filter((m) => m.nested), [], `request ${k}`)
      assert.deepStrictEqual(wireOrphans(body), [], `request ${k}`)
      marked += call.marks.length
      // The fake saw the marks the body carries.
      assert.strictEqual(call.marks.length, marks.length)
      const next = run.bodies[k + 1]
      if (next === undefined) return
      if (reports[k + 1]!.change?.action === "compact") {
        compactions++
        return
      }
      // The stable prefix: the next request repeats this one's blocks, so every mark of this
      // one is on a block the next one sends again, byte for byte (none on a moving part).
      const mine = blocksOf(body)
      assert.deepStrictEqual(blocksOf(next).slice(0, mine.length), mine, `request ${k + 1} does not extend request ${k}`)
      for (const mark of call.marks) assert.isBelow(mark.index, mine.length)
    })
    assert.isAbove(compactions, 0)
    assert.isAbove(marked, calls.length - 1)
    for (const state of run.states) assert.deepStrictEqual(stateMarks(state), [])
    assert.deepStrictEqual(stateMarks(run.messages), [])
    // LangChain's usage_metadata is the fake's bill (input_tokens = uncached + read + written).
    run.answers.forEach((answer, k) => {
      const usage = calls[k]!.usage!
      assert.deepStrictEqual(usageOf(answer), {
        total: FakeAnthropic.totalOf(usage),
        read: usage.cache_read_input_tokens,
        written: usage.cache_creation_input_tokens
      })
    })
    const all = shares(run, reports, 0)
    const steady = shares(run, reports, steadyFrom)
    console.log(
      `LangChain + ChatAnthropic, tool-heavy 150 steps at 32k: billed read ${percent(all.billed)} ` +
        `(predicted ${percent(all.predicted)}); from call ${steadyFrom}: ${percent(steady.billed)} ` +
        `(predicted ${percent(steady.predicted)}); ${calls.length} calls, ${compactions} compactions, ` +
        `at most ${Math.max(...calls.map((c) => c.marks.length))} marks`
    )
    assert.isAtLeast(steady.billed, 0.9)
    assert.approximately(all.billed, all.predicted, tolerance)
    assert.approximately(steady.billed, steady.predicted, tolerance)
  })

  it("ChatOpenAI, tool-heavy at 32k: every request carries the thread's prompt_cache_key, billed read ≥ 0.90 and within a point of the prediction", async () => {
    const reports: Array<LangChain.Report> = []
    const run = await runProviderSession(session, "openai", [
      LangChain.middleware({ ...settings, onReport: (r) => void reports.push(r) })
    ], { threadId: "thread-a" })
    const calls = run.openai.calls
    assert.isAtLeast(calls.length, 150)
    const keys = new Set(calls.map((call) => call.promptCacheKey))
    assert.deepStrictEqual([...keys], [CacheBreakpoints.promptCacheKey("langchain-thread:thread-a")])
    // No retention unless asked for (the provider's default, in memory).
    assert.isTrue(run.bodies.every((body) => !("prompt_cache_retention" in body)))
    run.answers.forEach((answer, k) => {
      const usage = usageOf(answer)
      assert.strictEqual(usage.total, calls[k]!.promptTokens)
      assert.strictEqual(usage.read, calls[k]!.cachedTokens)
    })
    const all = shares(run, reports, 0)
    const steady = shares(run, reports, steadyFrom)
    console.log(
      `LangChain + ChatOpenAI, tool-heavy 150 steps at 32k: billed read ${percent(all.billed)} ` +
        `(predicted ${percent(all.predicted)}); from call ${steadyFrom}: ${percent(steady.billed)} ` +
        `(predicted ${percent(steady.predicted)}); ${calls.length} calls`
    )
    assert.isAtLeast(steady.billed, 0.9)
    assert.approximately(all.billed, all.predicted, tolerance)
    assert.approximately(steady.billed, steady.predicted, tolerance)
  })

  it("ChatOpenAI: promptCache.retention is sent as prompt_cache_retention (promptCacheRetention is the client's own call option)", async () => {
    const run = await runProviderSession(generate("tool-heavy", 4, 2), "openai", [
      LangChain.middleware({ ...settings, promptCache: { retention: "24h" } })
    ])
    assert.isAbove(run.bodies.length, 0)
    for (const body of run.bodies) {
      assert.strictEqual(body["prompt_cache_retention"], "24h")
      assert.match(String(body["prompt_cache_key"]), /^cupel-[0-9a-f]{32}$/)
    }
  })

  for (const provider of ["anthropic", "openai"] as const) {
    it(`${provider}: each report carries what was billed (CallReport.Reported), read from usage_metadata`, async () => {
      const reports: Array<LangChain.Report> = []
      const run = await runProviderSession(generate("tool-heavy", 12, 3), provider, [
        LangChain.middleware({ ...settings, onReport: (r) => void reports.push(r) })
      ])
      assert.strictEqual(reports.length, run.answers.length)
      run.answers.forEach((answer, k) => {
        const usage = usageOf(answer)
        const reported = reports[k]!.reported
        assert.isDefined(reported)
        assert.strictEqual(reported!.total, usage.total)
        assert.strictEqual(reported!.cacheRead, usage.read)
        assert.strictEqual(reported!.uncached, usage.total - usage.read - usage.written)
        if (provider === "anthropic") assert.strictEqual(reported!.cacheWrite, usage.written)
        assert.strictEqual(reported!.model, provider === "anthropic" ? "claude-sonnet-4-5" : "gpt-4o")
      })
      assert.isAbove(reports.at(-1)!.reported!.cacheRead!, 0)
    })
  }

  it("ChatAnthropic: a compaction's miss is explained from the billed figures (CacheMiss, source billed)", async () => {
    const reports: Array<LangChain.Report> = []
    await runProviderSession(generate("tool-heavy", 80, 18), "anthropic", [
      LangChain.middleware({ ...settings, onReport: (r) => void reports.push(r) })
    ])
    const compactions = reports.filter((r, k) => k > 0 && r.change?.action === "compact")
    assert.isAbove(compactions.length, 0)
    for (const report of compactions) {
      const miss = report.miss
      assert.isDefined(miss)
      assert.strictEqual(miss!.source, "billed")
      assert.strictEqual(miss!.cause._tag, "compaction")
      assert.strictEqual(miss!.cachedTokens, report.reported?.cacheRead)
    }
    // Between compactions the calls read their previous request: no miss.
    reports.forEach((r, k) => {
      if (k > 0 && r.change?.action === "append") assert.isUndefined(r.miss, `call ${k}: ${JSON.stringify(r.miss)}`)
    })
  })

  it("ChatAnthropic: an AIMessage of tool calls only carries its mark on its last tool_use block, and the next request reads through it", async () => {
    const fake = FakeAnthropic.make()
    const model = new ChatAnthropic({ model: "claude-sonnet-4-5", apiKey: "test", maxRetries: 0, clientOptions: { fetch: fake.fetch } })
    const classes = { SystemMessage, HumanMessage, AIMessage, ToolMessage }
    const calls = new AIMessage({
      content: "",
      tool_calls: [
        { id: "toolu_1", name: "grep", args: { q: "a" }, type: "tool_call" },
        { id: "toolu_2", name: "grep", args: { q: "b" }, type: "tool_call" }
      ]
    })
    const history: Array<BaseMessage> = [
      new SystemMessage("You are careful. ".repeat(400)),
      new HumanMessage("find a and b"),
      calls
    ]
    const copy = LangChainCacheMarks.markedCopy(calls, "5m", classes)
    assert.isDefined(copy)
    // The copy is the same message to LangChain (its tool calls), the original untouched.
    assert.deepStrictEqual(AIMessage.isInstance(copy) ? copy.tool_calls?.map((c) => c.id) : [], ["toolu_1", "toolu_2"])
    assert.strictEqual(calls.content, "")
    const results = [
      new ToolMessage({ content: "a: found", tool_call_id: "toolu_1" }),
      new ToolMessage({ content: "b: found", tool_call_id: "toolu_2" })
    ]
    // Ending a request on the marked AIMessage (a prefill) writes the prefix up to its last tool call.
    await model.invoke([...history.slice(0, 2), copy!, new HumanMessage("go on")])
    const first = fake.calls[0]!
    const body = isRecord(first.body) ? first.body : {}
    const assistant = list(body["messages"]).find((m) => isRecord(m) && m["role"] === "assistant")
    const blocks = isRecord(assistant) ? list(assistant["content"]) : []
    assert.deepStrictEqual(blocks.map((b) => (isRecord(b) ? [b["type"], b["id"], "cache_control" in b] : [])), [
      ["tool_use", "toolu_1", false],
      ["tool_use", "toolu_2", true]
    ])
    assert.isAbove(first.usage!.cache_creation_input_tokens, 0)
    // The same message unmarked, with its results: the prefix through the tool calls is read.
    const marked = LangChainCacheMarks.markedCopy(results[1]!, "5m", classes)!
    await model.invoke([...history, results[0]!, marked])
    const second = fake.calls[1]!
    assert.strictEqual(second.status, 200)
    assert.strictEqual(second.usage!.cache_read_input_tokens, first.usage!.cache_creation_input_tokens)
  })

  it("ChatAnthropic: a marked ToolMessage is sent as its own tool_result block carrying the mark, the bytes otherwise those of the unmarked one", async () => {
    const classes = { SystemMessage, HumanMessage, AIMessage, ToolMessage }
    const fake = FakeAnthropic.make()
    const model = new ChatAnthropic({ model: "claude-sonnet-4-5", apiKey: "test", maxRetries: 0, clientOptions: { fetch: fake.fetch } })
    const history: Array<BaseMessage> = [
      new SystemMessage("You are careful. ".repeat(400)),
      new HumanMessage("find a"),
      new AIMessage({ content: "", tool_calls: [{ id: "toolu_1", name: "grep", args: { q: "a" }, type: "tool_call" }] })
    ]
    const result = new ToolMessage({ content: "a: found", tool_call_id: "toolu_1", name: "grep" })
    await model.invoke([...history, result])
    await model.invoke([...history, LangChainCacheMarks.markedCopy(result, "1h", classes)!])
    const [plain, marked] = fake.calls.map((c) => (isRecord(c.body) ? c.body : {}))
    assert.deepStrictEqual(blocksOf(marked!), blocksOf(plain!))
    assert.deepStrictEqual(wireMarks(marked!), [{ at: "messages[2]", type: "tool_result", nested: false }])
    assert.deepStrictEqual(fake.calls[1]!.marks, [{ index: blocksOf(marked!).length - 1, ttl: "1h" }])
    // A marked result followed by another: one user message of two tool_result blocks, as
    // unmarked, the mark on the first.
    const pair: Array<BaseMessage> = [
      history[0]!,
      history[1]!,
      new AIMessage({
        content: "",
        tool_calls: [
          { id: "toolu_1", name: "grep", args: { q: "a" }, type: "tool_call" },
          { id: "toolu_2", name: "grep", args: { q: "b" }, type: "tool_call" }
        ]
      })
    ]
    const second = new ToolMessage({ content: "b: found", tool_call_id: "toolu_2", name: "grep" })
    await model.invoke([...pair, result, second])
    await model.invoke([...pair, LangChainCacheMarks.markedCopy(result, "5m", classes)!, second])
    const [plainPair, markedPair] = fake.calls.slice(2).map((c) => (isRecord(c.body) ? c.body : {}))
    assert.deepStrictEqual(blocksOf(markedPair!), blocksOf(plainPair!))
    assert.deepStrictEqual(fake.calls[3]!.marks, [{ index: blocksOf(markedPair!).length - 2, ttl: "5m" }])
    // Text blocks: the same tool_result; other blocks: no mark (the client reformats them).
    const blocks = new ToolMessage({ content: [{ type: "text", text: "a: found" }], tool_call_id: "toolu_1" })
    assert.isDefined(LangChainCacheMarks.markedCopy(blocks, "5m", classes))
    const image = new ToolMessage({ content: [{ type: "image_url", image_url: "https://example.com/a.png" }], tool_call_id: "toolu_1" })
    assert.isUndefined(LangChainCacheMarks.markedCopy(image, "5m", classes))
  })
})
