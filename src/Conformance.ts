/**
 * Conformance: runs conformance vectors (TOML files) against effect-cupel.
 *
 * Two kinds of vector are run:
 *
 * - Cupel's own `placing` vectors (spec/src/conformance/format.md of the Cupel specification):
 *   scored items, a placer, the expected order;
 * - this project's `place` vectors (docs/conformance.md), which test Stage 6 as a whole: pinned
 *   and scored items, a budget, an overflow strategy, and the expected window, exclusions,
 *   overflow notification or overflow error.
 *
 * Vectors of the stages effect-cupel does not implement (`scoring`, `slicing`, `pipeline`) are
 * counted as skipped, never as passed. A file that cannot be read, parsed or understood is a
 * failure that names the file; the other files still run. Nothing here throws: every problem is
 * a value in the report.
 *
 * TOML 1.1 is parsed with smol-toml. Offset date-times are turned into instants through the
 * library's own `Timestamp` schema; a local date-time (no offset) names no instant and makes the
 * vector invalid.
 *
 * @example
 * ```ts
 * import { NodeServices } from "@effect/platform-node"
 * import { Effect } from "effect"
 * import * as Conformance from "effect-cupel/Conformance"
 *
 * const report = await Effect.runPromise(
 *   Conformance.run(["test/vectors"]).pipe(Effect.provide(NodeServices.layer))
 * )
 * console.log(Conformance.formatSummary(report)) // "20 passed, 0 failed, 0 skipped"
 * ```
 *
 * @since 0.1.0
 */
import { Effect, FileSystem, Layer, Path, Result, Schema, SchemaGetter, SchemaIssue, SchemaTransformation } from "effect"
import { parse as parseToml, TomlDate, TomlError } from "smol-toml"
import * as ChronologicalPlacer from "./placers/ChronologicalPlacer.ts"
import * as ContextBudget from "./ContextBudget.ts"
import * as ContextItem from "./ContextItem.ts"
import { describePlatformError, schemaProblems, showList } from "./internal/conformanceMessages.ts"
import * as OverflowNotifier from "./OverflowNotifier.ts"
import type * as OverflowStrategy from "./OverflowStrategy.ts"
import * as Place from "./Place.ts"
import * as Placer from "./Placer.ts"
import * as ScoredItem from "./ScoredItem.ts"
import * as UShapedPlacer from "./placers/UShapedPlacer.ts"

// ---------------------------------------------------------------------------------------------
// Names shared by vectors and the command line
// ---------------------------------------------------------------------------------------------

/**
 * A placer as vectors (and the `cupel` command) name it.
 *
 * @since 0.1.0
 * @category names
 */
export const PlacerName = Schema.Literals(["u-shaped", "chronological"])

/**
 * @since 0.1.0
 * @category names
 */
export type PlacerName = typeof PlacerName.Type

/**
 * The placer layer a name stands for.
 *
 * @since 0.1.0
 * @category names
 */
export const placerLayer = (name: PlacerName): Layer.Layer<Placer.Placer> =>
  name === "u-shaped" ? UShapedPlacer.layer : ChronologicalPlacer.layer

/**
 * An overflow strategy as vectors (and the `cupel` command) name it: lower case.
 *
 * @since 0.1.0
 * @category names
 */
export const OverflowStrategyName = Schema.Literals(["throw", "truncate", "proceed"])

/**
 * @since 0.1.0
 * @category names
 */
export type OverflowStrategyName = typeof OverflowStrategyName.Type

/**
 * The library's strategy for a lower-case name.
 *
 * @since 0.1.0
 * @category names
 */
export const overflowStrategy = (name: OverflowStrategyName): OverflowStrategy.OverflowStrategy => {
  switch (name) {
    case "throw":
      return "Throw"
    case "truncate":
      return "Truncate"
    case "proceed":
      return "Proceed"
  }
}

/**
 * The stages whose vectors this runner executes.
 *
 * @since 0.1.0
 * @category names
 */
export const implementedStages: ReadonlyArray<string> = ["placing", "place"]

