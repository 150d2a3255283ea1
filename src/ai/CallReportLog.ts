/**
 * CallReportLog: an agent session written down, one JSON line per model call.
 *
 * `WindowedLanguageModel` publishes a {@link WindowedLanguageModel.CallReport} for each call
 * (`WindowReports`); those reports hold live values (the prompt, the pipeline's result with
 * its items). A {@link Line} is what a person needs to see afterwards — what the call sent by
 * kind and role, what it left out and why, what the stable window did (append, compact, fresh)
 * and its summary, the predicted and the reported cache hits — as plain JSON, one line per
 * call, which `cupel view` draws as a page.
 *
 * - {@link make} / {@link encode}: a report (or the AI SDK adapter's `Report`) to a line.
 * - {@link decodeLines}: the text of a log back to lines; a bad line is a {@link LineError}
 *   naming its line number and every problem.
 * - {@link layerFile} (through effect's `FileSystem`: provide `NodeFileSystem.layer`) and
 *   {@link layerWrite} (any function of yours): subscribe to `WindowReports` and append each
 *   call's line as it ends.
 *
 * Items are written as a preview of their text (the first {@link previewLength} characters),
 * not in full: a session's window is sent again at every call, and the log would grow with the
 * square of the session's length.
 *
 * @since 0.3.0
 */
import { DateTime, Effect, FileSystem, Layer, PubSub, Schema } from "effect"
import type { ExcludedItem } from "../ExcludedItem.ts"
import { ExclusionReason } from "../ExclusionReason.ts"
import type { IncludedItem } from "../IncludedItem.ts"
import { InclusionReason } from "../InclusionReason.ts"
import { describePlatformError, schemaProblems } from "../internal/conformanceMessages.ts"
import { cutText } from "../internal/cutText.ts"
import { describeValue } from "../internal/describeThrown.ts"
import { isRecord } from "../internal/fastDecode.ts"
import type { PipelineResult } from "../PipelineResult.ts"
import { TraceEvent } from "../TraceEvent.ts"
import * as CacheMiss from "./CacheMiss.ts"
import * as CacheModel from "./CacheModel.ts"
import { messageIndexOf } from "./MessageIndex.ts"
import type * as StableWindow from "./StableWindow.ts"
import type * as Summarizer from "./Summarizer.ts"
import { WindowReports } from "./WindowedLanguageModel.ts"
import type * as WindowStore from "./WindowStore.ts"
import { summaryIdKey } from "./WindowSummary.ts"

/**
 * The value of every line's `format` field: what `cupel view` recognises a log by, and the
 * version of this format.
 *
 * @since 0.3.0
 * @category constants
 */
export const format = "cupel.call-report.v1"

/**
 * How many characters of an item's text a line keeps (`preview`); a longer text is cut and
 * ends with `…`.
 *
 * @since 0.3.0
 * @category constants
 */
export const previewLength = 160

const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
/** A figure a provider or the cache rule gave: a number of tokens or a cost, never below 0. */
const Amount = Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0))
/** A budget's target: a call is fitted to one token at least (design 94). */
const Target = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))

const itemFields = {
  /** The message's role (`system`, `user`, `assistant`, `tool`); none for a document. */
  role: Schema.optionalKey(Schema.String),
  kind: Schema.String,
  tokens: Count,
  /** The index of the message in the prompt the caller gave; none for a document or a summary. */
  message: Schema.optionalKey(Count),
  /** The summary's id, when the item is a stable window's summary. */
  summary: Schema.optionalKey(Schema.String),
  pinned: Schema.Boolean,
  /** The item's text, cut to {@link previewLength} characters. */
  preview: Schema.String
}

/**
 * An item of the window, in placed order, with why it is there (the report's wire form:
 * `{ "reason": "Kept", "appended": true }`).
 *
 * @since 0.3.0
 * @category schemas
 */
export const WindowEntry = Schema.Struct({ ...itemFields, reason: InclusionReason }).annotate({
  identifier: "WindowEntry"
})

/**
 * @since 0.3.0
 * @category models
 */
export type WindowEntry = typeof WindowEntry.Type

/**
 * A candidate left out, with its score and why (the report's wire form:
 * `{ "reason": "BudgetExceeded", "item_tokens": 120, "available_tokens": 80 }`).
 *
 * @since 0.3.0
 * @category schemas
 */
export const ExcludedEntry = Schema.Struct({ ...itemFields, score: Schema.Number, reason: ExclusionReason }).annotate(
  { identifier: "ExcludedEntry" }
)

