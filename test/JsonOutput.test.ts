import { assert, describe, it } from "@effect/vitest"
import { Console, Effect } from "effect"
import { TestConsole } from "effect/testing"
import * as fc from "fast-check"
import * as JsonOutput from "../src/cli/JsonOutput.ts"

/** What `JsonOutput.log` prints, as the console would show it (batches joined by newlines). */
const printed = (value: unknown) =>
  Effect.gen(function*() {
    const console = yield* TestConsole.make
    yield* JsonOutput.log(value).pipe(Effect.provideService(Console.Console, console))
    const lines = yield* console.logLines
    return { text: lines.join("\n"), batches: lines.length }
  })

describe("JsonOutput", () => {
  it.effect("prints exactly JSON.stringify(value, null, 2) for any JSON value, large arrays included", () =>
    Effect.gen(function*() {
      const values = fc.sample(
        fc.oneof(
          fc.jsonValue(),
          fc.record({ window: fc.array(fc.jsonValue({ maxDepth: 2 }), { minLength: 60, maxLength: 200 }), n: fc.integer() }),
          fc.array(fc.record({ a: fc.array(fc.integer(), { maxLength: 150 }), b: fc.option(fc.string(), { nil: undefined }) }), { maxLength: 120 })
        ),
        { numRuns: 300, seed: 42 }
      )
      for (const value of values) {
        assert.strictEqual((yield* printed(value)).text, JSON.stringify(value, null, 2))
      }
    }))

  it.effect("leaves out keys with no JSON form and writes such array elements as null, as JSON.stringify does", () =>
    Effect.gen(function*() {
      const value = { big: Array.from({ length: 100 }, (_, i) => (i % 10 === 0 ? undefined : { i, f: undefined })), gone: undefined }
      assert.strictEqual((yield* printed(value)).text, JSON.stringify(value, null, 2))
    }))

  it.effect("a document longer than any string V8 can hold is printed, in batches", () =>
    Effect.gen(function*() {
      // 700,000 elements of ~800 characters: about 560 million characters pretty-printed, more
      // than V8's longest string (2^29 − 24 characters).
      const element = { content: "x".repeat(760), tokens: 1 }
      const value = { window: Array.from({ length: 700_000 }, () => element) }
      assert.throws(() => JSON.stringify(value, null, 2))
      const console = yield* TestConsole.make
      let batches = 0
      let characters = 0
      yield* JsonOutput.log(value).pipe(
        Effect.provideService(Console.Console, {
          ...console,
          log: (...args: ReadonlyArray<unknown>) => {
            batches++
            characters += String(args[0]).length + 1
          }
        })
      )
      assert.isAbove(batches, 100)
      assert.isAbove(characters, 2 ** 29)
    }), { timeout: 120_000 })
})
