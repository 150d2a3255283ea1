/**
 * AiSdkCacheMarks: a cache plan (`CacheBreakpoints`) on an AI SDK provider call — Anthropic's
 * `cache_control` marks as `providerOptions.anthropic.cacheControl` on the right tool, system
 * message or content part, and OpenAI's `promptCacheKey` / `promptCacheRetention` in the call's
 * `providerOptions.openai` (issue 26; what each provider does with them: docs/providers.md).
 *
 * The blocks a plan counts are the ones `@ai-sdk/anthropic` sends, in its order: each function
 * or provider tool, each system message, then each content part of each message — except the
 * parts it does not send (a tool approval response, an empty assistant text).
 *
 * Marks never pile up: the library tags its own (`providerOptions["effect-cupel"].cacheMark`)
 * and {@link strip} removes them before a new plan is made, so a prompt carried from step to
 * step (`prepareStep`, ai 7) holds only the current step's. The caller's own marks — on a tool,
 * a message, a part, or the call (automatic caching) — are kept and counted against the four;
 * a caller's OpenAI `promptCacheKey` or `promptCacheRetention` is kept too. The caller wins.
 *
 * Only types come from `ai` (through `AiSdkPrompt`): this module loads nothing of it.
 *
 * @since 0.3.0
 */
import type * as CacheBreakpoints from "../ai/CacheBreakpoints.ts"
import type { CallOptions, ProviderMessage, ProviderPrompt, toModelMessage } from "./AiSdkPrompt.ts"

type ProviderOptions = NonNullable<ProviderMessage["providerOptions"]>
type Tools = NonNullable<CallOptions["tools"]>

/**
 * The parts of a provider call that caching reads and writes: its prompt, its tools and its
 * call-level provider options (a middleware's `params` has them all).
 *
 * @since 0.3.0
 * @category models
 */
export interface Call {
  readonly prompt: ProviderPrompt
  readonly tools?: Tools | undefined
  readonly providerOptions?: ProviderOptions | undefined
}

/**
 * The namespace of the library's own tag in `providerOptions`. Providers ignore namespaces not
 * their own.
 *
 * @since 0.3.0
 * @category constants
 */
export const tagNamespace = "effect-cupel"

/**
 * Where a block is in a call: a tool definition, a system message, or a content part.
 *
 * @since 0.3.0
 * @category models
 */
export type Location =
  | { readonly _tag: "tool"; readonly tool: number }
  | { readonly _tag: "system"; readonly message: number }
  | { readonly _tag: "part"; readonly message: number; readonly part: number }

/**
 * A call's blocks as the planner sees them (`blocks`, with the caller's marks), where each one is
 * (`locations`), the blocks through each message (`messageEnds[i]`: tools included, up to and
 * including message `i`), and the blocks of the tools and the leading system messages
 * (`toolsAndSystem`, undefined when there are none).
 *
 * @since 0.3.0
 * @category models
 */
export interface Blocks {
  readonly blocks: ReadonlyArray<CacheBreakpoints.Block>
  readonly locations: ReadonlyArray<Location>
  readonly messageEnds: ReadonlyArray<number>
  readonly toolsAndSystem: number | undefined
}

const isObject = (value: unknown): value is { readonly [key: string]: unknown } =>
  value !== null && typeof value === "object" && !Array.isArray(value)

/** The mark in provider options, as `@ai-sdk/anthropic` reads it (`cacheControl` or `cache_control`). */
const markIn = (options: ProviderOptions | undefined): CacheBreakpoints.Ttl | undefined => {
  const anthropic = options?.["anthropic"]
  const value = anthropic?.["cacheControl"] ?? anthropic?.["cache_control"]
  if (!isObject(value)) return undefined
  return value["ttl"] === "1h" ? "1h" : "5m"
}

const isOwn = (options: ProviderOptions | undefined): boolean => {
  const tag = options?.[tagNamespace]
  return tag !== undefined && tag["cacheMark"] === true
}

/** The caller's mark: a mark that is not the library's own. */
const callerMark = (options: ProviderOptions | undefined): CacheBreakpoints.Ttl | undefined =>
  isOwn(options) ? undefined : markIn(options)

type Part = Exclude<ProviderMessage, { role: "system" }>["content"][number]

