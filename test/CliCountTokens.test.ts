/**
 * `--count-tokens o200k|cl100k` of `cupel run`, `explain` and `budget`: items without `tokens`
 * counted from their `content` with gpt-tokenizer (src/cli/CountTokens.ts).
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as cl100k from "gpt-tokenizer/encoding/cl100k_base"
import * as o200k from "gpt-tokenizer/encoding/o200k_base"
import * as CountTokens from "../src/cli/CountTokens.ts"
import { cli } from "./support/cli.ts"

const text = "Die Hauptstadt von Frankreich ist Paris — 東京は日本の首都です。"
const input = (items: ReadonlyArray<object>) =>
  JSON.stringify({ budget: { maxTokens: 10_000, targetTokens: 5_000 }, scorer: { type: "priority" }, items })

interface Item {
  readonly content: string
  readonly tokens: number
}
const windowOf = (stdout: string): ReadonlyArray<Item> => JSON.parse(stdout).window
const tokensOf = (stdout: string, content: string) => windowOf(stdout).find((item) => item.content === content)?.tokens

layer(NodeServices.layer)("cupel run --count-tokens", (it) => {
  it.effect("o200k: an item without tokens gets o200k_base's count of its content", () =>
    Effect.gen(function*() {
      const run = yield* cli(["run", "--count-tokens", "o200k"], input([{ content: text }]))
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(tokensOf(run.stdout, text), o200k.countTokens(text))
    }))

  it.effect("cl100k: counted with cl100k_base, which counts this text differently", () =>
    Effect.gen(function*() {
      assert.notStrictEqual(cl100k.countTokens(text), o200k.countTokens(text))
      const run = yield* cli(["run", "--count-tokens", "cl100k"], input([{ content: text }]))
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(tokensOf(run.stdout, text), cl100k.countTokens(text))
    }))

  it.effect("\"tokens\": null (the wire's absent, as a nullable column exports it) is counted", () =>
    Effect.gen(function*() {
      const run = yield* cli(["run", "--count-tokens", "o200k"], input([{ content: text, tokens: null }]))
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(tokensOf(run.stdout, text), o200k.countTokens(text))
    }))

  it.effect("an item with tokens keeps its count, whatever its content", () =>
    Effect.gen(function*() {
      const run = yield* cli(
        ["run", "--count-tokens", "o200k"],
        input([{ content: text, tokens: 1 }, { content: "counted" }, { content: "seven", tokens: 7 }])
      )
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(tokensOf(run.stdout, text), 1)
      assert.strictEqual(tokensOf(run.stdout, "seven"), 7)
      assert.strictEqual(tokensOf(run.stdout, "counted"), o200k.countTokens("counted"))
    }))

  it.effect("special-token text in a content is counted as text, not refused", () =>
    Effect.gen(function*() {
      const special = "<|endoftext|> and <|im_end|>"
      const run = yield* cli(["run", "--count-tokens", "o200k"], input([{ content: special }]))
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(tokensOf(run.stdout, special), o200k.countTokens(special, { disallowedSpecial: new Set() }))
      assert.isAbove(tokensOf(run.stdout, special) ?? 0, 2)
    }))

  it.effect("without the flag a missing tokens is still the decoding error, exit 2", () =>
    Effect.gen(function*() {
      const run = yield* cli(["run"], input([{ content: text }]))
      assert.strictEqual(run.code, 2)
      assert.strictEqual(run.stdout, "")
      assert.strictEqual(run.stderr, "cupel run: invalid input (stdin): items[0].tokens: is required but missing")
    }))

  it.effect("a content that is not a string is left to the decoder: the same errors as without the flag on an item with tokens", () =>
    Effect.gen(function*() {
      const bad = input([{ content: 5 }, { content: "fine" }])
      const withFlag = yield* cli(["run", "--count-tokens", "o200k"], bad)
      const without = yield* cli(["run"], input([{ content: 5, tokens: 1 }, { content: "fine", tokens: 1 }]))
      assert.strictEqual(withFlag.code, 2)
      assert.strictEqual(withFlag.stderr, without.stderr)
    }))

  // Issue 28: `"content": 42` under the flag also said "tokens is required", which the flag
  // would have counted from a string content.
  it.effect("content 42 under --count-tokens: the error names the content's type only, not a missing tokens", () =>
    Effect.gen(function*() {
      const run = yield* cli(["run", "--count-tokens", "o200k"], input([{ content: 42 }]))
      assert.strictEqual(run.code, 2)
      assert.strictEqual(run.stdout, "")
      assert.strictEqual(run.stderr, "cupel run: invalid input (stdin): items[0].content: Expected a string, got 42")
      const missing = yield* cli(["run", "--count-tokens", "o200k"], input([{ priority: 1 }]))
      assert.notInclude(missing.stderr, "tokens")
      assert.include(missing.stderr, "items[0].content")
      // explain and budget read the input the same way.
      const explain = yield* cli(["explain", "--count-tokens", "o200k"], input([{ content: 42 }]))
      assert.notInclude(explain.stderr, "tokens: is required")
      assert.include(explain.stderr, "items[0].content: Expected a string, got 42")
    }))

  it("holdUncountable: a placeholder count only for items without tokens whose content is not a string", () => {
    const value: { readonly items: ReadonlyArray<unknown> } = {
      items: [{ content: 42 }, { content: "x" }, { content: null, tokens: 2 }, {}, "text", { content: [1], tokens: null }]
    }
    assert.strictEqual(CountTokens.holdUncountable(value), 3)
    assert.deepStrictEqual(value.items, [
      { content: 42, tokens: 0 },
      { content: "x" },
      { content: null, tokens: 2 },
      { tokens: 0 },
      "text",
      { content: [1], tokens: 0 }
    ])
  })

  it.effect("an encoding other than o200k or cl100k is a usage error, exit 2", () =>
    Effect.gen(function*() {
      const run = yield* cli(["run", "--count-tokens", "p50k"], input([{ content: text }]))
      assert.strictEqual(run.code, 2)
      assert.strictEqual(run.stdout, "")
    }))

  it.effect("with --preset (the candidates' decoder) the items are counted too", () =>
    Effect.gen(function*() {
      const run = yield* cli(["run", "--preset", "chat", "--count-tokens", "o200k"], input([{ content: text }]))
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(tokensOf(run.stdout, text), o200k.countTokens(text))
    }))

  it.effect("explain and budget take the flag as run does", () =>
    Effect.gen(function*() {
      const explain = yield* cli(["explain", "--count-tokens", "o200k"], input([{ content: text }]))
      assert.strictEqual(explain.code, 0, explain.stderr)
      assert.include(explain.stdout, String(o200k.countTokens(text)))
      const budget = yield* cli(["budget", "--marginal", "10", "--count-tokens", "o200k"], input([{ content: text }]))
      assert.strictEqual(budget.code, 0, budget.stderr)
      const without = yield* cli(["budget", "--marginal", "10"], input([{ content: text }]))
      assert.strictEqual(without.code, 2)
    }))
})

describe("CountTokens.fill", () => {
  it("counts only items without tokens (no key, or null: the wire's absent) whose content is a string, and says how many", () => {
    const value = {
      items: [{ content: "a b c" }, { content: "x", tokens: 3 }, { content: null }, "text", { content: "y", tokens: null }, {
        content: "z",
        tokens: 0
      }]
    }
    assert.strictEqual(CountTokens.fill(value, (t) => t.length), 2)
    assert.deepStrictEqual(value.items, [
      { content: "a b c", tokens: 5 },
      { content: "x", tokens: 3 },
      { content: null },
      "text",
      { content: "y", tokens: 1 },
      { content: "z", tokens: 0 }
    ])
  })

  it("leaves a value that is not an input with items alone", () => {
    assert.strictEqual(CountTokens.fill(null, () => 1), 0)
    assert.strictEqual(CountTokens.fill({ items: { content: "a" } }, () => 1), 0)
  })
})
