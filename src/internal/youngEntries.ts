/**
 * The report's entries that a call makes for each of its items — the sorted entries, the
 * selected `ScoredItem`s, the included and excluded entries — made so that V8 keeps them in
 * the young generation (docs/design.md item 142).
 *
 * V8 watches where object literals are made ("allocation-site pretenuring"). At a scavenge
 * with the young generation at its largest, a literal whose objects made since the last
 * scavenge are nearly all still alive (85% or more) is marked long-lived, and from then on its
 * objects are made in the old generation: several times slower to make (56 ns an object
 * against 7 in a loop of such objects, measured on the project's machine kind), kept until the
 * next full collection whether alive or not, and keeping alive whatever they point to until
 * then. An agent process fits call after call, its young generation grown to its largest,
 * and the pipeline's entries live for the whole of a call: at 1,000 messages, `trim`'s sorted
 * entries were made in the old generation in 55–70 of 80 calls of the doors' bench, and a call
 * took 1.65–2.2 ms where it took 1.3–1.5 with them young (docs/performance.md).
 *
 * An object cloned from a template (`{ ...template, item, score }`) is made without a site V8
 * watches, and stays young; it is a plain object all the same (`Object.prototype`, the literal's
 * keys in the literal's order), where an instance of a class would carry the class's prototype
 * into the caller's report. The templates' numbers are fractions so that the field is a double
 * from the start: a clone given a double for a field its template holds as an integer would
 * change the map of every clone after it.
 *
 * `test/YoungEntries.test.ts` holds the pipeline's entries young in a process where an object
 * literal's are made old.
 *
 * @internal
 */
import type { ContextItem } from "../ContextItem.ts"
import type { ExcludedItem } from "../ExcludedItem.ts"
import type { ExclusionReason } from "../ExclusionReason.ts"
import type { IncludedItem } from "../IncludedItem.ts"
import type { ScoredItem } from "../ScoredItem.ts"

/**
 * A sorted entry: a `ScoredItem` for the slicer and Place, and, once the slicer has left it
 * out, the report's `ExcludedItem` for it — the same object, its `reason` set then.
 */
export interface SortedEntry {
  readonly item: ContextItem
  readonly score: number
  reason: ExclusionReason | undefined
}

const scoredTemplate: { readonly item: ContextItem | undefined; readonly score: number } = {
  item: undefined,
  score: 0.5
}

const entryTemplate: {
  readonly item: ContextItem | undefined
  readonly score: number
  readonly reason: IncludedItem["reason"] | ExclusionReason | undefined
} = { item: undefined, score: 0.5, reason: undefined }

/** `{ item, score }`, young. */
export const scoredItem = (item: ContextItem, score: number): ScoredItem => ({ ...scoredTemplate, item, score })

/** `{ item, score, reason: undefined }`, young, its `reason` set when the slicer leaves it out. */
export const sortedEntry = (item: ContextItem, score: number): SortedEntry => ({
  ...entryTemplate,
  item,
  score,
  reason: undefined
})

/** `{ item, score, reason }`, young. */
export const includedItem = (item: ContextItem, score: number, reason: IncludedItem["reason"]): IncludedItem => ({
  ...entryTemplate,
  item,
  score,
  reason
})

/** `{ item, score, reason }`, young. */
export const excludedItem = (item: ContextItem, score: number, reason: ExclusionReason): ExcludedItem => ({
  ...entryTemplate,
  item,
  score,
  reason
})
