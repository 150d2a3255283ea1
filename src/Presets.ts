/**
 * Presets: seven ready-made policies for common kinds of LLM application, the same seven that
 * Cupel .NET ships (`CupelPresets`), with its scorer weights and slicers — and one placer for
 * all seven, `conversation` (`SectionedPlacer.conversation`), where .NET has chronological or
 * u-shaped (docs/design.md, "Presets put the system prompt first").
 *
 * Each preset scores with a composite of built-in scorers; their weights are relative (a 3 and a
 * 1 give the first scorer three quarters of the score). They are starting points, not measured
 * optima — Cupel .NET marks them experimental for that reason — and, being plain `Policy` values,
 * they are easy to adapt: `{ ...Presets.chat, overflowStrategy: "Truncate" }`, or encode one with
 * `Policy.encodeJson` and edit the file.
 *
 * | preset | scorers (weight) | slicer | placer |
 * |---|---|---|---|
 * | `chat` | recency 3, kind 1 | greedy | conversation |
 * | `codeReview` | kind 2, priority 2, recency 1 | greedy | conversation |
 * | `rag` | reflexive 3, kind 1 | greedy | conversation |
 * | `documentQa` | kind 2, reflexive 2, priority 1 | knapsack (bucket 100) | conversation |
 * | `toolUse` | kind 2, recency 2, priority 1 | greedy | conversation |
 * | `longRunning` | recency 3, frequency 1, kind 1 | greedy | conversation |
 * | `debugging` | priority 3, kind 2, recency 1 | greedy | conversation |
 *
 * Every preset deduplicates and uses the `Throw` overflow strategy. The kind scorer uses its
 * default weights.
 *
 * Every preset is for a window sent to a chat model, so every preset puts the system prompt
 * first: the conversation placer orders by kind — system prompts (pinned or not, timed or not),
 * then documents and memory u-shaped (the best at both ends of their section), then the
 * conversation (messages, tool calls and output) oldest first. The chronological placer of .NET's
 * five conversational presets puts an untimed system prompt after the whole conversation, and
 * the u-shaped one of `rag` and `documentQa` puts the latest question wherever its score falls.
 *
 * @since 0.2.0
 */
import { Effect, Schema } from "effect"
import * as Policy from "./Policy.ts"

// The scorers the presets use take no options.
type Weighted = ReadonlyArray<readonly ["recency" | "priority" | "reflexive" | "frequency" | "kind", number]>

const composite = (entries: Weighted): Policy.ScorerConfig => ({
  type: "composite",
  scorers: entries.map(([type, weight]): Policy.WeightedScorerConfig => ({ type, weight }))
})

const preset = (
  name: string,
  description: string,
  scorers: Weighted,
  slicer: Policy.SlicerConfig
): Policy.Policy => ({
  name,
  description,
  scorer: composite(scorers),
  slicer,
  // One placer for all seven: system prompts first (see the module's header).
  placer: { type: "conversation" },
  deduplication: true,
  overflowStrategy: "Throw"
})

/**
 * A chat assistant: the latest turns matter most, and the kind of an item (system prompt,
 * memory, tool output, document, message) breaks ties between turns of similar age. The system
 * prompt comes first, then the conversation in the order things happened.
 *
 * Recency 3, kind 1; greedy; conversation.
 *
 * @since 0.2.0
 * @category presets
 */
export const chat: Policy.Policy = preset(
  "chat",
  "Chat assistant: recent turns first, kind as a tie-breaker, in the order they happened.",
  [["recency", 3], ["kind", 1]],
  { type: "greedy" }
)

/**
 * Reviewing code: what an item is (the diff, a guideline, a tool's output) and how important it
 * was marked count equally, how recent it is counts half as much. The system prompt first, the
 * reference documents next, then the review conversation in order, so that it keeps its thread.
 *
 * Kind 2, priority 2, recency 1; greedy; conversation.
 *
 * @since 0.2.0
 * @category presets
 */
export const codeReview: Policy.Policy = preset(
  "codeReview",
  "Code review: kind and priority first, recency second, in the order they happened.",
  [["kind", 2], ["priority", 2], ["recency", 1]],
  { type: "greedy" }
)

/**
 * Retrieval-augmented generation: the retriever's own relevance estimate
 * (`futureRelevanceHint`, read by the reflexive scorer) decides, the kind of item a little. After
 * the system prompt, the best passages go to both ends of the documents, where a model attends
 * most, and the conversation follows in order, the latest question last.
 *
 * Reflexive 3, kind 1; greedy; conversation.
 *
 * @since 0.2.0
 * @category presets
 */
