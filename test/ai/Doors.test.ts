/**
 * The same session, the same windows, whatever the door (issue 25, item 2): a differential test
 * of the three front doors that fit an agent's prompt to a window — the effect/ai layer
 * (`WindowedLanguageModel.layer`), the AI SDK middleware and `prepareStep` (`AiSdk`, around the
 * SDK's mock model), and `trim` / `trimModelMessages` (`plain/Trim`).
 *
 * Generated sessions (`test/support/sessions.ts`: the four shapes, many seeds; reasoning parts
 * added, approvals and denied calls as the generator makes them) are replayed call by call
 * through each door with the same settings — context window, output reserve, mode, the same
 * deterministic counter (`test/support/doors.ts`), the default strategies — and each call's
 * outcome is compared: the messages sent (as session indices, in the order sent), the figures
 * every door reports (dropped, shortened with the tokens kept, tokens sent, target) or the
 * error (its `_tag`, the pipeline's tag behind the layer's `AiError`). Per-call mode across all
 * five doors (`trim` on the session as the OpenAI chat format can say it), stable mode across the
 * layer, the middleware and `prepareStep`.
 *
 * Then each class of difference found, reproduced on its own, and the drifts issue 25 names
 * (tool definitions, tool counts, option errors): each `it` is the contract the one session
 * core must meet, and several fail on the code they were written against (that is their
 * point: see the header of each).
 */
import { assert, describe, it } from "@effect/vitest"
import { wrapLanguageModel } from "ai"
import { Effect, Layer, Stream } from "effect"
import { LanguageModel, Prompt, Toolkit } from "effect/ai"
import * as AiSdk from "../../src/adapters/AiSdk.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import * as WindowedLanguageModel from "../../src/ai/WindowedLanguageModel.ts"
import * as Trim from "../../src/plain/Trim.ts"
import {
  type DoorName,
  doors,
  jsCall,
  layerCounter,
  lookupTool,
  messageTokens,
  modelMessageTokens,
  type Outcome,
  quarter,
  sameOutcome,
  type Settings,
  showOutcome,
  tagOf,
  toolTokensOf
} from "../support/doors.ts"
import { chatProjection, toModelMessages, toOpenAIChat, toProviderPrompt, withReasoning } from "../support/sessionFormats.ts"
import { generate, type Session, type Shape, shapes } from "../support/sessions.ts"
import { textModel } from "../support/textModel.ts"

/** Small windows, so that windows drop and shorten often (and 1,000 is below some system prompts). */
const windows = [1_000, 1_500, 2_500, 4_000, 6_000, 8_000] as const
const reserves = [0, 200, 500] as const

const settingsOf = (seed: number, mode: Settings["mode"], extra: Partial<Settings> = {}): Settings => ({
  contextWindow: windows[seed % windows.length]!,
  outputReserve: reserves[Math.floor(seed / windows.length) % reserves.length]!,
  mode,
  ...extra
})

/** A generated session of the seed's shape, with reasoning parts; `chat`: as the OpenAI chat format says it. */
const sessionOf = (seed: number, steps: number, chat: boolean): Session => {
  const session = withReasoning(generate(shapes[seed % shapes.length]!, steps, seed))
  return chat ? chatProjection(session) : session
}

/** What a differential run found: the calls compared, and per door pair the calls that differ. */
interface Findings {
  calls: number
  readonly differing: Record<string, number>
  /** Of those, the calls whose messages sent differ (or one door failed and the other did not). */
  readonly windowsDiffer: Record<string, number>
  readonly examples: Array<string>
  /** How often the calls dropped, shortened and failed: the run must exercise all three. */
  readonly exercised: { dropped: number; shortened: number; failed: number; masked: number; images: number; references: number }
}

/**
 * Replays `seeds` sessions through `names` (the first is the reference) and compares every
 * call's outcome with the reference's.
 */
