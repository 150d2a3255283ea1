import { NodeServices } from "@effect/platform-node"
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import { CliError } from "effect/cli"
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as CliFailure from "../src/cli/CliFailure.ts"
import * as Main from "../src/cli/Main.ts"
import * as PlaceCommand from "../src/cli/PlaceCommand.ts"
import * as PlaceInput from "../src/cli/PlaceInput.ts"
import * as Placement from "../src/cli/Placement.ts"
import * as Sample from "../src/cli/Sample.ts"
import * as Usage from "../src/cli/Usage.ts"
import {
  ContextItem,
  InvalidItemError,
  OverflowError,
  type Place,
  PlacerContractError,
  PlacerError,
  TokenTotalError
} from "../src/index.ts"
import { docBlock, docTableRows } from "./support/docs.ts"
import { cli, capture, writeTemp } from "./support/cli.ts"

const root = fileURLToPath(new URL("..", import.meta.url))







const budget = `"budget": { "maxTokens": 100, "targetTokens": 50 }`

layer(NodeServices.layer)("cupel", (it) => {
  it.effect("--help lists the three commands", () =>
    Effect.gen(function*() {
      const run = yield* cli(["--help"])
      assert.strictEqual(run.code, 0)
      for (const command of ["demo", "run", "place", "conformance"]) assert.match(run.stdout, new RegExp(`^  ${command}\\s`, "m"))
    }))

  it.effect("--version prints the package's version", () =>
    Effect.gen(function*() {
      const pkg = JSON.parse(readFileSync(`${root}package.json`, "utf8"))
      const run = yield* cli(["--version"])
      assert.include(run.stdout, pkg.version)
      assert.strictEqual(Main.version, pkg.version)
    }))

  it.effect("an unknown flag value is a usage error: exit 2", () =>
    Effect.gen(function*() {
      const run = yield* cli(["place", "--placer", "sideways"])
      assert.strictEqual(run.code, 2)
      assert.include(run.stderr, `Invalid value for flag --placer: "sideways"`)
    }))
})