/** Whether `@ai-sdk/anthropic` sends the part as a block of its own. */
const isSent = (part: Part): boolean =>
  part.type !== "tool-approval-response" && !(part.type === "text" && part.text.length === 0)

/** A part's text for counting: the part without its provider options. */
const textOf = (value: object): string => {
  const { providerOptions: _, ...rest } = { providerOptions: undefined, ...value }
  return JSON.stringify(rest)
}

/**
 * The blocks of a call, as `@ai-sdk/anthropic` sends them, each counted with `count` (over its
 * JSON without provider options), with the caller's marks: a tool's, a system message's, a
 * part's, a message's (on its last part, as the client places it), the call's own (on the last
 * block). The library's own marks are not the caller's.
 *
 * @since 0.3.0
 * @category blocks
 */
export const blocksOf = (call: Call, count: (text: string) => number): Blocks => locate(call, count)

/**
 * {@link blocksOf}, or with no `count` the blocks at 0 tokens without their texts: a call whose
 * counts the session knows (`withTokens`) does not write every part as JSON to count nothing.
 */
const locate = (call: Call, count: ((text: string) => number) | undefined): Blocks => {
  const blocks: Array<CacheBreakpoints.Block> = []
  const locations: Array<Location> = []
  const messageEnds: Array<number> = []
  // Plain loops, and a part's text made only when it is counted: a closure a part was 110 KB
  // a call at 1,000 messages (design item 140).
  const push = (location: Location, tokens: number, mark: CacheBreakpoints.Ttl | undefined) => {
    blocks.push({ tokens, mark })
    locations.push(location)
  }
  const tools = call.tools ?? []
  for (let i = 0; i < tools.length; i++) {
    const tool = tools[i]!
    push({ _tag: "tool", tool: i }, count === undefined ? 0 : count(textOf(tool)), tool.type === "function" ? callerMark(tool.providerOptions) : undefined)
  }
  let toolsAndSystem: number | undefined = blocks.length > 0 ? blocks.length : undefined
  let leading = true
  const prompt = call.prompt
  for (let m = 0; m < prompt.length; m++) {
    const message = prompt[m]!
    if (message.role === "system") {
      push({ _tag: "system", message: m }, count === undefined ? 0 : count(message.content), callerMark(message.providerOptions))
      if (leading) toolsAndSystem = blocks.length
    } else {
      leading = false
      const messageMark = callerMark(message.providerOptions)
      const parts: ReadonlyArray<Part> = message.content
      const last = parts.length - 1
      for (let p = 0; p < parts.length; p++) {
        const part = parts[p]!
        if (!isSent(part)) continue
        push(
          { _tag: "part", message: m, part: p },
          count === undefined ? 0 : count(textOf(part)),
          callerMark(part.providerOptions) ?? (p === last ? messageMark : undefined)
        )
      }
    }
    messageEnds.push(blocks.length)
  }
  const callMark = callerMark(call.providerOptions)
  const end = blocks.at(-1)
  if (callMark !== undefined && end !== undefined && end.mark === undefined) blocks[blocks.length - 1] = { ...end, mark: callMark }
  return { blocks, locations, messageEnds, toolsAndSystem }
}

/** The options without the library's own mark (the same object when there is none). */
const unmarked = (options: ProviderOptions | undefined): ProviderOptions | undefined => {
  if (options === undefined || !isOwn(options)) return options
  const { [tagNamespace]: _, anthropic, ...rest } = options
  if (anthropic === undefined) return Object.keys(rest).length === 0 ? undefined : rest
  const { cacheControl: __, cache_control: ___, ...others } = anthropic
  const out: ProviderOptions = Object.keys(others).length === 0 ? rest : { ...rest, anthropic: others }
  return Object.keys(out).length === 0 ? undefined : out
}

