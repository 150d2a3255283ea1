/**
 * ViewPage: the HTML of `cupel view` — one self-contained page (its CSS and script inline, no
 * network, no fonts or images from elsewhere) for a `cupel run` result or for an agent session's
 * call-report lines (`CallReportLog`).
 *
 * Everything a person reads is written as HTML here, escaped, the details of every call of a
 * session included (one section per call); the session page's script only hides all but the
 * call selected, so that without script the page still reads, every call in turn. A session of
 * more than {@link fullPageCalls} calls gets {@link longSessionPage} instead (design 94): compact
 * data of each call, a chart of the timeline, a list that draws the rows in view, and the
 * selected call's details drawn by its script (its texts escaped there, control characters
 * escaped here). Every text of
 * the input goes through {@link escapeHtml}; JSON placed in a `<script>` (the script's only
 * data is the calls' count) goes through {@link scriptJson}, which writes `<`, `>`, `&`, U+2028
 * and U+2029 as escapes, so that no `</script>` can end the script early.
 *
 * @since 0.3.0
 */
import { DateTime } from "effect"
import * as CacheMiss from "../ai/CacheMiss.ts"
import type * as CallReportLog from "../ai/CallReportLog.ts"
import { stableWindowFilter } from "../ai/StableWindow.ts"
import type { ContextItem } from "../ContextItem.ts"
import * as ContextKind from "../ContextKind.ts"
import { cutText } from "../internal/cutText.ts"
import type { ExclusionReason } from "../ExclusionReason.ts"
import type { PipelineResult } from "../PipelineResult.ts"
import type { TraceEvent } from "../TraceEvent.ts"
import * as Render from "./Render.ts"

// C0 controls but tab, line feed and carriage return (HTML's whitespace), DEL, the C1 controls.
const control = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g

