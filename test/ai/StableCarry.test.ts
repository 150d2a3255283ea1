/**
 * What a stable window carries from a call to the conversation's next append (docs/design.md
 * items 107–109), held to a window that carries nothing: at every call of generated sessions,
 * the long-lived window's plan (it carries) and the plan of a window made afresh over the same
 * store (it carries nothing, as a call of another process) are the same — the prompt, the report,
 * the change, the prediction and the state — whatever happens between the calls: a plan not
 * committed, another window's write, an earlier message rewritten, fresh copies of the messages,
 * another conversation in between, other settings on the same key, compactions, masks and
 * references. Each test fails if the carry is used where its rule says it must not be.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Prompt } from "effect/ai"
import * as fc from "fast-check"
import * as StableWindow from "../../src/ai/StableWindow.ts"
import * as Sessions from "../support/sessions.ts"
import { budget, layers } from "../support/stableFixtures.ts"

interface Sample {
  readonly shape: Sessions.Shape
  readonly seed: number
  readonly target: number
}

const samples = (seed: number, runs: number, shapes: ReadonlyArray<Sessions.Shape> = Sessions.benchShapes) =>
  fc.sample(
    fc.record({
      shape: fc.constantFrom(...shapes),
      seed: fc.integer({ min: 1, max: 2_000_000_000 }),
      target: fc.integer({ min: 4_000, max: 30_000 })
    }),
    { numRuns: runs, seed }
  )

/** The plans' parts a caller sees and the store keeps. */
const same = (carrying: StableWindow.Plan, fresh: StableWindow.Plan, label: string): void => {
  assert.deepStrictEqual(carrying.fitted.prompt, fresh.fitted.prompt, `${label}: prompt`)
  assert.deepStrictEqual(carrying.fitted.result, fresh.fitted.result, `${label}: report`)
  assert.deepStrictEqual(carrying.fitted.shortened, fresh.fitted.shortened, `${label}: shortened`)
  assert.deepStrictEqual(carrying.change, fresh.change, `${label}: change`)
  assert.deepStrictEqual(carrying.prediction, fresh.prediction, `${label}: prediction`)
  assert.deepStrictEqual(carrying.next, fresh.next, `${label}: state`)
  assert.strictEqual(carrying.countedTokens, fresh.countedTokens, `${label}: counted`)
}

interface Step {
  /** The call's history (the generated one by default). */
  readonly history?: ReadonlyArray<Prompt.Message>
  /** Whether the carrying window's plan is committed (default true). */
  readonly commit?: boolean
  /** Runs before the call, over the same store (another window's write). */
  readonly before?: Effect.Effect<void, unknown, never> | undefined
}

/**
 * Each history of the sample's session through one long-lived window and through a window made
 * afresh at each call, compared; `step` may change the call. Gives the number of appends.
 */
const differential = (
  sample: Sample,
  options: StableWindow.Options,
  step: (k: number, history: ReadonlyArray<Prompt.Message>, window: StableWindow.StableWindow) => Effect.Effect<Step, unknown, never> = () =>
    Effect.succeed({}),
  steps = 50
) =>
  Effect.gen(function*() {
    const label = JSON.stringify(sample)
    const carrying = yield* StableWindow.make(options)
    let appends = 0
    let k = 0
    for (const generated of Sessions.histories(Sessions.generate(sample.shape, steps, sample.seed))) {
      const change = yield* step(k, generated, carrying)
      if (change.before !== undefined) yield* change.before
      const history = change.history ?? generated
      const call = { key: `${label}/conversation` }
      const fresh = yield* StableWindow.make(options)
      const a = yield* Effect.result(carrying.fit(Prompt.fromMessages(history), budget(sample.target), call))
      const b = yield* Effect.result(fresh.fit(Prompt.fromMessages(history), budget(sample.target), call))
      assert.strictEqual(a._tag, b._tag, `${label} call ${k}`)
      if (a._tag === "Success" && b._tag === "Success") {
        same(a.success, b.success, `${label} call ${k}`)
        if (a.success.change.action === "append") appends++
        if (change.commit !== false) yield* carrying.commit(a.success)
      }
      k++
    }
    return appends
  }).pipe(Effect.provide(layers))

