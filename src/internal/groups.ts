/**
 * Atomic groups: items that share a `group` id are one unit for the pipeline.
 *
 * The pipeline's stages know nothing of groups. When any candidate has one, {@link runGrouped}
 * collapses each group of two or more items into one *unit* item, runs the ordinary pipeline on
 * the units and the ungrouped items, and expands the window and the report back to the members.
 * Whatever the scorer, slicer and placer do, a unit is selected, excluded or placed as one
 * item, so its members are all in the window or all out of it, and in the window they sit
 * together, in input order, where the placer put their unit.
 *
 * The unit's fields (what scorers and slicers see):
 *
 * Before any unit is made, every member's token count gets Classify's check (a count that is
 * not a safe integer is an `InvalidItemError` naming the member's index among the candidates;
 * a total past the safe integers a `TokenTotalError`), as it would without groups.
 *
 * - `tokens` — the members' sum, checked exact (`TokenTotalError` names the group otherwise).
 *   If any member has negative tokens, the unit carries the first such count instead, so that
 *   Classify excludes the whole group as `NegativeTokens`.
 * - `pinned` — if any member is pinned: the whole group is then pinned.
 * - `content` — the members' contents joined with a newline (what Deduplicate compares).
 * - `kind`, `source`, `metadata` — the first member's (so a section placer files the unit by
 *   its first member's kind).
 * - `timestamp` — the earliest of the members', so that a chronological placer puts the group
 *   where it starts (members that were not adjacent in time are drawn up to the first, rather
 *   than the first pushed down past everything in between); a recency scorer then rates the
 *   group by its oldest member. `priority` and `futureRelevanceHint` — the highest; `tags` —
 *   the union, in first-seen order. Absent when no member has one.
 *
 * A group with a single member is not collapsed: that item goes through as it is. The unit
 * stands at its first member's position in the candidate list (which decides ties).
 *
 * Expanded, every member carries its unit's score and reason in the report; reasons that
 * carry figures carry the unit's (`BudgetExceeded.itemTokens` is the group's total), and a
 * `Deduplicated` / `PinnedOverride` reason naming a unit names its first member's content
 * (which candidate a reason names is worked out by identity, never by content alone).
 * `report.events` count units; `totalCandidates` and `totalTokensConsidered` count members.
 * The `OverflowNotifier` is told the members too. Errors raised inside the stages (a scorer's,
 * say) describe the unit they were working on.
 *
 * @internal
 */
import { Effect } from "effect"
import type { ContextBudget } from "../ContextBudget.ts"
import { ContextItem } from "../ContextItem.ts"
import type { ExcludedItem } from "../ExcludedItem.ts"
import type { ExclusionReason } from "../ExclusionReason.ts"
import type { IncludedItem } from "../IncludedItem.ts"
import * as OverflowNotifier from "../OverflowNotifier.ts"
import type { PipelineResult } from "../PipelineResult.ts"
import type { SelectionReport } from "../SelectionReport.ts"
import { InvalidItemError } from "../InvalidItemError.ts"
import { TokenTotalError } from "../TokenTotalError.ts"
import { trusted } from "./fastDecode.ts"
import { lazyReport, withReport } from "./lazyReport.ts"
import { isSafeTotal } from "./tokens.ts"
import * as Young from "./youngEntries.ts"

/**
 * A pipeline run on items that carry no groups. Its options, errors and services are the
 * pipeline's own, passed through untouched: this module sits below `Pipeline.ts` and does not
 * name them.
 */
export type Runner<Options, E, R> = (
  items: ReadonlyArray<ContextItem>,
  budget: ContextBudget,
  options?: Options
) => Effect.Effect<PipelineResult, E, R>


/** The candidates as the stages see them, and the way back to the members. */
interface Collapsed {
  /** Ungrouped items and units, each at its (first) member's position. */
  readonly units: ReadonlyArray<ContextItem>
  /** Each unit's members, in input order. */
  readonly members: Members
}

/**
 * A call's units' members: `get` gives a unit's (`undefined` for an item that is no unit), `size`
 * counts the call's units. Read from the units' own record ({@link unitMembers}) rather than a
 * map of each call's (docs/design.md item 145: a map of some hundred units a call was 29 KB of
 * a `trim`'s 563).
 */
