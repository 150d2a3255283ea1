/**
 * Reading the marked parts of a document, for tests that hold docs to what the code does.
 */
import { assert } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

/** docs/cli.md's text. */
export const cliDoc = readFileSync(fileURLToPath(new URL("../../docs/cli.md", import.meta.url)), "utf8")

/** The fenced block that follows `<!-- marker -->` in docs/cli.md, without its last newline. */
export const docBlock = (marker: string): string => {
  const at = cliDoc.indexOf(`<!-- ${marker} -->`)
  assert.isAtLeast(at, 0, `docs/cli.md has no <!-- ${marker} -->`)
  const match = /```\w*\n([\s\S]*?)\n```/.exec(cliDoc.slice(at))
  assert.isNotNull(match)
  return match![1]!
}

/** The rows of the table that follows `<!-- marker -->` in docs/cli.md, header and rule left out. */
export const docTableRows = (marker: string): Array<Array<string>> => {
  const at = cliDoc.indexOf(`<!-- ${marker} -->`)
  assert.isAtLeast(at, 0, `docs/cli.md has no <!-- ${marker} -->`)
  const lines = cliDoc.slice(at).split("\n").slice(1)
  const table = lines.slice(0, lines.findIndex((line) => !line.startsWith("|")))
  return table.slice(2).map((row) => row.split("|").slice(1, -1).map((cell) => cell.trim()))
}
