/**
 * The session bench's scripted summariser (issue 19, item 7): a deterministic stand-in for a
 * model that summarises, so that the "stable + compaction" mode can be measured without one.
 *
 * Its summary names the call ids of the tool results it was given — those named in the summary
 * it replaces (`previous`), then those of the span, oldest first — each as a clause
 * `call_17 found <word> <word>;`, after `Summary:`, then padding words up to its size: `tokens`,
 * or the request's `maxTokens` less a small margin when that is smaller (the window counts the
 * summary with its header, which may tokenize a token or two apart from the text alone). When
 * the clauses alone do not fit, the oldest ids are left out: a summary of bounded size cannot
 * name everything. Sizes are counted by the `TokenCounter` the summary is checked with.
 *
 * Its requests are recorded: the bench prices each as the request
 * `Summarizer.layerLanguageModel` would send — the conversation's last request (`context`) then
 * one short user message with the instruction naming the span in it (docs/ai.md, rule C5;
 * {@link instructionMessage}).
 */
import { Effect, Layer } from "effect"
import { Prompt } from "effect/ai"
import type { AiError } from "effect/ai"
import type { InvalidConfigError } from "../src/InvalidConfigError.ts"
import * as Summarizer from "../src/ai/Summarizer.ts"
import type { TokenCounter } from "../src/ai/TokenCounter.ts"
import { resultIds } from "../test/support/sessions.ts"

/** The scripted summariser's size. */
export interface Options {
  /** The tokens its summaries aim at (at most the request's budget less {@link margin}). */
  readonly tokens: number
  /**
   * The dropping variant (issue 27, item 3): its summaries name nothing — no call id, nothing of
   * the summary it replaces (its ledger included) — only padding words: a summariser that keeps
   * none of the facts it was given.
   */
  readonly dropping?: boolean | undefined
}

/** Tokens kept below a request's `maxTokens`: the header and the text may tokenize apart. */
export const margin = 8

/** The call ids a text names (`call_17`), in order, each once. */
export const namedIds = (text: string): Array<string> => [...new Set(text.match(/\bcall_\d+\b/g) ?? [])]

/** Whether `text` names the call id `id` (`call_1` is not named by `call_17`). */
export const names = (text: string, id: string): boolean => new RegExp(`\\b${id}\\b`).test(text)

/** The ids a summary of `request` names, oldest first: the previous summary's, then the span's results'. */
export const idsOf = (request: Pick<Summarizer.SummaryRequest, "span" | "previous">): Array<string> => [
  ...new Set([...namedIds(request.previous ?? ""), ...resultIds(request.span)])
]

const words = ["the", "result", "showed", "that", "value", "was", "read", "from", "file", "and", "test", "passed"]

/** The summary's text with the newest `keep` ids and `pad` padding words. */
const textOf = (ids: ReadonlyArray<string>, keep: number, pad: number): string => {
  const clauses = ids.slice(ids.length - keep).map((id, i) =>
    `${id} found ${words[i % words.length]!} ${words[(i + 5) % words.length]!};`
  )
  const padding = Array.from({ length: pad }, (_, i) => words[i % words.length]!)
  return ["Summary:", ...clauses, ...padding].join(" ")
}

/** The largest n in [0, max] with ok(n), ok being monotone (true up to some n, then false). */
const largest = <E>(max: number, ok: (n: number) => Effect.Effect<boolean, E>): Effect.Effect<number, E> =>
  Effect.gen(function*() {
    let lo = 0
    let hi = max
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2)
      if (yield* ok(mid)) lo = mid
      else hi = mid - 1
    }
    return lo
  })

/**
 * The scripted summary of a request: every id of {@link idsOf} that fits (newest kept), padded to
 * the size, counted as one user message by `counter`.
 */
export const summaryText = (
  counter: TokenCounter["Service"],
  request: Pick<Summarizer.SummaryRequest, "span" | "previous" | "maxTokens">,
  options: Options
): Effect.Effect<string, AiError.AiError> =>
  Effect.gen(function*() {
    const size = Math.min(options.tokens, request.maxTokens - margin)
    const ids = options.dropping === true ? [] : idsOf(request)
    const fits = (keep: number, pad: number) =>
      Effect.map(counter.count(Prompt.userMessage({ content: [Prompt.textPart({ text: textOf(ids, keep, pad) })] })), (n) =>
        n <= size)
    const keep = yield* largest(ids.length, (k) => fits(k, 0))
    const pad = yield* largest(Math.max(0, size), (p) => fits(keep, p))
    return textOf(ids, keep, pad)
  })

/**
 * The message `Summarizer.layerLanguageModel` appends to the context for this request
 * (`Summarizer.requestText`): the default instruction, the budget, the previous summary and the
 * span, named by their places in the context (only what the context does not hold written out).
 */
export const instructionMessage = (request: Summarizer.SummaryRequest): Prompt.UserMessage =>
  Prompt.userMessage({
    content: [
      Prompt.textPart({
        text: Summarizer.requestText(
          Summarizer.defaultInstruction,
          request.maxTokens,
          request.previous,
          request.context,
          request.span
        )
      })
    ]
  })

/**
 * The scripted summariser as a layer: `record` is given each request it answers (before it
 * answers), in order.
 */
export const layer = (
  counter: TokenCounter["Service"],
  options: Options,
  record: (request: Summarizer.SummaryRequest) => void
): Layer.Layer<Summarizer.Summarizer, InvalidConfigError, TokenCounter> =>
  Summarizer.make("scripted", (request) =>
    Effect.suspend(() => {
      record(request)
      return summaryText(counter, request, options)
    }))
