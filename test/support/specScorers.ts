/**
 * Literal transcriptions of the scorer chapters' pseudocode (spec/src/scorers/*.md), one item at
 * a time and quadratic where the chapter is. They are the reference the property tests hold the
 * library's whole-list scorers to; they are written for fidelity to the text, not for speed.
 */
import { Effect } from "effect"
import type { ContextItem } from "../../src/ContextItem.ts"
import type * as Scorer from "../../src/scorers/Scorer.ts"

/** The chapters' scorer shape: `Score(item, allItems) -> float64`. */
export type SpecScorer = (item: ContextItem, allItems: ReadonlyArray<ContextItem>) => number

/** Runs a per-item scorer over a whole list, as the pipeline's Score stage does. */
export const scoreEach = (scorer: SpecScorer, items: ReadonlyArray<ContextItem>): Array<number> =>
  items.map((item) => scorer(item, items))

/** ASCII case folding, written independently of the library's. */
const caseInsensitiveEqual = (a: string, b: string): boolean => {
  if (a.length !== b.length) return false
  for (let k = 0; k < a.length; k++) {
    let x = a.charCodeAt(k)
    let y = b.charCodeAt(k)
    if (x >= 65 && x <= 90) x += 32
    if (y >= 65 && y <= 90) y += 32
    if (x !== y) return false
  }
  return true
}

// recency.md — RECENCY-SCORE
export const recency: SpecScorer = (item, allItems) => {
  if (item.timestamp === undefined) return 0.0
  let countWithTimestamp = 0
  let rank = 0
  for (let i = 0; i <= allItems.length - 1; i++) {
    const other = allItems[i]!.timestamp
    if (other === undefined) continue
    countWithTimestamp = countWithTimestamp + 1
    if (other.epochMilliseconds < item.timestamp.epochMilliseconds) rank = rank + 1
  }
  if (countWithTimestamp <= 1) return 1.0
  return rank / (countWithTimestamp - 1)
}

// priority.md — PRIORITY-SCORE
export const priority: SpecScorer = (item, allItems) => {
  if (item.priority === undefined) return 0.0
  let countWithPriority = 0
  let rank = 0
  for (let i = 0; i <= allItems.length - 1; i++) {
    const other = allItems[i]!.priority
    if (other === undefined) continue
    countWithPriority = countWithPriority + 1
    if (other < item.priority) rank = rank + 1
  }
  if (countWithPriority <= 1) return 1.0
  return rank / (countWithPriority - 1)
}

// kind.md — default weights, VALIDATE-KIND-WEIGHTS, KIND-SCORE
export const kindDefaultWeights: ReadonlyArray<readonly [string, number]> = [
  ["SystemPrompt", 1.0],
  ["Memory", 0.8],
  ["ToolOutput", 0.6],
  ["Document", 0.4],
  ["Message", 0.2]
]

/** The chapter's two rules, in order; `undefined` when the weights are valid. */
export const validateKindWeights = (weights: ReadonlyArray<readonly [string, number]>): string | undefined => {
  for (const [, weight] of weights) {
    if (weight < 0.0) return "Weight for kind must be non-negative"
    if (!Number.isFinite(weight)) return "Weight for kind must be finite"
  }
  return undefined
}

export const kind = (weights: ReadonlyArray<readonly [string, number]>): SpecScorer => (item) => {
  // "weights contains item.kind", under ContextKind equality (case-insensitive).
  for (const [k, weight] of weights) if (caseInsensitiveEqual(k, item.kind)) return weight
  return 0.0
}

// tag.md — CONSTRUCT-TAG-SCORER, TAG-SCORE (ordinal comparer by default)
export const constructTag = (
  tagWeights: ReadonlyArray<readonly [string, number]>
): { readonly error: string } | { readonly totalWeight: number } => {
  let totalWeight = 0.0
  for (const [, weight] of tagWeights) {
    if (weight < 0.0) return { error: "Tag weight must be non-negative" }
    if (!Number.isFinite(weight)) return { error: "Tag weight must be finite" }
    totalWeight = totalWeight + weight
  }
  return { totalWeight }
}

