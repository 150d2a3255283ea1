/**
 * The AI SDK adapter's streamed calls: the usage of a stream's `finish` part calibrates the
 * conversation (rule C7) and reaches the report, the parts reach the caller unchanged, and a
 * stream that fails or is cancelled leaves no half-applied state (rules S6–S8). Through the
 * SDK's own mock model (`ai/test`) and `streamText`, or the wrapped model's `doStream` where the
 * test must hold the stream itself.
 */
import { assert, describe, it, vi } from "@effect/vitest"
import { type ModelMessage, simulateReadableStream, streamText, wrapLanguageModel } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import * as AiSdk from "../../src/adapters/AiSdk.ts"
import * as AiSdkPrompt from "../../src/adapters/AiSdkPrompt.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"

type ProviderPrompt = AiSdkPrompt.ProviderPrompt
type StreamPart = Awaited<ReturnType<MockLanguageModelV4["doStream"]>>["stream"] extends ReadableStream<infer P> ? P
  : never

/** Four characters a token, as the adapter is told to count. */
const quarter = (text: string) => Math.ceil(text.length / 4)
/** A request as the adapter counts it: 3 for the request, each message's text and 4 more. */
const counted = (prompt: ProviderPrompt) =>
  3 + AiSdkPrompt.convert(prompt).prompt.content.reduce((sum, m) => sum + quarter(PromptWindow.render(m)) + 4, 0)

const contextWindow = 1_500
const outputReserve = 200

const usage = (input: number | undefined) => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined }
})

const answer = (input: number | undefined): Array<StreamPart> => [
  { type: "stream-start", warnings: [] },
  { type: "response-metadata", modelId: "mock-model" },
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: "ok" },
  { type: "text-end", id: "t" },
  { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage: usage(input) }
]

/** A provider whose tokenizer counts `factor` times the adapter's count: it bills that, and reports it. */
const billing = (factor: number) => {
  const billed: Array<number> = []
  const provider = new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      const bill = Math.ceil(factor * counted(prompt))
      billed.push(bill)
      return { stream: simulateReadableStream({ chunks: answer(bill) }) }
    }
  })
  return { provider, billed }
}

/** A conversation of `turns` long messages (sent after the instructions): it outgrows the window. */
const history = (turns: number): Array<ModelMessage> =>
  Array.from({ length: turns }, (_, i): ModelMessage =>
    i % 2 === 0
      ? { role: "user", content: `turn ${i} ${"word ".repeat(80)}` }
      : { role: "assistant", content: `turn ${i} ${"word ".repeat(80)}` })

const userPrompt = (text: string): ProviderPrompt => [
  { role: "system", content: "Be brief." },
  { role: "user", content: [{ type: "text", text }] }
]

/** A stream that gives `parts` and then waits, until its reader cancels it (recorded). */
const hanging = (parts: ReadonlyArray<StreamPart>) => {
  const cancelled: Array<unknown> = []
  const stream = new ReadableStream<StreamPart>({
    start(controller) {
      for (const part of parts) controller.enqueue(part)
    },
    cancel(reason) {
      cancelled.push(reason)
    }
  })
  return { stream, cancelled }
}

/** A stream that gives `parts`, one a read, and then fails with `error`. */
const failing = (parts: ReadonlyArray<StreamPart>, error: Error) => {
  let next = 0
  return new ReadableStream<StreamPart>({
    pull(controller) {
      const part = parts[next++]
      if (part === undefined) controller.error(error)
      else controller.enqueue(part)
    }
  }, { highWaterMark: 0 })
}

const readAll = async <A>(stream: ReadableStream<A>) => {
  const parts: Array<A> = []
  const reader = stream.getReader()
  for (;;) {
    const next = await reader.read()
    if (next.done) return parts
    parts.push(next.value)
  }
}

