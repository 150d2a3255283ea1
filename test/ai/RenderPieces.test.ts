/**
 * A long message's text is a rope of its pieces, read in pieces, never made whole (issue 27,
 * item 5; docs/design.md items 117–118): a large value's JSON text is the concatenation of the
 * pieces `JsonText` wrote (V8 keeps it as a rope, no copy of the whole), and the readers of every
 * character (the stable window's hashes) read `PromptRender.renderedPieces` instead of the text.
 * Nothing a reader sees changes: the text is the same string value as the whole text written at
 * once, the hash of the pieces is the whole text's, the prefix digests are those of the whole
 * texts, and `trim` sends the same shortened text whether the result's text is a rope of pieces
 * or one flat string.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Prompt } from "effect/ai"
import fc from "fast-check"
import * as PromptRender from "../../src/ai/PromptRender.ts"
import * as Hash from "../../src/ai/internal/hash.ts"
import * as JsonText from "../../src/ai/internal/jsonText.ts"
import { makePrefixDigests } from "../../src/ai/internal/prefixDigests.ts"
import type * as OpenAIChat from "../../src/plain/OpenAIChat.ts"
import * as Trim from "../../src/plain/Trim.ts"
import * as Sessions from "../support/sessions.ts"
import { wordText } from "../support/wordText.ts"

/** A log-like text of `n` characters (non-Latin-1 characters in it: two bytes a character). */
const logTextWords = ["alpha", "beta", "src/a/b.ts", "Error: boom", "12345", "résumé", "—", "\"q\"", "\\", "\n", "😀"]
const logText = (n: number, seed: number): string =>
  wordText(logTextWords, n, seed)

/** A JSON tree of rows, `rows` of them. */
const rowsTree = (rows: number, seed: number): unknown => {
  const random = Sessions.mulberry32(seed)
  return { file: "build.log", rows: Array.from({ length: rows }, (_, i) => ({ i, text: logText(40, seed * 7 + i), ok: random() > 0.5, n: random() })) }
}

/** The text `render` wrote before design item 117, whole: one `join` of the parts' lines. */
const wholeText = (message: Prompt.Message): string => {
  if (message.role === "system") return message.content
  const line = (part: Prompt.Part): string =>
    part.type === "text"
      ? part.text
      : part.type === "tool-call"
      ? `${part.name}(${JSON.stringify(part.params)}) [call ${part.id}]`
      : part.type === "tool-result"
      ? `${part.isFailure ? "error" : "result"} of ${part.name} [call ${part.id}]: ${JSON.stringify(part.result)}`
      : "?"
  return message.content.map(line).join("\n")
}

const resultMessage = (result: unknown, extra: boolean) =>
  Prompt.toolMessage({
    content: [
      Prompt.toolResultPart({ id: "c1", name: "read", isFailure: false, result, providerExecuted: false }),
      ...(extra ? [Prompt.toolResultPart({ id: "c2", name: "stat", isFailure: true, result: { size: 3 }, providerExecuted: false })] : [])
    ]
  })

const callMessage = (params: unknown) =>
  Prompt.assistantMessage({
    content: [Prompt.textPart({ text: "reading" }), Prompt.toolCallPart({ id: "c1", name: "write", params, providerExecuted: false })]
  })

