/**
 * `cupel view`: one self-contained HTML page for a `cupel run` result or a session's call-report
 * lines, through the in-process CLI runner.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, FileSystem } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import * as CacheMiss from "../src/ai/CacheMiss.ts"
import * as CallReportLog from "../src/ai/CallReportLog.ts"
import * as ViewPage from "../src/cli/ViewPage.ts"
import { cli, writeTemp } from "./support/cli.ts"
import { docBlock } from "./support/docs.ts"
import * as ViewSession from "./support/viewSession.ts"

const attack = "</script><script>alert(1)</script>"

/** The demo's sample run by `cupel run`: the result's text and the result. */
const sampleRun = Effect.gen(function*() {
  const sample = yield* cli(["demo", "--print-sample"])
  const run = yield* cli(["run"], sample.stdout)
  assert.strictEqual(run.code, 0, run.stderr)
  return { text: run.stdout, result: JSON.parse(run.stdout) }
})

/** A session's lines, as `CallReportLog.layerWrite` would write them. */
const sessionLines = (steps: number) =>
  Effect.map(ViewSession.run({ steps }), (reports) => reports.map((r) => CallReportLog.encode(r)))

/** `<tag` opening tags in the page. */
const tags = (html: string, tag: string): number => html.split(`<${tag}`).length - 1

const stat = (html: string, label: string): string | undefined =>
  new RegExp(`<li><b>([^<]*)</b>${label}</li>`).exec(html)?.[1]