layer(NodeServices.layer)("cupel — usage errors: one line and a hint on stderr, nothing on stdout, exit 2", (it) => {
  // [args, the first line on stderr]: for each command a bad flag, a bad value and a missing value
  // (no command has a required positional argument: `place` and `run` read stdin without a file,
  // `conformance` runs its defaults without a path).
  const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
    [["--bogus"], "cupel: Unrecognized flag: --bogus"],
    [["frobnicate"], `cupel: Unknown subcommand "frobnicate"`],
    [["plce"], `cupel: Unknown subcommand "plce" (did you mean place?)`],
    [["place", "--bogus"], "cupel place: Unrecognized flag: --bogus"],
    [["place", "--placr", "u-shaped"], "cupel place: Unrecognized flag: --placr (did you mean --placer?)"],
    [["place", "--placer", "x"], `cupel place: Invalid value for flag --placer: "x". Expected: "u-shaped" | "chronological"`],
    [["place", "--overflow"], "cupel place: Missing value for flag --overflow. Expected: throw | truncate | proceed"],
    [["place", "a.json", "b.json"], `cupel place: Unexpected positional argument: "b.json"`],
    [["run", "--bogus"], "cupel run: Unrecognized flag: --bogus"],
    [["run", "--placer", "x"], `cupel run: Invalid value for flag --placer: "x". Expected: "u-shaped" | "chronological"`],
    [["run", "--slicer"], "cupel run: Missing value for flag --slicer. Expected: greedy | knapsack"],
    [["demo", "--bogus"], "cupel demo: Unrecognized flag: --bogus"],
    [["demo", "--budget", "abc"], `cupel demo: Invalid value for flag --budget: "abc". Expected a string representing a finite number`],
    [["demo", "--input"], "cupel demo: Missing value for flag --input. Expected: string"],
    [["demo", "extra"], `cupel demo: Unexpected positional argument: "extra"`],
    [["conformance", "--bogus"], "cupel conformance: Unrecognized flag: --bogus"],
    [["conformance", "--verbose=maybe"], `cupel conformance: Invalid value for flag --verbose: "maybe".`]
  ]
  for (const [args, first] of cases) {
    it.effect(`cupel ${args.join(" ")}`, () =>
      Effect.gen(function*() {
        const run = yield* cli(args)
        assert.strictEqual(run.code, 2)
        assert.strictEqual(run.stdout, "")
        const lines = run.stderr.split("\n")
        assert.strictEqual(lines.length, 2, run.stderr)
        assert.isTrue(lines[0]!.startsWith(first), lines[0])
        const command = args[0] === "place" || args[0] === "run" || args[0] === "demo" || args[0] === "conformance"
          ? `cupel ${args[0]}`
          : "cupel"
        assert.strictEqual(lines[1], `see: ${command} --help`)
      }))
  }

  it.effect("several errors at once share the one line", () =>
    Effect.gen(function*() {
      const run = yield* cli(["place", "--bogus", "--placer", "x"])
      assert.strictEqual(run.code, 2)
      assert.strictEqual(run.stdout, "")
      const [line, hint, ...rest] = run.stderr.split("\n")
      assert.include(line, "Unrecognized flag: --bogus")
      assert.strictEqual(hint, "see: cupel place --help")
      assert.deepStrictEqual(rest, [])
    }))

  it.effect("a value with a newline or escape character stays on its line, escaped", () =>
    Effect.gen(function*() {
      const run = yield* cli(["place", "--placer", "a\nb\u001b[2J"])
      assert.strictEqual(run.code, 2)
      assert.strictEqual(run.stdout, "")
      assert.deepStrictEqual(run.stderr.split("\n"), [
        `cupel place: Invalid value for flag --placer: "a\\nb\\u001b[2J". Expected: "u-shaped" | "chronological"`,
        "see: cupel place --help"
      ])
    }))

  for (const args of [["--help"], ["place", "--help"], ["run", "--help"], ["demo", "--help"], ["conformance", "--help"]]) {
    it.effect(`cupel ${args.join(" ")}: the help on stdout, nothing on stderr, exit 0`, () =>
      Effect.gen(function*() {
        const run = yield* cli(args)
        assert.strictEqual(run.code, 0)
        assert.strictEqual(run.stderr, "")
        assert.include(run.stdout, "USAGE")
        assert.include(run.stdout, `cupel${args.length > 1 ? ` ${args[0]}` : ""}`)
      }))
  }

  it.effect("a bare cupel shows the help on stdout with exit 0 (nothing was wrong, nothing was asked)", () =>
    Effect.gen(function*() {
      const run = yield* cli([])
      assert.strictEqual(run.code, 0)
      assert.strictEqual(run.stderr, "")
      assert.include(run.stdout, "USAGE")
    }))

  it("Usage.describeError puts every error on one line: a missing argument, a multi-line message", () => {
    assert.strictEqual(Usage.describeError(new CliError.MissingArgument({ argument: "file" })), "Missing required argument: file")
    assert.strictEqual(
      Usage.describeError(new CliError.ValidationError({ message: "two problems:\n  first\n  second\n" })),
      "two problems: first second"
    )
    assert.deepStrictEqual(Usage.lines(["cupel", "run"], [new CliError.MissingOption({ option: "budget" })]), [
      "cupel run: Missing required flag: --budget",
      "see: cupel run --help"
    ])
  })
})