/**
 * The specification's other stages: their vectors are counted as skipped.
 *
 * @since 0.1.0
 * @category names
 */
export const unimplementedStages: ReadonlyArray<string> = ["scoring", "slicing", "pipeline"]

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
 * the wrong type, the stage is unknown, a date-time has no offset, a budget breaks its rules…
 * Each problem names its field.
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

// ---------------------------------------------------------------------------------------------
// Vector shapes
// ---------------------------------------------------------------------------------------------

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

// A quoted RFC 3339 string is accepted too; `Timestamp` applies the same rules to it.
const VectorTimestamp = Schema.Union([TomlOffsetDateTime, Schema.String])

const itemFields = {
  content: Schema.String,
  tokens: Schema.Number,
  timestamp: Schema.optionalKey(VectorTimestamp)
}

type ItemFields = {
  readonly content: string
  readonly tokens: number
  readonly timestamp?: string
}

const encodedItem = (fields: ItemFields, pinned: boolean): typeof ContextItem.ContextItem.Encoded =>
  fields.timestamp === undefined
    ? { content: fields.content, tokens: fields.tokens, pinned }
    : { content: fields.content, tokens: fields.tokens, timestamp: fields.timestamp, pinned }

const vectorFields = (item: typeof ContextItem.ContextItem.Encoded): ItemFields =>
  typeof item.timestamp === "string"
    ? { content: item.content, tokens: item.tokens, timestamp: item.timestamp }
    : { content: item.content, tokens: item.tokens }

/** `[[pinned]]`: content, tokens, optional timestamp; always pinned. */
const PinnedVectorItem = Schema.Struct(itemFields).pipe(
  Schema.decodeTo(
    ContextItem.ContextItem,
    SchemaTransformation.transform({
      decode: (fields): typeof ContextItem.ContextItem.Encoded => encodedItem(fields, true),
      encode: vectorFields
    })
  )
)

/** `[[items]]` / `[[scored_items]]`: content, tokens, score, optional timestamp. */
const ScoredVectorItem = Schema.Struct({ ...itemFields, score: Schema.Number }).pipe(
  Schema.decodeTo(
    ScoredItem.ScoredItem,
    SchemaTransformation.transform({
      decode: (fields): typeof ScoredItem.ScoredItem.Encoded => ({ item: encodedItem(fields, false), score: fields.score }),
      encode: (scored) => ({ ...vectorFields(scored.item), score: scored.score })
    })
  )
)

const defaultEmpty = <S extends Schema.Top>(item: S) =>
  Schema.Array(item).pipe(Schema.withDecodingDefaultKey(Effect.succeed([])))

