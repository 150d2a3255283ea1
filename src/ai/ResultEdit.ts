/**
 * ResultEdit: the edits the agent area makes to a pipeline's result after the pipeline ran —
 * dropping the items a window must not open on (rule K3), putting items back in their previous
 * order (S4), inserting the summary (C1), re-marking excluded items (the messages a summary
 * covers), and building the result of a window that no stage chose (an appending call, S3).
 *
 * Each edit gives a result that keeps the report's invariants (docs/design.md, "Edits of a
 * pipeline result"), given one that keeps them:
 *
 * 1. `window` is the items of `report.included`, in order (the same objects);
 * 2. `totalTokens` is the sum of the window's tokens, none of them negative;
 * 3. every candidate is included or excluded exactly once (by object), and `totalCandidates`
 *    is `included.length + excluded.length`;
 * 4. `totalTokensConsidered` is the sum of every candidate's tokens, negative counts included;
 * 5. `excluded` is by score, highest first, ties in the order they were excluded (stable);
 * 6. `tokensOverBudget` is `max(0, totalTokens − target)` for the target the window is held to;
 * 7. `events` and `countRequirementShortfalls` are the pipeline's: no edit runs a stage.
 *
 * An edit that changes nothing gives back the result it was given.
 *
 * @since 0.3.0
 */
import type { ContextItem } from "../ContextItem.ts"
import type { ExcludedItem } from "../ExcludedItem.ts"
import * as ExclusionReason from "../ExclusionReason.ts"
import type { IncludedItem } from "../IncludedItem.ts"
import * as InclusionReason from "../InclusionReason.ts"
import { withReport } from "../internal/lazyReport.ts"
import type { PipelineResult } from "../PipelineResult.ts"
import type { TraceEvent } from "../TraceEvent.ts"

/** Score order, highest first; equal scores (and incomparable ones) keep their order. */
const byScore = (a: ExcludedItem, b: ExcludedItem): number => (a.score > b.score ? -1 : a.score < b.score ? 1 : 0)

/** `excluded` with `added` after it, then in score order (stable: `Array.prototype.sort` is). */
const withExcluded = (excluded: ReadonlyArray<ExcludedItem>, added: ReadonlyArray<ExcludedItem>): Array<ExcludedItem> =>
  [...excluded, ...added].sort(byScore)

const sumTokens = (entries: ReadonlyArray<{ readonly item: ContextItem }>): number => {
  let tokens = 0
  for (let k = 0; k < entries.length; k++) tokens += entries[k]!.item.tokens
  return tokens
}

const windowOf = (included: ReadonlyArray<IncludedItem>): Array<ContextItem> => {
  const window = new Array<ContextItem>(included.length)
  for (let k = 0; k < included.length; k++) window[k] = included[k]!.item
  return window
}

/**
 * The included items for which `which` holds leave the window and are excluded with `reason`
 * and the score they were included with. The window's excess shrinks by the tokens that left
 * (the target does not move).
 *
 * @since 0.3.0
 * @category edits
 */
export const exclude = (
  result: PipelineResult,
  which: (entry: IncludedItem, position: number) => boolean,
  reason: ExclusionReason.ExclusionReason
): PipelineResult => {
  const included = result.report.included
  const stays: Array<IncludedItem> = []
  const leaves: Array<ExcludedItem> = []
  let leftTokens = 0
  for (let k = 0; k < included.length; k++) {
    const entry = included[k]!
    if (which(entry, k)) {
      leaves.push({ item: entry.item, score: entry.score, reason })
      leftTokens += entry.item.tokens
    } else stays.push(entry)
  }
  if (leaves.length === 0) return result
  return {
    window: windowOf(stays),
    // The excluded list made when read, as the pipeline's is (docs/design.md item 138).
    report: withReport(result.report, { included: stays, excluded: (before) => withExcluded(before, leaves) }),
    totalTokens: result.totalTokens - leftTokens,
    tokensOverBudget: Math.max(0, result.tokensOverBudget - leftTokens)
  }
}

/**
 * The items a window must not open on, excluded with `reason`: the `droppable` items placed
 * before the first item that `opens` it. Nothing is dropped when no item opens it.
 *
 * @since 0.3.0
 * @category edits
 */
export const dropLeading = (
  result: PipelineResult,
  rule: {
    readonly opens: (item: ContextItem) => boolean
    readonly droppable: (item: ContextItem) => boolean
  },
  reason: ExclusionReason.ExclusionReason
): PipelineResult => {
  const included = result.report.included
  let first = -1
  for (let k = 0; k < included.length; k++) {
    if (rule.opens(included[k]!.item)) {
      first = k
      break
    }
  }
  if (first <= 0) return result
  return exclude(result, (entry, k) => k < first && rule.droppable(entry.item), reason)
}

/**
 * The included items that `rankOf` ranks take, among the places they occupy, the order of
 * their ranks (equal ranks keep their order); the others keep their places.
 *
 * @since 0.3.0
 * @category edits
 */
export const reorder = (
  result: PipelineResult,
  rankOf: (entry: IncludedItem) => number | undefined
): PipelineResult => {
  const included = result.report.included
  const places: Array<number> = []
  const ranks: Array<number> = []
  for (let k = 0; k < included.length; k++) {
    const rank = rankOf(included[k]!)
    if (rank !== undefined) {
      places.push(k)
      ranks.push(rank)
    }
  }
  const order = places.map((_, p) => p).sort((a, b) => {
    const ra = ranks[a]!
    const rb = ranks[b]!
    return ra < rb ? -1 : ra > rb ? 1 : a - b
  })
  if (order.every((p, q) => p === q)) return result
  const reordered = included.slice()
  for (let q = 0; q < order.length; q++) reordered[places[q]!] = included[places[order[q]!]!]!
  return { ...result, window: windowOf(reordered), report: withReport(result.report, { included: reordered }) }
}