export const tag = (
  tagWeights: ReadonlyArray<readonly [string, number]>,
  totalWeight: number,
  equal: (a: string, b: string) => boolean = (a, b) => a === b
): SpecScorer =>
(item) => {
  if (totalWeight === 0.0 || item.tags.length === 0) return 0.0
  let matchedSum = 0.0
  for (let i = 0; i <= item.tags.length - 1; i++) {
    const entry = tagWeights.find(([t]) => equal(t, item.tags[i]!))
    if (entry !== undefined) matchedSum = matchedSum + entry[1]
  }
  return Math.min(matchedSum / totalWeight, 1.0)
}

export const tagCaseInsensitive = caseInsensitiveEqual

// frequency.md — FREQUENCY-SCORE, SHARES-ANY-TAG
const sharesAnyTag = (tagsA: ReadonlyArray<string>, tagsB: ReadonlyArray<string>): boolean => {
  for (let i = 0; i <= tagsA.length - 1; i++) {
    for (let j = 0; j <= tagsB.length - 1; j++) {
      if (caseInsensitiveEqual(tagsA[i]!, tagsB[j]!)) return true
    }
  }
  return false
}

export const frequency: SpecScorer = (item, allItems) => {
  if (item.tags.length === 0 || allItems.length <= 1) return 0.0
  let matchingItems = 0
  for (let i = 0; i <= allItems.length - 1; i++) {
    if (allItems[i] === item) continue
    if (allItems[i]!.tags.length === 0) continue
    if (sharesAnyTag(item.tags, allItems[i]!.tags)) matchingItems = matchingItems + 1
  }
  return matchingItems / (allItems.length - 1)
}

// reflexive.md — REFLEXIVE-SCORE
const clamp = (x: number, lo: number, hi: number): number => x < lo ? lo : x > hi ? hi : x

export const reflexive: SpecScorer = (item) => {
  if (item.futureRelevanceHint === undefined) return 0.0
  const value = item.futureRelevanceHint
  if (!Number.isFinite(value)) return 0.0
  return clamp(value, 0.0, 1.0)
}

// composite.md — CONSTRUCT-COMPOSITE (without DETECT-CYCLES), COMPOSITE-SCORE
export const constructComposite = (
  entries: ReadonlyArray<{ readonly scorer: SpecScorer | null; readonly weight: number }>
): { readonly error: string } | { readonly scorer: SpecScorer } => {
  if (entries.length === 0) return { error: "At least one scorer entry is required" }
  let totalWeight = 0.0
  for (let i = 0; i <= entries.length - 1; i++) {
    const { scorer, weight } = entries[i]!
    if (scorer === null) return { error: "Scorer must not be null" }
    if (weight <= 0.0) return { error: "Weight must be positive" }
    if (!Number.isFinite(weight)) return { error: "Weight must be finite" }
    totalWeight = totalWeight + weight
  }
  const normalizedWeights = entries.map((e) => e.weight / totalWeight)
  const scorers = entries.map((e) => e.scorer!)
  return {
    scorer: (item, allItems) => {
      let result = 0.0
      for (let i = 0; i <= scorers.length - 1; i++) {
        result = result + scorers[i]!(item, allItems) * normalizedWeights[i]!
      }
      return result
    }
  }
}

// scaled.md — SCALED-SCORE
export const scaled = (inner: SpecScorer): SpecScorer => (item, allItems) => {
  if (allItems.length === 0) return 0.5
  let rawScore = NaN
  let min = Infinity
  let max = -Infinity
  for (let i = 0; i <= allItems.length - 1; i++) {
    const s = inner(allItems[i]!, allItems)
    if (s < min) min = s
    if (s > max) max = s
    if (allItems[i] === item) rawScore = s
  }
  if (max === min) return 0.5
  return (rawScore - min) / (max - min)
}

