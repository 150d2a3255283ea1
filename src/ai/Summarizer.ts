/**
 * Summarizer: one summary message for the messages a compaction drops (issue 19; docs/ai.md, "Compaction with summaries").
 *
 * A stable window compacts in one step (docs/ai.md, rule S4): the messages it leaves out are
 * gone from the model's view. A {@link Summarizer} turns that span — the dropped messages, oldest
 * first, tool calls with their results — and the summary it replaces ({@link SummaryRequest.previous})
 * into one new summary, which {@link summaryMessage} makes into the message that stands in the
 * window where the old one stood.
 *
 * Two ways to get one:
 *
 * - {@link layerLanguageModel}: a `LanguageModel` writes it. The request is the conversation's
 *   last request as it was sent, plus one short appended user message with the instruction that
 *   names the span's messages by their places in it — so a provider whose cache holds that
 *   request serves all but the last message from it, and the span is not sent twice (the
 *   "window guard" below sends the span alone, then in chunks, only when that does not fit the
 *   summariser's own window).
 * - {@link make}: your own function (sync, async or an `Effect`).
 *
 * Both fail soft, loudly: a summariser that fails, throws, times out, answers with empty text or
 * with more than the request's `maxTokens` fails with a typed {@link SummarizerError} naming it
 * and the {@link SummarizerError.reason} — never with a defect, and its error text never becomes a
 * summary. The caller (the stable window) then compacts without a summary and says so in its
 * report.
 *
 * @since 0.3.0
 */
import { Context, Duration, Effect, Layer, Option, Schema } from "effect"
import type { Response, Toolkit } from "effect/ai"
import { AiError, LanguageModel, Prompt } from "effect/ai"
import { InvalidConfigError } from "../InvalidConfigError.ts"
import { describeThrown } from "../internal/describeThrown.ts"
import * as PromptWindow from "./PromptWindow.ts"
import { TokenCounter } from "./TokenCounter.ts"
import * as ToolDefinitions from "./ToolDefinitions.ts"

/**
 * What to summarise.
 *
 * - `span` — the messages the compaction drops, oldest first, each tool call with its results
 *   (groups whole). The summary message a previous compaction placed is not part of it: its text
 *   is `previous`.
 * - `previous` — the text of the summary this one replaces (rule: summaries are frozen and
 *   append-only; the next compaction folds the old summary and the newly dropped span into a new
 *   one placed where the old one stood).
 * - `context` — the conversation's last request as it was sent (the window, system prompt
 *   first). A `LanguageModel` summariser sends it unchanged as its request's prefix, so that the
 *   provider can read it from its cache; `[]` for none.
 * - `tools` — the tool definitions that request offered, in its order (absent or `[]` for
 *   none). Providers put the tools first in what they cache (Anthropic: tools, then system,
 *   then messages; OpenAI likewise), so a request with the context but without its tools
 *   misses the cache: a `LanguageModel` summariser sends them with the context, and runs none
 *   of them. A summariser of your own may ignore them.
 * - `maxTokens` — the summary's own budget: its text, counted as one user message by the
 *   `TokenCounter`, may cost at most this many tokens.
 *
 * @since 0.3.0
 * @category models
 */
export interface SummaryRequest {
  readonly span: ReadonlyArray<Prompt.Message>
  readonly previous?: string | undefined
  readonly context: ReadonlyArray<Prompt.Message>
  readonly tools?: ReadonlyArray<ToolDefinitions.AnyTool> | undefined
  readonly maxTokens: number
}

/**
 * The tokens a summariser's model reported, summed over its requests (a figure no request
 * reported is `undefined`).
 *
 * @since 0.3.0
 * @category models
 */
export interface SummaryUsage {
  readonly inputTokens: number | undefined
  readonly outputTokens: number | undefined
  /** Input tokens read from the provider's cache. */
  readonly cacheReadTokens: number | undefined
  /** Input tokens written to the provider's cache. */
  readonly cacheWriteTokens: number | undefined
}

/**
 * A summary: its text (trimmed, never empty), its `tokens` (the text counted as one user message
 * by the `TokenCounter`; at most the request's `maxTokens`), how many requests wrote it (`chunks`:
 * 1 when the span fitted one request, more when it was summarised in chunks, 0 when the span was
 * empty and `previous` was kept as it is), whether the request carried the conversation's context
 * as its prefix (`withContext`), and what the model reported (`usage`, when it did).
 *
 * @since 0.3.0
 * @category models
 */
