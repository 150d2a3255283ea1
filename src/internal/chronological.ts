/**
 * The chronological placement order.
 *
 * @internal
 */
import type { ScoredItem } from "../ScoredItem.ts"

/**
 * Items with a timestamp first, ascending by instant, ties by input index; then items without
 * a timestamp in input order. Scores play no part.
 * Returns `order` with `order[position] = input index`.
 */
export const chronologicalOrder = (items: ReadonlyArray<ScoredItem>): Uint32Array => {
  const n = items.length
  const order = new Uint32Array(n)
  const times = new Float64Array(n)
  let timed = 0
  // Timestamped indices fill from the front, the others from the back (reversed below), so one
  // pass partitions while keeping input order within each part.
  let untimed = n
  for (let i = 0; i < n; i++) {
    const ts = items[i]!.item.timestamp
    if (ts === undefined) {
      order[--untimed] = i
    } else {
      times[i] = ts.epochMilliseconds
      order[timed++] = i
    }
  }
  order.subarray(untimed).reverse()
  order.subarray(0, timed).sort((a, b) => times[a]! - times[b]! || a - b)
  return order
}
