/**
 * The summary's ledger (issue 27, item 3; docs/ai.md, "The summary's ledger", rules L1–L6):
 * a test per extraction rule and edge case, and the done-when — with a summariser that keeps no
 * fact, the planted paths, identifiers and errors of generated sessions are still in the window
 * after 5 compactions.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { Prompt } from "effect/ai"
import { KeyValueStore } from "effect/persistence"
import { ContextBudget, FirstFitSlice, OverflowNotifier, RecencyScorer } from "../../src/index.ts"
import * as CallReportLog from "../../src/ai/CallReportLog.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as SessionOptions from "../../src/ai/SessionOptions.ts"
import * as StableWindow from "../../src/ai/StableWindow.ts"
import * as Summarizer from "../../src/ai/Summarizer.ts"
import * as SummaryLedger from "../../src/ai/SummaryLedger.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import * as SectionedPlacer from "../../src/placers/SectionedPlacer.ts"
import * as Scripted from "../../bench/scriptedSummarizer.ts"
import * as Sessions from "../support/sessions.ts"

const countOf = (m: Prompt.Message) => Math.ceil(PromptWindow.render(m).length / 4) + 4
const counterLayer = TokenCounter.make(countOf)
const layers = Layer.mergeAll(
  RecencyScorer.layer,
  FirstFitSlice.layer,
  SectionedPlacer.conversation,
  OverflowNotifier.layerNoop,
  counterLayer,
  KeyValueStore.layerMemory
)

const facts = (text: string, kind?: SummaryLedger.Kind) =>
  SummaryLedger.extractText(text).filter((f) => kind === undefined || f.kind === kind).map((f) => f.value)

describe("SummaryLedger extraction (L1)", () => {
  it("L1 path: relative with an extension, ./ ../ ~/ and absolute, two slashes, bare well-known file names", () => {
    assert.deepStrictEqual(
      facts("read src/ai/Trim.ts, ./bench/x.json, ../up/a, ~/notes, /etc/hosts, src/ai/internal and package.json.", "path"),
      ["src/ai/Trim.ts", "./bench/x.json", "../up/a", "~/notes", "/etc/hosts", "src/ai/internal", "package.json"]
    )
  })
  it("L1 path: not and/or, fractions, units, a lone directory pair, a word with a dot, nor a URL's path", () => {
    assert.deepStrictEqual(facts("and/or 1/2 km/h src/ai e.g. i.e. done. https://example.com/a/b.ts", "path"), [])
  })
  it("L1 path: a line and column after the path are not part of it", () => {
    assert.deepStrictEqual(facts("see src/a.ts:12:5 and lib/b.py:3", "path"), ["src/a.ts", "lib/b.py"])
  })
  it("L1 url: schemes, trailing punctuation left off, balanced parentheses kept", () => {
    assert.deepStrictEqual(
      facts("see https://example.com/a?b=1, (https://en.wikipedia.org/wiki/Foo_(bar)) and ftp://h/x. Also ws://h:9/s!", "url"),
      ["https://example.com/a?b=1", "https://en.wikipedia.org/wiki/Foo_(bar)", "ftp://h/x", "ws://h:9/s"]
    )
    assert.deepStrictEqual(facts("mailto:a@b.c and http:// alone", "url"), [])
  })
  it("L1 identifier: snake_case, camelCase, PascalCase, letters with digits, UUIDs, hex hashes", () => {
    assert.deepStrictEqual(
      facts("call fetchUser, UserService, max_retries, MAX_SIZE, x17, sha256, 3f2a9c1d, 550e8400-e29b-41d4-a716-446655440000", "identifier"),
      ["fetchUser", "UserService", "max_retries", "MAX_SIZE", "x17", "sha256", "3f2a9c1d", "550e8400-e29b-41d4-a716-446655440000"]
    )
  })
  it("L1 identifier: never a plain word, an all-capitals word, a number, a short token, a hex word without digits", () => {
    assert.deepStrictEqual(facts("The HTTP JSON answer was 42 and 3.14; go to v2 or deadbeef. Hello World", "identifier"), [])
  })
  it("L1 error: an Error or Exception with a colon, error/fatal/panic lines, FAIL, tsc, system codes — the whole line", () => {
    const text = [
      "TypeError: Cannot read properties of undefined (reading 'pinned')",
      "    at foo (src/a.ts:12:5)",
      "java.lang.NullPointerException: boom",
      "error[E0308]: mismatched types",
      "fatal: not a git repository",
      "panic: runtime error: index out of range",
      "FAIL test/a.test.ts > x",
      "src/a.ts(3,5): error TS2322: Type 'x' is not assignable",
      "ENOENT: no such file or directory, open 'a.txt'"
    ].join("\n")
    assert.deepStrictEqual(facts(text, "error"), [
      "TypeError: Cannot read properties of undefined (reading 'pinned')",
      "java.lang.NullPointerException: boom",
      "error[E0308]: mismatched types",
      "fatal: not a git repository",
      "panic: runtime error: index out of range",
      "FAIL test/a.test.ts > x",
      "src/a.ts(3,5): error TS2322: Type 'x' is not assignable",
      "ENOENT: no such file or directory, open 'a.txt'"
    ])
  })
  it("L1 error: not a count of errors, a word, or a stack frame", () => {
    assert.deepStrictEqual(facts("0 errors\nerrors: 0\nno error here\nthe error was fixed\n    at main (a.js:1:1)", "error"), [])
  })
  it("L1 error: the first line of a tool result marked as a failure, whatever it says", () => {
    const failed = Prompt.toolMessage({
      content: [Prompt.toolResultPart({ id: "c1", name: "run", isFailure: true, result: "denied by the user\nmore", providerExecuted: false })]
    })
    assert.deepStrictEqual(SummaryLedger.extract([failed], undefined).filter((f) => f.kind === "error"), [
      { kind: "error", value: "denied by the user" }
    ])
  })
  it("L1 open: TODO/FIXME/XXX, unchecked boxes, Next steps/Open question/Pending — not checked boxes", () => {
    const text = "- [ ] wire the option\n- [x] done thing\n// TODO: remove this\nFIXME(ada) later\nNext steps: merge\nOpen question: which tokenizer?\nPending: review"
    assert.deepStrictEqual(facts(text, "open"), [
      "[ ] wire the option",
      "// TODO: remove this",
      "FIXME(ada) later",
      "Next steps: merge",
      "Open question: which tokenizer?",
      "Pending: review"
    ])
  })
  it("L1 what an error or open line holds is kept with it, not listed again", () => {
    assert.deepStrictEqual(SummaryLedger.extractText("TypeError: bad value in src/a.ts from fetchUser"), [
      { kind: "error", value: "TypeError: bad value in src/a.ts from fetchUser" }
    ])
  })
  it("L1 tool calls' arguments and results are read as their strings, not their JSON", () => {
    const call = Prompt.assistantMessage({
      content: [Prompt.toolCallPart({ id: "call_1", name: "read", params: { path: "src/x.ts", opts: { ids: ["userId"] } }, providerExecuted: false })]
    })
    assert.deepStrictEqual(SummaryLedger.extract([call], undefined), [
      { kind: "path", value: "src/x.ts" },
      { kind: "identifier", value: "userId" }
    ])
  })
})

describe("SummaryLedger edge cases (L2–L4)", () => {
  const user = (text: string) => Prompt.userMessage({ content: [Prompt.textPart({ text })] })
  it("L2 dedup: a fact is listed once, as new as its last occurrence", () => {
    const found = SummaryLedger.extract([user("src/a.ts then fetchUser"), user("src/b.ts"), user("again src/a.ts")], undefined)
    assert.deepStrictEqual(found.map((f) => f.value), ["fetchUser", "src/b.ts", "src/a.ts"])
  })
  it("L2 the previous summary's ledger is read back, first, then its text, then the span", () => {
    const previous = SummaryLedger.append("Earlier: looked at lib/old.ts.", [
      { kind: "error", value: "TypeError: x" },
      { kind: "path", value: "src/kept.ts" }
    ])
    assert.deepStrictEqual(SummaryLedger.read(previous), {
      body: "Earlier: looked at lib/old.ts.",
      facts: [{ kind: "error", value: "TypeError: x" }, { kind: "path", value: "src/kept.ts" }]
    })
    assert.deepStrictEqual(SummaryLedger.extract([user("now src/new.ts")], previous).map((f) => f.value), [
      "TypeError: x",
      "src/kept.ts",
      "lib/old.ts",
      "src/new.ts"
    ])
  })
  it("L3 facts the summary's text already holds are not listed", () => {
    const found = SummaryLedger.extract([user("edit src/a.ts and src/b.ts\nENOENT: gone")], undefined)
    assert.deepStrictEqual(SummaryLedger.missing(found, "We edited src/a.ts."), [
      { kind: "path", value: "src/b.ts" },
      { kind: "error", value: "ENOENT: gone" }
    ])
    assert.deepStrictEqual(SummaryLedger.missing(found, "ENOENT: gone for src/a.ts and src/b.ts"), [])
  })
  it("L4 budget overflow: the oldest facts are left out first, and named", () =>
    Effect.gen(function*() {
      const all = Array.from({ length: 40 }, (_, i) => ({ kind: "path" as const, value: `src/file${i}.ts` }))
      const fits = (text: string) => Effect.succeed(text.length <= 400)
      const { dropped, kept } = yield* SummaryLedger.fit("Summary.", all, fits)
      assert.isAbove(kept.length, 0)
      assert.isAbove(dropped.length, 0)
      assert.deepStrictEqual([...dropped, ...kept], all)
      assert.strictEqual(kept.at(-1)!.value, "src/file39.ts")
      assert.isAtMost(SummaryLedger.append("Summary.", kept).length, 400)
      assert.isAbove(SummaryLedger.append("Summary.", [all[dropped.length - 1]!, ...kept]).length, 400)
    }).pipe(Effect.runPromise))
  it("L5 unicode: letters of any script, NFC on both sides", () => {
    const decomposed = "docs/re\u0301sume\u0301.md"
    const found = SummaryLedger.extractText(`see ${decomposed} and naïve_value and 東京_config`)
    assert.deepStrictEqual(found.map((f) => f.value), ["docs/résumé.md", "naïve_value", "東京_config"])
    assert.deepStrictEqual(SummaryLedger.missing(found, `kept ${decomposed}`).map((f) => f.value), ["naïve_value", "東京_config"])
  })
  it("L5 very long lines: a fact is cut to 200 code points and ends in …; a megabyte line is read quickly", () => {
    const long = `TypeError: ${"😀".repeat(300)}`
    const [error] = SummaryLedger.extractText(long)
    assert.strictEqual(Array.from(error!.value).length, SummaryLedger.maxFactLength + 1)
    assert.isTrue(error!.value.endsWith("…"))
    assert.isFalse(/[\uD800-\uDBFF]…$/.test(error!.value), "no surrogate pair is split")
    assert.deepStrictEqual(SummaryLedger.missing([error!], `it said ${long}`), [])
    const huge = `x ${"a".repeat(1_000_000)} src/${"b".repeat(500)}.ts`
    const start = performance.now()
    const found = SummaryLedger.extractText(huge)
    assert.isBelow(performance.now() - start, 2_000)
    assert.deepStrictEqual(found.map((f) => f.kind), ["path"])
    assert.isTrue(found[0]!.value.endsWith("…"))
  })
})

/** Planted facts: a path, an identifier and an error in every third step's first tool result. */
const planted = (seed: number, j: number) => [
  { kind: "path", value: `src/plant${seed}/module_${j}/Handler${j}.ts` },
  { kind: "identifier", value: `loadPlanted${j}Config` },
  { kind: "error", value: `TypeError: cannot read field planted${j} of undefined (seed ${seed})` }
] as const

