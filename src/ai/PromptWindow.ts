/**
 * PromptWindow: an `effect/ai` `Prompt` in, a `Prompt` that fits the budget out.
 *
 * {@link toCandidates} turns each message of a prompt into one candidate item:
 *
 * - system messages are pinned, of kind `SystemPrompt`; user and assistant messages are
 *   `Message`; tool messages (tool results, approval responses) are `ToolOutput` —
 *   each default can be changed per message with {@link Options.annotate};
 * - the conversation's order is the items' recency: message `i` gets the timestamp
 *   `startMillis + i` (milliseconds), so recency scorers prefer later messages and the
 *   chronological placer keeps the conversation's order — except that a group (below) is one
 *   unit with its first message's timestamp, so its later messages are drawn up to follow the
 *   first directly (a tool result given after other messages comes right after its call, where
 *   providers expect it), and the group is rated as recent as its first message;
 * - an assistant message's tool calls and the tool messages holding their results (matched by
 *   call id), and approval requests with their responses (matched by approval id), share a
 *   `group`: the pipeline keeps them together — selected or excluded as one unit, adjacent
 *   and in order in the window. Tool results inside the assistant message that made the call
 *   (provider-executed tools) are in the same item already.
 * - each item's `tokens` come from the `TokenCounter` service; its `content` is what the
 *   message says, as {@link render} writes it (what deduplication compares and reports show).
 *
 * The values that come from the caller's code — the counter's count, `annotate`'s fields,
 * `startMillis` — are checked: an invalid one fails with a {@link CandidateError} naming the
 * message and the field, never with a defect.
 *
 * {@link fit} runs the pipeline on those candidates and {@link toPrompt} turns the window back
 * into a prompt of the original message objects. As the groups are never split, the window
 * holds no tool result without its call and no call without its results, unless the input
 * prompt already did ({@link orphans} finds those).
 *
 * @since 0.2.0
 */
import { DateTime, Effect, Option, Schema, type SchemaIssue } from "effect"
import type { AiError } from "effect/ai"
import { Prompt } from "effect/ai"
import type { ContextBudget } from "../ContextBudget.ts"
import * as ContextItem from "../ContextItem.ts"
import * as ContextKind from "../ContextKind.ts"
import * as Pipeline from "../Pipeline.ts"
import type { PipelineResult } from "../PipelineResult.ts"
import { describeThrown } from "../internal/describeThrown.ts"
import { trusted } from "../internal/fastDecode.ts"
import { PinnedBudgetError } from "../PinnedBudgetError.ts"
import * as CurrentTurn from "./CurrentTurn.ts"
import { messageIndexKey, messageIndexOf } from "./MessageIndex.ts"
import * as Shorten from "./Shorten.ts"
import { thrownBy, TokenCounter } from "./TokenCounter.ts"
import { TurnBudgetError } from "./TurnBudgetError.ts"

/**
 * What the caller may set on a message's item. Fields left out keep their defaults.
 *
 * @since 0.2.0
 * @category models
 */
export interface Annotation {
  readonly kind?: string | undefined
  readonly pinned?: boolean | undefined
  readonly priority?: number | undefined
  readonly tags?: ReadonlyArray<string> | undefined
  readonly metadata?: Readonly<Record<string, unknown>> | undefined
  readonly futureRelevanceHint?: number | undefined
}

/**
 * Options of the conversion.
 *
 * - `annotate` — per message, what to change of its item's defaults (kind, pinned, priority,
 *   tags, metadata, relevance hint); return `undefined` to keep them all.
 * - `documents` — extra items (retrieved documents, memory) to run with the conversation;
 *   those in the window become system messages of their content.
 * - `startMillis` — the timestamp of the first message (default 0); message `i` is `i`
 *   milliseconds later. Give the real time when a scorer compares with the clock (decay).
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  readonly annotate?: ((message: Prompt.Message, index: number) => Annotation | undefined) | undefined
  readonly documents?: ReadonlyArray<ContextItem.ContextItem> | undefined
  readonly startMillis?: number | undefined
  /**
   * Items already made for message objects, reused when the same message object stands at the
   * same index with the same group (see {@link ItemCache}). `annotate` must then be a function
   * of the message and its index alone.
   */
  readonly itemCache?: ItemCache | undefined
}

/**
 * What {@link fit} does besides the pipeline (docs/ai.md, "Right within a call").
 *
 * - `startOn` — `"user"` (default): the window's first conversation message is a user message
 *   (rule K3); `"any"`: no such rule.
 * - `shortenToolResults` — `true` (default): a current turn too large for the room has its
 *   largest tool result shortened so that it fits whole, else its newest unit and latest tool
 *   exchange are shortened to fit beside the newest user message (rule K6); `false`: what does
 *   not fit is left out.
 *
 * @since 0.3.0
 * @category models
 */
export interface FitOptions {
  readonly startOn?: "user" | "any" | undefined
  readonly shortenToolResults?: boolean | undefined
}

/**
 * Items made for message objects, kept across calls: an agent sends the same message objects
 * at every step, and making an item (rendering the message, checking its fields) is most of
 * what a call costs at a thousand messages. Entries are held weakly, by message object.
 *
 * @since 0.3.0
 * @category models
 */
export interface ItemCache {
  readonly entries: WeakMap<Prompt.Message, ContextItem.ContextItem>
  /** Each message's links (its tool call and approval ids), which {@link groups} joins. */
  readonly links: WeakMap<Prompt.Message, ReadonlyArray<string>>
  /** Where the last {@link groups} call left its union-find (the state of one history). */
  lastGroups: GroupsState | undefined
  /**
   * The last {@link toCandidates} call's messages, their items and its `startMillis` (the state
   * of one history): a history that starts with those message objects finds the items of that
   * prefix by index, where a thousand lookups in `entries` were a third of a call's conversion.
   */
  lastItems: ItemsState | undefined
}