/** The options with the library's mark of lifetime `ttl` (5 minutes: no `ttl` sent). */
const marked = (options: ProviderOptions | undefined, ttl: CacheBreakpoints.Ttl): ProviderOptions => ({
  ...options,
  anthropic: { ...options?.["anthropic"], cacheControl: ttl === "1h" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" } },
  [tagNamespace]: { cacheMark: true }
})

/** `value` with `providerOptions` replaced (left out when undefined); the same object when unchanged. */
const withOptions = <A extends { providerOptions?: ProviderOptions | undefined }>(
  value: A,
  options: ProviderOptions | undefined
): A => {
  if (options === value.providerOptions) return value
  if (options !== undefined) return { ...value, providerOptions: options }
  const copy = { ...value }
  delete copy.providerOptions
  return copy
}

type Conversation = Exclude<ProviderMessage, { role: "system" }>

/** The message with each part mapped by `f`, which keeps a part's own type (only its options change). */
const mapParts = <M extends Conversation>(
  message: M,
  f: <P extends { providerOptions?: ProviderOptions | undefined }>(part: P, index: number) => P
): M => {
  switch (message.role) {
    case "user":
      return { ...message, content: message.content.map(f) }
    case "assistant":
      return { ...message, content: message.content.map(f) }
    case "tool":
      return { ...message, content: message.content.map(f) }
  }
  return message
}

/** A part without the library's own mark (the same part when it has none). */
const partWithoutMark = <P extends { providerOptions?: ProviderOptions | undefined }>(part: P): P => {
  const o = unmarked(part.providerOptions)
  return o === part.providerOptions ? part : withOptions(part, o)
}

/**
 * The prompt without the library's own marks, from an earlier step or call: every other object
 * is the same, and so are the messages that carried none. The caller's marks stay.
 *
 * @since 0.3.0
 * @category marks
 */
export const strip = (prompt: ProviderPrompt): ProviderPrompt => {
  let changed = false
  const out = prompt.map((message): ProviderMessage => {
    const options = unmarked(message.providerOptions)
    if (message.role === "system") {
      if (options === message.providerOptions) return message
      changed = true
      return withOptions(message, options)
    }
    // A message copied only when it or one of its parts carries the library's mark (design
    // item 140): the copy of every message was 66 KB a call at 1,000 messages.
    const parts: ReadonlyArray<{ readonly providerOptions?: ProviderOptions | undefined }> = message.content
    let marked = false
    for (let p = 0; p < parts.length && !marked; p++) {
      const o = parts[p]!.providerOptions
      marked = unmarked(o) !== o
    }
    if (!marked && options === message.providerOptions) return message
    changed = true
    return withOptions(mapParts(message, partWithoutMark), options)
  })
  return changed ? out : prompt
}

/**
 * The tools without the library's own marks (the same array when none had one).
 *
 * @since 0.3.0
 * @category marks
 */
export const stripTools = (tools: Tools): Tools => {
  let changed = false
  const out = tools.map((tool) => {
    if (tool.type !== "function") return tool
    const options = unmarked(tool.providerOptions)
    if (options === tool.providerOptions) return tool
    changed = true
    return withOptions(tool, options)
  })
  return changed ? out : tools
}

/**
 * Places a plan's marks on a call whose blocks are `located` (from {@link blocksOf} on the same
 * call): each on its tool, system message or part, tagged as the library's. A mark on a provider
 * tool (which cannot carry one) is left out and returned in `unplaced`.
 *
 * @since 0.3.0
 * @category marks
 */
export const apply = (
  call: Call,
  located: Blocks,
  plan: CacheBreakpoints.Plan
): { readonly prompt: ProviderPrompt; readonly tools: Tools | undefined; readonly unplaced: ReadonlyArray<CacheBreakpoints.Mark> } => {
  if (plan.marks.length === 0) return { prompt: call.prompt, tools: call.tools, unplaced: [] }
  const prompt = [...call.prompt]
  const tools = call.tools === undefined ? undefined : [...call.tools]
  const unplaced: Array<CacheBreakpoints.Mark> = []
  for (const mark of plan.marks) {
    const location = located.locations[mark.index]
    if (location === undefined) {
      unplaced.push(mark)
      continue
    }
    switch (location._tag) {
      case "tool": {
        const tool = tools?.[location.tool]
        if (tools === undefined || tool === undefined || tool.type !== "function") unplaced.push(mark)
        else tools[location.tool] = withOptions(tool, marked(tool.providerOptions, mark.ttl))
        break
      }
      case "system": {
        const message = prompt[location.message]
        if (message?.role === "system") prompt[location.message] = withOptions(message, marked(message.providerOptions, mark.ttl))
        else unplaced.push(mark)
        break
      }
      case "part": {
        const message = prompt[location.message]
        if (message === undefined || message.role === "system") {
          unplaced.push(mark)
          break
        }
        prompt[location.message] = mapParts(
          message,
          (part, p) => (p === location.part ? withOptions(part, marked(part.providerOptions, mark.ttl)) : part)
        )
        break
      }
    }
  }
  return { prompt, tools, unplaced }
}

/**
 * What {@link markCall} needs besides the call: the provider's `planner`
 * (`CacheBreakpoints.Planner`, e.g. the service of `CacheBreakpoints.layerAnthropic()`), a token
 * `count` of a text, the `conversationKey`, the `model` id, and the session's boundaries in
 * prompt messages: `compacted` (the messages up to the end of the frozen summary / kept prefix of
 * the last compaction) and `previousEnd` (the messages of the previous request this prompt still
 * starts with).
 *
 * @since 0.3.0
 * @category models
 */
export interface MarkOptions {
  readonly planner: CacheBreakpoints.Planner
  readonly count: (text: string) => number
  /**
   * The tokens the session counted (since 0.3.0): of the tool definitions, and of each message
   * of the prompt. When given, a message's tokens go on its last block (the only one a
   * boundary's mark goes on) and the tools' are shared between them, instead of `count`ing
   * each block's text.
   */
  readonly tokens?: { readonly tools: number; readonly messages: ReadonlyArray<number> } | undefined
  readonly conversationKey?: string | undefined
  readonly model?: string | undefined
  readonly compacted?: number | undefined
  readonly previousEnd?: number | undefined
}

/**
 * Blocks with the session's counts: each message's tokens on its last block, the tools' shared
 * between the tool blocks.
 */
const withTokens = (
  located: Blocks,
  tokens: { readonly tools: number; readonly messages: ReadonlyArray<number> }
): Blocks => {
  const tools = located.locations.filter((l) => l._tag === "tool").length
  const lastOf = new Map<number, number>()
  located.locations.forEach((l, i) => {
    if (l._tag !== "tool") lastOf.set(l.message, i)
  })
  const blocks = located.blocks.map((block, i): CacheBreakpoints.Block => {
    const l = located.locations[i]!
    const n = l._tag === "tool" ? tokens.tools / tools : lastOf.get(l.message) === i ? tokens.messages[l.message] ?? 0 : 0
    return { ...block, tokens: n }
  })
  return { ...located, blocks }
}

/**
 * A call with the library's cache marks and settings: the library's earlier marks stripped, the
 * window planned (`plan`), the marks placed, and OpenAI's `promptCacheKey` /
 * `promptCacheRetention` added to `providerOptions.openai` where the caller set none. The
 * prompt's messages that carry no mark are the call's own objects.
 *
 * @since 0.3.0
 * @category marks
 */
export const markCall = <C extends Call>(
  call: C,
  options: MarkOptions
): { readonly call: C; readonly plan: CacheBreakpoints.Plan; readonly unplaced: ReadonlyArray<CacheBreakpoints.Mark> } => {
  const clean = {
    prompt: strip(call.prompt),
    tools: call.tools === undefined ? undefined : stripTools(call.tools),
    providerOptions: call.providerOptions
  }
  const located = options.tokens === undefined
    ? blocksOf(clean, options.count)
    : withTokens(locate(clean, undefined), options.tokens)
  const inMessages = (n: number | undefined) => (n === undefined || n < 1 ? undefined : located.messageEnds[n - 1])
  const plan = options.planner.plan({
    blocks: located.blocks,
    boundaries: {
      toolsAndSystem: located.toolsAndSystem,
      compacted: inMessages(options.compacted),
      previousEnd: inMessages(options.previousEnd)
    },
    model: options.model
  })
  const placed = apply(clean, located, plan)
  const settings = options.planner.settings(options.conversationKey)
  const openai = call.providerOptions?.["openai"]
  const extra = {
    ...(settings.promptCacheKey === undefined || openai?.["promptCacheKey"] !== undefined ? {} : { promptCacheKey: settings.promptCacheKey }),
    ...(settings.promptCacheRetention === undefined || openai?.["promptCacheRetention"] !== undefined
      ? {}
      : { promptCacheRetention: settings.promptCacheRetention })
  }
  const providerOptions = Object.keys(extra).length === 0
    ? call.providerOptions
    : { ...call.providerOptions, openai: { ...openai, ...extra } }
  return {
    call: {
      ...call,
      prompt: placed.prompt,
      ...(placed.tools === undefined ? {} : { tools: placed.tools }),
      ...(providerOptions === undefined ? {} : { providerOptions })
    },
    plan,
    unplaced: placed.unplaced
  }
}

/**
 * The `ModelMessage`s of a `prepareStep` step (the `ai` package's own message type, which the
 * step returns), with what caching reads of them: each is a message, with a string or a list
 * of parts, and provider options.
 */
type StepMessage = Parameters<typeof toModelMessage>[0]

/**
 * Pushes the blocks of a step message as `@ai-sdk/anthropic` sends them (a string is one text
 * block), each with its caller's mark, onto `blocks`, each owned by message `m`; the message's
 * tokens (`tokens`, or its content's count) on its last block. No array a message: a step of a
 * thousand messages plans its marks in one pass.
 */
const pushStepBlocks = (
  message: StepMessage,
  m: number,
  tokens: number | undefined,
  count: ((text: string) => number) | undefined,
  blocks: Array<CacheBreakpoints.Block>,
  owner: Array<number>
): void => {
  const messageMark = callerMark(message.providerOptions)
  const whole = () => tokens ?? count?.(JSON.stringify(message.content)) ?? 0
  if (typeof message.content === "string") {
    blocks.push({ tokens: whole(), mark: messageMark })
    owner.push(m)
    return
  }
  const parts: ReadonlyArray<{ readonly type: string; readonly text?: unknown; readonly providerOptions?: ProviderOptions | undefined }> =
    message.content
  const sent = (part: (typeof parts)[number]) => part.type !== "tool-approval-response" && !(part.type === "text" && part.text === "")
  let last = -1
  for (let p = parts.length - 1; p >= 0 && last < 0; p--) if (sent(parts[p]!)) last = p
  for (let p = 0; p <= last; p++) {
    const part = parts[p]!
    if (!sent(part)) continue
    const mark = callerMark(part.providerOptions) ?? (p === last ? messageMark : undefined)
    blocks.push({ tokens: p === last ? whole() : 0, mark })
    owner.push(m)
  }
}

/**
 * `prepareStep`'s messages without the library's own marks (from an earlier step: the step's
 * messages carry forward in ai 7): every other message is the same object. The caller's marks
 * stay.
 *
 * @since 0.3.0
 * @category marks
 */
export const stripModelMessages = <M extends StepMessage>(messages: ReadonlyArray<M>): Array<M> => {
  const out: Array<M> = new Array(messages.length)
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!
    const options = unmarked(message.providerOptions)
    const stripped = options === message.providerOptions ? message : withOptions(message, options)
    out[i] = withParts(stripped, partUnmarked)
  }
  return out
}

