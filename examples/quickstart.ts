import { Console, Effect, Layer } from "effect"
import {
  CompositeScorer,
  ContextBudget,
  ContextItem,
  GreedySlice,
  KindScorer,
  OverflowNotifier,
  Pipeline,
  PriorityScorer,
  RecencyScorer,
  Scorer,
  Timestamp,
  UShapedPlacer
} from "../src/index.ts"

const at = (iso: string) => Timestamp.fromEpochMillis(Date.parse(iso))
const item = (fields: ConstructorParameters<typeof ContextItem.ContextItem>[0]) => new ContextItem.ContextItem(fields)

// Everything the agent could show the model, with token counts.
const candidates = [
  item({ content: "You are a support agent for Acme. Answer briefly.", tokens: 12, kind: "SystemPrompt", pinned: true }),
  item({ content: "User: hi!", tokens: 3, timestamp: at("2024-06-01T10:00:00Z") }),
  item({ content: "Assistant: Hello! How can I help?", tokens: 9, timestamp: at("2024-06-01T10:01:00Z") }),
  item({ content: "User: can I get a refund?", tokens: 7, timestamp: at("2024-06-01T10:02:00Z") }),
  item({ content: "Refund policy: 30 days.", tokens: 8, kind: "Document", priority: 9 }),
  item({ content: "Refund policy: 30 days.", tokens: 8, kind: "Document", priority: 4 }),
  item({ content: "Shipping times: 3-5 days.", tokens: 8, kind: "Document", priority: 2 }),
  item({ content: "Order history: 14 orders since 2019, …", tokens: 400, kind: "ToolOutput", priority: 5 })
]

// Relevance: recency 0.5, priority 0.3, kind 0.2 — scorers are values that compose.
const relevance = Effect.gen(function*() {
  const kind = yield* KindScorer.make()
  return yield* CompositeScorer.make([
    { scorer: RecencyScorer.make(), weight: 0.5 },
    { scorer: PriorityScorer.make(), weight: 0.3 },
    { scorer: kind, weight: 0.2 }
  ])
})

// Each strategy is a service: swap any layer (in tests, say) without touching the program.
export const layers = Layer.mergeAll(
  Layer.effect(Scorer.Scorer, relevance),
  GreedySlice.layer,
  UShapedPlacer.layer,
  OverflowNotifier.layerLog
)

export const main = Effect.gen(function*() {
  const budget = yield* ContextBudget.make({ maxTokens: 128, targetTokens: 48 })
  const { report, window } = yield* Pipeline.run(candidates, budget)
  for (const [position, item] of window.entries()) {
    yield* Console.log(`${position}. ${item.content}`)
  }
  for (const { item, reason, score } of report.excluded) {
    yield* Console.log(`excluded: ${item.content} (${reason._tag}, score ${score.toFixed(2)})`)
  }
  return report
}).pipe(
  Effect.provide(layers),
  // Pinned items that cannot fit at all are a typed error, like every failure here.
  Effect.catchTag("PinnedBudgetError", (e) => Console.error(e.message).pipe(Effect.as(undefined)))
)

Effect.runPromise(main)
