/**
 * A bounded memo keyed by the content of a JSON-like value (docs/design.md item 79): what the
 * front doors use to make the same `effect/ai` message for a caller's message they have seen
 * before — the same object, or a fresh copy of equal content (a server that parses the history
 * from JSON at every request, the AI SDK that rebuilds its provider prompt at every step).
 *
 * A key is looked up by a fingerprint read from its shape (keys, lengths and a few characters of
 * each string: a walk over its nodes, never over all its characters), then compared in full
 * with the copies stored under that fingerprint (`===` on strings: a pointer comparison for the
 * same string, a memory comparison for an equal one). A hit is therefore exact. What is stored
 * is a copy of the key's structure, so a caller mutating its message afterwards changes nothing
 * here. Keys that hold anything but plain objects, arrays, strings, finite numbers, booleans,
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
  readonly key: unknown
  readonly weight: number
  readonly values: Array<V>
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

const isPlainObject = (u: object): boolean => {
  const proto: unknown = Object.getPrototypeOf(u)
  return proto === Object.prototype || proto === null
}

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

/**
 * A fingerprint of a JSON-like value and the characters of its strings, or `undefined` for a
 * value that cannot be memoised.
 */
const fingerprint = (value: unknown, acc: { h: number; weight: number }): boolean => {
  switch (typeof value) {
    case "string":
      acc.h = mixString(mix(acc.h, 1), value)
      acc.weight += value.length
      return true
    case "number":
      if (!Number.isFinite(value)) return false
      acc.h = mix(mix(acc.h, 2), (value * 1000) | 0)
      return true
    case "boolean":
      acc.h = mix(acc.h, value ? 3 : 4)
      return true
    case "undefined":
      acc.h = mix(acc.h, 5)
      return true
    case "object": {
      if (value === null) {
        acc.h = mix(acc.h, 6)
        return true
      }
      if (Array.isArray(value)) {
        acc.h = mix(mix(acc.h, 7), value.length)
        for (let i = 0; i < value.length; i++) if (!fingerprint(value[i], acc)) return false
        return true
      }
      if (!isRecord(value) || !isPlainObject(value)) return false
      acc.h = mix(acc.h, 8)
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue
        acc.h = mixString(acc.h, key)
        acc.weight += key.length
        if (!fingerprint(value[key], acc)) return false
      }
      return true
    }
    default:
      return false
  }
}

/** Whether two memoisable values have the same content. */
const equal = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!equal(a[i], b[i])) return false
    return true
  }
  if (!isRecord(a) || !isRecord(b)) return false
  const ra = a
  const rb = b
  let n = 0
  for (const key in ra) {
    if (!Object.hasOwn(ra, key)) continue
    n++
    if (!Object.hasOwn(rb, key) || !equal(ra[key], rb[key])) return false
  }
  for (const key in rb) if (Object.hasOwn(rb, key)) n--
  return n === 0
}

/** A copy of a memoisable value's structure (strings are immutable: shared). */
const copy = (value: unknown): unknown => {
  if (typeof value !== "object" || value === null) return value
  if (!isRecord(value)) return Array.isArray(value) ? value.map(copy) : value
  const out: Record<string, unknown> = {}
  for (const key in value) if (Object.hasOwn(value, key)) out[key] = copy(value[key])
  return out
}

/**
 * An empty memo.
 */
export const make = <V>(bounds: Bounds = defaultBounds): ContentMemo<V> => {
  // Buckets by fingerprint, in least-recently-used order (a hit moves its bucket last).
  const buckets = new Map<number, Array<Entry<V>>>()
  let entries = 0
  let characters = 0

  const evict = () => {
    for (const [h, bucket] of buckets) {
      if (entries <= bounds.entries && characters <= bounds.characters) return
      buckets.delete(h)
      for (const entry of bucket) {
        entries--
        characters -= entry.weight
      }
    }
  }

  const call = (): Call<V> => {
    const seen = new Map<Entry<V>, number>()
    return {
      get: (key, make) => {
        const acc = { h: 0x811c9dc5, weight: 0 }
        if (!fingerprint(key, acc)) return make()
        let bucket = buckets.get(acc.h)
        let entry: Entry<V> | undefined
        if (bucket !== undefined) {
          for (const candidate of bucket) {
            if (equal(candidate.key, key)) {
              entry = candidate
              break
            }
          }
          // Most recently used last.
          buckets.delete(acc.h)
          buckets.set(acc.h, bucket)
        }
        if (entry !== undefined) {
          const k = seen.get(entry) ?? 0
          const known = entry.values[k]
          if (known !== undefined) {
            seen.set(entry, k + 1)
            return known
          }
        }
        const made = make()
        if (made === undefined) return undefined
        if (entry === undefined) {
          entry = { key: copy(key), weight: acc.weight, values: [] }
          if (bucket === undefined) {
            bucket = []
            buckets.set(acc.h, bucket)
          }
          bucket.push(entry)
          entries++
          characters += acc.weight
        }
        entry.values.push(made)
        seen.set(entry, entry.values.length)
        evict()
        return made
      }
    }
  }

  return { call, size: () => entries }
}
