/**
 * No lost state across servers (issue 28, item 2; design 92): a conversation's state is written
 * with a compare-and-set on its revision — in memory (`MemoryStore`) and in a real
 * `redis-server` on 127.0.0.1 (a Lua script) — and a call whose read state was overtaken moves
 * its state onto the newer one when its window extends it (`rebased`), or is not committed
 * (`conflict`), the newer state staying.
 */
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { Prompt } from "effect/ai"
import * as KeyValueStore from "effect/persistence/KeyValueStore"
import * as fc from "fast-check"
import { ContextBudget, FirstFitSlice, OverflowNotifier, RecencyScorer } from "../../src/index.ts"
import * as MemoryStore from "../../src/ai/MemoryStore.ts"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as RedisStore from "../../src/ai/RedisStore.ts"
import * as StableWindow from "../../src/ai/StableWindow.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import * as WindowState from "../../src/ai/WindowState.ts"
import * as WindowStore from "../../src/ai/WindowStore.ts"
import * as SectionedPlacer from "../../src/placers/SectionedPlacer.ts"
import { describeWithRedis, redisServer } from "../support/redisServer.ts"

const countOf = (m: Prompt.Message) => Math.ceil(PromptWindow.render(m).length / 4) + 4
const strategies = Layer.mergeAll(
  RecencyScorer.layer,
  FirstFitSlice.layer,
  SectionedPlacer.conversation,
  OverflowNotifier.layerNoop,
  TokenCounter.make(countOf)
)
const budget = (target: number) => new ContextBudget.ContextBudget({ maxTokens: target, targetTokens: target })
const user = (text: string) => Prompt.userMessage({ content: [Prompt.textPart({ text })] })
const assistant = (text: string) => Prompt.assistantMessage({ content: [Prompt.textPart({ text })] })
const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ")
const conversation = (steps: number, size = 30): Array<Prompt.Message> => {
  const out: Array<Prompt.Message> = [Prompt.systemMessage({ content: "be brief" }), user("start")]
  for (let k = 0; k < steps; k++) out.push(assistant(words(size, `a${k}_`)), user(words(size / 2, `u${k}_`)))
  return out
}
const state = (revision: number, digest = "d") => JSON.stringify({ revision, historyDigest: digest, other: "x" })

/** The contract of a `CompareAndSet`, over a store and its compare-and-set. */
const contract = <E, R>(make: Effect.Effect<Context.Context<KeyValueStore.KeyValueStore | WindowStore.CompareAndSet>, E, R>) =>
  Effect.gen(function*() {
    const context = yield* make
    const store = Context.get(context, KeyValueStore.KeyValueStore)
    const { compareAndSet } = Context.get(context, WindowStore.CompareAndSet)
    // Nothing stored: only `undefined` is expected.
    assert.deepStrictEqual(yield* compareAndSet("k", "1/d", state(2)), { _tag: "Changed", current: undefined })
    assert.deepStrictEqual(yield* compareAndSet("k", undefined, state(1)), { _tag: "Set" })
    assert.strictEqual(yield* store.get("k"), state(1))
    // A stale writer (it read nothing, or revision 0) gets the stored value back.
    assert.deepStrictEqual(yield* compareAndSet("k", undefined, state(1)), { _tag: "Changed", current: state(1) })
    assert.deepStrictEqual(yield* compareAndSet("k", "0/d", state(1)), { _tag: "Changed", current: state(1) })
    // The same revision of another history (another conversation's state) is another version.
    assert.deepStrictEqual(yield* compareAndSet("k", "1/e", state(2)), { _tag: "Changed", current: state(1) })
    assert.deepStrictEqual(yield* compareAndSet("k", "1/d", state(2)), { _tag: "Set" })
    assert.strictEqual(yield* store.get("k"), state(2))
    // A foreign value has no revision: a call that read it (as corrupt) may replace it.
    yield* store.set("f", "not json at all")
    assert.deepStrictEqual(yield* compareAndSet("f", "3/d", state(4)), { _tag: "Changed", current: "not json at all" })
    assert.deepStrictEqual(yield* compareAndSet("f", undefined, state(1)), { _tag: "Set" })
    yield* store.set("g", JSON.stringify({ revision: 1.5 }))
    assert.deepStrictEqual(yield* compareAndSet("g", undefined, state(1)), { _tag: "Set" })
  })

