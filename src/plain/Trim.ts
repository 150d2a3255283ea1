/**
 * Trim: a chat history in the OpenAI chat format fitted to a context window, by one awaited
 * call — no Effect needed.
 *
 * ```js
 * import { trim } from "effect-cupel/plain/Trim"
 *
 * const { messages: fitted, report } = await trim(messages, { contextWindow: 128_000, outputReserve: 4_000 })
 * ```
 *
 * It runs the session core's per-call fit (`Session.makePerCall`, the one behind every front
 * door) with the agent defaults (docs/ai.md, "Right within a call"): `RecencyScorer`,
 * `FirstFitSlice`, `SectionedPlacer.conversation`, no deduplication, the rules K1–K6, the budget
 * `contextWindow − outputReserve − requestOverhead − toolTokens`. The result holds the caller's own message objects — never copies — in the order they
 * came, system messages first; the one exception is a tool result shortened by rule K6, which
 * is a copy of its message with `content` the shortened text (`report.shortened` lists it).
 *
 * Counting: `count: "o200k"` (the default) or `"cl100k"` counts with `gpt-tokenizer`, an
 * optional peer dependency loaded when first needed; without it the call rejects with
 * `TokenizerLoadError`, which says to install it or to pass `count`. `count` may instead be a
 * function of a message (and its index) giving its tokens.
 *
 * The AI SDK's `ModelMessage`s take {@link trimModelMessages}: the same fit and result, the
 * messages checked and converted by `plain/ModelMessages` (nothing of `ai` is loaded).
 *
 * A failure rejects the promise with a typed error carrying `_tag`: `InvalidInput` (a message
 * not in the chat format: its `index` and `field`; an option it does not know — with the one it
 * most likely stands for — or out of range, the value printed as JSON; a window that leaves the
 * messages no room),
 * `TokenizerLoadError`, `CandidateError` (the `count` function threw or gave no count: its
 * `index`, as every front door reports a counter that throws), `ToolDefinitionsError`
 * (`toolTokens` larger than the room the window leaves), `PinnedBudgetError` (the system
 * messages alone do not fit), `TurnBudgetError` (the newest user message does not fit beside
 * them: never a window that answers an earlier one).
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import { Prompt } from "effect/ai"
import { describeJson, describeThrown } from "../internal/describeThrown.ts"
import * as OverflowNotifier from "../OverflowNotifier.ts"
import * as GptTokenizer from "../ai/GptTokenizer.ts"
import { messageIndexOf } from "../ai/MessageIndex.ts"
import * as MediaTokens from "../ai/MediaTokens.ts"
import * as PromptWindow from "../ai/PromptWindow.ts"
import * as Session from "../ai/Session.ts"
import * as SessionOptions from "../ai/SessionOptions.ts"
import * as Shorten from "../ai/Shorten.ts"
import * as TokenCounter from "../ai/TokenCounter.ts"
import * as ToolDefinitions from "../ai/ToolDefinitions.ts"
import { InvalidInput } from "./InvalidInput.ts"
import * as EncodingCounters from "./internal/encodingCounters.ts"
import * as ModelMessages from "./ModelMessages.ts"
import * as OpenAIChat from "./OpenAIChat.ts"

/**
 * Options of {@link trim}.
 *
 * - `contextWindow` — the model's context window in tokens (prompt and answer).
 * - `outputReserve` — the tokens kept free for the answer (default 0).
 * - `count` — `"o200k"` (default), `"cl100k"`, or a function giving a message's tokens (a
 *   message of the format passed: `OpenAIChat.Message` for {@link trim}, `ModelMessage` for
 *   {@link trimModelMessages}).
 * - `toolTokens` — what the request's tool definitions take (default 0: a trim does not see
 *   them), a whole number taken off the budget by the session core's rule, as `prepareStep`'s:
 *   definitions that take more than the room the window leaves reject the call with
 *   `ToolDefinitionsError`.
 * - `startOn` — `"user"` (default): the window opens on a user message (K3); `"any"`: no rule.
 * - `shortenToolResults` — `true` (default): rule K6 (see docs/ai.md).
 * - `media` — whose rule counts images and PDFs with `"o200k"`/`"cl100k"`: `"openai"`
 *   (default), `"anthropic"` or `"gemini"` (`MediaTokens`, docs/ai.md "Images and files"); a
 *   `count` function counts a message's files itself (`MediaTokens.ofPart` helps).
 * - `mode` — `"per-call"`, the only mode a trim has (it keeps nothing between calls); accepted
 *   so that one option table serves every front door, any other value refused.
 *
 * @since 0.3.0
 * @category models
 */
