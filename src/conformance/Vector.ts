/**
 * Vector: what every conformance vector shares — the TOML text, the `[test]` header, the errors
 * a file can cause, and the shapes of items, budgets and tolerances that several stages use.
 *
 * Vectors are decoded with `Schema`: every problem names its field (`items[2].tokens: Expected
 * an integer, got 1.5`), and unknown fields are ignored, as the Cupel format asks, so that
 * vectors can carry notes and fields of later versions. TOML 1.1 is parsed with smol-toml;
 * offset date-times become instants through the library's own `Timestamp` schema, and a local
 * date-time (no offset) names no instant, so it makes the vector invalid.
 *
 * @since 0.2.0
 */
import { Data, DateTime, Effect, Schema, SchemaGetter, SchemaIssue, SchemaTransformation } from "effect"
import { parse as parseToml, TomlDate, TomlError } from "smol-toml"
import * as ContextBudget from "../ContextBudget.ts"
import * as ContextItem from "../ContextItem.ts"
import { schemaProblems, schemaProblemsAt } from "../internal/conformanceMessages.ts"
import * as ScoredItem from "../ScoredItem.ts"
import * as Timestamp from "../Timestamp.ts"

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/**
 * A path given to the runner could not be read (it does not exist, is not readable, or is a
 * folder without any `.toml` file).
 *
 * @since 0.1.0
 * @category errors
 */
export class VectorReadError extends Schema.TaggedError<VectorReadError>()("VectorReadError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `${this.path}: cannot read: ${this.reason}`
  }
}

/**
 * A file is not valid TOML.
 *
 * @since 0.1.0
 * @category errors
 */
export class VectorSyntaxError extends Schema.TaggedError<VectorSyntaxError>()("VectorSyntaxError", {
  file: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `${this.file}: not valid TOML: ${this.reason}`
  }
}

/**
 * A file is TOML but not a vector this runner understands: a table or field is missing or has
 * the wrong type, the stage or a component name is unknown, a date-time has no offset, a budget
 * breaks its rules… Each problem names its field.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidVectorError extends Schema.TaggedError<InvalidVectorError>()("InvalidVectorError", {
  file: Schema.String,
  name: Schema.optionalKey(Schema.String),
  problems: Schema.Array(Schema.String)
}) {
  override get message(): string {
    const which = this.name === undefined ? this.file : `${this.file} "${this.name}"`
    return `${which}: invalid vector: ${this.problems.join("; ")}`
  }
}

/**
 * Any reason a file could not be run.
 *
 * @since 0.1.0
 * @category errors
 */
export type VectorError = VectorReadError | VectorSyntaxError | InvalidVectorError

/**
 * The problems found while decoding part of a vector, each naming its field. Stage decoders
 * fail with it; {@link invalid} turns it into an {@link InvalidVectorError} that names the file
 * and the vector.
 *
 * @since 0.2.0
 * @category errors
 */
export class VectorProblems extends Data.TaggedError("VectorProblems")<{
  readonly problems: ReadonlyArray<string>
}> {}

/**
 * The {@link InvalidVectorError} for a file's problems.
 *
 * @since 0.2.0
 * @category errors
 */
export const invalid = (file: string, name: string | undefined) => (error: VectorProblems): InvalidVectorError =>
  name === undefined
    ? new InvalidVectorError({ file, problems: error.problems })
    : new InvalidVectorError({ file, name, problems: error.problems })

// ---------------------------------------------------------------------------------------------
// TOML and decoding
// ---------------------------------------------------------------------------------------------

// smol-toml's message ends with a code excerpt over several lines; a report wants one line.
const syntaxReason = (cause: unknown): string => {
  if (cause instanceof TomlError) {
    const first = cause.message.split("\n")[0] ?? cause.message
    return `${first.replace(/^Invalid TOML document: /, "")} (line ${cause.line}, column ${cause.column})`
  }
  return cause instanceof Error ? cause.message : String(cause)
}

/**
 * Parses TOML text into its tables. Integers beyond 2^53 stay `bigint`s, so that the schemas
 * reject them by name instead of rounding them silently.
 *
 * @since 0.2.0
 * @category decoding
 */
export const parseTable = (file: string, text: string): Effect.Effect<Record<string, unknown>, VectorSyntaxError> =>
  Effect.try({
    try: () => parseToml(text, { integersAsBigInt: "asNeeded" }),
    catch: (cause) => new VectorSyntaxError({ file, reason: syntaxReason(cause) })
  })

const decodeOptions = { errors: "all", reportInput: true } as const

/**
 * Decodes `input`, found at `path` in the vector, with `schema`, reporting every problem with its
 * full path.
 *
 * @since 0.2.0
 * @category decoding
 */
