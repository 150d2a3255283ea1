/**
 * Long texts counted in pieces and huge results counted by their ends (issue 27, item 5;
 * docs/design.md item 90): the pieces' counts sum to the text's count exactly for o200k and
 * cl100k; `renderEffect` writes what `render` writes; a huge result's estimate is its ends'
 * count scaled to its length; a 5 MB result counted through `GptTokenizer.layer` yields.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { Prompt } from "effect/ai"
import fc from "fast-check"
import * as GptTokenizer from "../../src/ai/GptTokenizer.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import { TokenCounter } from "../../src/ai/TokenCounter.ts"
import * as ChunkedCount from "../../src/ai/internal/chunkedCount.ts"
import * as Huge from "../../src/ai/internal/hugeResult.ts"

const pieceOf = fc.oneof(
  fc.constantFrom(" ", "\n", "  ", "\n\n", "\t", "😀", "é", "—", "'s", "123", "{\"a\":1}", "=====", "Über", "naïve", "东京"),
  fc.stringMatching(/^[a-zA-Z]{1,12}$/)
)
const longText = (min: number) => fc.array(pieceOf, { minLength: min, maxLength: min * 2 }).map((xs) => xs.join(" "))

describe("ChunkedCount", () => {
  for (const encoding of ["o200k_base", "cl100k_base"] as const) {
    it.effect(`the pieces' counts sum to the whole text's count (${encoding})`, () =>
      Effect.gen(function*() {
        const countText = yield* GptTokenizer.textCounter(encoding)
        fc.assert(
          fc.property(longText(12_000), (text) => {
            const pieces = [...ChunkedCount.pieces(text)]
            assert.strictEqual(pieces.join(""), text)
            assert.isAbove(pieces.length, 1)
            assert.strictEqual(pieces.reduce((n, p) => n + countText(p), 0), countText(text))
          }),
          { numRuns: 3, seed: 27 }
        )
      }), 60_000)
  }

  for (const encoding of ["o200k_base", "cl100k_base"] as const) {
    it.effect(`a text with no spaces is cut at a number's edge, the counts summing alike (${encoding})`, () =>
      Effect.gen(function*() {
        const countText = yield* GptTokenizer.textCounter(encoding)
        // base64-like runs, with marks, non-ASCII letters and digits that are not ASCII beside them.
        const unit = fc.oneof(
          fc.stringMatching(/^[A-Za-z0-9+\/=]{1,40}$/),
          fc.constantFrom("é", "e\u0301", "Ü9", "٣", "٣4", "𝟎5", "½1", "7东", "京8", "'s1", "_", "\n", "\t", "😀1", "\"id\":12", ",\"", "[{", "}]", "-3.5e7", "\\u00e9")
        )
        fc.assert(
          fc.property(fc.array(unit, { minLength: 2_000, maxLength: 4_000 }), (units) => {
            const block = units.join("")
            const text = block.repeat(Math.ceil(3 * ChunkedCount.maxPiece / Math.max(1, block.length)))
            const pieces = [...ChunkedCount.pieces(text)]
            assert.strictEqual(pieces.join(""), text)
            assert.isAbove(pieces.length, 1)
            assert.isTrue(pieces.every((p) => p.length <= 2 * ChunkedCount.maxPiece))
            assert.strictEqual(pieces.reduce((n, p) => n + countText(p), 0), countText(text))
          }),
          { numRuns: 3, seed: 113 }
        )
      }), 60_000)
  }

  it("pieces are cut by their content: a text and its tail share their pieces after the tail's first cut", () => {
    const text = Array.from({ length: 60_000 }, (_, i) => `word${i % 977} alpha beta`).join(" ")
    const whole = new Set(ChunkedCount.pieces(text))
    const tail = [...ChunkedCount.pieces(text.slice(123_457))]
    assert.isAbove(tail.length, 3)
    assert.isTrue(tail.slice(1, -1).every((p) => whole.has(p)))
  })

  it("renderEffect writes what render writes, a long result's JSON in pieces (a lone surrogate escaped alike)", () =>
    Effect.gen(function*() {
      const result = `${"line with \"quotes\" and \\ and \u0001\n".repeat(20_000)}\ud800 end 😀`
      const message = Prompt.toolMessage({
        content: [Prompt.toolResultPart({ id: "c1", name: "read", isFailure: false, result, providerExecuted: false })]
      })
      const copy = Prompt.toolMessage({
        content: [Prompt.toolResultPart({ id: "c1", name: "read", isFailure: false, result: result.slice(0), providerExecuted: false })]
      })
      assert.strictEqual(yield* PromptWindow.renderEffect(message), PromptWindow.render(copy))
    }).pipe(Effect.runPromise))

  it.live("a huge result is counted by its ends scaled to its length; a long one exactly; the event loop is yielded to", () =>
    Effect.gen(function*() {
      const counter = Context.get(yield* Layer.build(GptTokenizer.layer), TokenCounter)
      const countText = yield* GptTokenizer.textCounter("o200k_base")
      const tool = (result: string) =>
        Prompt.toolMessage({ content: [Prompt.toolResultPart({ id: "c1", name: "read", isFailure: false, result, providerExecuted: false })] })
      const long = "alpha beta gamma 12345\n".repeat(20_000)
      const exact = yield* counter.count(tool(long))
      assert.strictEqual(exact - (yield* counter.count(tool(""))), countText(JSON.stringify(long)) - countText("\"\""))
      const huge = "alpha beta gamma 12345\n".repeat(48_000)
      assert.isAbove(huge.length, Huge.hugeChars)
      const sampled = Huge.sample(tool(huge))!
      const estimate = yield* counter.count(tool(huge))
      assert.strictEqual(estimate, Math.ceil((yield* counter.count(sampled.message)) * sampled.scale))
      // Within 1% of the exact count for a text as uniform as this one.
      const truth = countText(JSON.stringify(huge))
      assert.isBelow(Math.abs(estimate - truth) / truth, 0.01)
      let ticks = 0
      const timer = setInterval(() => ticks++, 0)
      yield* counter.count(tool(huge + " "))
      clearInterval(timer)
      assert.isAbove(ticks, 0)
    }).pipe(Effect.scoped), 60_000)

  it.live("a tool message huge for another reason (a JSON tree's text) is counted by its text's ends, scaled to its length (item 122)", () =>
    Effect.gen(function*() {
      const counter = Context.get(yield* Layer.build(GptTokenizer.layer), TokenCounter)
      const countText = yield* GptTokenizer.textCounter("o200k_base")
      const rows = Array.from({ length: 30_000 }, (_, i) => ({ id: i, name: `row ${i}`, value: (i * 7919) % 1000, tags: ["a", i % 2 === 0 ? "b" : "c"] }))
      const message = Prompt.toolMessage({ content: [Prompt.toolResultPart({ id: "c1", name: "query", isFailure: false, result: rows, providerExecuted: false })] })
      const estimate = yield* counter.count(message)
      const text = yield* PromptWindow.renderEffect(message)
      assert.isAbove(text.length, Huge.hugeChars)
      // The rule, transcribed: the role's framing, then the ends of the text counted and scaled.
      const framing = (yield* counter.count(Prompt.toolMessage({ content: [] }))) - countText("[tool]")
      const ends = Huge.ends([text], Huge.sampleChars)!
      assert.strictEqual(estimate, framing + Math.ceil((countText(ends.head) + countText(ends.tail)) * text.length / (ends.head.length + ends.tail.length)))
      // Within 2% of the exact count for rows as alike as these.
      const truth = framing + countText(text)
      assert.isBelow(Math.abs(estimate - truth) / truth, 0.02)
    }).pipe(Effect.scoped), 60_000)

  it("Huge.ends: a text's first and last n characters read from its pieces, whatever the cut, never half a surrogate pair", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", "é", "😀", "1", " ", "东"), minLength: 0, maxLength: 400 }),
        fc.array(fc.nat(400), { maxLength: 8 }),
        fc.integer({ min: 1, max: 120 }),
        (text, cuts, n) => {
          const at = [...new Set(cuts.map((c) => Math.min(c, text.length)))].sort((a, b) => a - b)
          const pieces = [0, ...at].map((from, i) => text.slice(from, [...at, text.length][i]))
          const ends = Huge.ends(pieces, n)
          if (text.length <= 2 * n) {
            assert.isUndefined(ends)
            return
          }
          assert.strictEqual(ends!.length, text.length)
          const head = text.slice(0, n)
          const tail = text.slice(text.length - n)
          const lone = (c: number) => c >= 0xd800 && c <= 0xdfff
          assert.strictEqual(ends!.head, lone(head.charCodeAt(head.length - 1)) && head.charCodeAt(head.length - 1) <= 0xdbff ? head.slice(0, -1) : head)
          assert.strictEqual(ends!.tail, lone(tail.charCodeAt(0)) && tail.charCodeAt(0) >= 0xdc00 ? tail.slice(1) : tail)
        }
      ),
      { numRuns: 300, seed: 122 }
    )
  })
})