export interface Options<M = OpenAIChat.Message> {
  readonly contextWindow: number
  readonly outputReserve?: number | undefined
  readonly count?: "o200k" | "cl100k" | ((message: M, index: number) => number) | undefined
  /** @since 0.3.0 */
  readonly toolTokens?: number | undefined
  readonly startOn?: "user" | "any" | undefined
  readonly shortenToolResults?: boolean | undefined
  /** @since 0.3.0 */
  readonly mode?: "per-call" | undefined
  /** @since 0.3.0 */
  readonly media?: MediaTokens.Provider | undefined
}

/**
 * What a trim did, by message index in the input.
 *
 * - `kept` / `dropped` — the indices sent and left out, ascending.
 * - `shortened` — the tool messages sent shortened (rule K6), with `keptTokens` the tokens of
 *   the shortened message sent (the counter's count of the copy, which a cut ending on a line
 *   or word leaves at or below the room it aimed at): they add up to `tokens` with the others.
 * - `tokens` — the tokens of the messages sent; `requestOverhead` — what the request costs
 *   besides them (the reply priming of the chat format: 3 with `gpt-tokenizer`, 0 with a
 *   function); `targetTokens` — what the messages had: `contextWindow - outputReserve -
 *   requestOverhead - toolTokens`.
 *
 * @since 0.3.0
 * @category models
 */
export interface Report {
  readonly kept: ReadonlyArray<number>
  readonly dropped: ReadonlyArray<number>
  readonly shortened: ReadonlyArray<{ readonly index: number; readonly keptTokens: number }>
  readonly tokens: number
  readonly requestOverhead: number
  readonly targetTokens: number
}

/**
 * The messages to send and the {@link Report}.
 *
 * @since 0.3.0
 * @category models
 */
export interface Trimmed<M> {
  readonly messages: Array<M>
  readonly report: Report
}

/**
 * What {@link trimEffect} fails with (the tags {@link trim} rejects with).
 *
 * @since 0.3.0
 * @category errors
 */
export type TrimError =
  | InvalidInput
  | GptTokenizer.TokenizerLoadError
  | PromptWindow.CandidateError
  | ToolDefinitions.ToolDefinitionsError
  | PromptWindow.FitError

const hint = "or pass count: (message) => tokens to trim"

/**
 * Makes the copy of a caller's message that a K6-shortened prompt message stands for, or
 * `undefined` when it cannot (not a tool message).
 */
type ShortenedCopy<M> = (original: M, shortened: Prompt.Message) => M | undefined

/**
 * The items made with a count function's counts, and the count each prompt message's item
 * holds (docs/design.md item 105), by function: the same function at the next call finds them.
 */
interface FunctionItems {
  readonly itemCache: PromptWindow.ItemCache
  readonly counts: WeakMap<Prompt.Message, number>
  /**
   * The messages and counts of the last call that was given these items (docs/design.md item
   * 130): a call of the same messages counting the same finds every count held as it is.
   */
  last: { readonly prompt: ReadonlyArray<Prompt.Message>; readonly counts: ReadonlyArray<number> } | undefined
}

/** A count function's items, held as long as the function is (a module memo of a pure call). */
const functionItems = new WeakMap<object, FunctionItems>()

/**
 * The items of a count function for a call whose messages count `counts`: those it made before,
 * when every message it made an item for counts the same again; else a new cache (a function
 * whose answers changed: nothing made with the old ones is reused).
 */
const itemsOf = (
  count: object,
  prompt: ReadonlyArray<Prompt.Message>,
  ns: ReadonlyArray<number>
): PromptWindow.ItemCache => {
  const items = functionItems.get(count)
  const last = items?.last
  if (items !== undefined && last !== undefined) {
    const shared = sharedPrefix(last.prompt, last.counts, prompt, ns)
    // The last call's messages and counts again (item 130): each of its messages is held with
    // the count it has now, so the walk below would find them all the same and change nothing.
    if (shared === last.prompt.length && shared === prompt.length) return items.itemCache
    // The last call's messages and counts, then new ones (an agent's next call; item 139):
    // those are held with the counts they have now, so only the new ones are compared.
    if (shared === last.prompt.length && heldAfter(items, prompt, ns, shared)) {
      items.last = { prompt: prompt.slice(), counts: ns }
      return items.itemCache
    }
  }
  const counts = countsOf(prompt, ns)
  const made = itemsByCounts(items, count, counts)
  made.last = { prompt: prompt.slice(), counts: ns }
  return made.itemCache
}

