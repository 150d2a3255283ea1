/**
 * TurnRules: the rules of the current turn that a fit applies around the pipeline (docs/ai.md,
 * "Right within a call"): what every window must keep (K2, {@link keeping}), the error of a
 * newest user message that cannot fit ({@link turnBudgetError}, {@link checkTurn}), and the
 * shortening of the turn's largest tool result before anything of the turn is dropped (K6,
 * {@link shortenTurn}, {@link applyShortenings}).
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import type { AiError, Prompt } from "effect/ai"
import * as ContextItem from "../ContextItem.ts"
import { type Candidates, CandidateError, countMessage } from "./Candidates.ts"
import * as CurrentTurn from "./CurrentTurn.ts"
import { computeKeeping, keepingOf } from "./internal/keeping.ts"
import { render } from "./PromptRender.ts"
import * as Shorten from "./Shorten.ts"
import { TokenCounter } from "./TokenCounter.ts"
import { TurnBudgetError } from "./TurnBudgetError.ts"

/**
 * A tool message shortened for a call (rule K6): its index in the prompt and the tokens it was
 * cut to. Shortening is deterministic: the same message cut to the same tokens by the same
 * counter gives the same text, which is how a stable window sends it again.
 *
 * @since 0.3.0
 * @category models
 */
export interface Shortening {
  readonly index: number
  readonly keepTokens: number
}

/**
 * Rule K2's error, or `undefined`: the {@link TurnBudgetError} of candidates whose newest user
 * message (not pinned) needs more than `targetTokens` leaves beside the pinned items. Nothing
 * when the pinned items alone exceed the target: that is K4's `PinnedBudgetError`.
 *
 * @since 0.3.0
 * @category running
 */
export const turnBudgetError = (candidates: Candidates, targetTokens: number): TurnBudgetError | undefined => {
  // What `keeping` would read, without the units of the turn it keeps (`CurrentTurn.keep`): a
  // stable window that appends asks only this, at every call.
  const { items, messages } = candidates
  let pinnedTokens = 0
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!
    if (item.pinned && item.tokens > 0) pinnedTokens += item.tokens
  }
  if (pinnedTokens > targetTokens) return undefined
  // `CurrentTurn.anchors`' newest user message, and whether it is conversation (`keeping`'s).
  let user = -1
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === "user") {
      user = i
      break
    }
  }
  if (user < 0 || items[user]!.pinned) return undefined
  const neededTokens = items[user]!.tokens
  const availableTokens = targetTokens - pinnedTokens
  return neededTokens > availableTokens
    ? new TurnBudgetError({ messageIndex: user, neededTokens, availableTokens, pinnedTokens })
    : undefined
}

/**
 * {@link turnBudgetError} as an Effect: fails with it, else succeeds. A stable window checks
 * it against the call's whole target before it appends or compacts (a compaction fits to a
 * lower target, whose figures would not be the call's).
 *
 * @since 0.3.0
 * @category running
 */
export const checkTurn = (candidates: Candidates, targetTokens: number): Effect.Effect<void, TurnBudgetError> => {
  const error = turnBudgetError(candidates, targetTokens)
  return error === undefined ? Effect.void : Effect.fail(error)
}

/**
 * What a call's window must hold before anything is weighed: the pinned items (their tokens
 * and count) and the units of the current turn that rule K2 keeps within `targetTokens`
 * ({@link CurrentTurn.keep}, with the room the pinned items leave), with their tokens; and which
 * messages are conversation (not system, not pinned).
 *
 * @since 0.3.0
 * @category running
 */
export const keeping = (candidates: Candidates, targetTokens: number): {
  readonly pinnedTokens: number
  readonly pinnedCount: number
  readonly kept: Map<number, CurrentTurn.Keep>
  readonly keptTokens: number
  readonly conversation: ReadonlyArray<boolean>
} => computeKeeping(candidates, targetTokens).keeping

/**
 * Rule K6: the current turn's largest tool result shortened (`Shorten.shortenMessage`: head and
 * tail kept, a marker saying how much was left out) before anything of the turn is dropped.
 *
 * 1. When the current turn ({@link CurrentTurn.current}) does not fit `targetTokens` whole
 *    beside the pinned items, its largest tool message is cut so that the whole turn fits
 *    `cutTo` (default `targetTokens`; a stable window cuts to its low watermark, so that the
 *    calls after it can append).
 * 2. When that one cut cannot make the turn fit (the rest of the turn alone is too large, or
 *    even the marker would not fit), the newest message's unit and then the turn's latest tool
 *    exchange, each not kept, have their largest tool message cut so that they fit beside the
 *    newest user message and the units kept outside them — the call keeps its result, usable,
 *    instead of losing both.
 *
 * Nothing is shortened that fits; user messages and documents never are; and nothing when the
 * newest user message itself does not fit (the fit fails with `TurnBudgetError`).
 *
 * @since 0.3.0
 * @category running
 */
export const shortenTurn = (
  candidates: Candidates,
  targetTokens: number,
  cutTo: number = targetTokens
): Effect.Effect<
  { readonly candidates: Candidates; readonly shortenings: ReadonlyArray<Shortening> },
  AiError.AiError | CandidateError,
  TokenCounter
> => shortenTurnBody(candidates, targetTokens, cutTo)