/**
 * Where the last {@link toCandidates} call left its items ({@link ItemCache.lastItems}).
 *
 * @since 0.3.0
 * @category models
 */
export interface ItemsState {
  readonly messages: ReadonlyArray<Prompt.Message>
  /** `items[i]` is the item made (or found) for `messages[i]` (the documents follow). */
  readonly items: ReadonlyArray<ContextItem.ContextItem>
  /** `groups[i]` is `messages[i]`'s group, as `items[i]` has it. */
  readonly groups: ReadonlyArray<string | undefined>
  readonly start: number
}

/**
 * An empty {@link ItemCache}; make one per layer or session, not per call.
 *
 * @since 0.3.0
 * @category constructors
 */
export const makeItemCache = (): ItemCache => ({
  entries: new WeakMap(),
  links: new WeakMap(),
  lastGroups: undefined,
  lastItems: undefined
})

/**
 * The candidates of a prompt, and the message each came from.
 *
 * @since 0.2.0
 * @category models
 */
export interface Candidates {
  /** One item per message, in order (`items[i]` is message `i`'s), then the documents. */
  readonly items: ReadonlyArray<ContextItem.ContextItem>
  readonly messageOf: ReadonlyMap<ContextItem.ContextItem, Prompt.Message>
  /** The prompt's messages. */
  readonly messages: ReadonlyArray<Prompt.Message>
  /** Each message's group ({@link groups}). */
  readonly groups: ReadonlyArray<string | undefined>
}

/**
 * The fitted prompt and the pipeline's result (its window, report and totals).
 *
 * @since 0.2.0
 * @category models
 */
export interface Fitted {
  readonly prompt: Prompt.Prompt
  readonly result: PipelineResult
  /** The tool messages shortened for the call (rule K6), if any. */
  readonly shortened?: ReadonlyArray<Shortening> | undefined
}

/**
 * A tool message shortened for a call (rule K6): its index in the prompt and the tokens it was
 * cut to. Shortening is deterministic: the same message cut to the same tokens by the same
 * counter gives the same text, which is how a stable window sends it again.
 *
 * @since 0.3.0
 * @category models
 */
export interface Shortening {
  readonly index: number
  readonly keepTokens: number
}

/**
 * A message whose item cannot be made: a value that came from the caller's code — the
 * `TokenCounter`'s count (`tokens`, a safe integer), a throw of `TokenCounter.make`'s
 * function (`count`), `annotate`'s result or a throw from it
 * (`kind`, `priority`, `futureRelevanceHint`, `tags`, `metadata`, `annotate`), or
 * `startMillis` (`timestamp`: `startMillis + index` must be a valid instant) — is invalid.
 * `index` is the message's index in the prompt.
 *
 * @since 0.2.0
 * @category errors
 */
export class CandidateError extends Schema.TaggedError<CandidateError>()("CandidateError", {
  index: Schema.Int,
  field: Schema.String,
  problem: Schema.String,
  cause: Schema.optionalKey(Schema.Defect())
}) {
  override get message(): string {
    return `message ${this.index}: ${this.field} ${this.problem}`
  }
}

/**
 * The text of a message as the model reads it, one line per part: text and reasoning as they
 * are, tool calls as `name(arguments as JSON) [call id]`, tool results as their model output
 * (or their result as JSON), files as `[file media/type name]`, approvals by id. Never empty.
 *
 * @since 0.2.0
 * @category rendering
 */
export const render = (message: Prompt.Message): string => {
  const known = rendered.get(message)
  if (known !== undefined) return known
  const text = renderNew(message)
  // Only long texts are remembered: they are the ones whose making (a result's JSON text)
  // costs, and they are rendered by several steps of one call (counting, shortening, hashing).
  if (text.length > renderMemoChars) rendered.set(message, text)
  return text
}

/** The texts of long messages already rendered, by message object (messages are immutable). */
const rendered = new WeakMap<Prompt.Message, string>()
const renderMemoChars = 16_384

/**
 * The JSON texts of the last few long string results: each is written by several steps of a
 * call, on messages that are copies of one another (a conversion, a candidate, a probe).
 */
const jsonTexts = new Map<string, string>()
const jsonTextsKept = 4
/** Strings shorter than this are written as JSON at once (about a millisecond a megabyte). */
const jsonMemoChars = 1 << 18
const rememberJson = (value: string, text: string): void => {
  if (jsonTexts.size >= jsonTextsKept) jsonTexts.delete(jsonTexts.keys().next().value!)
  jsonTexts.set(value, text)
}

/** The long string results of a message whose JSON text is not known yet. */
const longResults = (message: Prompt.Message): Array<string> => {
  if (message.role !== "tool") return []
  const out: Array<string> = []
  for (const part of message.content) {
    if (
      part.type === "tool-result" && part.modelOutput === undefined && typeof part.result === "string" &&
      part.result.length > jsonMemoChars && !jsonTexts.has(part.result)
    ) out.push(part.result)
  }
  return out
}

/** The characters of a long string written as JSON at a time, between yields. */
const jsonPiece = 65_536

/**
 * {@link render} as an `Effect` that never holds the event loop for long: the JSON text of a
 * long string result (a 5 MB tool output) is written in pieces, the fiber yielding between
 * them, and remembered, so that {@link render} then gives the message's text at once. The same
 * text as {@link render}'s.
 *
 * @since 0.3.0
 * @category rendering
 */
