import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer } from "effect"
import * as fc from "fast-check"
import {
  ChronologicalPlacer,
  ContextItem,
  Placer,
  ScoredItem,
  Timestamp,
  UShapedPlacer
} from "../../src/index.ts"
import * as SectionedPlacer from "../../src/placers/SectionedPlacer.ts"

const at = (seconds: number) => Timestamp.fromEpochMillis(seconds * 1000)
const scored = (content: string, kind: string, score: number, time?: number) =>
  ScoredItem.make(
    new ContextItem.ContextItem({ content, tokens: 1, kind, ...(time === undefined ? {} : { timestamp: at(time) }) }),
    score
  )
const place = <E>(layer: Layer.Layer<Placer.Placer, E>, items: ReadonlyArray<ScoredItem.ScoredItem>) =>
  Placer.place(items).pipe(Effect.provide(layer), Effect.map((placed) => placed.map((i) => i.content)))

/** The kinds the properties draw from: every section of the conversation placer, and one of none. */
const kinds = ["SystemPrompt", "Document", "Memory", "Message", "ToolOutput", "Note"]
/** Up to 40 items of those kinds, scores and (now and then no) times, for the properties. */
const rows = fc.array(
  fc.record({
    kind: fc.constantFrom(...kinds),
    score: fc.double({ min: 0, max: 1, noNaN: true }),
    time: fc.option(fc.integer({ min: 0, max: 9 }), { nil: undefined })
  }),
  { maxLength: 40 }
)

