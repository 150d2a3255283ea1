/**
 * PipelineInput: the JSON that `cupel run` reads — candidate items, a budget, and a policy
 * (`Policy`: scorer tree, slicer, placer, deduplication, overflow strategy) in the same object.
 *
 * ```json
 * {
 *   "budget": { "maxTokens": 8192, "targetTokens": 2000 },
 *   "items": [
 *     { "content": "You are terse.", "tokens": 5, "kind": "SystemPrompt", "pinned": true },
 *     { "content": "Paris is the capital of France.", "tokens": 8, "priority": 3 }
 *   ],
 *   "scorer": {
 *     "type": "composite",
 *     "scorers": [{ "type": "recency", "weight": 0.7 }, { "type": "priority", "weight": 0.3 }]
 *   },
 *   "slicer": "greedy",
 *   "placer": "u-shaped"
 * }
 * ```
 *
 * Items are `ContextItem`s in the library's JSON form, as `cupel place` reads them; a pinned item
 * is one with `"pinned": true`. Every other field is a field of a `Policy` file, decoded by
 * `Policy`'s own schemas: one format for policy files, presets and this input. Decoding checks
 * shapes only; the rules of each scorer and slicer (a positive weight, a positive half-life…)
 * are checked when `Policy.layer` builds them, by the library's own constructors, so that the CLI
 * and the library refuse exactly the same configurations.
 *
 * When the policy comes from elsewhere (`--policy FILE`, `--preset NAME`), {@link Candidates}
 * reads the input: the same fields, the scorer optional.
 *
 * @since 0.2.0
 */
import { Effect, Exit, Result, Schema } from "effect"
import * as ContextBudget from "../ContextBudget.ts"
import * as ContextItem from "../ContextItem.ts"
import { schemaProblems } from "../internal/conformanceMessages.ts"
import * as DecodeItems from "./internal/decodeItems.ts"
import * as FastDecode from "../internal/fastDecode.ts"
import * as Policy from "../Policy.ts"
import { InputError, parseJson } from "./PlaceInput.ts"

const inputFields = {
  budget: ContextBudget.ContextBudget,
  items: Schema.Array(ContextItem.ContextItem)
}

/**
 * The input schema: `budget`, `items` and a policy's fields. `budget`, `items` and `scorer` are
 * required; `slicer`, `placer`, `deduplication` and `overflowStrategy` default to `"greedy"`,
 * `"u-shaped"`, `true` and `"throw"` (the specification's default strategy).
 *
 * @since 0.2.0
 * @category schemas
 */
export const PipelineInput = Schema.Struct({ ...inputFields, ...Policy.fields }).annotate({
  identifier: "PipelineInput"
})

/**
 * A decoded input: the candidates, the budget, and the policy's fields (a `Policy` itself).
 *
 * @since 0.2.0
 * @category models
 */
export type PipelineInput = typeof PipelineInput.Type

/**
 * The JSON form of an input.
 *
 * @since 0.2.0
 * @category models
 */
export type PipelineInputJson = typeof PipelineInput.Encoded

// The policy's fields where another source gives the policy: checked as they would be, so that a
// misspelt key is still reported, but none is required.
const optionalPolicyFields = { ...Policy.fields, scorer: Schema.optionalKey(Policy.ScorerConfig) }

/**
 * The input read when the policy is given by `--policy` or `--preset`: as {@link PipelineInput},
 * the scorer optional (the policy fields present are checked, then replaced).
 *
 * @since 0.2.0
 * @category schemas
 */
export const Candidates = Schema.Struct({ ...inputFields, ...optionalPolicyFields }).annotate({
  identifier: "Candidates"
})

/**
 * The candidates and the budget of an input.
 *
 * @since 0.2.0
 * @category models
 */
export interface CandidatesOnly {
  readonly budget: ContextBudget.ContextBudget
  readonly items: ReadonlyArray<ContextItem.ContextItem>
}

const parseAll = { errors: "all", reportInput: true } as const
const strictAll = { errors: "all", onExcessProperty: "error", reportInput: true } as const

// Unknown keys are reported at the top level and anywhere in the configuration: a misspelt
// "weigths" would otherwise run with the default weights without a word. Unknown keys inside
// items are left to the schema, which ignores them (other tools add them): the command warns
// about them (UnknownKeys.ts, PlaceInput.decodeWithUnknownKeys), as `cupel place` does.
const Strict = Schema.Struct({ budget: Schema.Unknown, items: Schema.Unknown, ...Policy.fields }).annotate({
  messageUnexpectedKey: "unknown key"
})
const StrictCandidates = Schema.Struct({ budget: Schema.Unknown, items: Schema.Unknown, ...optionalPolicyFields })
  .annotate({ messageUnexpectedKey: "unknown key" })

