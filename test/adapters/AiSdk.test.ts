/**
 * The AI SDK adapter, through the SDK itself: `wrapLanguageModel` with the middleware around the
 * SDK's mock language model (`ai/test`), driven by `generateText`'s tool loop.
 */
import { assert, describe, it, vi } from "@effect/vitest"
import { generateText, isStepCount, type ModelMessage, simulateReadableStream, streamText, tool, wrapLanguageModel } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import { Effect } from "effect"
import { Prompt } from "effect/ai"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { z } from "zod"
import { main } from "../../examples/aiSdk.ts"
import * as AiSdk from "../../src/adapters/AiSdk.ts"
import * as AiSdkPrompt from "../../src/adapters/AiSdkPrompt.ts"
import * as GptTokenizer from "../../src/ai/GptTokenizer.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import { recordSpans } from "../support/spans.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))

type ProviderPrompt = AiSdkPrompt.ProviderPrompt

/** The call ids of the prompt's tool calls and of its tool results, read from the provider parts. */
const toolIds = (prompt: ProviderPrompt) => {
  const calls: Array<string> = []
  const results: Array<string> = []
  for (const message of prompt) {
    if (message.role === "assistant") {
      for (const part of message.content) if (part.type === "tool-call") calls.push(part.toolCallId)
    }
    if (message.role === "tool") {
      for (const part of message.content) if (part.type === "tool-result") results.push(part.toolCallId)
    }
  }
  return { calls: calls.sort(), results: results.sort() }
}

const assertNoOrphans = (prompt: ProviderPrompt) => {
  const { calls, results } = toolIds(prompt)
  assert.deepStrictEqual(calls, results)
}

const noUsage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined }
}

/** A mock model that calls `tool` `calls` times (thinking first), then answers. */
const toolCaller = (calls: number, toolName = "lookup") => {
  let step = 0
  return new MockLanguageModelV4({
    doGenerate: async () => {
      step++
      return {
        content: step <= calls
          ? [
            { type: "reasoning" as const, text: `thinking about step ${step}` },
            { type: "tool-call" as const, toolCallId: `c${step}`, toolName, input: JSON.stringify({ n: step }) }
          ]
          : [{ type: "text" as const, text: "done" }],
        finishReason: { unified: step <= calls ? "tool-calls" as const : "stop" as const, raw: undefined },
        usage: noUsage,
        warnings: []
      }
    }
  })
}

const lookup = (size: number) =>
  tool({
    description: "Look a number up",
    inputSchema: z.object({ n: z.number() }),
    execute: async ({ n }) => `entry ${n}: ${"lorem ipsum dolor sit amet ".repeat(size)}`
  })

/** Four characters a token: a counter the tests can repeat exactly. */
const quarter = (text: string) => Math.ceil(text.length / 4)
const countWithQuarter = (prompt: ProviderPrompt) =>
  3 + AiSdkPrompt.convert(prompt).prompt.content.reduce((sum, m) => sum + quarter(PromptWindow.render(m)) + 4, 0)

