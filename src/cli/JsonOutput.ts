/**
 * JsonOutput: prints a JSON document in pieces.
 *
 * `JSON.stringify` of a million-item result is longer than V8's longest string (about 2^29
 * characters), and fails with "Invalid string length". The commands' output is therefore
 * written as batches of whole lines, each small, whose concatenation (one newline between
 * batches) is exactly `JSON.stringify(value, null, 2)`. The compact form (`--compact`) is one
 * line however long, so it is written in pieces through standard output's stream, which
 * takes text without adding a newline: their concatenation is exactly `JSON.stringify(value)`.
 *
 * @since 0.2.0
 */
import { Console, Effect, Stdio, Stream } from "effect"

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
 * large descendant, and allocates nothing (it runs on every element of a large array).
 */
const isLarge = (value: unknown): boolean => {
  if (Array.isArray(value)) {
    if (value.length > largeArray) return true
    for (let i = 0; i < value.length; i++) if (isLarge(value[i])) return true
    return false
  }
  if (!isRecord(value)) return false
  for (const key in value) if (Object.hasOwn(value, key) && isLarge(value[key])) return true
  return false
}

/** `value` in one segment. */
const whole = (value: unknown, pad: string, prefix: string, suffix: string): string =>
  // JSON text holds no raw newline but the ones indentation adds: each starts a line to indent.
  prefix + (JSON.stringify(value, null, 2) ?? "null").replaceAll("\n", "\n" + pad) + suffix

/** The most elements written by one `JSON.stringify` call. */
const runLength = 256

/**
 * Elements `start … end-1` of `array`, none of them large, as the lines `JSON.stringify` writes
 * for them inside the array: the run stringified as an array of its own, its brackets dropped,
 * every line moved right by `pad`. An element with no JSON form is written as null, as
 * `JSON.stringify` does. A run too long for one string (its elements may hold long strings)
 * is written element by element instead.
 */
function* smallRun(
  array: ReadonlyArray<unknown>,
  start: number,
  end: number,
  pad: string,
  suffix: string
): Generator<string> {
  let text: string | undefined
  try {
    text = JSON.stringify(array.slice(start, end), null, 2)
  } catch {
    text = undefined
  }
  if (text === undefined) {
    const inner = pad + "  "
    for (let i = start; i < end; i++) {
      const element: unknown = array[i]
      yield whole(hasJson(element) ? element : null, inner, inner, i < end - 1 ? "," : suffix)
    }
    return
  }
  // "[\n" + the elements' lines, each indented by two + "\n]".
  yield pad + text.slice(2, -2).replaceAll("\n", "\n" + pad) + suffix
}

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
    let i = 0
    while (i < value.length) {
      const element: unknown = value[i]
      if (isLarge(element)) {
        yield* segments(element, inner, inner, i < value.length - 1 ? "," : "")
        i++
        continue
      }
      // A run of small elements, written by one JSON.stringify: far fewer calls and segments
      // than one per element, with the same text.
      let end = i + 1
      while (end < value.length && end - i < runLength && !isLarge(value[end])) end++
      yield* smallRun(value, i, end, pad, end < value.length ? "," : "")
      i = end
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

/**
 * The text of `JSON.stringify(value)` in pieces: small values in one piece each, large arrays
 * (and the objects and arrays that hold them) opened up, runs of small elements written by one
 * `JSON.stringify` each, as {@link log} does for the indented form.
 *
 * @since 0.3.0
 * @category output
 */
export function* compactPieces(value: unknown): Generator<string> {
  if (!isLarge(value)) {
    yield JSON.stringify(value) ?? "null"
    return
  }
  if (Array.isArray(value)) {
    yield "["
    let i = 0
    while (i < value.length) {
      if (i > 0) yield ","
      const element: unknown = value[i]
      if (isLarge(element)) {
        yield* compactPieces(element)
        i++
        continue
      }
      let end = i + 1
      while (end < value.length && end - i < runLength && !isLarge(value[end])) end++
      yield* compactRun(value, i, end)
      i = end
    }
    yield "]"
    return
  }
  if (!isRecord(value)) {
    yield JSON.stringify(value) ?? "null"
    return
  }
  const entries = Object.entries(value).filter(([, v]) => hasJson(v))
  yield "{"
  for (let i = 0; i < entries.length; i++) {
    const [key, v] = entries[i]!
    yield `${i > 0 ? "," : ""}${JSON.stringify(key)}:`
    yield* compactPieces(v)
  }
  yield "}"
}

/** Elements `start … end-1` of `array`, none large, as `JSON.stringify` writes them in it. */
function* compactRun(array: ReadonlyArray<unknown>, start: number, end: number): Generator<string> {
  let text: string | undefined
  try {
    text = JSON.stringify(array.slice(start, end))
  } catch {
    text = undefined
  }
  if (text !== undefined) {
    yield text.slice(1, -1)
    return
  }
  // Too long for one string: element by element.
  for (let i = start; i < end; i++) {
    const element: unknown = array[i]
    yield (i > start ? "," : "") + (JSON.stringify(hasJson(element) ? element : null) ?? "null")
  }
}

/**
 * Prints `value` as `JSON.stringify(value)` — one line, no indentation — followed by a newline,
 * in batches written to standard output's stream, whatever its size. A write that fails (the
 * reader has gone: `cupel run --compact | head -c 100`) ends the output quietly, as a closed
 * pipe ends any command's.
 *
 * @since 0.3.0
 * @category output
 */
export const logCompact = (value: unknown): Effect.Effect<void, never, Stdio.Stdio> =>
  Effect.gen(function*() {
    const stdio = yield* Stdio.Stdio
    const batches = function*(): Generator<string> {
      let batch = ""
      for (const piece of compactPieces(value)) {
        batch += piece
        if (batch.length >= batchSize) {
          yield batch
          batch = ""
        }
      }
      yield batch + "\n"
    }
    yield* Stream.fromIterable({ [Symbol.iterator]: batches }).pipe(Stream.run(stdio.stdout()), Effect.ignore)
  })
