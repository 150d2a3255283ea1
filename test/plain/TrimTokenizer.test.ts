import { assert, describe, it } from "@effect/vitest"
import { vi } from "vitest"
import { trim } from "../../src/plain/Trim.ts"

// gpt-tokenizer missing, as in a library install without the optional peer.
vi.mock("gpt-tokenizer/encoding/o200k_base", () => {
  throw new Error("Cannot find package 'gpt-tokenizer'")
})

describe("plain/Trim without gpt-tokenizer", () => {
  it("the default counter rejects with TokenizerLoadError, saying to install gpt-tokenizer or pass count", async () => {
    const error: unknown = await trim([{ role: "user", content: "hi" }], { contextWindow: 100 }).then(() => undefined, (e: unknown) => e)
    assert.instanceOf(error, Error)
    assert.strictEqual(Reflect.get(error, "_tag"), "TokenizerLoadError")
    assert.include(error.message, "npm install gpt-tokenizer")
    assert.include(error.message, "pass count")
  })

  it("a count function needs no gpt-tokenizer", async () => {
    const input = [{ role: "user" as const, content: "hi" }]
    const { messages } = await trim(input, { contextWindow: 100, count: () => 1 })
    assert.strictEqual(messages[0], input[0])
  })
})
