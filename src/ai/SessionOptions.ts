/**
 * SessionOptions: the options every front door passes to the session core, checked when the
 * door is built or called — not at the model call, and not as a schema error about a field the
 * caller never wrote (docs/design.md, "One session core").
 *
 * One rule per option, shared by the doors: {@link check} refuses an option name the door does
 * not know (suggesting the one it most likely stands for: `outputReserv` → "did you mean
 * outputReserve?") and a value out of its range, naming the option and printing the value as
 * JSON (`(got "1000")`). The doors raise what it finds as their own error: `InvalidConfigError`
 * (`WindowedLanguageModel.layer`, `AiSdk.middleware`, `AiSdk.prepareStep`) or `InvalidInput`
 * (`plain/Trim`).
 *
 * @since 0.3.0
 */
import { Duration, Layer, Option } from "effect"
import { describeJson } from "../internal/describeThrown.ts"
import { suggest } from "../internal/suggest.ts"

/**
 * An option's problem: the option's name (`path`) and what it must be, with the value given.
 *
 * @since 0.3.0
 * @category models
 */
export interface Problem {
  readonly path: string
  readonly rule: string
}

/**
 * The rule of one option: what is wrong with its value (`undefined`: nothing). It is given the
 * value (never `undefined`: an option left out is not checked, unless it is required) and all
 * the options.
 *
 * @since 0.3.0
 * @category models
 */
export type Rule = (value: unknown, options: Readonly<Record<string, unknown>>) => string | undefined

const got = (value: unknown) => `(got ${describeJson(value)})`

// Duration.fromInput reads any of these and says None for what it cannot (an object of no
// units reads as 0, which the rule refuses).
const isDurationInput = (value: unknown): value is Duration.Input =>
  typeof value === "string" || typeof value === "number" || typeof value === "bigint" ||
  (typeof value === "object" && value !== null)

const isWhole = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value)

const oneOfRule = (choices: ReadonlyArray<string>): Rule => (value) =>
  typeof value === "string" && choices.includes(value)
    ? undefined
    : `must be ${choices.map((c) => JSON.stringify(c)).join(", ").replace(/, ([^,]*)$/, " or $1")} ${got(value)}`

/**
 * The rules of the options, by name.
 *
 * @since 0.3.0
 * @category rules
 */
export const rules = {
  positiveInt: ((value) => isWhole(value) && value > 0 ? undefined : `must be a whole number above 0 ${got(value)}`) satisfies Rule,
  nonNegativeInt: ((value) => isWhole(value) && value >= 0 ? undefined : `must be a whole number of at least 0 ${got(value)}`) satisfies Rule,
  finite: ((value) => typeof value === "number" && Number.isFinite(value) ? undefined : `must be a finite number ${got(value)}`) satisfies Rule,
  boolean: ((value) => typeof value === "boolean" ? undefined : `must be true or false ${got(value)}`) satisfies Rule,
  function: ((value) => typeof value === "function" ? undefined : `must be a function ${got(value)}`) satisfies Rule,
  object: ((value) => typeof value === "object" && value !== null ? undefined : `must be an object ${got(value)}`) satisfies Rule,
  array: ((value) => Array.isArray(value) ? undefined : `must be an array ${got(value)}`) satisfies Rule,
  layer: ((value) => Layer.isLayer(value) ? undefined : `must be a Layer ${got(value)}`) satisfies Rule,
  oneOf: oneOfRule,
  /** The output reserve: a whole number from 0 to `contextWindow − 1`. */
  outputReserve: ((value, options) => {
    const contextWindow = options["contextWindow"]
    if (!isWhole(value) || value < 0) return `must be a whole number of at least 0 ${got(value)}`
    return isWhole(contextWindow) && value >= contextWindow
      ? `must be less than contextWindow (${contextWindow}) ${got(value)}`
      : undefined
  }) satisfies Rule,
  /** A stable window's low watermark: a number in (0, 1]. */
  fraction: ((value) =>
    typeof value === "number" && value > 0 && value <= 1 ? undefined : `must be a number in (0, 1] ${got(value)}`) satisfies Rule,
  /** A number above 0 and finite. */
  positive: ((value) =>
    typeof value === "number" && value > 0 && Number.isFinite(value)
      ? undefined
      : `must be a finite number above 0 ${got(value)}`) satisfies Rule,
  /** A positive duration (`Duration.Input`). */
  duration: ((value) => {
    const duration = isDurationInput(value) ? Duration.fromInput(value) : Option.none()
    return Option.isSome(duration) && Duration.toMillis(duration.value) > 0
      ? undefined
      : `must be a positive duration ${got(value)}`
  }) satisfies Rule,
  /**
   * The `promptCache` option (`CachePlan.Options`): `false`, or an object of `provider`, `ttl`,
   * `retention` and `minimumPrefix`, each in its range.
   */
  promptCache: ((value) => {
    if (value === false) return undefined
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return `must be false or an object of provider, ttl, retention and minimumPrefix ${got(value)}`
    }
    const fields: Readonly<Record<string, Rule>> = {
      provider: oneOfRule(["auto", "anthropic", "openai", "none"]),
      ttl: oneOfRule(["5m", "1h"]),
      retention: oneOfRule(["in_memory", "24h"]),
      minimumPrefix: (v) => isWhole(v) && v >= 0 ? undefined : `must be a whole number of at least 0 ${got(v)}`
    }
    for (const [name, field] of Object.entries(value)) {
      const rule = fields[name]
      if (rule === undefined) return `has no option ${name} (it takes provider, ttl, retention and minimumPrefix)`
      const problem = field === undefined ? undefined : rule(field, {})
      if (problem !== undefined) return `.${name} ${problem}`
    }
    return undefined
  }) satisfies Rule
} as const

