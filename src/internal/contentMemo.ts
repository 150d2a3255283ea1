/**
 * A bounded memo keyed by the content of a JSON-like value (docs/design.md item 83): what the
 * front doors use to make the same `effect/ai` message for a caller's message they have seen
 * before — the same object, or a fresh copy of equal content (a server that parses the history
 * from JSON at every request, the AI SDK that rebuilds its provider prompt at every step).
 *
 * A key is looked up by a fingerprint read from its shape (keys, lengths and a few characters of
 * each string: a walk over its nodes, never over all its characters), then compared in full
 * with the copies stored under that fingerprint (`===` on strings: a pointer comparison for the
 * same string, a memory comparison for an equal one). A hit is therefore exact. What is stored
 * is a copy of the key's structure, flattened into one array read forward by the comparison
 * (item 104), so a caller mutating its message afterwards — at any depth — changes nothing
 * here: the next call sees the edited message as a new content. Plain objects compare with
 * their keys in order: a copy with its keys reordered is converted again (a miss, never a
 * wrong hit). Keys that hold anything but plain objects, arrays, strings, finite numbers, booleans,
 * `null` and `undefined` (a `Uint8Array`, a `URL`, a class instance) are not memoised: their
 * value is made at every call.
 *
 * One content may stand at several positions of one call ("yes, do it" twice): the `k`-th
 * occurrence in a call gets the `k`-th value made for that content, so the values of one call
 * are distinct objects, and the same from one call to the next.
 *
 * Bounded by entries and by the characters of the stored copies: past either bound, the least
 * recently used contents are forgotten.
 */

/** One content: its stored copy, and the values made for its occurrences. */
interface Entry<V> {
  /** Its content, as a {@link Tape}. */
  readonly key: Tape
  readonly weight: number
  readonly values: Array<V>
  /** Its fingerprint. */
  readonly h: number
  /** The call that last read this content, and how many of its values that call took. */
  call: number
  taken: number
  /** The generation holding it (`-1`: forgotten). */
  gen: number
}

/** The lookups of one call: each content's occurrences so far. */
export interface Call<V> {
  /**
   * The value for `key`: the memo's, or `make()`'s (stored, unless it is `undefined`: a
   * failure, which the caller reports).
   */
  readonly get: (key: unknown, make: () => V | undefined) => V | undefined
}

/** A bounded content memo. */
export interface ContentMemo<V> {
  /** Starts a call: occurrences are counted per call. */
  readonly call: () => Call<V>
  /** The contents held. */
  readonly size: () => number
}

/** The bounds: contents held, and characters of their copies. */
export interface Bounds {
  readonly entries: number
  readonly characters: number
}

const defaultBounds: Bounds = { entries: 20_000, characters: 64_000_000 }

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const mix = (h: number, x: number): number => Math.imul(h ^ x, 0x01000193)

/** A string's fingerprint: its length and up to 16 characters from its start, middle and end. */
const mixString = (h: number, s: string): number => {
  const n = s.length
  h = mix(h, n)
  if (n <= 16) {
    for (let i = 0; i < n; i++) h = mix(h, s.charCodeAt(i))
    return h
  }
  for (let i = 0; i < 6; i++) h = mix(h, s.charCodeAt(i))
  const m = n >> 1
  for (let i = m - 2; i < m + 2; i++) h = mix(h, s.charCodeAt(i))
  for (let i = n - 6; i < n; i++) h = mix(h, s.charCodeAt(i))
  return h
}

/** The nodes a fingerprint reads at most: enough to tell messages apart, bounded whatever their size. */
const fingerprintNodes = 10

/** A value's fingerprint, read from at most `budget.n` of its nodes ({@link equal} tells the rest). */
const mixValue = (h: number, v: unknown, budget: { n: number }): number => {
  if (budget.n-- <= 0) return h
  switch (typeof v) {
    case "string":
      return mixString(mix(h, 1), v)
    case "number":
      return mix(mix(h, 2), v | 0)
    case "boolean":
      return mix(h, v ? 3 : 4)
    case "object":
      if (v === null) return mix(h, 6)
      if (Array.isArray(v)) {
        h = mix(mix(h, 7), v.length)
        for (let i = 0; i < v.length && budget.n > 0; i++) h = mixValue(h, v[i], budget)
        return h
      }
      h = mix(h, 8)
      if (isRecord(v)) {
        for (const key in v) {
          if (budget.n <= 0) break
          h = mixValue(mix(h, key.length), v[key], budget)
        }
      }
      return h
    default:
      return mix(h, 5)
  }
}

const fingerprint = (value: unknown): number => mixValue(0x811c9dc5, value, { n: fingerprintNodes })

