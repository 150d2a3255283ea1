/**
 * Arbitrary item inputs, in the forms a JSON file holds them: every field of the `ContextItem`
 * schema valid, absent, `null`, explicitly `undefined` or invalid, and keys it does not know.
 * Shared by the fast decoding and encoding paths' tests.
 */
import * as fc from "fast-check"

const pad = (n: number, width: number) => String(n).padStart(width, "0")

/** Date-time strings, most of them valid, many a rule away from valid. */
export const dateTimeString: fc.Arbitrary<string> = fc
  .record({
    year: fc.oneof(fc.integer({ min: 1970, max: 2100 }), fc.integer({ min: 0, max: 9999 })),
    month: fc.oneof({ weight: 5, arbitrary: fc.integer({ min: 1, max: 12 }) }, fc.integer({ min: 0, max: 13 })),
    day: fc.oneof({ weight: 5, arbitrary: fc.integer({ min: 1, max: 28 }) }, fc.integer({ min: 0, max: 32 })),
    separator: fc.constantFrom("T", "T", "T", "t", " ", "x"),
    hour: fc.oneof({ weight: 5, arbitrary: fc.integer({ min: 0, max: 23 }) }, fc.integer({ min: 0, max: 25 })),
    minute: fc.oneof({ weight: 5, arbitrary: fc.integer({ min: 0, max: 59 }) }, fc.integer({ min: 0, max: 61 })),
    second: fc.option(fc.oneof({ weight: 5, arbitrary: fc.integer({ min: 0, max: 59 }) }, fc.integer({ min: 0, max: 61 }))),
    fraction: fc.option(fc.stringMatching(/^\d{0,7}$/)),
    zone: fc.oneof(
      fc.constantFrom("Z", "Z", "z", "", "+00:00", "-00:00"),
      fc.tuple(fc.constantFrom("+", "-"), fc.integer({ min: 0, max: 25 }), fc.integer({ min: 0, max: 61 }))
        .map(([sign, h, m]) => `${sign}${pad(h, 2)}:${pad(m, 2)}`)
    )
  })
  .map(({ year, month, day, separator, hour, minute, second, fraction, zone }) =>
    `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}${separator}${pad(hour, 2)}:${pad(minute, 2)}` +
    (second === null ? "" : `:${pad(second, 2)}${fraction === null ? "" : `.${fraction}`}`) + zone
  )

const oddNumber = fc.constantFrom(Number.NaN, Infinity, -Infinity, -0, 0.5, 2 ** 53, -(2 ** 53), Number.MAX_SAFE_INTEGER)
const name = fc.oneof(fc.constantFrom("Message", "Document", "custom", " ", "", "\t", "\u00a0", " x "), fc.string())
export const wrong = fc.constantFrom<unknown>(null, undefined, true, "12", 3, [], {})

/** A metadata value, including `__proto__` keys as `JSON.parse` makes them. */
const metadata: fc.Arbitrary<unknown> = fc.oneof(
  fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 }),
  fc.constantFrom(JSON.parse(`{"__proto__": {"polluted": true}, "1": 2, "a": null}`), Object.create(null), { b: undefined }),
  fc.jsonValue()
)

/** Group ids: valid (non-empty strings), empty, of the wrong type, or `null` (absent). */
const group: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ minLength: 1 }) },
  fc.constantFrom<unknown>("", null, 5, 0, ["g"], { id: "g" }),
  wrong
)

const tags: fc.Arbitrary<unknown> = fc.oneof(
  fc.array(fc.string(), { maxLength: 4 }),
  fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 3 }),
  // A hole: the schema reads it as `undefined`, not a string.
  fc.constant([, "a"]),
  wrong
)

export const itemFields = {
  content: fc.oneof({ weight: 6, arbitrary: fc.string({ minLength: 1 }) }, fc.constant(""), wrong),
  tokens: fc.oneof({ weight: 6, arbitrary: fc.integer() }, oddNumber, wrong),
  kind: fc.oneof(name, wrong),
  source: fc.oneof(name, wrong),
  priority: fc.oneof(fc.integer(), oddNumber, wrong),
  tags,
  metadata,
  timestamp: fc.oneof({ weight: 4, arbitrary: dateTimeString }, fc.string(), wrong),
  futureRelevanceHint: fc.oneof(fc.double(), oddNumber, wrong),
  pinned: fc.oneof(fc.boolean(), wrong),
  originalTokens: fc.oneof(fc.integer(), oddNumber, wrong),
  group,
  unknownKey: fc.anything()
}

/**
 * Keys the schema does not know, with any value: names a future field might have, `__proto__`
 * as `JSON.parse` makes it (an own key), and arbitrary strings (which may also hit a known key).
 */
export const unknownKeys: fc.Arbitrary<Record<string, unknown>> = fc
  .array(
    fc.tuple(fc.oneof(fc.constantFrom("id", "role", "groupId", "Group", "__proto__", "constructor"), fc.string()), fc.anything()),
    { minLength: 1, maxLength: 3 }
  )
  .map((entries) => {
    const extra: Record<string, unknown> = {}
    for (const [key, value] of entries) {
      Object.defineProperty(extra, key, { value, writable: true, enumerable: true, configurable: true })
    }
    return extra
  })

/** `fields` with `extra`'s keys added after them, `__proto__` included, as an own key. */
export const withKeys = (fields: object, extra: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = { ...fields }
  for (const key of Object.keys(extra)) {
    Object.defineProperty(out, key, { value: extra[key], writable: true, enumerable: true, configurable: true })
  }
  return out
}

/** Item-like inputs: any subset of the fields (a key may also be present as `undefined`). */
export const itemLike: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.record(itemFields, { requiredKeys: [] }) },
  { weight: 8, arbitrary: fc.record(itemFields, { requiredKeys: ["content", "tokens"] }) },
  {
    weight: 4,
    arbitrary: fc.tuple(fc.record(itemFields, { requiredKeys: ["content", "tokens"] }), unknownKeys).map(([fields, extra]) =>
      withKeys(fields, extra)
    )
  },
  fc.anything()
)

/** Items that are valid, in the forms a JSON file holds them. */
export const validItem: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    content: fc.string({ minLength: 1 }),
    tokens: fc.integer(),
    kind: fc.constantFrom("Message", "Document", "ToolOutput", "custom-kind"),
    source: fc.constantFrom("Chat", "Rag", "webhook"),
    priority: fc.oneof(fc.integer(), fc.constant(null)),
    tags: fc.array(fc.string(), { maxLength: 3 }),
    metadata: fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }),
    timestamp: fc.oneof(
      fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 }).map((ms) => new Date(ms).toISOString()),
      fc.constantFrom("2024-06-01T14:00:00+02:00", "2024-01-01T00:00Z", "2024-02-29T23:59:59.123456-05:30", null)
    ),
    futureRelevanceHint: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(null)),
    pinned: fc.boolean(),
    originalTokens: fc.oneof(fc.integer(), fc.constant(null)),
    group: fc.oneof(fc.string({ minLength: 1 }), fc.constantFrom("tool-call-1", null))
  },
  { requiredKeys: ["content", "tokens"] }
)
