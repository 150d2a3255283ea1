/**
 * `cupel view [FILE|-] [--out FILE]`: one self-contained HTML page (`ViewPage`) for a
 * `cupel run` result, or for an agent session's call-report lines (`CallReportLog`, one JSON
 * object a line).
 *
 * The input is told apart by its shape: a JSON object with `window` and `report` is a run
 * result; lines whose objects carry `"format": "cupel.call-report.v1"` are a session. The page
 * goes to standard output, or to `--out FILE`. A run result does not hold its budget: `--budget`
 * and `--max` give it, to draw the window against.
 *
 * Exit codes: 0 the page was written; 2 unreadable, malformed or unrecognised input (one line
 * per problem on stderr, as the other commands), or an output file that cannot be written;
 * 3 a bug in cupel.
 *
 * @since 0.3.0
 */
import { Console, Effect, FileSystem, Option, type PlatformError, Schema, Stdio, Stream } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as CallReportLog from "../ai/CallReportLog.ts"
import { describePlatformError, schemaProblems } from "../internal/conformanceMessages.ts"
import { isRecord } from "../internal/fastDecode.ts"
import * as PipelineResult from "../PipelineResult.ts"
import * as CliFailure from "./CliFailure.ts"
import * as PlaceInput from "./PlaceInput.ts"
import * as RunInput from "./RunInput.ts"
import * as TerminalText from "./TerminalText.ts"
import * as ViewPage from "./ViewPage.ts"

/**
 * What `view` was given: a run result, or a session's lines.
 *
 * @since 0.3.0
 * @category models
 */
export type Input =
  | { readonly _tag: "Run"; readonly result: PipelineResult.PipelineResult }
  | {
    readonly _tag: "Session"
    readonly lines: ReadonlyArray<CallReportLog.Line>
    /** The number of a last line left out because it was cut off mid-write. */
    readonly cutOff?: number | undefined
  }
  | {
    /** A session of more than `ViewPage.fullPageCalls` calls, read as a stream into its page (design 94). */
    readonly _tag: "LongSession"
    readonly page: ViewPage.LongSessionPage
    readonly cutOff?: number | undefined
  }

const decodeResult = Schema.decodeUnknownEffect(PipelineResult.PipelineResult, { errors: "all" })

const unrecognised = "neither a `cupel run` result (a JSON object with \"window\" and \"report\") nor call-report " +
  `lines (JSON objects, one a line, with "format": "${CallReportLog.format}")`

/** The first line that is not blank, parsed, if it is JSON. */
const firstLine = (text: string): unknown => {
  const row = text.split("\n").find((r) => r.trim() !== "")
  if (row === undefined) return undefined
  try {
    return JSON.parse(row)
  } catch {
    return undefined
  }
}

/**
 * Tells the input apart and decodes it; every problem is one line, with the path of its field
 * (and a session's line number).
 *
 * @since 0.3.0
 * @category decoding
 */
export const decode = (source: string, text: string): Effect.Effect<Input, PlaceInput.InputError> =>
  Effect.gen(function*() {
    const fail = (...problems: ReadonlyArray<string>) => Effect.fail(new PlaceInput.InputError({ source, problems }))
    // One line per problem, as for a run result, each with the line it is on.
    const lineProblems = (error: CallReportLog.LineError) => fail(...error.problems.map((p) => `line ${error.line}: ${p}`))
    if (text.trim() === "") return yield* fail(`empty: ${unrecognised}`)
    const first = firstLine(text)
    if (isRecord(first) && first["format"] === CallReportLog.format) {
      // A log an agent is still writing, or was stopped while writing, ends with a cut-off line:
      // the page shows the calls before it, and says so.
      const { lines, cutOff } = yield* CallReportLog.decodeLog(text).pipe(Effect.catch(lineProblems))
      return { _tag: "Session", lines, cutOff } as const
    }
    const value = yield* PlaceInput.parseJson(source, text)
    if (isRecord(value) && "window" in value && "report" in value) {
      const result = yield* decodeResult(value).pipe(Effect.catch((error) => fail(...schemaProblems(error))))
      return { _tag: "Run", result } as const
    }
    if (isRecord(value) && value["format"] === CallReportLog.format) {
      const lines = yield* CallReportLog.decodeLines(JSON.stringify(value)).pipe(Effect.catch(lineProblems))
      return { _tag: "Session", lines } as const
    }
    return yield* fail(unrecognised)
  })

/**
 * The page of an input.
 *
 * @since 0.3.0
 * @category rendering
 */
