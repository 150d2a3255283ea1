/**
 * A fake Anthropic Messages API (`POST /v1/messages`) for the real `@ai-sdk/anthropic` client:
 * `createAnthropic({ fetch: fake.fetch, apiKey: "test" })`. It answers "ok" (JSON, or server-sent
 * events when the request streams) and applies Anthropic's documented prompt-caching rules to
 * every request, reporting the usage as Anthropic does. The rules, numbered A1–A13 with their
 * sources, are in docs/providers.md; each is cited where it is applied below.
 *
 * The prefix is a list of blocks in Anthropic's order: each tool definition, each system text
 * block, then each content block of each message (a string content is one text block) (A3). A
 * block's text is its canonical JSON (sorted keys) without its `cache_control`, with its place
 * (`tools`, `system` or the message's role, and whether it opens its message); its tokens are
 * the o200k tokens of that text — deterministic, not Anthropic's tokenizer. A cached prefix is
 * named by the chained digest of its blocks (and the model: caches are per model).
 *
 * The fake's cache lives as long as the fake (one organisation); its clock is the test's
 * ({@link FakeClock}: `fake.clock.advance(seconds)`).
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

/** A cache mark's lifetime. */
export type Ttl = "5m" | "1h"

const ttlMs: Record<Ttl, number> = { "5m": 5 * 60_000, "1h": 60 * 60_000 }

/**
 * The minimum cacheable prefix by model (A8), matched by the longest model-id prefix; others
 * get {@link defaultMinimum}. From Anthropic's prompt caching page: 4,096 tokens for Claude
 * Opus 4.6, Opus 4.5 and Haiku 4.5; 2,048 for Sonnet 4.6, Haiku 3.5 and Haiku 3; 1,024 for
 * Sonnet 4.5, Opus 4.1, Opus 4, Sonnet 4 and Sonnet 3.7.
 */
export const minimumPrefixes: ReadonlyArray<readonly [model: string, tokens: number]> = [
  ["claude-opus-4-6", 4096],
  ["claude-opus-4-5", 4096],
  ["claude-haiku-4-5", 4096],
  ["claude-sonnet-4-6", 2048],
  ["claude-3-5-haiku", 2048],
  ["claude-3-haiku", 2048],
  ["claude-sonnet-4-5", 1024],
  ["claude-opus-4-1", 1024],
  ["claude-opus-4", 1024],
  ["claude-sonnet-4", 1024],
  ["claude-3-7-sonnet", 1024]
]

/** The minimum for a model not in {@link minimumPrefixes}. */
export const defaultMinimum = 1024

/** The minimum cacheable prefix of a model (A8). */
export const minimumOf = (model: string): number => {
  let best: readonly [string, number] | undefined
  for (const entry of minimumPrefixes) {
    if (model.startsWith(entry[0]) && (best === undefined || entry[0].length > best[0].length)) best = entry
  }
  return best?.[1] ?? defaultMinimum
}

/** Prices, × the base input price (A10, A11). */
export const prices = { read: 0.1, write5m: 1.25, write1h: 2 } as const

/** The usage of one answered request, as Anthropic reports it (A12). */
export interface Usage {
  readonly input_tokens: number
  readonly cache_creation_input_tokens: number
  readonly cache_read_input_tokens: number
  readonly cache_creation: { readonly ephemeral_5m_input_tokens: number; readonly ephemeral_1h_input_tokens: number }
  readonly output_tokens: number
}

/** One request the fake received, and what it answered. */
export interface Call {
  readonly at: number
  readonly body: unknown
  readonly stream: boolean
  readonly status: number
  readonly error?: string
  /** The blocks of the prefix and the indices of those that carried a mark. */
  readonly blocks: number
  readonly marks: ReadonlyArray<{ readonly index: number; readonly ttl: Ttl }>
  readonly usage?: Usage
}

/** The input cost of a usage in base-price tokens (A10, A11). */
export const costOf = (usage: Usage): number =>
  usage.input_tokens + usage.cache_read_input_tokens * prices.read +
  usage.cache_creation.ephemeral_5m_input_tokens * prices.write5m +
  usage.cache_creation.ephemeral_1h_input_tokens * prices.write1h

/** All input tokens of a usage: read + written + the rest (A12). */
export const totalOf = (usage: Usage): number =>
  usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens

