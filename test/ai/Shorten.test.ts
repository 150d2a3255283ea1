import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Prompt } from "effect/ai"
import * as fc from "fast-check"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import * as ContextItem from "../../src/ContextItem.ts"
import * as GptTokenizer from "../../src/ai/GptTokenizer.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as Shorten from "../../src/ai/Shorten.ts"
import { TokenCounter } from "../../src/ai/TokenCounter.ts"

// A simple counter: one token per word (runs of non-space characters).
const words = (text: string): number => text.split(/\s+/).filter((w) => w.length > 0).length
// A counter by UTF-16 code units, so that cuts can land anywhere, inside surrogate pairs too.
const units = (text: string): number => text.length

const markerLine = /\[… ([\d,]+) tokens left out …\]/

/** The head, the figure and the tail of a shortened text (the marker stands on its own line). */
const parts = (text: string): { head: string; figure: number; tail: string } => {
  const match = markerLine.exec(text)
  assert.isNotNull(match, `no marker in ${JSON.stringify(text.slice(0, 200))}`)
  const at = match!.index
  const end = at + match![0].length
  const head = at === 0 ? "" : text.slice(0, at - 1)
  const tail = end === text.length ? "" : text.slice(end + 1)
  if (at > 0) assert.strictEqual(text[at - 1], "\n")
  if (end < text.length) assert.strictEqual(text[end], "\n")
  return { head, figure: Number(match![1]!.replace(/,/g, "")), tail }
}

const isWellFormed = (text: string): boolean => {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1)
      if (!(d >= 0xdc00 && d <= 0xdfff)) return false
      i++
    } else if (c >= 0xdc00 && c <= 0xdfff) return false
  }
  return true
}

const log = Array.from({ length: 400 }, (_, i) => `line ${i}: status ok, nothing to report`).join("\n")