/**
 * `&`, `<`, `>`, `"` and `'` as character references: text safe in an element or an attribute;
 * and control characters as `\u` escapes (`\u0000`, `\u001b`), as `cupel explain` shows them.
 *
 * @since 0.3.0
 * @category escaping
 */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === '"' ? "&quot;" : "&#39;")
    // Control characters (a NUL, an ANSI escape) are no text a page can show: HTML calls them
    // parse errors and browsers draw nothing or a box. Written as `cupel explain` writes them.
    .replace(control, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

/**
 * `JSON.stringify(value)` safe inside `<script type="application/json">`: `<`, `>`, `&`, U+2028
 * and U+2029 written as `\uXXXX` escapes (the same JSON, read back by `JSON.parse`).
 *
 * @since 0.3.0
 * @category escaping
 */
export const scriptJson = (value: unknown): string =>
  (JSON.stringify(value) ?? "null").replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`
  )

const count = Render.count

const percent = (x: number): string => `${(Number.isFinite(x) ? x * 100 : 0).toFixed(1)}%`

/** A width or height for CSS, from a share clamped to [0, 1]. */
const share = (x: number): string => `${(Math.min(1, Math.max(0, Number.isFinite(x) ? x : 0)) * 100).toFixed(2)}%`

/**
 * The text of an item, one line, whitespace collapsed, cut to `width` characters at a grapheme's
 * end (a cut inside an emoji's UTF-16 pair would leave half of it, drawn as U+FFFD).
 */
const line = (text: string, width = 90): string => cutText(text.replace(/\s+/g, " ").trim(), width)

// Colours of the kinds; each is a fill (bars, swatches) with text never written on it, and reads
// at 3:1 or more against both page backgrounds (non-text contrast).
const palette = ["#2f6fde", "#c2410c", "#15803d", "#9333ea", "#be185d", "#0e7490", "#a16207", "#4d7c0f"]
const knownKinds = ["SystemPrompt", "Message", "Document", "ToolOutput", "Memory", "Image"]

/** A kind's colour class (`k0` … `k7`): the known kinds first, others by their name. */
const kindClass = (kind: string): string => {
  const folded = ContextKind.fold(kind)
  const known = knownKinds.findIndex((k) => ContextKind.fold(k) === folded)
  if (known >= 0) return `k${known}`
  let h = 0
  for (const c of folded) h = (h * 31 + c.charCodeAt(0)) >>> 0
  return `k${knownKinds.length + (h % (palette.length - knownKinds.length))}`
}

const css = `
:root{color-scheme:light dark;--bg:#ffffff;--fg:#1a1a1a;--muted:#4d4d4d;--line:#c8c8c8;--panel:#f3f4f6;
--accent:#1d4ed8;--focus:#b45309;--good:#166534;--bad:#991b1b;--track:#e5e7eb;--sel:#dbeafe}
@media (prefers-color-scheme:dark){:root{--bg:#111418;--fg:#eceff3;--muted:#b4bcc6;--line:#3a414b;--panel:#1b2027;
--accent:#8fb4ff;--focus:#fbbf24;--good:#86efac;--bad:#fca5a5;--track:#2a3039;--sel:#1e3a5f}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:1180px;margin:0 auto;padding:24px 20px 48px}
h1{font-size:1.5rem;margin:0 0 4px}h2{font-size:1.2rem;margin:28px 0 8px}h3{font-size:1.05rem;margin:18px 0 6px}
p{margin:6px 0}.muted{color:var(--muted)}code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92em}
.stats{display:flex;flex-wrap:wrap;gap:10px;margin:14px 0;padding:0;list-style:none}
.stats li{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:8px 12px;min-width:120px}
.stats b{display:block;font-size:1.25rem}
table{border-collapse:collapse;width:100%;margin:6px 0}
caption{text-align:left;color:var(--muted);padding:4px 0;caption-side:top}
th,td{text-align:left;padding:4px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{font-weight:600}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}td.n{white-space:nowrap}
td.text{max-width:520px;overflow-wrap:anywhere}
.sw{display:inline-block;width:.8em;height:.8em;border-radius:2px;margin-right:6px;vertical-align:-1px}
.k0{background:${palette[0]}}.k1{background:${palette[1]}}.k2{background:${palette[2]}}.k3{background:${palette[3]}}
.k4{background:${palette[4]}}.k5{background:${palette[5]}}.k6{background:${palette[6]}}.k7{background:${palette[7]}}
.stack{position:relative;display:flex;height:28px;background:var(--track);border:1px solid var(--line);border-radius:4px;overflow:visible;margin:10px 0 26px}
.stack>span{height:100%}
.mark{position:absolute;top:-6px;bottom:-6px;width:0}
.mark::before{content:"";position:absolute;top:0;bottom:0;left:-1px;width:2px;background:var(--fg)}
.mark>em{position:absolute;top:100%;right:0;font-style:normal;font-size:.8rem;white-space:nowrap;color:var(--fg)}
.meter{display:inline-block;width:120px;height:10px;background:var(--track);border-radius:2px;vertical-align:middle;margin-right:6px}
.meter>span{display:block;height:100%;background:var(--accent);border-radius:2px}
.shape{display:flex;align-items:flex-end;gap:2px;height:120px;padding:4px;border:1px solid var(--line);border-radius:4px;background:var(--panel)}
.shape>span{flex:1 1 0;min-width:2px;border-radius:2px 2px 0 0}
.legend{display:flex;flex-wrap:wrap;gap:14px;margin:6px 0;padding:0;list-style:none}
.out{color:var(--bad)}.in{color:var(--good)}
button.call{font:inherit;color:var(--accent);background:none;border:1px solid transparent;border-radius:4px;padding:2px 6px;cursor:pointer;text-decoration:underline}
tr.selected{background:var(--sel)}
tr.selected button.call{font-weight:700;text-decoration:none;color:var(--fg)}
a{color:var(--accent)}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.minibar{display:flex;width:120px;height:10px;background:var(--track);border-radius:2px;overflow:hidden}
.detail{border:1px solid var(--line);border-radius:8px;padding:4px 16px 12px;margin-top:12px;background:var(--bg)}
.tag{display:inline-block;border:1px solid var(--line);border-radius:10px;padding:0 8px;font-size:.85rem}
.scroll{overflow-x:auto}
.entries{padding-left:0;list-style:none;margin:4px 0}.entries li{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
button.call{white-space:nowrap}
#timeline{font-size:.9rem}#timeline th,#timeline td{padding:3px 6px}
main.wide{max-width:1560px}
.chart{margin:8px 0}.chart svg{display:block;width:100%;height:160px;background:var(--panel);border:1px solid var(--line);border-radius:4px;cursor:crosshair}
.chart polyline{fill:none;stroke-width:1.5;vector-effect:non-scaling-stroke}.chart .sent{stroke:${palette[0]}}
.chart .read{stroke:${palette[2]}}.chart .target{stroke:var(--muted);stroke-dasharray:4 3}
.chart #cursor{stroke:var(--focus);stroke-width:2;vector-effect:non-scaling-stroke}
.line-sent{background:${palette[0]}}.line-read{background:${palette[2]}}.line-target{background:var(--muted)}
.vlist{border:1px solid var(--line);border-radius:4px}
.vlist thead th{position:sticky;top:0;background:var(--bg);z-index:1}
.vlist tbody td,.vlist tbody th{white-space:nowrap}.vlist tr.pad td,.vlist tr.pad{padding:0;border:0}
.session .timeline{max-height:60vh;overflow:auto}
#timeline th{white-space:normal;vertical-align:bottom}#timeline .minibar{width:90px}
`

const page = (title: string, body: string, script: string, wide = false): string =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(title)}</title>
<style>${css}</style>
</head>
<body>
<main${wide ? ` class="wide"` : ""}>
${body}
</main>
${script}
</body>
</html>
`

const stats = (entries: ReadonlyArray<readonly [string, string]>): string =>
  `<ul class="stats">${entries.map(([label, value]) => `<li><b>${escapeHtml(value)}</b>${escapeHtml(label)}</li>`).join("")}</ul>`

interface KindTotal {
  readonly kind: string
  readonly items: number
  readonly tokens: number
}

/** Items and tokens by kind (folded: `message` and `Message` are one), in order of first appearance. */
const byKind = (items: ReadonlyArray<{ readonly kind: string; readonly tokens: number }>): Array<KindTotal> => {
  const totals = new Map<string, { kind: string; items: number; tokens: number }>()
  for (const { kind, tokens } of items) {
    const key = ContextKind.fold(kind)
    const entry = totals.get(key) ?? { kind, items: 0, tokens: 0 }
    entry.items++
    entry.tokens += Math.max(0, tokens)
    totals.set(key, entry)
  }
  return [...totals.values()]
}

/** A stacked bar of tokens by kind over `scale`, with marks (the target, the maximum). */
const stackedBar = (
  kinds: ReadonlyArray<KindTotal>,
  scale: number,
  marks: ReadonlyArray<readonly [string, number]>,
  label: string
): string =>
  `<div class="stack" role="img" aria-label="${escapeHtml(label)}">${
    kinds.map((k) =>
      `<span class="${kindClass(k.kind)}" style="width:${share(k.tokens / scale)}" title="${escapeHtml(k.kind)}: ${
        count(k.tokens)
      } tokens"></span>`
    ).join("")
  }${
    marks.map(([name, at]) =>
      `<span class="mark" style="left:${share(at / scale)}"><em>${escapeHtml(name)} ${count(at)}</em></span>`
    ).join("")
  }</div>`

const kindTable = (kinds: ReadonlyArray<KindTotal>, caption: string, of?: number): string => {
  const total = kinds.reduce((sum, k) => sum + k.tokens, 0)
  return `<table><caption>${escapeHtml(caption)}</caption><thead><tr><th scope="col">kind</th><th scope="col" class="n">items</th>` +
    `<th scope="col" class="n">tokens</th><th scope="col" class="n">${of === undefined ? "share" : "of the target"}</th></tr></thead><tbody>${
      kinds.map((k) =>
        `<tr><th scope="row"><span class="sw ${kindClass(k.kind)}"></span>${escapeHtml(k.kind)}</th><td class="n">${k.items}</td>` +
        `<td class="n">${count(k.tokens)}</td><td class="n">${percent(k.tokens / (of ?? (total || 1)))}</td></tr>`
      ).join("")
    }</tbody><tfoot><tr><th scope="row">total</th><td class="n">${kinds.reduce((s, k) => s + k.items, 0)}</td>` +
    `<td class="n">${count(total)}</td><td class="n">${percent(total / (of ?? (total || 1)))}</td></tr></tfoot></table>`
}

const meter = (x: number, label: string): string =>
  `<span class="meter" aria-hidden="true"><span style="width:${share(x)}"></span></span>${escapeHtml(label)}`

const stageTable = (events: ReadonlyArray<TraceEvent>): string => {
  if (events.length === 0) return `<p class="muted">No stage ran (an appending call sends the previous window and the new messages).</p>`
  const total = events.reduce((sum, e) => sum + e.durationMs, 0)
  const longest = events.reduce((most, e) => Math.max(most, e.durationMs), 0)
  return `<table><caption>Each stage, the items it passed on and how long it took</caption><thead><tr><th scope="col">stage</th>` +
    `<th scope="col" class="n">items</th><th scope="col">time</th><th scope="col">note</th></tr></thead><tbody>${
      events.map((e) =>
        `<tr><th scope="row">${escapeHtml(e.stage)}</th><td class="n">${e.itemCount}</td><td>${
          meter(longest > 0 ? e.durationMs / longest : 0, `${e.durationMs.toFixed(2)} ms`)
        }</td><td>${escapeHtml(e.message ?? "")}</td></tr>`
      ).join("")
    }</tbody><tfoot><tr><th scope="row">total</th><td></td><td>${total.toFixed(2)} ms</td><td></td></tr></tfoot></table>`
}

const legend = (kinds: ReadonlyArray<KindTotal>): string =>
  `<ul class="legend" aria-label="colours of the kinds">${
    kinds.map((k) => `<li><span class="sw ${kindClass(k.kind)}"></span>${escapeHtml(k.kind)}</li>`).join("")
  }</ul>`

/**
 * The budget a run is drawn against: a `cupel run` result does not carry it, so `cupel view`
 * takes it from `--budget` / `--max`.
 *
 * @since 0.3.0
 * @category models
 */
export interface RunBudget {
  readonly targetTokens: number | undefined
  readonly maxTokens: number | undefined
}

/**
 * The page of a `cupel run` result: the counts; tokens by kind against the budget (a stacked
 * bar and a table); the window position by position with each score as a bar, and the scores
 * drawn side by side so that the placer's shape (U or chronological) shows; every item left out
 * with its reason in the words of `cupel explain`; the stages and their timings.
 *
 * @since 0.3.0
 * @category rendering
 */
export const runPage = (source: string, result: PipelineResult, budget: RunBudget): string => {
  const { report } = result
  const windowItems = report.included.map((e) => e.item)
  const pinned: Array<ContextItem> = windowItems.filter((item) => item.pinned)
  const kinds = byKind(windowItems)
  const excludedTokens = report.excluded.reduce((sum, e) => sum + Math.max(0, e.item.tokens), 0)
  const target = budget.targetTokens
  const scale = Math.max(1, result.totalTokens, target ?? 0)
  const marks: Array<readonly [string, number]> = target === undefined ? [] : [["target", target]]
  const body = [
    `<header><h1>cupel view: a run</h1><p class="muted">from <code>${escapeHtml(source)}</code></p></header>`,
    stats([
      ["in the window", String(report.included.length)],
      ["left out", String(report.excluded.length)],
      ["candidates", String(report.totalCandidates)],
      ["tokens in the window", count(result.totalTokens)],
      ...(target === undefined ? [] : [["target", count(target)] as const]),
      ...(budget.maxTokens === undefined ? [] : [["max tokens", count(budget.maxTokens)] as const]),
      ...(result.tokensOverBudget > 0 ? [["over the target", count(result.tokensOverBudget)] as const] : [])
    ]),
    `<section aria-labelledby="h-kinds"><h2 id="h-kinds">Tokens by kind against the budget</h2>`,
    target === undefined
      ? `<p class="muted">A run result does not hold its budget: pass <code>--budget N</code> (and <code>--max N</code>) to draw the window against it.</p>`
      : `<p>${count(result.totalTokens)} of the target's ${count(target)} tokens (${percent(result.totalTokens / (target || 1))})${
        result.tokensOverBudget > 0 ? `, <strong class="out">${count(result.tokensOverBudget)} over</strong>` : ""
      }; ${count(excludedTokens)} tokens left out.</p>`,
    stackedBar(kinds, scale, marks, `tokens of the window by kind: ${kinds.map((k) => `${k.kind} ${k.tokens}`).join(", ")}`),
    legend(kinds),
    kindTable(kinds, "Window tokens by kind", target),
    `</section>`,
    `<section aria-labelledby="h-window"><h2 id="h-window">The window, position by position</h2>`,
    `<p class="muted">Each position's score, first to last: a U-shaped placer puts the highest scores at both ends, a chronological one orders by time.</p>`,
    `<div class="shape" role="img" aria-label="scores by position: ${
      escapeHtml(report.included.map((e) => e.score.toFixed(2)).join(", "))
    }">${
      report.included.map((e, i) =>
        `<span class="${kindClass(e.item.kind)}" style="height:${share(e.score)}" title="#${i + 1} ${escapeHtml(e.item.kind)} ${
          e.score.toFixed(2)
        }"></span>`
      ).join("")
    }</div>`,
    `<div class="scroll"><table id="window"><caption>${report.included.length} items in placed order</caption><thead><tr>` +
    `<th scope="col" class="n">#</th><th scope="col">kind</th><th scope="col">content</th><th scope="col" class="n">tokens</th>` +
    `<th scope="col">score</th><th scope="col">why</th></tr></thead><tbody>${
      report.included.map((e, i) =>
        `<tr><td class="n">${i + 1}</td><td><span class="sw ${kindClass(e.item.kind)}"></span>${escapeHtml(e.item.kind)}${
          e.item.pinned ? ` <span class="tag">pinned</span>` : ""
        }</td><td class="text">${escapeHtml(line(e.item.content))}</td><td class="n">${count(e.item.tokens)}</td><td>${
          meter(e.score, e.score.toFixed(2))
        }</td><td>${escapeHtml(Render.inclusionWords(e.reason))}</td></tr>`
      ).join("")
    }</tbody></table></div></section>`,
    `<section aria-labelledby="h-out"><h2 id="h-out">Left out, and why</h2>`,
    report.excluded.length === 0
      ? `<p>Nothing was left out.</p>`
      : `<div class="scroll"><table id="excluded"><caption>${report.excluded.length} items, by score</caption><thead><tr>` +
        `<th scope="col">kind</th><th scope="col">content</th><th scope="col" class="n">tokens</th><th scope="col" class="n">score</th>` +
        `<th scope="col">why</th></tr></thead><tbody>${
          report.excluded.map((e) =>
            `<tr><td><span class="sw ${kindClass(e.item.kind)}"></span>${escapeHtml(e.item.kind)}</td><td class="text">${
              escapeHtml(line(e.item.content))
            }</td><td class="n">${count(e.item.tokens)}</td><td class="n">${e.score.toFixed(2)}</td><td>${
              escapeHtml(Render.humanReason(e.reason, pinned))
            }</td></tr>`
          ).join("")
        }</tbody></table></div>`,
    `</section>`,
    `<section aria-labelledby="h-stages"><h2 id="h-stages">Stages</h2>${stageTable(report.events)}</section>`
  ].join("\n")
  return page(`cupel view: ${source}`, body, "")
}

