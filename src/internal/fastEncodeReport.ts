/**
 * The fast encoding path (fastEncode.ts) for the results that list every candidate: the
 * selection report, the pipeline's result and `Place.place`'s result.
 *
 * Items go through the item fast path; each reason object is encoded once by its own schema
 * and its encoded form reused (the pipeline shares one `BudgetExceeded` reason among all the
 * items excluded with the same figures); events and shortfalls, a handful each, go through
 * their schemas. Anything the fast path does not take makes the whole answer `undefined`, and
 * the caller encodes with the schema, whose output — or error — is then the answer.
 *
 * This module sits below `SelectionReport.ts`, `PipelineResult.ts` and `PlaceResult.ts`, which
 * encode through it, so it names the fields it reads and writes rather than importing their
 * types; where each result module hands its encoder here, the compiler checks that its values
 * are read as these and that what is written here is the schema's encoded form.
 *
 * @internal
 */
import { Effect, Option, Schema, type SchemaAST } from "effect"
import type { ContextItem } from "../ContextItem.ts"
import { CountRequirementShortfall } from "../CountRequirementShortfall.ts"
import type { ExcludedItem } from "../ExcludedItem.ts"
import { ExclusionReason } from "../ExclusionReason.ts"
import type { IncludedItem } from "../IncludedItem.ts"
import { InclusionReason } from "../InclusionReason.ts"
import { OverflowStrategy } from "../OverflowStrategy.ts"
import { TraceEvent } from "../TraceEvent.ts"
import * as FastEncode from "./fastEncode.ts"

type ExcludedEncoded = typeof ExcludedItem.Encoded
type IncludedEncoded = typeof IncludedItem.Encoded

/** A `SelectionReport`, as read here. */
interface Report {
  readonly events: ReadonlyArray<TraceEvent>
  readonly included: ReadonlyArray<IncludedItem>
  readonly excluded: ReadonlyArray<ExcludedItem>
  readonly totalCandidates: number
  readonly totalTokensConsidered: number
  readonly countRequirementShortfalls: ReadonlyArray<CountRequirementShortfall>
}

/** A `SelectionReport` in the specification's wire format. */
interface ReportEncoded {
  readonly events: ReadonlyArray<typeof TraceEvent.Encoded>
  readonly included: ReadonlyArray<IncludedEncoded>
  readonly excluded: ReadonlyArray<ExcludedEncoded>
  readonly total_candidates: number
  readonly total_tokens_considered: number
  readonly count_requirement_shortfalls: ReadonlyArray<typeof CountRequirementShortfall.Encoded>
}

/** A `PipelineResult`, as read here. */
interface PipelineResult {
  readonly window: ReadonlyArray<ContextItem>
  readonly report: Report
  readonly totalTokens: number
  readonly tokensOverBudget: number
}

/** A `PipelineResult`, encoded. */
interface PipelineResultEncoded {
  readonly window: ReadonlyArray<FastEncode.ItemEncoded>
  readonly report: ReportEncoded
  readonly totalTokens: number
  readonly tokensOverBudget: number
}

/** A `PlaceResult`, as read here. */
interface PlaceResult {
  readonly placed: ReadonlyArray<ContextItem>
  readonly excluded: ReadonlyArray<ExcludedItem>
  readonly totalTokens: number
  readonly mergedTokens: number
  readonly targetTokens: number
  readonly overflowStrategy: OverflowStrategy
  readonly overflowed: boolean
  readonly tokensOverBudget: number
}

/** A `PlaceResult`, encoded. */
interface PlaceResultEncoded {
  readonly placed: ReadonlyArray<FastEncode.ItemEncoded>
  readonly excluded: ReadonlyArray<ExcludedEncoded>
  readonly totalTokens: number
  readonly mergedTokens: number
  readonly targetTokens: number
  readonly overflowStrategy: typeof OverflowStrategy.Encoded
  readonly overflowed: boolean
  readonly tokensOverBudget: number
}

const encodeExclusion = Schema.encodeOption(ExclusionReason)
const encodeInclusion = Schema.encodeOption(InclusionReason)
const encodeEvents = Schema.encodeOption(Schema.Array(TraceEvent))
const encodeShortfalls = Schema.encodeOption(Schema.Array(CountRequirementShortfall))
const encodeStrategy = Schema.encodeOption(OverflowStrategy)

/** A score `Schema.Number` writes as it is: a finite number (anything else goes to the schema). */
const isPlainScore = (score: unknown): score is number => typeof score === "number" && Number.isFinite(score)

