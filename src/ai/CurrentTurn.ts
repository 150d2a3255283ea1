/**
 * CurrentTurn: what every window of a conversation keeps of its current turn, and where the
 * window opens (docs/ai.md, "Right within a call", rules K2 and K3).
 *
 * A scorer and a slicer weigh messages one by one; they do not know that an agent needs the
 * question it is answering and everything said and fetched since, and a user message to open
 * the window on (some providers reject a conversation that opens on an assistant or tool
 * message). The *current turn* is the newest user message and every conversation message after
 * it, with their groups ({@link current}). This module says which units a call keeps
 * ({@link keep}) — the newest user message first, then the rest of the turn whole when it fits —
 * so that `PromptWindow.fit` can pin them for the call, and trims a window that would open on
 * something other than a user message ({@link openOnUser}).
 *
 * A *unit* is a message with every message of its group (a tool call with its results and
 * approvals, `PromptWindow.groups`): units are kept or dropped whole.
 *
 * @since 0.3.0
 */
import type { Prompt } from "effect/ai"
import type { ContextItem } from "../ContextItem.ts"
import * as ExclusionReason from "../ExclusionReason.ts"
import type { PipelineResult } from "../PipelineResult.ts"
import * as ResultEdit from "./ResultEdit.ts"

/**
 * Why a unit is kept for the call (the value of its items' `keep` metadata):
 *
 * - `newest-user` — the newest user message, kept first;
 * - `newest` — the newest non-system message's unit;
 * - `latest-tool-exchange` — the newest tool exchange with a message in the current turn (a
 *   tool call, its results and approvals);
 * - `current-turn` — any other unit of the current turn, kept because the whole turn fits;
 * - `turn-opener` — the nearest user message before the oldest of the units above, when that
 *   unit is not a user message (a late result's call, made before the newest user message).
 *
 * @since 0.3.0
 * @category models
 */
export type Keep = "newest-user" | "newest" | "latest-tool-exchange" | "current-turn" | "turn-opener"

/**
 * The metadata key that carries a kept item's {@link Keep}.
 *
 * @since 0.3.0
 * @category constants
 */
export const keepKey = "keep"

/**
 * The messages of a prompt as the rules see them: each message's group (from
 * `PromptWindow.groups`), its tokens, and whether it is part of the conversation — not a system
 * message and not pinned (pinned messages are in every window already).
 *
 * @since 0.3.0
 * @category models
 */
export interface Turn {
  readonly messages: ReadonlyArray<Prompt.Message>
  readonly groups: ReadonlyArray<string | undefined>
  readonly tokens: ReadonlyArray<number>
  readonly conversation: ReadonlyArray<boolean>
}

/**
 * The members of a group, in order: one pass over the groups, no map of them all —
 * a call asks for a few units (at most five in {@link keep}), and a map of every group of a
 * thousand messages cost more than the passes.
 */
const membersOf = (turn: Turn, group: string): Array<number> => {
  const members: Array<number> = []
  const groups = turn.groups
  for (let i = 0; i < turn.messages.length; i++) if (groups[i] === group) members.push(i)
  return members
}

const hasToolCall = (message: Prompt.Message): boolean =>
  message.role === "assistant" && message.content.some((part) => part.type === "tool-call" && !part.providerExecuted)

/**
 * The conversation messages of the unit of message `at` (its group's, or itself), in order;
 * empty for `at < 0`.
 *
 * @since 0.3.0
 * @category rules
 */
export const unit = (turn: Turn, at: number): Array<number> => {
  if (at < 0) return []
  const group = turn.groups[at]
  const members = group === undefined ? [] : membersOf(turn, group)
  const all = members.length === 0 ? [at] : members
  return all.filter((i) => turn.conversation[i])
}

/**
 * The messages that stand for the reasons of rule K2, each an index or -1 when the history has
 * none:
 *
 * - `newest-user` — the newest user message (pinned or not: a pinned one is in every window
 *   already, and still opens the current turn);
 * - `newest` — the newest conversation message of the current turn (the newest user message
 *   itself when nothing follows it; with no user message, the newest of the history);
 * - `latest-tool-exchange` — the newest conversation message after the newest user message that
 *   is a tool call (an assistant message with a call the provider does not run) or a tool
 *   message: its unit is the turn's latest exchange. A history without a user message looks
 *   through all of it; an exchange older than the newest user message is no part of the turn.
 *
 * @since 0.3.0
 * @category rules
 */
export const anchors = (
  turn: Turn
): { readonly [K in "newest" | "latest-tool-exchange" | "newest-user"]: number } => {
  const messages = turn.messages
  let newestUser = -1
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === "user") {
      newestUser = i
      break
    }
  }
  let newest = -1
  let exchange = -1
  for (let i = messages.length - 1; i > newestUser; i--) {
    if (!turn.conversation[i]) continue
    if (newest < 0) newest = i
    const message = messages[i]!
    if (message.role === "tool" || hasToolCall(message)) {
      exchange = i
      break
    }
  }
  if (newest < 0 && newestUser >= 0 && turn.conversation[newestUser]) newest = newestUser
  return { newest, "latest-tool-exchange": exchange, "newest-user": newestUser }
}