/** Why a session's item was left out, in words. */
const sessionReason = (reason: ExclusionReason): string =>
  reason._tag === "Filtered" && reason.filterName === stableWindowFilter
    ? "dropped by an earlier compaction"
    : reason._tag === "Summarized"
    ? `folded into the summary ${reason.summaryId}`
    : Render.humanReason(reason, [])

/** The name the tool definitions a call sent go by, beside the kinds of its items. */
const toolDefinitions = "tool definitions"

/** What a call sent, by kind: its tool definitions (when it offered tools), then its window's items. */
const sentByKind = (l: CallReportLog.Line): Array<KindTotal> => [
  ...(l.toolTokens > 0 ? [{ kind: toolDefinitions, items: 1, tokens: l.toolTokens }] : []),
  ...byKind(l.window)
]

/** An entry's identity across calls: its message, its summary, or its kind and text. */
const identity = (entry: CallReportLog.WindowEntry): string =>
  entry.message !== undefined
    ? `m${entry.message}`
    : entry.summary !== undefined
    ? `s${entry.summary}`
    : `d${entry.kind}\u0000${entry.preview}`

/**
 * What each call changed in its conversation's window: the entries it sends that the
 * conversation's previous call did not (`added`; all of them at a conversation's first call),
 * and those that call sent and this one does not (`dropped`); entries that look alike (the same
 * kind and text, no message index) are matched one by one.
 *
 * @since 0.3.0
 * @category rendering
 */
export const changes = (lines: ReadonlyArray<CallReportLog.Line>): Array<{
  readonly added: ReadonlyArray<CallReportLog.WindowEntry>
  readonly dropped: ReadonlyArray<CallReportLog.WindowEntry>
}> => {
  const last = new Map<string, CallReportLog.Line>()
  return lines.map((line) => {
    const key = line.conversation ?? ""
    const previous = last.get(key)
    last.set(key, line)
    const earlier = previous?.window ?? []
    return { added: beyond(line.window, earlier), dropped: beyond(earlier, line.window) }
  })
}

/**
 * The entries of `these` that `those` has no counterpart for, matched one by one (as a multiset):
 * two documents with the same kind and text, one of them gone, are one dropped, not none.
 */
const beyond = (
  these: ReadonlyArray<CallReportLog.WindowEntry>,
  those: ReadonlyArray<CallReportLog.WindowEntry>
): Array<CallReportLog.WindowEntry> => {
  const left = new Map<string, number>()
  for (const e of those) left.set(identity(e), (left.get(identity(e)) ?? 0) + 1)
  return these.filter((e) => {
    const key = identity(e)
    const n = left.get(key) ?? 0
    if (n === 0) return true
    left.set(key, n - 1)
    return false
  })
}

const ratio = (part: number, whole: number): string => (whole > 0 ? percent(part / whole) : "—")

const entryLabel = (e: { readonly role?: string; readonly kind: string }): string =>
  e.role === undefined ? e.kind : `${e.role} · ${e.kind}`

const entryList = (entries: ReadonlyArray<CallReportLog.WindowEntry>, none: string): string =>
  entries.length === 0
    ? `<p class="muted">${escapeHtml(none)}</p>`
    : `<ul class="entries">${
      entries.map((e) =>
        `<li><span class="sw ${kindClass(e.kind)}"></span>${escapeHtml(entryLabel(e))}${
          e.message === undefined ? "" : ` <span class="muted">#${e.message}</span>`
        }, ${count(e.tokens)} tokens: ${escapeHtml(line(e.preview, 110))}</li>`
      ).join("")
    }</ul>`

const callFigures = (l: CallReportLog.Line): ReadonlyArray<readonly [string, string]> => [
  ["method", l.method],
  ["outcome", l.outcome],
  ["mode", l.mode],
  ...(l.conversation === undefined ? [] : [["conversation", l.conversation] as const]),
  ...(l.at === undefined ? [] : [["at", DateTime.formatIso(l.at)] as const]),
  ["budget (target / max)", `${count(l.targetTokens)} / ${count(l.maxTokens)}`],
  ["tokens sent (window)", count(l.totalTokens)],
  ["tool definitions", `${count(l.toolTokens)} tokens`],
  ...(l.calibration === undefined ? [] : [["calibration", l.calibration.toFixed(3)] as const]),
  ["candidates", String(l.candidates)],
  ...(l.change === undefined ? [] : [[
    "change",
    `${l.change.action}${l.change.fresh === undefined ? "" : ` (${l.change.fresh})`}: kept ${l.change.kept}, added ${l.change.added} ` +
    `(${count(l.change.addedTokens)} tokens), dropped ${l.change.dropped} (${count(l.change.droppedTokens)} tokens)` +
    (l.change.lowWatermark === undefined ? "" : `, low watermark ${l.change.lowWatermark}`)
  ] as const]),
  ...(l.prediction === undefined ? [] : [[
    "predicted cache",
    `${count(l.prediction.cachedTokens)} read, ${count(l.prediction.writtenTokens)} written of ${count(l.prediction.totalTokens)}; ` +
    `cost ${l.prediction.cost.toFixed(0)} vs ${l.prediction.costWithoutCache.toFixed(0)} without a cache`
  ] as const]),
  ...(l.reported === undefined ? [] : [[
    "reported by the provider",
    `${l.reported.total === undefined ? "?" : count(l.reported.total)} input tokens` +
    (l.reported.cacheRead === undefined ? "" : `, ${count(l.reported.cacheRead)} read from the cache`) +
    (l.reported.cacheWrite === undefined ? "" : `, ${count(l.reported.cacheWrite)} written to it`)
  ] as const]),
  ...(l.miss === undefined ? [] : [[
    "cache miss",
    `${CacheMiss.describe(l.miss.cause)}: ${count(Math.max(0, l.miss.previousTokens - l.miss.cachedTokens))} of the previous ` +
    `request's ${count(l.miss.previousTokens)} tokens not read (${l.miss.source})`
  ] as const]),
  ...(l.committed === undefined ? [] : [["state", l.committed] as const]),
  ...(l.change?.storeFailure === undefined ? [] : [["store failure", l.change.storeFailure] as const])
]

