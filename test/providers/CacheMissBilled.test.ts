/**
 * Why a call missed, end to end (docs/ai.md, rules M1–M4; issue 26's "done when"): each miss
 * cause injected into a conversation sent through `AiSdk.middleware` around the real
 * `@ai-sdk/anthropic` client, whose `fetch` is the fake Anthropic endpoint applying the
 * provider's cache rules (docs/providers.md, A1–A12), and the cause the report names.
 *
 * The caller marks the last message of every request by hand (a `cache_control` mark, as
 * docs/providers.md describes), so that the provider reads the previous request when nothing
 * broke it: the library's own marks (the planner's wiring) would do the same, and a read anchor
 * would then catch the ">20 blocks appended" case; this test is of the diagnosis, with the
 * caller's marks only.
 *
 * The session's clock is the fake's (a `Clock` given through the `telemetry` runtime), so that
 * "the cache expired" is the same time for the library and the provider.
 */
import { createAnthropic } from "@ai-sdk/anthropic"
import { assert, describe, it } from "@effect/vitest"
import { wrapLanguageModel } from "ai"
import { Clock, Duration, Effect, Layer, ManagedRuntime } from "effect"
import * as AiSdk from "../../src/adapters/AiSdk.ts"
import type * as AiSdkPrompt from "../../src/adapters/AiSdkPrompt.ts"
import type * as CacheMiss from "../../src/ai/CacheMiss.ts"
import * as FakeAnthropic from "../support/fakeAnthropic.ts"
import type { FakeClock } from "../support/fakeProvider.ts"
import { recordSpans } from "../support/spans.ts"

type Message = AiSdkPrompt.ProviderMessage
type Tools = NonNullable<AiSdkPrompt.CallOptions["tools"]>

/** Effect's clock, reading the fake's (its time plus a fixed start). */
const clockOf = (fake: FakeClock): Clock.Clock => {
  const start = 1_700_000_000_000
  const base = Clock.Clock.defaultValue()
  const millis = () => start + fake.now()
  return {
    currentTimeMillisUnsafe: millis,
    currentTimeMillis: Effect.sync(millis),
    currentTimeNanosUnsafe: () => BigInt(millis()) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(millis()) * 1_000_000n),
    monotonicTimeNanosUnsafe: () => BigInt(millis()) * 1_000_000n,
    monotonicTimeNanos: Effect.sync(() => BigInt(millis()) * 1_000_000n),
    sleep: (duration: Duration.Duration) => base.sleep(duration)
  }
}

/** Words enough for `tokens` o200k tokens, or about (each word `w123` is 2 tokens). */
const words = (tokens: number, seed: string): string =>
  Array.from({ length: Math.ceil(tokens / 2) }, (_, i) => `${seed}${i}`).join(" ")

const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] })
const assistant = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] })
const system = (text: string): Message => ({ role: "system", content: text })

/** The prompt with a caller's cache mark on its last message (a copy: the history is not marked). */
const markLast = (prompt: ReadonlyArray<Message>): Array<Message> => {
  const last = prompt.at(-1)
  if (last === undefined) return []
  return [...prompt.slice(0, -1), { ...last, providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } } }]
}

const tool = (name: string): Tools[number] => ({
  type: "function",
  name,
  description: `${name}: ${words(150, name)}`,
  inputSchema: { type: "object", properties: { target: { type: "string" } }, required: ["target"] }
})

const tools: Tools = [tool("read_file"), tool("grep"), tool("run_tests")]

