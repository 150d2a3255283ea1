import { assert, describe, it } from "@effect/vitest"
import { Console, Effect } from "effect"
import { TestConsole } from "effect/testing"
import * as JsonOutput from "../src/cli/JsonOutput.ts"

/** What `JsonOutput.log` prints: the text as the console shows it, and the number of batches. */
const printed = (value: unknown) =>
  Effect.gen(function*() {
    const console = yield* TestConsole.make
    yield* JsonOutput.log(value).pipe(Effect.provideService(Console.Console, console))
    const lines = yield* console.logLines
    return { text: lines.join("\n"), batches: lines.length }
  })

describe("JsonOutput", () => {
  it.effect("a small array holding a large one is split too, not written with one JSON.stringify", () =>
    Effect.gen(function*() {
      // About 3.5 million characters pretty-printed: one segment would be one batch; split, the
      // batches of about a million characters are several.
      const large = Array.from({ length: 50_000 }, (_, i) => ({ content: "x".repeat(20), tokens: i }))
      for (const value of [[large], [1, { window: large }], { results: [[large]] }, [[], [large], "end"]]) {
        const out = yield* printed(value)
        assert.strictEqual(out.text, JSON.stringify(value, null, 2))
        assert.isAtLeast(out.batches, 3)
      }
    }))

  it.effect("small arrays of small values are still written whole", () =>
    Effect.gen(function*() {
      const value = [[1, 2], { a: [3, [4, 5]] }, [], {}]
      const out = yield* printed(value)
      assert.strictEqual(out.text, JSON.stringify(value, null, 2))
      assert.strictEqual(out.batches, 1)
    }))
})
