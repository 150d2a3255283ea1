/**
 * Shorten: one text, tool message or document cut down to the room left, instead of dropped.
 *
 * A single tool result or document larger than what the window has left would be dropped
 * whole — and a tool result takes its call with it, so the model loses both the question and
 * the answer. Shortening keeps the item: its head and its tail stay, the middle is left out,
 * and a marker line inside the cut says how much: `[… 12,345 tokens left out …]`.
 *
 * - {@link shortenText} (and {@link shortenTextEffect} for a counter that is an `Effect`):
 *   a text whose result, marker included, counts at most the tokens asked for.
 * - {@link shortenMessage}: a `tool` message whose tool results are shortened so that the
 *   whole message counts at most the tokens asked for; the parts keep their call ids, tool
 *   names and `isFailure`, so the call and its result stay a valid pair.
 * - {@link shortenItem}: a document (any `ContextItem`) with its content shortened, its
 *   `originalTokens` set and {@link shortenedKey} in its metadata.
 *
 * How the cut is found: the number of characters kept is searched — two probes where the
 * text's density says the room runs out, then a bisection, stopping within 1/512 of the
 * characters kept — and each candidate is counted with the caller's counter. Counting is the
 * expensive part, so a text of `n` characters costs one count of the original and at most
 * `2·(⌈log₂(n + 1)⌉ + 2)` counts of texts not much longer than the result (the candidate, and
 * its kept text alone for the marker's figure).
 * Every result is one the counter measured: it never exceeds the tokens asked for.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import type { Prompt } from "effect/ai"
import * as ContextItem from "../ContextItem.ts"
import * as JsonText from "./internal/jsonText.ts"

/**
 * The share of the kept characters that goes to the head (the rest to the tail), by default.
 *
 * More head than tail: a tool's output and a document say what they are at the start (the
 * command's first lines, a JSON value's opening keys, the best-ranked search results, a
 * title and introduction), and ranked or structured output puts what matters most first. The
 * tail still gets two fifths, enough for how a log or a command ended (the error, the
 * summary line, the totals), whose value sits in its last few lines.
 *
 * @since 0.3.0
 * @category constants
 */
export const defaultHeadShare = 0.6

/**
 * How a text is shortened.
 *
 * - `headShare` — the share of the kept characters given to the head, from 0 (tail only) to 1
 *   (head only); default {@link defaultHeadShare}. A value outside [0, 1] is clamped to it; one
 *   that is not a number (`NaN`) is the default.
 *
 * @since 0.3.0
 * @category models
 */
export interface Options {
  readonly headShare?: number | undefined
}

/**
 * A shortened text and its figures, all by the caller's counter:
 *
 * - `text` — the head, the marker line, the tail (or the text itself when it fits whole);
 * - `keptTokens` — the tokens of `text`, marker included: at most the tokens asked for;
 * - `originalTokens` — the tokens of the original text;
 * - `cutTokens` — the figure in the marker: the original's tokens less those of the head and
 *   tail alone (0 when nothing was cut). `originalTokens − keptTokens` is smaller by what the
 *   marker costs.
 *
 * @since 0.3.0
 * @category models
 */
export interface ShortenedText {
  readonly text: string
  readonly keptTokens: number
  readonly originalTokens: number
  readonly cutTokens: number
}

/**
 * The marker put inside a cut: `[… 12,345 tokens left out …]` (thousands separated by commas,
 * whatever the locale). It stands on a line of its own between the head and the tail.
 *
 * @since 0.3.0
 * @category rendering
 */
export const marker = (cutTokens: number): string => `[… ${groupThousands(cutTokens)} tokens left out …]`

const groupThousands = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",")

/**
 * The head, the marker line and the tail. The marker's line breaks are left out at an end
 * with nothing kept, so that the text does not start or end with an empty line.
 */
const join = (head: string, cutTokens: number, tail: string): string =>
  `${head.length > 0 ? `${head}\n` : ""}${marker(cutTokens)}${tail.length > 0 ? `\n${tail}` : ""}`

