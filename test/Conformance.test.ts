import { NodeServices } from "@effect/platform-node"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, FileSystem, Path } from "effect"
import { createHash } from "node:crypto"
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as ConformanceCommand from "../src/cli/ConformanceCommand.ts"
import * as Conformance from "../src/Conformance.ts"

const root = fileURLToPath(new URL("..", import.meta.url))
// Everything the tests run ships with the repository: a fresh clone needs nothing beside it.
const cupelVectors = `${root}conformance/cupel`
const ownVectors = `${root}conformance/place`

// The vendored suite is upstream's folder `conformance/` at this commit, unmodified (NOTICE.md).
const upstream = {
  commit: "0b82dad6ace5baffbb721f5374058bd1ce091551",
  tree: "536e90771ee6225c21f31d88b3d675de3d58664f"
}
// Files added beside the upstream ones; they are not part of upstream's tree.
const addedFiles = new Set([".gitattributes", "LICENSE", "NOTICE.md"])

/**
 * The git object id of `dir` as a tree, as `git write-tree` would compute it for these files
 * (regular, non-executable files and folders; names in `skip` at the top level left out).
 * Equal ids mean byte-identical contents under identical names.
 */
const gitTreeId = (dir: string, skip: ReadonlySet<string> = new Set()): string => {
  const sha1 = (type: string, body: Buffer) =>
    createHash("sha1").update(Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body])).digest()
  const tree = (folder: string, top: boolean): Buffer => {
    const entries = readdirSync(folder)
      .filter((name) => !(top && skip.has(name)))
      .map((name) => {
        const full = join(folder, name)
        const isDir = statSync(full).isDirectory()
        // git orders a folder as if its name ended with "/"
        return { name, key: isDir ? `${name}/` : name, isDir, full }
      })
      .sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)))
    return sha1(
      "tree",
      Buffer.concat(entries.map((e) =>
        Buffer.concat([
          Buffer.from(`${e.isDir ? "40000" : "100644"} ${e.name}\0`),
          e.isDir ? tree(e.full, false) : sha1("blob", readFileSync(e.full))
        ])
      ))
    )
  }
  return tree(dir, true).toString("hex")
}

const lines = (report: Conformance.Report) => Conformance.formatReport(report).join("\n")

/** Writes vector files into a fresh temporary folder, removed when the test's scope closes. */
const folderWith = (files: Record<string, string>) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const dir = yield* fs.makeTempDirectoryScoped({ prefix: "cupel-conformance-" })
    for (const [name, text] of Object.entries(files)) {
      yield* fs.makeDirectory(path.dirname(path.join(dir, name)), { recursive: true })
      yield* fs.writeFileString(path.join(dir, name), text)
    }
    return dir
  })

const placeVector = (name: string, expected: string, strategy = "truncate") => `
[test]
name = "${name}"
stage = "place"
placer = "u-shaped"
overflow_strategy = "${strategy}"

[budget]
max_tokens = 100
target_tokens = 50

[[pinned]]
content = "p"
tokens = 10

[[scored_items]]
content = "a"
tokens = 30
score = 0.2

[[scored_items]]
content = "b"
tokens = 30
score = 0.9

[expected]
${expected}
`

const quotaVector = `
[test]
name = "a quota vector"
stage = "slicing"
slicer = "count_quota"

[config]
inner_slicer = "greedy"

[[config.entries]]
kind = "tool"
cap_count = 1

[budget]
target_tokens = 10

[[scored_items]]
content = "x"
tokens = 1
score = 0.5
kind = "tool"

[[scored_items]]
content = "y"
tokens = 1
score = 0.4
kind = "tool"

[expected]
selected_contents = ["x"]
cap_excluded_count = 1
`

const typoVector = `
[test]
name = "a typo"
stage = "plcae"
`

