import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Schema } from "effect"
import { ContextBudget, ContextItem, ContextKind, ContextSource, ScoredItem, Timestamp } from "../src/index.ts"

const decodeError = (input: unknown) =>
  Effect.flip(ContextItem.decode(input)).pipe(Effect.map((e) => e.message))

describe("ContextItem — fields and defaults", () => {
  it.effect("decodes the two required fields and fills the specification's defaults", () =>
    Effect.gen(function*() {
      const item = yield* ContextItem.decode({ content: "hello", tokens: 3 })
      assert.instanceOf(item, ContextItem.ContextItem)
      assert.strictEqual(item.kind, "Message")
      assert.strictEqual(item.source, "Chat")
      assert.deepStrictEqual(item.tags, [])
      assert.deepStrictEqual(item.metadata, {})
      assert.isFalse(item.pinned)
      assert.isUndefined(item.priority)
      assert.isUndefined(item.timestamp)
      assert.isUndefined(item.futureRelevanceHint)
      assert.isUndefined(item.originalTokens)
    }))

  it("the constructor applies the same defaults", () => {
    const item = new ContextItem.ContextItem({ content: "hello", tokens: 3 })
    assert.strictEqual(item.kind, ContextKind.defaultKind)
    assert.strictEqual(item.source, ContextSource.defaultSource)
    assert.isFalse(item.pinned)
  })

  it.effect("decodes every field of the data model", () =>
    Effect.gen(function*() {
      const item = yield* ContextItem.decode({
        content: "doc",
        tokens: 120,
        kind: "Document",
        source: "Rag",
        priority: 7,
        tags: ["Important", "billing"],
        metadata: { id: "doc-1", nested: { score: [1, 2] } },
        timestamp: "2024-06-01T14:00:00+02:00",
        futureRelevanceHint: 0.25,
        pinned: true,
        originalTokens: 400
      })
      assert.strictEqual(item.priority, 7)
      assert.deepStrictEqual(item.tags, ["Important", "billing"])
      assert.strictEqual(item.futureRelevanceHint, 0.25)
      assert.strictEqual(item.originalTokens, 400)
      assert.isTrue(item.pinned)
      assert.strictEqual(item.timestamp?.epochMilliseconds, Date.parse("2024-06-01T12:00:00Z"))
    }))

  it.effect("null on the wire means absent, as other implementations write it", () =>
    Effect.gen(function*() {
      const item = yield* ContextItem.decode({
        content: "x",
        tokens: 1,
        priority: null,
        timestamp: null,
        futureRelevanceHint: null,
        originalTokens: null
      })
      assert.isFalse("priority" in item)
      assert.isFalse("timestamp" in item)
    }))

  it.effect("metadata is opaque: kept as given, never interpreted", () =>
    Effect.gen(function*() {
      const metadata = { a: { b: [1, "two", null] }, "weird key": true }
      const item = yield* ContextItem.decode({ content: "x", tokens: 1, metadata })
      assert.deepStrictEqual(item.metadata, metadata)
      const encoded = yield* ContextItem.encode(item)
      assert.deepStrictEqual(encoded.metadata, metadata)
    }))

  it.effect("kinds and sources are extensible and keep their spelling", () =>
    Effect.gen(function*() {
      const item = yield* ContextItem.decode({ content: "x", tokens: 1, kind: "customKind", source: "webhook" })
      assert.strictEqual(item.kind, "customKind")
      assert.strictEqual(item.source, "webhook")
    }))

  it.effect("negative token counts are representable (the Classify stage excludes them, Place refuses them)", () =>
    Effect.gen(function*() {
      const item = yield* ContextItem.decode({ content: "x", tokens: -5 })
      assert.strictEqual(item.tokens, -5)
    }))
})

