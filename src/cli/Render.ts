/**
 * Render: the text of `cupel demo` — the candidates, a window as a table with score bars, what
 * was excluded and why (in the library's terms and in plain words), the pipeline's stages,
 * overflow notices. Pure functions from values to lines; colour is applied only
 * when the caller says the output is a terminal.
 *
 * @since 0.1.0
 */
import { DateTime } from "effect"
import { CliOutput } from "effect/cli"
import type { ContextItem } from "../ContextItem.ts"
import type { ExcludedItem } from "../ExcludedItem.ts"
import type { ExclusionReason } from "../ExclusionReason.ts"
import type { IncludedItem } from "../IncludedItem.ts"
import type { InclusionReason } from "../InclusionReason.ts"
import type { OverflowError } from "../OverflowError.ts"
import * as KnapsackSlice from "../slicers/KnapsackSlice.ts"
import type { SlicerConfig } from "../slicers/SlicerConfig.ts"
import type { TraceEvent } from "../TraceEvent.ts"
import type { Placement } from "./Placement.ts"
import * as TerminalText from "./TerminalText.ts"

/**
 * How to draw: with ANSI colours or plain.
 *
 * @since 0.1.0
 * @category models
 */
export interface Style {
  readonly color: boolean
}

const paint = (code: string) => (style: Style, text: string): string =>
  style.color ? `\u001b[${code}m${text}\u001b[0m` : text

/** @since 0.1.0 @category styles */
export const bold = paint("1")
/** @since 0.1.0 @category styles */
export const dim = paint("2")
/** @since 0.1.0 @category styles */
export const red = paint("31")
/** @since 0.1.0 @category styles */
export const green = paint("32")
/** @since 0.1.0 @category styles */
export const yellow = paint("33")
/** @since 0.1.0 @category styles */
export const cyan = paint("36")

/**
 * `4633` → `4,633`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const count = (n: number): string => n.toLocaleString("en-US")

const segmenter = new Intl.Segmenter()

/**
 * Pads or cuts `text` to exactly `width` terminal cells, ending a cut with `…`. Wide characters
 * (CJK, emoji) count as two cells.
 *
 * @since 0.1.0
 * @category formatting
 */
export const fit = (text: string, width: number): string => {
  const total = CliOutput.displayWidth(text)
  if (total <= width) return text + " ".repeat(width - total)
  let out = ""
  let used = 0
  for (const { segment } of segmenter.segment(text)) {
    const w = CliOutput.displayWidth(segment)
    if (used + w > width - 1) break
    out += segment
    used += w
  }
  return out + "…" + " ".repeat(width - 1 - used)
}

/**
 * The first line of `content`, whitespace collapsed, other control characters escaped
 * (`TerminalText.escape`: an ANSI sequence in an item shows as `\u001b[31m`, and does not reach
 * the terminal), fitted to `width`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const preview = (content: string, width: number): string =>
  fit(TerminalText.escape(content.replace(/\s+/g, " ").trim()), width)

const eighths = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]

/**
 * A score drawn as a bar of `width` cells in eighths of a cell; scores are clamped to [0, 1]
 * for drawing (the specification does not bound them).
 *
 * @since 0.1.0
 * @category formatting
 */
export const bar = (score: number, width = 10): string => {
  const units = Math.round(Math.min(1, Math.max(0, score)) * width * 8)
  const full = Math.floor(units / 8)
  const partial = eighths[units % 8] ?? ""
  const drawn = "█".repeat(full) + partial
  return drawn + " ".repeat(width - full - (partial === "" ? 0 : 1))
}

const barColor = (score: number) => (score >= 0.75 ? green : score >= 0.45 ? yellow : red)

const kindTags: Record<string, string> = {
  message: "msg",
  document: "doc",
  tooloutput: "tool",
  systemprompt: "sys",
  memory: "mem",
  image: "img"
}

/**
 * A four-cell tag for an item's kind: `msg`, `doc`, `tool`, `sys`, `mem`, `img`, or the kind cut
 * short.
 *
 * @since 0.1.0
 * @category formatting
 */
export const kindTag = (kind: string): string =>
  kindTags[kind.toLowerCase()] ?? TerminalText.escape(kind).slice(0, 4).toLowerCase()

/**
 * An item's timestamp as `2024-06-03 09:25Z` (UTC), or `—`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const time = (item: ContextItem): string =>
  item.timestamp === undefined ? "—" : `${DateTime.formatIso(item.timestamp).slice(0, 16).replace("T", " ")}Z`

const previewWidth = 46

/**
 * The column headings of a window table.
 *
 * @since 0.1.0
 * @category rendering
 */
