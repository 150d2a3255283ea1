/**
 * A door's call captures no stack trace (docs/design.md item 145): `Effect.fn`,
 * `Effect.withSpan` and `Effect.withParentSpan` make a `new Error()` at each call for the code
 * location of the span they open, and the pipeline's and the windows' spans are opened at every
 * call of every door — ten or so a call, about a sixth of a four-message `trim`'s time. They
 * are made without one now.
 *
 * Counted by replacing the global `Error` with a proxy that counts what it constructs, around
 * a replay of generated sessions through each door (the second replay: the first loads what a
 * process loads once). A call that fails would make its error: the sessions' windows are wide
 * enough that none does, and that is checked too.
 */
import { assert, describe, it } from "@effect/vitest"
import { type DoorName, doors, type Outcome, type Settings } from "./support/doors.ts"
import { chatProjection } from "./support/sessionFormats.ts"
import { generate } from "./support/sessions.ts"

/** Runs `f`, counting the `Error`s constructed (by any code) meanwhile. */
const countingErrors = async <A>(f: () => Promise<A>): Promise<{ readonly value: A; readonly errors: number }> => {
  const original = globalThis.Error
  let errors = 0
  globalThis.Error = new Proxy(original, {
    construct(target, args, newTarget) {
      errors++
      return Reflect.construct(target, args, newTarget)
    },
    apply(target, self, args) {
      errors++
      return Reflect.apply(target, self, args)
    }
  })
  try {
    return { value: await f(), errors }
  } finally {
    globalThis.Error = original
  }
}

const failures = (outcomes: ReadonlyArray<Outcome>): number => outcomes.filter((o) => o._tag === "Failure").length

const cases: ReadonlyArray<readonly [DoorName, Settings["mode"]]> = [
  ["layer", "stable"],
  ["layer", "per-call"],
  ["middleware", "stable"],
  ["middleware", "per-call"],
  ["prepareStep", "stable"],
  ["prepareStep", "per-call"],
  ["trimModelMessages", "per-call"],
  ["trim", "per-call"]
]

describe("a door's call captures no stack trace (design item 145)", () => {
  for (const [door, mode] of cases) {
    it(`${door} (${mode}): no Error constructed in a replay of two sessions`, async () => {
      for (const seed of [145, 1145]) {
        const session = chatProjection(generate("tool-heavy", 40, seed))
        const settings: Settings = { contextWindow: 6_000, outputReserve: 500, mode }
        await doors[door](session, settings)
        const { errors, value } = await countingErrors(() => doors[door](session, settings))
        assert.strictEqual(failures(value), 0, `seed ${seed}: a call failed`)
        assert.isAbove(value.length, 30)
        assert.strictEqual(errors, 0, `seed ${seed}: ${errors} Errors constructed in ${value.length} calls`)
      }
    })
  }
})
