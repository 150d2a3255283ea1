/**
 * SummaryLedger: the facts a compaction's summary must not lose, kept beside it (issue 27,
 * item 3; docs/ai.md, "The summary's ledger", rules L1–L6; docs/design.md item 89).
 *
 * A summariser writes free text, and nothing checks what it kept: agents' users report
 * compactions that forget file paths, identifiers, error messages and open tasks. This module
 * reads those facts out of what a compaction summarises — the span's messages and the summary
 * it replaces — by fixed rules ({@link extract}; the same input always gives the same facts, in
 * the same order), and the facts the summary's text does not contain are appended to it as a
 * short list ({@link append}) within the summary's budget, the oldest left out first
 * ({@link fit}). A later compaction reads the list back ({@link read}) so a fact survives any
 * number of summaries, whatever the summariser keeps.
 *
 * The kinds (rule L1; docs/ai.md gives them with examples):
 *
 * - `path` — a file path: a run of path characters with a `/` that starts with `/`, `./`, `../`
 *   or `~/`, or ends in a file name with an extension, or has two `/` between named parts; or a
 *   bare file name with a well-known extension (`package.json`, `Trim.ts`).
 * - `url` — `http(s)`, `ftp`, `file`, `ws(s)`, `ssh`, `git` or `s3` followed by `://`, up to a space
 *   or quote, trailing punctuation left off.
 * - `identifier` — a word of code: `snake_case` (an `_` between letters or digits),
 *   `camelCase`, `PascalCase` of two humps or more, letters with digits (`x17`, `sha256`), a
 *   UUID, or a hexadecimal hash of 7 to 64 digits with both letters and digits — never a plain
 *   word, an all-capitals word, a number, or a part of a path or URL.
 * - `error` — a line that reads as an error: `SomethingError:`/`Exception:`, a line opening
 *   with `error`, `fatal`, `panic` or `failed` and a colon (or a bracketed code and a colon),
 *   `FAIL `/`FAILED `, `error TS2322:`, a system code such as `ENOENT:`; and the first line of a
 *   tool result marked as a failure.
 * - `open` — an open item: a line with `TODO`, `FIXME` or `XXX` (then `:`, `(` or a space), an
 *   unchecked box `[ ]`, or opening with `Open question:`, `Open:`, `Next step(s):`, `Still to
 *   do:`, `Pending:`, `Blocked:` or `Blocker:`.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import { Prompt } from "effect/ai"
import type { AiError } from "effect/ai"
import type { TokenCounter } from "./TokenCounter.ts"

/**
 * The kinds of fact, in the order a ledger names them.
 *
 * @since 0.3.0
 * @category models
 */
export type Kind = "path" | "url" | "identifier" | "error" | "open"

/**
 * A fact: its kind and its text (NFC, on one line, at most {@link maxFactLength} characters:
 * a longer one is cut and ends in `…`).
 *
 * @since 0.3.0
 * @category models
 */
export interface Fact {
  readonly kind: Kind
  readonly value: string
}

/**
 * The longest fact, in code points; a longer line or name is cut to this and `…` appended.
 *
 * @since 0.3.0
 * @category constants
 */
export const maxFactLength = 200

/**
 * The line that opens a ledger in a summary's text. Each fact follows on its own line as
 * `- kind: value`.
 *
 * @since 0.3.0
 * @category constants
 */
export const heading = "Facts from the summarised messages (kept verbatim):"

/**
 * The largest share of a summary's budget kept back from the summariser for the ledger
 * (rule L4): the summariser is asked for at least half of the budget.
 *
 * @since 0.3.0
 * @category constants
 */
export const maxShare = 0.5

const cut = (value: string): string => {
  const points = Array.from(value)
  return points.length <= maxFactLength ? value : `${points.slice(0, maxFactLength).join("")}…`
}

const fact = (kind: Kind, raw: string): Fact => ({ kind, value: cut(raw.normalize("NFC")) })

