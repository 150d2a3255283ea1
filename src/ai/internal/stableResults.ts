/**
 * The results a stable window makes besides the pipeline's (rules S3, S4), as typed edits
 * (`ResultEdit`): an appending call's result, synthesised from the entries with no stage run,
 * and a compaction's result reordered to keep the previous window's relative order.
 *
 * @internal
 */
import type { ContextItem } from "../../ContextItem.ts"
import type { ExcludedItem } from "../../ExcludedItem.ts"
import * as ExclusionReason from "../../ExclusionReason.ts"
import type { IncludedItem } from "../../IncludedItem.ts"
import * as InclusionReason from "../../InclusionReason.ts"
import { type Candidates, toPrompt } from "../Candidates.ts"
import { messageIndexOf } from "../MessageIndex.ts"
import type { Fitted } from "../PromptWindow.ts"
import * as ResultEdit from "../ResultEdit.ts"
import * as WindowEntry from "../WindowEntry.ts"
import * as WindowState from "../WindowState.ts"
import { entryOfItem, type Extras, itemOfEntry } from "./windowEntries.ts"

/** An appending call's report entries, as the next append carries them (docs/design.md item 108). */
export interface AppendReport {
  /** The window's entries, each as kept: the next append's first included entries. */
  readonly kept: ReadonlyArray<IncludedItem>
  /** The excluded entries: the next append's, unchanged (an append excludes nothing new). */
  readonly excluded: ReadonlyArray<ExcludedItem>
}

/**
 * The result of an appending call (`ResultEdit.fromSelection`): the window as the entries say,
 * each item `Kept` (appended or not), every other candidate excluded as `Filtered` by the
 * stable window (or `Summarized`, when the summary covers it), no stage run.
 *
 * `carried`: the previous append's report over `previous`, when the call continues it (the same
 * items, summary and documents; design 108): its kept entries are this window's first ones and
 * its excluded entries this call's, so only the appended entries are made.
 */
export const appendedResult = (
  extras: Extras,
  previous: ReadonlyArray<WindowEntry.WindowEntry>,
  entries: ReadonlyArray<WindowEntry.WindowEntry>,
  targetTokens: number,
  reports: ReportEntries,
  carried?: AppendReport | undefined
): { readonly fitted: Fitted; readonly report: AppendReport } => {
  const { candidates, documents, summary } = extras
  const messageOf = summary === undefined
    ? candidates.messageOf
    : new Map(candidates.messageOf).set(summary.item, summary.message)
  const done = (included: ReadonlyArray<IncludedItem>, excluded: ReadonlyArray<ExcludedItem>, kept: ReadonlyArray<IncludedItem>) => {
    const result = ResultEdit.fromSelection({ included, excluded, targetTokens })
    return { fitted: { prompt: toPrompt(result.window, { ...candidates, messageOf }), result }, report: { kept, excluded } }
  }
  if (carried !== undefined && carried.kept.length === previous.length) {
    const appended: Array<IncludedItem> = []
    const keptNew: Array<IncludedItem> = []
    for (let k = previous.length; k < entries.length; k++) {
      const item = itemOfEntry(entries[k]!, extras)
      appended.push(reports.included(item, false))
      keptNew.push(reports.included(item, true))
    }
    return done(carried.kept.concat(appended), carried.excluded, carried.kept.concat(keptNew))
  }
  const n = candidates.messages.length
  // Marks by entry: messages at 0…n − 1, documents after them, the summary last.
  const sent = new Uint8Array(n + documents.length + 1)
  const at = (entry: WindowEntry.WindowEntry): number =>
    entry._tag === "Message" ? entry.index : entry._tag === "Document" ? n + entry.index : n + documents.length
  for (const entry of previous) sent[at(entry)] = 1
  const included = new Array<IncludedItem>(entries.length)
  const kept = new Array<IncludedItem>(entries.length)
  for (let k = 0; k < entries.length; k++) {
    const entry = entries[k]!
    const item = itemOfEntry(entry, extras)
    const wasSent = sent[at(entry)] === 1
    const made = reports.included(item, wasSent)
    included[k] = made
    kept[k] = wasSent ? made : reports.included(item, true)
    sent[at(entry)] = 2
  }
  const covered = summary === undefined ? undefined : new Uint8Array(n)
  if (summary !== undefined && covered !== undefined) {
    for (const i of WindowState.fromRuns(summary.state.covers)) if (i < n) covered[i] = 1
  }
  const excluded: Array<ExcludedItem> = []
  for (let i = 0; i < n; i++) {
    const item = candidates.items[i]!
    if (sent[i] !== 2) {
      excluded.push(
        summary !== undefined && covered?.[i] === 1 ? reports.summarized(item, summary.state.id) : reports.excluded(item)
      )
    }
  }
  for (let d = 0; d < documents.length; d++) {
    if (sent[n + d] !== 2) excluded.push(reports.excluded(documents[d]!))
  }
  return done(included, excluded, kept)
}