const summaryText = (l: CallReportLog.Line): string | undefined => {
  const s = l.change?.summary
  if (s === undefined) return undefined
  switch (s.outcome) {
    case "written":
      return `summarised ${s.spanMessages} messages (${count(s.spanTokens)} tokens) in ${count(s.summaryTokens)} tokens` +
        (s.id === undefined ? "" : ` (${s.id})`)
    case "kept":
      return "the summary was kept: nothing new to summarise"
    case "failed":
      return `the summariser failed${s.error === undefined ? "" : `: ${s.error}`}`
    case "no-room":
      return "no room for a summary"
  }
}

const callDetail = (
  l: CallReportLog.Line,
  k: number,
  change: { readonly added: ReadonlyArray<CallReportLog.WindowEntry>; readonly dropped: ReadonlyArray<CallReportLog.WindowEntry> }
): string => {
  const kinds = sentByKind(l)
  const summary = summaryText(l)
  return `<section class="detail" id="call-${k}" aria-labelledby="call-${k}-h">` +
    `<h2 id="call-${k}-h">Call ${k + 1}</h2>` +
    `<h3>Summarised</h3><p>${escapeHtml(summary ?? "No summary at this call.")}</p>` +
    `<h3>Dropped (${change.dropped.length})</h3>${entryList(change.dropped, "Nothing dropped.")}` +
    `<h3>Added (${change.added.length})</h3>${entryList(change.added, "Nothing new.")}` +
    `<h3>Tokens sent by kind</h3>` +
    // The prompt's target is what the tool definitions left of the window's: drawn with them.
    stackedBar(kinds, Math.max(1, l.totalTokens + l.toolTokens, l.targetTokens + l.toolTokens), [[
      l.toolTokens > 0 ? "target + tools" : "target",
      l.targetTokens + l.toolTokens
    ]], `tokens sent by kind`) +
    kindTable(kinds, "Sent by kind", l.targetTokens + l.toolTokens) +
    `<h3>Figures</h3><table><caption>What was sent and how it went</caption><tbody>${
      callFigures(l).map(([name, value]) => `<tr><th scope="row">${escapeHtml(name)}</th><td>${escapeHtml(value)}</td></tr>`).join("")
    }</tbody></table>` +
    `<h3>The window (${l.window.length})</h3><div class="scroll"><table><thead><tr><th scope="col" class="n">#</th>` +
    `<th scope="col">role · kind</th><th scope="col">content</th><th scope="col" class="n">tokens</th><th scope="col">why</th></tr></thead><tbody>${
      l.window.map((e, i) =>
        `<tr><td class="n">${i + 1}</td><td><span class="sw ${kindClass(e.kind)}"></span>${escapeHtml(entryLabel(e))}</td>` +
        `<td class="text">${escapeHtml(line(e.preview))}</td><td class="n">${count(e.tokens)}</td><td>${
          escapeHtml(Render.inclusionWords(e.reason))
        }</td></tr>`
      ).join("")
    }</tbody></table></div>` +
    `<h3>Left out (${l.excluded.length})</h3>${
      l.excluded.length === 0 ? `<p class="muted">Nothing was left out.</p>` : `<div class="scroll"><table><thead><tr>` +
        `<th scope="col">role · kind</th><th scope="col">content</th><th scope="col" class="n">tokens</th><th scope="col">why</th></tr></thead><tbody>${
          l.excluded.map((e) =>
            `<tr><td><span class="sw ${kindClass(e.kind)}"></span>${escapeHtml(entryLabel(e))}</td><td class="text">${
              escapeHtml(line(e.preview))
            }</td><td class="n">${count(e.tokens)}</td><td>${escapeHtml(sessionReason(e.reason))}</td></tr>`
          ).join("")
        }</tbody></table></div>`
    }` +
    `<h3>Stages</h3>${stageTable(l.events)}</section>`
}

/**
 * A session's counts, added up one call at a time: the page of a long session reads its log as
 * a stream and keeps these, not the calls.
 */
const makeTally = () => {
  // Each conversation's number, in order of first appearance: with more than one, the timeline
  // says which each call is of (their calls interleave, and added/dropped are per conversation).
  const numbers = new Map<string, number>()
  const kinds = new Map<string, { kind: string; items: number; tokens: number }>()
  const misses = new Map<string, number>()
  let calls = 0
  let sent = 0
  let compactions = 0
  let missed = 0
  let scale = 1
  const predicted = { read: 0, written: 0, of: 0 }
  const reported = { read: 0, of: 0 }
  const billed = { written: 0, of: 0 }
  const summaries = { read: 0, of: 0, requests: 0 }
  const kind = (name: string, tokens: number) => {
    const key = ContextKind.fold(name)
    const entry = kinds.get(key) ?? { kind: name, items: 0, tokens: 0 }
    entry.items++
    entry.tokens += Math.max(0, tokens)
    kinds.set(key, entry)
  }
  return {
    numbers,
    add: (l: CallReportLog.Line): number => {
      const key = l.conversation ?? ""
      if (!numbers.has(key)) numbers.set(key, numbers.size + 1)
      calls++
      // What a call sent is its window and its tool definitions, as its bar and table by kind draw it.
      sent += l.totalTokens + l.toolTokens
      scale = Math.max(scale, l.totalTokens + l.toolTokens, l.targetTokens)
      if (l.change?.action === "compact") compactions++
      if (l.prediction !== undefined) {
        predicted.read += l.prediction.cachedTokens
        predicted.written += l.prediction.writtenTokens
        predicted.of += l.prediction.totalTokens
      }
      if (l.reported?.total !== undefined && l.reported.cacheRead !== undefined) {
        reported.read += l.reported.cacheRead
        reported.of += l.reported.total
      }
      if (l.reported?.total !== undefined && l.reported.cacheWrite !== undefined) {
        billed.written += l.reported.cacheWrite
        billed.of += l.reported.total
      }
      // The summariser's requests, as its model billed them (a compaction's summary is part of its call's cost).
      const u = l.change?.summary?.usage
      if (u?.inputTokens !== undefined) {
        summaries.read += u.cacheReadTokens ?? 0
        summaries.of += u.inputTokens
        summaries.requests++
      }
      if (l.miss !== undefined) {
        missed++
        misses.set(l.miss.cause._tag, (misses.get(l.miss.cause._tag) ?? 0) + 1)
      }
      if (l.toolTokens > 0) kind(toolDefinitions, l.toolTokens)
      for (const e of l.window) kind(e.kind, e.tokens)
      return numbers.get(key)!
    },
    /** The largest of what a call sent and its target: the timeline's bars are drawn against it. */
    scale: () => scale,
    kinds: (): Array<KindTotal> => [...kinds.values()],
    stats: (): ReadonlyArray<readonly [string, string]> => [
      ["calls", String(calls)],
      ["conversations", String(numbers.size)],
      ["tokens sent", count(sent)],
      ["compactions", String(compactions)],
      ["predicted cache reads", ratio(predicted.read, predicted.of)],
      ["billed cache reads", ratio(reported.read, reported.of)],
      ["predicted cache writes", ratio(predicted.written, predicted.of)],
      ["billed cache writes", ratio(billed.written, billed.of)],
      ...(summaries.requests === 0 ? [] : [["summaries' billed cache reads", ratio(summaries.read, summaries.of)] as const]),
      [
        "cache misses",
        misses.size === 0
          ? "none"
          : `${missed} (${CacheMiss.causes.filter((c) => misses.has(c)).map((c) => `${c} ${misses.get(c)}`).join(", ")})`
      ]
    ]
  }
}

