#!/usr/bin/env node
// The `cupel` command's launcher. The CLI is written in TypeScript (src/bin/cupel.ts); this file
// picks what to run:
// - in a clone of the repository, on a Node that strips types (22.18+, or the node@22 that
//   `npm install` puts in node_modules/.bin), the TypeScript source, so edits need no build;
// - otherwise the compiled dist/bin/cupel.js (`npm run build`): Node never strips types of files
//   under node_modules, so an installed package must run the build.
import { existsSync } from "node:fs"
import { dirname, join, sep } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const source = join(root, "src", "bin", "cupel.ts")
const built = join(root, "dist", "bin", "cupel.js")
const installed = root.split(sep).includes("node_modules")
const stripsTypes = Boolean(process.features.typescript)

if (!installed && stripsTypes && existsSync(source)) {
  await import(pathToFileURL(source).href)
} else if (existsSync(built)) {
  await import(pathToFileURL(built).href)
} else {
  process.stderr.write(
    `cupel: cannot start. Node ${process.versions.node} does not run TypeScript directly and ` +
      `${built} does not exist.\n` +
      `Run it through npm (npx cupel, npm start), which uses the Node 22 installed by npm install, ` +
      `or build it first: npm run build.\n`
  )
  process.exitCode = 1
}
