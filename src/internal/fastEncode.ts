/**
 * A fast path for encoding many context items: the encoded form the `ContextItem` schema
 * writes, built by hand for items whose every field is one of the common, certainly valid forms.
 *
 * Encoding a pipeline result of a million candidates through the schema (the report lists
 * every candidate with its item) took about 5 s of `cupel run`'s 21 s, most of it the schema
 * interpreter's per-field steps and the checks it runs again on each field. Like the decoding
 * fast path (fastDecode.ts), this one is conservative: it answers `undefined` for anything it
 * does not reproduce — an object that is not a `ContextItem`, a field that breaks a rule, an
 * optional key present with the value `undefined`, metadata that is not a plain object or has a
 * key the schema would write differently, a timestamp RFC 3339 cannot write — and the caller
 * then encodes with the schema, so every error is the schema's own. The property tests in
 * `test/EncodeFast.test.ts` hold the two to the same output, key order included.
 *
 * @internal
 */
import { DateTime } from "effect"
import { ContextItem } from "../ContextItem.ts"

/** An item's encoded form, as the schema writes it. */
export type ItemEncoded = typeof ContextItem.Encoded

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/** A kind or source name: a string that is not blank (the rule of `caseInsensitiveName`). */
const isName = (value: unknown): value is string => typeof value === "string" && value.trim().length > 0

/** The first and last instants RFC 3339 can write (the `Timestamp` encoder's range). */
const firstWritable = Date.parse("0000-01-01T00:00:00.000Z")
const lastWritable = Date.parse("9999-12-31T23:59:59.999Z")

/**
 * An optional field's value: `absent` when the item has no such key, `invalid` when the key is
 * there with `undefined` (left to the schema), otherwise the value.
 */
const absent = Symbol("absent")
const optional = (item: ContextItem, key: keyof ContextItem): unknown => {
  const value: unknown = item[key]
  if (value !== undefined) return value
  return Object.hasOwn(item, key) ? undefined : absent
}

const isSafeInt = (value: unknown): value is number => Number.isSafeInteger(value)

/** A copy of `tags` when every entry is a string (holes are not), else `undefined`. */
const tagsCopy = (tags: unknown): Array<string> | undefined => {
  if (!Array.isArray(tags)) return undefined
  const copy = new Array<string>(tags.length)
  for (let i = 0; i < tags.length; i++) {
    const tag: unknown = tags[i]
    if (typeof tag !== "string") return undefined
    copy[i] = tag
  }
  return copy
}

/**
 * A shallow copy of `metadata` with the keys the schema writes (its own enumerable string keys:
 * symbols and hidden keys are not written), when it is a plain object; otherwise `undefined`.
 * A `__proto__` key is left to the schema.
 */
const metadataCopy = (metadata: unknown): Record<string, unknown> | undefined => {
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) return undefined
  const proto: unknown = Object.getPrototypeOf(metadata)
  if (proto !== Object.prototype && proto !== null) return undefined
  const keys = Object.keys(metadata)
  const copy: Record<string, unknown> = {}
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k]!
    if (key === "__proto__") return undefined
    copy[key] = Reflect.get(metadata, key)
  }
  return copy
}

/** The RFC 3339 text of a timestamp the `Timestamp` schema writes, or `undefined`. */
const timestampText = (value: unknown): string | undefined => {
  if (!DateTime.isDateTime(value) || !DateTime.isUtc(value)) return undefined
  const millis = value.epochMilliseconds
  return millis >= firstWritable && millis <= lastWritable ? DateTime.formatIso(value) : undefined
}

/**
 * The encoded form of `item`, exactly as the schema writes it, or `undefined` when the fast
 * path does not take it (then ask the schema).
 */
export const item = (item: ContextItem): ItemEncoded | undefined => {
  if (!(item instanceof ContextItem)) return undefined
  const { content, kind, pinned, source, tokens } = item
  if (typeof content !== "string" || content.length === 0 || !isSafeInt(tokens)) return undefined
  if (!isName(kind) || !isName(source) || typeof pinned !== "boolean") return undefined
  const out: Mutable<ItemEncoded> = { content, tokens, kind, source }
  const priority = optional(item, "priority")
  if (priority !== absent) {
    if (!isSafeInt(priority)) return undefined
    out.priority = priority
  }
  const tags = tagsCopy(item.tags)
  const metadata = metadataCopy(item.metadata)
  if (tags === undefined || metadata === undefined) return undefined
  out.tags = tags
  out.metadata = metadata
  const timestamp = optional(item, "timestamp")
  if (timestamp !== absent) {
    const text = timestampText(timestamp)
    if (text === undefined) return undefined
    out.timestamp = text
  }
  const hint = optional(item, "futureRelevanceHint")
  if (hint !== absent) {
    if (typeof hint !== "number" || !Number.isFinite(hint)) return undefined
    out.futureRelevanceHint = hint
  }
  out.pinned = pinned
  const originalTokens = optional(item, "originalTokens")
  if (originalTokens !== absent) {
    if (!isSafeInt(originalTokens)) return undefined
    out.originalTokens = originalTokens
  }
  const group = optional(item, "group")
  if (group !== absent) {
    if (typeof group !== "string" || group.length === 0) return undefined
    out.group = group
  }
  return out
}

/** Every item encoded by the fast path, or `undefined` as soon as one is not. */
export const items = (list: ReadonlyArray<ContextItem>): Array<ItemEncoded> | undefined => {
  const out = new Array<ItemEncoded>(list.length)
  for (let i = 0; i < list.length; i++) {
    const encoded = item(list[i]!)
    if (encoded === undefined) return undefined
    out[i] = encoded
  }
  return out
}
