/**
 * A fake OpenAI API — Chat Completions (`POST /v1/chat/completions`) and Responses
 * (`POST /v1/responses`) — for the real `@ai-sdk/openai` client:
 * `createOpenAI({ fetch: fake.fetch, apiKey: "test" })`, then `openai.chat(model)` or
 * `openai.responses(model)`. It answers "ok" (JSON, or server-sent events when the request
 * streams) and applies OpenAI's documented automatic prompt caching (models before the GPT-5.6
 * family) to every request, reporting the cached tokens as OpenAI does. The rules, numbered
 * O1–O8 with their sources, are in docs/providers.md; each is cited where it is applied below.
 *
 * The prompt is a list of blocks: each tool definition, then (Responses) the `instructions`,
 * then each message (Chat) or input item (Responses), as canonical JSON (sorted keys); tokens
 * are the o200k tokens of those texts. A cached prefix ends anywhere (O1): the fake matches
 * whole blocks, then the tokens of the first block that differs, against the prompts a machine
 * has seen.
 *
 * Routing (O4): a request goes to the "machine" named by the model, its `prompt_cache_key` (none
 * when absent: the organisation's, i.e. this fake's, shared cache) and the first 256 tokens of
 * its prompt; a prefix cached on one machine is not seen from another. The fake does not
 * simulate overflow to other machines under load (more than about 15 requests a minute for one
 * prefix and key).
 */
import {
  bodyOf,
  canonical,
  type FakeClock,
  type Fetch,
  isRecord,
  json,
  link,
  makeClock,
  makeCounter,
  pathOf,
  sse
} from "./fakeProvider.ts"

/** The shortest prompt that is cached (O2). */
export const minimumPrompt = 1024

/** Cache hits come in multiples of this many tokens (O3). */
export const increment = 128

/** The tokens of the prompt's start that route a request (O4). */
export const routingTokens = 256

/** A retention policy's lifetimes, in seconds (O6): after the last use, and at most after the first. */
export const retentions = {
  in_memory: { idle: 300, maximum: 3600 },
  "24h": { idle: 24 * 3600, maximum: 24 * 3600 }
} as const

/** Which API a call used. */
export type Api = "chat" | "responses"

/** One request the fake received, and what it answered. */
export interface Call {
  readonly at: number
  readonly api: Api
  readonly body: unknown
  readonly stream: boolean
  readonly promptCacheKey: string | undefined
  readonly promptTokens: number
  readonly cachedTokens: number
}

interface Entry {
  createdAt: number
  lastUsed: number
  retention: keyof typeof retentions
  /** The texts of the blocks seen right after this prefix (for matching inside a block). */
  readonly next: Set<string>
}

const list = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])

/** The prompt's blocks in order: tools, then instructions (Responses), then messages or input items. */
const blocksOf = (api: Api, body: Record<string, unknown>): Array<string> => {
  const blocks = list(body["tools"]).map((tool) => canonical({ at: "tools", block: tool }))
  if (api === "chat") {
    for (const message of list(body["messages"])) blocks.push(canonical({ at: "messages", block: message }))
  } else {
    const instructions = body["instructions"]
    if (typeof instructions === "string") blocks.push(canonical({ at: "instructions", block: instructions }))
    const input = body["input"]
    const items = typeof input === "string" ? [{ role: "user", content: input }] : list(input)
    for (const item of items) blocks.push(canonical({ at: "input", block: item }))
  }
  return blocks
}

/** Options of {@link make}. */
export interface Options {
  /** The clock (default: a new {@link makeClock}). */
  readonly clock?: FakeClock
  /** The text of every answer (default "ok"). */
  readonly reply?: string
}

/** A fake OpenAI endpoint: its `fetch`, its clock and the calls it answered. */
export interface FakeOpenAI {
  readonly fetch: Fetch
  readonly clock: FakeClock
  readonly calls: ReadonlyArray<Call>
  /** Forgets every cached prefix (the calls stay). */
  readonly clear: () => void
}