export interface Summary {
  readonly text: string
  readonly tokens: number
  readonly chunks: number
  readonly withContext: boolean
  readonly usage?: SummaryUsage | undefined
}

/**
 * Why a summariser gave no summary:
 *
 * - `failed` — the model or the function failed, threw, rejected, died, or returned something
 *   other than a string (or the token counter failed on the summary);
 * - `timeout` — it took longer than the `timeout` option;
 * - `empty` — its text was empty once trimmed (or there was nothing to summarise);
 * - `over-budget` — its text costs more than `maxTokens` (or the model stopped for length);
 * - `span-too-large` — a single message of the span does not fit the summariser's window, even
 *   alone.
 *
 * @since 0.3.0
 * @category models
 */
export const Reason = Schema.Literals(["failed", "timeout", "empty", "over-budget", "span-too-large"])

/**
 * @since 0.3.0
 * @category models
 */
export type Reason = typeof Reason.Type

/**
 * A summariser gave no summary: `summarizer` names it (the layer's `name` option, or
 * {@link make}'s name), `reason` says why and `detail` what happened. What the summariser said
 * when it failed is in `detail`, never in a summary.
 *
 * @since 0.3.0
 * @category errors
 */
export class SummarizerError extends Schema.TaggedError<SummarizerError>()("SummarizerError", {
  summarizer: Schema.String,
  reason: Reason,
  detail: Schema.String
}) {
  override get message(): string {
    return `the summariser "${this.summarizer}" gave no summary (${this.reason}): ${this.detail}`
  }
}

/**
 * The summariser service.
 *
 * @since 0.3.0
 * @category services
 */
export class Summarizer extends Context.Service<Summarizer, {
  /** The summariser's name, as its errors give it. */
  readonly name: string
  readonly summarize: (request: SummaryRequest) => Effect.Effect<Summary, SummarizerError>
}>()("effect-cupel/ai/Summarizer") {}

/**
 * The instruction of {@link layerLanguageModel}'s requests, unless its `instruction` option says
 * otherwise. The request's message adds the budget (`at most N tokens`), the summary so far and
 * the messages.
 *
 * @since 0.3.0
 * @category constants
 */
export const defaultInstruction =
  "Summarise the conversation messages named below for your own later use: they are about to be removed from the " +
  "conversation, and your summary will stand in their place. Keep what the rest of the conversation may need: " +
  "the user's goals and requests, decisions made and why, facts learned (from tool results too), names, " +
  "identifiers, numbers, file paths, and open questions. Leave out greetings and repetition. Answer with the " +
  "summary alone, in plain text."

/**
 * How long a summary may take unless the `timeout` option says otherwise: 2 minutes, for all of
 * its requests together. `Duration.infinity` turns the limit off.
 *
 * @since 0.3.0
 * @category constants
 */
export const defaultTimeout: Duration.Duration = Duration.minutes(2)

/**
 * The first line of a summary message, before the summary's text.
 *
 * @since 0.3.0
 * @category rendering
 */
export const summaryHeader = (id: string): string => `[Summary of the earlier conversation, id ${id}]`

const headerPattern = /^\[Summary of the earlier conversation, id ([^\]\n]*)\]\n/

/**
 * The message that stands in the window for the messages a compaction dropped: a **user**
 * message, its text {@link summaryHeader} then the summary's text.
 *
 * A user message rather than a system one: several providers accept a system message only at
 * the start (Anthropic's API hoists system text out of the messages), while a user message is
 * accepted anywhere by all; placed after the system prompt, it also opens the window on a user
 * message (docs/ai.md, rule K3). The header says what it is, so the model does not take it for
 * the user's words, and carries an id so that two summaries never read alike.
 *
 * @since 0.3.0
 * @category constructors
 */
export const summaryMessage = (summary: Pick<Summary, "text">, id: string): Prompt.UserMessage =>
  Prompt.userMessage({ content: [Prompt.textPart({ text: `${summaryHeader(id)}\n${summary.text}` })] })

/**
 * The id and text of a message {@link summaryMessage} made; `undefined` for any other message.
 *
 * @since 0.3.0
 * @category rendering
 */
export const readSummaryMessage = (
  message: Prompt.Message
): { readonly id: string; readonly text: string } | undefined => {
  if (message.role !== "user" || message.content.length !== 1) return undefined
  const part = message.content[0]!
  if (part.type !== "text") return undefined
  const match = headerPattern.exec(part.text)
  if (match === null) return undefined
  return { id: match[1]!, text: part.text.slice(match[0].length) }
}

