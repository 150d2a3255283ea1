/**
 * A fast path for decoding many context items: each item's fields checked by hand, with exactly
 * the rules of the `ContextItem` schema, and the decoded item built as the schema's own decoder
 * builds it.
 *
 * Decoding a million items through the schema took about 20 µs an item, most of it the schema
 * interpreter's per-field machinery and the class constructor, which validates again what was
 * just decoded. The fast path is conservative: it accepts an item only when every field is one
 * of the common, certainly valid forms, and answers `undefined` otherwise — a field that breaks
 * a rule, but also anything unusual it does not try to reproduce (a key present with the value
 * `undefined`, an array with holes…) and any key it does not know. The schema ignores keys it
 * does not know, so a fast path that ignored them too would silently drop a field added to the
 * schema and not here — as once happened to `group`; declining them leaves such an item to the
 * schema, which is slower but right. Callers then decode that item with the schema, and when
 * the schema fails too, decode the whole input with the schema, so every error (its paths, its
 * wording, its order) is the schema's own. The property tests in `test/DecodeFast.test.ts` hold
 * the two to the same values and the same errors on arbitrary inputs.
 *
 * @internal
 */
import { DateTime, Exit, Schema } from "effect"
import * as ContextKind from "../ContextKind.ts"
import * as ContextSource from "../ContextSource.ts"
import * as Rfc3339 from "./rfc3339.ts"

/** What the schema's struct parser accepts as an object: not null, not an array. */
export const isRecord = (u: unknown): u is { readonly [key: string]: unknown } =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * Writes an item's fields in the schema's order, leaving absent optional fields out. It is run
 * through `Reflect.construct` with the item class as `new.target`, which makes an object whose
 * prototype is the class's and runs only this constructor: what a `Schema.Class`'s decoder
 * builds, since the class constructor, given the decoder's trusted payload, only assigns the
 * fields (`Data.Class`). Running the class constructor instead would validate every field a
 * second time, at 1.5 µs an item; `Object.create` and assignments cost 0.6 to 1 µs, against
 * 0.3 µs here (the constructor gives V8 one allocation site to lay objects out from). The
 * result is compared with the schema decoder's output, descriptor by descriptor, in the tests.
 */
class Fields {
  declare content: unknown
  declare tokens: unknown
  declare kind: unknown
  declare source: unknown
  declare priority: unknown
  declare tags: unknown
  declare metadata: unknown
  declare timestamp: unknown
  declare futureRelevanceHint: unknown
  declare pinned: unknown
  declare originalTokens: unknown
  declare group: unknown
  constructor(
    content: unknown,
    tokens: unknown,
    kind: unknown,
    source: unknown,
    priority: unknown,
    tags: unknown,
    metadata: unknown,
    timestamp: unknown,
    futureRelevanceHint: unknown,
    pinned: unknown,
    originalTokens: unknown,
    group: unknown
  ) {
    this.content = content
    this.tokens = tokens
    this.kind = kind
    this.source = source
    if (priority !== undefined) this.priority = priority
    this.tags = tags
    this.metadata = metadata
    if (timestamp !== undefined) this.timestamp = timestamp
    if (futureRelevanceHint !== undefined) this.futureRelevanceHint = futureRelevanceHint
    this.pinned = pinned
    if (originalTokens !== undefined) this.originalTokens = originalTokens
    if (group !== undefined) this.group = group
  }
}

/** A class whose instances the fast path makes (`ContextItem`). */
export type ItemClass<T> = new(...args: never) => T

/** Whether `value` was made with `target`'s prototype: what lets it be typed as an instance. */
const madeFrom = <T>(target: ItemClass<T>, value: unknown): value is T =>
  typeof value === "object" && value !== null && Object.getPrototypeOf(value) === target.prototype

// A present key whose value is `undefined` is refused by every field of the schema; the fast
// path leaves it to the schema to say so. The schema tests presence with `in`, as here.

/** A safe integer, `null` (absent) or a missing key; `false` when none of these. */
const optionalInt = (value: unknown): boolean => value === null || Number.isSafeInteger(value)

/** A copy of an array of strings, or `undefined` when it is not one. */
const stringArray = (value: unknown): Array<string> | undefined => {
  if (!Array.isArray(value)) return undefined
  const n = value.length
  const copy: Array<string> = []
  for (let i = 0; i < n; i++) {
    const element: unknown = value[i]
    if (typeof element !== "string") return undefined
    copy.push(element)
  }
  return copy
}

/**
 * A copy of a record's own enumerable string keys, as the schema's `Record(String, Unknown)`
 * makes it: values as they are, and a `__proto__` key kept as an own property rather than
 * setting the copy's prototype.
 */
