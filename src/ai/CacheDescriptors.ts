/**
 * CacheDescriptors: a session's requests as the provider's cache sees them, and each call's
 * cache miss (docs/ai.md, "Why a call missed", rules M1–M4).
 *
 * The session core describes each fitted request once ({@link Tracker.describe}: the tool
 * definitions by name and field, the system prompts, each other message by hash and blocks, the
 * time from Effect's `Clock`), and when the call is settled ({@link Tracker.settle}) compares it
 * with the conversation's previous request through `CacheMiss.missOf` — the cached prefix being
 * what the provider billed as read when it said, else what the `cacheRule` predicted — and
 * remembers it as the conversation's previous request when it was answered or sent.
 *
 * A message object is hashed once per tracker (a `WeakMap`), and a request that starts with the
 * last one's message objects continues its description: an agent sends the same message objects
 * call after call, so a call looks only at its new messages. The previous requests are
 * kept per conversation key, at most {@link maxConversations}, the least recently called
 * forgotten first: one tracker per session (layer), never a module global.
 *
 * @since 0.3.0
 */
import type { Prompt } from "effect/ai"
import * as Hash from "./internal/hash.ts"
import * as MessageHash from "./internal/messageHash.ts"
import * as CacheBreakpoints from "./CacheBreakpoints.ts"
import type * as CacheModel from "./CacheModel.ts"
import * as CacheMiss from "./CacheMiss.ts"
import type * as CallReport from "./CallReport.ts"

/**
 * A tool definition as a door gives it: its name and its counted text (`ToolDefinitions.textOf`:
 * the JSON of its name, description and parameters), and its provider flags as text (the
 * provider options the door sees, the library's own cache marks left out), when it has any.
 *
 * @since 0.3.0
 * @category models
 */
export interface ToolInput {
  readonly name: string
  readonly text: string
  readonly flags?: string | undefined
}

/**
 * How many conversations' previous requests a tracker keeps.
 *
 * @since 0.3.0
 * @category constants
 */
export const maxConversations = 10_000

/**
 * Anthropic's lookback: the blocks a cache mark looks back for an earlier cached prefix, its own
 * included (docs/providers.md, A7).
 *
 * @since 0.3.0
 * @category constants
 */
export const lookback = 20

/**
 * How a call ended, as far as its miss needs it.
 *
 * @since 0.3.0
 * @category models
 */
export interface Settled {
  /** The conversation's key (stable mode); none: no miss, nothing remembered. */
  readonly key: string | undefined
  readonly outcome: CallReport.Outcome
  readonly reported: CallReport.Reported | undefined
  readonly prediction: CacheModel.Prediction | undefined
  /** Whether the call compacted its window (a planned change). */
  readonly compaction: boolean
}

/**
 * A session's descriptions of its requests (see the module's header).
 *
 * @since 0.3.0
 * @category models
 */
export interface Tracker {
  /** Describes a fitted request (its prompt, its tools, the time), remembered with `call`. */
  readonly describe: (
    call: object,
    prompt: Prompt.Prompt,
    tools: ReadonlyArray<ToolInput> | undefined,
    at: number
  ) => void
  /** The call's miss, if it missed; the request remembered as its conversation's previous one. */
  readonly settle: (call: object, settled: Settled) => CacheMiss.Miss | undefined
}

/** A conversation's previous request: its descriptor and the figures the next call compares with. */
interface Previous {
  readonly descriptor: CacheMiss.Descriptor
  readonly billedTokens: number | undefined
  readonly billedWrite: number | undefined
  readonly predictedTokens: number | undefined
  readonly model: string | undefined
}

/** The input tokens a provider billed in all: its total, else the sum of its parts. */
const billedTotal = (reported: CallReport.Reported | undefined): number | undefined => {
  if (reported === undefined) return undefined
  if (reported.total !== undefined) return reported.total
  const { cacheRead, cacheWrite, uncached } = reported
  return cacheRead !== undefined && cacheWrite !== undefined && uncached !== undefined
    ? cacheRead + cacheWrite + uncached
    : undefined
}

/** The fields of a tool's counted text, hashed; a text that is no JSON object is its name's. */
const fieldsOf = (text: string): { readonly description: string; readonly parameters: string } => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    parsed = undefined
  }
  const field = (key: string): string => {
    if (typeof parsed !== "object" || parsed === null || !(key in parsed)) return ""
    const value: unknown = Reflect.get(parsed, key)
    return Hash.hashString(JSON.stringify(value) ?? "")
  }
  return { description: field("description"), parameters: field("parameters") }
}