interface Members {
  readonly size: number
  readonly get: (unit: ContextItem) => ReadonlyArray<ContextItem> | undefined
}

/** A unit's members, in input order, recorded when the unit is made: a unit is a function of its members alone. */
const unitMembers = new WeakMap<ContextItem, ReadonlyArray<ContextItem>>()

const membersOfUnit = (unit: ContextItem): ReadonlyArray<ContextItem> | undefined => unitMembers.get(unit)

/**
 * Classify's check, on the members, before any unit exists: a token count that is not a safe
 * integer is an `InvalidItemError` naming the member's index among the candidates, and a
 * running total that leaves the safe integers a `TokenTotalError`, in the order Classify would
 * meet them on the same items without groups. The total is the report's
 * `totalTokensConsidered`.
 */
const checkMembers = (items: ReadonlyArray<ContextItem>): number | InvalidItemError | TokenTotalError => {
  let total = 0
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!
    const tokens = item.tokens
    if (!Number.isSafeInteger(tokens)) {
      return new InvalidItemError({ problem: "NonIntegerTokens", list: "candidates", index: i, content: item.content, tokens })
    }
    total += tokens
    if (!isSafeTotal(total)) return new TokenTotalError({ what: "candidates", count: i + 1 })
  }
  return total
}

/**
 * Collapses each group of two or more items into one unit. Builds new unit items and never
 * touches the members. Expects members whose token counts {@link checkMembers} accepted.
 *
 * The units of the leading candidates this call shares with the last call on the same first
 * candidate are that call's (docs/design.md item 128): only the candidates after them are read.
 * The result is the full collapse's, as a function of the items and `unitOf`'s memo.
 */
export const collapse = (items: ReadonlyArray<ContextItem>): Effect.Effect<Collapsed, TokenTotalError> =>
  Effect.suspend(() => {
    const first = items[0]
    const known = first === undefined ? undefined : lastCalls.get(first)
    const prefix = known === undefined ? 0 : reusablePrefix(known, items)
    const made = prefix > 0 && known !== undefined ? collapseAfter(known, items, prefix) : collapseAll(items)
    if (made instanceof TokenTotalError) {
      if (first !== undefined) lastCalls.delete(first)
      return Effect.fail(made)
    }
    if (first !== undefined) lastCalls.set(first, made)
    made.epoch = unitsMade
    const units = made.units.slice()
    let size = 0
    for (const list of made.lists) if (list !== undefined) size++
    return Effect.succeed({ units, members: { size, get: membersOfUnit } })
  })

/**
 * A collapse kept for the next call on the same conversation (docs/design.md item 128): its
 * items, units (each with its members, `undefined` for an item that is its own unit, and the
 * index of its first member) and each group's entry. Private to {@link lastCalls}: a later
 * call updates it in place, and the collapse hands out copies.
 */
interface LastCall {
  readonly items: Array<ContextItem>
  readonly units: Array<ContextItem>
  readonly lists: Array<ReadonlyArray<ContextItem> | undefined>
  readonly firsts: Array<number>
  readonly byGroup: Map<string, { readonly list: Array<ContextItem>; readonly first: number }>
  /** {@link unitsMade} when it was made: `unitOf`'s memo has not changed since while it reads so. */
  epoch: number
}

/**
 * The last collapse by its first candidate (weak, as the units' memo): an agent's next call
 * sends the same item objects for the history it shares with the call before, in the same order.
 */
const lastCalls = new WeakMap<ContextItem, LastCall>()

/** How many units `unitOf` has made in this process: a unit kept by {@link lastCalls} is the memo's while this is unchanged. */
let unitsMade = 0

/**
 * The number of leading candidates whose units {@link collapseAfter} can take from `known`: the
 * items it shares with this call, in the same places, when no group has members on both sides
 * of the end of that run (in either call) and `unitOf` gives each kept unit again. 0 when there
 * is none.
 */