layer(NodeServices.layer)("cupel place", (it) => {
  it.effect("round-trips the example in docs/cli.md: the documented command prints the documented output", () =>
    Effect.gen(function*() {
      assert.strictEqual(docBlock("place-example:command"), "cupel place trip.json --overflow truncate")
      const input = docBlock("place-example:input")
      const file = yield* writeTemp("trip.json", input)
      const run = yield* cli(["place", file, "--overflow", "truncate"])
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(run.stderr, "")
      const output = JSON.parse(run.stdout)
      assert.deepStrictEqual(output, JSON.parse(docBlock("place-example:output")))

      // Every item printed is in the input format and decodes to the item that went in.
      const decoded = yield* PlaceInput.decodeText("trip.json", input)
      const inputItems = [...decoded.pinned, ...decoded.scored.map((s) => s.item)]
      const printed = [...output.placed, ...output.excluded.map((e: { item: unknown }) => e.item)]
      assert.strictEqual(printed.length, inputItems.length)
      for (const json of printed) {
        const item = yield* ContextItem.decode(json)
        const original = inputItems.find((i) => i.content === item.content)
        assert.isDefined(original)
        assert.deepStrictEqual(yield* ContextItem.encode(item), json)
        assert.deepStrictEqual(yield* ContextItem.encode(original!), json)
      }
    }))

  it.effect("overflow under throw (the default): the error as JSON on stderr, exit 1", () =>
    Effect.gen(function*() {
      const file = yield* writeTemp("trip.json", docBlock("place-example:input"))
      const run = yield* cli(["place", file])
      assert.strictEqual(run.code, 1)
      assert.strictEqual(run.stdout, "")
      const error = JSON.parse(run.stderr)
      assert.deepStrictEqual(error, JSON.parse(docBlock("place-example:overflow")))
      assert.strictEqual(error._tag, "OverflowError")
      assert.strictEqual(error.mergedTokens, 141)
    }))

  it.effect("proceed reports the notifier's figures; standard input is read with - or no file", () =>
    Effect.gen(function*() {
      const input = docBlock("place-example:input")
      for (const args of [["place", "-", "--overflow", "proceed"], ["place", "--overflow", "proceed"]]) {
        const run = yield* cli(args, input)
        assert.strictEqual(run.code, 0, run.stderr)
        const output = JSON.parse(run.stdout)
        assert.deepStrictEqual(output.overflowEvent, { tokensOverBudget: 21, overflowingItems: 5 })
        assert.strictEqual(output.tokensOverBudget, 21)
        assert.strictEqual(output.placed.length, 5)
      }
    }))

  it.effect("the chronological placer orders by instant, whatever the offsets", () =>
    Effect.gen(function*() {
      const run = yield* cli(["place", "--placer", "chronological"], `{ ${budget}, "scored": [
        { "item": { "content": "b", "tokens": 1, "timestamp": "2024-06-01T12:00:00+02:00" }, "score": 0.1 },
        { "item": { "content": "a", "tokens": 1, "timestamp": "2024-06-01T09:30:00Z" }, "score": 0.9 }
      ] }`)
      assert.strictEqual(run.code, 0, run.stderr)
      assert.deepStrictEqual(JSON.parse(run.stdout).placed.map((i: { content: string }) => i.content), ["a", "b"])
    }))

  const rejects = (name: string, stdin: string, ...expected: ReadonlyArray<string>) =>
    it.effect(`rejects ${name}: the problem named on stderr, exit 2`, () =>
      Effect.gen(function*() {
        const run = yield* cli(["place", "-"], stdin)
        assert.strictEqual(run.code, 2)
        assert.strictEqual(run.stdout, "")
        assert.include(run.stderr, "cupel place: invalid input (stdin):")
        for (const text of expected) assert.include(run.stderr, text)
      }))

  rejects("malformed JSON", `{ ${budget}, `, "malformed JSON:")
  rejects(
    "a budget whose target exceeds its max",
    `{ "budget": { "maxTokens": 100, "targetTokens": 200 } }`,
    "budget.targetTokens: targetTokens (200) must not exceed maxTokens (100)"
  )
  rejects(
    "a missing score",
    `{ ${budget}, "scored": [{ "item": { "content": "a", "tokens": 1 } }] }`,
    "scored[0].score: is required but missing"
  )
  rejects(
    "a non-numeric score",
    `{ ${budget}, "scored": [{ "item": { "content": "a", "tokens": 1 }, "score": "high" }] }`,
    `scored[0].score: Expected a number, got "high"`
  )
  rejects(
    "an empty content",
    `{ ${budget}, "pinned": [{ "content": "", "tokens": 1 }] }`,
    "pinned[0].content: content must be a non-empty string"
  )
  rejects(
    "every problem at once",
    `{ "budget": { "maxTokens": 1, "targetTokens": 5 }, "scored": [{ "item": { "content": "", "tokens": 1.5 } }] }`,
    "budget.targetTokens",
    "scored[0].item.content",
    "scored[0].item.tokens: Expected a safe integer (a whole number from -9007199254740991 to 9007199254740991), got 1.5",
    "scored[0].score"
  )
  rejects(
    "an unknown top-level key",
    `{ ${budget}, "socred": [] }`,
    `socred: unknown key (an input has only "budget", "pinned" and "scored")`
  )
  rejects("a missing budget", `{ "pinned": [] }`, "budget: is required but missing")
  rejects("a timestamp without offset", `{ ${budget}, "pinned": [{ "content": "a", "tokens": 1, "timestamp": "2024-06-01T00:00:00" }] }`, "pinned[0].timestamp: Expected an RFC 3339 date-time with an offset")
  rejects(
    "a negative token count",
    `{ ${budget}, "pinned": [{ "content": "neg", "tokens": -3 }] }`,
    `pinned[0] ("neg") has a negative token count (-3)`
  )
  rejects(
    "a pinned item among the scored",
    `{ ${budget}, "scored": [{ "item": { "content": "x", "tokens": 1, "pinned": true }, "score": 1 }] }`,
    `scored[0] ("x") is marked pinned`
  )

  const MAX = Number.MAX_SAFE_INTEGER
  const huge = (first: number, second: number) =>
    `{ "budget": { "maxTokens": ${MAX}, "targetTokens": 50 }, "scored": [
      { "item": { "content": "max", "tokens": ${first} }, "score": 0.9 },
      { "item": { "content": "one", "tokens": ${second} }, "score": 0.5 }
    ] }`

  it.effect("tokens adding up past MAX_SAFE_INTEGER: one line on stderr naming the total, nothing on stdout, exit 2, with every strategy", () =>
    Effect.gen(function*() {
      for (const strategy of ["throw", "truncate", "proceed"]) {
        const run = yield* cli(["place", "-", "--overflow", strategy], huge(MAX, 1))
        assert.strictEqual(run.code, 2, strategy)
        assert.strictEqual(run.stdout, "", strategy)
        assert.strictEqual(
          run.stderr,
          `cupel place: invalid input (stdin): the tokens of the merged items add up past ${MAX} ` +
            `(Number.MAX_SAFE_INTEGER) after 2 items; no exact total exists`
        )
      }
    }))

  it.effect("tokens adding up to exactly MAX_SAFE_INTEGER are placed with exact figures", () =>
    Effect.gen(function*() {
      const truncated = yield* cli(["place", "-", "--overflow", "truncate"], huge(MAX - 1, 1))
      assert.strictEqual(truncated.code, 0, truncated.stderr)
      const output = JSON.parse(truncated.stdout)
      assert.deepStrictEqual([output.mergedTokens, output.totalTokens], [MAX, 1])
      const overflow = yield* cli(["place", "-"], huge(MAX - 1, 1))
      assert.strictEqual(overflow.code, 1)
      assert.strictEqual(JSON.parse(overflow.stderr).mergedTokens, MAX)
    }))

  it.effect("an item that placement refuses: one line on stderr, nothing on stdout, exit 2", () =>
    Effect.gen(function*() {
      const run = yield* cli(["place", "-"], `{ ${budget}, "pinned": [{ "content": "neg", "tokens": -3 }] }`)
      assert.strictEqual(run.code, 2)
      assert.strictEqual(run.stdout, "")
      assert.strictEqual(
        run.stderr,
        `cupel place: invalid input (stdin): pinned[0] ("neg") has a negative token count (-3); such items must be excluded before placement`
      )
    }))

  it.effect("every error of Place has the exit code docs/cli.md gives it, and one line on stderr", () =>
    Effect.gen(function*() {
      const errors: Record<Place.PlaceError["_tag"], Place.PlaceError> = {
        OverflowError: new OverflowError.OverflowError({ mergedTokens: 141, targetTokens: 120, tokensOverBudget: 21 }),
        InvalidItemError: new InvalidItemError.InvalidItemError({
          problem: "NegativeTokens",
          list: "scored",
          index: 0,
          content: "x",
          tokens: -1
        }),
        TokenTotalError: new TokenTotalError.TokenTotalError({ what: "merged items", count: 2 }),
        PlacerError: new PlacerError.PlacerError({ placer: "u-shaped", reason: "threw Error: boom" }),
        PlacerContractError: new PlacerContractError.PlacerContractError({
          placer: "u-shaped",
          violation: "WrongLength",
          expectedLength: 2,
          actualLength: 1
        })
      }
      const documented = new Map(docTableRows("place-errors").map(([tag, code]) => [tag!.replaceAll("`", ""), Number(code)]))
      assert.sameMembers([...documented.keys()], Object.keys(errors))
      for (const [tag, error] of Object.entries(errors)) {
        const run = yield* capture(PlaceCommand.reportPlaceError("stdin", error))
        assert.strictEqual(run.code, documented.get(tag), tag)
        assert.strictEqual(run.stdout, "", tag)
        assert.strictEqual(run.stderr.split("\n").length, 1, tag)
        if (tag !== "OverflowError") assert.isTrue(run.stderr.startsWith("cupel place: "), tag)
        // Placement.refusesInput (what `cupel demo` reports as bad input) agrees with the table.
        assert.strictEqual(Placement.refusesInput(error), run.code === 2, tag)
        assert.include(run.stderr, error.message, tag)
      }
    }))

  it.effect("a defect is a bug in cupel: one line on stderr, nothing on stdout, exit 3", () =>
    Effect.gen(function*() {
      const run = yield* capture(
        Effect.die(new RangeError("index out of range\n    at somewhere (file.ts:1:1)")).pipe(CliFailure.catchDefects("place"))
      )
      assert.strictEqual(run.code, CliFailure.ExitCode.internal)
      assert.strictEqual(run.code, 3)
      assert.strictEqual(run.stdout, "")
      assert.strictEqual(
        run.stderr,
        "cupel place: internal error (a bug in cupel, please report it): RangeError: index out of range at somewhere (file.ts:1:1)"
      )
      const odd = yield* capture(Effect.die({ toString: (): string => { throw new Error("no") } }).pipe(CliFailure.catchDefects("place")))
      assert.strictEqual(odd.code, 3)
      assert.include(odd.stderr, "a value that cannot be shown")
    }))

  it.effect("typed failures and success pass through the defect guard untouched", () =>
    Effect.gen(function*() {
      const failed = yield* capture(Effect.fail(CliFailure.failure()).pipe(CliFailure.catchDefects("place")))
      assert.deepStrictEqual([failed.code, failed.stderr], [1, ""])
      const ok = yield* capture(Effect.succeed(1).pipe(CliFailure.catchDefects("place")))
      assert.deepStrictEqual([ok.code, ok.stderr], [0, ""])
    }))

  it.effect("rejects a file that cannot be read, exit 2", () =>
    Effect.gen(function*() {
      const run = yield* cli(["place", `${root}no-such-input.json`])
      assert.strictEqual(run.code, 2)
      assert.include(run.stderr, "no-such-input.json):\n  cannot read: no such file or directory")
    }))
})