describe("Shorten.shortenText", () => {
  it("keeps the head and the tail of the text and leaves out the middle", () => {
    const short = Shorten.shortenText(log, 200, words)!
    const { head, tail } = parts(short.text)
    assert.isTrue(log.startsWith(head) && head.length > 0)
    assert.isTrue(log.endsWith(tail) && tail.length > 0)
    assert.isTrue(head.startsWith("line 0:"))
    assert.isTrue(tail.endsWith("line 399: status ok, nothing to report"))
    assert.isBelow(head.length + tail.length, log.length)
  })

  it("puts a marker inside the cut saying how many tokens were left out: the original's less the head's and tail's", () => {
    const short = Shorten.shortenText(log, 200, words)!
    const { figure, head, tail } = parts(short.text)
    assert.strictEqual(short.originalTokens, words(log))
    assert.strictEqual(figure, short.cutTokens)
    assert.strictEqual(short.cutTokens, words(log) - words(head + tail))
    // Thousands are grouped with commas, whatever the locale.
    assert.strictEqual(Shorten.marker(12345), "[… 12,345 tokens left out …]")
    assert.strictEqual(Shorten.marker(7), "[… 7 tokens left out …]")
  })

  it("the result counts at most keepTokens by the counter, and uses the room (word counter)", () => {
    for (const keep of [8, 20, 57, 200, 1000]) {
      const short = Shorten.shortenText(log, keep, words)!
      assert.strictEqual(words(short.text), short.keptTokens)
      assert.isAtMost(short.keptTokens, keep)
      // One more line of head would not have fitted: the search keeps all but a line's worth.
      assert.isAbove(short.keptTokens, keep - 2 * 6)
    }
  })

  it("cuts at line breaks where one is near (within the last eighth of the head, the first of the tail): every kept line is whole", () => {
    const lines = new Set(log.split("\n"))
    for (const keep of [150, 301, 1000]) {
      const { head, tail } = parts(Shorten.shortenText(log, keep, words)!.text)
      for (const line of [...head.split("\n"), ...tail.split("\n")]) assert.isTrue(lines.has(line), line)
    }
  })

  it("cuts between words when no line break is near", () => {
    const prose = Array.from({ length: 300 }, (_, i) => `word${i}`).join(" ")
    for (const keep of [133, 520, 1_001]) {
      const { head, tail } = parts(Shorten.shortenText(prose, keep, units)!.text)
      // The head ends where a word ends; the tail starts where one starts.
      assert.match(prose.slice(head.length - 1, head.length + 1), /\w /)
      assert.match(prose.slice(prose.length - tail.length - 1, prose.length - tail.length + 1), / \w/)
    }
  })

  it("never splits a surrogate pair", () => {
    // No spaces or line breaks: every cut is a raw one, and with a code-unit counter half of
    // them would land inside a pair.
    const emoji = "😀🎉🚀💡".repeat(200)
    for (let keep = 30; keep < 140; keep++) {
      for (const headShare of [0.5, 0.6, 0.37]) {
        const short = Shorten.shortenText(emoji, keep, units, { headShare })!
        assert.isTrue(isWellFormed(short.text), `keep ${keep}, headShare ${headShare}`)
        assert.isAtMost(short.keptTokens, keep)
      }
    }
  })

  it("headShare: 0.6 of the kept characters to the head by default; 1 keeps the head only, 0 the tail only", () => {
    assert.strictEqual(Shorten.defaultHeadShare, 0.6)
    const text = "x".repeat(10_000)
    const byDefault = parts(Shorten.shortenText(text, 1_030, units)!.text)
    const share = byDefault.head.length / (byDefault.head.length + byDefault.tail.length)
    assert.approximately(share, 0.6, 0.01)
    const headOnly = parts(Shorten.shortenText(text, 500, units, { headShare: 1 })!.text)
    assert.strictEqual(headOnly.tail, "")
    assert.isAbove(headOnly.head.length, 400)
    const tailOnly = parts(Shorten.shortenText(text, 500, units, { headShare: 0 })!.text)
    assert.strictEqual(tailOnly.head, "")
    assert.isAbove(tailOnly.tail.length, 400)
    // Out of range is clamped; NaN is the default.
    assert.deepStrictEqual(Shorten.shortenText(text, 500, units, { headShare: 7 }), Shorten.shortenText(text, 500, units, { headShare: 1 }))
    assert.deepStrictEqual(Shorten.shortenText(text, 500, units, { headShare: Number.NaN }), Shorten.shortenText(text, 500, units))
  })

  it("docs/ai.md's example: whole lines at both ends, the marker between, as printed", () => {
    const doc = readFileSync(fileURLToPath(new URL("../../docs/ai.md", import.meta.url)), "utf8")
    const at = doc.indexOf("<!-- shorten-example -->")
    const start = doc.indexOf("```text\n", at) + "```text\n".length
    const printed = doc.slice(start, doc.indexOf("\n```", start))
    const steps = Array.from({ length: 500 }, (_, i) => `step ${i}: ok`).join("\n") + "\nFAILED: 1 of 500 steps"
    const short = Shorten.shortenText(steps, 40, words)!
    assert.strictEqual(short.text, printed)
    assert.deepStrictEqual([short.originalTokens, short.keptTokens], [1_505, 38])
    assert.include(doc, "on a 501-line log of 1,505 words")
    assert.include(doc, "38 tokens kept")
  })

  it("a text that fits is returned as it is", () => {
    const short = Shorten.shortenText("a few words", 3, words)!
    assert.deepStrictEqual(short, { text: "a few words", keptTokens: 3, originalTokens: 3, cutTokens: 0 })
  })

  it("undefined when even the marker does not fit", () => {
    // The marker alone is 6 words.
    assert.isUndefined(Shorten.shortenText(log, 5, words))
    assert.isDefined(Shorten.shortenText(log, 6, words))
    assert.strictEqual(Shorten.shortenText(log, 6, words)!.text, Shorten.marker(words(log)))
    assert.isUndefined(Shorten.shortenText(log, -1, words))
  })

  it("a count that is not a whole number is never trusted", () => {
    assert.isUndefined(Shorten.shortenText(log, 100, () => Number.NaN))
    assert.isUndefined(Shorten.shortenText(log, 100, (t) => words(t) + 0.5))
    // A counter that gives the candidates nonsense: nothing it measured fits.
    assert.isUndefined(Shorten.shortenText(log, 100, (t) => (t === log ? words(t) : -1)))
  })

  it("counts logarithmically: one count of the text and at most 2·⌈log₂(n + 1)⌉ more", () => {
    for (const size of [1_000, 100_000, 1_000_000]) {
      const text = Array.from({ length: Math.ceil(size / 10) }, (_, i) => `w${i % 100_000}`.padEnd(9, "x")).join(" ").slice(0, size)
      let calls = 0
      const short = Shorten.shortenText(text, 300, (t) => {
        calls++
        return words(t)
      })
      assert.isDefined(short)
      assert.isAtMost(calls, 1 + 2 * Math.ceil(Math.log2(text.length + 1)), `${size} characters`)
    }
  })

  it("property: within keepTokens by the counter, head a prefix and tail a suffix of the text, undefined only when the marker does not fit", () => {
    const piece = fc.oneof(
      fc.constantFrom(" ", "\n", "  ", "\t", "😀", "é", "—"),
      fc.string({ minLength: 1, maxLength: 12 }),
      fc.string({ unit: "grapheme", minLength: 1, maxLength: 4 })
    )
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 400 }).map((ps) => ps.join("")),
        fc.integer({ min: 0, max: 300 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom(words, units),
        (text, keep, headShare, count) => {
          const short = Shorten.shortenText(text, keep, count, { headShare })
          if (count(text) <= keep) {
            assert.strictEqual(short?.text, text)
            return
          }
          if (short === undefined) {
            // The search ends on the markers-only candidate when nothing else fits.
            assert.isAbove(count(Shorten.marker(count(text) - count(""))), keep)
            return
          }
          assert.strictEqual(count(short.text), short.keptTokens)
          assert.isAtMost(short.keptTokens, keep)
          const { figure, head, tail } = parts(short.text)
          assert.isTrue(text.startsWith(head))
          assert.isTrue(text.endsWith(tail))
          assert.isBelow(head.length + tail.length, text.length)
          assert.strictEqual(figure, short.cutTokens)
          if (isWellFormed(text)) assert.isTrue(isWellFormed(short.text))
        }
      ),
      { numRuns: 500 }
    )
  })
})