describe("compare-and-set on the revision (design 92)", () => {
  it.effect("MemoryStore: set on the expected revision only, the current value back otherwise", () =>
    Effect.scoped(contract(Layer.build(MemoryStore.layer()))))

  it("versionOf reads a JSON object's whole-number revision and its history digest, and nothing else", () => {
    assert.strictEqual(WindowStore.versionOf(undefined), undefined)
    assert.strictEqual(WindowStore.versionOf("{\"revision\":7,\"historyDigest\":\"ab\"}"), "7/ab")
    assert.strictEqual(WindowStore.versionOf("{\"revision\":7}"), "7/")
    assert.strictEqual(WindowStore.versionOf("{\"revision\":\"7\"}"), undefined)
    assert.strictEqual(WindowStore.versionOf("[7]"), undefined)
    assert.strictEqual(WindowStore.versionOf("OK"), undefined)
    fc.assert(fc.property(fc.string(), (text) => {
      const v = WindowStore.versionOf(text)
      return v === undefined || /^-?\d+\//.test(v)
    }), { seed: 28 })
  })

  const twoCalls = (store: Layer.Layer<KeyValueStore.KeyValueStore | WindowStore.CompareAndSet>) =>
    Effect.gen(function*() {
      const window = yield* StableWindow.make({})
      const history = conversation(6)
      const first = yield* window.fit(Prompt.fromMessages(history.slice(0, 4)), budget(10_000), { key: "k" })
      assert.strictEqual(yield* window.commit(first), "written")
      return { window, history, kv: yield* KeyValueStore.KeyValueStore }
    }).pipe(Effect.provide(Layer.merge(strategies, store)))

  it.effect("a call whose window extends the newer one is rebased onto it: revision and calls continue", () =>
    Effect.gen(function*() {
      const store = yield* Layer.build(MemoryStore.layer())
      const { window, history, kv } = yield* twoCalls(Layer.succeedContext(store))
      const a = yield* window.fit(Prompt.fromMessages(history.slice(0, 6)), budget(10_000), { key: "k" })
      const b = yield* window.fit(Prompt.fromMessages(history.slice(0, 8)), budget(10_000), { key: "k" })
      assert.strictEqual(a.change.action, "append")
      assert.strictEqual(b.change.action, "append")
      assert.strictEqual(yield* window.commit(a), "written")
      assert.strictEqual(yield* window.commit(b), "rebased")
      const stored = yield* WindowState.decodeJson((yield* kv.get("k"))!)
      assert.strictEqual(stored.revision, 3)
      assert.strictEqual(stored.calls, 3)
      assert.strictEqual(stored.appends, 2)
      assert.strictEqual(stored.historyLength, 8)
    }).pipe(Effect.provide(strategies), Effect.scoped))

  it.effect("a call whose window does not extend the newer one is not committed: the newer state stays", () =>
    Effect.gen(function*() {
      const store = yield* Layer.build(MemoryStore.layer())
      const { window, history, kv } = yield* twoCalls(Layer.succeedContext(store))
      const a = yield* window.fit(Prompt.fromMessages(history.slice(0, 6)), budget(10_000), { key: "k" })
      const b = yield* window.fit(Prompt.fromMessages(history.slice(0, 8)), budget(10_000), { key: "k" })
      assert.strictEqual(yield* window.commit(b), "written")
      assert.strictEqual(yield* window.commit(a), "conflict")
      const stored = yield* WindowState.decodeJson((yield* kv.get("k"))!)
      assert.strictEqual(stored.revision, 2)
      assert.strictEqual(stored.historyLength, 8)
    }).pipe(Effect.provide(strategies), Effect.scoped))

  it.effect("a sibling history (same length, another last message) is a conflict, never a merge", () =>
    Effect.gen(function*() {
      const store = yield* Layer.build(MemoryStore.layer())
      const { window, history, kv } = yield* twoCalls(Layer.succeedContext(store))
      const a = yield* window.fit(Prompt.fromMessages(history.slice(0, 6)), budget(10_000), { key: "k" })
      const sibling = [...history.slice(0, 5), user("another question")]
      const b = yield* window.fit(Prompt.fromMessages(sibling), budget(10_000), { key: "k" })
      assert.strictEqual(yield* window.commit(a), "written")
      assert.strictEqual(yield* window.commit(b), "conflict")
      const stored = yield* WindowState.decodeJson((yield* kv.get("k"))!)
      assert.strictEqual(stored.revision, 2)
    }).pipe(Effect.provide(strategies), Effect.scoped))

  it("rebase: refused on other settings, another history, a window that does not extend, another summary", () => {
    const base = new WindowState.WindowState({
      format: 1, fingerprint: "f", revision: 1, historyLength: 4, historyDigest: "d4", window: [[0, 4]],
      windowTokens: 40, toolTokens: 0, calls: 1, compactions: 0, appends: 0, addedTokens: 0, updatedAtMillis: 0
    })
    const newer = new WindowState.WindowState({ ...base, revision: 2, historyLength: 6, historyDigest: "d6", window: [[0, 6]], calls: 2, appends: 1, addedTokens: 20 })
    const mine = new WindowState.WindowState({ ...base, revision: 2, historyLength: 8, historyDigest: "d8", window: [[0, 8]], calls: 2, appends: 1, addedTokens: 40 })
    const digestAt = (n: number) => `d${n}`
    const moved = WindowState.rebase({ newer, mine, base, digestAt })
    assert.isDefined(moved)
    assert.strictEqual(moved!.revision, 3)
    assert.strictEqual(moved!.calls, 3)
    assert.strictEqual(moved!.addedTokens, 60)
    assert.isUndefined(WindowState.rebase({ newer: new WindowState.WindowState({ ...newer, fingerprint: "g" }), mine, base, digestAt }))
    assert.isUndefined(WindowState.rebase({ newer, mine, base, digestAt: (n) => `e${n}` }))
    assert.isUndefined(WindowState.rebase({ newer: new WindowState.WindowState({ ...newer, window: [[0, 3], [5, 1]] }), mine, base, digestAt }))
    assert.isUndefined(WindowState.rebase({ newer: mine, mine: newer, base, digestAt }))
    assert.isUndefined(WindowState.rebase({
      newer: new WindowState.WindowState({ ...newer, summary: { id: "s", text: "t", tokens: 1, covers: [[0, 1]] } }),
      mine,
      base,
      digestAt
    }))
  })
})

describeWithRedis("compare-and-set in Redis (real redis-server on 127.0.0.1)", () => {
  it.live("RedisStore: the Lua script sets on the expected revision only, the current value back otherwise", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* redisServer
      yield* contract(Layer.build(RedisStore.layer({ prefix: "cas:" }).pipe(Layer.provide(NodeRedis.layer({ url: server.url })))))
    })))

  it.live("RedisStore: the compare-and-set keeps the store's ttl (SET … PX)", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* redisServer
      const context = yield* Layer.build(
        Layer.merge(RedisStore.layer({ prefix: "cas:", ttl: "1 hour" }), NodeRedis.layer({ url: server.url })).pipe(
          Layer.provideMerge(NodeRedis.layer({ url: server.url }))
        )
      )
      const { compareAndSet } = Context.get(context, WindowStore.CompareAndSet)
      yield* compareAndSet("t", undefined, state(1))
      const redis = Context.get(context, NodeRedis.NodeRedis)
      const ttl = yield* redis.use((client) => client.pTTL("cas:t"))
      assert.isAbove(ttl, 3_500_000)
    })))
})
