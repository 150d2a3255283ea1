/**
 * The session bench (issue 18, item 5): generated agent sessions replayed through the public
 * layer `WindowedLanguageModel.layer` in each of its modes, and through the peers' newest-suffix
 * trim, with o200k counts (`GptTokenizer.layer`).
 *
 * Sessions: `test/support/sessions.ts`, one per shape (`tool-heavy`, `chatty`, `retrieval`,
 * `mixed`), seed `--seed` (default 18) plus the shape's index, `--steps` calls (default 300).
 * Windows: `--windows` (default 32,000 and 128,000 tokens), 4,096 of them reserved for the
 * output. Calls are 5 s apart (well within every cache's lifetime).
 *
 * Per row (see `sessionBench.ts` for the definitions): the steady-state cache hit ratio (OpenAI
 * rule, second half of the calls), the input cost relative to no caching under the Anthropic
 * 5-minute and OpenAI price models (second half), the largest request against the target, the
 * orphaned tool parts over all requests, the messages sent that are neither the history's nor a
 * summary ("altered": a window must send the history's messages as they are), the calls whose request held the newest user
 * message and the latest tool exchange, of those where it fit beside the system prompt, and
 * the retention of referenced results: of the references a step makes to earlier tool results
 * (by call id, `Sessions.referencesAt`), the share whose result was in the next request
 * verbatim or named by a summary in it. Then the layer's own time per call at 1,000 messages,
 * counts known (128,000-token window, a long tool-heavy session).
 *
 * Strategies: the layer's modes are read from {@link layerModes}; "stable + compaction" is the
 * default mode with a summariser — the scripted one of `scriptedSummarizer.ts`, whose summaries
 * name the call ids of what they summarise, padded to `--summary-tokens` (default 2,000; less
 * when the summary's budget is smaller). Its summariser's requests are priced as a model
 * summariser sends them (the conversation's last request, read from the cache, then the
 * instruction naming the span in it) and are included in its cache figures. The baselines are
 * LangChain's `trimMessages` "last" strategy with `includeSystem`, without and with
 * `startOn: "human"`; then the AI SDK's ways (issue 20, `aiSdkBench.ts`): its `pruneMessages`
 * and this library's middleware (`effect-cupel/adapters/AiSdk`), the same sessions sent as the
 * SDK's messages, measured with the same counts. After the layer's time per call, the time per
 * call of the peers' trims and of the middleware at 100 and 1,000 messages (the same long
 * session, 128,000-token window).
 *
 * Every front door's time per call (issue 25, item 6; `doorsBench.ts`): at 1,000 messages, counts
 * known, on the same long session — the effect/ai layer (stable and per-call, the time it adds
 * to the scripted model), the AI SDK middleware through `wrapLanguageModel` and the SDK's mock
 * model (stable and per-call, the prompt fresh objects at every call as the SDK builds them),
 * `prepareStep` (stable and per-call), `trimModelMessages` and `trim` (the same objects appended
 * to, and fresh copies parsed from JSON at every call), each with counts known before the call (a
 * counter warmed outside the clock: the target's rows) and with its default counter (information,
 * design item 106). The target of each is ≤ 1 ms a call (the
 * median): the verdicts are in the table and in the JSON (`targets`).
 *
 * Last, billed beside predicted per provider and door (issue 26): each session sent through the
 * AI SDK middleware and the `effect/ai` layer, default options, to the real `@ai-sdk/anthropic`
 * and `@ai-sdk/openai` (Chat) clients whose `fetch` is a fake endpoint applying the provider's
 * cache rules (`test/support/billedSession.ts`; `--no-billed` skips it).
 *
 * Output: a table on stdout; with `--json`, the figures as JSON (progress goes to stderr).
 * Options: `--steps=N`, `--windows=32000,128000`, `--shapes=tool-heavy,chatty`, `--seed=N`,
 * `--summary-tokens=N`, `--no-overhead` (no time per call), `--doors-only` (only the doors'
 * time per call, without the replays), `--no-billed`.
 */
import { Effect } from "effect"
import type { Prompt } from "effect/ai"
import * as AiSdk from "../src/adapters/AiSdk.ts"
import * as GptTokenizer from "../src/ai/GptTokenizer.ts"
import { TokenCounter } from "../src/ai/TokenCounter.ts"
import * as GreedySlice from "../src/slicers/GreedySlice.ts"
import * as BilledSession from "../test/support/billedSession.ts"
import * as Sessions from "../test/support/sessions.ts"
import * as AiSdkBench from "./aiSdkBench.ts"
import * as DoorsBench from "./doorsBench.ts"
import * as SessionBench from "./sessionBench.ts"

