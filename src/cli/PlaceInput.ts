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
import { Data, Effect, Exit, FileSystem, Option, Result, Schema, Stdio, Stream } from "effect"
import * as ContextBudget from "../ContextBudget.ts"
import * as ContextItem from "../ContextItem.ts"
import { describePlatformError, schemaProblems } from "../internal/conformanceMessages.ts"
import * as DecodeItems from "../internal/decodeItems.ts"
import * as FastDecode from "../internal/fastDecode.ts"
import * as ScoredItem from "../ScoredItem.ts"

/**
 * The input schema.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PlaceInput = Schema.Struct({
  budget: ContextBudget.ContextBudget,
  pinned: Schema.Array(ContextItem.ContextItem).pipe(Schema.withDecodingDefaultKey(Effect.succeed([]))),
  scored: Schema.Array(ScoredItem.ScoredItem).pipe(Schema.withDecodingDefaultKey(Effect.succeed([])))
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
// empty window without a word. Unknown keys inside items are left alone (other tools add them).
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
  const scored = optionalList(value, "scored", DecodeItems.scoredItems)
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
 * here.
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
  })

/**
 * Parses and decodes JSON text.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeText = (source: string, text: string): Effect.Effect<PlaceInput, InputError> =>
  Effect.flatMap(parseJson(source, text), (value) => decodeValue(source, value))

/**
 * Reads the input text from a file, or from standard input when the file is absent or `-`.
 *
 * @since 0.1.0
 * @category reading
 */
export const readText = (
  file: Option.Option<string>
): Effect.Effect<{ readonly source: string; readonly text: string }, InputError, FileSystem.FileSystem | Stdio.Stdio> =>
  Option.match(Option.filter(file, (f) => f !== "-"), {
    onNone: () =>
      Effect.gen(function*() {
        const stdio = yield* Stdio.Stdio
        const text = yield* stdio.stdin.pipe(Stream.decodeText, Stream.mkString)
        return { source: "stdin", text }
      }).pipe(
        Effect.mapError((error) =>
          new InputError({
            source: "stdin",
            problems: [`cannot read: ${describePlatformError(error)}`],
            unreadable: true
          })
        )
      ),
    onSome: (path) =>
      FileSystem.FileSystem.use((fs) => fs.readFileString(path)).pipe(
        Effect.map((text) => ({ source: path, text })),
        Effect.mapError((error) =>
          new InputError({ source: path, problems: [`cannot read: ${describePlatformError(error)}`], unreadable: true })
        )
      )
  })

/**
 * Reads and decodes an input.
 *
 * @since 0.1.0
 * @category reading
 */
export const read = (
  file: Option.Option<string>
): Effect.Effect<PlaceInput, InputError, FileSystem.FileSystem | Stdio.Stdio> =>
  Effect.flatMap(readText(file), ({ source, text }) => decodeText(source, text))
