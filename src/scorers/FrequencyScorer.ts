/**
 * FrequencyScorer: the share of the other items that have a tag in common with an item.
 *
 * An item scores `m / (n − 1)`, where `n` is the number of items and `m` the number of other
 * items sharing at least one tag with it, tags compared under ASCII case folding (`"Web"`
 * matches `"web"`). "Other" is by object identity: every position holding the very item object
 * being scored is left out of `m`, while equal copies count; the denominator stays `n − 1`.
 * Items without tags score 0.0, and so does a lone item.
 *
 * The chapter compares every item with every other (O(n²·t²)). Here each item's tags are folded
 * and reduced to a set once, and items with the same set are counted together. For a set `q`,
 * the number of items meeting it is found by inclusion–exclusion over the subsets of `q`, from
 * counts of how many items hold each subset (O(2^|q|), for sets of up to
 * {@link subsetLimit} tags), plus, for items whose own set is larger than that, a walk over the
 * sets that share a tag with `q`. Counts are integers, so the results equal the chapter's.
 *
 * Cost: O(n·t + Σ 2^k) for tag sets of size k ≤ 8, the common case; items with more than 8
 * distinct tags are compared through the tag index, which is quadratic in the number of
 * distinct such sets that share tags. No exact method can be much faster for large tag sets in
 * general: counting, for every set, the sets it meets answers whether any two sets are
 * disjoint, the orthogonal-vectors problem, for which no algorithm much faster than quadratic
 * is known (and none exists if the strong exponential time hypothesis holds).
 *
 * @since 0.2.0
 */
import { Effect } from "effect"
import type { ContextItem } from "../ContextItem.ts"
import { foldAscii } from "../internal/caseInsensitiveName.ts"
import { positionsOfRepeats } from "./internal/repeatedObjects.ts"
import * as Scorer from "./Scorer.ts"

/**
 * The scorer's name.
 *
 * @since 0.2.0
 * @category constants
 */
export const name = "frequency"

/**
 * Tag sets up to this size are counted by inclusion–exclusion over their subsets.
 *
 * @since 0.2.0
 * @category constants
 */
export const subsetLimit = 8

const subsetKey = (tags: ReadonlyArray<number>, mask: number): string => {
  let key = ""
  for (let b = 0; b < tags.length; b++) {
    if ((mask & (1 << b)) !== 0) key = key === "" ? String(tags[b]) : `${key},${tags[b]}`
  }
  return key
}

const popcount = (x: number): number => {
  let c = 0
  for (let v = x; v !== 0; v &= v - 1) c++
  return c
}

/**
 * Scores `items`; `scores[i]` is the score of `items[i]`.
 *
 * @since 0.2.0
 * @category scoring
 */
export const scores = (items: ReadonlyArray<ContextItem>): Float64Array => {
  const n = items.length
  const out = new Float64Array(n)
  if (n <= 1) return out

  // Tags → ids under case folding; each spelling is folded once.
  const idBySpelling = new Map<string, number>()
  const idByFolded = new Map<string, number>()
  // Distinct tag sets ("signatures"): sorted, distinct tag ids, and how many positions hold each.
  const sigOf = new Int32Array(n).fill(-1)
  const sigIndex = new Map<string, number>()
  const sigTags: Array<Array<number>> = []
  const sigCount: Array<number> = []
  for (let i = 0; i < n; i++) {
    const tags = items[i]!.tags
    if (tags.length === 0) continue
    const ids: Array<number> = []
    for (let t = 0; t < tags.length; t++) {
      const spelling = tags[t]!
      let id = idBySpelling.get(spelling)
      if (id === undefined) {
        const folded = foldAscii(spelling)
        id = idByFolded.get(folded)
        if (id === undefined) {
          id = idByFolded.size
          idByFolded.set(folded, id)
        }
        idBySpelling.set(spelling, id)
      }
      ids.push(id)
    }
    let set = ids
    if (ids.length > 1) {
      ids.sort((a, b) => a - b)
      set = [ids[0]!]
      for (let t = 1; t < ids.length; t++) if (ids[t] !== ids[t - 1]) set.push(ids[t]!)
    }
    const key = set.join(",")
    let sig = sigIndex.get(key)
    if (sig === undefined) {
      sig = sigTags.length
      sigIndex.set(key, sig)
      sigTags.push(set)
      sigCount.push(0)
    }
    sigCount[sig]!++
    sigOf[i] = sig
  }
  const signatures = sigTags.length
  if (signatures === 0) return out

  // For small sets: how many positions hold each subset. For large ones: a tag → sets index.
  const holding = new Map<string, number>()
  const tagCount = idByFolded.size
  const largeByTag: Array<Array<number>> = Array.from({ length: tagCount }, () => [])
  let anyLarge = false
  for (let s = 0; s < signatures; s++) {
    const tags = sigTags[s]!
    const count = sigCount[s]!
    if (tags.length <= subsetLimit) {
      const masks = 1 << tags.length
      for (let mask = 1; mask < masks; mask++) {
        const key = subsetKey(tags, mask)
        holding.set(key, (holding.get(key) ?? 0) + count)
      }
    } else {
      anyLarge = true
      for (const t of tags) largeByTag[t]!.push(s)
    }
  }
  const allByTag: Array<Array<number>> = anyLarge ? Array.from({ length: tagCount }, () => []) : []
  if (anyLarge) for (let s = 0; s < signatures; s++) for (const t of sigTags[s]!) allByTag[t]!.push(s)

  // meeting[s]: positions whose tag set shares a tag with set s (its own positions included).
  const meeting = new Float64Array(signatures)
  const stamp = new Int32Array(signatures).fill(-1)
  for (let s = 0; s < signatures; s++) {
    const tags = sigTags[s]!
    let total = 0
    const walk = (index: ReadonlyArray<ReadonlyArray<number>>) => {
      for (const t of tags) {
        for (const other of index[t]!) {
          if (stamp[other] !== s) {
            stamp[other] = s
            total += sigCount[other]!
          }
        }
      }
    }
    if (tags.length <= subsetLimit) {
      const masks = 1 << tags.length
      for (let mask = 1; mask < masks; mask++) {
        const held = holding.get(subsetKey(tags, mask))!
        total += (popcount(mask) & 1) === 1 ? held : -held
      }
      if (anyLarge) walk(largeByTag)
    } else {
      walk(allByTag)
    }
    meeting[s] = total
  }

  // Leave out every position holding the item object itself; usually that is only its own.
  const repeats = positionsOfRepeats(items)
  const denominator = n - 1
  for (let i = 0; i < n; i++) {
    const sig = sigOf[i]!
    if (sig < 0) continue
    const self = repeats === undefined ? 1 : repeats.get(items[i]!)!.length
    out[i] = (meeting[sig]! - self) / denominator
  }
  return out
}

/**
 * The frequency scorer.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (): Scorer.Definition => ({
  name,
  scoreAll: (items) => Effect.sync(() => scores(items))
})

/**
 * Provides the frequency scorer as the pipeline's `Scorer`.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = Scorer.layer(make())