/**
 * The span as the summariser reads it: each message as `[role] text`, its text as
 * `PromptWindow.render` writes it (tool calls with their arguments, results with their output).
 *
 * @since 0.3.0
 * @category rendering
 */
export const renderSpan = (span: ReadonlyArray<Prompt.Message>): string =>
  span.map((message) => `[${message.role}] ${PromptWindow.render(message)}`).join("\n")

/**
 * The text of the message a {@link layerLanguageModel} request appends: the instruction, the
 * budget, the summary so far (when there is one) and the messages.
 *
 * @since 0.3.0
 * @category rendering
 */
export const instructionText = (
  instruction: string,
  maxTokens: number,
  previous: string | undefined,
  span: ReadonlyArray<Prompt.Message>
): string => {
  const lines = [instruction, `Write at most ${maxTokens} tokens.`, ""]
  if (previous !== undefined) {
    lines.push(
      "The summary so far covers what came before these messages; fold it into your new summary:",
      "<summary-so-far>",
      previous,
      "</summary-so-far>",
      ""
    )
  }
  lines.push("The messages to summarise, oldest first:", "<messages>")
  if (span.length > 0) lines.push(renderSpan(span))
  lines.push("</messages>")
  return lines.join("\n")
}

/** A message's first words, on one line, for naming it. */
const opening = (message: Prompt.Message): string => {
  const line = PromptWindow.render(message).replace(/\s+/g, " ").trim()
  return line.length <= 60 ? line : `${line.slice(0, 60).trimEnd()}…`
}

/**
 * Where the span's messages stand in the context: each message of the span, in order, with its
 * position among the context's messages other than system prompts (from 1, as the model reads
 * them) when the context holds it (the same object, else the same role and text); and the
 * position of the summary so far when the context holds its message.
 */
const placeInContext = (
  context: ReadonlyArray<Prompt.Message>,
  span: ReadonlyArray<Prompt.Message>,
  previous: string | undefined
) => {
  const byObject = new Map<Prompt.Message, number>()
  const byText = new Map<string, number>()
  let previousAt: number | undefined
  let n = 0
  for (const message of context) {
    if (message.role === "system") continue
    n++
    byObject.set(message, n)
    const key = `${message.role}\n${PromptWindow.render(message)}`
    if (!byText.has(key)) byText.set(key, n)
    if (previous !== undefined && previousAt === undefined && readSummaryMessage(message)?.text === previous) previousAt = n
  }
  const placed = span.map((message) => ({
    message,
    at: byObject.get(message) ?? byText.get(`${message.role}\n${PromptWindow.render(message)}`)
  }))
  return { placed, previousAt }
}

/**
 * The text of the message a {@link layerLanguageModel} request appends to the conversation's
 * last request (`context`, docs/ai.md rule C5): the instruction, the budget, the summary so far
 * (named by its place when the context holds it, else given), and the span, oldest first — its
 * messages that the context holds named by their places in it (the messages other than system
 * prompts, counted from 1), a run of them with the first words of its first and last; those it
 * does not hold given in full, between `<messages>` tags. A span the context holds is not sent
 * twice: the request is the cached prefix plus this short message.
 *
 * @since 0.3.0
 * @category rendering
 */
export const requestText = (
  instruction: string,
  maxTokens: number,
  previous: string | undefined,
  context: ReadonlyArray<Prompt.Message>,
  span: ReadonlyArray<Prompt.Message>
): string => {
  const { placed, previousAt } = placeInContext(context, span, previous)
  const lines = [instruction, `Write at most ${maxTokens} tokens.`, ""]
  if (previous !== undefined) {
    if (previousAt !== undefined) {
      lines.push(`The summary so far is message ${previousAt} above; fold it into your new summary.`, "")
    } else {
      lines.push(
        "The summary so far covers what came before these messages; fold it into your new summary:",
        "<summary-so-far>",
        previous,
        "</summary-so-far>",
        ""
      )
    }
  }
  if (placed.every((p) => p.at === undefined)) {
    lines.push("The messages to summarise, oldest first:", "<messages>")
    if (span.length > 0) lines.push(renderSpan(span))
    lines.push("</messages>")
    return lines.join("\n")
  }
  lines.push(
    "The messages to summarise, oldest first (those above named by their places, counting the messages above from 1, the system prompt not counted):"
  )
  // Runs in the span's order: messages above that follow each other there, or messages given here.
  for (let i = 0; i < placed.length;) {
    const at = placed[i]!.at
    let j = i
    if (at === undefined) {
      while (j + 1 < placed.length && placed[j + 1]!.at === undefined) j++
      lines.push("<messages>", renderSpan(placed.slice(i, j + 1).map((p) => p.message)), "</messages>")
    } else {
      while (j + 1 < placed.length && placed[j + 1]!.at === placed[j]!.at! + 1) j++
      const first = placed[i]!
      const last = placed[j]!
      lines.push(
        i === j
          ? `- message ${at} above, the one that begins "${opening(first.message)}"`
          : `- messages ${at}–${last.at} above, from the one that begins "${opening(first.message)}" to the one that begins "${
            opening(last.message)
          }"`
      )
    }
    i = j + 1
  }
  return lines.join("\n")
}