layer(NodeServices.layer)("cupel conformance", (it) => {
  it.effect("runs the project's vectors: 0 failed, exit 0, the summary last", () =>
    Effect.gen(function*() {
      const run = yield* cli(["conformance", `${root}conformance/place`])
      assert.strictEqual(run.code, 0, run.stdout)
      assert.strictEqual(run.stdout, "48 passed, 0 failed, 0 skipped")
    }))

  it.effect("with no path runs the vendored Cupel suite and the project's vectors: 67 + 48 passed, exit 0", () =>
    Effect.gen(function*() {
      const run = yield* cli(["conformance", "--verbose"])
      assert.strictEqual(run.code, 0, run.stdout)
      const lines = run.stdout.split("\n")
      assert.strictEqual(lines.filter((l) => l.startsWith("PASS ") && l.includes("conformance/cupel/")).length, 67)
      assert.strictEqual(lines.filter((l) => l.startsWith("PASS ") && l.includes("conformance/place/")).length, 48)
      assert.strictEqual(lines.at(-1), "115 passed, 0 failed, 0 skipped")
    }))

  it.effect("a failing vector: its line, then the summary, exit 1", () =>
    Effect.gen(function*() {
      const file = yield* writeTemp("bad.toml", `[test]\nname = "bad"\nstage = "placing"\nplacer = "u-shaped"\n` +
        `[[items]]\ncontent = "a"\ntokens = 1\nscore = 0.1\n[[items]]\ncontent = "b"\ntokens = 1\nscore = 0.9\n` +
        `[expected]\nordered_contents = ["a", "b"]\n`)
      const run = yield* cli(["conformance", file])
      assert.strictEqual(run.code, 1)
      const lines = run.stdout.split("\n")
      assert.match(lines[0]!, /bad\.toml "bad": ordered_contents: expected \["a", "b"\], got \["b", "a"\]$/)
      assert.strictEqual(lines.at(-1), "0 passed, 1 failed, 0 skipped")
    }))

  it.effect("a path that does not exist is a failure, never a silent skip: exit 1", () =>
    Effect.gen(function*() {
      const run = yield* cli(["conformance", `${root}conformance/nowhere`])
      assert.strictEqual(run.code, 1)
      assert.match(run.stdout, /^FAIL .*conformance\/nowhere: cannot read: no such file or directory$/m)
      assert.strictEqual(run.stdout.split("\n").at(-1), "0 passed, 1 failed, 0 skipped")
    }))
})

