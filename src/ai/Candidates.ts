/**
 * Candidates: an `effect/ai` `Prompt` turned into candidate items, and a window of them back
 * into a prompt — the conversion both ways.
 *
 * {@link toCandidates} turns each message of a prompt into one candidate item:
 *
 * - system messages are pinned, of kind `SystemPrompt`; user and assistant messages are
 *   `Message`; tool messages (tool results, approval responses) are `ToolOutput` —
 *   each default can be changed per message with {@link Options.annotate};
 * - the conversation's order is the items' recency: message `i` gets the timestamp
 *   `startMillis + i` (milliseconds);
 * - messages linked by tool call or approval ids share a `group` (`ToolGroups.groups`);
 * - each item's `tokens` come from the `TokenCounter` service; its `content` is what the
 *   message says, as `PromptRender.render` writes it.
 *
 * The values that come from the caller's code — the counter's count, `annotate`'s fields,
 * `startMillis` — are checked: an invalid one fails with a {@link CandidateError} naming the
 * message and the field, never with a defect. {@link toPrompt} turns a window back into a
 * prompt of the original message objects.
 *
 * @since 0.3.0
 */
import { DateTime, Effect, Option, Schema, type SchemaIssue } from "effect"
import type { AiError } from "effect/ai"
import { Prompt } from "effect/ai"
import * as ContextItem from "../ContextItem.ts"
import * as ContextKind from "../ContextKind.ts"
import { describeThrown } from "../internal/describeThrown.ts"
import { trusted } from "../internal/fastDecode.ts"
import { continues } from "./internal/continues.ts"
import type { ItemCache } from "./ItemCache.ts"
import { messageIndexKey, messageIndexOf } from "./MessageIndex.ts"
import { renderEffect } from "./PromptRender.ts"
import { thrownBy, TokenCounter } from "./TokenCounter.ts"
import { groupPrefix, groups } from "./ToolGroups.ts"

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
   * same index with the same group (see `ItemCache.ItemCache`). `annotate` must then be a function
   * of the message and its index alone.
   */
  readonly itemCache?: ItemCache | undefined
}

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
  /** Each message's group (`ToolGroups.groups`). */
  readonly groups: ReadonlyArray<string | undefined>
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
  toCandidatesBody(prompt, options)

// A generator function of the module, not a generator closure made at every call (docs/design.md item 144).
const toCandidatesBody = Effect.fnUntraced(function*(prompt: Prompt.RawInput, options: Options | undefined) {
  const counter = yield* TokenCounter
  const messages = Prompt.make(prompt).content
  const documents = options?.documents ?? []
  const groupOf = groups(messages, groupPrefix(documents), options?.itemCache)
  const start = options?.startMillis ?? 0
  const cache = options?.itemCache?.entries
  // The items of the last call's history, when this one continues it from the same start: its
  // message `i` had `last.items[i]`, made (or found) at index `i` from this start.
  const lastItems = options?.itemCache?.lastItems
  const last = lastItems !== undefined && lastItems.start === start && continues(messages, lastItems.messages)
    ? lastItems
    : undefined
  const scan: Scan = {
    messages,
    groupOf,
    start,
    cache,
    reusable: last?.messages.length ?? 0,
    lastItems: last?.items ?? [],
    lastGroups: last?.groups ?? [],
    items: []
  }
  const { items } = scan
  // The items known already are found by a plain loop (V8 optimises it better than one in
  // this generator); it stops at each message whose item must be made, in order.
  for (let i = reuse(scan, 0); i < messages.length; i = reuse(scan, i + 1)) {
    const message = messages[i]!
    const item = yield* makeItem(counter, message, i, groupOf[i], start, options?.annotate)
    cache?.set(message, item)
    items.push(item)
  }
  for (const document of documents) items.push(document)
  // A snapshot, as for the groups: the caller's array may change before the next call.
  if (options?.itemCache !== undefined) {
    options.itemCache.lastItems = { messages: messages.slice(), items, groups: groupOf, start }
  }
  return { items, messageOf: new ItemMessages(items, messages), messages, groups: groupOf }
})

/** What {@link reuse} reads and fills: the call's messages, what is known of them, the items so far. */
interface Scan {
  readonly messages: ReadonlyArray<Prompt.Message>
  readonly groupOf: ReadonlyArray<string | undefined>
  readonly start: number
  readonly cache: WeakMap<Prompt.Message, ContextItem.ContextItem> | undefined
  /** The last call's items stand for messages `0..reusable` (the same objects, the same start). */
  readonly reusable: number
  readonly lastItems: ReadonlyArray<ContextItem.ContextItem>
  readonly lastGroups: ReadonlyArray<string | undefined>
  readonly items: Array<ContextItem.ContextItem>
}

/**
 * Adds the items known for messages `from, from + 1, …` — the last call's item for the same
 * message object at the same index in the same group, else one in the cache made for this
 * object at this index, in this group, from this start — and returns the index of the first
 * message whose item must be made (the messages' length when none).
 */
