/**
 * The pipeline's excluded list made when first read (docs/design.md item 138).
 *
 * - At StageOnly the slicer's exclusions and the merged list are made at the first read of
 *   `report.excluded`: the list equals the one made in the slice stage (StageAndExclusions,
 *   whose events need it), read after other runs have lent the stages' buffers again, with
 *   every built-in slicer and placer, overflow strategy, deduplication, pinned, negative and
 *   grouped candidates.
 * - The report keeps its keys and their order; a copy (spread, JSON) has the list as data.
 * - `ResultEdit.exclude` and `reorder` keep the list unread: the edited report's list is the
 *   one the edit of its data copy gives, made when read.
 * - The reports are kept by V8 in a fast shape, not as dictionaries (`test/support/reportShapes.ts`,
 *   in a Node process with `--allow-natives-syntax`), where an object literal with a getter of
 *   its own is not.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { Effect, Layer } from "effect"
import * as fc from "fast-check"
import {
  ContextBudget,
  ContextItem,
  GreedySlice,
  OverflowNotifier,
  Pipeline,
  RecencyScorer,
  UShapedPlacer
} from "../src/index.ts"
import type { PipelineResult } from "../src/PipelineResult.ts"
import type { SelectionReport } from "../src/SelectionReport.ts"
import * as ResultEdit from "../src/ai/ResultEdit.ts"
import { lazyReport } from "../src/internal/lazyReport.ts"
import { itemsOf, rows, strategyVariants } from "./support/groupedRows.ts"

/** A report as plain data: every field read now. */
const dataOf = (report: SelectionReport): SelectionReport => ({ ...report })

const keys = ["events", "included", "excluded", "totalCandidates", "totalTokensConsidered", "countRequirementShortfalls"]

describe("the pipeline's excluded list made when first read (design item 138)", () => {
  it("equals the list the slice stage makes, read after other runs, with every built-in strategy", async () => {
    const variants = await strategyVariants()
    let lazyChecked = 0
    await fc.assert(
      fc.asyncProperty(
        rows,
        rows,
        fc.integer({ min: 0, max: 150 }),
        fc.constantFrom(0, 1, 2),
        fc.constantFrom("Throw" as const, "Truncate" as const, "Proceed" as const),
        fc.boolean(),
        async (list, other, target, variant, overflowStrategy, deduplication) => {
          const layers = variants[variant]!
          const budget = new ContextBudget.ContextBudget({ maxTokens: 150, targetTokens: target })
          const items = itemsOf(list)
          const run = (input: ReadonlyArray<ContextItem.ContextItem>, verbosity: "StageOnly" | "StageAndExclusions") =>
            Effect.runPromise(Effect.result(
              Pipeline.run(input, budget, { overflowStrategy, deduplication, verbosity }).pipe(Effect.provide(layers))
            ))
          const lazy = await run(items, "StageOnly")
          // Other runs between the run and the first read of its list: the stages' buffers lent again.
          await run(itemsOf(other), "StageOnly")
          await run(itemsOf([...other].reverse()), "StageAndExclusions")
          const eager = await run(items, "StageAndExclusions")
          assert.strictEqual(lazy._tag, eager._tag)
          if (lazy._tag !== "Success" || eager._tag !== "Success") return
          const report = lazy.success.report
          assert.deepStrictEqual(Object.keys(report), keys)
          if (Object.getOwnPropertyDescriptor(report, "excluded")?.get !== undefined) lazyChecked++
          const first = report.excluded
          assert.strictEqual(report.excluded, first)
          assert.deepStrictEqual(first, eager.success.report.excluded)
          assert.deepStrictEqual(dataOf(report), { ...dataOf(eager.success.report), events: report.events })
        }
      ),
      { seed: 1380, numRuns: 300 }
    )
    assert.isAbove(lazyChecked, 200)
  })

  it("a copy of the report has the list as data, in the same place among the keys", () => {
    const items = [
      new ContextItem.ContextItem({ content: "a", tokens: 5 }),
      new ContextItem.ContextItem({ content: "b", tokens: 9 }),
      new ContextItem.ContextItem({ content: "c", tokens: 30 })
    ]
    const strategies = Layer.mergeAll(RecencyScorer.layer, GreedySlice.layer, UShapedPlacer.layer, OverflowNotifier.layerNoop)
    const result = Effect.runSync(Pipeline.run(items, new ContextBudget.ContextBudget({ maxTokens: 20, targetTokens: 20 })).pipe(
      Effect.provide(strategies)
    ))
    const descriptor = Object.getOwnPropertyDescriptor(result.report, "excluded")
    assert.isDefined(descriptor?.get)
    assert.isTrue(descriptor?.enumerable)
    const copy = { ...result.report }
    assert.deepStrictEqual(Object.keys(copy), keys)
    assert.strictEqual(Object.getOwnPropertyDescriptor(copy, "excluded")?.value, result.report.excluded)
    assert.deepStrictEqual(result.report.excluded.map((entry) => entry.item.content), ["c"])
    assert.deepStrictEqual(JSON.parse(JSON.stringify(result.report)).excluded, JSON.parse(JSON.stringify(copy.excluded)))
    // A copy of its property descriptors (accessor and all) reads the same list.
    const described: object = Object.defineProperties({}, Object.getOwnPropertyDescriptors(result.report))
    assert.strictEqual(Reflect.get(described, "excluded"), result.report.excluded)
    assert.deepStrictEqual(Object.keys(described), keys)
  })
})

