import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import fc from "fast-check"
import type { ContextItem } from "../../src/ContextItem.ts"
import * as RecencyScorer from "../../src/scorers/RecencyScorer.ts"
import * as Scorer from "../../src/scorers/Scorer.ts"
import { items as arbitraryItems } from "../support/scorerArbitraries.ts"
import { scorerItem as item } from "../support/scorerItems.ts"
import * as Spec from "../support/specScorers.ts"

const scorer = RecencyScorer.make()
const score = (items: Parameters<typeof Spec.runScorer>[1]) => Spec.runScorer(scorer, items)

describe("RecencyScorer — chapter rules", () => {
  it("is named \"recency\"", () => {
    assert.strictEqual(scorer.name, "recency")
  })

  it("most recent scores 1.0, oldest 0.0, intermediates rank / (N − 1) (vector recency-basic)", async () => {
    const items = [
      item("oldest", { timestamp: "2024-01-01T00:00Z" }),
      item("middle", { timestamp: "2024-06-01T00:00Z" }),
      item("newest", { timestamp: "2024-12-01T00:00Z" })
    ]
    assert.deepStrictEqual(await score(items), [0, 0.5, 1])
  })

  it("item.timestamp is null: 0.0; denominator counts only timestamped items (vector recency-null-timestamps)", async () => {
    const items = [
      item("old", { timestamp: "2024-01-01T00:00Z" }),
      item("new", { timestamp: "2024-12-01T00:00Z" }),
      item("no-timestamp-a"),
      item("no-timestamp-b")
    ]
    assert.deepStrictEqual(await score(items), [0, 1, 0, 0])
  })

  it("all items have null timestamps: all score 0.0 (vector recency-all-null)", async () => {
    assert.deepStrictEqual(await score([item("a"), item("b"), item("c")]), [0, 0, 0])
  })

  it("only one item has a timestamp: that item scores 1.0 (vector recency-single-item)", async () => {
    assert.deepStrictEqual(await score([item("only", { timestamp: "2024-06-15T00:00Z" })]), [1])
    assert.deepStrictEqual(await score([item("a"), item("only", { timestamp: "2024-06-15T00:00Z" }), item("b")]), [0, 1, 0])
  })

  it("all items share the same timestamp: all score 0.0", async () => {
    const at = "2024-06-01T00:00Z"
    assert.deepStrictEqual(await score([item("a", { timestamp: at }), item("b", { timestamp: at }), item("c", { timestamp: at })]), [0, 0, 0])
  })

  it("tied timestamps share the rank of the items strictly older", async () => {
    const items = [
      item("t1", { timestamp: "2024-01-01T00:00Z" }),
      item("t2a", { timestamp: "2024-02-01T00:00Z" }),
      item("t2b", { timestamp: "2024-02-01T00:00Z" }),
      item("t3", { timestamp: "2024-03-01T00:00Z" })
    ]
    assert.deepStrictEqual(await score(items), [0, 1 / 3, 1 / 3, 1])
  })

  it("compares instants, not strings: offsets do not change the order", async () => {
    const items = [
      item("later-text-earlier-instant", { timestamp: "2024-06-01T01:30:00+02:00" }), // 23:30Z on May 31
      item("utc-midnight", { timestamp: "2024-06-01T00:00:00Z" }),
      item("same-instant", { timestamp: "2024-05-31T19:00:00-05:00" }) // 00:00Z
    ]
    assert.deepStrictEqual(await score(items), [0, 0.5, 0.5])
  })

  it("empty list: no scores", async () => {
    assert.deepStrictEqual(await score([]), [])
  })

  it.effect("returns a new Float64Array and never writes to the items (frozen input)", () =>
    Effect.gen(function*() {
      const items = Object.freeze([Object.freeze(item("a", { timestamp: "2024-01-01T00:00Z" })), Object.freeze(item("b"))])
      const scores = yield* scorer.scoreAll(items)
      assert.instanceOf(scores, Float64Array)
      assert.deepStrictEqual(Array.from(scores), [1, 0])
    }))

  it.effect("layer provides the recency scorer as the Scorer service", () =>
    Effect.gen(function*() {
      const scores = yield* Scorer.scoreAll([item("a", { timestamp: "2024-01-01T00:00Z" }), item("b", { timestamp: "2024-02-01T00:00Z" })])
      assert.deepStrictEqual(Array.from(scores), [0, 1])
    }).pipe(Effect.provide(RecencyScorer.layer)))

  it("Layer value is a Layer", () => {
    assert.isTrue(Layer.isLayer(RecencyScorer.layer))
  })
})

describe("RecencyScorer — against the chapter's pseudocode", () => {
  it("equals RECENCY-SCORE exactly on random lists (ties, nulls, extreme instants, repeated objects)", () =>
    fc.assert(
      fc.asyncProperty(arbitraryItems(40), async (items) => {
        assert.deepStrictEqual(await score(items), Spec.scoreEach(Spec.recency, items))
      }),
      { numRuns: 400 }
    ))
})

describe("RecencyScorer — items already in time order (docs/design.md item 129)", () => {
  /** The timestamped items of `items` put in ascending time order, the untimed ones where they were. */
  const inTimeOrder = (items: ReadonlyArray<ContextItem>): Array<ContextItem> => {
    const out = [...items]
    const at: Array<number> = []
    for (let i = 0; i < out.length; i++) if (out[i]!.timestamp !== undefined) at.push(i)
    const timed = at.map((i) => out[i]!).sort((a, b) => a.timestamp!.epochMilliseconds - b.timestamp!.epochMilliseconds)
    at.forEach((i, k) => out[i] = timed[k]!)
    return out
  }

  it("equals RECENCY-SCORE exactly when the timestamps ascend (ties, nulls between, repeated objects)", () =>
    fc.assert(
      fc.asyncProperty(arbitraryItems(60), async (items) => {
        const ordered = inTimeOrder(items)
        assert.deepStrictEqual(await score(ordered), Spec.scoreEach(Spec.recency, ordered))
      }),
      { numRuns: 400 }
    ))

  it("equals RECENCY-SCORE on long ascending lists, below and above the linear paths' threshold", () =>
    fc.assert(
      fc.asyncProperty(fc.integer({ min: 900, max: 1300 }), fc.integer({ min: 1, max: 5 }), async (n, tie) => {
        const items = Array.from({ length: n }, (_, i) =>
          i % 97 === 13 ? item(`u${i}`) : item(`m${i}`, { timestamp: new Date(Date.UTC(2024, 0, 1) + Math.floor(i / tie) * 1000).toISOString() }))
        assert.deepStrictEqual(await score(items), Spec.scoreEach(Spec.recency, items))
      }),
      { numRuns: 6 }
    ))
})