describe("AiSdk middleware", () => {
  it("examples/aiSdk.ts: a multi-step tool loop within the window — no orphaned tool part, system first, the user message kept, appends extend the request before", async () => {
    const { provider, reports, text } = await main()
    const requests = provider.doGenerateCalls.map((call) => call.prompt)
    assert.strictEqual(text, "The widget exports, imports and syncs.")
    assert.strictEqual(requests.length, 13)
    assert.strictEqual(reports.length, 13)
    for (const [k, prompt] of requests.entries()) {
      // Counted again, with the same counter (o200k_base, the chat format): within the window
      // less the output reserve, beside the tool definitions.
      const tokens = await Effect.runPromise(
        GptTokenizer.count(AiSdkPrompt.convert(prompt).prompt).pipe(Effect.provide(GptTokenizer.layer))
      )
      assert.isAbove(reports[k]!.toolTokens, 0)
      assert.isAtMost(tokens + reports[k]!.toolTokens, 4_000 - 500)
      assertNoOrphans(prompt)
      assert.strictEqual(prompt[0]!.role, "system")
      assert.deepStrictEqual(prompt.filter((m) => m.role === "user").length, 1)
      // Reasoning stays with its tool call: the same assistant message.
      for (const message of prompt) {
        if (message.role === "assistant" && message.content.some((p) => p.type === "tool-call")) {
          assert.strictEqual(message.content[0]!.type, "reasoning")
        }
      }
      // What the model received is what the report says was sent.
      assert.deepStrictEqual(prompt, reports[k]!.prompt)
    }
    assert.deepStrictEqual(reports.map((r) => r.change?.action), [
      "fresh",
      ...Array(8).fill("append"),
      "compact",
      "append",
      "append",
      "append"
    ])
    reports.forEach((report, k) => {
      if (k > 0 && report.change?.action === "append") {
        const before = requests[k - 1]!
        assert.deepStrictEqual(requests[k]!.slice(0, before.length), before)
      }
      assert.strictEqual(report.committed, "written")
      assert.strictEqual(report.outcome, "answered")
    })
    // The compaction dropped old exchanges: fewer messages than the history had.
    assert.isBelow(requests[9]!.length, 20)
  })

  it("docs/ai-sdk.md shows the example verbatim, and what it prints", async () => {
    const doc = readFileSync(`${root}docs/ai-sdk.md`, "utf8")
    const example = readFileSync(`${root}examples/aiSdk.ts`, "utf8").replace(/"\.\.\/src\/(.*?)\.ts"/g, `"effect-cupel/$1"`)
    assert.include(doc, example)
    const lines: Array<string> = []
    const log = vi.spyOn(console, "log").mockImplementation((line: string) => void lines.push(line))
    try {
      await main()
    } finally {
      log.mockRestore()
    }
    const after = doc.indexOf("```text", doc.indexOf("It prints:")) + "```text\n".length
    assert.strictEqual(lines.join("\n") + "\n", doc.slice(after, doc.indexOf("```", after)))
  })

  it("a new user turn after a tool loop: the newest user message is kept, the system message first, every request within the window by the caller's counter", async () => {
    const provider = toolCaller(6)
    const reports: Array<AiSdk.Report> = []
    const model = wrapLanguageModel({
      model: provider,
      middleware: AiSdk.middleware({ contextWindow: 1_200, outputReserve: 200, counter: quarter, onReport: (r) => reports.push(r) })
    })
    const first = await generateText({
      model,
      instructions: "Be brief.",
      prompt: "Look up one to six.",
      tools: { lookup: lookup(20) },
      stopWhen: isStepCount(10)
    })
    const second = await generateText({
      model,
      instructions: "Be brief.",
      messages: [
        { role: "user", content: "Look up one to six." },
        ...first.response.messages,
        { role: "user", content: "Now summarise what you found." }
      ],
      tools: { lookup: lookup(20) },
      stopWhen: isStepCount(10)
    })
    assert.strictEqual(second.text, "done")
    const requests = provider.doGenerateCalls.map((call) => call.prompt)
    assert.strictEqual(requests.length, 8)
    for (const [k, prompt] of requests.entries()) {
      assert.isAtMost(countWithQuarter(prompt) + reports[k]!.toolTokens, 1_200 - 200)
      assertNoOrphans(prompt)
      assert.strictEqual(prompt[0]!.role, "system")
      assert.strictEqual(prompt.filter((m) => m.role === "system").length, 1)
    }
    const last = requests.at(-1)!
    const newestUser = last.findLast((m) => m.role === "user")
    assert.deepStrictEqual(newestUser?.content, [{ type: "text", text: "Now summarise what you found." }])
    // The tool loop outgrew the window: some step compacted it.
    assert.include(reports.map((r) => r.change?.action), "compact")
  })

  it("a prompt that cannot fit rejects the call with the pipeline error's tag, and the model is not called", async () => {
    const provider = toolCaller(0)
    const model = wrapLanguageModel({
      model: provider,
      middleware: AiSdk.middleware({ contextWindow: 100, outputReserve: 20, counter: quarter })
    })
    const error = await generateText({ model, instructions: "rule ".repeat(200), prompt: "hi", maxRetries: 0 }).then(
      () => undefined,
      (e: unknown) => e
    )
    assert.instanceOf(error, Error)
    assert.strictEqual(error instanceof Error && "_tag" in error ? error._tag : undefined, "PinnedBudgetError")
    assert.strictEqual(provider.doGenerateCalls.length, 0)
  })

  // Issue 25 item 7: options are checked when the middleware is made, not at its first call.
  it("an option out of range throws an InvalidConfigError naming it when the middleware is made", () => {
    let error: unknown
    try {
      AiSdk.middleware({ contextWindow: 1_000, outputReserve: 100, counter: quarter, lowWatermark: 2 })
    } catch (e) {
      error = e
    }
    assert.strictEqual(error instanceof Error && "_tag" in error ? error._tag : undefined, "InvalidConfigError")
    assert.include(error instanceof Error ? error.message : "", "lowWatermark")
  })

  it("K6 through the adapter: a tool result larger than the room is shortened, its call kept with it, sent as text", async () => {
    const provider = toolCaller(1)
    const model = wrapLanguageModel({
      model: provider,
      middleware: AiSdk.middleware({ contextWindow: 600, outputReserve: 100, counter: quarter })
    })
    await generateText({ model, instructions: "Be brief.", prompt: "Look up one.", tools: { lookup: lookup(400) }, stopWhen: isStepCount(3) })
    const last = provider.doGenerateCalls.at(-1)!.prompt
    assertNoOrphans(last)
    const toolMessage = last.find((m) => m.role === "tool")
    assert.isDefined(toolMessage)
    const part = toolMessage!.role === "tool" ? toolMessage!.content[0] : undefined
    assert.strictEqual(part?.type, "tool-result")
    const output = part?.type === "tool-result" ? part.output : undefined
    assert.strictEqual(output?.type, "text")
    assert.include(output?.type === "text" ? output.value : "", "left out")
    assert.isAtMost(countWithQuarter(last), 600 - 100)
  })

  it("streamText: each streamed step is fitted and committed once its stream has answered (before the next step)", async () => {
    let step = 0
    const provider = new MockLanguageModelV4({
      doStream: async () => {
        step++
        return {
          stream: simulateReadableStream({
            chunks: [
              { type: "stream-start" as const, warnings: [] },
              ...(step <= 5
                ? [{ type: "tool-call" as const, toolCallId: `c${step}`, toolName: "lookup", input: JSON.stringify({ n: step }) }]
                : [
                  { type: "text-start" as const, id: "t" },
                  { type: "text-delta" as const, id: "t", delta: "done" },
                  { type: "text-end" as const, id: "t" }
                ]),
              { type: "finish" as const, finishReason: { unified: step <= 5 ? "tool-calls" as const : "stop" as const, raw: undefined }, usage: noUsage }
            ]
          })
        }
      }
    })
    const reports: Array<AiSdk.Report> = []
    const model = wrapLanguageModel({
      model: provider,
      middleware: AiSdk.middleware({ contextWindow: 700, outputReserve: 100, counter: quarter, onReport: (r) => reports.push(r) })
    })
    const result = streamText({ model, instructions: "Be brief.", prompt: "Look up one to five.", tools: { lookup: lookup(20) }, stopWhen: isStepCount(8) })
    assert.strictEqual(await result.text, "done")
    const requests = provider.doStreamCalls.map((call) => call.prompt)
    assert.strictEqual(requests.length, 6)
    for (const [k, prompt] of requests.entries()) {
      assert.isAtMost(countWithQuarter(prompt) + reports[k]!.toolTokens, 700 - 100)
      assertNoOrphans(prompt)
      assert.strictEqual(prompt[0]!.role, "system")
      assert.strictEqual(reports[k]!.type, "stream")
      assert.strictEqual(reports[k]!.committed, "written")
    }
    assert.include(reports.map((r) => r.change?.action), "compact")
  })

  it("per-call mode fits every call from scratch, with no conversation state", async () => {
    const provider = toolCaller(2)
    const reports: Array<AiSdk.Report> = []
    const model = wrapLanguageModel({
      model: provider,
      middleware: AiSdk.middleware({ contextWindow: 2_000, outputReserve: 100, counter: quarter, mode: "per-call", onReport: (r) => reports.push(r) })
    })
    await generateText({ model, prompt: "go", tools: { lookup: lookup(5) }, stopWhen: isStepCount(5) })
    assert.strictEqual(reports.length, 3)
    for (const report of reports) {
      assert.strictEqual(report.mode, "per-call")
      assert.isUndefined(report.change)
      assert.isUndefined(report.committed)
    }
  })

  it("an onReport that throws does not fail the call", async () => {
    const provider = toolCaller(0)
    const model = wrapLanguageModel({
      model: provider,
      middleware: AiSdk.middleware({
        contextWindow: 1_000,
        outputReserve: 100,
        counter: quarter,
        onReport: () => {
          throw new Error("boom")
        }
      })
    })
    const result = await generateText({ model, prompt: "hi" })
    assert.strictEqual(result.text, "done")
  })

  it("an async onReport is awaited before the call resolves, and one that rejects is logged: no unhandled rejection, the call goes on", async () => {
    const unhandled: Array<unknown> = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on("unhandledRejection", onUnhandled)
    try {
      const finished: Array<string> = []
      const slow = wrapLanguageModel({
        model: toolCaller(0),
        middleware: AiSdk.middleware({
          contextWindow: 1_000,
          outputReserve: 100,
          counter: quarter,
          onReport: async (report) => {
            await new Promise((resolve) => setTimeout(resolve, 10))
            finished.push(report.outcome)
          }
        })
      })
      assert.strictEqual((await generateText({ model: slow, prompt: "hi" })).text, "done")
      assert.deepStrictEqual(finished, ["answered"])
      const failing = wrapLanguageModel({
        model: toolCaller(0),
        middleware: AiSdk.middleware({
          contextWindow: 1_000,
          outputReserve: 100,
          counter: quarter,
          onReport: async () => {
            throw new Error("the report store is down")
          }
        })
      })
      assert.strictEqual((await generateText({ model: failing, prompt: "hi" })).text, "done")
      await new Promise((resolve) => setTimeout(resolve, 20))
      assert.deepStrictEqual(unhandled, [])
    } finally {
      process.off("unhandledRejection", onUnhandled)
    }
  })

  it("each call's fitting runs in a cupel.window span with the stable window's attributes", async () => {
    const recorder = recordSpans()
    const model = wrapLanguageModel({
      model: toolCaller(0),
      middleware: AiSdk.middleware({ contextWindow: 1_000, outputReserve: 100, counter: quarter, tracer: recorder.tracer })
    })
    await generateText({ model, prompt: "hi" })
    const span = recorder.spans.find((s) => s.name === "cupel.window")
    assert.isDefined(span)
    assert.strictEqual(span!.attributes.get("cupel.window.action"), "fresh")
    assert.strictEqual(span!.attributes.get("cupel.window.candidates"), 1)
    assert.isTrue(recorder.spans.some((s) => s.name === "cupel.pipeline"))
  })

  for (const verbosity of ["StageAndExclusions", "Full"] as const) {
    it(`verbosity ${verbosity} through the middleware and prepareStep: a cupel.exclusion event on the stage span for each message left out`, async () => {
      const messages: Array<ModelMessage> = Array.from({ length: 12 }, (_, i): ModelMessage =>
        i % 2 === 0
          ? { role: "user", content: `question ${i} ${"word ".repeat(60)}` }
          : { role: "assistant", content: `answer ${i} ${"word ".repeat(60)}` })
      const exclusions = (spans: ReturnType<typeof recordSpans>["spans"]) =>
        spans.flatMap((span) => span.events.filter(([name]) => name === "cupel.exclusion").map(() => span.name))
      const verbosities = (spans: ReturnType<typeof recordSpans>["spans"]) =>
        spans.filter((s) => s.name === "cupel.pipeline").map((s) => s.attributes.get("cupel.verbosity"))

      for (const mode of ["stable", "per-call"] as const) {
        const quiet = recordSpans()
        const loud = recordSpans()
        const reports: Array<AiSdk.Report> = []
        for (const [recorder, tier] of [[quiet, undefined], [loud, verbosity]] as const) {
          const model = wrapLanguageModel({
            model: toolCaller(0),
            middleware: AiSdk.middleware({
              contextWindow: 600,
              outputReserve: 100,
              counter: quarter,
              mode,
              tracer: recorder.tracer,
              verbosity: tier,
              onReport: (r) => reports.push(r)
            })
          })
          await generateText({ model, messages })
        }
        const excluded = reports[1]!.result.report.excluded.length
        assert.isAbove(excluded, 0)
        assert.deepStrictEqual(verbosities(quiet.spans), ["StageOnly"])
        assert.deepStrictEqual(exclusions(quiet.spans), [], "none at the default tier")
        assert.deepStrictEqual(verbosities(loud.spans), [verbosity])
        assert.strictEqual(exclusions(loud.spans).length, excluded, mode)
        assert.include(exclusions(loud.spans), "cupel.stage.slice")
      }

      const step = recordSpans()
      const fit = AiSdk.prepareStep({ contextWindow: 600, outputReserve: 100, counter: quarter, tracer: step.tracer, verbosity })
      const { messages: sent } = await fit({ messages })
      assert.isBelow(sent.length, messages.length)
      assert.strictEqual(exclusions(step.spans).length, messages.length - sent.length)
    })
  }

  for (const mode of ["stable", "per-call"] as const) {
    it(`C7 ${mode}, generateText: the usage a provider reports calibrates the next call's budget, and the report gives the ratio`, async () => {
      const billed: Array<number> = []
      const provider = new MockLanguageModelV4({
        doGenerate: async ({ prompt }) => {
          const bill = Math.ceil(1.3 * countWithQuarter(prompt))
          billed.push(bill)
          return {
            content: [{ type: "text" as const, text: "ok" }],
            finishReason: { unified: "stop" as const, raw: undefined },
            usage: { ...noUsage, inputTokens: { ...noUsage.inputTokens, total: bill } },
            warnings: []
          }
        }
      })
      const reports: Array<AiSdk.Report> = []
      const model = wrapLanguageModel({
        model: provider,
        middleware: AiSdk.middleware({ contextWindow: 1_500, outputReserve: 200, counter: quarter, mode, onReport: (r) => reports.push(r) })
      })
      const messages: Array<ModelMessage> = []
      for (let turn = 0; turn < 30; turn++) {
        messages.push({ role: turn % 2 === 0 ? "user" : "assistant", content: `turn ${turn} ${"word ".repeat(80)}` })
        await generateText({ model, instructions: "Be brief.", messages })
      }
      for (const [k, tokens] of billed.entries()) if (k > 0) assert.isAtMost(tokens, 1_500 - 200, `call ${k}`)
      assert.isAbove(reports.at(-1)!.result.report.excluded.length, 0)
      // One shape of what the provider reported, for every door (its total also as inputTokens).
      assert.deepStrictEqual(reports[0]!.reported, {
        total: billed[0]!,
        cacheRead: undefined,
        cacheWrite: undefined,
        uncached: undefined,
        inputTokens: billed[0]!
      })
      assert.strictEqual(reports[0]!.calibration, 1)
      assert.closeTo(reports.at(-1)!.calibration, 1.3, 0.01)
    })
  }

  it("a generateText call aborted by its abortSignal reports interrupted and leaves the state as it was (S6)", async () => {
    let call = 0
    const provider = new MockLanguageModelV4({
      doGenerate: async ({ abortSignal }) => {
        call++
        if (call === 1) {
          return new Promise((_, reject) => abortSignal?.addEventListener("abort", () => reject(abortSignal.reason)))
        }
        return { content: [{ type: "text" as const, text: "done" }], finishReason: { unified: "stop" as const, raw: undefined }, usage: noUsage, warnings: [] }
      }
    })
    const reports: Array<AiSdk.Report> = []
    const model = wrapLanguageModel({
      model: provider,
      middleware: AiSdk.middleware({ contextWindow: 1_000, outputReserve: 100, counter: quarter, onReport: (r) => reports.push(r) })
    })
    const abort = new AbortController()
    const aborted = generateText({ model, prompt: "hi", abortSignal: abort.signal, maxRetries: 0 }).then(() => "answered", () => "rejected")
    await vi.waitFor(() => assert.strictEqual(provider.doGenerateCalls.length, 1))
    abort.abort()
    assert.strictEqual(await aborted, "rejected")
    assert.strictEqual(reports[0]!.outcome, "interrupted")
    assert.isUndefined(reports[0]!.committed)
    await generateText({ model, prompt: "hi" })
    assert.strictEqual(reports[1]!.change?.fresh, "new")
  })

  it("a conversationKey names the conversation (rule S1)", async () => {
    const reports: Array<AiSdk.Report> = []
    const model = wrapLanguageModel({
      model: toolCaller(0),
      middleware: AiSdk.middleware({
        contextWindow: 1_000,
        outputReserve: 100,
        counter: quarter,
        conversationKey: () => "ticket-42",
        onReport: (r) => reports.push(r)
      })
    })
    await generateText({ model, prompt: "hi" })
    assert.strictEqual(reports[0]!.conversation, "ticket-42")
  })
})

