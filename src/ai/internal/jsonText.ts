/**
 * A value's JSON text as `PromptRender` writes it — `JSON.stringify(value) ?? String(value)`,
 * and `String(value)` when `JSON.stringify` throws (a cycle, a `bigint`) — made in pieces with
 * yields to the event loop between them when the value is large (issue 27, item 5;
 * docs/design.md items 90 and 113): a 5 MB tool result, a JSON tree of thousands of rows or a
 * multi-megabyte string deep in one, is not written in one stretch.
 *
 * The texts of the last few large values are kept (strings by their text, other values by their
 * identity: messages are immutable, and a conversion, a candidate and a probe of one message
 * share its values), so that the synchronous writer then finds them.
 *
 * The writer in pieces follows `JSON.stringify`'s steps (ECMA-262 `SerializeJSONProperty`):
 * `toJSON(key)` called once per property with its key; `Number`, `String`, `Boolean` and
 * `BigInt` objects unwrapped; `undefined`, functions and symbols left out of objects and
 * written `null` in arrays; non-finite numbers `null`; a `bigint` or a cycle throws (and the
 * text is then `String(value)`, as the synchronous writer's). A small subtree (under
 * {@link smallChars} by a bounded walk) is written by `JSON.stringify` itself, inside a one-key
 * holder so that its `toJSON` sees its own key.
 *
 * @internal
 */
import { Effect } from "effect"

/** Strings shorter than this, and values whose walk is shorter, are written at once. */
export const smallChars = 1 << 18

/** The characters written between two yields (about a millisecond of a JSON tree's walk). */
export const pieceChars = 16_384

/**
 * A text written in pieces: the text itself, made by concatenating the pieces (`+`, which V8
 * keeps as a rope of them: no copy of the whole is made until a reader flattens it), and the
 * pieces, for the readers that must read every character (a hash) without flattening it
 * (docs/design.md item 117).
 */
interface Written {
  readonly text: string
  readonly pieces: ReadonlyArray<string>
}

const kept = new Map<unknown, Written>()
const keptValues = 4

const remember = (value: unknown, written: Written): void => {
  if (kept.size >= keptValues) kept.delete(kept.keys().next().value)
  kept.set(value, written)
}

/** The text of a value written before, if it is still kept: `JSON.stringify(value)`'s. */
export const known = (value: unknown): string | undefined => kept.get(value)?.text

/**
 * The pieces of a kept text, in order (their concatenation is {@link known}'s text), or
 * `undefined`: read these, not the text, to read every character without making the whole text
 * as one string (a copy of 10 MB is one stretch of 30–45 ms on this machine, design item 117).
 */
export const knownPieces = (value: unknown): ReadonlyArray<string> | undefined => kept.get(value)?.pieces

/** Whether the walk of `value` reaches `budget` characters (strings by length, else 8 a node). */
const large = (value: unknown, budget: { n: number }): boolean => {
  if (typeof value === "string") return (budget.n -= value.length) < 0
  budget.n -= 8
  if (budget.n < 0) return true
  if (typeof value !== "object" || value === null) return false
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (large(value[i], budget)) return true
    return false
  }
  for (const key of Object.keys(value)) {
    budget.n -= key.length
    if (large(Reflect.get(value, key), budget)) return true
  }
  return false
}

/** {@link large}, a nesting too deep for the stack counted as large (its writer then fails alike). */
const largeSafe = (value: unknown, budget: number): boolean => {
  try {
    return large(value, { n: budget })
  } catch {
    return true
  }
}

/** Whether `value` is worth writing in pieces: a long string, or a tree whose walk is long. */
export const isLarge = (value: unknown): boolean =>
  typeof value === "string" ? value.length > smallChars : typeof value === "object" && value !== null && largeSafe(value, smallChars)

/** `JSON.stringify(value) ?? String(value)`, `String(value)` when it throws; a kept text first. */
export const jsonText = (value: unknown): string => {
  const text = typeof value === "object" || (typeof value === "string" && value.length > smallChars) ? known(value) : undefined
  if (text !== undefined) return text
  let made: string
  try {
    made = JSON.stringify(value) ?? String(value)
  } catch {
    made = String(value)
  }
  if (typeof value === "string" ? value.length > smallChars : false) remember(value, { text: made, pieces: [made] })
  return made
}

/**
 * The writer's output: the texts written since its last yield (`parts`), joined into one chunk
 * at each yield (joining a whole tree's hundred thousand parts at the end took 80 ms), and the
 * characters written since its last yield.
 */
interface Out {
  readonly chunks: Array<string>
  readonly parts: Array<string>
  since: number
  /** The texts joined at the yields since the last chunk, and their length. */
  readonly pending: Array<string>
  pendingChars: number
}

/**
 * The characters of a chunk of the text kept: large enough that V8 makes each in its
 * large-object space (over 128 KB), so that a young-generation collection does not copy the
 * text's 10 MB to the old generation piece by piece (scavenges of 16–73 ms measured with 32 KB
 * chunks, design item 118); one such join is about a millisecond.
 */
export const chunkChars = 1 << 18

/**
 * The parts written since the last yield joined (the writer is about to yield), and a chunk
 * made of what was joined since the last one when it is long enough, or at the `end`.
 */
const flush = (out: Out, end = false): void => {
  if (out.parts.length > 0) {
    const joined = out.parts.join("")
    out.pending.push(joined)
    out.pendingChars += joined.length
  }
  out.parts.length = 0
  out.since = 0
  if (out.pending.length > 0 && (end || out.pendingChars >= chunkChars)) {
    out.chunks.push(out.pending.join(""))
    out.pending.length = 0
    out.pendingChars = 0
  }
}