layer(NodeServices.layer)("Conformance — the vectors", (it) => {
  it.effect("conformance/place: the project's 48 place vectors (32 hand-written, 16 samples), all passed, none skipped", () =>
    Effect.gen(function*() {
      const report = yield* Conformance.run([ownVectors])
      assert.strictEqual(report.failed, 0, lines(report))
      assert.strictEqual(report.skipped, 0)
      assert.strictEqual(report.passed, 48)
      for (const outcome of report.outcomes) {
        assert.strictEqual(outcome._tag, "Passed", Conformance.formatOutcome(outcome))
        if (outcome._tag === "Passed") assert.strictEqual(outcome.stage, "place")
      }
      assert.strictEqual(report.outcomes.filter((o) => o.file.includes("/samples/")).length, 16)
    }))

  it("conformance/cupel is in the repository, with its licence and notice: a missing copy fails, it is never skipped", () => {
    for (const file of ["README.md", "LICENSE", "NOTICE.md", "required", "optional"]) {
      assert.isTrue(existsSync(`${cupelVectors}/${file}`), `the vendored Cupel suite lacks ${file}: ${cupelVectors}`)
    }
    const licence = readFileSync(`${cupelVectors}/LICENSE`, "utf8")
    assert.match(licence, /^MIT License\n\nCopyright \(c\) 2026 Wollax\n/)
    const notice = readFileSync(`${cupelVectors}/NOTICE.md`, "utf8")
    for (const fact of ["https://github.com/wollax/cupel", upstream.commit, upstream.tree, "1.3.0", "nmodified"]) {
      assert.include(notice, fact)
    }
  })

  it("conformance/cupel is upstream's conformance/ at 0b82dad byte for byte: its git tree id is upstream's", () => {
    assert.strictEqual(gitTreeId(cupelVectors, addedFiles), upstream.tree)
  })

  it("the tree id check catches a changed byte, a renamed file, a missing file and an added vector", () => {
    // On a copy: the check above is worth something only if every kind of edit changes the id.
    const dir = mkdtempSync(join(tmpdir(), "cupel-vendored-"))
    try {
      cpSync(cupelVectors, dir, { recursive: true })
      assert.strictEqual(gitTreeId(dir, addedFiles), upstream.tree)
      const vector = join(dir, "required", "placing", "u-shaped-basic.toml")
      const text = readFileSync(vector)
      const edited = Buffer.from(text)
      edited[edited.length - 1] = edited[edited.length - 1]! ^ 1
      const ids = new Set([upstream.tree])
      const expectNew = (edit: string) => {
        const id = gitTreeId(dir, addedFiles)
        assert.isFalse(ids.has(id), `${edit}: the tree id did not change`)
        ids.add(id)
      }
      writeFileSync(vector, edited)
      expectNew("one byte changed")
      writeFileSync(vector, text)
      renameSync(vector, join(dir, "required", "placing", "u-shaped-basic2.toml"))
      expectNew("a file renamed")
      rmSync(join(dir, "required", "placing", "u-shaped-basic2.toml"))
      expectNew("a file removed")
      writeFileSync(vector, text)
      writeFileSync(join(dir, "optional", "extra.toml"), "")
      expectNew("a file added")
      rmSync(join(dir, "optional", "extra.toml"))
      assert.strictEqual(gitTreeId(dir, addedFiles), upstream.tree)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it.effect("conformance/cupel: every one of the 67 Cupel vectors passed, 0 failed, 0 skipped", () =>
    Effect.gen(function*() {
      const report = yield* Conformance.run([cupelVectors])
      assert.strictEqual(report.failed, 0, lines(report))
      assert.strictEqual(report.skipped, 0, lines(report))
      const counts = new Map<string, number>()
      for (const outcome of report.outcomes) {
        assert.strictEqual(outcome._tag, "Passed", Conformance.formatOutcome(outcome))
        if (outcome._tag !== "Passed") continue
        counts.set(outcome.stage, (counts.get(outcome.stage) ?? 0) + 1)
      }
      // Counted from the folder: scoring 28 required + 4 optional; slicing 16 required (5
      // greedy/knapsack, 1 quota, 5 count-quota, 5 count-constrained-knapsack) + 1 optional greedy;
      // pipeline 10 + 4; placing 4 — 67 Cupel vectors.
      assert.deepStrictEqual(Object.fromEntries(counts), { scoring: 32, slicing: 17, pipeline: 14, placing: 4 })
      assert.deepStrictEqual([report.passed, report.failed, report.skipped], [67, 0, 0])
    }))

  it.effect("the default of `cupel conformance` is the vendored suite and the project's vectors, found from the package, not the working directory", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const defaults = yield* ConformanceCommand.defaultPaths
      assert.deepStrictEqual(defaults.map((p) => path.resolve(p)), [path.resolve(cupelVectors), path.resolve(ownVectors)])
      const report = yield* Conformance.run(defaults)
      assert.deepStrictEqual([report.passed, report.failed, report.skipped], [115, 0, 0], lines(report))
    }))

  it.effect("the example vector in docs/conformance.md passes", () =>
    Effect.gen(function*() {
      const doc = readFileSync(`${root}docs/conformance.md`, "utf8")
      const toml = /```toml\n([\s\S]*?)```/.exec(doc)?.[1]
      assert.isDefined(toml)
      const vector = yield* Conformance.parseVector("docs/conformance.md", toml!)
      const outcome = yield* Conformance.runVector(vector)
      assert.strictEqual(outcome._tag, "Passed", Conformance.formatOutcome(outcome))
    }))
})

layer(NodeServices.layer)("Conformance — failure reporting", (it) => {
  it.effect("a vector with a wrong expectation is failed, and its line names file, test, expected and actual", () =>
    Effect.gen(function*() {
      const dir = yield* folderWith({
        "wrong.toml": placeVector("wrong order", `ordered_contents = ["p", "b", "a"]\nexcluded_contents = []`)
      })
      const report = yield* Conformance.run([dir])
      assert.deepStrictEqual([report.passed, report.failed, report.skipped], [0, 1, 0])
      const line = Conformance.formatOutcome(report.outcomes[0]!)
      // merged p 10, a 30, b 30 = 70 > 50: Truncate keeps p, a (40) and drops b; u-shape → p, a
      assert.include(line, "wrong.toml")
      assert.include(line, `"wrong order"`)
      assert.include(line, `ordered_contents: expected ["p", "b", "a"], got ["p", "a"]`)
      assert.include(line, `excluded_contents: expected [], got ["b"]`)
      assert.strictEqual(Conformance.formatReport(report).at(-1), "0 passed, 1 failed, 0 skipped")
    }))

  it.effect("every kind of expectation is checked: overflow error, merged tokens, notifier", () =>
    Effect.gen(function*() {
      const dir = yield* folderWith({
        "1-no-overflow-expected.toml": placeVector("no error expected", `ordered_contents = ["p", "a", "b"]`, "throw"),
        "2-merged-tokens.toml": placeVector("merged tokens", `error = "overflow"\nmerged_tokens = 71`, "throw"),
        "3-unexpected-success.toml": placeVector("error expected", `error = "overflow"`, "proceed"),
        "4-silent-notifier.toml": placeVector("notifier", `ordered_contents = ["p", "a", "b"]`, "proceed"),
        "5-right.toml": placeVector("right", `ordered_contents = ["p", "a", "b"]\noverflow_tokens = 20`, "proceed")
      })
      const report = yield* Conformance.run([dir])
      const [noError, merged, success, notifier, right] = report.outcomes.map(Conformance.formatOutcome)
      assert.include(noError, "got OverflowError: Selected items require 70 tokens, exceeding target budget of 50")
      assert.include(merged, "merged_tokens: expected 71, got 70")
      assert.include(success, `error: expected overflow, got no error; placed ["p", "a", "b"]`)
      assert.include(notifier, "overflow_tokens: expected no overflow event, got 20")
      assert.match(right!, /^PASS /)
      assert.deepStrictEqual([report.passed, report.failed, report.skipped], [1, 4, 0])
    }))

  it.effect("an unparsable file is reported, and the other files still run", () =>
    Effect.gen(function*() {
      const dir = yield* folderWith({
        "a-broken.toml": "[test\nname = \"x\"\n",
        "b-good.toml": placeVector("good", `ordered_contents = ["p", "a"]\nexcluded_contents = ["b"]`)
      })
      const report = yield* Conformance.run([dir])
      assert.deepStrictEqual([report.passed, report.failed, report.skipped], [1, 1, 0])
      const broken = report.outcomes.find((o) => o._tag === "Broken")
      assert.isDefined(broken)
      const line = Conformance.formatOutcome(broken!)
      assert.match(line, /^FAIL .*a-broken\.toml: not valid TOML: .*\(line 1, column \d+\)$/)
      assert.notInclude(line, "\n")
    }))

  it.effect("vectors are found in nested folders (a count_quota vector passes); other files are ignored; an unknown stage fails", () =>
    Effect.gen(function*() {
      const dir = yield* folderWith({
        "nested/quota.toml": quotaVector,
        "typo.toml": typoVector,
        "notes.txt": "not a vector: only .toml files are collected from folders"
      })
      const report = yield* Conformance.run([dir])
      assert.deepStrictEqual([report.passed, report.failed, report.skipped], [1, 1, 0], lines(report))
      const passed = report.outcomes.find((o) => o._tag === "Passed")
      assert.match(Conformance.formatOutcome(passed!), /^PASS .*nested\/quota\.toml "a quota vector"$/)
      const typo = report.outcomes.find((o) => o._tag === "Broken")
      assert.include(Conformance.formatOutcome(typo!), `test.stage: unknown stage "plcae"`)
    }))

  it.effect("a skipped vector (a component not implemented) is printed without --verbose: a skip is never silent", () =>
    Effect.sync(() => {
      const outcome: Conformance.Outcome = {
        _tag: "Skipped",
        file: "x.toml",
        name: "a future slicer",
        stage: "slicing",
        reason: "not implemented yet"
      }
      const text = Conformance.formatReport({ outcomes: [outcome], passed: 0, failed: 0, skipped: 1 })
      assert.include(text.join("\n"), `SKIP x.toml "a future slicer" (not implemented yet)`)
      assert.strictEqual(text.at(-1), "0 passed, 0 failed, 1 skipped")
    }))

  it.effect("a path that does not exist, and a folder without vectors, are failures", () =>
    Effect.gen(function*() {
      const dir = yield* folderWith({ "readme.md": "no vectors here" })
      const report = yield* Conformance.run([`${dir}/missing.toml`, dir])
      assert.deepStrictEqual([report.passed, report.failed, report.skipped], [0, 2, 0])
      const text = lines(report)
      assert.include(text, "missing.toml: cannot read: no such file or directory")
      assert.include(text, "the folder holds no .toml vector files")
    }))

  it.effect("a file named twice runs once", () =>
    Effect.gen(function*() {
      const dir = yield* folderWith({ "v.toml": placeVector("v", `ordered_contents = ["p", "a"]\nexcluded_contents = ["b"]`) })
      const report = yield* Conformance.run([dir, `${dir}/v.toml`])
      assert.strictEqual(report.outcomes.length, 1)
    }))
})

describe("Conformance — parsing", () => {
  const parse = (text: string) => Conformance.parseVector("v.toml", text)

  layer(NodeServices.layer)("vectors", (it) => {
    it.effect("a local date-time (no offset) makes the vector invalid, naming the field", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(parse(`
[test]
name = "local"
stage = "placing"
placer = "chronological"

[[items]]
content = "a"
tokens = 1
score = 0.5
timestamp = 2024-01-01T00:00:00

[expected]
ordered_contents = ["a"]
`))
        assert.strictEqual(error._tag, "InvalidVectorError")
        assert.include(error.message, "items[0].timestamp: the local date-time 2024-01-01T00:00:00.000 has no offset")
      }))

    it.effect("offset date-times become instants: three spellings of one moment are equal", () =>
      Effect.gen(function*() {
        const vector = yield* parse(`
[test]
name = "offsets"
stage = "placing"
placer = "chronological"

[[items]]
content = "a"
tokens = 1
score = 0.5
timestamp = 2024-06-01T02:00:00+02:00

[[items]]
content = "b"
tokens = 1
score = 0.5
timestamp = 2024-05-31T19:00:00-05:00

[[items]]
content = "c"
tokens = 1
score = 0.5
timestamp = "2024-06-01T00:00Z"

[expected]
ordered_contents = ["a", "b", "c"]
`)
        assert.strictEqual(vector._tag, "PlacingVector")
        if (vector._tag !== "PlacingVector") return
        const millis = vector.items.map((s) => s.item.timestamp?.epochMilliseconds)
        assert.deepStrictEqual(millis, [Date.UTC(2024, 5, 1), Date.UTC(2024, 5, 1), Date.UTC(2024, 5, 1)])
      }))

    it.effect("every problem of an invalid vector is listed with its path", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(parse(`
[test]
name = "bad"
stage = "place"
placer = "sideways"

[budget]
max_tokens = 10
target_tokens = 20

[[pinned]]
content = ""
tokens = 1.5

[[scored_items]]
content = "s"
tokens = 1

[expected]
ordered_contents = []
`))
        assert.strictEqual(error._tag, "InvalidVectorError")
        if (error._tag !== "InvalidVectorError") return
        assert.sameMembers([...error.problems], [
          `test.placer: Expected "u-shaped" | "chronological", got "sideways"`,
          "budget.targetTokens: targetTokens (20) must not exceed maxTokens (10)",
          "pinned[0].content: content must be a non-empty string",
          "pinned[0].tokens: Expected a safe integer (a whole number from -9007199254740991 to 9007199254740991), got 1.5",
          "scored_items[0].score: is required but missing"
        ])
      }))

    it.effect("pinned entries are pinned, scored entries keep their order and scores, strategy defaults to throw", () =>
      Effect.gen(function*() {
        const vector = yield* parse(placeVector("shape", `ordered_contents = []`).replace(`overflow_strategy = "truncate"\n`, ""))
        assert.strictEqual(vector._tag, "PlaceVector")
        if (vector._tag !== "PlaceVector") return
        assert.strictEqual(vector.overflowStrategy, "Throw")
        assert.deepStrictEqual(vector.pinned.map((i) => [i.content, i.pinned]), [["p", true]])
        assert.deepStrictEqual(vector.scored.map((s) => [s.item.content, s.score, s.item.pinned]), [["a", 0.2, false], [
          "b",
          0.9,
          false
        ]])
        assert.deepStrictEqual([vector.budget.maxTokens, vector.budget.targetTokens], [100, 50])
      }))

    it.effect("[expected] needs ordered_contents or error = \"overflow\", not both, not another error", () =>
      Effect.gen(function*() {
        const problems = (expected: string) =>
          Effect.flip(parse(placeVector("e", expected))).pipe(Effect.map((error) => error.message))
        assert.include(yield* problems(`error = "invalid"`), `expected.error: Expected "overflow", got "invalid"`)
        assert.include(yield* problems(`overflow_tokens = 3`), "either ordered_contents or error")
        assert.include(yield* problems(`error = "overflow"\nordered_contents = []`), "exclude each other")
      }))

    it.effect("malformed TOML is a VectorSyntaxError on one line, with line and column", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(parse(`[test]\nname = "x"\nstage = "scoring\n`))
        assert.strictEqual(error._tag, "VectorSyntaxError")
        assert.match(error.message, /^v\.toml: not valid TOML: .*\(line 3, column \d+\)$/)
      }))

    it.effect("a wrong type in [test] is an InvalidVectorError naming the field", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(parse(`[test]\nname = 3\nstage = "scoring"\n`))
        assert.strictEqual(error._tag, "InvalidVectorError")
        assert.include(error.message, "test.name: Expected a string, got 3")
      }))

    it.effect("a file without a [test] table is invalid", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(parse(`[budget]\nmax_tokens = 1\n`))
        assert.include(error.message, "test: is required but missing")
      }))
  })
})
