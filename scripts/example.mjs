#!/usr/bin/env node
// `npm run example -- NAME` runs examples/NAME.ts (quickstart, place, agent). Through npm, so that
// it runs on the Node 22 that `npm install` puts in node_modules/.bin, which strips the types:
// `node examples/quickstart.ts` with the system's Node 20 fails on the .ts extension.
//
// Plain JavaScript, so that any Node runs it (and check-node.mjs can say what is missing).
import "./check-node.mjs"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const examples = fileURLToPath(new URL("../examples/", import.meta.url))
// The examples that are programs (the others only define values for the docs).
const programs = readdirSync(examples)
  .filter((file) => file.endsWith(".ts") && readFileSync(join(examples, file), "utf8").includes("Effect.runPromise("))
  .map((file) => file.slice(0, -".ts".length))
  .sort()
const name = (process.argv[2] ?? "").replace(/^examples\//, "").replace(/\.ts$/, "")

if (programs.includes(name)) {
  await import(pathToFileURL(join(examples, `${name}.ts`)).href)
} else {
  process.stderr.write(
    `${name === "" ? "" : `npm run example: no example "${name}". `}` +
      `Usage: npm run example -- NAME, with NAME one of ${programs.join(", ")}.\n`
  )
  process.exitCode = 2
}
