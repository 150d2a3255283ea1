/**
 * PlaceInput: the JSON that `cupel place` and `cupel demo --input` read.
 *
 * ```json
 * {
 *   "budget": { "maxTokens": 8192, "targetTokens": 2000 },
 *   "pinned": [{ "content": "You are terse.", "tokens": 5 }],
 *   "scored": [{ "item": { "content": "Paris is the capital of France.", "tokens": 8 }, "score": 0.8 }]
 * }
 * ```
 *
 * `budget` is a `ContextBudget`, `pinned` a list of `ContextItem`s and `scored` a list of
 * `{ item, score }` pairs, all in the library's JSON form (camelCase keys, RFC 3339 timestamps
 * with an offset). `pinned` and `scored` may be left out. Items listed under `pinned` are pinned
 * whatever their own `pinned` field says. Every problem is reported with the path of its field.
 *
 * @since 0.1.0
 */
import { Data, Effect, Exit, FileSystem, Option, Result, Schema, SchemaGetter, Stdio, Stream } from "effect"
import * as ContextBudget from "../ContextBudget.ts"
import * as ContextItem from "../ContextItem.ts"
import { describePlatformError, schemaProblems } from "../internal/conformanceMessages.ts"
import * as DecodeItems from "./internal/decodeItems.ts"
import * as FastDecode from "../internal/fastDecode.ts"
import * as ScoredItem from "../ScoredItem.ts"
import * as JsonDepth from "./JsonDepth.ts"
import * as TerminalText from "./TerminalText.ts"
import * as UnknownKeys from "./UnknownKeys.ts"

const infinityNames = ["Infinity", "-Infinity"] as const

/** `"Infinity"` or `"-Infinity"` as the number it names; any other string is refused. */
const InfinityName = Schema.String.check(
  Schema.makeFilter((s) => infinityNames.some((name) => name === s) || `Expected a number, got ${JSON.stringify(s)}`)
).pipe(Schema.decodeTo(Schema.Number, {
  decode: SchemaGetter.transform((s: string) => (s === "Infinity" ? Infinity : -Infinity)),
  encode: SchemaGetter.transform((n: number) => (n > 0 ? "Infinity" : "-Infinity"))
}))

/**
 * A score in a `cupel place` input: any number but NaN (`ScoredItem.Score`), or the string
 * `"Infinity"` or `"-Infinity"`, as `cupel place` writes an infinite score — JSON has no
 * number for one, and `JSON.stringify` would write `null`, so that the output could not be
 * read back. (Effect's JSON codec for numbers spells them the same way.)
 *
 * @since 0.3.0
 * @category schemas
 */
export const Score = Schema.Union([ScoredItem.Score, InfinityName]).annotate({ expected: "a number" })

/**
 * A score as `cupel place` writes it: the number, or `"Infinity"` / `"-Infinity"` for an
 * infinite one (see {@link Score}).
 *
 * @since 0.3.0
 * @category encoding
 */
export const encodeScore = (score: number): number | "Infinity" | "-Infinity" =>
  Number.isFinite(score) || Number.isNaN(score) ? score : score > 0 ? "Infinity" : "-Infinity"

/**
 * An `{ item, score }` pair in a `cupel place` input: `ScoredItem.ScoredItem` with the
 * {@link Score} of the wire.
 *
 * @since 0.3.0
 * @category schemas
 */
export const ScoredEntry = Schema.Struct({ item: ContextItem.ContextItem, score: Score }).annotate({
  identifier: "ScoredItem"
})

/**
 * The input schema.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PlaceInput = Schema.Struct({
  budget: ContextBudget.ContextBudget,
  pinned: Schema.Array(ContextItem.ContextItem).pipe(Schema.withDecodingDefaultKey(Effect.succeed([]))),
  scored: Schema.Array(ScoredEntry).pipe(Schema.withDecodingDefaultKey(Effect.succeed([])))
}).annotate({ identifier: "PlaceInput" })

/**
 * @since 0.1.0
 * @category models
 */
export type PlaceInput = typeof PlaceInput.Type

/**
 * The JSON form of an input.
 *
 * @since 0.1.0
 * @category models
 */
export type PlaceInputJson = typeof PlaceInput.Encoded

