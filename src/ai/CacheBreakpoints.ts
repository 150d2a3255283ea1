/**
 * CacheBreakpoints: where a window marks its prefix for the provider's prompt cache, so that
 * what the provider bills follows what `CacheModel` predicts (issue 26; the providers' rules
 * are in docs/providers.md).
 *
 * Anthropic caches a prefix only where a request carries a `cache_control` mark (at most four
 * per request; each looks back about 20 blocks for an earlier cached prefix; none below the
 * model's minimum prefix). A stable window knows better than any caller where its prefix is
 * stable and where the next cut will fall, and {@link plan} turns that knowledge into marks:
 *
 * - the **tail** (the write): the last block, so that the next call can read all of this one;
 * - the **read anchor**: the last block of the previous request when this window still starts
 *   with it and the tail cannot reach it by the lookback (a call that appended 20 blocks or
 *   more) — read exactly, however many blocks were appended;
 * - the end of **tools + system prompts**: long-lived (`stableTtl`, "1h" on request), read
 *   again after every compaction;
 * - the end of the **compacted prefix** (the frozen summary and the messages the last compaction
 *   kept): read again until the next compaction.
 *
 * In that order of priority when slots run short. The caller's own marks are kept and counted
 * against the four (the caller wins: a mark the library would move is theirs to move); a mark
 * is never placed where the prefix is shorter than the model's minimum; marks are given the
 * lifetimes the provider accepts (a 1-hour mark never after a 5-minute one). OpenAI and Gemini
 * cache without marks: their plans are empty, and OpenAI takes a `prompt_cache_key` instead
 * ({@link promptCacheKey}: a hash of the conversation key, which may hold user data).
 *
 * The service ({@link CacheBreakpoints}) has a layer per provider ({@link layerAnthropic},
 * {@link layerOpenAI}, {@link layerNone}); {@link plan} is the pure function behind the
 * Anthropic layer. Applying a plan to an AI SDK prompt is `adapters/AiSdkCacheMarks`.
 *
 * @since 0.3.0
 */
import { Context, Layer, Schema } from "effect"
import * as Hash from "./internal/hash.ts"

/**
 * A mark's lifetime: Anthropic's 5 minutes (the default) or 1 hour.
 *
 * @since 0.3.0
 * @category models
 */
export const Ttl = Schema.Literals(["5m", "1h"])

/**
 * @since 0.3.0
 * @category models
 */
export type Ttl = typeof Ttl.Type

/**
 * One block of a window, in the provider's prefix order (tools, system prompts, then the
 * messages' content blocks): its tokens, and the caller's own mark on it, if any.
 *
 * @since 0.3.0
 * @category models
 */
export interface Block {
  readonly tokens: number
  readonly mark?: Ttl | undefined
}

/**
 * The stable boundaries a session knows, each as a number of blocks from the start (a mark
 * goes on the block before the boundary); each is optional.
 *
 * - `toolsAndSystem` — the blocks of the tool definitions and system prompts;
 * - `compacted` — the blocks up to the end of the frozen summary / the kept prefix of the
 *   last compaction;
 * - `previousEnd` — the blocks of the previous request that this window still starts with
 *   (the previous request's end, when the window appended to it).
 *
 * @since 0.3.0
 * @category models
 */
export interface Boundaries {
  readonly toolsAndSystem?: number | undefined
  readonly compacted?: number | undefined
  readonly previousEnd?: number | undefined
}

/**
 * Why a mark is placed: the boundary it stands for.
 *
 * @since 0.3.0
 * @category models
 */
export const Reason = Schema.Literals(["tail", "read-anchor", "tools-and-system", "compacted"])

/**
 * @since 0.3.0
 * @category models
 */
export type Reason = typeof Reason.Type

/**
 * A mark to place: on block `index`, with lifetime `ttl`, for `reason`.
 *
 * @since 0.3.0
 * @category models
 */
export class Mark extends Schema.Class<Mark>("effect-cupel/ai/CacheBreakpoints/Mark")({
  index: Schema.Int,
  ttl: Ttl,
  reason: Reason
}) {}

/**
 * A boundary that got no mark, and why: `below-minimum` (its prefix is shorter than the
 * model's minimum), `caller-mark` (the caller's own mark is on that block), `same-block`
 * (another boundary's mark is on that block), `within-lookback` (a read anchor the tail's
 * lookback reaches), `no-slot` (the four marks were taken), `out-of-range` (not a block of the
 * window).
 *
 * @since 0.3.0
 * @category models
 */