// ---------------------------------------------------------------------------------------------
// Where to cut
// ---------------------------------------------------------------------------------------------

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff
const isSpace = (code: number): boolean => code === 32 || code === 9 || code === 13 || code === 10

/** Whether a cut at `at` would separate the two halves of a surrogate pair. */
const splitsPair = (text: string, at: number): boolean =>
  at > 0 && at < text.length && isHighSurrogate(text.charCodeAt(at - 1)) && isLowSurrogate(text.charCodeAt(at))

/**
 * How far a cut may move to reach a line break or a word boundary: an eighth of the piece it
 * shortens, or 32 characters (half a typical line) when that is more, but never more than half
 * of the piece. The binary search measures the moved cuts — as it widens the head, the cut
 * steps to the next line break — so the room a move gives up is about one line, and at most
 * this reach.
 */
const reach = (piece: number): number => Math.max(Math.floor(piece / 8), Math.min(32, Math.floor(piece / 2)))

/**
 * Where the head ends, at most `at`: before the last line break within {@link reach}, else at
 * the end of the last word there (before a space or tab), else at `at` itself (one back if
 * that would split a surrogate pair).
 */
const headEnd = (text: string, at: number): number => {
  if (at <= 0) return 0
  const floor = at - reach(at)
  const line = text.lastIndexOf("\n", at)
  if (line >= floor && line > 0) return line
  // The end of a word: a space after it, none before.
  for (let i = at; i >= floor && i > 0; i--) if (isSpace(text.charCodeAt(i)) && !isSpace(text.charCodeAt(i - 1))) return i
  return splitsPair(text, at) ? at - 1 : at
}

/**
 * Where the tail starts, at least `at`: after the first line break within {@link reach}, else
 * at the start of the first word there, else at `at` (one on if that would split a surrogate
 * pair).
 */
const tailStart = (text: string, at: number): number => {
  const n = text.length
  if (at >= n) return n
  const ceiling = at + reach(n - at)
  const line = text.indexOf("\n", at - 1)
  if (line >= 0 && line + 1 <= ceiling && line + 1 < n) return line + 1
  for (let i = Math.max(at, 1); i <= ceiling && i < n; i++) {
    // The start of a word: a space before it, none after.
    if (isSpace(text.charCodeAt(i - 1)) && !isSpace(text.charCodeAt(i))) return i
  }
  return splitsPair(text, at) ? at + 1 : at
}

/**
 * The head and tail of a text keeping about `keep` characters (`keep` < the text's length):
 * `headShare` of them for the head. The middle left out is never empty.
 */
const split = (text: string, keep: number, headShare: number): readonly [string, string] => {
  const headChars = Math.floor(keep * headShare)
  const tailChars = keep - headChars
  const h = headEnd(text, headChars)
  const s = tailStart(text, text.length - tailChars)
  return [text.slice(0, h), text.slice(s)]
}

const shareOf = (options: Options | undefined): number => {
  const share = options?.headShare
  if (share === undefined || Number.isNaN(share)) return defaultHeadShare
  return Math.min(1, Math.max(0, share))
}

/** A count the search trusts: a whole number of tokens. */
const isCount = (n: number): boolean => Number.isSafeInteger(n) && n >= 0

// ---------------------------------------------------------------------------------------------
// The search, written once for plain and effectful counters
// ---------------------------------------------------------------------------------------------

/**
 * What the search asks its driver to count: the whole candidate (every slot's text, cut or
 * not) or one slot's text alone (for the marker's figure). The search is a generator that
 * yields these and is given back the counts, so the same code runs with a plain counter
 * ({@link shortenText}) and with one that is an `Effect` ({@link shortenMessage}).
 */
type Request =
  | { readonly _tag: "Whole"; readonly texts: ReadonlyArray<string>; readonly cut: ReadonlySet<number> }
  | { readonly _tag: "Piece"; readonly slot: number; readonly text: string }

