/**
 * MessageIndex: which message of a prompt an item was made from.
 *
 * `PromptWindow` turns message `i` of a prompt into an item whose metadata says `i` under
 * {@link messageIndexKey}; the items the call keeps (rule K2) and the tool results it shortens
 * (K6) are copies that keep it. Everything that goes from an item back to its message — the
 * stable window's entries, the summary's place, the call-report log — reads it through
 * {@link messageIndexOf}, not the key.
 *
 * @since 0.3.0
 */
import type { ContextItem } from "../ContextItem.ts"

/**
 * The metadata key of the index of the message an item was made from.
 *
 * @since 0.3.0
 * @category constants
 */
export const messageIndexKey = "messageIndex"

/**
 * The index of the message `item` was made from; `undefined` for an item made from no message
 * (a document, a summary, an item of the caller's), or whose index is not a whole number >= 0.
 *
 * @since 0.3.0
 * @category getters
 */
export const messageIndexOf = (item: ContextItem): number | undefined => {
  const index = item.metadata[messageIndexKey]
  return typeof index === "number" && Number.isSafeInteger(index) && index >= 0 ? index : undefined
}
