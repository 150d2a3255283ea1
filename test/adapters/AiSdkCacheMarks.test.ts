/**
 * A cache plan on an AI SDK provider call (src/adapters/AiSdkCacheMarks.ts): the blocks are the
 * ones `@ai-sdk/anthropic` sends (checked against the real client and the fake endpoint), the
 * marks land where the plan says, the library's own marks never pile up, the caller's win.
 */
import { createAnthropic } from "@ai-sdk/anthropic"
import { assert, describe, it } from "@effect/vitest"
import * as AiSdkCacheMarks from "../../src/adapters/AiSdkCacheMarks.ts"
import type * as AiSdkPrompt from "../../src/adapters/AiSdkPrompt.ts"
import * as CacheBreakpoints from "../../src/ai/CacheBreakpoints.ts"
import * as FakeAnthropic from "../support/fakeAnthropic.ts"

type Prompt = AiSdkPrompt.ProviderPrompt
type Tools = NonNullable<AiSdkPrompt.CallOptions["tools"]>
type FunctionTool = Extract<Tools[number], { type: "function" }>

const quarter = (text: string) => Math.ceil(text.length / 4)
const long = (n: number, word = "lorem") => `${word} `.repeat(n)

const tools: Array<FunctionTool> = [
  { type: "function", name: "grep", description: "search files", inputSchema: { type: "object", properties: {} } },
  { type: "function", name: "read_file", description: "read a file", inputSchema: { type: "object", properties: {} } }
]

/** A prompt with every kind of part: system, user text, reasoning, tool calls, results, an approval. */
const prompt: Prompt = [
  { role: "system", content: `You are an agent. ${long(1500)}` },
  { role: "user", content: [{ type: "text", text: "find the bug" }] },
  {
    role: "assistant",
    content: [
      { type: "text", text: "looking" },
      { type: "text", text: "" },
      { type: "tool-call", toolCallId: "c1", toolName: "grep", input: { q: "bug" } },
      { type: "tool-call", toolCallId: "c2", toolName: "read_file", input: { path: "a.ts" } }
    ]
  },
  {
    role: "tool",
    content: [
      { type: "tool-result", toolCallId: "c1", toolName: "grep", output: { type: "text", value: long(300, "hit") } },
      { type: "tool-result", toolCallId: "c2", toolName: "read_file", output: { type: "text", value: long(300, "line") } },
      { type: "tool-approval-response", approvalId: "a1", approved: true }
    ]
  },
  { role: "user", content: [{ type: "text", text: "go on" }] }
]

const markCount = (value: unknown): number => (JSON.stringify(value).match(/"cacheControl"/g) ?? []).length
const ownCount = (value: unknown): number => (JSON.stringify(value).match(/"cacheMark":true/g) ?? []).length

const anthropicPlanner: CacheBreakpoints.Planner = {
  provider: "anthropic",
  plan: (window) => CacheBreakpoints.plan({ blocks: window.blocks, boundaries: window.boundaries, minimumPrefix: 1024 }),
  settings: () => ({})
}

