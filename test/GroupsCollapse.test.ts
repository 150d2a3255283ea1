/**
 * `Groups.collapse` in one pass over the items (docs/design.md item 132), checked against a
 * literal transcription of the two passes it replaces: the same units in the same order (the
 * same objects: both ask `unitOf`, which gives the unit made before for the same members), the
 * same members of each unit in the same order, and the same `TokenTotalError` for the first
 * group (in the order of first members) whose tokens leave the safe integers — on generated
 * candidates whose groups are adjacent, interleaved, singletons or absent.
 */
import { describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { ContextItem } from "../src/index.ts"
import * as Groups from "../src/internal/groups.ts"
import { TokenTotalError } from "../src/TokenTotalError.ts"
import { assertSameCollapse } from "./support/sameCollapse.ts"

/** `collapse` as it was before item 132: the groups' members, then a second pass making units. */
const literalCollapse = (items: ReadonlyArray<ContextItem.ContextItem>) => {
  const byGroup = new Map<string, { readonly list: Array<ContextItem.ContextItem>; made: boolean }>()
  for (const item of items) {
    if (item.group === undefined) continue
    const entry = byGroup.get(item.group)
    if (entry === undefined) byGroup.set(item.group, { list: [item], made: false })
    else entry.list.push(item)
  }
  const units: Array<ContextItem.ContextItem> = []
  const members = new Map<ContextItem.ContextItem, ReadonlyArray<ContextItem.ContextItem>>()
  for (const item of items) {
    const group = item.group
    const entry = group === undefined ? undefined : byGroup.get(group)
    if (group === undefined || entry === undefined || entry.list.length < 2) {
      units.push(item)
      continue
    }
    if (entry.made) continue
    entry.made = true
    const unit = Groups.unitOf(group, entry.list)
    if (unit instanceof TokenTotalError) return unit
    units.push(unit)
    members.set(unit, entry.list)
  }
  return { units, members }
}

const candidates = fc.array(
  fc.record({
    content: fc.constantFrom("a", "b", "c"),
    tokens: fc.oneof(
      { weight: 9, arbitrary: fc.integer({ min: -2, max: 40 }) },
      { weight: 1, arbitrary: fc.constant(Number.MAX_SAFE_INTEGER - 5) }
    ),
    group: fc.option(fc.constantFrom("g1", "g2", "g3", "g4", "g5"), { nil: undefined, freq: 3 })
  }),
  { maxLength: 30 }
).map((rows) =>
  rows.map((r) => new ContextItem.ContextItem({ content: r.content, tokens: r.tokens, ...(r.group === undefined ? {} : { group: r.group }) }))
)

describe("Groups.collapse in one pass (design item 132)", () => {
  it("the units, their order, their members and the first failing group of the two-pass collapse", () =>
    fc.assert(
      fc.property(candidates, fc.boolean(), (items, twice) => {
        // Now and then the same items again: the units made before are given (unitOf's memo).
        if (twice) Effect.runSync(Effect.result(Groups.collapse(items)))
        const expected = literalCollapse(items)
        assertSameCollapse(Effect.runSync(Effect.result(Groups.collapse(items))), expected)
      }),
      { seed: 132, numRuns: 1000 }
    ))
})
