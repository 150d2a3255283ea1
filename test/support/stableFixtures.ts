/**
 * The stable window's test fixtures shared by the masking, references and append tests: a
 * counter of a quarter of a message's rendered text plus 4, the strategies of a conversation
 * (recency, first fit, the sectioned placer) with an in-memory store, and a budget whose target
 * is its maximum.
 */
import { Layer } from "effect"
import type { Prompt } from "effect/ai"
import { KeyValueStore } from "effect/persistence"
import * as PromptRender from "../../src/ai/PromptRender.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import { ContextBudget, FirstFitSlice, OverflowNotifier, RecencyScorer } from "../../src/index.ts"
import * as SectionedPlacer from "../../src/placers/SectionedPlacer.ts"

export const countOf = (m: Prompt.Message) => Math.ceil(PromptRender.render(m).length / 4) + 4

export const layers = Layer.mergeAll(
  RecencyScorer.layer,
  FirstFitSlice.layer,
  SectionedPlacer.conversation,
  OverflowNotifier.layerNoop,
  TokenCounter.make(countOf),
  KeyValueStore.layerMemory
)

export const budget = (target: number) => new ContextBudget.ContextBudget({ maxTokens: target, targetTokens: target })