describe("AiSdkPrompt", () => {
  const prompt: ProviderPrompt = [
    { role: "system", content: "sys" },
    { role: "user", content: [{ type: "text", text: "hello" }, { type: "file", mediaType: "image/png", filename: "a.png", data: { type: "data", data: "AAAA" } }] },
    {
      role: "assistant",
      content: [
        { type: "reasoning", text: "let me look", providerOptions: { anthropic: { signature: "sig" } } },
        { type: "tool-call", toolCallId: "c1", toolName: "lookup", input: { n: 1 } }
      ]
    },
    { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "lookup", output: { type: "json", value: { found: true } } }] },
    { role: "tool", content: [{ type: "tool-result", toolCallId: "c2", toolName: "lookup", output: { type: "error-text", value: "no such entry" } }] }
  ]

  it("converts each provider message to one effect/ai message, and back to the original objects", () => {
    const converted = AiSdkPrompt.convert(prompt)
    assert.strictEqual(converted.prompt.content.length, prompt.length)
    const back = converted.back(converted.prompt)
    back.forEach((message, i) => assert.strictEqual(message, prompt[i]))
    // A window of some of them: the same objects, in the window's order.
    const window = Prompt.fromMessages([converted.prompt.content[0]!, converted.prompt.content[3]!])
    const sent = converted.back(window)
    assert.strictEqual(sent[0], prompt[0])
    assert.strictEqual(sent[1], prompt[3])
  })

  it("renders reasoning, tool calls, results and failures as the window counts them", () => {
    const rendered = AiSdkPrompt.convert(prompt).prompt.content.map(PromptWindow.render)
    assert.strictEqual(rendered[1], "hello\n[file image/png a.png]")
    assert.strictEqual(rendered[2], `let me look\nlookup({"n":1}) [call c1]`)
    assert.strictEqual(rendered[3], `result of lookup [call c1]: {"found":true}`)
    assert.strictEqual(rendered[4], `error of lookup [call c2]: "no such entry"`)
    // Tool calls and their results are one unit.
    const groups = PromptWindow.groups(AiSdkPrompt.convert(prompt).prompt.content)
    assert.strictEqual(groups[2], groups[3])
  })

  it("a message made by the window (a shortened tool result) converts back to a provider message with text output", () => {
    const made = Prompt.make([{ role: "tool", content: [{ type: "tool-result", id: "c1", name: "lookup", isFailure: false, result: "short" }] }])
    assert.deepStrictEqual(AiSdkPrompt.fromMessage(made.content[0]!), {
      role: "tool",
      content: [{ type: "tool-result", toolCallId: "c1", toolName: "lookup", output: { type: "text", value: "short" } }]
    })
  })
})