/**
 * The rules of the options the session core itself takes (every door's): the window, the
 * strategies, the pipeline's and the fit's options.
 *
 * @since 0.3.0
 * @category rules
 */
export const core = {
  contextWindow: rules.positiveInt,
  outputReserve: rules.outputReserve,
  countTools: rules.boolean,
  scorer: rules.object,
  slicer: rules.object,
  placer: rules.layer,
  notifier: rules.layer,
  overflowStrategy: rules.oneOf(["Throw", "Truncate", "Proceed"]),
  deduplication: rules.boolean,
  verbosity: rules.oneOf(["StageOnly", "StageAndExclusions", "Full"]),
  startOn: rules.oneOf(["user", "any"]),
  shortenToolResults: rules.boolean,
  annotate: rules.function,
  documents: rules.array,
  startMillis: rules.finite,
  itemCache: rules.object
} satisfies Readonly<Record<string, Rule>>

/**
 * The rules of a stable window's options.
 *
 * @since 0.3.0
 * @category rules
 */
export const stable = {
  mode: rules.oneOf(["stable", "per-call"]),
  lowWatermark: rules.fraction,
  writeOverhead: rules.positive,
  summaryTokens: rules.positiveInt,
  summaryLedger: rules.boolean,
  cacheRule: rules.object,
  conversationKey: rules.function,
  ttl: rules.duration,
  storeTimeout: rules.duration,
  promptCache: rules.promptCache,
  maskToolResults: rules.boolean,
  toolResultReferences: rules.boolean
} satisfies Readonly<Record<string, Rule>>

/** The options every door requires. */
const required = new Set(["contextWindow"])

/**
 * The first problem of `options` under `known` (the door's rules, by option name): not an
 * object; an option the door does not know (with the known one it most likely stands for); a
 * required option left out; a value its rule refuses. `undefined` when there is none.
 *
 * @since 0.3.0
 * @category checking
 */
export const check = (
  options: unknown,
  known: Readonly<Record<string, Rule>>,
  requiredNames: ReadonlySet<string> = required
): Problem | undefined => {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    return { path: "options", rule: `must be an object of options ({ contextWindow, … }) ${got(options)}` }
  }
  const values: Readonly<Record<string, unknown>> = { ...options }
  for (const name of Object.keys(values)) {
    if (Object.hasOwn(known, name)) continue
    const suggestion = suggest(name, Object.keys(known))
    return {
      path: name,
      rule: suggestion === undefined ? "is not an option" : `is not an option; did you mean ${suggestion}?`
    }
  }
  return checkValues(values, known, requiredNames)
}

/**
 * The first problem of the values of `options` under `rules` (other options are not looked
 * at): a required option left out, or a value its rule refuses.
 *
 * @since 0.3.0
 * @category checking
 */
export const checkValues = (
  values: Readonly<Record<string, unknown>>,
  rules: Readonly<Record<string, Rule>>,
  requiredNames: ReadonlySet<string> = required
): Problem | undefined => {
  for (const [name, rule] of Object.entries(rules)) {
    const value = values[name]
    if (value === undefined) {
      if (requiredNames.has(name)) return { path: name, rule: `is required ${got(value)}` }
      continue
    }
    const problem = rule(value, values)
    if (problem !== undefined) return { path: name, rule: problem }
  }
  return undefined
}