/** Whether a value's prototype is that of a plain object (an object literal, JSON.parse's). */
const isPlain = (u: object): boolean => {
  const proto: unknown = Object.getPrototypeOf(u)
  return proto === Object.prototype || proto === null
}

/**
 * A number of the caller's, as a stored copy holds it: the tape's own numbers are its markers
 * (see {@link Tape}), so a caller's number never stands there bare.
 */
class Num {
  readonly value: number
  constructor(value: number) {
    this.value = value
  }
}

/** The marker opening an array of `size` elements (see {@link Tape}). */
const arrayMarker = (size: number): number => size * 2

/** The marker opening a plain object of `size` own keys (see {@link Tape}). */
const objectMarker = (size: number): number => size * 2 + 1

/**
 * A stored copy, flattened (docs/design.md items 104 and 150): the nodes of a walk in order — a
 * marker for an array (its elements follow) or a plain object (each own key then its value
 * follow, in the object's key order), the primitive itself otherwise. A marker is a small
 * integer ({@link arrayMarker}, {@link objectMarker}: its size and whether it opens an array or
 * an object); a caller's number is held in a {@link Num}, so a number on the tape is always a
 * marker. Comparing a caller's value with it is one walk of the caller's value reading the tape
 * forward: no walk of a second structure, no key lookups in it, no marker object to load. The
 * strings are the caller's own (strings are immutable): the same message compares its strings by
 * pointer, a fresh copy by their characters.
 */
type Tape = Array<unknown>

/**
 * Whether the caller's value `b` has the content recorded on `tape` from position `p`: the
 * position after it when it does, `-1` when it does not. Arrays of equal elements; plain
 * objects with the same own keys in the same order (a reordered copy is only a miss) and equal
 * values; the same primitives.
 */
const match = (tape: Tape, p: number, b: unknown): number => {
  const t = tape[p]
  if (typeof t !== "number") {
    if (t === b) return p + 1
    return t instanceof Num && t.value === b ? p + 1 : -1
  }
  if (typeof b !== "object" || b === null) return -1
  const size = t >> 1
  if ((t & 1) === 0) {
    if (!Array.isArray(b) || b.length !== size) return -1
    const items: ReadonlyArray<unknown> = b
    p++
    for (let i = 0; i < size && p >= 0; i++) p = match(tape, p, items[i])
    return p
  }
  if (!isRecord(b) || !isPlain(b)) return -1
  const record = b
  p++
  let seen = 0
  // Only plain objects get here, whose enumerable keys are their own unless `Object.prototype`
  // was given one — then no object is memoised (`record` refuses a key not its own), or one
  // stored before compares as the object the conversion reads (it reads inherited keys too).
  for (const key in record) {
    if (seen === size || tape[p] !== key) return -1
    p = match(tape, p + 1, record[key])
    if (p < 0) return -1
    seen++
  }
  return seen === size ? p : -1
}

/** Whether the caller's value `b` has the content of the copy on `tape`. */
const equal = (tape: Tape, b: unknown): boolean => match(tape, 0, b) === tape.length

/**
 * The most nodes a value's copy may have. A larger value (a tool's JSON result of tens of
 * thousands of rows) is not memoised: recording it was one stretch of 80–130 ms, and comparing
 * it at the next call another (docs/design.md item 123); it is converted at every call instead,
 * which reads none of its nodes.
 */
const maxNodes = 65_536

/**
 * Records a value on `tape` (see {@link Tape}), adding the characters of its strings and keys
 * to `weight`; `false` for a value that cannot be memoised: anything but plain objects, arrays,
 * strings, finite numbers, booleans, `null` and `undefined`, or one of more than
 * {@link maxNodes} nodes.
 */
const record = (value: unknown, tape: Tape, weight: { n: number }): boolean => {
  if (tape.length > maxNodes) return false
  switch (typeof value) {
    case "string":
      weight.n += value.length
      tape.push(value)
      return true
    case "number":
      tape.push(new Num(value))
      return Number.isFinite(value)
    case "boolean":
    case "undefined":
      tape.push(value)
      return true
    case "object": {
      if (value === null) {
        tape.push(value)
        return true
      }
      if (Array.isArray(value)) {
        const items: ReadonlyArray<unknown> = value
        tape.push(arrayMarker(items.length))
        for (const element of items) if (!record(element, tape, weight)) return false
        return true
      }
      if (!isRecord(value) || !isPlain(value)) return false
      const at = tape.length
      tape.push(undefined)
      let size = 0
      for (const key in value) {
        if (!Object.hasOwn(value, key)) return false
        tape.push(key)
        weight.n += key.length
        if (!record(value[key], tape, weight)) return false
        size++
      }
      tape[at] = objectMarker(size)
      return true
    }
    default:
      return false
  }
}

