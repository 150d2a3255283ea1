/**
 * The name a misspelt one most likely stands for — an unknown key of a CLI input, an unknown
 * option of a front door (`outputReserv` → `outputReserve`).
 *
 * @internal
 */

/**
 * The optimal string alignment distance (Levenshtein with adjacent transpositions) between
 * two short strings: `pined` → `pinned` is 1, `contnet` → `content` is 1.
 */
const distance = (a: string, b: string): number => {
  const rows: Array<Array<number>> = []
  for (let i = 0; i <= a.length; i++) {
    const row: Array<number> = [i]
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j)
        continue
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1)
      row.push(best)
    }
    rows.push(row)
  }
  return rows[a.length]![b.length]!
}

/**
 * The known key `key` is most likely a misspelling of: the same key in another case, or the
 * nearest within a third of its length (at least one edit), so that `id` suggests nothing
 * rather than `kind`.
 */
export const suggest = (key: string, known: Iterable<string>): string | undefined => {
  let best: string | undefined
  let bestDistance = Math.max(1, Math.floor(key.length / 3)) + 1
  for (const candidate of known) {
    if (candidate.toLowerCase() === key.toLowerCase()) return candidate
    const d = distance(key.toLowerCase(), candidate.toLowerCase())
    if (d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  return best
}
