/**
 * Run by `test/LazyExcluded.test.ts` in a Node process of its own, with `--allow-natives-syntax`:
 * whether the reports the pipeline and the edits make are kept by V8 in a fast shape (not a
 * dictionary; docs/design.md item 138), printed as JSON. An object literal with a getter of its
 * own is printed too, as the control the check must tell apart.
 */
import { Effect, Layer } from "effect"
import { ContextBudget, ContextItem, GreedySlice, OverflowNotifier, Pipeline, RecencyScorer, UShapedPlacer } from "../../src/index.ts"
import * as ResultEdit from "../../src/ai/ResultEdit.ts"

// The natives syntax is not TypeScript: a function made from text, with the flag on.
const native = new Function("o", "return %HasFastProperties(o)")
const hasFastProperties = (value: object): boolean => Reflect.apply(native, undefined, [value]) === true

const items = [
  new ContextItem.ContextItem({ content: "a", tokens: 5, group: "g" }),
  new ContextItem.ContextItem({ content: "b", tokens: 9, group: "g" }),
  new ContextItem.ContextItem({ content: "c", tokens: 30 }),
  new ContextItem.ContextItem({ content: "d", tokens: 3 })
]
const strategies = Layer.mergeAll(RecencyScorer.layer, GreedySlice.layer, UShapedPlacer.layer, OverflowNotifier.layerNoop)
const budget = new ContextBudget.ContextBudget({ maxTokens: 20, targetTokens: 20 })
const grouped = Effect.runSync(Pipeline.run(items, budget).pipe(Effect.provide(strategies)))
const plain = Effect.runSync(Pipeline.run(items.slice(2), budget).pipe(Effect.provide(strategies)))
const edited = ResultEdit.exclude(plain, (_, k) => k === 0, { _tag: "Filtered", filterName: "shape" })
let made: ReadonlyArray<unknown> | undefined
const control = {
  events: [],
  get excluded() {
    return (made ??= [])
  }
}
process.stdout.write(JSON.stringify({
  pipeline: hasFastProperties(plain.report),
  grouped: hasFastProperties(grouped.report),
  edited: hasFastProperties(edited.report),
  control: hasFastProperties(control)
}))
