#!/usr/bin/env node
// Run first by the npm scripts that start TypeScript files (`npm test`, `npm run bench`,
// `npm run example`). Those need a Node that strips types (22.18 or later). `npm install` provides
// one: the dev dependency node@22 downloads it into node_modules (its install script), and npm puts
// node_modules/.bin first on PATH for its scripts. An install with --ignore-scripts (a common
// policy) skips that download, and the system's Node (20 is enough for the library) then dies on
// the first .ts file with a stack trace. This says what to do instead, in one line, and exits 1.
// (`npm start` and `npx cupel` go through bin/cupel.js, which says the same.)
//
// Plain JavaScript, so that any Node runs it.
import { existsSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

if (!process.features.typescript) {
  const root = fileURLToPath(new URL("..", import.meta.url))
  const script = process.env.npm_lifecycle_event
  const who = script === undefined ? "effect-cupel" : ["start", "test"].includes(script) ? `npm ${script}` : `npm run ${script}`
  const node = `Node ${process.versions.node} cannot run TypeScript`
  const remedy = !existsSync(join(root, "node_modules"))
    ? `${node} and the dependencies are not installed: run npm install first.`
    : !existsSync(join(root, "node_modules", "node", "bin"))
    ? `${node}, and the Node 22 that npm install puts in node_modules is missing (an install with --ignore-scripts skips its download): run npm rebuild node --ignore-scripts=false once, then try again.`
    : `${node}: run it with the Node 22 that npm install put in node_modules (node_modules/.bin/node).`
  process.stderr.write(`${who}: ${remedy}\n`)
  process.exit(1)
}
