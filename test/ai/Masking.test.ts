/**
 * Masking old tool results (docs/ai.md, "Masking old tool results", rules X1–X7), through
 * `StableWindow` directly: each test is named after the rule it checks.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Prompt } from "effect/ai"
import * as AiSdk from "../../src/adapters/AiSdk.ts"
import * as Masking from "../../src/ai/Masking.ts"
import * as SessionOptions from "../../src/ai/SessionOptions.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as StableWindow from "../../src/ai/StableWindow.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import * as Summarizer from "../../src/ai/Summarizer.ts"
import { png } from "../support/mediaFixtures.ts"
import { budget, countOf, layers } from "../support/stableFixtures.ts"

const system = (content: string) => Prompt.systemMessage({ content })
const user = (text: string) => Prompt.userMessage({ content: [Prompt.textPart({ text })] })
const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ")
const call = (id: string, name = "read_file") =>
  Prompt.assistantMessage({ content: [Prompt.toolCallPart({ id, name, params: { id }, providerExecuted: false })] })
const result = (id: string, text: string, name = "read_file") =>
  Prompt.toolMessage({
    content: [Prompt.toolResultPart({ id, name, isFailure: false, result: text, providerExecuted: false })]
  })

/** An agent reading `steps` different files of `size` words, one call a step. */
const agent = (steps: number, size = 200): Array<Prompt.Message> => {
  const out: Array<Prompt.Message> = [system("be brief"), user("read the files")]
  for (let k = 0; k < steps; k++) out.push(call(`c${k}`), result(`c${k}`, words(size, `f${k}_`)))
  return out
}

/** Plans and commits each history in turn; gives the plans. */
const replay = (window: StableWindow.StableWindow, histories: ReadonlyArray<ReadonlyArray<Prompt.Message>>, target: number) =>
  Effect.gen(function*() {
    const plans: Array<StableWindow.Plan> = []
    for (const history of histories) {
      const plan = yield* window.fit(Prompt.fromMessages(history), budget(target))
      yield* window.commit(plan)
      plans.push(plan)
    }
    return plans
  })

const stubsOf = (prompt: Prompt.Prompt) =>
  prompt.content.flatMap((m) => (m.role === "tool" ? m.content.flatMap((p) => {
    const stub = Masking.readStub(p)
    return stub === undefined ? [] : [stub]
  }) : []))

const growing = (steps: number) => Array.from({ length: steps }, (_, k) => agent(k + 1))

