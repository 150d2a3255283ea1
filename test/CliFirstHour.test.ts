/**
 * Issue 17, "A newcomer's first hour", item 5: the smaller defects found by trying the CLI as a
 * new user — deep input, infinite scores, raw bytes in error lines, escape sequences in
 * `cupel explain`, a silent wait on a terminal, missing `--budget`/`--max`/`--compact` on
 * `cupel run`, and misspelt item keys.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Effect, Sink, Stdio } from "effect"
import * as JsonDepth from "../src/cli/JsonDepth.ts"
import * as JsonOutput from "../src/cli/JsonOutput.ts"
import * as PlaceInput from "../src/cli/PlaceInput.ts"
import * as Sample from "../src/cli/Sample.ts"
import * as UnknownKeys from "../src/cli/UnknownKeys.ts"
import { itemKeys } from "../src/internal/fastDecode.ts"
import { cli, type Run, writeTemp } from "./support/cli.ts"
import { cliDoc, docTableRows } from "./support/docs.ts"

/** A control character a terminal would act on; newlines separate the error lines themselves. */
const rawControl = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/

/** Asserts a refused request: exit 2, nothing on stdout, no raw control character on stderr. */
const assertRefused = (run: Run, ...expected: ReadonlyArray<string>) => {
  assert.strictEqual(run.code, 2, run.stderr)
  assert.strictEqual(run.stdout, "")
  assert.notMatch(run.stderr, rawControl)
  for (const text of expected) assert.include(run.stderr, text)
}

const budget = { maxTokens: 100, targetTokens: 50 }

/** `{ "a": { "a": … {} } }` with `levels` objects in all. */
const nested = (levels: number): string => {
  let text = "{}"
  for (let i = 1; i < levels; i++) text = `{"a":${text}}`
  return text
}

/** A `cupel run` input whose one item has metadata of `levels` nested objects. */
const runInputWithMetadata = (levels: number): string =>
  `{"budget":{"maxTokens":100,"targetTokens":50},"scorer":{"type":"priority"},` +
  `"items":[{"content":"deep","tokens":1,"metadata":${nested(levels)}}]}`

const placeInputWithMetadata = (levels: number): string =>
  `{"budget":{"maxTokens":100,"targetTokens":50},"scored":[{"score":0.5,` +
  `"item":{"content":"deep","tokens":1,"metadata":${nested(levels)}}}]}`

layer(NodeServices.layer)("cupel: deep input (issue 17, item 5a)", (it) => {
  it.effect("metadata nested 5,000 levels is bad input for run and place (exit 2, one line), not a bug (exit 3)", () =>
    Effect.gen(function*() {
      for (const command of ["run", "explain"]) {
        const run = yield* cli([command], runInputWithMetadata(5_000))
        assertRefused(run, `cupel ${command}: invalid input (stdin): items[0].metadata.a.a.a`, "nested deeper than 512 levels")
        assert.strictEqual(run.stderr.split("\n").length, 1, run.stderr)
      }
      // cupel place lists its problems under one heading, as ever.
      const place = yield* cli(["place"], placeInputWithMetadata(5_000))
      assertRefused(place, "cupel place: invalid input (stdin):\n  scored[0].item.metadata.a.a", "nested deeper than 512 levels")
    }))

  it.effect("a deep array where an item's tags belong, and a deep unknown key, are refused the same way", () =>
    Effect.gen(function*() {
      let tags = "[]"
      for (let i = 0; i < 6_000; i++) tags = `[${tags}]`
      const deepTags = yield* cli(["run"], `{"budget":{"maxTokens":9,"targetTokens":9},"scorer":{"type":"priority"},` +
        `"items":[{"content":"x","tokens":1,"tags":${tags}}]}`)
      assertRefused(deepTags, "items[0].tags[0][0]", "nested deeper than 512 levels")
      const deepPolicy = yield* writeTemp("policy.json", `{"scorer":${nested(600)}}`)
      const policy = yield* cli(["run", "--policy", deepPolicy], runInputWithMetadata(1))
      assertRefused(policy, `invalid policy (${deepPolicy}): scorer.a.a`)
    }))

  it.effect("an input nested exactly JsonDepth.maxDepth levels runs, and its metadata comes back whole", () =>
    Effect.gen(function*() {
      // The document, items, the item: three levels above the metadata.
      const levels = JsonDepth.maxDepth - 3
      const run = yield* cli(["run"], runInputWithMetadata(levels))
      assert.strictEqual(run.code, 0, run.stderr)
      const output = JSON.parse(run.stdout)
      assert.strictEqual(JSON.stringify(output.window[0].metadata), nested(levels))
      assertRefused(yield* cli(["run"], runInputWithMetadata(levels + 1)), "nested deeper than 512 levels")
    }))

  it("JsonDepth.problem names the path to the first level too deep", () => {
    assert.isUndefined(JsonDepth.problem({ items: [{ metadata: {} }] }, 4))
    assert.strictEqual(
      JsonDepth.problem({ items: [{ metadata: { a: {} } }] }, 4),
      "items[0].metadata.a: nested deeper than 4 levels of arrays and objects, the most cupel reads"
    )
    assert.isUndefined(JsonDepth.problem("text", 0))
  })
})