export class Skipped extends Schema.Class<Skipped>("effect-cupel/ai/CacheBreakpoints/Skipped")({
  reason: Reason,
  index: Schema.Int,
  why: Schema.Literals(["below-minimum", "caller-mark", "same-block", "within-lookback", "no-slot", "out-of-range"])
}) {}

/**
 * A plan: the `marks` to place (in block order), the caller's own marks kept (`callerMarks`,
 * block indices), and the boundaries that got no mark (`skipped`).
 *
 * @since 0.3.0
 * @category models
 */
export class Plan extends Schema.Class<Plan>("effect-cupel/ai/CacheBreakpoints/Plan")({
  marks: Schema.Array(Mark),
  callerMarks: Schema.Array(Schema.Int),
  skipped: Schema.Array(Skipped)
}) {}

/**
 * The empty plan: no marks (OpenAI, Gemini, or nothing to mark).
 *
 * @since 0.3.0
 * @category constants
 */
export const empty: Plan = new Plan({ marks: [], callerMarks: [], skipped: [] })

/**
 * What {@link plan} is given: the window's `blocks`, its `boundaries`, the model's
 * `minimumPrefix` (tokens), and the provider's limits — `maxMarks` (default 4), `lookback`
 * (blocks a mark looks back, its own included; default 20) — and `stableTtl`, the lifetime of
 * the tools + system and compacted marks (default "5m"; the read anchor and the tail are always
 * asked for 5 minutes).
 *
 * @since 0.3.0
 * @category models
 */
export interface Input {
  readonly blocks: ReadonlyArray<Block>
  readonly boundaries: Boundaries
  readonly minimumPrefix: number
  readonly maxMarks?: number | undefined
  readonly lookback?: number | undefined
  readonly stableTtl?: Ttl | undefined
}

const priority: ReadonlyArray<Reason> = ["tail", "read-anchor", "tools-and-system", "compacted"]

/**
 * Plans a window's marks (see the module's header for the rules).
 *
 * @example
 * ```ts
 * import * as CacheBreakpoints from "effect-cupel/ai/CacheBreakpoints"
 *
 * // Two tools and a system prompt (3 blocks), then 30 message blocks; the previous request
 * // ended after block 8 — 25 blocks ago, beyond the tail's lookback.
 * const plan = CacheBreakpoints.plan({
 *   blocks: Array.from({ length: 33 }, () => ({ tokens: 200 })),
 *   boundaries: { toolsAndSystem: 3, previousEnd: 8 },
 *   minimumPrefix: 1024
 * })
 * // plan.marks: read-anchor on block 7, tail on block 32 (block 2 is below 1,024 tokens)
 * ```
 *
 * @since 0.3.0
 * @category planning
 */
export const plan = (input: Input): Plan => {
  const { blocks, boundaries } = input
  const maxMarks = input.maxMarks ?? 4
  const lookback = input.lookback ?? 20
  const stableTtl = input.stableTtl ?? "5m"
  // One pass, no array a block: a request of a thousand messages has a block or two each.
  const cumulative = new Float64Array(blocks.length)
  const callerMarks: Array<number> = []
  let total = 0
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!
    total += Number.isFinite(block.tokens) && block.tokens > 0 ? block.tokens : 0
    cumulative[i] = total
    if (block.mark !== undefined) callerMarks.push(i)
  }
  const skipped: Array<Skipped> = []
  const wanted = new Map<Reason, number>()
  if (blocks.length > 0) wanted.set("tail", blocks.length - 1)
  const boundary = (reason: Reason, n: number | undefined) => {
    if (n === undefined) return
    if (!Number.isInteger(n) || n < 1 || n > blocks.length) {
      skipped.push(new Skipped({ reason, index: Number.isInteger(n) ? n - 1 : -1, why: "out-of-range" }))
      return
    }
    wanted.set(reason, n - 1)
  }
  boundary("read-anchor", boundaries.previousEnd)
  boundary("tools-and-system", boundaries.toolsAndSystem)
  boundary("compacted", boundaries.compacted)

  const chosen: Array<{ index: number; reason: Reason }> = []
  let slots = Math.max(0, maxMarks - callerMarks.length)
  const tail = wanted.get("tail")
  // The tail carries a mark (planned, or the caller's): its lookback reaches the anchor.
  const marked = (index: number) => blocks[index]!.mark !== undefined || chosen.some((c) => c.index === index)
  for (const reason of priority) {
    const index = wanted.get(reason)
    if (index === undefined) continue
    const skip = (why: Skipped["why"]) => skipped.push(new Skipped({ reason, index, why }))
    if (cumulative[index]! < input.minimumPrefix) skip("below-minimum")
    else if (blocks[index]!.mark !== undefined) skip("caller-mark")
    else if (chosen.some((c) => c.index === index)) skip("same-block")
    else if (reason === "read-anchor" && tail !== undefined && tail - index < lookback && marked(tail)) {
      skip("within-lookback")
    } else if (slots === 0) skip("no-slot")
    else {
      chosen.push({ index, reason })
      slots--
    }
  }
  chosen.sort((a, b) => a.index - b.index)
  return new Plan({
    marks: lifetimes(chosen, blocks, stableTtl).map((m) => new Mark(m)),
    callerMarks,
    skipped
  })
}

