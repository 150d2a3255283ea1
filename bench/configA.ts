/**
 * The pipeline bench's budget and the scorer of its configuration (a) — a composite of recency
 * 0.5, priority 0.3 and kind 0.2 (default weights) — shared by the benches that run "the
 * pipeline bench's configuration (a)" (pipeline.bench.ts, verbosity.bench.ts), so that they
 * run the same one.
 */
import { Effect } from "effect"
import { CompositeScorer, ContextBudget, KindScorer, PriorityScorer, RecencyScorer } from "../src/index.ts"

/** The budget every pipeline bench run fits to. */
export const budget = new ContextBudget.ContextBudget({ maxTokens: 128_000, targetTokens: 100_000, outputReserve: 0 })

/** Configuration (a)'s scorer. */
export const composite = Effect.runSync(
  CompositeScorer.make([
    { scorer: RecencyScorer.make(), weight: 0.5 },
    { scorer: PriorityScorer.make(), weight: 0.3 },
    { scorer: KindScorer.defaults, weight: 0.2 }
  ])
)