// Letters and digits of any script: a path or an identifier may be written in any of them.
const word = "\\p{L}\\p{M}\\p{N}"
const urlPattern = /\b(?:https?|ftp|file|wss?|ssh|git|s3):\/\/[^\s<>"'`{}|\\^]+/gu
const pathPattern = new RegExp(`(?<![${word}_@+.~/-])[${word}_@+.~/-]*/[${word}_@+.~/-]*`, "gu")
const extensions =
  "ts|tsx|mts|cts|js|jsx|mjs|cjs|json|jsonl|md|mdx|py|rs|go|java|kt|kts|scala|c|h|cc|cpp|hpp|cs|rb|php|swift|m|" +
  "yml|yaml|toml|lock|txt|csv|tsv|sql|sh|bash|zsh|ps1|html|htm|css|scss|less|xml|ini|cfg|conf|env|pdf|png|jpg|" +
  "jpeg|gif|webp|svg|ipynb|vue|svelte|proto|graphql|gradle|dockerfile|tf|lua|dart|ex|exs|erl|hs|ml|zig|wasm|log"
const bareFilePattern = new RegExp(
  `(?<![${word}_@+.~/-])[${word}_@+-][${word}_@+.-]*\\.(?:${extensions})(?![${word}_@+~/-]|\\.[${word}])`,
  "gu"
)
const extensionEnd = /[^/.]\.[\p{L}][\p{L}\p{N}]{0,9}$/u
const tokenPattern = new RegExp(`(?<![${word}_$])[${word}_$]+(?![${word}_$])`, "gu")
const uuidPattern = /(?<![0-9A-Fa-f-])[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![0-9A-Fa-f-])/g

const errorPatterns: ReadonlyArray<RegExp> = [
  /(?<![\p{L}\p{N}_])(?:\p{Lu}[\p{L}\p{N}]*)?(?:Error|Exception)(?:\s?\[[^\]\n]*\])?:\s*\S/u,
  /^(?:error|fatal|panic|failed|failure)(?:\s?\[[^\]\n]*\]|\([^)\n]*\))?:\s*\S/iu,
  /^(?:FAIL|FAILED)\s+\S/u,
  /\berror TS\d+:/u,
  /(?<![\p{L}\p{N}_])E[A-Z]{3,}:\s/u
]
const openPatterns: ReadonlyArray<RegExp> = [
  /(?<![\p{L}\p{N}_])(?:TODO|FIXME|XXX)(?:\([^)\n]*\))?(?::|\s)/u,
  /^\[ \]\s+\S/u,
  /^(?:open question|open|next steps?|still to do|pending|blocked|blocker)s?:\s*\S/iu
]
const listMarker = /^(?:[-*+•]\s+|\d{1,3}[.)]\s+)/u

/** Trailing characters that end a sentence, not a path or URL. */
const trimEnd = (value: string): string => {
  let out = value
  for (;;) {
    const last = out.at(-1)
    if (last === undefined) return out
    if (last === ")" && (out.split("(").length > out.split(")").length - 1)) return out
    if (".,;:!?)]'\"".includes(last) || (last === "-" && out.length > 1)) out = out.slice(0, -1)
    else return out
  }
}

