/**
 * Rule S3's append: the previous window with the new messages appended, when that fits.
 *
 * @internal
 */
import type { Candidates } from "../Candidates.ts"
import type * as WindowChange from "../WindowChange.ts"
import * as WindowEntry from "../WindowEntry.ts"

/** An append: the window's entries, the tokens appended, and the previous window's tokens. */
export interface AppendPlan {
  readonly entries: Array<WindowEntry.WindowEntry>
  readonly addedTokens: number
  readonly previousTokens: number
}

/**
 * The change of an append (`WindowChange.changeOf`'s, without its passes over both windows):
 * the previous entries all kept, as the plan's first entries (a usable state names each entry
 * once, and the appended messages are all new), the appended ones added, nothing dropped; an
 * append continues a usable state (no fresh reason, no store failure) and writes no summary.
 * `test/ai/StableAppend.test.ts` holds it to `changeOf` over generated sessions.
 */
export const appendChange = (plan: AppendPlan, previousLength: number): WindowChange.Change => ({
  action: "append",
  fresh: undefined,
  kept: previousLength,
  added: plan.entries.length - previousLength,
  dropped: 0,
  keptTokens: plan.previousTokens,
  addedTokens: plan.addedTokens,
  droppedTokens: 0,
  lowWatermark: undefined,
  storeFailure: undefined,
  summary: undefined
})

/**
 * The previous window with the new messages appended, when that fits `target` and no new
 * message belongs to a group whose earlier members are not the previous window's last entries
 * (rule S3); otherwise `undefined`. The new messages are ordered as the conversation placer
 * orders them: each group drawn up to its first member. `previousTokens`: the previous window's
 * tokens by these candidates, when known (an append's carry, docs/design.md item 108).
 */
export const appendPlan = (
  candidates: Candidates,
  previous: ReadonlyArray<WindowEntry.WindowEntry>,
  seen: number,
  tokensOf: (entry: WindowEntry.WindowEntry) => number,
  target: number,
  previousTokens?: number | undefined
): AppendPlan | undefined => {
  const n = candidates.messages.length
  // Only the groups of the new messages matter: their first members, and their members sent
  // before. One pass, and none when no new message is in a group.
  const firstOf = new Map<string, number>()
  const oldMembers = new Set<number>()
  for (let j = seen; j < n; j++) {
    const group = candidates.groups[j]
    if (group !== undefined && !firstOf.has(group)) firstOf.set(group, j)
  }
  if (firstOf.size > 0) {
    for (let i = 0; i < seen; i++) {
      const group = candidates.groups[i]
      if (group === undefined) continue
      const first = firstOf.get(group)
      if (first === undefined) continue
      if (first > i) firstOf.set(group, i)
      oldMembers.add(i)
    }
  }
  if (oldMembers.size > 0) {
    // A late member of a group already sent: only when that group ends the previous window can
    // the new member follow it directly.
    const tail = previous.slice(previous.length - oldMembers.size)
    if (!tail.every((entry) => entry._tag === "Message" && oldMembers.has(entry.index))) return undefined
  }
  // The previous window's tokens, when the call carries them (design 108), else summed.
  let windowTokens = 0
  if (previousTokens !== undefined) windowTokens = previousTokens
  else for (const entry of previous) windowTokens += tokensOf(entry)
  const added: Array<number> = []
  let addedTokens = 0
  for (let j = seen; j < n; j++) {
    added.push(j)
    addedTokens += candidates.items[j]!.tokens
  }
  if (windowTokens + addedTokens > target) return undefined
  const unitKey = (j: number): number => {
    const group = candidates.groups[j]
    return group === undefined ? j : firstOf.get(group) ?? j
  }
  added.sort((a, b) => unitKey(a) - unitKey(b) || a - b)
  const entries = previous.slice()
  for (const j of added) entries.push(WindowEntry.message(j))
  return { entries, addedTokens, previousTokens: windowTokens }
}