/** Encodes reasons through `encode`, each reason object once. */
const reasonCache = <R extends object, E>(encode: (reason: R) => Option.Option<E>) => {
  const known = new Map<R, E>()
  return (reason: R): E | undefined => {
    let encoded = known.get(reason)
    if (encoded === undefined) {
      const option = encode(reason)
      if (Option.isNone(option)) return undefined
      encoded = option.value
      known.set(reason, encoded)
    }
    return encoded
  }
}

/**
 * Encoded `{ item, score, reason }` entries, or `undefined`: the reasons through `encodeReason`,
 * each reason object once.
 */
const entries = <R extends object, E>(encodeReason: (reason: R) => Option.Option<E>) =>
(
  list: ReadonlyArray<{ readonly item: ContextItem; readonly score: number; readonly reason: R }>
): Array<{ item: FastEncode.ItemEncoded; score: number; reason: E }> | undefined => {
  const reasonOf = reasonCache(encodeReason)
  const out = new Array<{ item: FastEncode.ItemEncoded; score: number; reason: E }>(list.length)
  for (let k = 0; k < list.length; k++) {
    const entry = list[k]!
    const item = FastEncode.item(entry.item)
    const reason = reasonOf(entry.reason)
    if (item === undefined || reason === undefined || !isPlainScore(entry.score)) return undefined
    out[k] = { item, score: entry.score, reason }
  }
  return out
}

/** Encoded excluded items, or `undefined`. */
export const excluded: (list: ReadonlyArray<ExcludedItem>) => Array<ExcludedEncoded> | undefined = entries(
  encodeExclusion
)

/** Encoded included items, or `undefined`. */
export const included: (list: ReadonlyArray<IncludedItem>) => Array<IncludedEncoded> | undefined = entries(
  encodeInclusion
)

/**
 * An encoder that tries `fast` first and otherwise (and so for every error) the schema's
 * `encodeWithSchema`: what the result encoders export.
 */
export const withFastPath = <T, E>(
  encodeWithSchema: (value: T, options?: SchemaAST.ParseOptions) => Effect.Effect<E, Schema.SchemaError>,
  fast: (value: T) => E | undefined
) =>
(value: T, options?: SchemaAST.ParseOptions): Effect.Effect<E, Schema.SchemaError> => {
  const encoded = fast(value)
  return encoded === undefined ? encodeWithSchema(value, options) : Effect.succeed(encoded)
}

/** A selection report in the specification's wire format, or `undefined`. */
export const report = (value: Report): ReportEncoded | undefined => {
  const events = encodeEvents(value.events)
  const shortfalls = encodeShortfalls(value.countRequirementShortfalls)
  const includedEncoded = included(value.included)
  const excludedEncoded = excluded(value.excluded)
  if (
    Option.isNone(events) || Option.isNone(shortfalls) || includedEncoded === undefined ||
    excludedEncoded === undefined || !Number.isSafeInteger(value.totalCandidates) ||
    !Number.isSafeInteger(value.totalTokensConsidered)
  ) return undefined
  return {
    events: events.value,
    included: includedEncoded,
    excluded: excludedEncoded,
    total_candidates: value.totalCandidates,
    total_tokens_considered: value.totalTokensConsidered,
    count_requirement_shortfalls: shortfalls.value
  }
}

/** A pipeline result, or `undefined`. */
export const pipelineResult = (value: PipelineResult): PipelineResultEncoded | undefined => {
  const window = FastEncode.items(value.window)
  const reportEncoded = report(value.report)
  if (
    window === undefined || reportEncoded === undefined || !Number.isSafeInteger(value.totalTokens) ||
    !Number.isSafeInteger(value.tokensOverBudget)
  ) return undefined
  return { window, report: reportEncoded, totalTokens: value.totalTokens, tokensOverBudget: value.tokensOverBudget }
}

/** A placement's result, or `undefined`. */
export const placeResult = (value: PlaceResult): PlaceResultEncoded | undefined => {
  const placed = FastEncode.items(value.placed)
  const excludedEncoded = excluded(value.excluded)
  const strategy = encodeStrategy(value.overflowStrategy)
  const { mergedTokens, overflowed, targetTokens, tokensOverBudget, totalTokens } = value
  if (
    placed === undefined || excludedEncoded === undefined || Option.isNone(strategy) ||
    !Number.isSafeInteger(totalTokens) || !Number.isSafeInteger(mergedTokens) || !Number.isSafeInteger(targetTokens) ||
    !Number.isSafeInteger(tokensOverBudget) || typeof overflowed !== "boolean"
  ) return undefined
  return {
    placed,
    excluded: excludedEncoded,
    totalTokens,
    mergedTokens,
    targetTokens,
    overflowStrategy: strategy.value,
    overflowed,
    tokensOverBudget
  }
}
