import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as PolicySummary from "../../src/cli/PolicySummary.ts"
import * as Conformance from "../../src/Conformance.ts"
import { Policy } from "../../src/index.ts"

const names = ["throw", "truncate", "proceed"] as const
const strategies = ["Throw", "Truncate", "Proceed"] as const

describe("overflow strategy names: one mapping, Policy.OverflowStrategyName", () => {
  it("Conformance.OverflowStrategyName keeps its lower-case literals, the JSON side of Policy's schema", () => {
    assert.deepStrictEqual(Conformance.OverflowStrategyName.literals, names)
    assert.strictEqual(Conformance.OverflowStrategyName, Policy.OverflowStrategyName.from)
  })

  it.effect("Conformance.overflowStrategy, PolicySummary.overflow and Policy's schema agree both ways", () =>
    Effect.gen(function*() {
      for (const [i, name] of names.entries()) {
        const strategy = strategies[i]!
        assert.strictEqual(Conformance.overflowStrategy(name), strategy)
        assert.strictEqual(yield* Schema.decodeUnknownEffect(Policy.OverflowStrategyName)(name), strategy)
        assert.strictEqual(PolicySummary.overflow(strategy), name)
        assert.strictEqual(yield* Schema.encodeEffect(Policy.OverflowStrategyName)(strategy), name)
      }
    }))
})
