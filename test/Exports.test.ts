/**
 * The published entry points (package.json `exports`): every deep path the README, the docs and
 * the examples name resolves to a module, nothing under an `internal/` folder or the CLI's
 * modules is published (but `cli/Main`, which the cupel command's package imports), and the aliases of the modules that moved into their families' folders
 * lead to the same module as their new paths.
 */
import { assert, describe, it } from "@effect/vitest"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const manifest: { readonly exports: Readonly<Record<string, string | null>> } = JSON.parse(
  readFileSync(join(root, "package.json"), "utf8")
)
const exportsMap = manifest.exports

/** The source module an export's dist path is built from (`./dist/ai/Session.js` → `src/ai/Session.ts`). */
const sourceOf = (target: string): string => target.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts")

const texts = (): Array<{ readonly file: string; readonly text: string }> => {
  const files = ["README.md", ...readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)]
  for (const f of readdirSync(join(root, "examples"))) if (/\.(ts|mjs|js)$/.test(f)) files.push(`examples/${f}`)
  return files.map((file) => ({ file, text: readFileSync(join(root, file), "utf8") }))
}

describe("package.json exports", () => {
  it("every deep path the README, the docs and the examples name is published", () => {
    // The `module` names of the AiErrors the library raises look like paths and are not.
    const errorModules = new Set(
      [...readFileSync(join(root, "src/ai/TokenCounter.ts"), "utf8").matchAll(/errorModule = "effect-cupel\/(\w+)"/g)]
        .concat([...readFileSync(join(root, "src/ai/WindowedLanguageModel.ts"), "utf8").matchAll(/errorModule = "effect-cupel\/(\w+)"/g)])
        .map((m) => m[1]!)
    )
    assert.deepStrictEqual([...errorModules].sort(), ["TokenCounter", "WindowedLanguageModel"])
    const missing: Array<string> = []
    for (const { file, text } of texts()) {
      for (const match of text.matchAll(/effect-cupel\/((?:ai|adapters|plain|placers|scorers|slicers|stages)\/[A-Z][A-Za-z]+|[A-Z][A-Za-z]+)\b/g)) {
        const path = `./${match[1]!}`
        if (errorModules.has(match[1]!)) continue
        if (!(path in exportsMap)) missing.push(`${file}: effect-cupel/${match[1]!}`)
      }
    }
    assert.deepStrictEqual([...new Set(missing)], [])
  })

  it("every export leads to a module of src/, none under internal/ or cli/ but the command's entry", () => {
    const bad: Array<string> = []
    for (const [path, target] of Object.entries(exportsMap)) {
      if (target === null || path === "./package.json") continue
      const source = sourceOf(target)
      if (!existsSync(join(root, source))) bad.push(`${path} -> ${source} (no such module)`)
      // `cli/Main` is the one module of cli/ published: the cupel command's package (packages/cli)
      // imports it from the library it depends on.
      const commandEntry = source === "src/cli/Main.ts"
      if (source.split("/").includes("internal") || (source.startsWith("src/cli/") && !commandEntry)) {
        bad.push(`${path} -> ${source} (not public)`)
      }
      if (path.includes("*")) bad.push(`${path} (a pattern publishes whatever the folder holds)`)
    }
    assert.deepStrictEqual(bad, [])
  })

  it("the cupel command's package imports only what the library publishes", () => {
    const launcher = readFileSync(join(root, "packages/cli/bin/cupel.js"), "utf8")
    const imported = [...launcher.matchAll(/import\(\s*"effect-cupel\/([^"]+)"\s*\)/g)].map((m) => `./${m[1]!}`)
    assert.isAbove(imported.length, 0)
    assert.deepStrictEqual(imported.filter((path) => !(path in exportsMap)), [])
  })

  it("the old deep paths of the modules that moved lead to the same module as their new ones", () => {
    const aliases = Object.entries(exportsMap).filter(([path, target]) =>
      target !== null && /^\.\/[A-Z]/.test(path) && !target.startsWith(`./dist/${path.slice(2)}.`)
    )
    assert.isAbove(aliases.length, 0)
    for (const [path, target] of aliases) {
      assert.match(target!, /^\.\/dist\/(scorers|slicers|placers|stages)\/[A-Z]\w+\.js$/, path)
      assert.strictEqual(target, `./dist/${target!.split("/")[2]}/${path.slice(2)}.js`, path)
    }
  })

  it("the published modules include the ones docs/ai.md's table lists", () => {
    const text = readFileSync(join(root, "docs/ai.md"), "utf8")
    const table = text.slice(text.indexOf("| module (import by path) |"), text.indexOf("`gpt-tokenizer` is an optional peer"))
    // A row names its first module in full and may add others of the same folder by name.
    const listed: Array<string> = []
    for (const row of table.split("\n").filter((line) => line.startsWith("| `effect-cupel/"))) {
      const cell = row.split("|")[1]!
      const first = /effect-cupel\/([a-z]+)\/([A-Z]\w+)/.exec(cell)
      if (first === null) continue
      listed.push(`./${first[1]!}/${first[2]!}`)
      for (const more of cell.matchAll(/`(?:[a-z]+\/)?([A-Z]\w+)`/g)) listed.push(`./${first[1]!}/${more[1]!}`)
    }
    assert.isAbove(listed.length, 15)
    assert.deepStrictEqual(listed.filter((path) => !(path in exportsMap)), [])
  })
})