describe("AiSdkCacheMarks.blocksOf", () => {
  it("the blocks @ai-sdk/anthropic sends, in its order: tools, system, parts (no approval response, no empty text)", () => {
    const located = AiSdkCacheMarks.blocksOf({ prompt, tools }, quarter)
    assert.deepStrictEqual(located.locations, [
      { _tag: "tool", tool: 0 },
      { _tag: "tool", tool: 1 },
      { _tag: "system", message: 0 },
      { _tag: "part", message: 1, part: 0 },
      { _tag: "part", message: 2, part: 0 },
      { _tag: "part", message: 2, part: 2 },
      { _tag: "part", message: 2, part: 3 },
      { _tag: "part", message: 3, part: 0 },
      { _tag: "part", message: 3, part: 1 },
      { _tag: "part", message: 4, part: 0 }
    ])
    assert.deepStrictEqual(located.messageEnds, [3, 4, 7, 9, 10])
    assert.strictEqual(located.toolsAndSystem, 3)
    assert.isTrue(located.blocks.every((b) => b.tokens > 0 && b.mark === undefined))
  })

  it("the same blocks as the client: a mark placed on block i reaches the wire on block i", async () => {
    const fake = FakeAnthropic.make()
    const model = createAnthropic({ fetch: fake.fetch, apiKey: "test" })("claude-sonnet-4-5")
    const located = AiSdkCacheMarks.blocksOf({ prompt, tools }, quarter)
    for (let index = 0; index < located.blocks.length; index++) {
      const plan = new CacheBreakpoints.Plan({
        marks: [new CacheBreakpoints.Mark({ index, ttl: "5m", reason: "tail" })],
        callerMarks: [],
        skipped: []
      })
      const placed = AiSdkCacheMarks.apply({ prompt, tools }, located, plan)
      await model.doGenerate({ prompt: placed.prompt, ...(placed.tools === undefined ? {} : { tools: placed.tools }) })
      const call = fake.calls.at(-1)!
      assert.strictEqual(call.blocks, located.blocks.length)
      assert.deepStrictEqual(call.marks.map((m) => m.index), [index], `block ${index}`)
    }
  })

  it("the caller's marks: on a tool, a system message, a part, a message (its last part), the call (the last block)", () => {
    const cacheControl = { anthropic: { cacheControl: { type: "ephemeral" } } }
    const cacheControl1h = { anthropic: { cache_control: { type: "ephemeral", ttl: "1h" } } }
    const marked: Prompt = [
      { ...prompt[0]!, providerOptions: cacheControl1h },
      { role: "user", content: [{ type: "text", text: "find the bug", providerOptions: cacheControl }] },
      prompt[2]!,
      { ...prompt[3]!, providerOptions: cacheControl },
      prompt[4]!
    ]
    const located = AiSdkCacheMarks.blocksOf(
      { prompt: marked, tools: [{ ...tools[0]!, providerOptions: cacheControl }, tools[1]!], providerOptions: cacheControl },
      quarter
    )
    assert.deepStrictEqual(
      located.blocks.flatMap((b, i) => (b.mark === undefined ? [] : [[i, b.mark]])),
      [[0, "5m"], [2, "1h"], [3, "5m"], [9, "5m"]]
    )
    // The tool message's mark: its last part is an approval response, which the client does not send.
    assert.isUndefined(located.blocks[8]!.mark)
  })
})

describe("AiSdkCacheMarks.apply and strip", () => {
  const located = AiSdkCacheMarks.blocksOf({ prompt, tools }, quarter)
  const plan = new CacheBreakpoints.Plan({
    marks: [
      new CacheBreakpoints.Mark({ index: 1, ttl: "1h", reason: "tools-and-system" }),
      new CacheBreakpoints.Mark({ index: 2, ttl: "1h", reason: "compacted" }),
      new CacheBreakpoints.Mark({ index: 9, ttl: "5m", reason: "tail" })
    ],
    callerMarks: [],
    skipped: []
  })

  it("apply: each mark on its tool, system message or part, tagged as the library's; 5 minutes sends no ttl", () => {
    const placed = AiSdkCacheMarks.apply({ prompt, tools }, located, plan)
    const marked = placed.tools![1]!
    assert.deepStrictEqual(marked.type === "function" ? marked.providerOptions : undefined, {
      anthropic: { cacheControl: { type: "ephemeral", ttl: "1h" } },
      [AiSdkCacheMarks.tagNamespace]: { cacheMark: true }
    })
    assert.deepStrictEqual(placed.prompt[0]!.providerOptions?.["anthropic"], { cacheControl: { type: "ephemeral", ttl: "1h" } })
    const tail = placed.prompt[4]!
    assert.isTrue(tail.role === "user" && tail.content[0]!.providerOptions?.["anthropic"]?.["cacheControl"] !== undefined)
    assert.deepStrictEqual(tail.role === "user" ? tail.content[0]!.providerOptions?.["anthropic"] : undefined, { cacheControl: { type: "ephemeral" } })
    assert.strictEqual(placed.prompt[1], prompt[1], "an unmarked message is the same object")
    assert.strictEqual(markCount(placed), 3)
    assert.deepStrictEqual(placed.unplaced, [])
  })

  it("apply: a mark on a provider tool (which cannot carry one) is returned unplaced", () => {
    const withProvider: Tools = [{ type: "provider", id: "anthropic.web_search_20250305", name: "web_search", args: {} }]
    const own = AiSdkCacheMarks.blocksOf({ prompt, tools: withProvider }, quarter)
    const result = AiSdkCacheMarks.apply(
      { prompt, tools: withProvider },
      own,
      new CacheBreakpoints.Plan({ marks: [new CacheBreakpoints.Mark({ index: 0, ttl: "5m", reason: "tools-and-system" })], callerMarks: [], skipped: [] })
    )
    assert.strictEqual(result.unplaced.length, 1)
    assert.strictEqual(markCount(result), 0)
  })

  it("strip: the library's marks and tags go, the caller's marks and other options stay; strip(apply(p)) is p", () => {
    const callers: Prompt = [
      prompt[0]!,
      { role: "user", content: [{ type: "text", text: "find the bug", providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } } }] },
      ...prompt.slice(2)
    ]
    const own = AiSdkCacheMarks.blocksOf({ prompt: callers, tools }, quarter)
    const placed = AiSdkCacheMarks.apply({ prompt: callers, tools }, own, plan)
    const stripped = AiSdkCacheMarks.strip(placed.prompt)
    assert.deepStrictEqual(stripped, callers)
    assert.strictEqual(stripped[1], callers[1], "the caller's marked message is untouched")
    assert.deepStrictEqual(AiSdkCacheMarks.stripTools(placed.tools!), tools)
    assert.strictEqual(AiSdkCacheMarks.strip(callers), callers, "nothing to strip: the same array")
    assert.strictEqual(AiSdkCacheMarks.stripTools(tools), tools)
  })

  it("strip: other providers' options on a marked part stay", () => {
    const withOther: Prompt = [
      prompt[0]!,
      { role: "user", content: [{ type: "text", text: "hi", providerOptions: { openai: { imageDetail: "low" } } }] }
    ]
    const own = AiSdkCacheMarks.blocksOf({ prompt: withOther }, quarter)
    const placed = AiSdkCacheMarks.apply(
      { prompt: withOther },
      own,
      new CacheBreakpoints.Plan({ marks: [new CacheBreakpoints.Mark({ index: 1, ttl: "5m", reason: "tail" })], callerMarks: [], skipped: [] })
    )
    assert.deepStrictEqual(AiSdkCacheMarks.strip(placed.prompt), withOther)
  })
})

