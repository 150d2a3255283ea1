/**
 * A session's requests as the cache sees them, and each call's miss (src/ai/CacheDescriptors.ts;
 * docs/ai.md, rules M1, M2, M4): the tracker alone, then through the effect/ai door
 * (`WindowedLanguageModel`), whose model reports no cache figures (the prediction is the source).
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, PubSub, Stream } from "effect"
import { LanguageModel, Prompt, type Response } from "effect/ai"
import { TestClock } from "effect/testing"
import * as CacheDescriptors from "../../src/ai/CacheDescriptors.ts"
import * as CacheModel from "../../src/ai/CacheModel.ts"
import type * as CallReport from "../../src/ai/CallReport.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import * as WindowedLanguageModel from "../../src/ai/WindowedLanguageModel.ts"
import { recordSpans } from "../support/spans.ts"

const prediction = (totalTokens: number, cachedTokens: number) =>
  CacheModel.predict(CacheModel.Anthropic5m, {
    totalTokens,
    previousTokens: cachedTokens,
    commonPrefixTokens: cachedTokens,
    secondsSincePrevious: 5
  })

const reported = (total: number, cacheRead: number, cacheWrite = 0): CallReport.Reported => ({
  total,
  cacheRead,
  cacheWrite,
  uncached: total - cacheRead - cacheWrite
})

const system = Prompt.systemMessage({ content: "be brief" })
const hello = Prompt.userMessage({ content: [Prompt.textPart({ text: "hello" })] })
const answer = Prompt.assistantMessage({ content: [Prompt.textPart({ text: "hi" })] })
const more = Prompt.userMessage({ content: [Prompt.textPart({ text: "more" })] })

const tool = (name: string, description = `what ${name} does`) => ({
  name,
  text: JSON.stringify({ name, description, parameters: { type: "object" } })
})

describe("CacheDescriptors.make", () => {
  it("M4: a conversation's first call has no previous request, and no miss", () => {
    const tracker = CacheDescriptors.make(CacheModel.Anthropic5m)
    const call = {}
    tracker.describe(call, Prompt.fromMessages([system, hello]), [], 0)
    const miss = tracker.settle(call, { key: "k", outcome: "answered", reported: reported(2_000, 0), prediction: prediction(2_000, 0), compaction: false })
    assert.isUndefined(miss)
  })

  it("M1: billed when the provider reported a cache read, against the previous call's billed total", () => {
    const tracker = CacheDescriptors.make(CacheModel.Anthropic5m)
    const first = {}
    tracker.describe(first, Prompt.fromMessages([system, hello]), [tool("grep")], 0)
    tracker.settle(first, { key: "k", outcome: "answered", reported: reported(2_000, 0, 2_000), prediction: prediction(1_900, 0), compaction: false })
    const second = {}
    tracker.describe(second, Prompt.fromMessages([system, hello, answer, more]), [tool("grep", "another text")], 5_000)
    const miss = tracker.settle(second, {
      key: "k",
      outcome: "answered",
      reported: reported(2_100, 0, 2_100),
      prediction: prediction(2_000, 1_900),
      compaction: false
    })
    assert.deepStrictEqual(miss, {
      cause: { _tag: "tools-changed", tool: "grep", field: "description" },
      cachedTokens: 0,
      previousTokens: 2_000,
      source: "billed"
    })
  })

  it("M1: predicted when the provider reported no cache figures", () => {
    const tracker = CacheDescriptors.make(CacheModel.Anthropic5m)
    const first = {}
    tracker.describe(first, Prompt.fromMessages([system, hello]), [], 0)
    tracker.settle(first, { key: "k", outcome: "answered", reported: undefined, prediction: prediction(1_900, 0), compaction: false })
    const second = {}
    tracker.describe(second, Prompt.fromMessages([Prompt.systemMessage({ content: "be long" }), hello, answer]), [], 5_000)
    const miss = tracker.settle(second, { key: "k", outcome: "answered", reported: undefined, prediction: prediction(2_000, 0), compaction: false })
    assert.deepStrictEqual(miss?.cause, { _tag: "system-changed" })
    assert.strictEqual(miss?.source, "predicted")
    assert.strictEqual(miss?.previousTokens, 1_900)
  })

  it("M1: a call that failed is not the conversation's previous request", () => {
    const tracker = CacheDescriptors.make(CacheModel.Anthropic5m)
    const failed = {}
    tracker.describe(failed, Prompt.fromMessages([system, hello]), [], 0)
    tracker.settle(failed, { key: "k", outcome: "failed", reported: undefined, prediction: prediction(1_900, 0), compaction: false })
    const next = {}
    tracker.describe(next, Prompt.fromMessages([system, hello]), [], 5_000)
    assert.isUndefined(
      tracker.settle(next, { key: "k", outcome: "answered", reported: reported(2_000, 0), prediction: prediction(1_900, 0), compaction: false })
    )
  })

  it("M2: a request that starts with the last one's messages continues its description; interleaved conversations each keep their own", () => {
    const tracker = CacheDescriptors.make(CacheModel.Anthropic5m)
    const other = Prompt.systemMessage({ content: "be long" })
    const send = (key: string, messages: ReadonlyArray<Prompt.Message>, at: number) => {
      const call = {}
      tracker.describe(call, Prompt.fromMessages(messages), [], at)
      return tracker.settle(call, { key, outcome: "answered", reported: undefined, prediction: prediction(2_000, 0), compaction: false })
    }
    send("a", [system, hello, answer], 0)
    send("b", [other, hello], 0)
    // "a" appends; "b" changes its system prompt; "a" then has an earlier message replaced by
    // another object of other text, after a prefix of the same objects.
    const edited = Prompt.assistantMessage({ content: [Prompt.textPart({ text: "hello there" })] })
    assert.strictEqual(send("a", [system, hello, answer, more], 1_000)?.cause._tag, "not-reported")
    assert.deepStrictEqual(send("b", [system, hello, more], 1_000)?.cause, { _tag: "system-changed" })
    assert.deepStrictEqual(send("a", [system, hello, edited, more], 2_000)?.cause, { _tag: "message-changed", message: 1 })
  })

  it("M2: tool flags leave the cache marks out: a mark added or moved is no flag change", () => {
    assert.isUndefined(CacheDescriptors.flagsOf(undefined))
    assert.isUndefined(CacheDescriptors.flagsOf({ anthropic: { cacheControl: { type: "ephemeral" } }, "effect-cupel": { cacheMark: true } }))
    assert.strictEqual(
      CacheDescriptors.flagsOf({ anthropic: { cacheControl: { type: "ephemeral" }, eagerInputStreaming: true } }),
      CacheDescriptors.flagsOf({ anthropic: { eagerInputStreaming: true } })
    )
    // Key order does not matter; a value does.
    assert.strictEqual(
      CacheDescriptors.flagsOf({ openai: { strict: true, a: 1 } }),
      CacheDescriptors.flagsOf({ openai: { a: 1, strict: true } })
    )
    assert.notStrictEqual(CacheDescriptors.flagsOf({ openai: { strict: true } }), CacheDescriptors.flagsOf({ openai: { strict: false } }))
  })

  it("M4: at most maxConversations previous requests, the least recently called forgotten first", () => {
    const tracker = CacheDescriptors.make(CacheModel.Anthropic5m)
    const prompt = Prompt.fromMessages([system, hello])
    const send = (key: string, at: number) => {
      const call = {}
      tracker.describe(call, prompt, [], at)
      return tracker.settle(call, { key, outcome: "answered", reported: reported(2_000, 0), prediction: prediction(2_000, 0), compaction: false })
    }
    send("first", 0)
    send("second", 0)
    // "first" is called again: "second" is now the least recently called.
    assert.isDefined(send("first", 1))
    for (let i = 0; i < CacheDescriptors.maxConversations - 1; i++) send(`c${i}`, 2)
    assert.isDefined(send("first", 3), "still remembered")
    assert.isUndefined(send("second", 3), "forgotten")
  })
})

describe("through WindowedLanguageModel (effect/ai): the prediction is the source", () => {
  const counter = TokenCounter.make((m) => Math.ceil(PromptWindow.render(m).length / 4) + 4, 3)
  const usage: Extract<Response.PartEncoded, { readonly type: "finish" }>["usage"] = {
    inputTokens: { total: 3_000, cacheRead: undefined, cacheWrite: undefined, uncached: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined }
  }
  const model = LanguageModel.make({
    generateText: () =>
      Effect.succeed<Array<Response.PartEncoded>>([{ type: "text", text: "ok" }, { type: "finish", reason: "stop", usage }]),
    streamText: () => Stream.empty
  })
  const long = Prompt.systemMessage({ content: "be brief. ".repeat(1_000) })

  it.effect("expired: a call 400 s after the previous one, under the 5-minute rule; on the span too", () =>
    Effect.gen(function*() {
      const recorder = recordSpans()
      const context = yield* Layer.build(
        WindowedLanguageModel.layer({ contextWindow: 50_000, outputReserve: 500 }).pipe(
          Layer.provide([Layer.effect(LanguageModel.LanguageModel, model), counter])
        )
      )
      const reports = yield* PubSub.subscribe(Context.get(context, WindowedLanguageModel.WindowReports))
      const generate = (messages: ReadonlyArray<Prompt.Message>) =>
        LanguageModel.generateText({ prompt: Prompt.fromMessages(messages) }).pipe(
          Effect.provideContext(context),
          Effect.withTracer(recorder.tracer)
        )
      yield* generate([long, hello])
      yield* PubSub.take(reports)
      yield* TestClock.adjust("400 seconds")
      yield* generate([long, hello, answer, more])
      const report = yield* PubSub.take(reports)
      assert.deepStrictEqual(report.miss?.cause, { _tag: "expired", seconds: 400, ttlSeconds: 300 })
      assert.strictEqual(report.miss?.source, "predicted")
      const span = recorder.spans.filter((s) => s.name === "cupel.window").at(-1)
      assert.strictEqual(span?.attributes.get("cupel.window.cache.miss"), "expired")
      assert.isAbove(Number(span?.attributes.get("cupel.window.cache.missed_tokens")), 0)
    }).pipe(Effect.scoped))
})
