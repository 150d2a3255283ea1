/**
 * `npm run bench -- --json`'s one document (issue 25, item 6): each bench's JSON under its name,
 * and every target's verdict gathered in one list — whatever became of each bench. A bench that
 * misses one of its own targets may exit non-zero (the decode bench does, so that a plain run
 * fails): its JSON is still read and kept. A bench that wrote no JSON (it crashed, or aborted on
 * a wrong result) is an entry with its exit code and the end of what it wrote, and a verdict
 * `met: false` of its own. The document says whether everything ran and met its targets (`ok`);
 * the exit code of `main.ts` is then 1 when it did not.
 */

/** What one bench's process gave: its exit code (`null`: killed) and its stdout. */
export interface Run {
  readonly name: string
  readonly status: number | null
  readonly stdout: string
}

/** One target of one bench, and whether it was met. */
export interface Verdict {
  readonly bench: string
  readonly target: string
  readonly measured: string
  readonly met: boolean
}

/** The document `--json` writes. */
export interface Document {
  readonly ok: boolean
  readonly verdicts: ReadonlyArray<Verdict>
  readonly benches: Readonly<Record<string, unknown>>
}

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> => typeof u === "object" && u !== null && !Array.isArray(u)

const text = (u: unknown): string => (typeof u === "string" ? u : JSON.stringify(u) ?? String(u))

/**
 * The verdicts a bench's JSON holds: a `targets` list of `{ target, measured, met }` (the place,
 * pipeline and agent benches), or one `target` with `met` (the decode bench).
 */
export const verdictsOf = (bench: string, json: unknown): Array<Verdict> => {
  if (!isRecord(json)) return []
  const out: Array<Verdict> = []
  const targets = json["targets"]
  if (Array.isArray(targets)) {
    for (const t of targets) {
      if (!isRecord(t) || typeof t["met"] !== "boolean" || t["comparisonOnly"] === true) continue
      out.push({ bench, target: text(t["target"]), measured: text(t["measured"] ?? ""), met: t["met"] })
    }
  }
  const target = json["target"]
  if (isRecord(target) && typeof target["met"] === "boolean") {
    const { met, ...rest } = target
    out.push({ bench, target: text(target["target"] ?? "target"), measured: text(rest), met })
  }
  return out
}

/** The last characters of what a bench wrote, for an entry without JSON. */
const tail = (s: string): string => (s.length > 2000 ? `…${s.slice(-2000)}` : s)

/** The document of the runs, and the exit code `main.ts` ends with. */
export const aggregate = (runs: ReadonlyArray<Run>): { readonly document: Document; readonly exitCode: number } => {
  const benches: Record<string, unknown> = {}
  const verdicts: Array<Verdict> = []
  let ok = true
  for (const run of runs) {
    let json: unknown
    let parsed = false
    try {
      json = JSON.parse(run.stdout)
      parsed = true
    } catch {
      parsed = false
    }
    if (parsed) {
      benches[run.name] = run.status === 0 ? json : { exitCode: run.status, ...(isRecord(json) ? json : { output: json }) }
      verdicts.push(...verdictsOf(run.name, json))
    } else {
      benches[run.name] = { exitCode: run.status, output: tail(run.stdout) }
      verdicts.push({ bench: run.name, target: "the bench ran and wrote its JSON", measured: `exit code ${run.status}`, met: false })
    }
    if (run.status !== 0) ok = false
  }
  if (verdicts.some((v) => !v.met)) ok = false
  return { document: { ok, verdicts, benches }, exitCode: ok ? 0 : 1 }
}
