/**
 * CallReportLog: a session's call reports as JSON lines, read back, and the layers that write
 * them as the calls end.
 */
import { NodeFileSystem } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Array as Arr, DateTime, Effect, FileSystem, Layer, Logger, PubSub, Stream } from "effect"
import { LanguageModel, Prompt } from "effect/ai"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import { generateText, isStepCount, tool, wrapLanguageModel } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import { z } from "zod"
import * as AiSdk from "../../src/adapters/AiSdk.ts"
import * as CallReportLog from "../../src/ai/CallReportLog.ts"
import * as WindowedLanguageModel from "../../src/ai/WindowedLanguageModel.ts"
import * as ViewSession from "../support/viewSession.ts"

// The AI SDK adapter's reports make the same lines (a compile-time check: `onReport` can write them).
const fromAiSdk: (report: AiSdk.Report) => string = (report) => CallReportLog.encode(report)

/** Publishes `reports` to a `WindowReports` of its own, with `logging` subscribed, then closes it. */
const publishThrough = <R>(
  reports: ReadonlyArray<WindowedLanguageModel.CallReport>,
  logging: Layer.Layer<never, never, WindowedLanguageModel.WindowReports | R>
) =>
  Effect.gen(function*() {
    const pubsub = yield* PubSub.unbounded<WindowedLanguageModel.CallReport>()
    yield* Effect.scoped(Effect.gen(function*() {
      yield* Layer.build(logging.pipe(Layer.provide(Layer.succeed(WindowedLanguageModel.WindowReports, pubsub))))
      yield* PubSub.publishAll(pubsub, reports)
    }))
  })