const differential = async (
  names: ReadonlyArray<DoorName>,
  seeds: ReadonlyArray<number>,
  make: (seed: number) => { readonly session: Session; readonly settings: Settings }
): Promise<Findings> => {
  const [reference, ...others] = names
  const findings: Findings = { calls: 0, differing: {}, windowsDiffer: {}, examples: [], exercised: { dropped: 0, shortened: 0, failed: 0, masked: 0, images: 0, references: 0 } }
  for (const seed of seeds) {
    const { session, settings } = make(seed)
    const outcomes = new Map<DoorName, Array<Outcome>>()
    for (const name of names) outcomes.set(name, await doors[name](session, settings))
    const expected = outcomes.get(reference!)!
    findings.calls += expected.length
    for (const o of expected) {
      if (o._tag === "Failure") findings.exercised.failed++
      else {
        if (o.dropped.length > 0) findings.exercised.dropped++
        if (o.shortened.length > 0) findings.exercised.shortened++
        for (const text of o.texts ?? []) {
          if (text.includes("[cleared: the result of")) findings.exercised.masked++
          if (text.includes("[cleared: the image of") || text.includes("[cleared: an image")) findings.exercised.images++
          if (text.includes("[identical to the result of call")) findings.exercised.references++
        }
      }
    }
    for (const name of others) {
      const actual = outcomes.get(name)!
      expected.forEach((want, k) => {
        const got = actual[k]!
        if (sameOutcome(want, got)) return
        const pair = `${reference} vs ${name}`
        findings.differing[pair] = (findings.differing[pair] ?? 0) + 1
        const sentOf = (o: Outcome) => (o._tag === "Failure" ? o.error : o.sent.join(","))
        if (sentOf(want) !== sentOf(got)) findings.windowsDiffer[pair] = (findings.windowsDiffer[pair] ?? 0) + 1
        if (findings.differing[pair]! <= 3) {
          findings.examples.push(
            `${pair}: seed ${seed} (${session.shape}), window ${settings.contextWindow}/${settings.outputReserve} ${settings.mode}, call ${k}\n` +
              `    ${reference}: ${showOutcome(want)}\n    ${name}: ${showOutcome(got)}`
          )
        }
      })
    }
  }
  return findings
}

/** The differences, readable: per pair the count of differing calls out of all, then examples. */
const differences = (findings: Findings): Array<string> => [
  ...Object.entries(findings.differing).map(([pair, n]) =>
    `${pair}: ${n} of ${findings.calls} calls differ (${findings.windowsDiffer[pair] ?? 0} in the messages sent)`
  ),
  ...findings.examples
]

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i)

