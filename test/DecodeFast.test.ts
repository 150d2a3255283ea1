/**
 * The fast decoding path (src/internal/fastDecode.ts) against the schema decoder it stands in
 * for: on arbitrary inputs, valid and invalid, both succeed or fail together, succeed with the
 * same values (same prototype, same keys in the same order, same descriptors, same defaults)
 * and fail with the same message. The same holds for `ContextItem.decodeMany` /
 * `decodeJsonArray`, `ScoredItem.decodeMany` and the inputs of `cupel place` and `cupel run`.
 * The arbitraries generate every field of the schema (`group` included) and keys it does not
 * know, which the fast path must leave to the schema.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Exit, Schema } from "effect"
import * as fc from "fast-check"
import * as PipelineInput from "../src/cli/PipelineInput.ts"
import * as PlaceInput from "../src/cli/PlaceInput.ts"
import { ContextItem, ScoredItem } from "../src/index.ts"
import * as FastDecode from "../src/internal/fastDecode.ts"
import * as Rfc3339 from "../src/internal/rfc3339.ts"
import { dateTimeString, itemFields, itemLike, unknownKeys, validItem, withKeys, wrong } from "./support/itemInputs.ts"

// ---------------------------------------------------------------------------------------------
// Comparing decoded values
// ---------------------------------------------------------------------------------------------

const show = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? typeof value
  } catch {
    return typeof value
  }
}

/**
 * How metadata values (opaque, passed through) compare: as the very same references when both
 * decoders read one input, deeply equal when each parsed the JSON text itself.
 */
type Opaque = "identical" | "equal"

/**
 * `actual` and `expected` are the same decoded value: primitives by `Object.is`; date-times by
 * instant and zone; objects and arrays with the same prototype, the same own keys in the same
 * order and the same property descriptors, recursively. Values the decoders pass through
 * untouched (metadata values) must be the very same references.
 */
const assertSame = (actual: unknown, expected: unknown, path: string, opaque: Opaque = "identical", inMetadata = false): void => {
  if (inMetadata && opaque === "identical") {
    if (!Object.is(actual, expected)) assert.fail(`${path}: not the same reference`)
    return
  }
  if (inMetadata && opaque === "equal") {
    assert.deepStrictEqual(actual, expected, path)
    return
  }
  if (typeof expected !== "object" || expected === null) {
    if (!Object.is(actual, expected)) assert.fail(`${path}: ${show(actual)} is not ${show(expected)}`)
    return
  }
  assert.isTrue(typeof actual === "object" && actual !== null, `${path}: not an object`)
  if (typeof actual !== "object" || actual === null) return
  if (DateTime.isDateTime(expected)) {
    assert.isTrue(DateTime.isDateTime(actual) && DateTime.isUtc(actual) && DateTime.isUtc(expected), `${path}: not a DateTime.Utc`)
    if (DateTime.isDateTime(actual)) assert.strictEqual(actual.epochMilliseconds, expected.epochMilliseconds, path)
    return
  }
  assert.strictEqual(Object.getPrototypeOf(actual), Object.getPrototypeOf(expected), `${path}: prototype`)
  assert.deepStrictEqual(Reflect.ownKeys(actual), Reflect.ownKeys(expected), `${path}: keys`)
  for (const key of Reflect.ownKeys(expected)) {
    const a = Object.getOwnPropertyDescriptor(actual, key)
    const e = Object.getOwnPropertyDescriptor(expected, key)
    assert.isDefined(a)
    assert.isDefined(e)
    if (a === undefined || e === undefined) return
    assert.deepStrictEqual(
      [a.writable, a.enumerable, a.configurable, a.get, a.set],
      [e.writable, e.enumerable, e.configurable, e.get, e.set],
      `${path}.${String(key)}: descriptor`
    )
    // Metadata values are opaque: kept as they are, never copied.
    assertSame(a.value, e.value, `${path}.${String(key)}`, opaque, path.endsWith(".metadata"))
  }
}

