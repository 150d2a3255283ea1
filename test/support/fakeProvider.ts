/**
 * What the fake provider endpoints (`fakeAnthropic.ts`, `fakeOpenAI.ts`) share: a clock the test
 * moves by hand, a deterministic token count of a block (o200k of its canonical JSON, memoised
 * per fake), a chained digest of a prefix, and the HTTP answers (JSON, server-sent events,
 * errors) a provider client reads.
 *
 * The fakes answer the real clients (`createAnthropic({ fetch })`, `createOpenAI({ fetch })`):
 * the clients build the request bodies exactly as they would for the provider, so what a fake
 * sees is what the provider would see. The cache rules each fake applies are listed, with
 * their sources, in docs/providers.md.
 */
import { createHash } from "node:crypto"
import { countTokens, encode } from "gpt-tokenizer/encoding/o200k_base"

/** A clock the test moves: milliseconds since the fake started. */
export interface FakeClock {
  readonly now: () => number
  readonly advance: (seconds: number) => void
}

/** A clock that starts at 0 and moves only when the test calls `advance`. */
export const makeClock = (): FakeClock => {
  let ms = 0
  return {
    now: () => ms,
    advance: (seconds) => {
      ms += seconds * 1000
    }
  }
}

/**
 * JSON with its object keys sorted: the same value always gives the same text, whatever order
 * a client wrote the keys in (providers hash content, not key order).
 */
export const canonical = (value: unknown): string => JSON.stringify(sortKeys(value))

const sortKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (isRecord(value)) {
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value).sort()) out[key] = sortKeys(value[key])
    return out
  }
  return value
}

/** Token counts of block texts, memoised (a fake sees the same blocks call after call). */
export const makeCounter = () => {
  const counts = new Map<string, number>()
  const tokens = new Map<string, ReadonlyArray<number>>()
  return {
    count: (text: string): number => {
      let n = counts.get(text)
      if (n === undefined) {
        n = countTokens(text)
        counts.set(text, n)
      }
      return n
    },
    encode: (text: string): ReadonlyArray<number> => {
      let t = tokens.get(text)
      if (t === undefined) {
        t = encode(text)
        tokens.set(text, t)
      }
      return t
    }
  }
}

/** The digest of a prefix extended by one block: `link(link(root, a), b)` names `a, b`. */
export const link = (digest: string, block: string): string =>
  createHash("sha1").update(digest).update("\u0000").update(block).digest("hex")

/** A JSON answer. */
export const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } })

/** A server-sent event stream of the given events (`event:` lines when a name is given). */
export const sse = (events: ReadonlyArray<{ readonly event?: string; readonly data: unknown }>): Response => {
  const text = events
    .map((e) =>
      `${e.event === undefined ? "" : `event: ${e.event}\n`}data: ${typeof e.data === "string" ? e.data : JSON.stringify(e.data)}\n\n`
    )
    .join("")
  return new Response(text, { status: 200, headers: { "content-type": "text/event-stream" } })
}

/** The JSON body of a request the client made (clients send a string body). */
export const bodyOf = (init: RequestInit | undefined): unknown =>
  typeof init?.body === "string" ? JSON.parse(init.body) : undefined

/** The path of the URL a client called (`/v1/messages`, `/v1/chat/completions`…). */
export const pathOf = (input: string | URL | Request): string =>
  new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url).pathname

/** A `fetch` as the provider clients take it. */
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>

/** Narrows an unknown JSON value to a record. */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value)
