/**
 * Deduplicate: Stage 3 of the pipeline.
 *
 * Items whose `content` is equal, byte for byte (JavaScript string equality: the same UTF-16
 * code units, no normalisation or case folding), are duplicates; the one with the highest
 * score survives, the earliest on a tie. Survivors keep their order.
 *
 * @since 0.2.0
 */
import { Effect } from "effect"
import type { ContextItem } from "./ContextItem.ts"

/**
 * What Deduplicate kept and removed.
 *
 * - `kept` — indices of the surviving items, ascending.
 * - `removed` — each removed item's index and the index of the survivor it lost to, in index
 *   order.
 *
 * @since 0.2.0
 * @category models
 */
export interface Deduplicated {
  readonly kept: ArrayLike<number>
  readonly removed: ReadonlyArray<{ readonly index: number; readonly survivor: number }>
}

/**
 * Deduplicates `items` by content, given their `scores`; with `enabled` false, keeps all.
 * One pass with a map from content to the best index so far, and one to collect. Runs in the
 * span `cupel.stage.deduplicate`.
 *
 * @since 0.2.0
 * @category stages
 */
export const deduplicate: (
  items: ReadonlyArray<ContextItem>,
  scores: ArrayLike<number>,
  enabled: boolean
) => Effect.Effect<Deduplicated> = Effect.fn("cupel.stage.deduplicate")(
  function*(items: ReadonlyArray<ContextItem>, scores: ArrayLike<number>, enabled: boolean) {
    const result = enabled ? byContent(items, scores) : keepAll(items.length)
    yield* Effect.annotateCurrentSpan({
      "cupel.stage.name": "deduplicate",
      "cupel.stage.item_count_in": items.length,
      "cupel.stage.item_count_out": result.kept.length,
      "cupel.exclusion.count": result.removed.length
    })
    return result
  }
)

const keepAll = (n: number): Deduplicated => {
  const kept = new Uint32Array(n)
  for (let i = 0; i < n; i++) kept[i] = i
  return { kept, removed: [] }
}

const byContent = (items: ReadonlyArray<ContextItem>, scores: ArrayLike<number>): Deduplicated => {
  const n = items.length
  const best = new Map<string, number>()
  for (let i = 0; i < n; i++) {
    const content = items[i]!.content
    const existing = best.get(content)
    // Strictly greater: on a tie the earlier item, already in the map, stays.
    if (existing === undefined || scores[i]! > scores[existing]!) best.set(content, i)
  }
  if (best.size === n) return keepAll(n)
  const kept = new Uint32Array(best.size)
  const removed: Array<{ readonly index: number; readonly survivor: number }> = []
  let k = 0
  for (let i = 0; i < n; i++) {
    const survivor = best.get(items[i]!.content)!
    if (survivor === i) kept[k++] = i
    else removed.push({ index: i, survivor })
  }
  return { kept, removed }
}
