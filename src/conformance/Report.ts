/**
 * Report: what became of each vector, the counts, and the text the runner prints.
 *
 * A vector that ran is `Passed` or `Failed` (with every mismatch); a vector of a component
 * effect-cupel does not have yet is `Skipped` with the reason; a file that could not be read,
 * parsed or understood is `Broken`, and counts as failed. Skipped is never counted as passed.
 *
 * @since 0.2.0
 */
import { showList, showSet } from "../internal/conformanceMessages.ts"
import type { VectorError } from "./Vector.ts"

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
 * - `Skipped` — the vector needs a component effect-cupel does not implement yet; `reason`
 *   says which.
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
  | {
    readonly _tag: "Skipped"
    readonly file: string
    readonly name: string
    readonly stage: string
    readonly reason: string
  }
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

/**
 * What every runnable vector carries, for its outcome.
 *
 * @since 0.2.0
 * @category models
 */
export interface Identity {
  readonly file: string
  readonly name: string
}

/**
 * `Passed` when there is no mismatch, `Failed` with all of them otherwise.
 *
 * @since 0.2.0
 * @category outcomes
 */
export const judge = (vector: Identity, stage: string, mismatches: ReadonlyArray<Mismatch>): Outcome =>
  mismatches.length === 0
    ? { _tag: "Passed", file: vector.file, name: vector.name, stage }
    : { _tag: "Failed", file: vector.file, name: vector.name, stage, mismatches }

/**
 * @since 0.2.0
 * @category outcomes
 */
export const skipped = (vector: Identity, stage: string, reason: string): Outcome => ({
  _tag: "Skipped",
  file: vector.file,
  name: vector.name,
  stage,
  reason
})

/**
 * @since 0.2.0
 * @category outcomes
 */
export const broken = (file: string) => (error: VectorError): Outcome => ({ _tag: "Broken", file, error })

// ---------------------------------------------------------------------------------------------
// Comparisons
// ---------------------------------------------------------------------------------------------

/**
 * An ordered comparison of contents: one mismatch, or none.
 *
 * @since 0.2.0
 * @category comparisons
 */
export const compareList = (
  field: string,
  expected: ReadonlyArray<string>,
  actual: ReadonlyArray<string>
): Array<Mismatch> =>
  expected.length === actual.length && expected.every((x, i) => x === actual[i])
    ? []
    : [{ field, expected: showList(expected), actual: showList(actual) }]

/**
 * A set comparison of contents (a multiset: an item selected twice is not an item selected
 * once). The mismatch lists both sets, and what is missing and unexpected.
 *
 * @since 0.2.0
 * @category comparisons
 */
export const compareSet = (
  field: string,
  expected: ReadonlyArray<string>,
  actual: ReadonlyArray<string>
): Array<Mismatch> => {
  const left = new Map<string, number>()
  for (const content of expected) left.set(content, (left.get(content) ?? 0) + 1)
  const unexpected: Array<string> = []
  for (const content of actual) {
    const count = left.get(content) ?? 0
    if (count === 0) unexpected.push(content)
    else left.set(content, count - 1)
  }
  const missing = [...left].flatMap(([content, count]) => Array.from({ length: count }, () => content))
  if (missing.length === 0 && unexpected.length === 0) return []
  const details = [
    ...(missing.length === 0 ? [] : [`missing ${showSet(missing)}`]),
    ...(unexpected.length === 0 ? [] : [`unexpected ${showSet(unexpected)}`])
  ].join(", ")
  return [{ field, expected: `${showSet(expected)} (any order)`, actual: `${showSet(actual)} (${details})` }]
}

/**
 * Whether a score matches its expectation: `|actual - expected| < epsilon`, the comparison of
 * the specification's runner (strict, so NaN never matches).
 *
 * @since 0.2.0
 * @category comparisons
 */
export const scoreMatches = (actual: number, expected: number, epsilon: number): boolean =>
  Math.abs(actual - expected) < epsilon

/**
 * A score comparison: one mismatch that shows both scores and their difference, or none.
 *
 * @since 0.2.0
 * @category comparisons
 */
export const compareScore = (field: string, expected: number, actual: number, epsilon: number): Array<Mismatch> =>
  scoreMatches(actual, expected, epsilon) ? [] : [{
    field,
    expected: `${expected} (±${epsilon})`,
    actual: `${actual} (off by ${Math.abs(actual - expected)})`
  }]

/**
 * An exact comparison of a number or a string.
 *
 * @since 0.2.0
 * @category comparisons
 */
export const compareValue = (
  field: string,
  expected: number | string,
  actual: unknown
): Array<Mismatch> =>
  expected === actual ? [] : [{ field, expected: JSON.stringify(expected), actual: show(actual) }]

const show = (value: unknown): string => value === undefined ? "nothing" : JSON.stringify(value) ?? String(value)

/**
 * An error as a mismatch shows it: `OverflowError: Selected items require …`.
 *
 * @since 0.2.0
 * @category comparisons
 */
export const describeError = (error: { readonly _tag: string; readonly message: string }): string =>
  `${error._tag}: ${error.message}`

// ---------------------------------------------------------------------------------------------
// Counting and text
// ---------------------------------------------------------------------------------------------

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

/**
 * The line for an outcome: `FAIL file "name": field: expected …, got …` for failures, `PASS` and
 * `SKIP file "name" (reason)` lines for the others.
 *
 * @since 0.1.0
 * @category formatting
 */
export const formatOutcome = (outcome: Outcome): string => {
  switch (outcome._tag) {
    case "Passed":
      return `PASS ${outcome.file} "${outcome.name}"`
    case "Skipped":
      return `SKIP ${outcome.file} "${outcome.name}" (${outcome.reason})`
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
 * Passed, failed and skipped counted per stage, in the order the stages first appear, e.g.
 * `scoring: 32 passed, 0 failed, 0 skipped`. Files that could not be parsed have no stage and
 * are counted under `(unreadable)`.
 *
 * @since 0.2.0
 * @category formatting
 */
export const formatStages = (report: Report): Array<string> => {
  const counts = new Map<string, { passed: number; failed: number; skipped: number }>()
  for (const outcome of report.outcomes) {
    const stage = outcome._tag === "Broken" ? "(unreadable)" : outcome.stage
    const c = counts.get(stage) ?? { passed: 0, failed: 0, skipped: 0 }
    if (outcome._tag === "Passed") c.passed++
    else if (outcome._tag === "Skipped") c.skipped++
    else c.failed++
    counts.set(stage, c)
  }
  return [...counts].map(([stage, c]) => `${stage}: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`)
}

/**
 * The report as lines: one per failed, unreadable or skipped vector (every vector when
 * `verbose`, followed by the counts per stage), then the summary.
 *
 * @since 0.1.0
 * @category formatting
 */
export const formatReport = (report: Report, options?: { readonly verbose?: boolean | undefined }): Array<string> => {
  const verbose = options?.verbose === true
  return [
    ...report.outcomes.filter((o) => verbose || o._tag !== "Passed").map(formatOutcome),
    ...(verbose ? formatStages(report) : []),
    formatSummary(report)
  ]
}