const json = process.argv.includes("--json")
const argValue = (key: string): string | undefined =>
  process.argv.find((a) => a.startsWith(`--${key}=`))?.slice(key.length + 3)
const steps = Number(argValue("steps") ?? 300)
const windows = (argValue("windows") ?? "32000,128000").split(",").map(Number)
const seed = Number(argValue("seed") ?? 18)
const shapes = (argValue("shapes")?.split(",") ?? Sessions.benchShapes).filter((s): s is Sessions.Shape =>
  Sessions.benchShapes.some((shape) => shape === s)
)
const withOverhead = !process.argv.includes("--no-overhead")
const doorsOnly = process.argv.includes("--doors-only")
const summaryTokens = Number(argValue("summary-tokens") ?? 2000)
const outputReserve = 4096
const secondsBetweenCalls = 5
const progress = (line: string): void => {
  process.stderr.write(line + "\n")
}

/**
 * The layer's modes to run: its default (stable windows; repeated tool results by reference),
 * the default before issue 27 (no references), masking with references (issue 27), the default with the scripted
 * summariser, per-call fitting with the default strategies, and per-call fitting with the
 * strategies of version 0.2 (greedy by score per token), the layer's default before windows
 * were stable.
 */
const layerModes: ReadonlyArray<Extract<SessionBench.Strategy, { readonly _tag: "layer" }>> = [
  { _tag: "layer", name: "layer (stable, default)", options: {} },
  { _tag: "layer", name: "layer (stable, before references)", options: { toolResultReferences: false } },
  { _tag: "layer", name: "layer (stable, masking + references)", options: { maskToolResults: true } },
  { _tag: "layer", name: "layer (stable + compaction)", options: {}, summarizer: { tokens: summaryTokens } },
  { _tag: "layer", name: "layer (per-call)", options: { mode: "per-call" } },
  { _tag: "layer", name: "layer (per-call, greedy)", options: { mode: "per-call", slicer: GreedySlice.make() } }
]

const baselines: ReadonlyArray<SessionBench.Strategy> = [
  { _tag: "baseline", name: "newest suffix", startOn: undefined },
  { _tag: "baseline", name: "newest suffix, startOn user", startOn: "user" }
]

/**
 * The AI SDK's ways (`aiSdkBench.ts`): its `pruneMessages` with the options of its docs'
 * example (reasoning before the last message and tool calls before the last two messages
 * removed, the emptied messages removed) — the AI SDK's own way to shorten a history; it takes
 * no budget — and this library's middleware (`effect-cupel/adapters/AiSdk`, its defaults).
 */
const aiSdkStrategies: ReadonlyArray<AiSdkBench.Strategy> = [
  {
    _tag: "prune",
    name: "AI SDK pruneMessages",
    options: { reasoning: "before-last-message", toolCalls: "before-last-2-messages", emptyMessages: "remove" }
  },
  { _tag: "middleware", name: "AI SDK + cupel middleware", options: {} }
]

interface Row extends SessionBench.Figures {
  readonly shape: Sessions.Shape
  readonly seed: number
  readonly contextWindow: number
  readonly strategy: string
  readonly seconds: number
  /**
   * The most any window can hit: every call's new tokens are uncached, and a request is at most
   * the target, so the hit ratio is at most 1 − growth / target (growth: the tokens a call adds,
   * on average).
   */
  readonly hitBound: number
}