/** A new fake OpenAI endpoint with an empty cache. */
export const make = (options: Options = {}): FakeOpenAI => {
  const clock = options.clock ?? makeClock()
  const reply = options.reply ?? "ok"
  const counter = makeCounter()
  const machines = new Map<string, Map<string, Entry>>()
  const calls: Array<Call> = []

  const live = (entry: Entry | undefined, now: number): entry is Entry => {
    if (entry === undefined) return false
    const r = retentions[entry.retention]
    return now - entry.lastUsed <= r.idle * 1000 && now - entry.createdAt <= r.maximum * 1000
  }

  /** Applies the cache to one prompt: the tokens read, and the prompt stored (O1–O6). */
  const cacheOf = (api: Api, body: Record<string, unknown>): { promptTokens: number; cachedTokens: number } => {
    const model = typeof body["model"] === "string" ? body["model"] : ""
    const key = typeof body["prompt_cache_key"] === "string" ? body["prompt_cache_key"] : undefined
    const retention = body["prompt_cache_retention"] === "24h" ? "24h" : "in_memory"
    const blocks = blocksOf(api, body)
    const now = clock.now()
    // O4: the machine is named by the model, the key and the prompt's first 256 tokens.
    const head: Array<number> = []
    for (const block of blocks) {
      if (head.length >= routingTokens) break
      head.push(...counter.encode(block))
    }
    const route = canonical([model, key ?? null, head.slice(0, routingTokens)])
    let machine = machines.get(route)
    if (machine === undefined) {
      machine = new Map()
      machines.set(route, machine)
    }
    const root = "root"
    const digests: Array<string> = []
    const cumulative: Array<number> = []
    let digest = root
    let total = 0
    for (const block of blocks) {
      digest = link(digest, block)
      total += counter.count(block)
      digests.push(digest)
      cumulative.push(total)
    }
    // O1: the longest prefix of whole blocks this machine holds, then the tokens of the next
    // block that some prompt seen after that prefix shares.
    let whole = -1
    for (let i = 0; i < blocks.length; i++) {
      if (!live(machine.get(digests[i]!), now)) break
      whole = i
    }
    const parentDigest = whole >= 0 ? digests[whole]! : root
    const parent = machine.get(parentDigest)
    let partial = 0
    const nextBlock = blocks[whole + 1]
    if (nextBlock !== undefined && parent !== undefined) {
      const mine = counter.encode(nextBlock)
      for (const seen of parent.next) {
        if (!live(machine.get(link(parentDigest, seen)), now)) continue
        const theirs = counter.encode(seen)
        let n = 0
        while (n < mine.length && n < theirs.length && mine[n] === theirs[n]) n++
        if (n > partial) partial = n
      }
    }
    const common = (whole >= 0 ? cumulative[whole]! : 0) + partial
    // O2, O3: nothing below 1,024 tokens; hits in multiples of 128.
    const cachedTokens = total >= minimumPrompt && common >= minimumPrompt ? common - (common % increment) : 0
    // O2, O5, O6: a prompt of 1,024 tokens or more is cached, every prefix of it; a use refreshes it.
    if (total >= minimumPrompt) {
      let previous = root
      for (let i = 0; i < blocks.length; i++) {
        const up = machine.get(previous) ?? { createdAt: now, lastUsed: now, retention, next: new Set<string>() }
        up.next.add(blocks[i]!)
        machine.set(previous, up)
        const entry = machine.get(digests[i]!)
        if (entry !== undefined && live(entry, now)) {
          entry.lastUsed = now
          if (retention === "24h") entry.retention = "24h"
        } else {
          machine.set(digests[i]!, { createdAt: now, lastUsed: now, retention, next: new Set() })
        }
        previous = digests[i]!
      }
    }
    return { promptTokens: total, cachedTokens }
  }

  const fetch: Fetch = async (input, init) => {
    const path = pathOf(input)
    const body = bodyOf(init)
    const api: Api | undefined = path.endsWith("/chat/completions") ? "chat" : path.endsWith("/responses") ? "responses" : undefined
    if (api === undefined || !isRecord(body)) {
      return json(404, { error: { message: `no route ${path}`, type: "invalid_request_error", code: null, param: null } })
    }
    const stream = body["stream"] === true
    const { cachedTokens, promptTokens } = cacheOf(api, body)
    const key = body["prompt_cache_key"]
    calls.push({
      at: clock.now(),
      api,
      body,
      stream,
      promptCacheKey: typeof key === "string" ? key : undefined,
      promptTokens,
      cachedTokens
    })
    const id = `${api === "chat" ? "chatcmpl" : "resp"}_${calls.length}`
    const model = body["model"]
    const created = Math.floor(clock.now() / 1000)
    if (api === "chat") {
      // O7: Chat Completions reports usage.prompt_tokens_details.cached_tokens.
      const usage = {
        prompt_tokens: promptTokens,
        completion_tokens: 1,
        total_tokens: promptTokens + 1,
        prompt_tokens_details: { cached_tokens: cachedTokens, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 }
      }
      if (!stream) {
        return json(200, {
          id,
          object: "chat.completion",
          created,
          model,
          choices: [{ index: 0, message: { role: "assistant", content: reply }, finish_reason: "stop" }],
          usage
        })
      }
      const chunk = (choices: ReadonlyArray<unknown>, extra: object = {}) => ({
        data: { id, object: "chat.completion.chunk", created, model, choices, ...extra }
      })
      return sse([
        chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]),
        chunk([{ index: 0, delta: { content: reply }, finish_reason: null }]),
        chunk([{ index: 0, delta: {}, finish_reason: "stop" }]),
        chunk([], { usage }),
        { data: "[DONE]" }
      ])
    }
    // O7: the Responses API reports usage.input_tokens_details.cached_tokens.
    const usage = {
      input_tokens: promptTokens,
      input_tokens_details: { cached_tokens: cachedTokens },
      output_tokens: 1,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: promptTokens + 1
    }
    const message = {
      type: "message",
      id: `msg_${calls.length}`,
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: reply, annotations: [] }]
    }
    const response = {
      id,
      object: "response",
      created_at: created,
      status: "completed",
      model,
      output: [message],
      incomplete_details: null,
      usage
    }
    if (!stream) return json(200, response)
    return sse([
      { data: { type: "response.created", sequence_number: 0, response: { ...response, status: "in_progress", output: [], usage: null } } },
      { data: { type: "response.output_item.added", sequence_number: 1, output_index: 0, item: { ...message, status: "in_progress", content: [] } } },
      { data: { type: "response.output_text.delta", sequence_number: 2, item_id: message.id, output_index: 0, content_index: 0, delta: reply, logprobs: [] } },
      { data: { type: "response.output_item.done", sequence_number: 3, output_index: 0, item: message } },
      { data: { type: "response.completed", sequence_number: 4, response } }
    ])
  }

  return { fetch, clock, calls, clear: () => machines.clear() }
}
