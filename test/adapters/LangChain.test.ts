/**
 * The LangChain adapter, through LangChain itself: `createAgent` with the middleware around a
 * scripted `BaseChatModel` (test/support/langchain.ts), driven through generated sessions
 * (test/support/sessions.ts) in multi-step tool loops; and `trimBaseMessages`.
 */
import { assert, describe, it, vi } from "@effect/vitest"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { main } from "../../examples/langchain.ts"
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages"
import { tool } from "@langchain/core/tools"
import * as fc from "fast-check"
import { createAgent } from "langchain"
import { z } from "zod"
import * as LangChain from "../../src/adapters/LangChain.ts"
import * as LangChainPrompt from "../../src/adapters/LangChainPrompt.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as Summarizer from "../../src/ai/Summarizer.ts"
import {
  contentKey,
  requestProblems,
  runAgentSession,
  ScriptedChatModel,
  toolIds
} from "../support/langchain.ts"
import { withReasoning } from "../support/sessionFormats.ts"
import { generate, type Shape } from "../support/sessions.ts"
import { recordSpans } from "../support/spans.ts"

const quarter = (text: string) => Math.ceil(text.length / 4)

/** A request's tokens as the middleware counts them with `counter: quarter`: messages, overhead, tools. */
const requestTokens = (messages: ReadonlyArray<BaseMessage>, toolTokens: number) =>
  LangChainPrompt.convert(messages).prompt.content.reduce((sum, m) => sum + quarter(PromptWindow.render(m)) + 4, 3) + toolTokens

const contextWindow = 8_000
const outputReserve = 1_000

/** Every cache_control block of a request's messages. */
const marksOf = (messages: ReadonlyArray<BaseMessage>) =>
  messages.flatMap((m, i) =>
    typeof m.content === "string" ? [] : m.content.flatMap((block) => ("cache_control" in block ? [i] : []))
  )

/** The error and its causes, outermost first (LangChain wraps a middleware's error in MiddlewareError). */
const causes = (error: unknown): Array<unknown> => {
  const out: Array<unknown> = []
  for (let at = error; at !== undefined && out.length < 5; at = at instanceof Error ? at.cause : undefined) out.push(at)
  return out
}
const tagsOf = (error: unknown) =>
  causes(error).flatMap((e) => (typeof e === "object" && e !== null && "_tag" in e ? [String(e._tag)] : []))

