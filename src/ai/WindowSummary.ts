/**
 * WindowSummary: the summary a stable window sends in place of what its compactions dropped
 * (docs/ai.md, "Compaction with summaries", rules C1–C5).
 *
 * When a compaction drops part of a conversation, a `Summarizer` writes one summary of it. The
 * summary is *frozen*: once sent it is part of the window's stable prefix, sent byte for byte at
 * every call; the next compaction summarises the old summary together with the newly dropped span
 * into a new one, placed where the old one stood. So a compaction costs one cache write, and no
 * call edits the prefix.
 *
 * This module makes the summary's item and message ({@link fromState}), asks the summariser for a
 * compaction's summary ({@link summarize}), and puts a summary into a fitted window and its
 * report ({@link insert}): the summary as an included item, the messages it covers as excluded
 * with the reason `Summarized`.
 *
 * @since 0.3.0
 */
import { Effect, Result } from "effect"
import type { Prompt } from "effect/ai"
import { ContextItem } from "../ContextItem.ts"
import * as ContextKind from "../ContextKind.ts"
import * as ExclusionReason from "../ExclusionReason.ts"
import type { ExcludedItem } from "../ExcludedItem.ts"
import * as Hash from "./internal/hash.ts"
import { messageIndexOf } from "./MessageIndex.ts"
import type * as PromptWindow from "./PromptWindow.ts"
import * as ResultEdit from "./ResultEdit.ts"
import * as Summarizer from "./Summarizer.ts"
import * as SummaryLedger from "./SummaryLedger.ts"
import { TokenCounter } from "./TokenCounter.ts"
import type * as ToolDefinitions from "./ToolDefinitions.ts"
import * as WindowState from "./WindowState.ts"

/**
 * A summary in a window: its state (as stored), the item the report shows, and the message the
 * model receives (`Summarizer.summaryMessage`).
 *
 * @since 0.3.0
 * @category models
 */
export interface Summary {
  readonly state: WindowState.SummaryState
  readonly item: ContextItem
  readonly message: Prompt.Message
}

/**
 * The metadata key of a summary item's id.
 *
 * @since 0.3.0
 * @category constants
 */
export const summaryIdKey = "summaryId"

/**
 * A summary's item and message from its stored state. The item is pinned (a summary is sent at
 * every call until the next compaction replaces it), of kind `Memory`.
 *
 * @since 0.3.0
 * @category constructors
 */
export const fromState = (state: WindowState.SummaryState): Summary => {
  const message = Summarizer.summaryMessage({ text: state.text }, state.id)
  return {
    state,
    message,
    item: new ContextItem({
      content: Summarizer.summaryHeader(state.id) + "\n" + state.text,
      tokens: state.tokens,
      kind: ContextKind.Memory,
      source: "Chat",
      pinned: true,
      metadata: { role: "user", [summaryIdKey]: state.id }
    })
  }
}

/**
 * What a compaction did about its summary:
 *
 * - `written` — a new summary (of the old one, if any, and the newly dropped span);
 * - `kept` — nothing new was dropped: the old summary stays as it was;
 * - `failed` — the summariser gave none (its error says why): the compaction went ahead, the old
 *   summary (if any) stays, the newly dropped span is gone (rule C3);
 * - `no-room` — the target leaves no room for a summary beside what the call must keep.
 *
 * An old summary stays (`kept`, `failed`, `no-room`) only while it fits the room the window
 * leaves it; one that no longer fits is dropped with the compaction, as the messages it covers
 * were (a window over its target would be refused by the provider).
 *
 * `spanMessages`/`spanTokens` are what was given to be summarised; `summaryTokens` the new
 * summary's size; `chunks` and `usage` the summariser's requests; `ledger` what the summary's
 * ledger did (`SummaryLedger`, docs/ai.md rules L1–L6), when it is on and a summary was
 * written: the facts found, those the summariser's text already held, those listed, and those
 * left out for want of room (oldest first).
 *
 * @since 0.3.0
 * @category models
 */
export interface Outcome {
  readonly _tag: "written" | "kept" | "failed" | "no-room"
  readonly id: string | undefined
  readonly spanMessages: number
  readonly spanTokens: number
  readonly summaryTokens: number
  readonly chunks: number
  readonly withContext: boolean
  readonly usage: Summarizer.SummaryUsage | undefined
  readonly error: Summarizer.SummarizerError | undefined
  readonly ledger?: LedgerOutcome | undefined
}

/**
 * What a summary's ledger did: `found` facts in what was summarised, `held` of them already in
 * the summariser's text, `listed` appended, and `dropped` (the facts left out for want of room,
 * oldest first: rule L4).
 *
 * @since 0.3.0
 * @category models
 */
export interface LedgerOutcome {
  readonly found: number
  readonly held: number
  readonly listed: number
  readonly dropped: ReadonlyArray<SummaryLedger.Fact>
}