/**
 * `item` enters the window at `position` (clamped to the window), `Pinned` with score 1 — the
 * score pinned items enter the Place stage with. A new candidate, unless it is one already:
 * then its entry moves (an excluded one is excluded no more). The window's excess is measured
 * against `targetTokens`, the target it is held to.
 *
 * An item of negative tokens never enters a window: as the Classify stage does with a pinned
 * one, it is excluded (`NegativeTokens`, score 0).
 *
 * @since 0.3.0
 * @category edits
 */
export const insertPinned = (
  result: PipelineResult,
  item: ContextItem,
  options: { readonly position: number; readonly targetTokens: number }
): PipelineResult => {
  const { report } = result
  const wasIncluded = report.included.findIndex((entry) => entry.item === item)
  const wasExcluded = wasIncluded >= 0 ? -1 : report.excluded.findIndex((entry) => entry.item === item)
  const isNew = wasIncluded < 0 && wasExcluded < 0
  if (item.tokens < 0) {
    const reason = ExclusionReason.NegativeTokens.make({ tokens: item.tokens })
    if (wasIncluded >= 0) return exclude(result, (_, k) => k === wasIncluded, reason)
    if (!isNew) return result
    return {
      ...result,
      report: {
        ...report,
        excluded: withExcluded(report.excluded, [{ item, score: 0, reason }]),
        totalCandidates: report.totalCandidates + 1,
        totalTokensConsidered: report.totalTokensConsidered + item.tokens
      }
    }
  }
  const others = wasIncluded < 0 ? report.included : report.included.filter((_, k) => k !== wasIncluded)
  const position = Math.max(0, Math.min(others.length, Math.floor(options.position)))
  const included = [
    ...others.slice(0, position),
    { item, score: 1, reason: InclusionReason.pinned },
    ...others.slice(position)
  ]
  const totalTokens = wasIncluded < 0 ? result.totalTokens + item.tokens : result.totalTokens
  return {
    window: windowOf(included),
    report: {
      ...report,
      included,
      excluded: wasExcluded < 0 ? report.excluded : report.excluded.filter((_, k) => k !== wasExcluded),
      totalCandidates: report.totalCandidates + (isNew ? 1 : 0),
      totalTokensConsidered: report.totalTokensConsidered + (isNew ? item.tokens : 0)
    },
    totalTokens,
    tokensOverBudget: Math.max(0, totalTokens - options.targetTokens)
  }
}

/**
 * The excluded items for which `reasonOf` gives a reason are excluded for that reason instead,
 * with their score and place.
 *
 * @since 0.3.0
 * @category edits
 */
export const relabel = (
  result: PipelineResult,
  reasonOf: (entry: ExcludedItem) => ExclusionReason.ExclusionReason | undefined
): PipelineResult => {
  const before = result.report.excluded
  let excluded: Array<ExcludedItem> | undefined
  for (let k = 0; k < before.length; k++) {
    const entry = before[k]!
    const reason = reasonOf(entry)
    if (reason === undefined) continue
    excluded ??= before.slice()
    excluded[k] = { ...entry, reason }
  }
  return excluded === undefined ? result : { ...result, report: { ...result.report, excluded } }
}

/**
 * The result of a window no stage chose: `included` in order, every other candidate in
 * `excluded` (put in score order when it is not), no stage's events unless given, the excess
 * measured against `targetTokens`. The entries are used as they are, so that a caller can make
 * each once per item (a stable window's appending calls report the same items call after call).
 * An included item of negative tokens is excluded instead (`NegativeTokens`, score 0), as the
 * Classify stage would.
 *
 * @since 0.3.0
 * @category constructors
 */
export const fromSelection = (selection: {
  readonly included: ReadonlyArray<IncludedItem>
  readonly excluded: ReadonlyArray<ExcludedItem>
  readonly targetTokens: number
  readonly events?: ReadonlyArray<TraceEvent> | undefined
}): PipelineResult => {
  let { excluded, included } = selection
  // One pass over each list (an appending call's are the history's length): the window, its
  // tokens and whether an item of negative tokens is there; the excluded tokens and order.
  let window = new Array<ContextItem>(included.length)
  let totalTokens = 0
  let negative = false
  for (let k = 0; k < included.length; k++) {
    const item = included[k]!.item
    window[k] = item
    totalTokens += item.tokens
    if (item.tokens < 0) negative = true
  }
  if (negative) {
    const left: Array<ExcludedItem> = []
    for (const entry of included) {
      if (entry.item.tokens < 0) {
        left.push({ item: entry.item, score: 0, reason: ExclusionReason.NegativeTokens.make({ tokens: entry.item.tokens }) })
      }
    }
    included = included.filter((entry) => entry.item.tokens >= 0)
    excluded = [...excluded, ...left]
    window = windowOf(included)
    totalTokens = sumTokens(included)
  }
  let excludedTokens = 0
  let sorted = true
  for (let k = 0; k < excluded.length; k++) {
    excludedTokens += excluded[k]!.item.tokens
    if (k > 0 && byScore(excluded[k - 1]!, excluded[k]!) > 0) sorted = false
  }
  if (!sorted) excluded = excluded.slice().sort(byScore)
  return {
    window,
    report: {
      events: selection.events ?? [],
      included,
      excluded,
      totalCandidates: included.length + excluded.length,
      totalTokensConsidered: totalTokens + excludedTokens,
      countRequirementShortfalls: []
    },
    totalTokens,
    tokensOverBudget: Math.max(0, totalTokens - selection.targetTokens)
  }
}

