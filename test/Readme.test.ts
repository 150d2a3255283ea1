import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { custom } from "../examples/place.ts"
import { layers } from "../examples/quickstart.ts"
import { ContextBudget, ContextItem, Pipeline, Slicer } from "../src/index.ts"

const root = fileURLToPath(new URL("..", import.meta.url))
const readme = readFileSync(`${root}README.md`, "utf8")
const published = (file: string) => readFileSync(`${root}examples/${file}`, "utf8").replace(`"../src/index.ts"`, `"effect-cupel"`)

/** The fenced block of the given language that follows `heading`. */
const blockAfter = (heading: string, language: string): string => {
  const start = readme.indexOf(heading)
  assert.isAtLeast(start, 0, `README has no "${heading}"`)
  const open = readme.indexOf("```" + language + "\n", start)
  const close = readme.indexOf("\n```", open + 4)
  return readme.slice(open + 4 + language.length, close + 1)
}
const run = (file: string) => execFileSync(process.execPath, [`${root}examples/${file}`], { encoding: "utf8" })

describe("README", () => {
  it("gives exactly the two set-up commands", () => {
    const setUp = readme.slice(readme.indexOf("## Set up"), readme.indexOf("## Quick start"))
    const commands = [...setUp.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim())
    assert.deepStrictEqual(commands, ["npm install && npm start", "npm test"])
  })

  it("quick start is the example file, importing the published package", () => {
    assert.strictEqual(blockAfter("## Quick start", "ts"), published("quickstart.ts"))
  })

  it("quick start prints the output the README shows", () => {
    assert.strictEqual(run("quickstart.ts"), blockAfter("Output:", "text"))
  })

  it("the placing example is the example file, and prints the output the README shows", () => {
    assert.strictEqual(blockAfter("## Placing on its own", "ts"), published("place.ts"))
    assert.strictEqual(run("place.ts"), blockAfter("It prints:", "text"))
  })
})

describe("README examples — swapping services", () => {
  it.effect("the quick start's layers run with a custom slicer swapped in", () =>
    Effect.gen(function*() {
      const items = [
        new ContextItem.ContextItem({ content: "a", tokens: 5 }),
        new ContextItem.ContextItem({ content: "b", tokens: 5 })
      ]
      const firstOnly = Slicer.make("first-only", (sorted) => sorted.slice(0, 1).map((s) => s.item))
      const { window } = yield* Pipeline.run(items, new ContextBudget.ContextBudget({ maxTokens: 100, targetTokens: 100 })).pipe(
        Effect.provide(Layer.mergeAll(layers, Slicer.layer(firstOnly)))
      )
      assert.deepStrictEqual(window.map((i) => i.content), ["a"])
    }))

  it.effect("the custom placer and notifier from the placing example run the same program", () =>
    Effect.gen(function*() {
      const result = yield* custom
      assert.isDefined(result)
      // OldestLast: newest timestamp first, untimed items (epoch 0) after.
      assert.deepStrictEqual(result!.placed.map((i) => i.content).slice(0, 2), ["User: can I get a refund?", "User: hi!"])
    }))
})