/** A summary's id: from its text, so that the same summary has the same id. */
const idOf = (text: string): string => `summary-${Hash.hashString(text).slice(0, 8)}`

const outcome = (tag: Outcome["_tag"], fields: Partial<Omit<Outcome, "_tag">> = {}): Outcome => ({
  _tag: tag,
  id: undefined,
  spanMessages: 0,
  spanTokens: 0,
  summaryTokens: 0,
  chunks: 0,
  withContext: false,
  usage: undefined,
  error: undefined,
  ...fields
})

/**
 * A compaction's summary: the messages of the history that the compacted window leaves out and
 * no earlier summary covers (`span`, in order; system messages are never dropped, and groups are
 * whole, as the pipeline leaves them) are summarised with the previous summary folded in, the
 * conversation's last request (`context`) as the summariser request's prefix, in at most
 * `maxTokens`. Never fails: a summariser's error is a `failed` outcome, and the previous summary
 * (if any) is kept.
 *
 * With `ledger` (default `true`; docs/ai.md rules L1–L6), the facts of what is summarised
 * (`SummaryLedger.extract`) that the summariser's text does not hold are appended to it as a
 * list, within `maxTokens`, the oldest left out first; up to half of the budget is kept back
 * from the summariser for them (no more than the list needs).
 *
 * @since 0.3.0
 * @category compacting
 */
export const summarize = (input: {
  readonly summarizer: Summarizer.Summarizer["Service"]
  readonly candidates: PromptWindow.Candidates
  readonly inWindow: ReadonlySet<number>
  readonly previous: WindowState.SummaryState | undefined
  readonly context: ReadonlyArray<Prompt.Message>
  readonly tools?: ReadonlyArray<ToolDefinitions.AnyTool> | undefined
  readonly maxTokens: number
  readonly ledger?: boolean | undefined
}): Effect.Effect<
  { readonly summary: WindowState.SummaryState | undefined; readonly outcome: Outcome },
  never,
  TokenCounter
> =>
  Effect.gen(function*() {
    const { candidates, previous } = input
    const counter = yield* TokenCounter
    const covered = new Set(previous === undefined ? [] : WindowState.fromRuns(previous.covers))
    const span: Array<Prompt.Message> = []
    const positions: Array<number> = []
    let spanTokens = 0
    candidates.messages.forEach((message, i) => {
      if (message.role === "system" || input.inWindow.has(i) || covered.has(i)) return
      span.push(message)
      positions.push(i)
      spanTokens += candidates.items[i]!.tokens
    })
    // The old summary, while it fits the room left: a call never goes over its target for it.
    const kept = previous !== undefined && previous.tokens <= input.maxTokens ? previous : undefined
    if (span.length === 0) {
      return kept !== undefined || previous === undefined
        ? { summary: kept, outcome: outcome("kept", { id: kept?.id }) }
        : { summary: undefined, outcome: outcome("no-room") }
    }
    // The summary is sent as a message with a header: its text gets what the header leaves.
    const header = yield* Effect.orElseSucceed(counter.count(Summarizer.summaryMessage({ text: "" }, idOf(""))), () => 0)
    const maxTokens = Math.floor(input.maxTokens - header)
    const noRoom = { summary: kept, outcome: outcome("no-room", { spanMessages: span.length, spanTokens, id: kept?.id }) }
    if (!(maxTokens > 0)) return noRoom
    // L4: room for the ledger is kept back from the summariser, at most half of the budget.
    const facts = input.ledger === false ? [] : yield* SummaryLedger.extractEffect(span, previous?.text)
    const ledgerTokens = yield* Effect.orElseSucceed(SummaryLedger.tokens(counter, facts), () => 0)
    const reserve = Math.min(ledgerTokens, Math.floor(maxTokens * SummaryLedger.maxShare))
    const result = yield* Effect.result(input.summarizer.summarize({
      span,
      previous: previous?.text,
      context: input.context,
      tools: input.tools ?? [],
      maxTokens: Math.max(1, maxTokens - reserve)
    }))
    if (Result.isFailure(result)) {
      return {
        summary: kept,
        outcome: outcome("failed", { spanMessages: span.length, spanTokens, error: result.failure, id: kept?.id })
      }
    }
    const { text, ledger } = yield* withLedger(counter, result.success.text, facts, input.maxTokens, input.ledger !== false)
    const written = { ...result.success, text }
    const id = idOf(written.text)
    // The message as the model receives it, counted as the window counts every message.
    const tokens = yield* Effect.orElseSucceed(counter.count(Summarizer.summaryMessage(written, id)), () => Infinity)
    if (!(tokens <= input.maxTokens)) {
      return {
        summary: kept,
        outcome: outcome("failed", {
          spanMessages: span.length,
          spanTokens,
          id: kept?.id,
          error: new Summarizer.SummarizerError({
            summarizer: input.summarizer.name,
            reason: "over-budget",
            detail: `the summary message counts ${tokens} tokens, over the ${input.maxTokens} the window leaves it`
          })
        })
      }
    }
    const summary: WindowState.SummaryState = {
      id,
      text: written.text,
      tokens,
      covers: WindowState.toRuns([...covered, ...positions].sort((a, b) => a - b))
    }
    return {
      summary,
      outcome: outcome("written", {
        id,
        spanMessages: span.length,
        spanTokens,
        summaryTokens: tokens,
        chunks: written.chunks,
        withContext: written.withContext,
        usage: written.usage,
        ledger
      })
    }
  })

