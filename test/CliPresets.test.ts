import { NodeServices } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as PolicySummary from "../src/cli/PolicySummary.ts"
import * as Sample from "../src/cli/Sample.ts"
import { Policy, Presets } from "../src/index.ts"
import { cli, writeTemp } from "./support/cli.ts"
import { docBlock } from "./support/docs.ts"

/** The kinds of a `cupel run` result's window, in order. */
const windowKinds = (stdout: string): Array<string> => {
  const json: { readonly window: ReadonlyArray<{ readonly kind: string }> } = JSON.parse(stdout)
  return json.window.map((item) => item.kind)
}


layer(NodeServices.layer)("cupel presets", (it) => {
  it.effect("is listed by --help", () =>
    Effect.gen(function*() {
      assert.match((yield* cli(["--help"])).stdout, /^  presets\s/m)
    }))

  it.effect("lists every preset: its name, what it is for, its scorer, slicer and placer", () =>
    Effect.gen(function*() {
      const run = yield* cli(["presets"])
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(run.stderr, "")
      const lines = run.stdout.split("\n")
      for (const name of Presets.names) {
        const policy = Presets.all[name]
        const at = lines.findIndex((l) => l.startsWith(`${name} `))
        assert.isAtLeast(at, 0, `${name} in\n${run.stdout}`)
        assert.include(lines[at]!, policy.description!)
        assert.include(lines[at + 1]!, PolicySummary.line(policy))
      }
      assert.include(run.stdout, "scorer composite(recency 3, kind 1) · slicer greedy · placer conversation")
      assert.include(run.stdout, "slicer knapsack (bucket size 100) · placer conversation")
    }))

  it.effect("--json prints every preset as Policy JSON: each round-trips through Policy.decode", () =>
    Effect.gen(function*() {
      const run = yield* cli(["presets", "--json"])
      assert.strictEqual(run.code, 0, run.stderr)
      const json: ReadonlyArray<unknown> = JSON.parse(run.stdout)
      assert.strictEqual(json.length, Presets.names.length)
      for (const [i, name] of Presets.names.entries()) {
        const decoded = yield* Policy.decode(json[i])
        assert.deepStrictEqual(decoded, Presets.all[name])
        assert.deepStrictEqual(yield* Policy.encode(decoded), json[i])
      }
    }))

  it.effect("NAME --json prints that preset alone, a policy file", () =>
    Effect.gen(function*() {
      const run = yield* cli(["presets", "rag", "--json"])
      assert.strictEqual(run.code, 0, run.stderr)
      assert.deepStrictEqual(yield* Policy.decodeJson(run.stdout), Presets.rag)
      const text = yield* cli(["presets", "rag"])
      assert.strictEqual(text.stdout.split("\n").length, 2)
      assert.match(text.stdout, /^rag\s+Retrieval-augmented generation/)
    }))

  it.effect("an unknown name: exit 2, one line listing the presets, nothing on stdout", () =>
    Effect.gen(function*() {
      const run = yield* cli(["presets", "chatty", "--json"])
      assert.strictEqual(run.code, 2)
      assert.strictEqual(run.stdout, "")
      assert.strictEqual(
        run.stderr,
        `cupel presets: no preset is named "chatty"; the presets are chat, codeReview, rag, documentQa, toolUse, longRunning, debugging`
      )
    }))

  it.effect("every preset puts the system prompt first: cupel run trains.json --preset NAME, for all seven", () =>
    Effect.gen(function*() {
      // docs/cli.md's example input: a pinned, untimed system prompt, two timed messages, documents.
      const trains = yield* writeTemp("trains.json", docBlock("run-example:input"))
      assert.deepStrictEqual([...Presets.names], ["chat", "codeReview", "rag", "documentQa", "toolUse", "longRunning", "debugging"])
      for (const name of Presets.names) {
        const run = yield* cli(["run", trains, "--preset", name])
        assert.strictEqual(run.code, 0, `${name}: ${run.stderr}`)
        assert.strictEqual(windowKinds(run.stdout)[0], "SystemPrompt", `${name}: ${run.stdout}`)
        // The same on the demo's sample: a pinned prompt, a dozen timed turns, documents, an image.
        const sample = yield* cli(["run", "--preset", name], { stdin: JSON.stringify(Sample.pipeline) })
        assert.strictEqual(sample.code, 0, `${name}: ${sample.stderr}`)
        const kinds = windowKinds(sample.stdout)
        assert.isAbove(kinds.length, 4, name)
        assert.strictEqual(kinds[0], "SystemPrompt", `${name}: ${kinds.join(", ")}`)
        assert.strictEqual(kinds.lastIndexOf("SystemPrompt"), 0, `${name}: ${kinds.join(", ")}`)
      }
    }))

  it.effect("the chat preset on trains.json: [SystemPrompt, Document, Message, Message], the conversation in order", () =>
    Effect.gen(function*() {
      const trains = yield* writeTemp("trains.json", docBlock("run-example:input"))
      const run = yield* cli(["run", trains, "--preset", "chat"])
      assert.strictEqual(run.code, 0, run.stderr)
      assert.deepStrictEqual(windowKinds(run.stdout), ["SystemPrompt", "Document", "Message", "Message"])
      const json: { readonly window: ReadonlyArray<{ readonly content: string }> } = JSON.parse(run.stdout)
      assert.deepStrictEqual(json.window.map((item) => item.content).slice(2), [
        "Which trains run from Paris to Lyon tomorrow morning?",
        "I would rather travel before 9."
      ])
    }))
})