/**
 * @since 0.3.0
 * @category models
 */
export type ExcludedEntry = typeof ExcludedEntry.Type

/**
 * A compaction's summary: what became of it (`written`, `kept`, `failed`, `no-room`), its id,
 * the messages and tokens given to be summarised, the summary's tokens, and the summariser's
 * error in words when it failed.
 *
 * @since 0.3.0
 * @category schemas
 */
export const SummaryEntry = Schema.Struct({
  outcome: Schema.Literals(["written", "kept", "failed", "no-room"]),
  id: Schema.optionalKey(Schema.String),
  spanMessages: Count,
  spanTokens: Count,
  summaryTokens: Count,
  error: Schema.optionalKey(Schema.String),
  /** How many requests wrote it, and whether the first carried the conversation's last request (since 0.3.0). */
  chunks: Schema.optionalKey(Count),
  withContext: Schema.optionalKey(Schema.Boolean),
  /**
   * The summary's ledger (docs/ai.md L1–L6): facts found, already held by the summariser's
   * text, listed, and those left out for want of room, oldest first (since 0.3.0).
   */
  ledger: Schema.optionalKey(Schema.Struct({
    found: Count,
    held: Count,
    listed: Count,
    dropped: Schema.Array(Schema.Struct({
      kind: Schema.Literals(["path", "url", "identifier", "error", "open"]),
      value: Schema.String
    }))
  })),
  /** What the summariser's model reported of its requests, when it did (since 0.3.0). */
  usage: Schema.optionalKey(Schema.Struct({
    inputTokens: Schema.optionalKey(Amount),
    outputTokens: Schema.optionalKey(Amount),
    cacheReadTokens: Schema.optionalKey(Amount),
    cacheWriteTokens: Schema.optionalKey(Amount)
  }))
})

/**
 * What a stable window's call did with the conversation's window (`StableWindow.Change`).
 *
 * @since 0.3.0
 * @category schemas
 */
export const ChangeEntry = Schema.Struct({
  action: Schema.Literals(["append", "compact", "fresh"]),
  fresh: Schema.optionalKey(
    Schema.Literals(["new", "expired", "history-changed", "settings-changed", "corrupt", "store-failed"])
  ),
  kept: Count,
  added: Count,
  dropped: Count,
  keptTokens: Count,
  addedTokens: Count,
  droppedTokens: Count,
  lowWatermark: Schema.optionalKey(Schema.Number),
  storeFailure: Schema.optionalKey(Schema.String),
  summary: Schema.optionalKey(SummaryEntry)
})

/**
 * The cache as the `cacheRule` predicted it for the request (`CacheModel.Prediction`).
 *
 * @since 0.3.0
 * @category schemas
 */
export const PredictionEntry = Schema.Struct({
  totalTokens: Amount,
  cachedTokens: Amount,
  writtenTokens: Amount,
  uncachedTokens: Amount,
  cost: Amount,
  costWithoutCache: Amount
} satisfies { readonly [K in keyof typeof CacheModel.Prediction.fields]: Schema.Top })

/**
 * The input tokens the provider reported: the total, those read from its cache, written to it,
 * and neither — each when it said.
 *
 * @since 0.3.0
 * @category schemas
 */
export const ReportedEntry = Schema.Struct({
  total: Schema.optionalKey(Amount),
  cacheRead: Schema.optionalKey(Amount),
  cacheWrite: Schema.optionalKey(Amount),
  uncached: Schema.optionalKey(Amount)
})

/**
 * One call, as one JSON line.
 *
 * - `format` — {@link format}; `at` — when the line was written (ISO 8601, UTC), if known.
 * - `method` — `generateText`, `generateObject`, `streamText` (or the AI SDK adapter's `generate`,
 *   `stream`, `step`); `mode`, `conversation` (stable mode's key), `outcome`.
 * - `candidates`, `targetTokens` / `maxTokens` (the budget the prompt was fitted to), `toolTokens`,
 *   `calibration`, `totalTokens` (the window's), `tokensOverBudget`.
 * - `change`, `prediction`, `committed` — stable mode's; `reported` — the provider's usage;
 *   `miss` — why the call read less from the cache than its previous request (stable mode,
 *   `CacheMiss.Miss`; since 0.3.0).
 * - `window` — the items sent, in order; `excluded` — the others, with their reasons;
 *   `events` — the pipeline's stages and timings (none for an appending call, which runs none).
 *
 * @since 0.3.0
 * @category schemas
 */