const decoders = {
  policy: {
    strict: Schema.decodeUnknownEffect(Strict, strictAll),
    input: Schema.decodeUnknownEffect(PipelineInput, parseAll),
    strictExit: Schema.decodeUnknownExit(Strict, { onExcessProperty: "error" })
  },
  candidates: {
    strict: Schema.decodeUnknownEffect(StrictCandidates, strictAll),
    input: Schema.decodeUnknownEffect(Candidates, parseAll),
    strictExit: Schema.decodeUnknownExit(StrictCandidates, { onExcessProperty: "error" })
  },
  budgetExit: Schema.decodeUnknownExit(ContextBudget.ContextBudget)
}

/** Both passes run so that one message lists every problem; one found by both is listed once. */
const withSchemas = <A>(
  source: string,
  value: unknown,
  strict: (value: unknown) => Effect.Effect<unknown, Schema.SchemaError>,
  decode: (value: unknown) => Effect.Effect<A, Schema.SchemaError>
): Effect.Effect<A, InputError> =>
  Effect.gen(function*() {
    const checked = yield* Effect.result(strict(value))
    const decoded = yield* Effect.result(decode(value))
    const problems = [
      ...(Result.isFailure(checked) ? schemaProblems(checked.failure) : []),
      ...(Result.isFailure(decoded) ? schemaProblems(decoded.failure) : [])
    ]
    if (Result.isFailure(decoded) || problems.length > 0) {
      return yield* new InputError({ source, problems: [...new Set(problems)] })
    }
    return decoded.success
  })

/**
 * Decodes a parsed JSON value with the schemas alone: what {@link decodeValue} answers, more
 * slowly (about 20 µs an item). Kept as the reference the fast path is tested against.
 *
 * @since 0.2.0
 * @category decoding
 */
export const decodeValueWithSchema = (source: string, value: unknown): Effect.Effect<PipelineInput, InputError> =>
  withSchemas(source, value, decoders.policy.strict, decoders.policy.input)

/**
 * The fast path: the configuration and the budget by their schemas, the items by
 * fastDecode.ts. `undefined` whenever anything fails, so that the schemas decode the whole
 * input again and word every problem as they always have.
 *
 * The strict pass decodes the policy's fields once, and its output is used as it is; the budget,
 * an `Unknown` there so that its unknown keys stay allowed as in the schema path, is decoded on
 * its own.
 */
const fast = <A extends { readonly budget: unknown; readonly items: unknown }>(
  value: unknown,
  strictExit: (value: unknown) => Exit.Exit<A, unknown>
):
  | (Omit<A, "budget" | "items"> & {
    readonly budget: ContextBudget.ContextBudget
    readonly items: Array<ContextItem.ContextItem>
  })
  | undefined =>
{
  if (!FastDecode.isRecord(value)) return undefined
  const checked = FastDecode.successOrUndefined(strictExit(value))
  if (checked === undefined) return undefined
  const budget = FastDecode.successOrUndefined(decoders.budgetExit(checked.budget))
  if (budget === undefined) return undefined
  const items = DecodeItems.items(checked.items)
  if (items === undefined) return undefined
  // The schema's key order: `budget` and `items` keep their places.
  return { ...checked, budget, items }
}

/**
 * Decodes a parsed JSON value. `source` names it in messages (a file name, `stdin`). Every
 * problem is listed, each starting with the path of its field.
 *
 * Items take a fast path (about 1 µs an item instead of 20) that checks each field with the
 * schema's rules; when any part of the input is invalid the schemas decode it all again, so the
 * problems listed are exactly those of {@link decodeValueWithSchema}.
 *
 * @since 0.2.0
 * @category decoding
 */
export const decodeValue = (source: string, value: unknown): Effect.Effect<PipelineInput, InputError> =>
  Effect.suspend(() => {
    const decoded = fast(value, decoders.policy.strictExit)
    return decoded === undefined ? decodeValueWithSchema(source, value) : Effect.succeed(decoded)
  })

/**
 * Decodes a parsed JSON value whose policy will be replaced ({@link Candidates}): the budget and
 * the items, by the same fast path.
 *
 * @since 0.2.0
 * @category decoding
 */
export const decodeCandidatesValue = (source: string, value: unknown): Effect.Effect<CandidatesOnly, InputError> =>
  Effect.suspend(() => {
    const decoded = fast(value, decoders.candidates.strictExit)
    return decoded === undefined
      ? withSchemas(source, value, decoders.candidates.strict, decoders.candidates.input)
      : Effect.succeed(decoded)
  })

/**
 * Parses and decodes JSON text.
 *
 * @since 0.2.0
 * @category decoding
 */
export const decodeText = (source: string, text: string): Effect.Effect<PipelineInput, InputError> =>
  Effect.flatMap(parseJson(source, text), (value) => decodeValue(source, value))

/**
 * Parses JSON text and decodes its candidates and budget, the policy to be replaced.
 *
 * @since 0.2.0
 * @category decoding
 */
export const decodeCandidatesText = (source: string, text: string): Effect.Effect<CandidatesOnly, InputError> =>
  Effect.flatMap(parseJson(source, text), (value) => decodeCandidatesValue(source, value))

/**
 * Encodes an input to its JSON form.
 *
 * @since 0.2.0
 * @category encoding
 */
export const encode = Schema.encodeEffect(PipelineInput)
