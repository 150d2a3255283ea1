/**
 * Element decoders for inputs that hold many items (`cupel place`, `cupel run`): the fast path
 * of fastDecode.ts for each element, the schema for an element it declines, and `undefined`
 * when the schema fails too — the caller then decodes its whole input with its schema, so that
 * every error is the schema's own.
 *
 * The wiring itself is `FastDecode.itemsDecoder` / `scoredItemsDecoder`, which
 * `ContextItem.decodeMany` and `ScoredItem.decodeMany` use too. They cannot import this module:
 * it imports `ScoredItem.ts`, whose schema needs the `ContextItem` class defined, so
 * `ContextItem.ts` importing it would evaluate `ScoredItem.ts` before that class exists.
 *
 * @internal
 */
import { ContextItem } from "../../ContextItem.ts"
import { ScoredItem } from "../../ScoredItem.ts"
import * as FastDecode from "../../internal/fastDecode.ts"

/** `input` as an array of items, or `undefined` (not an array, or an element is invalid). */
export const items: (input: unknown) => Array<ContextItem> | undefined = FastDecode.itemsDecoder(ContextItem)

/** `input` as an array of scored items, or `undefined`. */
export const scoredItems: (input: unknown) => Array<ScoredItem> | undefined = FastDecode.scoredItemsDecoder(
  ContextItem,
  ScoredItem
)