describe("AiSdk middleware: streamed calls", () => {
  for (const mode of ["stable", "per-call"] as const) {
    it(`C7 ${mode}, streamText: a provider that bills 1.3× the count gets no request over its window after the first streamed call`, async () => {
      const { provider, billed } = billing(1.3)
      const reports: Array<AiSdk.Report> = []
      const model = wrapLanguageModel({
        model: provider,
        middleware: AiSdk.middleware({ contextWindow, outputReserve, counter: quarter, mode, onReport: (r) => reports.push(r) })
      })
      for (let turns = 1; turns <= 30; turns++) {
        const result = streamText({ model, instructions: "Be brief.", messages: history(turns) })
        assert.strictEqual(await result.text, "ok")
      }
      assert.strictEqual(billed.length, 30)
      for (const [k, tokens] of billed.entries()) {
        if (k > 0) assert.isAtMost(tokens, contextWindow - outputReserve, `call ${k}`)
      }
      // The history outgrew the window: the last call left messages out.
      assert.isAbove(reports.at(-1)!.result.report.excluded.length, 0)
      assert.strictEqual(reports[0]!.calibration, 1)
      assert.closeTo(reports.at(-1)!.calibration, 1.3, 0.01)
    })
  }

  it("onReport receives reported for streamed calls: the input tokens of the finish part's usage, with outcome answered", async () => {
    const { provider, billed } = billing(1.3)
    const reports: Array<AiSdk.Report> = []
    const model = wrapLanguageModel({
      model: provider,
      middleware: AiSdk.middleware({ contextWindow, outputReserve, counter: quarter, onReport: (r) => reports.push(r) })
    })
    for (let turns = 1; turns <= 3; turns++) await streamText({ model, instructions: "Be brief.", messages: history(turns) }).consumeStream()
    assert.deepStrictEqual(reports.map((r) => r.type), ["stream", "stream", "stream"])
    assert.deepStrictEqual(reports.map((r) => r.outcome), ["answered", "answered", "answered"])
    // One shape of what the provider reported, for every door (its total also as inputTokens).
    assert.deepStrictEqual(reports.map((r) => r.reported?.total), billed)
    assert.deepStrictEqual(reports.map((r) => r.reported?.inputTokens), billed)
    assert.deepStrictEqual(reports.map((r) => r.committed), ["written", "written", "written"])
  })

  it("a streamed call's report is made before its stream ends for the caller: the next step sees the call recorded", async () => {
    const { provider } = billing(1)
    const reports: Array<AiSdk.Report> = []
    const model = wrapLanguageModel({
      model: provider,
      middleware: AiSdk.middleware({ contextWindow, outputReserve, counter: quarter, onReport: (r) => reports.push(r) })
    })
    const { stream } = await model.doStream({ prompt: userPrompt("hi") })
    const reader = stream.getReader()
    for (;;) {
      const next = await reader.read()
      if (next.done) break
      assert.strictEqual(reports.length, 0, "no report while parts are still coming")
    }
    assert.strictEqual(reports.length, 1)
  })

  it("the parts reach the caller unchanged: the provider's own objects, in order, each as soon as it is read", async () => {
    const parts = answer(42)
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({ doStream: async () => ({ stream: simulateReadableStream({ chunks: parts }) }) }),
      middleware: AiSdk.middleware({ contextWindow, outputReserve, counter: quarter })
    })
    const { stream } = await model.doStream({ prompt: userPrompt("hi") })
    const received = await readAll(stream)
    assert.strictEqual(received.length, parts.length)
    for (const [k, part] of received.entries()) assert.strictEqual(part, parts[k], `part ${k}`)

    // A part is handed on before the next is read: a stream that stops after two still gives them.
    const stalled = hanging(parts.slice(0, 2))
    const model2 = wrapLanguageModel({
      model: new MockLanguageModelV4({ doStream: async () => ({ stream: stalled.stream }) }),
      middleware: AiSdk.middleware({ contextWindow, outputReserve, counter: quarter })
    })
    const reader = (await model2.doStream({ prompt: userPrompt("hi") })).stream.getReader()
    assert.strictEqual((await reader.read()).value, parts[0])
    assert.strictEqual((await reader.read()).value, parts[1])
    await reader.cancel()
  })

  it("a stream cancelled before its finish part records no usage: the calibration stays, the report says interrupted, the provider's stream is cancelled; the window it sent is recorded (S6: its first part answered)", async () => {
    let call = 0
    const stalled = hanging(answer(10_000).slice(0, 4))
    const provider = new MockLanguageModelV4({
      doStream: async ({ prompt }) => {
        call++
        // The first call's finish part (billing 10,000) never comes: its reader cancels first.
        return { stream: call === 1 ? stalled.stream : simulateReadableStream({ chunks: answer(counted(prompt)) }) }
      }
    })
    const reports: Array<AiSdk.Report> = []
    const model = wrapLanguageModel({
      model: provider,
      middleware: AiSdk.middleware({ contextWindow, outputReserve, counter: quarter, onReport: (r) => reports.push(r) })
    })
    const reader = (await model.doStream({ prompt: userPrompt("hi") })).stream.getReader()
    await reader.read()
    await reader.read()
    await reader.cancel("user stopped")
    assert.deepStrictEqual(stalled.cancelled, ["user stopped"])
    assert.strictEqual(reports.length, 1)
    assert.strictEqual(reports[0]!.outcome, "interrupted")
    assert.isUndefined(reports[0]!.reported)
    assert.strictEqual(reports[0]!.committed, "written")

    await readAll((await model.doStream({
      prompt: [...userPrompt("hi"), { role: "assistant", content: [{ type: "text", text: "o" }] }, {
        role: "user",
        content: [{ type: "text", text: "and?" }]
      }]
    })).stream)
    assert.strictEqual(reports[1]!.change?.action, "append")
    assert.strictEqual(reports[1]!.calibration, 1, "the cancelled call's usage was never read")
  })

  it("streamText aborted by its abortSignal mid-stream (a read pending): the report says interrupted, with no usage, and the provider's stream is cancelled", async () => {
    const stalled = hanging(answer(10_000).slice(0, 4))
    const reports: Array<AiSdk.Report> = []
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({ doStream: async () => ({ stream: stalled.stream }) }),
      middleware: AiSdk.middleware({ contextWindow, outputReserve, counter: quarter, onReport: (r) => reports.push(r) })
    })
    const abort = new AbortController()
    const result = streamText({ model, prompt: "hi", abortSignal: abort.signal })
    for await (const part of result.fullStream) if (part.type === "text-delta") abort.abort()
    // The SDK cancels the model's stream as it winds down, after the caller's loop has ended.
    await vi.waitFor(() => assert.strictEqual(reports.length, 1))
    assert.strictEqual(stalled.cancelled.length, 1)
    assert.strictEqual(reports[0]!.outcome, "interrupted")
    assert.isUndefined(reports[0]!.reported)
    assert.strictEqual(reports[0]!.calibration, 1)
  })

  it("a stream cancelled while a read is pending ends the read and reports before the cancel resolves", async () => {
    const stalled = hanging(answer(10_000).slice(0, 1))
    const reports: Array<AiSdk.Report> = []
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({ doStream: async () => ({ stream: stalled.stream }) }),
      middleware: AiSdk.middleware({ contextWindow, outputReserve, counter: quarter, onReport: (r) => reports.push(r) })
    })
    const reader = (await model.doStream({ prompt: userPrompt("hi") })).stream.getReader()
    await reader.read()
    const pending = reader.read()
    await reader.cancel("stop")
    assert.deepStrictEqual(await pending, { done: true, value: undefined })
    assert.strictEqual(reports.length, 1)
    assert.strictEqual(reports[0]!.outcome, "interrupted")
    assert.strictEqual(reports[0]!.committed, "written")
  })

  it("a stream cancelled before its first part leaves the state as it was (S6)", async () => {
    let call = 0
    const provider = new MockLanguageModelV4({
      doStream: async ({ prompt }) => {
        call++
        return { stream: call === 1 ? hanging([]).stream : simulateReadableStream({ chunks: answer(counted(prompt)) }) }
      }
    })
    const reports: Array<AiSdk.Report> = []
    const model = wrapLanguageModel({
      model: provider,
      middleware: AiSdk.middleware({ contextWindow, outputReserve, counter: quarter, onReport: (r) => reports.push(r) })
    })
    await (await model.doStream({ prompt: userPrompt("hi") })).stream.cancel()
    assert.strictEqual(reports[0]!.outcome, "interrupted")
    assert.isUndefined(reports[0]!.committed)
    await readAll((await model.doStream({ prompt: userPrompt("hi") })).stream)
    assert.strictEqual(reports[1]!.change?.action, "fresh")
    assert.strictEqual(reports[1]!.change?.fresh, "new")
  })

  it("an erroring stream leaves the state unchanged: failing before its first part, nothing is recorded and the caller gets the provider's error", async () => {
    const error = new Error("connection reset")
    let call = 0
    const provider = new MockLanguageModelV4({
      doStream: async ({ prompt }) => {
        call++
        return { stream: call === 1 ? failing([], error) : simulateReadableStream({ chunks: answer(Math.ceil(2 * counted(prompt))) }) }
      }
    })
    const reports: Array<AiSdk.Report> = []
    const model = wrapLanguageModel({
      model: provider,
      middleware: AiSdk.middleware({ contextWindow, outputReserve, counter: quarter, onReport: (r) => reports.push(r) })
    })
    const caught = await readAll((await model.doStream({ prompt: userPrompt("hi") })).stream).then(() => undefined, (e: unknown) => e)
    assert.strictEqual(caught, error)
    assert.strictEqual(reports[0]!.outcome, "failed")
    assert.isUndefined(reports[0]!.committed)
    assert.isUndefined(reports[0]!.reported)
    await readAll((await model.doStream({ prompt: userPrompt("hi") })).stream)
    assert.strictEqual(reports[1]!.change?.fresh, "new", "the failed call left no state")
    assert.strictEqual(reports[1]!.calibration, 1)
  })

  it("an erroring stream leaves the calibration unchanged: failing after its first part and before its finish, the window it sent is recorded (S6) and no usage", async () => {
    const error = new Error("overloaded")
    let call = 0
    const provider = new MockLanguageModelV4({
      doStream: async ({ prompt }) => {
        call++
        const bill = Math.ceil(2 * counted(prompt))
        // Call 1 calibrates to 2; call 2 fails before its finish part, which would say 4×.
        return {
          stream: call === 2
            ? failing(answer(4 * counted(prompt)).slice(0, 3), error)
            : simulateReadableStream({ chunks: answer(bill) })
        }
      }
    })
    const reports: Array<AiSdk.Report> = []
    const model = wrapLanguageModel({
      model: provider,
      middleware: AiSdk.middleware({ contextWindow, outputReserve, counter: quarter, onReport: (r) => reports.push(r) })
    })
    const turn = (n: number): ProviderPrompt => [
      ...userPrompt("hi"),
      ...Array.from({ length: n }, (_, i): ProviderPrompt => [
        { role: "assistant", content: [{ type: "text", text: `answer ${i}` }] },
        { role: "user", content: [{ type: "text", text: `question ${i}` }] }
      ]).flat()
    ]
    await readAll((await model.doStream({ prompt: turn(0) })).stream)
    const caught = await readAll((await model.doStream({ prompt: turn(1) })).stream).then(() => undefined, (e: unknown) => e)
    assert.strictEqual(caught, error)
    assert.strictEqual(reports[1]!.outcome, "failed")
    assert.isUndefined(reports[1]!.reported)
    assert.strictEqual(reports[1]!.committed, "written")
    await readAll((await model.doStream({ prompt: turn(2) })).stream)
    assert.strictEqual(reports[2]!.change?.action, "append")
    assert.closeTo(reports[2]!.calibration, 2, 0.01, "the calibration of call 1, not the failed call's")
  })

  describe("an abandoned stream settles (design 95)", () => {
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

    it("a stream left unread for streamIdleTimeout is settled once as interrupted, the provider's stream cancelled; a reader back later gets an error, nothing settled twice", async () => {
      const stalled = hanging(answer(10_000).slice(0, 4))
      const reports: Array<AiSdk.Report> = []
      const model = wrapLanguageModel({
        model: new MockLanguageModelV4({ doStream: async () => ({ stream: stalled.stream }) }),
        middleware: AiSdk.middleware({
          contextWindow,
          outputReserve,
          counter: quarter,
          streamIdleTimeout: 40,
          onReport: (r) => reports.push(r)
        })
      })
      const reader = (await model.doStream({ prompt: userPrompt("hi") })).stream.getReader()
      await reader.read()
      await reader.read()
      await vi.waitFor(() => assert.strictEqual(reports.length, 1), { timeout: 2_000 })
      assert.strictEqual(reports[0]!.outcome, "interrupted")
      assert.isUndefined(reports[0]!.reported)
      assert.strictEqual(reports[0]!.committed, "written", "S6: its first part had come")
      assert.strictEqual(stalled.cancelled.length, 1)
      assert.match(String(stalled.cancelled[0]), /abandoned \(no read for 40 ms\)/)
      let error: unknown
      try {
        await reader.read()
      } catch (e) {
        error = e
      }
      assert.match(String(error), /left unread for 40 ms and settled as interrupted/)
      await reader.cancel("later").catch(() => undefined)
      await sleep(100)
      assert.strictEqual(reports.length, 1)
    })

    it("an abandoned stream before its first part leaves the state as it was (S6), reported interrupted", async () => {
      const stalled = hanging([])
      const reports: Array<AiSdk.Report> = []
      const model = wrapLanguageModel({
        model: new MockLanguageModelV4({ doStream: async () => ({ stream: stalled.stream }) }),
        middleware: AiSdk.middleware({ contextWindow, outputReserve, counter: quarter, streamIdleTimeout: 30, onReport: (r) => reports.push(r) })
      })
      await model.doStream({ prompt: userPrompt("hi") })
      await vi.waitFor(() => assert.strictEqual(reports.length, 1), { timeout: 2_000 })
      assert.strictEqual(reports[0]!.outcome, "interrupted")
      assert.isUndefined(reports[0]!.committed)
    })

    it("the idle time is the reader's: a provider slower than streamIdleTimeout, read throughout, is answered", async () => {
      const reports: Array<AiSdk.Report> = []
      const model = wrapLanguageModel({
        model: new MockLanguageModelV4({
          doStream: async () => ({
            stream: simulateReadableStream({ chunks: answer(50), initialDelayInMs: 120, chunkDelayInMs: 60 })
          })
        }),
        middleware: AiSdk.middleware({ contextWindow, outputReserve, counter: quarter, streamIdleTimeout: 30, onReport: (r) => reports.push(r) })
      })
      const parts = await readAll((await model.doStream({ prompt: userPrompt("hi") })).stream)
      assert.strictEqual(parts.length, answer(50).length)
      assert.strictEqual(reports.length, 1)
      assert.strictEqual(reports[0]!.outcome, "answered")
      assert.strictEqual(reports[0]!.reported?.total, 50)
    })

    it("a stream read to its end or cancelled is not settled again by the idle timer", async () => {
      const reports: Array<AiSdk.Report> = []
      const model = wrapLanguageModel({
        model: new MockLanguageModelV4({ doStream: async () => ({ stream: simulateReadableStream({ chunks: answer(50) }) }) }),
        middleware: AiSdk.middleware({ contextWindow, outputReserve, counter: quarter, streamIdleTimeout: 20, onReport: (r) => reports.push(r) })
      })
      await readAll((await model.doStream({ prompt: userPrompt("hi") })).stream)
      const reader = (await model.doStream({ prompt: userPrompt("hello") })).stream.getReader()
      await reader.read()
      await reader.cancel("done")
      await sleep(120)
      assert.deepStrictEqual(reports.map((r) => r.outcome), ["answered", "interrupted"])
    })

    it("streamIdleTimeout is checked: a positive duration; prepareStep, which has no stream, does not take it", () => {
      assert.throws(() => AiSdk.middleware({ contextWindow, outputReserve, streamIdleTimeout: 0 }), /streamIdleTimeout/)
      // As a JavaScript caller would pass it (TypeScript refuses it already).
      const stepOptions = { contextWindow, outputReserve, streamIdleTimeout: "1 second" }
      assert.throws(() => AiSdk.prepareStep(stepOptions), /streamIdleTimeout/)
      assert.strictEqual(AiSdk.defaultStreamIdleTimeout, "2 minutes")
    })

    it("a stream dropped unread (no cancel, no idle time) is settled as interrupted when it is garbage collected (node --expose-gc)", () => {
      const root = fileURLToPath(new URL("../..", import.meta.url))
      const run = spawnSync(
        `${root}node_modules/.bin/node`,
        ["--expose-gc", `${root}test/support/abandonedStream.ts`],
        { encoding: "utf8", cwd: root, timeout: 60_000 }
      )
      assert.strictEqual(run.status, 0, run.stderr)
      const out = JSON.parse(run.stdout.trim().split("\n").pop()!)
      assert.deepStrictEqual(out.outcomes, ["interrupted"])
      assert.deepStrictEqual(out.committed, ["written"])
      assert.deepStrictEqual(out.cancelled, ["effect-cupel: the stream was abandoned (garbage collected) and settled as interrupted"])
    }, 90_000)
  })
})