describe("LangChain.middleware in a createAgent tool loop", () => {
  const cases: ReadonlyArray<readonly [Shape, number]> = [["tool-heavy", 1], ["tool-heavy", 2], ["mixed", 3], ["retrieval", 4]]
  for (const [shape, seed] of cases) {
    it(`${shape} seed ${seed}: every request within the window, no orphaned tool part, system first, the newest human message kept`, async () => {
      const session = generate(shape, 60, seed)
      const reports: Array<LangChain.Report> = []
      const run = await runAgentSession(session, [
        LangChain.middleware({ contextWindow, outputReserve, counter: quarter, onReport: (r) => void reports.push(r) })
      ])
      // 60 steps, and an answer after the last one's tool results.
      assert.isAtLeast(run.requests.length, 60)
      assert.strictEqual(reports.length, run.requests.length)
      let dropped = 0
      run.requests.forEach((request, k) => {
        assert.deepStrictEqual(requestProblems(request), [], `request ${k}`)
        const tokens = requestTokens(request, reports[k]!.toolTokens)
        assert.isAtMost(tokens, contextWindow - outputReserve, `request ${k} counts ${tokens}`)
        const state = run.states[k]!
        const newestHuman = state.findLast((m) => m.type === "human")
        assert.isDefined(newestHuman)
        assert.isTrue(request.includes(newestHuman!), `request ${k} lacks the newest human message`)
        // Every message sent is the agent's own object (no cache marks here: a scripted provider).
        for (const m of request.slice(1)) assert.isTrue(state.includes(m), `request ${k} sent a message not of the state`)
        dropped = Math.max(dropped, state.length + 1 - request.length)
      })
      assert.isAbove(dropped, 0, "the history never outgrew the window")
    })
  }

  it("the cache prefix is stable: each request extends the previous one, except at a compaction", async () => {
    const session = generate("tool-heavy", 60, 7)
    const reports: Array<LangChain.Report> = []
    const run = await runAgentSession(session, [
      LangChain.middleware({ contextWindow, outputReserve, counter: quarter, onReport: (r) => void reports.push(r) })
    ])
    let compactions = 0
    for (let k = 1; k < run.requests.length; k++) {
      const action = reports[k]!.change?.action
      if (action === "compact") {
        compactions++
        continue
      }
      const previous = run.requests[k - 1]!.map(contentKey)
      const current = run.requests[k]!.map(contentKey)
      assert.deepStrictEqual(current.slice(0, previous.length), previous, `request ${k} (${action}) does not extend request ${k - 1}`)
    }
    assert.isAbove(compactions, 0)
    assert.isBelow(compactions, run.requests.length / 4)
  })

  it("thinking blocks stay in their AIMessage with its tool calls", async () => {
    const session = withReasoning(generate("tool-heavy", 40, 11), 0.6)
    const run = await runAgentSession(session, [LangChain.middleware({ contextWindow, outputReserve, counter: quarter })])
    let thinking = 0
    run.requests.forEach((request, k) => {
      assert.deepStrictEqual(requestProblems(request), [], `request ${k}`)
      for (const m of request) {
        if (!AIMessage.isInstance(m) || typeof m.content === "string") continue
        const blocks = m.content.filter((b) => b.type === "thinking")
        thinking += blocks.length
        if (blocks.length > 0 && (m.tool_calls ?? []).length > 0) assert.isTrue(run.states[k]!.includes(m))
      }
    })
    assert.isAbove(thinking, 0)
  })

  it("windows are keyed per thread: two threads through one middleware keep two conversations", async () => {
    const reports: Array<LangChain.Report> = []
    const middleware = LangChain.middleware({ contextWindow, outputReserve, counter: quarter, onReport: (r) => void reports.push(r) })
    await runAgentSession(generate("tool-heavy", 10, 1), [middleware], { threadId: "a" })
    await runAgentSession(generate("chatty", 10, 2), [middleware], { threadId: "b" })
    const keys = new Set(reports.map((r) => r.conversation))
    assert.deepStrictEqual([...keys].sort(), ["langchain-thread:a", "langchain-thread:b"])
  })

  it("ChatAnthropic: cache_control on content blocks at the stable boundaries, at most four, the state unmarked", async () => {
    const reports: Array<LangChain.Report> = []
    const run = await runAgentSession(generate("tool-heavy", 30, 5), [
      LangChain.middleware({
        contextWindow,
        outputReserve,
        counter: quarter,
        promptCache: { minimumPrefix: 1 },
        onReport: (r) => void reports.push(r)
      })
    ], { llmType: "anthropic", model: "claude-sonnet-4-5" })
    run.requests.forEach((request, k) => {
      const marks = marksOf(request)
      assert.isAbove(marks.length, 0, `request ${k} has no mark`)
      assert.isAtMost(marks.length, 4)
      // The system message (tools + system) and the tail are marked.
      assert.include(marks, 0)
      assert.include(marks, request.length - 1)
      assert.deepStrictEqual(requestProblems(request), [])
      assert.strictEqual(reports[k]!.prompt.length, request.length)
    })
    for (const state of run.states) assert.deepStrictEqual(marksOf(state), [])
  })

  it("ChatOpenAI: the thread's promptCacheKey as a call option, the same at every call of a thread", async () => {
    const a = await runAgentSession(generate("tool-heavy", 6, 1), [
      LangChain.middleware({ contextWindow, outputReserve, counter: quarter })
    ], { llmType: "openai", model: "gpt-5", threadId: "a" })
    const b = await runAgentSession(generate("tool-heavy", 6, 1), [
      LangChain.middleware({ contextWindow, outputReserve, counter: quarter })
    ], { llmType: "openai", model: "gpt-5", threadId: "b" })
    const keyA = new Set(a.bound.map((o) => o["promptCacheKey"]))
    const keyB = new Set(b.bound.map((o) => o["promptCacheKey"]))
    assert.strictEqual(keyA.size, 1)
    assert.strictEqual(keyB.size, 1)
    assert.isString([...keyA][0])
    assert.notDeepEqual([...keyA], [...keyB])
    for (const request of a.requests) assert.deepStrictEqual(marksOf(request), [])
  })

  it("the caller's own cache_control marks are kept and counted against Anthropic's four", async () => {
    const marked = (text: string) => [{ type: "text", text, cache_control: { type: "ephemeral" } }]
    let call = 0
    const model = new ScriptedChatModel({
      llmType: "anthropic",
      model: "claude-sonnet-4-5",
      answer: () => {
        call++
        return call <= 8
          ? new AIMessage({ content: "", tool_calls: [{ id: `c${call}`, name: "lookup", args: { n: call }, type: "tool_call" }] })
          : new AIMessage("done")
      }
    })
    const lookup = tool(async () => "result ".repeat(300), { name: "lookup", description: "Look up", schema: z.looseObject({}) })
    const agent = createAgent({
      model,
      tools: [lookup],
      systemPrompt: new SystemMessage({ content: marked("You are careful. ".repeat(20)) }),
      middleware: [LangChain.middleware({ contextWindow, outputReserve, counter: quarter, promptCache: { minimumPrefix: 1 } })]
    })
    await agent.invoke({ messages: [new HumanMessage({ content: marked("Look everything up.") })] }, { recursionLimit: 50 })
    assert.strictEqual(model.requests.length, 9)
    for (const request of model.requests) {
      assert.isAtMost(marksOf(request).length, 4)
      assert.include(marksOf(request), 0)
      assert.include(marksOf(request), request.findIndex((m) => m.type === "human"))
    }
  })

  it("the current turn's largest tool result is sent shortened, as a copy of its ToolMessage (rule K6)", async () => {
    let call = 0
    const model = new ScriptedChatModel({
      answer: () =>
        ++call === 1
          ? new AIMessage({ content: "", tool_calls: [{ id: "read-1", name: "read", args: {}, type: "tool_call" }] })
          : new AIMessage("read")
    })
    const read = tool(async () => "log line\n".repeat(5_000), { name: "read", description: "Read the log", schema: z.looseObject({}) })
    const reports: Array<LangChain.Report> = []
    const agent = createAgent({
      model,
      tools: [read],
      systemPrompt: "sys",
      middleware: [LangChain.middleware({ contextWindow: 4_000, outputReserve: 500, counter: quarter, onReport: (r) => void reports.push(r) })]
    })
    const result = await agent.invoke({ messages: [new HumanMessage("read the log")] })
    const request = model.requests[1]!
    const sent = request.find((m) => ToolMessage.isInstance(m))
    const kept = result.messages.find((m) => ToolMessage.isInstance(m))
    assert.isTrue(sent !== undefined && ToolMessage.isInstance(sent) && sent.tool_call_id === "read-1" && sent.name === "read")
    assert.notStrictEqual(sent, kept)
    assert.isBelow(sent!.text.length, kept!.text.length)
    assert.isAtMost(requestTokens(request, reports[1]!.toolTokens), 4_000 - 500)
    assert.deepStrictEqual(requestProblems(request), [])
  })

  it("property: sessions from seeds through createAgent — within the window, no orphan, system first, newest human kept", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 100_000 }), fc.constantFrom<Shape>("tool-heavy", "chatty", "retrieval", "mixed"), async (seed, shape) => {
        const reports: Array<LangChain.Report> = []
        const run = await runAgentSession(generate(shape, 30, seed), [
          LangChain.middleware({ contextWindow, outputReserve, counter: quarter, onReport: (r) => void reports.push(r) })
        ])
        run.requests.forEach((request, k) => {
          assert.deepStrictEqual(requestProblems(request), [])
          assert.isAtMost(requestTokens(request, reports[k]!.toolTokens), contextWindow - outputReserve)
          const human = run.humans[k]
          assert.isTrue(human === undefined || request.includes(human))
        })
      }),
      { numRuns: 8, seed: 2929 }
    )
  })

  it("promptCache: false sends no mark and no key", async () => {
    const run = await runAgentSession(generate("tool-heavy", 6, 1), [
      LangChain.middleware({ contextWindow, outputReserve, counter: quarter, promptCache: false })
    ], { llmType: "anthropic", model: "claude-sonnet-4-5" })
    for (const request of run.requests) assert.deepStrictEqual(marksOf(request), [])
    for (const bound of run.bound) assert.isUndefined(bound["promptCacheKey"])
  })

  it("summaries: a compaction replaces what it drops by the summarize function's text", async () => {
    const asked: Array<LangChain.SummaryRequest> = []
    const run = await runAgentSession(generate("tool-heavy", 40, 3), [
      LangChain.middleware({
        contextWindow,
        outputReserve,
        counter: quarter,
        summarize: async (request) => {
          asked.push(request)
          return `Earlier: ${request.span.length} characters of work.`
        }
      })
    ])
    assert.isAbove(asked.length, 0)
    const summarised = run.requests.filter((r) => r.some((m) => m.type === "human" && m.text.includes("characters of work")))
    assert.isAbove(summarised.length, 0)
    for (const request of run.requests) assert.deepStrictEqual(requestProblems(request), [])
    assert.isTrue(summarised[0]!.some((m) => m.text.startsWith(Summarizer.summaryHeader("").slice(0, 20))))
  })

  it("per-call mode fits every call from scratch", async () => {
    const reports: Array<LangChain.Report> = []
    const run = await runAgentSession(generate("tool-heavy", 20, 2), [
      LangChain.middleware({ contextWindow, outputReserve, counter: quarter, mode: "per-call", onReport: (r) => void reports.push(r) })
    ])
    for (const request of run.requests) assert.deepStrictEqual(requestProblems(request), [])
    assert.isTrue(reports.every((r) => r.mode === "per-call"))
  })

  it("the report carries the provider's usage, and each call has a cupel.window span", async () => {
    const { spans, tracer } = recordSpans()
    const reports: Array<LangChain.Report> = []
    const model = new ScriptedChatModel({
      // The usage as providers put it on their AIMessage (`usage_metadata`).
      answer: () =>
        Object.assign(new AIMessage({ content: "hello", response_metadata: { model_name: "claude-sonnet-4-5" } }), {
          usage_metadata: {
            input_tokens: 120,
            output_tokens: 2,
            total_tokens: 122,
            input_token_details: { cache_read: 100, cache_creation: 20 }
          }
        })
    })
    const agent = createAgent({
      model,
      tools: [],
      systemPrompt: "Be brief.",
      middleware: [LangChain.middleware({ contextWindow, outputReserve, counter: quarter, tracer, onReport: (r) => void reports.push(r) })]
    })
    await agent.invoke({ messages: [new HumanMessage("hi")] })
    assert.strictEqual(reports.length, 1)
    assert.strictEqual(reports[0]!.outcome, "answered")
    assert.strictEqual(reports[0]!.reported?.total, 120)
    assert.strictEqual(reports[0]!.reported?.cacheRead, 100)
    assert.strictEqual(reports[0]!.reported?.cacheWrite, 20)
    assert.strictEqual(reports[0]!.reported?.model, "claude-sonnet-4-5")
    assert.strictEqual(spans.filter((s) => s.name === "cupel.window").length, 1)
  })

  it("a newest human message that cannot fit rejects the call with TurnBudgetError, and the model is not called", async () => {
    const model = new ScriptedChatModel({ answer: () => new AIMessage("never") })
    const agent = createAgent({
      model,
      tools: [],
      systemPrompt: "Be brief.",
      middleware: [LangChain.middleware({ contextWindow: 1_000, outputReserve: 100, counter: quarter })]
    })
    const error = await agent.invoke({ messages: [new HumanMessage("word ".repeat(2_000))] }).then(() => undefined, (e: unknown) => e)
    assert.include(tagsOf(error), "TurnBudgetError")
    assert.strictEqual(model.requests.length, 0)
  })

  it("an option it does not know throws an InvalidConfigError naming the one it stands for", () => {
    const thrown = (() => {
      try {
        // An option a JavaScript caller misspelt.
        Reflect.apply(LangChain.middleware, undefined, [{ contextWindow, outputReserv: 10 }])
        return undefined
      } catch (e) {
        return e
      }
    })()
    assert.include(tagsOf(thrown), "InvalidConfigError")
    assert.include(String(thrown instanceof Error ? thrown.message : thrown), "did you mean outputReserve?")
  })
})