describe("SectionedPlacer", () => {
  it.effect("sections come in the order given, each placed by its own placer", () =>
    Effect.gen(function*() {
      const layer = SectionedPlacer.make([
        { kinds: ["SystemPrompt"], placer: ChronologicalPlacer.make() },
        { kinds: ["Document"], placer: UShapedPlacer.layer },
        { placer: ChronologicalPlacer.layer }
      ])
      const items = [
        scored("user-2", "Message", 0.9, 20),
        scored("doc-best", "Document", 0.9),
        scored("system", "SystemPrompt", 1),
        scored("user-1", "Message", 0.1, 10),
        scored("doc-mid", "Document", 0.5),
        scored("doc-good", "Document", 0.8),
        scored("tool", "ToolOutput", 0.3, 15)
      ]
      assert.deepStrictEqual(yield* place(layer, items), [
        "system",
        "doc-best",
        "doc-mid",
        "doc-good",
        "user-1",
        "tool",
        "user-2"
      ])
    }))

  it.effect("kinds match case-insensitively", () =>
    Effect.gen(function*() {
      const layer = SectionedPlacer.make([{ kinds: ["systemprompt"], placer: ChronologicalPlacer.make() }])
      assert.deepStrictEqual(yield* place(layer, [scored("m", "Message", 1), scored("s", "SYSTEMPROMPT", 0)]), ["s", "m"])
    }))

  it.effect("without a rest section, items of no listed kind come last in the order received", () =>
    Effect.gen(function*() {
      const layer = SectionedPlacer.make([{ kinds: ["Document"], placer: UShapedPlacer.make() }])
      const items = [scored("m2", "Message", 0.1, 2), scored("d", "Document", 0.5), scored("m1", "Message", 0.9, 1)]
      assert.deepStrictEqual(yield* place(layer, items), ["d", "m2", "m1"])
    }))

  it.effect("a rest section may stand anywhere", () =>
    Effect.gen(function*() {
      const layer = SectionedPlacer.make([
        { placer: ChronologicalPlacer.make() },
        { kinds: ["SystemPrompt"], placer: ChronologicalPlacer.make() }
      ])
      assert.deepStrictEqual(yield* place(layer, [scored("s", "SystemPrompt", 1), scored("m", "Message", 1)]), ["m", "s"])
    }))

  it.effect("a kind in two sections, or two rest sections, is an InvalidConfigError", () =>
    Effect.gen(function*() {
      const twice = yield* Effect.flip(
        place(SectionedPlacer.make([
          { kinds: ["Document"], placer: UShapedPlacer.make() },
          { kinds: ["document"], placer: UShapedPlacer.make() }
        ]), [])
      )
      assert.strictEqual(twice._tag, "InvalidConfigError")
      const rests = yield* Effect.flip(
        place(SectionedPlacer.make([{ placer: UShapedPlacer.make() }, { placer: UShapedPlacer.make() }]), [])
      )
      assert.strictEqual(rests._tag, "InvalidConfigError")
    }))

  it.effect("a section placer that breaks the contract fails with PlacerContractError naming it", () =>
    Effect.gen(function*() {
      const broken = Layer.succeed(
        Placer.Placer,
        Placer.Placer.of({
          name: "broken",
          order: () => Effect.succeed([0, 0]),
          place: () => Effect.succeed([])
        })
      )
      const error = yield* Effect.flip(
        place(SectionedPlacer.make([{ kinds: ["Message"], placer: broken }]), [scored("a", "Message", 1), scored("b", "Message", 1)])
      )
      assert.strictEqual(error._tag, "PlacerContractError")
      if (error._tag === "PlacerContractError") assert.strictEqual(error.placer, "broken")
    }))

  it.effect("a section given as Placer.Functions that throws fails with PlacerError naming it, not a defect", () =>
    Effect.gen(function*() {
      const throwing: Placer.Functions = {
        name: "throwing",
        order: () => {
          throw new RangeError("out of order")
        },
        place: () => {
          throw new RangeError("out of order")
        }
      }
      const layer = SectionedPlacer.make([{ kinds: ["Document"], placer: UShapedPlacer.make() }, { placer: throwing }])
      const items = [scored("d", "Document", 1), scored("m", "Message", 1)]
      const error = yield* Effect.flip(place(layer, items))
      if (error._tag !== "PlacerError") return assert.fail(`expected PlacerError, got ${error._tag}`)
      assert.strictEqual(error.placer, "throwing")
      assert.include(error.reason, "RangeError: out of order")
      const viaOrder = yield* Effect.flip(Effect.flatMap(Placer.Placer, (p) => p.order(items)).pipe(Effect.provide(layer)))
      assert.strictEqual(viaOrder._tag, "PlacerError")
    }))

  it.effect("each section's order is checked once: wrong length, unknown and repeated indices, by position", () =>
    Effect.gen(function*() {
      const fixed = (name: string, order: ReadonlyArray<number>): Placer.Functions => ({
        name,
        order: () => Uint32Array.from(order),
        place: () => []
      })
      const items = [scored("s", "SystemPrompt", 1), scored("a", "Message", 1), scored("b", "Message", 1)]
      const run = (order: ReadonlyArray<number>) =>
        Effect.flip(place(SectionedPlacer.make([{ kinds: ["SystemPrompt"], placer: ChronologicalPlacer.make() }, { placer: fixed("fixed", order) }]), items))
      const cases: ReadonlyArray<readonly [ReadonlyArray<number>, string, number | undefined]> = [
        [[0], "WrongLength", undefined],
        [[0, 2], "UnknownItem", 1],
        [[1, 1], "RepeatedItem", 1]
      ]
      for (const [order, violation, position] of cases) {
        const error = yield* run(order)
        if (error._tag !== "PlacerContractError") return assert.fail(`expected PlacerContractError, got ${error._tag}`)
        assert.deepStrictEqual([error.placer, error.violation, error.expectedLength, error.position], ["fixed", violation, 2, position])
      }
      // A valid order places exactly the section's items, in its order.
      assert.deepStrictEqual(
        yield* place(SectionedPlacer.make([{ kinds: ["SystemPrompt"], placer: ChronologicalPlacer.make() }, { placer: fixed("fixed", [1, 0]) }]), items),
        ["s", "b", "a"]
      )
    }))

  it.effect("order and place agree: place is the items in the order's positions", () =>
    Effect.gen(function*() {
      const items = [scored("m1", "Message", 0.2, 3), scored("d1", "Document", 0.9), scored("s", "SystemPrompt", 1), scored("m0", "Message", 0.5, 1)]
      const [order, placed] = yield* Effect.flatMap(Placer.Placer, (p) => Effect.all([p.order(items), p.place(items)])).pipe(
        Effect.provide(SectionedPlacer.conversation)
      )
      assert.deepStrictEqual(placed, Array.from(order, (i) => items[i]!.item))
      assert.deepStrictEqual(placed.map((i) => i.content), ["s", "d1", "m0", "m1"])
    }))

  it.effect("conversation: system prompts first, documents and memory U-shaped, then the conversation oldest first", () =>
    Effect.gen(function*() {
      const items = [
        scored("system", "SystemPrompt", 1),
        scored("assistant", "Message", 0.2, 2),
        scored("memory", "Memory", 0.7),
        scored("user", "Message", 0.9, 1),
        scored("doc", "Document", 0.4),
        scored("tool", "ToolOutput", 0.5, 3)
      ]
      assert.deepStrictEqual(yield* place(SectionedPlacer.conversation, items), [
        "system",
        "memory",
        "doc",
        "user",
        "assistant",
        "tool"
      ])
    }))

  it("places exactly its input, each section contiguous and in section order (property)", async () => {
    const rank = (kind: string) => (kind === "SystemPrompt" ? 0 : kind === "Document" || kind === "Memory" ? 1 : 2)
    await fc.assert(
      fc.asyncProperty(
        rows,
        async (rows) => {
          const items = rows.map((r, k) => scored(`i${k}`, r.kind, r.score, r.time))
          const placed = await Effect.runPromise(Placer.place(items).pipe(Effect.provide(SectionedPlacer.conversation)))
          assert.sameMembers(placed, items.map((s) => s.item))
          const ranks = placed.map((i) => rank(i.kind))
          assert.deepStrictEqual(ranks, [...ranks].sort((a, b) => a - b))
        }
      ),
      { numRuns: 200 }
    )
  })

  it("sections all given as functions are placed directly, exactly as through the Effect path (property, design 135)", async () => {
    // The same section functions given as `Placer.fromOrder` layers take the general path (each
    // section's order an Effect): the order, `place`'s items, and every error must be the same.
    type Behaviour = "chronological" | "uShaped" | "reversed" | "throws" | "short" | "repeats" | "unknown"
    const functionsOf = (behaviour: Behaviour, s: number): Placer.Functions => {
      const name = `${behaviour}-${s}`
      const withOrder = (order: (items: ReadonlyArray<ScoredItem.ScoredItem>) => Uint32Array): Placer.Functions => ({
        name,
        order,
        place: (items) => Array.from(order(items), (i) => items[i]!.item)
      })
      switch (behaviour) {
        case "chronological":
          return ChronologicalPlacer.make()
        case "uShaped":
          return UShapedPlacer.make()
        case "reversed":
          return withOrder((items) => Uint32Array.from(items.keys()).reverse())
        case "throws":
          return withOrder(() => {
            throw new RangeError(`section ${s}`)
          })
        case "short":
          return withOrder((items) => Uint32Array.from(items.keys()).subarray(1))
        case "repeats":
          return withOrder((items) => new Uint32Array(items.length))
        case "unknown":
          return withOrder((items) => Uint32Array.from(items.keys(), (i) => i + 1))
      }
    }
    const describe = (exit: Exit.Exit<ReadonlyArray<unknown>, unknown>) =>
      Exit.isSuccess(exit)
        ? { ok: Array.from(exit.value) }
        : { error: Cause.squash(exit.cause) }
    await fc.assert(
      fc.asyncProperty(
        rows,
        fc.uniqueArray(fc.constantFrom(...kinds), { maxLength: 4 }).chain((listed) =>
          fc.tuple(
            fc.constant(listed),
            fc.array(fc.constantFrom<Behaviour>("chronological", "uShaped", "reversed", "throws", "short", "repeats", "unknown"), {
              minLength: listed.length + 1,
              maxLength: listed.length + 1
            }),
            fc.boolean()
          )
        ),
        async (rows, [listed, behaviours, withRest]) => {
          const items = rows.map((r, k) => scored(`i${k}`, r.kind, r.score, r.time))
          const count = withRest ? listed.length + 1 : listed.length
          const functions = behaviours.slice(0, count).map(functionsOf)
          const direct = SectionedPlacer.make(functions.map((placer, s) => s < listed.length ? { kinds: [listed[s]!], placer } : { placer }))
          const general = SectionedPlacer.make(
            functions.map((f, s) => {
              const placer = Placer.fromOrder(f.name, f.order)
              return s < listed.length ? { kinds: [listed[s]!], placer } : { placer }
            })
          )
          const order = (layer: typeof direct) =>
            Effect.runPromiseExit(Effect.flatMap(Placer.Placer, (p) => p.order(items)).pipe(Effect.map((o) => Array.from(o)), Effect.provide(layer)))
          const placed = (layer: typeof direct) => Effect.runPromiseExit(Placer.place(items).pipe(Effect.provide(layer)))
          assert.deepStrictEqual(describe(await order(direct)), describe(await order(general)))
          assert.deepStrictEqual(describe(await placed(direct)), describe(await placed(general)))
        }
      ),
      { numRuns: 300 }
    )
  })
})