const reusablePrefix = (known: LastCall, items: ReadonlyArray<ContextItem>): number => {
  const before = known.items
  const length = Math.min(before.length, items.length)
  let p = 0
  while (p < length && before[p] === items[p]) p++
  const byGroup = known.byGroup
  for (let i = p; i < before.length; i++) {
    const group = before[i]!.group
    if (group !== undefined && byGroup.get(group)!.first < p) return 0
  }
  for (let i = p; i < items.length; i++) {
    const group = items[i]!.group
    if (group === undefined) continue
    const entry = byGroup.get(group)
    if (entry !== undefined && entry.first < p) return 0
  }
  // A unit made since (another conversation's call, say) may be the memo's for a kept unit's
  // first member: each kept unit is then looked up, and kept only if `unitOf` gives it again.
  if (known.epoch !== unitsMade) {
    const { firsts, lists } = known
    for (let k = 0; k < firsts.length && firsts[k]! < p; k++) {
      const list = lists[k]
      if (list !== undefined && units.get(list[0]!)?.unit !== known.units[k]) return 0
    }
  }
  return p
}

/** Every candidate collapsed, as from nothing. */
const collapseAll = (items: ReadonlyArray<ContextItem>): LastCall | TokenTotalError => {
  const made: LastCall = { items: [], units: [], lists: [], firsts: [], byGroup: new Map(), epoch: 0 }
  return collapseFrom(made, items, 0)
}

/**
 * `known` (the last call) kept for its first `prefix` candidates and collapsed again after them:
 * no group has members on both sides (`reusablePrefix`), so the units of the groups before are
 * the same members' units, and the candidates after make their own.
 */
const collapseAfter = (known: LastCall, items: ReadonlyArray<ContextItem>, prefix: number): LastCall | TokenTotalError => {
  const before = known.items
  for (let i = prefix; i < before.length; i++) {
    const group = before[i]!.group
    if (group !== undefined) known.byGroup.delete(group)
  }
  let kept = known.units.length
  while (kept > 0 && known.firsts[kept - 1]! >= prefix) kept--
  before.length = prefix
  known.units.length = kept
  known.lists.length = kept
  known.firsts.length = kept
  return collapseFrom(known, items, prefix)
}

/**
 * Collapses `items` from `start` onto `made` (whose groups all end before `start`): one pass over
 * the items (item 132), each group's first member standing in its unit's place until the unit
 * is made; then the units, in the order of their first members, as the pass made them.
 */
const collapseFrom = (made: LastCall, items: ReadonlyArray<ContextItem>, start: number): LastCall | TokenTotalError => {
  const { byGroup, firsts, lists, units } = made
  const fresh: Array<{ readonly group: string; readonly list: Array<ContextItem>; readonly at: number }> = []
  for (let i = start; i < items.length; i++) {
    const item = items[i]!
    made.items.push(item)
    const group = item.group
    if (group !== undefined) {
      const entry = byGroup.get(group)
      if (entry !== undefined) {
        entry.list.push(item)
        continue
      }
      const list = [item]
      byGroup.set(group, { list, first: i })
      fresh.push({ group, list, at: units.length })
    }
    units.push(item)
    lists.push(undefined)
    firsts.push(i)
  }
  // A group of one member stands as its item.
  for (let f = 0; f < fresh.length; f++) {
    const { at, group, list } = fresh[f]!
    if (list.length < 2) continue
    const unit = unitOf(group, list)
    if (unit instanceof TokenTotalError) return unit
    units[at] = unit
    lists[at] = list
  }
  return made
}

/**
 * The units made before, by their first member: a unit is a function of its members alone (the
 * same item objects, in the same order), and an agent's next call groups the same items again.
 * Weak: a unit goes with its first member.
 */
const units = new WeakMap<ContextItem, { readonly list: ReadonlyArray<ContextItem>; readonly unit: ContextItem }>()

/** The unit of a group's members: the one made before for the same members, else a new one. */
export const unitOf = (group: string, list: ReadonlyArray<ContextItem>): ContextItem | TokenTotalError => {
  const first = list[0]!
  const known = units.get(first)
  if (known !== undefined && known.list.length === list.length) {
    let same = true
    for (let i = 1; i < list.length && same; i++) same = known.list[i] === list[i]
    if (same) return known.unit
  }
  const unit = makeUnit(group, list)
  if (!(unit instanceof TokenTotalError)) {
    const members = list.slice()
    units.set(first, { list: members, unit })
    unitMembers.set(unit, members)
    unitsMade++
  }
  return unit
}

