/**
 * PolicySummary: a policy in a few words, for the text commands — `composite(recency 3, kind 1)`,
 * `knapsack (bucket size 100)`, `chronological`, `throw`.
 *
 * @since 0.2.0
 */
import { Schema } from "effect"
import type * as OverflowStrategy from "../OverflowStrategy.ts"
import * as Policy from "../Policy.ts"

/**
 * A scorer tree on one line: leaves by their type, a composite with its children's weights.
 *
 * @since 0.2.0
 * @category formatting
 */
export const scorer = (config: Policy.ScorerConfig): string => {
  switch (config.type) {
    case "composite":
      return `composite(${config.scorers.map((c) => `${scorer(c)} ${c.weight}`).join(", ")})`
    case "scaled":
      return `scaled(${scorer(config.inner)})`
    default:
      return config.type
  }
}

/**
 * A slicer: its type, a knapsack's bucket size, a decorator's inner slicer.
 *
 * @since 0.2.0
 * @category formatting
 */
export const slicer = (config: Policy.SlicerConfig): string => {
  switch (config.type) {
    case "knapsack":
    case "count_constrained_knapsack":
      return config.bucketSize === undefined ? config.type : `${config.type} (bucket size ${config.bucketSize})`
    case "quota":
    case "count_quota":
      return `${config.type}(${slicer(config.inner)})`
    case "greedy":
    case "first_fit":
      return config.type
  }
}

/**
 * A placer: its type; a sectioned placer with its sections' placers.
 *
 * @since 0.2.0
 * @category formatting
 */
export const placer = (config: Policy.PlacerConfig): string =>
  config.type === "sectioned"
    ? `sectioned(${config.sections.map((s) => placer(s.placer)).join(", ")})`
    : config.type

const encodeStrategy = Schema.encodeSync(Policy.OverflowStrategyName)

/**
 * An overflow strategy as the flags write it: `throw`, `truncate`, `proceed` (its JSON form,
 * by `Policy.OverflowStrategyName`).
 *
 * @since 0.2.0
 * @category formatting
 */
export const overflow = (strategy: OverflowStrategy.OverflowStrategy): string => encodeStrategy(strategy)

/**
 * The whole policy on one line: `scorer … · slicer … · placer … · overflow … · deduplication on`.
 *
 * @since 0.2.0
 * @category formatting
 */
export const line = (policy: Policy.Policy): string =>
  `scorer ${scorer(policy.scorer)} · slicer ${slicer(policy.slicer)} · placer ${placer(policy.placer)} · ` +
  `overflow ${overflow(policy.overflowStrategy)} · deduplication ${policy.deduplication ? "on" : "off"}`