/** A conversation over the fake: each `send` is one call; its report comes back. */
const conversation = (options: {
  readonly model?: string
  readonly contextWindow?: number
  readonly marks?: boolean
  /** The library's own cache marks (default on); off, only the caller's marks reach the wire. */
  readonly promptCache?: false
} = {}) => {
  const fake = FakeAnthropic.make()
  const reports: Array<AiSdk.Report> = []
  const recorder = recordSpans()
  const telemetry = ManagedRuntime.make(Layer.succeed(Clock.Clock, clockOf(fake.clock)))
  const model = wrapLanguageModel({
    model: createAnthropic({ fetch: fake.fetch, apiKey: "test" })(options.model ?? "claude-sonnet-4-5"),
    middleware: AiSdk.middleware({
      contextWindow: options.contextWindow ?? 200_000,
      outputReserve: 4_096,
      // One conversation whatever its opening (an edited system prompt is the same conversation).
      conversationKey: () => "conversation",
      ...(options.promptCache === false ? { promptCache: false } : {}),
      telemetry,
      tracer: recorder.tracer,
      onReport: (report) => void reports.push(report)
    })
  })
  const send = async (prompt: ReadonlyArray<Message>, callTools: Tools | undefined = tools): Promise<AiSdk.Report> => {
    await model.doGenerate({
      prompt: options.marks === false ? [...prompt] : markLast(prompt),
      ...(callTools === undefined ? {} : { tools: callTools })
    })
    fake.clock.advance(5)
    const report = reports.at(-1)
    if (report === undefined) throw new Error("no report")
    return report
  }
  /** The `cupel.window` spans' miss attributes, in call order. */
  const spanMisses = () =>
    recorder.spans.filter((s) => s.name === "cupel.window").map((s) => s.attributes.get("cupel.window.cache.miss"))
  return { fake, send, spanMisses, dispose: () => telemetry.dispose() }
}

/** The start of every conversation: a system prompt and a first exchange, about 3,000 tokens. */
const opening: ReadonlyArray<Message> = [
  system(`You are a careful assistant. ${words(1_000, "s")}`),
  user(`Please look into the build. ${words(800, "u")}`),
  assistant(`I will read the files. ${words(600, "a")}`),
  user(`Go on. ${words(200, "g")}`)
]

const next = (k: number): ReadonlyArray<Message> => [assistant(`Step ${k}. ${words(120, `x${k}`)}`), user(`And then? ${k}`)]

const causeOf = (report: AiSdk.Report): CacheMiss.Cause["_tag"] | undefined => report.miss?.cause._tag