export const tableHeader = (style: Style): string =>
  dim(
    style,
    `${"#".padStart(4)}    kind  ${fit("content", previewWidth)}  ${"tokens".padStart(6)}  ${
      fit("score", 15)
    }  time (UTC)`
  )

/**
 * One row of a window table. `P` marks a pinned item.
 *
 * @since 0.1.0
 * @category rendering
 */
export const row = (style: Style, position: number, item: ContextItem, score: number | undefined): string => {
  const flag = item.pinned ? cyan(style, bold(style, "P")) : " "
  const scoreText = score === undefined
    ? fit("", 15)
    : `${barColor(score)(style, bar(score))} ${score.toFixed(2).padStart(4)}`
  return `${String(position).padStart(4)}  ${flag} ${kindTag(item.kind).padEnd(4)}  ${preview(item.content, previewWidth)}  ${
    count(item.tokens).padStart(6)
  }  ${scoreText}  ${dim(style, time(item))}`
}

/**
 * Why an item was left out, in words, with the figures the reason carries.
 *
 * @since 0.1.0
 * @category rendering
 */
export const reason = (r: ExclusionReason): string => {
  switch (r._tag) {
    case "BudgetExceeded":
      return `BudgetExceeded: needed ${count(r.itemTokens)} tokens, ${count(r.availableTokens)} were left`
    case "PinnedOverride":
      return `PinnedOverride: did not fit beside the pinned items (displaced by ` +
        `${JSON.stringify(fit(r.displacedBy, 32).trimEnd())})`
    case "Deduplicated":
      return `Deduplicated against ${JSON.stringify(fit(r.deduplicatedAgainst, 30).trimEnd())}`
    case "NegativeTokens":
      return `NegativeTokens: ${r.tokens}`
    case "ScoredTooLow":
      return `ScoredTooLow: ${r.score} < ${r.threshold}`
    case "QuotaCapExceeded":
      return `QuotaCapExceeded: ${r.kind} ${r.actual} > cap ${r.cap}`
    case "CountCapExceeded":
      return `CountCapExceeded: ${r.count} ${r.kind} items already selected, cap ${r.cap}`
    case "QuotaRequireDisplaced":
      return `QuotaRequireDisplaced by ${r.displacedByKind}`
    case "Filtered":
      return `Filtered by ${r.filterName}`
    case "Summarized":
      return `Summarized in ${r.summaryId}`
  }
}

/**
 * The lines for the items truncation dropped.
 *
 * @since 0.1.0
 * @category rendering
 */
export const excluded = (style: Style, items: ReadonlyArray<ExcludedItem>): Array<string> =>
  items.length === 0 ? [] : [
    `  ${bold(style, `excluded by truncation (${items.length}), in slicer order:`)}`,
    ...items.flatMap((e) => [
      `    ${red(style, "✗")} ${kindTag(e.item.kind).padEnd(4)}  ${preview(e.item.content, previewWidth - 2)}  ` +
      `${count(e.item.tokens).padStart(6)}  score ${e.score.toFixed(2)}`,
      `           ${dim(style, TerminalText.escape(reason(e.reason)))}`
    ])
  ]

/**
 * A placed window: the table, the totals, and what truncation or the notifier reported.
 *
 * @since 0.1.0
 * @category rendering
 */
export const placement = (style: Style, p: Placement, maxTokens: number): Array<string> => {
  const { events, result } = p
  const lines = [
    tableHeader(style),
    ...result.placed.map((item, i) => row(style, i + 1, item, p.scores.get(item)))
  ]
  const over = result.tokensOverBudget > 0 ? `, ${count(result.tokensOverBudget)} over` : ""
  lines.push(
    `  ${bold(style, "window:")} ${count(result.totalTokens)} tokens in ${result.placed.length} items ` +
      `(target ${count(result.targetTokens)}${over}; the candidates held ${count(result.mergedTokens)})`
  )
  lines.push(...excluded(style, result.excluded))
  for (const event of events) {
    lines.push(
      `  ${yellow(style, "!")} OverflowNotifier heard: ${count(event.tokensOverBudget)} tokens over budget, ` +
        `${event.overflowingItems.length} items kept anyway`
    )
  }
  if (result.totalTokens > maxTokens) {
    lines.push(
      `  ${yellow(style, "!")} the window also exceeds maxTokens (${count(maxTokens)}): ` +
        `a model with that context size would refuse it`
    )
  }
  return lines
}

/**
 * The line for an overflow under `throw`.
 *
 * @since 0.1.0
 * @category rendering
 */
export const overflowError = (style: Style, error: OverflowError): Array<string> => [
  `  ${red(style, `✗ OverflowError: ${error.message}`)}`,
  dim(style, `    (${count(error.tokensOverBudget)} tokens over; nothing was placed)`)
]