// The script: the timeline's buttons select a call (click, Enter, Space); the arrow keys, Home
// and End move between them. Only the selected call's details are shown.
const sessionScript = (calls: number): string =>
  `<script type="application/json" id="cupel-data">${scriptJson({ calls })}</script>
<script>
(function () {
  var data = JSON.parse(document.getElementById("cupel-data").textContent);
  var buttons = Array.prototype.slice.call(document.querySelectorAll("button.call"));
  var status = document.getElementById("selected");
  function select(k, focus) {
    if (k < 0 || k >= data.calls) return;
    buttons.forEach(function (b, i) {
      var on = i === k;
      b.setAttribute("aria-pressed", on ? "true" : "false");
      b.closest("tr").classList.toggle("selected", on);
      document.getElementById("call-" + i).hidden = !on;
    });
    status.textContent = "Call " + (k + 1) + " of " + data.calls + " selected";
    if (focus) buttons[k].focus();
  }
  select(0, false);
  buttons.forEach(function (b, i) {
    b.addEventListener("click", function () { select(i, false); });
    b.addEventListener("keydown", function (e) {
      var to = e.key === "ArrowDown" || e.key === "ArrowRight" ? i + 1
        : e.key === "ArrowUp" || e.key === "ArrowLeft" ? i - 1
        : e.key === "Home" ? 0 : e.key === "End" ? data.calls - 1 : -1;
      if (to >= 0 && to < data.calls) { e.preventDefault(); select(to, true); }
    });
  });
})();
</script>`

/**
 * The page of an agent session: the counts; a timeline of the calls, one row each, with the
 * tokens sent by kind, the predicted and the billed cache reads and writes, why it missed the cache
 * (if it did), what the call added, dropped
 * and summarised; and the details of the call selected (its figures, tokens by kind against its
 * budget, the entries added and dropped, the summary, the window, what was left out and why).
 *
 * @since 0.3.0
 * @category rendering
 */
export const sessionPage = (source: string, lines: ReadonlyArray<CallReportLog.Line>): string => {
  const perCall = changes(lines)
  const tally = makeTally()
  for (const l of lines) tally.add(l)
  const numbers = tally.numbers
  const several = numbers.size > 1
  const scale = tally.scale()
  const body = [
    `<header><h1>cupel view: an agent session</h1><p class="muted">from <code>${escapeHtml(source)}</code></p></header>`,
    stats(tally.stats()),
    `<div class="session"><section aria-labelledby="h-timeline"><h2 id="h-timeline">Timeline</h2>`,
    `<p class="muted">One row per call. Select a call (Tab to its button, then Enter; the arrow keys move between calls) to see what it sent, added, dropped and summarised.</p>`,
    legend(tally.kinds()),
    `<div class="scroll timeline"><table id="timeline"><caption>${lines.length} calls; cache reads as a share of the request</caption><thead><tr>` +
    `<th scope="col">call</th>${several ? `<th scope="col" class="n">conversation</th>` : ""}<th scope="col">change</th><th scope="col">tokens sent by kind</th><th scope="col" class="n">sent</th>` +
    `<th scope="col" class="n">predicted cache read</th><th scope="col" class="n">billed cache read</th>` +
    `<th scope="col" class="n">predicted cache write</th><th scope="col" class="n">billed cache write</th><th scope="col">cache miss</th>` +
    `<th scope="col" class="n">added</th><th scope="col" class="n">dropped</th><th scope="col">summary</th></tr></thead><tbody>${
      lines.map((l, k) => {
        const kinds = sentByKind(l)
        const c = perCall[k]!
        const s = l.change?.summary
        const what = l.change === undefined ? l.method : `${l.change.action}${l.change.fresh === undefined ? "" : ` (${l.change.fresh})`}`
        return `<tr><th scope="row"><button type="button" class="call" aria-controls="call-${k}" aria-pressed="false">Call ${
          k + 1
        }</button>${
          l.at === undefined ? "" : `<br><span class="muted">${DateTime.formatIso(l.at).slice(11, 19)}</span>`
        }</th>${
          several
            ? `<td class="n" title="${escapeHtml(l.conversation ?? "")}">${numbers.get(l.conversation ?? "") ?? ""}</td>`
            : ""
        }<td>${escapeHtml(what)}${
          l.outcome === "answered" ? "" : ` <strong class="out">${escapeHtml(l.outcome)}</strong>`
        }</td><td><span class="minibar" role="img" aria-label="${
          escapeHtml(kinds.map((x) => `${x.kind} ${x.tokens}`).join(", "))
        }">${
          kinds.map((x) => `<span class="${kindClass(x.kind)}" style="width:${share(x.tokens / scale)}"></span>`).join("")
        }</span></td><td class="n">${count(l.totalTokens + l.toolTokens)}</td><td class="n">${
          l.prediction === undefined ? "—" : ratio(l.prediction.cachedTokens, l.prediction.totalTokens)
        }</td><td class="n">${
          l.reported?.cacheRead === undefined ? "—" : ratio(l.reported.cacheRead, l.reported.total ?? 0)
        }</td><td class="n">${
          l.prediction === undefined ? "—" : ratio(l.prediction.writtenTokens, l.prediction.totalTokens)
        }</td><td class="n">${
          l.reported?.cacheWrite === undefined ? "—" : ratio(l.reported.cacheWrite, l.reported.total ?? 0)
        }</td><td>${
          l.miss === undefined ? "" : `<span title="${escapeHtml(CacheMiss.describe(l.miss.cause))}">${escapeHtml(l.miss.cause._tag)}</span>`
        }</td><td class="n">${c.added.length}</td><td class="n">${c.dropped.length}</td><td>${
          s === undefined ? "" : escapeHtml(s.outcome === "written" ? `${s.spanMessages} msgs → ${count(s.summaryTokens)} tokens` : s.outcome)
        }</td></tr>`
      }).join("")
    }</tbody></table></div></section>`,
    `<div class="pane" role="region" aria-label="the selected call" tabindex="0">`,
    `<p id="selected" class="muted" role="status" aria-live="polite"></p>`,
    lines.map((l, k) => callDetail(l, k, perCall[k]!)).join("\n"),
    `</div></div>`
  ].join("\n")
  return page(`cupel view: ${source}`, body, sessionScript(lines.length), true)
}

/**
 * How many calls a session's page writes in full, as HTML: every call's details in the page,
 * readable without script. A longer session gets {@link longSessionPage} (design 94).
 *
 * @since 0.3.0
 * @category constants
 */
export const fullPageCalls = 500

/**
 * The page of a long session, made as its log is read: {@link LongSessionPage.add} takes one
 * call at a time and keeps only compact data of it (its figures, and its window, what it left
 * out, added and dropped as runs of numbers into one table of the session's distinct entries);
 * {@link LongSessionPage.finish} writes the page.
 *
 * @since 0.3.0
 * @category models
 */
export interface LongSessionPage {
  readonly add: (line: CallReportLog.Line) => void
  readonly finish: () => string
}

/** Text as the page shows it: control characters as `\u` escapes ({@link escapeHtml}'s rule). */
const visible = (text: string): string =>
  text.replace(control, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

/** Runs of consecutive numbers (each with the same tag, when tagged), flat: `start, length[, tag]`. */
const runs = (ids: ReadonlyArray<number>, tags?: ReadonlyArray<number>): Array<number> => {
  const out: Array<number> = []
  const width = tags === undefined ? 2 : 3
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!
    const tag = tags?.[i]
    const at = out.length - width
    if (at >= 0 && out[at]! + out[at + 1]! === id && (tag === undefined || out[at + 2] === tag)) out[at + 1]!++
    else if (tag === undefined) out.push(id, 1)
    else out.push(id, 1, tag)
  }
  return out
}

/** The most a chart of the timeline draws: one point per bucket of calls. */
const chartPoints = 1_000

/**
 * A long session's page (design 94): the counts; the timeline drawn as one chart (an SVG
 * polyline of the tokens each call sent and read from the cache, at most {@link chartPoints}
 * points) and a list of the calls that draws only the rows in view; the details of the call
 * selected, drawn by the page's script from the compact data of that call. The log is read one
 * call at a time: what is kept of a call is its compact data (some hundred bytes), and of each
 * conversation its last window (to tell what the next call added and dropped).
 *
 * @since 0.3.0
 * @category rendering
 */