interface Planned {
  readonly texts: ReadonlyArray<string>
  readonly keptTokens: number
  /** The slots that were cut, with the figure in each one's marker. */
  readonly cuts: ReadonlyArray<{ readonly slot: number; readonly cutTokens: number }>
}

/**
 * The largest character cap `L` (binary-searched over `[0, longest)`) such that, with every
 * text longer than `L` cut to about `L` characters, the whole counts at most `keepTokens`.
 * One cap for all texts cuts the longest first: shorter texts stay whole until the cap
 * reaches them. `undefined` when even `L = 0` — markers alone — does not fit.
 *
 * Each step counts, for each text it cuts, the head and tail alone (and once per text its
 * original), then the whole candidate. Only candidates the counter measured as fitting are
 * kept, so the result fits whether or not the counts grow with `L`.
 */
function* search(
  texts: ReadonlyArray<string>,
  keepTokens: number,
  headShare: number,
  knownOriginals: ReadonlyArray<number | undefined>
): Generator<Request, Planned | undefined, number> {
  const originals = texts.map((_, i) => knownOriginals[i])
  let longest = 0
  let longestAt = 0
  texts.forEach((text, i) => {
    if (text.length > longest) {
      longest = text.length
      longestAt = i
    }
  })
  let lo = -1
  let hi = longest
  let best: Planned | undefined
  // The first two probes from the longest text's density (its tokens per character): just
  // above where the room runs out, then just below by the tokens measured there. A text far
  // larger than the room is then searched near the result, never counted at half its length.
  let probe: number | undefined
  let probes = 0
  if (longest > 0) {
    let original = originals[longestAt]
    if (original === undefined) {
      original = yield { _tag: "Piece", slot: longestAt, text: texts[longestAt]! }
      originals[longestAt] = original
    }
    if (isCount(original) && original > 0) probe = Math.floor((keepTokens * longest / original) * probeAbove)
  }
  while (hi - lo > 1 + tolerance(lo)) {
    const inside = probe !== undefined && probe > lo && probe < hi
    const cap = inside ? probe! : Math.floor((lo + hi) / 2)
    const probing = inside && probes < 2
    probe = undefined
    const out = texts.slice()
    const cuts: Array<{ readonly slot: number; readonly cutTokens: number }> = []
    let trusted = true
    for (let i = 0; i < texts.length && trusted; i++) {
      const text = texts[i]!
      if (text.length <= cap) continue
      const [head, tail] = split(text, cap, headShare)
      let original = originals[i]
      if (original === undefined) {
        original = yield { _tag: "Piece", slot: i, text }
        originals[i] = original
      }
      const kept = yield { _tag: "Piece", slot: i, text: head + tail }
      if (!isCount(original) || !isCount(kept)) {
        trusted = false
        break
      }
      const cutTokens = Math.max(0, original - kept)
      out[i] = join(head, cutTokens, tail)
      cuts.push({ slot: i, cutTokens })
    }
    const tokens = trusted ? yield { _tag: "Whole", texts: out, cut: new Set(cuts.map((c) => c.slot)) } : Number.NaN
    if (isCount(tokens) && tokens <= keepTokens) {
      lo = cap
      best = { texts: out, keptTokens: tokens, cuts }
    } else {
      hi = cap
      if (probing && probes === 0 && isCount(tokens) && tokens > 0) {
        probe = Math.floor(cap * (keepTokens / tokens) * probeBelow)
      }
    }
    if (probing) probes++
  }
  return best
}

/** The first probe's margin above the density's estimate, and the second's below the measure. */
const probeAbove = 1.02
const probeBelow = 0.995

/**
 * How close the search gets: within 1/512 of the characters kept (about 0.2% of the room; exact
 * below 512 characters). A long text is not searched to its last character: each step counts
 * a candidate as long as the result.
 */
const tolerance = (lo: number): number => Math.floor(Math.max(0, lo) / 512)