describe("masking old tool results", () => {
  it.effect("X1 a stub names the tool, the call id, the result's tokens and that it was cleared; the call keeps its result", () =>
    Effect.gen(function*() {
      const window = yield* StableWindow.make({ maskToolResults: true, lowWatermark: 0.6 })
      const plans = yield* replay(window, growing(14), 2_000)
      const compacted = plans.find((p) => p.change.action === "compact")
      assert.isDefined(compacted)
      const stubs = stubsOf(compacted!.fitted.prompt)
      assert.isAbove(stubs.length, 0)
      const original = agent(14)
      for (const stub of stubs) {
        assert.strictEqual(stub.name, "read_file")
        const whole = original.find((m) => m.role === "tool" && m.content.some((p) => p.type === "tool-result" && p.id === stub.id))!
        assert.strictEqual(stub.tokens, countOf(whole))
        // The call is in the request, right before its stubbed result.
        const sent = compacted!.fitted.prompt.content
        const at = sent.findIndex((m) => m.role === "tool" && m.content.some((p) => p.type === "tool-result" && p.id === stub.id))
        const before = sent[at - 1]!
        assert.isTrue(before.role === "assistant" && before.content.some((p) => p.type === "tool-call" && p.id === stub.id))
      }
      assert.match(Masking.stubText({ id: "c1", name: "grep", tokens: 12 }), /grep.*c1.*12 tokens.*call the tool again/)
      for (const plan of plans) assert.deepStrictEqual(PromptWindow.orphans(plan.fitted.prompt), [])
    }).pipe(Effect.provide(layers)))

  it.effect("X2 a compaction masks the oldest tool results first, down to the low watermark, and keeps more messages than dropping", () =>
    Effect.gen(function*() {
      const masking = yield* StableWindow.make({ maskToolResults: true, lowWatermark: 0.6 })
      const dropping = yield* StableWindow.make({ lowWatermark: 0.6 })
      const histories = growing(14)
      const masked = yield* replay(masking, histories, 2_000)
      const dropped = yield* replay(dropping, histories, 2_000)
      const k = masked.findIndex((p) => p.change.action === "compact")
      assert.isAtLeast(k, 0)
      const plan = masked[k]!
      assert.isAtMost(plan.fitted.result.totalTokens, Math.floor(0.6 * 2_000))
      const stubs = stubsOf(plan.fitted.prompt).map((s) => Number(s.id.slice(1)))
      const whole = plan.fitted.prompt.content.flatMap((m) =>
        m.role === "tool" && Masking.readStub(m.content[0]!) === undefined
          ? [Number((m.content[0] as Prompt.ToolResultPart).id.slice(1))]
          : []
      )
      // Every stub is older than every result kept whole.
      assert.isAbove(stubs.length, 0)
      assert.isAbove(whole.length, 0)
      assert.isBelow(Math.max(...stubs), Math.min(...whole))
      assert.isAbove(plan.fitted.prompt.content.length, dropped[k]!.fitted.prompt.content.length)
    }).pipe(Effect.provide(layers)))

  it.effect("X2 mask first, summarise what still does not fit", () =>
    Effect.gen(function*() {
      const summarizer = yield* Effect.gen(function*() {
        return yield* Summarizer.Summarizer
      }).pipe(
        Effect.provide(Summarizer.make("short", (request) => `summary of ${request.span.length} messages`))
      )
      const window = yield* StableWindow.make({ maskToolResults: true, lowWatermark: 0.5, summarizer })
      const plans = yield* replay(window, Array.from({ length: 40 }, (_, k) => agent(k + 1)), 2_000)
      const both = plans.find((p) =>
        p.change.action === "compact" && stubsOf(p.fitted.prompt).length > 0 &&
        p.fitted.result.report.excluded.some((e) => e.reason._tag === "Summarized")
      )
      assert.isDefined(both)
    }).pipe(Effect.provide(layers)))

  it.effect("X3 after a compaction, the calls append: each request extends the previous one, the stubs byte for byte", () =>
    Effect.gen(function*() {
      const window = yield* StableWindow.make({ maskToolResults: true, lowWatermark: 0.6 })
      const plans = yield* replay(window, growing(30), 2_000)
      let appends = 0
      for (let k = 1; k < plans.length; k++) {
        if (plans[k]!.change.action !== "append") continue
        appends++
        const previous = plans[k - 1]!.fitted.prompt.content
        const current = plans[k]!.fitted.prompt.content
        assert.deepStrictEqual(
          current.slice(0, previous.length).map(PromptWindow.render),
          previous.map(PromptWindow.render)
        )
      }
      assert.isAbove(appends, 5)
      assert.isAbove(plans.filter((p) => p.change.action === "compact").length, 1)
    }).pipe(Effect.provide(layers)))

  it.effect("X4 a masked item says so in its metadata: call ids, tool names, tokens before", () =>
    Effect.gen(function*() {
      const window = yield* StableWindow.make({ maskToolResults: true, lowWatermark: 0.6 })
      const plans = yield* replay(window, growing(20), 2_000)
      const last = plans.at(-1)!
      const masked = last.fitted.result.report.included.flatMap((e) => {
        const m = Masking.maskedOf(e.item)
        return m === undefined ? [] : [{ m, item: e.item }]
      })
      assert.isAbove(masked.length, 0)
      for (const { item, m } of masked) {
        assert.strictEqual(m.results.length, 1)
        assert.strictEqual(m.results[0]!.name, "read_file")
        assert.isAbove(m.originalTokens, item.tokens)
        assert.strictEqual(item.originalTokens, m.originalTokens)
      }
      assert.strictEqual(stubsOf(last.fitted.prompt).length, masked.length)
    }).pipe(Effect.provide(layers)))

  it.effect("X5 masking is off by default, and a state written without it is not continued with it", () =>
    Effect.gen(function*() {
      const off = yield* StableWindow.make({ lowWatermark: 0.6 })
      const plans = yield* replay(off, growing(20), 2_000)
      for (const plan of plans) assert.deepStrictEqual(stubsOf(plan.fitted.prompt), [])
      const on = yield* StableWindow.make({ maskToolResults: true, lowWatermark: 0.6 })
      const next = yield* on.fit(Prompt.fromMessages(agent(21)), budget(2_000))
      assert.strictEqual(next.change.fresh, "settings-changed")
      const values: Record<string, unknown> = { maskToolResults: "yes" }
      const problem = yield* Effect.flip(StableWindow.check(values))
      assert.strictEqual(problem._tag, "InvalidConfigError")
      assert.match(problem.message, /maskToolResults/)
    }).pipe(Effect.provide(layers)))

  it("X5 every door with a stable window takes maskToolResults and toolResultReferences, checked as booleans", () => {
    const rules = { ...SessionOptions.core, ...SessionOptions.stable }
    assert.isUndefined(SessionOptions.check({ contextWindow: 1_000, maskToolResults: true, toolResultReferences: false }, rules))
    assert.strictEqual(SessionOptions.check({ contextWindow: 1_000, maskToolResults: 1 }, rules)?.path, "maskToolResults")
    assert.strictEqual(SessionOptions.check({ contextWindow: 1_000, toolResultReferences: "no" }, rules)?.path, "toolResultReferences")
    const counter = (text: string) => Math.ceil(text.length / 4)
    AiSdk.middleware({ contextWindow: 1_000, outputReserve: 100, counter, maskToolResults: true, toolResultReferences: false })
    let error: unknown
    try {
      // A JavaScript caller's value: JSON gives it untyped.
      AiSdk.middleware({ contextWindow: 1_000, outputReserve: 100, counter, maskToolResults: JSON.parse(`"yes"`) })
    } catch (e) {
      error = e
    }
    assert.include(error instanceof Error ? error.message : "", "maskToolResults")
  })
})