const userText = (text: string): Prompt.UserMessage => Prompt.userMessage({ content: [Prompt.textPart({ text })] })

/** Options shared by the summarisers: how long a summary may take (all its requests together). */
interface TimeoutOptions {
  readonly timeout?: Duration.Input | undefined
}

/**
 * Options of {@link layerLanguageModel}:
 *
 * - `contextWindow` — the summariser model's context window, in tokens;
 * - `outputReserve` — the tokens kept free for its answer (default: the request's `maxTokens`);
 * - `instruction` — what the appended message asks (default {@link defaultInstruction});
 * - `timeout` — how long a summary may take, all its requests together (default
 *   {@link defaultTimeout});
 * - `name` — the summariser's name in its errors (default `"LanguageModel"`);
 * - `toolChoice` — the tool choice of a request that sends the context's tools (default
 *   `"auto"`, effect/ai's default, the agent's own unless it set another): the same choice keeps
 *   the request's prefix the one the provider cached. `"none"` forbids tool calls, but
 *   effect/ai's Anthropic and Amazon Bedrock providers then leave the tools out of the request
 *   (a cache miss there), and Anthropic keys its message cache on the tool choice too. Either
 *   way no tool runs: an answer that is a tool call and no text fails the summary (`failed`).
 *
 * @since 0.3.0
 * @category models
 */
export interface LanguageModelOptions extends TimeoutOptions {
  readonly contextWindow: number
  readonly outputReserve?: number | undefined
  readonly instruction?: string | undefined
  readonly name?: string | undefined
  readonly toolChoice?: "auto" | "none" | undefined
}

const checkOptions = (
  component: string,
  options: TimeoutOptions & { readonly contextWindow?: number; readonly outputReserve?: number | undefined }
): Effect.Effect<Duration.Duration, InvalidConfigError> => {
  const invalid = (path: string, rule: string) => Effect.fail(new InvalidConfigError({ component, path, rule }))
  if (options.contextWindow !== undefined && !(Number.isSafeInteger(options.contextWindow) && options.contextWindow > 0)) {
    return invalid("contextWindow", `must be a whole number above 0, got ${options.contextWindow}`)
  }
  if (options.outputReserve !== undefined && !(Number.isSafeInteger(options.outputReserve) && options.outputReserve >= 0)) {
    return invalid("outputReserve", `must be a whole number, 0 or more, got ${options.outputReserve}`)
  }
  if (options.timeout === undefined) return Effect.succeed(defaultTimeout)
  const timeout = Duration.fromInput(options.timeout)
  if (Option.isNone(timeout) || !(Duration.toMillis(timeout.value) > 0)) {
    return invalid("timeout", `must be a positive duration, got ${String(options.timeout)}`)
  }
  return Effect.succeed(timeout.value)
}

/**
 * The checks every summary passes (failing soft, loudly): the request's `maxTokens` valid; an
 * empty span keeps `previous` (or is `empty`); the text trimmed, not empty, within `maxTokens`;
 * any failure, throw or defect of `write` a `failed` error; the whole within `timeout`.
 */