/** Whether a run of path characters is a path (rule L1, `path`). */
const isPath = (candidate: string): boolean => {
  if (!/\p{L}/u.test(candidate)) return false
  if (candidate.includes("//")) return false
  const parts = candidate.split("/").filter((p) => p.length > 0 && p !== "." && p !== ".." && p !== "~")
  if (parts.length === 0) return false
  if (/^(?:\/|\.\.?\/|~\/)/.test(candidate)) return true
  if (extensionEnd.test(candidate)) return true
  return parts.length >= 3 || (parts.length >= 2 && (candidate.match(/\//g)?.length ?? 0) >= 2)
}

/** Whether a word is an identifier (rule L1, `identifier`). */
const isIdentifier = (token: string): boolean => {
  if (Array.from(token).length < 3) return false
  if (/^[\p{N}_$]+$/u.test(token)) return false
  if (/^[0-9a-fA-F]{7,64}$/.test(token)) return /[0-9]/.test(token) && /[a-fA-F]/.test(token)
  if (/^\p{N}/u.test(token)) return false
  if (/[\p{L}\p{N}]_[\p{L}\p{N}]/u.test(token)) return true
  if (/^\p{Ll}[\p{Ll}\p{N}]*\p{Lu}/u.test(token)) return true
  if (/^\p{Lu}[\p{Ll}\p{N}]+\p{Lu}/u.test(token)) return true
  return /\p{L}/u.test(token) && /\p{N}/u.test(token)
}

/** Blanks out the spans (in order, apart), so that a later rule does not read inside them. */
const blank = (text: string, spans: ReadonlyArray<readonly [number, number]>): string => {
  if (spans.length === 0) return text
  let out = ""
  let at = 0
  for (const [start, end] of spans) {
    out += text.slice(at, start) + " ".repeat(end - start)
    at = end
  }
  return out + text.slice(at)
}

/** A fact found at a place in a text, for ordering. */
interface Found {
  readonly fact: Fact
  readonly at: number
}

/**
 * The facts of one text, in the order they stand in it (each occurrence; {@link extract}
 * removes repeats). `failure`: the text is a tool result marked as a failure — its first line
 * is an error (rule L1).
 *
 * @since 0.3.0
 * @category extracting
 */
export const extractText = (raw: string, failure = false): Array<Fact> => {
  const text = raw.normalize("NFC")
  const found: Array<Found> = []
  // Lines: errors and open items are whole lines.
  let offset = 0
  let first = true
  // The lines taken whole: what they hold is kept with them, not listed again.
  const lineSpans: Array<readonly [number, number]> = []
  for (const rawLine of text.split("\n")) {
    const line = rawLine.replace(/\r$/, "").trim()
    const at = offset
    offset += rawLine.length + 1
    if (line.length === 0) continue
    const body = line.replace(listMarker, "")
    const kind: Kind | undefined = (failure && first) || errorPatterns.some((p) => p.test(body))
      ? "error"
      : openPatterns.some((p) => p.test(body))
      ? "open"
      : undefined
    first = false
    if (kind === undefined) continue
    found.push({ fact: fact(kind, body), at })
    lineSpans.push([at, at + rawLine.length])
  }
  // URLs, then paths outside them, then identifiers outside both.
  const urlSpans: Array<readonly [number, number]> = []
  for (const m of blank(text, lineSpans).matchAll(urlPattern)) {
    const value = trimEnd(m[0])
    if (value.length <= m[0].indexOf("://") + 3) continue
    urlSpans.push([m.index, m.index + value.length])
    found.push({ fact: fact("url", value), at: m.index })
  }
  const noUrls = blank(blank(text, lineSpans), urlSpans)
  const pathSpans: Array<readonly [number, number]> = []
  for (const m of noUrls.matchAll(pathPattern)) {
    const value = trimEnd(m[0])
    if (!isPath(value)) continue
    pathSpans.push([m.index, m.index + value.length])
    found.push({ fact: fact("path", value), at: m.index })
  }
  const noPaths = blank(noUrls, pathSpans)
  const fileSpans: Array<readonly [number, number]> = []
  for (const m of noPaths.matchAll(bareFilePattern)) {
    fileSpans.push([m.index, m.index + m[0].length])
    found.push({ fact: fact("path", m[0]), at: m.index })
  }
  const noFiles = blank(noPaths, fileSpans)
  const uuidSpans: Array<readonly [number, number]> = []
  for (const m of noFiles.matchAll(uuidPattern)) {
    uuidSpans.push([m.index, m.index + m[0].length])
    found.push({ fact: fact("identifier", m[0]), at: m.index })
  }
  for (const m of blank(noFiles, uuidSpans).matchAll(tokenPattern)) {
    if (isIdentifier(m[0])) found.push({ fact: fact("identifier", m[0]), at: m.index })
  }
  // Stable: two facts at one place keep the order of the rules (the line's first).
  return found.map((f, i) => ({ ...f, i })).sort((a, b) => a.at - b.at || a.i - b.i).map((f) => f.fact)
}

/** The texts of a message a ledger reads, each with whether it is a failed tool result. */
const textsOf = (message: Prompt.Message): Array<readonly [string, boolean]> => {
  if (message.role === "system") return [[message.content, false]]
  const out: Array<readonly [string, boolean]> = []
  for (const part of message.content) {
    switch (part.type) {
      case "text":
      case "reasoning":
        out.push([part.text, false])
        break
      case "file":
        if (part.fileName !== undefined) out.push([part.fileName, false])
        break
      case "tool-call":
        for (const s of stringsOf(part.params)) out.push([s, false])
        break
      case "tool-result": {
        const strings = part.modelOutput === undefined
          ? stringsOf(part.result)
          : [Prompt.toolModelOutputToText(part.modelOutput)]
        strings.forEach((s, i) => out.push([s, part.isFailure && i === 0]))
        break
      }
      default:
        break
    }
  }
  return out
}

/** The strings of a JSON-like value, in order (object keys are names, not facts). */
const stringsOf = (value: unknown, depth = 0): Array<string> => {
  if (typeof value === "string") return [value]
  if (depth > 32 || typeof value !== "object" || value === null) return []
  const out: Array<string> = []
  for (const v of Array.isArray(value) ? value : Object.values(value)) out.push(...stringsOf(v, depth + 1))
  return out
}

const keyOf = (f: Fact): string => `${f.kind}\n${f.value}`

/**
 * The facts of a summary text's ledger, as it lists them, and the text before the ledger
 * (`body`). A text without a ledger is all body.
 *
 * @since 0.3.0
 * @category reading
 */
export const read = (text: string): { readonly body: string; readonly facts: Array<Fact> } => {
  const at = text.lastIndexOf(`\n${heading}\n`)
  const start = text.startsWith(`${heading}\n`) ? 0 : at < 0 ? -1 : at + 1
  if (start < 0) return { body: text, facts: [] }
  const facts: Array<Fact> = []
  for (const line of text.slice(start + heading.length + 1).split("\n")) {
    const m = /^- (path|url|identifier|error|open): (.+)$/u.exec(line)
    if (m === null) continue
    const kind = m[1]
    if (kind === "path" || kind === "url" || kind === "identifier" || kind === "error" || kind === "open") {
      facts.push({ kind, value: m[2]! })
    }
  }
  return { body: text.slice(0, start).replace(/\s+$/u, ""), facts }
}

/**
 * The facts of what a compaction summarises, each once, oldest first (rules L1, L2): those of
 * the previous summary's ledger as it lists them, then those of its text, then those of the
 * span's messages in order. A fact met again is as new as its last occurrence.
 *
 * @since 0.3.0
 * @category extracting
 */
export const extract = (span: ReadonlyArray<Prompt.Message>, previous: string | undefined): Array<Fact> => {
  const last = new Map<string, { readonly fact: Fact; readonly n: number }>()
  let n = 0
  const see = (f: Fact) => last.set(keyOf(f), { fact: f, n: n++ })
  if (previous !== undefined) {
    const { body, facts } = read(previous)
    for (const f of facts) see(f)
    for (const f of extractText(body)) see(f)
  }
  for (const message of span) {
    for (const [text, failure] of textsOf(message)) for (const f of extractText(text, failure)) see(f)
  }
  return [...last.values()].sort((a, b) => a.n - b.n).map((e) => e.fact)
}

/** A text no longer than this is read at once by {@link extractEffect}. */
export const extractPiece = 65_536

/**
 * The text in pieces of whole lines, each about {@link extractPiece} long (a line longer than
 * that is a piece of its own): no fact spans a line break (the patterns hold no `\n`, and NFC
 * never composes across one), so the facts of the pieces, in order, are those of the text.
 */
const linePieces = (text: string): Array<string> => {
  const out: Array<string> = []
  let start = 0
  while (text.length - start > extractPiece) {
    const at = text.indexOf("\n", start + extractPiece)
    if (at < 0) break
    out.push(text.slice(start, at + 1))
    start = at + 1
  }
  out.push(text.slice(start))
  return out
}

/** {@link extractText} over a long text in pieces of lines, yielding between them. */
const extractTextEffect = (raw: string, failure: boolean): Effect.Effect<Array<Fact>> =>
  raw.length <= extractPiece
    ? Effect.sync(() => extractText(raw, failure))
    : Effect.gen(function*() {
      const out: Array<Fact> = []
      // A failure's first non-blank line is its error: only until a piece has one.
      let first = failure
      for (const piece of linePieces(raw)) {
        for (const f of extractText(piece, first)) out.push(f)
        if (piece.trim().length > 0) first = false
        yield* Effect.yieldNow
      }
      return out
    })

/**
 * {@link extract}, the same facts, with a long text read in pieces of lines and a yield to the
 * event loop between them (issue 27, item 5; docs/design.md item 103).
 *
 * @since 0.3.0
 * @category extracting
 */
export const extractEffect = (
  span: ReadonlyArray<Prompt.Message>,
  previous: string | undefined
): Effect.Effect<Array<Fact>> =>
  Effect.gen(function*() {
    const last = new Map<string, { readonly fact: Fact; readonly n: number }>()
    let n = 0
    const see = (f: Fact) => last.set(keyOf(f), { fact: f, n: n++ })
    if (previous !== undefined) {
      const { body, facts } = read(previous)
      for (const f of facts) see(f)
      for (const f of yield* extractTextEffect(body, false)) see(f)
    }
    for (const message of span) {
      for (const [text, failure] of textsOf(message)) {
        for (const f of yield* extractTextEffect(text, failure)) see(f)
      }
    }
    return [...last.values()].sort((a, b) => a.n - b.n).map((e) => e.fact)
  })

/** Whether `text` holds a fact (a cut fact: its kept part). */
const holds = (text: string, f: Fact): boolean =>
  text.includes(f.value.endsWith("…") && Array.from(f.value).length > maxFactLength ? f.value.slice(0, -1) : f.value)

/**
 * The facts `text` does not contain, word for word (NFC), in their order (rule L3).
 *
 * @since 0.3.0
 * @category extracting
 */
export const missing = (facts: ReadonlyArray<Fact>, text: string): Array<Fact> => {
  const normal = text.normalize("NFC")
  return facts.filter((f) => !holds(normal, f))
}

/**
 * The ledger of `facts` as appended to a summary's text: a blank line, {@link heading}, a line
 * per fact. No facts: no ledger (`""`).
 *
 * @since 0.3.0
 * @category rendering
 */
export const render = (facts: ReadonlyArray<Fact>): string =>
  facts.length === 0 ? "" : `\n\n${heading}\n${facts.map((f) => `- ${f.kind}: ${f.value}`).join("\n")}`

/**
 * A summary's text with its ledger.
 *
 * @since 0.3.0
 * @category rendering
 */
export const append = (text: string, facts: ReadonlyArray<Fact>): string => text + render(facts)

/**
 * The newest facts that fit: the largest `k` such that the summary's text with the newest `k`
 * of `facts` appended still `fits` (the oldest are left out first, rule L4). Returns the kept
 * and the left-out facts, each in order.
 *
 * @since 0.3.0
 * @category budgeting
 */
export const fit = <E>(
  text: string,
  facts: ReadonlyArray<Fact>,
  fits: (text: string) => Effect.Effect<boolean, E>
): Effect.Effect<{ readonly kept: Array<Fact>; readonly dropped: Array<Fact> }, E> =>
  Effect.gen(function*() {
    const n = facts.length
    if (n === 0) return { kept: [], dropped: [] }
    if (yield* fits(append(text, facts))) return { kept: [...facts], dropped: [] }
    let lo = 0
    let hi = n - 1
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2)
      if (yield* fits(append(text, facts.slice(n - mid)))) lo = mid
      else hi = mid - 1
    }
    return { kept: facts.slice(n - lo), dropped: facts.slice(0, n - lo) }
  })

/**
 * The tokens a ledger of `facts` would add, at most: the ledger counted as one user message
 * (its framing counted once more than appended text costs).
 *
 * @since 0.3.0
 * @category budgeting
 */
export const tokens = (
  counter: TokenCounter["Service"],
  facts: ReadonlyArray<Fact>
): Effect.Effect<number, AiError.AiError> =>
  facts.length === 0
    ? Effect.succeed(0)
    : counter.count(Prompt.userMessage({ content: [Prompt.textPart({ text: render(facts) })] }))