/**
 * Lifetimes the provider accepts (A9: no 1-hour mark after a 5-minute one): a planned mark
 * before a 1-hour mark (the caller's or planned) lives an hour; a planned mark after the
 * caller's 5-minute mark lives 5 minutes.
 */
const lifetimes = (
  chosen: ReadonlyArray<{ index: number; reason: Reason }>,
  blocks: ReadonlyArray<Block>,
  stableTtl: Ttl
): Array<{ index: number; reason: Reason; ttl: Ttl }> => {
  const planned = chosen.map((c) => ({
    ...c,
    ttl: c.reason === "tools-and-system" || c.reason === "compacted" ? stableTtl : ("5m" satisfies Ttl)
  }))
  const callers: Array<{ index: number; caller: Ttl }> = []
  blocks.forEach((b, index) => {
    if (b.mark !== undefined) callers.push({ index, caller: b.mark })
  })
  const all = [...planned.map((p) => ({ index: p.index, planned: p })), ...callers].sort((a, b) => a.index - b.index)
  let later1h = false
  for (let i = all.length - 1; i >= 0; i--) {
    const m = all[i]!
    if ("caller" in m) later1h ||= m.caller === "1h"
    else if (later1h) m.planned.ttl = "1h"
    else later1h = m.planned.ttl === "1h"
  }
  let earlier5m = false
  for (const m of all) {
    if ("caller" in m) earlier5m ||= m.caller === "5m"
    else if (earlier5m) m.planned.ttl = "5m"
  }
  return planned
}

/**
 * The minimum cacheable prefix of Anthropic's models, by model-id prefix (the longest that
 * matches wins), from Anthropic's prompt caching documentation (docs/providers.md, A8):
 * 4,096 tokens for Claude Opus 4.6, Opus 4.5 and Haiku 4.5; 2,048 for Sonnet 4.6, Haiku 3.5 and
 * Haiku 3; 1,024 for Sonnet 4.5, Opus 4.1, Opus 4, Sonnet 4 and Sonnet 3.7. A model not listed
 * gets {@link anthropicDefaultMinimum}. The same figures as `CacheModel.Anthropic5m`'s notes.
 *
 * @since 0.3.0
 * @category constants
 */