layer(NodeServices.layer)("cupel view: a run result", (it) => {
  it.effect("one HTML page on stdout, exit 0: the counts of the run, each window item, each excluded one", () =>
    Effect.gen(function*() {
      const { result, text } = yield* sampleRun
      const view = yield* cli(["view"], text)
      assert.strictEqual(view.code, 0, view.stderr)
      assert.strictEqual(view.stderr, "")
      const html = view.stdout
      assert.match(html, /^<!doctype html>\n<html lang="en">/)
      assert.strictEqual(stat(html, "in the window"), String(result.report.included.length))
      assert.strictEqual(stat(html, "left out"), String(result.report.excluded.length))
      assert.strictEqual(stat(html, "candidates"), String(result.report.total_candidates))
      const body = (id: string) => /<tbody>([\s\S]*?)<\/tbody>/.exec(html.slice(html.indexOf(`<table id="${id}">`)))![1]!
      assert.strictEqual(tags(body("window"), "tr"), result.report.included.length)
      assert.strictEqual(tags(body("excluded"), "tr"), result.report.excluded.length)
      // One bar per position: the placer's shape.
      assert.strictEqual(tags(/<div class="shape"[\s\S]*?<\/div>/.exec(html)![0], "span"), result.report.included.length)
      // The stages and their timings.
      for (const stage of ["Classify", "Score", "Deduplicate", "Slice", "Place"]) {
        assert.include(html, `<th scope="row">${stage}</th>`)
      }
    }))

  it.effect("the reasons in the words of cupel explain", () =>
    Effect.gen(function*() {
      const sample = yield* cli(["demo", "--print-sample"])
      const { text } = yield* sampleRun
      const html = (yield* cli(["view"], text)).stdout
      const explained = (yield* cli(["explain"], sample.stdout)).stdout
      // Every reason explain gives an excluded item (after "out") is on the page.
      const reasons = explained.split("\n").flatMap((line) => {
        const m = /\s out\s{2,}(.*)$/.exec(line)
        return m === null ? [] : [m[1]!]
      })
      assert.isAbove(reasons.length, 0)
      for (const reason of reasons) assert.include(html, ViewPage.escapeHtml(reason))
    }))

  it.effect("--budget and --max draw the window against the budget; without them the page says where to give it", () =>
    Effect.gen(function*() {
      const { text } = yield* sampleRun
      const without = (yield* cli(["view"], text)).stdout
      assert.include(without, "A run result does not hold its budget")
      assert.notInclude(without, `class="mark"`)
      const withBudget = (yield* cli(["view", "--budget", "700", "--max", "4096"], text)).stdout
      assert.notInclude(withBudget, "A run result does not hold its budget")
      assert.strictEqual(stat(withBudget, "target"), "700")
      assert.strictEqual(stat(withBudget, "max tokens"), "4,096")
      assert.include(withBudget, `<em>target 700</em>`)
    }))

  it.effect("--out FILE writes the page there and nothing to stdout", () =>
    Effect.gen(function*() {
      const { text } = yield* sampleRun
      const input = yield* writeTemp("run.json", text)
      const out = `${input}.html`
      const view = yield* cli(["view", input, "--out", out])
      assert.strictEqual(view.code, 0, view.stderr)
      assert.strictEqual(view.stdout, "")
      const fs = yield* FileSystem.FileSystem
      const html = yield* fs.readFileString(out)
      // The same page as on stdout, but for the source's name.
      assert.strictEqual(html.replaceAll(input, "stdin"), (yield* cli(["view"], text)).stdout + "\n")
    }).pipe(Effect.scoped))

  it.effect("an item whose content is </script><script>alert(1)</script> stays text: no tag of its own, no script", () =>
    Effect.gen(function*() {
      const input = JSON.stringify({
        budget: { maxTokens: 100, targetTokens: 30 },
        items: [
          { content: attack, tokens: 10, kind: "Document" },
          { content: `${attack} too long`, tokens: 50, kind: "Document" }
        ],
        scorer: { type: "priority" }
      })
      const run = yield* cli(["run"], input)
      assert.strictEqual(run.code, 0, run.stderr)
      const html = (yield* cli(["view"], run.stdout)).stdout
      assert.strictEqual(tags(html, "script"), 0)
      assert.notInclude(html, attack)
      assert.include(html, ViewPage.escapeHtml(attack))
    }))

  it.effect("the page names no http(s) resource: no external script, style, font or image", () =>
    Effect.gen(function*() {
      const { text } = yield* sampleRun
      const html = (yield* cli(["view", "--budget", "700"], text)).stdout
      assert.notMatch(html, /https?:\/\//)
      assert.notMatch(html, /<(link|img|iframe|object|embed)\b/)
      assert.notMatch(html, /\bsrc=/)
      assert.notMatch(html, /url\(/)
    }))
})

layer(NodeServices.layer)("cupel view: an agent session", (it) => {
  it.effect("one row per call in the timeline, and the details of each call", () =>
    Effect.gen(function*() {
      const lines = yield* sessionLines(12)
      const view = yield* cli(["view"], lines.join("\n") + "\n")
      assert.strictEqual(view.code, 0, view.stderr)
      const html = view.stdout
      assert.strictEqual(stat(html, "calls"), "12")
      const timeline = /<table id="timeline">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(html)![1]!
      assert.strictEqual(tags(timeline, "tr"), 12)
      assert.strictEqual(tags(timeline, "button"), 12)
      for (let k = 0; k < 12; k++) assert.include(html, `<section class="detail" id="call-${k}"`)
      // Nothing is hidden nor selected but by the script: without it, every call reads in turn.
      assert.notInclude(html, " hidden")
      assert.notInclude(html, `aria-pressed="true"`)
      // The script: a JSON block and the selection's code, nothing else.
      assert.strictEqual(tags(html, "script"), 2)
      assert.notMatch(html, /https?:\/\//)
    }))

  it.effect("each call's change: added and dropped against the conversation's previous call, the summary", () =>
    Effect.gen(function*() {
      const text = (yield* sessionLines(12)).join("\n")
      const lines = yield* CallReportLog.decodeLines(text)
      const changes = ViewPage.changes(lines)
      // The first call adds its whole window; an append drops nothing; a compaction drops what it says.
      assert.strictEqual(changes[0]!.added.length, lines[0]!.window.length)
      assert.strictEqual(changes[0]!.dropped.length, 0)
      for (const [k, line] of lines.entries()) {
        if (line.change?.action === "append") {
          assert.strictEqual(changes[k]!.dropped.length, 0, `call ${k + 1}`)
          assert.strictEqual(changes[k]!.added.length, line.change.added, `call ${k + 1}`)
        }
      }
      const compact = lines.findIndex((l) => l.change?.action === "compact")
      assert.isAtLeast(compact, 0)
      const c = lines[compact]!
      // The messages dropped are the change's (the summary, new, is added beside the new messages).
      assert.strictEqual(changes[compact]!.dropped.filter((e) => e.message !== undefined).length, c.change!.dropped)
      const html = (yield* cli(["view"], text)).stdout
      const detail = html.slice(html.indexOf(`id="call-${compact}"`), html.indexOf(`id="call-${compact + 1}"`))
      assert.include(detail, `<h3>Dropped (${changes[compact]!.dropped.length})</h3>`)
      assert.include(detail, `summarised ${c.change!.summary!.spanMessages} messages`)
      assert.include(detail, `folded into the summary ${c.change!.summary!.id}`)
    }))

  it.effect("billed beside predicted, per call and for the session; each miss's cause, and the misses counted by cause", () =>
    Effect.gen(function*() {
      const text = (yield* sessionLines(12)).join("\n")
      const lines = yield* CallReportLog.decodeLines(text)
      const missed = lines.flatMap((l, k) => (l.miss === undefined ? [] : [[k, l.miss] as const]))
      // The compaction misses (its cause named), and the log carries it.
      const compact = lines.findIndex((l) => l.change?.action === "compact")
      assert.deepStrictEqual(missed.find(([k]) => k === compact)?.[1].cause._tag, "compaction")
      const html = (yield* cli(["view"], text)).stdout
      const byCause = new Map<string, number>()
      for (const [, m] of missed) byCause.set(m.cause._tag, (byCause.get(m.cause._tag) ?? 0) + 1)
      assert.strictEqual(
        stat(html, "cache misses"),
        `${missed.length} (${CacheMiss.causes.filter((c) => byCause.has(c)).map((c) => `${c} ${byCause.get(c)}`).join(", ")})`
      )
      assert.isDefined(stat(html, "billed cache reads"))
      assert.isDefined(stat(html, "billed cache writes"))
      assert.isDefined(stat(html, "predicted cache writes"))
      const timeline = /<table id="timeline">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(html)![1]!
      const rows = timeline.split("</tr>").slice(0, -1)
      assert.include(rows[compact]!, ">compaction</span>")
      const detail = html.slice(html.indexOf(`id="call-${compact}"`), html.indexOf(`id="call-${compact + 1}"`))
      assert.include(detail, "a planned compaction")
    }))

  it.effect("added and dropped count entries that look alike one by one: two documents with the same text, one dropped", () =>
    Effect.gen(function*() {
      const [first] = yield* sessionLines(1)
      const line = JSON.parse(first!)
      const doc = { kind: "Document", tokens: 40, pinned: false, preview: "// Copyright Acme. Licensed under MIT.", reason: { reason: "Scored", score: 0.5 } }
      const before = { ...line, window: [...line.window, doc, doc] }
      const after = { ...line, window: [...line.window, doc] }
      const lines = yield* CallReportLog.decodeLines([before, after].map((l) => JSON.stringify(l)).join("\n"))
      const [, second] = ViewPage.changes(lines)
      assert.strictEqual(second!.dropped.length, 1)
      assert.strictEqual(second!.added.length, 0)
      const [, third] = ViewPage.changes([lines[1]!, lines[0]!])
      assert.strictEqual(third!.added.length, 1)
      assert.strictEqual(third!.dropped.length, 0)
    }))

  it.effect("a log of several conversations: each timeline row says which conversation its call is of", () =>
    Effect.gen(function*() {
      const lines = yield* sessionLines(3)
      const other = lines.map((l) => JSON.stringify({ ...JSON.parse(l), conversation: "other <b>" }))
      const interleaved = lines.flatMap((l, k) => [l, other[k]!])
      const view = yield* cli(["view"], interleaved.join("\n"))
      assert.strictEqual(view.code, 0, view.stderr)
      const html = view.stdout
      assert.strictEqual(stat(html, "conversations"), "2")
      const table = /<table id="timeline">[\s\S]*?<\/table>/.exec(html)![0]
      assert.include(table, `<th scope="col" class="n">conversation</th>`)
      const rows = /<tbody>([\s\S]*?)<\/tbody>/.exec(table)![1]!.split("</tr>").slice(0, -1)
      assert.strictEqual(rows.length, 6)
      const first = JSON.parse(lines[0]!).conversation
      rows.forEach((row, k) => {
        const key = k % 2 === 0 ? first : "other <b>"
        assert.include(row, `<td class="n" title="${ViewPage.escapeHtml(key)}">${(k % 2) + 1}</td>`, `row ${k + 1}`)
      })
    }))

  it.effect("a log of one conversation has no conversation column", () =>
    Effect.gen(function*() {
      const html = (yield* cli(["view"], (yield* sessionLines(2)).join("\n"))).stdout
      assert.notInclude(/<table id="timeline">[\s\S]*?<\/table>/.exec(html)![0], ">conversation</th>")
    }))

  it.effect("an entry whose text is </script><script>alert(1)</script> stays text in the page", () =>
    Effect.gen(function*() {
      const [first] = yield* sessionLines(1)
      const line = JSON.parse(first!)
      line.window[0].preview = attack
      line.conversation = attack
      const html = (yield* cli(["view"], JSON.stringify(line) + "\n")).stdout
      assert.strictEqual(tags(html, "script"), 2)
      assert.strictEqual(html.split("</script>").length - 1, 2)
      assert.include(html, ViewPage.escapeHtml(attack))
    }))

  it.effect("tokens sent by kind count the call's tool definitions, drawn against the target with them; the time of each call", () =>
    Effect.gen(function*() {
      const [first] = yield* sessionLines(1)
      const line = { ...JSON.parse(first!), toolTokens: 120, at: "2026-11-26T09:30:05.000Z" }
      const html = (yield* cli(["view"], JSON.stringify(line))).stdout
      const detail = html.slice(html.indexOf(`id="call-0"`))
      assert.match(detail, /<th scope="row"><span class="sw k\d"><\/span>tool definitions<\/th><td class="n">1<\/td><td class="n">120<\/td>/)
      assert.include(detail, `<em>target + tools ${(line.targetTokens + 120).toLocaleString("en-US")}</em>`)
      assert.include(html, `<span class="muted">09:30:05</span>`)
    }))

  it.effect("tokens sent, in the counts and the timeline, count the tool definitions, as tokens sent by kind do", () =>
    Effect.gen(function*() {
      const [a, b] = yield* sessionLines(2)
      const lines = [a!, b!].map((l) => ({ ...JSON.parse(l), toolTokens: 120 }))
      const html = (yield* cli(["view"], lines.map((l) => JSON.stringify(l)).join("\n"))).stdout
      const sent = lines.map((l) => l.totalTokens + 120)
      assert.strictEqual(stat(html, "tokens sent"), (sent[0]! + sent[1]!).toLocaleString("en-US"))
      const rows = /<table id="timeline">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(html)![1]!.split("</tr>").slice(0, -1)
      rows.forEach((row, k) => assert.include(row, `<td class="n">${sent[k]!.toLocaleString("en-US")}</td>`, `call ${k + 1}`))
    }))

  it.effect("an item's text cut to one line keeps whole characters: no emoji split into a replacement character", () =>
    Effect.gen(function*() {
      const { result } = yield* sampleRun
      // 89 characters, then emoji: the cut at 89 would fall between an emoji's two UTF-16 halves.
      const content = `${"a".repeat(88)}${"\u{1F642}".repeat(40)}`
      result.window[0].content = content
      result.report.included[0].item.content = content
      const html = (yield* cli(["view"], JSON.stringify(result))).stdout
      assert.notInclude(html, "\uFFFD")
      assert.notMatch(html, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/)
      assert.include(html, `${"a".repeat(88)}…`)
    }))

  it.effect("control characters in the input are shown as escapes, never written raw into the page", () =>
    Effect.gen(function*() {
      const { result } = yield* sampleRun
      const content = "before\u0000NUL \u001b[31mred\u0007 \u009b after"
      result.window[0].content = content
      result.report.included[0].item.content = content
      result.report.included[0].item.kind = "Kind\u0001"
      const html = (yield* cli(["view"], JSON.stringify(result))).stdout
      assert.notMatch(html, /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/)
      assert.include(html, "before\\u0000NUL \\u001b[31mred\\u0007 \\u009b after")
      assert.include(html, "Kind\\u0001")
    }))

  it.effect("a session whose last line was cut off mid-write: the calls before it, and one line on stderr saying so", () =>
    Effect.gen(function*() {
      const lines = yield* sessionLines(3)
      const view = yield* cli(["view"], `${lines.join("\n")}\n${lines[0]!.slice(0, 50)}`)
      assert.strictEqual(view.code, 0)
      assert.strictEqual(stat(view.stdout, "calls"), "3")
      assert.strictEqual(view.stderr, "cupel view: stdin: line 4 is cut off (a write that did not finish); shown without it")
    }))

  it.effect("a log read from a file in chunks, its rows crossing them, gives the page standard input gives (design 94)", () =>
    Effect.gen(function*() {
      const lines = yield* sessionLines(30)
      const text = lines.join("\n") + "\n"
      assert.isAbove(text.length, 3 * 65_536, "rows cross the file's 64 KiB chunks")
      const input = yield* writeTemp("session.jsonl", text)
      const fromFile = yield* cli(["view", input])
      assert.strictEqual(fromFile.code, 0, fromFile.stderr)
      assert.strictEqual(fromFile.stdout.replaceAll(input, "stdin"), (yield* cli(["view"], text)).stdout)
    }).pipe(Effect.scoped))

  it.effect(`a session of more than ViewPage.fullPageCalls calls gets the compact page: the counts, one record per call, no section per call (design 94)`, () =>
    Effect.gen(function*() {
      const base = (yield* sessionLines(6)).map((l) => JSON.parse(l))
      const calls = ViewPage.fullPageCalls + 1
      const lines = Array.from({ length: calls }, (_, k) => JSON.stringify({ ...base[k % base.length], conversation: `c${Math.floor(k / base.length)}` }))
      // The last line cut off mid-write: shown without it, and said.
      const view = yield* cli(["view"], lines.join("\n") + "\n" + lines[0]!.slice(0, 40))
      assert.strictEqual(view.code, 0, view.stderr)
      assert.strictEqual(view.stderr, `cupel view: stdin: line ${calls + 1} is cut off (a write that did not finish); shown without it`)
      const html = view.stdout
      assert.strictEqual(stat(html, "calls"), String(calls))
      assert.strictEqual(stat(html, "conversations"), String(Math.ceil(calls / base.length)))
      assert.strictEqual(tags(html, `section class="detail" id="call-`), 0)
      const data = JSON.parse(/<script type="application\/json" id="cupel-data">([\s\S]*?)<\/script>/.exec(html)![1]!)
      assert.strictEqual(data.calls, calls)
      assert.strictEqual(data.records.length, calls)
      // Entries are kept once per session, not once per call.
      const distinct = new Set(lines.flatMap((l) => JSON.parse(l).window.map((e: { readonly preview: string; readonly message?: number }) => `${JSON.parse(l).conversation}${e.message}${e.preview}`)))
      assert.isAtMost(data.entries.length, distinct.size + lines.length)
      assert.include(html, `<svg id="chart"`)
      // One attack in an entry stays text: the only </script> are the page's own.
      assert.strictEqual(html.split("</script>").length - 1, 2)
    }))

  it.effect("a single line (no newline) is a session of one call", () =>
    Effect.gen(function*() {
      const [first] = yield* sessionLines(1)
      const view = yield* cli(["view"], first!)
      assert.strictEqual(view.code, 0, view.stderr)
      assert.strictEqual(stat(view.stdout, "calls"), "1")
    }))
})

layer(NodeServices.layer)("cupel view: bad input (exit 2, one line a problem on stderr, nothing on stdout)", (it) => {
  const refused = (args: ReadonlyArray<string>, stdin: string, expected: string | RegExp) =>
    Effect.gen(function*() {
      const view = yield* cli(args, stdin)
      assert.strictEqual(view.code, 2)
      assert.strictEqual(view.stdout, "")
      if (typeof expected === "string") assert.strictEqual(view.stderr, expected)
      else assert.match(view.stderr, expected)
    })

  it.effect("JSON that is neither a run result nor call reports", () =>
    refused(
      ["view"],
      `{"items": []}`,
      `cupel view: invalid input (stdin): neither a \`cupel run\` result (a JSON object with "window" and "report") ` +
        `nor call-report lines (JSON objects, one a line, with "format": "${CallReportLog.format}")`
    ))

  it.effect("empty input", () => refused(["view"], "  \n", /^cupel view: invalid input \(stdin\): empty: neither/))

  it.effect("malformed JSON", () =>
    refused(["view"], `{"window": [`, /^cupel view: invalid input \(stdin\): malformed JSON: [^\n]*$/))

  it.effect("a run result that breaks the schema: the path of each problem", () =>
    Effect.gen(function*() {
      const { result } = yield* sampleRun
      result.window[0].tokens = "many"
      result.report.total_candidates = -0.5
      const view = yield* cli(["view"], JSON.stringify(result))
      assert.strictEqual(view.code, 2)
      assert.strictEqual(view.stdout, "")
      const lines = view.stderr.split("\n")
      assert.strictEqual(lines.length, 2)
      assert.match(lines[0]!, /^cupel view: invalid input \(stdin\): window\[0\]\.tokens: /)
      assert.match(lines[1]!, /^cupel view: invalid input \(stdin\): report\.total_candidates: /)
    }))

  it.effect("a bad call-report line: its line number and fields", () =>
    Effect.gen(function*() {
      const [a, b] = yield* sessionLines(2)
      const broken = JSON.stringify({ ...JSON.parse(b!), outcome: "maybe" })
      yield* refused(["view"], `${a}\n${broken}\n`, /^cupel view: invalid input \(stdin\): line 2: outcome: [^\n]*$/)
    }))

  it.effect("a bad call-report line: one line per problem on stderr, each with the line number", () =>
    Effect.gen(function*() {
      const [a, b] = yield* sessionLines(2)
      const broken = JSON.stringify({ ...JSON.parse(b!), outcome: "maybe", mode: "sometimes" })
      const view = yield* cli(["view"], `${a}\n${broken}\n`)
      assert.strictEqual(view.code, 2)
      const lines = view.stderr.split("\n")
      assert.strictEqual(lines.length, 2)
      for (const l of lines) assert.match(l, /^cupel view: invalid input \(stdin\): line 2: (outcome|mode): /)
    }))

  it.effect("a line of a session that is not a call report: one problem saying so, not every field it lacks", () =>
    Effect.gen(function*() {
      const [a] = yield* sessionLines(1)
      const { text } = yield* sampleRun
      const runLine = JSON.stringify(JSON.parse(text))
      yield* refused(
        ["view"],
        `${a}\n${runLine}\n`,
        `cupel view: invalid input (stdin): line 2: not a call report (its "format" is missing; a call report's is "${CallReportLog.format}")`
      )
      const other = JSON.stringify({ ...JSON.parse(a!), format: "cupel.call-report.v9" })
      yield* refused(
        ["view"],
        `${a}\n${other}\n`,
        `cupel view: invalid input (stdin): line 2: not a call report (its "format" is "cupel.call-report.v9"; a call report's is "${CallReportLog.format}")`
      )
    }))

  it.effect("a line edited to hold negative tokens is refused, naming its line and field (design 94)", () =>
    Effect.gen(function*() {
      const [a, b] = yield* sessionLines(2)
      const parsed = JSON.parse(b!)
      parsed.window[0].tokens = -4000
      yield* refused(["view"], `${a}\n${JSON.stringify(parsed)}\n`, /^cupel view: invalid input \(stdin\): line 2: window\[0\]\.tokens: [^\n]*$/)
      for (const field of ["totalTokens", "toolTokens", "tokensOverBudget"]) {
        const edited = JSON.stringify({ ...JSON.parse(b!), [field]: -1 })
        yield* refused(["view"], `${a}\n${edited}\n`, new RegExp(`^cupel view: invalid input \\(stdin\\): line 2: ${field}: [^\\n]*$`))
      }
      const reported = JSON.stringify({ ...JSON.parse(a!), reported: { total: 100, cacheRead: -50 } })
      yield* refused(["view"], `${reported}\n${b}\n`, /^cupel view: invalid input \(stdin\): line 1: reported\.cacheRead: [^\n]*$/)
    }))

  it.effect("a zero target, or a target over maxTokens, is refused rather than drawn as a share of nothing (design 94)", () =>
    Effect.gen(function*() {
      const [a, b] = yield* sessionLines(2)
      const zero = JSON.stringify({ ...JSON.parse(b!), targetTokens: 0 })
      yield* refused(["view"], `${a}\n${zero}\n`, /^cupel view: invalid input \(stdin\): line 2: targetTokens: [^\n]*$/)
      const over = JSON.parse(a!)
      const view = yield* cli(["view"], `${JSON.stringify({ ...over, targetTokens: over.maxTokens + 1 })}\n`)
      assert.strictEqual(view.code, 2)
      assert.match(view.stderr, /line 1: targetTokens: targetTokens \(\d+\) must not exceed maxTokens \(\d+\)/)
    }))

  it.effect("a negative --budget or --max", () =>
    Effect.gen(function*() {
      const { text } = yield* sampleRun
      yield* refused(["view", "--budget", "-1"], text, "cupel view: --budget must be 0 or more tokens, got -1")
      yield* refused(["view", "--max", "-7"], text, "cupel view: --max must be 0 or more tokens, got -7")
    }))

  it.effect("--budget or --max with a session, refused rather than ignored", () =>
    Effect.gen(function*() {
      const lines = yield* sessionLines(2)
      const message = "cupel view: --budget and --max are for a run result; a session's calls carry their own budgets"
      yield* refused(["view", "--budget", "100"], `${lines.join("\n")}\n`, message)
      yield* refused(["view", "--max", "100"], `${lines.join("\n")}\n`, message)
    }))

  it.effect("a --budget over --max, refused as cupel run refuses it", () =>
    Effect.gen(function*() {
      const { text } = yield* sampleRun
      yield* refused(["view", "--budget", "9000", "--max", "4096"], text, "cupel view: --budget (9000) must not exceed --max (4096)")
    }))

  it.effect("an unreadable file", () =>
    refused(["view", "/nonexistent/session.jsonl"], "", /^cupel view: invalid input \(\/nonexistent\/session\.jsonl\): cannot read: no such file or directory$/))

  it.effect("an output file that cannot be written", () =>
    Effect.gen(function*() {
      const { text } = yield* sampleRun
      yield* refused(["view", "--out", "/nonexistent/dir/page.html"], text, /^cupel view: cannot write \/nonexistent\/dir\/page\.html: /)
    }))
})

describe("ViewPage", () => {
  it("scriptJson: <, >, &, U+2028 and U+2029 as escapes, the same JSON when parsed", () => {
    const value = { text: `${attack} & \u2028\u2029 <!-- -->` }
    const json = ViewPage.scriptJson(value)
    assert.notMatch(json, /[<>&\u2028\u2029]/)
    assert.deepStrictEqual(JSON.parse(json), value)
  })

  it("escapeHtml: the five characters HTML reads as markup", () => {
    assert.strictEqual(ViewPage.escapeHtml(`<a href="x">'&'</a>`), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
  })
})

layer(NodeServices.layer)("cupel view: docs/cli.md", (it) => {
  it.effect("the documented pipe runs: trains.json's result as a page, with the counts the doc gives", () =>
    Effect.gen(function*() {
      const command = docBlock("view-example:run")
      const [runPart, viewPart] = command.split(" | ")
      const input = yield* writeTemp("trains.json", docBlock("run-example:input"))
      const runArgs = runPart!.split(" ").slice(1).map((a) => (a === "trains.json" ? input : a))
      const run = yield* cli(runArgs)
      assert.strictEqual(run.code, 0, run.stderr)
      const out = `${input}.html`
      const viewArgs = viewPart!.split(" ").slice(1).map((a) => (a === "trains.html" ? out : a))
      const view = yield* cli(viewArgs, run.stdout)
      assert.strictEqual(view.code, 0, view.stderr)
      const fs = yield* FileSystem.FileSystem
      const html = yield* fs.readFileString(out)
      const counts = docBlock("view-example:counts").split("\n").map((line) => line.split(": "))
      for (const [label, value] of counts) assert.strictEqual(stat(html, label!), value, label)
    }).pipe(Effect.scoped))
})

describe("cupel view: the picture", () => {
  const root = fileURLToPath(new URL("..", import.meta.url))
  it("README.md and docs/cli.md show the session's screenshot, and it is there", () => {
    assert.include(readFileSync(`${root}README.md`, "utf8"), "](docs/images/cupel-view-session.png)")
    assert.include(readFileSync(`${root}docs/cli.md`, "utf8"), "](images/cupel-view-session.png)")
    const png = readFileSync(`${root}docs/images/cupel-view-session.png`)
    assert.deepStrictEqual([...png.subarray(1, 4)], [0x50, 0x4e, 0x47])
    assert.isTrue(existsSync(`${root}test/CliViewBrowser.test.ts`))
  })
})