/** Each image part counts 1,000 tokens besides the rendered text: images weigh as they do in a provider's bill. */
const imageCount = (m: Prompt.Message) =>
  countOf(m) + (m.role === "user" ? m.content.filter((p) => p.type === "file" && p.mediaType.startsWith("image/")).length * 1_000 : 0)
const imageLayers = Layer.mergeAll(layers, TokenCounter.make(imageCount))

/** A computer-use agent: each step a `screenshot` call, its result, and the image in a user message (rule X6). */
const screenshots = (steps: number): Array<Prompt.Message> => {
  const out: Array<Prompt.Message> = [system("be brief"), user("use the computer")]
  for (let k = 0; k < steps; k++) {
    out.push(
      call(`s${k}`, "screenshot"),
      result(`s${k}`, `taken ${words(20, `w${k}_`)}`, "screenshot"),
      Prompt.userMessage({
        content: [Prompt.textPart({ text: `Screenshot from s${k}:` }), Prompt.filePart({ mediaType: "image/png", data: png(64, 48, { pixels: false }) })]
      })
    )
  }
  return out
}

const imageStubsOf = (prompt: Prompt.Prompt) =>
  prompt.content.flatMap((m, at) => (m.role === "user" ? m.content.flatMap((p) => {
    const stub = Masking.readImageStub(p)
    return stub === undefined ? [] : [{ stub, at, message: m }]
  }) : []))

describe("masking images", () => {
  it.effect("X6 an image in a user message is masked to a stub naming the call it follows, its media type and tokens; its text stays", () =>
    Effect.gen(function*() {
      const window = yield* StableWindow.make({ maskToolResults: true, lowWatermark: 0.6 })
      const plans = yield* replay(window, Array.from({ length: 16 }, (_, k) => screenshots(k + 1)), 6_000)
      const compacted = plans.find((p) => p.change.action === "compact")
      assert.isDefined(compacted)
      const sent = compacted!.fitted.prompt.content
      const stubs = imageStubsOf(compacted!.fitted.prompt)
      assert.isAbove(stubs.length, 0)
      for (const { at, message, stub } of stubs) {
        const before = sent[at - 1]!
        assert.isTrue(before.role === "tool" && before.content.some((p) => p.type === "tool-result" && p.id === stub.call?.id))
        assert.strictEqual(stub.call?.name, "screenshot")
        assert.strictEqual(stub.mediaType, "image/png")
        assert.strictEqual(stub.tokens, imageCount(Prompt.userMessage({ content: [Prompt.filePart({ mediaType: "image/png", data: png(64, 48, { pixels: false }) })] })))
        assert.strictEqual(message.content[0]!.type === "text" ? message.content[0]!.text : "", `Screenshot from ${stub.call?.id}:`)
        assert.isFalse(message.content.some((p) => p.type === "file"))
      }
      const item = compacted!.fitted.result.report.included.map((e) => Masking.maskedOf(e.item)).find((m) => m?.images !== undefined)
      assert.strictEqual(item?.images?.[0]?.mediaType, "image/png")
      assert.deepStrictEqual(Masking.readImageStub(Prompt.textPart({ text: Masking.imageStubText({ mediaType: "image/jpeg", tokens: 7 }) })), {
        mediaType: "image/jpeg",
        tokens: 7
      })
      for (const plan of plans) assert.deepStrictEqual(PromptWindow.orphans(plan.fitted.prompt), [])
    }).pipe(Effect.provide(imageLayers)))

  it.effect("X7 a compaction masks the images of the window it keeps, outside the current turn, and leaves their room to the calls to come", () =>
    Effect.gen(function*() {
      const histories = Array.from({ length: 40 }, (_, k) => screenshots(k + 1))
      const masking = yield* StableWindow.make({ maskToolResults: true, lowWatermark: 0.6 })
      const dropping = yield* StableWindow.make({ lowWatermark: 0.6 })
      const masked = yield* replay(masking, histories, 6_000)
      const dropped = yield* replay(dropping, histories, 6_000)
      const k = masked.findIndex((p) => p.change.action === "compact")
      assert.isAtLeast(k, 0)
      const plan = masked[k]!
      // The newest image (the current turn) is sent whole, every other one as a stub.
      const images = plan.fitted.prompt.content.filter((m) => m.role === "user" && m.content.some((p) => p.type === "file"))
      assert.deepStrictEqual(images, [histories[k]!.at(-1)])
      // Dropping fills the low watermark; masking sends less, by about what its images took.
      assert.isAbove(dropped[k]!.fitted.result.totalTokens, 0.6 * 6_000 - 1_100)
      assert.isBelow(plan.fitted.result.totalTokens, 0.6 * 6_000 - 1_000)
      // Then the calls append: fewer compactions over the same calls.
      const compactions = (plans: ReadonlyArray<StableWindow.Plan>) => plans.filter((p) => p.change.action === "compact").length
      assert.isBelow(compactions(masked), compactions(dropped))
      for (const p of masked) assert.deepStrictEqual(PromptWindow.orphans(p.fitted.prompt), [])
    }).pipe(Effect.provide(imageLayers)))
})