/** `[budget]` in the vector's snake_case, decoded to a validated `ContextBudget`. */
const VectorBudget = Schema.Struct({
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

const Header = Schema.Struct({
  test: Schema.Struct({ name: Schema.String, stage: Schema.String })
})

const PlacingVectorToml = Schema.Struct({
  test: Schema.Struct({ name: Schema.String, stage: Schema.Literal("placing"), placer: PlacerName }),
  items: defaultEmpty(ScoredVectorItem),
  expected: Schema.Struct({ ordered_contents: Schema.Array(Schema.String) })
})

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

// ---------------------------------------------------------------------------------------------
// Vectors
// ---------------------------------------------------------------------------------------------

/**
 * A Cupel `placing` vector: the placer alone.
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

/**
 * A vector of a stage this runner does not run.
 *
 * @since 0.1.0
 * @category models
 */
export interface UnimplementedVector {
  readonly _tag: "UnimplementedVector"
  readonly file: string
  readonly name: string
  readonly stage: string
}

/**
 * Any parsed vector.
 *
 * @since 0.1.0
 * @category models
 */
export type Vector = PlacingVector | PlaceVector | UnimplementedVector

// smol-toml's message ends with a code excerpt over several lines; a report wants one line.
const syntaxReason = (cause: unknown): string => {
  if (cause instanceof TomlError) {
    const first = cause.message.split("\n")[0] ?? cause.message
    return `${first.replace(/^Invalid TOML document: /, "")} (line ${cause.line}, column ${cause.column})`
  }
  return cause instanceof Error ? cause.message : String(cause)
}

const decodeOptions = { errors: "all", reportInput: true } as const
const decodeHeader = Schema.decodeUnknownEffect(Header, decodeOptions)
const decodePlacing = Schema.decodeUnknownEffect(PlacingVectorToml, decodeOptions)
const decodePlace = Schema.decodeUnknownEffect(PlaceVectorToml, decodeOptions)

const invalid = (file: string, name: string | undefined) => (error: Schema.SchemaError) =>
  name === undefined
    ? new InvalidVectorError({ file, problems: schemaProblems(error) })
    : new InvalidVectorError({ file, name, problems: schemaProblems(error) })

/**
 * Parses the text of a vector file. `file` is used in error messages and in the vector.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseVector: (
  file: string,
  text: string
) => Effect.Effect<Vector, VectorSyntaxError | InvalidVectorError> = Effect.fn("Conformance.parseVector")(
  function*(file: string, text: string) {
    yield* Effect.annotateCurrentSpan({ "cupel.conformance.file": file })
    const table = yield* Effect.try({
      try: () => parseToml(text, { integersAsBigInt: "asNeeded" }),
      catch: (cause) => new VectorSyntaxError({ file, reason: syntaxReason(cause) })
    })
    const { test } = yield* decodeHeader(table).pipe(Effect.mapError(invalid(file, undefined)))
    const name = test.name
    switch (test.stage) {
      case "placing": {
        const v = yield* decodePlacing(table).pipe(Effect.mapError(invalid(file, name)))
        return {
          _tag: "PlacingVector",
          file,
          name,
          placer: v.test.placer,
          items: v.items,
          orderedContents: v.expected.ordered_contents
        } satisfies PlacingVector
      }
      case "place": {
        const v = yield* decodePlace(table).pipe(Effect.mapError(invalid(file, name)))
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
          name,
          placer: v.test.placer,
          overflowStrategy: overflowStrategy(v.test.overflow_strategy),
          budget: v.budget,
          pinned: v.pinned,
          scored: v.scored_items,
          expected
        } satisfies PlaceVector
      }
      default: {
        if (unimplementedStages.includes(test.stage)) {
          return { _tag: "UnimplementedVector", file, name, stage: test.stage } satisfies UnimplementedVector
        }
        const known = [...implementedStages, ...unimplementedStages].map((s) => JSON.stringify(s)).join(", ")
        return yield* new InvalidVectorError({
          file,
          name,
          problems: [`test.stage: unknown stage ${JSON.stringify(test.stage)} (expected one of ${known})`]
        })
      }
    }
  }
)

// ---------------------------------------------------------------------------------------------
// Outcomes
// ---------------------------------------------------------------------------------------------

/**
 * One difference between what a vector expects and what effect-cupel did.
 *
 * @since 0.1.0
 * @category models
 */
export interface Mismatch {
  readonly field: string
  readonly expected: string
  readonly actual: string
}

/**
 * What became of one file.
 *
 * - `Passed` / `Failed` — the vector ran; `Failed` lists every mismatch.
 * - `Skipped` — the vector belongs to a stage effect-cupel does not implement.
 * - `Broken` — the file could not be read, parsed or understood (counted as failed).
 *
 * @since 0.1.0
 * @category models
 */
export type Outcome =
  | { readonly _tag: "Passed"; readonly file: string; readonly name: string; readonly stage: string }
  | {
    readonly _tag: "Failed"
    readonly file: string
    readonly name: string
    readonly stage: string
    readonly mismatches: ReadonlyArray<Mismatch>
  }
  | { readonly _tag: "Skipped"; readonly file: string; readonly name: string; readonly stage: string }
  | { readonly _tag: "Broken"; readonly file: string; readonly error: VectorError }

/**
 * The outcome of every file, in the order the paths were given (a folder's files in sorted
 * order), and the counts. `failed` includes the files and paths that could not be run.
 *
 * @since 0.1.0
 * @category models
 */
export interface Report {
  readonly outcomes: ReadonlyArray<Outcome>
  readonly passed: number
  readonly failed: number
  readonly skipped: number
}

const judge = (
  vector: PlacingVector | PlaceVector,
  stage: string,
  mismatches: ReadonlyArray<Mismatch>
): Outcome =>
  mismatches.length === 0
    ? { _tag: "Passed", file: vector.file, name: vector.name, stage }
    : { _tag: "Failed", file: vector.file, name: vector.name, stage, mismatches }

const sameList = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i])