export const render = (source: string, input: Input, budget: ViewPage.RunBudget): string =>
  input._tag === "Run"
    ? ViewPage.runPage(source, input.result, budget)
    : input._tag === "Session"
    ? ViewPage.sessionPage(source, input.lines)
    : input.page.finish()

/**
 * Reads the input as a stream of rows (design 94): when its first row is a call report, each
 * row is decoded as it comes, and past `ViewPage.fullPageCalls` calls each goes into a
 * {@link ViewPage.longSessionPage} and is let go; anything else (a run result, a call report
 * written over several lines, nothing) is read whole and given to {@link decode}. The input's
 * bytes are not kept beyond the row being read once it is known to be a session.
 *
 * @since 0.3.0
 * @category decoding
 */
export const read = (
  file: Option.Option<string>
): Effect.Effect<{ readonly source: string; readonly input: Input }, PlaceInput.InputError, FileSystem.FileSystem | Stdio.Stdio> =>
  Effect.gen(function*() {
    const path = Option.getOrUndefined(Option.filter(file, (f) => f !== "-"))
    const source = path ?? "stdin"
    const bytes: Stream.Stream<Uint8Array, PlatformError.PlatformError, FileSystem.FileSystem | Stdio.Stdio> = path === undefined
      ? Stream.unwrap(Effect.gen(function*() {
        const stdio = yield* Stdio.Stdio
        if (yield* stdio.stdinIsTerminal) yield* TerminalText.printError(`cupel view: ${PlaceInput.terminalHint}`)
        return stdio.stdin
      }))
      : Stream.unwrap(FileSystem.FileSystem.use((fs) => Effect.succeed(fs.stream(path))))
    const decoder = new TextDecoder("utf-8")
    // Until the first row that is not blank is known, the bytes are kept (they may be a run result).
    const state: { mode: "undecided" | "session" | "whole" } = { mode: "undecided" }
    let kept: Array<Uint8Array> = []
    let pending = ""
    let row = 0
    let held: Array<CallReportLog.Line> = []
    let long: ViewPage.LongSessionPage | undefined
    const take = (text: string) =>
      Effect.map(CallReportLog.decodeRow(text, row), (line) => {
        if (line === undefined) return
        if (long !== undefined) return long.add(line)
        held.push(line)
        if (held.length > ViewPage.fullPageCalls) {
          long = ViewPage.longSessionPage(source)
          for (const l of held) long.add(l)
          held = []
        }
      })
    const rows = (text: string) =>
      Effect.gen(function*() {
        // A row longer than a chunk (a run result on one line) is joined once, not split at each chunk.
        if (!text.includes("\n")) {
          pending += text
          return
        }
        const parts = (pending + text).split("\n")
        pending = parts.pop() ?? ""
        for (const current of parts) {
          if (state.mode === "whole") return
          row++
          if (state.mode === "undecided" && current.trim() !== "") {
            const first = parseRow(current)
            if (isRecord(first) && first["format"] === CallReportLog.format) {
              state.mode = "session"
              kept = []
            } else {
              state.mode = "whole"
              return
            }
          }
          if (state.mode === "session") yield* take(current)
        }
      })
    yield* Stream.runForEach(bytes, (chunk) => {
      if (state.mode !== "session") kept.push(chunk)
      return state.mode === "whole" ? Effect.void : rows(decoder.decode(chunk, { stream: true }))
    }).pipe(
      Effect.catchTag("LineError", (error) => lineProblems(source, error)),
      Effect.catchTag("PlatformError", (error) =>
        Effect.fail(
          new PlaceInput.InputError({ source, problems: [`cannot read: ${describePlatformError(error)}`], unreadable: true })
        ))
    )
    if (state.mode !== "session") {
      const { text } = yield* PlaceInput.decodeBytes(source, kept)
      return { source, input: yield* decode(source, text) }
    }
    yield* rows(decoder.decode()).pipe(Effect.catchTag("LineError", (error) => lineProblems(source, error)))
    // A log an agent is still writing, or was stopped while writing, ends with a cut-off line:
    // the page shows the calls before it, and says so.
    let cutOff: number | undefined
    if (pending.trim() !== "") {
      row++
      if (CallReportLog.isWholeJson(pending.trim())) {
        yield* take(pending).pipe(Effect.catchTag("LineError", (error) => lineProblems(source, error)))
      } else cutOff = row
    }
    const input: Input = long === undefined ? { _tag: "Session", lines: held, cutOff } : { _tag: "LongSession", page: long, cutOff }
    return { source, input }
  })