layer(NodeServices.layer)("cupel place: infinite scores (issue 17, item 5b)", (it) => {
  const input = JSON.stringify({
    budget: { maxTokens: 100, targetTokens: 10 },
    scored: [
      { item: { content: "kept", tokens: 8 }, score: 0.5 },
      { item: { content: "high", tokens: 8 }, score: "Infinity" },
      { item: { content: "low", tokens: 8 }, score: "-Infinity" }
    ]
  }).replace(`"score":0.5`, `"score":1e999`)

  it.effect("an infinite score is written as \"Infinity\" / \"-Infinity\", not null, and the output reads back", () =>
    Effect.gen(function*() {
      const run = yield* cli(["place", "--overflow", "truncate"], input)
      assert.strictEqual(run.code, 0, run.stderr)
      const output = JSON.parse(run.stdout)
      assert.deepStrictEqual(output.excluded.map((e: { readonly score: unknown }) => e.score), ["Infinity", "-Infinity"])
      // The excluded pairs, fed back as they were printed, decode to the same scores.
      const again = yield* cli(["place", "--overflow", "truncate"], JSON.stringify({
        budget: { maxTokens: 100, targetTokens: 100 },
        scored: output.excluded.map((e: { readonly item: unknown; readonly score: unknown }) => ({ item: e.item, score: e.score }))
      }))
      assert.strictEqual(again.code, 0, again.stderr)
      const decoded = yield* PlaceInput.decodeText("stdin", JSON.stringify({ budget, scored: output.excluded.map((e: { readonly item: unknown; readonly score: unknown }) => ({ item: e.item, score: e.score })) }))
      assert.deepStrictEqual(decoded.scored.map((s) => s.score), [Infinity, -Infinity])
    }))

  it.effect("other strings are still not scores, and keep the message they had", () =>
    Effect.gen(function*() {
      const run = yield* cli(["place"], JSON.stringify({ budget, scored: [{ item: { content: "a", tokens: 1 }, score: "inf" }] }))
      assertRefused(run, `scored[0].score: Expected a number, got "inf"`)
      const bool = yield* cli(["place"], JSON.stringify({ budget, scored: [{ item: { content: "a", tokens: 1 }, score: true }] }))
      assertRefused(bool, `scored[0].score: Expected a number, got true`)
      const nan = yield* cli(["place"], JSON.stringify({ budget, scored: [{ item: { content: "a", tokens: 1 }, score: "NaN" }] }))
      assertRefused(nan, `scored[0].score: Expected a number, got "NaN"`)
    }))
})