const compareList = (field: string, expected: ReadonlyArray<string>, actual: ReadonlyArray<string>) =>
  sameList(expected, actual) ? [] : [{ field, expected: showList(expected), actual: showList(actual) }]

const describeError = (error: { readonly _tag: string; readonly message: string }): string =>
  `${error._tag}: ${error.message}`

const runPlacing = Effect.fn("Conformance.runPlacing")(function*(vector: PlacingVector) {
  const placed = yield* Effect.result(Placer.place(vector.items).pipe(Effect.provide(placerLayer(vector.placer))))
  if (Result.isFailure(placed)) {
    return judge(vector, "placing", [{
      field: "ordered_contents",
      expected: showList(vector.orderedContents),
      actual: describeError(placed.failure)
    }])
  }
  return judge(vector, "placing", compareList("ordered_contents", vector.orderedContents, placed.success.map((i) => i.content)))
})

const runPlace = Effect.fn("Conformance.runPlace")(function*(vector: PlaceVector) {
  const attempt = yield* Effect.result(
    Effect.gen(function*() {
      const result = yield* Place.place({
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

const showEvents = (tokens: ReadonlyArray<number>): string =>
  tokens.length === 0
    ? "no overflow event"
    : tokens.length === 1
    ? String(tokens[0])
    : `${tokens.length} overflow events (${tokens.join(", ")})`

/**
 * Runs one parsed vector. A failure of effect-cupel (a wrong order, an unexpected error) is a
 * `Failed` outcome, not an error.
 *
 * @since 0.1.0
 * @category running
 */
export const runVector: (vector: Vector) => Effect.Effect<Outcome> = Effect.fn("Conformance.runVector")(
  function*(vector: Vector) {
    yield* Effect.annotateCurrentSpan({ "cupel.conformance.file": vector.file, "cupel.conformance.name": vector.name })
    switch (vector._tag) {
      case "PlacingVector":
        return yield* runPlacing(vector)
      case "PlaceVector":
        return yield* runPlace(vector)
      case "UnimplementedVector":
        return { _tag: "Skipped", file: vector.file, name: vector.name, stage: vector.stage } satisfies Outcome
    }
  }
)

const broken = (file: string) => (error: VectorError): Outcome => ({ _tag: "Broken", file, error })

/**
 * Reads, parses and runs one file.
 *
 * @since 0.1.0
 * @category running
 */
export const runFile: (file: string) => Effect.Effect<Outcome, never, FileSystem.FileSystem> = Effect.fn(
  "Conformance.runFile"
)(function*(file: string) {
  const fs = yield* FileSystem.FileSystem
  return yield* fs.readFileString(file).pipe(
    Effect.mapError((error) => new VectorReadError({ path: file, reason: describePlatformError(error) })),
    Effect.flatMap((text) => parseVector(file, text)),
    Effect.flatMap(runVector),
    Effect.catch((error) => Effect.succeed(broken(file)(error)))
  )
})

/**
 * The vector files a list of paths names, in order: a file as given, a folder's `.toml` files at
 * any depth in sorted order. A path that cannot be read, or a folder without vectors, takes its
 * place in the list as a `VectorReadError`. A file named twice is listed once.
 *
 * @since 0.1.0
 * @category running
 */
export const collectFiles: (
  paths: ReadonlyArray<string>
) => Effect.Effect<ReadonlyArray<Result.Result<string, VectorReadError>>, never, FileSystem.FileSystem | Path.Path> =
  Effect.fn("Conformance.collectFiles")(function*(paths: ReadonlyArray<string>) {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const entries: Array<Result.Result<string, VectorReadError>> = []
    const seen = new Set<string>()
    for (const given of paths) {
      const listed = yield* fs.stat(given).pipe(
        Effect.flatMap((info) =>
          info.type === "Directory"
            ? Effect.map(fs.readDirectory(given, { recursive: true }), (names) =>
              names.filter((name) => name.endsWith(".toml")).sort().map((name) => path.join(given, name)))
            : Effect.succeed([given])
        ),
        Effect.mapError((error) => new VectorReadError({ path: given, reason: describePlatformError(error) })),
        Effect.result
      )
      if (Result.isFailure(listed)) entries.push(Result.fail(listed.failure))
      else if (listed.success.length === 0) {
        entries.push(Result.fail(new VectorReadError({ path: given, reason: "the folder holds no .toml vector files" })))
      } else {
        for (const file of listed.success) {
          const key = path.resolve(file)
          if (!seen.has(key)) {
            seen.add(key)
            entries.push(Result.succeed(file))
          }
        }
      }
    }
    return entries
  })

/**
 * Runs every vector under `paths` and reports the outcome of each, in the order of
 * {@link collectFiles}.
 *
 * @since 0.1.0
 * @category running
 */
export const run: (
  paths: ReadonlyArray<string>
) => Effect.Effect<Report, never, FileSystem.FileSystem | Path.Path> = Effect.fn("Conformance.run")(
  function*(paths: ReadonlyArray<string>) {
    const entries = yield* collectFiles(paths)
    const outcomes = yield* Effect.forEach(
      entries,
      (entry) => Result.isSuccess(entry) ? runFile(entry.success) : Effect.succeed(broken(entry.failure.path)(entry.failure)),
      { concurrency: 8 }
    )
    const report = summarize(outcomes)
    yield* Effect.annotateCurrentSpan({
      "cupel.conformance.passed": report.passed,
      "cupel.conformance.failed": report.failed,
      "cupel.conformance.skipped": report.skipped
    })
    return report
  }
)

/**
 * Counts outcomes into a report.
 *
 * @since 0.1.0
 * @category running
 */
export const summarize = (outcomes: ReadonlyArray<Outcome>): Report => {
  let passed = 0
  let failed = 0
  let skipped = 0
  for (const outcome of outcomes) {
    if (outcome._tag === "Passed") passed++
    else if (outcome._tag === "Skipped") skipped++
    else failed++
  }
  return { outcomes, passed, failed, skipped }
}

// ---------------------------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------------------------

/**
 * The line for an outcome: `FAIL file "name": field: expected …, got …` for failures, `PASS` and
 * `SKIP` lines for the others.
 *
 * @since 0.1.0
 * @category formatting
 */
export const formatOutcome = (outcome: Outcome): string => {
  switch (outcome._tag) {
    case "Passed":
      return `PASS ${outcome.file} "${outcome.name}"`
    case "Skipped":
      return `SKIP ${outcome.file} "${outcome.name}" (stage "${outcome.stage}" is not implemented)`
    case "Failed":
      return `FAIL ${outcome.file} "${outcome.name}": ` +
        outcome.mismatches.map((m) => `${m.field}: expected ${m.expected}, got ${m.actual}`).join("; ")
    case "Broken":
      return `FAIL ${outcome.error.message}`
  }
}

/**
 * `N passed, M failed, K skipped`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const formatSummary = (report: Report): string =>
  `${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped`

/**
 * The report as lines: one per failure (every outcome when `verbose`), then the summary.
 *
 * @since 0.1.0
 * @category formatting
 */
export const formatReport = (report: Report, options?: { readonly verbose?: boolean | undefined }): Array<string> => [
  ...report.outcomes
    .filter((o) => options?.verbose === true || o._tag === "Failed" || o._tag === "Broken")
    .map(formatOutcome),
  formatSummary(report)
]
