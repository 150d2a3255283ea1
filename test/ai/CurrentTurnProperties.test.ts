/**
 * The current turn is whole, on generated conversations counted with o200k (docs/ai.md K2, K6,
 * C1; issue 25, item 4), through `PromptWindow.fit`, `WindowedLanguageModel` in both modes (the
 * stable one with a summariser) and `trim`. For every window:
 *
 * (a) when the newest user message and everything after it (with their groups) fit beside the
 *     system prompt, the window holds all of them;
 * (b) when the newest user message alone fits beside the system prompt, it is in the window;
 * (c) otherwise the call fails with `TurnBudgetError` (`PinnedBudgetError` when the system
 *     prompt alone does not fit);
 * (d) no tool part is sent without its partner;
 * (e) a summary, when sent, stands right after the system prompt.
 *
 * The counts are the o200k counts of each message (`GptTokenizer`'s `TokenCounter`), made here
 * apart from the window's own bookkeeping. Seeds are the tests' own, used nowhere else; every
 * case is met whatever the seed (docs/design.md item 151): every third conversation or history
 * gets a window too small for one of its user messages, so that (c) is met.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, PubSub, Stream } from "effect"
import { AiError, LanguageModel, Prompt } from "effect/ai"
import * as fc from "fast-check"
import { ContextBudget, FirstFitSlice, OverflowNotifier, RecencyScorer } from "../../src/index.ts"
import * as GptTokenizer from "../../src/ai/GptTokenizer.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as Summarizer from "../../src/ai/Summarizer.ts"
import { TokenCounter } from "../../src/ai/TokenCounter.ts"
import * as WindowedLanguageModel from "../../src/ai/WindowedLanguageModel.ts"
import * as SectionedPlacer from "../../src/placers/SectionedPlacer.ts"
import * as OpenAIChat from "../../src/plain/OpenAIChat.ts"
import { trim } from "../../src/plain/Trim.ts"
import * as Sessions from "../support/sessions.ts"

/** What a door did with one history: the window it sent, or the tag of its error. */
type Outcome =
  | {
    readonly _tag: "window"
    /** The history's indices of the messages sent (a shortened copy stands for its original). */
    readonly sent: ReadonlySet<number>
    readonly prompt: Prompt.Prompt
  }
  | { readonly _tag: "error"; readonly error: string }

/** Which of the properties a history put to the test. */
interface Tally {
  whole: number
  userAlone: number
  turnError: number
  summaries: number
}
const tally = (): Tally => ({ whole: 0, userAlone: 0, turnError: 0, summaries: 0 })

/** The members of the current turn: the newest user message, everything after it, and their groups. */
const turnOf = (history: ReadonlyArray<Prompt.Message>, newestUser: number): Array<number> => {
  if (newestUser < 0) return []
  const groups = PromptWindow.groups(history)
  const reached = new Set(history.flatMap((_, i) => (i > newestUser && groups[i] !== undefined ? [groups[i]] : [])))
  return history.flatMap((m, i) =>
    m.role !== "system" && (i >= newestUser || (groups[i] !== undefined && reached.has(groups[i]))) ? [i] : []
  )
}