describe("the same session, the same windows, whatever the door", () => {
  it("per-call: the layer, the middleware, prepareStep, trimModelMessages and trim give the same windows, figures and errors (300 sessions in the chat format)", async () => {
    const findings = await differential(
      ["layer", "middleware", "prepareStep", "trimModelMessages", "trim"],
      range(1, 300),
      (seed) => ({ session: sessionOf(seed, 6, true), settings: settingsOf(seed, "per-call") })
    )
    assert.isAtLeast(findings.calls, 1_800)
    assert.isAbove(findings.exercised.dropped, 500)
    assert.isAbove(findings.exercised.shortened, 50)
    assert.isAbove(findings.exercised.failed, 20)
    assert.deepStrictEqual(differences(findings), [])
  })

  it("per-call, reasoning and approvals: the layer, the middleware, prepareStep and trimModelMessages give the same windows, figures and errors (100 sessions)", async () => {
    const findings = await differential(
      ["layer", "middleware", "prepareStep", "trimModelMessages"],
      range(1_001, 100),
      (seed) => ({ session: sessionOf(seed, 8, false), settings: settingsOf(seed, "per-call") })
    )
    assert.isAbove(findings.exercised.dropped, 200)
    assert.isAbove(findings.exercised.shortened, 20)
    assert.deepStrictEqual(differences(findings), [])
  })

  it("stable: the layer, the middleware and prepareStep give the same windows, figures and errors (150 sessions)", async () => {
    const findings = await differential(
      ["layer", "middleware", "prepareStep"],
      range(2_001, 150),
      (seed) => ({ session: sessionOf(seed, 8, false), settings: settingsOf(seed, "stable") })
    )
    // A stable window cuts to its low watermark and compacts early: it shortens rarely here.
    assert.isAbove(findings.exercised.dropped, 300)
    assert.deepStrictEqual(differences(findings), [])
  })

  it("o200k in every door (gpt-tokenizer): the same windows, figures and errors (8 sessions, per call)", async () => {
    const findings = await differential(
      ["layer", "middleware", "prepareStep", "trimModelMessages", "trim"],
      range(3_001, 8),
      (seed) => ({ session: sessionOf(seed, 6, true), settings: settingsOf(seed, "per-call", { counter: "o200k" }) })
    )
    assert.deepStrictEqual(differences(findings), [])
  })

  it("a call that offers a tool: every door takes its definition off the budget (per call, 24 sessions; the trims by a toolTokens option)", async () => {
    const findings = await differential(
      ["layer", "middleware", "prepareStep", "trimModelMessages", "trim"],
      range(4_001, 24),
      (seed) => ({ session: sessionOf(seed, 6, true), settings: settingsOf(seed, "per-call", { toolWords: 150 }) })
    )
    assert.deepStrictEqual(differences(findings), [])
  })

  it("stable, masking and references on: the layer, the middleware and prepareStep send the same messages, stubs and references alike, read as text (36 sessions: re-reading, screenshots, large results)", async () => {
    const edited: ReadonlyArray<Shape> = ["rereading", "screenshot", "large-results"]
    const findings = await differential(
      ["layer", "middleware", "prepareStep"],
      range(7_001, 36),
      (seed) => ({
        session: generate(edited[seed % edited.length]!, 40, seed),
        settings: {
          ...settingsOf(Math.floor(seed / 3), "stable", { maskToolResults: true, texts: true }),
          // Screenshots (about 1,100 tokens each) need a window that holds several.
          contextWindow: (edited[seed % edited.length] === "screenshot" ? [12_000, 16_000, 24_000] : [4_000, 6_000, 8_000])[Math.floor(seed / 3) % 3]!
        }
      })
    )
    // Every rule is met on the way: tool results and images masked to stubs (X1, X6), repeats
    // sent by reference (R1).
    assert.isAbove(findings.exercised.masked, 500)
    assert.isAbove(findings.exercised.images, 100)
    assert.isAbove(findings.exercised.references, 100)
    assert.deepStrictEqual(differences(findings), [])
  })

  it("a call that offers a tool: the layer, the middleware and prepareStep agree in stable mode (24 sessions)", async () => {
    const findings = await differential(
      ["layer", "middleware", "prepareStep"],
      range(5_001, 24),
      (seed) => ({ session: sessionOf(seed, 8, false), settings: settingsOf(seed, "stable", { toolWords: 150 }) })
    )
    assert.deepStrictEqual(differences(findings), [])
  })
})

/** A session of one call whose prompt is `messages`. */
const oneCall = (messages: ReadonlyArray<Prompt.Message>): Session => ({
  shape: "tool-heavy",
  seed: 0,
  start: messages,
  steps: [{ response: Prompt.assistantMessage({ content: [Prompt.textPart({ text: "…" })] }), next: [], references: [] }]
})

/** `n` words of one to nine letters, a line break every eleventh: a cut ends short of its target. */
const words = (n: number) =>
  Array.from({ length: n }, (_, i) => "abcdefghij".slice(0, 1 + (i * 7) % 9) + (i % 11 === 10 ? "\n" : "")).join(" ")

/** system, user, an assistant's call, its large result: the newest unit does not fit a small window. */
const largeResult = (resultWords: number) => {
  const call = Prompt.toolCallPart({ id: "call_1", name: "read_file", params: { path: "a.txt" }, providerExecuted: false })
  return [
    Prompt.systemMessage({ content: "You are an agent." }),
    Prompt.userMessage({ content: [Prompt.textPart({ text: "read a.txt" })] }),
    Prompt.assistantMessage({ content: [call] }),
    Prompt.toolMessage({
      content: [Prompt.toolResultPart({ id: "call_1", name: "read_file", isFailure: false, result: words(resultWords), providerExecuted: false })]
    })
  ]
}