/** A value as JSON with its objects' keys sorted: the same options give the same text. */
const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value).sort()
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(Reflect.get(value, k))}`).join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

/**
 * A tool's provider flags as text (rule M2): its provider options without the cache marks
 * (`anthropic.cacheControl` / `cache_control`, the library's `effect-cupel` tag), as JSON with
 * sorted keys; `undefined` when nothing is left.
 *
 * @since 0.3.0
 * @category models
 */
export const flagsOf = (providerOptions: unknown): string | undefined => {
  if (typeof providerOptions !== "object" || providerOptions === null) return undefined
  const kept: Record<string, unknown> = {}
  for (const [namespace, options] of Object.entries(providerOptions)) {
    if (namespace === "effect-cupel") continue
    if (typeof options !== "object" || options === null) {
      kept[namespace] = options
      continue
    }
    const rest = Object.fromEntries(Object.entries(options).filter(([k]) => k !== "cacheControl" && k !== "cache_control"))
    if (Object.keys(rest).length > 0) kept[namespace] = rest
  }
  return Object.keys(kept).length === 0 ? undefined : canonical(kept)
}

/** How many tool texts a tracker keeps the fields of before it starts over. */
const toolTextLimit = 1_000

/**
 * A tracker for a session whose provider caches by `rule` (`CacheModel.CacheRule`).
 *
 * @since 0.3.0
 * @category constructors
 */
export const make = (rule: CacheModel.CacheRule): Tracker => {
  const messages = new WeakMap<Prompt.Message, CacheMiss.Message>()
  const toolFields = new Map<string, { readonly description: string; readonly parameters: string }>()
  const described = new WeakMap<object, CacheMiss.Descriptor>()
  const previous = new Map<string, Previous>()
  const anthropic = rule.breakpoints === "request-end"

  const messageOf = (message: Prompt.Message): CacheMiss.Message => {
    let known = messages.get(message)
    if (known === undefined) {
      known = {
        // The hash every part of a call reads (design item 148), made once per message object.
        hash: MessageHash.messageHash(message),
        blocks: message.role === "system" ? 1 : Math.max(1, message.content.length)
      }
      messages.set(message, known)
    }
    return known
  }

  const toolOf = (tool: ToolInput): CacheMiss.Tool => {
    let fields = toolFields.get(tool.text)
    if (fields === undefined) {
      fields = fieldsOf(tool.text)
      if (toolFields.size >= toolTextLimit) toolFields.clear()
      toolFields.set(tool.text, fields)
    }
    return { name: tool.name, ...fields, flags: tool.flags === undefined ? "" : Hash.hashString(tool.flags) }
  }

  // The last prompt described, and the state after each of its first k messages: an agent's
  // next call starts with the same message objects, so only its new messages are looked at.
  let last: {
    content: ReadonlyArray<Prompt.Message>
    readonly systemAt: Array<string>
    readonly systemBlocksAt: Array<number>
    readonly countAt: Array<number>
    messages: Array<CacheMiss.Message>
  } = { content: [], systemAt: [Hash.start], systemBlocksAt: [0], countAt: [0], messages: [] }

  const describe: Tracker["describe"] = (call, prompt, tools, at) => {
    const content = prompt.content
    let k = 0
    const shared = Math.min(content.length, last.content.length)
    while (k < shared && content[k] === last.content[k]) k++
    let system = last.systemAt[k]!
    let systemBlocks = last.systemBlocksAt[k]!
    // A copy: the descriptor of an earlier call keeps its own.
    const out = last.messages.slice(0, last.countAt[k]!)
    for (let i = k; i < content.length; i++) {
      const message = content[i]!
      const m = messageOf(message)
      if (message.role === "system") {
        system = Hash.chain(system, m.hash)
        systemBlocks++
      } else out.push(m)
      last.systemAt[i + 1] = system
      last.systemBlocksAt[i + 1] = systemBlocks
      last.countAt[i + 1] = out.length
    }
    last.systemAt.length = last.systemBlocksAt.length = last.countAt.length = content.length + 1
    last.content = content
    last.messages = out
    described.set(call, { at, tools: (tools ?? []).map(toolOf), system, systemBlocks, messages: out })
  }

  const settle: Tracker["settle"] = (call, settled) => {
    const current = described.get(call)
    const key = settled.key
    if (current === undefined || key === undefined) return undefined
    const before = previous.get(key)
    const { reported, prediction } = settled
    let miss: CacheMiss.Miss | undefined
    if (before !== undefined) {
      const billed = reported?.cacheRead !== undefined && before.billedTokens !== undefined
      const cachedTokens = billed ? reported?.cacheRead : prediction?.cachedTokens
      const previousTokens = billed ? before.billedTokens : before.predictedTokens
      if (cachedTokens !== undefined && previousTokens !== undefined) {
        miss = CacheMiss.missOf({
          previous: before.descriptor,
          current,
          cachedTokens,
          previousTokens,
          source: billed ? "billed" : "predicted",
          previousCacheWrite: before.billedWrite,
          compaction: settled.compaction,
          rule: {
            ttlSeconds: rule.ttlSeconds,
            granularity: rule.granularity,
            breakpoints: rule.breakpoints,
            // The model that answered the previous request: its minimum is the one that applied.
            minimumPrefix: anthropic && (before.model ?? reported?.model) !== undefined
              ? CacheBreakpoints.anthropicMinimumPrefix(before.model ?? reported?.model)
              : rule.minimumPrefix,
            lookback
          }
        })
      }
    }
    if (settled.outcome === "answered" || settled.outcome === "sent") {
      // Deleted first: a Map keeps insertion order, so the first key is the least recently called.
      previous.delete(key)
      previous.set(key, {
        descriptor: current,
        billedTokens: billedTotal(reported),
        billedWrite: reported?.cacheWrite,
        predictedTokens: prediction?.totalTokens,
        model: reported?.model
      })
      if (previous.size > maxConversations) {
        const oldest = previous.keys().next()
        if (oldest.done !== true) previous.delete(oldest.value)
      }
    }
    return miss
  }

  return { describe, settle }
}