/** The properties (a)–(e) of one window of `history`, with `tokens[i]` message i's count and `target` the room. */
const check = (
  history: ReadonlyArray<Prompt.Message>,
  tokens: ReadonlyArray<number>,
  target: number,
  outcome: Outcome,
  label: string,
  seen: Tally
): void => {
  const sum = (indices: ReadonlyArray<number>) => indices.reduce((s, i) => s + tokens[i]!, 0)
  const system = sum(history.flatMap((m, i) => (m.role === "system" ? [i] : [])))
  const error = outcome._tag === "error" ? outcome.error : "a window"
  if (system > target) {
    assert.strictEqual(error, "PinnedBudgetError", label)
    return
  }
  const newestUser = history.findLastIndex((m) => m.role === "user")
  if (newestUser >= 0 && system + tokens[newestUser]! > target) {
    // (c)
    assert.strictEqual(error, "TurnBudgetError", label)
    seen.turnError++
    return
  }
  if (outcome._tag === "error") return assert.fail(`${outcome.error}: ${label}`)
  const { prompt, sent } = outcome
  // (d)
  assert.deepStrictEqual(PromptWindow.orphans(prompt), [], label)
  if (newestUser < 0) return
  // (b)
  assert.isTrue(sent.has(newestUser), `(b) the newest user message is sent: ${label}`)
  seen.userAlone++
  // (a)
  const turn = turnOf(history, newestUser)
  if (system + sum(turn) <= target) {
    const missing = turn.filter((i) => !sent.has(i))
    assert.deepStrictEqual(missing, [], `(a) the current turn is sent whole: ${label}`)
    seen.whole++
  }
  // (e)
  const at = prompt.content.findIndex((m) => Summarizer.readSummaryMessage(m) !== undefined)
  if (at >= 0) {
    assert.isTrue(prompt.content.slice(0, at).every((m) => m.role === "system"), `(e) only system messages before the summary: ${label}`)
    assert.notStrictEqual(prompt.content[at + 1]?.role, "system", `(e) the summary follows the system messages: ${label}`)
    seen.summaries++
  }
}

/**
 * A window too small for the user message at `index` of `history` beside the system prompt: room
 * for the system prompt and `fraction` (under 1) of that message, with `besides` (the output
 * reserve and the request's overhead). A call that sends that message as the newest is case (c).
 */
const windowBelow = (
  history: ReadonlyArray<Prompt.Message>,
  tokens: ReadonlyArray<number>,
  index: number,
  besides: number,
  fraction: number
): number => {
  const system = history.reduce((sum, m, i) => (m.role === "system" ? sum + tokens[i]! : sum), 0)
  return besides + system + Math.floor((index >= 0 ? tokens[index]! : 0) * fraction)
}

/** The o200k counts of a history's messages, by the `TokenCounter` in context. */
const countAll = (history: ReadonlyArray<Prompt.Message>) =>
  Effect.gen(function*() {
    const counter = yield* TokenCounter
    return yield* Effect.forEach(history, (m) => counter.count(m))
  })

const Gpt = GptTokenizer.layer

/**
 * A window for a conversation's calls too small for its largest user message beside the system
 * prompt ({@link windowBelow}): the call that sends that message as the newest is case (c).
 */
const tightWindow = (
  counter: TokenCounter["Service"],
  session: Sessions.Session,
  outputReserve: number,
  fraction: number
) =>
  Effect.gen(function*() {
    const history = Sessions.historyAt(session, session.steps.length - 1)
    const tokens = yield* Effect.forEach(history, (m) => counter.count(m))
    let largestUser = -1
    history.forEach((m, i) => {
      if (m.role === "user" && (largestUser < 0 || tokens[i]! > tokens[largestUser]!)) largestUser = i
    })
    return windowBelow(history, tokens, largestUser, outputReserve + counter.requestOverhead, fraction)
  })

/** The index each sent message came from: the same object, or a tool message answering the same calls (K6 copy). */
const indicesOf = (history: ReadonlyArray<Prompt.Message>, prompt: Prompt.Prompt): Set<number> => {
  const at = new Map(history.map((m, i) => [m, i]))
  const byResult = new Map<string, number>()
  history.forEach((m, i) => {
    for (const id of Sessions.resultIds([m])) byResult.set(id, i)
  })
  const out = new Set<number>()
  for (const m of prompt.content) {
    const i = at.get(m) ?? byResult.get(Sessions.resultIds([m])[0] ?? "")
    if (i !== undefined) out.add(i)
  }
  return out
}

const samples = (runs: number, seed: number, window: readonly [number, number]) =>
  fc.sample(
    fc.record({
      shape: fc.constantFrom(...Sessions.allShapes),
      seed: fc.integer({ min: 3_000_000, max: 2_000_000_000 }),
      step: fc.integer({ min: 0, max: 30 }),
      contextWindow: fc.integer({ min: window[0], max: window[1] })
    }),
    { numRuns: runs, seed }
  )