/**
 * The report entries of appending calls, made once per item (per stable window): an agent's calls report the same
 * items call after call, and the entries are immutable.
 */
export interface ReportEntries {
  readonly included: (item: ContextItem, wasSent: boolean) => IncludedItem
  readonly excluded: (item: ContextItem) => ExcludedItem
  readonly summarized: (item: ContextItem, summaryId: string) => ExcludedItem
}

export const makeReportEntries = (): ReportEntries => {
  const kept = new WeakMap<ContextItem, IncludedItem>()
  const appended = new WeakMap<ContextItem, IncludedItem>()
  const excluded = new WeakMap<ContextItem, ExcludedItem>()
  const summarized = new WeakMap<ContextItem, ExcludedItem>()
  const reason = ExclusionReason.Filtered.make({ filterName: stableWindowFilter })
  return {
    included: (item, wasSent) => {
      const memo = wasSent ? kept : appended
      let entry = memo.get(item)
      if (entry === undefined) {
        entry = { item, score: 1, reason: wasSent ? InclusionReason.kept : InclusionReason.appended }
        memo.set(item, entry)
      }
      return entry
    },
    excluded: (item) => {
      let entry = excluded.get(item)
      if (entry === undefined) {
        entry = { item, score: 0, reason }
        excluded.set(item, entry)
      }
      return entry
    },
    summarized: (item, summaryId) => {
      let entry = summarized.get(item)
      if (entry === undefined || entry.reason._tag !== "Summarized" || entry.reason.summaryId !== summaryId) {
        entry = { item, score: 0, reason: ExclusionReason.Summarized.make({ summaryId }) }
        summarized.set(item, entry)
      }
      return entry
    }
  }
}

/**
 * The filter name in the exclusion reason of the candidates an appending call leaves out: they
 * were left out by an earlier compaction of the conversation (`Filtered`,
 * `filterName: "stable-window"`).
 *
 * @since 0.3.0
 * @category constants
 */
export const stableWindowFilter = "stable-window"

/**
 * Rule S4's last clause: the items of a compacted window that were in the previous window take,
 * among the places they occupy, their previous relative order (`ResultEdit.reorder`).
 */
export const keepRelativeOrder = (
  fitted: Fitted,
  candidates: Candidates,
  documents: ReadonlyArray<ContextItem>,
  previous: ReadonlyArray<WindowEntry.WindowEntry>
): Fitted => {
  const rank = new WindowEntry.EntryMap<number>()
  previous.forEach((entry, k) => rank.set(entry, k))
  const entryOf = entryOfItem(documents)
  const result = ResultEdit.reorder(fitted.result, (included) => {
    const entry = entryOf(included.item)
    return entry === undefined ? undefined : rank.get(entry)
  })
  if (result === fitted.result) return fitted
  const messageOf = new Map(candidates.messageOf)
  for (const entry of result.report.included) {
    const index = messageIndexOf(entry.item)
    if (index !== undefined && !messageOf.has(entry.item)) messageOf.set(entry.item, candidates.messages[index]!)
  }
  return { prompt: toPrompt(result.window, { ...candidates, messageOf }), result }
}

