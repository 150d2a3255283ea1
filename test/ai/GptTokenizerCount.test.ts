/**
 * The counter of `GptTokenizer.layerEncoding` counts a message as its role's framing plus its
 * text's count as plain text (docs/design.md item 120): exactly the chat encoder's count of the
 * message alone, less the request's overhead — for every role, both encodings, texts that look
 * like special tokens, unicode, empty texts and generated agent messages.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Prompt } from "effect/ai"
import fc from "fast-check"
import * as cl100k from "gpt-tokenizer/encoding/cl100k_base"
import * as o200k from "gpt-tokenizer/encoding/o200k_base"
import * as GptTokenizer from "../../src/ai/GptTokenizer.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import { TokenCounter } from "../../src/ai/TokenCounter.ts"
import * as Sessions from "../support/sessions.ts"

const asText = { disallowedSpecial: new Set<string>() }
const chatOf = {
  o200k_base: (chat: Array<{ role: string; content: string }>) => o200k.encodeChat(chat, "gpt-4o", asText).length,
  cl100k_base: (chat: Array<{ role: string; content: string }>) => cl100k.encodeChat(chat, "gpt-4", asText).length
}

/** The chat encoder's count of one message alone, less the request's overhead. */
const chatCount = (encoding: keyof typeof chatOf, message: Prompt.Message): number =>
  chatOf[encoding]([{ role: message.role, content: PromptWindow.render(message) }]) - chatOf[encoding]([])

const piece = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.constantFrom("<|im_end|>", "<|endoftext|>", "<|im_start|>user", "<|im_sep|>", " ", "\n\n", "😀", "东京", "123456", "{\"a\":[1,2]}", "'s", "")
)
const text = fc.array(piece, { maxLength: 30 }).map((xs) => xs.join(""))

const messageOf = fc.oneof(
  text.map((t) => Prompt.systemMessage({ content: t })),
  text.map((t) => Prompt.userMessage({ content: [Prompt.textPart({ text: t })] })),
  text.map((t) => Prompt.assistantMessage({ content: [Prompt.textPart({ text: t })] })),
  text.map((t) =>
    Prompt.toolMessage({ content: [Prompt.toolResultPart({ id: "c1", name: "read", isFailure: false, result: t, providerExecuted: false })] })
  )
)

describe("GptTokenizer: a message counted as its framing plus its text", () => {
  for (const encoding of ["o200k_base", "cl100k_base"] as const) {
    it.effect(`framing plus the plain count is the chat encoder's count, on generated texts (${encoding})`, () =>
      Effect.gen(function*() {
        const counter = yield* TokenCounter
        const messages = fc.sample(messageOf, { numRuns: 400, seed: 120 })
        for (const message of messages) {
          assert.strictEqual(yield* counter.count(message), chatCount(encoding, message), PromptWindow.render(message))
        }
      }).pipe(Effect.provide(GptTokenizer.layerEncoding(encoding))), 60_000)

    it.effect(`framing plus the plain count is the chat encoder's count, on generated agent sessions (${encoding})`, () =>
      Effect.gen(function*() {
        const counter = yield* TokenCounter
        for (const [shape, seed] of [["tool-heavy", 3], ["chatty", 4], ["mixed", 5]] as const) {
          const session = Sessions.generate(shape, 40, seed)
          for (const message of Sessions.historyAt(session, 40)) {
            if (message.role === "user" && message.content.some((part) => part.type === "file")) continue
            assert.strictEqual(yield* counter.count(message), chatCount(encoding, message), `${shape} ${message.role}`)
          }
        }
      }).pipe(Effect.provide(GptTokenizer.layerEncoding(encoding))), 60_000)
  }
})