export const Line = Schema.Struct({
  format: Schema.Literal(format),
  at: Schema.optionalKey(Schema.DateTimeUtcFromString),
  method: Schema.String,
  mode: Schema.Literals(["stable", "per-call"]),
  conversation: Schema.optionalKey(Schema.String),
  outcome: Schema.Literals(["answered", "failed", "interrupted", "sent"]),
  candidates: Count,
  targetTokens: Target,
  maxTokens: Target,
  toolTokens: Count,
  calibration: Schema.optionalKey(Schema.Finite.check(Schema.isGreaterThan(0))),
  totalTokens: Count,
  tokensOverBudget: Count,
  change: Schema.optionalKey(ChangeEntry),
  prediction: Schema.optionalKey(PredictionEntry),
  reported: Schema.optionalKey(ReportedEntry),
  committed: Schema.optionalKey(Schema.Literals(["written", "rebased", "conflict", "store-failed"])),
  miss: Schema.optionalKey(CacheMiss.Miss),
  window: Schema.Array(WindowEntry),
  excluded: Schema.Array(ExcludedEntry),
  events: Schema.Array(TraceEvent)
}).check(
  Schema.makeFilter((l) =>
    l.targetTokens <= l.maxTokens || {
      path: ["targetTokens"],
      issue: `targetTokens (${l.targetTokens}) must not exceed maxTokens (${l.maxTokens})`
    }
  )
).annotate({ identifier: "CallReportLine" })

/**
 * @since 0.3.0
 * @category models
 */
export type Line = typeof Line.Type

/**
 * What a line is made from: a `CallReport` of any door — a `WindowedLanguageModel.CallReport`,
 * or the AI SDK adapter's `Report` (its `type` is the line's `method`) — or a report of the
 * earlier form whose `reported` is `{ inputTokens }` (the reported total).
 *
 * @since 0.3.0
 * @category models
 */
export interface Source {
  readonly method?: string | undefined
  readonly type?: string | undefined
  readonly candidates: number
  readonly result: PipelineResult
  readonly toolTokens: number
  readonly budget: { readonly targetTokens: number; readonly maxTokens: number }
  readonly calibration?: number | undefined
  readonly mode: "stable" | "per-call"
  readonly conversation: string | undefined
  readonly change: StableWindow.Change | undefined
  readonly prediction: CacheModel.Prediction | undefined
  readonly outcome: Line["outcome"]
  readonly reported:
    | {
      readonly total?: number | undefined
      readonly cacheRead?: number | undefined
      readonly cacheWrite?: number | undefined
      readonly uncached?: number | undefined
    }
    | { readonly inputTokens: number }
    | undefined
  readonly committed: WindowStore.WriteResult | undefined
  readonly miss?: CacheMiss.Miss | undefined
  /** When the call ended (the AI SDK adapter's reports carry it); `make`'s `at` option wins. */
  readonly at?: DateTime.Utc | undefined
}

/** The first {@link previewLength} characters (whole graphemes), `…` when cut. */
const preview = (text: string): string => cutText(text, previewLength)

const itemOf = (entry: IncludedItem | ExcludedItem) => {
  const { item } = entry
  const role = item.metadata["role"]
  const message = messageIndexOf(item)
  const summary = item.metadata[summaryIdKey]
  return {
    ...(typeof role === "string" ? { role } : {}),
    kind: item.kind,
    tokens: item.tokens,
    ...(message === undefined ? {} : { message }),
    ...(typeof summary === "string" ? { summary } : {}),
    pinned: item.pinned,
    preview: preview(item.content)
  }
}

const changeOf = (change: StableWindow.Change): typeof ChangeEntry.Type => {
  const summary = change.summary
  return {
    action: change.action,
    // Fields whose value is `undefined` are left out: a line says only what is known.
    ...(change.fresh === undefined ? {} : { fresh: change.fresh }),
    ...(change.lowWatermark === undefined ? {} : { lowWatermark: change.lowWatermark }),
    ...(change.storeFailure === undefined ? {} : { storeFailure: change.storeFailure }),
    kept: change.kept,
    added: change.added,
    dropped: change.dropped,
    keptTokens: change.keptTokens,
    addedTokens: change.addedTokens,
    droppedTokens: change.droppedTokens,
    ...(summary === undefined ? {} : {
      summary: {
        outcome: summary._tag,
        ...(summary.id === undefined ? {} : { id: summary.id }),
        ...(summary.error === undefined ? {} : { error: summary.error.message }),
        spanMessages: summary.spanMessages,
        spanTokens: summary.spanTokens,
        summaryTokens: summary.summaryTokens,
        ...(summary._tag === "written" ? { chunks: summary.chunks, withContext: summary.withContext } : {}),
        ...(summary.usage === undefined ? {} : { usage: usageEntry(summary.usage) }),
        ...(summary.ledger === undefined ? {} : {
          ledger: {
            found: summary.ledger.found,
            held: summary.ledger.held,
            listed: summary.ledger.listed,
            dropped: summary.ledger.dropped.map((f) => ({ kind: f.kind, value: f.value }))
          }
        })
      }
    })
  }
}

