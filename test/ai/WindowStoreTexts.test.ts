/**
 * A `WindowStore` remembers the text it last read or wrote under each key, with its state
 * (docs/design.md item 124): a read of that text gets that state without decoding it again,
 * and any other text is decoded as before. Exact only if a state decodes from its text to an
 * equal state: held here over generated states.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import * as KeyValueStore from "effect/persistence/KeyValueStore"
import * as fc from "fast-check"
import { stateJson } from "../../src/ai/internal/stateJson.ts"
import * as MemoryStore from "../../src/ai/MemoryStore.ts"
import * as WindowState from "../../src/ai/WindowState.ts"
import * as WindowStore from "../../src/ai/WindowStore.ts"

const count = fc.nat({ max: 1_000_000 })
const runs = fc.array(fc.tuple(fc.integer({ min: -1000, max: 100_000 }), fc.nat({ max: 500 })), { maxLength: 30 })
const pairs = fc.array(fc.tuple(count, count), { maxLength: 30 })

/** States of every shape the schema allows: optional keys present or not, texts of any characters. */
const states = fc.record({
  fingerprint: fc.string(),
  revision: count,
  historyLength: count,
  historyDigest: fc.string(),
  window: runs,
  windowTokens: count,
  toolTokens: count,
  calls: count,
  compactions: count,
  appends: count,
  addedTokens: count,
  updatedAtMillis: fc.double({ noNaN: true, noDefaultInfinity: true }),
  summary: fc.option(fc.record({ id: fc.string(), text: fc.string({ unit: "grapheme" }), tokens: count, covers: runs }), { nil: undefined }),
  shortened: fc.option(pairs, { nil: undefined }),
  masked: fc.option(fc.array(count, { maxLength: 20 }), { nil: undefined }),
  references: fc.option(pairs, { nil: undefined }),
  calibration: fc.option(
    fc.record({ ratio: fc.double({ min: 0.01, max: 100, noNaN: true }), model: fc.option(fc.string(), { nil: undefined }) }),
    { nil: undefined }
  )
}).map(({ calibration, masked, references, shortened, summary, ...fields }) =>
  new WindowState.WindowState({
    format: 1,
    ...fields,
    ...(summary === undefined ? {} : { summary }),
    ...(shortened === undefined ? {} : { shortened }),
    ...(masked === undefined ? {} : { masked }),
    ...(references === undefined ? {} : { references }),
    ...(calibration === undefined
      ? {}
      : { calibration: calibration.model === undefined ? { ratio: calibration.ratio } : { ratio: calibration.ratio, model: calibration.model } })
  })
)

const memory = Effect.gen(function*() {
  const context = yield* Layer.build(MemoryStore.layer())
  const kv = Context.get(context, KeyValueStore.KeyValueStore)
  const store = yield* WindowStore.make(kv, { compareAndSet: Context.get(context, WindowStore.CompareAndSet) })
  return { kv, store }
})