/**
 * One unit for a group's members (two or more, in input order).
 *
 * Every field is derived from the members, whose values were checked when they were made (and
 * whose tokens {@link checkMembers} checked again), so the unit is built without the class's
 * checks (`fastDecode.trusted`: what the constructor makes with its checks off, without its
 * parser): a check here could only repeat theirs, and the class constructor throws where the
 * pipeline must fail with a typed error.
 */
const makeUnit = (group: string, list: ReadonlyArray<ContextItem>): ContextItem | TokenTotalError => {
  let tokens = 0
  let negative: number | undefined
  let pinned = false
  let priority: number | undefined
  let hint: number | undefined
  let earliest: ContextItem["timestamp"]
  const tags: Array<string> = []
  // Made at the first tag: most members have none.
  let seenTags: Set<string> | undefined
  for (let i = 0; i < list.length; i++) {
    const member = list[i]!
    if (member.tokens < 0 && negative === undefined) negative = member.tokens
    tokens += member.tokens
    if (!isSafeTotal(tokens)) return new TokenTotalError({ what: `members of group "${group}"`, count: i + 1 })
    if (member.pinned) pinned = true
    if (member.priority !== undefined && (priority === undefined || member.priority > priority)) priority = member.priority
    const h = member.futureRelevanceHint
    if (h !== undefined && (hint === undefined || h > hint)) hint = h
    const t = member.timestamp
    if (t !== undefined && (earliest === undefined || t.epochMilliseconds < earliest.epochMilliseconds)) earliest = t
    const memberTags = member.tags
    for (let k = 0; k < memberTags.length; k++) {
      const tag = memberTags[k]!
      seenTags ??= new Set()
      if (!seenTags.has(tag)) {
        seenTags.add(tag)
        tags.push(tag)
      }
    }
  }
  const first = list[0]!
  // Joined with `+`, not `Array.join`: the same text, but V8 makes a rope of the members'
  // strings instead of copying every character, and a unit's content is rarely read (only
  // Deduplicate compares it). A thousand-message agent history joined about 1.7 MB a call.
  let content = first.content
  for (let i = 1; i < list.length; i++) content = content + "\n" + list[i]!.content
  const fields = {
    content,
    tokens: negative ?? tokens,
    kind: first.kind,
    source: first.source,
    tags,
    metadata: first.metadata,
    pinned,
    ...(priority === undefined ? {} : { priority }),
    ...(hint === undefined ? {} : { futureRelevanceHint: hint }),
    ...(earliest === undefined ? {} : { timestamp: earliest })
  }
  return trusted(ContextItem, fields) ?? new ContextItem(fields, { disableChecks: true })
}

/**
 * Rewrites the reasons that name another candidate by its content (`Deduplicated`,
 * `PinnedOverride`) so that a unit they name is named by its first member. Which candidate a
 * reason names is worked out from the candidates themselves, never from the content alone —
 * contents are not unique: an ungrouped item may read exactly like a group's joined members,
 * and two groups may join to the same text.
 *
 * - `Deduplicated` names the one item of its content that Deduplicate kept: among the
 *   scoreable candidates (not pinned, tokens not negative) of the excluded item's content, the
 *   one not itself removed as `Deduplicated`.
 * - `PinnedOverride` names the first pinned candidate (Classify's order), as Slice and Place do.
 *
 * A reason that names no candidate this way (a custom slicer's own, say) is left as it is.
 */
