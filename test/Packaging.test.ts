/**
 * The split between the library (effect-cupel, the root) and the command line (effect-cupel-cli,
 * packages/cli): what each declares. scripts/check-install.mjs (run by CI) checks the same thing
 * on real installs of the packed tarballs; these checks keep `npm test` honest without a registry.
 */
import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const read = (path: string) => readFileSync(`${root}${path}`, "utf8")

interface Manifest {
  readonly name: string
  readonly version: string
  readonly engines?: { readonly node?: string }
  readonly bin?: Readonly<Record<string, string>>
  readonly files?: ReadonlyArray<string>
  readonly dependencies?: Readonly<Record<string, string>>
  readonly devDependencies?: Readonly<Record<string, string>>
  readonly peerDependencies?: Readonly<Record<string, string>>
  readonly peerDependenciesMeta?: Readonly<Record<string, { readonly optional?: boolean }>>
}
const manifest = (path: string): Manifest => JSON.parse(read(path))
const library = manifest("package.json")
const cli = manifest("packages/cli/package.json")
const installed = (name: string) => manifest(`node_modules/${name}/package.json`)

/** The lowest Node a `>=x.y.z` range (the only form used here) accepts, as [major, minor, patch]. */
const floor = (range: string | undefined): [number, number, number] => {
  const match = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range?.trim() ?? "")
  assert.isNotNull(match, `engines range ${JSON.stringify(range)} is not of the form >=x.y.z`)
  return [Number(match?.[1]), Number(match?.[2] ?? 0), Number(match?.[3] ?? 0)]
}
const atLeast = (a: ReadonlyArray<number>, b: ReadonlyArray<number>) => {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0)
  return true
}

/** Every .ts file under src/, as a path relative to the root. */
const sources = (dir: string): Array<string> =>
  readdirSync(`${root}${dir}`, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(`${dir}/${entry.name}`) : entry.name.endsWith(".ts") ? [`${dir}/${entry.name}`] : []
  )

/** The package a bare import specifier names (`@scope/name/sub` → `@scope/name`). */
const packageOf = (specifier: string) => specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/")