export const renderEffect = (message: Prompt.Message): Effect.Effect<string> => {
  const known = rendered.get(message)
  if (known !== undefined) return Effect.succeed(known)
  const long = longResults(message)
  if (long.length === 0) return Effect.sync(() => render(message))
  return Effect.gen(function*() {
    for (const value of long) {
      const pieces: Array<string> = []
      for (let at = 0; at < value.length;) {
        let end = Math.min(value.length, at + jsonPiece)
        // Never between the two halves of a surrogate pair: JSON writes a lone one escaped.
        const code = value.charCodeAt(end)
        if (end < value.length && code >= 0xdc00 && code <= 0xdfff) end--
        pieces.push(JSON.stringify(value.slice(at, end)).slice(1, -1))
        at = end
        yield* Effect.yieldNow
      }
      rememberJson(value, `"${pieces.join("")}"`)
    }
    return render(message)
  })
}

const renderNew = (message: Prompt.Message): string => {
  let text: string
  switch (message.role) {
    case "system":
      text = message.content
      break
    case "user":
      text = message.content.map(renderPart).join("\n")
      break
    case "assistant":
      text = message.content.map(renderPart).join("\n")
      break
    case "tool":
      text = message.content.map(renderPart).join("\n")
      break
  }
  return text.length > 0 ? text : `[${message.role}]`
}

