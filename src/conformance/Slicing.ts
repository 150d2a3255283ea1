/**
 * Slicing: Cupel's `slicing` vectors — one slicer, with pre-scored input.
 *
 * The `[[scored_items]]` are put in score order first, exactly as the pipeline's Sort stage does
 * (score descending, stable): a slicer is given sorted input, and not every vector lists its
 * items that way (`greedy-zero-tokens` does not). The slicer named by `[test] slicer` is decoded
 * from `[config]` and built by `Policy.slicer`, and slices against `[budget]` (`target_tokens`; `max_tokens` defaults to it).
 * The selected contents are compared with `[expected] selected_contents` as a set.
 *
 * The count-quota vectors may also expect `shortfall_count` (the kinds whose `require_count`
 * could not be met: the selection's shortfalls) and `cap_excluded_count` (the items a
 * `cap_count` dropped: the selection's `CountCapExceeded` reasons); both are checked when given.
 *
 * @since 0.2.0
 */
import { Effect, Result, Schema, SchemaTransformation } from "effect"
import * as ContextBudget from "../ContextBudget.ts"
import type { CountRequirementShortfall } from "../CountRequirementShortfall.ts"
import { showSet } from "../internal/conformanceMessages.ts"
import * as Policy from "../Policy.ts"
import type * as ScoredItem from "../ScoredItem.ts"
import type * as Slicer from "../slicers/Slicer.ts"
import * as Sort from "../stages/Sort.ts"
import { decodeSlicer, SlicerName } from "./Components.ts"
import { compareSet, describeError, judge, type Outcome } from "./Report.ts"
import { decodeAt, defaultEmpty, ScoredVectorItem, type VectorProblems } from "./Vector.ts"

/**
 * A Cupel `slicing` vector. `sorted` is already in score order.
 *
 * @since 0.2.0
 * @category models
 */
export interface SlicingVector {
  readonly _tag: "SlicingVector"
  readonly file: string
  readonly name: string
  readonly slicer: Policy.SlicerConfig
  readonly budget: Slicer.Budget
  readonly sorted: ReadonlyArray<ScoredItem.ScoredItem>
  readonly selectedContents: ReadonlyArray<string>
  readonly shortfallCount: number | undefined
  readonly capExcludedCount: number | undefined
}

/** `[budget]` of a slicing vector: the slicer's budget, validated as a `ContextBudget` is. */
const SlicingBudget = Schema.Struct({
  target_tokens: Schema.Number,
  max_tokens: Schema.optionalKey(Schema.Number)
}).pipe(
  Schema.decodeTo(
    ContextBudget.ContextBudget,
    SchemaTransformation.transform({
      decode: (b): typeof ContextBudget.ContextBudget.Encoded => ({
        maxTokens: b.max_tokens ?? b.target_tokens,
        targetTokens: b.target_tokens
      }),
      encode: (b) => ({ target_tokens: b.targetTokens, max_tokens: b.maxTokens })
    })
  )
)

const SlicingVectorToml = Schema.Struct({
  test: Schema.Struct({ name: Schema.String, stage: Schema.Literal("slicing"), slicer: SlicerName }),
  config: Schema.Record(Schema.String, Schema.Unknown).pipe(Schema.withDecodingDefaultKey(Effect.succeed({}))),
  budget: SlicingBudget,
  scored_items: defaultEmpty(ScoredVectorItem),
  expected: Schema.Struct({
    selected_contents: Schema.Array(Schema.String),
    shortfall_count: Schema.optionalKey(Schema.Number),
    cap_excluded_count: Schema.optionalKey(Schema.Number)
  })
})

/**
 * Decodes a `slicing` vector from its parsed TOML.
 *
 * @since 0.2.0
 * @category decoding
 */
export const decode = (file: string, table: unknown): Effect.Effect<SlicingVector, VectorProblems> =>
  Effect.gen(function*() {
    const v = yield* decodeAt(SlicingVectorToml, table)
    const slicer = yield* decodeSlicer(v.test.slicer, v.config, ["config"])
    return {
      _tag: "SlicingVector",
      file,
      name: v.test.name,
      slicer,
      budget: v.budget,
      sorted: Sort.sort(v.scored_items),
      selectedContents: v.expected.selected_contents,
      shortfallCount: v.expected.shortfall_count,
      capExcludedCount: v.expected.cap_excluded_count
    }
  })

const showShortfall = (s: CountRequirementShortfall): string => `${s.kind}: ${s.satisfiedCount} of ${s.requiredCount}`

/**
 * Runs a `slicing` vector.
 *
 * @since 0.2.0
 * @category running
 */
export const run = Effect.fn("Conformance.runSlicing")(function*(vector: SlicingVector): Effect.fn.Return<Outcome> {
  const field = "selected_contents"
  // The path "" keeps the slicer modules' own option paths in the messages.
  const built = yield* Effect.result(Policy.slicer(vector.slicer, ""))
  if (Result.isFailure(built)) {
    const error = built.failure
    return judge(vector, "slicing", [{ field: "config", expected: `a ${vector.slicer.type} slicer`, actual: describeError(error) }])
  }
  const sliced = yield* Effect.result(built.success.slice(vector.sorted, vector.budget))
  if (Result.isFailure(sliced)) {
    return judge(vector, "slicing", [{
      field,
      expected: `${showSet(vector.selectedContents)} (any order)`,
      actual: describeError(sliced.failure)
    }])
  }
  const selection = sliced.success
  const selected = Array.from(selection.selected, (index) => vector.sorted[index]?.item.content ?? `<index ${index}>`)
  const mismatches = compareSet(field, vector.selectedContents, selected)
  if (vector.shortfallCount !== undefined) {
    const shortfalls = selection.shortfalls ?? []
    if (shortfalls.length !== vector.shortfallCount) {
      mismatches.push({
        field: "shortfall_count",
        expected: String(vector.shortfallCount),
        actual: `${shortfalls.length}${shortfalls.length === 0 ? "" : ` (${shortfalls.map(showShortfall).join(", ")})`}`
      })
    }
  }
  if (vector.capExcludedCount !== undefined) {
    const capped: Array<string> = []
    for (const [index, reason] of selection.reasons ?? []) {
      if (reason._tag === "CountCapExceeded") capped.push(vector.sorted[index]?.item.content ?? `<index ${index}>`)
    }
    if (capped.length !== vector.capExcludedCount) {
      mismatches.push({
        field: "cap_excluded_count",
        expected: String(vector.capExcludedCount),
        actual: `${capped.length}${capped.length === 0 ? "" : ` (${showSet(capped)})`}`
      })
    }
  }
  return judge(vector, "slicing", mismatches)
})
