/**
 * CacheMiss: why a call read less from the provider's prompt cache than its previous request
 * (docs/ai.md, "Why a call missed", rules M1–M4; issue 26, item 6).
 *
 * A provider serves a request's prefix from its cache only while that prefix is the previous
 * request's, byte for byte, in time, long enough and (Anthropic) within reach of a cache mark.
 * Projects in the field find most of their cache misses after a prefix break they could not
 * see. This module names the break: given a {@link Descriptor} of the previous request and of
 * this one (the tool definitions by name and field, the system prompts, each message's hash and
 * blocks, the time), the figures of what was read, and the provider's rule, {@link missOf} says
 * whether the call missed and why ({@link Cause}).
 *
 * It is pure: the session core describes each request once (`CacheDescriptors`) and calls it
 * when the call is settled.
 *
 * @since 0.3.0
 */
import { Schema } from "effect"

/**
 * One tool definition as sent: its name, and a hash of each of its fields (`flags`: the
 * provider options a door sees, the library's own cache marks left out).
 *
 * @since 0.3.0
 * @category models
 */
export interface Tool {
  readonly name: string
  readonly description: string
  readonly parameters: string
  readonly flags: string
}

/**
 * One message of a request other than a system prompt: a hash of its role and content, and its
 * blocks (one per content part, as Anthropic counts them for its lookback).
 *
 * @since 0.3.0
 * @category models
 */
export interface Message {
  readonly hash: string
  readonly blocks: number
}

/**
 * A request as the cache sees it, in the provider's prefix order: the tool definitions, the
 * system prompts (one hash, and their blocks), the other messages; and when it was sent
 * (milliseconds, from Effect's `Clock`).
 *
 * @since 0.3.0
 * @category models
 */
export interface Descriptor {
  readonly at: number
  readonly tools: ReadonlyArray<Tool>
  readonly system: string
  readonly systemBlocks: number
  readonly messages: ReadonlyArray<Message>
}

/**
 * The fields of a tool definition a change is named by: `added` and `removed` when the
 * requests' tools differ in number at that place, `order` when the same tools come in another
 * order.
 *
 * @since 0.3.0
 * @category models
 */
export const ToolField = Schema.Literals(["name", "description", "parameters", "flags", "order", "added", "removed"])

/**
 * @since 0.3.0
 * @category models
 */
export type ToolField = typeof ToolField.Type

/**
 * Why a call missed (rule M3), with the figures that show it.
 *
 * @since 0.3.0
 * @category models
 */
export const Cause = Schema.Union([
  Schema.TaggedStruct("expired", { seconds: Schema.Number, ttlSeconds: Schema.Number }),
  Schema.TaggedStruct("tools-changed", { tool: Schema.String, field: ToolField }),
  Schema.TaggedStruct("system-changed", {}),
  Schema.TaggedStruct("compaction", { message: Schema.Int }),
  Schema.TaggedStruct("message-changed", { message: Schema.Int }),
  Schema.TaggedStruct("below-minimum", { prefixTokens: Schema.Number, minimumPrefix: Schema.Number }),
  Schema.TaggedStruct("lookback-exceeded", { appendedBlocks: Schema.Int, lookback: Schema.Int }),
  Schema.TaggedStruct("not-reported", { previousCacheWrite: Schema.optionalKey(Schema.Number) })
])

/**
 * @since 0.3.0
 * @category models
 */
export type Cause = typeof Cause.Type

/**
 * The causes' names, in rule M3's order.
 *
 * @since 0.3.0
 * @category constants
 */
export const causes: ReadonlyArray<Cause["_tag"]> = [
  "expired",
  "tools-changed",
  "system-changed",
  "compaction",
  "message-changed",
  "below-minimum",
  "lookback-exceeded",
  "not-reported"
]

/**
 * A call that missed: why, the tokens read from the cache and the previous request's, and
 * whether those are what the provider billed or what the `cacheRule` predicted (rule M1).
 *
 * @since 0.3.0
 * @category models
 */
export const Miss = Schema.Struct({
  cause: Cause,
  cachedTokens: Schema.Number,
  previousTokens: Schema.Number,
  source: Schema.Literals(["billed", "predicted"])
})

/**
 * @since 0.3.0
 * @category models
 */
export type Miss = typeof Miss.Type

/**
 * The provider's rule, as far as a miss needs it: its lifetime, its granularity, whether it
 * caches only where a request ended (`request-end`: Anthropic), the model's minimum prefix, and
 * the blocks a mark looks back (Anthropic's 20).
 *
 * @since 0.3.0
 * @category models
 */
export interface Rule {
  readonly ttlSeconds: number
  readonly granularity: number
  readonly breakpoints: "request-end" | "any"
  readonly minimumPrefix: number
  readonly lookback: number
}

/**
 * What {@link missOf} is given: the two requests, the tokens read from the cache and the
 * previous request's (`source`: billed or predicted, rule M1), the previous call's billed cache
 * write (when it reported one), whether the call compacted its window, and the rule.
 *
 * @since 0.3.0
 * @category models
 */
export interface Input {
  readonly previous: Descriptor
  readonly current: Descriptor
  readonly cachedTokens: number
  readonly previousTokens: number
  readonly source: Miss["source"]
  readonly previousCacheWrite?: number | undefined
  readonly compaction: boolean
  readonly rule: Rule
}