/** How many leading places two calls share: the same message, counting the same. */
const sharedPrefix = (
  prompt: ReadonlyArray<Prompt.Message>,
  ns: ReadonlyArray<number>,
  otherPrompt: ReadonlyArray<Prompt.Message>,
  otherNs: ReadonlyArray<number>
): number => {
  const n = Math.min(prompt.length, otherPrompt.length)
  for (let i = 0; i < n; i++) {
    if (prompt[i] !== otherPrompt[i] || ns[i] !== otherNs[i]) return i
  }
  return n
}

/**
 * Whether the messages from place `from` on count what the items hold for them, those not held
 * recorded with their counts: {@link itemsByCounts}' answer, for a call whose places before
 * `from` are the last call's, each counting the same. Every message of the last call is held
 * with its count at the last place it stood (that call recorded or compared it so), so only a
 * message standing from `from` on can differ, by its count at its last place — a message's
 * count is its last place's, as in {@link countsOf}. A message not held is recorded with that
 * count, as {@link itemsByCounts} records it (the same entry, should the walk be made after
 * all). Past `maxNew` new places: no answer (`false`), and the walk is made.
 */
const heldAfter = (items: FunctionItems, prompt: ReadonlyArray<Prompt.Message>, ns: ReadonlyArray<number>, from: number): boolean => {
  if (prompt.length - from > maxNew) return false
  for (let i = from; i < prompt.length; i++) {
    const message = prompt[i]!
    let later = false
    for (let j = i + 1; j < prompt.length && !later; j++) later = prompt[j] === message
    if (later) continue
    const held = items.counts.get(message)
    if (held === undefined) items.counts.set(message, ns[i]!)
    else if (held !== ns[i]) return false
  }
  return true
}

/** The most new places {@link heldAfter} compares (pairwise, for a message's last place). */
const maxNew = 64

/** The places from the end where a counted message is looked for before the map of them all is made. */
const recentPlaces = 64

/** Each message's count, the last of its places' when it stands at several. */
const countsOf = (prompt: ReadonlyArray<Prompt.Message>, ns: ReadonlyArray<number>): Map<Prompt.Message, number> => {
  const counts = new Map<Prompt.Message, number>()
  for (let i = 0; i < ns.length; i++) counts.set(prompt[i]!, ns[i]!)
  return counts
}

/** The items of a count function for counts: those held when every count held is the same. */
const itemsByCounts = (
  items: FunctionItems | undefined,
  count: object,
  counts: ReadonlyMap<Prompt.Message, number>
): FunctionItems => {
  if (items !== undefined) {
    let same = true
    for (const [message, n] of counts) {
      const held = items.counts.get(message)
      if (held === undefined) items.counts.set(message, n)
      else if (held !== n) {
        same = false
        break
      }
    }
    if (same) return items
  }
  const made: FunctionItems = { itemCache: PromptWindow.makeItemCache(), counts: new WeakMap(), last: undefined }
  for (const [message, n] of counts) made.counts.set(message, n)
  functionItems.set(count, made)
  return made
}

/**
 * The counter of the options, and the items made before with the same counts (item 83: an
 * encoding's counter; item 105: a function's, each message's count asked again at every call so
 * that a throw names its message, its items reused while the function answers the same).
 */
const counterOf = <M>(
  messages: ReadonlyArray<M>,
  prompt: ReadonlyArray<Prompt.Message>,
  count: Options<M>["count"],
  shortenedCopy: ShortenedCopy<M>,
  media: MediaTokens.Provider | undefined
): Effect.Effect<
  readonly [TokenCounter.TokenCounter["Service"], PromptWindow.ItemCache | undefined],
  GptTokenizer.TokenizerLoadError | PromptWindow.CandidateError