describe("the current turn is whole, on generated conversations (o200k)", () => {
  it.effect("through PromptWindow.fit: (a) the turn whole when it fits, (b) the newest user message when it fits alone, (c) else TurnBudgetError, (d) no orphans", () =>
    Effect.gen(function*() {
      const seen = tally()
      const layers = Layer.mergeAll(RecencyScorer.layer, FirstFitSlice.layer, SectionedPlacer.conversation, OverflowNotifier.layerNoop)
      for (const sample of samples(400, 25_0004, [600, 9_000])) {
        const history = Sessions.historyAt(Sessions.generate(sample.shape, sample.step + 1, sample.seed), sample.step)
        const tokens = yield* countAll(history)
        const target = sample.contextWindow
        const budget = new ContextBudget.ContextBudget({ maxTokens: target, targetTokens: target })
        const result = yield* Effect.result(
          PromptWindow.fit(Prompt.fromMessages(history), budget, { overflowStrategy: "Truncate" }).pipe(Effect.provide(layers))
        )
        const outcome: Outcome = result._tag === "Failure"
          ? { _tag: "error", error: result.failure._tag }
          : { _tag: "window", sent: indicesOf(history, result.success.prompt), prompt: result.success.prompt }
        check(history, tokens, target, outcome, JSON.stringify(sample), seen)
      }
      assert.isAbove(seen.whole, 20)
      assert.isAbove(seen.turnError, 0)
      assert.isAbove(seen.userAlone - seen.whole, 0)
    }).pipe(Effect.provide(Gpt)), 60_000)

  for (const mode of ["per-call", "stable"] as const) {
    // Live: the layer's store and summariser run under timeouts, which a test clock would hold.
    it.live(`through WindowedLanguageModel (${mode}${mode === "stable" ? ", with a summariser" : ""}), call after call: (a)–(e)`, () =>
      Effect.gen(function*() {
        const seen = tally()
        const gpt = yield* Layer.build(Gpt)
        const counter = Context.get(gpt, TokenCounter)
        const answering = Layer.effect(
          LanguageModel.LanguageModel,
          LanguageModel.make({ generateText: () => Effect.succeed([{ type: "text", text: "ok" }]), streamText: () => Stream.empty })
        )
        const summaries = Summarizer.make("files", ({ previous, span }) =>
          [previous, `${span.length} earlier messages, ${Sessions.resultIds(span).length} results.`].filter((s) => s !== undefined).join("\n")
        ).pipe(Layer.provide(Layer.succeedContext(gpt)))
        const seed = mode === "stable" ? 25_0041 : 25_0042
        const fractions = fc.sample(fc.double({ min: 0.5, max: 0.95, noNaN: true }), { numRuns: 10, seed: seed + 1 })
        for (const [i, sample] of samples(10, seed, [2_500, 12_000]).entries()) {
          const session = Sessions.generate(sample.shape, 30, sample.seed)
          const outputReserve = 300
          // Every third conversation gets a window too small for its largest user message beside
          // the system prompt, so that (c) is met whatever the seed: a window drawn from the
          // range alone met it in 5 of 12 seeds the test never used.
          const contextWindow = i % 3 === 2
            ? yield* tightWindow(counter, session, outputReserve, fractions[i]!)
            : sample.contextWindow
          const model = WindowedLanguageModel.layer({
            contextWindow,
            outputReserve,
            mode,
            ...(mode === "stable" ? { summarizer: summaries, lowWatermark: 0.5 } : {})
          }).pipe(Layer.provide([answering, Layer.succeedContext(gpt)]))
          yield* Effect.scoped(Effect.gen(function*() {
            const reports = yield* PubSub.subscribe(yield* WindowedLanguageModel.WindowReports)
            let k = 0
            for (const history of Sessions.histories(session)) {
              const label = JSON.stringify({ ...sample, contextWindow, call: k++, mode })
              const tokens = yield* Effect.forEach(history, (m) => counter.count(m))
              const target = contextWindow - outputReserve - counter.requestOverhead
              const answer = yield* Effect.result(LanguageModel.generateText({ prompt: Prompt.fromMessages(history) }))
              const published = yield* PubSub.takeUpTo(reports, 100)
              let outcome: Outcome
              if (answer._tag === "Failure") {
                const failure = answer.failure
                outcome = { _tag: "error", error: AiError.isAiError(failure) ? WindowedLanguageModel.windowFailure(failure) ?? "AiError" : "?" }
              } else {
                const report = published.at(-1)!
                outcome = { _tag: "window", sent: indicesOf(history, report.prompt), prompt: report.prompt }
                assert.isAtMost(report.result.totalTokens, target, label)
              }
              check(history, tokens, target, outcome, label, seen)
            }
          })).pipe(Effect.provide(model))
        }
        assert.isAbove(seen.whole, 20)
        assert.isAbove(seen.userAlone - seen.whole, 0)
        assert.isAbove(seen.turnError, 0)
        if (mode === "stable") assert.isAbove(seen.summaries, 100)
      }).pipe(Effect.scoped), 60_000)
  }

  it.live("through trim: (a)–(d) on the same conversations in the OpenAI chat format", () =>
    Effect.gen(function*() {
      const seen = tally()
      const gpt = yield* Layer.build(Gpt)
      const counter = Context.get(gpt, TokenCounter)
      const fractions = fc.sample(fc.double({ min: 0.5, max: 0.95, noNaN: true }), { numRuns: 120, seed: 25_0044 })
      for (const [i, sample] of samples(120, 25_0043, [600, 9_000]).entries()) {
        const history = Sessions.historyAt(Sessions.generate(sample.shape, sample.step + 1, sample.seed), sample.step)
        const messages = toOpenAI(history)
        // The window's view of the input: the chat messages as trim converts them.
        const converted = OpenAIChat.toPromptMessages(messages)
        const tokens = yield* Effect.forEach(converted, (m) => counter.count(m))
        // Every third history gets a window too small for its newest user message beside the
        // system prompt, so that (c) is met whatever the seed: a window drawn from the range
        // alone met it in 10 of 12 seeds the test never used.
        const newestUser = converted.findLastIndex((m) => m.role === "user")
        const contextWindow = i % 3 === 2
          ? windowBelow(converted, tokens, newestUser, counter.requestOverhead, fractions[i]!)
          : sample.contextWindow
        const target = contextWindow - counter.requestOverhead
        const result = yield* Effect.promise(() =>
          trim(messages, { contextWindow }).then(
            (ok) => ({ ok }),
            (error: unknown) => ({ error })
          )
        )
        let outcome: Outcome
        if ("error" in result) {
          const error = result.error
          outcome = { _tag: "error", error: error instanceof Error && "_tag" in error ? String(error._tag) : "?" }
        } else {
          const sent = result.ok.report.kept
          outcome = {
            _tag: "window",
            sent: new Set(sent),
            prompt: Prompt.fromMessages(OpenAIChat.toPromptMessages(result.ok.messages))
          }
        }
        check(converted, tokens, target, outcome, JSON.stringify({ ...sample, contextWindow }), seen)
      }
      assert.isAbove(seen.whole, 5)
      assert.isAbove(seen.turnError, 0)
    }).pipe(Effect.scoped), 60_000)
})

