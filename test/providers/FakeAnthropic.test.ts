/**
 * The fake Anthropic endpoint (test/support/fakeAnthropic.ts) applies Anthropic's documented
 * prompt-caching rules (docs/providers.md, A1–A13): each rule is checked here, on raw Messages
 * API bodies (where the rule is about the wire) and through the real `@ai-sdk/anthropic` client
 * (generateText and streamText), so that the tests built on the fake measure what Anthropic
 * would bill.
 */
import { createAnthropic } from "@ai-sdk/anthropic"
import { assert, describe, it } from "@effect/vitest"
import { generateText, isStepCount, streamText, tool } from "ai"
import { z } from "zod"
import * as FakeAnthropic from "../support/fakeAnthropic.ts"

const model = "claude-sonnet-4-5"

const vocabulary = ["the", "cat", "dog", "sun", "tree", "book", "road", "fish", "bird", "rain"]

/** About `n` tokens of text (one o200k token a word), opening with `seed`. */
const words = (n: number, seed = "alpha"): string => `${seed} ${Array.from({ length: n }, (_, i) => vocabulary[i % 10]).join(" ")}`

type Mark = { type: "ephemeral"; ttl?: "5m" | "1h" }
const mark: Mark = { type: "ephemeral" }
const mark1h: Mark = { type: "ephemeral", ttl: "1h" }

const text = (t: string, cache?: Mark) => ({ type: "text", text: t, ...(cache === undefined ? {} : { cache_control: cache }) })

/** A raw Messages API request to the fake: its usage, or its error. */
const send = async (fake: FakeAnthropic.FakeAnthropic, body: Record<string, unknown>) => {
  const response = await fake.fetch("https://api.anthropic.com/v1/messages", {
    method: "POST",
    body: JSON.stringify({ model, max_tokens: 10, ...body })
  })
  const json: unknown = await response.json()
  return { status: response.status, json, usage: fake.calls.at(-1)?.usage }
}

const usageOf = async (fake: FakeAnthropic.FakeAnthropic, body: Record<string, unknown>) => {
  const { usage } = await send(fake, body)
  assert.isDefined(usage)
  return usage!
}

/** A conversation of `n` user/assistant turns of about 100 tokens each. */
const turns = (n: number, last?: Mark) =>
  Array.from({ length: n }, (_, i) => ({
    role: i % 2 === 0 ? "user" : "assistant",
    content: [text(words(100, `t${i}w`), i === n - 1 ? last : undefined)]
  }))