const runSync = <A>(steps: Generator<Request, A, number>, answer: (request: Request) => number): A => {
  let step = steps.next()
  while (!step.done) step = steps.next(answer(step.value))
  return step.value
}

const runEffect = <A, E, R>(
  make: () => Generator<Request, A, number>,
  answer: (request: Request) => Effect.Effect<number, E, R>
): Effect.Effect<A, E, R> =>
  Effect.gen(function*() {
    const steps = make()
    let step = steps.next()
    while (!step.done) step = steps.next(yield* answer(step.value))
    return step.value
  })

// ---------------------------------------------------------------------------------------------
// Texts
// ---------------------------------------------------------------------------------------------

const textResult = (original: number, planned: Planned | undefined): ShortenedText | undefined =>
  planned === undefined ? undefined : {
    text: planned.texts[0]!,
    keptTokens: planned.keptTokens,
    originalTokens: original,
    cutTokens: planned.cuts[0]?.cutTokens ?? 0
  }

/**
 * Shortens a text to at most `keepTokens` tokens by `count`: its head and tail kept, a marker
 * line between them saying how many tokens were left out ({@link marker}).
 *
 * - A text that fits whole is returned as it is (`cutTokens` 0).
 * - The cut falls at a line break where one is near, else between words, and never inside a
 *   surrogate pair (so never inside a character outside the Basic Multilingual Plane).
 * - `undefined` when even the marker alone does not fit, or when `count` gives the original
 *   text a count that is not a whole number ≥ 0 (a count that is not is never trusted: a
 *   candidate it measures does not fit).
 *
 * `count` is called once on the text and at most `2·(⌈log₂(length + 1)⌉ + 2)` times on texts no
 * longer than the result. A `count` that throws throws here: use {@link shortenTextEffect}
 * with a counter whose failures are typed.
 *
 * @example
 * ```ts
 * import * as Shorten from "effect-cupel/ai/Shorten"
 *
 * const words = (text: string) => text.split(/\s+/).filter((w) => w.length > 0).length
 * const log = Array.from({ length: 500 }, (_, i) => `line ${i} ok`).join("\n")
 * const short = Shorten.shortenText(log, 120, words)
 * // short?.text: "line 0 ok\nline 1 ok\n…\n[… N tokens left out …]\n…\nline 499 ok"
 * // short?.keptTokens <= 120
 * ```
 *
 * @since 0.3.0
 * @category shortening
 */
export const shortenText = (
  text: string,
  keepTokens: number,
  count: (text: string) => number,
  options?: Options
): ShortenedText | undefined => {
  const original = count(text)
  if (isCount(original) && original <= keepTokens) return { text, keptTokens: original, originalTokens: original, cutTokens: 0 }
  if (!isCount(original) || !(keepTokens >= 0)) return undefined
  const planned = runSync(
    search([text], keepTokens, shareOf(options), [original]),
    (request) => count(request._tag === "Whole" ? request.texts[0]! : request.text)
  )
  return textResult(original, planned)
}

/**
 * {@link shortenText} with a counter that is an `Effect` (a `TokenCounter`'s, say): the same
 * result, and the counter's failures in the error channel.
 *
 * @since 0.3.0
 * @category shortening
 */
export const shortenTextEffect = <E, R>(
  text: string,
  keepTokens: number,
  count: (text: string) => Effect.Effect<number, E, R>,
  options?: Options
): Effect.Effect<ShortenedText | undefined, E, R> =>
  Effect.flatMap(Effect.suspend(() => count(text)), (original) => {
    if (isCount(original) && original <= keepTokens) {
      return Effect.succeed<ShortenedText | undefined>({ text, keptTokens: original, originalTokens: original, cutTokens: 0 })
    }
    if (!isCount(original) || !(keepTokens >= 0)) return Effect.succeed(undefined)
    return Effect.map(
      runEffect(
        () => search([text], keepTokens, shareOf(options), [original]),
        (request) => count(request._tag === "Whole" ? request.texts[0]! : request.text)
      ),
      (planned) => textResult(original, planned)
    )
  })