const checked = (
  name: string,
  timeout: Duration.Duration,
  counter: TokenCounter["Service"],
  write: (request: SummaryRequest, fail: Failer) => Effect.Effect<Summary, SummarizerError>
) =>
(request: SummaryRequest): Effect.Effect<Summary, SummarizerError> => {
  const fail: Failer = (reason, detail) => Effect.fail(new SummarizerError({ summarizer: name, reason, detail }))
  const run = Effect.suspend(() => {
    if (!(Number.isSafeInteger(request.maxTokens) && request.maxTokens > 0)) {
      return fail("failed", `maxTokens must be a whole number above 0, got ${request.maxTokens}`)
    }
    if (request.span.length === 0) {
      if (request.previous === undefined || request.previous.trim().length === 0) {
        return fail("empty", "there is nothing to summarise: the span is empty and there is no previous summary")
      }
      // Nothing new: the previous summary stands as it is, without a request.
      const text = request.previous.trim()
      return Effect.map(measure(counter, text, request.maxTokens, fail), (tokens) => ({
        text,
        tokens,
        chunks: 0,
        withContext: false
      }))
    }
    return write(request, fail)
  }).pipe(
    Effect.catchDefect((defect) => fail("failed", `it died: ${describeThrown(defect)}`))
  )
  return (Duration.isFinite(timeout)
    ? Effect.timeoutOrElse(run, {
      duration: timeout,
      orElse: () => fail("timeout", `no summary within ${Duration.format(timeout)}`)
    })
    : run).pipe(
      Effect.tap((summary) =>
        Effect.annotateCurrentSpan({
          "cupel.summary.tokens": summary.tokens,
          "cupel.summary.chunks": summary.chunks,
          "cupel.summary.with_context": summary.withContext
        })
      ),
      Effect.tapError((error) => Effect.annotateCurrentSpan({ "cupel.summary.failure": error.reason })),
      Effect.withSpan("cupel.summarize", { attributes: { "cupel.summarizer": name, "cupel.summary.span": request.span.length } })
    )
}

type Failer = (reason: Reason, detail: string) => Effect.Effect<never, SummarizerError>

/** The tokens of a message, a failed count or a count that is not a whole number being `failed`. */
const countOf = (
  counter: TokenCounter["Service"],
  message: Prompt.Message,
  what: string,
  fail: Failer
): Effect.Effect<number, SummarizerError> =>
  counter.count(message).pipe(
    Effect.catch((error) => fail("failed", `the token counter failed on ${what}: ${error.message}`)),
    Effect.flatMap((n) =>
      Number.isSafeInteger(n) && n >= 0
        ? Effect.succeed(n)
        : fail("failed", `the token counter gave ${n} for ${what}; counts must be whole and not negative`)
    )
  )

/** The tokens of a summary's text, checked against the budget. */
const measure = (
  counter: TokenCounter["Service"],
  text: string,
  maxTokens: number,
  fail: Failer
): Effect.Effect<number, SummarizerError> =>
  Effect.flatMap(countOf(counter, userText(text), "the summary", fail), (tokens) =>
    tokens > maxTokens
      ? fail("over-budget", `the summary costs ${tokens} tokens, more than its budget of ${maxTokens}`)
      : Effect.succeed(tokens))

/** A written text as a summary: trimmed, not empty, within the budget. */
const finish = (
  counter: TokenCounter["Service"],
  written: string,
  maxTokens: number,
  fail: Failer,
  where: string
): Effect.Effect<{ readonly text: string; readonly tokens: number }, SummarizerError> => {
  const text = written.trim()
  if (text.length === 0) return fail("empty", `the summary${where} is empty`)
  return Effect.map(
    measure(counter, text, maxTokens, (reason, detail) => fail(reason, `${detail}${where}`)),
    (tokens) => ({ text, tokens })
  )
}

/**
 * A summariser of your own: `f` is given the request and returns the summary's text — a string,
 * a promise of one, or an `Effect` of one. Its answer is held to the same checks as a model's:
 * trimmed, not empty, at most `maxTokens` (counted by the `TokenCounter`), within `timeout`
 * (default {@link defaultTimeout}); if `f` throws, rejects, fails, dies or returns something
 * other than a string, the summary fails with a {@link SummarizerError} (`failed`) naming `name`.
 * An empty span with a `previous` summary keeps that summary without calling `f`.
 *
 * @example
 * ```ts
 * import * as Summarizer from "effect-cupel/ai/Summarizer"
 *
 * // Keep the first line of every dropped message (a summariser without a model).
 * const firstLines = Summarizer.make("first-lines", ({ span, previous }) =>
 *   [previous ?? "", ...span.map((m) => Summarizer.renderSpan([m]).split("\n")[0])].join("\n"))
 * ```
 *
 * @since 0.3.0
 * @category constructors
 */