const plant = (session: Sessions.Session): { session: Sessions.Session; facts: Array<{ readonly step: number; readonly value: string }> } => {
  const out: Array<{ step: number; value: string }> = []
  const steps = session.steps.map((step, j) => {
    if (j % 3 !== 0) return step
    let done = false
    const next = step.next.map((m) => {
      if (done || m.role !== "tool") return m
      const part = m.content[0]
      if (part === undefined || part.type !== "tool-result" || typeof part.result !== "string" || part.isFailure) return m
      done = true
      const [path, id, error] = planted(session.seed, j)
      out.push(...[path, id, error].map((f) => ({ step: j, value: f.value })))
      return Prompt.toolMessage({
        content: [
          Prompt.toolResultPart({
            id: part.id,
            name: part.name,
            isFailure: false,
            result: `${part.result}\nopened ${path.value} for ${id.value}\n${error.value}\n${part.result.slice(0, 80)}`,
            providerExecuted: false
          })
        ]
      })
    })
    return { ...step, next }
  })
  return { session: { ...session, steps }, facts: out }
}

/** Replays a planted session through a stable window with the dropping summariser until 5 compactions. */
const replay = (seed: number, ledger: boolean) =>
  Effect.gen(function*() {
    const { facts, session } = plant(Sessions.generate("tool-heavy", 400, seed))
    const counter = yield* TokenCounter.TokenCounter
    const built = yield* Layer.build(Scripted.layer(counter, { tokens: 300, dropping: true }, () => {}))
    const summarizer = Context.get(built, Summarizer.Summarizer)
    const window = yield* StableWindow.make({ summarizer, lowWatermark: 0.5, summaryLedger: ledger })
    const target = 16_000
    let compactions = 0
    let k = 0
    let last: StableWindow.Plan | undefined
    const dropped: Array<SummaryLedger.Fact> = []
    for (const history of Sessions.histories(session)) {
      const plan = yield* window.fit(
        Prompt.fromMessages(history),
        new ContextBudget.ContextBudget({ maxTokens: target, targetTokens: target }),
        { key: "k" }
      )
      yield* window.commit(plan)
      last = plan
      if (plan.change.summary?._tag === "written") {
        compactions++
        dropped.push(...(plan.change.summary.ledger?.dropped ?? []))
      }
      if (compactions === 5) break
      k++
    }
    assert.strictEqual(compactions, 5, `seed ${seed}: 5 compactions`)
    // The facts planted in the history the last call saw (its last step is k − 1).
    const inHistory = facts.filter((f) => f.step < k)
    const sent = last!.fitted.prompt.content.map(PromptWindow.render).join("\n")
    const kept = inHistory.filter((f) => sent.includes(f.value))
    return { share: kept.length / inHistory.length, planted: inHistory.length, dropped }
  })

