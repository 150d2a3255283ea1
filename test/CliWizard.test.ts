/**
 * `cupel --wizard` away from a terminal (issue 28): Effect's built-in wizard draws its questions
 * with cursor escapes and reads keys; into a pipe it wrote escape codes and exited 0. Refused
 * there as a usage error, as docs/cli.md ("The wizard") says.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import * as Main from "../src/cli/Main.ts"
import { cli } from "./support/cli.ts"
import { docBlock } from "./support/docs.ts"

const root = fileURLToPath(new URL("..", import.meta.url))

layer(NodeServices.layer)("cupel --wizard", (it) => {
  it.effect("into a pipe: refused with docs/cli.md's line on stderr, nothing on stdout, exit 2", () =>
    Effect.gen(function*() {
      const run = yield* cli(["--wizard"])
      assert.strictEqual(run.code, 2)
      assert.strictEqual(run.stdout, "")
      assert.strictEqual(run.stderr, docBlock("wizard-refused"))
      assert.strictEqual(run.stderr, Main.wizardNeedsTerminal)
    }))

  it.effect("a terminal on one side only is refused too: the wizard reads keys and draws on the other", () =>
    Effect.gen(function*() {
      const stdoutOnly = yield* cli(["--wizard"], { terminal: true, stdinTerminal: false })
      const stdinOnly = yield* cli(["--wizard"], { terminal: false, stdinTerminal: true })
      assert.deepStrictEqual([stdoutOnly.code, stdinOnly.code], [2, 2])
      assert.deepStrictEqual([stdoutOnly.stderr, stdinOnly.stderr], [Main.wizardNeedsTerminal, Main.wizardNeedsTerminal])
    }))

  it.effect("a subcommand's wizard (cupel run --wizard) is refused the same way", () =>
    Effect.gen(function*() {
      const run = yield* cli(["run", "--wizard"])
      assert.strictEqual(run.code, 2)
      assert.strictEqual(run.stderr, Main.wizardNeedsTerminal)
    }))

  it.effect("after --, --wizard is an argument, not the flag", () =>
    Effect.gen(function*() {
      const run = yield* cli(["run", "--", "--wizard"])
      assert.notInclude(run.stderr, "the wizard asks")
    }))
})

describe("cupel --wizard, the real program", () => {
  it("with stdout and stdin piped: exit 2, no escape codes anywhere", () => {
    const run = spawnSync(`${root}node_modules/.bin/node`, [`${root}src/bin/cupel.ts`, "--wizard"], {
      encoding: "utf8",
      input: "",
      cwd: root
    })
    assert.strictEqual(run.status, 2)
    assert.strictEqual(run.stdout, "")
    assert.notInclude(run.stderr, "\u001b")
    assert.strictEqual(run.stderr.trim(), Main.wizardNeedsTerminal)
  })
})