/** Both exits succeed with the same value, or both fail with the same message. */
const assertSameExit = <A>(
  actual: Exit.Exit<A, { readonly message: string }>,
  expected: Exit.Exit<A, { readonly message: string }>,
  opaque: Opaque = "identical"
): void => {
  assert.strictEqual(actual._tag, expected._tag, "success or failure")
  if (Exit.isSuccess(actual) && Exit.isSuccess(expected)) assertSame(actual.value, expected.value, "value", opaque)
  if (Exit.isFailure(actual) && Exit.isFailure(expected)) {
    const message = (exit: Exit.Failure<A, { readonly message: string }>) =>
      exit.cause.reasons.map((reason) => (reason._tag === "Fail" ? reason.error.message : String(reason))).join("\n")
    assert.strictEqual(message(actual), message(expected))
  }
}

const runs = { numRuns: 400 }

// ---------------------------------------------------------------------------------------------

const schemaItem = Schema.decodeUnknownExit(ContextItem.ContextItem, { errors: "all" })
const fastItem = (input: unknown) => FastDecode.item(input, ContextItem.ContextItem)

describe("the fast path for one item", () => {
  it("accepts only what the schema accepts, and gives the schema's value", () => {
    fc.assert(
      fc.property(itemLike, (input) => {
        const fast = fastItem(input)
        if (fast === undefined) return
        const expected = schemaItem(input)
        assert.isTrue(Exit.isSuccess(expected), "the schema accepts what the fast path accepts")
        if (Exit.isSuccess(expected)) assertSame(fast, expected.value, "item")
      }),
      { numRuns: 2000 }
    )
  })

  it("accepts every valid item in a JSON file's forms (so large inputs never fall back)", () => {
    fc.assert(
      fc.property(validItem, (input) => {
        const fast = fastItem(input)
        assert.isDefined(fast)
        assert.instanceOf(fast, ContextItem.ContextItem)
        const expected = schemaItem(input)
        if (Exit.isSuccess(expected)) assertSame(fast, expected.value, "item")
        else assert.fail(`the schema refuses ${JSON.stringify(input)}`)
      }),
      runs
    )
  })

  it("trusted makes what the class constructor makes with its checks off: same keys, order, descriptors, copies", () => {
    fc.assert(
      fc.property(validItem, (input) => {
        const decoded = schemaItem(input)
        if (!Exit.isSuccess(decoded)) return assert.fail(`the schema refuses ${JSON.stringify(input)}`)
        const fields = { ...decoded.value }
        const made = FastDecode.trusted(ContextItem.ContextItem, fields)
        const expected = new ContextItem.ContextItem(fields, { disableChecks: true })
        assert.instanceOf(made, ContextItem.ContextItem)
        assertSame(made, expected, "item")
        // As the constructor's parser does, the arrays and records are the item's own.
        assert.notStrictEqual(made?.tags, fields.tags)
        assert.notStrictEqual(made?.metadata, fields.metadata)
      }),
      runs
    )
  })

  it("fills the schema's defaults, each item with arrays and records of its own", () => {
    const a = fastItem({ content: "x", tokens: 1 })
    const b = fastItem({ content: "y", tokens: 2 })
    assert.instanceOf(a, ContextItem.ContextItem)
    if (a === undefined || b === undefined) return assert.fail("not accepted")
    assert.strictEqual(a.kind, "Message")
    assert.strictEqual(a.source, "Chat")
    assert.isFalse(a.pinned)
    assert.deepStrictEqual([a.tags, a.metadata], [[], {}])
    assert.notStrictEqual(a.tags, b.tags)
    assert.notStrictEqual(a.metadata, b.metadata)
    assert.deepStrictEqual(Object.keys(a), ["content", "tokens", "kind", "source", "tags", "metadata", "pinned"])
  })

  it("copies tags and metadata, as the schema does: changing the input later changes no item", () => {
    const input = { content: "x", tokens: 1, tags: ["a"], metadata: { k: 1 } }
    const item = fastItem(input)
    assert.notStrictEqual(item?.tags, input.tags)
    assert.notStrictEqual(item?.metadata, input.metadata)
  })

  it("declines, for the schema to decide, a key present with the value undefined", () => {
    for (const key of ["kind", "source", "priority", "tags", "metadata", "timestamp", "futureRelevanceHint", "pinned", "originalTokens", "group"]) {
      assert.isUndefined(fastItem({ content: "x", tokens: 1, [key]: undefined }), key)
      assert.isTrue(Exit.isFailure(schemaItem({ content: "x", tokens: 1, [key]: undefined })), key)
    }
  })
})

