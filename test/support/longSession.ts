/**
 * A long agent session's call-report log for `cupel view`'s scaling test: the lines of a real
 * session (`viewSession.ts`, `WindowedLanguageModel` in stable mode with a summariser) repeated
 * as many conversations as it takes to reach `calls` lines, their calls interleaved in time, each
 * copy's texts its own (so that no two conversations share an entry), written to `file`.
 */
import { DateTime, Effect } from "effect"
import { createWriteStream } from "node:fs"
import * as CallReportLog from "../../src/ai/CallReportLog.ts"
import * as ViewSession from "./viewSession.ts"

/** A line as JSON with its texts and conversation made those of copy `copy`. */
const copyOf = (line: Record<string, unknown>, copy: number, at: string): string => {
  const entries = (value: unknown) =>
    Array.isArray(value)
      ? value.map((e: Record<string, unknown>) => ({ ...e, preview: `[${copy}] ${String(e["preview"])}` }))
      : value
  return JSON.stringify({
    ...line,
    at,
    conversation: `conversation-${copy}`,
    window: entries(line["window"]),
    excluded: entries(line["excluded"])
  })
}

/**
 * Writes `calls` lines to `file`: `copies` conversations of `steps` calls each (the last copy
 * cut short), interleaved one call of each in turn; returns the number of lines.
 */
export const write = (file: string, options: { readonly calls: number; readonly steps?: number; readonly seed?: number }) =>
  Effect.gen(function*() {
    const steps = options.steps ?? 60
    const reports = yield* ViewSession.run({ steps, seed: options.seed ?? 11 })
    const base: ReadonlyArray<Record<string, unknown>> = reports.map((r) => JSON.parse(CallReportLog.encode(r)))
    const copies = Math.ceil(options.calls / base.length)
    const start = DateTime.toEpochMillis(DateTime.makeUnsafe("2026-01-01T00:00:00Z"))
    yield* Effect.promise(() =>
      new Promise<void>((resolve, reject) => {
        const out = createWriteStream(file)
        out.on("error", reject)
        let written = 0
        let k = 0
        const next = () => {
          // Step by step, each copy's call of that step in turn, with the stream's back-pressure.
          while (written < options.calls) {
            const step = Math.floor(k / copies)
            const copy = k % copies
            k++
            if (step >= base.length) break
            const at = new Date(start + written * 1_500).toISOString()
            written++
            if (!out.write(copyOf(base[step]!, copy, at) + "\n")) return void out.once("drain", next)
          }
          out.end(resolve)
        }
        next()
      })
    )
    return options.calls
  })