/** Every door's outcome of a one-call session. */
const everyDoor = async (session: Session, settings: Settings, names: ReadonlyArray<DoorName> = Object.keys(doors).filter(isDoorName)) => {
  const out: Partial<Record<DoorName, Outcome>> = {}
  for (const name of names) out[name] = (await doors[name](session, settings))[0]!
  return out
}

const isDoorName = (name: string): name is DoorName => name in doors

/** Each door's outcome in one line. */
const shown = (outcomes: Partial<Record<DoorName, Outcome>>): Record<string, string> =>
  Object.fromEntries(Object.entries(outcomes).map(([name, o]) => [name, showOutcome(o)]))

/** The same line for each door. */
const sameFor = (outcomes: Partial<Record<DoorName, Outcome>>, line: string): Record<string, string> =>
  Object.fromEntries(Object.keys(outcomes).map((name) => [name, line]))

describe("differences between the doors, each reproduced", () => {
  /**
   * `trim`/`trimModelMessages` report `shortened[].keptTokens` as the tokens the cut was asked
   * for (`PromptWindow.Shortening.keepTokens`, src/plain/Trim.ts `fitConverted`: `cuts` is
   * built from `result.shortened`), where the layer and the middleware report the tokens the cut
   * message kept (the item's `metadata.shortened.keptTokens`, counted by the TokenCounter: the
   * cut ends where a line or a word ends, so it keeps fewer). docs/ai.md K6 and docs/ai.md's
   * Trim section ("`shortened` (`{ index, keptTokens }`)") say the tokens kept: the item's
   * count wins, the one that adds up to `tokens`.
   */
  it("a tool result cut by K6: every door reports the tokens the cut message kept, which add up to the tokens sent", async () => {
    const messages = largeResult(337)
    const session = oneCall(messages)
    const outcomes = await everyDoor(session, { contextWindow: 500, outputReserve: 0, mode: "per-call" })
    const layer = outcomes.layer!
    assert.strictEqual(layer._tag, "Window")
    if (layer._tag !== "Window") return
    assert.deepStrictEqual(layer.sent, [0, 1, 2, 3])
    assert.strictEqual(layer.shortened.length, 1)
    const [index, keptTokens] = layer.shortened[0]!
    assert.strictEqual(index, 3)
    const others = messages.slice(0, 3).reduce((sum, m) => sum + messageTokens(m), 0)
    assert.strictEqual(keptTokens, layer.tokens - others)
    assert.deepStrictEqual(shown(outcomes), sameFor(outcomes, showOutcome(layer)))
  })

  /**
   * Tool definitions larger than what the window leaves: the layer fails the call with an
   * `AiError` (`InvalidRequestError` on `toolkit`, `windowFailure` "ToolDefinitions";
   * src/ai/WindowedLanguageModel.ts `budgetFor`), as docs/ai.md ("Tool definitions") says; the
   * middleware clamps the target to 0 (src/adapters/AiSdk.ts `fitIn`:
   * `Math.max(0, contextWindow - outputReserve - overhead - toolTokens)`) and fails later with
   * whatever the pipeline makes of a zero target (`PinnedBudgetError` for the system prompt),
   * and so does `prepareStep` with a `toolTokens` larger than the window. The documented rule
   * wins: the tool definitions are named, in every door.
   */
  it("a tool definition larger than the window: every door fails the same way (ToolDefinitions)", async () => {
    const session = oneCall(largeResult(50))
    const outcomes = await everyDoor(session, { contextWindow: 1_000, outputReserve: 100, mode: "per-call", toolWords: 2_000 })
    assert.isAbove(toolTokensOf(2_000), 900)
    assert.deepStrictEqual(shown(outcomes), sameFor(outcomes, "fails ToolDefinitions"))
  })

  /**
   * A tool definition whose count is not a safe integer (a counter that gives 2.5 for it): the
   * layer refuses it (`toolTokens` in src/ai/WindowedLanguageModel.ts checks
   * `Number.isSafeInteger`: "ToolDefinitions"); the middleware adds it to the budget unchecked
   * (src/adapters/AiSdk.ts `fitIn`) and fails with a `SchemaError` from `ContextBudget.make`
   * on a fractional target. docs/ai.md's failure table ("a tool count that is not a whole
   * number") wins.
   */
  it("a tool count that is not a safe integer: the layer and the middleware fail the call the same way (ToolDefinitions)", async () => {
    const isTool = (text: string) => text.startsWith("{\"name\":\"lookup\"")
    const session = oneCall(largeResult(50))
    const prompt = Prompt.fromMessages([...session.start])
    const layerError = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const model = yield* LanguageModel.make({
        generateText: () => Effect.succeed([{ type: "text" as const, text: "ok" }]),
        streamText: () => Stream.empty
      })
      const counter = TokenCounter.make((m) => (m.role === "system" && isTool(m.content) ? 2.5 : messageTokens(m)), 0)
      const context = yield* Layer.build(
        WindowedLanguageModel.layer({ contextWindow: 4_000, outputReserve: 100, mode: "per-call" }).pipe(
          Layer.provide([Layer.succeed(LanguageModel.LanguageModel, model), counter])
        )
      )
      const toolkit = Toolkit.make(lookupTool(5))
      const error = yield* Effect.flip(
        LanguageModel.generateText({ prompt, toolkit }).pipe(
          Effect.provide(Layer.mergeAll(Layer.succeedContext(context), toolkit.toLayer({ lookup: () => Effect.succeed("") })))
        )
      )
      return tagOf(error)
    })))
    const model = wrapLanguageModel({
      model: okProvider(),
      middleware: AiSdk.middleware({
        contextWindow: 4_000,
        outputReserve: 100,
        mode: "per-call",
        counter: (text) => (isTool(text) ? 2.5 : quarter(text)),
        requestOverhead: 0
      })
    })
    const middlewareError = await model.doGenerate({
      prompt: toProviderPrompt(session.start),
      tools: [{ type: "function", name: "lookup", description: "look up", inputSchema: { type: "object" } }]
    }).then(() => "answered", tagOf)
    assert.deepStrictEqual({ layer: layerError, middleware: middlewareError }, { layer: "ToolDefinitions", middleware: "ToolDefinitions" })
  })

  /**
   * A counter that throws: the layer and the middleware fail with the `TokenCounter`'s own
   * `AiError` (`UnknownError`, src/ai/TokenCounter.ts `make`), the trims with a
   * `CandidateError` naming the message (src/plain/Trim.ts `counterOf`). docs/ai-sdk.md
   * ("`AiError` (a `counter` … that threw)") and docs/ai.md's Trim table (`CandidateError`,
   * "the `count` function threw") disagree; the house rule ("a user's function that throws
   * becomes a typed error naming it") and the non-integer count (a `CandidateError` in every
   * door) speak for `CandidateError` with `field: "count"` and the message's index.
   */
  it("a counter that throws: every door fails with the same typed error", async () => {
    const session = oneCall(largeResult(50))
    const boom = () => {
      throw new Error("boom")
    }
    const tags = await counterFailures(session, boom)
    assert.strictEqual(new Set(Object.values(tags)).size, 1, JSON.stringify(tags))
  })

  it("a counter that gives no whole number for a message: every door fails with CandidateError", async () => {
    const session = oneCall(largeResult(50))
    const tags = await counterFailures(session, () => 1.5)
    assert.deepStrictEqual(tags, {
      layer: "CandidateError",
      middleware: "CandidateError",
      prepareStep: "CandidateError",
      trimModelMessages: "CandidateError",
      trim: "CandidateError"
    })
  })

  /**
   * The system prompt alone larger than the target: every door fails with `PinnedBudgetError`
   * (rule K4). Holds on today's code; kept as the contract.
   */
  it("a system prompt larger than the window: every door fails with PinnedBudgetError", async () => {
    const session = oneCall([Prompt.systemMessage({ content: words(3_000) }), Prompt.userMessage({ content: [Prompt.textPart({ text: "hi" })] })])
    const outcomes = await everyDoor(session, { contextWindow: 1_000, outputReserve: 100, mode: "per-call" })
    assert.deepStrictEqual(shown(outcomes), sameFor(outcomes, "fails PinnedBudgetError"))
  })
})