describe("the fast path and the fields of the schema", () => {
  const schemaMany = Schema.decodeUnknownExit(Schema.Array(ContextItem.ContextItem), { errors: "all" })
  const schemaJson = Schema.decodeUnknownExit(Schema.fromJsonString(Schema.Array(ContextItem.ContextItem)), { errors: "all" })
  const schemaScored = Schema.decodeUnknownExit(Schema.Array(ScoredItem.ScoredItem), { errors: "all" })

  it("the fast path keeps group, and refuses what the schema refuses", () =>
    Effect.gen(function*() {
      // One item: the group is kept, last, as the schema writes it; null is an absent group.
      const grouped = fastItem({ content: "call", tokens: 3, group: "tool-1" })
      assert.strictEqual(grouped?.group, "tool-1")
      assert.deepStrictEqual(Object.keys(grouped ?? {}), ["content", "tokens", "kind", "source", "tags", "metadata", "pinned", "group"])
      for (const input of [{ content: "call", tokens: 3, group: "tool-1" }, { content: "x", tokens: 1, group: null }]) {
        const expected = schemaItem(input)
        if (Exit.isSuccess(expected)) assertSame(fastItem(input), expected.value, "item")
        else assert.fail(`the schema refuses ${JSON.stringify(input)}`)
      }
      assert.isFalse("group" in (fastItem({ content: "x", tokens: 1, group: null }) ?? { group: 0 }))

      // What the schema refuses, the fast path declines, and decodeMany fails as the schema does.
      for (const bad of ["", 5, true, [], {}, undefined]) {
        const input = { content: "x", tokens: 1, group: bad }
        assert.isUndefined(fastItem(input), show(bad))
        assert.isTrue(Exit.isFailure(schemaItem(input)), show(bad))
        assertSameExit(yield* Effect.exit(ContextItem.decodeMany([input])), schemaMany([input]))
      }

      // Every entry point that decodes many items keeps the groups.
      const items = [
        { content: "call", tokens: 3, group: "tool-1" },
        { content: "result", tokens: 5, group: "tool-1" },
        { content: "plain", tokens: 1 }
      ]
      const groups = (xs: ReadonlyArray<ContextItem.ContextItem>) => xs.map((item) => item.group)
      const expectedGroups = ["tool-1", "tool-1", undefined]
      assert.deepStrictEqual(groups(yield* ContextItem.decodeMany(items)), expectedGroups)
      assert.deepStrictEqual(groups(yield* ContextItem.decodeJsonArray(JSON.stringify(items))), expectedGroups)
      const pairs = items.map((item, i) => ({ item, score: i / 4 }))
      assert.deepStrictEqual(groups((yield* ScoredItem.decodeMany(pairs)).map((pair) => pair.item)), expectedGroups)
      const budget = { maxTokens: 100, targetTokens: 50 }
      const place = yield* PlaceInput.decodeValue("test", { budget, pinned: [items[0]], scored: pairs.slice(1) })
      assert.deepStrictEqual([...groups(place.pinned), ...groups(place.scored.map((pair) => pair.item))], expectedGroups)
      const run = yield* PipelineInput.decodeValue("test", { budget, items, scorer: { type: "recency" } })
      assert.deepStrictEqual(groups(run.items), expectedGroups)

      // And the same values and errors as the schema, valid and invalid groups side by side.
      const mixed = [...items, { content: "bad", tokens: 1, group: "" }, { content: "bad", tokens: 1, group: 5 }]
      assertSameExit(yield* Effect.exit(ContextItem.decodeMany(items)), schemaMany(items))
      assertSameExit(yield* Effect.exit(ContextItem.decodeMany(mixed)), schemaMany(mixed))
      assertSameExit(yield* Effect.exit(ContextItem.decodeJsonArray(JSON.stringify(mixed))), schemaJson(JSON.stringify(mixed)), "equal")
      const mixedPairs = mixed.map((item) => ({ item, score: 0.5 }))
      assertSameExit(yield* Effect.exit(ScoredItem.decodeMany(mixedPairs)), schemaScored(mixedPairs))
    }).pipe(Effect.runPromise))

  it("reads exactly the schema's keys: a field added to the schema and not to the fast path fails here", () => {
    assert.deepStrictEqual(FastDecode.itemKeys, Object.keys(ContextItem.ContextItem.fields))
    assert.deepStrictEqual(FastDecode.scoredKeys, Object.keys(ScoredItem.ScoredItem.fields))
  })

  it("ignores keys it does not know, as the schema does, and declines objects that are not plain", () =>
    Effect.gen(function*() {
      const base = { content: "x", tokens: 1, group: "g" }
      const symbolKey = { ...base, [Symbol("future")]: 1 }
      const hidden = { ...base }
      Object.defineProperty(hidden, "future", { value: 1, enumerable: false })
      const plainWithExtras: ReadonlyArray<unknown> = [
        { ...base, id: "m-1" },
        JSON.parse(`{"content": "x", "tokens": 1, "group": "g", "__proto__": {"group": "other"}}`),
        symbolKey,
        hidden
      ]
      for (const input of plainWithExtras) {
        // Read fast, with exactly the schema's result: the extra keys are ignored by both.
        assert.strictEqual(fastItem(input)?.group, "g", show(input))
        assertSameExit(yield* Effect.exit(ContextItem.decodeMany([input])), schemaMany([input]))
      }
      // A prototype other than the plain object's may carry fields no own key shows: the schema decides.
      const inherited = Object.assign(Object.create({ group: "inherited" }), { content: "x", tokens: 1 })
      assert.isUndefined(fastItem(inherited))
      assert.isUndefined(FastDecode.scored({ item: inherited, score: 1 }, ContextItem.ContextItem))
      assertSameExit(yield* Effect.exit(ContextItem.decodeMany([inherited])), schemaMany([inherited]))
      // The same for the { item, score } pair itself.
      const pairs = [{ item: base, score: 1, rank: 2 }]
      assert.isDefined(FastDecode.scored(pairs[0], ContextItem.ContextItem))
      assertSameExit(yield* Effect.exit(ScoredItem.decodeMany(pairs)), schemaScored(pairs))
    }).pipe(Effect.runPromise))

  it("on arbitrary items with unknown keys, decodeMany gives the schema's result", () =>
    fc.assert(
      fc.asyncProperty(
        fc.tuple(fc.oneof(validItem, fc.record(itemFields, { requiredKeys: [] })), unknownKeys).map(([fields, extra]) => withKeys(fields, extra)),
        async (input) => {
          assertSameExit(await Effect.runPromiseExit(ContextItem.decodeMany([input])), schemaMany([input]))
        }
      ),
      runs
    ))
})