describe("SummaryLedger in a stable window (L3, L4, L6)", () => {
  it.effect("L6 with a summariser that keeps no fact, ≥ 95% of the planted paths, identifiers and errors are in the window after 5 compactions", () =>
    Effect.scoped(Effect.gen(function*() {
      const rows: Array<string> = []
      for (const seed of [1, 2, 3, 4, 5]) {
        const on = yield* replay(seed, true)
        const off = yield* replay(seed, false)
        rows.push(`seed ${seed}: ${on.planted} planted; ledger on ${(on.share * 100).toFixed(1)}%, off ${(off.share * 100).toFixed(1)}%`)
        assert.isAtLeast(on.share, 0.95, rows.at(-1))
        assert.isBelow(off.share, on.share, rows.at(-1))
      }
      console.log(rows.join("\n"))
    }).pipe(Effect.provide(layers))), 120_000)

  it.effect("L6 summaryLedger: false sends the summariser's text alone; the option is checked as a boolean", () =>
    Effect.scoped(Effect.gen(function*() {
      const counter = yield* TokenCounter.TokenCounter
      const { session } = plant(Sessions.generate("tool-heavy", 80, 9))
      for (const ledger of [true, false]) {
        const built = yield* Layer.build(Scripted.layer(counter, { tokens: 100, dropping: true }, () => {}))
        const window = yield* StableWindow.make({
          summarizer: Context.get(built, Summarizer.Summarizer),
          lowWatermark: 0.5,
          summaryLedger: ledger
        })
        let written: StableWindow.Plan | undefined
        for (const history of Sessions.histories(session)) {
          const plan = yield* window.fit(
            Prompt.fromMessages(history),
            new ContextBudget.ContextBudget({ maxTokens: 8_000, targetTokens: 8_000 }),
            { key: "k" }
          )
          yield* window.commit(plan)
          if (plan.change.summary?._tag === "written") {
            written = plan
            break
          }
        }
        const sent = written!.fitted.prompt.content.map(PromptWindow.render).join("\n")
        assert.strictEqual(sent.includes(SummaryLedger.heading), ledger)
        assert.strictEqual(written!.change.summary!.ledger === undefined, !ledger)
        if (ledger) {
          const l = written!.change.summary!.ledger!
          assert.isAbove(l.listed, 0)
          assert.strictEqual(l.found, l.held + l.listed + l.dropped.length)
        }
      }
      assert.isDefined(SessionOptions.checkValues({ summaryLedger: "yes" }, SessionOptions.stable, new Set()))
      const bad = yield* Effect.flip(StableWindow.check({ summaryLedger: "no" as unknown as boolean }))
      assert.strictEqual(bad.path, "summaryLedger")
    }).pipe(Effect.provide(layers))))

  it.effect("L4 a ledger over the summary's room: the oldest facts are left out, named in the change and the log line; the summary stays within its budget", () =>
    Effect.scoped(Effect.gen(function*() {
      const counter = yield* TokenCounter.TokenCounter
      const { session } = plant(Sessions.generate("tool-heavy", 300, 4))
      const built = yield* Layer.build(Scripted.layer(counter, { tokens: 60, dropping: true }, () => {}))
      const window = yield* StableWindow.make({ summarizer: Context.get(built, Summarizer.Summarizer), lowWatermark: 0.5, summaryTokens: 150 })
      for (const history of Sessions.histories(session)) {
        const plan = yield* window.fit(
          Prompt.fromMessages(history),
          new ContextBudget.ContextBudget({ maxTokens: 8_000, targetTokens: 8_000 }),
          { key: "k" }
        )
        yield* window.commit(plan)
        const summary = plan.change.summary
        if (summary?._tag !== "written" || summary.ledger === undefined || summary.ledger.dropped.length === 0) continue
        assert.isAtMost(summary.summaryTokens, 150)
        const sent = plan.fitted.prompt.content.map(PromptWindow.render).join("\n")
        for (const f of summary.ledger.dropped) assert.isFalse(sent.includes(`- ${f.kind}: ${f.value}\n`), f.value)
        const line = CallReportLog.make({
          candidates: history.length,
          result: plan.fitted.result,
          toolTokens: 0,
          budget: { targetTokens: 8_000, maxTokens: 8_000 },
          mode: "stable",
          conversation: "k",
          change: plan.change,
          prediction: plan.prediction,
          outcome: "sent",
          reported: undefined,
          committed: undefined
        })
        assert.deepStrictEqual(line.change?.summary?.ledger?.dropped, summary.ledger.dropped.map((f) => ({ ...f })))
        return
      }
      assert.fail("no compaction left facts out")
    }).pipe(Effect.provide(layers))))
})