type StepPart = { readonly type: string; readonly providerOptions?: ProviderOptions | undefined }

/** A step message with each part mapped by `f` (only its options change); the same object when none changed. */
const withParts = <M extends StepMessage>(message: M, f: <P extends StepPart>(part: P, index: number) => P): M => {
  if (typeof message.content === "string") return message
  // Most messages carry no mark: they are found unchanged without a copy (design item 106).
  // The parts before the first that changes are known unchanged: `f` is not asked again for them.
  // A plain loop, not `findIndex` with a closure: this runs for every message of every step,
  // and a closure a message was a tenth of what a step allocated (design item 137).
  const parts: ReadonlyArray<StepPart> = message.content
  let first = -1
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!
    if (f(part, i) !== part) {
      first = i
      break
    }
  }
  return first < 0 ? message : copyWithParts(message, f, first)
}

/**
 * {@link withParts}' copy, from the first part that changes. A function of its own: the closure
 * `g` captures `first` and `f`, and a function that makes a closure allocates its context at
 * every call, whether it makes the closure or not.
 */
const copyWithParts = <M extends StepMessage>(
  message: M,
  f: <P extends StepPart>(part: P, index: number) => P,
  first: number
): M => {
  const g = <P extends StepPart>(part: P, i: number): P => i < first ? part : f(part, i)
  const next: StepMessage = message.role === "system"
    ? message
    : message.role === "user"
    ? { ...message, content: typeof message.content === "string" ? message.content : message.content.map(g) }
    : message.role === "assistant"
    ? { ...message, content: typeof message.content === "string" ? message.content : message.content.map(g) }
    : { ...message, content: message.content.map(g) }
  return next.role === message.role ? { ...message, content: next.content } : message
}

