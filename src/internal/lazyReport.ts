/**
 * Selection reports whose excluded list is made when first read (docs/design.md items 131 and
 * 138): an agent's call reads its window and the report's counts, which the report's invariants
 * give (`totalCandidates` less the included entries, `totalTokensConsidered` less the window's
 * tokens), and the excluded entries — hundreds a call at a thousand messages, each with its
 * reason — were a tenth of a call's time.
 *
 * The report is a plain object with an enumerable accessor where the data property stood, in
 * the same place among the keys: spread, `JSON.stringify`, the schema's encoders and deep
 * equality read it as data. The list is made once, at the first read, and the same array is
 * given at every read after it.
 *
 * @internal
 */
import type { ExcludedItem } from "../ExcludedItem.ts"
import type { IncludedItem } from "../IncludedItem.ts"
import type { SelectionReport } from "../SelectionReport.ts"

/** A report's fields, its excluded list as the function that makes it. */
export interface LazyFields {
  readonly events: SelectionReport["events"]
  readonly included: ReadonlyArray<IncludedItem>
  readonly excluded: () => ReadonlyArray<ExcludedItem>
  readonly totalCandidates: number
  readonly totalTokensConsidered: number
  readonly countRequirementShortfalls: SelectionReport["countRequirementShortfalls"]
}

/** What a lazy report's accessor reads: the function that makes its list, then the list. */
class Pending {
  readonly make: () => ReadonlyArray<ExcludedItem>
  list: ReadonlyArray<ExcludedItem> | undefined = undefined
  constructor(make: () => ReadonlyArray<ExcludedItem>) {
    this.make = make
  }
}

/**
 * Where a lazy report holds its {@link Pending}: a property of its own, not enumerable (spread,
 * JSON, `Object.keys` and deep equality do not see it), so that a copy of the report's property
 * descriptors reads the same list.
 */
const pendingKey: unique symbol = Symbol("effect-cupel/lazyReport/pending")

/**
 * The one accessor every lazy report has: an object literal with a getter of its own (a new
 * closure each) is kept by V8 as a dictionary, every field read a hash look-up, where one
 * accessor shared by every report keeps them all in one fast shape (docs/design.md item 138).
 */
const excludedProperty: PropertyDescriptor = {
  get(this: object): ReadonlyArray<ExcludedItem> {
    const state: unknown = Reflect.get(this, pendingKey)
    // Only a lazy report (or a copy of its descriptors) has the accessor: a defect otherwise.
    if (!(state instanceof Pending)) throw new Error("the excluded list of a report that is not a lazy report")
    return (state.list ??= state.make())
  },
  enumerable: true,
  // As an object literal's accessor is: a copy of the report may redefine it.
  configurable: true
}

/** A report of `fields`, its excluded list made by `fields.excluded` at the first read. */
export const lazyReport = (fields: LazyFields): SelectionReport => {
  // The keys in the report's order; the accessor defined before the keys after it, which a
  // data property redefined as an accessor would not keep in one fast shape either.
  const head = Object.defineProperty({ events: fields.events, included: fields.included }, "excluded", excludedProperty)
  const report = Object.assign(head, {
    totalCandidates: fields.totalCandidates,
    totalTokensConsidered: fields.totalTokensConsidered,
    countRequirementShortfalls: fields.countRequirementShortfalls
  })
  Object.defineProperty(report, pendingKey, { value: new Pending(fields.excluded) })
  if (!isReport(report)) throw new Error("a lazy report lacks one of its fields")
  return report
}

/** Whether a value has every field of a report (the accessor's too, which its type does not show). */
const isReport = (u: object): u is SelectionReport =>
  "events" in u && "included" in u && "excluded" in u && "totalCandidates" in u && "totalTokensConsidered" in u &&
  "countRequirementShortfalls" in u

/**
 * `report` with some fields changed, its excluded list not read: the changed list's function
 * (given the report's list, read only when the new one is), or the report's own list when it
 * is not changed. What `{ ...report, … }` was, without reading a list that may never be.
 */
export const withReport = (
  report: SelectionReport,
  changes: {
    readonly events?: SelectionReport["events"] | undefined
    readonly included?: ReadonlyArray<IncludedItem> | undefined
    readonly excluded?: ((before: ReadonlyArray<ExcludedItem>) => ReadonlyArray<ExcludedItem>) | undefined
    readonly totalCandidates?: number | undefined
    readonly totalTokensConsidered?: number | undefined
  }
): SelectionReport => {
  const edit = changes.excluded
  return lazyReport({
    events: changes.events ?? report.events,
    included: changes.included ?? report.included,
    excluded: edit === undefined ? () => report.excluded : () => edit(report.excluded),
    totalCandidates: changes.totalCandidates ?? report.totalCandidates,
    totalTokensConsidered: changes.totalTokensConsidered ?? report.totalTokensConsidered,
    countRequirementShortfalls: report.countRequirementShortfalls
  })
}