layer(NodeServices.layer)("cupel: raw bytes in error lines (issue 17, item 5c)", (it) => {
  it.effect("UTF-16 input with a byte order mark is named as such, for every command that reads JSON", () =>
    Effect.gen(function*() {
      const json = JSON.stringify({ budget, scorer: { type: "priority" }, items: [{ content: "x", tokens: 1 }] })
      const little = Buffer.from("\ufeff" + json, "utf16le")
      const big = Buffer.from(little).swap16()
      for (const command of ["run", "explain", "place", "budget"]) {
        const run = yield* cli([command, ...(command === "budget" ? ["--marginal", "1"] : [])], { stdin: little })
        assertRefused(run, `cupel ${command}: invalid input (stdin)`, "not UTF-8 JSON (UTF-16?)", "byte order mark FF FE")
      }
      assertRefused(yield* cli(["run"], { stdin: big }), "not UTF-8 JSON (UTF-16?)", "byte order mark FE FF")
      const file = yield* writeTemp("utf16.json", "")
      yield* Effect.promise(() => import("node:fs/promises").then((fs) => fs.writeFile(file, little)))
      assertRefused(yield* cli(["run", file]), `invalid input (${file}): not UTF-8 JSON (UTF-16?)`)
    }))

  it.effect("UTF-16 without a byte order mark is known by its NUL bytes", () =>
    Effect.gen(function*() {
      const run = yield* cli(["run"], { stdin: Buffer.from(`{"budget": {}}`, "utf16le") })
      assertRefused(run, "not UTF-8 JSON (UTF-16?): 14 of its first 28 bytes are NUL")
    }))

  it.effect("binary input: the parser's message quotes it with every control character escaped", () =>
    Effect.gen(function*() {
      // ESC [ 3 1 m, BEL, SOH, NUL, a byte that is not UTF-8, U+009B (a one-character CSI), CR.
      const bytes = Uint8Array.from([0x1b, 0x5b, 0x33, 0x31, 0x6d, 0x7b, 0x07, 0x01, 0x00, 0x9b, 0xc2, 0x9b, 0x0d])
      for (const command of ["run", "place", "explain"]) {
        const run = yield* cli([command], { stdin: bytes })
        assertRefused(run, "malformed JSON", `"\\u001b[31m{\\u0007\\u0001\\u0000\ufffd\\u009b\\r"`)
        // One line per problem: run's one line, place's heading and its one problem.
        assert.strictEqual(run.stderr.split("\n").length, command === "place" ? 2 : 1, run.stderr)
      }
    }))

  it.effect("a file name with control characters is escaped where it is echoed", () =>
    Effect.gen(function*() {
      const run = yield* cli(["run", "no\u001b[2Jsuch\nfile.json"])
      assertRefused(run, "invalid input (no\\u001b[2Jsuch\\nfile.json): cannot read")
      assert.strictEqual(run.stderr.split("\n").length, 1, run.stderr)
      const place = yield* cli(["place", "no\u001b[2Jsuch.json"])
      assertRefused(place, "invalid input (no\\u001b[2Jsuch.json)")
    }))
})

