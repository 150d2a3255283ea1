/**
 * The placers' stable sort of ids by keys (`src/internal/stableSort.ts`), held to a literal
 * stable sort (`Array.prototype.sort` is stable): random keys with ties, keys already in order,
 * in strictly reverse order and in reverse order with ties (design item 141's fast paths, and
 * the input that must not take them).
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { sortIdsByKey } from "../src/internal/stableSort.ts"

/** Ids `0..n-1` by their keys, ties in id order. */
const literal = (keys: ReadonlyArray<number>): Array<number> =>
  keys.map((_, id) => id).sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : 0))

const check = (keys: ReadonlyArray<number>) =>
  assert.deepStrictEqual(sortIdsByKey(keys.slice(), keys.map((_, id) => id)), literal(keys))

describe("sortIdsByKey (design item 141)", () => {
  it("is the literal stable sort on random keys, sorted keys and reversed keys, with and without ties", () => {
    const keyLists = fc.array(fc.integer({ min: -20, max: 20 }).map((k) => k / 2), { maxLength: 80 })
    fc.assert(
      fc.property(keyLists, fc.constantFrom("as drawn", "ascending", "descending"), (drawn, order) => {
        const keys = order === "as drawn" ? drawn : drawn.slice().sort((a, b) => (order === "ascending" ? a - b : b - a))
        check(keys)
        // The same keys made distinct (no ties): strictly ordered either way.
        check(keys.map((k, i) => k * 1000 + (order === "descending" ? -i : i)))
      }),
      { seed: 141, numRuns: 600 }
    )
  })

  it("reverse order with one tie keeps the tied ids in their order", () => {
    check([5, 4, 4, 3, 1])
    check([9, 7, 5, 3, 1, 1])
    check([1, 1])
    check([2, 1])
    check([])
  })
})