export const make = <E = never>(
  name: string,
  f: (request: SummaryRequest) => Effect.Effect<string, E> | PromiseLike<string> | string,
  options: TimeoutOptions = {}
): Layer.Layer<Summarizer, InvalidConfigError, TokenCounter> =>
  Layer.effect(
    Summarizer,
    Effect.gen(function*() {
      const timeout = yield* checkOptions(`Summarizer.make("${name}")`, options)
      const counter = yield* TokenCounter
      const call = (request: SummaryRequest): Effect.Effect<unknown, unknown> =>
        Effect.suspend(() => {
          const out = f(request)
          if (Effect.isEffect(out)) return out
          if (isPromiseLike(out)) return Effect.tryPromise({ try: () => Promise.resolve(out), catch: (e) => e })
          return Effect.succeed(out)
        })
      const write = (request: SummaryRequest, fail: Failer): Effect.Effect<Summary, SummarizerError> =>
        call(request).pipe(
          Effect.catch((error) => fail("failed", describeThrown(error))),
          Effect.flatMap((out) =>
            typeof out === "string"
              ? finish(counter, out, request.maxTokens, fail, "")
              : fail("failed", `it returned ${typeof out}, not a string`)
          ),
          Effect.map(({ text, tokens }): Summary => ({ text, tokens, chunks: 1, withContext: false }))
        )
      return Summarizer.of({ name, summarize: checked(name, timeout, counter, write) })
    })
  )

const isPromiseLike = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === "object" && value !== null && "then" in value && typeof value.then === "function"

