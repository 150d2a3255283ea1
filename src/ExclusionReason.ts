/**
 * ExclusionReason: why an item was left out of the window.
 *
 * Every variant carries the data that explains it, so callers inspect fields rather than parse
 * messages. All eight variants of the specification are defined, and the Rust implementation's
 * `CountCapExceeded`. The pipeline emits `NegativeTokens` (Classify), `Deduplicated`,
 * `BudgetExceeded` and `PinnedOverride` (Slice, and Place's Truncate) and `CountCapExceeded`
 * (count quotas); the others are reserved.
 *
 * In memory a reason is a tagged object (`_tag`, camelCase fields), so `Match.tag` and
 * `switch (reason._tag)` work. Encoded, it is the specification's wire envelope:
 * `{ "reason": "BudgetExceeded", "item_tokens": 2048, "available_tokens": 512 }`.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

const variant = <Tag extends string, Fields extends Schema.Struct.Fields, const Keys extends { readonly [K in keyof Fields]?: string }>(
  tag: Tag,
  fields: Fields,
  wireKeys: Keys
) => Schema.TaggedStruct(tag, fields).pipe(Schema.encodeKeys({ _tag: "reason", ...wireKeys }))

/**
 * The item did not fit: `itemTokens` needed, `availableTokens` left.
 *
 * @since 0.1.0
 * @category schemas
 */
export const BudgetExceeded = variant("BudgetExceeded", {
  itemTokens: Schema.Int,
  availableTokens: Schema.Int
}, { itemTokens: "item_tokens", availableTokens: "available_tokens" })

/**
 * Reserved: the item scored below a threshold.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ScoredTooLow = variant("ScoredTooLow", { score: Schema.Number, threshold: Schema.Number }, {})

/**
 * The item's content duplicated that of a kept item.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Deduplicated = variant("Deduplicated", { deduplicatedAgainst: Schema.String }, {
  deduplicatedAgainst: "deduplicated_against"
})

/**
 * Reserved: the item's kind exceeded its quota cap.
 *
 * @since 0.1.0
 * @category schemas
 */
export const QuotaCapExceeded = variant("QuotaCapExceeded", {
  kind: Schema.String,
  cap: Schema.Int,
  actual: Schema.Int
}, {})

/**
 * A count quota's cap: `count` items of `kind` were already selected, the most its `cap`
 * allows. Not one of the specification's eight variants: the Rust implementation emits it for
 * its count-quota slicers, with these fields, and so does this one.
 *
 * @since 0.2.0
 * @category schemas
 */
export const CountCapExceeded = variant("CountCapExceeded", {
  kind: Schema.String,
  cap: Schema.Int,
  count: Schema.Int
}, {})

/**
 * Reserved: displaced to satisfy another kind's quota requirement.
 *
 * @since 0.1.0
 * @category schemas
 */
export const QuotaRequireDisplaced = variant("QuotaRequireDisplaced", { displacedByKind: Schema.String }, {
  displacedByKind: "displaced_by_kind"
})

/**
 * The item had a negative token count.
 *
 * @since 0.1.0
 * @category schemas
 */
export const NegativeTokens = variant("NegativeTokens", { tokens: Schema.Int }, {})

/**
 * Truncation dropped the item while pinned items were present; `displacedBy` is the content of
 * the first pinned item in the merged list.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PinnedOverride = variant("PinnedOverride", { displacedBy: Schema.String }, {
  displacedBy: "displaced_by"
})

/**
 * Reserved: excluded by a user-defined filter.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Filtered = variant("Filtered", { filterName: Schema.String }, { filterName: "filter_name" })

/**
 * Folded into a summary (not in the specification): a stable window's compaction replaced the
 * item, with others, by the summary `summaryId`, which is in the window in their place.
 *
 * @since 0.3.0
 * @category schemas
 */
export const Summarized = variant("Summarized", { summaryId: Schema.String }, { summaryId: "summary_id" })

/**
 * Any exclusion reason.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ExclusionReason = Schema.Union([
  BudgetExceeded,
  ScoredTooLow,
  Deduplicated,
  QuotaCapExceeded,
  CountCapExceeded,
  QuotaRequireDisplaced,
  NegativeTokens,
  PinnedOverride,
  Filtered,
  Summarized
]).annotate({ identifier: "ExclusionReason" })

/**
 * @since 0.1.0
 * @category models
 */
export type ExclusionReason = typeof ExclusionReason.Type

/**
 * @since 0.1.0
 * @category models
 */
export type BudgetExceeded = typeof BudgetExceeded.Type

/**
 * @since 0.1.0
 * @category models
 */
export type PinnedOverride = typeof PinnedOverride.Type

/**
 * @since 0.2.0
 * @category models
 */
export type CountCapExceeded = typeof CountCapExceeded.Type

/**
 * @since 0.2.0
 * @category constructors
 */
export const countCapExceeded = (kind: string, cap: number, count: number): CountCapExceeded => ({
  _tag: "CountCapExceeded",
  kind,
  cap,
  count
})

/**
 * @since 0.1.0
 * @category constructors
 */
export const budgetExceeded = (itemTokens: number, availableTokens: number): BudgetExceeded => ({
  _tag: "BudgetExceeded",
  itemTokens,
  availableTokens
})

/**
 * @since 0.1.0
 * @category constructors
 */
export const pinnedOverride = (displacedBy: string): PinnedOverride => ({ _tag: "PinnedOverride", displacedBy })
