#!/usr/bin/env node
// Checks what a user's install of effect-cupel brings in, the way a user gets it today: by the
// commands of README.md's Install section, read from the README itself (the blocks marked
// <!-- install:pack -->, <!-- install:library --> and <!-- install:cli -->) and run as they are,
// with /path/to/effect-cupel standing for where the tarballs are. In the clone, they build and pack
// the library and the CLI package (packages/cli, effect-cupel-cli); in empty projects, they install
// the tarballs. Then it lists what came in, and fails (exit 1) when the library pulls in anything
// but effect (its peer), smol-toml and their own dependencies — @effect/platform-node, redis,
// undici, ws and gpt-tokenizer in particular. Then it runs the installed packages: every module of
// the library is imported, a small pipeline, README.md's quick start and a plain .mjs trimming
// 1,000 OpenAI-format messages (effect-cupel/plain/Trim) run on the Node running
// this script (CI's system Node: the library's `engines` floor is checked there; the quick start
// compiled by tsc as the README says) and on Node 22 (as it is); in another project, the library's
// tarball with ai and gpt-tokenizer (from the registry, ai at the clone's locked version): a plain
// .mjs wrapping ai/test's mock model with the middleware (effect-cupel/adapters/AiSdk) runs a
// 50-step tool loop within a window, and another 30 streamed turns calibrated by the usage of
// each stream's finish part, on the same Nodes; in a third project, the library's tarball with
// langchain, @langchain/core and gpt-tokenizer (the clone's locked versions): a plain .mjs runs
// a 50-step createAgent tool loop with the LangChain middleware (effect-cupel/adapters/LangChain)
// within a window, on the same Nodes; and the `cupel` command of
// effect-cupel-cli (--help, --version, demo | run, run --count-tokens on the sample without its
// token counts, conformance on the vendored vectors) on a
// Node 22.19 or later (this one, or the node@22 of the root's devDependencies).
//
// Usage: node scripts/check-install.mjs (after npm ci; needs the npm registry for effect and
// smol-toml). KEEP_CHECK_INSTALL=1 keeps the temporary projects and prints where they are.
//
// Plain JavaScript so that any Node the library supports runs it.
import { spawnSync } from "node:child_process"
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, dirname, join, relative, sep } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const cliRoot = join(root, "packages", "cli")
const started = Date.now()
const work = mkdtempSync(join(tmpdir(), "cupel-check-install-"))
const keep = process.env.KEEP_CHECK_INSTALL === "1"
const problems = []

// What the library may depend on at run time, directly; everything else installed must be a
// dependency (or required peer) of these, at any depth.
const allowedDirect = new Set(["effect", "smol-toml"])
// Named by the issue that split the CLI off: never in a library install.
const forbidden = ["@effect/platform-node", "@effect/platform-node-shared", "redis", "@redis/client", "undici", "ws", "gpt-tokenizer"]

const fail = (message) => {
  problems.push(message)
  console.log(`FAIL: ${message}`)
}
const ok = (message) => console.log(`ok: ${message}`)
const section = (title) => console.log(`\n== ${title}`)

const run = (command, args, options) => {
  const result = spawnSync(command, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, ...options })
  if (result.error) throw result.error
  return result
}
const npm = (args, cwd, env = process.env) => {
  const result = run("npm", args, { cwd, env })
  if (result.status !== 0) {
    process.stdout.write(result.stdout)
    process.stderr.write(result.stderr)
    throw new Error(`npm ${args.join(" ")} (in ${cwd}) exited with ${result.status}`)
  }
  return result
}
const readJson = (file) => JSON.parse(readFileSync(file, "utf8"))
/** A command line of the README, run by the shell as a user would type it; fails on a non-zero exit. */
const shell = (command, cwd, env = process.env) => {
  const result = run(command, [], { cwd, env, shell: true })
  if (result.status !== 0) {
    process.stdout.write(result.stdout)
    process.stderr.write(result.stderr)
    throw new Error(`${command} (in ${cwd}) exited with ${result.status}`)
  }
  return result
}