/** A summariser's usage without its `undefined` figures: a line says only what is known. */
const usageEntry = (usage: Summarizer.SummaryUsage) => ({
  ...(usage.inputTokens === undefined ? {} : { inputTokens: usage.inputTokens }),
  ...(usage.outputTokens === undefined ? {} : { outputTokens: usage.outputTokens }),
  ...(usage.cacheReadTokens === undefined ? {} : { cacheReadTokens: usage.cacheReadTokens }),
  ...(usage.cacheWriteTokens === undefined ? {} : { cacheWriteTokens: usage.cacheWriteTokens })
})

const reportedOf = (reported: NonNullable<Source["reported"]>): typeof ReportedEntry.Type =>
  // The form of 0.3.0's first AI SDK reports: the total alone.
  !("total" in reported) && "inputTokens" in reported
    ? { total: reported.inputTokens }
    : {
      ...(reported.total === undefined ? {} : { total: reported.total }),
      ...(reported.cacheRead === undefined ? {} : { cacheRead: reported.cacheRead }),
      ...(reported.cacheWrite === undefined ? {} : { cacheWrite: reported.cacheWrite }),
      ...(reported.uncached === undefined ? {} : { uncached: reported.uncached })
    }

/**
 * A report's line; `at` is when it was written (the layers give the clock's time).
 *
 * @since 0.3.0
 * @category constructors
 */
export const make = (report: Source, options: { readonly at?: DateTime.Utc | undefined } = {}): Line => {
  const { result } = report
  const prediction = report.prediction
  const at = options.at ?? report.at
  return {
    format,
    ...(at === undefined ? {} : { at }),
    method: report.method ?? report.type ?? "unknown",
    mode: report.mode,
    ...(report.conversation === undefined ? {} : { conversation: report.conversation }),
    outcome: report.outcome,
    candidates: report.candidates,
    targetTokens: report.budget.targetTokens,
    maxTokens: report.budget.maxTokens,
    toolTokens: report.toolTokens,
    ...(report.calibration === undefined ? {} : { calibration: report.calibration }),
    totalTokens: result.totalTokens,
    tokensOverBudget: result.tokensOverBudget,
    ...(report.change === undefined ? {} : { change: changeOf(report.change) }),
    ...(prediction === undefined ? {} : {
      prediction: {
        totalTokens: prediction.totalTokens,
        cachedTokens: prediction.cachedTokens,
        writtenTokens: prediction.writtenTokens,
        uncachedTokens: prediction.uncachedTokens,
        cost: prediction.cost,
        costWithoutCache: prediction.costWithoutCache
      }
    }),
    ...(report.reported === undefined ? {} : { reported: reportedOf(report.reported) }),
    ...(report.committed === undefined ? {} : { committed: report.committed }),
    ...(report.miss === undefined ? {} : { miss: report.miss }),
    window: result.report.included.map((entry) => ({ ...itemOf(entry), reason: entry.reason })),
    excluded: result.report.excluded.map((entry) => ({ ...itemOf(entry), score: entry.score, reason: entry.reason })),
    events: result.report.events
  }
}

const encodeLine = Schema.encodeSync(Schema.fromJsonString(Line))

/**
 * A report as one line of JSON (no newline at its end). A report the layer made always
 * encodes; a hand-made one with values JSON cannot hold (a score of `NaN`) is a defect.
 *
 * @example
 * ```ts
 * import { Effect, PubSub } from "effect"
 * import * as CallReportLog from "effect-cupel/ai/CallReportLog"
 * import * as WindowedLanguageModel from "effect-cupel/ai/WindowedLanguageModel"
 *
 * const logged = Effect.gen(function*() {
 *   const reports = yield* PubSub.subscribe(yield* WindowedLanguageModel.WindowReports)
 *   const report = yield* PubSub.take(reports)
 *   return CallReportLog.encode(report)
 * })
 * ```
 *
 * @since 0.3.0
 * @category encoding
 */