// ---------------------------------------------------------------------------------------------

// A counter of the message as render shows it: a token per 4 characters, 4 per message.
const byRender = (m: Prompt.Message): Effect.Effect<number> =>
  Effect.succeed(Math.ceil(PromptWindow.render(m).length / 4) + 4)

const call = (id: string, name = "search") =>
  Prompt.toolCallPart({ id, name, params: { q: id }, providerExecuted: false })
const result = (id: string, value: unknown, extra: Partial<Prompt.ToolResultPart> = {}) =>
  Prompt.toolResultPart({ id, name: "search", isFailure: false, result: value, providerExecuted: false, ...extra })

const big = Array.from({ length: 800 }, (_, i) => `result ${i}: the widget supports export`).join("\n")

describe("Shorten.shortenMessage", () => {
  it.effect("keeps the tool call id, name and isFailure: the prompt with the shortened result has no orphans", () =>
    Effect.gen(function*() {
      const user = Prompt.userMessage({ content: [Prompt.textPart({ text: "find it" })] })
      const assistant = Prompt.assistantMessage({ content: [call("c1")] })
      const tool = Prompt.toolMessage({ content: [result("c1", big, { isFailure: true })] })
      const short = (yield* Shorten.shortenMessage(tool, 300, byRender))!
      assert.notStrictEqual(short.message, tool)
      assert.strictEqual(short.message.role, "tool")
      const part = short.message.role === "tool" ? short.message.content[0]! : undefined
      assert.strictEqual(part?.type, "tool-result")
      if (part?.type !== "tool-result") return
      assert.strictEqual(part.id, "c1")
      assert.strictEqual(part.name, "search")
      assert.isTrue(part.isFailure)
      assert.isFalse(part.providerExecuted)
      assert.deepStrictEqual(PromptWindow.orphans(Prompt.fromMessages([user, assistant, short.message])), [])
      assert.deepStrictEqual(PromptWindow.groups([user, assistant, short.message]), [undefined, "message-1", "message-1"])
      // The original is untouched.
      assert.strictEqual((tool.content[0] as Prompt.ToolResultPart).result, big)
      assert.deepStrictEqual(short.cuts.map((c) => [c.id, c.name]), [["c1", "search"]])
    }))

  it.effect("the message counts at most keepTokens by the counter; original and kept tokens reported", () =>
    Effect.gen(function*() {
      const tool = Prompt.toolMessage({ content: [result("c1", big)] })
      for (const keep of [40, 300, 2_000]) {
        const short = (yield* Shorten.shortenMessage(tool, keep, byRender))!
        assert.strictEqual(short.originalTokens, yield* byRender(tool))
        assert.strictEqual(short.keptTokens, yield* byRender(short.message))
        assert.isAtMost(short.keptTokens, keep)
        const part = (short.message.role === "tool" ? short.message.content[0] : undefined) as Prompt.ToolResultPart
        const { head, tail } = parts(String(part.result))
        assert.isTrue(big.startsWith(head) && big.endsWith(tail))
      }
    }))

  it.effect("a result that is not a string is cut as its JSON text, which replaces it as a string", () =>
    Effect.gen(function*() {
      const value = { items: Array.from({ length: 300 }, (_, i) => ({ id: i, title: `widget ${i}` })) }
      const tool = Prompt.toolMessage({ content: [result("c1", value)] })
      const short = (yield* Shorten.shortenMessage(tool, 200, byRender))!
      const part = (short.message.role === "tool" ? short.message.content[0] : undefined) as Prompt.ToolResultPart
      assert.isString(part.result)
      const { head, tail } = parts(String(part.result))
      assert.isTrue(head.startsWith(`{"items":[{"id":0,"title":"widget 0"}`))
      assert.isTrue(tail.endsWith(`"widget 299"}]}`))
      assert.isAtMost(yield* byRender(short.message), 200)
    }))

  it.effect("modelOutput: its text parts are cut, its file parts and the result stay", () =>
    Effect.gen(function*() {
      const file = Prompt.filePart({ mediaType: "image/png", fileName: "shot.png", data: "iVBORw0KGgo=" })
      const tool = Prompt.toolMessage({
        content: [result("c1", { raw: true }, { modelOutput: [Prompt.textPart({ text: big }), file] })]
      })
      const short = (yield* Shorten.shortenMessage(tool, 250, byRender))!
      const part = (short.message.role === "tool" ? short.message.content[0] : undefined) as Prompt.ToolResultPart
      assert.deepStrictEqual(part.result, { raw: true })
      assert.strictEqual(part.modelOutput?.length, 2)
      assert.strictEqual(part.modelOutput?.[1], file)
      const text = part.modelOutput?.[0]
      assert.strictEqual(text?.type, "text")
      if (text?.type === "text") parts(text.text)
      assert.isAtMost(short.keptTokens, 250)
    }))

  it.effect("several results in one message: the longest is cut first, a short one stays whole", () =>
    Effect.gen(function*() {
      const small = result("c1", "21°C and clear")
      const huge = result("c2", big)
      const large = result("c3", big.slice(0, 12_000))
      const approval = Prompt.toolApprovalResponsePart({ approvalId: "ap1", approved: true })
      const tool = Prompt.toolMessage({ content: [small, huge, approval, large] })
      const short = (yield* Shorten.shortenMessage(tool, 3_000, byRender))!
      const content = short.message.role === "tool" ? short.message.content : []
      assert.strictEqual(content[0], small)
      assert.strictEqual(content[2], approval)
      assert.deepStrictEqual(short.cuts.map((c) => c.id), ["c2", "c3"])
      const cutHuge = String((content[1] as Prompt.ToolResultPart).result)
      const cutLarge = String((content[3] as Prompt.ToolResultPart).result)
      // One cap for both: they keep about the same number of characters.
      assert.approximately(cutHuge.length, cutLarge.length, 200)
      assert.isAtMost(short.keptTokens, 3_000)
      // With more room, the smaller of the two large results is kept whole.
      const roomy = (yield* Shorten.shortenMessage(tool, 6_500, byRender))!
      assert.deepStrictEqual(roomy.cuts.map((c) => c.id), ["c2"])
      assert.strictEqual((roomy.message.role === "tool" ? roomy.message.content : [])[3], large)
    }))

  it.effect("shortens: a result it refuses stays whole", () =>
    Effect.gen(function*() {
      const keep = result("c1", big.slice(0, 2_000), { name: "shell" })
      const tool = Prompt.toolMessage({ content: [keep, result("c2", big)] })
      const short = (yield* Shorten.shortenMessage(tool, 1_500, byRender, { shortens: (p) => p.name !== "shell" }))!
      assert.strictEqual((short.message.role === "tool" ? short.message.content : [])[0], keep)
      assert.deepStrictEqual(short.cuts.map((c) => c.id), ["c2"])
      assert.isUndefined(yield* Shorten.shortenMessage(tool, 1_500, byRender, { shortens: () => false }))
    }))

  it.effect("a message that fits is returned as it is", () =>
    Effect.gen(function*() {
      const tool = Prompt.toolMessage({ content: [result("c1", "short")] })
      const short = (yield* Shorten.shortenMessage(tool, 100, byRender))!
      assert.strictEqual(short.message, tool)
      assert.strictEqual(short.keptTokens, short.originalTokens)
      assert.deepStrictEqual(short.cuts, [])
    }))

  it.effect("undefined when the message cannot be made to fit", () =>
    Effect.gen(function*() {
      // Not a tool message.
      const user = Prompt.userMessage({ content: [Prompt.textPart({ text: big })] })
      assert.isUndefined(yield* Shorten.shortenMessage(user, 100, byRender))
      // Nothing to cut: approval responses only.
      const approvals = Prompt.toolMessage({
        content: Array.from({ length: 200 }, (_, i) => Prompt.toolApprovalResponsePart({ approvalId: `ap${i}`, approved: true }))
      })
      assert.isUndefined(yield* Shorten.shortenMessage(approvals, 100, byRender))
      // The parts that are not text and the markers alone exceed the room.
      const crowded = Prompt.toolMessage({ content: [...approvals.content, result("c1", big)] })
      assert.isUndefined(yield* Shorten.shortenMessage(crowded, 1_000, byRender))
      assert.isDefined(yield* Shorten.shortenMessage(crowded, 3_000, byRender))
    }))

  it.effect("counts logarithmically in the longest text", () =>
    Effect.gen(function*() {
      let calls = 0
      const counting = (m: Prompt.Message) => Effect.suspend(() => {
        calls++
        return byRender(m)
      })
      const text = big.repeat(10)
      const tool = Prompt.toolMessage({ content: [result("c1", text)] })
      const short = yield* Shorten.shortenMessage(tool, 500, counting)
      assert.isDefined(short)
      // The message, the text and the empty text once each; then a piece and the whole a step.
      assert.isAtMost(calls, 3 + 2 * Math.ceil(Math.log2(text.length + 1)))
    }))

  it.live("the real o200k counter: within keepTokens, the pair valid, for a few generated results", () =>
    Effect.gen(function*() {
      const counter = yield* TokenCounter
      const cases = fc.sample(
        fc.tuple(
          fc.array(fc.oneof(fc.lorem({ maxCount: 12 }), fc.string({ unit: "grapheme", maxLength: 30 }), fc.constant("\n")), {
            minLength: 50,
            maxLength: 400
          }).map((ps) => ps.join(" ")),
          fc.integer({ min: 30, max: 800 }),
          fc.boolean()
        ),
        { seed: 19, numRuns: 12 }
      )
      for (const [text, keep, asJson] of cases) {
        const tool = Prompt.toolMessage({ content: [result("c1", asJson ? { text } : text)] })
        const short = yield* Shorten.shortenMessage(tool, keep, counter.count)
        const original = yield* counter.count(tool)
        if (short === undefined) {
          assert.isAbove(original, keep)
          continue
        }
        assert.strictEqual(short.keptTokens, yield* counter.count(short.message))
        assert.isAtMost(short.keptTokens, keep)
        assert.strictEqual(short.originalTokens, original)
        const assistant = Prompt.assistantMessage({ content: [call("c1")] })
        assert.deepStrictEqual(PromptWindow.orphans(Prompt.fromMessages([assistant, short.message])), [])
        // And a document, counted as the system message it is sent as.
        const doc = yield* Shorten.shortenTextEffect(
          text,
          keep,
          (t) => counter.count(Prompt.systemMessage({ content: t }))
        )
        if (doc !== undefined) {
          assert.isAtMost(doc.keptTokens, keep)
          assert.strictEqual(doc.keptTokens, yield* counter.count(Prompt.systemMessage({ content: doc.text })))
          if (doc.cutTokens > 0) assert.isTrue(isWellFormed(doc.text) || !isWellFormed(text))
        }
      }
    }).pipe(Effect.provide(GptTokenizer.layer)))
})