describe("ContextItem.decodeMany and decodeJsonArray", () => {
  const schemaMany = Schema.decodeUnknownExit(Schema.Array(ContextItem.ContextItem), { errors: "all" })
  const schemaJson = Schema.decodeUnknownExit(Schema.fromJsonString(Schema.Array(ContextItem.ContextItem)), { errors: "all" })

  it("agrees with Schema.Array(ContextItem) on arbitrary arrays, valid and invalid: values and messages", () =>
    fc.assert(
      fc.asyncProperty(
        fc.oneof({ weight: 4, arbitrary: fc.array(itemLike, { maxLength: 5 }) }, fc.array(validItem, { maxLength: 5 }), fc.anything()),
        async (input) => {
          assertSameExit(await Effect.runPromiseExit(ContextItem.decodeMany(input)), schemaMany(input))
        }
      ),
      runs
    ))

  it("agrees with Schema.fromJsonString(Schema.Array(ContextItem)) on JSON text, malformed text included", () =>
    fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { weight: 4, arbitrary: fc.array(fc.oneof(validItem, itemLike), { maxLength: 5 }).map((xs) => JSON.stringify(xs) ?? "") },
          fc.string(),
          fc.constantFrom("", "[", "[{]", "{}", "null", "[null]")
        ),
        async (text) => {
          assertSameExit(await Effect.runPromiseExit(ContextItem.decodeJsonArray(text)), schemaJson(text), "equal")
        }
      ),
      runs
    ))

  it("decodes real ContextItem instances, with the schema's defaults", () =>
    Effect.gen(function*() {
      const items = yield* ContextItem.decodeMany([{ content: "a", tokens: 1 }, { content: "b", tokens: 2, pinned: true }])
      assert.instanceOf(items[0], ContextItem.ContextItem)
      assert.strictEqual(items[0]?.kind, "Message")
      assert.isTrue(items[1]?.pinned)
    }).pipe(Effect.runPromise))

  it("names the index and the field of each problem, as the schema does", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(ContextItem.decodeMany([{ content: "a", tokens: 1 }, { content: "", tokens: 1.5 }]))
      assert.include(error.message, `[1]["content"]`)
      assert.include(error.message, `[1]["tokens"]`)
    }).pipe(Effect.runPromise))

  it("an item the fast path declines but the schema accepts is decoded by the schema, in its place", () =>
    Effect.gen(function*() {
      // A field the schema reads through the prototype chain: the fast path declines the item,
      // the schema decodes it.
      const inherited = Object.create({ kind: "Document" })
      inherited.content = "c"
      inherited.tokens = 3
      assert.isUndefined(fastItem(inherited))
      const input = [{ content: "a", tokens: 1 }, inherited, { content: "b", tokens: 2 }]
      const items = yield* ContextItem.decodeMany(input)
      assert.deepStrictEqual(items.map((i) => [i.content, i.kind]), [["a", "Message"], ["c", "Document"], ["b", "Message"]])
      const expected = schemaMany(input)
      if (Exit.isSuccess(expected)) assertSame(items, expected.value, "items")
      else assert.fail("the schema refuses it")
    }).pipe(Effect.runPromise))
})