/**
 * The summariser's text with the facts it does not hold appended (rule L3), as many of the
 * newest as keep the summary message within `maxTokens` (rule L4). Off: the text as it is.
 */
const withLedger = (
  counter: TokenCounter["Service"],
  text: string,
  facts: ReadonlyArray<SummaryLedger.Fact>,
  maxTokens: number,
  on: boolean
): Effect.Effect<{ readonly text: string; readonly ledger: LedgerOutcome | undefined }> =>
  Effect.gen(function*() {
    if (!on) return { text, ledger: undefined }
    const absent = SummaryLedger.missing(facts, text)
    const fits = (candidate: string) =>
      Effect.orElseSucceed(
        Effect.map(counter.count(Summarizer.summaryMessage({ text: candidate }, idOf(candidate))), (n) => n <= maxTokens),
        () => false
      )
    const { dropped, kept } = yield* SummaryLedger.fit(text, absent, fits)
    return {
      text: SummaryLedger.append(text, kept),
      ledger: { found: facts.length, held: facts.length - absent.length, listed: kept.length, dropped }
    }
  })

/**
 * A fitted window with its summary: the summary's item placed right after the system prompts
 * (and the documents, which are sent as system messages), before the first conversation message
 * (rule C1) — whether or not that message's item is a copy the call kept (rule K2) — in the
 * report as included (`Pinned`, `ResultEdit.insertPinned`), and every excluded message it
 * covers re-marked `Summarized` with its id (`ResultEdit.relabel`). `targetTokens` is the target
 * the window is held to (the call's). The prompt is made again with `toPrompt`, the summary item
 * becoming its message.
 *
 * @since 0.3.0
 * @category compacting
 */
export const insert = (
  fitted: PromptWindow.Fitted,
  candidates: PromptWindow.Candidates,
  summary: Summary,
  toPrompt: (window: ReadonlyArray<ContextItem>, candidates: PromptWindow.Candidates) => Prompt.Prompt,
  targetTokens: number
): PromptWindow.Fitted => {
  const { report } = fitted.result
  const messageOf = new Map(candidates.messageOf)
  // The items the call kept (rule K2) are copies, pinned for the call: each is sent as the
  // message its index names.
  for (const entry of report.included) {
    const index = messageIndexOf(entry.item)
    if (!messageOf.has(entry.item) && index !== undefined && candidates.messages[index] !== undefined) {
      messageOf.set(entry.item, candidates.messages[index])
    }
  }
  // The first item sent as anything but a system message: an item of no message is a document,
  // sent as a system message.
  const at = report.included.findIndex((entry) => {
    const message = messageOf.get(entry.item)
    return message !== undefined && message.role !== "system"
  })
  const inserted = ResultEdit.insertPinned(fitted.result, summary.item, {
    position: at < 0 ? report.included.length : at,
    targetTokens
  })
  const result = ResultEdit.relabel(inserted, summarizedReason(summary.state, candidates))
  messageOf.set(summary.item, summary.message)
  return { prompt: toPrompt(result.window, { ...candidates, messageOf }), result }
}

/**
 * The reason of an excluded entry that `summary` covers: `Summarized` with its id, for a
 * message's own item only (a document may carry any metadata); `undefined` for any other.
 */
const summarizedReason = (
  summary: WindowState.SummaryState,
  candidates: PromptWindow.Candidates
): (entry: ExcludedItem) => ExclusionReason.ExclusionReason | undefined => {
  const covered = new Set(WindowState.fromRuns(summary.covers))
  const reason = ExclusionReason.Summarized.make({ summaryId: summary.id })
  return (entry) => {
    const index = messageIndexOf(entry.item)
    return index !== undefined && covered.has(index) && candidates.items[index] === entry.item ? reason : undefined
  }
}

/**
 * The excluded entries with those of the messages `summary` covers re-marked `Summarized`.
 *
 * @since 0.3.0
 * @category compacting
 */
export const markSummarized = (
  excluded: ReadonlyArray<ExcludedItem>,
  summary: WindowState.SummaryState,
  candidates: PromptWindow.Candidates
): Array<ExcludedItem> => {
  const reasonOf = summarizedReason(summary, candidates)
  return excluded.map((entry) => {
    const reason = reasonOf(entry)
    return reason === undefined ? entry : { ...entry, reason }
  })
}