describe("fake Anthropic: cache rules (docs/providers.md)", () => {
  it("A1: a request without marks reads and writes nothing", async () => {
    const fake = FakeAnthropic.make()
    const body = { system: words(3000), messages: [{ role: "user", content: "hi" }] }
    const first = await usageOf(fake, body)
    const second = await usageOf(fake, body)
    assert.strictEqual(second.cache_read_input_tokens, 0)
    assert.strictEqual(second.cache_creation_input_tokens, 0)
    assert.strictEqual(second.input_tokens, first.input_tokens)
  })

  it("A5, A6: a mark writes its prefix, and an identical second request reads it", async () => {
    const fake = FakeAnthropic.make()
    const body = { system: [text(words(3000), mark)], messages: [{ role: "user", content: "hi" }] }
    const first = await usageOf(fake, body)
    assert.isAbove(first.cache_creation_input_tokens, 3000)
    assert.strictEqual(first.cache_read_input_tokens, 0)
    const second = await usageOf(fake, body)
    assert.strictEqual(second.cache_read_input_tokens, first.cache_creation_input_tokens)
    assert.strictEqual(second.cache_creation_input_tokens, 0)
    assert.strictEqual(second.input_tokens, first.input_tokens)
  })

  it("A12: input_tokens are the tokens after the last mark; the three add up to the request", async () => {
    const fake = FakeAnthropic.make()
    const body = { system: [text(words(3000), mark)], messages: [{ role: "user", content: words(200) }] }
    const first = await usageOf(fake, body)
    const unmarked = await usageOf(FakeAnthropic.make(), { system: [text(words(3000))], messages: [{ role: "user", content: words(200) }] })
    assert.strictEqual(FakeAnthropic.totalOf(first), unmarked.input_tokens)
    assert.isAbove(first.input_tokens, 200)
    assert.isBelow(first.input_tokens, 260)
  })

  it("A13: a mark on a tool_use or tool_result block is a breakpoint; one nested in a tool_result's content is not", async () => {
    const history = (resultMark?: Mark, nested?: Mark, useMark?: Mark) => ({
      system: words(2000),
      messages: [
        { role: "user", content: "find it" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "grep", input: {}, ...(useMark === undefined ? {} : { cache_control: useMark }) }] },
        {
          role: "user",
          content: [{
            type: "tool_result",
            tool_use_id: "toolu_1",
            content: nested === undefined ? words(50) : [text(words(50), nested)],
            ...(resultMark === undefined ? {} : { cache_control: resultMark })
          }]
        }
      ]
    })
    const onResult = FakeAnthropic.make()
    const written = await usageOf(onResult, history(mark))
    assert.isAbove(written.cache_creation_input_tokens, 2000)
    assert.strictEqual((await usageOf(onResult, history(mark))).cache_read_input_tokens, written.cache_creation_input_tokens)
    const onUse = FakeAnthropic.make()
    const throughUse = await usageOf(onUse, history(undefined, undefined, mark))
    assert.isAbove(throughUse.cache_creation_input_tokens, 2000)
    assert.isAbove(throughUse.input_tokens, 50)
    const nestedFake = FakeAnthropic.make()
    const nested = await usageOf(nestedFake, history(undefined, mark))
    assert.strictEqual(nested.cache_creation_input_tokens, 0)
    assert.deepStrictEqual(nestedFake.calls[0]!.marks, [])
  })

  it("A4: five marks are a 400 invalid_request_error; four are accepted", async () => {
    const fake = FakeAnthropic.make()
    const five = await send(fake, { system: [text(words(2000), mark)], messages: turns(4).map((m) => ({ ...m, content: [text(words(10), mark)] })) })
    assert.strictEqual(five.status, 400)
    assert.include(JSON.stringify(five.json), "A maximum of 4 blocks with cache_control")
    const four = await send(fake, { system: [text(words(2000), mark)], messages: turns(3).map((m) => ({ ...m, content: [text(words(10), mark)] })) })
    assert.strictEqual(four.status, 200)
  })

  it("A2: a top-level cache_control marks the last block and counts against the four", async () => {
    const fake = FakeAnthropic.make()
    const body = { cache_control: mark, system: words(2000), messages: [{ role: "user", content: "hi" }] }
    const first = await usageOf(fake, body)
    assert.strictEqual(first.input_tokens, 0)
    const second = await usageOf(fake, body)
    assert.strictEqual(second.cache_read_input_tokens, first.cache_creation_input_tokens)
    const over = await send(fake, { ...body, system: [text("a", mark), text("b", mark), text("c", mark), text("d", mark)] })
    assert.strictEqual(over.status, 400)
  })

  it("A3: tools come first: a changed tool is a miss for the marked system prompt after it", async () => {
    const fake = FakeAnthropic.make()
    const tool = (description: string) => ({ name: "grep", description, input_schema: { type: "object", properties: {} } })
    const body = (description: string) => ({
      tools: [tool(description)],
      system: [text(words(2000), mark)],
      messages: [{ role: "user", content: "hi" }]
    })
    await usageOf(fake, body("search files"))
    assert.isAbove((await usageOf(fake, body("search files"))).cache_read_input_tokens, 2000)
    const changed = await usageOf(fake, body("search the files"))
    assert.strictEqual(changed.cache_read_input_tokens, 0)
    // A flag such as eager_input_streaming is part of the tool's bytes too.
    const flagged = await usageOf(fake, {
      ...body("search files"),
      tools: [{ ...tool("search files"), eager_input_streaming: true }]
    })
    assert.strictEqual(flagged.cache_read_input_tokens, 0)
  })

  it("A3: the system prompt comes before the messages: an edited system prompt misses", async () => {
    const fake = FakeAnthropic.make()
    await usageOf(fake, { system: [text(words(2000))], messages: turns(2, mark) })
    assert.isAbove((await usageOf(fake, { system: [text(words(2000))], messages: turns(2, mark) })).cache_read_input_tokens, 2000)
    const edited = await usageOf(fake, { system: [text(`${words(2000)} now`)], messages: turns(2, mark) })
    assert.strictEqual(edited.cache_read_input_tokens, 0)
  })

  it("A6: an appended conversation reads the previous request's marked prefix", async () => {
    const fake = FakeAnthropic.make()
    const previous = await usageOf(fake, { system: words(1000), messages: turns(4, mark) })
    const next = await usageOf(fake, { system: words(1000), messages: [...turns(4), ...turns(6).slice(4, 6).map((m, i) => ({ ...m, content: [text(words(100, `n${i}`), i === 1 ? mark : undefined)] }))] })
    assert.strictEqual(next.cache_read_input_tokens, previous.cache_creation_input_tokens)
    assert.isAbove(next.cache_creation_input_tokens, 200)
  })

  it("A7: a mark finds a cached prefix 19 blocks back, not 20", async () => {
    const fake = FakeAnthropic.make()
    const system = [text(words(2000))]
    const history = turns(2, mark)
    await usageOf(fake, { system, messages: history })
    const more = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: [text(`m${i}`)] }))
    const appended = (n: number) => {
      const extra = more(n)
      const last = extra.at(-1)!
      return [...turns(2), ...extra.slice(0, -1), { ...last, content: [text(`m${n - 1}`, mark)] }]
    }
    // turns(2) ends on an assistant message: the extra ones start with a user message.
    const within = await usageOf(fake, { system, messages: appended(19) })
    assert.isAbove(within.cache_read_input_tokens, 2000)
    fake.clear()
    await usageOf(fake, { system, messages: history })
    const beyond = await usageOf(fake, { system, messages: appended(20) })
    assert.strictEqual(beyond.cache_read_input_tokens, 0)
  })

  it("A7: an extra mark at the previous end reads it however many blocks were appended", async () => {
    const fake = FakeAnthropic.make()
    const system = [text(words(2000))]
    await usageOf(fake, { system, messages: turns(2, mark) })
    const extra = Array.from({ length: 40 }, (_, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: [text(`m${i}`, i === 39 ? mark : undefined)] }))
    const next = await usageOf(fake, { system, messages: [...turns(2, mark), ...extra] })
    assert.isAbove(next.cache_read_input_tokens, 2000)
  })

  it("A8: a prefix below the model's minimum is neither written nor read, without an error", async () => {
    const fake = FakeAnthropic.make()
    const body = { system: [text(words(500), mark)], messages: [{ role: "user", content: "hi" }] }
    const first = await send(fake, body)
    assert.strictEqual(first.status, 200)
    assert.strictEqual(first.usage!.cache_creation_input_tokens, 0)
    assert.strictEqual((await usageOf(fake, body)).cache_read_input_tokens, 0)
  })

  it("A8: the minimum depends on the model (a table of models as data)", async () => {
    assert.strictEqual(FakeAnthropic.minimumOf("claude-sonnet-4-5-20250929"), 1024)
    assert.strictEqual(FakeAnthropic.minimumOf("claude-opus-4-5"), 4096)
    assert.strictEqual(FakeAnthropic.minimumOf("claude-opus-4-1-20250805"), 1024)
    assert.strictEqual(FakeAnthropic.minimumOf("claude-haiku-4-5"), 4096)
    assert.strictEqual(FakeAnthropic.minimumOf("claude-3-5-haiku-latest"), 2048)
    const fake = FakeAnthropic.make()
    const body = { model: "claude-opus-4-5", system: [text(words(3000), mark)], messages: [{ role: "user", content: "hi" }] }
    assert.strictEqual((await usageOf(fake, body)).cache_creation_input_tokens, 0)
    assert.isAbove((await usageOf(fake, { ...body, model })).cache_creation_input_tokens, 3000)
  })

  it("A9: a 1-hour mark after a 5-minute one is a 400; before it, accepted", async () => {
    const fake = FakeAnthropic.make()
    const wrong = await send(fake, { system: [text(words(2000), mark)], messages: turns(2, mark1h) })
    assert.strictEqual(wrong.status, 400)
    const right = await send(fake, { system: [text(words(2000), mark1h)], messages: turns(2, mark) })
    assert.strictEqual(right.status, 200)
    assert.isAbove(right.usage!.cache_creation.ephemeral_1h_input_tokens, 2000)
    assert.isAbove(right.usage!.cache_creation.ephemeral_5m_input_tokens, 100)
  })

  it("A10: a 5-minute entry expires 5 minutes after its last use; a read refreshes it", async () => {
    const fake = FakeAnthropic.make()
    const body = { system: [text(words(2000), mark)], messages: [{ role: "user", content: "hi" }] }
    await usageOf(fake, body)
    fake.clock.advance(299)
    assert.isAbove((await usageOf(fake, body)).cache_read_input_tokens, 0)
    fake.clock.advance(299)
    assert.isAbove((await usageOf(fake, body)).cache_read_input_tokens, 0, "the read at 299 s refreshed it")
    fake.clock.advance(301)
    const expired = await usageOf(fake, body)
    assert.strictEqual(expired.cache_read_input_tokens, 0)
    assert.isAbove(expired.cache_creation_input_tokens, 2000)
  })

  it("A9, A10: a 1-hour entry outlives 5 minutes, not an hour", async () => {
    const fake = FakeAnthropic.make()
    const body = { system: [text(words(2000), mark1h)], messages: [{ role: "user", content: "hi" }] }
    await usageOf(fake, body)
    fake.clock.advance(1800)
    assert.isAbove((await usageOf(fake, body)).cache_read_input_tokens, 0)
    fake.clock.advance(3601)
    assert.strictEqual((await usageOf(fake, body)).cache_read_input_tokens, 0)
  })

  it("A10, A11: the cost of a usage: reads at 0.1×, 5-minute writes at 1.25×, 1-hour writes at 2×", () => {
    const usage: FakeAnthropic.Usage = {
      input_tokens: 100,
      cache_read_input_tokens: 1000,
      cache_creation_input_tokens: 300,
      cache_creation: { ephemeral_5m_input_tokens: 200, ephemeral_1h_input_tokens: 100 },
      output_tokens: 1
    }
    assert.strictEqual(FakeAnthropic.costOf(usage), 100 + 100 + 250 + 200)
  })
})