export const anthropicMinimumPrefixes: ReadonlyArray<readonly [modelPrefix: string, tokens: number]> = [
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

/**
 * The minimum assumed for an Anthropic model not in {@link anthropicMinimumPrefixes}: 1,024, the
 * smallest of the documented ones (as `CacheModel.Anthropic5m`). A mark below a model's real
 * minimum costs a slot and nothing else; a mark left out where the prefix was long enough
 * costs the cache — so the guess errs low.
 *
 * @since 0.3.0
 * @category constants
 */
export const anthropicDefaultMinimum = 1024

/**
 * The minimum cacheable prefix of an Anthropic model id (`claude-sonnet-4-5-20250929` →
 * 1,024), from {@link anthropicMinimumPrefixes}.
 *
 * @since 0.3.0
 * @category planning
 */
export const anthropicMinimumPrefix = (model: string | undefined): number => {
  let best: readonly [string, number] | undefined
  for (const entry of anthropicMinimumPrefixes) {
    if (model?.startsWith(entry[0]) === true && (best === undefined || entry[0].length > best[0].length)) best = entry
  }
  return best?.[1] ?? anthropicDefaultMinimum
}

/**
 * The `prompt_cache_key` of a conversation: `cupel-` and a 128-bit hash of the conversation key
 * (two seeded 64-bit hashes), so that a key holding user data (an email, a ticket title) is not
 * sent as is; the same key always gives the same value.
 *
 * @since 0.3.0
 * @category planning
 */
export const promptCacheKey = (conversationKey: string): string =>
  `cupel-${Hash.hashString(conversationKey, 0x2545f491)}${Hash.hashString(conversationKey, 0x6c8e9cf5)}`

/**
 * A window as the service plans it: its blocks and boundaries, and the model id (for the
 * minimum prefix).
 *
 * @since 0.3.0
 * @category models
 */
export interface Window {
  readonly blocks: ReadonlyArray<Block>
  readonly boundaries: Boundaries
  readonly model?: string | undefined
}

/**
 * The provider's cache settings a request carries besides its marks: OpenAI's
 * `promptCacheKey` and `promptCacheRetention`.
 *
 * @since 0.3.0
 * @category models
 */
export interface RequestSettings {
  readonly promptCacheKey?: string | undefined
  readonly promptCacheRetention?: "in_memory" | "24h" | undefined
}

/**
 * A planner for one provider: `provider`, the marks of a window (`plan`) and the settings of a
 * conversation's requests (`settings`).
 *
 * @since 0.3.0
 * @category models
 */
export interface Planner {
  readonly provider: "anthropic" | "openai" | "none"
  readonly plan: (window: Window) => Plan
  readonly settings: (conversationKey: string | undefined) => RequestSettings
}

/**
 * The planner of the provider in use, as a service (a layer per provider).
 *
 * @since 0.3.0
 * @category services
 */
export class CacheBreakpoints extends Context.Service<CacheBreakpoints, Planner>()("effect-cupel/ai/CacheBreakpoints") {}

/**
 * Options of {@link layerAnthropic}: `ttl` — the lifetime of the tools + system and compacted
 * marks ("5m", the default, or "1h": written at 2× instead of 1.25×, read for an hour);
 * `minimumPrefix` — tokens, instead of the model's from {@link anthropicMinimumPrefixes}.
 *
 * @since 0.3.0
 * @category models
 */
export interface AnthropicOptions {
  readonly ttl?: Ttl | undefined
  readonly minimumPrefix?: number | undefined
}

/**
 * Anthropic: marks planned by {@link plan} (four at most, a lookback of 20 blocks).
 *
 * @since 0.3.0
 * @category layers
 */
export const layerAnthropic = (options: AnthropicOptions = {}): Layer.Layer<CacheBreakpoints> =>
  Layer.succeed(CacheBreakpoints, CacheBreakpoints.of(anthropic(options)))

/**
 * The planner of {@link layerAnthropic}, as a value (for a door that picks it per call).
 *
 * @since 0.3.0
 * @category constructors
 */
export const anthropic = (options: AnthropicOptions = {}): Planner => ({
  provider: "anthropic",
  plan: (window) =>
    plan({
      blocks: window.blocks,
      boundaries: window.boundaries,
      minimumPrefix: options.minimumPrefix ?? anthropicMinimumPrefix(window.model),
      stableTtl: options.ttl
    }),
  settings: () => ({})
})

/**
 * Options of {@link layerOpenAI}: `retention` — `prompt_cache_retention` ("in_memory", the
 * provider's default, or "24h"; left out when not given).
 *
 * @since 0.3.0
 * @category models
 */
export interface OpenAIOptions {
  readonly retention?: "in_memory" | "24h" | undefined
}

/**
 * OpenAI: no marks (its caching is automatic); every request of a conversation carries the same
 * `prompt_cache_key` ({@link promptCacheKey}), so that they are routed to the same cache.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerOpenAI = (options: OpenAIOptions = {}): Layer.Layer<CacheBreakpoints> =>
  Layer.succeed(CacheBreakpoints, CacheBreakpoints.of(openai(options)))

/**
 * The planner of {@link layerOpenAI}, as a value.
 *
 * @since 0.3.0
 * @category constructors
 */
export const openai = (options: OpenAIOptions = {}): Planner => ({
  provider: "openai",
  plan: () => empty,
  settings: (key) => ({
    ...(key === undefined ? {} : { promptCacheKey: promptCacheKey(key) }),
    ...(options.retention === undefined ? {} : { promptCacheRetention: options.retention })
  })
})

/**
 * No marks and no settings: Gemini (whose implicit caching needs nothing), or a caller who
 * places marks themselves.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerNone: Layer.Layer<CacheBreakpoints> = Layer.succeed(CacheBreakpoints, CacheBreakpoints.of({
  provider: "none",
  plan: () => empty,
  settings: () => ({})
}))

/**
 * The planner of {@link layerNone}, as a value.
 *
 * @since 0.3.0
 * @category constructors
 */
export const none: Planner = { provider: "none", plan: () => empty, settings: () => ({}) }
