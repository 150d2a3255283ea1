import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { vi } from "vitest"
import * as GptTokenizer from "../../src/ai/GptTokenizer.ts"
import * as Counting from "../../src/Counting.ts"

// gpt-tokenizer as if it were not installed: importing its encodings rejects.
vi.mock("gpt-tokenizer/encoding/o200k_base", () => {
  throw new Error("Cannot find package 'gpt-tokenizer'")
})
vi.mock("gpt-tokenizer/encoding/cl100k_base", () => {
  throw new Error("Cannot find package 'gpt-tokenizer'")
})

describe("GptTokenizer without gpt-tokenizer installed", () => {
  it.effect("building the layer fails with a typed TokenizerLoadError, not a defect", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Layer.build(GptTokenizer.layer).pipe(Effect.scoped))
      assert.strictEqual(error._tag, "TokenizerLoadError")
      assert.strictEqual(error.encoding, "o200k_base")
      assert.include(error.message, "npm install gpt-tokenizer")
    }))

  it.effect("each encoding's constructor fails the same way", () =>
    Effect.gen(function*() {
      const o200k = yield* Effect.flip(GptTokenizer.make())
      const cl100k = yield* Effect.flip(Layer.build(GptTokenizer.layerEncoding("cl100k_base")).pipe(Effect.scoped))
      assert.deepStrictEqual([o200k._tag, o200k.encoding], ["TokenizerLoadError", "o200k_base"])
      assert.deepStrictEqual([cl100k._tag, cl100k.encoding], ["TokenizerLoadError", "cl100k_base"])
    }))

  it.effect("Counting: an item without tokens fails with TokenizerLoadError, never an estimate", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Counting.decodeMany([{ content: "hello" }], { count: "cl100k" }))
      assert.deepStrictEqual([error._tag, error.message.includes("npm install gpt-tokenizer")], ["TokenizerLoadError", true])
    }))

  it.effect("Counting: items that all have tokens need no gpt-tokenizer", () =>
    Effect.gen(function*() {
      const items = yield* Counting.decodeMany([{ content: "hello", tokens: 1 }])
      assert.strictEqual(items[0]!.tokens, 1)
    }))
})
