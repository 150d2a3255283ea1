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
import { suggest as suggestName } from "../internal/suggest.ts"

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
 * The known key `key` is most likely a misspelling of (`internal/suggest.ts`).
 *
 * @since 0.3.0
 * @category suggestions
 */
export const suggest = suggestName

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