describe("CallReportLog", () => {
  it.effect("a real session's reports round-trip: each line decodes to what the report said", () =>
    Effect.gen(function*() {
      const reports = yield* ViewSession.run({ steps: 12 })
      const at = DateTime.makeUnsafe("2026-11-26T12:00:00Z")
      const text = reports.map((r) => CallReportLog.encode(r, { at })).join("\n") + "\n"
      const lines = yield* CallReportLog.decodeLines(text)
      assert.strictEqual(lines.length, reports.length)
      for (const [k, line] of lines.entries()) {
        const report = reports[k]!
        assert.strictEqual(line.format, CallReportLog.format)
        assert.strictEqual(DateTime.formatIso(line.at!), "2026-11-26T12:00:00.000Z")
        assert.strictEqual(line.method, "generateText")
        assert.strictEqual(line.mode, "stable")
        assert.strictEqual(line.conversation, report.conversation)
        assert.strictEqual(line.totalTokens, report.result.totalTokens)
        assert.strictEqual(line.targetTokens, report.budget.targetTokens)
        assert.strictEqual(line.window.length, report.result.report.included.length)
        assert.strictEqual(line.excluded.length, report.result.report.excluded.length)
        assert.deepStrictEqual(line.window.map((e) => e.reason), report.result.report.included.map((e) => e.reason))
        assert.deepStrictEqual(line.excluded.map((e) => e.reason), report.result.report.excluded.map((e) => e.reason))
        assert.strictEqual(line.change?.action, report.change?.action)
        assert.strictEqual(line.prediction?.cachedTokens, report.prediction?.cachedTokens)
        assert.strictEqual(line.reported?.cacheRead, report.reported?.cacheRead)
        assert.strictEqual(line.committed, report.committed)
        // The messages keep their place in the caller's prompt: call to call, the same message.
        for (const [i, e] of line.window.entries()) {
          const index = report.result.report.included[i]!.item.metadata["messageIndex"]
          assert.strictEqual(e.message, typeof index === "number" ? index : undefined)
        }
      }
      // The session compacts with a summary: the line says so, and the summary is in the window.
      const compaction = lines.find((l) => l.change?.summary?.outcome === "written")
      assert.isDefined(compaction)
      assert.isTrue(compaction!.window.some((e) => e.summary === compaction!.change!.summary!.id))
    }))

  it.effect("a long item is previewed: previewLength characters at most, ending with …", () =>
    Effect.gen(function*() {
      const reports = yield* ViewSession.run({ steps: 4 })
      const line = CallReportLog.make(reports.at(-1)!)
      const long = line.window.filter((e) => e.preview.endsWith("…"))
      assert.isAbove(long.length, 0)
      for (const e of [...line.window, ...line.excluded]) assert.isAtMost(e.preview.length, CallReportLog.previewLength)
    }))

  it.effect("the AI SDK adapter's report: its type is the method, its reported input tokens the total", () =>
    Effect.gen(function*() {
      const [report] = yield* ViewSession.run({ steps: 1 })
      const { method: _method, calibration: _calibration, ...rest } = report!
      const line = CallReportLog.make({ ...rest, type: "generate", outcome: "sent", reported: { inputTokens: 321 } })
      assert.strictEqual(line.method, "generate")
      assert.strictEqual(line.outcome, "sent")
      assert.deepStrictEqual(line.reported, { total: 321 })
      assert.isUndefined(line.calibration)
      assert.isString(fromAiSdk.name)
    }))

  it.effect("decodeLines: a line that is not a call report names its line number and every field at fault", () =>
    Effect.gen(function*() {
      const [report] = yield* ViewSession.run({ steps: 1 })
      const good = CallReportLog.encode(report!)
      const bad = JSON.stringify({ ...JSON.parse(good), totalTokens: "many", mode: "sometimes" })
      const error = yield* Effect.flip(CallReportLog.decodeLines(`${good}\n\n${bad}\n`))
      assert.strictEqual(error._tag, "LineError")
      assert.strictEqual(error.line, 3)
      assert.strictEqual(error.problems.length, 2)
      assert.match(error.message, /^line 3: /)
      assert.include(error.message, "totalTokens")
      assert.include(error.message, "mode")
    }))

  it.effect("decodeLines: malformed JSON names its line", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(CallReportLog.decodeLines(`\n{"format": \n`))
      assert.strictEqual(error.line, 2)
      assert.match(error.message, /^line 2: malformed JSON: /)
    }))

  it.effect("decodeLog: a last line cut off mid-write (no newline, not JSON) is left out and named; the rest decode", () =>
    Effect.gen(function*() {
      const lines = (yield* ViewSession.run({ steps: 3 })).map((r) => CallReportLog.encode(r))
      const whole = `${lines.join("\n")}\n`
      const cut = `${whole}${lines[0]!.slice(0, 40)}`
      const log = yield* CallReportLog.decodeLog(cut)
      assert.strictEqual(log.cutOff, lines.length + 1)
      assert.strictEqual(log.lines.length, lines.length)
      const complete = yield* CallReportLog.decodeLog(whole)
      assert.deepStrictEqual([complete.cutOff, complete.lines.length], [undefined, lines.length])
    }))

  it.effect("decodeLog: a bad line that is not the last, or a last one followed by a newline, still fails with its number", () =>
    Effect.gen(function*() {
      const [a] = (yield* ViewSession.run({ steps: 1 })).map((r) => CallReportLog.encode(r))
      const middle = yield* Effect.flip(CallReportLog.decodeLog(`${a}\n{"format": \n${a}`))
      assert.strictEqual(middle.line, 2)
      const ended = yield* Effect.flip(CallReportLog.decodeLog(`${a}\n{"format": \n`))
      assert.strictEqual(ended.line, 2)
      // decodeLines stays strict: a cut-off last line is an error there.
      const strict = yield* Effect.flip(CallReportLog.decodeLines(`${a}\n{"format": `))
      assert.strictEqual(strict.line, 2)
    }))

  it.effect("layerWrite writes one line per call, in order, the queued ones too when its scope closes", () =>
    Effect.gen(function*() {
      const reports = yield* ViewSession.run({ steps: 6 })
      const written: Array<string> = []
      yield* publishThrough(reports, CallReportLog.layerWrite((line) => void written.push(line)))
      assert.strictEqual(written.length, reports.length)
      const lines = yield* CallReportLog.decodeLines(written.join("\n"))
      assert.deepStrictEqual(lines.map((l) => l.totalTokens), reports.map((r) => r.result.totalTokens))
      assert.isTrue(lines.every((l) => l.at !== undefined))
    }))

  it.effect("layerWrite: a write that throws is a CallReportLogError naming the function, logged; the next calls are written", () =>
    Effect.gen(function*() {
      const reports = yield* ViewSession.run({ steps: 3 })
      const written: Array<string> = []
      const logs: Array<string> = []
      let calls = 0
      function toCollector(line: string) {
        calls++
        if (calls === 1) throw new Error("collector down")
        written.push(line)
      }
      yield* publishThrough(reports, CallReportLog.layerWrite(toCollector)).pipe(
        Effect.provide(Logger.layer([Logger.make(({ message }) => void logs.push(Arr.ensure(message).join(" ")))]))
      )
      assert.strictEqual(written.length, reports.length - 1)
      assert.deepStrictEqual(logs, [
        `effect-cupel: cannot write a call report to the write function "toCollector": collector down`
      ])
    }))

  it.effect("layerWrite: a rejected promise is a CallReportLogError too, under the name given", () =>
    Effect.gen(function*() {
      const reports = yield* ViewSession.run({ steps: 1 })
      const logs: Array<string> = []
      yield* publishThrough(
        reports,
        CallReportLog.layerWrite(() => Promise.reject(new Error("429")), { name: "upload" })
      ).pipe(Effect.provide(Logger.layer([Logger.make(({ message }) => void logs.push(Arr.ensure(message).join(" ")))])))
      assert.deepStrictEqual(logs, [`effect-cupel: cannot write a call report to the write function "upload": 429`])
    }))

  it.effect("layerFile appends each call's line to the file through FileSystem", () =>
    Effect.gen(function*() {
      const reports = yield* ViewSession.run({ steps: 3 })
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "cupel-log-" })
      const path = `${dir}/session.jsonl`
      yield* fs.writeFileString(path, "")
      yield* publishThrough(reports.slice(0, 2), CallReportLog.layerFile(path))
      yield* publishThrough(reports.slice(2), CallReportLog.layerFile(path))
      const lines = yield* CallReportLog.decodeLines(yield* fs.readFileString(path))
      assert.deepStrictEqual(lines.map((l) => l.totalTokens), reports.map((r) => r.result.totalTokens))
    }).pipe(Effect.scoped, Effect.provide(NodeFileSystem.layer)))

  it.effect("layerFile: a path that cannot be written is logged with the path, and the session goes on", () =>
    Effect.gen(function*() {
      const reports = yield* ViewSession.run({ steps: 1 })
      const logs: Array<string> = []
      yield* publishThrough(reports, CallReportLog.layerFile("/nonexistent-dir/x/session.jsonl")).pipe(
        Effect.provide(Logger.layer([Logger.make(({ message }) => void logs.push(Arr.ensure(message).join(" ")))]))
      )
      assert.strictEqual(logs.length, 1)
      assert.include(logs[0]!, "cannot write a call report to /nonexistent-dir/x/session.jsonl: ")
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it("docs/ai-sdk.md: the adapter's onReport writes, through encode, the lines decodeLines (and cupel view) read", async () => {
    let step = 0
    const provider = new MockLanguageModelV4({
      doGenerate: async () => {
        step++
        return {
          content: step <= 6
            ? [{ type: "tool-call", toolCallId: `call-${step}`, toolName: "search", input: JSON.stringify({ q: `topic ${step}` }) }]
            : [{ type: "text", text: "done" }],
          finishReason: { unified: step <= 6 ? "tool-calls" : "stop", raw: undefined },
          usage: {
            inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: undefined, text: undefined, reasoning: undefined }
          },
          warnings: []
        }
      }
    })
    const written: Array<string> = []
    const model = wrapLanguageModel({
      model: provider,
      middleware: AiSdk.middleware({
        contextWindow: 1_200,
        outputReserve: 300,
        counter: (text) => Math.ceil(text.length / 4),
        onReport: (report) => void written.push(CallReportLog.encode(report) + "\n")
      })
    })
    await generateText({
      model,
      prompt: "Find out.",
      tools: {
        search: tool({
          inputSchema: z.object({ q: z.string() }),
          execute: async ({ q }) => `${q}: ${"found some text about it. ".repeat(30)}`
        })
      },
      stopWhen: isStepCount(10)
    })
    assert.strictEqual(written.length, 7)
    const lines = await Effect.runPromise(CallReportLog.decodeLines(written.join("")))
    assert.deepStrictEqual([...new Set(lines.map((l) => l.method))], ["generate"])
    assert.isTrue(lines.every((l) => l.reported === undefined && l.mode === "stable" && l.outcome === "answered"))
    assert.isTrue(lines.some((l) => l.change?.action === "compact"))
  })

  it("the AI SDK adapter's lines carry their time (at), from the runtime's clock, as the effect/ai door's do", async () => {
    const provider = new MockLanguageModelV4({
      doGenerate: async () => ({
        content: [{ type: "text", text: "ok" }],
        finishReason: { unified: "stop", raw: undefined },
        usage: {
          inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: undefined, text: undefined, reasoning: undefined }
        },
        warnings: []
      })
    })
    const written: Array<string> = []
    const reports: Array<AiSdk.Report> = []
    const model = wrapLanguageModel({
      model: provider,
      middleware: AiSdk.middleware({
        contextWindow: 1_200,
        outputReserve: 300,
        counter: (text) => Math.ceil(text.length / 4),
        onReport: (report) => {
          reports.push(report)
          written.push(CallReportLog.encode(report) + "\n")
        }
      })
    })
    const before = Date.now()
    await generateText({ model, prompt: "One." })
    await generateText({ model, prompt: "Two." })
    const after = Date.now()
    const lines = await Effect.runPromise(CallReportLog.decodeLines(written.join("")))
    assert.strictEqual(lines.length, 2)
    const times = lines.map((l) => (l.at === undefined ? Number.NaN : DateTime.toEpochMillis(l.at)))
    for (const t of times) {
      assert.isAtLeast(t, before)
      assert.isAtMost(t, after)
    }
    assert.isAtMost(times[0]!, times[1]!)
    // encode's own `at` still wins over the report's.
    const at = DateTime.makeUnsafe(0)
    assert.strictEqual(JSON.parse(CallReportLog.encode(reports[0]!, { at })).at, "1970-01-01T00:00:00.000Z")
  })

  it.effect("composed as docs/ai.md shows (layerFile over the model): every call's line is in the file when the program ends", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "cupel-log-" })
      const path = `${dir}/session.jsonl`
      const ProviderModel = Layer.effect(
        LanguageModel.LanguageModel,
        LanguageModel.make({
          generateText: () => Effect.succeed([{ type: "text", text: "ok" }]),
          streamText: () => Stream.empty
        })
      )
      const counter = TokenCounter.make((m) => Math.ceil(PromptWindow.render(m).length / 4) + 4, 3)
      const Model = WindowedLanguageModel.layer({ contextWindow: 4_000, outputReserve: 500 }).pipe(
        Layer.provide([ProviderModel, counter])
      )
      const Logged = CallReportLog.layerFile(path).pipe(Layer.provideMerge(Model), Layer.provide(NodeFileSystem.layer))
      yield* Effect.gen(function*() {
        for (let turn = 1; turn <= 3; turn++) {
          yield* LanguageModel.generateText({
            prompt: Prompt.make([
              { role: "system", content: "be brief" },
              ...Array.from({ length: turn }, (_, i) => ({ role: "user" as const, content: `question ${i}` }))
            ])
          })
        }
      }).pipe(Effect.provide(Logged))
      const lines = yield* CallReportLog.decodeLines(yield* fs.readFileString(path))
      assert.deepStrictEqual(lines.map((l) => l.change?.action), ["fresh", "append", "append"])
      assert.deepStrictEqual(lines.map((l) => l.window.length), [2, 3, 4])
    }).pipe(Effect.scoped, Effect.provide(NodeFileSystem.layer)))
})
