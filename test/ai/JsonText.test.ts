/**
 * A value's JSON text in pieces (issue 27, item 5; docs/design.md item 113): the text
 * `JsonText.inPieces` writes is `JSON.stringify(value) ?? String(value)` (`String(value)` when
 * it throws) for any value — JSON trees, `toJSON` with its key, boxed primitives, `undefined`,
 * functions and symbols in objects and arrays, non-finite numbers, a `bigint`, a cycle — with
 * every subtree walked (no subtree left to `JSON.stringify`) and with the default; and a large
 * tool result's text through `renderEffect` is `render`'s.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Prompt } from "effect/ai"
import fc from "fast-check"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as JsonText from "../../src/ai/internal/jsonText.ts"

const expected = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/** Values JSON.stringify treats specially, beside JSON trees. */
const odd = fc.constantFrom<unknown>(
  undefined, () => 1, Symbol("s"), NaN, Infinity, -0, new Date(0), Object(3), Object("s"), Object(true),
  { toJSON: (key: string) => `key ${key}` }, { toJSON: () => undefined }, { toJSON: () => ({ toJSON: () => 1 }) },
  [undefined, () => 1], "\ud800 lone", "😀", "a\"b\\c\u0001"
)
const value = fc.letrec((tie) => ({
  tree: fc.oneof(
    { depthSize: "small" },
    fc.jsonValue({ maxDepth: 2 }),
    odd,
    fc.array(tie("tree"), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 4 }), tie("tree"), { maxKeys: 4 })
  )
})).tree

describe("JsonText", () => {
  it("inPieces writes JSON.stringify's text, every subtree walked and with the default", async () => {
    await fc.assert(
      fc.asyncProperty(value, async (v) => {
        assert.strictEqual(await Effect.runPromise(JsonText.inPieces(v, 0)), expected(v))
        assert.strictEqual(await Effect.runPromise(JsonText.inPieces(v)), expected(v))
      }),
      { numRuns: 300, seed: 113 }
    )
  })

  it("a bigint, a cycle and a bigint deep in a tree: String(value), as JSON.stringify throws", async () => {
    const cyclic: Record<string, unknown> = { a: [1, 2] }
    cyclic["self"] = { back: cyclic }
    for (const v of [1n, cyclic, { rows: [{ n: 2n }] }, [[cyclic]]]) {
      assert.strictEqual(await Effect.runPromise(JsonText.inPieces(v, 0)), expected(v))
    }
  })

  it("a large tree with a multi-megabyte string deep in it: the same text, in pieces, kept for render", () =>
    Effect.gen(function*() {
      const big = `${"line \"quoted\" \\ \u0001\n".repeat(60_000)}\ud800 end`
      const rows = Array.from({ length: 20_000 }, (_, i) => ({ id: i, name: `row ${i}`, at: new Date(i), skip: undefined }))
      const result = { meta: { ok: true }, files: [{ path: "a.log", content: big }], rows }
      assert.isTrue(JsonText.isLarge(result))
      const message = Prompt.toolMessage({
        content: [Prompt.toolResultPart({ id: "c1", name: "read", isFailure: false, result, providerExecuted: false })]
      })
      const text = yield* PromptWindow.renderEffect(message)
      assert.strictEqual(JsonText.known(result), expected(result))
      const copy = Prompt.toolMessage({
        content: [Prompt.toolResultPart({ id: "c1", name: "read", isFailure: false, result: JSON.parse(JSON.stringify(result)), providerExecuted: false })]
      })
      assert.strictEqual(text, PromptWindow.render(copy))
    }).pipe(Effect.runPromise), 60_000)
})
