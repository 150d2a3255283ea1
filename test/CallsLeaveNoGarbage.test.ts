/**
 * A door's calls leave no garbage in V8's old generation (docs/design.md item 144): their own
 * objects die young. Measured in a Node process of its own (`test/support/callsGarbage.ts`,
 * started with `--expose-gc`): each door replays a long tool-heavy session, and what the replay
 * left in the old generation that a full collection then frees is divided by its calls.
 *
 * Before item 144 a generator closure made at every call (`(args) => Effect.gen(function*() {
 * … })`) kept the call's values past two scavenges, and a call's objects were promoted whole:
 * the replays below left 59–64 KB a call in the old generation through `trim` and
 * `trimModelMessages`, 48–59 KB through a per-call `prepareStep`; since, 12–14 KB and 9–21 KB
 * (three runs each, 260 calls of up to 665 messages).
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

/** The most garbage a call may leave in the old generation, in bytes: half what it was. */
const bound = 30_000

describe("a door's calls leave no garbage in the old generation (design item 144)", () => {
  it("trim, trimModelMessages and a per-call prepareStep: each call's objects die young", async () => {
    const script = fileURLToPath(new URL("./support/callsGarbage.ts", import.meta.url))
    const { stdout } = await promisify(execFile)(process.execPath, ["--expose-gc", script], { maxBuffer: 1 << 20 })
    const shown: Record<string, { readonly calls: number; readonly bytesPerCall: number }> = JSON.parse(stdout)
    assert.deepStrictEqual(Object.keys(shown), ["trim", "trimModelMessages", "prepareStep per-call"])
    for (const [door, { bytesPerCall, calls }] of Object.entries(shown)) {
      assert.isAbove(calls, 200, door)
      assert.isAtMost(bytesPerCall, bound, `${door}: ${bytesPerCall} bytes a call left in the old generation`)
    }
  }, 240_000)
})
