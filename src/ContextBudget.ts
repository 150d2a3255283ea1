/**
 * ContextBudget: how many tokens the window may hold, and how many it should aim for.
 *
 * All seven validation rules of the specification are enforced when a budget is constructed or
 * decoded, so no invalid budget exists at run time. Each failure names the field it is about.
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import * as ContextKind from "./ContextKind.ts"
import { SafeInt, withDefault } from "./internal/fields.ts"

const NonNegativeInt = (field: string) =>
  SafeInt.check(Schema.makeFilter((n) => n >= 0 || `${field} must be >= 0, got ${n}`))

const ReservedSlots = Schema.Record(ContextKind.ContextKind, NonNegativeInt("each reservedSlots value")).check(
  Schema.makeFilter((slots) => {
    // Kinds compare case-insensitively, so "message" and "Message" would be one key twice.
    const seen = new Map<string, string>()
    for (const kind of Object.keys(slots)) {
      const folded = ContextKind.fold(kind)
      const other = seen.get(folded)
      if (other !== undefined) {
        return `reservedSlots names the kind ${JSON.stringify(kind)} twice (also as ${JSON.stringify(other)}); kinds are case-insensitive`
      }
      seen.set(folded, kind)
    }
    return true
  })
)

const Percent = Schema.Finite.check(
  Schema.makeFilter((p) =>
    (p >= 0 && p <= 100) || `estimationSafetyMarginPercent must be between 0 and 100, got ${p}`
  )
)

/**
 * A token budget.
 *
 * | field | rule |
 * |---|---|
 * | `maxTokens` | integer >= 0: the model's context window |
 * | `targetTokens` | integer >= 0 and <= `maxTokens`: the soft goal Place checks overflow against |
 * | `outputReserve` | integer >= 0 and <= `maxTokens` (default 0) |
 * | `reservedSlots` | kind → integer >= 0 (default `{}`) |
 * | `estimationSafetyMarginPercent` | 0 to 100 (default 0) |
 *
 * @example
 * ```ts
 * import { ContextBudget } from "effect-cupel"
 *
 * const budget = new ContextBudget.ContextBudget({ maxTokens: 8192, targetTokens: 6000 })
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export class ContextBudget extends Schema.Class<ContextBudget>("effect-cupel/ContextBudget")(
  Schema.Struct({
    maxTokens: NonNegativeInt("maxTokens"),
    targetTokens: NonNegativeInt("targetTokens"),
    outputReserve: withDefault(NonNegativeInt("outputReserve"), () => 0),
    reservedSlots: withDefault(ReservedSlots, () => ({})),
    estimationSafetyMarginPercent: withDefault(Percent, () => 0)
  }).check(
    Schema.makeFilter((b) =>
      b.targetTokens <= b.maxTokens || {
        path: ["targetTokens"],
        issue: `targetTokens (${b.targetTokens}) must not exceed maxTokens (${b.maxTokens})`
      }
    ),
    Schema.makeFilter((b) =>
      b.outputReserve <= b.maxTokens || {
        path: ["outputReserve"],
        issue: `outputReserve (${b.outputReserve}) must not exceed maxTokens (${b.maxTokens})`
      }
    )
  )
) {}

/**
 * Decodes an unknown value into a ContextBudget, reporting every broken rule.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode = Schema.decodeUnknownEffect(ContextBudget, { errors: "all" })

/**
 * Constructs a budget, failing with a typed `SchemaError` that names each broken rule.
 * (`new ContextBudget(...)` throws instead; use it only with values you trust.)
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ContextBudget } from "effect-cupel"
 *
 * const program = ContextBudget.make({ maxTokens: 8192, targetTokens: 9000 }).pipe(
 *   Effect.catchTag("SchemaError", (e) => Effect.die(e.message)) // targetTokens (9000) must not exceed maxTokens (8192)
 * )
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  fields: ConstructorParameters<typeof ContextBudget>[0]
): Effect.Effect<ContextBudget, Schema.SchemaError> =>
  ContextBudget.makeEffect(fields).pipe(Effect.mapError((issue) => new Schema.SchemaError(issue)))
