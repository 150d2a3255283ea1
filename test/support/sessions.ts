/**
 * Agent sessions from seeds: deterministic sequences of `effect/ai` prompt messages, for the
 * session bench (`bench/agent.bench.ts`) and for property tests over sessions the tests never
 * saw.
 *
 * A session is a start (a system prompt and the user's first message) and `steps`. A step is
 * one model call: the model's response (an assistant message) and then what is appended before
 * the next call — the tool results, an approval and its result, or the user's next message.
 * Replayed, the history before call k is the start and the first k steps; it is the prompt of
 * call k, whose answer is step k's response. Every history a call sees is complete: each tool
 * call has its results and each approval request its response (a "late" result arrives in the
 * same step, after a user message that interrupts), so any orphaned tool part in a request is
 * the window's doing.
 *
 * Shapes:
 *
 * - `tool-heavy` — an agent working through tasks: mostly tool calls, one to three in a message,
 *   with results of 50–1,000 tokens (about 900 tokens a step on average: issue 18's reference
 *   session, where a two-watermark policy measured 92% and 0.19× at 32k, grows by about 2.5% of
 *   a 32k window a call, ~700 tokens); sometimes a user message between two results of one call
 *   message (a late result); sometimes an approval request, approved or denied, before the
 *   call runs; every few steps an answer and the user's next instruction, often the same "yes,
 *   do it".
 * - `chatty` — short user and assistant turns, an occasional long paste from the user (1,000–
 *   4,000 tokens), repeated identical user messages, and a rare tool call.
 * - `retrieval` — a question, then a `search` call (one to three in a message) whose results are
 *   the retrieved documents (300–1,500 tokens each), then the answer; documents arrive as tool
 *   results, as an agent with a search tool receives them (the layer's `documents` option is
 *   fixed when the layer is built, so it cannot carry documents per call).
 * - `mixed` — each step's pattern drawn from the three.
 * - `large-results` (a stress shape, not one of {@link shapes}) — `tool-heavy` with results of
 *   200–3,000 tokens: about 2,400 tokens a step, 8.5% of a 32k window, where no window can keep
 *   90% of its input cached (every call's new tokens are uncached: the hit ratio is at most
 *   1 − growth / target).
 *
 * - `rereading` (issue 27, not one of {@link allShapes}) — an agent re-reading the same files:
 *   `read_file` calls whose result is the file's text, identical at every read of that file, each
 *   file read up to five times (a read of a file not yet read five times four times in five,
 *   else a new file of 200–1,500 tokens); now and then a `grep` or `run_tests` beside it, and an
 *   answer with the user's next instruction.
 * - `screenshot` (issue 27, not one of {@link allShapes}) — a computer-use agent: tool steps as
 *   in `tool-heavy` (results of 50–600 tokens), and every third step a `screenshot` call whose
 *   result says it was taken, followed by a user message holding the image (a 1280×800 PNG, as
 *   agents send a tool's image to a chat API that takes images only from the user).
 *
 * References: about one step in five refers back to one or two earlier tool results by their
 * call ids ("see the result of call_17"), each drawn half the time from the ten newest results
 * before the step and half the time from all of them — in the step's user message when it has
 * one of its own words (not a repeated approval), else in a text part leading its response.
 * They are drawn from a second PRNG seeded from the seed, so the rest of a session is the same
 * as without them; a reference adds a few words to the message that carries it.
 * {@link referencesAt} gives them per call.
 *
 * Sizes are drawn in words; o200k counts about one token per word of the vocabulary below, a
 * little more with the framing, ids and JSON. The PRNG is mulberry32.
 */
import { Prompt } from "effect/ai"
import { png } from "./mediaFixtures.ts"

/**
 * The shapes of session.
 */
export type Shape = "tool-heavy" | "chatty" | "retrieval" | "mixed" | "large-results" | "rereading" | "screenshot"

/** The shapes of the targets, in the bench's order. */
export const shapes: ReadonlyArray<Shape> = ["tool-heavy", "chatty", "retrieval", "mixed"]

/** Every shape: {@link shapes} and the stress shape `large-results`. */
export const allShapes: ReadonlyArray<Shape> = [...shapes, "large-results"]

/** The shapes of issue 27's repeats: re-read files, and screenshots. */
export const repeatShapes: ReadonlyArray<Shape> = ["rereading", "screenshot"]

/** Every shape the bench knows: {@link allShapes}, then {@link repeatShapes} (the seeds follow this order). */
export const benchShapes: ReadonlyArray<Shape> = [...allShapes, ...repeatShapes]

/**
 * One model call: the model's response, then the messages appended before the next call, and
 * the call ids of the earlier tool results that one of them refers back to (`references`: in
 * the text of the response or of a user message of `next`; results of earlier steps only).
 */