describe("AiSdkPrompt: approvals", () => {
  it("an approval response whose request is not in the provider prompt joins the tool call it answers: no orphan, one group, the originals sent back", () => {
    const provider: ProviderPrompt = [
      { role: "system", content: "sys" },
      { role: "user", content: [{ type: "text", text: "deploy" }] },
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "c1", toolName: "deploy", input: {}, providerExecuted: true }]
      },
      { role: "tool", content: [{ type: "tool-approval-response", approvalId: "a1", approved: true }] },
      { role: "user", content: [{ type: "text", text: "thanks" }] }
    ]
    const converted = AiSdkPrompt.convert(provider)
    assert.deepStrictEqual(PromptWindow.orphans(converted.prompt), [])
    const groups = PromptWindow.groups(converted.prompt.content)
    assert.isDefined(groups[2])
    assert.strictEqual(groups[2], groups[3])
    // What is sent back is the caller's own objects, without the made-up request.
    assert.deepStrictEqual(converted.back(converted.prompt), provider)
    assert.strictEqual(converted.back(converted.prompt)[2], provider[2])
  })
})

describe("AiSdkPrompt: the message memo", () => {
  it("a message the SDK sends again as a new object is the same effect/ai message (counted once); a repeat within one prompt is a message of its own, mapped back to its own original", () => {
    const memo = AiSdkPrompt.makeMessageMemo()
    const make = (): ProviderPrompt => [
      { role: "system", content: "sys" },
      { role: "user", content: [{ type: "text", text: "yes, do it" }] },
      { role: "assistant", content: [{ type: "text", text: "done" }] },
      { role: "user", content: [{ type: "text", text: "yes, do it" }] }
    ]
    const first = make()
    const second = make()
    const a = AiSdkPrompt.convert(first, memo)
    const b = AiSdkPrompt.convert(second, memo)
    // Each message's first occurrence is the memo's: the same object call after call.
    for (const i of [0, 1, 2]) assert.strictEqual(b.prompt.content[i], a.prompt.content[i])
    assert.notStrictEqual(a.prompt.content[1], a.prompt.content[3])
    assert.notStrictEqual(b.prompt.content[1], b.prompt.content[3])
    const back = b.back(b.prompt)
    back.forEach((message, i) => assert.strictEqual(message, second[i]))
  })

  it("the memo is bounded: it holds at most its limit of contents", () => {
    const memo = AiSdkPrompt.makeMessageMemo(3)
    const prompt = (n: number): ProviderPrompt =>
      Array.from({ length: n }, (_, i) => ({ role: "user" as const, content: [{ type: "text" as const, text: `m${i}` }] }))
    AiSdkPrompt.convert(prompt(5), memo)
    assert.isAtMost(memo.size(), 3)
  })
})

