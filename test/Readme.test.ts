import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { delimiter, join, sep } from "node:path"
import { fileURLToPath } from "node:url"
import { custom } from "../examples/place.ts"
import { layers } from "../examples/quickstart.ts"
import { ContextBudget, ContextItem, Pipeline, Slicer } from "../src/index.ts"
import { openAIHistory } from "./support/openAIHistory.ts"

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

/**
 * A Node that does not strip types, of the README's minimum major version (package.json's
 * `engines`: 20), from PATH outside any node_modules (npm puts node@22 first) or where systems put
 * one; undefined when the machine has none.
 */
const minimumNode = (): { readonly path: string; readonly version: string } | undefined => {
  const floor = /^>=\s*(\d+)/.exec(JSON.parse(readFileSync(`${root}package.json`, "utf8")).engines.node)?.[1]
  const candidates = [
    ...(process.env.PATH ?? "").split(delimiter).filter((dir) => dir !== "" && !dir.split(sep).includes("node_modules")),
    "/usr/local/bin",
    "/usr/bin"
  ].map((dir) => join(dir, "node"))
  for (const path of new Set(candidates.filter((file) => existsSync(file)).map((file) => realpathSync(file)))) {
    const probe = spawnSync(path, ["-p", "process.versions.node + ' ' + Boolean(process.features.typescript)"], { encoding: "utf8" })
    const [version = "", strips] = probe.stdout.trim().split(" ")
    if (probe.status === 0 && version.split(".")[0] === floor && strips === "false") return { path, version }
  }
  return undefined
}

describe("README: running the examples", () => {
  const programs = ["quickstart.ts", "place.ts", "agent.ts"]

  it("the examples and the documented programs run unconditionally: import.meta.main is undefined on Node 20", () => {
    const texts = [
      ...readdirSync(`${root}examples`).map((file) => `examples/${file}`),
      "README.md",
      ...readdirSync(`${root}docs`).filter((file) => file.endsWith(".md")).map((file) => `docs/${file}`)
    ]
    for (const path of texts) assert.notInclude(readFileSync(`${root}${path}`, "utf8"), "import.meta.main", path)
    for (const file of programs) assert.match(readFileSync(`${root}examples/${file}`, "utf8"), /\nEffect\.runPromise\(main\)\n$/, file)
  })

  it("the quick start and the placing example, compiled by tsc, print the README's output on Node 20 (the minimum)", () => {
    const node = minimumNode()
    // Without a Node 20 on this machine, the compiled programs run on this Node (CI has Node 20).
    const binary = node?.path ?? process.execPath
    // Inside the repository (.scratch/ is ignored by git), so that the compiled files find effect.
    mkdirSync(`${root}.scratch`, { recursive: true })
    const out = mkdtempSync(join(root, ".scratch", "node20-"))
    try {
      writeFileSync(
        join(out, "tsconfig.json"),
        JSON.stringify({
          extends: "../../tsconfig.json",
          compilerOptions: { noEmit: false, rootDir: "../..", outDir: "." },
          include: [],
          files: ["../../examples/quickstart.ts", "../../examples/place.ts"]
        })
      )
      const tsc = spawnSync(join(root, "node_modules", ".bin", "tsc"), ["-p", join(out, "tsconfig.json")], { encoding: "utf8" })
      assert.strictEqual(tsc.status, 0, tsc.stdout + tsc.stderr)
      const runOn = (file: string) => execFileSync(binary, [join(out, "examples", file)], { encoding: "utf8" })
      assert.strictEqual(runOn("quickstart.js"), blockAfter("Output:", "text"), `on ${binary}`)
      assert.strictEqual(runOn("place.js"), blockAfter("It prints:", "text"), `on ${binary}`)
    } finally {
      rmSync(out, { recursive: true, force: true })
    }
  })

  it("says how to run the examples in the clone, and the quick start on Node 22 and on Node 20", () => {
    const quickStart = readme.slice(readme.indexOf("## Quick start"), readme.indexOf("```ts", readme.indexOf("## Quick start")))
    assert.include(quickStart, "`npm run example -- quickstart`")
    assert.include(quickStart, "`node quickstart.ts` on Node 22.18 or later")
    assert.include(quickStart, "`npx tsc quickstart.ts --module nodenext --target es2022 && node quickstart.js`")
    assert.strictEqual(JSON.parse(readFileSync(`${root}package.json`, "utf8")).scripts.example, "node scripts/example.mjs")
  })

  it("npm run example -- NAME runs the example on the Node npm provides; other names list the programs", () => {
    const example = (name: string) => spawnSync("npm", ["run", "--silent", "example", "--", name], { encoding: "utf8", cwd: root })
    const quickstart = example("quickstart")
    assert.strictEqual(quickstart.status, 0, quickstart.stderr)
    assert.strictEqual(quickstart.stdout, blockAfter("Output:", "text"))
    assert.strictEqual(example("examples/place.ts").stdout, blockAfter("It prints:", "text"))
    for (const name of ["nosuch", "customPlacers"]) {
      const refused = example(name)
      assert.strictEqual(refused.status, 2, name)
      assert.strictEqual(refused.stdout, "")
      assert.match(refused.stderr, /Usage: npm run example -- NAME, with NAME one of agent, compaction, place, quickstart\.\n$/)
    }
  })
})

describe("README: the agents section", () => {
  it("opens with the plain-array trim, a js block that runs as it is on 1,000 OpenAI-format messages", () => {
    const agents = readme.slice(readme.indexOf("## Agents"))
    assert.isTrue(agents.indexOf("```js\n") < agents.indexOf("```ts\n"), "the plain example comes first")
    const block = blockAfter("## Agents", "js")
    assert.isAtMost(block.trim().split("\n").length, 5)
    assert.include(block, `from "effect-cupel/plain/Trim"`)
    // docs/ai.md's section shows the same call.
    const call = block.split("\n").find((line) => line.includes("await trim("))
    assert.isDefined(call)
    assert.include(readFileSync(`${root}docs/ai.md`, "utf8"), `import { trim } from "effect-cupel/plain/Trim"\n\n${call}`)
    mkdirSync(`${root}.scratch`, { recursive: true })
    const out = mkdtempSync(join(root, ".scratch", "agents-"))
    try {
      // The block as it is, given its `messages` and the clone's module for the package's path.
      const program = `const messages = ${JSON.stringify(openAIHistory(1000))}\n` +
        block.replace(`"effect-cupel/plain/Trim"`, JSON.stringify(`${root}src/plain/Trim.ts`))
      writeFileSync(join(out, "agents.mjs"), program)
      const printed = execFileSync(process.execPath, [join(out, "agents.mjs")], { encoding: "utf8" })
      assert.match(printed, /^\d+ of 1000 messages sent, \d+ tokens\n$/)
    } finally {
      rmSync(out, { recursive: true, force: true })
    }
  })
})