export const decodeAt = <S extends Schema.Constraint & { readonly DecodingServices: never }>(
  schema: S,
  input: unknown,
  path: ReadonlyArray<PropertyKey> = []
): Effect.Effect<S["Type"], VectorProblems> =>
  Schema.decodeUnknownEffect(schema, decodeOptions)(input).pipe(
    Effect.mapError((error) =>
      new VectorProblems({ problems: path.length === 0 ? schemaProblems(error) : schemaProblemsAt(error, path) })
    )
  )

/**
 * Runs decoders of independent parts and reports the problems of all of them, not only the
 * first one's.
 *
 * @since 0.2.0
 * @category decoding
 */
export const decodeAll = <A>(
  parts: ReadonlyArray<Effect.Effect<A, VectorProblems>>
): Effect.Effect<Array<A>, VectorProblems> =>
  Effect.gen(function*() {
    const values: Array<A> = []
    const problems: Array<string> = []
    for (const part of parts) {
      const result = yield* Effect.result(part)
      if (result._tag === "Failure") problems.push(...result.failure.problems)
      else values.push(result.success)
    }
    if (problems.length > 0) return yield* new VectorProblems({ problems })
    return values
  })

// ---------------------------------------------------------------------------------------------
// Shared shapes
// ---------------------------------------------------------------------------------------------

/**
 * The `[test]` table every vector has.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Header = Schema.Struct({
  test: Schema.Struct({ name: Schema.String, stage: Schema.String })
})

const invalidTimestamp = (date: TomlDate, message: string) =>
  Effect.fail(new SchemaIssue.InvalidValue({ message }, date))

/**
 * A TOML offset date-time, as the RFC 3339 text the library's `Timestamp` schema decodes.
 * smol-toml keeps the offset as written, so `2024-06-01T02:00:00+02:00` reaches `Timestamp`
 * unchanged and is compared by instant there.
 */
const TomlOffsetDateTime = Schema.instanceOf(TomlDate, { identifier: "TomlDate" }).pipe(
  Schema.decodeTo(Schema.String, {
    decode: SchemaGetter.transformEffect((date: TomlDate) => {
      if (!date.isValid()) return invalidTimestamp(date, "not a valid date-time")
      if (!date.isDateTime()) {
        return invalidTimestamp(date, `${date.toISOString()} is a local date or time, not a date-time with an offset`)
      }
      if (date.isLocal()) {
        return invalidTimestamp(
          date,
          `the local date-time ${date.toISOString()} has no offset, so it names no single instant (write e.g. ${date.toISOString()}Z)`
        )
      }
      return Effect.succeed(date.toISOString())
    }),
    encode: SchemaGetter.transform((text: string) => new TomlDate(text))
  })
)

/**
 * A timestamp in a vector: a TOML offset date-time, or a quoted RFC 3339 string with an offset
 * (`Timestamp` applies the same rules to both), as RFC 3339 text.
 *
 * @since 0.2.0
 * @category schemas
 */
export const VectorTimestamp = Schema.Union([TomlOffsetDateTime, Schema.String])

/**
 * A timestamp in a vector, decoded to an instant.
 *
 * @since 0.2.0
 * @category schemas
 */
export const VectorInstant: Schema.Decoder<DateTime.Utc> = VectorTimestamp.pipe(Schema.decodeTo(Timestamp.Timestamp))

/**
 * The item fields vectors use, with the vectors' spelling (`futureRelevanceHint` is camelCase in
 * the Cupel vectors). Only `content` and `tokens` are required; `ContextItem` applies its own
 * rules and defaults afterwards (non-empty content, integer tokens, integer priority…).
 */
const itemFields = {
  content: Schema.String,
  tokens: Schema.Number,
  kind: Schema.optionalKey(Schema.String),
  source: Schema.optionalKey(Schema.String),
  priority: Schema.optionalKey(Schema.Number),
  tags: Schema.optionalKey(Schema.Array(Schema.String)),
  metadata: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
  timestamp: Schema.optionalKey(VectorTimestamp),
  futureRelevanceHint: Schema.optionalKey(Schema.Number),
  pinned: Schema.optionalKey(Schema.Boolean)
}

type ItemFields = Schema.Struct.Type<typeof itemFields>

type EncodedItem = typeof ContextItem.ContextItem.Encoded

// `pinned` overrides the vector's own field, for tables whose name says it ([[pinned]]).
const encodedItem = (f: ItemFields, pinned: boolean | undefined): EncodedItem => ({
  content: f.content,
  tokens: f.tokens,
  ...(f.kind === undefined ? {} : { kind: f.kind }),
  ...(f.source === undefined ? {} : { source: f.source }),
  ...(f.priority === undefined ? {} : { priority: f.priority }),
  ...(f.tags === undefined ? {} : { tags: f.tags }),
  ...(f.metadata === undefined ? {} : { metadata: f.metadata }),
  ...(f.timestamp === undefined ? {} : { timestamp: f.timestamp }),
  ...(f.futureRelevanceHint === undefined ? {} : { futureRelevanceHint: f.futureRelevanceHint }),
  pinned: pinned ?? f.pinned ?? false
})

