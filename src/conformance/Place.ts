/**
 * Place: this project's `place` vectors (docs/conformance.md), which test Stage 6 as a whole —
 * the merge of pinned and scored items, overflow detection, each overflow strategy, and the
 * placer's order.
 *
 * @since 0.2.0
 */
import { Effect, Layer, Result, Schema } from "effect"
import type * as ContextBudget from "../ContextBudget.ts"
import type * as ContextItem from "../ContextItem.ts"
import { showList } from "../internal/conformanceMessages.ts"
import * as OverflowNotifier from "../OverflowNotifier.ts"
import type * as OverflowStrategy from "../OverflowStrategy.ts"
import * as PlaceStage from "../stages/Place.ts"
import type * as ScoredItem from "../ScoredItem.ts"
import { OverflowStrategyName, overflowStrategy, PlacerName, placerLayer } from "./Components.ts"
import { compareList, describeError, judge, type Outcome } from "./Report.ts"
import {
  decodeAt,
  defaultEmpty,
  PinnedVectorItem,
  ScoredVectorItem,
  VectorBudget,
  type VectorProblems
} from "./Vector.ts"

/**
 * What a `place` vector expects: a window, or an overflow error.
 *
 * - `Placed` — `excludedContents` defaults to `[]`; `overflowTokens` is `undefined` when the
 *   vector has no `overflow_tokens`, which means the notifier must not be called.
 * - `Overflow` — `mergedTokens` is checked when given.
 *
 * @since 0.1.0
 * @category models
 */
export type PlaceExpectation =
  | {
    readonly _tag: "Placed"
    readonly orderedContents: ReadonlyArray<string>
    readonly excludedContents: ReadonlyArray<string>
    readonly overflowTokens: number | undefined
  }
  | { readonly _tag: "Overflow"; readonly mergedTokens: number | undefined }

/**
 * A `place` vector: Stage 6 as a whole.
 *
 * @since 0.1.0
 * @category models
 */
export interface PlaceVector {
  readonly _tag: "PlaceVector"
  readonly file: string
  readonly name: string
  readonly placer: PlacerName
  readonly overflowStrategy: OverflowStrategy.OverflowStrategy
  readonly budget: ContextBudget.ContextBudget
  readonly pinned: ReadonlyArray<ContextItem.ContextItem>
  readonly scored: ReadonlyArray<ScoredItem.ScoredItem>
  readonly expected: PlaceExpectation
}

// One struct rather than a union, so that a wrong `error` value is reported as such.
const PlaceExpectedToml = Schema.Struct({
  ordered_contents: Schema.optionalKey(Schema.Array(Schema.String)),
  excluded_contents: Schema.optionalKey(Schema.Array(Schema.String)),
  overflow_tokens: Schema.optionalKey(Schema.Int),
  error: Schema.optionalKey(Schema.Literal("overflow")),
  merged_tokens: Schema.optionalKey(Schema.Int)
}).check(
  Schema.makeFilter((e) =>
    (e.error === undefined) !== (e.ordered_contents === undefined) || {
      path: e.error === undefined ? ["ordered_contents"] : ["error"],
      issue: e.error === undefined
        ? `either ordered_contents or error = "overflow" is required`
        : `error = "overflow" and ordered_contents exclude each other`
    }
  )
)

const PlaceVectorToml = Schema.Struct({
  test: Schema.Struct({
    name: Schema.String,
    stage: Schema.Literal("place"),
    placer: PlacerName,
    overflow_strategy: OverflowStrategyName.pipe(Schema.withDecodingDefaultKey(Effect.succeed("throw")))
  }),
  budget: VectorBudget,
  pinned: defaultEmpty(PinnedVectorItem),
  scored_items: defaultEmpty(ScoredVectorItem),
  expected: PlaceExpectedToml
})

/**
 * Decodes a `place` vector from its parsed TOML.
 *
 * @since 0.2.0
 * @category decoding
 */
export const decode = (file: string, table: unknown): Effect.Effect<PlaceVector, VectorProblems> =>
  Effect.map(decodeAt(PlaceVectorToml, table), (v) => {
    const e = v.expected
    const expected: PlaceExpectation = e.error === "overflow"
      ? { _tag: "Overflow", mergedTokens: e.merged_tokens }
      : {
        _tag: "Placed",
        orderedContents: e.ordered_contents ?? [],
        excludedContents: e.excluded_contents ?? [],
        overflowTokens: e.overflow_tokens
      }
    return {
      _tag: "PlaceVector",
      file,
      name: v.test.name,
      placer: v.test.placer,
      overflowStrategy: overflowStrategy(v.test.overflow_strategy),
      budget: v.budget,
      pinned: v.pinned,
      scored: v.scored_items,
      expected
    }
  })

const showEvents = (tokens: ReadonlyArray<number>): string =>
  tokens.length === 0
    ? "no overflow event"
    : tokens.length === 1
    ? String(tokens[0])
    : `${tokens.length} overflow events (${tokens.join(", ")})`

/**
 * Runs a `place` vector: `Place.place` with the named placer and a recording notifier.
 *
 * @since 0.2.0
 * @category running
 */
export const run = Effect.fn("Conformance.runPlace")(function*(vector: PlaceVector): Effect.fn.Return<Outcome> {
  const attempt = yield* Effect.result(
    Effect.gen(function*() {
      const result = yield* PlaceStage.place({
        pinned: vector.pinned,
        scored: vector.scored,
        budget: vector.budget,
        overflowStrategy: vector.overflowStrategy
      })
      const events = yield* OverflowNotifier.OverflowNotifierTest.use((test) => test.events)
      return { result, events }
    }).pipe(Effect.provide(Layer.mergeAll(placerLayer(vector.placer), OverflowNotifier.layerTest)))
  )
  const expected = vector.expected
  if (expected._tag === "Overflow") {
    const wanted = expected.mergedTokens === undefined ? "overflow" : `overflow (merged_tokens ${expected.mergedTokens})`
    if (Result.isSuccess(attempt)) {
      return judge(vector, "place", [{
        field: "error",
        expected: wanted,
        actual: `no error; placed ${showList(attempt.success.result.placed.map((i) => i.content))}`
      }])
    }
    const error = attempt.failure
    if (error._tag !== "OverflowError") {
      return judge(vector, "place", [{ field: "error", expected: wanted, actual: describeError(error) }])
    }
    return judge(
      vector,
      "place",
      expected.mergedTokens === undefined || expected.mergedTokens === error.mergedTokens
        ? []
        : [{ field: "merged_tokens", expected: String(expected.mergedTokens), actual: String(error.mergedTokens) }]
    )
  }
  if (Result.isFailure(attempt)) {
    return judge(vector, "place", [{
      field: "ordered_contents",
      expected: showList(expected.orderedContents),
      actual: describeError(attempt.failure)
    }])
  }
  const { events, result } = attempt.success
  const overflowTokens = events.map((event) => event.tokensOverBudget)
  const expectedTokens = expected.overflowTokens === undefined ? [] : [expected.overflowTokens]
  return judge(vector, "place", [
    ...compareList("ordered_contents", expected.orderedContents, result.placed.map((i) => i.content)),
    ...compareList("excluded_contents", expected.excludedContents, result.excluded.map((e) => e.item.content)),
    ...(overflowTokens.length === expectedTokens.length && overflowTokens.every((t, i) => t === expectedTokens[i])
      ? []
      : [{ field: "overflow_tokens", expected: showEvents(expectedTokens), actual: showEvents(overflowTokens) }])
  ])
})