layer(NodeServices.layer)("cupel demo --place", (it) => {
  it.effect("places the sample with both placers and every strategy, plain text when not a terminal", () =>
    Effect.gen(function*() {
      const run = yield* cli(["demo", "--place"])
      assert.strictEqual(run.code, 0, run.stderr)
      for (const placer of ["u-shaped", "chronological"]) {
        for (const strategy of ["throw", "truncate", "proceed"]) {
          assert.include(run.stdout, `· ${placer} placer · overflow: ${strategy} `)
        }
      }
      assert.include(run.stdout, "✗ OverflowError: Selected items require 4633 tokens, exceeding target budget of 700")
      assert.include(run.stdout, "excluded by truncation (3)")
      assert.include(run.stdout, "PinnedOverride")
      assert.include(run.stdout, "OverflowNotifier heard: 3,933 tokens over budget")
      assert.notInclude(run.stdout, "\u001b[")
    }))

  it.effect("the u-shaped window is high at both ends: first and last rows carry the top scores", () =>
    Effect.gen(function*() {
      const run = yield* cli(["demo", "--place", "--placer", "u-shaped", "--overflow", "proceed"])
      const scores = [...run.stdout.matchAll(/^\s+\d+ .* (\d\.\d\d)  /gm)].map((m) => Number(m[1]))
      assert.strictEqual(scores.length, 17)
      const sorted = [...scores].sort((a, b) => b - a)
      assert.deepStrictEqual([scores[0], scores.at(-1)], [sorted[0], sorted[1]])
      assert.strictEqual(Math.min(...scores), scores[Math.floor(scores.length / 2)])
    }))

  it.effect("--budget changes the target; a target above the max is refused with exit 2", () =>
    Effect.gen(function*() {
      const fits = yield* cli(["demo", "--place", "-p", "chronological", "-s", "throw", "--budget", "5000", "--max", "8192"])
      assert.strictEqual(fits.code, 0, fits.stderr)
      assert.include(fits.stdout, "window: 4,633 tokens in 17 items (target 5,000;")
      assert.notInclude(fits.stdout, "OverflowError")
      const refused = yield* cli(["demo", "--place", "--budget", "5000"])
      assert.strictEqual(refused.code, 2)
      assert.include(refused.stderr, "budget.targetTokens: targetTokens (5000) must not exceed maxTokens (4096)")
    }))

  it.effect("--print-sample prints the sample as place JSON; --input places a file of that format", () =>
    Effect.gen(function*() {
      const printed = yield* cli(["demo", "--place", "--print-sample"])
      assert.deepStrictEqual(JSON.parse(printed.stdout), Sample.json)
      const input = yield* PlaceInput.decodeText("sample", printed.stdout)
      assert.strictEqual(input.pinned.length + input.scored.length, 17)
      const file = yield* writeTemp("trip.json", docBlock("place-example:input"))
      const run = yield* cli(["demo", "--place", "--input", file, "-p", "u-shaped", "-s", "truncate"])
      assert.strictEqual(run.code, 0, run.stderr)
      assert.include(run.stdout, "5 candidate items: 1 pinned, 4 scored")
      assert.include(run.stdout, "window: 96 tokens in 4 items")
    }))

  it.effect("--input with a bad file: the problems on stderr, nothing drawn, exit 2", () =>
    Effect.gen(function*() {
      const file = yield* writeTemp("bad.json", `{ "budget": { "maxTokens": 1, "targetTokens": 2 } }`)
      const run = yield* cli(["demo", "--place", "--input", file])
      assert.strictEqual(run.code, 2)
      assert.include(run.stderr, "budget.targetTokens: targetTokens (2) must not exceed maxTokens (1)")
      const refused = yield* writeTemp("neg.json", `{ ${budget}, "pinned": [{ "content": "neg", "tokens": -3 }] }`)
      const negative = yield* cli(["demo", "--place", "--input", refused])
      assert.strictEqual(negative.code, 2)
      assert.strictEqual(negative.stdout, "")
      assert.include(negative.stderr, `pinned[0] ("neg") has a negative token count (-3)`)
    }))
})