/**
 * A session's messages in the OpenAI chat format: text as content, tool calls as `tool_calls`,
 * one tool message per result. Approval requests and responses have no form there and are left
 * out (a denied call keeps its "denied" result, so every call still has its result).
 */
const toOpenAI = (history: ReadonlyArray<Prompt.Message>): Array<OpenAIChat.Message> =>
  history.flatMap((m): Array<OpenAIChat.Message> => {
    switch (m.role) {
      case "system":
        return [{ role: "system", content: m.content }]
      case "user":
        return [{ role: "user", content: m.content.map((p) => (p.type === "text" ? p.text : "")).join("") }]
      case "assistant": {
        const text = m.content.map((p) => (p.type === "text" ? p.text : "")).join("")
        const calls = m.content.flatMap((p) =>
          p.type === "tool-call"
            ? [{ id: p.id, type: "function" as const, function: { name: p.name, arguments: JSON.stringify(p.params) } }]
            : []
        )
        return [{ role: "assistant", content: text.length > 0 ? text : null, ...(calls.length > 0 ? { tool_calls: calls } : {}) }]
      }
      case "tool":
        return m.content.flatMap((p) =>
          p.type === "tool-result" ? [{ role: "tool" as const, tool_call_id: p.id, content: String(p.result) }] : []
        )
    }
  })