/** A part without the library's mark, or with one of lifetime `ttl`. */
const partUnmarked = <P extends StepPart>(part: P): P => withOptions(part, unmarked(part.providerOptions))
const partMarked = <P extends StepPart>(part: P, ttl: CacheBreakpoints.Ttl): P => withOptions(part, marked(part.providerOptions, ttl))

/**
 * What {@link markModelMessages} needs: {@link MarkOptions}, with `tokens.tools` the tokens of
 * the step's tool definitions, which `prepareStep` does not see (its `toolTokens` option): they
 * come before the system prompt in the prefix.
 *
 * @since 0.3.0
 * @category models
 */
export type StepMarkOptions = Omit<MarkOptions, "count"> & {
  readonly count?: ((text: string) => number) | undefined
  /**
   * The messages carry none of the library's marks (they are {@link stripModelMessages}'s, or
   * made from its): they are not read for them again (`prepareStep` strips the step's messages
   * before it fits them).
   */
  readonly stripped?: boolean | undefined
}

/**
 * A step's messages (the system prompt's first, as `prepareStep` is given its instructions)
 * with the library's cache marks: its earlier marks stripped, the window planned, and each
 * mark placed at the end of its message — every boundary the session plans ends one — as
 * `providerOptions.anthropic.cacheControl` on the message when its content is a string, else
 * on its last part that is sent (the client drops a message's mark whose last part is a tool
 * approval response), tagged as the library's. The messages without a mark are the step's own
 * objects.
 *
 * @since 0.3.0
 * @category marks
 */
