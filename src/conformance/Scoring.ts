/**
 * Scoring: Cupel's `scoring` vectors — one scorer, in isolation.
 *
 * The scorer named by `[test] scorer` is decoded from `[config]` (see `Components`) and built by
 * `Policy.scorer`, the
 * `[[items]]` are scored all at once, and each `[[expected]]` entry's `score_approx` must be
 * within `[tolerance] score_epsilon` (default 1e-9) of the score of the item with that content:
 * `|actual − expected| < epsilon`. A vector with `expect_construction_error = true` passes when
 * building the scorer fails with `InvalidConfigError`, and fails when the scorer is built.
 *
 * @since 0.2.0
 */
import { Effect, Result, Schema } from "effect"
import type * as ContextItem from "../ContextItem.ts"
import * as Policy from "../Policy.ts"
import { decodeScorer, ScorerName } from "./Components.ts"
import { compareScore, describeError, judge, type Mismatch, type Outcome } from "./Report.ts"
import {
  decodeAt,
  defaultEmpty,
  ScoreApprox,
  Tolerance,
  VectorItem,
  VectorProblems
} from "./Vector.ts"

/**
 * One expected score.
 *
 * @since 0.2.0
 * @category models
 */
export interface ExpectedScore {
  readonly content: string
  readonly scoreApprox: number
}

/**
 * A Cupel `scoring` vector.
 *
 * @since 0.2.0
 * @category models
 */
export interface ScoringVector {
  readonly _tag: "ScoringVector"
  readonly file: string
  readonly name: string
  readonly scorerName: ScorerName
  readonly scorer: Policy.ScorerConfig
  readonly expectConstructionError: boolean
  readonly items: ReadonlyArray<ContextItem.ContextItem>
  readonly expected: ReadonlyArray<ExpectedScore>
  readonly epsilon: number
}

const ScoringVectorToml = Schema.Struct({
  test: Schema.Struct({
    name: Schema.String,
    stage: Schema.Literal("scoring"),
    scorer: ScorerName,
    expect_construction_error: Schema.Boolean.pipe(Schema.withDecodingDefaultKey(Effect.succeed(false)))
  }),
  config: Schema.Record(Schema.String, Schema.Unknown).pipe(Schema.withDecodingDefaultKey(Effect.succeed({}))),
  items: defaultEmpty(VectorItem),
  expected: defaultEmpty(Schema.Struct({ content: Schema.String, score_approx: ScoreApprox })),
  tolerance: Tolerance
})

/**
 * For each expected entry, the index of its item: entries naming the same content take that
 * content's items in order. An entry without an item is a problem of the vector.
 */
const matchItems = (
  items: ReadonlyArray<ContextItem.ContextItem>,
  expected: ReadonlyArray<{ readonly content: string }>
): Result.Result<Array<number>, Array<string>> => {
  const queues = new Map<string, Array<number>>()
  for (let i = items.length - 1; i >= 0; i--) {
    const queue = queues.get(items[i]!.content)
    if (queue === undefined) queues.set(items[i]!.content, [i])
    else queue.push(i)
  }
  const indices: Array<number> = []
  const problems: Array<string> = []
  expected.forEach((entry, k) => {
    const queue = queues.get(entry.content)
    const index = queue?.pop()
    if (index !== undefined) indices.push(index)
    else if (queue === undefined) {
      problems.push(`expected[${k}].content: no item has the content ${JSON.stringify(entry.content)}`)
    } else {
      problems.push(
        `expected[${k}].content: more [[expected]] entries than items with the content ${JSON.stringify(entry.content)}`
      )
    }
  })
  return problems.length === 0 ? Result.succeed(indices) : Result.fail(problems)
}

/**
 * Decodes a `scoring` vector from its parsed TOML.
 *
 * @since 0.2.0
 * @category decoding
 */
export const decode = (file: string, table: unknown): Effect.Effect<ScoringVector, VectorProblems> =>
  Effect.gen(function*() {
    const v = yield* decodeAt(ScoringVectorToml, table)
    const scorer = yield* decodeScorer(v.test.scorer, v.config, ["config"], "scorers")
    const matched = matchItems(v.items, v.expected)
    if (Result.isFailure(matched)) return yield* new VectorProblems({ problems: matched.failure })
    if (v.expected.length === 0 && !v.test.expect_construction_error) {
      return yield* new VectorProblems({
        problems: ["expected: a scoring vector needs [[expected]] entries, or expect_construction_error = true"]
      })
    }
    return {
      _tag: "ScoringVector",
      file,
      name: v.test.name,
      scorerName: v.test.scorer,
      scorer,
      expectConstructionError: v.test.expect_construction_error,
      items: v.items,
      expected: v.expected.map((e) => ({ content: e.content, scoreApprox: e.score_approx })),
      epsilon: v.tolerance.score_epsilon
    }
  })

/**
 * Runs a `scoring` vector.
 *
 * @since 0.2.0
 * @category running
 */
export const run = Effect.fn("Conformance.runScoring")(function*(vector: ScoringVector): Effect.fn.Return<Outcome> {
  // The path "" keeps the scorer modules' own option paths in the messages.
  const built = yield* Effect.result(Policy.scorer(vector.scorer, ""))
  if (Result.isFailure(built)) {
    const error = built.failure
    return judge(
      vector,
      "scoring",
      vector.expectConstructionError
        ? []
        : [{ field: "config", expected: `a ${vector.scorerName} scorer`, actual: describeError(error) }]
    )
  }
  if (vector.expectConstructionError) {
    return judge(vector, "scoring", [{
      field: "expect_construction_error",
      expected: "InvalidConfigError",
      actual: `a ${vector.scorerName} scorer was built`
    }])
  }
  const scored = yield* Effect.result(built.success.scoreAll(vector.items))
  if (Result.isFailure(scored)) {
    return judge(vector, "scoring", [{ field: "scores", expected: "a score per item", actual: describeError(scored.failure) }])
  }
  const scores = scored.success
  // Decoding checked that every entry names an item.
  const indices = Result.getOrElse(matchItems(vector.items, vector.expected), () => [])
  const mismatches: Array<Mismatch> = vector.expected.flatMap((entry, k) =>
    compareScore(
      `score of ${JSON.stringify(entry.content)}`,
      entry.scoreApprox,
      scores[indices[k]!] ?? Number.NaN,
      vector.epsilon
    )
  )
  return judge(vector, "scoring", mismatches)
})