const json = (value: unknown): string => {
  // A long string result is written as JSON by several steps of a call, each with its own copy
  // of the message: the last one's text is kept.
  if (typeof value === "string" && value.length > jsonMemoChars) {
    let text = jsonTexts.get(value)
    if (text === undefined) {
      text = JSON.stringify(value)
      rememberJson(value, text)
    }
    return text
  }
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

const renderPart = (part: Prompt.Part): string => {
  switch (part.type) {
    case "text":
    case "reasoning":
      return part.text
    case "file":
      return `[file ${part.mediaType}${part.fileName === undefined ? "" : ` ${part.fileName}`}]`
    case "tool-call":
      return `${part.name}(${json(part.params)}) [call ${part.id}]`
    case "tool-result":
      return `${part.isFailure ? "error" : "result"} of ${part.name} [call ${part.id}]: ${
        part.modelOutput === undefined ? json(part.result) : Prompt.toolModelOutputToText(part.modelOutput)
      }`
    case "tool-approval-request":
      return `approval requested [approval ${part.approvalId}, call ${part.toolCallId}]`
    case "tool-approval-response":
      return `approval ${part.approved ? "granted" : "denied"} [approval ${part.approvalId}]${
        part.reason === undefined ? "" : `: ${part.reason}`
      }`
  }
}

/** The parts of a message, whatever its role. */
const partsOf = (message: Prompt.Message): ReadonlyArray<Prompt.Part> =>
  message.role === "system" ? [] : message.content

/** The ids that tie a message to others: tool call ids and approval ids, each with a prefix. */
const linksOf = (message: Prompt.Message): Array<string> => {
  const links: Array<string> = []
  for (const part of partsOf(message)) {
    switch (part.type) {
      case "tool-call":
      case "tool-result":
        links.push(`call:${part.id}`)
        break
      case "tool-approval-request":
        links.push(`approval:${part.approvalId}`, `call:${part.toolCallId}`)
        break
      case "tool-approval-response":
        links.push(`approval:${part.approvalId}`)
        break
      default:
        break
    }
  }
  return links
}

/**
 * The group of each message: messages linked by a tool call id or an approval id (directly or
 * through others) share one, named `prefix` and the first message's index (`message-2`); a
 * message linked to no other has none. {@link toCandidates} picks a prefix that none of the
 * caller's `documents` uses (see {@link groupPrefix}), so that no document joins a message's
 * group by accident.
 *
 * @since 0.2.0
 * @category grouping
 */
export const groups = (
  messages: ReadonlyArray<Prompt.Message>,
  prefix = "message-",
  cache?: ItemCache
): Array<string | undefined> => {
  const n = messages.length
  // An agent's next history is its last one and a few messages more: continue the union-find
  // where the last call left it, reading the links of the new messages only.
  const last = cache?.lastGroups
  let state: GroupsState
  if (last !== undefined && last.prefix === prefix && extends_(messages, last.messages)) {
    state = last
  } else {
    state = { prefix, messages: [], parent: [], firstWith: new Map(), names: new Map() }
  }
  const { firstWith, parent } = state
  const find = (i: number): number => {
    let root = i
    while (parent[root]! !== root) root = parent[root]!
    while (parent[i]! !== root) {
      const next = parent[i]!
      parent[i] = root
      i = next
    }
    return root
  }
  const memo = cache?.links
  for (let i = state.messages.length; i < n; i++) {
    parent.push(i)
    const message = messages[i]!
    let links = memo?.get(message)
    if (links === undefined) {
      links = linksOf(message)
      memo?.set(message, links)
    }
    for (const link of links) {
      const j = firstWith.get(link)
      if (j === undefined) firstWith.set(link, i)
      else {
        const a = find(i)
        const b = find(j)
        // The smaller index becomes the root, so a group is named after its first message.
        if (a !== b) parent[Math.max(a, b)] = Math.min(a, b)
      }
    }
  }
  // A snapshot of the history read, not the caller's array: a caller may append to the array it
  // passed (a Prompt's content) or edit it in place before the next call.
  if (cache !== undefined) cache.lastGroups = { ...state, messages: messages.slice() }
  // Most messages are linked to none: only roots that are shared by two or more make a group.
  const out = new Array<string | undefined>(n)
  if (firstWith.size === 0) return out
  const size = new Uint32Array(n)
  for (let i = 0; i < n; i++) size[find(i)]!++
  const names = state.names
  for (let i = 0; i < n; i++) {
    const root = find(i)
    if (size[root]! < 2) continue
    let name = names.get(root)
    if (name === undefined) {
      name = `${prefix}${root}`
      names.set(root, name)
    }
    out[i] = name
  }
  return out
}

/**
 * Where {@link groups} left its union-find: the messages it read, the parent of each, the first
 * message with each link, and the group names made. Continued only by a history that starts
 * with the same message objects.
 *
 * @since 0.3.0
 * @category models
 */
export interface GroupsState {
  readonly prefix: string
  readonly messages: ReadonlyArray<Prompt.Message>
  readonly parent: Array<number>
  readonly firstWith: Map<string, number>
  readonly names: Map<number, string>
}

/** Whether `messages` starts with the message objects of `prefix`. */
const extends_ = (messages: ReadonlyArray<Prompt.Message>, prefix: ReadonlyArray<Prompt.Message>): boolean => {
  if (prefix.length > messages.length) return false
  for (let i = 0; i < prefix.length; i++) if (messages[i] !== prefix[i]) return false
  return true
}

/**
 * The prefix of the message groups for a call: `message-`, or, when a document's group id
 * starts with it, the first of `prompt2:message-`, `prompt3:message-`… that none does. No
 * message group id can then equal a document's, whatever ids the caller chose.
 *
 * @since 0.2.0
 * @category grouping
 */
export const groupPrefix = (documents: ReadonlyArray<ContextItem.ContextItem>): string => {
  const taken = (prefix: string) => documents.some((d) => d.group !== undefined && d.group.startsWith(prefix))
  let prefix = "message-"
  for (let k = 2; taken(prefix); k++) prefix = `prompt${k}:message-`
  return prefix
}

/**
 * A tool part whose partner is missing from the prompt.
 *
 * @since 0.2.0
 * @category models
 */
export interface Orphan {
  readonly message: number
  readonly problem: "ResultWithoutCall" | "CallWithoutResult" | "ApprovalWithoutRequest"
  readonly id: string
}

/**
 * Every tool result without its call, call without a result and approval response without its
 * request in the prompt. Provider-executed calls are answered by the provider and need no
 * result in the prompt; a call with an approval request is waiting for the approval, and a
 * request without a response is waiting for the user: neither is an orphan.
 *
 * @since 0.2.0
 * @category validation
 */
export const orphans = (prompt: Prompt.Prompt): Array<Orphan> => {
  const calls = new Map<string, number>()
  const results = new Map<string, number>()
  const requests = new Map<string, number>()
  const responses = new Map<string, number>()
  prompt.content.forEach((message, i) => {
    for (const part of partsOf(message)) {
      if (part.type === "tool-call" && !part.providerExecuted) calls.set(part.id, i)
      else if (part.type === "tool-result") results.set(part.id, i)
      else if (part.type === "tool-approval-request") requests.set(part.approvalId, i)
      else if (part.type === "tool-approval-response") responses.set(part.approvalId, i)
    }
  })
  const out: Array<Orphan> = []
  const providerCalls = new Set<string>()
  const approvalFor = new Set<string>()
  for (const message of prompt.content) {
    for (const part of partsOf(message)) {
      if (part.type === "tool-call" && part.providerExecuted) providerCalls.add(part.id)
      else if (part.type === "tool-approval-request") approvalFor.add(part.toolCallId)
    }
  }
  for (const [id, i] of results) {
    if (!calls.has(id) && !providerCalls.has(id)) out.push({ message: i, problem: "ResultWithoutCall", id })
  }
  for (const [id, i] of calls) {
    // A call waiting for approval has no result yet: its approval request stands for it.
    if (!results.has(id) && !approvalFor.has(id)) out.push({ message: i, problem: "CallWithoutResult", id })
  }
  for (const [id, i] of responses) if (!requests.has(id)) out.push({ message: i, problem: "ApprovalWithoutRequest", id })
  return out.sort((a, b) => a.message - b.message)
}

const kindOf = (message: Prompt.Message): string =>
  message.role === "system"
    ? ContextKind.SystemPrompt
    : message.role === "tool"
    ? ContextKind.ToolOutput
    : ContextKind.Message

/**
 * The candidate items of a prompt, one per message, in order, then the `documents`.
 *
 * Fails with a {@link CandidateError} when a value from the caller's code is invalid (the
 * counter's count, an annotation, `startMillis`) or the caller's counter function threw
 * (`field: "count"`), and with any other `AiError` of the counter (a tokenizer's).
 *
 * @since 0.2.0
 * @category converting
 */
export const toCandidates = (
  prompt: Prompt.RawInput,
  options?: Options
): Effect.Effect<Candidates, AiError.AiError | CandidateError, TokenCounter> =>
  Effect.gen(function*() {
    const counter = yield* TokenCounter
    const messages = Prompt.make(prompt).content
    const documents = options?.documents ?? []
    const groupOf = groups(messages, groupPrefix(documents), options?.itemCache)
    const start = options?.startMillis ?? 0
    const cache = options?.itemCache?.entries
    // The items of the last call's history, when this one continues it from the same start: its
    // message `i` had `last.items[i]`, made (or found) at index `i` from this start.
    const lastItems = options?.itemCache?.lastItems
    const last = lastItems !== undefined && lastItems.start === start && extends_(messages, lastItems.messages)
      ? lastItems
      : undefined
    const reusable = last?.messages.length ?? 0
    const lastItemsOf = last?.items ?? []
    const lastGroupsOf = last?.groups ?? []
    const items: Array<ContextItem.ContextItem> = []
    const messageOf = new Map<ContextItem.ContextItem, Prompt.Message>()
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i]!
      const group = groupOf[i]
      let item: ContextItem.ContextItem
      if (i < reusable && lastGroupsOf[i] === group) {
        // The last call's item for this message object at this index, from the same start.
        item = lastItemsOf[i]!
      } else {
        const cached = cache?.get(message)
        // A message object seen before at this index, in this group, and from the same start.
        if (
          cached !== undefined && messageIndexOf(cached) === i && cached.group === group &&
          cached.timestamp?.epochMilliseconds === start + i
        ) {
          item = cached
        } else {
          item = yield* makeItem(counter, message, i, group, start, options?.annotate)
          cache?.set(message, item)
        }
      }
      items.push(item)
      messageOf.set(item, message)
    }
    for (const document of documents) items.push(document)
    // A snapshot, as for the groups: the caller's array may change before the next call.
    if (options?.itemCache !== undefined) {
      options.itemCache.lastItems = { messages: messages.slice(), items, groups: groupOf, start }
    }
    return { items, messageOf, messages, groups: groupOf }
  })

