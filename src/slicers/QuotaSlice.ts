/**
 * QuotaSlice: shares the budget out among context kinds by percentage quotas, and lets an inner
 * slicer choose within each kind's share (spec `slicers/quota.md`).
 *
 * Each quota names a kind with a `require` (the least share of the budget the kind is granted)
 * and a `cap` (the most it may have), both percentages of `targetTokens`; a kind without a quota
 * has require 0% and cap 100%. A slice runs the chapter's four phases:
 *
 * 1. partition the sorted items by kind (kinds compare case-insensitively), in one pass, each
 *    partition keeping the sorted order;
 * 2. add up each kind's candidate tokens (its *mass*);
 * 3. DISTRIBUTE-BUDGET: every configured kind's require is set aside, the rest is shared in
 *    proportion to mass among the kinds whose cap is above their require, and each share is
 *    clamped to the kind's cap — all with the chapter's flooring, so the shares may add up to
 *    less than the target;
 * 4. slice each kind with a positive share by the inner slicer, against the budget
 *    `{ maxTokens: cap, targetTokens: share }`, and concatenate the selections, partitions in
 *    order of first appearance in the sorted list.
 *
 * The percentages are converted as the chapter writes them, `floor(percent / 100.0 * target)` in
 * IEEE doubles (as the Rust and .NET implementations do): 57% of 100 tokens is 56 tokens, since
 * `57 / 100.0 * 100` is 56.99999999999999. The proportional share, `floor(unassigned * mass /
 * totalMass)`, is an integer formula and is computed exactly.
 *
 * QuotaSlice gives no exclusion reasons of its own: the specification reserves
 * `QuotaCapExceeded` ("MUST NOT be emitted by built-in stages") and neither reference
 * implementation explains a quota's exclusions, so an item left out because its kind's share ran
 * out is reported with the pipeline's default (`BudgetExceeded`). The inner slicer's reasons and
 * shortfalls are passed on, its indices mapped back to the full sorted list, and its errors pass
 * through unchanged.
 *
 * @since 0.2.0
 */
import { Effect, Layer } from "effect"
import * as ContextKind from "../ContextKind.ts"
import type { CountRequirementShortfall } from "../CountRequirementShortfall.ts"
import type { ExclusionReason } from "../ExclusionReason.ts"
import { isSafeTotal } from "../internal/tokens.ts"
import { InvalidConfigError } from "../InvalidConfigError.ts"
import type { ScoredItem } from "../ScoredItem.ts"
import * as Slicer from "./Slicer.ts"
import { SlicerError } from "./SlicerError.ts"

/**
 * The slicer's name, as it appears in spans, reports and errors.
 *
 * @since 0.2.0
 * @category constants
 */
export const name = "quota"

/**
 * The component named in configuration errors.
 *
 * @since 0.2.0
 * @category constants
 */
export const component = "QuotaSlice"

/**
 * One kind's quota: `require` and `cap` are percentages of the target, from 0 to 100, with
 * `require <= cap`; `require` defaults to 0 and `cap` to 100 (`undefined` counts as absent).
 *
 * @since 0.2.0
 * @category models
 */
export interface Quota {
  readonly kind: string
  readonly require?: number | undefined
  readonly cap?: number | undefined
}

/**
 * Options of {@link make}: the slicer that chooses within each kind, and the quotas.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  readonly inner: Slicer.Definition
  readonly quotas: ReadonlyArray<Quota>
}

/**
 * How much a sum of requires may pass 100 and still be accepted: percentages written as
 * decimals (33.3 + 33.3 + 33.4) are not exact in binary, and their sum can land an ulp or two
 * above 100. The .NET implementation allows the same; the Rust one compares strictly.
 */
const requireSumTolerance = 1e-9

/** A validated quota: the kind's folded name and its percentages. */
interface Entry {
  readonly key: string
  readonly require: number
  readonly cap: number
}

