/**
 * Repeated tool results sent by reference (docs/ai.md, "Repeated tool results", rules R1–R5),
 * through `StableWindow` directly: each test is named after the rule it checks.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Prompt } from "effect/ai"
import * as Masking from "../../src/ai/Masking.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as ResultReferences from "../../src/ai/ResultReferences.ts"
import * as StableWindow from "../../src/ai/StableWindow.ts"
import { budget, countOf, layers } from "../support/stableFixtures.ts"

const system = (content: string) => Prompt.systemMessage({ content })
const user = (text: string) => Prompt.userMessage({ content: [Prompt.textPart({ text })] })
const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ")
const call = (id: string) =>
  Prompt.assistantMessage({ content: [Prompt.toolCallPart({ id, name: "read_file", params: { id }, providerExecuted: false })] })
const result = (id: string, text: unknown, isFailure = false) =>
  Prompt.toolMessage({
    content: [Prompt.toolResultPart({ id, name: "read_file", isFailure, result: text, providerExecuted: false })]
  })

const fileA = words(150, "a")
const fileB = words(150, "b")

/** Steps: each a call and its result of the given text. */
const agent = (texts: ReadonlyArray<unknown>): Array<Prompt.Message> => {
  const out: Array<Prompt.Message> = [system("be brief"), user("read the files")]
  texts.forEach((text, k) => out.push(call(`c${k}`), result(`c${k}`, text)))
  return out
}

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

/** Each step of `texts` as a call: the histories of 1, 2, … steps. */
const calls = (texts: ReadonlyArray<unknown>) => texts.map((_, k) => agent(texts.slice(0, k + 1)))

/** The tool-result parts of a prompt by call id. */
const resultsOf = (prompt: Prompt.Prompt): Map<string, Prompt.ToolResultPart> => {
  const out = new Map<string, Prompt.ToolResultPart>()
  for (const m of prompt.content) if (m.role === "tool") for (const p of m.content) if (p.type === "tool-result") out.set(p.id, p)
  return out
}