// ---------------------------------------------------------------------------------------------
// Tool messages
// ---------------------------------------------------------------------------------------------

/**
 * How a tool message is shortened: {@link Options}, and `shortens` — which tool results may be
 * shortened (default: all). Leave out a provider-defined tool whose result the provider reads
 * as a structure (a result that is not a string becomes its JSON text when shortened).
 *
 * @since 0.3.0
 * @category models
 */
export interface MessageOptions extends Options {
  readonly shortens?: ((part: Prompt.ToolResultPart) => boolean) | undefined
}

/**
 * One text cut in a shortened message: the tool result's call id and tool name, and the
 * figure in its marker.
 *
 * @since 0.3.0
 * @category models
 */
export interface Cut {
  readonly id: string
  readonly name: string
  readonly cutTokens: number
}

/**
 * A shortened tool message: the new `message` (a new object; the original is untouched), its
 * tokens before and after by the caller's counter, and what was cut in which result. A message
 * that fits whole is returned as it is (the same object, no cuts).
 *
 * @since 0.3.0
 * @category models
 */
export interface ShortenedMessage {
  readonly message: Prompt.Message
  readonly originalTokens: number
  readonly keptTokens: number
  readonly cuts: ReadonlyArray<Cut>
}

/**
 * A text of a tool message that can be cut: a tool result's `result` (`output` undefined) or
 * the text part `output` of its `modelOutput`.
 */
interface Slot {
  readonly part: number
  readonly output: number | undefined
  readonly id: string
  readonly name: string
  readonly text: string
}

/**
 * The texts the model reads of a tool message's results, as `PromptWindow.render` shows them:
 * the text parts of `modelOutput` when there is one (file parts are not text and stay), else
 * `result` — itself when a string, its JSON text otherwise.
 */
const slotsOf = (
  message: Prompt.ToolMessage,
  shortens: (part: Prompt.ToolResultPart) => boolean
): Effect.Effect<Array<Slot>> =>
  Effect.gen(function*() {
    const slots: Array<Slot> = []
    for (const [p, part] of message.content.entries()) {
      if (part.type !== "tool-result" || !shortens(part)) continue
      if (part.modelOutput === undefined) {
        // A large value's JSON text in pieces, yielding between them (design item 113).
        const text = typeof part.result === "string" ? part.result : yield* JsonText.jsonTextEffect(part.result)
        slots.push({ part: p, output: undefined, id: part.id, name: part.name, text })
      } else {
        part.modelOutput.forEach((output, o) => {
          if (output.type === "text") slots.push({ part: p, output: o, id: part.id, name: part.name, text: output.text })
        })
      }
    }
    return slots
  })

/**
 * A tool result part with a slot's text replaced: `result` becomes the text (a string), or the
 * slot's text part of `modelOutput` gets it. `only` keeps that text part alone in
 * `modelOutput` (for counting the slot's text by itself). Call id, name, `isFailure`,
 * `providerExecuted` and options are kept.
 */
const withText = (part: Prompt.ToolMessagePart, slot: Slot, text: string, only = false): Prompt.ToolMessagePart => {
  if (part.type !== "tool-result") return part
  if (slot.output === undefined) return { ...part, result: text }
  const outputs: Array<Prompt.ToolModelOutputPart> = []
  ;(part.modelOutput ?? []).forEach((output, o) => {
    if (o === slot.output && output.type === "text") outputs.push({ ...output, text })
    else if (!only) outputs.push(output)
  })
  return { ...part, modelOutput: outputs }
}

/** Whether a slot's probe message is the part itself: its result a string, or its one output. */
const isWholeSlot = (part: Prompt.ToolMessagePart, slot: Slot): boolean =>
  part.type === "tool-result" &&
  (slot.output === undefined ? typeof part.result === "string" : part.modelOutput?.length === 1)