const program = Effect.gen(function*() {
  const rows: Array<Row> = []
  for (const shape of doorsOnly ? [] : shapes) {
    // The seed goes with the shape, whichever shapes are run.
    const i = Sessions.benchShapes.indexOf(shape)
    const session = Sessions.generate(shape, steps, seed + i)
    const counts = yield* SessionBench.countsOf(session)
    const count = SessionBench.countFrom(counts)
    const messages = Sessions.historyAt(session, steps).length
    const tokens = SessionBench.requestTokens(Sessions.historyAt(session, steps), count)
    const growth = (tokens - SessionBench.requestTokens(session.start, count)) / steps
    progress(`${shape} (seed ${seed + i}): ${steps} steps, ${messages} messages, ${tokens} tokens in all, ${growth.toFixed(0)} a step`)
    for (const contextWindow of windows) {
      const settings: SessionBench.Settings = { contextWindow, outputReserve, secondsBetweenCalls }
      for (const strategy of [...layerModes, ...baselines, ...aiSdkStrategies]) {
        const start = performance.now()
        const run = strategy._tag === "prune" || strategy._tag === "middleware"
          ? yield* AiSdkBench.replay(session, strategy, settings)
          : yield* SessionBench.replay(session, strategy, settings, count)
        const figures = SessionBench.measure(run, count, settings)
        const seconds = (performance.now() - start) / 1000
        const hitBound = Math.max(0, 1 - growth / figures.target)
        rows.push({ shape, seed: seed + i, contextWindow, strategy: strategy.name, seconds, hitBound, ...figures })
        progress(`  ${contextWindow} ${strategy.name}: ${seconds.toFixed(1)} s`)
      }
    }
  }
  const overheads: Array<SessionBench.Overhead> = []
  const timings: Array<AiSdkBench.Timing> = []
  const doors: Array<DoorsBench.DoorTiming> = []
  if (withOverhead || doorsOnly) {
    const long = Sessions.generate("tool-heavy", 500, seed + 100)
    const settings: SessionBench.Settings = { contextWindow: 128_000, outputReserve, secondsBetweenCalls }
    for (const strategy of layerModes) {
      overheads.push(yield* SessionBench.overhead(long, strategy, settings))
    }
    progress("the front doors' time per call at 1,000 messages")
    doors.push(...yield* Effect.promise(() => DoorsBench.timeDoors(long, { contextWindow: settings.contextWindow, outputReserve })))
    doors.push(...yield* Effect.promise(() => DoorsBench.floors(long, {})))
    // The peers and the middleware, call by call on the same histories (counts known for the
    // transcribed trimMessages; the middleware counts with its own counter, as a user's does).
    const count = SessionBench.countFrom(yield* SessionBench.countsOf(long))
    const requestOverhead = (yield* TokenCounter).requestOverhead
    for (const messages of doorsOnly ? [] : [100, 1000]) {
      const callers: ReadonlyArray<readonly [string, (history: ReadonlyArray<Prompt.Message>) => AiSdkBench.Call]> = [
        ["newest suffix, startOn user", AiSdkBench.trimLastCaller(settings, requestOverhead, count, "user")],
        ...aiSdkStrategies.map((strategy) => [strategy.name, AiSdkBench.caller(long, strategy, settings)] as const)
      ]
      for (const [name, make] of callers) {
        timings.push(yield* Effect.promise(() => AiSdkBench.timePerCall(long, name, make, messages)))
      }
    }
  }
  const billed: Array<Billed> = []
  if (!process.argv.includes("--no-billed")) {
    for (const shape of shapes) {
      const session = Sessions.generate(shape, steps, seed + Sessions.benchShapes.indexOf(shape))
      for (const contextWindow of windows) {
        for (const provider of ["anthropic", "openai-chat"] as const) {
          for (const door of ["AI SDK middleware", "effect/ai layer"] as const) {
            progress(`billed: ${shape} ${contextWindow} ${provider} ${door}`)
            const steadyFrom = Math.floor(steps / 2)
            const measured = yield* Effect.promise(() => {
              if (door === "effect/ai layer") {
                return BilledSession.replayEffect({ session, provider, contextWindow, outputReserve, steadyFrom, secondsBetweenCalls })
              }
              const reports: Array<AiSdk.Report> = []
              return BilledSession.replay({
                session,
                provider,
                middlewares: [AiSdk.middleware({ contextWindow, outputReserve, onReport: (report) => void reports.push(report) })],
                reports,
                steadyFrom,
                secondsBetweenCalls
              })
            })
            billed.push({ shape, contextWindow, provider, door, ...measured, promptCacheKeys: [...measured.promptCacheKeys].filter((key) => key !== undefined).length })
          }
        }
      }
    }
  }
  return { rows, overheads, timings, doors, billed }
}).pipe(Effect.provide(GptTokenizer.layer))

/**
 * What the provider billed beside what the library predicted, per provider and door: the
 * session sent through the real clients (`@ai-sdk/anthropic`, `@ai-sdk/openai` Chat) to the
 * fake endpoints that apply each provider's cache rules (docs/providers.md), default options,
 * the second half of the calls.
 */
interface Billed extends Omit<BilledSession.Measured, "promptCacheKeys"> {
  readonly shape: Sessions.Shape
  readonly contextWindow: number
  readonly provider: BilledSession.Provider
  readonly door: string
  /** The distinct `prompt_cache_key`s the requests carried (OpenAI). */
  readonly promptCacheKeys: number
}


