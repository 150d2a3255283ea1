/**
 * What an appending call carries over to the next (docs/design.md items 107–109): the window it
 * planned, its entries, the items it sent, the window's tokens, its report's entries and the
 * pool of results its references were decided against, kept per conversation key by one stable
 * window, in memory. The next call of that conversation continues them — the new step, plus
 * small constants — only when the state it reads is the one they were made for (item 108);
 * otherwise it recomputes everything, as a call of another process would.
 *
 * @internal
 */
import type { ContextItem } from "../../ContextItem.ts"
import type { ExcludedItem } from "../../ExcludedItem.ts"
import type { IncludedItem } from "../../IncludedItem.ts"
import type * as ResultReferences from "../ResultReferences.ts"
import type * as WindowEntry from "../WindowEntry.ts"
import type * as WindowState from "../WindowState.ts"

/** One conversation's carry: made by a call, for the state that call planned (`state`). */
export interface Carry {
  /** The state the call planned (its `Plan.next`). */
  readonly state: WindowState.WindowState
  /** That state's window, as entries. */
  readonly entries: ReadonlyArray<WindowEntry.WindowEntry>
  /** The call's candidates' items, as sent (masked, by reference, shortened). */
  readonly items: ReadonlyArray<ContextItem>
  /** The summary's item the call sent, if any. */
  readonly summaryItem: ContextItem | undefined
  /** The window's tokens, by those items. */
  readonly windowTokens: number
  /** An appending call's report: its window's entries as the next append keeps them, and its excluded entries. */
  readonly report?: {
    readonly kept: ReadonlyArray<IncludedItem>
    readonly excluded: ReadonlyArray<ExcludedItem>
  } | undefined
  /** The results of the window's whole messages, read up to a position of `entries` (references on). */
  readonly pool?: ResultReferences.PoolIndex | undefined
}

/** How many conversations one stable window carries for (the oldest is let go first). */
export const carriedConversations = 256

/** The carries of one stable window, by conversation key. */
export interface Carries {
  readonly get: (key: string) => Carry | undefined
  readonly set: (key: string, carry: Carry) => void
  readonly drop: (key: string) => void
}

/** Empty carries, for one stable window (never shared by a module). */
export const makeCarries = (limit = carriedConversations): Carries => {
  const byKey = new Map<string, Carry>()
  return {
    get: (key) => byKey.get(key),
    set: (key, carry) => {
      // Re-inserted: the Map's order is then the order of last use.
      byKey.delete(key)
      byKey.set(key, carry)
      if (byKey.size > limit) {
        const oldest = byKey.keys().next()
        if (oldest.done !== true) byKey.delete(oldest.value)
      }
    },
    drop: (key) => void byKey.delete(key)
  }
}

const sameRuns = (
  a: ReadonlyArray<readonly [number, number]> | undefined,
  b: ReadonlyArray<readonly [number, number]> | undefined
): boolean => {
  if (a === b) return true
  if (a === undefined || b === undefined || a.length !== b.length) return false
  for (let k = 0; k < a.length; k++) {
    const x = a[k]!
    const y = b[k]!
    if (x[0] !== y[0] || x[1] !== y[1]) return false
  }
  return true
}

const sameNumbers = (a: ReadonlyArray<number> | undefined, b: ReadonlyArray<number> | undefined): boolean => {
  if (a === b) return true
  const x = a ?? []
  const y = b ?? []
  if (x.length !== y.length) return false
  for (let k = 0; k < x.length; k++) if (x[k] !== y[k]) return false
  return true
}

/**
 * Whether a stored state is, for the window, the one a carry was made for (item 108): the same
 * settings, history (length and digest), window, summary, shortenings, masks and references.
 * Its revision, counters, times and calibration may differ (a commit's calibration, a stream's
 * later usage, another process's write of the same window): none of them shapes the window.
 */
export const sameWindowState = (carried: WindowState.WindowState, found: WindowState.WindowState): boolean =>
  carried === found || (
    carried.fingerprint === found.fingerprint &&
    carried.historyLength === found.historyLength &&
    carried.historyDigest === found.historyDigest &&
    sameRuns(carried.window, found.window) &&
    sameRuns(carried.shortened, found.shortened) &&
    sameNumbers(carried.masked, found.masked) &&
    sameRuns(carried.references, found.references) &&
    (carried.summary === found.summary || (
      carried.summary !== undefined && found.summary !== undefined &&
      carried.summary.id === found.summary.id && carried.summary.text === found.summary.text &&
      carried.summary.tokens === found.summary.tokens && sameRuns(carried.summary.covers, found.summary.covers)
    ))
  )

/**
 * Whether this call's items start with the carry's, object for object, and its summary's item is
 * the carry's (item 108): the same messages, counted the same way, edited the same way. A
 * comparison of references per message, nothing made.
 */
export const sameItems = (
  carry: Carry,
  items: ReadonlyArray<ContextItem>,
  summaryItem: ContextItem | undefined
): boolean => {
  const carried = carry.items
  if (carry.summaryItem !== summaryItem || carried.length > items.length) return false
  for (let i = 0; i < carried.length; i++) if (carried[i] !== items[i]) return false
  return true
}

/**
 * `WindowState.runsOf` of a window that is `runs`' window with `added` entries after it, from
 * `runs` and `runsOf(added)`: a run of the added entries that continues the last run joins it,
 * as `runsOf` over the whole window would.
 */
export const extendRuns = (
  runs: ReadonlyArray<readonly [number, number]>,
  added: ReadonlyArray<readonly [number, number]>
): Array<readonly [number, number]> => {
  const out = runs.slice()
  for (const run of added) {
    const last = out.at(-1)
    if (last !== undefined && last[0] + last[1] === run[0]) out[out.length - 1] = [last[0], last[1] + run[1]]
    else out.push(run)
  }
  return out
}
