/**
 * The comparison the collapse tests make (`test/GroupsCollapse.test.ts`,
 * `test/GroupsLastCall.test.ts`): `Groups.collapse`'s result against a literal transcription's —
 * the same failure, or the same unit objects in the same order with the same members.
 */
import { assert } from "@effect/vitest"
import type { Result } from "effect"
import type { ContextItem } from "../../src/index.ts"
import { TokenTotalError } from "../../src/TokenTotalError.ts"

/** A collapse's units and the members of each (how many units, and each unit's). */
export interface Units {
  readonly units: ReadonlyArray<ContextItem.ContextItem>
  readonly members: {
    readonly size: number
    readonly get: (unit: ContextItem.ContextItem) => ReadonlyArray<ContextItem.ContextItem> | undefined
  }
}

/** What a transcription of the collapse gives: its units and a map of the members, or the first failing group. */
export type Expected = {
  readonly units: ReadonlyArray<ContextItem.ContextItem>
  readonly members: ReadonlyMap<ContextItem.ContextItem, ReadonlyArray<ContextItem.ContextItem>>
} | TokenTotalError

/** Asserts that the collapse's `actual` result is the transcription's `expected`. */
export const assertSameCollapse = (
  actual: Result.Result<Units, TokenTotalError>,
  expected: Expected
): void => {
  if (expected instanceof TokenTotalError) {
    assert.strictEqual(actual._tag, "Failure")
    if (actual._tag === "Failure") assert.deepStrictEqual(actual.failure, expected)
    return
  }
  assert.strictEqual(actual._tag, "Success")
  if (actual._tag !== "Success") return
  assert.strictEqual(actual.success.units.length, expected.units.length)
  actual.success.units.forEach((unit, k) => assert.strictEqual(unit, expected.units[k]))
  // Every unit's members, and none for an item that is no unit (the map's keys, in the units' order).
  assert.strictEqual(actual.success.members.size, expected.members.size)
  for (const unit of actual.success.units) assert.deepStrictEqual(actual.success.members.get(unit), expected.members.get(unit))
}