interface Block {
  readonly text: string
  readonly mark: Ttl | undefined
}

interface Entry {
  expiresAt: number
  ttl: Ttl
}

const markOf = (value: unknown): Ttl | undefined =>
  isRecord(value) && value["type"] === "ephemeral" ? (value["ttl"] === "1h" ? "1h" : "5m") : undefined

const withoutMark = (value: unknown): unknown => {
  if (!isRecord(value)) return value
  const { cache_control: _, ...rest } = value
  return rest
}

const list = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])

/**
 * The request's blocks in Anthropic's prefix order: tools, system, messages (A3); a mark is read
 * on a top-level block only (A13: one nested in a tool_result's content is part of its bytes).
 */
const blocksOf = (body: Record<string, unknown>): Array<Block> => {
  const blocks: Array<Block> = []
  for (const tool of list(body["tools"])) {
    blocks.push({ text: canonical({ at: "tools", block: withoutMark(tool) }), mark: isRecord(tool) ? markOf(tool["cache_control"]) : undefined })
  }
  const system = body["system"]
  const systemBlocks = typeof system === "string" ? [{ type: "text", text: system }] : list(system)
  for (const block of systemBlocks) {
    blocks.push({ text: canonical({ at: "system", block: withoutMark(block) }), mark: isRecord(block) ? markOf(block["cache_control"]) : undefined })
  }
  for (const message of list(body["messages"])) {
    if (!isRecord(message)) continue
    const content = message["content"]
    const parts = typeof content === "string" ? [{ type: "text", text: content }] : list(content)
    parts.forEach((block, j) => {
      blocks.push({
        text: canonical({ at: message["role"], opens: j === 0, block: withoutMark(block) }),
        mark: isRecord(block) ? markOf(block["cache_control"]) : undefined
      })
    })
  }
  // A top-level cache_control is automatic caching: a mark on the last block (A2).
  const automatic = markOf(body["cache_control"])
  const last = blocks.at(-1)
  if (automatic !== undefined && last !== undefined && last.mark === undefined) {
    blocks[blocks.length - 1] = { ...last, mark: automatic }
  }
  return blocks
}

/** Options of {@link make}. */
export interface Options {
  /** The clock (default: a new {@link makeClock}). */
  readonly clock?: FakeClock
  /** How many block positions a mark looks back for a cached prefix, its own included (A7; default 20). */
  readonly lookback?: number
  /** The text of every answer (default "ok"). */
  readonly reply?: string
  /**
   * Answers the `n`th request (from 1) with a call of this tool instead of text, when it gives
   * one: `{ name, input }` (a tool loop that goes on).
   */
  readonly toolCall?: (n: number) => { readonly name: string; readonly input: object } | undefined
}

/** A fake Anthropic endpoint: its `fetch`, its clock and the calls it answered. */
export interface FakeAnthropic {
  readonly fetch: Fetch
  readonly clock: FakeClock
  readonly calls: ReadonlyArray<Call>
  /** Forgets every cached prefix (the calls stay). */
  readonly clear: () => void
}