describe("WindowStore remembers the text it read or wrote (docs/design.md item 124)", () => {
  it.effect("a state decodes from its text to an equal state (the schema is lossless)", () =>
    Effect.sync(() =>
      fc.assert(
        fc.property(states, (state) => {
          const text = Effect.runSync(WindowState.encodeJson(state))
          const decoded = Effect.runSync(WindowState.decodeJson(text))
          assert.instanceOf(decoded, WindowState.WindowState)
          // Every key and value, -0 and 0 told apart (`Object.is`), and nothing more.
          assert.deepStrictEqual({ ...decoded }, { ...state })
          for (const key of Object.keys(state)) {
            if (typeof Reflect.get(state, key) === "number") assert.isTrue(Object.is(Reflect.get(decoded, key), Reflect.get(state, key)), key)
          }
          assert.strictEqual(Effect.runSync(WindowState.encodeJson(decoded)), text)
        }),
        { seed: 124, numRuns: 300 }
      )
    ))

  it.effect("a read of the text just written gets the state written; an equal text read back is the same state", () =>
    Effect.scoped(Effect.gen(function*() {
      const { kv, store } = yield* memory
      const states_ = fc.sample(states, { seed: 7, numRuns: 20 })
      for (const [k, state] of states_.entries()) {
        const key = `conversation-${k}`
        const written = yield* store.write(key, state, undefined)
        assert.strictEqual(written, "written")
        const read = yield* store.read(key)
        assert.strictEqual(read._tag, "Found")
        if (read._tag !== "Found") continue
        // The state written, not a decoding of it, and equal to the decoding of the text stored.
        assert.strictEqual(read.state, state)
        const stored = yield* kv.get(key)
        assert.deepStrictEqual({ ...read.state }, { ...(yield* WindowState.decodeJson(stored ?? "")) })
      }
    })))

  it.effect("another text under the key is decoded: a foreign state, a corrupt text", () =>
    Effect.scoped(Effect.gen(function*() {
      const { kv, store } = yield* memory
      const [mine, theirs] = fc.sample(states, { seed: 11, numRuns: 2 })
      if (mine === undefined || theirs === undefined) return assert.fail("no states")
      assert.strictEqual(yield* store.write("k", mine, undefined), "written")
      // Another process writes its own state under the key: read as it is, not as the one remembered.
      yield* kv.set("k", yield* WindowState.encodeJson(theirs))
      const foreign = yield* store.read("k")
      assert.strictEqual(foreign._tag, "Found")
      if (foreign._tag === "Found") {
        assert.notStrictEqual(foreign.state, mine)
        assert.deepStrictEqual({ ...foreign.state }, { ...theirs })
      }
      yield* kv.set("k", "{ not a state")
      assert.strictEqual((yield* store.read("k"))._tag, "Corrupt")
      // The text written before, written again by anyone: its state, exactly.
      yield* kv.set("k", yield* WindowState.encodeJson(mine))
      const again = yield* store.read("k")
      assert.strictEqual(again._tag, "Found")
      if (again._tag === "Found") assert.deepStrictEqual({ ...again.state }, { ...mine })
    })))

  it.effect("the memo is bounded: a key remembered longest ago is decoded again", () =>
    Effect.scoped(Effect.gen(function*() {
      const { store } = yield* memory
      const [state] = fc.sample(states, { seed: 3, numRuns: 1 })
      if (state === undefined) return assert.fail("no state")
      assert.strictEqual(yield* store.write("first", state, undefined), "written")
      const remembered = yield* store.read("first")
      assert.isTrue(remembered._tag === "Found" && remembered.state === state)
      // 1,024 keys are remembered: 1,024 more push the first out.
      for (let k = 0; k < 1024; k++) yield* store.write(`other-${k}`, state, undefined)
      const decoded = yield* store.read("first")
      assert.strictEqual(decoded._tag, "Found")
      if (decoded._tag === "Found") {
        assert.notStrictEqual(decoded.state, state)
        assert.deepStrictEqual({ ...decoded.state }, { ...state })
      }
    })))

  it.effect("every state is checked when it is written: one that breaks a rule is not stored (the stable window makes its states unchecked)", () =>
    Effect.scoped(Effect.gen(function*() {
      const { kv, store } = yield* memory
      const [state] = fc.sample(states, { seed: 5, numRuns: 1 })
      if (state === undefined) return assert.fail("no state")
      const broken = new WindowState.WindowState({ ...state, revision: -1 }, { disableChecks: true })
      const exit = yield* Effect.exit(store.write("k", broken, undefined))
      assert.isTrue(exit._tag === "Failure")
      assert.isUndefined(yield* kv.get("k"))
      assert.strictEqual((yield* store.read("k"))._tag, "Missing")
    })))

  it.effect("the fast path writes the schema's text, key order included, and answers nothing for a state it does not reproduce", () =>
    Effect.sync(() => {
      fc.assert(
        fc.property(states, (state) => {
          assert.strictEqual(stateJson(state), Effect.runSync(WindowState.encodeJson(state)))
        }),
        { seed: 1240, numRuns: 500 }
      )
      // States made unchecked that break a rule of each kind: the fast path leaves them to the
      // schema, whose error is the one raised.
      const [state] = fc.sample(states, { seed: 9, numRuns: 1 })
      if (state === undefined) return assert.fail("no state")
      type Fields = ConstructorParameters<typeof WindowState.WindowState>[0]
      const broken: ReadonlyArray<Partial<Fields>> = [
        { revision: -1 },
        { revision: 1.5 },
        { windowTokens: Number.MAX_SAFE_INTEGER + 2 },
        { window: [[1, -2]] },
        { window: [[0.5, 2]] },
        { masked: [1, -3] },
        { references: [[1, 2], [3, -1]] },
        { shortened: [[0.5, 1]] },
        { updatedAtMillis: Number.POSITIVE_INFINITY },
        { calibration: { ratio: 0 } },
        { summary: { id: "s", text: "t", tokens: 1, covers: [[0, -1]] } }
      ]
      for (const change of broken) {
        const made = new WindowState.WindowState({ ...state, ...change }, { disableChecks: true })
        assert.isUndefined(stateJson(made), JSON.stringify(change))
        assert.isTrue(Effect.runSync(Effect.exit(WindowState.encodeJson(made)))._tag === "Failure", JSON.stringify(change))
      }
    }))
})