/**
 * Whether the call missed (rule M1) and why (rule M3); `undefined` when it read all of the
 * previous request.
 *
 * @example
 * ```ts
 * import * as CacheMiss from "effect-cupel/ai/CacheMiss"
 *
 * const request = (at: number, system: string): CacheMiss.Descriptor => ({
 *   at, tools: [], system, systemBlocks: 1, messages: [{ hash: "a", blocks: 1 }]
 * })
 * const miss = CacheMiss.missOf({
 *   previous: request(0, "s1"),
 *   current: request(10_000, "s2"),
 *   cachedTokens: 0,
 *   previousTokens: 2_000,
 *   source: "billed",
 *   compaction: false,
 *   rule: { ttlSeconds: 300, granularity: 1, breakpoints: "request-end", minimumPrefix: 1024, lookback: 20 }
 * })
 * // miss?.cause: { _tag: "system-changed" }
 * ```
 *
 * @since 0.3.0
 * @category diagnosis
 */
export const missOf = (input: Input): Miss | undefined => {
  const granularity = Math.max(1, input.rule.granularity)
  if (!(input.previousTokens > 0) || input.cachedTokens + granularity > input.previousTokens) return undefined
  return {
    cause: causeOf(input),
    cachedTokens: input.cachedTokens,
    previousTokens: input.previousTokens,
    source: input.source
  }
}

/** The first cause of rule M3 that holds. */
const causeOf = (input: Input): Cause => {
  const { previous, current, rule } = input
  const seconds = Math.max(0, current.at - previous.at) / 1000
  if (seconds > rule.ttlSeconds) return { _tag: "expired", seconds, ttlSeconds: rule.ttlSeconds }
  const tools = toolChange(previous.tools, current.tools)
  if (tools !== undefined) return { _tag: "tools-changed", ...tools }
  if (previous.system !== current.system || previous.systemBlocks !== current.systemBlocks) return { _tag: "system-changed" }
  const n = previous.messages.length
  for (let i = 0; i < n; i++) {
    const was = previous.messages[i]!
    const now = current.messages[i]
    if (now === undefined || now.hash !== was.hash || now.blocks !== was.blocks) {
      return input.compaction ? { _tag: "compaction", message: i } : { _tag: "message-changed", message: i }
    }
  }
  if (input.previousTokens < rule.minimumPrefix) {
    return { _tag: "below-minimum", prefixTokens: input.previousTokens, minimumPrefix: rule.minimumPrefix }
  }
  if (rule.breakpoints === "request-end") {
    let appendedBlocks = 0
    for (let i = n; i < current.messages.length; i++) appendedBlocks += current.messages[i]!.blocks
    if (appendedBlocks >= rule.lookback) return { _tag: "lookback-exceeded", appendedBlocks, lookback: rule.lookback }
  }
  return input.previousCacheWrite === undefined
    ? { _tag: "not-reported" }
    : { _tag: "not-reported", previousCacheWrite: input.previousCacheWrite }
}

/** The first tool definition that differs, and the field; `undefined` when the tools are the same. */
const toolChange = (
  previous: ReadonlyArray<Tool>,
  current: ReadonlyArray<Tool>
): { readonly tool: string; readonly field: ToolField } | undefined => {
  const n = Math.max(previous.length, current.length)
  for (let i = 0; i < n; i++) {
    const was = previous[i]
    const now = current[i]
    if (was === undefined) return { tool: now!.name, field: "added" }
    if (now === undefined) return { tool: was.name, field: "removed" }
    if (was.name !== now.name) {
      const names = (tools: ReadonlyArray<Tool>) => tools.map((t) => t.name).sort().join("\n")
      // The same tools in another order: the first one out of place.
      if (previous.length === current.length && names(previous) === names(current)) return { tool: was.name, field: "order" }
      const stillThere = current.some((t) => t.name === was.name)
      const wasThere = previous.some((t) => t.name === now.name)
      if (!wasThere && stillThere) return { tool: now.name, field: "added" }
      if (wasThere && !stillThere) return { tool: was.name, field: "removed" }
      return { tool: was.name, field: "name" }
    }
    if (was.description !== now.description) return { tool: now.name, field: "description" }
    if (was.parameters !== now.parameters) return { tool: now.name, field: "parameters" }
    if (was.flags !== now.flags) return { tool: now.name, field: "flags" }
  }
  return undefined
}

/**
 * A cause in words, for logs and `cupel view`.
 *
 * @since 0.3.0
 * @category rendering
 */
export const describe = (cause: Cause): string => {
  switch (cause._tag) {
    case "expired":
      return `the cache expired: ${cause.seconds.toFixed(0)} s since the previous call, over the ${cause.ttlSeconds} s lifetime`
    case "tools-changed":
      return cause.field === "added" || cause.field === "removed" || cause.field === "order"
        ? `the tool definitions changed: "${cause.tool}" ${cause.field === "order" ? "moved" : cause.field}`
        : `the tool definitions changed: the ${cause.field} of "${cause.tool}"`
    case "system-changed":
      return "the system prompt changed"
    case "compaction":
      return `a planned compaction: the window changed from message ${cause.message}`
    case "message-changed":
      return `an earlier message changed: message ${cause.message}`
    case "below-minimum":
      return `the prefix (${cause.prefixTokens} tokens) is below the model's minimum of ${cause.minimumPrefix}`
    case "lookback-exceeded":
      return `${cause.appendedBlocks} blocks appended, beyond the ${cause.lookback}-block lookback, and no mark anchored the previous request`
    case "not-reported":
      return `the provider did not report the previous request read` +
        (cause.previousCacheWrite === 0 ? " (it wrote nothing to its cache: no cache mark?)" : "")
  }
}