const okProvider = () =>
  textModel("ok")

/** The tag each door fails a one-call session with, its counter `f` (of a message's text). */
const counterFailures = async (session: Session, f: (text: string) => number) => {
  const history = [...session.start]
  const layer = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const model = yield* LanguageModel.make({
      generateText: () => Effect.succeed([{ type: "text" as const, text: "ok" }]),
      streamText: () => Stream.empty
    })
    const context = yield* Layer.build(
      WindowedLanguageModel.layer({ contextWindow: 4_000, outputReserve: 100, mode: "per-call" }).pipe(
        Layer.provide([Layer.succeed(LanguageModel.LanguageModel, model), TokenCounter.make((m) => f(m.role), 0)])
      )
    )
    return yield* LanguageModel.generateText({ prompt: Prompt.fromMessages(history) }).pipe(
      Effect.provide(context),
      Effect.match({ onFailure: tagOf, onSuccess: () => "answered" })
    )
  })))
  const options = { contextWindow: 4_000, outputReserve: 100, mode: "per-call" as const, counter: f, requestOverhead: 0 }
  const middleware = await wrapLanguageModel({ model: okProvider(), middleware: AiSdk.middleware(options) })
    .doGenerate({ prompt: toProviderPrompt(history) })
    .then(() => "answered", tagOf)
  const prepareStep = await AiSdk.prepareStep(options)({ messages: toModelMessages(history) }).then(() => "answered", tagOf)
  const trimModelMessages = await Trim.trimModelMessages(toModelMessages(history), {
    contextWindow: 4_000,
    outputReserve: 100,
    count: (m) => f(m.role)
  }).then(() => "answered", tagOf)
  const trim = await Trim.trim(toOpenAIChat(history), { contextWindow: 4_000, outputReserve: 100, count: (m) => f(m.role) })
    .then(() => "answered", tagOf)
  return { layer, middleware, prepareStep, trimModelMessages, trim }
}

