/**
 * `Groups.collapse` taking the units of the candidates a call shares with the call before
 * (docs/design.md item 128), checked against a literal transcription of the one-pass collapse it
 * replaces (item 132): the same units in the same order (the same objects: both ask `unitOf`),
 * the same members of each unit in the same order, and the same `TokenTotalError` — on
 * generated sequences of calls where each call keeps a leading run of the last call's item
 * objects and adds new ones or earlier ones again, groups adjacent, interleaved, of one member,
 * reaching across the end of the kept run or not, now and then a call on other candidates
 * with the same first item, and calls of another conversation on some of the same items.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { ContextItem } from "../src/index.ts"
import * as Groups from "../src/internal/groups.ts"
import { TokenTotalError } from "../src/TokenTotalError.ts"
import { assertSameCollapse } from "./support/sameCollapse.ts"

/** `collapse` as it was before item 128 (item 132's one pass), on every candidate at every call. */
const literalCollapse = (items: ReadonlyArray<ContextItem.ContextItem>) => {
  const byGroup = new Map<string, { readonly list: Array<ContextItem.ContextItem>; readonly at: number }>()
  const units: Array<ContextItem.ContextItem> = []
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!
    const group = item.group
    if (group === undefined) {
      units.push(item)
      continue
    }
    const entry = byGroup.get(group)
    if (entry === undefined) {
      byGroup.set(group, { list: [item], at: units.length })
      units.push(item)
    } else entry.list.push(item)
  }
  const members = new Map<ContextItem.ContextItem, ReadonlyArray<ContextItem.ContextItem>>()
  for (const [group, { at, list }] of byGroup) {
    if (list.length < 2) continue
    const unit = Groups.unitOf(group, list)
    if (unit instanceof TokenTotalError) return unit
    units[at] = unit
    members.set(unit, list)
  }
  return { units, members }
}

const row = fc.record({
  content: fc.constantFrom("a", "b", "c"),
  tokens: fc.oneof(
    { weight: 19, arbitrary: fc.integer({ min: -2, max: 40 }) },
    { weight: 1, arbitrary: fc.constant(Number.MAX_SAFE_INTEGER - 5) }
  ),
  group: fc.option(fc.constantFrom("g1", "g2", "g3", "g4", "g5", "g6"), { nil: undefined, freq: 3 })
})
const make = (r: { readonly content: string; readonly tokens: number; readonly group: string | undefined }) =>
  new ContextItem.ContextItem({ content: r.content, tokens: r.tokens, ...(r.group === undefined ? {} : { group: r.group }) })

/** A call after the last: the last call's items cut at `keep`, then new items or earlier ones again. */
const step = fc.record({
  keep: fc.nat({ max: 40 }),
  added: fc.array(fc.oneof(row.map((r) => ({ fresh: r })), fc.nat({ max: 40 }).map((again) => ({ again }))), { maxLength: 8 }),
  // Now and then a call on other candidates that start with the same item.
  other: fc.option(fc.array(row, { maxLength: 6 }), { nil: undefined, freq: 8 }),
  // Now and then a call of another conversation on some of the same items: it may make other
  // units for the same first members (`unitOf`'s memo then holds those).
  elsewhere: fc.option(fc.array(fc.nat({ max: 40 }), { maxLength: 12 }), { nil: undefined, freq: 4 })
})

const check = (items: ReadonlyArray<ContextItem.ContextItem>) => {
  // The collapse first: the transcription then finds its units in `unitOf`'s memo (and makes
  // none, which would make the next call start from nothing).
  const actual = Effect.runSync(Effect.result(Groups.collapse(items)))
  assertSameCollapse(actual, literalCollapse(items))
}

describe("Groups.collapse from the last call (design item 128)", () => {
  it("the units, their order, their members and the first failing group of a collapse of every candidate", () =>
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 30 }), fc.array(step, { maxLength: 8 }), (start, steps) => {
        const seen = start.map(make)
        let items: Array<ContextItem.ContextItem> = seen.slice()
        check(items)
        for (const { added, elsewhere, keep, other } of steps) {
          if (other !== undefined) check([items[0]!, ...other.map(make)])
          if (elsewhere !== undefined) check([make({ content: "x", tokens: 1, group: undefined }), ...elsewhere.map((k) => seen[k % seen.length]!)])
          const next = items.slice(0, Math.max(1, keep))
          for (const a of added) {
            if ("fresh" in a) {
              const item = make(a.fresh)
              seen.push(item)
              next.push(item)
            } else next.push(seen[a.again % seen.length]!)
          }
          items = next
          check(items)
        }
      }),
      { seed: 128, numRuns: 1500 }
    ))

  it("a call that shares its leading items with the last call gives the last call's units for them", () =>
    Effect.gen(function*() {
      const items = [
        make({ content: "a", tokens: 1, group: "t1" }),
        make({ content: "b", tokens: 2, group: "t1" }),
        make({ content: "c", tokens: 3, group: undefined }),
        make({ content: "d", tokens: 4, group: "t2" })
      ]
      const first = yield* Groups.collapse(items)
      const more = [...items, make({ content: "e", tokens: 5, group: "t2" })]
      const second = yield* Groups.collapse(more)
      assert.strictEqual(second.units[0], first.units[0])
      assert.deepStrictEqual(second.members.get(second.units[0]!), items.slice(0, 2))
      // t2 reached across the end of the shared run: made again, of both members.
      assert.deepStrictEqual(second.members.get(second.units[2]!), [items[3]!, more[4]!])
      assert.strictEqual(second.units.length, 3)
      // The units list is the call's own: the next call does not change it.
      yield* Groups.collapse(items)
      assert.strictEqual(second.units.length, 3)
    }))
})
