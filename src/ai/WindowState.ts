/**
 * WindowState: what a stable window remembers of a conversation between two calls (docs/ai.md,
 * rule S2) — small, and without any message text: a digest of the history it saw, the window it
 * sent as runs of positions, counts, and the time of the last call.
 *
 * It is written to a `KeyValueStore` as JSON and read back from it as untrusted input: decoded
 * with the {@link WindowState} schema, and anything that does not decode is a fresh fit, never a
 * failure (`StableWindow`).
 *
 * @since 0.3.0
 */
import { Effect, Schema } from "effect"
import * as WindowEntry from "./WindowEntry.ts"

const count = (name: string) =>
  Schema.Number.check(Schema.makeFilter((n) => (Number.isSafeInteger(n) && n >= 0) || `${name} must be a whole number >= 0`))

/**
 * One run of stored window entries: `[first, length]` — the entries `first, first + 1, …,
 * first + length − 1`, in that order. A stored entry `i >= 0` is message `i` of the history;
 * `-(d + 1)` is document `d` of the layer's `documents`; `Number.MIN_SAFE_INTEGER` is the
 * summary. Read and written only as `WindowEntry`s ({@link entriesOf}, {@link runsOf}).
 *
 * @since 0.3.0
 * @category models
 */
export const Run = Schema.Tuple([
  Schema.Number.check(Schema.makeFilter((n) => Number.isSafeInteger(n) || "a run's first entry must be a whole number")),
  count("a run's length")
])

/**
 * The summary a stable window sends in place of what its compactions dropped (issue 19): its
 * id, its text (the one message text a state holds — it is no message of the history, and must
 * be sent again, byte for byte, at every call), its tokens, and the runs of history positions it
 * covers.
 *
 * @since 0.3.0
 * @category models
 */
export const SummaryState = Schema.Struct({
  id: Schema.String,
  text: Schema.String,
  tokens: count("summary tokens"),
  covers: Schema.Array(Run)
})

/**
 * @since 0.3.0
 * @category models
 */
export type SummaryState = typeof SummaryState.Type

/**
 * The state of one conversation's window.
 *
 * | field | meaning |
 * |---|---|
 * | `format` | 1: the layout of this record |
 * | `fingerprint` | the settings that shape a window (target, documents, startOn, mode…); another layer's state is stale |
 * | `revision` | how many times it was written; a write based on an older revision is dropped (rule S7) |
 * | `historyLength`, `historyDigest` | the history the last call saw: its length and the chained hash of its messages |
 * | `window` | the window the last call sent, as runs of entries (see {@link Run}) |
 * | `windowTokens` | that window's tokens |
 * | `toolTokens` | the tool definitions' tokens the last call sent before it |
 * | `calls`, `compactions` | how many calls and compactions the conversation has had |
 * | `addedTokens` | the tokens appended by calls that appended (the growth per call is `addedTokens / appends`) |
 * | `appends` | how many calls appended |
 * | `updatedAtMillis` | when the last call was made (Effect's `Clock`) |
 * | `summary` | the summary in the window, if a compaction wrote one ({@link SummaryState}) |
 * | `shortened` | the tool messages shortened in the window (rule K6): `[index, keepTokens]`, applied again at every call |
 * | `masked` | the tool messages sent as stubs (`Masking`, rule X3): their indices, masked again at every call |
 * | `references` | the tool messages sent as references (`ResultReferences`, rule R2): `[index, target]`, made again at every call |
 * | `calibration` | the provider's reported input tokens over the counted ones, at the last call that reported them, and the model that answered |
 *
 * @since 0.3.0
 * @category models
 */
export class WindowState extends Schema.Class<WindowState>("effect-cupel/ai/WindowState")({
  format: Schema.Literal(1),
  fingerprint: Schema.String,
  revision: count("revision"),
  historyLength: count("historyLength"),
  historyDigest: Schema.String,
  window: Schema.Array(Run),
  windowTokens: count("windowTokens"),
  toolTokens: count("toolTokens"),
  calls: count("calls"),
  compactions: count("compactions"),
  appends: count("appends"),
  addedTokens: count("addedTokens"),
  updatedAtMillis: Schema.Finite,
  summary: Schema.optionalKey(SummaryState),
  shortened: Schema.optionalKey(Schema.Array(Schema.Tuple([count("a shortened message's index"), count("its kept tokens")]))),
  masked: Schema.optionalKey(Schema.Array(count("a masked message's index"))),
  references: Schema.optionalKey(Schema.Array(Schema.Tuple([count("a referring message's index"), count("its target's index")]))),
  calibration: Schema.optionalKey(Schema.Struct({
    ratio: Schema.Finite.check(Schema.makeFilter((r) => r > 0 || "a calibration ratio must be above 0")),
    model: Schema.optionalKey(Schema.String)
  }))
}) {}

const Json = Schema.fromJsonString(WindowState)

/**
 * Reads a state from the text a store holds; a `SchemaError` when it is not a state of this
 * format (corrupt, foreign, or written by another version).
 *
 * @since 0.3.0
 * @category decoding
 */
export const decodeJson: (text: string) => Effect.Effect<WindowState, Schema.SchemaError> = Schema.decodeUnknownEffect(
  Json,
  { onExcessProperty: "error" }
)

/**
 * The text a store holds for a state.
 *
 * @since 0.3.0
 * @category encoding
 */