const reuse = (scan: Scan, from: number): number => {
  const { cache, groupOf, items, lastGroups, lastItems, messages, reusable, start } = scan
  for (let i = from; i < messages.length; i++) {
    const message = messages[i]!
    const group = groupOf[i]
    let item: ContextItem.ContextItem | undefined
    if (i < reusable && lastGroups[i] === group) {
      item = lastItems[i]!
    } else {
      const cached = cache?.get(message)
      if (
        cached !== undefined && messageIndexOf(cached) === i && cached.group === group &&
        cached.timestamp?.epochMilliseconds === start + i
      ) item = cached
    }
    if (item === undefined) return i
    items.push(item)
  }
  return messages.length
}

/**
 * `Candidates.messageOf` read through the items' indexes (design 110): message `i`'s item
 * says `i` in its metadata (`MessageIndex`), and is `items[i]`; a map of a thousand entries a
 * call was most of the reuse scan's time. The same answers, entries and order as that map.
 */
class ItemMessages implements ReadonlyMap<ContextItem.ContextItem, Prompt.Message> {
  readonly #items: ReadonlyArray<ContextItem.ContextItem>
  readonly #messages: ReadonlyArray<Prompt.Message>
  constructor(items: ReadonlyArray<ContextItem.ContextItem>, messages: ReadonlyArray<Prompt.Message>) {
    this.#items = items
    this.#messages = messages
  }
  get size(): number {
    return this.#messages.length
  }
  get(item: ContextItem.ContextItem): Prompt.Message | undefined {
    const index = messageIndexOf(item)
    return index !== undefined && index < this.#messages.length && this.#items[index] === item
      ? this.#messages[index]
      : undefined
  }
  has(item: ContextItem.ContextItem): boolean {
    return this.get(item) !== undefined
  }
  forEach(
    callback: (value: Prompt.Message, key: ContextItem.ContextItem, map: ReadonlyMap<ContextItem.ContextItem, Prompt.Message>) => void,
    thisArg?: unknown
  ): void {
    for (let i = 0; i < this.#messages.length; i++) callback.call(thisArg, this.#messages[i]!, this.#items[i]!, this)
  }
  *entries(): MapIterator<[ContextItem.ContextItem, Prompt.Message]> {
    for (let i = 0; i < this.#messages.length; i++) yield [this.#items[i]!, this.#messages[i]!]
  }
  *keys(): MapIterator<ContextItem.ContextItem> {
    for (let i = 0; i < this.#messages.length; i++) yield this.#items[i]!
  }
  *values(): MapIterator<Prompt.Message> {
    for (let i = 0; i < this.#messages.length; i++) yield this.#messages[i]!
  }
  [Symbol.iterator](): MapIterator<[ContextItem.ContextItem, Prompt.Message]> {
    return this.entries()
  }
}

/** The item of message `i` (a generator function of the module: docs/design.md item 144). */
const makeItem = Effect.fnUntraced(function*(
  counter: TokenCounter["Service"],
  message: Prompt.Message,
  i: number,
  group: string | undefined,
  start: number,
  annotate: Options["annotate"]
) {
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
  const content = yield* renderEffect(message)
  if (annotation === undefined) {
    const made = builtItem(content, tokens, message, timestamp.value, group, i)
    if (made !== undefined) return made
  }
  const priority = annotation?.priority
  const hint = annotation?.futureRelevanceHint
  return yield* ContextItem.make({
    content,
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
 * The item of a message nobody annotated, made without the schema's parser (design 110): every
 * field is the library's own — the rendered text, a count already checked to be a safe
 * integer, a default kind and source, a checked instant, a group id from `ToolGroups` — so the
 * checks left are the two the library does not guarantee by construction (a non-empty content,
 * a non-empty group), made here. `undefined` when either fails, and the schema then words the
 * error as before.
 */
const builtItem = (
  content: string,
  tokens: number,
  message: Prompt.Message,
  timestamp: DateTime.Utc,
  group: string | undefined,
  i: number
): ContextItem.ContextItem | undefined => {
  if (content.length === 0 || group?.length === 0) return undefined
  return trusted(ContextItem.ContextItem, {
    content,
    tokens,
    kind: kindOf(message),
    source: "Chat",
    pinned: message.role === "system",
    tags: [],
    metadata: { role: message.role, [messageIndexKey]: i },
    timestamp,
    group
  })
}

/**
 * The tokens of message `index` by the counter. A counter function that throws
 * (`TokenCounter.make`'s `AiError`, read by `TokenCounter.thrownBy`) is the caller's code
 * failing on that message: a {@link CandidateError} on its `count`, as in every front door.
 *
 * @since 0.3.0
 * @category converting
 */
export const countMessage = (
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

/**
 * {@link toPrompt} with the message of an item read by `messageOf` (a fit reads the copies of
 * the items it kept, rule K2, beside the candidates' own).
 *
 * @since 0.3.0
 * @category converting
 */
export const promptOf = (
  window: ReadonlyArray<ContextItem.ContextItem>,
  messageOf: (item: ContextItem.ContextItem) => Prompt.Message | undefined
): Prompt.Prompt =>
  Prompt.fromMessages(window.map((item) => messageOf(item) ?? Prompt.systemMessage({ content: item.content })))