export const longSessionPage = (source: string): LongSessionPage => {
  const tally = makeTally()
  const strings = new Map<string, number>()
  const stringList: Array<string> = []
  const str = (text: string): number => {
    let id = strings.get(text)
    if (id === undefined) {
      id = stringList.length
      strings.set(text, id)
      stringList.push(scriptJson(visible(text)))
    }
    return id
  }
  const kindClasses: Record<number, string> = {}
  const kindOf = (kind: string): number => {
    const id = str(kind)
    kindClasses[id] ??= kindClass(kind)
    return id
  }
  // The session's distinct entries, found by their text (a string the log's parse already made,
  // not a new key per entry: a long session has some million entries to look up).
  const entries = new Map<string, Array<{ readonly entry: CallReportLog.WindowEntry | CallReportLog.ExcludedEntry; readonly id: number }>>()
  const entryRows: Array<string> = []
  const entryId = (e: CallReportLog.WindowEntry | CallReportLog.ExcludedEntry): number => {
    const alike = entries.get(e.preview)
    const found = alike?.find(({ entry: o }) =>
      o.tokens === e.tokens && o.message === e.message && o.kind === e.kind && o.role === e.role &&
      o.summary === e.summary && o.pinned === e.pinned
    )
    if (found !== undefined) return found.id
    const id = entryRows.length
    const kept = { entry: e, id }
    if (alike === undefined) entries.set(e.preview, [kept])
    else alike.push(kept)
    entryRows.push(scriptJson([
      e.role === undefined ? -1 : str(e.role),
      kindOf(e.kind),
      e.tokens,
      e.message ?? -1,
      e.summary === undefined ? -1 : str(e.summary),
      e.pinned ? 1 : 0,
      visible(line(e.preview, 110))
    ]))
    return id
  }
  // Of each conversation, its last call's window: what the next call added and dropped is against it.
  const last = new Map<string, ReadonlyArray<CallReportLog.WindowEntry>>()
  const records: Array<string> = []
  const sent: Array<number> = []
  const read: Array<number> = []
  const targets: Array<number> = []
  const opt = (x: number | undefined): number | null => x ?? null
  const add = (l: CallReportLog.Line): void => {
    const conversation = tally.add(l)
    const key = l.conversation ?? ""
    const earlier = last.get(key) ?? []
    last.set(key, l.window)
    const window = l.window.map(entryId)
    const windowReasons = l.window.map((e) => str(Render.inclusionWords(e.reason)))
    const excluded = l.excluded.map(entryId)
    const excludedReasons = l.excluded.map((e) => str(sessionReason(e.reason)))
    const c = l.change
    const s = l.change?.summary
    const summary = summaryText(l)
    const p = l.prediction
    const r = l.reported
    const m = l.miss
    records.push(scriptJson([
      l.at === undefined ? 0 : DateTime.formatIso(l.at),
      str(l.method),
      str(l.outcome),
      str(l.mode),
      conversation,
      l.targetTokens,
      l.maxTokens,
      l.totalTokens,
      l.toolTokens,
      opt(l.calibration),
      l.candidates,
      c === undefined ? null : [
        str(c.action),
        c.fresh === undefined ? -1 : str(c.fresh),
        c.kept,
        c.added,
        c.addedTokens,
        c.dropped,
        c.droppedTokens,
        opt(c.lowWatermark),
        c.storeFailure === undefined ? -1 : str(c.storeFailure)
      ],
      s === undefined || summary === undefined
        ? null
        : [visible(summary), s.outcome === "written" ? `${s.spanMessages} msgs → ${count(s.summaryTokens)} tokens` : s.outcome],
      p === undefined ? null : [p.cachedTokens, p.writtenTokens, p.totalTokens, Math.round(p.cost), Math.round(p.costWithoutCache)],
      r === undefined ? null : [opt(r.total), opt(r.cacheRead), opt(r.cacheWrite)],
      m === undefined ? null : [
        str(m.cause._tag),
        str(CacheMiss.describe(m.cause)),
        m.previousTokens,
        m.cachedTokens,
        str(m.source)
      ],
      l.committed === undefined ? -1 : str(l.committed),
      runs(window, windowReasons),
      runs(excluded, excludedReasons),
      runs(beyond(l.window, earlier).map(entryId)),
      runs(beyond(earlier, l.window).map(entryId)),
      l.events.flatMap((e) => [str(e.stage), Math.round(e.durationMs * 100) / 100, e.itemCount, e.message === undefined ? -1 : str(e.message)]),
      l.conversation === undefined ? -1 : str(l.conversation)
    ]))
    sent.push(l.totalTokens + l.toolTokens)
    read.push(r?.cacheRead ?? p?.cachedTokens ?? 0)
    targets.push(l.targetTokens + l.toolTokens)
  }
  const finish = (): string => {
    const calls = records.length
    const several = tally.numbers.size > 1
    const body = [
      `<header><h1>cupel view: an agent session</h1><p class="muted">from <code>${escapeHtml(source)}</code></p></header>`,
      stats(tally.stats()),
      `<noscript><p><strong>This session has ${calls} calls: its timeline and each call's details are drawn by the page's script, which is off.</strong></p></noscript>`,
      `<section aria-labelledby="h-chart"><h2 id="h-chart">Timeline</h2>`,
      `<p class="muted">The tokens each call sent (and its target), and those read from the cache (billed, else predicted), ` +
      `call by call; select a point to see that call.</p>`,
      chart(sent, read, targets),
      `</section>`,
      `<div class="session long"><section aria-labelledby="h-calls"><h2 id="h-calls">Calls</h2>`,
      `<p class="muted">One row per call; only the rows in view are drawn. Select a call (Tab to the list, then the arrow keys, Page Up/Down, Home and End) to see what it sent, added, dropped and summarised.</p>`,
      legend(tally.kinds()),
      `<div class="vlist timeline" id="calls" tabindex="0" role="region" aria-label="the calls, ${calls} rows"><table id="timeline">` +
      `<caption>${calls} calls; cache reads and writes as a share of the request, predicted / billed</caption><thead><tr>` +
      `<th scope="col">call</th>${several ? `<th scope="col" class="n">conv.</th>` : ""}<th scope="col">change</th>` +
      `<th scope="col">tokens sent by kind</th><th scope="col" class="n">sent</th><th scope="col" class="n">cache read</th>` +
      `<th scope="col" class="n">cache write</th><th scope="col">cache miss</th><th scope="col" class="n">added</th>` +
      `<th scope="col" class="n">dropped</th><th scope="col">summary</th></tr></thead><tbody></tbody></table></div></section>`,
      `<div class="pane" role="region" aria-label="the selected call" tabindex="0">`,
      `<p id="selected" class="muted" role="status" aria-live="polite"></p>`,
      `<section class="detail" id="detail" aria-labelledby="detail-h"></section>`,
      `</div></div>`
    ].join("\n")
    const data = `{"calls":${calls},"several":${several},"scale":${tally.scale()},"kinds":${scriptJson(kindClasses)},` +
      `"tools":${scriptJson(kindClass(toolDefinitions))},` +
      `"strings":[${stringList.join(",")}],"entries":[${entryRows.join(",")}],"records":[${records.join(",\n")}]}`
    return page(
      `cupel view: ${source}`,
      body,
      `<script type="application/json" id="cupel-data">${data}</script>\n<script>${longScript}</script>`,
      true
    )
  }
  return { add, finish }
}

/** Per bucket of calls, the largest of `values`: at most {@link chartPoints} points. */
const buckets = (values: ReadonlyArray<number>): Array<number> => {
  const n = Math.min(values.length, chartPoints)
  const out = Array.from({ length: n }, () => 0)
  for (let i = 0; i < values.length; i++) {
    const b = Math.floor((i * n) / values.length)
    out[b] = Math.max(out[b]!, values[i]!)
  }
  return out
}