describe("repeated tool results", () => {
  it.effect("R1 an identical result is sent as a reference naming the earlier call; one byte different is sent whole", () =>
    Effect.gen(function*() {
      const window = yield* StableWindow.make({})
      const plans = yield* replay(window, calls([fileA, fileB, fileA, fileA + ".", fileB]), 100_000)
      const sent = resultsOf(plans.at(-1)!.fitted.prompt)
      assert.strictEqual(sent.get("c0")!.result, fileA)
      assert.strictEqual(sent.get("c1")!.result, fileB)
      assert.strictEqual(ResultReferences.readReference(sent.get("c2")!), "c0")
      assert.strictEqual(sent.get("c3")!.result, fileA + ".")
      assert.strictEqual(ResultReferences.readReference(sent.get("c4")!), "c1")
      assert.strictEqual(ResultReferences.referenceText("c0"), "[identical to the result of call c0 above; not repeated]")
    }).pipe(Effect.provide(layers)))

  it.effect("R1 a short result, a failure beside a success, and a JSON value of another type are sent whole", () =>
    Effect.gen(function*() {
      const window = yield* StableWindow.make({})
      const texts = ["ok", "ok", { n: 1, text: fileA }, { n: 1, text: fileA }, fileA]
      const plans = yield* replay(window, calls(texts), 100_000)
      const sent = resultsOf(plans.at(-1)!.fitted.prompt)
      assert.strictEqual(sent.get("c1")!.result, "ok")
      assert.strictEqual(ResultReferences.readReference(sent.get("c3")!), "c2")
      assert.strictEqual(sent.get("c4")!.result, fileA)
      const failing = yield* StableWindow.make({})
      const history = [...agent([fileA]), call("c9"), result("c9", fileA, true)]
      const plan = yield* failing.fit(Prompt.fromMessages(history), budget(100_000))
      assert.strictEqual(resultsOf(plan.fitted.prompt).get("c9")!.result, fileA)
    }).pipe(Effect.provide(layers)))

  it.effect("R2 never the other way round: the earlier copy stays whole and every request extends the one before", () =>
    Effect.gen(function*() {
      const window = yield* StableWindow.make({})
      const plans = yield* replay(window, calls([fileA, fileB, fileA, fileB, fileA]), 100_000)
      for (let k = 1; k < plans.length; k++) {
        assert.strictEqual(plans[k]!.change.action, "append")
        const previous = plans[k - 1]!.fitted.prompt.content.map(PromptWindow.render)
        assert.deepStrictEqual(plans[k]!.fitted.prompt.content.slice(0, previous.length).map(PromptWindow.render), previous)
      }
      assert.isBelow(plans.at(-1)!.fitted.result.totalTokens, 5 * countOf(result("c0", fileA)))
    }).pipe(Effect.provide(layers)))

  it.effect("R3 at a conversation's first call, the repeats of the whole history are sent as references to their first copy", () =>
    Effect.gen(function*() {
      const window = yield* StableWindow.make({})
      const plan = yield* window.fit(Prompt.fromMessages(agent([fileA, fileA, fileA])), budget(100_000))
      const sent = resultsOf(plan.fitted.prompt)
      assert.strictEqual(ResultReferences.readReference(sent.get("c1")!), "c0")
      assert.strictEqual(ResultReferences.readReference(sent.get("c2")!), "c0")
      const off = yield* StableWindow.make({ toolResultReferences: false })
      const whole = yield* off.fit(Prompt.fromMessages(agent([fileA, fileA, fileA])), budget(100_000))
      for (const part of resultsOf(whole.fitted.prompt).values()) assert.strictEqual(part.result, fileA)
    }).pipe(Effect.provide(layers)))

  it.effect("R4 when a compaction takes the earlier copy out (dropped or masked), the copy that stays is sent whole", () =>
    Effect.gen(function*() {
      const filler = (from: number, n: number) => Array.from({ length: n }, (_, k) => words(150, `x${from + k}_`))
      // The file is larger than the other results: a compaction that drops by recency cannot
      // fit it back in the room the newer ones leave.
      const big = words(400, "big")
      const texts = [big, ...filler(0, 9), big, ...filler(9, 6)]
      for (const options of [{}, { maskToolResults: true }]) {
        const label = JSON.stringify(options)
        const window = yield* StableWindow.make({ ...options, lowWatermark: 0.6 })
        const plans = yield* replay(window, calls(texts), 3_500)
        // The repeat was first sent as a reference to c0…
        const referred = plans.findIndex((p) => {
          const part = resultsOf(p.fitted.prompt).get("c10")
          return part !== undefined && ResultReferences.readReference(part) === "c0"
        })
        assert.isAtLeast(referred, 0, label)
        // … and c10 refers to c0 only in a request that holds c0 whole; once a compaction took
        // c0 out, c10 is sent whole.
        let restored = 0
        for (const plan of plans.slice(referred)) {
          const sent = resultsOf(plan.fitted.prompt)
          const c0 = sent.get("c0")
          const c10 = sent.get("c10")
          if (c10 === undefined) continue
          const c0Whole = c0 !== undefined && c0.result === big
          if (ResultReferences.readReference(c10) !== undefined) assert.isTrue(c0Whole, label)
          else assert.strictEqual(c10.result, big, label)
          if (!c0Whole) restored++
        }
        assert.isAbove(restored, 0, label)
      }
    }).pipe(Effect.provide(layers)))

  it.effect("R5 an item sent with a reference says so in its metadata: its call id, the one it names, its tokens before", () =>
    Effect.gen(function*() {
      const window = yield* StableWindow.make({})
      const plans = yield* replay(window, calls([fileA, fileB, fileA]), 100_000)
      const referred = plans.at(-1)!.fitted.result.report.included.flatMap((e) => {
        const r = ResultReferences.referencedOf(e.item)
        return r === undefined ? [] : [{ r, item: e.item }]
      })
      assert.strictEqual(referred.length, 1)
      const { item, r } = referred[0]!
      assert.deepStrictEqual(r.references, [{ id: "c2", of: "c0" }])
      assert.strictEqual(r.originalTokens, countOf(result("c2", fileA)))
      assert.strictEqual(item.originalTokens, r.originalTokens)
      assert.isBelow(item.tokens, r.originalTokens)
      assert.isUndefined(Masking.maskedOf(item))
    }).pipe(Effect.provide(layers)))
})