/**
 * A summariser that asks the `LanguageModel` in context — give it the provider's model, not one
 * wrapped by `WindowedLanguageModel` (whose windows would compact, and summarise, the summary
 * request itself).
 *
 * Each request is the conversation's `context`, unchanged, plus one user message
 * ({@link requestText}: the instruction, the budget, the previous summary, and the span's
 * messages named by their places in the context — only those the context does not hold written
 * out as {@link renderSpan} writes them) — the prefix a provider has cached, and a few tokens
 * more. The window guard, with the `TokenCounter` in context and room for `outputReserve` and
 * the counter's `requestOverhead`:
 *
 * 1. context and message fit: that request (`withContext: true`) — with the request's `tools`,
 *    counted with the context, sent with the `toolChoice` option (default `"auto"`) and never
 *    run, so that the prefix is the one the provider cached (it hashes the tools first);
 * 2. else the span written out in one message ({@link instructionText}) fits: that message
 *    alone (`withContext: false`);
 * 3. else the span is summarised in chunks, oldest first, each request the message for one chunk
 *    with the summary so far folded in (the first chunk's: `previous`). A chunk ends only where
 *    no tool call is parted from its results — unless a group alone does not fit, when it is
 *    split between its messages. `chunks` says how many requests it took; a message that does
 *    not fit even alone fails the summary as `span-too-large`.
 *
 * The summary is the answer's text, trimmed. An answer that is empty is `empty`; one over
 * `maxTokens`, or cut off for length, is `over-budget`; a model error, or an answer that
 * finished with an error, is `failed`; and every chunk's summary is held to the same checks.
 *
 * Fails to build with an `InvalidConfigError` for a `contextWindow`, `outputReserve` or `timeout`
 * out of range.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerLanguageModel = (
  options: LanguageModelOptions
): Layer.Layer<Summarizer, InvalidConfigError, LanguageModel.LanguageModel | TokenCounter> =>
  Layer.effect(
    Summarizer,
    Effect.gen(function*() {
      const name = options.name ?? "LanguageModel"
      const timeout = yield* checkOptions("Summarizer.layerLanguageModel", options)
      const model = yield* LanguageModel.LanguageModel
      const counter = yield* TokenCounter
      const instruction = options.instruction ?? defaultInstruction
      const toolChoice = options.toolChoice ?? "auto"
      if (toolChoice !== "auto" && toolChoice !== "none") {
        return yield* new InvalidConfigError({
          component: "Summarizer.layerLanguageModel",
          path: "toolChoice",
          rule: `must be "auto" or "none", got ${String(toolChoice)}`
        })
      }

      const write = (request: SummaryRequest, fail: Failer): Effect.Effect<Summary, SummarizerError> =>
        Effect.gen(function*() {
          const { span, context, maxTokens } = request
          const budget = options.contextWindow - (options.outputReserve ?? maxTokens) - counter.requestOverhead
          const message = (previous: string | undefined, messages: ReadonlyArray<Prompt.Message>) =>
            userText(instructionText(instruction, maxTokens, previous, messages))
          const tools = request.tools ?? []
          const generate = (prompt: ReadonlyArray<Prompt.Message>, withTools: boolean) =>
            withTools && tools.length > 0
              // The context's tools, so that the request's prefix is the one the provider
              // cached; no tool is run (the answer must be text).
              ? Effect.map(
                model.generateText({
                  prompt: Prompt.fromMessages(prompt),
                  toolkit: definitionsOnly(tools),
                  toolChoice,
                  disableToolCallResolution: true
                }),
                answerOf
              )
              : Effect.map(model.generateText({ prompt: Prompt.fromMessages(prompt) }), answerOf)
          const ask = (prompt: ReadonlyArray<Prompt.Message>, where: string, withTools: boolean) =>
            Effect.gen(function*() {
              const response = yield* generate(prompt, withTools).pipe(
                Effect.catch((error) => fail("failed", `the model failed${where}: ${error.message}`))
              )
              if (response.text.trim().length === 0 && response.toolCalls.length > 0) {
                return yield* fail(
                  "failed",
                  `the model called ${response.toolCalls.map((name) => `"${name}"`).join(", ")}${where} instead of answering in text`
                )
              }
              const reason = response.finishReason
              if (reason === "error") return yield* fail("failed", `the model's answer${where} finished with an error`)
              if (reason === "length") {
                return yield* fail("over-budget", `the model's answer${where} was cut off for length`)
              }
              const done = yield* finish(counter, response.text, maxTokens, fail, where)
              return { ...done, usage: usageOf(response.usage) }
            })

          // 1. The context as the prefix (the conversation's last request, cached), when it and
          // the message naming the span in it fit.
          if (context.length > 0) {
            const named = userText(requestText(instruction, maxTokens, request.previous, context, span))
            let contextTokens = yield* countOf(counter, named, "the summary request", fail)
            for (const [i, m] of context.entries()) contextTokens += yield* countOf(counter, m, `context message ${i}`, fail)
            // The tools are part of the prefix: they take room in the summariser's window too.
            for (const tool of tools) {
              contextTokens += yield* countOf(counter, ToolDefinitions.message(tool), `the tool "${tool.name}"`, fail)
            }
            if (contextTokens <= budget) {
              const done = yield* ask([...context, named], "", true)
              return { text: done.text, tokens: done.tokens, chunks: 1, withContext: true, ...usageField(done.usage) }
            }
          }
          const whole = message(request.previous, span)
          const wholeTokens = yield* countOf(counter, whole, "the summary request", fail)
          // 2. The message alone.
          if (wholeTokens <= budget) {
            const done = yield* ask([whole], "", false)
            return { text: done.text, tokens: done.tokens, chunks: 1, withContext: false, ...usageField(done.usage) }
          }
          // 3. In chunks, oldest first, the summary so far folded into each.
          let units = unitsOf(span)
          const unitTokens = new Map<ReadonlyArray<Prompt.Message>, number>()
          const tokensOfUnit = (unit: ReadonlyArray<Prompt.Message>) =>
            Effect.gen(function*() {
              const known = unitTokens.get(unit)
              if (known !== undefined) return known
              const n = yield* countOf(counter, userText(renderSpan(unit)), "a part of the span", fail)
              unitTokens.set(unit, n)
              return n
            })
          let running = request.previous
          let chunks = 0
          let usage: SummaryUsage | undefined
          let last: { readonly text: string; readonly tokens: number } | undefined
          let at = 0
          while (at < units.length) {
            const where = ` (chunk ${chunks + 1})`
            const header = yield* countOf(counter, message(running, []), "the summary request", fail)
            const room = budget - header
            // Take units while their estimate fits: each unit counted as a message of its own,
            // which counts its framing once more than the chunk's one message does.
            let end = at
            let estimate = 0
            while (end < units.length) {
              const n = yield* tokensOfUnit(units[end]!)
              if (end > at && estimate + n > room) break
              estimate += n
              end++
            }
            // Then the chunk's message itself, counted: shrink until it fits.
            let chunk = units.slice(at, end).flat()
            let chunkMessage = message(running, chunk)
            let chunkTokens = yield* countOf(counter, chunkMessage, `the summary request${where}`, fail)
            while (chunkTokens > budget && end - at > 1) {
              end--
              chunk = units.slice(at, end).flat()
              chunkMessage = message(running, chunk)
              chunkTokens = yield* countOf(counter, chunkMessage, `the summary request${where}`, fail)
            }
            if (chunkTokens > budget) {
              const unit = units[at]!
              if (unit.length > 1) {
                // A group that does not fit alone: its messages, one unit each.
                units = [...units.slice(0, at), ...unit.map((m) => [m]), ...units.slice(at + 1)]
                continue
              }
              return yield* fail(
                "span-too-large",
                `message ${span.indexOf(unit[0]!)} of the span needs a request of ${chunkTokens} tokens${
                  running === undefined ? "" : " with the summary so far"
                }, more than the ${budget} the summariser's window leaves`
              )
            }
            const done = yield* ask([chunkMessage], where, false)
            chunks++
            usage = addUsage(usage, done.usage)
            running = done.text
            last = done
            at = end
          }
          // The span is not empty (checked), so at least one chunk was written.
          if (last === undefined) return yield* fail("empty", "no chunk was summarised")
          const final = last
          return { text: final.text, tokens: final.tokens, chunks, withContext: false, ...usageField(usage) }
        })

      return Summarizer.of({ name, summarize: checked(name, timeout, counter, write) })
    })
  )

/** What a summary reads of a model's answer. */
const answerOf = (response: {
  readonly text: string
  readonly finishReason: Response.FinishReason
  readonly usage: Response.Usage
  readonly toolCalls: ReadonlyArray<{ readonly name: string }>
}) => ({
  text: response.text,
  finishReason: response.finishReason,
  usage: response.usage,
  toolCalls: response.toolCalls.map((call) => call.name)
})