/** The timeline as one SVG chart: a polyline per series, over the calls. */
const chart = (sent: ReadonlyArray<number>, read: ReadonlyArray<number>, targets: ReadonlyArray<number>): string => {
  const width = 1000
  const height = 160
  const series = [buckets(sent), buckets(read), buckets(targets)] as const
  let top = 1
  for (const s of series) for (const v of s) top = Math.max(top, v)
  const points = (values: ReadonlyArray<number>) =>
    values.map((v, i) =>
      `${(values.length === 1 ? 0 : (i * width) / (values.length - 1)).toFixed(1)},${(height - (v / top) * (height - 4)).toFixed(1)}`
    ).join(" ")
  return `<figure class="chart"><svg id="chart" viewBox="0 0 ${width} ${height}" preserveAspectRatio="none" role="img" ` +
    `aria-label="tokens sent, target and cache reads of ${sent.length} calls; the largest ${count(top)} tokens">` +
    `<polyline class="target" points="${points(series[2])}"/><polyline class="sent" points="${points(series[0])}"/>` +
    `<polyline class="read" points="${points(series[1])}"/><line id="cursor" x1="0" x2="0" y1="0" y2="${height}"/></svg>` +
    `<figcaption class="legend"><span><span class="sw line-sent"></span>tokens sent</span><span><span class="sw line-read"></span>` +
    `read from the cache</span><span><span class="sw line-target"></span>target (with the tools)</span><span class="muted">` +
    `calls 1 to ${sent.length}; up to ${count(top)} tokens</span></figcaption></figure>`
}