describe("ScoredItem.decodeMany", () => {
  const schemaMany = Schema.decodeUnknownExit(Schema.Array(ScoredItem.ScoredItem), { errors: "all" })
  const scoredLike = fc.oneof(
    { weight: 4, arbitrary: fc.record({ item: fc.oneof(validItem, itemLike), score: fc.oneof(fc.double(), wrong) }, { requiredKeys: [] }) },
    fc.anything()
  )

  it("agrees with Schema.Array(ScoredItem) on arbitrary arrays, valid and invalid", () =>
    fc.assert(
      fc.asyncProperty(fc.oneof({ weight: 4, arbitrary: fc.array(scoredLike, { maxLength: 5 }) }, fc.anything()), async (input) => {
        assertSameExit(await Effect.runPromiseExit(ScoredItem.decodeMany(input)), schemaMany(input))
      }),
      runs
    ))
})

describe("the inputs of cupel place and cupel run", () => {
  const budget = fc.oneof(
    { weight: 4, arbitrary: fc.constant({ maxTokens: 100, targetTokens: 50 }) },
    fc.record({ maxTokens: fc.oneof(fc.integer({ min: -1, max: 100 }), wrong), targetTokens: fc.oneof(fc.integer({ min: -1, max: 100 }), wrong) }, { requiredKeys: [] }),
    wrong
  )
  const items = fc.oneof({ weight: 4, arbitrary: fc.array(validItem, { maxLength: 4 }) }, fc.array(itemLike, { maxLength: 3 }), wrong)
  const scored = fc.oneof(
    { weight: 4, arbitrary: fc.array(fc.record({ item: validItem, score: fc.double({ min: 0, max: 1, noNaN: true }) }), { maxLength: 4 }) },
    fc.array(fc.record({ item: itemLike, score: fc.oneof(fc.double(), wrong) }, { requiredKeys: [] }), { maxLength: 3 }),
    wrong
  )

  it("cupel place: decodeValue agrees with the schemas alone, problems and all", () =>
    fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { weight: 8, arbitrary: fc.record({ budget, pinned: items, scored, extra: fc.anything() }, { requiredKeys: ["budget"] }) },
          fc.anything()
        ),
        async (input) => {
          assertSameExit(
            await Effect.runPromiseExit(PlaceInput.decodeValue("test", input)),
            await Effect.runPromiseExit(PlaceInput.decodeValueWithSchema("test", input))
          )
        }
      ),
      runs
    ))

  it("cupel run: decodeValue agrees with the schemas alone, problems and all", () =>
    fc.assert(
      fc.asyncProperty(
        fc.oneof(
          {
            weight: 8,
            arbitrary: fc.record(
              {
                budget,
                items,
                scorer: fc.oneof(fc.constant({ type: "recency" }), fc.constant({ type: "nope" }), wrong),
                slicer: fc.constantFrom("greedy", "knapsack", "other"),
                deduplication: fc.oneof(fc.boolean(), wrong),
                extra: fc.anything()
              },
              { requiredKeys: ["budget", "items", "scorer"] }
            )
          },
          fc.anything()
        ),
        async (input) => {
          assertSameExit(
            await Effect.runPromiseExit(PipelineInput.decodeValue("test", input)),
            await Effect.runPromiseExit(PipelineInput.decodeValueWithSchema("test", input))
          )
        }
      ),
      runs
    ))

  it("cupel place: the problems still name each field's path", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(PlaceInput.decodeValue("in.json", {
        budget: { maxTokens: 10, targetTokens: 5 },
        scored: [{ item: { content: "a", tokens: 1 }, score: 0.5 }, { item: { content: "", tokens: 1 }, score: "high" }]
      }))
      assert.include(error.problems.join("\n"), "scored[1].item.content: content must be a non-empty string")
      assert.include(error.problems.join("\n"), `scored[1].score: Expected a number, got "high"`)
    }).pipe(Effect.runPromise))
})

