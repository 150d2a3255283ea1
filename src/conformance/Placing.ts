/**
 * Placing: Cupel's `placing` vectors — the placer alone.
 *
 * `[[items]]` (content, tokens, score, optional timestamp and other item fields) are handed to
 * the placer named by `[test] placer`, run as the library's `Placer` service built from its
 * layer, exactly as `Place.place` runs it; the output must equal `[expected] ordered_contents`
 * (ordered comparison).
 *
 * @since 0.2.0
 */
import { Effect, Result, Schema } from "effect"
import { showList } from "../internal/conformanceMessages.ts"
import * as Placer from "../placers/Placer.ts"
import type * as ScoredItem from "../ScoredItem.ts"
import { PlacerName, placerLayer } from "./Components.ts"
import { compareList, describeError, judge, type Outcome } from "./Report.ts"
import { decodeAt, defaultEmpty, ScoredVectorItem, type VectorProblems } from "./Vector.ts"

/**
 * A Cupel `placing` vector.
 *
 * @since 0.1.0
 * @category models
 */
export interface PlacingVector {
  readonly _tag: "PlacingVector"
  readonly file: string
  readonly name: string
  readonly placer: PlacerName
  readonly items: ReadonlyArray<ScoredItem.ScoredItem>
  readonly orderedContents: ReadonlyArray<string>
}

const PlacingVectorToml = Schema.Struct({
  test: Schema.Struct({ name: Schema.String, stage: Schema.Literal("placing"), placer: PlacerName }),
  items: defaultEmpty(ScoredVectorItem),
  expected: Schema.Struct({ ordered_contents: Schema.Array(Schema.String) })
})

/**
 * Decodes a `placing` vector from its parsed TOML.
 *
 * @since 0.2.0
 * @category decoding
 */
export const decode = (file: string, table: unknown): Effect.Effect<PlacingVector, VectorProblems> =>
  Effect.map(decodeAt(PlacingVectorToml, table), (v) => ({
    _tag: "PlacingVector",
    file,
    name: v.test.name,
    placer: v.test.placer,
    items: v.items,
    orderedContents: v.expected.ordered_contents
  }))

/**
 * Runs a `placing` vector.
 *
 * @since 0.2.0
 * @category running
 */
export const run = Effect.fn("Conformance.runPlacing")(function*(vector: PlacingVector): Effect.fn.Return<Outcome> {
  const placed = yield* Effect.result(Placer.place(vector.items).pipe(Effect.provide(placerLayer(vector.placer))))
  if (Result.isFailure(placed)) {
    return judge(vector, "placing", [{
      field: "ordered_contents",
      expected: showList(vector.orderedContents),
      actual: describeError(placed.failure)
    }])
  }
  return judge(
    vector,
    "placing",
    compareList("ordered_contents", vector.orderedContents, placed.success.map((i) => i.content))
  )
})
