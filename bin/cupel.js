#!/usr/bin/env node
// The `cupel` command's launcher in this repository. The CLI is written in TypeScript
// (src/bin/cupel.ts, on @effect/platform-node, a dev dependency here); this file picks what to run:
// - in a clone, on a Node that strips types (22.18+, or the node@22 that `npm install` puts in
//   node_modules/.bin), the TypeScript source, so edits need no build;
// - in a clone on an older Node, the compiled dist/bin/cupel.js (`npm run build`);
// - in a clone with neither, one line saying what to do: `npm install --ignore-scripts` (a common
//   policy) leaves out node@22's download, and npm's scripts then run on the system's Node 20.
// An installed copy of effect-cupel (under node_modules) is the library alone: it does not ship
// the launcher's build nor depend on @effect/platform-node, so that installing the library stays
// light. The command is published as its own package, effect-cupel-cli, whose bin is also
// `cupel`: when both are installed, npm may link either package's bin, so this one hands over to
// effect-cupel-cli if it can find it, and otherwise says where the command is.
import { existsSync } from "node:fs"
import { dirname, join, sep } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const source = join(root, "src", "bin", "cupel.ts")
const built = join(root, "dist", "bin", "cupel.js")
const installed = root.split(sep).includes("node_modules")
const stripsTypes = Boolean(process.features.typescript)

/** effect-cupel-cli's launcher, when that package can be resolved from here. */
const findCli = () => {
  try {
    return import.meta.resolve("effect-cupel-cli/bin/cupel.js")
  } catch {
    return undefined
  }
}

if (!installed && stripsTypes && existsSync(source)) {
  await import(pathToFileURL(source).href)
} else if (!installed && existsSync(built)) {
  await import(pathToFileURL(built).href)
} else if (installed) {
  const cli = findCli()
  if (cli !== undefined) {
    await import(cli)
  } else {
    process.stderr.write(
      `cupel: the command line is the package effect-cupel-cli; effect-cupel is the library alone.\n` +
        `Run it with: npx effect-cupel-cli --help (or install it: npm install effect-cupel-cli; until it is on the ` +
        `npm registry, install its tarball with the library's, as effect-cupel's README says under Install).\n`
    )
    process.exitCode = 1
  }
} else {
  // A clone on a Node that does not strip types, and no build: one line on what to do, never a
  // stack trace, and never "run npx cupel" to someone who just did.
  const node = `cupel: Node ${process.versions.node} cannot run the TypeScript source (and dist/ holds no build)`
  const viaNpm = process.env.npm_command !== undefined
  process.stderr.write(
    (!existsSync(join(root, "node_modules"))
      ? `${node}, nor any dependency: run npm install first.`
      : !existsSync(join(root, "node_modules", "node", "bin"))
      ? `${node}, and the Node 22 that npm install puts in node_modules is missing (an install with --ignore-scripts skips its download): run npm rebuild node --ignore-scripts=false once, or npm run build to run the compiled command on this Node.`
      : `${node}: run it with the Node 22 that npm install put in node_modules (${viaNpm ? "" : "npx cupel, npm start or "}node_modules/.bin/node bin/cupel.js), or npm run build first.`) +
      "\n"
  )
  process.exitCode = 1
}