/**
 * The heading of one run.
 *
 * @since 0.1.0
 * @category rendering
 */
export const runHeader = (style: Style, index: number, total: number, placer: string, strategy: string): string => {
  const title = `── ${index}/${total} · ${placer} placer · overflow: ${strategy} `
  return bold(style, title + "─".repeat(Math.max(4, 100 - CliOutput.displayWidth(title))))
}

// ---------------------------------------------------------------------------------------------
// The pipeline demo
// ---------------------------------------------------------------------------------------------

/**
 * A kind in words: `SystemPrompt` → `system prompt`, `ToolOutput` → `tool output`.
 *
 * @since 0.2.0
 * @category formatting
 */
export const kindWords = (kind: string): string =>
  TerminalText.escape(kind).replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase()

/**
 * `text` in quotation marks, its first line cut to `width` cells.
 *
 * @since 0.2.0
 * @category formatting
 */
export const quote = (text: string, width: number): string => `“${preview(text, width).trimEnd()}”`

/** `9 tokens, 100 with bucket rounding`: the tokens a knapsack weighs an item at, when they differ. */
const rounded = (tokens: number, bucketSize: number | undefined): string => {
  const size = bucketSize ?? KnapsackSlice.defaultBucketSize
  // Exact for any safe integer, as the knapsack's own ceiling division is (design 22).
  const weighed = tokens % size === 0 ? tokens : tokens - (tokens % size) + size
  return weighed === tokens ? `${count(tokens)} tokens` : `${count(tokens)} tokens, ${count(weighed)} with bucket rounding`
}

/**
 * Why a slicer left out an item whose tokens fit what was left of the budget: which choice it
 * was, since it was not the room.
 */
const notChosen = (slicer: SlicerConfig | undefined, tokens: number, left: string): string => {
  switch (slicer?.type) {
    case undefined:
      return `not chosen by the slicer (${count(tokens)} tokens; ${left} left)`
    case "greedy":
      return `not chosen by the greedy slicer (${count(tokens)} tokens; ${left} left)`
    case "first_fit":
      return `not chosen by the first-fit slicer (${count(tokens)} tokens; ${left} left)`
    case "knapsack":
      return `not chosen: the knapsack's best total (${rounded(tokens, slicer.bucketSize)}; ${left} left)`
    case "count_constrained_knapsack":
      return `not chosen: the count-constrained knapsack's best total (${rounded(tokens, slicer.bucketSize)}; ${left} left)`
    case "quota":
      return `not chosen within its kind's quota share (${count(tokens)} tokens; ${left} left in the whole budget)`
    case "count_quota":
      // The inner slicer chose with the budget the required items left it; the caps then dropped
      // some of its items, which is the only way a greedy or first-fit choice leaves room that fits.
      return slicer.inner.type === "greedy" || slicer.inner.type === "first_fit"
        ? `not chosen by the ${slicer.inner.type === "greedy" ? "greedy" : "first-fit"} slicer, which ran before the ` +
          `count caps freed room (${count(tokens)} tokens; ${left} left)`
        : notChosen(slicer.inner, tokens, left)
  }
}

/**
 * Why an item was left out, as a person would say it, in one line: `did not fit: 3,830 tokens,
 * 18 left`, `duplicate of “Runbook: …”`, `displaced by the pinned system prompt`. `pinned` are
 * the run's pinned items, to name the one a `PinnedOverride` points at by its kind.
 *
 * A `BudgetExceeded` item "did not fit" only when its tokens are more than were left. A slicer
 * that optimises a total (the knapsack, which also rounds tokens up to its buckets) or shares the
 * budget out (the quota slicers) leaves out items that would have fitted: those are "not chosen",
 * in the words of `slicer`, the run's slicer (`not chosen: the knapsack's best total (9 tokens,
 * 100 with bucket rounding; 88 left)`). Only these words change; the report keeps the
 * specification's `BudgetExceeded`.
 *
 * @since 0.2.0
 * @category rendering
 */
export const humanReason = (
  r: ExclusionReason,
  pinned: ReadonlyArray<ContextItem>,
  slicer?: SlicerConfig
): string => {
  switch (r._tag) {
    case "BudgetExceeded":
      return r.itemTokens > r.availableTokens
        ? `did not fit: ${count(r.itemTokens)} tokens, ${count(r.availableTokens)} left`
        : notChosen(slicer, r.itemTokens, count(r.availableTokens))
    case "PinnedOverride": {
      const by = pinned.find((item) => item.content === r.displacedBy)
      return by === undefined
        ? `displaced by the pinned ${quote(r.displacedBy, 24)}`
        : `displaced by the pinned ${kindWords(by.kind)}`
    }
    case "Deduplicated":
      return `duplicate of ${quote(r.deduplicatedAgainst, 26)}`
    case "NegativeTokens":
      return `negative token count (${r.tokens}): not a candidate`
    case "CountCapExceeded":
      return `cap reached: ${r.count} ${TerminalText.escape(r.kind)} items already in (cap ${r.cap})`
    default:
      return TerminalText.escape(reason(r))
  }
}