describe("AiSdkCacheMarks.markCall", () => {
  it("never piles up: a 100-step loop whose prompt carries the previous step's marks holds at most 4, only this step's", () => {
    let history: Prompt = [prompt[0]!, prompt[1]!]
    for (let step = 0; step < 100; step++) {
      const { call, plan } = AiSdkCacheMarks.markCall({ prompt: history, tools }, {
        planner: anthropicPlanner,
        count: quarter,
        previousEnd: history.length - 2
      })
      assert.isAtMost(markCount(call), 4, `step ${step}`)
      assert.strictEqual(ownCount(call), plan.marks.length)
      assert.isAtLeast(plan.marks.length, 1)
      // The step's messages carry forward with the marks on them, as ai 7's prepareStep does.
      history = [
        ...call.prompt,
        { role: "assistant", content: [{ type: "tool-call", toolCallId: `s${step}`, toolName: "grep", input: {} }] },
        { role: "tool", content: [{ type: "tool-result", toolCallId: `s${step}`, toolName: "grep", output: { type: "text", value: long(50, `r${step}`) } }] }
      ]
    }
  })

  it("the caller's marks are counted: three of theirs leave one slot, for the tail", () => {
    const cacheControl = { anthropic: { cacheControl: { type: "ephemeral" } } }
    const theirs: Prompt = [
      { ...prompt[0]!, providerOptions: cacheControl },
      { role: "user", content: [{ type: "text", text: "find the bug", providerOptions: cacheControl }] },
      { ...prompt[2]!, providerOptions: cacheControl },
      ...prompt.slice(3)
    ]
    const { call, plan } = AiSdkCacheMarks.markCall({ prompt: theirs, tools }, { planner: anthropicPlanner, count: quarter })
    assert.deepStrictEqual(plan.callerMarks, [2, 3, 6])
    assert.deepStrictEqual(plan.marks.map((m) => m.reason), ["tail"])
    assert.strictEqual(markCount(call), 4)
  })

  it("boundaries in messages become boundaries in blocks (compacted, previous end)", () => {
    const many: Prompt = [
      ...prompt,
      ...Array.from({ length: 30 }, (_, i): Prompt[number] => ({ role: i % 2 === 0 ? "assistant" : "user", content: [{ type: "text", text: `m${i}` }] }))
    ]
    const { plan } = AiSdkCacheMarks.markCall({ prompt: many, tools }, {
      planner: anthropicPlanner,
      count: quarter,
      compacted: 2,
      previousEnd: 5
    })
    assert.deepStrictEqual(plan.marks.map((m) => [m.index, m.reason]), [[2, "tools-and-system"], [3, "compacted"], [9, "read-anchor"], [39, "tail"]])
  })

  it("OpenAI: no marks; the hashed prompt cache key and the retention in providerOptions.openai — the caller's own win", () => {
    const planner: CacheBreakpoints.Planner = {
      provider: "openai",
      plan: () => CacheBreakpoints.empty,
      settings: (key) => ({ ...(key === undefined ? {} : { promptCacheKey: CacheBreakpoints.promptCacheKey(key) }), promptCacheRetention: "24h" })
    }
    const input: AiSdkCacheMarks.Call = { prompt, tools }
    const ours = AiSdkCacheMarks.markCall(input, { planner, count: quarter, conversationKey: "user@example.com" })
    assert.deepStrictEqual(ours.call.providerOptions, {
      openai: { promptCacheKey: CacheBreakpoints.promptCacheKey("user@example.com"), promptCacheRetention: "24h" }
    })
    assert.strictEqual(markCount(ours.call), 0)
    assert.strictEqual(ours.call.prompt, prompt)
    const mine: AiSdkCacheMarks.Call = { prompt, providerOptions: { openai: { promptCacheKey: "mine", user: "u1" } } }
    const theirs = AiSdkCacheMarks.markCall(
      mine,
      { planner, count: quarter, conversationKey: "user@example.com" }
    )
    assert.deepStrictEqual(theirs.call.providerOptions, { openai: { promptCacheKey: "mine", user: "u1", promptCacheRetention: "24h" } })
  })

  it("through the real client: the planned marks are read back by the next call", async () => {
    const fake = FakeAnthropic.make()
    const model = createAnthropic({ fetch: fake.fetch, apiKey: "test" })("claude-sonnet-4-5")
    const first = AiSdkCacheMarks.markCall({ prompt, tools }, { planner: anthropicPlanner, count: quarter })
    await model.doGenerate({ prompt: first.call.prompt, tools: first.call.tools! })
    const grown: Prompt = [...prompt, { role: "assistant", content: [{ type: "text", text: long(200, "answer") }] }, { role: "user", content: [{ type: "text", text: "thanks" }] }]
    const second = AiSdkCacheMarks.markCall({ prompt: grown, tools }, { planner: anthropicPlanner, count: quarter, previousEnd: prompt.length })
    const result = await model.doGenerate({ prompt: second.call.prompt, tools: second.call.tools! })
    const usage = fake.calls.at(-1)!.usage!
    assert.strictEqual(usage.cache_read_input_tokens, fake.calls[0]!.usage!.cache_creation_input_tokens)
    assert.strictEqual(result.usage.inputTokens.cacheRead, usage.cache_read_input_tokens)
  })

  it("through the real client: a step of 12 parallel tool calls (25 blocks) is read through the read anchor, not by a mark on the last message alone", async () => {
    const wide: Prompt = [
      ...prompt,
      { role: "assistant", content: Array.from({ length: 12 }, (_, i) => ({ type: "tool-call" as const, toolCallId: `w${i}`, toolName: "grep", input: { i } })) },
      { role: "tool", content: Array.from({ length: 12 }, (_, i) => ({ type: "tool-result" as const, toolCallId: `w${i}`, toolName: "grep", output: { type: "text" as const, value: `r${i}` } })) },
      { role: "user", content: [{ type: "text", text: "next" }] }
    ]
    const send = async (planned: boolean) => {
      const fake = FakeAnthropic.make()
      const model = createAnthropic({ fetch: fake.fetch, apiKey: "test" })("claude-sonnet-4-5")
      const first = AiSdkCacheMarks.markCall({ prompt, tools }, { planner: anthropicPlanner, count: quarter })
      await model.doGenerate({ prompt: first.call.prompt, tools: first.call.tools! })
      const second = planned
        ? AiSdkCacheMarks.markCall({ prompt: wide, tools }, { planner: anthropicPlanner, count: quarter, previousEnd: prompt.length }).call
        : { prompt: [...wide.slice(0, -1), { ...wide.at(-1)!, providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } } }], tools }
      await model.doGenerate({ prompt: second.prompt, tools: second.tools! })
      return fake.calls.at(-1)!.usage!.cache_read_input_tokens
    }
    assert.strictEqual(await send(false), 0)
    assert.isAbove(await send(true), 1500)
  })
})