export const encodeJson: (state: WindowState) => Effect.Effect<string, Schema.SchemaError> = Schema.encodeEffect(Json)

/**
 * Whole numbers as runs (consecutive numbers `e, e + 1, …` share a run): a summary's `covers`.
 *
 * @since 0.3.0
 * @category converting
 */
export const toRuns = (entries: ReadonlyArray<number>): Array<readonly [number, number]> => {
  const runs: Array<readonly [number, number]> = []
  let k = 0
  while (k < entries.length) {
    const first = entries[k]!
    let length = 1
    while (k + length < entries.length && entries[k + length] === first + length) length++
    runs.push([first, length])
    k += length
  }
  return runs
}

/**
 * The numbers of runs, in order.
 *
 * @since 0.3.0
 * @category converting
 */
export const fromRuns = (runs: ReadonlyArray<readonly [number, number]>): Array<number> => {
  const entries: Array<number> = []
  for (const [first, length] of runs) for (let i = 0; i < length; i++) entries.push(first + i)
  return entries
}

/**
 * The stored integer of an entry: `i` for message `i`, `-(d + 1)` for document `d`,
 * `Number.MIN_SAFE_INTEGER` for the summary. The layout of format 1; nothing outside this module
 * sees it.
 */
const encodeEntry = (entry: WindowEntry.WindowEntry): number => {
  switch (entry._tag) {
    case "Message":
      return entry.index
    case "Document":
      return -(entry.index + 1)
    case "Summary":
      return summaryCode
  }
}

const summaryCode = Number.MIN_SAFE_INTEGER

const decodeEntry = (code: number): WindowEntry.WindowEntry =>
  code === summaryCode ? WindowEntry.summary : code >= 0 ? WindowEntry.message(code) : WindowEntry.document(-code - 1)

/**
 * The entries of a window as stored runs (format 1: an entry is an integer, and consecutive
 * integers `e, e + 1, …` share a run).
 *
 * @since 0.3.0
 * @category converting
 */
export const runsOf = (entries: ReadonlyArray<WindowEntry.WindowEntry>): Array<readonly [number, number]> => {
  const runs: Array<readonly [number, number]> = []
  let k = 0
  while (k < entries.length) {
    const first = encodeEntry(entries[k]!)
    let length = 1
    while (k + length < entries.length && encodeEntry(entries[k + length]!) === first + length) length++
    runs.push([first, length])
    k += length
  }
  return runs
}

/**
 * The entries of a window's stored runs, in order.
 *
 * @since 0.3.0
 * @category converting
 */
export const entriesOf = (runs: ReadonlyArray<readonly [number, number]>): Array<WindowEntry.WindowEntry> => {
  const entries: Array<WindowEntry.WindowEntry> = []
  for (const [first, length] of runs) for (let i = 0; i < length; i++) entries.push(decodeEntry(first + i))
  return entries
}

/**
 * A call's state moved onto a newer one another call committed since it read (design 92): the
 * newer state's window must be a prefix of the call's window — the call's window extends it, so
 * the next request still starts with what the newer one sent — over the same history (its
 * digest at the newer state's length), under the same settings, summary and shortenings.
 * `undefined` when it is not: the call's state is then not committed, and the newer one stays.
 *
 * The counters continue the newer state's: the call's own increments (its state's counters
 * less those of the state it read, `base`) are added to them, and the revision follows the
 * newer one's.
 *
 * @since 0.3.0
 * @category combining
 */
export const rebase = (options: {
  readonly newer: WindowState
  readonly mine: WindowState
  readonly base: WindowState | undefined
  readonly digestAt: (length: number) => string | undefined
}): WindowState | undefined => {
  const { base, digestAt, mine, newer } = options
  if (newer.fingerprint !== mine.fingerprint) return undefined
  if (newer.historyLength > mine.historyLength || digestAt(newer.historyLength) !== newer.historyDigest) return undefined
  const newerEntries = fromRuns(newer.window)
  const mineEntries = fromRuns(mine.window)
  if (newerEntries.length > mineEntries.length || newerEntries.some((e, i) => mineEntries[i] !== e)) return undefined
  if (!sameSummary(newer.summary, mine.summary)) return undefined
  // A message of the newer window must be sent as the newer state sent it: shortened alike.
  const newerShort = new Map(newer.shortened ?? [])
  const mineShort = new Map(mine.shortened ?? [])
  for (const code of newerEntries) {
    if (code >= 0 && newerShort.get(code) !== mineShort.get(code)) return undefined
  }
  const delta = (pick: (s: WindowState) => number) => Math.max(0, pick(mine) - (base === undefined ? 0 : pick(base)))
  return new WindowState({
    ...mine,
    revision: newer.revision + 1,
    calls: newer.calls + delta((s) => s.calls),
    compactions: newer.compactions + delta((s) => s.compactions),
    appends: newer.appends + delta((s) => s.appends),
    addedTokens: newer.addedTokens + delta((s) => s.addedTokens),
    updatedAtMillis: Math.max(newer.updatedAtMillis, mine.updatedAtMillis),
    ...(mine.calibration === undefined && newer.calibration !== undefined ? { calibration: newer.calibration } : {})
  })
}

const sameSummary = (a: SummaryState | undefined, b: SummaryState | undefined): boolean =>
  a === undefined || b === undefined
    ? a === b
    : a.id === b.id && a.text === b.text && a.tokens === b.tokens &&
      JSON.stringify(a.covers) === JSON.stringify(b.covers)
