/**
 * The agent defaults built once a process (docs/design.md item 133): a session made with the
 * default strategies and one of the library's notifiers uses strategies built before, and
 * fits what a session whose strategies are built for it fits; a notifier or strategy the
 * caller gives is built for each session; and the built defaults capture nothing of the
 * context they were first built in (the log notifier logs through the logger of the fiber it
 * is told in).
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Logger, Ref } from "effect"
import { Prompt } from "effect/ai"
import { ContextBudget, FirstFitSlice, OverflowNotifier, RecencyScorer } from "../../src/index.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as Session from "../../src/ai/Session.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import * as SectionedPlacer from "../../src/placers/SectionedPlacer.ts"
import * as Sessions from "../support/sessions.ts"

const counter = TokenCounter.make((m) => Math.ceil(PromptWindow.render(m).length / 4) + 4)


/** The window a fresh per-call session fits for `history`, as message indices, or the error's tag. */
const fitted = (options: Session.Options, history: ReadonlyArray<Prompt.Message>) =>
  Effect.gen(function*() {
    const session = yield* Session.makePerCall(options)
    const exit = yield* Effect.exit(session.fit({ method: "generate", prompt: Prompt.fromMessages(history) }))
    if (exit._tag === "Failure") return "failed"
    return JSON.stringify(exit.value.fitted.result.window.map((item) => [item.content.length, item.tokens, item.metadata]))
  }).pipe(Effect.scoped, Effect.provide(counter))

describe("the agent defaults built once a process (design item 133)", () => {
  it.effect("a session of the defaults fits what a session of the same strategies built for it fits", () =>
    Effect.gen(function*() {
      const given: Session.Options = {
        contextWindow: 4_000,
        outputReserve: 200,
        // The same strategies, given: built at each session.
        scorer: RecencyScorer.make(),
        slicer: FirstFitSlice.make(),
        placer: SectionedPlacer.conversation,
        notifier: OverflowNotifier.layerNoop
      }
      let checked = 0
      for (const history of Sessions.histories(Sessions.generate("tool-heavy", 40, 1333))) {
        const defaults = yield* fitted({ contextWindow: 4_000, outputReserve: 200, notifier: OverflowNotifier.layerNoop }, history)
        const logged = yield* fitted({ contextWindow: 4_000, outputReserve: 200 }, history)
        assert.strictEqual(defaults, yield* fitted(given, history))
        assert.strictEqual(logged, defaults)
        checked++
      }
      assert.isAbove(checked, 30)
    }))

  it.effect("a notifier the caller gives is built for each session", () =>
    Effect.gen(function*() {
      const builds = yield* Ref.make(0)
      const notifier = Layer.effect(
        OverflowNotifier.OverflowNotifier,
        Effect.as(Ref.update(builds, (n) => n + 1), OverflowNotifier.OverflowNotifier.of({ notify: () => Effect.void }))
      )
      const history = [Prompt.userMessage({ content: [Prompt.textPart({ text: "hi" })] })]
      yield* fitted({ contextWindow: 1_000, outputReserve: 0, notifier }, history)
      yield* fitted({ contextWindow: 1_000, outputReserve: 0, notifier }, history)
      assert.strictEqual(yield* Ref.get(builds), 2)
    }))

  it.effect("the log notifier built once logs through the logger of the fiber it is told in", () =>
    Effect.gen(function*() {
      // Built under one logger, told under another: the second hears it.
      const first: Array<unknown> = []
      const second: Array<unknown> = []
      const loggerOf = (into: Array<unknown>) => Logger.layer([Logger.make((options) => into.push(options.message))])
      const built = yield* Layer.build(OverflowNotifier.layerLog).pipe(Effect.provide(loggerOf(first)))
      const notifier = Context.get(built, OverflowNotifier.OverflowNotifier)
      yield* notifier.notify({
        budget: new ContextBudget.ContextBudget({ maxTokens: 10, targetTokens: 5 }),
        tokensOverBudget: 3,
        overflowingItems: []
      }).pipe(Effect.provide(loggerOf(second)))
      assert.strictEqual(first.length, 0)
      assert.strictEqual(second.length, 1)
    }).pipe(Effect.scoped))
})
