/**
 * FirstFitSlice (not in the specification; docs/design.md 50): its rules, and a property test
 * against a literal transcription of "walk the sorted list, take each item that still fits".
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { ContextItem } from "../../src/ContextItem.ts"
import type { ScoredItem } from "../../src/ScoredItem.ts"
import * as Slicer from "../../src/slicers/Slicer.ts"
import { SlicerError } from "../../src/slicers/SlicerError.ts"
import * as FirstFitSlice from "../../src/slicers/FirstFitSlice.ts"

const scored = (content: string, tokens: number, score: number): ScoredItem => ({
  item: new ContextItem({ content, tokens }),
  score
})

const indices = (sorted: ReadonlyArray<ScoredItem>, targetTokens: number, columns?: Slicer.Columns): Array<number> => {
  const selected = FirstFitSlice.select(sorted, targetTokens, columns)
  if (selected instanceof SlicerError) throw new Error(selected.message)
  return Array.from(selected)
}

/** The rule, transcribed: in the given order, each item whose tokens fit what is left. */
const transcription = (sorted: ReadonlyArray<ScoredItem>, targetTokens: number): Array<number> => {
  if (!(targetTokens > 0)) return []
  const out: Array<number> = []
  let left = targetTokens
  sorted.forEach((entry, i) => {
    if (entry.item.tokens <= left) {
      out.push(i)
      left -= entry.item.tokens
    }
  })
  return out
}

describe("FirstFitSlice", () => {
  it("takes items in score order, not by score per token: a long first item before short later ones", () => {
    const sorted = [scored("newest, long", 60, 1), scored("old", 5, 0.5), scored("older", 5, 0.2)]
    assert.deepStrictEqual(indices(sorted, 65), [0, 1])
  })

  it("an item that does not fit is skipped and the walk goes on with the next", () => {
    const sorted = [scored("a", 30, 1), scored("b", 50, 0.9), scored("c", 20, 0.8), scored("d", 1, 0.1)]
    assert.deepStrictEqual(indices(sorted, 55), [0, 2, 3])
  })

  it("a zero-token item is always taken, even when nothing is left", () => {
    const sorted = [scored("a", 10, 1), scored("free", 0, 0.5), scored("b", 1, 0.1)]
    assert.deepStrictEqual(indices(sorted, 10), [0, 1])
  })

  it("a target of 0, a negative one or NaN selects nothing; an empty list selects nothing", () => {
    const sorted = [scored("a", 0, 1)]
    assert.deepStrictEqual(indices(sorted, 0), [])
    assert.deepStrictEqual(indices(sorted, -1), [])
    assert.deepStrictEqual(indices(sorted, Number.NaN), [])
    assert.deepStrictEqual(indices([], 100), [])
  })

  it.effect("as the Slicer service, and by name in spans and errors", () =>
    Effect.gen(function*() {
      const sorted = [scored("a", 3, 1), scored("b", 3, 0.5)]
      const selection = yield* Slicer.slice(sorted, { maxTokens: 10, targetTokens: 4 }).pipe(Effect.provide(FirstFitSlice.layer))
      assert.deepStrictEqual(Array.from(selection.selected), [0])
      assert.strictEqual(FirstFitSlice.make().name, "first_fit")
    }))

  it("selects what the transcription selects, with the pipeline's columns and without", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ tokens: fc.integer({ min: 0, max: 200 }), score: fc.double({ min: 0, max: 1, noNaN: true }) }), {
          maxLength: 80
        }),
        fc.integer({ min: -5, max: 3000 }),
        (entries, target) => {
          const sorted = entries
            .map((e, i) => scored(`item ${i}`, e.tokens, e.score))
            .sort((a, b) => b.score - a.score)
          const columns: Slicer.Columns = {
            scores: Float64Array.from(sorted, (s) => s.score),
            tokens: Float64Array.from(sorted, (s) => s.item.tokens)
          }
          const expected = transcription(sorted, target)
          assert.deepStrictEqual(indices(sorted, target), expected)
          assert.deepStrictEqual(indices(sorted, target, columns), expected)
        }
      ),
      { numRuns: 300 }
    )
  })
})
