import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { custom } from "../examples/quickstart.ts"

const root = fileURLToPath(new URL("..", import.meta.url))
const readme = readFileSync(`${root}README.md`, "utf8")
const example = readFileSync(`${root}examples/quickstart.ts`, "utf8")

/** The fenced block of the given language that follows `heading`. */
const blockAfter = (heading: string, language: string): string => {
  const start = readme.indexOf(heading)
  assert.isAtLeast(start, 0, `README has no "${heading}"`)
  const open = readme.indexOf("```" + language + "\n", start)
  const close = readme.indexOf("\n```", open + 4)
  return readme.slice(open + 4 + language.length, close + 1)
}

describe("README", () => {
  it("gives exactly the two set-up commands", () => {
    const setUp = readme.slice(readme.indexOf("## Set up"), readme.indexOf("## Quick start"))
    const commands = [...setUp.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim())
    assert.deepStrictEqual(commands, ["npm install && npm start", "npm test"])
  })

  it("quick start is the example file, importing the published package", () => {
    assert.strictEqual(blockAfter("## Quick start", "ts"), example.replace(`"../src/index.ts"`, `"effect-cupel"`))
  })

  it("quick start prints the output the README shows", () => {
    const stdout = execFileSync(process.execPath, [`${root}examples/quickstart.ts`], { encoding: "utf8" })
    assert.strictEqual(stdout, blockAfter("Output:", "text"))
  })
})

describe("README example — custom services", () => {
  it.effect("the custom placer and notifier from the example run the same program", () =>
    Effect.gen(function*() {
      const result = yield* custom
      assert.isDefined(result)
      // OldestLast: newest timestamp first, untimed items (epoch 0) after.
      assert.deepStrictEqual(result!.placed.map((i) => i.content).slice(0, 2), ["User: can I get a refund?", "User: hi!"])
    }))
})