describe("fake Anthropic: through @ai-sdk/anthropic", () => {
  const system = words(2000)
  const prompt = (cache: boolean) => ({
    instructions: {
      role: "system" as const,
      content: system,
      ...(cache ? { providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } } } : {})
    },
    messages: [{ role: "user" as const, content: "hello" }]
  })

  it("generateText: usage comes back as inputTokens.cacheRead / cacheWrite", async () => {
    const fake = FakeAnthropic.make()
    const anthropic = createAnthropic({ fetch: fake.fetch, apiKey: "test" })
    const first = await generateText({ model: anthropic(model), ...prompt(true) })
    assert.strictEqual(first.text, "ok")
    assert.isAbove(first.usage.inputTokenDetails.cacheWriteTokens ?? 0, 2000)
    const second = await generateText({ model: anthropic(model), ...prompt(true) })
    assert.strictEqual(second.usage.inputTokenDetails.cacheReadTokens, first.usage.inputTokenDetails.cacheWriteTokens)
    const none = await generateText({ model: anthropic(model), ...prompt(false) })
    assert.strictEqual(none.usage.inputTokenDetails.cacheReadTokens ?? 0, 0)
  })

  it("streamText: the usage of message_start reaches the stream's usage", async () => {
    const fake = FakeAnthropic.make()
    const anthropic = createAnthropic({ fetch: fake.fetch, apiKey: "test" })
    await generateText({ model: anthropic(model), ...prompt(true) })
    const streamed = streamText({ model: anthropic(model), ...prompt(true) })
    assert.strictEqual(await streamed.text, "ok")
    const usage = await streamed.usage
    assert.isAbove(usage.inputTokenDetails.cacheReadTokens ?? 0, 2000)
    assert.isTrue(fake.calls.at(-1)!.stream)
  })

  it("the client keeps the first four marks and drops the rest (a warning, not a 400)", async () => {
    const fake = FakeAnthropic.make()
    const anthropic = createAnthropic({ fetch: fake.fetch, apiKey: "test" })
    const cacheControl = { anthropic: { cacheControl: { type: "ephemeral" } } }
    const result = await generateText({
      model: anthropic(model),
      messages: Array.from({ length: 6 }, (_, i) => ({
        role: i % 2 === 0 ? "user" as const : "assistant" as const,
        content: `turn ${i}`,
        providerOptions: cacheControl
      }))
    })
    assert.strictEqual(fake.calls.at(-1)!.status, 200)
    assert.deepStrictEqual(fake.calls.at(-1)!.marks.map((m) => m.index), [0, 1, 2, 3])
    assert.isTrue((result.warnings ?? []).some((w) => JSON.stringify(w).includes("breakpoint")))
  })

  it("toolCall: the fake answers with a tool call, generated and streamed, and the loop goes on", async () => {
    const fake = FakeAnthropic.make({ toolCall: (n) => (n <= 3 ? { name: "grep", input: { q: `q${n}` } } : undefined) })
    const anthropic = createAnthropic({ fetch: fake.fetch, apiKey: "test" })
    const tools = { grep: tool({ description: "search", inputSchema: z.object({ q: z.string() }), execute: async ({ q }) => `found ${q}` }) }
    const result = await generateText({ model: anthropic(model), tools, stopWhen: isStepCount(10), prompt: "go" })
    assert.strictEqual(result.steps.length, 4)
    assert.strictEqual(result.text, "ok")
    const once = FakeAnthropic.make({ toolCall: (n) => (n === 1 ? { name: "grep", input: { q: "streamed" } } : undefined) })
    const streamed = streamText({ model: createAnthropic({ fetch: once.fetch, apiKey: "test" })(model), tools, stopWhen: isStepCount(10), prompt: "go" })
    assert.strictEqual(await streamed.text, "ok")
    const steps = await streamed.steps
    assert.strictEqual(steps.length, 2)
    assert.deepStrictEqual(steps[0]!.toolCalls.map((c) => c.input), [{ q: "streamed" }])
  })
})