export interface Step {
  readonly response: Prompt.AssistantMessage
  readonly next: ReadonlyArray<Prompt.Message>
  readonly references: ReadonlyArray<string>
}

/**
 * A generated session.
 */
export interface Session {
  readonly shape: Shape
  readonly seed: number
  /** The system prompt and the user's first message. */
  readonly start: ReadonlyArray<Prompt.Message>
  readonly steps: ReadonlyArray<Step>
}

/** mulberry32: a 32-bit seeded PRNG; each call returns a number in [0, 1). */
export const mulberry32 = (seed: number): () => number => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6D2B79F5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const vocabulary = (
  "the a of to and in is it that for on with as this be are by from at or an not was can will if but " +
  "file function value data user request response error test build config module service layer window " +
  "token message model cache prompt result call tool search query index table column row record field " +
  "type string number list map set key state store update create delete read write open close start " +
  "stop run check return import export class method option default path line change commit branch merge " +
  "server client network time date order price cost total count size limit page item group score rank " +
  "first last next previous new old large small fast slow good bad true false null empty full part " +
  "report issue fix bug feature release version package install deploy log trace span metric event"
).split(" ")

/** Draws from the generator: helpers over one PRNG. */
const drawer = (random: () => number) => {
  const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1))
  const chance = (p: number) => random() < p
  const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(random() * xs.length)]!
  /** About `n` tokens of text: words, some sentences, a line break now and then. */
  const text = (n: number): string => {
    const words: Array<string> = []
    for (let i = 0; i < n; i++) {
      const word = pick(vocabulary)
      words.push(i % 13 === 12 ? `${word}.` : i % 61 === 60 ? `${word}\n` : word)
    }
    return words.join(" ")
  }
  return { int, chance, pick, text }
}

type Draw = ReturnType<typeof drawer>

/** A step before its references are drawn. */
type Draft = Omit<Step, "references">

const tools = ["read_file", "run_tests", "grep", "list_dir", "edit_file", "http_get"] as const
const repeated = ["yes, do it", "ok, continue", "yes, do it"]

/** The messages of one session under construction, with the ids it has handed out. */
const builder = (draw: Draw) => {
  let calls = 0
  let approvals = 0
  const user = (text: string) => Prompt.userMessage({ content: [Prompt.textPart({ text })] })
  const assistantText = (text: string) => Prompt.assistantMessage({ content: [Prompt.textPart({ text })] })
  const call = (name: string) => {
    calls++
    return Prompt.toolCallPart({
      id: `call_${calls}`,
      name,
      params: { target: `${draw.pick(vocabulary)}_${calls}`, depth: draw.int(1, 5) },
      providerExecuted: false
    })
  }
  const result = (part: Prompt.ToolCallPart, tokens: number, failure = false) =>
    Prompt.toolMessage({
      content: [
        Prompt.toolResultPart({
          id: part.id,
          name: part.name,
          isFailure: failure,
          result: failure ? "denied by the user" : draw.text(tokens),
          providerExecuted: false
        })
      ]
    })
  const approvalRequest = (part: Prompt.ToolCallPart) => {
    approvals++
    return Prompt.toolApprovalRequestPart({ approvalId: `approval_${approvals}`, toolCallId: part.id })
  }
  const approvalResponse = (approvalId: string, approved: boolean) =>
    Prompt.toolMessage({ content: [Prompt.toolApprovalResponsePart({ approvalId, approved })] })
  /** A call with the given parameters, and its result of the given text. */
  const callWith = (name: string, params: Readonly<Record<string, unknown>>) => {
    calls++
    return Prompt.toolCallPart({ id: `call_${calls}`, name, params, providerExecuted: false })
  }
  const resultText = (part: Prompt.ToolCallPart, text: string) =>
    Prompt.toolMessage({
      content: [Prompt.toolResultPart({ id: part.id, name: part.name, isFailure: false, result: text, providerExecuted: false })]
    })
  return { user, assistantText, call, result, approvalRequest, approvalResponse, callWith, resultText }
}

type Build = ReturnType<typeof builder>

/** A tool step: one to three calls (or one awaiting approval), their results, maybe a late one. */
const toolStep = (draw: Draw, b: Build, names: ReadonlyArray<string>, minResult: number, maxResult: number): Draft => {
  if (draw.chance(0.08)) {
    const part = b.call(draw.pick(names))
    const request = b.approvalRequest(part)
    const approved = draw.chance(0.8)
    return {
      response: Prompt.assistantMessage({ content: [Prompt.textPart({ text: draw.text(draw.int(5, 30)) }), part, request] }),
      next: [b.approvalResponse(request.approvalId, approved), b.result(part, draw.int(minResult, maxResult), !approved)]
    }
  }
  const n = draw.chance(0.6) ? 1 : draw.int(2, 3)
  const parts = Array.from({ length: n }, () => b.call(draw.pick(names)))
  const results = parts.map((part) => b.result(part, draw.int(minResult, maxResult)))
  const lead = draw.chance(0.3) ? [Prompt.textPart({ text: draw.text(draw.int(10, 60)) })] : []
  const response = Prompt.assistantMessage({ content: [...lead, ...parts] })
  // A late result: the user speaks before the last result of the message arrives.
  if (n > 1 && draw.chance(0.25)) {
    return { response, next: [...results.slice(0, -1), b.user(draw.text(draw.int(5, 40))), results.at(-1)!] }
  }
  return { response, next: results }
}