describe("ContextItem — bad input gets a typed error that names the field", () => {
  it.effect("empty content", () =>
    Effect.gen(function*() {
      const message = yield* decodeError({ content: "", tokens: 1 })
      assert.include(message, "content must be a non-empty string")
      assert.include(message, `["content"]`)
    }))

  it.effect("missing content", () =>
    Effect.gen(function*() {
      assert.include(yield* decodeError({ tokens: 1 }), `["content"]`)
    }))

  it.effect("fractional tokens", () =>
    Effect.gen(function*() {
      const message = yield* decodeError({ content: "x", tokens: 1.5 })
      assert.include(message, "integer")
      assert.include(message, `["tokens"]`)
    }))

  it.effect("tokens beyond the safe integers are reported with the rule, not as 'not an integer'", () =>
    Effect.gen(function*() {
      for (const tokens of [1e20, Number.MAX_SAFE_INTEGER + 1, -1e20]) {
        const message = yield* decodeError({ content: "x", tokens })
        assert.include(message, `Expected a safe integer (a whole number from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER})`)
        assert.include(message, `["tokens"]`)
      }
      const budget = yield* Effect.flip(ContextBudget.decode({ maxTokens: 1e20, targetTokens: 0 }))
      assert.include(budget.message, "Expected a safe integer")
      // The largest safe count decodes.
      const item = yield* ContextItem.decode({ content: "x", tokens: Number.MAX_SAFE_INTEGER })
      assert.strictEqual(item.tokens, Number.MAX_SAFE_INTEGER)
    }))

  it.effect("non-numeric tokens", () =>
    Effect.gen(function*() {
      assert.include(yield* decodeError({ content: "x", tokens: "12" }), `["tokens"]`)
    }))

  it.effect("a blank kind or source", () =>
    Effect.gen(function*() {
      const message = yield* decodeError({ content: "x", tokens: 1, kind: "  ", source: "" })
      assert.include(message, "ContextKind must be a non-empty name")
      assert.include(message, "ContextSource must be a non-empty name")
    }))

  it.effect("a timestamp without an offset, a date-only timestamp and an impossible date", () =>
    Effect.gen(function*() {
      for (const timestamp of ["2024-01-01T00:00:00", "2024-01-01", "2024-02-30T00:00:00Z", "yesterday"]) {
        const message = yield* decodeError({ content: "x", tokens: 1, timestamp })
        assert.include(message, `["timestamp"]`, timestamp)
      }
    }))

  it.effect("a non-finite futureRelevanceHint and a fractional priority", () =>
    Effect.gen(function*() {
      const message = yield* decodeError({ content: "x", tokens: 1, priority: 1.5, futureRelevanceHint: "high" })
      assert.include(message, `["priority"]`)
      assert.include(message, `["futureRelevanceHint"]`)
    }))

  it.effect("reports every problem at once", () =>
    Effect.gen(function*() {
      const message = yield* decodeError({ content: "", tokens: 0.5, pinned: "yes" })
      assert.include(message, `["content"]`)
      assert.include(message, `["tokens"]`)
      assert.include(message, `["pinned"]`)
    }))

  it.effect("make fails with a typed error instead of throwing", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(ContextItem.make({ content: "", tokens: 1 }))
      assert.include(error.message, "content must be a non-empty string")
      const ok = yield* ContextItem.make({ content: "x", tokens: 1 })
      assert.strictEqual(ok.kind, "Message")
    }))

  it.effect("malformed JSON", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(ContextItem.decodeJson(`{"content": "x", "tokens": 1`))
      assert.strictEqual(error._tag, "SchemaError")
    }))

  it.effect("a JSON string decodes", () =>
    Effect.gen(function*() {
      const item = yield* ContextItem.decodeJson(`{"content": "x", "tokens": 1, "timestamp": "2024-01-01T00:00Z"}`)
      assert.strictEqual(item.timestamp?.epochMilliseconds, Date.parse("2024-01-01T00:00:00Z"))
    }))
})

describe("ContextItem — encoding", () => {
  it.effect("round-trips, with the timestamp normalised to UTC", () =>
    Effect.gen(function*() {
      const input = {
        content: "x",
        tokens: 4,
        kind: "ToolOutput",
        source: "Tool",
        priority: 2,
        tags: ["t"],
        metadata: { k: 1 },
        timestamp: "2024-06-01T14:00:00.250+02:00",
        futureRelevanceHint: 0.5,
        pinned: false,
        originalTokens: 9
      }
      const item = yield* ContextItem.decode(input)
      const encoded = yield* ContextItem.encode(item)
      assert.deepStrictEqual(encoded, { ...input, timestamp: "2024-06-01T12:00:00.250Z" })
      const again = yield* ContextItem.decode(encoded)
      assert.deepStrictEqual(again, item)
    }))
})

describe("ContextKind and ContextSource", () => {
  it("compare case-insensitively under ASCII folding", () => {
    assert.isTrue(ContextKind.Equivalence("Message", "mEsSaGe"))
    assert.isTrue(ContextKind.Equivalence("MESSAGE", ContextKind.Message))
    assert.isFalse(ContextKind.Equivalence("Message", "Messages"))
    assert.isTrue(ContextSource.Equivalence("chat", ContextSource.Chat))
    assert.isTrue(ContextSource.Equivalence("RAG", "rag"))
  })

  it("fold only ASCII letters", () => {
    // Non-ASCII case pairs are distinct under ASCII folding.
    assert.isFalse(ContextKind.Equivalence("Ä", "ä"))
    assert.strictEqual(ContextKind.fold("ToolOutput"), "tooloutput")
  })

  it("export the well-known values", () => {
    assert.deepStrictEqual(
      [ContextKind.Message, ContextKind.Document, ContextKind.ToolOutput, ContextKind.Memory, ContextKind.SystemPrompt],
      ["Message", "Document", "ToolOutput", "Memory", "SystemPrompt"]
    )
    assert.deepStrictEqual([ContextSource.Chat, ContextSource.Tool, ContextSource.Rag], ["Chat", "Tool", "Rag"])
  })
})