describe("trimBaseMessages", () => {
  const history = (turns: number): Array<BaseMessage> => {
    const out: Array<BaseMessage> = [new SystemMessage("You are a careful agent.")]
    for (let t = 0; t < turns; t++) {
      out.push(new HumanMessage(`Question ${t}: ${"about the widget ".repeat(20)}`))
      out.push(new AIMessage({ content: "", tool_calls: [{ id: `c${t}`, name: "search", args: { q: `topic ${t}` }, type: "tool_call" }] }))
      out.push(new ToolMessage({ content: `Result ${t}: ${"the widget supports export and sync; ".repeat(30)}`, tool_call_id: `c${t}` }))
      out.push(new AIMessage(`Answer ${t}.`))
    }
    return out
  }

  it("keeps the caller's objects, system first, no orphaned tool part, the newest human message", async () => {
    const messages = history(40)
    const { messages: fitted, report } = await LangChain.trimBaseMessages(messages, { contextWindow: 4_000, outputReserve: 500, count: (m) => quarter(JSON.stringify(m.content)) + 4 })
    assert.isAbove(report.dropped.length, 0)
    assert.deepStrictEqual(requestProblems(fitted), [])
    for (const m of fitted) if (!ToolMessage.isInstance(m) || !report.shortened.length) assert.isTrue(messages.includes(m) || ToolMessage.isInstance(m))
    assert.isTrue(fitted.includes(messages.findLast((m) => m.type === "human")!))
    assert.strictEqual(fitted[0], messages[0])
    assert.deepStrictEqual(report.kept.map((i) => messages[i]), fitted.filter((m) => messages.includes(m)))
    const ids = toolIds(fitted)
    assert.deepStrictEqual(ids.calls, ids.results)
  })

  it("a tool result too long for the window is sent shortened, as a new ToolMessage of its call (rule K6)", async () => {
    const messages: Array<BaseMessage> = [
      new SystemMessage("sys"),
      new HumanMessage("read the log"),
      new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "read", args: {}, type: "tool_call" }] }),
      new ToolMessage({ content: "log line\n".repeat(3_000), tool_call_id: "c1", name: "read" })
    ]
    const { messages: fitted, report } = await LangChain.trimBaseMessages(messages, { contextWindow: 2_000, count: (m) => quarter(m.text) + 4 })
    assert.strictEqual(report.shortened.length, 1)
    const tool = fitted.find((m) => ToolMessage.isInstance(m))
    assert.isTrue(tool !== undefined && ToolMessage.isInstance(tool) && tool.tool_call_id === "c1" && tool.name === "read")
    assert.notStrictEqual(tool, messages[3])
    assert.isBelow(tool!.text.length, messages[3]!.text.length)
  })

  it("rejects an option it does not know with InvalidInput", async () => {
    const trimmed: Promise<unknown> = Reflect.apply(LangChain.trimBaseMessages, undefined, [[new HumanMessage("hi")], { contextWindow: 100, outputReserv: 1 }])
    const error = await trimmed.then(() => undefined, (e: unknown) => e)
    assert.include(tagsOf(error), "InvalidInput")
  })

  it("rejects a newest human message that cannot fit with TurnBudgetError", async () => {
    const error = await LangChain.trimBaseMessages([new HumanMessage("word ".repeat(4_000))], { contextWindow: 500, count: (m) => quarter(m.text) })
      .then(() => undefined, (e: unknown) => e)
    assert.include(tagsOf(error), "TurnBudgetError")
  })
})

