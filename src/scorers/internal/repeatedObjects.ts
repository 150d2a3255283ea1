/**
 * Where one object stands at several positions of a list.
 *
 * The chapters speak of items by reference: "the other items" (FrequencyScorer) leaves out every
 * position holding the very object being scored, and ScaledScorer's raw score is the one at the
 * last position holding it. Only a list that holds one object twice tells these readings apart
 * from plain positions, so the scorers ask here once per call and take the positional fast path
 * when the answer is `undefined`, which is nearly always.
 *
 * @internal
 */

/**
 * The positions of each object in `items`, ascending, or `undefined` when every object appears
 * once. The map is only built in the rare case; the common one costs one pass through a `Set`.
 */
export const positionsOfRepeats = <A extends object>(
  items: ReadonlyArray<A>
): ReadonlyMap<A, ReadonlyArray<number>> | undefined => {
  const n = items.length
  const seen = new Set<A>()
  for (let i = 0; i < n; i++) seen.add(items[i]!)
  if (seen.size === n) return undefined
  const positions = new Map<A, Array<number>>()
  for (let i = 0; i < n; i++) {
    const item = items[i]!
    const list = positions.get(item)
    if (list === undefined) positions.set(item, [i])
    else list.push(i)
  }
  return positions
}
