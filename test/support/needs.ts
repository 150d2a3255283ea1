/**
 * `describe` for a block that needs a program of the machine's (a real redis-server, a real
 * chromium). Without it: under CI, a test that fails with the reason — CI installs what the
 * tests need, so a missing one is CI's failure, not a skip; elsewhere the block is skipped and a
 * warning says so, loudly.
 */
import { assert, describe, it } from "@effect/vitest"

/** Whether the program is here, and if not, what to do about it. */
export type Availability = { readonly available: true } | { readonly available: false; readonly message: string }

/** Runs `body` as `describe(name)` when `found` says the program is here. */
export const describeWhenAvailable = (name: string, needs: string, found: Availability, body: () => void): void => {
  if (found.available) {
    describe(name, body)
    return
  }
  if (process.env["CI"] !== undefined && process.env["CI"] !== "") {
    describe(name, () => {
      it(`needs ${needs}`, () => {
        assert.fail(found.message)
      })
    })
    return
  }
  console.warn(`\n!!!!!!!!!!\n!!! SKIPPED "${name}": ${found.message}\n!!!!!!!!!!\n`)
  describe.skip(name, body)
}