const readme = readFileSync(join(root, "README.md"), "utf8")
/** The command lines of the ```sh block after `<!-- marker -->` in README.md, comments left out. */
const readmeCommands = (marker) => {
  const at = readme.indexOf(`<!-- ${marker} -->`)
  const block = at < 0 ? null : /```sh\n([\s\S]*?)```/.exec(readme.slice(at))
  if (block === null) throw new Error(`README.md has no \`\`\`sh block after <!-- ${marker} -->`)
  return block[1].split("\n").map((line) => line.replace(/(^|\s+)#.*$/, "").trim()).filter((line) => line !== "")
}
/** The fenced block of the given language that follows `heading` in README.md. */
const readmeBlockAfter = (heading, language) => {
  const start = readme.indexOf(heading)
  const open = readme.indexOf("```" + language + "\n", start)
  if (start < 0 || open < 0) throw new Error(`README.md has no \`\`\`${language} block after ${heading}`)
  return readme.slice(open + 4 + language.length, readme.indexOf("\n```", open + 4) + 1)
}
// Where the README's install commands say the clone is.
const clonePlaceholder = "/path/to/effect-cupel"

const sizeOf = (dir) => {
  let total = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules") continue
    const path = join(dir, entry.name)
    if (entry.isDirectory()) total += sizeOf(path)
    else if (entry.isFile()) total += statSync(path).size
  }
  return total
}
const human = (bytes) =>
  bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${(bytes / 1024).toFixed(0)} kB`

/** Every package folder under a node_modules, nested ones included. */
const packagesIn = (nodeModules) => {
  if (!existsSync(nodeModules)) return []
  const found = []
  for (const entry of readdirSync(nodeModules).sort()) {
    if (entry.startsWith(".")) continue
    const names = entry.startsWith("@") ? readdirSync(join(nodeModules, entry)).sort().map((n) => `${entry}/${n}`) : [entry]
    for (const name of names) {
      const dir = join(nodeModules, name)
      const manifest = readJson(join(dir, "package.json"))
      found.push({ name: manifest.name, version: manifest.version, dir, size: sizeOf(dir), manifest })
      found.push(...packagesIn(join(dir, "node_modules")))
    }
  }
  return found
}

/** A manifest's run-time requirements: dependencies and the peers it does not mark optional. */
const requirements = (manifest) => {
  const optionalPeers = manifest.peerDependenciesMeta ?? {}
  return [
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}).filter((name) => optionalPeers[name]?.optional !== true)
  ]
}

const list = (project, installed) => {
  let total = 0
  for (const p of installed) {
    total += p.size
    console.log(`  ${`${p.name}@${p.version}`.padEnd(44)} ${human(p.size).padStart(9)}  ${relative(project, p.dir)}`)
  }
  console.log(`  ${installed.length} packages, ${human(total)}`)
}

const newProject = (name) => {
  const dir = join(work, name)
  mkdirSync(dir)
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, private: true, type: "module" }, null, 2) + "\n")
  return dir
}

const nodeAtLeast = (version, major, minor) => {
  const [a = 0, b = 0] = version.replace(/^v/, "").split(".").map(Number)
  return a > major || (a === major && b >= minor)
}

/** This Node, and the system's (the first `node` on PATH outside a node_modules: Node 20 in CI) when npm put another first. */
const thisAndSystemNode = () => {
  const systemNode = (process.env.PATH ?? "").split(delimiter)
    .filter((dir) => dir !== "" && !dir.split(sep).includes("node_modules"))
    .map((dir) => join(dir, process.platform === "win32" ? "node.exe" : "node"))
    .find((file) => existsSync(file))
  return [...new Set([process.execPath, ...(systemNode === undefined ? [] : [realpathSync(systemNode)])])]
}

try {
  const library = readJson(join(root, "package.json"))
  const cli = readJson(join(cliRoot, "package.json"))

  section("versions")
  if (cli.version !== library.version) fail(`effect-cupel-cli is ${cli.version}, effect-cupel ${library.version}: publish them together`)
  else ok(`effect-cupel and effect-cupel-cli are both ${library.version}`)
  if (cli.dependencies?.["effect-cupel"] !== library.version) {
    fail(`effect-cupel-cli depends on effect-cupel ${cli.dependencies?.["effect-cupel"]}, not ${library.version}`)
  }
  for (const name of requirements(library)) {
    if (!allowedDirect.has(name)) fail(`effect-cupel requires ${name} at run time (allowed: ${[...allowedDirect].join(", ")})`)
  }

  // @effect/platform-node needs Node 22.19: use this Node if it is one, else the root's node@22.
  const node = nodeAtLeast(process.versions.node, 22, 19) ? process.execPath : join(root, "node_modules", "node", "bin", "node")
  if (!existsSync(node)) throw new Error(`no Node 22.19 or later to run the CLI with (run npm ci at the root first)`)
  const env = { ...process.env, PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ""}`, NO_COLOR: "1" }

  section("pack, in the clone, by README.md's commands")
  // A clean build: a stale dist/ could otherwise ship modules whose sources are gone.
  rmSync(join(root, "dist"), { recursive: true, force: true })
  const tarballNames = [`${library.name}-${library.version}.tgz`, `${cli.name}-${cli.version}.tgz`]
  for (const name of tarballNames) rmSync(join(root, name), { force: true })
  for (const command of readmeCommands("install:pack")) {
    if (command === "npm install") {
      // The clone's own install: CI's npm ci has just done it, and running it again here would
      // touch the checkout's node_modules.
      if (!existsSync(join(root, "node_modules"))) throw new Error("run npm ci (or npm install) at the root first")
      console.log(`  $ ${command}  (already done: node_modules is there)`)
      continue
    }
    console.log(`  $ ${command}`)
    shell(command, root)
  }
  // The tarballs go where the projects below find them, and leave the checkout as it was.
  const tarballs = join(work, "tarballs")
  mkdirSync(tarballs)
  for (const name of tarballNames) {
    if (!existsSync(join(root, name))) throw new Error(`README.md's commands did not write ${name}`)
    copyFileSync(join(root, name), join(tarballs, name))
    rmSync(join(root, name))
  }
  // The files and sizes of what was just packed (the same dist/, no new build).
  const pack = (dir) => JSON.parse(npm(["pack", "--dry-run", "--json", "--ignore-scripts"], dir).stdout)[0]
  const libraryPack = pack(root)
  const cliPack = pack(cliRoot)
  for (const p of [libraryPack, cliPack]) {
    console.log(`  ${p.filename}: ${p.entryCount} files, ${human(p.size)} packed, ${human(p.unpackedSize)} unpacked`)
  }
  const shipped = new Set(libraryPack.files.map((f) => f.path))
  for (const path of ["dist/index.js", "dist/index.d.ts", "dist/cli/Main.js", "bin/cupel.js", "conformance/cupel/LICENSE", "README.md", "LICENSE"]) {
    if (!shipped.has(path)) fail(`the library's tarball lacks ${path}`)
  }
  const launcherFiles = [...shipped].filter((path) => path.startsWith("dist/bin/") || path.startsWith("src/bin/"))
  if (launcherFiles.length > 0) fail(`the library's tarball ships the platform-node launcher: ${launcherFiles.join(", ")}`)
  if (![...shipped].some((path) => path.startsWith("conformance/place/"))) fail("the library's tarball lacks conformance/place/")
  console.log(`  effect-cupel-cli ships: ${cliPack.files.map((f) => f.path).sort().join(", ")}`)

  /** Runs a README block's commands in `project`, the clone's path replaced by the tarballs' folder. */
  const installByReadme = (marker, project) => {
    const commands = readmeCommands(marker)
    if (!commands.some((command) => command.includes(`${clonePlaceholder}/${tarballNames[0]}`))) {
      fail(`README.md's ${marker} commands do not install ${clonePlaceholder}/${tarballNames[0]}: ${commands.join("; ")}`)
    }
    const results = new Map()
    for (const command of commands) {
      console.log(`  $ ${command}`)
      // npx runs the command on Node 22.19 or later; npm installs on this Node (engines are checked).
      results.set(command, shell(command.replaceAll(clonePlaceholder, tarballs), project, command.startsWith("npx ") ? env : process.env))
    }
    return results
  }

  section("a library install: README.md's commands (effect comes as its peer)")
  const libraryProject = newProject("library-user")
  const libraryInstall = [...installByReadme("install:library", libraryProject).values()]
  const engineWarnings = libraryInstall.flatMap((result) => result.stderr.split("\n")).filter((line) => line.includes("EBADENGINE"))
  if (engineWarnings.length > 0) fail(`npm warned about engines on Node ${process.versions.node}:\n${engineWarnings.join("\n")}`)
  else ok(`no engine warning on Node ${process.versions.node}`)
  const installed = packagesIn(join(libraryProject, "node_modules"))
  list(libraryProject, installed)
  const byName = new Map(installed.map((p) => [p.name, p]))
  const expected = new Set(["effect-cupel"])
  const queue = [...allowedDirect]
  while (queue.length > 0) {
    const name = queue.shift()
    if (expected.has(name)) continue
    expected.add(name)
    const found = byName.get(name)
    if (found === undefined) fail(`${name} was not installed`)
    else queue.push(...requirements(found.manifest))
  }
  const extra = installed.filter((p) => !expected.has(p.name))
  if (extra.length > 0) fail(`a library install brought in ${extra.map((p) => `${p.name}@${p.version}`).join(", ")}`)
  else ok(`only ${[...expected].join(", ")}`)
  for (const name of forbidden) if (byName.has(name)) fail(`a library install brought in ${name}`)

  // Every module of the library loads with what came in; then a pipeline runs.
  const probe = join(libraryProject, "probe.mjs")
  writeFileSync(
    probe,
    `import { readdirSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
const dist = fileURLToPath(new URL("node_modules/effect-cupel/dist/", import.meta.url))
const modules = readdirSync(dist, { recursive: true }).filter((f) => f.endsWith(".js")).sort()
const failed = []
for (const file of modules) {
  try { await import(pathToFileURL(join(dist, file)).href) } catch (e) { failed.push(file + ": " + e.message) }
}
const { Effect, Layer } = await import("effect")
const { ContextBudget, ContextItem, GreedySlice, OverflowNotifier, Pipeline, PriorityScorer, Scorer, UShapedPlacer } =
  await import("effect-cupel")
const item = (content, priority) => new ContextItem.ContextItem({ content, tokens: 5, priority })
const result = await Effect.runPromise(
  Effect.gen(function*() {
    const budget = yield* ContextBudget.make({ maxTokens: 100, targetTokens: 10 })
    return yield* Pipeline.run([item("a", 3), item("b", 1), item("c", 2)], budget)
  }).pipe(Effect.provide(Layer.mergeAll(Scorer.layer(PriorityScorer.make()), GreedySlice.layer, UShapedPlacer.layer, OverflowNotifier.layerNoop)))
)
console.log(JSON.stringify({ modules: modules.length, failed, window: result.window.map((i) => i.content) }))
`
  )
  const probed = run(process.execPath, [probe], { cwd: libraryProject })
  if (probed.status !== 0) fail(`the library did not run on Node ${process.versions.node}:\n${probed.stderr}`)
  else {
    const { failed, modules, window } = JSON.parse(probed.stdout)
    if (failed.length > 0) fail(`modules of the library that do not load from a library install:\n  ${failed.join("\n  ")}`)
    else ok(`all ${modules} modules of dist/ load on Node ${process.versions.node}`)
    if (JSON.stringify(window) !== JSON.stringify(["a", "c"])) fail(`a pipeline run gave the window ${JSON.stringify(window)}`)
    else ok(`a pipeline runs: window ${JSON.stringify(window)}`)
  }
  // The library's own `cupel` bin is a pointer to effect-cupel-cli, not a command that crashes.
  const pointer = run(process.execPath, [join(libraryProject, "node_modules", ".bin", "cupel"), "--help"], { cwd: libraryProject })
  if (pointer.status !== 1 || !pointer.stderr.includes("npx effect-cupel-cli")) {
    fail(`cupel from a library install should point to effect-cupel-cli (exit ${pointer.status}):\n${pointer.stdout}${pointer.stderr}`)
  } else ok(`cupel from a library install says: ${pointer.stderr.split("\n")[0]}`)

  section("README.md's quick start, in the library install")
  const quickstart = readmeBlockAfter("## Quick start", "ts")
  const output = readmeBlockAfter("Output:", "text")
  writeFileSync(join(libraryProject, "quickstart.ts"), quickstart)
  const asIs = run(node, ["quickstart.ts"], { cwd: libraryProject })
  if (asIs.status !== 0 || asIs.stdout !== output) {
    fail(`node quickstart.ts on Node ${run(node, ["--version"]).stdout.trim()} (exit ${asIs.status}) printed:\n${asIs.stdout}${asIs.stderr}`)
  } else ok(`node quickstart.ts prints the README's output on Node ${run(node, ["--version"]).stdout.trim()}`)
  // Node 20 does not strip types: the README says to compile it first, with these arguments.
  const compile = /`npx tsc ([^`]*?) && node quickstart\.js`/.exec(readme)
  if (compile === null) fail("README.md does not say how to compile the quick start (`npx tsc … && node quickstart.js`)")
  else {
    const tsc = run(join(root, "node_modules", ".bin", "tsc"), compile[1].split(" "), { cwd: libraryProject })
    if (tsc.status !== 0) fail(`tsc ${compile[1]} (the README's quick start against the installed types):\n${tsc.stdout}${tsc.stderr}`)
    // On this Node, and on the system's (the first `node` on PATH outside a node_modules: Node 20
    // in CI) when npm put another first.
    const systemNode = (process.env.PATH ?? "").split(delimiter)
      .filter((dir) => dir !== "" && !dir.split(sep).includes("node_modules"))
      .map((dir) => join(dir, process.platform === "win32" ? "node.exe" : "node"))
      .find((file) => existsSync(file))
    const nodes = [...new Set([process.execPath, ...(systemNode === undefined ? [] : [realpathSync(systemNode)])])]
    for (const binary of nodes) {
      const version = run(binary, ["--version"]).stdout.trim()
      const compiled = run(binary, ["quickstart.js"], { cwd: libraryProject })
      if (compiled.status !== 0 || compiled.stdout !== output) {
        fail(`node quickstart.js (compiled) on Node ${version} (exit ${compiled.status}) printed:\n${compiled.stdout}${compiled.stderr}`)
      } else ok(`tsc ${compile[1]}, then node quickstart.js prints the README's output on Node ${version}`)
    }
  }

  section("the plain-array trim (README.md's agents section), in the library install, as plain .mjs")
  // No gpt-tokenizer in a library install: the default counter must reject with TokenizerLoadError,
  // and a count function must trim 1,000 OpenAI-format messages into the window.
  writeFileSync(
    join(libraryProject, "trim.mjs"),
    `import { trim } from "effect-cupel/plain/Trim"
const messages = [{ role: "system", content: "You are a careful agent." }]
for (let t = 0; messages.length < 1000; t++) {
  messages.push({ role: "user", content: "question " + t + ": what is in folder " + t + "?" })
  messages.push({ role: "assistant", content: null, tool_calls: [{ id: "call-" + t, type: "function", function: { name: "ls", arguments: JSON.stringify({ dir: "/d" + t }) } }] })
  messages.push({ role: "tool", tool_call_id: "call-" + t, content: ("file-" + t + ".txt\\n").repeat(1 + (t % 5)) })
  messages.push({ role: "assistant", content: "Folder " + t + " holds " + (1 + (t % 5)) + " files." })
}
messages.length = 1000
const problems = []
const count = (m) => Math.ceil(JSON.stringify(m).length / 4)
const { messages: fitted, report } = await trim(messages, { contextWindow: 4000, outputReserve: 500, count })
const total = fitted.reduce((sum, m) => sum + count(m), 0)
if (total > 3500 || total !== report.tokens) problems.push("the window counts " + total + " tokens (report: " + report.tokens + ")")
if (fitted[0] !== messages[0]) problems.push("the system message is not first")
if (!fitted.every((m) => messages.includes(m))) problems.push("a message is not one of the caller's objects")
const calls = new Set(fitted.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id)))
if (fitted.some((m) => m.role === "tool" && !calls.has(m.tool_call_id))) problems.push("a tool message without its call")
if (!fitted.includes(messages.findLast((m) => m.role === "user"))) problems.push("the newest user message was dropped")
const rejected = await trim(messages, { contextWindow: 4000 }).then(() => undefined, (e) => e)
if (rejected?._tag !== "TokenizerLoadError") problems.push("without gpt-tokenizer, the default counter gave " + (rejected?._tag ?? "no error"))
const invalid = await trim([{ role: "tool", content: "x" }], { contextWindow: 100, count }).then(() => undefined, (e) => e)
if (invalid?._tag !== "InvalidInput" || invalid.index !== 0 || invalid.field !== "tool_call_id") problems.push("a malformed message gave " + invalid)
if (problems.length > 0) {
  console.error(problems.join("\\n"))
  process.exit(1)
}
console.log(fitted.length + " of " + messages.length + " messages sent, " + report.tokens + " tokens")
`
  )
  {
    for (const binary of thisAndSystemNode()) {
      const version = run(binary, ["--version"]).stdout.trim()
      const trimmed = run(binary, ["trim.mjs"], { cwd: libraryProject })
      if (trimmed.status !== 0) fail(`node trim.mjs on Node ${version} (exit ${trimmed.status}):\n${trimmed.stdout}${trimmed.stderr}`)
      else ok(`node trim.mjs on Node ${version}: ${trimmed.stdout.trim()}; without gpt-tokenizer the default rejects with TokenizerLoadError`)
    }
  }

  section("the AI SDK middleware (effect-cupel/adapters/AiSdk) with ai and gpt-tokenizer, as plain .mjs: a 50-step tool loop")
  // The library's tarball beside ai (the version of the clone's lock file) and gpt-tokenizer (the
  // default counter), from the registry; effect comes as the library's peer, zod as ai's. A mock
  // model (ai/test) calls a tool 50 times, each result long, then answers: every request it
  // received must fit the window (counted again as the adapter counts), keep the system message
  // first, the user message, and every tool call with its result; the requests must stop growing.
  // Its own try: a failed install here is reported, and the CLI is still checked.
  try {
    const lock = readJson(join(root, "package-lock.json")).packages
    const aiSdkProject = newProject("ai-sdk-user")
    const peers = ["ai", "gpt-tokenizer"].map((name) => `${name}@${lock[`node_modules/${name}`].version}`)
    console.log(`  $ npm install ${clonePlaceholder}/${tarballNames[0]} ${peers.join(" ")}`)
    npm(["install", "--no-audit", "--no-fund", join(tarballs, tarballNames[0]), ...peers], aiSdkProject)
    const aiSdkInstalled = packagesIn(join(aiSdkProject, "node_modules"))
    const versions = new Map(aiSdkInstalled.map((p) => [p.name, p.version]))
    console.log(`  ${["effect-cupel", "effect", "ai", "gpt-tokenizer", "zod"].map((name) => `${name}@${versions.get(name)}`).join(", ")}; ${aiSdkInstalled.length} packages`)
    if (aiSdkInstalled.filter((p) => p.name === "effect").length !== 1) fail("the AI SDK install holds more than one copy of effect")
    writeFileSync(join(aiSdkProject, "loop.mjs"), `import { generateText, isStepCount, jsonSchema, tool, wrapLanguageModel } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import { Effect } from "effect"
import * as AiSdk from "effect-cupel/adapters/AiSdk"
import * as AiSdkPrompt from "effect-cupel/adapters/AiSdkPrompt"
import * as GptTokenizer from "effect-cupel/ai/GptTokenizer"
const steps = 50
const contextWindow = 8000
const outputReserve = 1000
const usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined }
}
// The model calls the tool at each of 50 steps, then answers; every tool result is long.
let step = 0
const provider = new MockLanguageModelV4({
  doGenerate: async () => {
    step++
    return {
      content: step <= steps
        ? [{ type: "tool-call", toolCallId: "call-" + step, toolName: "search", input: JSON.stringify({ query: "topic " + step }) }]
        : [{ type: "text", text: "All fifty topics searched." }],
      finishReason: { unified: step <= steps ? "tool-calls" : "stop", raw: undefined },
      usage,
      warnings: []
    }
  }
})
const search = tool({
  description: "Search the documentation",
  inputSchema: jsonSchema({ type: "object", properties: { query: { type: "string" } }, required: ["query"] }),
  execute: async ({ query }) => "Results for " + query + ": " + "the widget supports export, import and sync; ".repeat(40)
})
const reports = []
const model = wrapLanguageModel({
  model: provider,
  middleware: AiSdk.middleware({ contextWindow, outputReserve, onReport: (report) => reports.push(report) })
})
const result = await generateText({
  model,
  instructions: "You are a support agent. Search the docs before answering.",
  prompt: "Search all fifty topics.",
  tools: { search },
  stopWhen: isStepCount(steps + 5)
})
const problems = []
const requests = provider.doGenerateCalls.map((call) => call.prompt)
if (requests.length !== steps + 1 || result.steps.length !== steps + 1) problems.push("the model was called " + requests.length + " times, " + result.steps.length + " steps")
if (result.text !== "All fifty topics searched.") problems.push("the answer is " + JSON.stringify(result.text))
if (reports.length !== requests.length) problems.push(reports.length + " reports for " + requests.length + " calls")
const counted = (prompt) => Effect.runPromise(GptTokenizer.count(AiSdkPrompt.convert(prompt).prompt).pipe(Effect.provide(GptTokenizer.layer)))
let largest = 0
for (const [k, prompt] of requests.entries()) {
  // Counted again as the adapter counts (o200k_base, the chat format), beside the tool definition.
  const tokens = (await counted(prompt)) + (reports[k]?.toolTokens ?? Infinity)
  largest = Math.max(largest, tokens)
  if (tokens > contextWindow - outputReserve) problems.push("request " + k + " counts " + tokens + " tokens")
  if (prompt[0]?.role !== "system" || prompt.slice(1).some((m) => m.role === "system")) problems.push("request " + k + ": the system message is not first and alone")
  if (!prompt.some((m) => m.role === "user")) problems.push("request " + k + ": the user message was dropped")
  const calls = prompt.flatMap((m) => m.role === "assistant" ? m.content.filter((p) => p.type === "tool-call").map((p) => p.toolCallId) : []).sort()
  const results = prompt.flatMap((m) => m.role === "tool" ? m.content.filter((p) => p.type === "tool-result").map((p) => p.toolCallId) : []).sort()
  if (JSON.stringify(calls) !== JSON.stringify(results)) problems.push("request " + k + ": an orphaned tool part (calls " + calls + ", results " + results + ")")
}
// The history grows by two messages a step; what is sent does not.
const sent = requests.map((prompt) => prompt.length)
const full = 2 + 2 * steps
if (Math.max(...sent.slice(steps / 2)) >= full / 2) problems.push("the prompts sent did not stabilise: " + sent.join(", "))
if (problems.length > 0) {
  console.error(problems.join("\\n"))
  process.exit(1)
}
const actions = reports.map((r) => r.change?.action)
console.log(steps + " tool steps and an answer; requests of " + Math.min(...sent) + " to " + Math.max(...sent) + " messages (the history: " + full + "), at most " + largest + " of " + (contextWindow - outputReserve) + " tokens; " + actions.filter((a) => a === "compact").length + " compactions")
`)
    // Streamed calls: a conversation of 30 turns through streamText, whose provider bills 1.3×
    // what the adapter counts and says so in each stream's finish part; that usage must
    // calibrate the next call (rule C7), so that no request after the first is over the window
    // as billed, and reach the reports.
    writeFileSync(join(aiSdkProject, "stream.mjs"), `import { simulateReadableStream, streamText, wrapLanguageModel } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import { Effect } from "effect"
import * as AiSdk from "effect-cupel/adapters/AiSdk"
import * as AiSdkPrompt from "effect-cupel/adapters/AiSdkPrompt"
import * as GptTokenizer from "effect-cupel/ai/GptTokenizer"
const contextWindow = 4000
const outputReserve = 500
const counted = (prompt) => Effect.runPromise(GptTokenizer.count(AiSdkPrompt.convert(prompt).prompt).pipe(Effect.provide(GptTokenizer.layer)))
const billed = []
const provider = new MockLanguageModelV4({
  doStream: async ({ prompt }) => {
    const bill = Math.ceil(1.3 * (await counted(prompt)))
    billed.push(bill)
    const usage = {
      inputTokens: { total: bill, noCache: bill, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 1, text: 1, reasoning: undefined }
    }
    return {
      stream: simulateReadableStream({
        chunks: [
          { type: "stream-start", warnings: [] },
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: "noted" },
          { type: "text-end", id: "t" },
          { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage }
        ]
      })
    }
  }
})
const reports = []
const model = wrapLanguageModel({
  model: provider,
  middleware: AiSdk.middleware({ contextWindow, outputReserve, onReport: (report) => reports.push(report) })
})
const messages = []
const problems = []
for (let turn = 0; turn < 30; turn++) {
  messages.push({ role: "user", content: "Note " + turn + ": " + "the widget supports export, import and sync; ".repeat(25) })
  const result = streamText({ model, instructions: "You are a note taker.", messages })
  const text = await result.text
  if (text !== "noted") problems.push("turn " + turn + " answered " + JSON.stringify(text))
  messages.push({ role: "assistant", content: text })
}
if (billed.length !== 30 || reports.length !== 30) problems.push(billed.length + " calls, " + reports.length + " reports")
for (const [k, tokens] of billed.entries()) {
  if (k > 0 && tokens > contextWindow - outputReserve) problems.push("request " + k + " billed " + tokens + " tokens")
  if (reports[k]?.reported?.inputTokens !== tokens) problems.push("report " + k + " says " + JSON.stringify(reports[k]?.reported) + ", billed " + tokens)
  if (reports[k]?.outcome !== "answered") problems.push("report " + k + ": " + reports[k]?.outcome)
}
if (!(reports.at(-1)?.result.report.excluded.length > 0)) problems.push("the conversation never outgrew the window")
if (problems.length > 0) {
  console.error(problems.join("\\n"))
  process.exit(1)
}
console.log("30 streamed turns; at most " + Math.max(...billed.slice(1)) + " of " + (contextWindow - outputReserve) + " tokens billed after the first; calibration " + reports.at(-1).calibration.toFixed(2))
`)
    for (const binary of thisAndSystemNode()) {
      const version = run(binary, ["--version"]).stdout.trim()
      const looped = run(binary, ["loop.mjs"], { cwd: aiSdkProject })
      if (looped.status !== 0) fail(`node loop.mjs on Node ${version} (exit ${looped.status}):\n${looped.stdout}${looped.stderr}`)
      else ok(`node loop.mjs on Node ${version}: ${looped.stdout.trim()}`)
      const streamed = run(binary, ["stream.mjs"], { cwd: aiSdkProject })
      if (streamed.status !== 0) fail(`node stream.mjs on Node ${version} (exit ${streamed.status}):\n${streamed.stdout}${streamed.stderr}`)
      else ok(`node stream.mjs on Node ${version}: ${streamed.stdout.trim()}`)
    }
  } catch (error) {
    fail(`the AI SDK install: ${error instanceof Error ? error.message : String(error)}`)
  }

  section("the LangChain middleware (effect-cupel/adapters/LangChain) with langchain, @langchain/core and gpt-tokenizer, as plain .mjs: a 50-step createAgent tool loop")
  // The library's tarball beside langchain and @langchain/core (the clone's locked versions) and
  // gpt-tokenizer (the default counter), from the registry; effect comes as the library's peer.
  // A chat model of @langchain/core's BaseChatModel calls a tool 50 times in createAgent's loop,
  // each result long, then answers: every request it received must fit the window (counted
  // again as the adapter counts), keep the system message first and alone, the human message,
  // and every tool call with its result; the requests must stop growing.
  try {
    const lock = readJson(join(root, "package-lock.json")).packages
    const langChainProject = newProject("langchain-user")
    const peers = ["langchain", "@langchain/core", "gpt-tokenizer"].map((name) => `${name}@${lock[`node_modules/${name}`].version}`)
    console.log(`  $ npm install ${clonePlaceholder}/${tarballNames[0]} ${peers.join(" ")}`)
    npm(["install", "--no-audit", "--no-fund", join(tarballs, tarballNames[0]), ...peers], langChainProject)
    const langChainInstalled = packagesIn(join(langChainProject, "node_modules"))
    const versions = new Map(langChainInstalled.map((p) => [p.name, p.version]))
    console.log(`  ${["effect-cupel", "effect", "langchain", "@langchain/core", "gpt-tokenizer"].map((name) => `${name}@${versions.get(name)}`).join(", ")}; ${langChainInstalled.length} packages`)
    if (langChainInstalled.filter((p) => p.name === "effect").length !== 1) fail("the LangChain install holds more than one copy of effect")
    writeFileSync(join(langChainProject, "agent.mjs"), `import { BaseChatModel } from "@langchain/core/language_models/chat_models"
import { AIMessage, HumanMessage } from "@langchain/core/messages"
import { createAgent, tool } from "langchain"
import { Effect } from "effect"
import * as LangChain from "effect-cupel/adapters/LangChain"
import * as LangChainPrompt from "effect-cupel/adapters/LangChainPrompt"
import * as GptTokenizer from "effect-cupel/ai/GptTokenizer"
const steps = 50
const contextWindow = 8000
const outputReserve = 1000
// A chat model that calls the tool at each of 50 steps, then answers, and keeps what it was sent.
const requests = []
class ScriptedModel extends BaseChatModel {
  _llmType() { return "scripted" }
  bindTools() { return this }
  async _generate(messages) {
    requests.push(messages)
    const step = requests.length
    const message = step <= steps
      ? new AIMessage({ content: "", tool_calls: [{ id: "call-" + step, name: "search", args: { query: "topic " + step }, type: "tool_call" }] })
      : new AIMessage("All fifty topics searched.")
    return { generations: [{ text: message.text, message }] }
  }
}
const search = tool(
  async ({ query }) => "Results for " + query + ": " + "the widget supports export, import and sync; ".repeat(40),
  {
    name: "search",
    description: "Search the documentation",
    schema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] }
  }
)
const reports = []
const agent = createAgent({
  model: new ScriptedModel({}),
  tools: [search],
  systemPrompt: "You are a support agent. Search the docs before answering.",
  middleware: [LangChain.middleware({ contextWindow, outputReserve, onReport: (report) => reports.push(report) })]
})
const result = await agent.invoke(
  { messages: [new HumanMessage("Search all fifty topics.")] },
  { configurable: { thread_id: "check-install" }, recursionLimit: 1000 }
)
const problems = []
if (requests.length !== steps + 1) problems.push("the model was called " + requests.length + " times")
if (result.messages.at(-1)?.text !== "All fifty topics searched.") problems.push("the answer is " + JSON.stringify(result.messages.at(-1)?.text))
if (reports.length !== requests.length) problems.push(reports.length + " reports for " + requests.length + " calls")
const counted = (messages) => Effect.runPromise(GptTokenizer.count(LangChainPrompt.convert(messages).prompt).pipe(Effect.provide(GptTokenizer.layer)))
let largest = 0
for (const [k, messages] of requests.entries()) {
  // Counted again as the adapter counts (o200k_base, the chat format), beside the tool definition.
  const tokens = (await counted(messages)) + (reports[k]?.toolTokens ?? Infinity)
  largest = Math.max(largest, tokens)
  if (tokens > contextWindow - outputReserve) problems.push("request " + k + " counts " + tokens + " tokens")
  if (messages[0]?.type !== "system" || messages.slice(1).some((m) => m.type === "system")) problems.push("request " + k + ": the system message is not first and alone")
  if (!messages.some((m) => m.type === "human")) problems.push("request " + k + ": the human message was dropped")
  const calls = messages.flatMap((m) => m.type === "ai" ? (m.tool_calls ?? []).map((c) => c.id) : []).sort()
  const results = messages.flatMap((m) => m.type === "tool" ? [m.tool_call_id] : []).sort()
  if (JSON.stringify(calls) !== JSON.stringify(results)) problems.push("request " + k + ": an orphaned tool part (calls " + calls + ", results " + results + ")")
}
const sent = requests.map((messages) => messages.length)
const full = 2 + 2 * steps
if (Math.max(...sent.slice(steps / 2)) >= full / 2) problems.push("the requests sent did not stabilise: " + sent.join(", "))
if (problems.length > 0) {
  console.error(problems.join("\\n"))
  process.exit(1)
}
const actions = reports.map((r) => r.change?.action)
console.log(steps + " createAgent tool steps and an answer; requests of " + Math.min(...sent) + " to " + Math.max(...sent) + " messages (the history: " + full + "), at most " + largest + " of " + (contextWindow - outputReserve) + " tokens; " + actions.filter((a) => a === "compact").length + " compactions")
`)
    for (const binary of thisAndSystemNode()) {
      const version = run(binary, ["--version"]).stdout.trim()
      const looped = run(binary, ["agent.mjs"], { cwd: langChainProject })
      if (looped.status !== 0) fail(`node agent.mjs on Node ${version} (exit ${looped.status}):\n${looped.stdout}${looped.stderr}`)
      else ok(`node agent.mjs on Node ${version}: ${looped.stdout.trim()}`)
    }
  } catch (error) {
    fail(`the LangChain install: ${error instanceof Error ? error.message : String(error)}`)
  }

  section("the CLI: README.md's commands (the library's tarball with the CLI's, as the registry would give them)")
  const cliProject = newProject("cli-user")
  const cliCommands = installByReadme("install:cli", cliProject)
  const cliInstalled = packagesIn(join(cliProject, "node_modules"))
  list(cliProject, cliInstalled)
  const copies = cliInstalled.filter((p) => p.name === "effect-cupel")
  if (copies.length !== 1) fail(`the CLI install holds ${copies.length} copies of effect-cupel`)

  const nodeVersion = run(node, ["--version"]).stdout.trim()
  const linked = realpathSync(join(cliProject, "node_modules", ".bin", "cupel"))
  console.log(`  node_modules/.bin/cupel is ${relative(cliProject, linked).split(sep).join("/")}; Node ${nodeVersion}`)
  const cupel = (args, input) => run("npx", ["--no", "--", "cupel", ...args], { cwd: cliProject, env, input })

  const help = cliCommands.get("npx cupel --help") ?? cupel(["--help"])
  if (!cliCommands.has("npx cupel --help")) fail("README.md's install:cli commands do not run npx cupel --help")
  const listed = ["demo", "run", "place", "conformance", "view"]
  const commands = listed.filter((c) => new RegExp(`^  ${c}\\s`, "m").test(help.stdout))
  if (help.status !== 0 || commands.length !== listed.length) fail(`npx cupel --help (exit ${help.status}):\n${help.stdout}${help.stderr}`)
  else ok(`npx cupel --help lists ${commands.join(", ")}`)
  const version = cupel(["--version"])
  if (version.status !== 0 || !version.stdout.includes(library.version)) fail(`npx cupel --version: ${version.stdout}${version.stderr}`)
  else ok(`npx cupel --version: ${version.stdout.trim()}`)
  const sample = cupel(["demo", "--print-sample"])
  const ran = cupel(["run", "--placer", "chronological"], sample.stdout)
  let window
  try {
    window = JSON.parse(ran.stdout).window
  } catch {
    window = undefined
  }
  if (sample.status !== 0 || ran.status !== 0 || !Array.isArray(window) || window.length === 0) {
    fail(`npx cupel demo --print-sample | npx cupel run (exit ${sample.status}, ${ran.status}):\n${ran.stderr}`)
  } else ok(`npx cupel demo --print-sample | npx cupel run: a window of ${window.length} items`)
  // The page of that run, from the installed CLI: one self-contained file, nothing fetched.
  const viewed = cupel(["view", "--budget", "700"], ran.stdout)
  const assets = /\b(?:src|href)="(?:https?:)?\/\//.test(viewed.stdout)
  if (viewed.status !== 0 || !viewed.stdout.startsWith("<!doctype html>") || assets) {
    fail(`npx cupel run | npx cupel view (exit ${viewed.status}):\n${viewed.stderr}`)
  } else ok(`npx cupel run | npx cupel view: an offline page of ${Math.round(viewed.stdout.length / 1024)} KiB`)
  // --count-tokens loads gpt-tokenizer from the library's code: the CLI package's dependency must
  // be where the installed library finds it.
  let uncounted
  try {
    const parsed = JSON.parse(sample.stdout)
    uncounted = JSON.stringify({ ...parsed, items: parsed.items.map(({ tokens: _, ...item }) => item) })
  } catch {
    uncounted = ""
  }
  const counted = cupel(["run", "--count-tokens", "o200k", "--compact"], uncounted)
  let countedWindow
  try {
    countedWindow = JSON.parse(counted.stdout).window
  } catch {
    countedWindow = undefined
  }
  if (counted.status !== 0 || !Array.isArray(countedWindow) || countedWindow.some((item) => !(item.tokens > 0))) {
    fail(`npx cupel run --count-tokens o200k on the sample without tokens (exit ${counted.status}):\n${counted.stderr}`)
  } else ok(`npx cupel run --count-tokens o200k: the sample without tokens counted, a window of ${countedWindow.length} items`)
  const conformance = cupel(["conformance"])
  const counts = /(\d+) passed, 0 failed, 0 skipped\n$/.exec(conformance.stdout)
  if (conformance.status !== 0 || counts === null || Number(counts[1]) === 0) {
    fail(`npx cupel conformance (exit ${conformance.status}):\n${conformance.stdout}${conformance.stderr}`)
  } else ok(`npx cupel conformance: ${conformance.stdout.trim().split("\n").at(-1)}`)
  // npm links one of the two `cupel` bins; both must start the command.
  for (const launcher of ["effect-cupel/bin/cupel.js", "effect-cupel-cli/bin/cupel.js"]) {
    const direct = run(node, [join(cliProject, "node_modules", launcher), "--version"], { cwd: cliProject, env })
    if (direct.status !== 0 || !direct.stdout.includes(library.version)) fail(`${launcher} --version: ${direct.stdout}${direct.stderr}`)
    else ok(`${launcher} starts the command`)
  }
  if (!nodeAtLeast(process.versions.node, 22, 19)) {
    const old = run(process.execPath, [join(cliProject, "node_modules", "effect-cupel-cli", "bin", "cupel.js"), "--help"])
    if (old.status !== 1 || !old.stderr.startsWith("cupel: needs Node 22.19 or later")) {
      fail(`effect-cupel-cli on Node ${process.versions.node} (exit ${old.status}): ${old.stdout}${old.stderr}`)
    } else ok(`effect-cupel-cli on Node ${process.versions.node} says: ${old.stderr.trim()}`)
  }
} catch (error) {
  fail(error instanceof Error ? error.message : String(error))
} finally {
  if (keep) console.log(`\nkept: ${work}`)
  else rmSync(work, { recursive: true, force: true })
}

console.log(`\n${problems.length === 0 ? "passed" : `FAILED (${problems.length})`} in ${((Date.now() - started) / 1000).toFixed(0)} s`)
process.exitCode = problems.length === 0 ? 0 : 1