> => {
  if (count === undefined || count === "o200k" || count === "cl100k") {
    const encoding = count === "cl100k" ? "cl100k_base" : "o200k_base"
    // One counter an encoding for the process: counts already made are reused (item 83).
    return EncodingCounters.counterOf(encoding, media).pipe(
      Effect.mapError((error) => new GptTokenizer.TokenizerLoadError({ encoding, cause: error.cause, hint })),
      Effect.map((counting) => [counting.counter, counting.itemCache] as const)
    )
  }
  return Effect.suspend(() => {
    // The counts by place; by message only when the fit counts one (item 130: most calls find
    // every item made, and count none).
    const ns: Array<number> = new Array(messages.length)
    let counts: Map<Prompt.Message, number> | undefined
    // The message each tool result answers in, by call id: a shortened copy is counted as the
    // caller's message it stands for. Made at the first such copy (docs/design.md item 125):
    // most calls shorten nothing, and the index was half a thousand keys a call.
    let toolIndex: Map<string, number> | undefined
    const toolIndexOf = (): Map<string, number> => {
      if (toolIndex !== undefined) return toolIndex
      const index = new Map<string, number>()
      for (let i = 0; i < prompt.length; i++) {
        const converted = prompt[i]!
        if (converted.role !== "tool") continue
        for (const part of converted.content) if (part.type === "tool-result") index.set(part.id, i)
      }
      toolIndex = index
      return index
    }
    // One plain loop: a thousand messages are a thousand calls of the function, not a thousand effects.
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i]!
      let n: number
      try {
        n = count(message, i)
      } catch (cause) {
        return Effect.fail(
          new PromptWindow.CandidateError({ index: i, field: "count", problem: `threw: ${describeThrown(cause)}`, cause })
        )
      }
      ns[i] = n
    }
    // A tool message shortened by rule K6 is counted as the copy the caller would be sent.
    const counter = TokenCounter.service((message) => {
      // A call counts the messages its items are not made for yet: an agent's newest, at the
      // end. Found there by pointer before a map of the thousand is made (item 139); the last
      // place first, whose count is the message's (as in `countsOf`).
      if (counts === undefined) {
        for (let i = prompt.length - 1; i >= 0 && i >= prompt.length - recentPlaces; i--) {
          if (prompt[i] === message) return ns[i]!
        }
        counts = countsOf(prompt, ns)
      }
      const known = counts.get(message)
      if (known !== undefined) return known
      const id = message.role === "tool" ? message.content.find((part) => part.type === "tool-result")?.id : undefined
      const index = id === undefined ? undefined : toolIndexOf().get(id)
      const original = index === undefined ? undefined : messages[index]
      const copy = original === undefined ? undefined : shortenedCopy(original, message)
      // Only the fit's shortened tool messages are new objects; anything else is a bug here,
      // reported as the count failing rather than counted as free.
      if (copy === undefined || index === undefined) {
        throw new Error(`a ${message.role} message that is not in the input was counted`)
      }
      return count(copy, index)
    }, 0, "count")
    return Effect.succeed([counter, itemsOf(count, prompt, ns)] as const)
  })
}