/** A target verdict: the issue's, on a figure. */
interface Target {
  readonly target: string
  readonly measured: string
  readonly met: boolean
}

/**
 * The targets of issue 25, item 6: each front door ≤ 1 ms a call at 1,000 messages, counts known
 * — the layer's time over the scripted model, the other doors' whole call (medians).
 */
const targetsOf = (overheads: ReadonlyArray<SessionBench.Overhead>, doors: ReadonlyArray<DoorsBench.DoorTiming>): Array<Target> => [
  ...overheads.filter((o) => o.strategy === "layer (stable, default)" || o.strategy === "layer (per-call)").map((o) => ({
    target: `effect/ai ${o.strategy} at ${o.messages} messages: at most ${DoorsBench.targetMs} ms a call over the model`,
    measured: `${o.overheadMs.toFixed(3)} ms`,
    met: o.overheadMs <= DoorsBench.targetMs
  })),
  // The target is read "once their counts are known": the rows whose counts were (design 106).
  ...doors.filter((d) => d.verdict !== "information").map((d) => ({
    target: `${d.door}${d.mode === undefined ? "" : ` (${d.mode})`}, ${d.history}, at ${d.messages} messages: at most ${d.targetMs} ms a call`,
    measured: `${d.medianMs.toFixed(3)} ms (cpu ${d.cpuMedianMs.toFixed(3)} ms; ${d.minMs.toFixed(3)}–${d.maxMs.toFixed(3)} ms)`,
    met: d.verdict === "met"
  }))
]

const percent = (x: number) => `${(100 * x).toFixed(1)}%`
const times = (x: number) => `${x.toFixed(2)}×`
const kept = (r: Row["retention"]) =>
  `${percent(r.share)} (${r.verbatim}${r.summarized > 0 ? ` + ${r.summarized} in summaries` : ""}${
    r.byReference > 0 ? ` + ${r.byReference} by reference` : ""
  }${r.stubbed > 0 ? ` + ${r.stubbed} stubs` : ""} / ${r.references})`
const summaries = (r: Row) => {
  const o = r.summarizer.outcomes
  if (r.summarizer.requests === 0 && o.kept + o.failed + o["no-room"] === 0) return "–"
  const others = [o.kept > 0 ? `${o.kept} kept` : "", o.failed > 0 ? `${o.failed} failed` : "", o["no-room"] > 0 ? `${o["no-room"]} no room` : ""]
    .filter((x) => x !== "")
  return `${o.written} written${others.length > 0 ? `, ${others.join(", ")}` : ""}`
}
const presence = (p: SessionBench.Presence) => (p.fit === 0 ? "–" : p.kept === p.fit ? `all ${p.fit}` : `${p.kept}/${p.fit}`)