describe("ResultEdit keeps the excluded list unread (design item 138)", () => {
  const entry = (content: string, tokens: number, score: number) => ({
    item: new ContextItem.ContextItem({ content, tokens }),
    score
  })
  const base = () => {
    const a = entry("a", 3, 0.9)
    const b = entry("b", 4, 0.8)
    const c = entry("c", 5, 0.7)
    const x = entry("x", 6, 0.75)
    const y = entry("y", 2, 0.1)
    let reads = 0
    const excluded = [
      { ...x, reason: { _tag: "BudgetExceeded" as const, itemTokens: 6, availableTokens: 1 } },
      { ...y, reason: { _tag: "BudgetExceeded" as const, itemTokens: 2, availableTokens: 1 } }
    ]
    const included = [a, b, c].map((e) => ({ ...e, reason: { _tag: "Scored" as const } }))
    const report = lazyReport({
      events: [],
      included,
      excluded: () => {
        reads++
        return excluded
      },
      totalCandidates: 5,
      totalTokensConsidered: 20,
      countRequirementShortfalls: []
    })
    const result: PipelineResult = { window: included.map((e) => e.item), report, totalTokens: 12, tokensOverBudget: 0 }
    return { result, reads: () => reads }
  }

  it("exclude: the list of its data copy's edit, made when read", () => {
    const lazy = base()
    const data = base()
    const reason = { _tag: "Filtered" as const, filterName: "test" }
    const edited = ResultEdit.exclude(lazy.result, (_, k) => k === 1, reason)
    assert.strictEqual(lazy.reads(), 0)
    assert.isDefined(Object.getOwnPropertyDescriptor(edited.report, "excluded")?.get)
    const expected = ResultEdit.exclude({ ...data.result, report: dataOf(data.result.report) }, (_, k) => k === 1, reason)
    assert.deepStrictEqual(Object.keys(edited.report), keys)
    assert.deepStrictEqual(dataOf(edited.report), dataOf(expected.report))
    assert.deepStrictEqual(edited.report.excluded.map((e) => e.item.content), ["b", "x", "y"])
    assert.strictEqual(lazy.reads(), 1)
    assert.deepStrictEqual(edited.window, expected.window)
  })

  it("reorder: the same list, read only when the edited report's is", () => {
    const lazy = base()
    const edited = ResultEdit.reorder(lazy.result, (e) => (e.item.content === "a" ? 2 : e.item.content === "c" ? 0 : undefined))
    assert.strictEqual(lazy.reads(), 0)
    assert.deepStrictEqual(edited.window.map((item) => item.content), ["c", "b", "a"])
    assert.deepStrictEqual(Object.keys(edited.report), keys)
    assert.deepStrictEqual(edited.report.excluded.map((e) => e.item.content), ["x", "y"])
    assert.strictEqual(lazy.reads(), 1)
  })
})

describe("lazy reports in one fast shape (design item 138)", () => {
  it("the pipeline's, the grouped expansion's and an edit's reports are fast objects; a literal with its own getter is not", async () => {
    const script = fileURLToPath(new URL("./support/reportShapes.ts", import.meta.url))
    const { stdout } = await promisify(execFile)(process.execPath, ["--allow-natives-syntax", script], { maxBuffer: 1 << 20 })
    assert.deepStrictEqual(JSON.parse(stdout), { pipeline: true, grouped: true, edited: true, control: false })
  }, 60_000)
})
