/**
 * The fake OpenAI endpoint (test/support/fakeOpenAI.ts) applies OpenAI's documented automatic
 * prompt caching (docs/providers.md, O1–O8): each rule is checked here, on raw Chat Completions
 * bodies and through the real `@ai-sdk/openai` client (Chat and Responses, generated and
 * streamed).
 */
import { createOpenAI } from "@ai-sdk/openai"
import { assert, describe, it } from "@effect/vitest"
import { generateText, streamText } from "ai"
import { isRecord } from "../support/fakeProvider.ts"
import * as FakeOpenAI from "../support/fakeOpenAI.ts"

const model = "gpt-4.1"

const vocabulary = ["the", "cat", "dog", "sun", "tree", "book", "road", "fish", "bird", "rain"]

/** About `n` tokens of text (one o200k token a word), opening with `seed`. */
const words = (n: number, seed = "alpha"): string => `${seed} ${Array.from({ length: n }, (_, i) => vocabulary[i % 10]).join(" ")}`

/** A raw Chat Completions request: the fake's record of it. */
const chat = async (fake: FakeOpenAI.FakeOpenAI, body: Record<string, unknown>) => {
  const response = await fake.fetch("https://api.openai.com/v1/chat/completions", {
    method: "POST",
    body: JSON.stringify({ model, ...body })
  })
  assert.strictEqual(response.status, 200)
  return fake.calls.at(-1)!
}

const messages = (...texts: ReadonlyArray<string>) =>
  texts.map((content, i) => ({ role: i === 0 ? "system" : i % 2 === 1 ? "user" : "assistant", content }))

describe("fake OpenAI: cache rules (docs/providers.md)", () => {
  it("O2: a prompt under 1,024 tokens is never cached", async () => {
    const fake = FakeOpenAI.make()
    const body = { messages: messages(words(800), "hi") }
    await chat(fake, body)
    const second = await chat(fake, body)
    assert.isBelow(second.promptTokens, FakeOpenAI.minimumPrompt)
    assert.strictEqual(second.cachedTokens, 0)
  })

  it("O1, O3: an identical prompt of 1,024 tokens or more is read back, in multiples of 128", async () => {
    const fake = FakeOpenAI.make()
    const body = { messages: messages(words(3000), "hi") }
    const first = await chat(fake, body)
    assert.strictEqual(first.cachedTokens, 0)
    const second = await chat(fake, body)
    assert.strictEqual(second.cachedTokens % FakeOpenAI.increment, 0)
    assert.strictEqual(second.cachedTokens, second.promptTokens - (second.promptTokens % 128))
  })

  it("O1: no marks needed — an appended conversation reads the previous prompt", async () => {
    const fake = FakeOpenAI.make()
    const first = await chat(fake, { messages: messages(words(2000), words(300, "q")) })
    const next = await chat(fake, { messages: messages(words(2000), words(300, "q"), words(200, "a"), words(50, "q2")) })
    assert.strictEqual(next.cachedTokens, first.promptTokens - (first.promptTokens % 128))
  })

  it("O1: a prefix may end inside a message: the tokens before the first change count", async () => {
    const fake = FakeOpenAI.make()
    await chat(fake, { messages: messages(`${words(2000)} and then the end`, "hi") })
    const next = await chat(fake, { messages: messages(`${words(2000)} but something else`, "hi") })
    assert.isAtLeast(next.cachedTokens, 1920)
    assert.isBelow(next.cachedTokens, next.promptTokens)
  })

  it("O3: a common prefix under 1,024 tokens is not a hit, even in a long prompt", async () => {
    const fake = FakeOpenAI.make()
    await chat(fake, { messages: messages(words(500), words(2000, "x")) })
    const next = await chat(fake, { messages: messages(words(500), words(2000, "y")) })
    assert.strictEqual(next.cachedTokens, 0)
  })

  it("O5: tools are part of the prefix: a changed tool definition misses", async () => {
    const fake = FakeOpenAI.make()
    const tool = (description: string) => ({ type: "function", function: { name: "grep", description, parameters: {} } })
    const body = (description: string) => ({ tools: [tool(description)], messages: messages(words(2000), "hi") })
    await chat(fake, body("search files"))
    assert.isAbove((await chat(fake, body("search files"))).cachedTokens, 1900)
    assert.strictEqual((await chat(fake, body("search the files"))).cachedTokens, 0)
  })

  it("O4: prompt_cache_key routes: another key does not see the prefix; the same key does", async () => {
    const fake = FakeOpenAI.make()
    const body = { messages: messages(words(2000), "hi") }
    await chat(fake, { ...body, prompt_cache_key: "a" })
    assert.strictEqual((await chat(fake, { ...body, prompt_cache_key: "b" })).cachedTokens, 0)
    assert.strictEqual((await chat(fake, body)).cachedTokens, 0, "no key: the organisation's cache, not key a's")
    assert.isAbove((await chat(fake, { ...body, prompt_cache_key: "a" })).cachedTokens, 1900)
  })

  it("O4: without a key, requests of the organisation share the cache", async () => {
    const fake = FakeOpenAI.make()
    const body = { messages: messages(words(2000), "hi") }
    await chat(fake, body)
    assert.isAbove((await chat(fake, { messages: messages(words(2000), "hello") })).cachedTokens, 1900)
  })

  it("O6: in-memory retention: gone after 5 idle minutes; a use refreshes it; at most an hour", async () => {
    const fake = FakeOpenAI.make()
    const body = { messages: messages(words(2000), "hi") }
    await chat(fake, body)
    fake.clock.advance(299)
    assert.isAbove((await chat(fake, body)).cachedTokens, 0)
    fake.clock.advance(299)
    assert.isAbove((await chat(fake, body)).cachedTokens, 0)
    fake.clock.advance(301)
    assert.strictEqual((await chat(fake, body)).cachedTokens, 0)
    // Used every four minutes, a prefix still goes after an hour.
    for (let t = 0; t < 14; t++) {
      fake.clock.advance(240)
      assert.isAbove((await chat(fake, body)).cachedTokens, 0)
    }
    fake.clock.advance(241)
    assert.strictEqual((await chat(fake, body)).cachedTokens, 0)
  })

  it("O6: prompt_cache_retention 24h keeps a prefix for hours", async () => {
    const fake = FakeOpenAI.make()
    const body = { messages: messages(words(2000), "hi"), prompt_cache_retention: "24h" }
    await chat(fake, body)
    fake.clock.advance(6 * 3600)
    assert.isAbove((await chat(fake, body)).cachedTokens, 0)
  })
})