/**
 * Why an item is in the window, in a word or two.
 *
 * @since 0.2.0
 * @category rendering
 */
export const inclusionWords = (r: InclusionReason): string =>
  r._tag === "Pinned"
    ? "pinned"
    : r._tag === "ZeroToken"
    ? "zero tokens"
    : r._tag === "Kept"
    ? (r.appended ? "appended to the previous window" : "kept from the previous window")
    : "scored"

/**
 * A section heading: `── title ─────…`, as wide as a run heading.
 *
 * @since 0.2.0
 * @category rendering
 */
export const section = (style: Style, title: string): string => {
  const text = `── ${title} `
  return bold(style, text + "─".repeat(Math.max(4, 100 - CliOutput.displayWidth(text))))
}

const flag = (style: Style, item: ContextItem) => item.pinned ? cyan(style, bold(style, "P")) : " "

/**
 * The candidates as they come in: position, kind, content, tokens, priority and time.
 *
 * @since 0.2.0
 * @category rendering
 */
export const candidates = (style: Style, items: ReadonlyArray<ContextItem>): Array<string> => [
  dim(style, `${"#".padStart(4)}    kind  ${fit("content", previewWidth)}  ${"tokens".padStart(6)}  priority  time (UTC)`),
  ...items.map((item, i) =>
    `${String(i + 1).padStart(4)}  ${flag(style, item)} ${kindTag(item.kind).padEnd(4)}  ${
      preview(item.content, previewWidth)
    }  ${count(item.tokens).padStart(6)}  ${(item.priority === undefined ? "—" : String(item.priority)).padStart(8)}  ${
      dim(style, time(item))
    }`
  )
]

const scoreCell = (style: Style, score: number) =>
  `${barColor(score)(style, bar(score))} ${score.toFixed(2).padStart(4)}`

/**
 * The window: each position with its item, score (a bar) and why it is there.
 *
 * @since 0.2.0
 * @category rendering
 */
export const window = (style: Style, included: ReadonlyArray<IncludedItem>): Array<string> => [
  dim(style, `${"#".padStart(4)}    kind  ${fit("content", previewWidth)}  ${"tokens".padStart(6)}  ${fit("score", 15)}  why`),
  ...included.map(({ item, reason: r, score }, i) =>
    `${String(i + 1).padStart(4)}  ${flag(style, item)} ${kindTag(item.kind).padEnd(4)}  ${
      preview(item.content, previewWidth)
    }  ${count(item.tokens).padStart(6)}  ${scoreCell(style, score)}  ${dim(style, inclusionWords(r))}`
  )
]

const excludedPreview = 34

/**
 * The excluded items, one line each: kind, content, tokens, score and the reason in words
 * ({@link humanReason}, with the run's `slicer`).
 *
 * @since 0.2.0
 * @category rendering
 */
export const exclusions = (
  style: Style,
  items: ReadonlyArray<ExcludedItem>,
  pinned: ReadonlyArray<ContextItem>,
  slicer?: SlicerConfig
): Array<string> => [
  dim(
    style,
    `${" ".repeat(6)}kind  ${fit("content", excludedPreview)}  ${"tokens".padStart(6)}  ${"score".padStart(5)}  why`
  ),
  ...items.map((e) =>
    `    ${red(style, "✗")} ${kindTag(e.item.kind).padEnd(4)}  ${preview(e.item.content, excludedPreview)}  ${
      count(e.item.tokens).padStart(6)
    }  ${e.score.toFixed(2).padStart(5)}  ${humanReason(e.reason, pinned, slicer)}`
  )
]

/**
 * The stage events: each stage, the items it passed on, its duration.
 *
 * @since 0.2.0
 * @category rendering
 */
export const stages = (style: Style, events: ReadonlyArray<TraceEvent>): Array<string> => {
  const total = events.reduce((sum, e) => sum + e.durationMs, 0)
  return [
    ...events.map((e) =>
      `    ${e.stage.padEnd(12)} ${String(e.itemCount).padStart(4)} items  ${
        dim(style, `${e.durationMs.toFixed(2).padStart(7)} ms`)
      }${e.message === undefined ? "" : `  ${e.message}`}`
    ),
    `    ${"total".padEnd(12)} ${" ".repeat(10)}  ${dim(style, `${total.toFixed(2).padStart(7)} ms`)}`
  ]
}