describe("a long message's text in pieces (design items 117–118)", () => {
  it("renderedPieces: their concatenation is render's text, the text written whole, for string and JSON-tree results and a call's arguments", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 1_000 }), fc.constantFrom("string", "tree", "call"), fc.boolean(), async (seed, shape, extra) => {
        const message = shape === "string"
          ? resultMessage(logText(300_000 + seed * 97, seed), extra)
          : shape === "tree"
          ? resultMessage(rowsTree(6_000 + seed, seed), extra)
          : callMessage({ path: "a.txt", text: logText(300_000 + seed, seed) })
        const text = await Effect.runPromise(PromptRender.renderEffect(message))
        const pieces = PromptRender.renderedPieces(message)
        assert.isDefined(pieces)
        assert.isAbove(pieces!.length, 2)
        assert.strictEqual(pieces!.join(""), text)
        assert.strictEqual(text, wholeText(message))
        assert.strictEqual(PromptRender.render(message), text)
      }),
      { numRuns: 12, seed: 117 }
    )
  }, 120_000)

  it("renderedPieces is undefined for a message whose text is not kept (short, or never rendered)", () => {
    const short = resultMessage("short", false)
    PromptRender.render(short)
    assert.isUndefined(PromptRender.renderedPieces(short))
    assert.isUndefined(PromptRender.renderedPieces(resultMessage(logText(300_000, 5), false)))
  })

  it("Hash.hashPiecesEffect gives hashString's hash of the pieces' concatenation, however cut", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: "grapheme", maxLength: 40 }),
        fc.integer({ min: 0, max: 3 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.integer(),
        async (unit, times, cuts, seed) => {
          // Texts short and past several hash pieces, cut anywhere (a surrogate pair included).
          const text = times === 0 ? unit : unit.repeat(Math.ceil((Hash.hashPiece * times + 11) / Math.max(1, unit.length)))
          const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b)
          const pieces = [0, ...at].map((from, i) => text.slice(from, [...at, text.length][i]))
          assert.strictEqual(pieces.join(""), text)
          assert.strictEqual(await Effect.runPromise(Hash.hashPiecesEffect(pieces, seed)), Hash.hashString(text, seed))
        }
      ),
      { numRuns: 40, seed: 117 }
    )
  })

  it("prefix digests: a long message hashed from its pieces gives the digests of its whole text (a stable window's state keeps its meaning)", async () => {
    for (const seed of [1, 2, 3]) {
      const history = [
        Prompt.systemMessage({ content: "you are an agent" }),
        callMessage({ path: "x" }),
        resultMessage(seed === 3 ? rowsTree(8_000, seed) : logText(600_000 * seed, seed), seed === 2),
        Prompt.userMessage({ content: [Prompt.textPart({ text: "go on" })] })
      ]
      await Effect.runPromise(PromptRender.renderEffect(history[2]!))
      const prepared = makePrefixDigests()
      await Effect.runPromise(prepared.prepare(history))
      const whole = makePrefixDigests()
      const expected = history.map((m) => Hash.hashString(`${m.role}\n${wholeText(m)}`))
      assert.deepStrictEqual(history.map(prepared.hashOf), expected)
      assert.deepStrictEqual(prepared.digestsOf(history), whole.digestsOf(history))
    }
  }, 60_000)

  it("trim sends the same shortened text whether the result's text is a rope of pieces or one flat string (seeds)", async () => {
    const chat = (content: string): Array<OpenAIChat.Message> => [
      { role: "system", content: "you are an agent" },
      { role: "user", content: "read the build log" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: "{\"path\":\"b.log\"}" } }] },
      { role: "tool", tool_call_id: "c1", content }
    ]
    const options = { contextWindow: 32_000, outputReserve: 2_000 }
    for (const seed of [11, 12, 13]) {
      const content = logText(1_200_000 + 50_000 * seed, seed)
      // In pieces: the text JsonText writes when it meets the result first (a rope).
      const inPieces = await Trim.trim(chat(content), options)
      // Flat: the kept texts pushed out by four others, then the result's written whole.
      for (let i = 0; i < 4; i++) JsonText.jsonText(`${i}`.repeat(JsonText.smallChars + 1))
      assert.isUndefined(JsonText.knownPieces(content))
      JsonText.jsonText(content)
      assert.deepStrictEqual(JsonText.knownPieces(content), [JsonText.known(content)!])
      const flat = await Trim.trim(chat(content), options)
      assert.strictEqual(inPieces.report.shortened.length, 1)
      assert.deepStrictEqual(inPieces.messages, flat.messages)
      assert.deepStrictEqual(inPieces.report, flat.report)
    }
  }, 120_000)
})
