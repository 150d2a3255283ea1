/**
 * JsonOutput: prints a JSON document in pieces.
 *
 * `JSON.stringify` of a million-item result is longer than V8's longest string (about 2^29
 * characters), and fails with "Invalid string length". The commands' output is therefore
 * written as batches of whole lines, each small, whose concatenation (one newline between
 * batches) is exactly `JSON.stringify(value, null, 2)`.
 *
 * @since 0.2.0
 */
import { Console, Effect } from "effect"

/** Arrays longer than this are written element by element; anything smaller in one piece. */
const largeArray = 64

/** Characters per batch written to the console. */
const batchSize = 1 << 20

/** Whether JSON has a form for `value` (JSON.stringify leaves out or nulls the others). */
const hasJson = (value: unknown): boolean =>
  value !== undefined && typeof value !== "function" && typeof value !== "symbol"

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value) &&
  Object.getPrototypeOf(value) === Object.prototype

/**
 * Whether `value` holds, at any depth through plain objects and arrays, an array worth
 * splitting: a small array holding a large one is split too. The search stops at the first
 * large descendant.
 */
const isLarge = (value: unknown): boolean =>
  Array.isArray(value)
    ? value.length > largeArray || value.some(isLarge)
    : isRecord(value) && Object.values(value).some(isLarge)

/** `value` in one segment. */
const whole = (value: unknown, pad: string, prefix: string, suffix: string): string =>
  // JSON text holds no raw newline but the ones indentation adds: each starts a line to indent.
  prefix + (JSON.stringify(value, null, 2) ?? "null").replaceAll("\n", "\n" + pad) + suffix

/**
 * The lines of `JSON.stringify(value, null, 2)` as segments of whole lines, `prefix` before the
 * first and `suffix` after the last, every line but the first indented by `pad`.
 */
function* segments(value: unknown, pad: string, prefix: string, suffix: string): Generator<string> {
  if (!isLarge(value)) {
    yield whole(value, pad, prefix, suffix)
    return
  }
  const inner = pad + "  "
  if (Array.isArray(value)) {
    yield prefix + "["
    for (let i = 0; i < value.length; i++) {
      // As JSON.stringify does: an element that has no JSON form is written as null.
      const element: unknown = value[i]
      yield* segments(hasJson(element) ? element : null, inner, inner, i < value.length - 1 ? "," : "")
    }
    yield pad + "]" + suffix
    return
  }
  if (!isRecord(value)) {
    yield whole(value, pad, prefix, suffix)
    return
  }
  // Keys whose value has no JSON form (undefined, functions) are left out, as JSON.stringify does.
  const entries = Object.entries(value).filter(([, v]) => hasJson(v))
  yield prefix + "{"
  for (let i = 0; i < entries.length; i++) {
    const [key, v] = entries[i]!
    yield* segments(v, inner, `${inner}${JSON.stringify(key)}: `, i < entries.length - 1 ? "," : "")
  }
  yield pad + "}" + suffix
}

/**
 * Prints `value` as `JSON.stringify(value, null, 2)` followed by a newline, in batches of whole
 * lines, whatever its size.
 *
 * @since 0.2.0
 * @category output
 */
export const log = (value: unknown): Effect.Effect<void> =>
  Effect.gen(function*() {
    let batch: Array<string> = []
    let length = 0
    for (const segment of segments(value, "", "", "")) {
      batch.push(segment)
      length += segment.length + 1
      if (length >= batchSize) {
        yield* Console.log(batch.join("\n"))
        batch = []
        length = 0
      }
    }
    if (batch.length > 0) yield* Console.log(batch.join("\n"))
  })
