/**
 * Conformance: runs conformance vectors (TOML files) against effect-cupel.
 *
 * Every stage of the Cupel specification's vectors is run (spec/src/conformance/format.md):
 *
 * - `scoring` — one scorer, its scores within `[tolerance] score_epsilon`;
 * - `slicing` — one slicer, the selected contents as a set;
 * - `placing` — one placer, the order;
 * - `pipeline` — the six stages end to end, the window in order, and the diagnostics
 *   (`[expected.diagnostics]`) against the run's `SelectionReport`;
 *
 * and so are this project's `place` vectors (docs/conformance.md), which test Stage 6 as a whole.
 * A vector that needs a component effect-cupel does not implement yet (the quota slicers) is
 * counted as skipped, with the reason, never as passed. A file that cannot be read, parsed or
 * understood is a failure that names the file and each bad field; the other files still run.
 * Nothing here throws: every problem is a value in the report.
 *
 * The work is done by the modules of `conformance/`: `Vector` (TOML, header, errors, shared
 * shapes), one module per vector kind (`Scoring`, `Slicing`, `Placing`, `PipelineVectors`,
 * `Place`), `Components` (the names in vectors as scorers, slicers and placers) and `Report`
 * (outcomes, counts, text). This module is the entry point, and re-exports what callers use.
 * Files are read through Effect's `FileSystem` and `Path` services: provide any implementation,
 * such as Node's from `@effect/platform-node` (installed separately: the library does not depend
 * on it).
 *
 * @example
 * ```ts
 * import { NodeServices } from "@effect/platform-node"
 * import { Effect } from "effect"
 * import * as Conformance from "effect-cupel/Conformance"
 *
 * const report = await Effect.runPromise(
 *   Conformance.run(["conformance/cupel", "conformance/place"]).pipe(Effect.provide(NodeServices.layer))
 * )
 * console.log(Conformance.formatSummary(report)) // "115 passed, 0 failed, 0 skipped"
 * ```
 *
 * @since 0.1.0
 */
import { Effect, FileSystem, Path, Result } from "effect"
import * as PipelineVectors from "./conformance/PipelineVectors.ts"
import * as PlaceVectors from "./conformance/Place.ts"
import * as Placing from "./conformance/Placing.ts"
import { broken, type Outcome, type Report, skipped, summarize } from "./conformance/Report.ts"
import * as Scoring from "./conformance/Scoring.ts"
import * as Slicing from "./conformance/Slicing.ts"
import {
  decodeAt,
  Header,
  InvalidVectorError,
  invalid,
  parseTable,
  type VectorError,
  type VectorProblems,
  VectorReadError,
  type VectorSyntaxError
} from "./conformance/Vector.ts"
import { describePlatformError } from "./internal/conformanceMessages.ts"

export {
  /**
   * @since 0.1.0
   * @category names
   */
  OverflowStrategyName,
  /**
   * @since 0.1.0
   * @category names
   */
  overflowStrategy,
  /**
   * @since 0.1.0
   * @category names
   */
  PlacerName,
  /**
   * @since 0.1.0
   * @category names
   */
  placerLayer
} from "./conformance/Components.ts"
export type {
  /**
   * @since 0.2.0
   * @category names
   */
  ScorerName,
  /**
   * @since 0.2.0
   * @category names
   */
  SlicerName
} from "./conformance/Components.ts"
export type {
  /**
   * @since 0.2.0
   * @category models
   */
  PipelineVector
} from "./conformance/PipelineVectors.ts"
export type {
  /**
   * @since 0.1.0
   * @category models
   */
  PlaceExpectation,
  /**
   * @since 0.1.0
   * @category models
   */
  PlaceVector
} from "./conformance/Place.ts"
export type {
  /**
   * @since 0.1.0
   * @category models
   */
  PlacingVector
} from "./conformance/Placing.ts"
export {
  /**
   * @since 0.1.0
   * @category formatting
   */
  formatOutcome,
  /**
   * @since 0.1.0
   * @category formatting
   */
  formatReport,
  /**
   * @since 0.2.0
   * @category formatting
   */
  formatStages,
  /**
   * @since 0.1.0
   * @category formatting
   */
  formatSummary,
  /**
   * @since 0.1.0
   * @category running
   */
  summarize
} from "./conformance/Report.ts"
export type {
  /**
   * @since 0.1.0
   * @category models
   */
  Mismatch,
  /**
   * @since 0.1.0
   * @category models
   */
  Outcome,
  /**
   * @since 0.1.0
   * @category models
   */
  Report
} from "./conformance/Report.ts"
export type {
  /**
   * @since 0.2.0
   * @category models
   */
  ScoringVector
} from "./conformance/Scoring.ts"
export type {
  /**
   * @since 0.2.0
   * @category models
   */
  SlicingVector
} from "./conformance/Slicing.ts"
export {
  /**
   * @since 0.1.0
   * @category errors
   */
  InvalidVectorError,
  /**
   * @since 0.1.0
   * @category errors
   */
  VectorReadError,
  /**
   * @since 0.1.0
   * @category errors
   */
  VectorSyntaxError
} from "./conformance/Vector.ts"
export type {
  /**
   * @since 0.1.0
   * @category errors
   */
  VectorError
} from "./conformance/Vector.ts"