const table = (
  rows: ReadonlyArray<Row>,
  overheads: ReadonlyArray<SessionBench.Overhead>,
  timings: ReadonlyArray<AiSdkBench.Timing>,
  doors: ReadonlyArray<DoorsBench.DoorTiming>,
  billed: ReadonlyArray<Billed>
): string => {
  const header = [
    "shape",
    "window",
    "strategy",
    "hit (OpenAI)",
    "hit at most",
    "tokens / call",
    "billed / call (A5m, OpenAI)",
    "cost Anthropic 5m",
    "cost OpenAI",
    "largest / target",
    "orphans",
    "altered",
    "newest user",
    "latest tool exchange",
    "referenced results kept",
    "summaries"
  ]
  const body = rows.map((r) => [
    r.shape,
    `${r.contextWindow / 1000}k`,
    r.strategy,
    percent(r.hitRatio),
    percent(r.hitBound),
    r.tokensPerCall.toFixed(0),
    `${r.costPerCall.anthropic5m.toFixed(0)}, ${r.costPerCall.openai.toFixed(0)}`,
    times(r.costAnthropic5m),
    times(r.costOpenAI),
    `${r.largestRequest} / ${r.target}${r.overTarget > 0 ? ` (${r.overTarget} over)` : ""}`,
    String(r.orphans),
    String(r.notFromHistory),
    presence(r.newestUser),
    presence(r.latestTool),
    kept(r.retention),
    summaries(r)
  ])
  const widths = header.map((h, c) => Math.max(h.length, ...body.map((row) => row[c]!.length)))
  const line = (cells: ReadonlyArray<string>) => cells.map((cell, c) => cell.padEnd(widths[c]!)).join("  ")
  const out = [
    `Sessions of ${steps} calls, o200k counts, ${outputReserve} tokens reserved for output, calls ${secondsBetweenCalls} s apart.`,
    `Cache figures: the second half of the calls; cost = input cost / input cost without caching;`,
    `  with a summariser, its requests (priced as a model summariser sends them) are included.`,
    `"referenced results kept": references to earlier tool results whose result was in the next request`,
    `  verbatim (or named by a summary in it, sent as a reference to an identical result it holds, or as a stub naming it)`,
    `  / all references, over all calls; scripted summaries of ${summaryTokens} tokens.`,
    `"tokens / call": the mean request over every call; "billed / call": its mean input cost in base-price tokens.`,
    `"hit at most": 1 − (tokens a call adds) / target — no window can cache the new tokens of a call.`,
    "",
    line(header),
    line(widths.map((w) => "-".repeat(w))),
    ...body.map(line)
  ]
  if (overheads.length > 0) {
    out.push("", "Per-call time of the layer, counts known (median ms):")
    for (const o of overheads) {
      out.push(
        `  ${o.strategy} at ${o.messages} messages: ${o.overheadMs.toFixed(3)} ms overhead ` +
          `(${o.layerMs.toFixed(3)} ms through the layer, ${o.modelMs.toFixed(3)} ms the scripted model alone; ${o.samples} calls)`
      )
    }
  }
  if (timings.length > 0) {
    out.push("", "Per-call time of the peers' trims and the AI SDK middleware (whole call, median ms):")
    for (const t of timings) out.push(`  ${t.strategy} at ${t.messages} messages: ${t.medianMs.toFixed(3)} ms (${t.samples} calls)`)
  }
  if (billed.length > 0) {
    out.push(
      "",
      "Billed beside predicted (the real clients, the fake endpoints' cache rules, default options; second half of the calls;",
      "  OpenAI priced at GPT-4.1's 0.25× read, predicted with the default Anthropic 5-minute rule):"
    )
    for (const b of billed) {
      out.push(
        `  ${b.shape} ${b.contextWindow / 1000}k ${b.provider} ${b.door}: billed ${percent(b.billed.readShare)} read / ${times(b.billed.costRatio)}, ` +
          `predicted ${percent(b.predicted.readShare)} / ${times(b.predicted.costRatio)}` +
          (b.provider === "anthropic"
            ? ` (at most ${b.maxMarks} marks)`
            : b.promptCacheKeys === 0
            ? " (no prompt_cache_key)"
            : ` (${b.promptCacheKeys} prompt_cache_key)`)
      )
    }
  }
  if (doors.length > 0) {
    out.push("", "Every front door's time per call (median ms; cpu median; fastest–slowest), counts known before the call (the target's) or counted in it (information):")
    for (const d of doors) {
      out.push(
        `  [${d.verdict === "met" ? "met" : d.verdict === "missed" ? "MISSED" : "info"}] ${d.door}${d.mode === undefined ? "" : ` (${d.mode})`}, ${d.history}, counts ${d.counts}, at ${d.messages} messages: ` +
          `${d.medianMs.toFixed(3)} ms (cpu ${d.cpuMedianMs.toFixed(3)}; ${d.minMs.toFixed(3)}–${d.maxMs.toFixed(3)}; ${d.samples} calls; target ≤ ${d.targetMs} ms)`
      )
    }
  }
  const targets = targetsOf(overheads, doors)
  if (targets.length > 0) {
    out.push("", "Targets (issue 25, item 6):")
    for (const t of targets) out.push(`  [${t.met ? "met" : "NOT MET"}] ${t.target}: ${t.measured}`)
  }
  return out.join("\n")
}

Effect.runPromise(program).then(
  ({ billed, doors, overheads, rows, timings }) => {
    if (json) {
      process.stdout.write(
        JSON.stringify(
          {
            settings: { steps, windows, outputReserve, secondsBetweenCalls, seed, summaryTokens },
            rows,
            overheads,
            timings,
            doors,
            billed,
            targets: targetsOf(overheads, doors)
          },
          null,
          2
        ) + "\n"
      )
    } else process.stdout.write(table(rows, overheads, timings, doors, billed) + "\n")
  },
  (error: unknown) => {
    process.stderr.write(`${String(error)}\n`)
    process.exit(1)
  }
)