/** The item of message `i`. */
const makeItem = (
  counter: TokenCounter["Service"],
  message: Prompt.Message,
  i: number,
  group: string | undefined,
  start: number,
  annotate: Options["annotate"]
): Effect.Effect<ContextItem.ContextItem, AiError.AiError | CandidateError> =>
  Effect.gen(function*() {
    const tokens = yield* countMessage(counter, message, i)
    if (!Number.isSafeInteger(tokens)) {
      return yield* new CandidateError({
        index: i,
        field: "tokens",
        problem: `must be a safe integer: the TokenCounter gave ${tokens}`
      })
    }
    const annotation = yield* annotationOf(annotate, message, i)
    const timestamp = DateTime.make(start + i)
    if (Option.isNone(timestamp)) {
      return yield* new CandidateError({
        index: i,
        field: "timestamp",
        problem: `must be a valid instant: startMillis (${start}) + ${i} is not`
      })
    }
    const priority = annotation?.priority
    const hint = annotation?.futureRelevanceHint
    return yield* ContextItem.make({
      content: yield* renderEffect(message),
      tokens,
      kind: annotation?.kind ?? kindOf(message),
      source: "Chat",
      pinned: annotation?.pinned ?? message.role === "system",
      tags: annotation?.tags ?? [],
      metadata: { ...annotation?.metadata, role: message.role, [messageIndexKey]: i },
      timestamp: timestamp.value,
      ...(priority === undefined ? {} : { priority }),
      ...(hint === undefined ? {} : { futureRelevanceHint: hint }),
      ...(group === undefined ? {} : { group })
    }).pipe(
      Effect.mapError((error) =>
        new CandidateError({ index: i, field: fieldOf(error.issue) ?? "item", problem: `is invalid: ${error.message}` })
      )
    )
  })

/**
 * The tokens of message `index` by the counter. A counter function that throws
 * (`TokenCounter.make`'s `AiError`, read by `TokenCounter.thrownBy`) is the caller's code
 * failing on that message: a {@link CandidateError} on its `count`, as in every front door.
 */
const countMessage = (
  counter: TokenCounter["Service"],
  message: Prompt.Message,
  index: number
): Effect.Effect<number, AiError.AiError | CandidateError> =>
  Effect.mapError(counter.count(message), (error) => {
    const thrown = thrownBy(error)
    return thrown === undefined
      ? error
      : new CandidateError({ index, field: "count", problem: `threw: ${thrown}`, cause: error })
  })

/** The caller's annotation of a message; a throw from `annotate` is a {@link CandidateError}. */
const annotationOf = (
  annotate: Options["annotate"],
  message: Prompt.Message,
  index: number
): Effect.Effect<Annotation | undefined, CandidateError> =>
  annotate === undefined ? Effect.undefined : Effect.try({
    try: () => annotate(message, index),
    catch: (cause) => new CandidateError({ index, field: "annotate", problem: `threw: ${describeThrown(cause)}`, cause })
  })


/** The field a schema issue is about: the first key on its path. */
const fieldOf = (issue: SchemaIssue.Issue): string | undefined => {
  switch (issue._tag) {
    case "Pointer":
      return issue.path.length > 0 ? String(issue.path[0]) : fieldOf(issue.issue)
    case "Filter":
    case "Encoding":
      return fieldOf(issue.issue)
    case "Composite":
    case "AnyOf":
      for (const inner of issue.issues) {
        const field = fieldOf(inner)
        if (field !== undefined) return field
      }
      return undefined
    default:
      return undefined
  }
}

/**
 * The prompt of a window: each item's original message, in the window's order; an item that
 * came from no message (a document) becomes a system message of its content.
 *
 * @since 0.2.0
 * @category converting
 */
export const toPrompt = (window: ReadonlyArray<ContextItem.ContextItem>, candidates: Candidates): Prompt.Prompt =>
  promptOf(window, (item) => candidates.messageOf.get(item))

/** {@link toPrompt} with the message of an item read by `messageOf`. */
const promptOf = (
  window: ReadonlyArray<ContextItem.ContextItem>,
  messageOf: (item: ContextItem.ContextItem) => Prompt.Message | undefined
): Prompt.Prompt =>
  Prompt.fromMessages(window.map((item) => messageOf(item) ?? Prompt.systemMessage({ content: item.content })))