/**
 * The stages whose vectors this runner executes.
 *
 * @since 0.1.0
 * @category names
 */
export const implementedStages: ReadonlyArray<string> = ["scoring", "slicing", "placing", "pipeline", "place"]

/**
 * Stages whose vectors would be counted as skipped as a whole: none any more. (Vectors that
 * need an unimplemented component are skipped one by one, with the reason.)
 *
 * @since 0.1.0
 * @category names
 */
export const unimplementedStages: ReadonlyArray<string> = []

/**
 * A vector that is not run: `reason` says why (a component effect-cupel does not implement yet).
 * Such vectors are decoded as far as their stage's header only.
 *
 * @since 0.1.0
 * @category models
 */
export interface UnimplementedVector {
  readonly _tag: "UnimplementedVector"
  readonly file: string
  readonly name: string
  readonly stage: string
  readonly reason: string
}

/**
 * Any parsed vector.
 *
 * @since 0.1.0
 * @category models
 */
export type Vector =
  | Scoring.ScoringVector
  | Slicing.SlicingVector
  | Placing.PlacingVector
  | PipelineVectors.PipelineVector
  | PlaceVectors.PlaceVector
  | UnimplementedVector

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
    const table = yield* parseTable(file, text)
    const { test } = yield* decodeAt(Header, table).pipe(Effect.mapError(invalid(file, undefined)))
    const decoded = ((): Effect.Effect<Vector, VectorProblems> | undefined => {
      switch (test.stage) {
        case "scoring":
          return Scoring.decode(file, table)
        case "slicing":
          return Slicing.decode(file, table)
        case "placing":
          return Placing.decode(file, table)
        case "pipeline":
          return PipelineVectors.decode(file, table)
        case "place":
          return PlaceVectors.decode(file, table)
        default:
          return undefined
      }
    })()
    if (decoded === undefined) {
      const known = implementedStages.map((s) => JSON.stringify(s)).join(", ")
      return yield* new InvalidVectorError({
        file,
        name: test.name,
        problems: [`test.stage: unknown stage ${JSON.stringify(test.stage)} (expected one of ${known})`]
      })
    }
    return yield* Effect.mapError(decoded, invalid(file, test.name))
  }
)

/**
 * Runs one parsed vector. A failure of effect-cupel (a wrong score, order or selection, an
 * unexpected error) is a `Failed` outcome, not an error.
 *
 * @since 0.1.0
 * @category running
 */
export const runVector: (vector: Vector) => Effect.Effect<Outcome> = Effect.fn("Conformance.runVector")(
  function*(vector: Vector) {
    yield* Effect.annotateCurrentSpan({ "cupel.conformance.file": vector.file, "cupel.conformance.name": vector.name })
    switch (vector._tag) {
      case "ScoringVector":
        return yield* Scoring.run(vector)
      case "SlicingVector":
        return yield* Slicing.run(vector)
      case "PlacingVector":
        return yield* Placing.run(vector)
      case "PipelineVector":
        return yield* PipelineVectors.run(vector)
      case "PlaceVector":
        return yield* PlaceVectors.run(vector)
      case "UnimplementedVector":
        return skipped(vector, vector.stage, vector.reason)
    }
  }
)

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
    Effect.catch((error: VectorError) => Effect.succeed(broken(file)(error)))
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
