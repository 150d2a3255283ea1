/**
 * UnknownKeys: keys in an input's items that no item field has — a misspelt `"pined": true`,
 * which the schema ignores, so the item would run unpinned without a word.
 *
 * The commands warn about each such key on standard error, naming the first item that has it
 * and the known key it is closest to (`did you mean "pinned"?`), and `--strict` makes them an
 * error. The check is one pass over the parsed items, each item's own keys looked up in a set:
 * about 25 ms for a million items, against a second or more to decode them.
 *
 * @since 0.3.0
 */
import { formatPath } from "../internal/conformanceMessages.ts"
import { isRecord, itemKeys, scoredKeys } from "../internal/fastDecode.ts"

/**
 * One unknown key: where it was first found (`items[3].pined`), and in how many items in all.
 *
 * @since 0.3.0
 * @category models
 */
export interface UnknownKey {
  readonly key: string
  readonly path: string
  readonly count: number
  readonly suggestion: string | undefined
}

const knownItemKeys: ReadonlySet<string> = new Set(itemKeys)
const knownPairKeys: ReadonlySet<string> = new Set(scoredKeys)

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
 *
 * @since 0.3.0
 * @category suggestions
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

/**
 * Collects unknown keys, the first path of each and how often each occurs. The path is built
 * only when a key is first met: the pass over a million items allocates nothing per item.
 */
class Collector {
  private readonly found = new Map<string, { path: string; count: number; known: ReadonlySet<string> }>()
  /** The keys of `value` not in `known`; `value` is at `list[index]`, or `list[index].field`. */
  visit(value: unknown, known: ReadonlySet<string>, list: string, index: number, field?: string): void {
    if (!isRecord(value)) return
    for (const key in value) {
      if (known.has(key)) continue
      const seen = this.found.get(key)
      if (seen !== undefined) {
        seen.count++
        continue
      }
      const path = formatPath(field === undefined ? [list, index, key] : [list, index, field, key])
      this.found.set(key, { path, count: 1, known })
    }
  }
  result(): Array<UnknownKey> {
    return [...this.found].map(([key, { count, known, path }]) => ({ key, path, count, suggestion: suggest(key, known) }))
  }
}

/**
 * The unknown keys of a `cupel run` input's items (`items[i]`), in the order first met.
 *
 * @since 0.3.0
 * @category checks
 */
export const inRunInput = (value: unknown): Array<UnknownKey> => {
  const collector = new Collector()
  const items = isRecord(value) ? value["items"] : undefined
  if (Array.isArray(items)) for (let i = 0; i < items.length; i++) collector.visit(items[i], knownItemKeys, "items", i)
  return collector.result()
}

/**
 * The unknown keys of a `cupel place` input's items (`pinned[i]`, `scored[i].item`) and of its
 * `{ item, score }` pairs (`scored[i]`).
 *
 * @since 0.3.0
 * @category checks
 */
export const inPlaceInput = (value: unknown): Array<UnknownKey> => {
  const collector = new Collector()
  if (!isRecord(value)) return []
  const pinned = value["pinned"]
  if (Array.isArray(pinned)) for (let i = 0; i < pinned.length; i++) collector.visit(pinned[i], knownItemKeys, "pinned", i)
  const scored = value["scored"]
  if (Array.isArray(scored)) {
    for (let i = 0; i < scored.length; i++) {
      const pair: unknown = scored[i]
      collector.visit(pair, knownPairKeys, "scored", i)
      if (isRecord(pair)) collector.visit(pair["item"], knownItemKeys, "scored", i, "item")
    }
  }
  return collector.result()
}

/** How many unknown keys are described, one line each, before the rest are counted. */
const shownKeys = 10

/**
 * One line per unknown key (the first ten; then how many more): its first path, `unknown key`,
 * the suggestion, how many other items have it, and `ignored` unless the input is refused for
 * it. `items[3].pined: unknown key (did you mean "pinned"?), ignored`.
 *
 * @since 0.3.0
 * @category formatting
 */
export const lines = (unknown: ReadonlyArray<UnknownKey>, ignored: boolean): Array<string> => {
  const described = unknown.slice(0, shownKeys).map(({ count, path, suggestion }) =>
    `${path}: unknown key${suggestion === undefined ? "" : ` (did you mean ${JSON.stringify(suggestion)}?)`}` +
    (count > 1 ? `, in ${count.toLocaleString("en-US")} items` : "") +
    (ignored ? ", ignored" : "")
  )
  const rest = unknown.length - described.length
  return rest > 0 ? [...described, `and ${rest} more unknown key${rest === 1 ? "" : "s"}`] : described
}