/**
 * The input could not be read or does not describe a placement. `problems` holds one line per
 * problem, each starting with the path of the field (`scored[0].score: …`). `unreadable` is
 * `true` when the text itself could not be read (a missing file, a closed standard input), as
 * opposed to text that was read and is not a valid input.
 *
 * @since 0.1.0
 * @category errors
 */
export class InputError extends Data.TaggedError("InputError")<{
  readonly source: string
  readonly problems: ReadonlyArray<string>
  readonly unreadable?: boolean
}> {
  override get message(): string {
    return `invalid input (${this.source}):\n${this.problems.map((p) => `  ${p}`).join("\n")}`
  }
}

// Unknown top-level keys are reported, not ignored: a misspelt "scored" would otherwise place an
// empty window without a word. Unknown keys inside items are ignored by the schema (other tools
// add them); `read` warns about them, or refuses them under `--strict` (UnknownKeys.ts).
const TopLevel = Schema.Struct({
  budget: Schema.Unknown,
  pinned: Schema.optionalKey(Schema.Unknown),
  scored: Schema.optionalKey(Schema.Unknown)
}).annotate({ messageUnexpectedKey: "unknown key (an input has only \"budget\", \"pinned\" and \"scored\")" })

const checkTopLevel = Schema.decodeUnknownEffect(TopLevel, {
  errors: "all",
  onExcessProperty: "error",
  reportInput: true
})
const decodeInput = Schema.decodeUnknownEffect(PlaceInput, { errors: "all", reportInput: true })

// Place treats membership of the pinned list as what pins an item; setting the flag as well makes
// the output say so. The fields come from a decoded item, so `make` cannot fail here.
const markPinned = (item: ContextItem.ContextItem) =>
  item.pinned ? Effect.succeed(item) : ContextItem.make({ ...item, pinned: true }).pipe(Effect.orDie)

/**
 * Decodes a parsed JSON value with the schemas alone: what {@link decodeValue} answers, more
 * slowly (about 20 µs an item). Kept as the reference the fast path is tested against.
 *
 * @since 0.2.0
 * @category decoding
 */
export const decodeValueWithSchema = (source: string, value: unknown): Effect.Effect<PlaceInput, InputError> =>
  Effect.gen(function*() {
    // Both checks run so that one message lists every problem.
    const keys = yield* Effect.result(checkTopLevel(value))
    const decoded = yield* Effect.result(decodeInput(value))
    const problems = [
      ...(Result.isFailure(keys) ? schemaProblems(keys.failure) : []),
      ...(Result.isFailure(decoded) ? schemaProblems(decoded.failure) : [])
    ]
    if (Result.isFailure(decoded) || problems.length > 0) {
      return yield* new InputError({ source, problems: [...new Set(problems)] })
    }
    return yield* markAllPinned(decoded.success)
  })

const markAllPinned = (input: PlaceInput): Effect.Effect<PlaceInput> =>
  Effect.map(Effect.forEach(input.pinned, markPinned), (pinned) => ({ ...input, pinned }))

const topLevelExit = Schema.decodeUnknownExit(TopLevel, { onExcessProperty: "error" })
// The fast path for `{ item, score }` pairs, with this input's own pair schema for the pairs it
// declines (an infinite score written as a string among them).
const scoredEntries = FastDecode.scoredItemsDecoder(ContextItem.ContextItem, ScoredEntry)
const budgetExit = Schema.decodeUnknownExit(ContextBudget.ContextBudget)

/** A list that may be left out (then empty), decoded by `decode`; `undefined` when it fails. */
const optionalList = <A>(
  value: { readonly [key: string]: unknown },
  key: string,
  decode: (list: unknown) => Array<A> | undefined
): Array<A> | undefined => {
  const list = value[key]
  if (list === undefined) return key in value ? undefined : []
  return decode(list)
}

/**
 * The input by the fast path: the top level and the budget by their schemas, the items by
 * fastDecode.ts. `undefined` whenever anything fails, so that the schemas decode the whole
 * input again and word every problem as they always have.
 */
const decodeFast = (value: unknown): PlaceInput | undefined => {
  if (!FastDecode.isRecord(value) || !Exit.isSuccess(topLevelExit(value))) return undefined
  const budget = FastDecode.successOrUndefined(budgetExit(value["budget"]))
  if (budget === undefined) return undefined
  const pinned = optionalList(value, "pinned", DecodeItems.items)
  if (pinned === undefined) return undefined
  const scored = optionalList(value, "scored", scoredEntries)
  if (scored === undefined) return undefined
  return { budget, pinned, scored }
}