// metadata-trust.md — METADATA-TRUST-SCORE, with Rust's str::parse::<f64> grammar, hand-parsed
const parseFloat64 = (raw: string): number | undefined => {
  let k = 0
  if (raw[k] === "+" || raw[k] === "-") k++
  const rest = raw.slice(k).toLowerCase()
  if (rest === "inf" || rest === "infinity" || rest === "nan") {
    return rest === "nan" ? NaN : raw[0] === "-" ? -Infinity : Infinity
  }
  const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9"
  let digits = 0
  while (isDigit(raw[k])) (k++, digits++)
  if (raw[k] === ".") {
    k++
    while (isDigit(raw[k])) (k++, digits++)
  }
  if (digits === 0) return undefined
  if (raw[k] === "e" || raw[k] === "E") {
    k++
    if (raw[k] === "+" || raw[k] === "-") k++
    if (!isDigit(raw[k])) return undefined
    while (isDigit(raw[k])) k++
  }
  return k === raw.length ? Number(raw) : undefined
}

export const metadataTrust = (defaultScore: number): SpecScorer => (item) => {
  if (!Object.hasOwn(item.metadata, "cupel:trust")) return defaultScore
  const raw = item.metadata["cupel:trust"]
  // "or cast if already float64": numbers (and bigints, boxed numerics) are used directly.
  const value = typeof raw === "number"
    ? raw
    : typeof raw === "bigint"
    ? Number(raw)
    : typeof raw === "string"
    ? parseFloat64(raw)
    : undefined
  if (value === undefined) return defaultScore
  if (!Number.isFinite(value)) return defaultScore
  return clamp(value, 0.0, 1.0)
}

// metadata-key.md — METADATA-KEY-SCORE; non-string values compared by their string form
export const metadataKey = (config: { readonly key: string; readonly value: string; readonly boost: number }): SpecScorer =>
(item) => {
  const defaultMultiplier = 1.0
  if (!Object.hasOwn(item.metadata, config.key)) return defaultMultiplier
  const raw = item.metadata[config.key]
  const asString = typeof raw === "string"
    ? raw
    : typeof raw === "number" || typeof raw === "bigint" || typeof raw === "boolean"
    ? `${raw}`
    : undefined
  if (asString !== config.value) return defaultMultiplier
  return config.boost
}

// decay.md — DECAY-SCORE and the three curves; durations in milliseconds, converted to seconds
// where the chapter does
export type SpecCurve =
  | { readonly _tag: "Exponential"; readonly halfLifeMs: number }
  | { readonly _tag: "Step"; readonly windows: ReadonlyArray<{ readonly maxAgeMs: number; readonly score: number }> }
  | { readonly _tag: "Window"; readonly maxAgeMs: number }

const durationToSeconds = (ms: number): number => ms / 1000

const applyCurve = (age: number, curve: SpecCurve): number => {
  switch (curve._tag) {
    case "Exponential":
      return Math.pow(2.0, -durationToSeconds(age) / durationToSeconds(curve.halfLifeMs))
    case "Step": {
      for (const window of curve.windows) if (window.maxAgeMs > age) return window.score
      return curve.windows[curve.windows.length - 1]!.score
    }
    case "Window":
      return age < curve.maxAgeMs ? 1.0 : 0.0
  }
}

export const decay = (config: { readonly now: number; readonly curve: SpecCurve; readonly nullTimestampScore: number }): SpecScorer =>
(item) => {
  if (item.timestamp === undefined) return config.nullTimestampScore
  const age = Math.max(0, config.now - item.timestamp.epochMilliseconds)
  return applyCurve(age, config.curve)
}

/** Scores `items` with a library scorer, as a plain array (for exact comparisons, -0 included). */
export const runScorer = (scorer: Scorer.Definition, items: ReadonlyArray<ContextItem>): Promise<Array<number>> =>
  Effect.runPromise(scorer.scoreAll(items)).then((scores) => Array.from(scores))
