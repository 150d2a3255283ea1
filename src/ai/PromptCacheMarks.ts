/**
 * PromptCacheMarks: a call's cache plan (`CachePlan`) on an `effect/ai` `Prompt` — Anthropic's
 * `cache_control` marks as `options.anthropic.cacheControl` on the messages that end the
 * window's stable boundaries (issue 26; docs/ai.md, "What is sent to each provider").
 *
 * `options.anthropic.cacheControl` is what `effect/ai`'s own Anthropic provider
 * (`@effect/ai-anthropic`'s `AnthropicLanguageModel`) reads: on a system message, on a part, or
 * on a message (for its last part). It reads none on tool definitions, and none on an assistant
 * message's parts; every boundary the session plans ends a message, and a call's prompt ends
 * with a user or tool message, whose mark it sends. Other providers ignore the `anthropic`
 * namespace.
 *
 * The blocks a plan counts: the tool definitions (one block no mark goes on: `effect/ai` tools
 * carry no options), each system message, then each part of each message except those
 * Anthropic is not sent (a tool approval response, an empty text). Marks never pile up: the
 * library tags its own (`options["effect-cupel"].cacheMark`, as `adapters/AiSdkCacheMarks`
 * does) and {@link strip} removes them before a plan is made; the caller's own marks are kept
 * and counted against the four (the caller wins).
 *
 * @since 0.3.0
 */
import { Prompt } from "effect/ai"
import type * as CacheBreakpoints from "./CacheBreakpoints.ts"
import type * as CachePlan from "./CachePlan.ts"

/**
 * The namespace of the library's own tag in `options` (the same as the AI SDK adapter's).
 *
 * @since 0.3.0
 * @category constants
 */
export const tagNamespace = "effect-cupel"

type Options = Prompt.ProviderOptions

const isObject = (value: unknown): value is { readonly [key: string]: unknown } =>
  value !== null && typeof value === "object" && !Array.isArray(value)

const isOwn = (options: Options): boolean => {
  const tag = options[tagNamespace]
  return isObject(tag) && tag["cacheMark"] === true
}

/** The caller's mark in options (not the library's own). */
const callerMark = (options: Options): CacheBreakpoints.Ttl | undefined => {
  if (isOwn(options)) return undefined
  const anthropic = options["anthropic"]
  const value = isObject(anthropic) ? anthropic["cacheControl"] : undefined
  if (!isObject(value)) return undefined
  return value["ttl"] === "1h" ? "1h" : "5m"
}

/** The options without the library's own mark (the same object when there is none). */
const unmarked = (options: Options): Options => {
  if (!isOwn(options)) return options
  const { [tagNamespace]: _, anthropic, ...rest } = options
  if (!isObject(anthropic)) return rest
  const { cacheControl: __, ...others } = anthropic
  return Object.keys(others).length === 0 ? rest : { ...rest, anthropic: others }
}

/** The options with the library's mark of lifetime `ttl` (5 minutes: no `ttl` sent). */
const marked = (options: Options, ttl: CacheBreakpoints.Ttl): Options => {
  const anthropic = options["anthropic"]
  return {
    ...options,
    anthropic: {
      ...(isObject(anthropic) ? anthropic : {}),
      cacheControl: ttl === "1h" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" }
    },
    [tagNamespace]: { cacheMark: true }
  }
}

const withOptions = <M extends Prompt.Message>(message: M, options: Options): M =>
  options === message.options ? message : { ...message, options }

/**
 * The prompt without the library's own marks: every other message is the same object.
 *
 * @since 0.3.0
 * @category marks
 */
export const strip = (prompt: Prompt.Prompt): Prompt.Prompt => {
  let changed = false
  const content = prompt.content.map((message) => {
    const options = unmarked(message.options)
    if (options === message.options) return message
    changed = true
    return withOptions(message, options)
  })
  return changed ? Prompt.fromMessages(content) : prompt
}

/**
 * The blocks of each message object made so far: a stable window sends the same message
 * objects call after call, and their blocks are a function of the message alone (a memo of a
 * pure function, held weakly by the immutable message, as the prompt's other memos are).
 */
const blocksMemo = new WeakMap<Prompt.Message, ReadonlyArray<{ readonly mark: CacheBreakpoints.Ttl | undefined }>>()

/** The blocks of a message as Anthropic is sent them, with the caller's marks. */
const blocksOfMessage = (message: Prompt.Message): ReadonlyArray<{ readonly mark: CacheBreakpoints.Ttl | undefined }> => {
  let blocks = blocksMemo.get(message)
  if (blocks === undefined) {
    blocks = makeBlocks(message)
    blocksMemo.set(message, blocks)
  }
  return blocks
}

