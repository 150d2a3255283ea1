import { NodeServices } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as PipelineInput from "../src/cli/PipelineInput.ts"
import * as PolicySummary from "../src/cli/PolicySummary.ts"
import { OverflowNotifier, Policy, PipelineResult } from "../src/index.ts"
import * as PlacerConfig from "../src/placers/PlacerConfig.ts"
import { cli, writeTemp } from "./support/cli.ts"
import { docBlock } from "./support/docs.ts"

/** The result without the stage durations, which differ from run to run. */
const comparable = <
  A extends { readonly report: { readonly events: ReadonlyArray<{ readonly duration_ms: number }> } }
>(json: A) => ({
  ...json,
  report: { ...json.report, events: json.report.events.map(({ duration_ms: _, ...rest }) => rest) }
})

layer(NodeServices.layer)("cupel run --placer: every placer a policy names", (it) => {
  it.effect("the names --placer takes are every placer type but sectioned, which needs its sections", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(
        [...PlacerConfig.placerNames],
        PlacerConfig.placerTypes.filter((type) => type !== "sectioned")
      )
      // Each is a placer a policy accepts as a bare string.
      for (const name of PlacerConfig.placerNames) {
        const policy = yield* Policy.decode({ scorer: { type: "recency" }, placer: name })
        assert.deepStrictEqual(policy.placer, { type: name })
      }
    }))

  it.effect("--placer conversation (and every other placer name) is accepted by cupel run, explain and budget", () =>
    Effect.gen(function*() {
      const text = docBlock("run-example:input")
      const trains = yield* writeTemp("trains.json", text)
      const input = yield* PipelineInput.decodeText("trains.json", text)
      for (const name of PlacerConfig.placerNames) {
        const run = yield* cli(["run", trains, "--placer", name])
        assert.strictEqual(run.code, 0, `${name}: ${run.stderr}`)
        assert.strictEqual(run.stderr, "")
        // The library's run of the same policy with that placer.
        const expected = yield* Policy.run(input.items, input.budget, { ...input, placer: { type: name } }).pipe(
          Effect.provide(OverflowNotifier.layerNoop),
          Effect.flatMap(PipelineResult.encode)
        )
        assert.deepStrictEqual(comparable(JSON.parse(run.stdout)), comparable(expected))

        const explain = yield* cli(["explain", trains, "--placer", name])
        assert.strictEqual(explain.code, 0, `${name}: ${explain.stderr}`)
        assert.include(explain.stdout, `placer ${PolicySummary.placer({ type: name })}`)

        const budget = yield* cli(["budget", trains, "--placer", name, "--marginal", "10"])
        assert.strictEqual(budget.code, 0, `${name}: ${budget.stderr}`)
      }
    }))

  it.effect("--placer conversation puts the system prompt first where the input's u-shaped placer puts it", () =>
    Effect.gen(function*() {
      const trains = yield* writeTemp("trains.json", docBlock("run-example:input"))
      const run = yield* cli(["run", trains, "--placer", "conversation"])
      assert.strictEqual(run.code, 0, run.stderr)
      const json: { readonly window: ReadonlyArray<{ readonly kind: string }> } = JSON.parse(run.stdout)
      assert.deepStrictEqual(json.window.map((item) => item.kind), ["SystemPrompt", "Document", "Message", "Message"])
    }))

  it.effect("a placer no flag can name (sectioned needs its sections): exit 2, the choices listed", () =>
    Effect.gen(function*() {
      const trains = yield* writeTemp("trains.json", docBlock("run-example:input"))
      const run = yield* cli(["run", trains, "--placer", "sectioned"])
      assert.strictEqual(run.code, 2)
      assert.strictEqual(run.stdout, "")
      assert.include(run.stderr, `"u-shaped" | "chronological" | "conversation"`)
    }))
})

layer(NodeServices.layer)("cupel run --slicer: first_fit", (it) => {
  it.effect("--slicer first_fit is accepted and runs the first-fit slicer: the policy's slicer is first_fit", () =>
    Effect.gen(function*() {
      const text = docBlock("run-example:input")
      const trains = yield* writeTemp("trains.json", text)
      const run = yield* cli(["run", trains, "--slicer", "first_fit"])
      assert.strictEqual(run.code, 0, run.stderr)
      const explain = yield* cli(["explain", trains, "--slicer", "first_fit"])
      assert.strictEqual(explain.code, 0, explain.stderr)
      assert.include(explain.stdout, "first_fit")
    }))
})