const renamer = (
  units: ReadonlyArray<ContextItem>,
  members: Members,
  excluded: ReadonlyArray<ExcludedItem>
): (entry: ExcludedItem) => ExclusionReason => {
  const firstMember = (unit: ContextItem | undefined): string | undefined =>
    unit === undefined ? undefined : members.get(unit)?.[0]?.content
  let firstPinned: ContextItem | undefined
  for (const unit of units) {
    if (unit.pinned && unit.tokens >= 0) {
      firstPinned = unit
      break
    }
  }
  const pinnedName = firstMember(firstPinned)
  let survivors: Map<string, ContextItem | null> | undefined
  const survivorOf = (content: string): ContextItem | undefined => {
    if (survivors === undefined) {
      const removed = new Set<ContextItem>()
      for (const entry of excluded) if (entry.reason._tag === "Deduplicated") removed.add(entry.item)
      survivors = new Map()
      for (const unit of units) {
        if (unit.pinned || unit.tokens < 0 || removed.has(unit)) continue
        // `null`: two candidates of this content were kept, so no one of them is named.
        survivors.set(unit.content, survivors.has(unit.content) ? null : unit)
      }
    }
    return survivors.get(content) ?? undefined
  }
  return (entry) => {
    const reason = entry.reason
    switch (reason._tag) {
      case "Deduplicated": {
        if (reason.deduplicatedAgainst !== entry.item.content) return reason
        const name = firstMember(survivorOf(reason.deduplicatedAgainst))
        return name === undefined ? reason : { ...reason, deduplicatedAgainst: name }
      }
      case "PinnedOverride":
        return pinnedName === undefined || firstPinned === undefined || reason.displacedBy !== firstPinned.content
          ? reason
          : { ...reason, displacedBy: pinnedName }
      default:
        return reason
    }
  }
}

/**
 * Runs `runner` on the collapsed candidates and expands its result back to the members.
 */
export const runGrouped = <Options, E, R>(
  items: ReadonlyArray<ContextItem>,
  budget: ContextBudget,
  options: Options | undefined,
  runner: Runner<Options, E, R>
): Effect.Effect<
  PipelineResult,
  E | InvalidItemError | TokenTotalError,
  R | OverflowNotifier.OverflowNotifier
> => runGroupedBody(items, budget, options, runner)

// A generator function of the module, not a generator closure made at every call (docs/design.md item 144).
const runGroupedBody = Effect.fnUntraced(function*<Options, E, R>(
  items: ReadonlyArray<ContextItem>,
  budget: ContextBudget,
  options: Options | undefined,
  runner: Runner<Options, E, R>
) {
  const considered = checkMembers(items)
  if (typeof considered !== "number") return yield* Effect.fail(considered)
  const { members, units } = yield* collapse(items)
  const expand = (item: ContextItem): ReadonlyArray<ContextItem> => members.get(item) ?? [item]
  const notifier = yield* OverflowNotifier.OverflowNotifier
  const result = yield* runner(units, budget, options).pipe(
    Effect.provideService(
      OverflowNotifier.OverflowNotifier,
      OverflowNotifier.OverflowNotifier.of({
        notify: (event) => notifier.notify({ ...event, overflowingItems: event.overflowingItems.flatMap(expand) })
      })
    )
  )
  return expandResult(result, units, members, items.length, considered)
})

/**
 * The members' report entries made at an earlier call, by unit (docs/design.md item 126): an
 * entry is immutable data, so a unit's member entries are given again when the unit's entry has
 * the same score and reason (`Object.is`: a score of -0 is not 0; the reason the same object, as
 * the pipeline's shared reasons are from call to call) and the entries name the same members in
 * order. A new entry a member a call cost 0.2 ms of a 1,000-message call: V8 learns that these
 * entries outlive a scavenge and allocates them in the old space, where each store of a young
 * reason is a remembered-set entry. One lookup a unit, none a member.
 */
interface MemberEntries<E> {
  readonly score: number
  readonly reason: unknown
  readonly entries: ReadonlyArray<E>
}
const includedEntries = new WeakMap<ContextItem, MemberEntries<IncludedItem>>()
const excludedEntries = new WeakMap<ContextItem, MemberEntries<ExcludedItem>>()

/**
 * Pushes a unit's member entries onto `out`: those of an earlier call when the score and reason
 * are the same. The entries are not read member by member (docs/design.md item 136): a unit is
 * made for one members list and given again only for the same members in the same order
 * (`unitOf`), so entries made for the unit name its members; reading each kept entry was most of
 * the expansion's time (an object a member, scattered in the old space).
 */