/**
 * Decodes a parsed JSON value. `source` names it in messages (a file name, `stdin`).
 *
 * Items take a fast path (about 1 µs an item instead of 20) that checks each field with the
 * schema's rules; when any part of the input is invalid the schemas decode it all again, so the
 * problems listed are exactly those of {@link decodeValueWithSchema}, with their paths.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeValue = (source: string, value: unknown): Effect.Effect<PlaceInput, InputError> =>
  Effect.suspend(() => {
    const fast = decodeFast(value)
    return fast === undefined ? decodeValueWithSchema(source, value) : markAllPinned(fast)
  })

/**
 * Parses JSON text: text that is not JSON is an {@link InputError} with one problem,
 * `malformed JSON: ` and the parser's message. Every command's input and policy file is parsed
 * here. A value nested deeper than `JsonDepth.maxDepth` levels is refused too (JsonDepth.ts).
 *
 * @since 0.2.0
 * @category decoding
 */
export const parseJson = (source: string, text: string): Effect.Effect<unknown, InputError> =>
  Effect.try({
    try: (): unknown => JSON.parse(text),
    catch: (cause) =>
      new InputError({
        source,
        problems: [`malformed JSON: ${cause instanceof Error ? cause.message : String(cause)}`]
      })
  }).pipe(
    Effect.flatMap((value) => {
      const tooDeep = JsonDepth.problem(value)
      return tooDeep === undefined ? Effect.succeed(value) : Effect.fail(new InputError({ source, problems: [tooDeep] }))
    })
  )

/**
 * Parses and decodes JSON text.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeText = (source: string, text: string): Effect.Effect<PlaceInput, InputError> =>
  Effect.flatMap(parseJson(source, text), (value) => decodeValue(source, value))

/** How many of the first bytes are looked at for the NULs of UTF-16 text. */
const sniffLength = 1024

/**
 * Why `bytes` cannot be UTF-8 JSON text because they look like UTF-16 (or UTF-32): a byte order
 * mark `FF FE` or `FE FF`, or NUL bytes in a quarter or more of the first kilobyte (UTF-16
 * writes ASCII with every other byte NUL; JSON text never holds a raw NUL). `undefined` when
 * they do not look so: the text is then decoded as UTF-8 and any other oddity is left to the
 * JSON parser to report.
 */
const utf16Problem = (chunks: ReadonlyArray<Uint8Array>): string | undefined => {
  const head: Array<number> = []
  for (const chunk of chunks) {
    for (let i = 0; i < chunk.length && head.length < sniffLength; i++) head.push(chunk[i]!)
    if (head.length >= sniffLength) break
  }
  const bom = (head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)
  const hint = "save it as UTF-8 (iconv -f UTF-16 -t UTF-8)"
  if (bom) {
    const hex = head.slice(0, 2).map((b) => b.toString(16).toUpperCase()).join(" ")
    return `not UTF-8 JSON (UTF-16?): it starts with the byte order mark ${hex}; ${hint}`
  }
  let nuls = 0
  for (const b of head) if (b === 0) nuls++
  if (head.length >= 2 && nuls * 4 >= head.length) {
    return `not UTF-8 JSON (UTF-16?): ${nuls} of its first ${head.length} bytes are NUL; ${hint}`
  }
  return undefined
}

/**
 * The text of the bytes read, decoded as UTF-8 (a UTF-8 byte order mark dropped, a byte that
 * is not UTF-8 read as U+FFFD, as before); an {@link InputError} when they look like UTF-16.
 */
/**
 * The text of an input's bytes (UTF-8); bytes that look like UTF-16 are an {@link InputError}
 * saying so.
 *
 * @since 0.3.0
 * @category reading
 */
export const decodeBytes = (
  source: string,
  chunks: ReadonlyArray<Uint8Array>
): Effect.Effect<{ readonly source: string; readonly text: string }, InputError> => {
  const problem = utf16Problem(chunks)
  if (problem !== undefined) return Effect.fail(new InputError({ source, problems: [problem] }))
  const decoder = new TextDecoder("utf-8")
  const parts: Array<string> = []
  for (const chunk of chunks) parts.push(decoder.decode(chunk, { stream: true }))
  parts.push(decoder.decode())
  return Effect.succeed({ source, text: parts.join("") })
}