/** An answer and the user's next message: often a repeated approval, sometimes a long paste. */
const turnStep = (draw: Draw, b: Build, answer: [number, number], paste: number): Draft => {
  const response = b.assistantText(draw.text(draw.int(answer[0], answer[1])))
  const next = draw.chance(0.3)
    ? b.user(draw.pick(repeated))
    : draw.chance(paste)
    ? b.user(draw.text(draw.int(1000, 4000)))
    : b.user(draw.text(draw.int(5, 80)))
  return { response, next: [next] }
}

/** A retrieval step pair's first half: search calls whose results are documents. */
const searchStep = (draw: Draw, b: Build): Draft => {
  const n = draw.int(1, 3)
  const parts = Array.from({ length: n }, () => b.call("search"))
  return {
    response: Prompt.assistantMessage({ content: parts }),
    next: parts.map((part) => b.result(part, draw.int(300, 1500)))
  }
}

/** The files of a `rereading` session: each path's text, and how often it was read. */
type Files = Array<{ readonly path: string; readonly text: string; reads: number }>

/** A `rereading` step: a file read (again, mostly), sometimes with a grep or a test run beside it. */
const rereadStep = (draw: Draw, b: Build, files: Files): Draft => {
  const pending = files.filter((f) => f.reads < 5)
  let file = pending.length > 0 && draw.chance(0.8) ? draw.pick(pending) : undefined
  if (file === undefined) {
    file = { path: `src/${draw.pick(vocabulary)}_${files.length + 1}.ts`, text: draw.text(draw.int(200, 1500)), reads: 0 }
    files.push(file)
  }
  file.reads++
  const read = b.callWith("read_file", { path: file.path })
  const parts = [read]
  const results = [b.resultText(read, file.text)]
  if (draw.chance(0.25)) {
    const other = b.call(draw.pick(["grep", "run_tests"]))
    parts.push(other)
    results.push(b.result(other, draw.int(50, 400)))
  }
  return { response: Prompt.assistantMessage({ content: parts }), next: results }
}

/** The image of every screenshot: a 1280×800 PNG (its header gives the size the counters read). */
const screenshotImage = png(1280, 800, { pixels: false })

/** A `screenshot` step: the call, its result, then the image in a user message. */
const screenshotStep = (b: Build): Draft => {
  const call = b.callWith("screenshot", {})
  const image = Prompt.userMessage({
    content: [
      Prompt.textPart({ text: `Screenshot from ${call.id}:` }),
      Prompt.filePart({ mediaType: "image/png", data: screenshotImage })
    ]
  })
  return {
    response: Prompt.assistantMessage({ content: [call] }),
    next: [b.resultText(call, "screenshot taken (1280×800)"), image]
  }
}

/**
 * A session of `steps` calls of the given shape, the same for the same seed.
 */
export const generate = (shape: Shape, steps: number, seed: number): Session => {
  const draw = drawer(mulberry32(seed))
  const b = builder(draw)
  const start: Array<Prompt.Message> = [
    Prompt.systemMessage({ content: `You are an agent (session ${shape} ${seed}). ${draw.text(draw.int(300, 900))}` }),
    b.user(draw.text(draw.int(20, 200)))
  ]
  const out: Array<Draft> = []
  // A retrieval answer follows its search: the pattern of the previous step decides the next.
  let answerDue = false
  const files: Files = []
  while (out.length < steps) {
    if (answerDue) {
      out.push(turnStep(draw, b, [80, 400], 0))
      answerDue = false
      continue
    }
    const pattern = shape === "mixed" ? draw.pick(["tool-heavy", "chatty", "retrieval"] as const) : shape
    switch (pattern) {
      case "tool-heavy":
        out.push(draw.chance(0.12) ? turnStep(draw, b, [20, 200], 0.02) : toolStep(draw, b, tools, 50, 1000))
        break
      case "large-results":
        out.push(draw.chance(0.12) ? turnStep(draw, b, [20, 200], 0.02) : toolStep(draw, b, tools, 200, 3000))
        break
      case "chatty":
        out.push(draw.chance(0.04) ? toolStep(draw, b, tools, 100, 600) : turnStep(draw, b, [20, 300], 0.05))
        break
      case "retrieval":
        out.push(searchStep(draw, b))
        answerDue = true
        break
      case "rereading":
        out.push(draw.chance(0.1) ? turnStep(draw, b, [20, 200], 0) : rereadStep(draw, b, files))
        break
      case "screenshot":
        out.push(
          out.length % 3 === 2
            ? screenshotStep(b)
            : draw.chance(0.12)
            ? turnStep(draw, b, [20, 200], 0)
            : toolStep(draw, b, ["click", "type_text", "read_page", "scroll"], 50, 600)
        )
        break
    }
  }
  return { shape, seed, start, steps: withReferences(out, seed) }
}

