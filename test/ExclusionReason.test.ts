import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { ExclusionReason } from "../src/index.ts"

const encode = Schema.encodeEffect(ExclusionReason.ExclusionReason)
const decode = Schema.decodeUnknownEffect(ExclusionReason.ExclusionReason)

describe("ExclusionReason", () => {
  it.effect("defines all eight variants and encodes each in the specification's wire envelope", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [ExclusionReason.ExclusionReason, Record<string, unknown>]> = [
        [{ _tag: "BudgetExceeded", itemTokens: 2048, availableTokens: 512 }, { reason: "BudgetExceeded", item_tokens: 2048, available_tokens: 512 }],
        [{ _tag: "ScoredTooLow", score: 0.12, threshold: 0.25 }, { reason: "ScoredTooLow", score: 0.12, threshold: 0.25 }],
        [{ _tag: "Deduplicated", deduplicatedAgainst: "tool_output_abc123" }, { reason: "Deduplicated", deduplicated_against: "tool_output_abc123" }],
        [{ _tag: "QuotaCapExceeded", kind: "ToolOutput", cap: 3, actual: 4 }, { reason: "QuotaCapExceeded", kind: "ToolOutput", cap: 3, actual: 4 }],
        [{ _tag: "QuotaRequireDisplaced", displacedByKind: "SystemPrompt" }, { reason: "QuotaRequireDisplaced", displaced_by_kind: "SystemPrompt" }],
        [{ _tag: "NegativeTokens", tokens: -1 }, { reason: "NegativeTokens", tokens: -1 }],
        [{ _tag: "PinnedOverride", displacedBy: "system prompt" }, { reason: "PinnedOverride", displaced_by: "system prompt" }],
        [{ _tag: "Filtered", filterName: "max_age_filter" }, { reason: "Filtered", filter_name: "max_age_filter" }]
      ]
      for (const [reason, wire] of cases) {
        assert.deepStrictEqual(yield* encode(reason), wire)
        assert.deepStrictEqual(yield* decode(wire), reason)
      }
    }))

  it.effect("constructors build the variants Place emits", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(ExclusionReason.budgetExceeded(10, 4), { _tag: "BudgetExceeded", itemTokens: 10, availableTokens: 4 })
      assert.deepStrictEqual(ExclusionReason.pinnedOverride("sys"), { _tag: "PinnedOverride", displacedBy: "sys" })
    }))

  it.effect("a data-carrying field cannot be missing", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(decode({ reason: "BudgetExceeded", item_tokens: 3 }))
      assert.strictEqual(error._tag, "SchemaError")
    }))

  it.effect("an unknown variant is a typed decoding error, not a crash", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(decode({ reason: "FromTheFuture" }))
      assert.strictEqual(error._tag, "SchemaError")
    }))
})
