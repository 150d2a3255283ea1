/**
 * WindowEntry: what one place of a stable window's window holds — message `index` of the
 * conversation's history, document `index` of the layer's `documents`, or the summary of what
 * compactions dropped (docs/ai.md, rules S2–S4, C1).
 *
 * A window is its entries, in order: `StableWindow` plans with them, `WindowChange` accounts
 * for them. Only the stored state (`WindowState`) writes them as integers, its own encoding;
 * nothing else sees those integers.
 *
 * Entries are compared by {@link equals} (or gathered in an {@link EntrySet}), never by
 * identity. The constructors hand out shared objects for the indexes a conversation usually
 * reaches, so that reading a state of a thousand entries at every call allocates none.
 *
 * @since 0.3.0
 */

/**
 * @since 0.3.0
 * @category models
 */
export interface Message {
  readonly _tag: "Message"
  readonly index: number
}

/**
 * @since 0.3.0
 * @category models
 */
export interface Document {
  readonly _tag: "Document"
  readonly index: number
}

/**
 * @since 0.3.0
 * @category models
 */
export interface Summary {
  readonly _tag: "Summary"
}

/**
 * A place of a window: a message of the history, a document, or the summary.
 *
 * @since 0.3.0
 * @category models
 */
export type WindowEntry = Message | Document | Summary

/**
 * How many entries of each tag are shared. Past it an entry is a new object (no history of a
 * session bench reaches it); what matters is only that the shared ones stay bounded.
 */
const shared = 1 << 16
const messages: Array<Message | undefined> = []
const documents: Array<Document | undefined> = []

/** Grows `table` to hold `index`, one slot after another: a far write would make it sparse (slow). */
const reach = <A>(table: Array<A | undefined>, index: number): void => {
  while (table.length <= index) table.push(undefined)
}

/**
 * Message `index` of the history.
 *
 * @since 0.3.0
 * @category constructors
 */
export const message = (index: number): Message => {
  if (index < 0 || index >= shared || !Number.isInteger(index)) return { _tag: "Message", index }
  reach(messages, index)
  let entry = messages[index]
  if (entry === undefined) {
    entry = Object.freeze({ _tag: "Message", index })
    messages[index] = entry
  }
  return entry
}

/**
 * Document `index` of the layer's documents.
 *
 * @since 0.3.0
 * @category constructors
 */
export const document = (index: number): Document => {
  if (index < 0 || index >= shared || !Number.isInteger(index)) return { _tag: "Document", index }
  reach(documents, index)
  let entry = documents[index]
  if (entry === undefined) {
    entry = Object.freeze({ _tag: "Document", index })
    documents[index] = entry
  }
  return entry
}

/**
 * The summary.
 *
 * @since 0.3.0
 * @category constructors
 */
export const summary: Summary = Object.freeze({ _tag: "Summary" })

/**
 * Whether two entries name the same place.
 *
 * @since 0.3.0
 * @category comparing
 */
export const equals = (a: WindowEntry, b: WindowEntry): boolean => {
  if (a === b) return true
  switch (a._tag) {
    case "Summary":
      return b._tag === "Summary"
    case "Message":
      return b._tag === "Message" && a.index === b.index
    case "Document":
      return b._tag === "Document" && a.index === b.index
  }
}

/**
 * Whole numbers >= 0, as a bitmap up to {@link dense} (an entry's index is below the history's
 * length: a thousand entries are a kilobyte, and no hashing), in a `Set` past it.
 */
class IndexSet {
  private marks = new Uint8Array(0)
  private far: Set<number> | undefined = undefined

  /** Adds `index`; `false` when it was there already. */
  add(index: number): boolean {
    if (index < dense && Number.isInteger(index) && index >= 0) {
      if (index >= this.marks.length) {
        const grown = new Uint8Array(Math.min(dense, Math.max(64, 2 * this.marks.length, index + 1)))
        grown.set(this.marks)
        this.marks = grown
      }
      if (this.marks[index] === 1) return false
      this.marks[index] = 1
      return true
    }
    this.far ??= new Set()
    if (this.far.has(index)) return false
    this.far.add(index)
    return true
  }

  has(index: number): boolean {
    return index < this.marks.length && index >= 0 && Number.isInteger(index)
      ? this.marks[index] === 1
      : this.far?.has(index) === true
  }
}

const dense = 1 << 20

/**
 * A set of entries: membership by tag and index.
 *
 * @since 0.3.0
 * @category models
 */
export class EntrySet {
  private readonly messages = new IndexSet()
  private readonly documents = new IndexSet()
  private hasSummary = false

  constructor(entries?: ReadonlyArray<WindowEntry>) {
    if (entries !== undefined) for (let k = 0; k < entries.length; k++) this.add(entries[k]!)
  }

  /** Adds `entry`; `false` when it was there already. */
  add(entry: WindowEntry): boolean {
    switch (entry._tag) {
      case "Summary": {
        const was = this.hasSummary
        this.hasSummary = true
        return !was
      }
      case "Message":
        return this.messages.add(entry.index)
      case "Document":
        return this.documents.add(entry.index)
    }
  }

  has(entry: WindowEntry): boolean {
    switch (entry._tag) {
      case "Summary":
        return this.hasSummary
      case "Message":
        return this.messages.has(entry.index)
      case "Document":
        return this.documents.has(entry.index)
    }
  }
}

/**
 * A map from entries: lookup by tag and index.
 *
 * @since 0.3.0
 * @category models
 */
export class EntryMap<V> {
  private readonly messages = new Map<number, V>()
  private readonly documents = new Map<number, V>()
  private summaryValue: { readonly value: V } | undefined = undefined

  get(entry: WindowEntry): V | undefined {
    switch (entry._tag) {
      case "Summary":
        return this.summaryValue?.value
      case "Message":
        return this.messages.get(entry.index)
      case "Document":
        return this.documents.get(entry.index)
    }
  }

  set(entry: WindowEntry, value: V): this {
    switch (entry._tag) {
      case "Summary":
        this.summaryValue = { value }
        break
      case "Message":
        this.messages.set(entry.index, value)
        break
      case "Document":
        this.documents.set(entry.index, value)
        break
    }
    return this
  }
}