/**
 * Shortens a `tool` message so that it counts at most `keepTokens` by `countMessage`: the text
 * of its tool results is cut as {@link shortenText} cuts a text, each cut with its marker.
 *
 * - What is cut is what the model reads (`PromptWindow.render`): the text parts of a result's
 *   `modelOutput` when it has one (its file parts stay), else its `result` — a string as it
 *   is; any other value as its JSON text, which then replaces `result` as a string (every
 *   provider sends a string result as text, whether or not it reads `modelOutput`).
 * - Several results in one message: the longest are cut first — one cap on the characters
 *   kept per text is searched, texts under it stay whole — so a short result next to a huge
 *   one is kept whole, and two huge ones keep the same share of room.
 * - The parts keep their call ids, tool names, `isFailure` and `providerExecuted`; approval
 *   responses stay as they are. The call and its result stay a valid pair.
 * - A message that fits whole is returned as it is. `undefined` when the message cannot be
 *   made to fit: it is not a `tool` message, it has no text to cut (`shortens` refused every
 *   result), its other parts and the markers alone exceed `keepTokens`, or the counter gave
 *   it a count that is not a whole number ≥ 0.
 *
 * Each text's own tokens (for its marker's figure) are measured as a tool message holding that
 * text alone, less the same message with the text empty — so that its figure is in the
 * message counter's units. The count calls are logarithmic in the longest text's length,
 * times the number of texts cut.
 *
 * @since 0.3.0
 * @category shortening
 */
export const shortenMessage = <E, R>(
  message: Prompt.Message,
  keepTokens: number,
  countMessage: (message: Prompt.Message) => Effect.Effect<number, E, R>,
  options?: MessageOptions
): Effect.Effect<ShortenedMessage | undefined, E, R> =>
  Effect.gen(function*() {
    const originalTokens = yield* countMessage(message)
    if (isCount(originalTokens) && originalTokens <= keepTokens) {
      return { message, originalTokens, keptTokens: originalTokens, cuts: [] }
    }
    if (message.role !== "tool" || !isCount(originalTokens) || !(keepTokens >= 0)) return undefined
    const slots = yield* slotsOf(message, options?.shortens ?? (() => true))
    if (slots.length === 0) return undefined
    const rebuild = (texts: ReadonlyArray<string>, cut: ReadonlySet<number>): Prompt.ToolMessage => {
      const content = message.content.slice()
      slots.forEach((slot, k) => {
        if (cut.has(k)) content[slot.part] = withText(content[slot.part]!, slot, texts[k]!)
      })
      return { ...message, content }
    }
    const probe = (k: number, text: string): Prompt.ToolMessage => {
      const slot = slots[k]!
      return { ...message, content: [withText(message.content[slot.part]!, slot, text, true)] }
    }
    const empty = new Map<number, number>()
    const emptyOf = (k: number): Effect.Effect<number, E, R> => {
      const known = empty.get(k)
      return known !== undefined
        ? Effect.succeed(known)
        : Effect.map(countMessage(probe(k, "")), (n) => {
          empty.set(k, n)
          return n
        })
    }
    const texts = slots.map((slot) => slot.text)
    // A message of one result whose text is all it says: that text's own tokens are the
    // message's less the empty message's — a huge result is not counted a second time.
    const only = slots.length === 1 && message.content.length === 1 && isWholeSlot(message.content[0]!, slots[0]!)
    const known = only ? [originalTokens - (yield* emptyOf(0))] : []
    const planned = yield* runEffect(
      () => search(texts, keepTokens, shareOf(options), known),
      (request) => {
        if (request._tag === "Piece") {
          return Effect.flatMap(
            emptyOf(request.slot),
            (zero) => Effect.map(countMessage(probe(request.slot, request.text)), (n) => n - zero)
          )
        }
        // Only the texts cut are written back: an uncut result that is not a string keeps its value.
        return countMessage(rebuild(request.texts, request.cut))
      }
    )
    if (planned === undefined) return undefined
    const cutSlots = new Set(planned.cuts.map((c) => c.slot))
    return {
      message: rebuild(planned.texts, cutSlots),
      originalTokens,
      keptTokens: planned.keptTokens,
      cuts: planned.cuts.map(({ cutTokens, slot }) => ({ id: slots[slot]!.id, name: slots[slot]!.name, cutTokens }))
    }
  })

