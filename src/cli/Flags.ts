/**
 * Flags shared by the `place`, `run`, `explain`, `budget` and `demo` commands.
 *
 * @since 0.1.0
 */
import { Flag } from "effect/cli"
import * as Conformance from "../Conformance.ts"
import * as PlacerConfig from "../placers/PlacerConfig.ts"
import * as CountTokens from "./CountTokens.ts"

const placerFlag = (defaultNote: string) =>
  Flag.Literals("placer", Conformance.PlacerName.literals).pipe(
    Flag.withAlias("p"),
    Flag.withDescription(
      `u-shaped (best scores at both edges, worst in the middle) or chronological (oldest first, ` +
        `untimed last); default: ${defaultNote}`
    )
  )

const overflowFlag = (defaultNote: string) =>
  Flag.Literals("overflow", Conformance.OverflowStrategyName.literals).pipe(
    Flag.withAlias("s"),
    Flag.withAlias("strategy"),
    Flag.withDescription(
      `when the items exceed the target: throw (fail with OverflowError), truncate (keep pinned items, ` +
        `then the others in slicer order while they fit) or proceed (keep all, notify); default: ${defaultNote}`
    )
  )

/**
 * `--placer u-shaped|chronological` (`-p`), default `u-shaped`.
 *
 * @since 0.1.0
 * @category flags
 */
export const placer = placerFlag("u-shaped").pipe(Flag.withDefault("u-shaped"))

/**
 * `--placer`, absent meaning "every placer".
 *
 * @since 0.1.0
 * @category flags
 */
export const placerOptional = placerFlag("both").pipe(Flag.optional)

/**
 * `--overflow throw|truncate|proceed` (`-s`, for strategy), default `throw` as in the
 * specification.
 *
 * @since 0.1.0
 * @category flags
 */
export const overflow = overflowFlag("throw").pipe(Flag.withDefault("throw"))

/**
 * `--overflow`, absent meaning "every strategy".
 *
 * @since 0.1.0
 * @category flags
 */
export const overflowOptional = overflowFlag("all three").pipe(Flag.optional)

/**
 * `--placer`, absent meaning "as the input says" (`cupel run`, `explain`, `budget`): every
 * placer a policy names by a bare string (`PlacerConfig.placerNames`), `conversation` included.
 *
 * @since 0.2.0
 * @category flags
 */
export const placerOverride = Flag.Literals("placer", PlacerConfig.placerNames).pipe(
  Flag.withAlias("p"),
  Flag.withDescription(
    "u-shaped (best scores at both edges, worst in the middle), chronological (oldest first, untimed last) or " +
      "conversation (system prompts first, then documents and memory u-shaped, then the rest oldest first); " +
      "default: the input's placer, else u-shaped"
  ),
  Flag.optional
)

/**
 * `--overflow`, absent meaning "as the input says".
 *
 * @since 0.2.0
 * @category flags
 */
export const overflowOverride = overflowFlag("the input's overflowStrategy, else throw").pipe(Flag.optional)

/**
 * `--slicer greedy|knapsack|first_fit`, absent meaning "as the input says".
 *
 * @since 0.2.0
 * @category flags
 */
export const slicerOverride = Flag.Literals("slicer", ["greedy", "knapsack", "first_fit"]).pipe(
  Flag.withDescription(
    "greedy (best score per token first), knapsack (the best total score that fits, tokens rounded up to " +
      "buckets) or first_fit (highest score first, each item that still fits); default: the input's slicer, else greedy"
  ),
  Flag.optional
)

/**
 * `--placer` for `cupel demo`: absent, the input's placer (with `--place`, both placers).
 *
 * @since 0.2.0
 * @category flags
 */
export const placerDemo = placerFlag("the input's (with --place: both)").pipe(Flag.optional)

/**
 * `--overflow` for `cupel demo`: absent, the input's strategy (with `--place`, all three).
 *
 * @since 0.2.0
 * @category flags
 */
export const overflowDemo = overflowFlag("the input's (with --place: all three)").pipe(Flag.optional)

/**
 * `--policy FILE`: a Policy JSON file (`Policy.decodeJson`) replacing the input's policy.
 *
 * @since 0.2.0
 * @category flags
 */
export const policyFile = Flag.String("policy").pipe(
  Flag.withDescription(
    "a Policy JSON file (scorer, slicer, placer, deduplication, overflowStrategy) used instead of the input's " +
      "policy fields; --placer, --slicer and --overflow still override it"
  ),
  Flag.optional
)

/**
 * `--preset NAME`: one of `Presets.names`, replacing the input's policy.
 *
 * @since 0.2.0
 * @category flags
 */
export const preset = Flag.String("preset").pipe(
  Flag.withDescription(
    "a preset policy used instead of the input's policy fields: chat, codeReview, rag, documentQa, toolUse, " +
      "longRunning or debugging (see cupel presets); --placer, --slicer and --overflow still override it"
  ),
  Flag.optional
)

/**
 * `--budget N` (`-b`): the budget's target (`targetTokens`) instead of the input's.
 *
 * @since 0.3.0
 * @category flags
 */
export const budgetTarget = Flag.Int("budget").pipe(
  Flag.withDescription("the budget's target in tokens, where overflow starts (default: the input's)"),
  Flag.withAlias("b"),
  Flag.optional
)

/**
 * `--max N`: the budget's maximum (`maxTokens`) instead of the input's.
 *
 * @since 0.3.0
 * @category flags
 */
export const budgetMax = Flag.Int("max").pipe(
  Flag.withDescription("the budget's maximum in tokens, the model's context size (default: the input's)"),
  Flag.optional
)

/**
 * `--compact`: the JSON output on one line, without indentation.
 *
 * @since 0.3.0
 * @category flags
 */
export const compact = Flag.Boolean("compact").pipe(
  Flag.withDescription("print the JSON on one line, without indentation (default: indented, one key per line)"),
  Flag.withDefault(false)
)

/**
 * `--strict`: unknown keys in the input's items refuse it (exit 2) instead of a warning.
 *
 * @since 0.3.0
 * @category flags
 */
export const strict = Flag.Boolean("strict").pipe(
  Flag.withDescription(
    "refuse the input (exit 2) when an item has a key no item field has, such as a misspelt \"pined\"; " +
      "default: warn on standard error and ignore the key"
  ),
  Flag.withDefault(false)
)

/**
 * `--count-tokens o200k|cl100k`: items without `tokens` are counted from their `content` with
 * gpt-tokenizer's encoding (`CountTokens`); absent, a missing `tokens` is an error.
 *
 * @since 0.3.0
 * @category flags
 */
export const countTokens = Flag.Literals("count-tokens", CountTokens.encodings).pipe(
  Flag.withDescription(
    "count the tokens of items that have no \"tokens\" from their content, with gpt-tokenizer's o200k_base " +
      "(GPT-4o and later) or cl100k_base (GPT-4) encoding; items with \"tokens\" keep theirs " +
      "(default: every item needs \"tokens\")"
  ),
  Flag.optional
)
