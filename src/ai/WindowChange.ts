/**
 * WindowChange: what a call did to its conversation's window — appended, compacted or fitted
 * afresh, and why — and the accounting of it: the entries kept, added and dropped, and the
 * prefix two consecutive windows share (what a provider's prompt cache can serve). A window
 * here is its entries (`WindowEntry`: a message of the history, a document, the summary).
 *
 * @since 0.3.0
 */
import * as WindowEntry from "./WindowEntry.ts"
import type * as WindowSummary from "./WindowSummary.ts"

/**
 * What a call did with the conversation's window:
 *
 * - `append` — the previous window and the new messages (rule S3);
 * - `compact` — chosen again by the pipeline, down to the low watermark (S4);
 * - `fresh` — no usable state, and the whole history fits (S5).
 *
 * @since 0.3.0
 * @category models
 */
export type Action = "append" | "compact" | "fresh"

/**
 * Why no state was used (rule S5); `undefined` when the conversation's state was used.
 *
 * @since 0.3.0
 * @category models
 */
export type FreshReason = "new" | "expired" | "history-changed" | "settings-changed" | "corrupt" | "store-failed"

/**
 * The change from the conversation's previous window to this call's: what it did, why it fitted
 * afresh (if it did), the items kept, added and dropped (and their tokens), and the low watermark
 * of a compaction.
 *
 * @since 0.3.0
 * @category models
 */
export interface Change {
  readonly action: Action
  readonly fresh: FreshReason | undefined
  readonly kept: number
  readonly added: number
  readonly dropped: number
  readonly keptTokens: number
  readonly addedTokens: number
  readonly droppedTokens: number
  readonly lowWatermark: number | undefined
  /** What the store said when it failed, if it did. */
  readonly storeFailure: string | undefined
  /** A compaction with a summariser: what it did about the summary. */
  readonly summary: WindowSummary.Outcome | undefined
}

/**
 * The tokens of the entries two windows share from their start (the prefix a provider's cache
 * can serve); a replaced summary ends it.
 *
 * @since 0.3.0
 * @category accounting
 */
export const commonPrefix = (
  previous: ReadonlyArray<WindowEntry.WindowEntry>,
  current: ReadonlyArray<WindowEntry.WindowEntry>,
  tokensOf: (entry: WindowEntry.WindowEntry) => number,
  summaryReplaced: boolean
): number => {
  let tokens = 0
  const n = Math.min(previous.length, current.length)
  for (let k = 0; k < n && WindowEntry.equals(previous[k]!, current[k]!); k++) {
    // A new summary stands where the old one stood: the same entry, another text.
    if (summaryReplaced && current[k]!._tag === "Summary") break
    tokens += tokensOf(current[k]!)
  }
  return tokens
}

/**
 * The change from a conversation's previous window to this call's: what stayed, what was added
 * and what was dropped (entries and tokens; a replaced summary is dropped and added), with the
 * call's action, why it fitted afresh, the low watermark of a compaction, the store's failure
 * and the summary's outcome.
 *
 * @since 0.3.0
 * @category accounting
 */
export const changeOf = (
  windows: {
    readonly previous: ReadonlyArray<WindowEntry.WindowEntry> | undefined
    readonly current: ReadonlyArray<WindowEntry.WindowEntry>
    readonly tokensBefore: (entry: WindowEntry.WindowEntry) => number
    readonly tokensAfter: (entry: WindowEntry.WindowEntry) => number
    readonly summaryReplaced: boolean
  },
  action: Action,
  fresh: FreshReason | undefined,
  lowWatermark: number | undefined,
  storeFailure: string | undefined,
  summary: WindowSummary.Outcome | undefined
): Change => {
  const { current, summaryReplaced, tokensAfter, tokensBefore } = windows
  const previous = windows.previous ?? []
  // A replaced summary is the same entry with another text: dropped, and another one added.
  const same = (entry: WindowEntry.WindowEntry) => !(summaryReplaced && entry._tag === "Summary")
  const before = new WindowEntry.EntrySet(previous)
  const now = new WindowEntry.EntrySet(current)
  let kept = 0
  let keptTokens = 0
  let added = 0
  let addedTokens = 0
  let dropped = 0
  let droppedTokens = 0
  for (const entry of current) {
    if (before.has(entry) && same(entry)) {
      kept++
      keptTokens += tokensAfter(entry)
    } else {
      added++
      addedTokens += tokensAfter(entry)
    }
  }
  // A window names an entry at most once: `StableWindow` uses no state that does not.
  for (const entry of previous) {
    if (!now.has(entry) || !same(entry)) {
      dropped++
      droppedTokens += tokensBefore(entry)
    }
  }
  return {
    action,
    fresh,
    kept,
    added,
    dropped,
    keptTokens,
    addedTokens,
    droppedTokens,
    lowWatermark,
    storeFailure,
    summary
  }
}