/**
 * The conversation messages of the current turn, in order: the newest user message (when it is
 * not pinned) and every conversation message after it, each with its group's members — a tool
 * result given after the user's message brings its call and the call's other results, which
 * may stand before it. Empty when the history has no user message.
 *
 * @since 0.3.0
 * @category rules
 */
export const current = (turn: Turn): Array<number> => {
  const { groups, messages } = turn
  const user = anchors(turn)["newest-user"]
  if (user < 0) return []
  const reached = new Set<string>()
  for (let i = user + 1; i < messages.length; i++) {
    const group = groups[i]
    if (group !== undefined && turn.conversation[i]) reached.add(group)
  }
  const members: Array<number> = []
  // No group reached from the turn: nothing before the user message belongs to it, and the
  // thousand messages before it need not be read (an agent's call without a tool exchange).
  for (let i = reached.size === 0 ? user : 0; i < messages.length; i++) {
    if (!turn.conversation[i]) continue
    const group = groups[i]
    if (i >= user || (group !== undefined && reached.has(group))) members.push(i)
  }
  return members
}

/**
 * The units kept for the call, as a map from message index to why (rule K2), each only if its
 * conversation messages fit `room` — the target less the pinned items — beside those kept
 * before it:
 *
 * 1. `newest-user`, the newest user message (the caller fails the call when it does not fit:
 *    `PromptWindow.fit` raises `TurnBudgetError`);
 * 2. the rest of the current turn ({@link current}), whole, when it fits: its units marked
 *    `newest`, `latest-tool-exchange` or `current-turn`;
 * 3. otherwise `newest`, then `latest-tool-exchange`, each unit that fits;
 * 4. `turn-opener`, when the oldest unit kept is not a user message.
 *
 * @since 0.3.0
 * @category rules
 */
export const keep = (turn: Turn, room: number): Map<number, Keep> => {
  const n = turn.messages.length
  const kept = new Map<number, Keep>()
  let left = room
  const tryKeep = (at: number, why: Keep): boolean => {
    const members = unit(turn, at).filter((i) => !kept.has(i))
    if (members.length === 0) return false
    let tokens = 0
    for (const i of members) tokens += turn.tokens[i]!
    if (tokens > left) return false
    left -= tokens
    for (const i of members) kept.set(i, why)
    return true
  }
  const at = anchors(turn)
  tryKeep(at["newest-user"], "newest-user")
  const rest = current(turn).filter((i) => !kept.has(i))
  let restTokens = 0
  for (const i of rest) restTokens += turn.tokens[i]!
  if (rest.length > 0 && restTokens <= left) {
    left -= restTokens
    const newest = unit(turn, at.newest)
    const exchange = unit(turn, at["latest-tool-exchange"])
    for (const i of rest) {
      kept.set(i, newest.includes(i) ? "newest" : exchange.includes(i) ? "latest-tool-exchange" : "current-turn")
    }
  } else {
    tryKeep(at.newest, "newest")
    tryKeep(at["latest-tool-exchange"], "latest-tool-exchange")
  }
  let oldest = n
  for (const i of kept.keys()) oldest = Math.min(oldest, i)
  if (oldest < n && turn.messages[oldest]!.role !== "user") {
    let opener = -1
    for (let i = oldest - 1; i >= 0; i--) {
      if (turn.conversation[i] && turn.messages[i]!.role === "user") {
        opener = i
        break
      }
    }
    tryKeep(opener, "turn-opener")
  }
  return kept
}

/**
 * The filter name in the exclusion reason of the units that {@link openOnUser} drops
 * (`Filtered`, `filterName: "start-on-user"`).
 *
 * @since 0.3.0
 * @category constants
 */
export const startOnUserFilter = "start-on-user"

const startOnUser = ExclusionReason.Filtered.make({ filterName: startOnUserFilter })

/**
 * Rule K3: the window opens on a user message. Conversation items placed before the first
 * conversation item that is a user message or a kept unit's (`kept`) are dropped from the
 * window and reported as excluded (`Filtered`, {@link startOnUserFilter}), with the score they
 * were included with (`ResultEdit.dropLeading`). Items that are not conversation (system
 * prompts, pinned messages, documents) are never dropped; nothing is dropped when no
 * conversation item qualifies.
 *
 * `conversationRole` gives the role of an item that is a conversation message, `undefined` for
 * any other item.
 *
 * @since 0.3.0
 * @category rules
 */
export const openOnUser = (
  result: PipelineResult,
  conversationRole: (item: ContextItem) => Prompt.Message["role"] | undefined,
  kept: ReadonlySet<ContextItem>
): PipelineResult =>
  ResultEdit.dropLeading(result, {
    opens: (item) => {
      const role = conversationRole(item)
      return role !== undefined && (role === "user" || kept.has(item))
    },
    droppable: (item) => conversationRole(item) !== undefined
  }, startOnUser)