/**
 * The line written to standard error when the input is read from a terminal: without it the
 * command would wait in silence for text that a newcomer did not know to type.
 *
 * @since 0.3.0
 * @category reading
 */
export const terminalHint = "reading items from stdin… (pass a file, or pipe JSON; Ctrl-D to end)"

/**
 * Reads the input text from a file, or from standard input when the file is absent or `-`.
 * Text that looks like UTF-16 rather than UTF-8 is an {@link InputError} saying so (`not UTF-8
 * JSON (UTF-16?): …`). When standard input is a terminal, {@link terminalHint} is written to
 * standard error first, prefixed with `cupel COMMAND: `.
 *
 * @since 0.1.0
 * @category reading
 */
export const readText = (
  file: Option.Option<string>,
  command = "place"
): Effect.Effect<{ readonly source: string; readonly text: string }, InputError, FileSystem.FileSystem | Stdio.Stdio> =>
  Option.match(Option.filter(file, (f) => f !== "-"), {
    onNone: () =>
      Effect.gen(function*() {
        const stdio = yield* Stdio.Stdio
        if (yield* stdio.stdinIsTerminal) yield* TerminalText.printError(`cupel ${command}: ${terminalHint}`)
        return yield* Stream.runCollect(stdio.stdin)
      }).pipe(
        Effect.mapError((error) =>
          new InputError({
            source: "stdin",
            problems: [`cannot read: ${describePlatformError(error)}`],
            unreadable: true
          })
        ),
        Effect.flatMap((chunks) => decodeBytes("stdin", chunks))
      ),
    onSome: (path) =>
      FileSystem.FileSystem.use((fs) => fs.readFile(path)).pipe(
        Effect.mapError((error) =>
          new InputError({ source: path, problems: [`cannot read: ${describePlatformError(error)}`], unreadable: true })
        ),
        Effect.flatMap((bytes) => decodeBytes(path, [bytes]))
      )
  })

/**
 * Decodes a parsed input with `decode`, and deals with the unknown keys of its items
 * (`UnknownKeys`): when the input is refused — by `decode`, or for those keys under `strict` —
 * they are listed after its problems (a misspelt key often explains a missing field); when it
 * is accepted, each is a warning on standard error,
 * `cupel COMMAND: warning (SOURCE): items[3].pined: unknown key (did you mean "pinned"?), ignored`.
 *
 * @since 0.3.0
 * @category decoding
 */
export const decodeWithUnknownKeys = <A>(options: {
  readonly command: string
  readonly source: string
  readonly value: unknown
  readonly unknown: ReadonlyArray<UnknownKeys.UnknownKey>
  readonly strict: boolean
  readonly decode: (source: string, value: unknown) => Effect.Effect<A, InputError>
}): Effect.Effect<A, InputError> =>
  Effect.gen(function*() {
    const { command, source, strict, unknown } = options
    const decoded = yield* Effect.result(options.decode(source, options.value))
    if (Result.isSuccess(decoded) && (!strict || unknown.length === 0)) {
      if (unknown.length > 0) {
        yield* TerminalText.printError(
          ...UnknownKeys.lines(unknown, true).map((line) => `cupel ${command}: warning (${source}): ${line}`)
        )
      }
      return decoded.success
    }
    const problems = Result.isFailure(decoded) ? decoded.failure.problems : []
    return yield* new InputError({ source, problems: [...problems, ...UnknownKeys.lines(unknown, false)] })
  })

/**
 * Reads and decodes an input. Unknown keys in its items are warnings on standard error, or
 * with `strict` problems that refuse it ({@link decodeWithUnknownKeys}).
 *
 * @since 0.1.0
 * @category reading
 */
export const read = (
  file: Option.Option<string>,
  command = "place",
  strict = false
): Effect.Effect<PlaceInput, InputError, FileSystem.FileSystem | Stdio.Stdio> =>
  Effect.flatMap(readText(file, command), ({ source, text }) =>
    Effect.flatMap(parseJson(source, text), (value) =>
      decodeWithUnknownKeys({
        command,
        source,
        value,
        unknown: UnknownKeys.inPlaceInput(value),
        strict,
        decode: decodeValue
      })))