/** A row parsed, if it is JSON. */
const parseRow = (row: string): unknown => {
  try {
    return JSON.parse(row)
  } catch {
    return undefined
  }
}

/** A bad row of a session: one problem a line, each with the row it is on. */
const lineProblems = (source: string, error: CallReportLog.LineError) =>
  Effect.fail(new PlaceInput.InputError({ source, problems: error.problems.map((p) => `line ${error.line}: ${p}`) }))

/**
 * The parsed arguments of `view`.
 *
 * @since 0.3.0
 * @category handlers
 */
export interface Config {
  readonly file: Option.Option<string>
  readonly out: Option.Option<string>
  readonly budget: Option.Option<number>
  readonly max: Option.Option<number>
}

/** An input that cannot be read or decoded: a usage error, one line per problem. */
const invalidInput = (error: PlaceInput.InputError) =>
  RunInput.usage("view", ...error.problems.map((p) => `invalid input (${error.source}): ${p}`))

/**
 * Runs `view` with parsed arguments.
 *
 * @since 0.3.0
 * @category handlers
 */
export const handler = Effect.fn("cli.view")(function*(config: Config) {
  for (const [flag, value] of [["--budget", config.budget], ["--max", config.max]] as const) {
    if (Option.isSome(value) && value.value < 0) {
      return yield* RunInput.usage("view", `${flag} must be 0 or more tokens, got ${value.value}`)
    }
  }
  if (Option.isSome(config.budget) && Option.isSome(config.max) && config.budget.value > config.max.value) {
    return yield* RunInput.usage("view", `--budget (${config.budget.value}) must not exceed --max (${config.max.value})`)
  }
  const { source, input } = yield* read(config.file).pipe(Effect.catchTag("InputError", invalidInput))
  if (input._tag !== "Run" && (Option.isSome(config.budget) || Option.isSome(config.max))) {
    // Ignoring them would draw a page other than the one asked for.
    return yield* RunInput.usage("view", "--budget and --max are for a run result; a session's calls carry their own budgets")
  }
  if (input._tag !== "Run" && input.cutOff !== undefined) {
    yield* Console.error(`cupel view: ${source}: line ${input.cutOff} is cut off (a write that did not finish); shown without it`)
  }
  const html = render(source, input, {
    targetTokens: Option.getOrUndefined(config.budget),
    maxTokens: Option.getOrUndefined(config.max)
  })
  if (Option.isNone(config.out)) {
    yield* Console.log(html.trimEnd())
    return
  }
  const out = config.out.value
  yield* FileSystem.FileSystem.use((fs) => fs.writeFileString(out, html)).pipe(
    Effect.catch((error) => RunInput.usage("view", `cannot write ${out}: ${describePlatformError(error)}`))
  )
}, CliFailure.catchDefects("view"))

const tokens = (name: string, description: string) =>
  Flag.Int(name).pipe(
    Flag.withDescription(description),
    Flag.optional
  )

/**
 * The `view` command.
 *
 * @since 0.3.0
 * @category commands
 */
export const command = Command.make(
  "view",
  {
    file: Argument.String("file").pipe(
      Argument.withDescription("a `cupel run` result, or call-report lines; - or nothing reads standard input"),
      Argument.optional
    ),
    out: Flag.String("out").pipe(
      Flag.withDescription("write the page to FILE (default: standard output)"),
      Flag.withAlias("o"),
      Flag.optional
    ),
    budget: tokens("budget", "a run's budget target in tokens, to draw the window against (a run result does not hold it)"),
    max: tokens("max", "a run's maxTokens, shown beside the target")
  },
  handler
).pipe(
  Command.withShortDescription("Write one self-contained HTML page showing a run result or an agent session"),
  Command.withDescription(
    "Write one offline HTML page (inline CSS and script, no network) for a `cupel run` result — the window position " +
      "by position with its scores, tokens by kind against the budget, every item left out and why, the stages — or " +
      "for an agent session's call-report lines (CallReportLog) — a timeline of the calls, tokens sent by kind, " +
      "predicted and reported cache reads, and per call what was added, dropped or summarised. The page goes to " +
      "standard output, or to --out FILE. Exit codes: 0 success, 2 bad input or an unwritable output, 3 a bug in cupel."
  ),
  Command.withExamples([
    { command: "cupel run input.json | cupel view --budget 700 --out run.html" },
    { command: "cupel view session.jsonl --out session.html", description: "an agent session's call reports" }
  ])
)
