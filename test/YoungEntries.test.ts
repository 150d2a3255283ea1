/**
 * The entries a pipeline run makes for its items are made in V8's young generation
 * (docs/design.md item 142), in a Node process of its own (`test/support/youngEntries.ts`, with
 * `--allow-natives-syntax`) where V8 makes an object literal's objects in the old generation:
 * the included entries and the excluded ones (the sorted entries the slicer left out) are young,
 * and the control literal is not — so the check tells the two apart.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

describe("the pipeline's entries stay young (design item 142)", () => {
  it("where V8 makes a literal's objects old, the included and excluded entries of a run are young", async () => {
    const script = fileURLToPath(new URL("./support/youngEntries.ts", import.meta.url))
    // The young generation held at one size (16 MB a semi-space, V8's largest by default on
    // 64-bit), so that every scavenge is one at its largest, where V8 decides; one GC thread and
    // no memory reducer, so that a loaded machine (a CI run of the whole suite) changes as little
    // as it can (the script says what else it does for that).
    const flags = [
      "--allow-natives-syntax",
      "--min-semi-space-size=16",
      "--max-semi-space-size=16",
      "--single-threaded-gc",
      "--no-memory-reducer"
    ]
    const { stdout } = await promisify(execFile)(process.execPath, [...flags, script], { maxBuffer: 1 << 20 })
    const shown: unknown = JSON.parse(stdout)
    assert.deepStrictEqual(shown, { control: false, included: true, excluded: true, kept: 3_000_200 })
  }, 60_000)
})

describe("young entries are the literals' plain objects (design item 142)", () => {
  it("each has Object.prototype, the literal's keys in the literal's order and its values", async () => {
    const Young = await import("../src/internal/youngEntries.ts")
    const { ContextItem, ExclusionReason, InclusionReason } = await import("../src/index.ts")
    const item = new ContextItem.ContextItem({ content: "a", tokens: 3 })
    const reason = ExclusionReason.budgetExceeded(3, 1)
    const made: ReadonlyArray<readonly [object, object]> = [
      [Young.scoredItem(item, 0.25), { item, score: 0.25 }],
      [Young.scoredItem(item, 1), { item, score: 1 }],
      [Young.sortedEntry(item, -2), { item, score: -2, reason: undefined }],
      [Young.includedItem(item, 1, InclusionReason.pinned), { item, score: 1, reason: InclusionReason.pinned }],
      [Young.excludedItem(item, 0.5, reason), { item, score: 0.5, reason }]
    ]
    for (const [young, literal] of made) {
      assert.strictEqual(Object.getPrototypeOf(young), Object.prototype)
      assert.deepStrictEqual(Object.keys(young), Object.keys(literal))
      assert.deepStrictEqual(young, literal)
      assert.strictEqual(JSON.stringify(young), JSON.stringify(literal))
    }
  })
})