/*
 * Literal transcriptions of `strip` and `blocksOf` before design item 140 (a copy of every
 * message's parts, a closure a part), to hold the plain loops to the same blocks, the same
 * stripped prompt and the same objects where nothing changed.
 */
const ns = AiSdkCacheMarks.tagNamespace
type Options = Record<string, Record<string, unknown>>
const isOwnT = (options: Options | undefined) => options?.[ns]?.["cacheMark"] === true
const unmarkedT = (options: Options | undefined): Options | undefined => {
  if (options === undefined || !isOwnT(options)) return options
  const { [ns]: _, anthropic, ...rest } = options
  if (anthropic === undefined) return Object.keys(rest).length === 0 ? undefined : rest
  const { cacheControl: __, cache_control: ___, ...others } = anthropic
  const out: Options = Object.keys(others).length === 0 ? rest : { ...rest, anthropic: others }
  return Object.keys(out).length === 0 ? undefined : out
}
const withOptionsT = <A extends { providerOptions?: Options | undefined }>(value: A, options: Options | undefined): A => {
  if (options === value.providerOptions) return value
  if (options !== undefined) return { ...value, providerOptions: options }
  const copy = { ...value }
  delete copy.providerOptions
  return copy
}
const stripT = (p: Prompt): Prompt => {
  let changed = false
  const out = p.map((message): Prompt[number] => {
    const options = unmarkedT(message.providerOptions)
    if (message.role === "system") {
      if (options === message.providerOptions) return message
      changed = true
      return withOptionsT(message, options)
    }
    let parts = false
    const f = <P extends { providerOptions?: Options | undefined }>(part: P): P => {
      const o = unmarkedT(part.providerOptions)
      if (o === part.providerOptions) return part
      parts = true
      return withOptionsT(part, o)
    }
    const next: Prompt[number] = message.role === "user"
      ? { ...message, content: message.content.map(f) }
      : message.role === "assistant"
      ? { ...message, content: message.content.map(f) }
      : { ...message, content: message.content.map(f) }
    if (!parts && options === message.providerOptions) return message
    changed = true
    return withOptionsT(next, options)
  })
  return changed ? out : p
}