const recordCopy = (value: { readonly [key: string]: unknown }): { [key: string]: unknown } => {
  const copy: { [key: string]: unknown } = {}
  const keys = Object.keys(value)
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    if (key === "__proto__") {
      Object.defineProperty(copy, key, { value: value[key], writable: true, enumerable: true, configurable: true })
    } else {
      copy[key] = value[key]
    }
  }
  return copy
}

/**
 * The keys of the `ContextItem` schema, the only ones the fast path reads. A test holds this list
 * to the schema's fields, so a field added there and not here fails it.
 */
export const itemKeys: ReadonlyArray<string> = [
  "content",
  "tokens",
  "kind",
  "source",
  "priority",
  "tags",
  "metadata",
  "timestamp",
  "futureRelevanceHint",
  "pinned",
  "originalTokens",
  "group"
]

/** The keys of the `ScoredItem` struct, held to it by the same test. */
export const scoredKeys: ReadonlyArray<string> = ["item", "score"]

/**
 * Whether the fast path may read `input`: a plain object (or one without a prototype), since the
 * schema reads a field through the prototype chain too, where no own key shows it. Keys beyond
 * the schema's are ignored, as the schema ignores them; the test that holds `itemKeys` to the
 * schema's fields is what keeps a new field from being dropped here.
 */
const plainObject = (input: object): boolean => {
  const proto: unknown = Object.getPrototypeOf(input)
  return proto === Object.prototype || proto === null
}

/** A group id: a non-empty string (the rule of `ContextItem`'s `GroupId`). */
const isGroupId = (value: unknown): value is string => typeof value === "string" && value.length > 0

/** A kind or source name: a string that is not blank (the rule of `caseInsensitiveName`). */
const isName = (value: unknown): value is string => typeof value === "string" && value.trim().length > 0

/**
 * The item `input` decodes to, an instance of `target` (`ContextItem`), or `undefined` when the
 * fast path does not accept it (then ask the schema).
 */
export const item = <T>(input: unknown, target: ItemClass<T>): T | undefined => {
  if (!isRecord(input) || !plainObject(input)) return undefined
  const content = input["content"]
  if (typeof content !== "string" || content.length === 0) return undefined
  const tokens = input["tokens"]
  if (!Number.isSafeInteger(tokens)) return undefined

  let kind = input["kind"]
  if (kind === undefined) {
    if ("kind" in input) return undefined
    kind = ContextKind.defaultKind
  } else if (!isName(kind)) return undefined

  let source = input["source"]
  if (source === undefined) {
    if ("source" in input) return undefined
    source = ContextSource.defaultSource
  } else if (!isName(source)) return undefined

  const priority = input["priority"]
  if (priority === undefined ? "priority" in input : !optionalInt(priority)) return undefined

  const tagsIn = input["tags"]
  let tags: Array<string> | undefined
  if (tagsIn === undefined) {
    if ("tags" in input) return undefined
    tags = []
  } else {
    tags = stringArray(tagsIn)
    if (tags === undefined) return undefined
  }

  const metadataIn = input["metadata"]
  let metadata: { [key: string]: unknown }
  if (metadataIn === undefined) {
    if ("metadata" in input) return undefined
    metadata = {}
  } else if (isRecord(metadataIn)) {
    metadata = recordCopy(metadataIn)
  } else return undefined

  const timestampIn = input["timestamp"]
  let timestamp: DateTime.Utc | undefined
  if (timestampIn === undefined) {
    if ("timestamp" in input) return undefined
  } else if (typeof timestampIn === "string") {
    const millis = Rfc3339.parseMillis(timestampIn)
    if (millis === undefined) return undefined
    timestamp = DateTime.makeUnsafe(millis)
  } else if (timestampIn !== null) return undefined

  const hint = input["futureRelevanceHint"]
  if (hint === undefined ? "futureRelevanceHint" in input : !(hint === null || Number.isFinite(hint))) {
    return undefined
  }

  let pinned = input["pinned"]
  if (pinned === undefined) {
    if ("pinned" in input) return undefined
    pinned = false
  } else if (typeof pinned !== "boolean") return undefined

  const originalTokens = input["originalTokens"]
  if (originalTokens === undefined ? "originalTokens" in input : !optionalInt(originalTokens)) return undefined

  const group = input["group"]
  if (group === undefined ? "group" in input : !(group === null || isGroupId(group))) return undefined

  const made: unknown = Reflect.construct(Fields, [
    content,
    tokens,
    kind,
    source,
    priority === null ? undefined : priority,
    tags,
    metadata,
    timestamp,
    hint === null ? undefined : hint,
    pinned,
    originalTokens === null ? undefined : originalTokens,
    group === null ? undefined : group
  ], target)
  return madeFrom(target, made) ? made : undefined
}

