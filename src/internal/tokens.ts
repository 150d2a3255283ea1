/**
 * Exact token sums.
 *
 * Every token count is a safe integer, and a running total stays exact while it is one. Adding
 * a safe integer to a safe total gives at most 2^54 − 2, still far from the next power of two,
 * so a total that has left the safe range is always seen as larger than MAX_SAFE_INTEGER even
 * if the addition rounded. Checking after each addition is therefore enough.
 *
 * @internal
 */

/** True when `total` is still an exact token total. */
export const isSafeTotal = (total: number): boolean => total <= Number.MAX_SAFE_INTEGER && total >= -Number.MAX_SAFE_INTEGER

/**
 * The sum of `tokens(items[i])` over all items; when it leaves the safe range, the number of
 * items added by then instead.
 */
export const sumTokens = <A>(
  items: ReadonlyArray<A>,
  tokens: (item: A) => number
): { readonly ok: true; readonly total: number } | { readonly ok: false; readonly count: number } => {
  let total = 0
  for (let i = 0; i < items.length; i++) {
    total += tokens(items[i]!)
    if (!isSafeTotal(total)) return { ok: false, count: i + 1 }
  }
  return { ok: true, total }
}