describe("docs/langchain.md and the README", () => {
  const root = fileURLToPath(new URL("../..", import.meta.url))

  it("examples/langchain.ts: a createAgent tool loop within the window — no orphaned tool part, system first, the question kept", async () => {
    const { model, reports, answer } = await main()
    assert.strictEqual(answer, "The widget exports, imports and syncs.")
    assert.strictEqual(model.requests.length, 13)
    assert.strictEqual(reports.length, 13)
    for (const [k, request] of model.requests.entries()) {
      assert.deepStrictEqual(requestProblems(request), [], `request ${k}`)
      assert.isTrue(request.some((m) => m.type === "human" && m.text === "What can the widget do?"))
      assert.isAtMost(reports[k]!.result.totalTokens + reports[k]!.toolTokens, 4_000 - 500)
    }
    assert.isTrue(reports.some((r) => r.change?.action === "compact"))
  })

  it("docs/langchain.md shows the example verbatim, and what it prints", async () => {
    const doc = readFileSync(`${root}docs/langchain.md`, "utf8")
    const example = readFileSync(`${root}examples/langchain.ts`, "utf8").replace(/"\.\.\/src\/(.*?)\.ts"/g, `"effect-cupel/$1"`)
    assert.include(doc, example)
    const lines: Array<string> = []
    const log = vi.spyOn(console, "log").mockImplementation((line: string) => void lines.push(line))
    try {
      await main()
    } finally {
      log.mockRestore()
    }
    const after = doc.indexOf("```text", doc.indexOf("It prints:")) + "```text\n".length
    assert.strictEqual(doc.slice(after, doc.indexOf("```", after)), lines.map((l) => `${l}\n`).join(""))
  })

  it("the README's LangChain start is three lines that make an agent whose calls are fitted", async () => {
    const readme = readFileSync(`${root}README.md`, "utf8")
    const at = readme.indexOf("<!-- langchain-start -->")
    assert.isAtLeast(at, 0)
    const block = /```ts\n([\s\S]*?)\n```/.exec(readme.slice(at))![1]!
    assert.strictEqual(block.split("\n").length, 3)
    mkdirSync(`${root}.scratch`, { recursive: true })
    const out = mkdtempSync(join(root, ".scratch", "langchain-"))
    try {
      // The block as it is, given a model, tools and a run of its agent.
      const program = `import { ScriptedModel } from ${JSON.stringify(`${root}examples/langchain.ts`)}\n` +
        `const model = new ScriptedModel({}), tools = []\n` +
        block.replace(`"effect-cupel/adapters/LangChain"`, JSON.stringify(`${root}src/adapters/LangChain.ts`)) +
        `\nexport const run = () => agent.invoke({ messages: [{ role: "user", content: "hi" }] }, { configurable: { thread_id: "t" } })\n`
      writeFileSync(join(out, "start.ts"), program)
      const module: { readonly run: () => Promise<{ readonly messages: ReadonlyArray<BaseMessage> }> } = await import(join(out, "start.ts"))
      const result = await module.run()
      assert.isAbove(result.messages.length, 1)
    } finally {
      rmSync(out, { recursive: true, force: true })
    }
  })
})
