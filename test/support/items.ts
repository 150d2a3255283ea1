/**
 * Builders shared by the tests.
 */
import { ContextItem, ScoredItem, Timestamp } from "../../src/index.ts"

export interface ItemOptions {
  readonly tokens?: number
  readonly timestamp?: string
  readonly pinned?: boolean
}

/** A valid item; `timestamp` is an RFC 3339 string. */
export const item = (content: string, options: ItemOptions = {}): ContextItem.ContextItem =>
  new ContextItem.ContextItem({
    content,
    tokens: options.tokens ?? 10,
    pinned: options.pinned ?? false,
    ...(options.timestamp === undefined
      ? {}
      : { timestamp: Timestamp.fromEpochMillis(Date.parse(options.timestamp)) })
  })

export const scored = (content: string, score: number, options: ItemOptions = {}): ScoredItem.ScoredItem =>
  ScoredItem.make(item(content, options), score)

export const contents = (items: ReadonlyArray<ContextItem.ContextItem>): Array<string> => items.map((i) => i.content)

/** Freezes an array of scored items deeply enough that any write by the library would throw. */
export const frozenScored = (items: ReadonlyArray<ScoredItem.ScoredItem>): ReadonlyArray<ScoredItem.ScoredItem> =>
  Object.freeze(items.map((s) => Object.freeze({ item: Object.freeze(s.item), score: s.score })))

export const frozenItems = (items: ReadonlyArray<ContextItem.ContextItem>): ReadonlyArray<ContextItem.ContextItem> =>
  Object.freeze(items.map((i) => Object.freeze(i)))
