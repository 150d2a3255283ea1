import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { countTokens as countO200k } from "gpt-tokenizer/encoding/o200k_base"
import { countTokens as countCl100k } from "gpt-tokenizer/encoding/cl100k_base"
import * as fc from "fast-check"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as Counting from "../src/Counting.ts"
import * as ContextItem from "../src/ContextItem.ts"
import * as Pipeline from "../src/Pipeline.ts"
import * as Policy from "../src/Policy.ts"
import * as Presets from "../src/Presets.ts"
import * as ContextBudget from "../src/ContextBudget.ts"
import * as OverflowNotifier from "../src/OverflowNotifier.ts"

const text = "The quick brown fox jumps over the lazy dog, twice: <|endoftext|>"

describe("Counting", () => {
  it.effect("items without tokens are counted in o200k by default", () =>
    Effect.gen(function*() {
      const items = yield* Counting.decodeMany([{ content: text }, { content: "hello" }])
      assert.deepStrictEqual(items.map((item) => item.tokens), [
        countO200k(text, { disallowedSpecial: new Set() }),
        countO200k("hello")
      ])
      assert.isTrue(items.every((item) => item instanceof ContextItem.ContextItem))
    }))

  it.effect("cl100k counts with the cl100k encoding", () =>
    Effect.gen(function*() {
      const [item] = yield* Counting.decodeMany([{ content: text }], { count: "cl100k" })
      assert.strictEqual(item!.tokens, countCl100k(text, { disallowedSpecial: new Set() }))
    }))

  it.effect("text that looks like a special token is counted as text, not refused", () =>
    Effect.gen(function*() {
      const [item] = yield* Counting.decodeMany([{ content: "<|endoftext|>" }])
      assert.isAbove(item!.tokens, 1)
    }))

  it.effect("a count function is given each uncounted item's content and index", () =>
    Effect.gen(function*() {
      const seen: Array<[string, number]> = []
      const items = yield* Counting.decodeMany(
        [{ content: "a b c" }, { content: "kept", tokens: 9 }, { content: "d e" }],
        { count: (content, index) => (seen.push([content, index]), content.split(" ").length) }
      )
      assert.deepStrictEqual(items.map((item) => item.tokens), [3, 9, 2])
      assert.deepStrictEqual(seen, [["a b c", 0], ["d e", 2]])
    }))

  it.effect("tokens: null (the wire's absent, a nullable column) is counted; undefined too", () =>
    Effect.gen(function*() {
      const items = yield* Counting.decodeMany([{ content: "a b", tokens: null }, { content: "c", tokens: undefined }], {
        count: (content) => content.length
      })
      assert.deepStrictEqual(items.map((item) => item.tokens), [3, 1])
    }))

  it.effect("an item with tokens keeps its count, whatever its content", () =>
    Effect.gen(function*() {
      const [item] = yield* Counting.decodeMany([{ content: text, tokens: 1 }])
      assert.strictEqual(item!.tokens, 1)
    }))

  it.effect("the caller's objects are not changed", () =>
    Effect.gen(function*() {
      const input = [{ content: "hello", kind: "Document" }]
      const frozen = JSON.stringify(input)
      yield* Counting.decodeMany(input)
      assert.strictEqual(JSON.stringify(input), frozen)
      assert.isFalse(Object.hasOwn(input[0]!, "tokens"))
    }))

  it.effect("a count function that throws is a CountError naming the item", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Counting.decodeMany([{ content: "a", tokens: 1 }, { content: "b" }], {
          count: () => {
            throw new RangeError("tokenizer exploded")
          }
        })
      )
      assert.strictEqual(error._tag, "CountError")
      assert.strictEqual(error.message, "count of item [1] threw: RangeError: tokenizer exploded")
    }))

  it.effect("a count that is not a non-negative safe integer is a CountError naming the item", () =>
    Effect.gen(function*() {
      for (const bad of [Number.NaN, -1, 1.5, 2 ** 60]) {
        const error = yield* Effect.flip(Counting.decodeMany([{ content: "b" }], { count: () => bad }))
        assert.strictEqual(error._tag, "CountError")
        assert.include(error.message, "count of item [0] must be a non-negative safe integer")
      }
    }))

  it.effect("a count option that is none of the three is a CountError, not a defect", () =>
    Effect.gen(function*() {
      // As a JavaScript caller could pass it: JSON.parse gives a value of no static type.
      const options: Counting.Options = JSON.parse(`{ "count": "p50k" }`)
      const error = yield* Effect.flip(Counting.decodeMany([{ content: "b" }], options))
      assert.strictEqual(error._tag, "CountError")
      assert.strictEqual(error.message, `count must be "o200k", "cl100k" or a function (got "p50k")`)
    }))

  it.effect("an item the counter cannot count is the decoder's error, with its path", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Counting.decodeMany([{ content: "ok" }, { content: 5 }, "x"]))
      assert.strictEqual(error._tag, "SchemaError")
      assert.include(error.message, `["content"]`)
      assert.include(error.message, "[2]")
    }))

  it.effect("an input that is not an array is the decoder's error", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Counting.decodeMany({ content: "x" }))
      assert.strictEqual(error._tag, "SchemaError")
    }))

  it.effect("decodeJsonArray counts and decodes JSON text; malformed JSON is the SchemaError", () =>
    Effect.gen(function*() {
      const items = yield* Counting.decodeJsonArray(`[{ "content": "hello", "kind": "Document" }]`, {
        count: () => 4
      })
      assert.deepStrictEqual(items.map((item) => [item.tokens, item.kind]), [[4, "Document"]])
      const error = yield* Effect.flip(Counting.decodeJsonArray(`[{ "content": `))
      assert.strictEqual(error._tag, "SchemaError")
    }))

  it.effect("counted items run through Pipeline.run and Policy.run", () =>
    Effect.gen(function*() {
      const items = yield* Counting.decodeMany([
        { content: "system prompt", pinned: true },
        { content: "a long retrieved document ".repeat(40), kind: "Document" },
        { content: "the user's question" }
      ])
      const budget = new ContextBudget.ContextBudget({ maxTokens: 60, targetTokens: 60 })
      const viaPolicy = yield* Policy.run(items, budget, Presets.chat).pipe(Effect.provide(OverflowNotifier.layerNoop))
      const viaPipeline = yield* Pipeline.run(items, budget, Policy.options(Presets.chat)).pipe(
        Effect.provide([Policy.layer(Presets.chat), OverflowNotifier.layerNoop])
      )
      assert.deepStrictEqual(viaPolicy.window.map((item) => item.content), viaPipeline.window.map((item) => item.content))
      assert.include(viaPolicy.window.map((item) => item.content), "the user's question")
      assert.strictEqual(viaPolicy.report.excluded.length, 1)
    }))

  it("property: the same result as ContextItem.decodeMany of the input with the counts written in", async () => {
    const arbItem = fc.record(
      {
        content: fc.oneof(fc.string({ maxLength: 40 }), fc.constant(7)),
        tokens: fc.oneof(fc.nat(1000), fc.constant(-3)),
        priority: fc.oneof(fc.integer(), fc.double())
      },
      { requiredKeys: ["content"] }
    )
    const outcome = (effect: Effect.Effect<ReadonlyArray<ContextItem.ContextItem>, { readonly message: string }>) =>
      Effect.runPromise(
        effect.pipe(
          Effect.map((items) => ({ items: items.map((item) => ({ ...item })) })),
          Effect.catch((error) => Effect.succeed({ error: error.message }))
        )
      )
    await fc.assert(
      fc.asyncProperty(fc.array(arbItem, { maxLength: 20 }), async (input) => {
        const count = (content: string) => content.length
        const counted = await outcome(Counting.decodeMany(input, { count }))
        const literal = await outcome(
          ContextItem.decodeMany(
            input.map((item) =>
              item.tokens === undefined && typeof item.content === "string" ? { ...item, tokens: count(item.content) } : item
            )
          )
        )
        assert.deepStrictEqual(counted, literal)
      }),
      { numRuns: 200 }
    )
  })

  it("the README's block runs as shown, and counts what it says", async () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8")
    const start = readme.indexOf("### Items without token counts")
    const open = readme.indexOf("```ts\n", start)
    const block = readme.slice(open + 6, readme.indexOf("\n```", open))
    // Run as a user's module would: a file importing the package, executed by Node itself.
    const dir = mkdtempSync(fileURLToPath(new URL("../.readme-counting-", import.meta.url)))
    let printed: string
    try {
      const file = join(dir, "counting.ts")
      const source = `import { Effect } from "effect"\nimport { Counting } from "../src/index.ts"\n${block}\nconsole.log(JSON.stringify(items.map((item) => item.tokens)))\n`
      writeFileSync(file, source)
      printed = execFileSync(process.execPath, [file], { encoding: "utf8" })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    const tokens: unknown = JSON.parse(printed)
    assert.deepStrictEqual(tokens, [
      countO200k("You are a support agent for Acme."),
      countO200k("Refund policy: 30 days."),
      7
    ])
  })
})