describe("strip and blocksOf in plain loops (design item 140)", () => {
  const own = { anthropic: { cacheControl: { type: "ephemeral" } }, [ns]: { cacheMark: true } }
  const caller = { anthropic: { cacheControl: { type: "ephemeral", ttl: "1h" } } }
  const other = { openai: { imageDetail: "low" } }
  const optionsOf = (k: number): Options | undefined => [undefined, own, caller, other, { ...own, ...other }][k % 5]
  /** The test prompt with options at places chosen by `seed` (the library's, the caller's, another provider's). */
  const variant = (seed: number): Prompt => {
    let s = seed
    const next = () => (s = (s * 1103515245 + 12345) % 2147483648) % 7
    return prompt.map((message): Prompt[number] => {
      const o = optionsOf(next())
      const withO = <A extends object>(a: A): A => (o === undefined ? a : { ...a, providerOptions: o })
      if (message.role === "system") return withO(message)
      const partsOf = <P extends object>(parts: ReadonlyArray<P>): Array<P> =>
        parts.map((part) => {
          const po = optionsOf(next())
          return po === undefined ? part : { ...part, providerOptions: po }
        })
      return message.role === "user"
        ? withO({ ...message, content: partsOf(message.content) })
        : message.role === "assistant"
        ? withO({ ...message, content: partsOf(message.content) })
        : withO({ ...message, content: partsOf(message.content) })
    })
  }

  it("strip: the transcription's prompt, the same objects where nothing changed", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const input = variant(seed)
      const mine = AiSdkCacheMarks.strip(input)
      const theirs = stripT(input)
      assert.deepStrictEqual(mine, theirs)
      assert.strictEqual(mine === input, theirs === input)
      mine.forEach((message, i) => {
        assert.strictEqual(message === input[i], theirs[i] === input[i], `message ${i}, seed ${seed}`)
        const source = input[i]!
        const their = theirs[i]!
        if (message.role !== "system" && their.role !== "system" && source.role !== "system") {
          const parts: ReadonlyArray<object> = message.content
          const theirParts: ReadonlyArray<object> = their.content
          const inputParts: ReadonlyArray<object> = source.content
          parts.forEach((part, p) => assert.strictEqual(part === inputParts[p], theirParts[p] === inputParts[p]))
        }
      })
    }
  })

  it("blocksOf: each block counted from the transcription's text, in its order", () => {
    for (let seed = 1; seed <= 100; seed++) {
      const input = variant(seed)
      const located = AiSdkCacheMarks.blocksOf({ prompt: input, tools }, quarter)
      // The transcription's order and texts: tools, then each system message and sent part.
      const texts: Array<string> = []
      const textOf = (value: object) => {
        const { providerOptions: _, ...rest } = { providerOptions: undefined, ...value }
        return JSON.stringify(rest)
      }
      tools.forEach((tool) => texts.push(textOf(tool)))
      input.forEach((message) => {
        if (message.role === "system") texts.push(message.content)
        else {
          message.content.forEach((part) => {
            if (part.type === "tool-approval-response" || (part.type === "text" && part.text.length === 0)) return
            texts.push(textOf(part))
          })
        }
      })
      assert.deepStrictEqual(located.blocks.map((block) => block.tokens), texts.map(quarter))
    }
  })
})