export const rag: Policy.Policy = preset(
  "rag",
  "Retrieval-augmented generation: the retriever's relevance first, the best passages at both ends, then the conversation.",
  [["reflexive", 3], ["kind", 1]],
  { type: "greedy" }
)

/**
 * Answering questions over documents: kind and relevance estimate count equally, priority
 * half as much. Documents are large and few, so the knapsack slicer (bucket size 100) packs the
 * budget with the best set rather than the best density. After the system prompt, the best
 * documents go to both ends of the documents, then the conversation in order.
 *
 * Kind 2, reflexive 2, priority 1; knapsack (bucket 100); conversation.
 *
 * @since 0.2.0
 * @category presets
 */
export const documentQa: Policy.Policy = preset(
  "documentQa",
  "Document Q&A: kind and relevance, packed by knapsack, the best documents at both ends, then the conversation.",
  [["kind", 2], ["reflexive", 2], ["priority", 1]],
  { type: "knapsack", bucketSize: 100 }
)

/**
 * An agent calling tools: the kind of item (tool output above plain messages, by the kind
 * scorer's defaults) and recency count equally, priority half as much. The system prompt first,
 * then calls and their results in sequence.
 *
 * Kind 2, recency 2, priority 1; greedy; conversation.
 *
 * @since 0.2.0
 * @category presets
 */
export const toolUse: Policy.Policy = preset(
  "toolUse",
  "Tool use: kind and recency, then priority, calls and results in sequence.",
  [["kind", 2], ["recency", 2], ["priority", 1]],
  { type: "greedy" }
)

/**
 * A long conversation that outgrows its budget: recency dominates, and items that share tags
 * with many others (recurring topics, by the frequency scorer) and important kinds hold on
 * longer. The system prompt first, then the conversation in order.
 *
 * Recency 3, frequency 1, kind 1; greedy; conversation.
 *
 * @since 0.2.0
 * @category presets
 */
export const longRunning: Policy.Policy = preset(
  "longRunning",
  "Long-running conversation: recency first, recurring topics and kinds hold on, in order.",
  [["recency", 3], ["frequency", 1], ["kind", 1]],
  { type: "greedy" }
)

/**
 * Debugging: the items marked important (an error, a failing test, a stack trace, by
 * `priority`) come first, then kind, then recency. The system prompt first, then the trail of
 * events (messages, tool output) as it happened; documents and memory sit between the two.
 *
 * Priority 3, kind 2, recency 1; greedy; conversation.
 *
 * @since 0.2.0
 * @category presets
 */
export const debugging: Policy.Policy = preset(
  "debugging",
  "Debugging: priority first, then kind and recency, the trail in order.",
  [["priority", 3], ["kind", 2], ["recency", 1]],
  { type: "greedy" }
)

/**
 * The name of a preset.
 *
 * @since 0.2.0
 * @category models
 */
export type PresetName = "chat" | "codeReview" | "rag" | "documentQa" | "toolUse" | "longRunning" | "debugging"

/**
 * Every preset by name, in the order Cupel .NET lists them.
 *
 * @since 0.2.0
 * @category presets
 */
export const all: { readonly [K in PresetName]: Policy.Policy } = {
  chat,
  codeReview,
  rag,
  documentQa,
  toolUse,
  longRunning,
  debugging
}

/**
 * The preset names, in the order of {@link all}.
 *
 * @since 0.2.0
 * @category presets
 */
export const names: ReadonlyArray<PresetName> = Object.keys(all).filter(isName)

function isName(name: string): name is PresetName {
  return Object.hasOwn(all, name)
}

/**
 * A name that is no preset's. `known` lists the presets' names.
 *
 * @since 0.2.0
 * @category errors
 */
export class UnknownPresetError extends Schema.TaggedError<UnknownPresetError>()("UnknownPresetError", {
  name: Schema.String,
  known: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `no preset is named ${JSON.stringify(this.name)}; the presets are ${this.known.join(", ")}`
  }
}

/**
 * The preset of that name (exactly as in {@link names}), or an {@link UnknownPresetError}
 * listing the known names.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Presets } from "effect-cupel"
 *
 * const policy = Presets.get("rag") // Effect<Policy, UnknownPresetError>
 * ```
 *
 * @since 0.2.0
 * @category presets
 */
export const get = (name: string): Effect.Effect<Policy.Policy, UnknownPresetError> =>
  isName(name) ? Effect.succeed(all[name]) : Effect.fail(new UnknownPresetError({ name, known: names }))