/**
 * What each door does with an option a JavaScript caller got wrong: the first error, when the
 * door is built or at its first call, as `{ tag, option }` (`option`: the `path` of an
 * `InvalidConfigError`, the `field` of an `InvalidInput`), or `"accepted"`.
 */
const optionFailures = async (bad: Readonly<Record<string, unknown>>) => {
  const history = [...oneCall(largeResult(50)).start]
  const read = (error: unknown) => {
    const option = typeof error === "object" && error !== null
      ? "path" in error && typeof error.path === "string"
        ? error.path
        : "field" in error && typeof error.field === "string"
        ? error.field
        : undefined
      : undefined
    return { tag: tagOf(error), option }
  }
  const accepted = { tag: "accepted", option: undefined }
  const layer = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const model = yield* LanguageModel.make({
      generateText: () => Effect.succeed([{ type: "text" as const, text: "ok" }]),
      streamText: () => Stream.empty
    })
    const built = yield* Effect.result(Layer.build(
      jsCall(WindowedLanguageModel.layer)(bad).pipe(Layer.provide([Layer.succeed(LanguageModel.LanguageModel, model), layerCounter]))
    ))
    if (built._tag === "Failure") return read(built.failure)
    return yield* LanguageModel.generateText({ prompt: Prompt.fromMessages(history) }).pipe(
      Effect.provide(built.success),
      Effect.match({ onFailure: read, onSuccess: () => accepted })
    )
  })))
  const sdk = { counter: quarter, requestOverhead: 0, ...bad }
  const middleware = await (async () => {
    try {
      const model = wrapLanguageModel({ model: okProvider(), middleware: jsCall(AiSdk.middleware)(sdk) })
      await model.doGenerate({ prompt: toProviderPrompt(history) })
      return accepted
    } catch (error) {
      return read(error)
    }
  })()
  const prepareStep = await (async () => {
    try {
      await jsCall(AiSdk.prepareStep)(sdk)({ messages: toModelMessages(history) })
      return accepted
    } catch (error) {
      return read(error)
    }
  })()
  const trimModelMessages = await jsCall(Trim.trimModelMessages)(toModelMessages(history), { count: modelMessageTokens, ...bad })
    .then(() => accepted, read)
  const trim = await jsCall(Trim.trim)(toOpenAIChat(history), { count: () => 10, ...bad }).then(() => accepted, read)
  return { layer, middleware, prepareStep, trimModelMessages, trim }
}