/** The seed of the references' PRNG: another stream than the session's own. */
const referenceSeed = (seed: number): number => (Math.imul(seed ^ 0x5BD1E995, 0x27D4EB2F) + 0x165667B1) >>> 0

/** The call ids of the tool results among `messages`, in order. */
export const resultIds = (messages: ReadonlyArray<Prompt.Message>): Array<string> =>
  messages.flatMap((m) => (m.role === "tool" ? m.content.flatMap((p) => (p.type === "tool-result" ? [p.id] : [])) : []))

/** The text of a user message made of text parts, else `undefined`. */
const userText = (message: Prompt.Message): string | undefined =>
  message.role === "user" && message.content.every((p) => p.type === "text")
    ? message.content.map((p) => (p.type === "text" ? p.text : "")).join("")
    : undefined

/**
 * The steps with their references (see the module's header), drawn from a PRNG of their own:
 * the drafts' content is the session's, whatever the references.
 */
const withReferences = (drafts: ReadonlyArray<Draft>, seed: number): Array<Step> => {
  const draw = drawer(mulberry32(referenceSeed(seed)))
  const earlier: Array<string> = []
  return drafts.map((draft) => {
    let step: Step = { ...draft, references: [] }
    if (earlier.length > 0 && draw.chance(0.2)) {
      const ids: Array<string> = []
      const n = draw.chance(0.7) ? 1 : 2
      for (let i = 0; i < n; i++) {
        const id = draw.chance(0.5) ? draw.pick(earlier.slice(-10)) : draw.pick(earlier)
        if (!ids.includes(id)) ids.push(id)
      }
      const named = ids.join(" and ")
      const at = draft.next.findIndex((m) => {
        const text = userText(m)
        return text !== undefined && !repeated.includes(text)
      })
      const carrier = draft.next[at]
      const text = carrier === undefined ? undefined : userText(carrier)
      step = text === undefined
        ? {
          response: Prompt.assistantMessage({
            content: [Prompt.textPart({ text: `Going back to the result of ${named}.` }), ...draft.response.content]
          }),
          next: draft.next,
          references: ids
        }
        : {
          response: draft.response,
          next: draft.next.map((m, i) =>
            i === at ? Prompt.userMessage({ content: [Prompt.textPart({ text: `${text} (see the result of ${named})` })] }) : m
          ),
          references: ids
        }
    }
    earlier.push(...resultIds(draft.next))
    return step
  })
}

/**
 * The call ids the history before call `k` refers back to at its newest step (step `k − 1`):
 * earlier tool results the caller's latest turn relies on. None before call 1.
 */
export const referencesAt = (session: Session, k: number): ReadonlyArray<string> =>
  k <= 0 ? [] : session.steps[k - 1]?.references ?? []

/**
 * The history before call `k` (0-based): the start and the first `k` steps. The message
 * objects are the session's own, so the same message is the same object in every history.
 */
export const historyAt = (session: Session, k: number): Array<Prompt.Message> => {
  const history = [...session.start]
  for (let j = 0; j < k && j < session.steps.length; j++) {
    const step = session.steps[j]!
    history.push(step.response, ...step.next)
  }
  return history
}

/**
 * Every history of a replay, in order: the prompt of call 0, of call 1, … (built
 * incrementally: each is the previous one and one step).
 */
export const histories = function*(session: Session): Generator<ReadonlyArray<Prompt.Message>> {
  const history: Array<Prompt.Message> = [...session.start]
  for (const step of session.steps) {
    yield history.slice()
    history.push(step.response, ...step.next)
  }
}

/**
 * A plain chat of `turns` long messages (about 190 tokens each by a four-characters-a-token
 * count), user and assistant in turn, after a short system prompt: a history that outgrows a
 * small window in a few turns.
 */
export const longChat = (turns: number): Prompt.Prompt =>
  Prompt.make([
    { role: "system", content: "be brief" },
    ...Array.from({ length: turns }, (_, i) => ({
      role: i % 2 === 0 ? "user" as const : "assistant" as const,
      content: `turn ${i} ${"word ".repeat(150)}`
    }))
  ])