/**
 * Every way a fit can fail besides the counter and the candidates: the pipeline's errors, and
 * {@link TurnBudgetError} when the newest user message does not fit beside the system prompts
 * and pinned items (rule K2; the pipeline never raises it, so it is no `PipelineError`).
 *
 * @since 0.3.0
 * @category errors
 */
export type FitError = Pipeline.PipelineError | TurnBudgetError

/**
 * Fits a prompt into a budget: {@link toCandidates}, `Pipeline.run` (with the scorer, slicer,
 * placer and notifier in context), {@link toPrompt}. Pipeline failures — `OverflowError` under
 * the `Throw` strategy, `PinnedBudgetError` when the pinned messages alone cannot fit — are in
 * the error channel, as are `TurnBudgetError` (the newest user message cannot fit beside them),
 * the token counter's and {@link CandidateError}.
 *
 * Place with `SectionedPlacer.conversation` for a window providers accept: system messages
 * first, documents next, then the conversation in order.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { Prompt } from "effect/ai"
 * import { ContextBudget, GreedySlice, OverflowNotifier, RecencyScorer } from "effect-cupel"
 * import * as PromptWindow from "effect-cupel/ai/PromptWindow"
 * import * as TokenCounter from "effect-cupel/ai/TokenCounter"
 * import * as SectionedPlacer from "effect-cupel/placers/SectionedPlacer"
 *
 * const history = Prompt.make([
 *   { role: "system", content: "You are terse." },
 *   { role: "user", content: "hi" }
 * ])
 * const program = PromptWindow.fit(history, new ContextBudget.ContextBudget({ maxTokens: 100, targetTokens: 80 }))
 * const layers = Layer.mergeAll(
 *   RecencyScorer.layer, GreedySlice.layer, SectionedPlacer.conversation, OverflowNotifier.layerLog,
 *   TokenCounter.make((m) => Math.ceil(PromptWindow.render(m).length / 4) + 4)
 * )
 * const { prompt } = await Effect.runPromise(program.pipe(Effect.provide(layers)))
 * ```
 *
 * @since 0.2.0
 * @category running
 */
export const fit = (
  prompt: Prompt.RawInput,
  budget: ContextBudget,
  options?: Options & Pipeline.Options & FitOptions
): Effect.Effect<Fitted, FitError | AiError.AiError | CandidateError, Pipeline.Services | TokenCounter> =>
  Effect.gen(function*() {
    const made = yield* toCandidates(prompt, options)
    const { candidates, shortenings } = options?.shortenToolResults === false
      ? { candidates: made, shortenings: [] }
      : yield* shortenTurn(made, budget.targetTokens)
    const fitted = yield* fitCandidates(candidates, budget, options)
    return shortenings.length === 0 ? fitted : { ...fitted, shortened: shortenings }
  }).pipe(Effect.withSpan("cupel.prompt_window.fit"))

/**
 * {@link fit} on candidates already made: the rules K1–K4 of docs/ai.md around `Pipeline.run`.
 *
 * - K4: the pinned items (system prompts, messages pinned by `annotate`, pinned documents) alone
 *   over the target fail with `PinnedBudgetError`, whatever `maxTokens` says.
 * - K2: the newest user message over what they leave fails with `TurnBudgetError`
 *   ({@link turnBudgetError}); the current turn's units ({@link CurrentTurn.keep}) are pinned
 *   for the call, their items' metadata `keep` saying why.
 * - K1: conversation messages are not deduplicated unless `deduplication: true`.
 * - K3: with `startOn: "user"` (default), the window opens on a user message
 *   ({@link CurrentTurn.openOnUser}).
 *
 * @since 0.3.0
 * @category running
 */
export const fitCandidates = (
  candidates: Candidates,
  budget: ContextBudget,
  options?: Pipeline.Options & FitOptions
): Effect.Effect<Fitted, FitError, Pipeline.Services> =>
  Effect.gen(function*() {
    const { items, messages } = candidates
    const { conversation, kept, pinnedCount, pinnedTokens } = keepingOf(candidates, budget.targetTokens).keeping
    if (pinnedTokens > budget.targetTokens) {
      return yield* new PinnedBudgetError({
        pinnedTokens,
        availableTokens: budget.targetTokens,
        pinnedCount,
        limit: "targetTokens"
      })
    }
    const turnError = turnBudgetError(candidates, budget.targetTokens)
    if (turnError !== undefined) return yield* turnError
    const runItems = items.slice()
    // The kept copies' messages; every other item's is the candidates' (not copied: a thousand
    // entries a call).
    const keptMessages = new Map<ContextItem.ContextItem, Prompt.Message>()
    const keptItems = new Set<ContextItem.ContextItem>()
    for (const [i, why] of kept) {
      const item = items[i]!
      // A valid item with one more metadata key: what the checked constructor would make.
      const fields = { ...item, pinned: true, metadata: { ...item.metadata, [CurrentTurn.keepKey]: why } }
      const copy = trusted(ContextItem.ContextItem, fields) ?? new ContextItem.ContextItem(fields)
      runItems[i] = copy
      keptMessages.set(copy, messages[i]!)
      keptItems.add(copy)
    }
    const messageOf = (item: ContextItem.ContextItem): Prompt.Message | undefined =>
      keptMessages.get(item) ?? candidates.messageOf.get(item)
    const run = yield* Pipeline.run(runItems, budget, {
      ...options,
      deduplication: options?.deduplication ?? false
    })
    const result = (options?.startOn ?? "user") === "user"
      ? CurrentTurn.openOnUser(run, (item) => {
        const message = messageOf(item)
        if (message === undefined || message.role === "system") return undefined
        const index = messageIndexOf(item)
        return index !== undefined && conversation[index] === true ? message.role : undefined
      }, keptItems)
      : run
    return { prompt: promptOf(result.window, messageOf), result }
  })