describe("the real program", () => {
  const node = `${root}node_modules/.bin/node`
  const cupel = (args: ReadonlyArray<string>, input?: string) =>
    spawnSync(node, [`${root}src/bin/cupel.ts`, ...args], { encoding: "utf8", input, cwd: root })

  it("exit codes reach the process: 0 placed, 1 overflow, 2 bad input or usage", () => {
    const example = docBlock("place-example:input")
    const placed = cupel(["place", "-", "--overflow", "truncate"], example)
    assert.strictEqual(placed.status, 0, placed.stderr)
    assert.deepStrictEqual(JSON.parse(placed.stdout), JSON.parse(docBlock("place-example:output")))
    const overflow = cupel(["place"], example)
    assert.strictEqual(overflow.status, 1)
    assert.deepStrictEqual(JSON.parse(overflow.stderr), JSON.parse(docBlock("place-example:overflow")))
    const bad = cupel(["place", "-"], "{")
    assert.strictEqual(bad.status, 2)
    assert.include(bad.stderr, "malformed JSON")
    assert.strictEqual(cupel(["place", "--overflow", "sometimes"], example).status, 2)
  })

  it("tokens adding up past MAX_SAFE_INTEGER: exit 2, one line on stderr, nothing on stdout", () => {
    const max = Number.MAX_SAFE_INTEGER
    const input = `{ "budget": { "maxTokens": 100, "targetTokens": 50 }, "scored": [
      { "item": { "content": "a", "tokens": ${max} }, "score": 1 }, { "item": { "content": "b", "tokens": 1 }, "score": 0.5 }
    ] }`
    for (const strategy of ["throw", "truncate", "proceed"]) {
      const run = cupel(["place", "-", "--overflow", strategy], input)
      assert.strictEqual(run.status, 2, `${strategy}: ${run.stdout}${run.stderr}`)
      assert.strictEqual(run.stdout, "")
      assert.match(run.stderr, /^cupel place: invalid input \(stdin\): the tokens of the merged items add up past \d+ .*\n$/)
    }
  })

  it("a usage error reaches the process as exit 2, with stdout empty: `cupel place --placer x | jq` feeds jq nothing", () => {
    const run = cupel(["place", "--placer", "x"], "{}")
    assert.strictEqual(run.status, 2)
    assert.strictEqual(run.stdout, "")
    assert.strictEqual(
      run.stderr,
      `cupel place: Invalid value for flag --placer: "x". Expected: "u-shaped" | "chronological"\nsee: cupel place --help\n`
    )
    const help = cupel(["place", "--help"])
    assert.strictEqual(help.status, 0)
    assert.strictEqual(help.stderr, "")
    assert.include(help.stdout, "--placer")
  })

  it("cupel conformance with no path, started from another folder, finds the vectors that ship with the package", () => {
    const elsewhere = mkdtempSync(join(tmpdir(), "cupel-cwd-"))
    try {
      const run = spawnSync(node, [`${root}src/bin/cupel.ts`, "conformance"], { encoding: "utf8", cwd: elsewhere })
      assert.strictEqual(run.status, 0, run.stdout + run.stderr)
      assert.strictEqual(run.stdout, "115 passed, 0 failed, 0 skipped\n")
    } finally {
      rmSync(elsewhere, { recursive: true, force: true })
    }
  })

  it("the package's bin launcher starts the CLI with the Node that npm provides", () => {
    const run = spawnSync(node, [`${root}bin/cupel.js`, "--help"], { encoding: "utf8", cwd: root })
    assert.strictEqual(run.status, 0, run.stderr)
    assert.include(run.stdout, "conformance")
    const pkg = JSON.parse(readFileSync(`${root}package.json`, "utf8"))
    assert.strictEqual(pkg.bin.cupel, "./bin/cupel.js")
  })

  it("the sample is valid place input", async () => {
    const decoded = Schema.decodeUnknownExit(PlaceInput.PlaceInput)(Sample.json)
    assert.isTrue(Exit.isSuccess(decoded))
  })
})
