/**
 * A stable window's entries and the items and messages they stand for: an entry's item, tokens
 * and message (read from the candidates, the documents and the summary), and the entries of a
 * fitted window's items (what the stored state remembers).
 *
 * @internal
 */
import { Prompt } from "effect/ai"
import type { ContextItem } from "../../ContextItem.ts"
import type { Candidates } from "../Candidates.ts"
import { messageIndexOf } from "../MessageIndex.ts"
import * as WindowEntry from "../WindowEntry.ts"
import * as WindowSummary from "../WindowSummary.ts"

/** What a window's entries refer to: the history's messages, the documents, the summary. */
export interface Extras {
  readonly candidates: Candidates
  readonly documents: ReadonlyArray<ContextItem>
  readonly summary: WindowSummary.Summary | undefined
}

/**
 * The item of an entry. A usable state names the summary only with one, and messages and
 * documents that are there (`storedState.usable`).
 */
export const itemOfEntry = (entry: WindowEntry.WindowEntry, extras: Extras): ContextItem => {
  switch (entry._tag) {
    case "Message":
      return extras.candidates.items[entry.index]!
    case "Document":
      return extras.documents[entry.index]!
    case "Summary":
      return extras.summary!.item
  }
}

/** The tokens of an entry. */
export const tokensOfEntry = (entry: WindowEntry.WindowEntry, extras: Extras): number => itemOfEntry(entry, extras).tokens

/** The message an entry is sent as: the history's own, the summary's, a document's text as a system message. */
export const messageOfEntry = (entry: WindowEntry.WindowEntry, extras: Extras): Prompt.Message => {
  switch (entry._tag) {
    case "Message":
      return extras.candidates.messages[entry.index]!
    case "Document":
      return Prompt.systemMessage({ content: extras.documents[entry.index]!.content })
    case "Summary":
      return extras.summary!.message
  }
}

/**
 * The entry of an item of a window: its document's, the summary's, or its message's (the
 * candidates' item or the copy the call kept, rule K2); `undefined` for none of these (no item
 * of a fitted window).
 */
export const entryOfItem = (
  documents: ReadonlyArray<ContextItem>
): (item: ContextItem) => WindowEntry.WindowEntry | undefined => {
  const documentIndex = new Map<ContextItem, number>()
  documents.forEach((document, d) => documentIndex.set(document, d))
  return (item) => {
    const d = documentIndex.get(item)
    if (d !== undefined) return WindowEntry.document(d)
    if (item.metadata[WindowSummary.summaryIdKey] !== undefined) return WindowEntry.summary
    const index = messageIndexOf(item)
    return index === undefined ? undefined : WindowEntry.message(index)
  }
}

/**
 * The entries of a window's items ({@link entryOfItem}); an item of no entry would have no
 * place in the state, and is left out.
 */
export const entriesOf = (
  window: ReadonlyArray<ContextItem>,
  documents: ReadonlyArray<ContextItem>
): Array<WindowEntry.WindowEntry> => {
  const entryOf = entryOfItem(documents)
  const entries: Array<WindowEntry.WindowEntry> = []
  for (const item of window) {
    const entry = entryOf(item)
    if (entry !== undefined) entries.push(entry)
  }
  return entries
}

