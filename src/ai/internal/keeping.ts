/**
 * What a call's window must hold before anything is weighed (`TurnRules.keeping`), computed
 * once per candidates object and target.
 *
 * @internal
 */
import type { Candidates } from "../Candidates.ts"
import * as CurrentTurn from "../CurrentTurn.ts"

/** What `TurnRules.keeping` gives. */
export interface Keeping {
  readonly pinnedTokens: number
  readonly pinnedCount: number
  readonly kept: Map<number, CurrentTurn.Keep>
  readonly keptTokens: number
  readonly conversation: ReadonlyArray<boolean>
}

/**
 * `TurnRules.keeping` of candidates, and the turn it read, computed once per candidates object
 * and target: a fit asks three times for the same (twice in `TurnRules.shortenTurn` when it
 * shortens nothing, once in `PromptWindow.fitCandidates`), and each is a few passes over every
 * message. Only for those callers, which read the result and never change it. The memo is of a
 * pure function, keyed weakly by the candidates object (never changed once made).
 */
export const keepingOf = (candidates: Candidates, targetTokens: number): KeepingAndTurn => {
  const cached = keepingCache.get(candidates)
  if (cached !== undefined && cached.targetTokens === targetTokens) return cached.value
  const value = computeKeeping(candidates, targetTokens)
  keepingCache.set(candidates, { targetTokens, value })
  return value
}

export interface KeepingAndTurn {
  readonly keeping: Keeping
  readonly turn: CurrentTurn.Turn
}

const keepingCache = new WeakMap<Candidates, { readonly targetTokens: number; readonly value: KeepingAndTurn }>()

export const computeKeeping = (candidates: Candidates, targetTokens: number): KeepingAndTurn => {
  const { items, messages } = candidates
  const n = messages.length
  let pinnedTokens = 0
  let pinnedCount = 0
  // One pass over the items: each is read once (a thousand of them, scattered in the heap).
  // Made at their size: grown by `push`, the two lists were 56 KB of a call's allocations at
  // 1,000 messages (design item 137).
  const m = Math.min(n, items.length)
  const conversation = new Array<boolean>(m)
  const tokens = new Array<number>(m)
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!
    if (item.pinned && item.tokens > 0) {
      pinnedTokens += item.tokens
      pinnedCount++
    }
    if (i < n) {
      conversation[i] = messages[i]!.role !== "system" && !item.pinned
      tokens[i] = item.tokens
    }
  }
  const turn: CurrentTurn.Turn = { messages, groups: candidates.groups, tokens, conversation }
  const kept = pinnedTokens > targetTokens
    ? new Map<number, CurrentTurn.Keep>()
    : CurrentTurn.keep(turn, targetTokens - pinnedTokens)
  let keptTokens = 0
  for (const i of kept.keys()) keptTokens += items[i]!.tokens
  return { keeping: { pinnedTokens, pinnedCount, kept, keptTokens, conversation }, turn }
}

