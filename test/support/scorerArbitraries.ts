/**
 * fast-check arbitraries for scorer inputs: lists with many ties, missing values, extreme
 * values, tags and kinds in several cases, odd metadata, and the same item object repeated.
 */
import fc from "fast-check"
import { ContextItem } from "../../src/ContextItem.ts"
import * as Timestamp from "../../src/Timestamp.ts"

const kind = fc.constantFrom("Message", "message", "MESSAGE", "Memory", "memory", "SystemPrompt", "Document", "ToolOutput", "Custom", "Straße")

const tagName = fc.constantFrom("web", "Web", "WEB", "api", "API", "db", "cli", "x", "ß", "Ü", "ü")
const tags = fc.oneof(
  { weight: 4, arbitrary: fc.array(tagName, { maxLength: 4 }) },
  // Large tag sets (more than FrequencyScorer.subsetLimit distinct tags) exercise its other path.
  { weight: 1, arbitrary: fc.array(fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "web", "API"), { minLength: 9, maxLength: 14 }) }
)

const priority = fc.option(
  fc.oneof(
    fc.constantFrom(0, -0, 1, 5, 10, -3, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER),
    fc.integer({ min: -20, max: 20 })
  ),
  { freq: 3 }
)

const timestamp = fc.option(
  fc.oneof(
    fc.constantFrom(0, 1_700_000_000_000, 1_700_000_000_001, -8.64e15, 8.64e15),
    fc.integer({ min: 1_699_000_000_000, max: 1_701_000_000_000 })
  ),
  { freq: 3 }
)

const hint = fc.option(
  fc.oneof(
    fc.constantFrom(0, -0, 0.5, 1, 1.7, -0.3, Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE),
    fc.double({ noNaN: true, noDefaultInfinity: true })
  ),
  { freq: 3 }
)

/** Values for "cupel:trust": decimal strings, near misses, non-finite spellings, other types. */
const trustValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    "0.85", "0.0", "1.0", "-0.1", "1.5", "NaN", "nan", "inf", "-Infinity", "+Infinity", "infinity", "1e400",
    "", " 0.5", "0.5 ", "high", ".5", "5.", ".", "+.5e-1", "1e", "1e+", "0x1", "1_0", "−0.5", "0.5e1", "-0"
  ),
  fc.double().map(String),
  fc.double(),
  fc.constantFrom(true, false, null, undefined, {}, [0.5], 2n),
  fc.string({ maxLength: 6 })
)

const priorityValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom("high", "normal", "High", "low", "", 1.5, "1.5", true, "true", null, undefined, { toString: () => "high" }),
  fc.string({ maxLength: 4 })
)

const metadata = fc.record(
  { "cupel:trust": trustValue, "cupel:priority": priorityValue, other: fc.string({ maxLength: 3 }) },
  { requiredKeys: [] }
)

const row = fc.record({ kind, tags, priority, timestamp, hint, metadata })

const toItem = (r: typeof row extends fc.Arbitrary<infer A> ? A : never, index: number): ContextItem =>
  new ContextItem({
    content: `item-${index}`,
    tokens: 10,
    kind: r.kind,
    tags: r.tags,
    metadata: r.metadata,
    ...(r.priority === null ? {} : { priority: r.priority }),
    ...(r.timestamp === null ? {} : { timestamp: Timestamp.fromEpochMillis(r.timestamp) }),
    ...(r.hint === null ? {} : { futureRelevanceHint: r.hint })
  })

/**
 * A list of items; about one position in eight repeats an earlier item object (the chapters'
 * reference-identity rules then matter).
 */
export const items = (maxLength = 30): fc.Arbitrary<Array<ContextItem>> =>
  fc.array(fc.tuple(row, fc.option(fc.nat(), { freq: 7 })), { maxLength }).map((rows) => {
    const out: Array<ContextItem> = []
    rows.forEach(([r, repeat], index) => {
      out.push(repeat !== null && out.length > 0 ? out[repeat % out.length]! : toItem(r, index))
    })
    return out
  })

/** Weights as the chapters' validation sees them: mostly valid, sometimes negative or not finite. */
export const weight: fc.Arbitrary<number> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(0, -0, 0.5, 1, 2, 3, 1e300) },
  { weight: 6, arbitrary: fc.double({ min: 0, max: 10, noNaN: true }) },
  { weight: 1, arbitrary: fc.constantFrom(-1, -1e-300, NaN, Infinity, -Infinity) }
)