// The long page's script: the list draws the rows in view; a call selected (a click, the keys,
// a point of the chart) has its details drawn from its compact data.
const longScript = `
(function () {
  var data = JSON.parse(document.getElementById("cupel-data").textContent);
  var S = data.strings, E = data.entries, R = data.records, N = data.calls;
  var list = document.getElementById("calls"), body = list.querySelector("tbody");
  var detail = document.getElementById("detail"), status = document.getElementById("selected");
  var ROW = 30, sel = 0;
  function esc(t) { return String(t).replace(/[&<>"']/g, function (c) { return "&#" + c.charCodeAt(0) + ";"; }); }
  function n(x) { return x.toLocaleString("en-US"); }
  function pct(x) { return (isFinite(x) ? x * 100 : 0).toFixed(1) + "%"; }
  function ratio(a, b) { return b > 0 ? pct(a / b) : "\\u2014"; }
  function share(x) { return (Math.min(1, Math.max(0, isFinite(x) ? x : 0)) * 100).toFixed(2) + "%"; }
  function ids(r, w) { var out = []; for (var i = 0; i < r.length; i += w) for (var j = 0; j < r[i + 1]; j++) out.push(w === 3 ? [r[i] + j, r[i + 2]] : [r[i] + j]); return out; }
  function entry(id) { var e = E[id]; return { role: e[0] < 0 ? null : S[e[0]], kind: S[e[1]], cls: data.kinds[e[1]], tokens: e[2], message: e[3], summary: e[4] < 0 ? null : S[e[4]], text: e[6] }; }
  function label(e) { return e.role === null ? e.kind : e.role + " \\u00b7 " + e.kind; }
  function byKind(rec) {
    var m = {}, out = [];
    if (rec[8] > 0) { m["tool definitions"] = { kind: "tool definitions", cls: data.tools, items: 1, tokens: rec[8] }; out.push(m["tool definitions"]); }
    ids(rec[17], 3).forEach(function (p) { var e = entry(p[0]), k = e.kind.toLowerCase(); if (!m[k]) { m[k] = { kind: e.kind, cls: e.cls, items: 0, tokens: 0 }; out.push(m[k]); } m[k].items++; m[k].tokens += Math.max(0, e.tokens); });
    return out;
  }
  function what(rec) { var c = rec[11]; return c === null ? S[rec[1]] : S[c[0]] + (c[1] < 0 ? "" : " (" + S[c[1]] + ")"); }
  function row(k) {
    var rec = R[k], kinds = byKind(rec), p = rec[13], r = rec[14], m = rec[15], s = rec[12], at = rec[0];
    var out = S[rec[2]] === "answered" ? "" : " <strong class=\\"out\\">" + esc(S[rec[2]]) + "</strong>";
    return "<tr" + (k === sel ? " class=\\"selected\\"" : "") + "><th scope=\\"row\\"><button type=\\"button\\" class=\\"call\\" data-k=\\"" + k + "\\" tabindex=\\"-1\\" aria-pressed=\\"" + (k === sel) + "\\">Call " + (k + 1) + "</button>" +
      (at === 0 ? "" : " <span class=\\"muted\\">" + esc(at.slice(11, 19)) + "</span>") + "</th>" +
      (data.several ? "<td class=\\"n\\">" + rec[4] + "</td>" : "") +
      "<td>" + esc(what(rec)) + out + "</td><td><span class=\\"minibar\\" role=\\"img\\" aria-label=\\"" + esc(kinds.map(function (x) { return x.kind + " " + x.tokens; }).join(", ")) + "\\">" +
      kinds.map(function (x) { return "<span class=\\"" + x.cls + "\\" style=\\"width:" + share(x.tokens / data.scale) + "\\"></span>"; }).join("") + "</span></td>" +
      "<td class=\\"n\\">" + n(rec[7] + rec[8]) + "</td>" +
      "<td class=\\"n\\">" + (p === null ? "\\u2014" : ratio(p[0], p[2])) + " / " + (r === null || r[1] === null ? "\\u2014" : ratio(r[1], r[0] || 0)) + "</td>" +
      "<td class=\\"n\\">" + (p === null ? "\\u2014" : ratio(p[1], p[2])) + " / " + (r === null || r[2] === null ? "\\u2014" : ratio(r[2], r[0] || 0)) + "</td>" +
      "<td>" + (m === null ? "" : "<span title=\\"" + esc(S[m[1]]) + "\\">" + esc(S[m[0]]) + "</span>") + "</td>" +
      "<td class=\\"n\\">" + ids(rec[19], 2).length + "</td><td class=\\"n\\">" + ids(rec[20], 2).length + "</td><td>" + (s === null ? "" : esc(s[1])) + "</td></tr>";
  }
  var drawn = -1;
  function draw(force) {
    var first = Math.max(0, Math.floor(list.scrollTop / ROW) - 10);
    var count = Math.ceil(list.clientHeight / ROW) + 20;
    if (!force && first === drawn) return;
    drawn = first;
    var last = Math.min(N, first + count), html = "<tr class=\\"pad\\" style=\\"height:" + first * ROW + "px\\"></tr>";
    for (var k = first; k < last; k++) html += row(k);
    html += "<tr class=\\"pad\\" style=\\"height:" + (N - last) * ROW + "px\\"></tr>";
    body.innerHTML = html;
  }
  function entries(list, none) {
    if (list.length === 0) return "<p class=\\"muted\\">" + none + "</p>";
    return "<ul class=\\"entries\\">" + list.map(function (p) { var e = entry(p[0]); return "<li><span class=\\"sw " + e.cls + "\\"></span>" + esc(label(e)) + (e.message < 0 ? "" : " <span class=\\"muted\\">#" + e.message + "</span>") + ", " + n(e.tokens) + " tokens: " + esc(e.text) + "</li>"; }).join("") + "</ul>";
  }
  function table(head, rows) { return "<div class=\\"scroll\\"><table><thead><tr>" + head.map(function (h) { return "<th scope=\\"col\\"" + (h[1] ? " class=\\"n\\"" : "") + ">" + h[0] + "</th>"; }).join("") + "</tr></thead><tbody>" + rows.join("") + "</tbody></table></div>"; }
  function figures(rec) {
    var c = rec[11], p = rec[13], r = rec[14], m = rec[15], f = [["method", S[rec[1]]], ["outcome", S[rec[2]]], ["mode", S[rec[3]]]];
    if (rec[22] >= 0) f.push(["conversation", S[rec[22]]]);
    if (rec[0] !== 0) f.push(["at", rec[0]]);
    f.push(["budget (target / max)", n(rec[5]) + " / " + n(rec[6])], ["tokens sent (window)", n(rec[7])], ["tool definitions", n(rec[8]) + " tokens"]);
    if (rec[9] !== null) f.push(["calibration", rec[9].toFixed(3)]);
    f.push(["candidates", String(rec[10])]);
    if (c !== null) f.push(["change", S[c[0]] + (c[1] < 0 ? "" : " (" + S[c[1]] + ")") + ": kept " + c[2] + ", added " + c[3] + " (" + n(c[4]) + " tokens), dropped " + c[5] + " (" + n(c[6]) + " tokens)" + (c[7] === null ? "" : ", low watermark " + c[7])]);
    if (p !== null) f.push(["predicted cache", n(p[0]) + " read, " + n(p[1]) + " written of " + n(p[2]) + "; cost " + p[3] + " vs " + p[4] + " without a cache"]);
    if (r !== null) f.push(["reported by the provider", (r[0] === null ? "?" : n(r[0])) + " input tokens" + (r[1] === null ? "" : ", " + n(r[1]) + " read from the cache") + (r[2] === null ? "" : ", " + n(r[2]) + " written to it")]);
    if (m !== null) f.push(["cache miss", S[m[1]] + ": " + n(Math.max(0, m[2] - m[3])) + " of the previous request's " + n(m[2]) + " tokens not read (" + S[m[4]] + ")"]);
    if (rec[16] >= 0) f.push(["state", S[rec[16]]]);
    if (c !== null && c[8] >= 0) f.push(["store failure", S[c[8]]]);
    return "<table><caption>What was sent and how it went</caption><tbody>" + f.map(function (x) { return "<tr><th scope=\\"row\\">" + esc(x[0]) + "</th><td>" + esc(x[1]) + "</td></tr>"; }).join("") + "</tbody></table>";
  }
  function stages(ev) {
    if (ev.length === 0) return "<p class=\\"muted\\">No stage ran (an appending call sends the previous window and the new messages).</p>";
    var rows = [], total = 0, longest = 0, i;
    for (i = 0; i < ev.length; i += 4) { total += ev[i + 1]; longest = Math.max(longest, ev[i + 1]); }
    for (i = 0; i < ev.length; i += 4) rows.push("<tr><th scope=\\"row\\">" + esc(S[ev[i]]) + "</th><td class=\\"n\\">" + ev[i + 2] + "</td><td><span class=\\"meter\\" aria-hidden=\\"true\\"><span style=\\"width:" + share(longest > 0 ? ev[i + 1] / longest : 0) + "\\"></span></span>" + ev[i + 1].toFixed(2) + " ms</td><td>" + (ev[i + 3] < 0 ? "" : esc(S[ev[i + 3]])) + "</td></tr>");
    return "<table><caption>Each stage, the items it passed on and how long it took</caption><thead><tr><th scope=\\"col\\">stage</th><th scope=\\"col\\" class=\\"n\\">items</th><th scope=\\"col\\">time</th><th scope=\\"col\\">note</th></tr></thead><tbody>" + rows.join("") + "</tbody><tfoot><tr><th scope=\\"row\\">total</th><td></td><td>" + total.toFixed(2) + " ms</td><td></td></tr></tfoot></table>";
  }
  function show(k) {
    var rec = R[k], kinds = byKind(rec), of = rec[5] + rec[8], total = 0, items = 0, scale = Math.max(1, rec[7] + rec[8], of);
    kinds.forEach(function (x) { total += x.tokens; items += x.items; });
    var added = ids(rec[19], 2), dropped = ids(rec[20], 2), win = ids(rec[17], 3), out = ids(rec[18], 3);
    detail.innerHTML = "<h2 id=\\"detail-h\\">Call " + (k + 1) + "</h2>" +
      "<h3>Summarised</h3><p>" + esc(rec[12] === null ? "No summary at this call." : rec[12][0]) + "</p>" +
      "<h3>Dropped (" + dropped.length + ")</h3>" + entries(dropped, "Nothing dropped.") +
      "<h3>Added (" + added.length + ")</h3>" + entries(added, "Nothing new.") +
      "<h3>Tokens sent by kind</h3><div class=\\"stack\\" role=\\"img\\" aria-label=\\"tokens sent by kind\\">" +
      kinds.map(function (x) { return "<span class=\\"" + x.cls + "\\" style=\\"width:" + share(x.tokens / scale) + "\\" title=\\"" + esc(x.kind) + ": " + n(x.tokens) + " tokens\\"></span>"; }).join("") +
      "<span class=\\"mark\\" style=\\"left:" + share(of / scale) + "\\"><em>" + (rec[8] > 0 ? "target + tools" : "target") + " " + n(of) + "</em></span></div>" +
      "<table><caption>Sent by kind</caption><thead><tr><th scope=\\"col\\">kind</th><th scope=\\"col\\" class=\\"n\\">items</th><th scope=\\"col\\" class=\\"n\\">tokens</th><th scope=\\"col\\" class=\\"n\\">of the target</th></tr></thead><tbody>" +
      kinds.map(function (x) { return "<tr><th scope=\\"row\\"><span class=\\"sw " + x.cls + "\\"></span>" + esc(x.kind) + "</th><td class=\\"n\\">" + x.items + "</td><td class=\\"n\\">" + n(x.tokens) + "</td><td class=\\"n\\">" + pct(x.tokens / of) + "</td></tr>"; }).join("") +
      "</tbody><tfoot><tr><th scope=\\"row\\">total</th><td class=\\"n\\">" + items + "</td><td class=\\"n\\">" + n(total) + "</td><td class=\\"n\\">" + pct(total / of) + "</td></tr></tfoot></table>" +
      "<h3>Figures</h3>" + figures(rec) +
      "<h3>The window (" + win.length + ")</h3>" + table([["#", 1], ["role \\u00b7 kind"], ["content"], ["tokens", 1], ["why"]], win.map(function (p, i) { var e = entry(p[0]); return "<tr><td class=\\"n\\">" + (i + 1) + "</td><td><span class=\\"sw " + e.cls + "\\"></span>" + esc(label(e)) + "</td><td class=\\"text\\">" + esc(e.text) + "</td><td class=\\"n\\">" + n(e.tokens) + "</td><td>" + esc(S[p[1]]) + "</td></tr>"; })) +
      "<h3>Left out (" + out.length + ")</h3>" + (out.length === 0 ? "<p class=\\"muted\\">Nothing was left out.</p>" : table([["role \\u00b7 kind"], ["content"], ["tokens", 1], ["why"]], out.map(function (p) { var e = entry(p[0]); return "<tr><td><span class=\\"sw " + e.cls + "\\"></span>" + esc(label(e)) + "</td><td class=\\"text\\">" + esc(e.text) + "</td><td class=\\"n\\">" + n(e.tokens) + "</td><td>" + esc(S[p[1]]) + "</td></tr>"; }))) +
      "<h3>Stages</h3>" + stages(rec[21]);
  }
  var cursor = document.getElementById("cursor");
  function select(k, focus) {
    if (k < 0 || k >= N) return;
    sel = k;
    var top = k * ROW, bottom = top + ROW;
    if (top < list.scrollTop + ROW || bottom > list.scrollTop + list.clientHeight) list.scrollTop = Math.max(0, top - list.clientHeight / 2);
    draw(true);
    show(k);
    var x = N === 1 ? 0 : (k * 1000) / (N - 1);
    cursor.setAttribute("x1", x); cursor.setAttribute("x2", x);
    status.textContent = "Call " + (k + 1) + " of " + N + " selected";
    if (focus) { var b = body.querySelector("button[data-k=\\"" + k + "\\"]"); if (b) b.focus(); }
  }
  list.addEventListener("scroll", function () { draw(false); });
  body.addEventListener("click", function (e) { var b = e.target.closest("button.call"); if (b) select(Number(b.getAttribute("data-k")), true); });
  list.addEventListener("keydown", function (e) {
    var page = Math.max(1, Math.floor(list.clientHeight / ROW) - 1);
    var to = e.key === "ArrowDown" || e.key === "ArrowRight" ? sel + 1 : e.key === "ArrowUp" || e.key === "ArrowLeft" ? sel - 1
      : e.key === "PageDown" ? Math.min(N - 1, sel + page) : e.key === "PageUp" ? Math.max(0, sel - page)
      : e.key === "Home" ? 0 : e.key === "End" ? N - 1 : -1;
    if (to >= 0 && to < N) { e.preventDefault(); select(to, true); }
  });
  document.getElementById("chart").addEventListener("click", function (e) {
    var box = e.currentTarget.getBoundingClientRect();
    select(Math.round(((e.clientX - box.left) / box.width) * (N - 1)), false);
  });
  draw(true);
  // The rows' height as the browser draws them (fonts and zoom vary): the list's places are counted in it.
  var drawnRow = body.querySelector("tr:not(.pad)");
  if (drawnRow !== null && drawnRow.getBoundingClientRect().height > 0) { ROW = drawnRow.getBoundingClientRect().height; draw(true); }
  select(0, false);
})();
`