/**
 * The grammar and rules of RFC 3339 as `parse` states them with its regular expression,
 * transcribed independently: the reference for the character-by-character reader.
 */
const referenceMillis = (s: string): number | undefined => {
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/.exec(s)
  if (m === null) return undefined
  const [year, month, day, hour, minute] = [1, 2, 3, 4, 5].map((k) => Number(m[k]))
  const second = m[6] === undefined ? 0 : Number(m[6])
  const millis = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, "0"))
  const offset = m[8] !== undefined ? 0 : (m[9] === "-" ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11]))
  if (m[8] === undefined && (Number(m[10]) > 23 || Number(m[11]) > 59)) return undefined
  if (year === undefined || month === undefined || day === undefined || hour === undefined || minute === undefined) return undefined
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59 || day < 1) return undefined
  // Date.UTC maps years 0–99 to 1900–1999; setUTCFullYear does not.
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  if (date.getUTCMonth() !== month - 1) return undefined
  date.setUTCHours(hour, minute - offset, second, millis)
  return date.getTime()
}

describe("RFC 3339 timestamps read character by character", () => {
  it("parseMillis accepts exactly what the regular expression and its range checks accept, with the same instant", () => {
    fc.assert(
      fc.property(fc.oneof({ weight: 6, arbitrary: dateTimeString }, fc.string(), fc.string({ unit: "binary" })), (s) => {
        const expected = referenceMillis(s)
        assert.strictEqual(Rfc3339.parseMillis(s), expected, s)
        const parsed = Rfc3339.parse(s)
        assert.strictEqual(parsed.ok ? parsed.epochMillis : undefined, expected, s)
      }),
      { numRuns: 5000 }
    )
  })

  it("reads fractions to the millisecond, truncating, and offsets both ways", () => {
    assert.strictEqual(Rfc3339.parseMillis("1970-01-01T00:00:00.1Z"), 100)
    assert.strictEqual(Rfc3339.parseMillis("1970-01-01T00:00:00.12999Z"), 129)
    assert.strictEqual(Rfc3339.parseMillis("1970-01-01T01:00:00+01:00"), 0)
    assert.strictEqual(Rfc3339.parseMillis("1969-12-31T23:00-01:00"), 0)
    assert.isUndefined(Rfc3339.parseMillis("1970-01-01T00:00:00."))
    assert.isUndefined(Rfc3339.parseMillis("1970-01-01T00:00:00"))
    assert.isUndefined(Rfc3339.parseMillis("2023-02-29T00:00:00Z"))
  })
})