/** Entries of one fingerprint at most: a pathological run of equal fingerprints stays cheap. */
const bucketLimit = 32

/**
 * An empty memo.
 */
export const make = <V>(bounds: Bounds = defaultBounds): ContentMemo<V> => {
  // Two generations of buckets by fingerprint: a hit moves its bucket to the young one, and
  // when the young one holds half the bounds it becomes the old one and the old one is
  // forgotten — the least recently used contents go first, without reordering on every hit.
  let young = new Map<number, Array<Entry<V>>>()
  let old = new Map<number, Array<Entry<V>>>()
  let youngEntries = 0
  let youngCharacters = 0
  let oldEntries = 0
  let calls = 0
  // Each generation's number, on its entries (`Entry.gen`): the young one's and the old one's.
  let gens = 1
  let youngGen = 1
  let oldGen = 0
  // The entries the latest call found, by position: an agent's next call sends the same
  // messages at the same positions, which are then compared first, without a fingerprint. Only
  // a hint: a content found there is the content, whoever sent it.
  let latest: Array<Entry<V> | undefined> = []

  const admit = (h: number, bucket: Array<Entry<V>>) => {
    young.set(h, bucket)
    for (const entry of bucket) {
      entry.gen = youngGen
      youngEntries++
      youngCharacters += entry.weight
    }
    if (2 * youngEntries > bounds.entries || 2 * youngCharacters > bounds.characters) {
      old = young
      oldGen = youngGen
      youngGen = ++gens
      oldEntries = youngEntries
      young = new Map()
      youngEntries = 0
      youngCharacters = 0
    }
  }

  const bucketOf = (h: number): Array<Entry<V>> | undefined => {
    const bucket = young.get(h)
    if (bucket !== undefined) return bucket
    const aged = old.get(h)
    if (aged === undefined) return undefined
    old.delete(h)
    oldEntries -= aged.length
    admit(h, aged)
    return aged
  }

  /** The entry at `position` in the latest call, if it holds `key` and is still held. */
  const hinted = (hints: ReadonlyArray<Entry<V> | undefined>, position: number, key: unknown): Entry<V> | undefined => {
    const entry = hints[position]
    if (entry === undefined || !equal(entry.key, key)) return undefined
    // Held in the young generation: found as it is. In the old one: moved to the young one, as
    // any hit is. Otherwise forgotten (design 124: the entry's generation says where it is,
    // where a look-up of its bucket and a search of it did).
    if (entry.gen === youngGen) return entry
    if (entry.gen !== oldGen) return undefined
    bucketOf(entry.h)
    return entry
  }

  const call = (): Call<V> => {
    const id = ++calls
    const hints = latest
    const found: Array<Entry<V> | undefined> = []
    latest = found
    return {
      get: (key, make) => {
        const position = found.length
        let entry = hinted(hints, position, key)
        const h = entry?.h ?? fingerprint(key)
        let bucket: Array<Entry<V>> | undefined
        if (entry === undefined) {
          bucket = bucketOf(h)
          if (bucket !== undefined) {
            for (const candidate of bucket) {
              if (equal(candidate.key, key)) {
                entry = candidate
                break
              }
            }
          }
        }
        found.push(entry)
        if (entry !== undefined) {
          if (entry.call !== id) {
            entry.call = id
            entry.taken = 0
          }
          const known = entry.values[entry.taken]
          if (known !== undefined) {
            entry.taken++
            return known
          }
        }
        const made = make()
        if (made === undefined) return undefined
        if (entry === undefined) {
          const weight = { n: 0 }
          const tape: Tape = []
          // Not memoisable (binary data, a class instance): made at every call.
          if (!record(key, tape, weight)) return made
          entry = { key: tape, weight: weight.n, h, values: [], call: id, taken: 0, gen: youngGen }
          found[position] = entry
          bucket ??= bucketOf(h)
          if (bucket === undefined) {
            bucket = []
            bucket.push(entry)
            admit(h, bucket)
          } else {
            // A pathological run of equal fingerprints stays cheap: its oldest content goes.
            if (bucket.length >= bucketLimit) {
              const dropped = bucket.shift()
              if (dropped !== undefined) dropped.gen = -1
              if (dropped !== undefined && young.get(h) === bucket) {
                youngEntries--
                youngCharacters -= dropped.weight
              }
            }
            bucket.push(entry)
            if (young.get(h) === bucket) {
              youngEntries++
              youngCharacters += weight.n
            }
          }
        }
        entry.values.push(made)
        entry.taken = entry.values.length
        return made
      }
    }
  }

  return { call, size: () => youngEntries + oldEntries }
}