/**
 * Rule K2's error, or `undefined`: the {@link TurnBudgetError} of candidates whose newest user
 * message (not pinned) needs more than `targetTokens` leaves beside the pinned items. Nothing
 * when the pinned items alone exceed the target: that is K4's `PinnedBudgetError`.
 *
 * @since 0.3.0
 * @category running
 */
export const turnBudgetError = (candidates: Candidates, targetTokens: number): TurnBudgetError | undefined => {
  const { keeping: { conversation, pinnedTokens }, turn } = keepingOf(candidates, targetTokens)
  if (pinnedTokens > targetTokens) return undefined
  const user = CurrentTurn.anchors(turn)["newest-user"]
  if (user < 0 || conversation[user] !== true) return undefined
  const neededTokens = candidates.items[user]!.tokens
  const availableTokens = targetTokens - pinnedTokens
  return neededTokens > availableTokens
    ? new TurnBudgetError({ messageIndex: user, neededTokens, availableTokens, pinnedTokens })
    : undefined
}

/**
 * {@link turnBudgetError} as an Effect: fails with it, else succeeds. A stable window checks
 * it against the call's whole target before it appends or compacts (a compaction fits to a
 * lower target, whose figures would not be the call's).
 *
 * @since 0.3.0
 * @category running
 */
export const checkTurn = (candidates: Candidates, targetTokens: number): Effect.Effect<void, TurnBudgetError> => {
  const error = turnBudgetError(candidates, targetTokens)
  return error === undefined ? Effect.void : Effect.fail(error)
}

/**
 * What a call's window must hold before anything is weighed: the pinned items (their tokens
 * and count) and the units of the current turn that rule K2 keeps within `targetTokens`
 * ({@link CurrentTurn.keep}, with the room the pinned items leave), with their tokens; and which
 * messages are conversation (not system, not pinned).
 *
 * @since 0.3.0
 * @category running
 */
export const keeping = (candidates: Candidates, targetTokens: number): {
  readonly pinnedTokens: number
  readonly pinnedCount: number
  readonly kept: Map<number, CurrentTurn.Keep>
  readonly keptTokens: number
  readonly conversation: ReadonlyArray<boolean>
} => computeKeeping(candidates, targetTokens).keeping

/** What {@link keeping} gives. */
type Keeping = ReturnType<typeof keeping>

/**
 * {@link keeping} of candidates, and the turn it read, computed once per candidates object and
 * target: a fit asks three times for the same (twice in {@link shortenTurn} when it shortens
 * nothing, once in {@link fitCandidates}), and each is a few passes over every message. Only
 * for this module's callers, which read the result and never change it.
 */
const keepingOf = (candidates: Candidates, targetTokens: number): KeepingAndTurn => {
  const cached = keepingCache.get(candidates)
  if (cached !== undefined && cached.targetTokens === targetTokens) return cached.value
  const value = computeKeeping(candidates, targetTokens)
  keepingCache.set(candidates, { targetTokens, value })
  return value
}

interface KeepingAndTurn {
  readonly keeping: Keeping
  readonly turn: CurrentTurn.Turn
}

const keepingCache = new WeakMap<Candidates, { readonly targetTokens: number; readonly value: KeepingAndTurn }>()

const computeKeeping = (candidates: Candidates, targetTokens: number): KeepingAndTurn => {
  const { items, messages } = candidates
  const n = messages.length
  let pinnedTokens = 0
  let pinnedCount = 0
  // One pass over the items: each is read once (a thousand of them, scattered in the heap).
  const conversation: Array<boolean> = []
  const tokens: Array<number> = []
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!
    if (item.pinned && item.tokens > 0) {
      pinnedTokens += item.tokens
      pinnedCount++
    }
    if (i < n) {
      conversation.push(messages[i]!.role !== "system" && !item.pinned)
      tokens.push(item.tokens)
    }
  }
  const turn: CurrentTurn.Turn = { messages, groups: candidates.groups, tokens, conversation }
  const kept = pinnedTokens > targetTokens
    ? new Map<number, CurrentTurn.Keep>()
    : CurrentTurn.keep(turn, targetTokens - pinnedTokens)
  let keptTokens = 0
  for (const i of kept.keys()) keptTokens += items[i]!.tokens
  return { keeping: { pinnedTokens, pinnedCount, kept, keptTokens, conversation }, turn }
}

/**
 * Rule K6: the current turn's largest tool result shortened (`Shorten.shortenMessage`: head and
 * tail kept, a marker saying how much was left out) before anything of the turn is dropped.
 *
 * 1. When the current turn ({@link CurrentTurn.current}) does not fit `targetTokens` whole
 *    beside the pinned items, its largest tool message is cut so that the whole turn fits
 *    `cutTo` (default `targetTokens`; a stable window cuts to its low watermark, so that the
 *    calls after it can append).
 * 2. When that one cut cannot make the turn fit (the rest of the turn alone is too large, or
 *    even the marker would not fit), the newest message's unit and then the turn's latest tool
 *    exchange, each not kept, have their largest tool message cut so that they fit beside the
 *    newest user message and the units kept outside them — the call keeps its result, usable,
 *    instead of losing both.
 *
 * Nothing is shortened that fits; user messages and documents never are; and nothing when the
 * newest user message itself does not fit (the fit fails with `TurnBudgetError`).
 *
 * @since 0.3.0
 * @category running
 */