export const encode = (report: Source, options: { readonly at?: DateTime.Utc | undefined } = {}): string =>
  encodeLine(make(report, options))

/**
 * A line of a log that is not a call report: its number (from 1) and the problems, each with
 * the path of its field.
 *
 * @since 0.3.0
 * @category errors
 */
export class LineError extends Schema.TaggedError<LineError>()("LineError", {
  line: Schema.Int,
  problems: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `line ${this.line}: ${this.problems.join("; ")}`
  }
}

const decodeLine = Schema.decodeUnknownEffect(Line, { errors: "all" })
const decodeLineQuick = Schema.decodeUnknownExit(Line)

/** Why a parsed line is not a call report at all (no object, no or another `format`), if it is not. */
const notACallReport = (value: unknown): string | undefined => {
  if (!isRecord(value)) return `not a call report (a JSON object with "format": "${format}")`
  const got = value["format"]
  if (got === format) return undefined
  const its = got === undefined ? `its "format" is missing` : `its "format" is ${describeValue(got)}`
  return `not a call report (${its}; a call report's is "${format}")`
}

/**
 * The lines of a log: one JSON object per line, blank lines ignored. Fails at the first line
 * that is not JSON or not a call report, with its line number and every problem with that line
 * (one, when its `format` is missing or another: it is some other JSON, not a broken report).
 *
 * @since 0.3.0
 * @category decoding
 */
export const decodeLines = (text: string): Effect.Effect<ReadonlyArray<Line>, LineError> =>
  Effect.map(decodeRows(text.split("\n")), ({ lines }) => lines)

/**
 * A log read back as a log being written may be: {@link decodeLines}, except that a last line
 * cut off mid-write (no newline after it, and not JSON: the writer was stopped) is left out,
 * its number given as `cutOff`, instead of failing the whole log. A bad line anywhere else, or a
 * last line that is whole JSON but no call report, fails as in `decodeLines`.
 *
 * @since 0.3.0
 * @category decoding
 */
export const decodeLog = (text: string): Effect.Effect<Log, LineError> =>
  Effect.suspend((): Effect.Effect<Log, LineError> => {
    const rows = text.split("\n")
    const last = rows.length - 1
    // A complete log ends with a newline (the writers end every line with one), so its last row
    // is empty; a non-empty last row that is not JSON is a write that did not finish.
    if (rows[last]!.trim() !== "" && !isJson(rows[last]!)) {
      return Effect.map(decodeRows(rows.slice(0, last)), ({ lines }) => ({ lines, cutOff: last + 1 }))
    }
    return Effect.map(decodeRows(rows), ({ lines }) => ({ lines, cutOff: undefined }))
  })

/**
 * A log as {@link decodeLog} reads it: its lines, and the number of a last line left out because
 * it was cut off mid-write.
 *
 * @since 0.3.0
 * @category models
 */
export interface Log {
  readonly lines: ReadonlyArray<Line>
  readonly cutOff: number | undefined
}

/** Whether a row parses as JSON. */
const isJson = (row: string): boolean => {
  try {
    JSON.parse(row)
    return true
  } catch {
    return false
  }
}

/** The rows of a log, decoded; the first bad one fails with its number (1-based) and problems. */
const decodeRows = (rows: ReadonlyArray<string>): Effect.Effect<{ readonly lines: ReadonlyArray<Line> }, LineError> =>
  Effect.gen(function*() {
    const out: Array<Line> = []
    for (let i = 0; i < rows.length; i++) {
      const line = yield* decodeRow(rows[i]!, i + 1)
      if (line !== undefined) out.push(line)
    }
    return { lines: out }
  })

/**
 * One row of a log, decoded: `undefined` for a blank row; a row that is not JSON or not a call
 * report fails with its number (`line`, from 1) and every problem with it. What
 * {@link decodeLines} does for each row, for a reader that streams a log row by row.
 *
 * @since 0.3.0
 * @category decoding
 */
export const decodeRow = (text: string, line: number): Effect.Effect<Line | undefined, LineError> =>
  Effect.suspend(() => {
    const row = text.trim()
    if (row === "") return Effect.succeed(undefined)
    let value: unknown
    try {
      value = JSON.parse(row)
    } catch (cause) {
      return Effect.fail(
        new LineError({ line, problems: [`malformed JSON: ${cause instanceof Error ? cause.message : String(cause)}`] })
      )
    }
    // A line of some other log (a run result, a newer format) is one problem, not every
    // field it lacks.
    const problem = notACallReport(value)
    if (problem !== undefined) return Effect.fail(new LineError({ line, problems: [problem] }))
    // The first problem ends the check of a good line soonest; a bad line is read again for all of them.
    const first = decodeLineQuick(value)
    if (first._tag === "Success") return Effect.succeed(first.value)
    return decodeLine(value).pipe(Effect.mapError((error) => new LineError({ line, problems: schemaProblems(error) })))
  })