describe("AiSdk middleware: tool counts", () => {
  it("each tool text is counted once, and the counts kept are bounded (1,000 texts, then it starts over)", async () => {
    const counted: Array<string> = []
    const middleware = AiSdk.middleware({
      contextWindow: 100_000,
      outputReserve: 0,
      mode: "per-call",
      counter: (text) => (text.includes("\"name\":\"t") && counted.push(text), quarter(text))
    })
    const transform = middleware.transformParams!
    const model = new MockLanguageModelV4()
    const call = (tool: number) =>
      transform({
        type: "generate",
        model,
        params: {
          prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
          tools: [{ type: "function", name: `t${tool}`, description: "d", inputSchema: { type: "object" } }]
        }
      })
    await call(0)
    await call(0)
    assert.strictEqual(counted.length, 1)
    for (let k = 1; k <= 1_000; k++) await call(k)
    assert.strictEqual(counted.length, 1_001)
    await call(0)
    // Started over at the limit: the first text was counted again, not kept for ever.
    assert.strictEqual(counted.length, 1_002)
  })
})

describe("AiSdk.prepareStep", () => {
  it("fits each step's ModelMessages in a generateText tool loop: within the window beside the instructions and the tool reserve, no orphaned tool part, the user message kept, appends extend", async () => {
    const provider = toolCaller(8)
    const reports: Array<AiSdk.Report<ModelMessage>> = []
    const result = await generateText({
      model: provider,
      instructions: "Be brief.",
      prompt: "Look up one to eight.",
      tools: { lookup: lookup(20) },
      stopWhen: isStepCount(12),
      prepareStep: AiSdk.prepareStep({
        contextWindow: 1_200,
        outputReserve: 200,
        counter: quarter,
        toolTokens: 50,
        onReport: (r) => reports.push(r)
      })
    })
    assert.strictEqual(result.text, "done")
    const requests = provider.doGenerateCalls.map((call) => call.prompt)
    assert.strictEqual(requests.length, 9)
    assert.strictEqual(reports.length, 9)
    for (const [k, prompt] of requests.entries()) {
      assert.isAtMost(countWithQuarter(prompt) + 50, 1_200 - 200)
      assertNoOrphans(prompt)
      assert.deepStrictEqual(prompt[0], { role: "system", content: "Be brief." })
      assert.deepStrictEqual(prompt[1]?.content, [{ type: "text", text: "Look up one to eight." }])
      assert.strictEqual(reports[k]!.type, "step")
      assert.strictEqual(reports[k]!.outcome, "sent")
      // The report shows the window with the instructions; the step's messages are returned
      // without them (the SDK sends them itself), so they are sent once.
      assert.deepStrictEqual(reports[k]!.prompt[0], { role: "system", content: "Be brief." })
      assert.strictEqual(prompt.filter((m) => m.role === "system").length, 1)
      if (k > 0 && reports[k]!.change?.action === "append") {
        const before = requests[k - 1]!
        assert.deepStrictEqual(prompt.slice(0, before.length), before)
      }
    }
    const actions = reports.map((r) => r.change?.action)
    assert.include(actions, "compact")
    assert.strictEqual(actions[1], "append")
  })

  it("a step that cannot fit rejects with the pipeline error's tag", async () => {
    const provider = toolCaller(0)
    const error = await generateText({
      model: provider,
      instructions: "rule ".repeat(200),
      prompt: "hi",
      maxRetries: 0,
      prepareStep: AiSdk.prepareStep({ contextWindow: 100, outputReserve: 20, counter: quarter })
    }).then(() => undefined, (e: unknown) => e)
    assert.strictEqual(error instanceof Error && "_tag" in error ? error._tag : undefined, "PinnedBudgetError")
    assert.strictEqual(provider.doGenerateCalls.length, 0)
  })
})

describe("AiSdkPrompt: ModelMessage", () => {
  it("converts a step's ModelMessages (string contents, images, reasoning, tool parts) and back to the original objects", () => {
    const messages: Array<ModelMessage> = [
      { role: "user", content: "hello" },
      { role: "user", content: [{ type: "image", image: new Uint8Array([1]), mediaType: "image/png" }] },
      { role: "assistant", content: [{ type: "reasoning", text: "hm" }, { type: "tool-call", toolCallId: "c1", toolName: "t", input: {} }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "t", output: { type: "text", value: "ok" } }] }
    ]
    const converted = AiSdkPrompt.convertModelMessages(messages)
    const rendered = converted.prompt.content.map(PromptWindow.render)
    assert.deepStrictEqual(rendered, ["hello", "[file image/png]", "hm\nt({}) [call c1]", `result of t [call c1]: "ok"`])
    converted.back(converted.prompt).forEach((message, i) => assert.strictEqual(message, messages[i]))
  })
})