// ---------------------------------------------------------------------------------------------
// Items
// ---------------------------------------------------------------------------------------------

/**
 * The metadata key of a shortened item: its value is a {@link Shortened}.
 *
 * @since 0.3.0
 * @category constants
 */
export const shortenedKey = "shortened"

/**
 * What a shortened item's metadata says under {@link shortenedKey}: the tokens of the item
 * before this shortening and after it (the item's `tokens`), by the counter that shortened it.
 *
 * @since 0.3.0
 * @category models
 */
export interface Shortened {
  readonly originalTokens: number
  readonly keptTokens: number
}

/**
 * What an item's metadata says of its shortening ({@link shortenedKey}), or `undefined` for an
 * item that was not shortened. Every front door reads a window's cuts this way: `keptTokens` is
 * the item's `tokens`, the tokens of the shortened message sent.
 *
 * @since 0.3.0
 * @category shortening
 */
export const shortenedOf = (item: ContextItem.ContextItem): Shortened | undefined => {
  const value = item.metadata[shortenedKey]
  return typeof value === "object" && value !== null && "originalTokens" in value && "keptTokens" in value &&
      typeof value.originalTokens === "number" && typeof value.keptTokens === "number"
    ? { originalTokens: value.originalTokens, keptTokens: value.keptTokens }
    : undefined
}

/**
 * Marks an item as shortened: `metadata.shortened` = `{ originalTokens, keptTokens }`, and
 * the specification's `originalTokens` field — "the original token count before any external
 * summarization or truncation" — set to `originalTokens` unless the item already has one (it
 * was summarized or cut before: its first original is the original). For the item of a
 * message that {@link shortenMessage} shortened; {@link shortenItem} marks its items itself.
 *
 * @since 0.3.0
 * @category shortening
 */
export const markShortened = (item: ContextItem.ContextItem, shortened: Shortened): ContextItem.ContextItem =>
  new ContextItem.ContextItem({
    ...item,
    originalTokens: item.originalTokens ?? shortened.originalTokens,
    metadata: {
      ...item.metadata,
      [shortenedKey]: { originalTokens: shortened.originalTokens, keptTokens: shortened.keptTokens }
    }
  })

/**
 * Shortens a document (any item) to at most `keepTokens` by `count`, which counts its content
 * in the window's units (for a document sent as a system message: that message's tokens).
 *
 * - An item whose `tokens` are at most `keepTokens` is returned as it is.
 * - Otherwise its content is shortened ({@link shortenTextEffect}); the new item has the
 *   shortened content, `tokens` = the kept tokens, and is marked ({@link markShortened}).
 *   When the counter finds the whole content within `keepTokens` (it disagrees with the
 *   item's `tokens`), the item keeps its content and takes the counter's figure as `tokens`.
 * - `undefined` when even the marker does not fit.
 *
 * @since 0.3.0
 * @category shortening
 */
export const shortenItem = <E, R>(
  item: ContextItem.ContextItem,
  keepTokens: number,
  count: (text: string) => Effect.Effect<number, E, R>,
  options?: Options
): Effect.Effect<ContextItem.ContextItem | undefined, E, R> =>
  item.tokens <= keepTokens
    ? Effect.succeed(item)
    : Effect.map(shortenTextEffect(item.content, keepTokens, count, options), (short) => {
      if (short === undefined) return undefined
      if (short.cutTokens === 0 && short.text === item.content) {
        return new ContextItem.ContextItem({ ...item, tokens: short.keptTokens })
      }
      return markShortened(
        new ContextItem.ContextItem({ ...item, content: short.text, tokens: short.keptTokens }),
        { originalTokens: short.originalTokens, keptTokens: short.keptTokens }
      )
    })