describe("why a call missed, through the AI SDK middleware and the real Anthropic client", () => {
  it("a call that appends to a marked request reads all of it: no miss", async () => {
    const c = conversation()
    await c.send(opening)
    const report = await c.send([...opening, ...next(1)])
    assert.isAbove(report.reported?.cacheRead ?? 0, 0)
    assert.isUndefined(report.miss)
    await c.dispose()
  })

  it("tool reordered: tools-changed, order", async () => {
    const c = conversation()
    await c.send(opening)
    const report = await c.send([...opening, ...next(1)], [tools[1]!, tools[0]!, tools[2]!])
    assert.strictEqual(report.reported?.cacheRead, 0)
    assert.deepStrictEqual(report.miss?.cause, { _tag: "tools-changed", tool: "read_file", field: "order" })
    assert.strictEqual(report.miss?.source, "billed")
    await c.dispose()
  })

  it("flag added: tools-changed, flags (eagerInputStreaming on one tool changes what the client sends)", async () => {
    const c = conversation()
    await c.send(opening)
    const flagged: Tools = tools.map((t) =>
      t.type === "function" && t.name === "grep" ? { ...t, providerOptions: { anthropic: { eagerInputStreaming: true } } } : t
    )
    const report = await c.send([...opening, ...next(1)], flagged)
    assert.strictEqual(report.reported?.cacheRead, 0)
    assert.deepStrictEqual(report.miss?.cause, { _tag: "tools-changed", tool: "grep", field: "flags" })
    await c.dispose()
  })

  it("system edited: system-changed", async () => {
    const c = conversation()
    await c.send(opening)
    const edited = [system(`You are a careful assistant, today. ${words(1_000, "s")}`), ...opening.slice(1)]
    const report = await c.send([...edited, ...next(1)])
    assert.isBelow(report.reported?.cacheRead ?? 0, report.miss?.previousTokens ?? 0)
    assert.deepStrictEqual(report.miss?.cause, { _tag: "system-changed" })
    await c.dispose()
  })

  it("earlier message edited: message-changed, naming the message", async () => {
    const c = conversation()
    const first = [...opening, ...next(1)]
    await c.send(first)
    const edited = first.map((m, i) => (i === 2 ? assistant(`I will read the files, all of them. ${words(600, "a")}`) : m))
    const report = await c.send([...edited, ...next(2)])
    // The system prompt is read; the tools and system are unchanged, the conversation's second message is not.
    assert.deepStrictEqual(report.miss?.cause, { _tag: "message-changed", message: 1 })
    await c.dispose()
  })

  it("TTL expired: expired, with the seconds since the previous call", async () => {
    const c = conversation()
    await c.send(opening)
    c.fake.clock.advance(400)
    const report = await c.send([...opening, ...next(1)])
    assert.strictEqual(report.reported?.cacheRead, 0)
    assert.deepStrictEqual(report.miss?.cause, { _tag: "expired", seconds: 405, ttlSeconds: 300 })
    await c.dispose()
  })

  it(">20 blocks appended: lookback-exceeded (the caller's mark alone, the library's marks off)", async () => {
    const c = conversation({ promptCache: false })
    await c.send(opening)
    const many = Array.from({ length: 11 }, (_, k) => next(k)).flat()
    const report = await c.send([...opening, ...many])
    assert.strictEqual(report.reported?.cacheRead, 0)
    assert.deepStrictEqual(report.miss?.cause, { _tag: "lookback-exceeded", appendedBlocks: 22, lookback: 20 })
    await c.dispose()
  })

  it(">20 blocks appended with the library's marks (the default): read through its anchor at the previous request's end, no miss", async () => {
    const c = conversation()
    const first = await c.send(opening)
    const many = Array.from({ length: 11 }, (_, k) => next(k)).flat()
    const report = await c.send([...opening, ...many])
    assert.isAbove(report.reported?.cacheRead ?? 0, 0)
    assert.strictEqual(report.reported?.cacheRead, first.reported?.total)
    assert.strictEqual(report.miss, undefined)
    await c.dispose()
  })

  it("below minimum: below-minimum, by the minimum of the model that answered (Haiku 4.5: 4,096)", async () => {
    const c = conversation({ model: "claude-haiku-4-5" })
    await c.send(opening)
    const report = await c.send([...opening, ...next(1)])
    assert.strictEqual(report.reported?.cacheRead, 0)
    assert.strictEqual(report.miss?.cause._tag, "below-minimum")
    if (report.miss?.cause._tag === "below-minimum") assert.strictEqual(report.miss.cause.minimumPrefix, 4_096)
    await c.dispose()
  })

  it("no mark at all: not-reported, the previous call having written nothing", async () => {
    const c = conversation({ marks: false, promptCache: false })
    await c.send(opening)
    const report = await c.send([...opening, ...next(1)])
    assert.deepStrictEqual(report.miss?.cause, { _tag: "not-reported", previousCacheWrite: 0 })
    await c.dispose()
  })

  it("a planned compaction: compaction; and the span carries each call's cause", async () => {
    const c = conversation({ contextWindow: 9_000 })
    let history = [...opening]
    const causes: Array<string | undefined> = []
    let compacted: AiSdk.Report | undefined
    for (let k = 1; k <= 30 && compacted === undefined; k++) {
      history = [...history, ...next(k)]
      const report = await c.send(history)
      causes.push(causeOf(report))
      if (report.change?.action === "compact") compacted = report
    }
    assert.isDefined(compacted, "the window compacted")
    assert.strictEqual(compacted?.miss?.cause._tag, "compaction")
    // Every call before it appended and read all of the previous request.
    assert.deepStrictEqual(causes.slice(0, -1).filter((x) => x !== undefined), [])
    assert.deepStrictEqual(c.spanMisses(), causes)
    await c.dispose()
  })
})