describe("ScoredItem", () => {
  const item = { content: "x", tokens: 1 }

  it.effect("rejects a NaN score", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(ScoredItem.decode({ item, score: Number.NaN }))
      assert.include(error.message, "not NaN")
      assert.include(error.message, `["score"]`)
    }))

  it.effect("rejects a missing or non-numeric score", () =>
    Effect.gen(function*() {
      assert.include((yield* Effect.flip(ScoredItem.decode({ item }))).message, `["score"]`)
      assert.include((yield* Effect.flip(ScoredItem.decode({ item, score: "0.5" }))).message, `["score"]`)
    }))

  it.effect("accepts scores outside [0, 1] and infinities: the specification does not enforce a range", () =>
    Effect.gen(function*() {
      for (const score of [-1, 0, 1, 2.5, Infinity, -Infinity]) {
        const s = yield* ScoredItem.decode({ item, score })
        assert.strictEqual(s.score, score)
      }
    }))

  it("make pairs an item with a score", () => {
    const i = new ContextItem.ContextItem(item)
    assert.deepStrictEqual(ScoredItem.make(i, 0.5), { item: i, score: 0.5 })
  })
})

describe("Timestamp", () => {
  it.effect("decodes any offset to the same instant", () =>
    Effect.gen(function*() {
      const instants = yield* Effect.forEach(
        ["2024-06-01T00:00:00Z", "2024-06-01T02:00:00+02:00", "2024-05-31T19:00:00-05:00", "2024-06-01T05:30:00+05:30", "2024-06-01T00:00Z", "2024-06-01t00:00:00z"],
        (s) => Timestamp.decode(s)
      )
      for (const t of instants) assert.isTrue(DateTime.Equivalence(t, instants[0]!))
    }))

  it.effect("keeps milliseconds and truncates finer fractions", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* Timestamp.decode("2024-01-01T00:00:00.123456Z")).epochMilliseconds % 1000, 123)
      assert.strictEqual((yield* Timestamp.decode("2024-01-01T00:00:00.5Z")).epochMilliseconds % 1000, 500)
    }))

  it.effect("handles dates before 1970 and far in the future", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* Timestamp.decode("1969-12-31T23:59:59.999Z")).epochMilliseconds, -1)
      assert.strictEqual((yield* Timestamp.decode("3282-11-20T06:21:38-05:00")).epochMilliseconds, Date.parse("3282-11-20T11:21:38Z"))
      assert.strictEqual((yield* Timestamp.decode("2024-02-29T00:00:00Z")).epochMilliseconds, Date.parse("2024-02-29T00:00:00Z"))
    }))

  it.effect("the first and last instants RFC 3339 can write round-trip; one beyond either fails to encode, saying why", () =>
    Effect.gen(function*() {
      const encode = Schema.encodeEffect(Timestamp.Timestamp)
      for (const text of ["0000-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z"]) {
        const instant = yield* Timestamp.decode(text)
        assert.strictEqual(yield* encode(instant), text)
      }
      for (const millis of [Date.parse("0000-01-01T00:00:00.000Z") - 1, Date.parse("9999-12-31T23:59:59.999Z") + 1]) {
        const error = yield* Effect.flip(encode(Timestamp.fromEpochMillis(millis)))
        assert.include(error.message, "RFC 3339 writes the years 0000 to 9999 only")
      }
      // The item's encoder fails the same way, naming the field, instead of writing what no reader accepts.
      const item = new ContextItem.ContextItem({ content: "far", tokens: 1, timestamp: Timestamp.fromEpochMillis(Date.parse("+010000-01-01T00:00:00Z")) })
      const error = yield* Effect.flip(ContextItem.encode(item))
      assert.include(error.message, "timestamp")
      assert.include(error.message, "+010000-01-01T00:00:00.000Z is outside them")
    }))

  it.effect("rejects what does not name one instant, saying why", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [string, string]> = [
        ["2024-01-01T00:00:00", "with an offset"],
        ["2024-01-01", "with an offset"],
        ["2023-02-29T00:00:00Z", "Day 29 does not exist"],
        ["2024-13-01T00:00:00Z", "Month 13"],
        ["2024-01-01T24:00:00Z", "Hour 24"],
        ["2024-01-01T00:60:00Z", "Minute 60"],
        ["2024-01-01T00:00:60Z", "Second 60"],
        ["2024-01-01T00:00:00+24:00", "Offset"],
        ["", "with an offset"]
      ]
      for (const [input, expected] of cases) {
        const error = yield* Effect.flip(Timestamp.decode(input))
        assert.include(error.message, expected, input)
      }
    }))

  it.effect("encodes as an RFC 3339 UTC string", () =>
    Effect.gen(function*() {
      const encoded = yield* Schema.encodeEffect(Timestamp.Timestamp)(Timestamp.fromEpochMillis(Date.parse("2024-06-01T12:34:56.789Z")))
      assert.strictEqual(encoded, "2024-06-01T12:34:56.789Z")
    }))
})
