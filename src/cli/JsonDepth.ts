/**
 * JsonDepth: how deeply a command's JSON input may nest.
 *
 * `JSON.parse` reads any depth, but much of what follows recurses once per level —
 * `JSON.stringify` writing the output, the schema's messages quoting a value — and runs out of
 * stack a few thousand levels down. An item's `metadata` nested 5,000 deep then made
 * `cupel run` fail with "a bug in cupel" (exit 3) while writing its result. Every input is
 * therefore checked right after parsing, and one that nests deeper than {@link maxDepth} levels
 * of arrays and objects is refused as bad input (exit 2), with the path where it goes too deep.
 * No real input comes near the limit; every later step is then far from the stack's end.
 *
 * @since 0.3.0
 */
import { formatPath } from "../internal/conformanceMessages.ts"
import { isRecord } from "../internal/fastDecode.ts"

/**
 * The most arrays and objects a JSON input may hold one inside another, the document itself
 * counting as one: `{ "items": [ { "metadata": {} } ] }` nests 4 levels.
 *
 * @since 0.3.0
 * @category constants
 */
export const maxDepth = 512

/** How many segments of a too-deep path a message shows before `…`. */
const shownSegments = 8

/**
 * The path (innermost key first) to a container that lies more than `room - 1` levels below
 * `value`, itself an array or an object; `undefined` when there is none. The recursion is
 * bounded by `room`, so it cannot run out of stack itself.
 */
const tooDeepBelow = (value: object, room: number): Array<PropertyKey> | undefined => {
  if (room === 0) return []
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const element: unknown = value[i]
      if (typeof element === "object" && element !== null) {
        const path = tooDeepBelow(element, room - 1)
        if (path !== undefined) {
          path.push(i)
          return path
        }
      }
    }
    return undefined
  }
  if (!isRecord(value)) return undefined
  const record = value
  for (const key in record) {
    const field = record[key]
    if (typeof field === "object" && field !== null) {
      const path = tooDeepBelow(field, room - 1)
      if (path !== undefined) {
        path.push(key)
        return path
      }
    }
  }
  return undefined
}

/**
 * The problem with a parsed JSON value that nests deeper than `limit` levels (default
 * {@link maxDepth}), as a line for an input's problems: the path to the first level too deep,
 * cut short, then the rule. `undefined` when the value is within the limit.
 *
 * `problem({ items: [{ metadata: { a: {} } }] }, 4)` is
 * `items[0].metadata.a: nested deeper than 4 levels of arrays and objects, the most cupel reads`.
 *
 * @since 0.3.0
 * @category checks
 */
export const problem = (value: unknown, limit: number = maxDepth): string | undefined => {
  if (typeof value !== "object" || value === null) return undefined
  const reversed = tooDeepBelow(value, limit)
  if (reversed === undefined) return undefined
  const path = reversed.reverse()
  const shown = formatPath(path.slice(0, shownSegments)) + (path.length > shownSegments ? "…" : "")
  return `${shown}: nested deeper than ${limit} levels of arrays and objects, the most cupel reads`
}