export const markModelMessages = <M extends StepMessage>(
  messages: ReadonlyArray<M>,
  options: StepMarkOptions
): { readonly messages: Array<M>; readonly plan: CacheBreakpoints.Plan } => {
  const clean = options.stripped === true ? messages : stripModelMessages(messages)
  const blocks: Array<CacheBreakpoints.Block> = []
  const owner: Array<number> = []
  const toolTokens = options.tokens?.tools ?? 0
  // The tool definitions, which the step does not see, as one block no mark goes on.
  if (toolTokens > 0) {
    blocks.push({ tokens: toolTokens })
    owner.push(-1)
  }
  const messageEnds: Array<number> = []
  let toolsAndSystem: number | undefined = toolTokens > 0 ? blocks.length : undefined
  let leading = true
  clean.forEach((message, m) => {
    pushStepBlocks(message, m, options.tokens === undefined ? undefined : options.tokens.messages[m] ?? 0, options.count, blocks, owner)
    if (message.role === "system" && leading) toolsAndSystem = blocks.length
    else leading = false
    messageEnds.push(blocks.length)
  })
  const inMessages = (n: number | undefined) => (n === undefined || n < 1 ? undefined : messageEnds[n - 1])
  const plan = options.planner.plan({
    blocks,
    boundaries: { toolsAndSystem, compacted: inMessages(options.compacted), previousEnd: inMessages(options.previousEnd) },
    model: options.model
  })
  const out = [...clean]
  for (const mark of plan.marks) {
    const m = owner[mark.index]
    const message = m === undefined || m < 0 ? undefined : out[m]
    if (message === undefined) continue
    if (typeof message.content === "string") {
      out[m!] = withOptions(message, marked(message.providerOptions, mark.ttl))
      continue
    }
    // On the last part sent: the client drops a message's mark whose last part is not sent
    // (a tool approval response).
    const parts: ReadonlyArray<{ readonly type: string; readonly text?: unknown }> = message.content
    const last = parts.findLastIndex((part) => part.type !== "tool-approval-response" && !(part.type === "text" && part.text === ""))
    out[m!] = last < 0 ? message : withParts(message, (part, i) => (i === last ? partMarked(part, mark.ttl) : part))
  }
  return { messages: out, plan }
}
