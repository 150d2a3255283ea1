/**
 * Presets: seven ready-made policies for common kinds of LLM application, the same seven that
 * Cupel .NET ships (`CupelPresets`), with its scorer weights, slicers and placers.
 *
 * Each preset scores with a composite of built-in scorers; their weights are relative (a 3 and a
 * 1 give the first scorer three quarters of the score). They are starting points, not measured
 * optima — Cupel .NET marks them experimental for that reason — and, being plain `Policy` values,
 * they are easy to adapt: `{ ...Presets.chat, overflowStrategy: "Truncate" }`, or encode one with
 * `Policy.encodeJson` and edit the file.
 *
 * | preset | scorers (weight) | slicer | placer |
 * |---|---|---|---|
 * | `chat` | recency 3, kind 1 | greedy | chronological |
 * | `codeReview` | kind 2, priority 2, recency 1 | greedy | chronological |
 * | `rag` | reflexive 3, kind 1 | greedy | u-shaped |
 * | `documentQa` | kind 2, reflexive 2, priority 1 | knapsack (bucket 100) | u-shaped |
 * | `toolUse` | kind 2, recency 2, priority 1 | greedy | chronological |
 * | `longRunning` | recency 3, frequency 1, kind 1 | greedy | chronological |
 * | `debugging` | priority 3, kind 2, recency 1 | greedy | chronological |
 *
 * Every preset deduplicates and uses the `Throw` overflow strategy. The kind scorer uses its
 * default weights.
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
  choices: Pick<Policy.Policy, "slicer" | "placer">
): Policy.Policy => ({
  name,
  description,
  scorer: composite(scorers),
  slicer: choices.slicer,
  placer: choices.placer,
  deduplication: true,
  overflowStrategy: "Throw"
})

/**
 * A chat assistant: the latest turns matter most, and the kind of an item (system prompt,
 * memory, tool output, document, message) breaks ties between turns of similar age. The window
 * reads in the order things happened.
 *
 * Recency 3, kind 1; greedy; chronological.
 *
 * @since 0.2.0
 * @category presets
 */
export const chat: Policy.Policy = preset(
  "chat",
  "Chat assistant: recent turns first, kind as a tie-breaker, in the order they happened.",
  [["recency", 3], ["kind", 1]],
  { slicer: { type: "greedy" }, placer: { type: "chronological" } }
)

/**
 * Reviewing code: what an item is (the diff, a guideline, a tool's output) and how important it
 * was marked count equally, how recent it is counts half as much. Chronological, so a review
 * conversation keeps its thread.
 *
 * Kind 2, priority 2, recency 1; greedy; chronological.
 *
 * @since 0.2.0
 * @category presets
 */
export const codeReview: Policy.Policy = preset(
  "codeReview",
  "Code review: kind and priority first, recency second, in the order they happened.",
  [["kind", 2], ["priority", 2], ["recency", 1]],
  { slicer: { type: "greedy" }, placer: { type: "chronological" } }
)

/**
 * Retrieval-augmented generation: the retriever's own relevance estimate
 * (`futureRelevanceHint`, read by the reflexive scorer) decides, the kind of item a little. The
 * best passages go to both ends of the window, where a model attends most.
 *
 * Reflexive 3, kind 1; greedy; u-shaped.
 *
 * @since 0.2.0
 * @category presets
 */
export const rag: Policy.Policy = preset(
  "rag",
  "Retrieval-augmented generation: the retriever's relevance first, the best passages at both ends.",
  [["reflexive", 3], ["kind", 1]],
  { slicer: { type: "greedy" }, placer: { type: "u-shaped" } }
)

/**
 * Answering questions over documents: kind and relevance estimate count equally, priority
 * half as much. Documents are large and few, so the knapsack slicer (bucket size 100) packs the
 * budget with the best set rather than the best density; u-shaped placement.
 *
 * Kind 2, reflexive 2, priority 1; knapsack (bucket 100); u-shaped.
 *
 * @since 0.2.0
 * @category presets
 */
export const documentQa: Policy.Policy = preset(
  "documentQa",
  "Document Q&A: kind and relevance, packed by knapsack, the best documents at both ends.",
  [["kind", 2], ["reflexive", 2], ["priority", 1]],
  { slicer: { type: "knapsack", bucketSize: 100 }, placer: { type: "u-shaped" } }
)

/**
 * An agent calling tools: the kind of item (tool output above plain messages, by the kind
 * scorer's defaults) and recency count equally, priority half as much. Chronological, so calls
 * and their results stay in sequence.
 *
 * Kind 2, recency 2, priority 1; greedy; chronological.
 *
 * @since 0.2.0
 * @category presets
 */
export const toolUse: Policy.Policy = preset(
  "toolUse",
  "Tool use: kind and recency, then priority, calls and results in sequence.",
  [["kind", 2], ["recency", 2], ["priority", 1]],
  { slicer: { type: "greedy" }, placer: { type: "chronological" } }
)

/**
 * A long conversation that outgrows its budget: recency dominates, and items that share tags
 * with many others (recurring topics, by the frequency scorer) and important kinds hold on
 * longer. Chronological.
 *
 * Recency 3, frequency 1, kind 1; greedy; chronological.
 *
 * @since 0.2.0
 * @category presets
 */
export const longRunning: Policy.Policy = preset(
  "longRunning",
  "Long-running conversation: recency first, recurring topics and kinds hold on, in order.",
  [["recency", 3], ["frequency", 1], ["kind", 1]],
  { slicer: { type: "greedy" }, placer: { type: "chronological" } }
)

/**
 * Debugging: the items marked important (an error, a failing test, a stack trace, by
 * `priority`) come first, then kind, then recency. Chronological, so the trail of events reads
 * as it happened.
 *
 * Priority 3, kind 2, recency 1; greedy; chronological.
 *
 * @since 0.2.0
 * @category presets
 */
export const debugging: Policy.Policy = preset(
  "debugging",
  "Debugging: priority first, then kind and recency, the trail in order.",
  [["priority", 3], ["kind", 2], ["recency", 1]],
  { slicer: { type: "greedy" }, placer: { type: "chronological" } }
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