// A generator function of the module, not a generator closure made at every call (docs/design.md item 144).
const shortenTurnBody = Effect.fnUntraced(function*(candidates: Candidates, targetTokens: number, cutTo: number) {
  const unchanged = { candidates, shortenings: [] }
  const first = keepingOf(candidates, targetTokens)
  const { kept, pinnedTokens } = first.keeping
  if (pinnedTokens > targetTokens || turnBudgetError(candidates, targetTokens) !== undefined) return unchanged
  const room = Math.min(cutTo, targetTokens) - pinnedTokens
  // 1. The whole turn, its largest tool message cut.
  const turn = CurrentTurn.current(first.turn)
  if (turn.length > 0 && !turn.every((i) => kept.has(i))) {
    const cut = cutLargest(candidates, turn, room)
    if (cut !== undefined) {
      const next = yield* applyShortenings(candidates, [cut])
      if (next !== candidates) return { candidates: next, shortenings: [cut] }
    }
  }
  // 2. The newest unit and the turn's latest exchange, each beside what is kept outside it.
  const shortenings: Array<Shortening> = []
  let current = candidates
  for (const why of ["newest", "latest-tool-exchange"] as const) {
    const { keeping: { kept }, turn } = keepingOf(current, targetTokens)
    const anchors = CurrentTurn.anchors(turn)
    const members = CurrentTurn.unit(turn, anchors[why])
    if (members.length === 0 || members.every((i) => kept.has(i))) continue
    // The room: the target less the pinned items, the units kept outside this one and the
    // newest user message (kept first, rule K2).
    const user = anchors["newest-user"]
    let others = 0
    for (const [i] of kept) if (!members.includes(i)) others += current.items[i]!.tokens
    if (user >= 0 && turn.conversation[user] && !kept.has(user) && !members.includes(user)) {
      others += current.items[user]!.tokens
    }
    const cut = cutLargest(current, members, room - others)
    if (cut === undefined) continue
    const next = yield* applyShortenings(current, [cut])
    if (next === current) continue
    shortenings.push(cut)
    current = next
  }
  return { candidates: current, shortenings }
})

/**
 * The cut of the largest tool message among `members` that makes them fit `room`, or
 * `undefined` when they fit already, hold no tool message, or the others alone leave it nothing.
 */
const cutLargest = (candidates: Candidates, members: ReadonlyArray<number>, room: number): Shortening | undefined => {
  let tokens = 0
  let largest = -1
  for (const i of members) {
    const item = candidates.items[i]!
    tokens += item.tokens
    if (candidates.messages[i]!.role === "tool" && (largest < 0 || item.tokens > candidates.items[largest]!.tokens)) {
      largest = i
    }
  }
  if (largest < 0 || tokens <= room) return undefined
  const keepTokens = candidates.items[largest]!.tokens - (tokens - room)
  return keepTokens > 0 ? { index: largest, keepTokens } : undefined
}

/**
 * The candidates with the given tool messages shortened (rule K6): each message replaced by its
 * shortened form, its item by one of the shortened text and tokens, marked with
 * `Shorten.shortenedKey` (original and kept tokens) and `originalTokens`. A shortening that
 * cannot be made (the message is no tool message, or even the marker does not fit) is skipped;
 * with nothing to shorten the same candidates are returned.
 *
 * @since 0.3.0
 * @category running
 */
export const applyShortenings = (
  candidates: Candidates,
  shortenings: ReadonlyArray<Shortening>
): Effect.Effect<Candidates, AiError.AiError | CandidateError, TokenCounter> =>
  applyShorteningsBody(candidates, shortenings)

// A generator function of the module, not a generator closure made at every call (docs/design.md item 144).
const applyShorteningsBody = Effect.fnUntraced(function*(candidates: Candidates, shortenings: ReadonlyArray<Shortening>) {
  if (shortenings.length === 0) return candidates
  const counter = yield* TokenCounter
  let items: Array<ContextItem.ContextItem> | undefined
  let messages: Array<Prompt.Message> | undefined
  let messageOf: Map<ContextItem.ContextItem, Prompt.Message> | undefined
  for (const { index, keepTokens } of shortenings) {
    const message = candidates.messages[index]
    const item = candidates.items[index]
    if (message === undefined || item === undefined || message.role !== "tool") continue
    const shortened = yield* Shorten.shortenMessage(message, keepTokens, (m) => countMessage(counter, m, index))
    if (shortened === undefined || shortened.message === message) continue
    if (!Number.isSafeInteger(shortened.keptTokens)) {
      return yield* new CandidateError({
        index,
        field: "tokens",
        problem: `must be a safe integer: the TokenCounter gave ${shortened.keptTokens}`
      })
    }
    items ??= candidates.items.slice()
    messages ??= candidates.messages.slice()
    messageOf ??= new Map(candidates.messageOf)
    const replaced = Shorten.markShortened(
      new ContextItem.ContextItem({ ...item, content: render(shortened.message), tokens: shortened.keptTokens }),
      { originalTokens: shortened.originalTokens, keptTokens: shortened.keptTokens }
    )
    items[index] = replaced
    messages[index] = shortened.message
    messageOf.delete(item)
    messageOf.set(replaced, shortened.message)
  }
  return items === undefined || messages === undefined || messageOf === undefined
    ? candidates
    : { ...candidates, items, messages, messageOf }
})