describe("what a stable window carries to the next append (design 107-109)", () => {
  it.effect("carried appends give the windows, reports and states of a window that carries nothing", () =>
    Effect.gen(function*() {
      let appends = 0
      for (const sample of samples(107_2026, 8)) {
        for (const options of [{}, { toolResultReferences: false }, { maskToolResults: true }]) {
          appends += yield* differential(sample, options)
        }
      }
      // The carry is exercised: most calls append.
      assert.isAbove(appends, 300)
    }))

  it.effect("a plan that is not committed is not carried: the next call reads the older state", () =>
    Effect.gen(function*() {
      for (const sample of samples(108_1, 4)) {
        yield* differential(sample, {}, (k) => Effect.succeed({ commit: k % 3 !== 1 }))
      }
    }))

  it.effect("another window's write in between: the carry continues only the state it planned", () =>
    Effect.gen(function*() {
      for (const sample of samples(108_2, 4)) {
        const label = `${JSON.stringify(sample)}/conversation`
        yield* differential(sample, {}, (k, history) =>
          Effect.succeed({
            before: k % 4 !== 2 ? undefined : Effect.gen(function*() {
              // Another process, with a lower target: it compacts, and commits its own window.
              const other = yield* StableWindow.make({})
              const plan = yield* Effect.result(
                other.fit(Prompt.fromMessages(history.slice(0, -1)), budget(Math.floor(sample.target / 2)), { key: label })
              )
              if (plan._tag === "Success") yield* other.commit(plan.success)
            }).pipe(Effect.provide(layers), Effect.orDie)
          }))
      }
    }))

  it.effect("an earlier message rewritten: the history changed, nothing carried", () =>
    Effect.gen(function*() {
      for (const sample of samples(108_3, 4)) {
        yield* differential(sample, {}, (k, history) =>
          Effect.succeed(
            k % 5 !== 3 || history.length < 4 ? {} : {
              history: history.map((m, i) =>
                i === 2 ? Prompt.make([{ role: "user", content: `rewritten at call ${k}` }]).content[0]! : m
              )
            }
          ))
      }
    }))

  it.effect("fresh copies of the same messages: the same window, the carry's items not taken for theirs", () =>
    Effect.gen(function*() {
      for (const sample of samples(108_4, 4)) {
        yield* differential(sample, {}, (k, history) =>
          Effect.succeed(k % 3 !== 0 ? {} : { history: history.map((m) => Prompt.fromMessages([structuredClone(m)]).content[0]!) }))
      }
    }))

  it.effect("two conversations through one window, interleaved: each key carries its own", () =>
    Effect.gen(function*() {
      const [one, two] = samples(108_5, 2)
      const window = yield* StableWindow.make({})
      const runs = [one!, two!].map((sample) => [...Sessions.histories(Sessions.generate(sample.shape, 40, sample.seed))])
      for (let k = 0; k < 40; k++) {
        for (const [j, sample] of [one!, two!].entries()) {
          const history = runs[j]![k]
          if (history === undefined) continue
          const call = { key: `conversation ${j}` }
          const fresh = yield* StableWindow.make({})
          const a = yield* Effect.result(window.fit(Prompt.fromMessages(history), budget(sample.target), call))
          const b = yield* Effect.result(fresh.fit(Prompt.fromMessages(history), budget(sample.target), call))
          assert.strictEqual(a._tag, b._tag)
          if (a._tag === "Success" && b._tag === "Success") {
            same(a.success, b.success, `conversation ${j} call ${k}`)
            yield* window.commit(a.success)
          }
        }
      }
    }).pipe(Effect.provide(layers)))

  it.effect("other settings writing the same key: settings changed, nothing carried", () =>
    Effect.gen(function*() {
      for (const sample of samples(108_6, 3)) {
        const label = `${JSON.stringify(sample)}/conversation`
        yield* differential(sample, {}, (k, history) =>
          Effect.succeed({
            before: k % 4 !== 1 ? undefined : Effect.gen(function*() {
              const other = yield* StableWindow.make({ settings: "other" })
              const plan = yield* Effect.result(other.fit(Prompt.fromMessages(history), budget(sample.target), { key: label }))
              if (plan._tag === "Success") yield* other.commit(plan.success)
            }).pipe(Effect.provide(layers), Effect.orDie)
          }))
      }
    }))
})