/**
 * The typed error each door refuses an option with (docs/ai.md, docs/ai-sdk.md): the layer,
 * the middleware and `prepareStep` an `InvalidConfigError` when built, the trims an
 * `InvalidInput` when called — the class of each door's other errors of its input.
 */
const optionErrorOf: Readonly<Record<string, string>> = {
  layer: "InvalidConfigError",
  middleware: "InvalidConfigError",
  prepareStep: "InvalidConfigError",
  trimModelMessages: "InvalidInput",
  trim: "InvalidInput"
}

/** Every door refused the option with its one typed error, naming the same option. */
const assertOneError = (found: Record<string, { readonly tag: string; readonly option: string | undefined }>, option: string) => {
  const summary = JSON.stringify(found)
  assert.deepStrictEqual(Object.keys(found).sort(), Object.keys(optionErrorOf).sort(), summary)
  for (const [name, f] of Object.entries(found)) {
    assert.strictEqual(f.tag, optionErrorOf[name], `${name}: ${summary}`)
    assert.strictEqual(f.option, option, `${name}: ${summary}`)
  }
}

/**
 * Options a caller got wrong (issue 25: "option errors … rejected with one typed error naming
 * the option in every door"). Today: the layer fails to build with a `SchemaError` from
 * `ContextBudget.make` naming `maxTokens`/`targetTokens` (src/ai/WindowedLanguageModel.ts
 * `layer`), takes any `mode` other than "stable" as per-call (`stable = mode === "stable" ? …`)
 * and ignores unknown options; the middleware and `prepareStep` check nothing when built
 * (src/adapters/AiSdk.ts `makeCore`) and fail the first call with the `SchemaError` of
 * `ContextBudget.make`, or not at all; the trims check their own options (`checkOptions`,
 * `InvalidInput` naming the field) and ignore unknown ones and `mode`. The rule to write down
 * (docs/ai.md, docs/ai-sdk.md): every door checks its options when it is built (the trims: when
 * called) and refuses a bad or unknown one with one typed error whose `path`/`field` is the
 * option's name.
 */
describe("option errors: one typed error naming the option, in every door", () => {
  it("contextWindow: 0", async () => {
    assertOneError(await optionFailures({ contextWindow: 0, outputReserve: 0, mode: "per-call" }), "contextWindow")
  })

  it("contextWindow: NaN", async () => {
    assertOneError(await optionFailures({ contextWindow: Number.NaN, outputReserve: 0, mode: "per-call" }), "contextWindow")
  })

  it("outputReserve larger than the window", async () => {
    assertOneError(await optionFailures({ contextWindow: 1_000, outputReserve: 2_000, mode: "per-call" }), "outputReserve")
  })

  it("mode: \"sometimes\"", async () => {
    assertOneError(await optionFailures({ contextWindow: 4_000, outputReserve: 0, mode: "sometimes" }), "mode")
  })

  it("a misspelt option (outputReserv)", async () => {
    assertOneError(await optionFailures({ contextWindow: 4_000, outputReserv: 500, mode: "per-call" }), "outputReserv")
  })
})