describe("packaging: the library", () => {
  it("depends at run time on smol-toml only, with effect a peer and gpt-tokenizer, ai, langchain and @langchain/core optional ones", () => {
    assert.deepStrictEqual(Object.keys(library.dependencies ?? {}), ["smol-toml"])
    assert.deepStrictEqual(Object.keys(library.peerDependencies ?? {}).sort(), [
      "@langchain/core",
      "ai",
      "effect",
      "gpt-tokenizer",
      "langchain"
    ])
    assert.strictEqual(library.peerDependenciesMeta?.["gpt-tokenizer"]?.optional, true)
    assert.strictEqual(library.peerDependenciesMeta?.["ai"]?.optional, true)
    assert.strictEqual(library.peerDependenciesMeta?.["langchain"]?.optional, true)
    assert.strictEqual(library.peerDependenciesMeta?.["@langchain/core"]?.optional, true)
    assert.strictEqual(library.peerDependenciesMeta?.["effect"]?.optional, undefined)
    assert.strictEqual(library.devDependencies?.["@effect/platform-node"], cli.dependencies?.["@effect/platform-node"])
  })

  it("imports no package at run time that it does not declare, outside the repository's launcher", () => {
    const declared = new Set([...Object.keys(library.dependencies ?? {}), ...Object.keys(library.peerDependencies ?? {})])
    const undeclared: Array<string> = []
    for (const file of sources("src")) {
      if (file.startsWith("src/bin/")) continue
      // Without comments: JSDoc examples (` * import … from "@effect/platform-node"`) are not code.
      const text = read(file).replace(/\/\*[\s\S]*?\*\//g, "")
      for (const [, specifier] of text.matchAll(/^(?:import|export)\s[^"';]*?from\s+"([^"./][^"]*)"/gm)) {
        if (specifier !== undefined && !specifier.startsWith("node:") && !declared.has(packageOf(specifier))) {
          undeclared.push(`${file}: ${specifier}`)
        }
      }
      for (const [, specifier] of text.matchAll(/\bimport\("([^"./][^"]*)"\)/g)) {
        if (specifier !== undefined && !declared.has(packageOf(specifier))) undeclared.push(`${file}: ${specifier}`)
      }
    }
    assert.deepStrictEqual(undeclared, [])
  })

  it("only the AI SDK adapter (src/adapters/) names ai, and only its types: a user without ai loads none of it", () => {
    const importers: Array<string> = []
    for (const file of sources("src")) {
      const text = read(file).replace(/\/\*[\s\S]*?\*\//g, "")
      for (const [statement, specifier] of text.matchAll(/^(?:import|export)\s[^"';]*?from\s+"([^"./][^"]*)"/gm)) {
        if (specifier === undefined || packageOf(specifier) !== "ai") continue
        importers.push(`${file}${/^(?:import|export) type\s/.test(statement) ? "" : " (a value import)"}`)
      }
      for (const [, specifier] of text.matchAll(/\bimport\("([^"./][^"]*)"\)/g)) {
        if (specifier !== undefined && packageOf(specifier) === "ai") importers.push(`${file} (a dynamic import)`)
      }
    }
    assert.deepStrictEqual(importers.sort(), ["src/adapters/AiSdk.ts", "src/adapters/AiSdkLanguageModel.ts", "src/adapters/AiSdkPrompt.ts"])
    // And the library's entry point does not reach the adapter.
    assert.notInclude(read("src/index.ts"), "adapters/")
  })

  it("only the LangChain adapter names langchain and @langchain/core: their types, and @langchain/core's modules by a dynamic import at its first call", () => {
    const importers: Array<string> = []
    for (const file of sources("src")) {
      const text = read(file).replace(/\/\*[\s\S]*?\*\//g, "")
      for (const [statement, specifier] of text.matchAll(/^(?:import|export)\s[^"';]*?from\s+"([^"./][^"]*)"/gm)) {
        const name = specifier === undefined ? undefined : packageOf(specifier)
        if (name !== "langchain" && name !== "@langchain/core") continue
        importers.push(`${file}${/^(?:import|export) type\s/.test(statement) ? "" : " (a value import)"}`)
      }
      for (const [, specifier] of text.matchAll(/\bimport\("([^"./][^"]*)"\)/g)) {
        const name = specifier === undefined ? undefined : packageOf(specifier)
        if (name === "langchain" || name === "@langchain/core") importers.push(`${file} (a dynamic import of ${specifier})`)
      }
    }
    assert.deepStrictEqual([...new Set(importers)].sort(), [
      "src/adapters/LangChain.ts",
      "src/adapters/LangChain.ts (a dynamic import of @langchain/core/messages)",
      "src/adapters/LangChain.ts (a dynamic import of @langchain/core/utils/json_schema)",
      "src/adapters/LangChainCacheMarks.ts",
      "src/adapters/LangChainPrompt.ts"
    ])
  })

  it("does not ship the platform-node launcher (src/bin, dist/bin)", () => {
    assert.includeMembers([...(library.files ?? [])], ["dist", "!dist/bin", "src", "!src/bin", "bin", "conformance"])
  })

  it("engines: at least what its run-time dependencies need", () => {
    const own = floor(library.engines?.node)
    for (const name of Object.keys(library.dependencies ?? {})) {
      const needs = installed(name).engines?.node
      if (needs !== undefined) assert.isTrue(atLeast(own, floor(needs)), `${name} needs Node ${needs}`)
    }
  })
})

describe("packaging: the CLI package (packages/cli)", () => {
  it("is published with the library's version, depending on exactly that version", () => {
    assert.strictEqual(cli.name, "effect-cupel-cli")
    assert.strictEqual(cli.version, library.version)
    assert.strictEqual(cli.dependencies?.["effect-cupel"], library.version)
    assert.strictEqual(cli.dependencies?.["effect"], library.peerDependencies?.["effect"])
  })

  it("depends on gpt-tokenizer, the library's optional peer, in the peer's range: --count-tokens loads it", () => {
    assert.strictEqual(cli.dependencies?.["gpt-tokenizer"], library.peerDependencies?.["gpt-tokenizer"])
    // --count-tokens loads it through the library's one importer of it (Counting.textCounter).
    assert.match(read("src/cli/CountTokens.ts"), /Counting\.textCounter\(/)
    assert.match(read("src/internal/gptTokenizer.ts"), /import\("gpt-tokenizer\/encoding\/o200k_base"\)/)
  })

  it("has the bin cupel, as the library's launcher in a clone", () => {
    assert.deepStrictEqual(cli.bin, { cupel: "./bin/cupel.js" })
    assert.strictEqual(library.bin?.["cupel"], "./bin/cupel.js")
  })

  it("its launcher imports only what the package declares", () => {
    const launcher = read("packages/cli/bin/cupel.js")
    const imported = [...launcher.matchAll(/\bimport\("([^"]+)"\)/g)].map((m) => packageOf(m[1] ?? ""))
    // gpt-tokenizer is not the launcher's: the library's `--count-tokens` (src/cli/CountTokens.ts)
    // loads it, an optional peer of the library that the CLI package provides.
    assert.deepStrictEqual(
      [...new Set(imported)].sort(),
      Object.keys(cli.dependencies ?? {}).filter((name) => name !== "gpt-tokenizer").sort()
    )
    assert.notMatch(launcher, /^import\s/m, "static imports would load before the Node version check")
  })

  it("engines: at least what @effect/platform-node and its dependencies need", () => {
    const own = floor(cli.engines?.node)
    for (const name of ["@effect/platform-node", "@effect/platform-node-shared", "undici"]) {
      const needs = installed(name).engines?.node
      if (needs !== undefined) assert.isTrue(atLeast(own, floor(needs)), `${name} needs Node ${needs}`)
    }
  })

  it("carries the project's licence", () => {
    assert.strictEqual(read("packages/cli/LICENSE"), read("LICENSE"))
  })

  it("CI packs both, installs them into empty projects and checks what came in", () => {
    assert.match(read(".ci/run"), /^node scripts\/check-install\.mjs$/m)
  })
})

describe("packaging: README's Install section, for packages not on the registry yet", () => {
  const readme = read("README.md")
  const install = readme.slice(readme.indexOf("## Install"), readme.indexOf("## Set up"))
  /** The command lines of the ```sh block after `<!-- marker -->`, comments left out. */
  const commands = (marker: string) => {
    const at = install.indexOf(`<!-- ${marker} -->`)
    assert.isAtLeast(at, 0, `README's Install section has no <!-- ${marker} -->`)
    const block = /```sh\n([\s\S]*?)```/.exec(install.slice(at))?.[1] ?? ""
    return block.split("\n").map((line) => line.replace(/(^|\s+)#.*$/, "").trim()).filter((line) => line !== "")
  }
  const libraryTarball = `${library.name}-${library.version}.tgz`
  const cliTarball = `${cli.name}-${cli.version}.tgz`

  it("packs both packages in a clone, the tarballs named after the packages' versions", () => {
    assert.deepStrictEqual(commands("install:pack"), ["npm install", "npm run build && npm pack", "npm pack ./packages/cli"])
    assert.include(install, `# the library: ${libraryTarball}`)
    assert.include(install, `# the cupel command: ${cliTarball}`)
  })

  it("installs the tarballs: the library with effect, the command with the library's tarball", () => {
    assert.deepStrictEqual(commands("install:library"), [`npm install /path/to/effect-cupel/${libraryTarball} effect`])
    assert.deepStrictEqual(commands("install:cli"), [
      `npm install /path/to/effect-cupel/${libraryTarball} /path/to/effect-cupel/${cliTarball}`,
      "npx cupel --help"
    ])
  })

  it("gives the registry's commands (a 404 today) only as what they will be once published", () => {
    const published = install.indexOf("Once the packages are")
    assert.isAtLeast(published, 0)
    for (const command of ["npm install effect-cupel effect", "npx effect-cupel-cli --help"]) {
      assert.strictEqual(install.indexOf(command), install.lastIndexOf(command), command)
      assert.isAbove(install.indexOf(command), published, command)
    }
  })

  it("npm run check:install runs exactly those blocks", () => {
    const script = read("scripts/check-install.mjs")
    for (const marker of ["install:pack", "install:library", "install:cli"]) assert.include(script, `"${marker}"`)
    assert.strictEqual(JSON.parse(read("package.json")).scripts["check:install"], "node scripts/check-install.mjs")
  })
})