/** The options {@link trim} knows, and their rules (the session core's where they are its). */
const knownOptions: Readonly<Record<string, SessionOptions.Rule>> = {
  contextWindow: SessionOptions.core.contextWindow,
  outputReserve: SessionOptions.core.outputReserve,
  count: (value) =>
    value === "o200k" || value === "cl100k" || typeof value === "function"
      ? undefined
      : SessionOptions.rules.oneOf(["o200k", "cl100k"])(value, {})?.replace(/ \(got/, " or a function (got"),
  // prepareStep's rule: the tokens the caller counted for the request's tools.
  toolTokens: SessionOptions.rules.nonNegativeInt,
  startOn: SessionOptions.core.startOn,
  shortenToolResults: SessionOptions.core.shortenToolResults,
  media: SessionOptions.rules.oneOf(["openai", "anthropic", "gemini"]),
  mode: (value) =>
    value === "per-call"
      ? undefined
      : `must be "per-call": a trim fits every call from scratch (got ${describeJson(value)})`
}

/** The options, checked: an option problem is an `InvalidInput` naming it. */
const checkOptions = (options: unknown): Effect.Effect<void, InvalidInput> => {
  const problem = SessionOptions.check(options, knownOptions)
  return problem === undefined ? Effect.void : Effect.fail(new InvalidInput({ field: problem.path, problem: problem.rule }))
}

/**
 * The options the session's fit reads: none of them depends on the message type, so the fit
 * below is one generator function of the module for every message format.
 */
type FitSettings = Pick<Options<never>, "contextWindow" | "outputReserve" | "startOn" | "shortenToolResults" | "toolTokens">

/**
 * The session's fit of one call's prompt, with its counter and items: a generator function of
 * the module taking its values as arguments, never a generator closure made at every call
 * (docs/design.md item 144: on Node 22 a call's generator closures keep the values they close
 * over past two scavenges, and the whole call was promoted to the old generation).
 */
const fitPrompt = Effect.fnUntraced(function*(
  prompt: ReadonlyArray<Prompt.Message>,
  options: FitSettings,
  itemCache: PromptWindow.ItemCache | undefined
) {
  const { requestOverhead } = yield* TokenCounter.TokenCounter
  const session = yield* Session.makePerCall({
    contextWindow: options.contextWindow,
    outputReserve: options.outputReserve ?? 0,
    // Nothing to tell: the overflow strategy is Throw.
    notifier: OverflowNotifier.layerNoop,
    ...(itemCache === undefined ? {} : { itemCache }),
    ...(options.startOn === undefined ? {} : { startOn: options.startOn }),
    ...(options.shortenToolResults === undefined ? {} : { shortenToolResults: options.shortenToolResults })
  }).pipe(
    Effect.mapError((error) => new InvalidInput({ field: error.path, problem: error.rule }))
  )
  // fromMessages keeps the message objects (a raw array would be decoded into new ones), which
  // the counts of a count function are keyed by.
  const fitting = yield* session.fit({
    method: "trim",
    prompt: Prompt.fromMessages(prompt),
    ...(options.toolTokens === undefined ? {} : { toolReserve: options.toolTokens })
  })
  // The messages are handed back to be sent: the call is settled as sent (its figures on
  // the metrics, as an AI SDK step's).
  yield* session.settle(fitting, { outcome: "sent" })
  return { result: fitting.fitted, requestOverhead, targetTokens: fitting.budget.targetTokens }
})

/** What {@link fitPrompt} gives: the fit, and the figures the report reads. */
type Fit = Effect.Success<ReturnType<typeof fitPrompt>>

/** The fit of messages already checked and converted (`prompt[i]` is `messages[i]`'s). */
const fitConverted = <M>(
  messages: ReadonlyArray<M>,
  prompt: ReadonlyArray<Prompt.Message>,
  options: Options<M>,
  shortenedCopy: ShortenedCopy<M>
): Effect.Effect<Trimmed<M>, TrimError> =>
  Effect.flatMap(
    counterOf(messages, prompt, options.count, shortenedCopy, options.media),
    ([counter, itemCache]) =>
      fitPrompt(prompt, options, itemCache).pipe(
        Effect.scoped,
        Effect.provideService(TokenCounter.TokenCounter, counter),
        // The counter is the caller's function or gpt-tokenizer's, made to fail only as a
        // CandidateError (a function's throw was found before the fit, on the same messages);
        // an AiError here is a throw of the function on a shortened copy.
        Effect.catchTag("AiError", (error) =>
          Effect.fail(new PromptWindow.CandidateError({ index: -1, field: "count", problem: `threw: ${error.message}` }))),
        Effect.map((fitted) => trimmedOf(messages, fitted, shortenedCopy))
      )
  )

/** The caller's messages a fit keeps, in its order, and the report of it. */
const trimmedOf = <M>(messages: ReadonlyArray<M>, fitted: Fit, shortenedCopy: ShortenedCopy<M>): Trimmed<M> => {
  const { result, requestOverhead, targetTokens } = fitted
  const out: Array<M> = []
  const kept: Array<number> = []
  // The messages sent shortened (rule K6), read off their items as every door reads them: the
  // tokens of the copy sent, which add up to `tokens`.
  const shortened: Array<{ readonly index: number; readonly keptTokens: number }> = []
  let tokens = 0
  const window = result.result.window
  for (let k = 0; k < window.length; k++) {
    const item = window[k]!
    const index = messageIndexOf(item) ?? -1
    const original = messages[index]
    if (original === undefined) continue
    tokens += item.tokens
    kept.push(index)
    const copy = Shorten.shortenedOf(item) === undefined ? undefined : shortenedCopy(original, result.prompt.content[k]!)
    if (copy !== undefined) shortened.push({ index, keptTokens: item.tokens })
    out.push(copy ?? original)
  }
  // The kept indices marked in an array, not a set of a thousand numbers (design 130).
  const sent = new Uint8Array(messages.length)
  for (const index of kept) sent[index] = 1
  const dropped: Array<number> = []
  for (let i = 0; i < messages.length; i++) if (sent[i] === 0) dropped.push(i)
  return {
    messages: out,
    report: {
      kept: kept.slice().sort((a, b) => a - b),
      dropped,
      shortened: shortened.sort((a, b) => a.index - b.index),
      tokens,
      requestOverhead,
      targetTokens
    }
  }
}

/**
 * The trim of messages another door has read and converted (`prompt[i]` is `messages[i]`'s
 * `effect/ai` form; the LangChain adapter's `trimBaseMessages`): the options checked, then the
 * same fit and result as {@link trim}'s. `shortenedCopy` makes the copy of a caller's message
 * that a K6-shortened tool result stands for (`undefined`: it cannot, and the message is sent
 * whole).
 *
 * @since 0.3.0
 * @category running
 */
export const trimConverted = <M>(
  messages: ReadonlyArray<M>,
  prompt: ReadonlyArray<Prompt.Message>,
  options: Options<M>,
  shortenedCopy: (original: M, shortened: Prompt.Message) => M | undefined
): Effect.Effect<Trimmed<M>, TrimError> =>
  Effect.andThen(checkOptions(options), fitConverted(messages, prompt, options, shortenedCopy))

// An OpenAI tool message shortened by K6: the caller's message with `content` the shortened text.
const openAIShortened = <M extends OpenAIChat.Message>(original: M, shortened: Prompt.Message): M | undefined => {
  const text = OpenAIChat.resultText(shortened)
  return text === undefined ? undefined : { ...original, content: text }
}

/**
 * {@link trim} as an Effect: the same work, its failures typed ({@link TrimError}).
 *
 * @since 0.3.0
 * @category running
 */
export const trimEffect = <M extends OpenAIChat.Message>(
  messages: ReadonlyArray<M>,
  options: Options<OpenAIChat.Message>
): Effect.Effect<Trimmed<M>, TrimError> =>
  // The window is made of the caller's own objects (`messages`); they are checked and
  // converted, a content seen before not again (item 83). Arrows, not a generator closure over
  // the call (item 144).
  Effect.andThen(
    checkOptions(options),
    Effect.flatMap(OpenAIChat.convert(messages), (prompt) => fitConverted(messages, prompt, options, openAIShortened))
  )

/**
 * {@link trimModelMessages} as an Effect: the same work, its failures typed ({@link TrimError}).
 *
 * @since 0.3.0
 * @category running
 */
export const trimModelMessagesEffect = <M extends ModelMessages.ModelMessage>(
  messages: ReadonlyArray<M>,
  options: Options<ModelMessages.ModelMessage>
): Effect.Effect<Trimmed<M>, TrimError> =>
  Effect.andThen(
    checkOptions(options),
    Effect.flatMap(ModelMessages.convert(messages), (prompt) => fitConverted(messages, prompt, options, ModelMessages.shortenedCopy))
  )

/**
 * Fits `messages` (OpenAI chat format) into `contextWindow - outputReserve` tokens: resolves
 * with the messages to send — the caller's own objects — and a {@link Report}; rejects with a
 * typed error carrying `_tag` (`InvalidInput`, `TokenizerLoadError`, `CandidateError`,
 * `ToolDefinitionsError`, `PinnedBudgetError`, `TurnBudgetError`).
 *
 * @example
 * ```js
 * import { trim } from "effect-cupel/plain/Trim"
 *
 * const { messages } = await trim(history, { contextWindow: 8_000, outputReserve: 1_000 })
 * ```
 *
 * @since 0.3.0
 * @category running
 */
export const trim = <M extends OpenAIChat.Message>(messages: ReadonlyArray<M>, options: Options): Promise<Trimmed<M>> =>
  Effect.runPromise(trimEffect(messages, options))

/**
 * {@link trim} for the AI SDK's `ModelMessage`s (`generateText`'s `messages`, what
 * `prepareStep` holds): the same fit, resolving with the caller's own message objects. A tool
 * message shortened by K6 is a copy of its message (`{ ...message, content }`) whose tool
 * results hold the shortened text. `count` may be a function of a `ModelMessage`. Only the AI
 * SDK's types are used: `ai` is not loaded. A separate call rather than a guess at the format:
 * `{ role: "user", content: "hi" }` is a message of both formats, and the `count` function is
 * typed by the one named.
 *
 * @example
 * ```js
 * import { trimModelMessages } from "effect-cupel/plain/Trim"
 *
 * const { messages } = await trimModelMessages(modelMessages, { contextWindow: 8_000, outputReserve: 1_000 })
 * ```
 *
 * @since 0.3.0
 * @category running
 */
export const trimModelMessages = <M extends ModelMessages.ModelMessage>(
  messages: ReadonlyArray<M>,
  options: Options<ModelMessages.ModelMessage>
): Promise<Trimmed<M>> => Effect.runPromise(trimModelMessagesEffect(messages, options))
