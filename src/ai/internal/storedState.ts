/**
 * Whether a conversation's stored state may be continued by this call (rule S3), and why not:
 * the reasons a stable window starts fresh (`WindowChange.FreshReason`).
 *
 * @internal
 */
import type * as WindowChange from "../WindowChange.ts"
import * as WindowEntry from "../WindowEntry.ts"
import { sameWindowState } from "./appendCarry.ts"
import * as WindowState from "../WindowState.ts"
import type * as WindowStore from "../WindowStore.ts"

/** A stored state usable by this call, with its window's entries, or why it is not. */
export type Previous =
  | { readonly _tag: "Usable"; readonly state: WindowState.WindowState; readonly entries: ReadonlyArray<WindowEntry.WindowEntry> }
  | { readonly _tag: "Unusable"; readonly reason: WindowChange.FreshReason }


/**
 * Whether a stored state may be continued (rule S3), and why not. `known`: the state this
 * window planned last for the conversation and its entries (design 108), used when the stored
 * state is that one.
 */
export const usable = (found: WindowStore.ReadResult, call: {
  readonly settings: string
  readonly now: number
  readonly ttlMillis: number
  readonly n: number
  readonly digests: ReadonlyArray<string>
  readonly documents: number
}, known?: {
  readonly state: WindowState.WindowState
  readonly entries: ReadonlyArray<WindowEntry.WindowEntry>
}): Previous => {
  switch (found._tag) {
    case "Missing":
      return { _tag: "Unusable", reason: "new" }
    case "Corrupt":
      return { _tag: "Unusable", reason: "corrupt" }
    case "Failed":
      return { _tag: "Unusable", reason: "store-failed" }
    case "Found":
      break
  }
  const state = found.state
  if (state.fingerprint !== call.settings) return { _tag: "Unusable", reason: "settings-changed" }
  if (call.now - state.updatedAtMillis > call.ttlMillis) return { _tag: "Unusable", reason: "expired" }
  if (state.historyLength > call.n || call.digests[state.historyLength] !== state.historyDigest) {
    return { _tag: "Unusable", reason: "history-changed" }
  }
  // The state this window planned, whose entries it keeps (an append's carry, design 108): checked
  // when it was made, not decoded again.
  if (known !== undefined && sameWindowState(known.state, state)) return { _tag: "Usable", state, entries: known.entries }
  const entries = WindowState.entriesOf(state.window)
  const seen = new WindowEntry.EntrySet()
  for (const entry of entries) {
    const inRange = entry._tag === "Summary"
      ? state.summary !== undefined
      : entry._tag === "Message"
      ? entry.index < state.historyLength
      : entry.index < call.documents
    // A window that names a message it never saw, a document that is not there, or an entry
    // twice was not written by this code for this history.
    if (!inRange || !seen.add(entry)) return { _tag: "Unusable", reason: "corrupt" }
  }
  for (const index of [...(state.masked ?? []), ...(state.references ?? []).flat()]) {
    if (index >= state.historyLength) return { _tag: "Unusable", reason: "corrupt" }
  }
  if (state.summary !== undefined) {
    for (const [first, length] of state.summary.covers) {
      if (first < 0 || first + length > state.historyLength) return { _tag: "Unusable", reason: "corrupt" }
    }
  }
  return { _tag: "Usable", state, entries }
}
