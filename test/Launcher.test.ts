/**
 * How the command and the npm scripts start: what `cupel` loads, and what a clone says when it
 * cannot run TypeScript — `npm install --ignore-scripts` (a common policy) skips the download of the
 * Node 22 that npm's scripts and `npx cupel` run on, and the system's Node 20 is used instead.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawnSync, type SpawnSyncOptions } from "node:child_process"
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const node22 = join(root, "node_modules", ".bin", "node")
const read = (path: string) => readFileSync(join(root, path), "utf8")

/** The environment without npm's variables: the tests themselves may run under npm or npx. */
const cleanEnv = (): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("npm_")))

const run = (command: string, args: ReadonlyArray<string>, options: SpawnSyncOptions = {}) => {
  const result = spawnSync(command, args, { encoding: "utf8", env: cleanEnv(), ...options })
  return { status: result.status, stdout: String(result.stdout), stderr: String(result.stderr) }
}

/** stderr without npm's own lines (its banners go to stdout; `npm error …`, `npm notice …`). */
const ownLines = (stderr: string) =>
  stderr.split("\n").filter((line) => line !== "" && !/^npm (error|warn|notice|info|verbose|http)\b/.test(line))

const withTemp = <A>(f: (dir: string) => A): A => {
  const dir = mkdtempSync(join(tmpdir(), "cupel-launcher-"))
  try {
    return f(dir)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * A copy of the clone's launchers in `dir`, as `npm install` (or `--ignore-scripts`, or nothing)
 * leaves it, and a directory holding a `node` that does not strip types (Node 22 with type
 * stripping off, standing for the system's Node 20) to put first on PATH.
 */
const fakeClone = (dir: string, install: "none" | "ignore-scripts" | "full") => {
  const clone = join(dir, "clone")
  for (const path of ["bin/cupel.js", "scripts/check-node.mjs", "scripts/example.mjs", "package.json"]) {
    mkdirSync(join(clone, path, ".."), { recursive: true })
    copyFileSync(join(root, path), join(clone, path))
  }
  mkdirSync(join(clone, "src", "bin"), { recursive: true })
  writeFileSync(join(clone, "src", "bin", "cupel.ts"), `const ran: string = "the TypeScript source ran"\nconsole.log(ran)\n`)
  mkdirSync(join(clone, "examples"))
  copyFileSync(join(root, "examples", "quickstart.ts"), join(clone, "examples", "quickstart.ts"))
  if (install !== "none") {
    // The dev dependency node@22 as --ignore-scripts leaves it: its manifest, no bin/ (the install
    // script downloads the binary into bin/).
    mkdirSync(join(clone, "node_modules", "node"), { recursive: true })
    copyFileSync(join(root, "node_modules", "node", "package.json"), join(clone, "node_modules", "node", "package.json"))
    if (install === "full") mkdirSync(join(clone, "node_modules", "node", "bin"))
  }
  const oldNode = join(dir, "old-node")
  mkdirSync(oldNode)
  writeFileSync(join(oldNode, "node"), `#!/bin/sh\nexec "${node22}" --no-experimental-strip-types "$@"\n`)
  chmodSync(join(oldNode, "node"), 0o755)
  const env = { ...cleanEnv(), PATH: `${oldNode}${delimiter}${process.env.PATH ?? ""}` }
  return { clone, env, node: join(oldNode, "node") }
}

describe("cupel starts light", () => {
  it("the CLI's entries import @effect/platform-node's sub-modules, never the package root", () => {
    for (const path of ["src/bin/cupel.ts", "packages/cli/bin/cupel.js"]) {
      const text = read(path)
      assert.notMatch(text, /from\s+"@effect\/platform-node"|import\("@effect\/platform-node"\)/, path)
      assert.match(text, /"@effect\/platform-node\/NodeRuntime"/, path)
      assert.match(text, /"@effect\/platform-node\/NodeServices"/, path)
    }
  })

  it("cupel --version loads neither redis, ws nor undici", () =>
    withTemp((dir) => {
      // Records every module Node resolves, and writes them out when the process exits.
      const hook = join(dir, "record.mjs")
      const loaded = join(dir, "loaded.json")
      writeFileSync(
        hook,
        `import { registerHooks } from "node:module"
import { writeFileSync } from "node:fs"
const urls = []
registerHooks({ resolve: (specifier, context, next) => { const r = next(specifier, context); urls.push(r.url); return r } })
process.on("exit", () => writeFileSync(${JSON.stringify(loaded)}, JSON.stringify(urls)))
`
      )
      const version = run(node22, ["--import", hook, join(root, "bin", "cupel.js"), "--version"], { cwd: root })
      assert.strictEqual(version.status, 0, version.stderr)
      assert.match(version.stdout, /^cupel v\d/)
      const urls: ReadonlyArray<string> = JSON.parse(readFileSync(loaded, "utf8"))
      // The hook saw the command start (else the check below would pass for nothing).
      assert.isTrue(urls.some((url) => url.includes("/@effect/platform-node/dist/NodeServices.js")))
      assert.deepStrictEqual(urls.filter((url) => /\/node_modules\/(redis|@redis|ws|undici)\//.test(url)), [])
    }))
})

describe("a clone whose Node cannot run TypeScript says what to do, in one line", () => {
  const rebuild = "npm rebuild node --ignore-scripts=false"

  it("after npm install --ignore-scripts, npm start says to run npm rebuild node, exit 1, no stack trace", () =>
    withTemp((dir) => {
      const { clone, env } = fakeClone(dir, "ignore-scripts")
      const start = run("npm", ["start"], { cwd: clone, env })
      assert.strictEqual(start.status, 1)
      const lines = ownLines(start.stderr)
      assert.strictEqual(lines.length, 1, start.stderr)
      assert.match(lines[0]!, /^cupel: Node [\d.]+ cannot run the TypeScript source/)
      assert.include(lines[0]!, rebuild)
      assert.include(lines[0]!, "--ignore-scripts")
    }))

  it("after npm install --ignore-scripts, npx cupel says the same and does not send you back to npx", () =>
    withTemp((dir) => {
      const { clone, env } = fakeClone(dir, "ignore-scripts")
      // What npx runs: the bin, with npm's variables set.
      const npx = run("node", [join(clone, "bin", "cupel.js"), "--help"], { cwd: clone, env: { ...env, npm_command: "exec" } })
      assert.strictEqual(npx.status, 1)
      assert.strictEqual(npx.stdout, "")
      const lines = ownLines(npx.stderr)
      assert.strictEqual(lines.length, 1, npx.stderr)
      assert.include(lines[0]!, rebuild)
      assert.notInclude(lines[0]!, "npx cupel")
    }))

  it("after npm install --ignore-scripts, npm test, npm run bench and npm run example say to run npm rebuild node", () =>
    withTemp((dir) => {
      const { clone, env } = fakeClone(dir, "ignore-scripts")
      for (const [args, who] of [
        [["test"], "npm test"],
        [["run", "bench"], "npm run bench"],
        [["run", "example", "--", "quickstart"], "npm run example"]
      ] as const) {
        const result = run("npm", args, { cwd: clone, env })
        assert.strictEqual(result.status, 1, who)
        const lines = ownLines(result.stderr)
        assert.strictEqual(lines.length, 1, `${who}: ${result.stderr}`)
        assert.match(lines[0]!, new RegExp(`^${who}: Node [\\d.]+ cannot run TypeScript`))
        assert.include(lines[0]!, rebuild)
      }
    }))

  it("without npm install, the launcher says to run it first", () =>
    withTemp((dir) => {
      const { clone, env, node } = fakeClone(dir, "none")
      const direct = run(node, [join(clone, "bin", "cupel.js"), "demo"], { cwd: clone, env })
      assert.strictEqual(direct.status, 1)
      assert.match(direct.stderr, /^cupel: Node [\d.]+ cannot run the TypeScript source .*: run npm install first\.\n$/)
    }))

  it("with Node 22 installed but an older Node running the launcher: node_modules/.bin/node, and npx only outside npm", () =>
    withTemp((dir) => {
      const { clone, env, node } = fakeClone(dir, "full")
      const direct = run(node, [join(clone, "bin", "cupel.js")], { cwd: clone, env })
      assert.strictEqual(direct.status, 1)
      assert.match(direct.stderr, /^cupel: .*\(npx cupel, npm start or node_modules\/\.bin\/node bin\/cupel\.js\).*\n$/)
      const underNpm = run(node, [join(clone, "bin", "cupel.js")], { cwd: clone, env: { ...env, npm_command: "exec" } })
      assert.strictEqual(underNpm.status, 1)
      assert.match(underNpm.stderr, /^cupel: .*\(node_modules\/\.bin\/node bin\/cupel\.js\).*\n$/)
    }))

  it("with a Node that strips types, the launcher and npm start run the TypeScript source", () =>
    withTemp((dir) => {
      const { clone } = fakeClone(dir, "full")
      const direct = run(node22, [join(clone, "bin", "cupel.js")], { cwd: clone })
      assert.strictEqual(direct.status, 0, direct.stderr)
      assert.strictEqual(direct.stdout, "the TypeScript source ran\n")
      const pkg = JSON.parse(read("package.json"))
      assert.strictEqual(pkg.scripts.start, "node bin/cupel.js demo")
      assert.strictEqual(pkg.scripts.conformance, "node bin/cupel.js conformance")
    }))
})