/**
 * QuotaSlice over `inner`, or an {@link InvalidConfigError} naming the first quota that breaks
 * a rule: a kind that is not a non-blank name, a `require` or `cap` that is not a finite number
 * from 0 to 100, `require > cap`, a kind given twice (kinds compare case-insensitively), or
 * requires adding up to more than 100. An empty list of quotas is allowed (every kind then gets
 * a share in proportion to its tokens).
 *
 * @example
 * ```ts
 * import { GreedySlice, QuotaSlice } from "effect-cupel"
 *
 * // At least 20% for the system prompt, at most 40% for tool output.
 * const slicer = QuotaSlice.make({
 *   inner: GreedySlice.make(),
 *   quotas: [{ kind: "SystemPrompt", require: 20 }, { kind: "ToolOutput", cap: 40 }]
 * }) // Effect<Slicer.Definition, InvalidConfigError>
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<Slicer.Definition, InvalidConfigError> =>
  Effect.suspend(() => {
    const entries = validate(options.quotas)
    return entries instanceof InvalidConfigError
      ? Effect.fail(entries)
      : Effect.succeed(fromEntries(options.inner, entries))
  })

/**
 * Provides QuotaSlice as the pipeline's slicer; building the layer fails with an
 * {@link InvalidConfigError} on invalid quotas.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<Slicer.Slicer, InvalidConfigError> =>
  Layer.effect(Slicer.Slicer, make(options))

const invalid = (path: string, rule: string): InvalidConfigError => new InvalidConfigError({ component, path, rule })

const validate = (quotas: ReadonlyArray<Quota>): ReadonlyArray<Entry> | InvalidConfigError => {
  const entries: Array<Entry> = []
  const firstIndex = new Map<string, number>()
  let requireSum = 0
  for (let i = 0; i < quotas.length; i++) {
    const quota = quotas[i]!
    const at = `quotas[${i}]`
    const kind: unknown = quota.kind
    if (typeof kind !== "string" || kind.trim().length === 0) {
      return invalid(`${at}.kind`, `must be a non-blank kind name (got ${JSON.stringify(kind)})`)
    }
    const require = quota.require ?? 0
    const cap = quota.cap ?? 100
    const badRequire = percentProblem(require)
    if (badRequire !== undefined) return invalid(`${at}.require`, `of kind "${kind}" ${badRequire}`)
    const badCap = percentProblem(cap)
    if (badCap !== undefined) return invalid(`${at}.cap`, `of kind "${kind}" ${badCap}`)
    if (require > cap) {
      return invalid(
        `${at}.require`,
        `of kind "${kind}" must not exceed its cap (require ${require}% > cap ${cap}%)`
      )
    }
    const key = ContextKind.fold(kind)
    const earlier = firstIndex.get(key)
    if (earlier !== undefined) {
      return invalid(
        `${at}.kind`,
        `"${kind}" is already given a quota at quotas[${earlier}] ("${quotas[earlier]!.kind}"); ` +
          `kinds compare case-insensitively, and each may have one quota`
      )
    }
    firstIndex.set(key, i)
    requireSum += require
    entries.push({ key, require, cap })
  }
  if (requireSum > 100 + requireSumTolerance) {
    return invalid(
      "quotas",
      `must have require percentages adding up to at most 100 (got ${requireSum}: ` +
        entries.map((e, i) => `${quotas[i]!.kind} ${e.require}%`).join(", ") + ")"
    )
  }
  return entries
}

/** Why `percent` is not a valid percentage, or undefined when it is. */
const percentProblem = (percent: unknown): string | undefined =>
  typeof percent !== "number" || !Number.isFinite(percent)
    ? `must be a finite number of percent (got ${String(percent)})`
    : percent < 0 || percent > 100
    ? `must be from 0 to 100 percent (got ${percent})`
    : undefined

/** The kinds of a sorted list, each with its items (in sorted order), their indices and mass. */
interface Partitions {
  /** Folded kind of each partition, in order of first appearance. */
  readonly keys: Array<string>
  readonly items: Array<Array<ScoredItem>>
  readonly indices: Array<Array<number>>
  readonly mass: Array<number>
}

const fromEntries = (inner: Slicer.Definition, entries: ReadonlyArray<Entry>): Slicer.Definition => {
  const byKey = new Map<string, Entry>()
  for (const entry of entries) byKey.set(entry.key, entry)
  return {
    name,
    slice: (sorted, budget) =>
      Effect.suspend((): Effect.Effect<Slicer.Selection, Slicer.SliceError> => {
        const target = budget.targetTokens
        // `!(t > 0)` also turns a NaN target away, where `t <= 0` would let it through.
        if (sorted.length === 0 || !(target > 0)) return Effect.succeed({ selected: new Uint32Array(0) })
        if (!Number.isSafeInteger(target)) return Effect.fail(unsafeTarget(target))
        const partitions = partition(sorted)
        if (partitions instanceof SlicerError) return Effect.fail(partitions)
        const shares = distribute(partitions, target, entries, byKey)
        if (shares instanceof SlicerError) return Effect.fail(shares)
        return sliceEach(inner, sorted.length, partitions, shares)
      })
  }
}

/**
 * Phases 1 and 2: one pass over the sorted list. Folding a kind is a regular-expression
 * replace; lists hold few distinct spellings, so each spelling is folded once and found again
 * by the string itself.
 */
const partition = (sorted: ReadonlyArray<ScoredItem>): Partitions | SlicerError => {
  const keys: Array<string> = []
  const items: Array<Array<ScoredItem>> = []
  const indices: Array<Array<number>> = []
  const mass: Array<number> = []
  const bySpelling = new Map<string, number>()
  const byKey = new Map<string, number>()
  for (let i = 0; i < sorted.length; i++) {
    const scored = sorted[i]!
    const kind = scored.item.kind
    let p = bySpelling.get(kind)
    if (p === undefined) {
      const key = ContextKind.fold(kind)
      p = byKey.get(key)
      if (p === undefined) {
        p = keys.length
        byKey.set(key, p)
        keys.push(key)
        items.push([])
        indices.push([])
        mass.push(0)
      }
      bySpelling.set(kind, p)
    }
    items[p]!.push(scored)
    indices[p]!.push(i)
    const total = mass[p]! + scored.item.tokens
    if (!isSafeTotal(total)) return massTooLarge(kind)
    mass[p] = total
  }
  return { keys, items, indices, mass }
}