const pushMembers = <E extends { readonly item: ContextItem; readonly score: number; readonly reason: unknown }>(
  out: Array<E>,
  memo: WeakMap<ContextItem, MemberEntries<E>>,
  unit: ContextItem,
  list: ReadonlyArray<ContextItem>,
  score: number,
  reason: E["reason"],
  make: (item: ContextItem, score: number, reason: E["reason"]) => E
): void => {
  const known = memo.get(unit)
  if (known !== undefined && Object.is(known.score, score) && known.reason === reason && known.entries.length === list.length) {
    const entries = known.entries
    for (let m = 0; m < entries.length; m++) out.push(entries[m]!)
    return
  }
  const entries = new Array<E>(list.length)
  for (let m = 0; m < list.length; m++) {
    const entry = make(list[m]!, score, reason)
    entries[m] = entry
    out.push(entry)
  }
  memo.set(unit, { score, reason, entries })
}

/**
 * The result of a run on units, expanded back to the members: each unit's entry becomes one per
 * member (with the unit's score and reason, renamed by {@link renamer}), and the window lists
 * the members in the unit's place. Outside the generator, with indexed loops, and without an
 * array of one for the entries that are no unit (most of them): this ran for every candidate of
 * every call.
 */
const expandResult = (
  result: PipelineResult,
  units: ReadonlyArray<ContextItem>,
  members: Members,
  totalCandidates: number,
  totalTokensConsidered: number
): PipelineResult => {
  // No unit: the entries are the members' own, and only the totals change (most calls of an
  // agent without tool groups; copying a thousand entries a call was a tenth of a trim's time).
  if (members.size === 0) {
    // Not a spread of the report: that would read its excluded list, which the pipeline makes
    // when first read (item 138).
    return { ...result, report: withReport(result.report, { totalCandidates, totalTokensConsidered }) } satisfies PipelineResult
  }
  const reportIncluded = result.report.included
  const resultWindow = result.window
  const included: Array<IncludedItem> = []
  let window: Array<ContextItem> = []
  // The pipeline's included entries name its window's items in order (Place makes the one from
  // the other): one lookup an entry then makes both lists (docs/design.md item 136). A runner
  // whose lists differ has its window expanded on its own, as before.
  let paired = reportIncluded.length === resultWindow.length
  for (let k = 0; k < reportIncluded.length; k++) {
    const entry = reportIncluded[k]!
    const item = entry.item
    if (paired && resultWindow[k] !== item) paired = false
    const list = members.get(item)
    if (list === undefined) {
      // An entry of no unit is the member's own: kept as it is (entries are immutable).
      included.push(entry)
      if (paired) window.push(item)
    } else {
      pushMembers(included, includedEntries, item, list, entry.score, entry.reason, Young.includedItem)
      if (paired) for (let m = 0; m < list.length; m++) window.push(list[m]!)
    }
  }
  if (!paired) {
    window = []
    for (let k = 0; k < resultWindow.length; k++) {
      const item = resultWindow[k]!
      const list = members.get(item)
      if (list === undefined) window.push(item)
      else for (let m = 0; m < list.length; m++) window.push(list[m]!)
    }
  }
  const expandExcluded = (): Array<ExcludedItem> => {
    // The pipeline's list, read only now (item 138); made with the list: only the excluded
    // entries' reasons are renamed.
    const reportExcluded = result.report.excluded
    const rename = renamer(units, members, reportExcluded)
    const excluded: Array<ExcludedItem> = []
    for (let k = 0; k < reportExcluded.length; k++) {
      const entry = reportExcluded[k]!
      const reason = rename(entry)
      const list = members.get(entry.item)
      if (list === undefined) excluded.push(reason === entry.reason ? entry : { item: entry.item, score: entry.score, reason })
      else pushMembers(excluded, excludedEntries, entry.item, list, entry.score, reason, Young.excludedItem)
    }
    return excluded
  }
  // The excluded entries are made when first read (docs/design.md item 131): an agent's call
  // reads its window and the report's counts, which the invariants give (`totalCandidates` less
  // the included entries, `totalTokensConsidered` less the window's tokens), and a thousand
  // members' entries were the larger part of the expansion.
  const report: SelectionReport = lazyReport({
    events: result.report.events,
    included,
    excluded: expandExcluded,
    totalCandidates,
    totalTokensConsidered,
    countRequirementShortfalls: result.report.countRequirementShortfalls
  })
  return {
    window,
    report,
    totalTokens: result.totalTokens,
    tokensOverBudget: result.tokensOverBudget
  } satisfies PipelineResult
}