/** A new fake Anthropic endpoint with an empty cache. */
export const make = (options: Options = {}): FakeAnthropic => {
  const clock = options.clock ?? makeClock()
  const lookback = options.lookback ?? 20
  const reply = options.reply ?? "ok"
  const counter = makeCounter()
  const cache = new Map<string, Entry>()
  const calls: Array<Call> = []

  const live = (digest: string, now: number): Entry | undefined => {
    const entry = cache.get(digest)
    return entry !== undefined && now <= entry.expiresAt ? entry : undefined
  }

  const answer = (body: Record<string, unknown>): { status: number; error?: string; call: Omit<Call, "at" | "body" | "stream" | "status" | "error"> } => {
    const model = typeof body["model"] === "string" ? body["model"] : ""
    const blocks = blocksOf(body)
    const marks = blocks.flatMap((b, index) => (b.mark === undefined ? [] : [{ index, ttl: b.mark }]))
    const shape = { blocks: blocks.length, marks }
    // A4: at most four marks.
    if (marks.length > 4) {
      return { status: 400, error: `A maximum of 4 blocks with cache_control may be provided. Found ${marks.length}.`, call: shape }
    }
    // A9: a 1-hour mark may not follow a 5-minute one.
    const firstShort = marks.findIndex((m) => m.ttl === "5m")
    if (firstShort >= 0 && marks.slice(firstShort).some((m) => m.ttl === "1h")) {
      return { status: 400, error: "a cache_control block with ttl='1h' must not come after one with ttl='5m'", call: shape }
    }
    const now = clock.now()
    const minimum = minimumOf(model)
    const cumulative: Array<number> = []
    const digests: Array<string> = []
    let total = 0
    let digest = link("anthropic", model)
    for (const block of blocks) {
      total += counter.count(block.text)
      digest = link(digest, block.text)
      cumulative.push(total)
      digests.push(digest)
    }
    // A5, A6, A7: each mark looks back from its own block for the longest live cached prefix.
    let readEnd = -1
    for (const mark of marks) {
      for (let k = mark.index; k > mark.index - lookback && k >= 0; k--) {
        const entry = live(digests[k]!, now)
        if (entry !== undefined) {
          if (k > readEnd) readEnd = k
          break
        }
      }
    }
    // A10: a read refreshes the entry's lifetime.
    if (readEnd >= 0) {
      const entry = live(digests[readEnd]!, now)!
      entry.expiresAt = now + ttlMs[entry.ttl]
    }
    const read = readEnd >= 0 ? cumulative[readEnd]! : 0
    // A5, A8: marks past the read are written when their prefix is long enough; the tokens up to
    // each such mark are written at its lifetime's price.
    let written5m = 0
    let written1h = 0
    let boundary = readEnd
    for (const mark of marks) {
      if (mark.index <= readEnd || cumulative[mark.index]! < minimum) continue
      const tokens = cumulative[mark.index]! - (boundary >= 0 ? cumulative[boundary]! : 0)
      if (mark.ttl === "1h") written1h += tokens
      else written5m += tokens
      boundary = mark.index
      const existing = live(digests[mark.index]!, now)
      const ttl: Ttl = existing?.ttl === "1h" ? "1h" : mark.ttl
      cache.set(digests[mark.index]!, { expiresAt: now + ttlMs[ttl], ttl })
    }
    const written = written5m + written1h
    return {
      status: 200,
      call: {
        ...shape,
        usage: {
          input_tokens: total - read - written,
          cache_creation_input_tokens: written,
          cache_read_input_tokens: read,
          cache_creation: { ephemeral_5m_input_tokens: written5m, ephemeral_1h_input_tokens: written1h },
          output_tokens: 1
        }
      }
    }
  }

  const fetch: Fetch = async (input, init) => {
    const body = bodyOf(init)
    if (!pathOf(input).endsWith("/messages") || !isRecord(body)) {
      return json(404, { type: "error", error: { type: "not_found_error", message: `no route ${pathOf(input)}` } })
    }
    const stream = body["stream"] === true
    const { call, error, status } = answer(body)
    calls.push({ at: clock.now(), body, stream, status, ...(error === undefined ? {} : { error }), ...call })
    if (error !== undefined) return json(status, { type: "error", error: { type: "invalid_request_error", message: error } })
    const usage = call.usage!
    const id = `msg_${calls.length}`
    const model = body["model"]
    const toolCall = options.toolCall?.(calls.length)
    const toolUse = toolCall === undefined ? undefined : { type: "tool_use", id: `toolu_${calls.length}`, name: toolCall.name, input: toolCall.input }
    const stopReason = toolUse === undefined ? "end_turn" : "tool_use"
    if (!stream) {
      return json(200, {
        id,
        type: "message",
        role: "assistant",
        model,
        content: [toolUse ?? { type: "text", text: reply }],
        stop_reason: stopReason,
        stop_sequence: null,
        usage
      })
    }
    const block = toolUse === undefined
      ? [
        { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
        { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: reply } } }
      ]
      : [
        { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { ...toolUse, input: {} } } },
        {
          event: "content_block_delta",
          data: { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify(toolUse.input) } }
        }
      ]
    const { output_tokens: _, ...startUsage } = usage
    return sse([
      {
        event: "message_start",
        data: {
          type: "message_start",
          message: {
            id,
            type: "message",
            role: "assistant",
            model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { ...startUsage, output_tokens: 0 }
          }
        }
      },
      ...block,
      { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
      {
        event: "message_delta",
        data: { type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }
      },
      { event: "message_stop", data: { type: "message_stop" } }
    ])
  }

  return { fetch, clock, calls, clear: () => cache.clear() }
}