/** A kind's share and its cap, in tokens. */
interface Shares {
  readonly budget: Array<number>
  readonly cap: Array<number>
}

/** Phase 3: the chapter's DISTRIBUTE-BUDGET, one share per partition. */
const distribute = (
  partitions: Partitions,
  target: number,
  entries: ReadonlyArray<Entry>,
  byKey: ReadonlyMap<string, Entry>
): Shares | SlicerError => {
  // Step 1 and 2: the requires of every configured kind, present in the list or not.
  let totalRequired = 0
  for (const entry of entries) totalRequired += percentOf(entry.require, target)
  const unassigned = Math.max(0, target - totalRequired)

  const count = partitions.keys.length
  const requireTokens = new Array<number>(count)
  const capTokens = new Array<number>(count)
  // Step 3: the mass of the kinds that can grow beyond their require.
  let totalMass = 0
  for (let p = 0; p < count; p++) {
    const entry = byKey.get(partitions.keys[p]!)
    const require = entry === undefined ? 0 : percentOf(entry.require, target)
    const cap = entry === undefined ? target : percentOf(entry.cap, target)
    requireTokens[p] = require
    capTokens[p] = cap
    if (cap > require) {
      totalMass += partitions.mass[p]!
      // Only negative token counts, which Classify excludes, can carry this past a safe total
      // when each kind's mass is safe.
      if (!isSafeTotal(totalMass)) return massTooLarge(partitions.keys[p]!)
    }
  }
  // Step 4: require plus the proportional share, clamped to the cap.
  const budget = new Array<number>(count)
  for (let p = 0; p < count; p++) {
    const require = requireTokens[p]!
    const cap = capTokens[p]!
    const proportional = totalMass > 0 && cap > require
      ? floorMulDiv(unassigned, partitions.mass[p]!, totalMass)
      : 0
    budget[p] = Math.min(require + proportional, cap)
  }
  return { budget, cap: capTokens }
}

/** The chapter's percentage-to-tokens conversion, operation for operation. */
const percentOf = (percent: number, target: number): number => Math.floor(percent / 100.0 * target)

/**
 * `floor(a * b / c)` for safe integers, `a >= 0`, `c > 0`. While the product is a safe integer
 * the double division is exact enough: a quotient of integers below 2^53 that is not an integer
 * lies at least 1/c from the next one, farther than its rounding error. Beyond that, BigInt.
 */
const floorMulDiv = (a: number, b: number, c: number): number => {
  const product = a * b
  if (Number.isSafeInteger(product)) return Math.floor(product / c)
  const exact = BigInt(a) * BigInt(b)
  const divisor = BigInt(c)
  const quotient = exact / divisor
  // BigInt division truncates toward zero; the chapter floors.
  return Number(exact < 0n && quotient * divisor !== exact ? quotient - 1n : quotient)
}

/** Phase 4: each kind with a positive share, sliced by the inner slicer; selections merged. */
const sliceEach = (
  inner: Slicer.Definition,
  n: number,
  partitions: Partitions,
  shares: Shares
): Effect.Effect<Slicer.Selection, Slicer.SliceError> =>
  Effect.gen(function*() {
    const selected = new Uint32Array(n)
    let count = 0
    let reasons: Map<number, ExclusionReason> | undefined
    let shortfalls: Array<CountRequirementShortfall> | undefined
    for (let p = 0; p < partitions.keys.length; p++) {
      const share = shares.budget[p]!
      if (share <= 0) continue
      const indices = partitions.indices[p]!
      const selection = yield* inner.slice(partitions.items[p]!, { maxTokens: shares.cap[p]!, targetTokens: share })
      // Checked against the partition the inner slicer was given, under its name. Partitions
      // are disjoint, so indices distinct within each are distinct across them.
      const local = (yield* Slicer.checkIndices(inner.name, indices.length, selection.selected)).selected
      for (let k = 0; k < local.length; k++) selected[count++] = indices[local[k]!]!
      if (selection.reasons !== undefined) {
        for (const [j, reason] of selection.reasons) {
          // A reason for an index outside the partition explains nothing: dropped.
          if (j >>> 0 === j && j < indices.length) (reasons ??= new Map<number, ExclusionReason>()).set(indices[j]!, reason)
        }
      }
      if (selection.shortfalls !== undefined && selection.shortfalls.length > 0) {
        (shortfalls ??= []).push(...selection.shortfalls)
      }
    }
    return {
      selected: selected.subarray(0, count),
      ...(reasons === undefined ? {} : { reasons }),
      ...(shortfalls === undefined ? {} : { shortfalls })
    }
  })

const unsafeTarget = (target: number): SlicerError =>
  new SlicerError({
    slicer: name,
    reason: `targetTokens must be a safe integer to be shared out by percentages (got ${target})`
  })

const massTooLarge = (kind: string): SlicerError =>
  new SlicerError({
    slicer: name,
    reason: `the token counts of kind "${kind}" add up beyond exact integers (Number.MAX_SAFE_INTEGER)`
  })
