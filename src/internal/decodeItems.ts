/**
 * Element decoders for inputs that hold many items (`cupel place`, `cupel run`): the fast path
 * of fastDecode.ts for each element, the schema for an element it declines, and `undefined`
 * when the schema fails too — the caller then decodes its whole input with its schema, so that
 * every error is the schema's own.
 *
 * @internal
 */
import { Schema } from "effect"
import { ContextItem } from "../ContextItem.ts"
import { ScoredItem } from "../ScoredItem.ts"
import * as FastDecode from "./fastDecode.ts"

const itemSchema = Schema.decodeUnknownExit(ContextItem)
const scoredSchema = Schema.decodeUnknownExit(ScoredItem)

const fastItem = (input: unknown): ContextItem | undefined => FastDecode.item(input, ContextItem)
const slowItem = (input: unknown): ContextItem | undefined => FastDecode.successOrUndefined(itemSchema(input))
const fastScored = (input: unknown): ScoredItem | undefined => FastDecode.scored(input, ContextItem)
const slowScored = (input: unknown): ScoredItem | undefined => FastDecode.successOrUndefined(scoredSchema(input))

/** `input` as an array of items, or `undefined` (not an array, or an element is invalid). */
export const items = (input: unknown): Array<ContextItem> | undefined => FastDecode.many(input, fastItem, slowItem)

/** `input` as an array of scored items, or `undefined`. */
export const scoredItems = (input: unknown): Array<ScoredItem> | undefined =>
  FastDecode.many(input, fastScored, slowScored)
