import { Console, Effect, Layer } from "effect"
import {
  ContextBudget,
  ContextItem,
  OverflowNotifier,
  Place,
  Placer,
  Timestamp,
  UShapedPlacer
} from "../src/index.ts"

const at = (iso: string) => Timestamp.fromEpochMillis(Date.parse(iso))

// Candidates: a pinned system prompt, and scored items from your retrieval/scoring step.
const system = new ContextItem.ContextItem({
  content: "You are a support agent for Acme. Answer briefly.",
  tokens: 12,
  kind: "SystemPrompt",
  pinned: true
})
const scored = [
  { item: new ContextItem.ContextItem({ content: "Refund policy: 30 days.", tokens: 8, kind: "Document" }), score: 0.92 },
  { item: new ContextItem.ContextItem({ content: "User: can I get a refund?", tokens: 7, timestamp: at("2024-06-01T10:02:00Z") }), score: 0.85 },
  { item: new ContextItem.ContextItem({ content: "Shipping times: 3-5 days.", tokens: 8, kind: "Document" }), score: 0.31 },
  { item: new ContextItem.ContextItem({ content: "User: hi!", tokens: 3, timestamp: at("2024-06-01T10:00:00Z") }), score: 0.12 }
]

const program = Effect.gen(function*() {
  const budget = yield* ContextBudget.make({ maxTokens: 64, targetTokens: 32 })
  const result = yield* Place.place({ pinned: [system], scored, budget, overflowStrategy: "Truncate" })
  for (const [position, item] of result.placed.entries()) {
    yield* Console.log(`${position}. ${item.content}`)
  }
  for (const { item, reason } of result.excluded) {
    yield* Console.log(`excluded: ${item.content} (${reason._tag})`)
  }
  return result
}).pipe(
  // Throw is the default strategy; here we only meet it if the budget is too small for the pins.
  Effect.catchTag("OverflowError", (e) => Console.error(e.message).pipe(Effect.as(undefined)))
)

// The U-shaped placer (best items at both edges) and a notifier that logs overflow.
export const main = program.pipe(Effect.provide(Layer.mergeAll(UShapedPlacer.layer, OverflowNotifier.layerLog)))

// Swap either service with a layer of your own: a placer in the specification's shape…
export const OldestLast = Placer.make("oldest-last", (items) =>
  [...items]
    .sort((a, b) => (b.item.timestamp?.epochMilliseconds ?? 0) - (a.item.timestamp?.epochMilliseconds ?? 0))
    .map((s) => s.item)
)
// …and a notifier that sends overflow to your metrics.
export const CountOverflow = OverflowNotifier.make((event) =>
  Console.log(`over budget by ${event.tokensOverBudget} tokens`)
)
export const custom = program.pipe(Effect.provide(Layer.mergeAll(OldestLast, CountOverflow)))

Effect.runPromise(main)