/**
 * A toolkit of the tools' definitions alone, in their order. Its handler never runs a tool: the
 * request asks for text and resolves no tool call, and an approved call the context carries
 * fails the request rather than running the conversation's tool again.
 */
const definitionsOnly = (tools: ReadonlyArray<ToolDefinitions.AnyTool>): Toolkit.WithHandler<{}> => ({
  // Typed as no tools: the request needs none of their schemas' services, and returns no
  // tool results; the provider reads the definitions from the toolkit's `tools` as they are.
  tools: Object.fromEntries(tools.map((tool) => [tool.name, tool])),
  handle: (name) =>
    Effect.fail(AiError.make({
      module: "effect-cupel/ai/Summarizer",
      method: "generateText",
      reason: new AiError.UnknownError({ description: `a summary request does not run tools, asked for "${String(name)}"` })
    }))
})

const usageField = (usage: SummaryUsage | undefined): { readonly usage?: SummaryUsage } =>
  usage === undefined ? {} : { usage }

/** A response's usage; one that reports nothing is none. */
const usageOf = (usage: Response.Usage): SummaryUsage | undefined => {
  const out: SummaryUsage = {
    inputTokens: usage.inputTokens.total,
    outputTokens: usage.outputTokens.total,
    cacheReadTokens: usage.inputTokens.cacheRead,
    cacheWriteTokens: usage.inputTokens.cacheWrite
  }
  return Object.values(out).every((v) => v === undefined) ? undefined : out
}

const add = (a: number | undefined, b: number | undefined): number | undefined =>
  a === undefined ? b : b === undefined ? a : a + b

const addUsage = (a: SummaryUsage | undefined, b: SummaryUsage | undefined): SummaryUsage | undefined =>
  a === undefined
    ? b
    : b === undefined
    ? a
    : {
      inputTokens: add(a.inputTokens, b.inputTokens),
      outputTokens: add(a.outputTokens, b.outputTokens),
      cacheReadTokens: add(a.cacheReadTokens, b.cacheReadTokens),
      cacheWriteTokens: add(a.cacheWriteTokens, b.cacheWriteTokens)
    }

/**
 * The span cut where a chunk may end: between two messages only when no group (a tool call and
 * its results, an approval and its response) has members on both sides. The span's order is kept.
 */
const unitsOf = (span: ReadonlyArray<Prompt.Message>): Array<ReadonlyArray<Prompt.Message>> => {
  const groups = PromptWindow.groups(span)
  const lastOf = new Map<string, number>()
  groups.forEach((g, i) => {
    if (g !== undefined) lastOf.set(g, i)
  })
  const units: Array<ReadonlyArray<Prompt.Message>> = []
  let start = 0
  let reach = -1
  for (let i = 0; i < span.length; i++) {
    const g = groups[i]
    if (g !== undefined) reach = Math.max(reach, lastOf.get(g)!)
    if (reach <= i) {
      units.push(span.slice(start, i + 1))
      start = i + 1
    }
  }
  return units
}
