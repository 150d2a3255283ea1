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
 *   chronological placer keeps the conversation's order;
 * - an assistant message's tool calls and the tool messages holding their results (matched by
 *   call id), and approval requests with their responses (matched by approval id), share a
 *   `group`: the pipeline keeps them together — selected or excluded as one unit, adjacent
 *   and in order in the window. Tool results inside the assistant message that made the call
 *   (provider-executed tools) are in the same item already.
 * - each item's `tokens` come from the `TokenCounter` service; its `content` is what the
 *   message says, as {@link render} writes it (what deduplication compares and reports show).
 *
 * {@link fit} runs the pipeline on those candidates and {@link toPrompt} turns the window back
 * into a prompt of the original message objects. As the groups are never split, the window
 * holds no tool result without its call and no call without its results, unless the input
 * prompt already did ({@link orphans} finds those).
 *
 * @since 0.2.0
 */
import { Effect } from "effect"
import type { AiError } from "effect/ai"
import { Prompt } from "effect/ai"
import type { ContextBudget } from "../ContextBudget.ts"
import { ContextItem } from "../ContextItem.ts"
import * as ContextKind from "../ContextKind.ts"
import * as Pipeline from "../Pipeline.ts"
import type { PipelineResult } from "../PipelineResult.ts"
import { fromEpochMillis } from "../Timestamp.ts"
import { TokenCounter } from "./TokenCounter.ts"

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
  readonly documents?: ReadonlyArray<ContextItem> | undefined
  readonly startMillis?: number | undefined
}

/**
 * The candidates of a prompt, and the message each came from.
 *
 * @since 0.2.0
 * @category models
 */
export interface Candidates {
  readonly items: ReadonlyArray<ContextItem>
  readonly messageOf: ReadonlyMap<ContextItem, Prompt.Message>
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
 * through others) share one, named after the first message's index; a message linked to no
 * other has none.
 *
 * @since 0.2.0
 * @category grouping
 */
export const groups = (messages: ReadonlyArray<Prompt.Message>): Array<string | undefined> => {
  // Union-find over message indices, joined through the first message seen with each id.
  const parent = messages.map((_, i) => i)
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
  const firstWith = new Map<string, number>()
  for (let i = 0; i < messages.length; i++) {
    for (const link of linksOf(messages[i]!)) {
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
  const size = new Map<number, number>()
  for (let i = 0; i < messages.length; i++) size.set(find(i), (size.get(find(i)) ?? 0) + 1)
  return messages.map((_, i) => {
    const root = find(i)
    return (size.get(root) ?? 0) > 1 ? `message-${root}` : undefined
  })
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
 * @since 0.2.0
 * @category converting
 */
export const toCandidates = (
  prompt: Prompt.RawInput,
  options?: Options
): Effect.Effect<Candidates, AiError.AiError, TokenCounter> =>
  Effect.gen(function*() {
    const counter = yield* TokenCounter
    const messages = Prompt.make(prompt).content
    const groupOf = groups(messages)
    const start = options?.startMillis ?? 0
    const items: Array<ContextItem> = []
    const messageOf = new Map<ContextItem, Prompt.Message>()
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i]!
      const tokens = yield* counter.count(message)
      const annotation = options?.annotate?.(message, i)
      const group = groupOf[i]
      const priority = annotation?.priority
      const hint = annotation?.futureRelevanceHint
      const item = new ContextItem({
        content: render(message),
        tokens,
        kind: annotation?.kind ?? kindOf(message),
        source: "Chat",
        pinned: annotation?.pinned ?? message.role === "system",
        tags: annotation?.tags ?? [],
        metadata: { ...annotation?.metadata, role: message.role, messageIndex: i },
        timestamp: fromEpochMillis(start + i),
        ...(priority === undefined ? {} : { priority }),
        ...(hint === undefined ? {} : { futureRelevanceHint: hint }),
        ...(group === undefined ? {} : { group })
      })
      items.push(item)
      messageOf.set(item, message)
    }
    for (const document of options?.documents ?? []) items.push(document)
    return { items, messageOf }
  })

/**
 * The prompt of a window: each item's original message, in the window's order; an item that
 * came from no message (a document) becomes a system message of its content.
 *
 * @since 0.2.0
 * @category converting
 */
export const toPrompt = (window: ReadonlyArray<ContextItem>, candidates: Candidates): Prompt.Prompt =>
  Prompt.fromMessages(
    window.map((item) => candidates.messageOf.get(item) ?? Prompt.systemMessage({ content: item.content }))
  )

/**
 * Fits a prompt into a budget: {@link toCandidates}, `Pipeline.run` (with the scorer, slicer,
 * placer and notifier in context), {@link toPrompt}. Pipeline failures — `OverflowError` under
 * the `Throw` strategy, `PinnedBudgetError` when the pinned messages alone cannot fit — are in
 * the error channel, as are the token counter's.
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
  options?: Options & Pipeline.Options
): Effect.Effect<Fitted, Pipeline.PipelineError | AiError.AiError, Pipeline.Services | TokenCounter> =>
  Effect.gen(function*() {
    const candidates = yield* toCandidates(prompt, options)
    const result = yield* Pipeline.run(candidates.items, budget, options)
    return { prompt: toPrompt(result.window, candidates), result }
  }).pipe(Effect.withSpan("cupel.prompt_window.fit"))