const itemFieldsOf = (e: EncodedItem): ItemFields => ({
  content: e.content,
  tokens: e.tokens,
  ...(e.kind === undefined ? {} : { kind: e.kind }),
  ...(e.source === undefined ? {} : { source: e.source }),
  ...(typeof e.priority === "number" ? { priority: e.priority } : {}),
  ...(e.tags === undefined ? {} : { tags: e.tags }),
  ...(e.metadata === undefined ? {} : { metadata: e.metadata }),
  ...(typeof e.timestamp === "string" ? { timestamp: e.timestamp } : {}),
  ...(typeof e.futureRelevanceHint === "number" ? { futureRelevanceHint: e.futureRelevanceHint } : {}),
  ...(e.pinned === undefined ? {} : { pinned: e.pinned })
})

const itemSchema = (pinned: boolean | undefined) =>
  Schema.Struct(itemFields).pipe(
    Schema.decodeTo(
      ContextItem.ContextItem,
      SchemaTransformation.transform({
        decode: (fields): EncodedItem => encodedItem(fields, pinned),
        encode: itemFieldsOf
      })
    )
  )

/**
 * An item as `[[items]]` of scoring and pipeline vectors write it: every field of the data model,
 * `pinned` as given (default false).
 *
 * @since 0.2.0
 * @category schemas
 */
export const VectorItem = itemSchema(undefined)

/**
 * An item of a `[[pinned]]` table (place vectors): always pinned.
 *
 * @since 0.2.0
 * @category schemas
 */
export const PinnedVectorItem = itemSchema(true)

/**
 * A scored item as `[[items]]` (placing) and `[[scored_items]]` (slicing, place) write it: an
 * item's fields and its `score`. Never pinned: pinning is decided before scoring.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ScoredVectorItem = Schema.Struct({ ...itemFields, score: Schema.Number }).pipe(
  Schema.decodeTo(
    ScoredItem.ScoredItem,
    SchemaTransformation.transform({
      decode: ({ score, ...fields }): typeof ScoredItem.ScoredItem.Encoded => ({
        item: encodedItem(fields, false),
        score
      }),
      encode: (scored) => ({ ...itemFieldsOf(scored.item), score: scored.score })
    })
  )
)

/**
 * A list that may be absent (`[[items]]` with no entry at all): `[]` then.
 *
 * @since 0.2.0
 * @category schemas
 */
export const defaultEmpty = <S extends Schema.Top>(item: S) =>
  Schema.Array(item).pipe(Schema.withDecodingDefaultKey(Effect.succeed([])))

/**
 * `[budget]` in the vector's snake_case, decoded to a validated `ContextBudget`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const VectorBudget = Schema.Struct({
  max_tokens: Schema.Number,
  target_tokens: Schema.Number,
  output_reserve: Schema.optionalKey(Schema.Number)
}).pipe(
  Schema.decodeTo(
    ContextBudget.ContextBudget,
    SchemaTransformation.transform({
      decode: (b): typeof ContextBudget.ContextBudget.Encoded =>
        b.output_reserve === undefined
          ? { maxTokens: b.max_tokens, targetTokens: b.target_tokens }
          : { maxTokens: b.max_tokens, targetTokens: b.target_tokens, outputReserve: b.output_reserve },
      encode: (b) =>
        b.outputReserve === undefined
          ? { max_tokens: b.maxTokens, target_tokens: b.targetTokens }
          : { max_tokens: b.maxTokens, target_tokens: b.targetTokens, output_reserve: b.outputReserve }
    })
  )
)

/**
 * The default of `[tolerance] score_epsilon`.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultScoreEpsilon = 1e-9

const Epsilon = Schema.Number.check(
  Schema.makeFilter((e) => (Number.isFinite(e) && e > 0) || `score_epsilon must be a finite number > 0, got ${e}`)
)

/**
 * `[tolerance]`: optional, as is its `score_epsilon` (default {@link defaultScoreEpsilon}).
 *
 * @since 0.2.0
 * @category schemas
 */
export const Tolerance = Schema.Struct({
  score_epsilon: Epsilon.pipe(Schema.withDecodingDefaultKey(Effect.succeed(defaultScoreEpsilon)))
}).pipe(Schema.withDecodingDefaultKey(Effect.succeed({ score_epsilon: defaultScoreEpsilon })))

/**
 * A score as an expectation gives it: `score_approx`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ScoreApprox = Schema.Number.check(
  Schema.makeFilter((n) => !Number.isNaN(n) || "score_approx must be a number, not NaN")
)