describe("fake OpenAI: through @ai-sdk/openai", () => {
  const request = { instructions: words(2000), messages: [{ role: "user" as const, content: "hello" }] }

  it("O7: Chat Completions: cached_tokens comes back as inputTokens.cacheRead", async () => {
    const fake = FakeOpenAI.make()
    const openai = createOpenAI({ fetch: fake.fetch, apiKey: "test" })
    await generateText({ model: openai.chat(model), ...request })
    const second = await generateText({ model: openai.chat(model), ...request })
    assert.strictEqual(second.text, "ok")
    assert.isAbove(second.usage.inputTokenDetails.cacheReadTokens ?? 0, 1900)
    assert.strictEqual(fake.calls.at(-1)!.api, "chat")
    const streamed = streamText({ model: openai.chat(model), ...request })
    assert.strictEqual(await streamed.text, "ok")
    assert.isAbove((await streamed.usage).inputTokenDetails.cacheReadTokens ?? 0, 1900)
  })

  it("O7: Responses: input_tokens_details.cached_tokens comes back as inputTokens.cacheRead", async () => {
    const fake = FakeOpenAI.make()
    const openai = createOpenAI({ fetch: fake.fetch, apiKey: "test" })
    await generateText({ model: openai.responses(model), ...request })
    const second = await generateText({ model: openai.responses(model), ...request })
    assert.strictEqual(second.text, "ok")
    assert.isAbove(second.usage.inputTokenDetails.cacheReadTokens ?? 0, 1900)
    assert.strictEqual(fake.calls.at(-1)!.api, "responses")
    const streamed = streamText({ model: openai.responses(model), ...request })
    assert.strictEqual(await streamed.text, "ok")
    assert.isAbove((await streamed.usage).inputTokenDetails.cacheReadTokens ?? 0, 1900)
  })

  it("O4: providerOptions.openai.promptCacheKey is sent as prompt_cache_key (both APIs)", async () => {
    const fake = FakeOpenAI.make()
    const openai = createOpenAI({ fetch: fake.fetch, apiKey: "test" })
    const providerOptions = { openai: { promptCacheKey: "cupel-0123", promptCacheRetention: "24h" as const } }
    await generateText({ model: openai.chat(model), ...request, providerOptions })
    assert.strictEqual(fake.calls.at(-1)!.promptCacheKey, "cupel-0123")
    await generateText({ model: openai.responses(model), ...request, providerOptions })
    assert.strictEqual(fake.calls.at(-1)!.promptCacheKey, "cupel-0123")
    const body = fake.calls.at(-1)!.body
    assert.strictEqual(isRecord(body) ? body["prompt_cache_retention"] : undefined, "24h")
  })
})