layer(NodeServices.layer)("cupel explain: escape sequences in items (issue 17, item 5d)", (it) => {
  it.effect("an item's content, kind and the input's name never reach the terminal as control sequences", () =>
    Effect.gen(function*() {
      const input = JSON.stringify({
        budget: { maxTokens: 100, targetTokens: 10 },
        scorer: { type: "kind", weights: { "Evil\u001b[5m": 1 } },
        items: [
          { content: "\u001b[31mred\u001b[0m and \u009b2J", tokens: 3, kind: "Evil\u001b[5m" },
          { content: "\u001b[31mred\u001b[0m and \u009b2J", tokens: 3 },
          { content: "bell\u0007 \u001b]0;title\u0007", tokens: 30 }
        ]
      })
      const file = yield* writeTemp("in\u001b[1mput.json", input)
      // On a terminal, with colour: cupel's own sequences only.
      for (const terminal of [false, true]) {
        const run = yield* cli(["explain", file], { terminal })
        assert.strictEqual(run.code, 0, run.stderr)
        const own = run.stdout.replace(/\u001b\[(?:\d+;)*\d*m/g, "")
        // Every escape the terminal sees is one of cupel's colours, and the text shows the escapes.
        assert.notMatch(own, rawControl, own)
        assert.include(run.stdout, "\\u001b[31mred\\u001b[0m and \\u009b2J")
        assert.include(run.stdout, "in\\u001b[1mput.json")
        assert.include(run.stdout, "evil")
        assert.notInclude(run.stdout, "\u001b[5m")
        assert.notInclude(run.stdout, "\u001b[31mred")
      }
    }))
})

layer(NodeServices.layer)("cupel: a terminal on standard input (issue 17, item 5f)", (it) => {
  const input = JSON.stringify({ budget, scorer: { type: "priority" }, items: [{ content: "x", tokens: 1 }] })

  it.effect("reading standard input from a terminal says so on stderr first, for every command that reads it", () =>
    Effect.gen(function*() {
      const run = yield* cli(["run"], { stdin: input, stdinTerminal: true })
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(run.stderr, `cupel run: ${PlaceInput.terminalHint}`)
      assert.strictEqual(
        PlaceInput.terminalHint,
        "reading items from stdin… (pass a file, or pipe JSON; Ctrl-D to end)"
      )
      assert.strictEqual(JSON.parse(run.stdout).window.length, 1)
      for (const command of ["explain", "place"]) {
        const other = yield* cli([command, "-"], { stdin: "", stdinTerminal: true })
        assert.strictEqual(other.stderr.split("\n")[0], `cupel ${command}: ${PlaceInput.terminalHint}`)
      }
    }))

  it.effect("piped input, or a file named, gets no hint", () =>
    Effect.gen(function*() {
      const piped = yield* cli(["run"], { stdin: input })
      assert.strictEqual(piped.code, 0, piped.stderr)
      assert.strictEqual(piped.stderr, "")
      const file = yield* writeTemp("input.json", input)
      const named = yield* cli(["run", file], { stdinTerminal: true })
      assert.strictEqual(named.code, 0, named.stderr)
      assert.strictEqual(named.stderr, "")
    }))
})

/** A run's JSON without the stage durations, which differ from run to run. */
const withoutDurations = (text: string): unknown => {
  const json = JSON.parse(text)
  for (const event of json.report.events) delete event.duration_ms
  return json
}

/** The long flags `cupel COMMAND --help` lists under FLAGS. */
const helpFlags = (help: string): Array<string> => {
  const section = help.slice(help.indexOf("FLAGS\n"), help.indexOf("GLOBAL FLAGS"))
  return [...section.matchAll(/^ {2}(--[a-z-]+)/gm)].map((m) => m[1]!)
}

layer(NodeServices.layer)("cupel run: --budget, --max, --compact (issue 17, item 5g)", (it) => {
  const sample = JSON.stringify(Sample.pipeline)
  const withBudget = (targetTokens: number, maxTokens = Sample.pipeline.budget.maxTokens) =>
    JSON.stringify({ ...Sample.pipeline, budget: { ...Sample.pipeline.budget, targetTokens, maxTokens } })

  it.effect("--budget sets the target and --max the maximum: the run is the run of the input with that budget", () =>
    Effect.gen(function*() {
      const flags = yield* cli(["run", "--budget", "1500", "--max", "8000"], sample)
      assert.strictEqual(flags.code, 0, flags.stderr)
      const edited = yield* cli(["run"], withBudget(1500, 8000))
      assert.deepStrictEqual(withoutDurations(flags.stdout), withoutDurations(edited.stdout))
      const short = yield* cli(["run", "-b", "300"], sample)
      assert.deepStrictEqual(withoutDurations(short.stdout), withoutDurations((yield* cli(["run"], withBudget(300))).stdout))
      // The budget changes the answer: a smaller target leaves more out.
      assert.isAbove(
        JSON.parse(flags.stdout).window.length,
        JSON.parse(short.stdout).window.length
      )
    }))

  it.effect("with --preset too, and in explain and budget, which read the input as run does", () =>
    Effect.gen(function*() {
      const preset = yield* cli(["run", "--preset", "chat", "--budget", "300"], sample)
      const edited = yield* cli(["run", "--preset", "chat"], withBudget(300))
      assert.strictEqual(preset.code, 0, preset.stderr)
      assert.deepStrictEqual(withoutDurations(preset.stdout), withoutDurations(edited.stdout))
      const explain = yield* cli(["explain", "--budget", "300", "--max", "5000"], sample)
      assert.strictEqual(explain.code, 0, explain.stderr)
      assert.include(explain.stdout, "budget: target 300, max 5,000")
      const marginal = yield* cli(["budget", "--budget", "300", "--marginal", "10"], sample)
      assert.strictEqual(marginal.code, 0, marginal.stderr)
      assert.deepStrictEqual(JSON.parse(marginal.stdout).budget, { maxTokens: 4096, targetTokens: 300 })
    }))

  it.effect("a target above the maximum is bad input, exit 2, naming the flags", () =>
    Effect.gen(function*() {
      const run = yield* cli(["run", "--budget", "9000"], sample)
      assertRefused(
        run,
        "cupel run: invalid input (--budget / --max): budget.targetTokens: targetTokens (9000) must not exceed maxTokens (4096)",
        "cupel run: invalid input (--budget / --max): (--budget sets targetTokens, --max sets maxTokens)"
      )
      assertRefused(yield* cli(["run", "--max", "10"], sample), "targetTokens (700) must not exceed maxTokens (10)")
    }))

  it.effect("--compact prints the same JSON on one line, without indentation; so does place", () =>
    Effect.gen(function*() {
      const compact = yield* cli(["run", "--compact"], sample)
      assert.strictEqual(compact.code, 0, compact.stderr)
      assert.notInclude(compact.stdout, "\n")
      const indented = yield* cli(["run"], sample)
      assert.deepStrictEqual(withoutDurations(compact.stdout), withoutDurations(indented.stdout))
      assert.strictEqual(JSON.stringify(JSON.parse(compact.stdout)), compact.stdout)
      const place = yield* cli(["place", "--compact", "--overflow", "truncate"], JSON.stringify(Sample.json))
      assert.strictEqual(place.code, 0, place.stderr)
      assert.notInclude(place.stdout, "\n")
      const placeIndented = yield* cli(["place", "--overflow", "truncate"], JSON.stringify(Sample.json))
      assert.strictEqual(place.stdout, JSON.stringify(JSON.parse(placeIndented.stdout)))
    }))

  it.effect("JsonOutput.logCompact writes JSON.stringify(value) and one newline, in several pieces when large", () =>
    Effect.gen(function*() {
      const large = Array.from({ length: 50_000 }, (_, i) => ({ content: "x".repeat(20), tokens: i, f: undefined }))
      const values: ReadonlyArray<unknown> = [[large], { a: [1, large, null], b: "end", c: undefined }, [[], [large], "end"], 3, "s"]
      for (const [index, value] of values.entries()) {
        assert.strictEqual([...JsonOutput.compactPieces(value)].join(""), JSON.stringify(value))
        const writes: Array<string> = []
        yield* JsonOutput.logCompact(value).pipe(
          Effect.provide(Stdio.layerTest({
            stdout: () => Sink.forEach((chunk: string | Uint8Array) => Effect.sync(() => writes.push(String(chunk))))
          }))
        )
        assert.strictEqual(writes.join(""), JSON.stringify(value) + "\n")
        // About 2.3 million characters: more than one batch of a million.
        if (index < 3) assert.isAtLeast(writes.length, 2)
      }
    }))

  it.effect("docs/cli.md's flag tables for run and place list every flag the commands take", () =>
    Effect.gen(function*() {
      for (const command of ["run", "place"]) {
        const documented = docTableRows(`${command}-flags`).map((row) => row[0]!).join(" ")
        const flags = helpFlags((yield* cli([command, "--help"])).stdout)
        assert.includeMembers(flags, ["--compact"])
        for (const flag of flags) assert.include(documented, `\`${flag}`, `${command} ${flag}`)
      }
      assert.include(cliDoc, "| `--budget`, `-b` N |")
    }))
})

layer(NodeServices.layer)("cupel: misspelt item keys (issue 17, item 5h)", (it) => {
  const input = JSON.stringify({
    budget,
    scorer: { type: "priority" },
    items: [
      { content: "pinned, or so the user thought", tokens: 5, pined: true },
      { content: "b", tokens: 1, id: 1 },
      { content: "c", tokens: 1, id: 2, Kind: "Document" }
    ]
  })

  it.effect("run warns on stderr, one line per key: the first item, how many, the nearest known key; the run goes on", () =>
    Effect.gen(function*() {
      const run = yield* cli(["run"], input)
      assert.strictEqual(run.code, 0, run.stderr)
      assert.deepStrictEqual(run.stderr.split("\n"), [
        `cupel run: warning (stdin): items[0].pined: unknown key (did you mean "pinned"?), ignored`,
        `cupel run: warning (stdin): items[1].id: unknown key, in 2 items, ignored`,
        `cupel run: warning (stdin): items[2].Kind: unknown key (did you mean "kind"?), ignored`
      ])
      // Ignored: the item ran unpinned, as the schema reads it.
      assert.isFalse(JSON.parse(run.stdout).window.some((item: { readonly pinned: boolean }) => item.pinned))
    }))

  it.effect("--strict refuses them, exit 2, nothing on stdout; explain and budget take it too", () =>
    Effect.gen(function*() {
      const run = yield* cli(["run", "--strict"], input)
      assertRefused(run)
      assert.deepStrictEqual(run.stderr.split("\n"), [
        `cupel run: invalid input (stdin): items[0].pined: unknown key (did you mean "pinned"?)`,
        `cupel run: invalid input (stdin): items[1].id: unknown key, in 2 items`,
        `cupel run: invalid input (stdin): items[2].Kind: unknown key (did you mean "kind"?)`
      ])
      assertRefused(yield* cli(["explain", "--strict"], input), "cupel explain: invalid input (stdin): items[0].pined")
      assertRefused(yield* cli(["budget", "--strict", "--marginal", "1"], input), "cupel budget: invalid input (stdin): items[0].pined")
      assertRefused(yield* cli(["run", "--strict", "--preset", "chat"], input), "items[0].pined: unknown key")
      // Without unknown keys, --strict changes nothing.
      const clean = yield* cli(["run", "--strict"], JSON.stringify(Sample.pipeline))
      assert.strictEqual(clean.code, 0, clean.stderr)
      assert.strictEqual(clean.stderr, "")
    }))

  it.effect("place: keys of items, pinned and scored, and of the pairs; --strict too", () =>
    Effect.gen(function*() {
      const place = JSON.stringify({
        budget,
        pinned: [{ content: "p", tokens: 1, metdata: {} }],
        scored: [{ item: { content: "a", tokens: 1, tokns: 1 }, score: 1, note: "x" }]
      })
      const warned = yield* cli(["place"], place)
      assert.strictEqual(warned.code, 0, warned.stderr)
      assert.deepStrictEqual(warned.stderr.split("\n"), [
        `cupel place: warning (stdin): pinned[0].metdata: unknown key (did you mean "metadata"?), ignored`,
        `cupel place: warning (stdin): scored[0].note: unknown key, ignored`,
        `cupel place: warning (stdin): scored[0].item.tokns: unknown key (did you mean "tokens"?), ignored`
      ])
      const strict = yield* cli(["place", "--strict"], place)
      assertRefused(strict, "cupel place: invalid input (stdin):\n  pinned[0].metdata: unknown key")
    }))

  it.effect("when the input is refused anyway, its unknown keys follow the problems: a misspelling explains a missing field", () =>
    Effect.gen(function*() {
      const run = yield* cli(["run"], JSON.stringify({ budget, scorer: { type: "priority" }, items: [{ content: "a", tokns: 1 }] }))
      assertRefused(run)
      assert.deepStrictEqual(run.stderr.split("\n"), [
        "cupel run: invalid input (stdin): items[0].tokens: is required but missing",
        `cupel run: invalid input (stdin): items[0].tokns: unknown key (did you mean "tokens"?)`
      ])
    }))

  it("UnknownKeys.suggest: the same key in another case, or the nearest within a third of its length", () => {
    assert.strictEqual(UnknownKeys.suggest("pined", itemKeys), "pinned")
    assert.strictEqual(UnknownKeys.suggest("contnet", itemKeys), "content")
    assert.strictEqual(UnknownKeys.suggest("TIMESTAMP", itemKeys), "timestamp")
    assert.strictEqual(UnknownKeys.suggest("futureRelevance", itemKeys), "futureRelevanceHint")
    assert.isUndefined(UnknownKeys.suggest("id", itemKeys))
    assert.isUndefined(UnknownKeys.suggest("source_url", itemKeys))
  })

  it("UnknownKeys.lines: ten keys described, the rest counted", () => {
    const items = [Object.fromEntries(Array.from({ length: 13 }, (_, i) => [`extra${i}`, i]))]
    const lines = UnknownKeys.lines(UnknownKeys.inRunInput({ items }), true)
    assert.strictEqual(lines.length, 11)
    assert.strictEqual(lines[0], "items[0].extra0: unknown key, ignored")
    assert.strictEqual(lines[10], "and 3 more unknown keys")
  })

  it("the check is one pass that costs little beside decoding: a million items' keys in well under a second", () => {
    const items = Array.from({ length: 1_000_000 }, (_, i) => ({ content: "x", tokens: i, timestamp: "2024-06-01T00:00:00Z" }))
    const start = performance.now()
    assert.deepStrictEqual(UnknownKeys.inRunInput({ items }), [])
    // About 25 ms on a quiet machine; the bound leaves room for a loaded one.
    assert.isBelow(performance.now() - start, 2_000)
  })
})
