/**
 * One server of the store fleet (`storeFleet.ts`): a Node process that answers model calls
 * through `WindowedLanguageModel.layer` in stable mode, its conversations' states in a shared
 * Redis (`RedisStore.layerFrom` over `NodeRedis.layer`, through the fleet's proxy).
 *
 * Reads one JSON request a line on stdin — `{ id, conversation, turns }` — and answers each, as
 * soon as it is done (requests run concurrently), with one JSON line on stdout: how long the
 * call took, how it ended, what the window did and whether its state was committed. The model
 * answers at once: the time of a call is the layer's and the store's.
 *
 * Usage: `node bench/storeWorker.ts <redis url> <store timeout ms>`.
 */
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import { Clock, Context, Effect, Exit, Layer, PubSub, References, Stream } from "effect"
import { LanguageModel, Prompt } from "effect/ai"
import { createInterface } from "node:readline"
import * as PromptWindow from "../src/ai/PromptWindow.ts"
import * as RedisStore from "../src/ai/RedisStore.ts"
import * as TokenCounter from "../src/ai/TokenCounter.ts"
import * as WindowedLanguageModel from "../src/ai/WindowedLanguageModel.ts"
import { historyOf, keyOf } from "./storeHistory.ts"

const [url = "redis://127.0.0.1:6379", timeoutText = "300"] = process.argv.slice(2)
const timeout = Number(timeoutText)

export interface Answer {
  readonly id: number
  readonly ok: boolean
  readonly millis: number
  readonly committed: string | undefined
  readonly action: string | undefined
  readonly fresh: string | undefined
  readonly cachedTokens: number
  readonly storeFailure?: string | undefined
  readonly error?: string
}

const Counter = TokenCounter.make((message) => Math.ceil(PromptWindow.render(message).length / 4) + 4)

const program = Effect.gen(function*() {
  const inner = yield* LanguageModel.make({
    generateText: () => Effect.succeed([{ type: "text" as const, text: "ok" }]),
    streamText: () => Stream.empty
  })
  const store = RedisStore.layerFrom(NodeRedis.layer({ url, disableOfflineQueue: true }), { url, timeout })
  const context = yield* Layer.build(
    WindowedLanguageModel.layer({
      contextWindow: 6_000,
      outputReserve: 1_000,
      storeTimeout: timeout,
      store,
      conversationKey: (prompt) => keyOf(prompt.content[1])
    }).pipe(
      Layer.provide([Layer.succeed(LanguageModel.LanguageModel, inner), Counter])
    )
  )
  const model = Context.get(context, LanguageModel.LanguageModel)
  const reports = Context.get(context, WindowedLanguageModel.WindowReports)

  const answer = (id: number, conversation: number, turns: number) =>
    Effect.scoped(Effect.gen(function*() {
      // A subscription of the call's own: its report is the one whose prompt is this history.
      const mine = yield* PubSub.subscribe(reports)
      const start = yield* Clock.currentTimeMillis
      const history = historyOf(conversation, turns)
      const exit = yield* Effect.exit(model.generateText({ prompt: Prompt.fromMessages(history) }))
      const millis = (yield* Clock.currentTimeMillis) - start
      if (Exit.isFailure(exit)) {
        return { id, ok: false, millis, committed: undefined, action: undefined, fresh: undefined, cachedTokens: 0, error: String(exit.cause) }
      }
      // The report whose request ends with this history's newest message (each turn's is its own).
      const newest = history[history.length - 1]
      const last = (prompt: Prompt.Prompt) => prompt.content[prompt.content.length - 1]
      const same = (m: Prompt.Message | undefined) =>
        m !== undefined && newest !== undefined && PromptWindow.render(m) === PromptWindow.render(newest)
      let report = yield* PubSub.take(mine)
      while (!same(last(report.prompt))) report = yield* PubSub.take(mine)
      return {
        id,
        ok: true,
        millis,
        committed: report.committed,
        action: report.change?.action,
        fresh: report.change?.fresh,
        cachedTokens: report.prediction?.cachedTokens ?? 0,
        storeFailure: report.change?.storeFailure
      } satisfies Answer
    }))

  const lines = createInterface({ input: process.stdin })
  yield* Effect.callback<void>((resume) => {
    lines.on("line", (line) => {
      const request: { id: number; conversation: number; turns: number } = JSON.parse(line)
      Effect.runFork(
        answer(request.id, request.conversation, request.turns).pipe(
          Effect.tap((a) => Effect.sync(() => process.stdout.write(JSON.stringify(a) + "\n"))),
          Effect.provideService(References.MinimumLogLevel, "None")
        )
      )
    })
    lines.once("close", () => resume(Effect.void))
  })
})

Effect.runPromise(Effect.scoped(program).pipe(Effect.provideService(References.MinimumLogLevel, "None"))).then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`storeWorker: ${String(error)}\n`)
    process.exit(1)
  }
)
process.stdout.write(JSON.stringify({ ready: true }) + "\n")
