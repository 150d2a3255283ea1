/**
 * ItemCache: the items made for a history's message objects, kept across calls by one layer or
 * session (never shared between conversations' owners by a module), so that a call that
 * continues the last one's history converts only the messages it appends. `ToolGroups.groups`
 * keeps its union-find in it too.
 *
 * @since 0.3.0
 */
import type { Prompt } from "effect/ai"
import type * as ContextItem from "../ContextItem.ts"
import type { GroupsCache } from "./ToolGroups.ts"

/**
 * Items made for message objects, kept across calls: an agent sends the same message objects
 * at every step, and making an item (rendering the message, checking its fields) is most of
 * what a call costs at a thousand messages. Entries are held weakly, by message object.
 *
 * @since 0.3.0
 * @category models
 */
export interface ItemCache extends GroupsCache {
  readonly entries: WeakMap<Prompt.Message, ContextItem.ContextItem>
  /**
   * The last `Candidates.toCandidates` call's messages, their items and its `startMillis` (the state
   * of one history): a history that starts with those message objects finds the items of that
   * prefix by index, where a thousand lookups in `entries` were a third of a call's conversion.
   */
  lastItems: ItemsState | undefined
}

/**
 * Where the last `Candidates.toCandidates` call left its items ({@link ItemCache.lastItems}).
 *
 * @since 0.3.0
 * @category models
 */
export interface ItemsState {
  readonly messages: ReadonlyArray<Prompt.Message>
  /** `items[i]` is the item made (or found) for `messages[i]` (the documents follow). */
  readonly items: ReadonlyArray<ContextItem.ContextItem>
  /** `groups[i]` is `messages[i]`'s group, as `items[i]` has it. */
  readonly groups: ReadonlyArray<string | undefined>
  readonly start: number
}

/**
 * An empty {@link ItemCache}; make one per layer or session, not per call.
 *
 * @since 0.3.0
 * @category constructors
 */
export const makeItemCache = (): ItemCache => ({
  entries: new WeakMap(),
  links: new WeakMap(),
  lastGroups: undefined,
  lastItems: undefined
})