const makeBlocks = (message: Prompt.Message): ReadonlyArray<{ readonly mark: CacheBreakpoints.Ttl | undefined }> => {
  const messageMark = callerMark(message.options)
  if (message.role === "system") return [{ mark: messageMark }]
  const parts: ReadonlyArray<Prompt.Part> = message.content
  const sent = parts.filter((part) => part.type !== "tool-approval-response" && !(part.type === "text" && part.text === ""))
  return sent.map((part, p) => ({ mark: callerMark(part.options) ?? (p === sent.length - 1 ? messageMark : undefined) }))
}

/**
 * What {@link mark} keeps of a caller's last prompt (design 124): its messages, their counts and
 * their blocks, which the next prompt's shared messages take as they are. One a caller (a
 * layer), so that conversations in turn only cost their own blocks.
 *
 * @since 0.3.0
 * @category marks
 */
export interface Memo {
  last:
    | {
      readonly content: ReadonlyArray<Prompt.Message>
      readonly tokens: ReadonlyArray<number>
      readonly toolTokens: number
      readonly blocks: ReadonlyArray<CacheBreakpoints.Block>
      readonly owner: ReadonlyArray<number>
      readonly messageEnds: ReadonlyArray<number>
    }
    | undefined
}

/**
 * An empty {@link Memo}.
 *
 * @since 0.3.0
 * @category marks
 */
export const makeMemo = (): Memo => ({ last: undefined })

/**
 * A prompt with a cache plan's marks: the library's earlier marks stripped, the window planned
 * by `planner` with the session's `cache` boundaries and counts, each mark placed on the
 * message it ends (`options.anthropic.cacheControl`), tagged as the library's. Returns the
 * prompt and the plan.
 *
 * @since 0.3.0
 * @category marks
 */
export const mark = (
  prompt: Prompt.Prompt,
  options: {
    readonly planner: CacheBreakpoints.Planner
    readonly cache: CachePlan.CachePlan
    readonly model?: string | undefined
    /** The blocks of the caller's last prompt, continued by this one ({@link makeMemo}). */
    readonly memo?: Memo | undefined
  }
): { readonly prompt: Prompt.Prompt; readonly plan: CacheBreakpoints.Plan } => {
  const { cache, memo } = options
  const clean = strip(prompt)
  const content = clean.content
  const tokens = cache.messageTokens
  // The blocks of the messages this prompt shares with the last one — the same objects at the
  // same positions, counted the same, after the same tool definitions — are the last one's.
  const last = memo?.last
  let shared = 0
  if (last !== undefined && last.toolTokens === cache.toolTokens) {
    const n = Math.min(content.length, last.content.length)
    while (shared < n && content[shared] === last.content[shared] && tokens[shared] === last.tokens[shared]) shared++
  }
  const from = shared === 0 ? undefined : last
  const kept = from === undefined ? 0 : from.messageEnds[shared - 1]!
  const blocks: Array<CacheBreakpoints.Block> = from === undefined ? [] : from.blocks.slice(0, kept)
  const owner: Array<number> = from === undefined ? [] : from.owner.slice(0, kept)
  const messageEnds: Array<number> = from === undefined ? [] : from.messageEnds.slice(0, shared)
  if (shared === 0 && cache.toolTokens > 0) {
    blocks.push({ tokens: cache.toolTokens })
    owner.push(-1)
  }
  for (let m = shared; m < content.length; m++) {
    const own = blocksOfMessage(content[m]!)
    own.forEach((block, b) => {
      blocks.push({ tokens: b === own.length - 1 ? tokens[m] ?? 0 : 0, mark: block.mark })
      owner.push(m)
    })
    messageEnds.push(blocks.length)
  }
  if (memo !== undefined) memo.last = { content, tokens, toolTokens: cache.toolTokens, blocks, owner, messageEnds }
  const inMessages = (n: number | undefined) => (n === undefined || n < 1 ? undefined : messageEnds[n - 1])
  const toolsAndSystem = cache.systemEnd > 0 ? messageEnds[cache.systemEnd - 1] : cache.toolTokens > 0 ? 1 : undefined
  const plan = options.planner.plan({
    blocks,
    boundaries: { toolsAndSystem, compacted: inMessages(cache.compacted), previousEnd: inMessages(cache.previousEnd) },
    model: options.model
  })
  if (plan.marks.length === 0) return { prompt: clean, plan }
  const out = [...content]
  for (const m of plan.marks) {
    const at = owner[m.index]
    const message = at === undefined || at < 0 ? undefined : out[at]
    if (at !== undefined && message !== undefined) out[at] = withOptions(message, marked(message.options, m.ttl))
  }
  return { prompt: Prompt.fromMessages(out), plan }
}
