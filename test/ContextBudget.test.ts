import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { ContextBudget } from "../src/index.ts"

const message = (input: unknown) => Effect.flip(ContextBudget.decode(input)).pipe(Effect.map((e) => e.message))

describe("ContextBudget — the seven validation rules, each naming its field", () => {
  it.effect("rule 1: maxTokens >= 0", () =>
    Effect.gen(function*() {
      const m = yield* message({ maxTokens: -1, targetTokens: 0 })
      assert.include(m, "maxTokens must be >= 0, got -1")
      assert.include(m, `["maxTokens"]`)
    }))

  it.effect("rule 2: targetTokens >= 0", () =>
    Effect.gen(function*() {
      const m = yield* message({ maxTokens: 10, targetTokens: -5 })
      assert.include(m, "targetTokens must be >= 0, got -5")
      assert.include(m, `["targetTokens"]`)
    }))

  it.effect("rule 3: targetTokens <= maxTokens", () =>
    Effect.gen(function*() {
      const m = yield* message({ maxTokens: 100, targetTokens: 101 })
      assert.include(m, "targetTokens (101) must not exceed maxTokens (100)")
      assert.include(m, `["targetTokens"]`)
    }))

  it.effect("rule 4: outputReserve >= 0", () =>
    Effect.gen(function*() {
      const m = yield* message({ maxTokens: 100, targetTokens: 50, outputReserve: -1 })
      assert.include(m, "outputReserve must be >= 0, got -1")
      assert.include(m, `["outputReserve"]`)
    }))

  it.effect("rule 5: outputReserve <= maxTokens", () =>
    Effect.gen(function*() {
      const m = yield* message({ maxTokens: 100, targetTokens: 50, outputReserve: 101 })
      assert.include(m, "outputReserve (101) must not exceed maxTokens (100)")
      assert.include(m, `["outputReserve"]`)
    }))

  it.effect("rule 6: estimationSafetyMarginPercent between 0 and 100", () =>
    Effect.gen(function*() {
      for (const p of [-0.1, 100.5]) {
        const m = yield* message({ maxTokens: 100, targetTokens: 50, estimationSafetyMarginPercent: p })
        assert.include(m, `estimationSafetyMarginPercent must be between 0 and 100, got ${p}`)
        assert.include(m, `["estimationSafetyMarginPercent"]`)
      }
      for (const p of [0, 12.5, 100]) {
        const b = yield* ContextBudget.decode({ maxTokens: 100, targetTokens: 50, estimationSafetyMarginPercent: p })
        assert.strictEqual(b.estimationSafetyMarginPercent, p)
      }
    }))

  it.effect("rule 7: each reservedSlots value >= 0", () =>
    Effect.gen(function*() {
      const m = yield* message({ maxTokens: 100, targetTokens: 50, reservedSlots: { Document: 2, ToolOutput: -1 } })
      assert.include(m, "each reservedSlots value must be >= 0, got -1")
      assert.include(m, `["reservedSlots"]["ToolOutput"]`)
    }))
})

describe("ContextBudget — other checks", () => {
  it.effect("defaults: outputReserve 0, reservedSlots {}, estimationSafetyMarginPercent 0", () =>
    Effect.gen(function*() {
      const b = yield* ContextBudget.decode({ maxTokens: 100, targetTokens: 80 })
      assert.strictEqual(b.outputReserve, 0)
      assert.deepStrictEqual(b.reservedSlots, {})
      assert.strictEqual(b.estimationSafetyMarginPercent, 0)
      const c = new ContextBudget.ContextBudget({ maxTokens: 100, targetTokens: 80 })
      assert.deepStrictEqual(c, b)
    }))

  it.effect("boundaries are valid: target = max, reserve = max, zero budgets", () =>
    Effect.gen(function*() {
      yield* ContextBudget.decode({ maxTokens: 100, targetTokens: 100, outputReserve: 100 })
      yield* ContextBudget.decode({ maxTokens: 0, targetTokens: 0 })
    }))

  it.effect("token fields are integers", () =>
    Effect.gen(function*() {
      const m = yield* message({ maxTokens: 10.5, targetTokens: "5" })
      assert.include(m, `["maxTokens"]`)
      assert.include(m, `["targetTokens"]`)
    }))

  it.effect("reservedSlots keys are kinds, compared case-insensitively: the same kind twice is refused", () =>
    Effect.gen(function*() {
      const m = yield* message({ maxTokens: 100, targetTokens: 50, reservedSlots: { Message: 1, MESSAGE: 2 } })
      assert.include(m, "case-insensitive")
      assert.include(m, `["reservedSlots"]`)
    }))

  it.effect("reports every broken rule at once", () =>
    Effect.gen(function*() {
      const m = yield* message({ maxTokens: -1, targetTokens: -1, outputReserve: -1, estimationSafetyMarginPercent: 200 })
      for (const field of ["maxTokens", "targetTokens", "outputReserve", "estimationSafetyMarginPercent"]) {
        assert.include(m, `["${field}"]`)
      }
    }))

  it.effect("make refuses an invalid budget with a typed error naming the rule", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(ContextBudget.make({ maxTokens: 10, targetTokens: 20 }))
      assert.strictEqual(error._tag, "SchemaError")
      assert.include(error.message, "targetTokens (20) must not exceed maxTokens (10)")
      const ok = yield* ContextBudget.make({ maxTokens: 10, targetTokens: 5 })
      assert.instanceOf(ok, ContextBudget.ContextBudget)
    }))

  it("the constructor refuses an invalid budget (it throws: for trusted values only)", () => {
    assert.throws(() => new ContextBudget.ContextBudget({ maxTokens: 10, targetTokens: 20 }))
  })

  it.effect("round-trips through JSON", () =>
    Effect.gen(function*() {
      const json = `{"maxTokens":8192,"targetTokens":6000,"outputReserve":1024,"reservedSlots":{"Document":2},"estimationSafetyMarginPercent":10}`
      const codec = Schema.fromJsonString(ContextBudget.ContextBudget)
      const b = yield* Schema.decodeUnknownEffect(codec)(json)
      assert.strictEqual(yield* Schema.encodeEffect(codec)(b), json)
    }))
})