/**
 * The fields of an item whose values are already known valid (derived from checked items):
 * what {@link trusted} builds an item from.
 */
export interface TrustedFields {
  readonly content: string
  readonly tokens: number
  readonly kind: string
  readonly source: string
  readonly priority?: number | undefined
  readonly tags: ReadonlyArray<string>
  readonly metadata: { readonly [key: string]: unknown }
  readonly timestamp?: DateTime.Utc | undefined
  readonly futureRelevanceHint?: number | undefined
  readonly pinned: boolean
  readonly originalTokens?: number | undefined
  readonly group?: string | undefined
}

/**
 * The item `new target(fields, { disableChecks: true })` makes, made without the schema: the
 * class constructor runs the struct's parser even with its checks off (a few microseconds an
 * item), which the pipeline paid for every group unit of every run. As that parser does, the
 * item gets copies of `tags` and `metadata` and its fields in the schema's order; absent
 * optional fields are left out. `undefined` only if `target`'s prototype is not the instance's
 * (it always is; the caller falls back to the constructor).
 */
export const trusted = <T>(target: ItemClass<T>, fields: TrustedFields): T | undefined => {
  const made: unknown = Reflect.construct(Fields, [
    fields.content,
    fields.tokens,
    fields.kind,
    fields.source,
    fields.priority,
    fields.tags.slice(),
    recordCopy(fields.metadata),
    fields.timestamp,
    fields.futureRelevanceHint,
    fields.pinned,
    fields.originalTokens,
    fields.group
  ], target)
  return madeFrom(target, made) ? made : undefined
}

/**
 * The `{ item, score }` pair `input` decodes to (a plain object, as `ScoredItem`'s struct
 * makes it), or `undefined` when the fast path does not accept it. A score is any number but
 * NaN.
 */
export const scored = <T>(
  input: unknown,
  target: ItemClass<T>
): { readonly item: T; readonly score: number } | undefined => {
  if (!isRecord(input) || !plainObject(input)) return undefined
  const decoded = item(input["item"], target)
  if (decoded === undefined) return undefined
  const score = input["score"]
  if (typeof score !== "number" || Number.isNaN(score)) return undefined
  return { item: decoded, score }
}

/**
 * The elements of `input`, each decoded by `fast` or, when it declines, by `slow` (the schema,
 * for one element); `undefined` when `input` is not an array or some element fails both, so
 * that the caller decodes the whole input with the schema for its errors.
 */
const many = <A>(
  input: unknown,
  fast: (element: unknown) => A | undefined,
  slow: (element: unknown) => A | undefined
): Array<A> | undefined => {
  if (!Array.isArray(input)) return undefined
  const n = input.length
  // Pushed, not preallocated: a packed array stays in V8's fastest element kind.
  const out: Array<A> = []
  for (let i = 0; i < n; i++) {
    const element: unknown = input[i]
    const decoded = fast(element) ?? slow(element)
    if (decoded === undefined) return undefined
    out.push(decoded)
  }
  return out
}

/** A schema decoder's result as a value or `undefined` (for {@link many}'s `slow`, say). */
export const successOrUndefined = <A, E>(exit: Exit.Exit<A, E>): A | undefined =>
  Exit.isSuccess(exit) ? exit.value : undefined

/**
 * The decoder of an array of items of class `target` (which is also their schema): each element
 * by {@link item} or, when it declines, by the schema; `undefined` when `input` is not an array
 * or some element is invalid (see {@link many}). The one wiring of the fast path to the schema,
 * for `ContextItem.decodeMany` and the CLI's inputs.
 */
export const itemsDecoder = <T>(
  target: ItemClass<T> & Schema.ConstraintDecoder<T>
): (input: unknown) => Array<T> | undefined => {
  const schema = Schema.decodeUnknownExit(target)
  const fast = (element: unknown): T | undefined => item(element, target)
  const slow = (element: unknown): T | undefined => successOrUndefined(schema(element))
  return (input) => many(input, fast, slow)
}

/**
 * The decoder of an array of `{ item, score }` pairs, as {@link itemsDecoder}: each element by
 * {@link scored} or, when it declines, by `pairSchema` (`ScoredItem`).
 */
export const scoredItemsDecoder = <T>(
  target: ItemClass<T>,
  pairSchema: Schema.ConstraintDecoder<{ readonly item: T; readonly score: number }>
): (input: unknown) => Array<{ readonly item: T; readonly score: number }> | undefined => {
  const schema = Schema.decodeUnknownExit(pairSchema)
  const fast = (element: unknown) => scored(element, target)
  const slow = (element: unknown) => successOrUndefined(schema(element))
  return (input) => many(input, fast, slow)
}