// ---------------------------------------------------------------------------------------------

const countWords = (text: string) => Effect.succeed(words(text))

describe("Shorten.shortenItem", () => {
  it.effect("a document's content is shortened: tokens the kept ones, originalTokens set, metadata.shortened says so", () =>
    Effect.gen(function*() {
      const doc = new ContextItem.ContextItem({ content: log, tokens: words(log), kind: "Document", metadata: { url: "u" } })
      const short = (yield* Shorten.shortenItem(doc, 300, countWords))!
      assert.isAtMost(short.tokens, 300)
      assert.strictEqual(short.tokens, words(short.content))
      assert.strictEqual(short.originalTokens, words(log))
      assert.deepStrictEqual(short.metadata, {
        url: "u",
        [Shorten.shortenedKey]: { originalTokens: words(log), keptTokens: short.tokens }
      })
      assert.strictEqual(short.kind, "Document")
      parts(short.content)
    }))

  it.effect("an item already summarized keeps its first originalTokens", () =>
    Effect.gen(function*() {
      const doc = new ContextItem.ContextItem({ content: log, tokens: words(log), originalTokens: 99_999 })
      const short = (yield* Shorten.shortenItem(doc, 300, countWords))!
      assert.strictEqual(short.originalTokens, 99_999)
      assert.deepStrictEqual(short.metadata[Shorten.shortenedKey], { originalTokens: words(log), keptTokens: short.tokens })
    }))

  it.effect("an item that fits is returned as it is; undefined when the marker does not fit", () =>
    Effect.gen(function*() {
      const doc = new ContextItem.ContextItem({ content: log, tokens: words(log) })
      assert.strictEqual(yield* Shorten.shortenItem(doc, words(log), countWords), doc)
      assert.isUndefined(yield* Shorten.shortenItem(doc, 5, countWords))
    }))

  it.effect("when the counter finds the whole content within the room, the item keeps it with the counter's figure", () =>
    Effect.gen(function*() {
      const doc = new ContextItem.ContextItem({ content: "four words right here", tokens: 40 })
      const short = (yield* Shorten.shortenItem(doc, 10, countWords))!
      assert.strictEqual(short.content, doc.content)
      assert.strictEqual(short.tokens, 4)
      assert.isUndefined(short.metadata[Shorten.shortenedKey])
    }))
})