export const shortenTurn = (
  candidates: Candidates,
  targetTokens: number,
  cutTo: number = targetTokens
): Effect.Effect<
  { readonly candidates: Candidates; readonly shortenings: ReadonlyArray<Shortening> },
  AiError.AiError | CandidateError,
  TokenCounter
> =>
  Effect.gen(function*() {
    const unchanged = { candidates, shortenings: [] }
    const first = keepingOf(candidates, targetTokens)
    const { kept, pinnedTokens } = first.keeping
    if (pinnedTokens > targetTokens || turnBudgetError(candidates, targetTokens) !== undefined) return unchanged
    const room = Math.min(cutTo, targetTokens) - pinnedTokens
    // 1. The whole turn, its largest tool message cut.
    const turn = CurrentTurn.current(first.turn)
    if (turn.length > 0 && !turn.every((i) => kept.has(i))) {
      const cut = cutLargest(candidates, turn, room)
      if (cut !== undefined) {
        const next = yield* applyShortenings(candidates, [cut])
        if (next !== candidates) return { candidates: next, shortenings: [cut] }
      }
    }
    // 2. The newest unit and the turn's latest exchange, each beside what is kept outside it.
    const shortenings: Array<Shortening> = []
    let current = candidates
    for (const why of ["newest", "latest-tool-exchange"] as const) {
      const { keeping: { kept }, turn } = keepingOf(current, targetTokens)
      const anchors = CurrentTurn.anchors(turn)
      const members = CurrentTurn.unit(turn, anchors[why])
      if (members.length === 0 || members.every((i) => kept.has(i))) continue
      // The room: the target less the pinned items, the units kept outside this one and the
      // newest user message (kept first, rule K2).
      const user = anchors["newest-user"]
      let others = 0
      for (const [i] of kept) if (!members.includes(i)) others += current.items[i]!.tokens
      if (user >= 0 && turn.conversation[user] && !kept.has(user) && !members.includes(user)) {
        others += current.items[user]!.tokens
      }
      const cut = cutLargest(current, members, room - others)
      if (cut === undefined) continue
      const next = yield* applyShortenings(current, [cut])
      if (next === current) continue
      shortenings.push(cut)
      current = next
    }
    return { candidates: current, shortenings }
  })

/**
 * The cut of the largest tool message among `members` that makes them fit `room`, or
 * `undefined` when they fit already, hold no tool message, or the others alone leave it nothing.
 */
const cutLargest = (candidates: Candidates, members: ReadonlyArray<number>, room: number): Shortening | undefined => {
  let tokens = 0
  let largest = -1
  for (const i of members) {
    const item = candidates.items[i]!
    tokens += item.tokens
    if (candidates.messages[i]!.role === "tool" && (largest < 0 || item.tokens > candidates.items[largest]!.tokens)) {
      largest = i
    }
  }
  if (largest < 0 || tokens <= room) return undefined
  const keepTokens = candidates.items[largest]!.tokens - (tokens - room)
  return keepTokens > 0 ? { index: largest, keepTokens } : undefined
}

/**
 * The candidates with the given tool messages shortened (rule K6): each message replaced by its
 * shortened form, its item by one of the shortened text and tokens, marked with
 * `Shorten.shortenedKey` (original and kept tokens) and `originalTokens`. A shortening that
 * cannot be made (the message is no tool message, or even the marker does not fit) is skipped;
 * with nothing to shorten the same candidates are returned.
 *
 * @since 0.3.0
 * @category running
 */
export const applyShortenings = (
  candidates: Candidates,
  shortenings: ReadonlyArray<Shortening>
): Effect.Effect<Candidates, AiError.AiError | CandidateError, TokenCounter> =>
  Effect.gen(function*() {
    if (shortenings.length === 0) return candidates
    const counter = yield* TokenCounter
    let items: Array<ContextItem.ContextItem> | undefined
    let messages: Array<Prompt.Message> | undefined
    let messageOf: Map<ContextItem.ContextItem, Prompt.Message> | undefined
    for (const { index, keepTokens } of shortenings) {
      const message = candidates.messages[index]
      const item = candidates.items[index]
      if (message === undefined || item === undefined || message.role !== "tool") continue
      const shortened = yield* Shorten.shortenMessage(message, keepTokens, (m) => countMessage(counter, m, index))
      if (shortened === undefined || shortened.message === message) continue
      if (!Number.isSafeInteger(shortened.keptTokens)) {
        return yield* new CandidateError({
          index,
          field: "tokens",
          problem: `must be a safe integer: the TokenCounter gave ${shortened.keptTokens}`
        })
      }
      items ??= candidates.items.slice()
      messages ??= candidates.messages.slice()
      messageOf ??= new Map(candidates.messageOf)
      const replaced = Shorten.markShortened(
        new ContextItem.ContextItem({ ...item, content: render(shortened.message), tokens: shortened.keptTokens }),
        { originalTokens: shortened.originalTokens, keptTokens: shortened.keptTokens }
      )
      items[index] = replaced
      messages[index] = shortened.message
      messageOf.delete(item)
      messageOf.set(replaced, shortened.message)
    }
    return items === undefined || messages === undefined || messageOf === undefined
      ? candidates
      : { ...candidates, items, messages, messageOf }
  })