/**
 * Whether a row parses as JSON: a log's last row that does not, with no newline after it, is a
 * write that did not finish ({@link decodeLog}).
 *
 * @since 0.3.0
 * @category decoding
 */
export const isWholeJson = (row: string): boolean => isJson(row)

/**
 * A line could not be written: `sink` names where to (the file's path, or the write function's
 * name), `reason` says why.
 *
 * @since 0.3.0
 * @category errors
 */
export class CallReportLogError extends Schema.TaggedError<CallReportLogError>()("CallReportLogError", {
  sink: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `effect-cupel: cannot write a call report to ${this.sink}: ${this.reason}`
  }
}

/**
 * Subscribes to `WindowReports` for as long as the layer lives, and writes each call's line
 * with `append`. A failed write is logged as a warning and the session goes on: a log must not
 * stop an agent. The reports still queued when the layer's scope closes are written first.
 */
const subscribe = (append: (line: string) => Effect.Effect<void, CallReportLogError>) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const reports = yield* WindowReports
    const subscription = yield* PubSub.subscribe(reports)
    const writeOne = (report: Source) =>
      DateTime.now.pipe(
        Effect.flatMap((at) => append(encode(report, { at }))),
        Effect.catch((error) => Effect.logWarning(error.message))
      )
    // Finalizers run in the reverse order of their adding: the loop is stopped first (after the
    // write in flight, if any), then what is left is written in order, then the subscription ends.
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(
        PubSub.takeUpTo(subscription, Number.MAX_SAFE_INTEGER),
        (rest) => Effect.forEach(rest, writeOne, { discard: true })
      )
    )
    // Taking may be interrupted; once a report is taken, it is written.
    yield* Effect.forkScoped(Effect.forever(
      Effect.uninterruptibleMask((restore) => Effect.flatMap(restore(PubSub.take(subscription)), writeOne))
    ))
  }))

/**
 * Appends each call's line to the file at `path` (created if missing) through effect's
 * `FileSystem` — provide one, e.g. `NodeFileSystem.layer` from `@effect/platform-node`. A write
 * that fails is a {@link CallReportLogError} naming the path, logged as a warning.
 *
 * @example
 * ```ts
 * import { NodeFileSystem } from "@effect/platform-node"
 * import { Layer } from "effect"
 * import * as CallReportLog from "effect-cupel/ai/CallReportLog"
 *
 * // Model: your WindowedLanguageModel layer.
 * const Logged = CallReportLog.layerFile("session.jsonl").pipe(
 *   Layer.provideMerge(Model),
 *   Layer.provide(NodeFileSystem.layer)
 * )
 * ```
 *
 * @since 0.3.0
 * @category layers
 */
export const layerFile = (path: string): Layer.Layer<never, never, WindowReports | FileSystem.FileSystem> =>
  Layer.unwrap(Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    return subscribe((line) =>
      fs.writeFileString(path, line + "\n", { flag: "a" }).pipe(
        Effect.mapError((error) => new CallReportLogError({ sink: path, reason: describePlatformError(error) }))
      )
    )
  }))

/**
 * Writes each call's line (without a newline) with `write`, a function of yours: a stream's
 * `write`, an array's `push`, a request to a collector. A promise it returns is awaited; a
 * throw or a rejection is a {@link CallReportLogError} naming `name`, logged as a warning.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerWrite = (
  write: (line: string) => void | PromiseLike<void>,
  options: { readonly name?: string | undefined } = {}
): Layer.Layer<never, never, WindowReports> => {
  const sink = `the write function "${options.name ?? (write.name === "" ? "write" : write.name)}"`
  const failed = (cause: unknown) =>
    new CallReportLogError({ sink, reason: cause instanceof Error ? cause.message : String(cause) })
  return subscribe((line) =>
    Effect.try({ try: () => write(line), catch: failed }).pipe(
      Effect.flatMap((out) =>
        out === undefined ? Effect.void : Effect.tryPromise({ try: () => Promise.resolve(out), catch: failed })
      )
    )
  )
}