const push = (out: Out, text: string): boolean => {
  out.parts.push(text)
  out.since += text.length
  if (out.since < pieceChars) return false
  flush(out)
  return true
}

/** A long string as JSON, in pieces (never between the two halves of a surrogate pair). */
function* quoted(value: string, out: Out): Generator<void, void> {
  if (value.length <= pieceChars) {
    if (push(out, JSON.stringify(value))) yield
    return
  }
  out.parts.push("\"")
  for (let at = 0; at < value.length;) {
    let end = Math.min(value.length, at + pieceChars)
    const code = value.charCodeAt(end)
    if (end < value.length && code >= 0xdc00 && code <= 0xdfff) end--
    out.parts.push(JSON.stringify(value.slice(at, end)).slice(1, -1))
    at = end
    flush(out)
    yield
  }
  out.parts.push("\"")
}

const hasToJSON = (value: object): value is { toJSON: (key: string) => unknown } =>
  "toJSON" in value && typeof value.toJSON === "function"

/**
 * `SerializeJSONProperty(key, holder)` into `out`; `false` when the property is left out
 * (`undefined`, a function, a symbol). Yields (the generator's) every {@link pieceChars}.
 */
function* property(holder: object, key: string, out: Out, path: Array<object>, small: number): Generator<void, boolean> {
  let value: unknown = Reflect.get(holder, key)
  if (typeof value === "object" && value !== null && !largeSafe(value, small)) {
    // Small: JSON.stringify itself, in a holder of this one key (its toJSON sees the key).
    // A cycle back to an ancestor makes the walk long, so it is never taken for small.
    const text = JSON.stringify({ [key]: value })
    if (text === "{}") return false
    if (push(out, text.slice(JSON.stringify(key).length + 2, -1))) yield
    return true
  }
  if ((typeof value === "object" && value !== null) || typeof value === "bigint") {
    const boxed: object = Object(value)
    if (hasToJSON(boxed)) value = boxed.toJSON(key)
  }
  if (value instanceof Number) value = Number(value)
  else if (value instanceof String) value = String(value)
  else if (value instanceof Boolean || value instanceof BigInt) value = value.valueOf()
  if (value === null) {
    if (push(out, "null")) yield
    return true
  }
  switch (typeof value) {
    case "boolean":
      if (push(out, value ? "true" : "false")) yield
      return true
    case "number":
      if (push(out, Number.isFinite(value) ? String(value) : "null")) yield
      return true
    case "string":
      yield* quoted(value, out)
      return true
    case "bigint":
      throw new TypeError("Do not know how to serialize a BigInt")
    case "object": {
      if (path.includes(value)) throw new TypeError("Converting circular structure to JSON")
      path.push(value)
      if (Array.isArray(value)) {
        out.parts.push("[")
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out.parts.push(",")
          if (!(yield* property(value, String(i), out, path, small))) out.parts.push("null")
        }
        out.parts.push("]")
      } else {
        out.parts.push("{")
        let first = true
        for (const k of Object.keys(value)) {
          const mark = out.parts.length
          out.parts.push(`${first ? "" : ","}${JSON.stringify(k)}:`)
          if (yield* property(value, k, out, path, small)) first = false
          else out.parts.length = mark
        }
        out.parts.push("}")
      }
      path.pop()
      return true
    }
    default:
      return false
  }
}

/**
 * The pieces' text as one string by concatenation (`+`): V8 keeps it as a rope of the pieces,
 * with no copy of the whole (a `join` is one: 32–44 ms for 10 MB here, design item 117). Halves
 * concatenated, so the rope is balanced (its depth the log of the pieces' number).
 */
export const concat = (pieces: ReadonlyArray<string>, from = 0, to = pieces.length): string =>
  to - from <= 1
    ? (pieces[from] ?? "")
    : concat(pieces, from, (from + to) >>> 1) + concat(pieces, (from + to) >>> 1, to)

/** The JSON text of `value` in pieces, `undefined` when `JSON.stringify` would throw. */
const written = (value: unknown, small: number): Effect.Effect<Written | undefined> =>
  Effect.gen(function*() {
    const out: Out = { chunks: [], parts: [], since: 0, pending: [], pendingChars: 0 }
    try {
      const writing = property({ "": value }, "", out, [], small)
      let step = writing.next()
      while (step.done !== true) {
        yield* Effect.yieldNow
        step = writing.next()
      }
      if (!step.value) {
        const text = String(value)
        return { text, pieces: [text] }
      }
      flush(out, true)
      return { text: concat(out.chunks), pieces: out.chunks }
    } catch {
      return undefined
    }
  })

/**
 * The JSON text of `value` written in pieces, whatever its size: subtrees whose walk is under
 * `small` characters are written by `JSON.stringify` at once. {@link jsonText}'s text.
 */
export const inPieces = (value: unknown, small: number = pieceChars): Effect.Effect<string> =>
  Effect.map(written(value, small), (made) => made?.text ?? String(value))

/**
 * {@link jsonText}, the same text, written in pieces with a yield to the event loop between
 * them when the value {@link isLarge}; kept for the synchronous writer (only when
 * `JSON.stringify` would not throw: a kept text is always `JSON.stringify`'s).
 */
export const jsonTextEffect = (value: unknown): Effect.Effect<string> => {
  const text = known(value)
  if (text !== undefined) return Effect.succeed(text)
  if (!isLarge(value)) return Effect.sync(() => jsonText(value))
  return Effect.map(written(value, pieceChars), (made) => {
    if (made === undefined) return String(value)
    remember(value, made)
    return made.text
  })
}
