/**
 * CacheModel: what a provider's prompt cache does with a request, as data, and what the request
 * then costs.
 *
 * Providers bill a prompt prefix they have seen recently at a fraction of the input price. Each
 * does it by its own rule — how long the prefix must be, in what steps it is matched, how long
 * it lives, what reading and writing it cost, where the cached prefix may end — and a
 * {@link CacheRule} holds one such rule as plain data (a Schema class: it decodes from and
 * encodes to JSON, with a readable message for each broken field). Four are built in, with the
 * providers' documented figures: {@link OpenAI}, {@link Anthropic5m}, {@link Anthropic1h} and
 * {@link GeminiImplicit}.
 *
 * - {@link predict} applies a rule to one request given the one before it: how many tokens are
 *   read from the cache, written to it and billed in full, and the input cost in base-price
 *   tokens beside the cost without any cache.
 * - {@link lowWatermark} chooses how deep a window that has reached its target should be cut
 *   (as a fraction of the target) so that the cache writes that each cut causes stay a small
 *   share of the session's input cost.
 *
 * Prices are multiples of the model's base input price, so one rule serves every model of a
 * provider that shares its discounts; build a rule of your own (`new CacheRule({ ... })`, or
 * {@link make} for values you do not control) where a model differs.
 *
 * @since 0.3.0
 */
import { Effect, Schema } from "effect"

const field = (name: string, rule: string, ok: (n: number) => boolean) =>
  Schema.Number.check(Schema.makeFilter((n) => ok(n) || `${name} must be ${rule}, got ${n}`))

const tokensField = (name: string, rule: string, least: number) =>
  field(name, rule, (n) => Number.isSafeInteger(n) && n >= least)

const priceField = (name: string) =>
  field(name, "a finite number >= 0 (a multiple of the base input price)", (n) => Number.isFinite(n) && n >= 0)

/**
 * One provider's prompt-caching rule.
 *
 * | field | meaning |
 * |---|---|
 * | `name` | a label (`"openai"`, `"anthropic-5m"`…) |
 * | `minimumPrefix` | tokens; a shorter prefix is never cached (whole number >= 0) |
 * | `granularity` | tokens; a cached prefix is a multiple of it (whole number >= 1) |
 * | `readPrice` | what a token read from the cache costs, × the base input price |
 * | `writePrice` | what a token written to the cache costs, × the base input price; tokens neither read nor written cost 1 |
 * | `ttlSeconds` | how long a cached prefix lives after its last use (> 0) |
 * | `breakpoints` | `"any"`: the cache matches the longest common prefix wherever it ends (OpenAI, Gemini); `"request-end"`: a prefix is cached only where a request ended (Anthropic with a breakpoint on the last block of every request) |
 *
 * @example
 * ```ts
 * import * as CacheModel from "effect-cupel/ai/CacheModel"
 *
 * // OpenAI's GPT-4.1 models read cached input at a quarter of the price.
 * const gpt41 = new CacheModel.CacheRule({ ...CacheModel.OpenAI, name: "openai-gpt-4.1", readPrice: 0.25 })
 * ```
 *
 * @since 0.3.0
 * @category models
 */
export class CacheRule extends Schema.Class<CacheRule>("effect-cupel/ai/CacheRule")(
  Schema.Struct({
    name: Schema.String.check(Schema.makeFilter((s) => s.length > 0 || "name must not be empty")),
    minimumPrefix: tokensField("minimumPrefix", "a whole number of tokens >= 0", 0),
    granularity: tokensField("granularity", "a whole number of tokens >= 1", 1),
    readPrice: priceField("readPrice"),
    writePrice: priceField("writePrice"),
    ttlSeconds: field("ttlSeconds", "a finite number of seconds > 0", (n) => Number.isFinite(n) && n > 0),
    breakpoints: Schema.Literals(["request-end", "any"]).annotate({
      message: `breakpoints must be "request-end" or "any"`
    })
  }).annotate({
    messageUnexpectedKey:
      "is not a field of a cache rule (name, minimumPrefix, granularity, readPrice, writePrice, ttlSeconds, breakpoints)"
  })
) {}

/**
 * The JSON form of a {@link CacheRule}: the same fields, as plain values.
 *
 * @since 0.3.0
 * @category models
 */
export type CacheRuleJson = typeof CacheRule.Encoded

/**
 * OpenAI's automatic prompt caching (Chat Completions and Responses, gpt-4o and later).
 *
 * From OpenAI's prompt caching guide: caching applies to prompts of 1,024 tokens or more, and
 * cache hits occur in increments of 128 tokens, on the longest previously computed prefix
 * (`any`); writing costs nothing extra (`writePrice` 1); in-memory caches are typically cleared
 * after 5 to 10 minutes of inactivity and always within an hour — 300 s is the conservative end
 * (the extended `24h` retention, where offered, is a rule of its own). The read discount
 * depends on the model: 50% for gpt-4o and the o1/o3 models, 75% for the GPT-4.1 family, 90% for
 * the GPT-5 family. `readPrice` here is 0.5, the smallest documented discount: build a rule
 * with your model's (see {@link CacheRule}'s example).
 *
 * @see https://platform.openai.com/docs/guides/prompt-caching
 * @since 0.3.0
 * @category constants
 */
export const OpenAI: CacheRule = new CacheRule({
  name: "openai",
  minimumPrefix: 1024,
  granularity: 128,
  readPrice: 0.5,
  writePrice: 1,
  ttlSeconds: 300,
  breakpoints: "any"
})

/**
 * Anthropic's prompt caching with the default 5-minute lifetime, a `cache_control` breakpoint
 * at the end of every request (`request-end`: as automatic caching does, a prefix is cached
 * where a request ended, and read back when a later request starts with all of it).
 *
 * From Anthropic's prompt caching documentation: cache writes cost 1.25× the base input price
 * for the 5-minute lifetime, cache reads 0.1×; the lifetime is refreshed each time the cached
 * content is used; prefixes match to the token (`granularity` 1). The minimum cacheable prompt
 * depends on the model — 1,024 tokens for Claude Sonnet 4.5, Opus 4.1, Opus 4, Sonnet 4 and
 * Sonnet 3.7; 2,048 for Sonnet 4.6 and the Haiku 3.x models; 4,096 for Opus 4.5/4.6 and Haiku
 * 4.5. `minimumPrefix` here is 1,024; a shorter prompt is processed without caching.
 *
 * @see https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching
 * @since 0.3.0
 * @category constants
 */
export const Anthropic5m: CacheRule = new CacheRule({
  name: "anthropic-5m",
  minimumPrefix: 1024,
  granularity: 1,
  readPrice: 0.1,
  writePrice: 1.25,
  ttlSeconds: 300,
  breakpoints: "request-end"
})

/**
 * Anthropic's prompt caching with the 1-hour lifetime (`cache_control: { type: "ephemeral",
 * ttl: "1h" }`): as {@link Anthropic5m}, but writes cost 2× the base input price and a prefix
 * lives 3,600 s.
 *
 * @see https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching
 * @since 0.3.0
 * @category constants
 */
export const Anthropic1h: CacheRule = new CacheRule({
  name: "anthropic-1h",
  minimumPrefix: 1024,
  granularity: 1,
  readPrice: 0.1,
  writePrice: 2,
  ttlSeconds: 3600,
  breakpoints: "request-end"
})

/**
 * Gemini's implicit caching (Gemini 2.5 and later; on by default, no cache object to create).
 *
 * From Google's context caching documentation: a request that shares a prefix with an earlier
 * one can hit the cache (`any`); cached tokens are billed at a 90% discount (`readPrice` 0.1;
 * Google announced 75% when implicit caching launched in May 2025, the current Gemini API and
 * Vertex AI pages say 90%); input is billed at the standard price and implicit caches have no
 * storage cost (`writePrice` 1). The minimum request depends on the model and the page's
 * revision — 1,024 tokens for Gemini 2.5 Flash, 2,048 or 4,096 for 2.5 Pro, 4,096 for the 3.x
 * Pro and later Flash models; `minimumPrefix` here is 1,024. Google documents no lifetime for
 * implicit caches (only "send requests with a similar prefix in a short amount of time");
 * `ttlSeconds` 300 is an assumption, as for OpenAI. Hits are not guaranteed.
 *
 * @see https://ai.google.dev/gemini-api/docs/caching
 * @since 0.3.0
 * @category constants
 */
export const GeminiImplicit: CacheRule = new CacheRule({
  name: "gemini-implicit",
  minimumPrefix: 1024,
  granularity: 1,
  readPrice: 0.1,
  writePrice: 1,
  ttlSeconds: 300,
  breakpoints: "any"
})

const parseOptions = { errors: "all", onExcessProperty: "error" } as const

/**
 * Decodes a rule from a parsed JSON value, listing every broken field
 * (`minimumPrefix must be a whole number of tokens >= 0, got -1`); unknown keys are errors too.
 *
 * @since 0.3.0
 * @category decoding
 */
export const decode: (input: unknown) => Effect.Effect<CacheRule, Schema.SchemaError> = Schema.decodeUnknownEffect(
  CacheRule,
  parseOptions
)

/**
 * Decodes a rule from JSON text; malformed JSON is a `SchemaError` too.
 *
 * @since 0.3.0
 * @category decoding
 */
export const decodeJson: (text: string) => Effect.Effect<CacheRule, Schema.SchemaError> = Schema
  .decodeUnknownEffect(Schema.fromJsonString(CacheRule), parseOptions)

/**
 * Encodes a rule to its JSON form; `decode(encode(rule))` is the rule.
 *
 * @since 0.3.0
 * @category encoding
 */
export const encode: (rule: CacheRule) => Effect.Effect<CacheRuleJson, Schema.SchemaError> = Schema.encodeEffect(
  CacheRule
)

/**
 * Encodes a rule as JSON text.
 *
 * @since 0.3.0
 * @category encoding
 */
export const encodeJson = (rule: CacheRule): Effect.Effect<string, Schema.SchemaError> =>
  Effect.map(encode(rule), (json) => JSON.stringify(json))

/**
 * Builds a rule from values you do not control, failing with a `SchemaError` that names each
 * broken field (`new CacheRule(...)` throws instead).
 *
 * @since 0.3.0
 * @category constructors
 */
export const make = (fields: ConstructorParameters<typeof CacheRule>[0]): Effect.Effect<CacheRule, Schema.SchemaError> =>
  decode(fields)

/**
 * A request as the cache sees it, beside the request before it.
 *
 * - `totalTokens` — the request's input tokens.
 * - `previousTokens` — the previous request's input tokens; 0 when there was none.
 * - `commonPrefixTokens` — the tokens at the start of this request that are identical to the
 *   start of the previous one (at most the smaller of the two; larger values are read as that).
 * - `secondsSincePrevious` — the time since the previous request (`Infinity` when there was
 *   none).
 *
 * Token figures are whole numbers; negative or non-finite ones are read as 0.
 *
 * @since 0.3.0
 * @category models
 */
export interface Request {
  readonly totalTokens: number
  readonly previousTokens: number
  readonly commonPrefixTokens: number
  readonly secondsSincePrevious: number
}

/**
 * What the cache does with a request, and what its input costs.
 *
 * `cachedTokens + uncachedTokens = totalTokens`; `writtenTokens <= uncachedTokens`. `cost` and
 * `costWithoutCache` are in base-price tokens: `cost = cachedTokens × readPrice + writtenTokens ×
 * writePrice + (uncachedTokens − writtenTokens)`, `costWithoutCache = totalTokens`.
 *
 * @since 0.3.0
 * @category models
 */
export class Prediction extends Schema.Class<Prediction>("effect-cupel/ai/CacheModel/Prediction")({
  totalTokens: Schema.Number,
  cachedTokens: Schema.Number,
  writtenTokens: Schema.Number,
  uncachedTokens: Schema.Number,
  cost: Schema.Number,
  costWithoutCache: Schema.Number
}) {}

const tokens = (n: number): number => (Number.isFinite(n) && n > 0 ? Math.floor(n) : 0)

/**
 * Applies a rule to a request.
 *
 * - Nothing is read from the cache when there was no previous request (`previousTokens` 0) or
 *   it is older than the rule's lifetime (`secondsSincePrevious > ttlSeconds`).
 * - `any`: the cached prefix is the common prefix rounded down to a multiple of `granularity`,
 *   and nothing when that is below `minimumPrefix`.
 * - `request-end`: the previous request's end is the only place a prefix was cached, so the
 *   cached prefix is the whole previous request (rounded down to `granularity`) when this
 *   request starts with all of it (`commonPrefixTokens >= previousTokens`) and it is at least
 *   `minimumPrefix`; otherwise nothing.
 * - The provider writes what it did not read when the request is at least `minimumPrefix`
 *   long: `writtenTokens = totalTokens − cachedTokens`, billed at `writePrice`; a shorter
 *   request writes nothing and is billed at the base price.
 *
 * @example
 * ```ts
 * import * as CacheModel from "effect-cupel/ai/CacheModel"
 *
 * // The previous request (10,000 tokens) plus 500 new ones, a minute later.
 * const p = CacheModel.predict(CacheModel.Anthropic5m, {
 *   totalTokens: 10_500, previousTokens: 10_000, commonPrefixTokens: 10_000, secondsSincePrevious: 60
 * })
 * // p.cachedTokens 10,000, p.writtenTokens 500, p.cost 1,625 (10,000 × 0.1 + 500 × 1.25), p.costWithoutCache 10,500
 * ```
 *
 * @since 0.3.0
 * @category predicting
 */
export const predict = (rule: CacheRule, request: Request): Prediction => {
  const total = tokens(request.totalTokens)
  const previous = tokens(request.previousTokens)
  const common = Math.min(tokens(request.commonPrefixTokens), previous, total)
  const live = previous > 0 && request.secondsSincePrevious <= rule.ttlSeconds
  const roundDown = (n: number) => n - (n % rule.granularity)
  let cached = 0
  if (live) {
    const candidate = rule.breakpoints === "any" ? roundDown(common) : common >= previous ? roundDown(previous) : 0
    cached = candidate >= rule.minimumPrefix ? candidate : 0
  }
  const uncached = total - cached
  const written = total >= rule.minimumPrefix ? uncached : 0
  return new Prediction({
    totalTokens: total,
    cachedTokens: cached,
    writtenTokens: written,
    uncachedTokens: uncached,
    cost: cached * rule.readPrice + written * rule.writePrice + (uncached - written),
    costWithoutCache: total
  })
}

/**
 * What the low watermark is chosen from.
 *
 * - `growthPerCall` — tokens the window grows by per call (the new messages), on average.
 * - `targetTokens` — the window's target.
 * - `writeOverhead` — the share of the no-cache cost that cache writes may add on average
 *   (default 0.1).
 *
 * @since 0.3.0
 * @category models
 */
export interface WatermarkInput {
  readonly growthPerCall: number
  readonly targetTokens: number
  readonly writeOverhead?: number | undefined
}

/**
 * The lowest and highest watermarks {@link lowWatermark} returns.
 *
 * @since 0.3.0
 * @category constants
 */
export const watermarkBounds = { lowest: 0.25, highest: 0.9 } as const

/**
 * The steady-state input cost, relative to no caching, of a window that grows from `λ·T` to
 * the target `T` by `g` tokens a call and is then cut back to `λ·T` in one step (ε = g / T):
 *
 * f(λ) = r + 2·(w − r)·ε / (1 − λ²)
 *
 * with `r` the rule's read price and `w` its write price. Over one cycle of n = (1 − λ)/ε calls
 * the requests add up to n·(λ + 1)·T/2 = T·(1 − λ²)/(2ε) tokens; every call reads the request
 * before it from the cache, except the cut's, which writes all λ·T tokens it keeps; all other
 * calls write their g new tokens; so T tokens are written per cycle and the rest read:
 * cost = r·(sum − T) + w·T, and f = cost / sum. The prefix minimum and granularity are left out
 * (they matter only for windows near `minimumPrefix`). `λ` is taken as given; ε ≥ 0.
 *
 * @since 0.3.0
 * @category predicting
 */
export const cycleCost = (rule: CacheRule, lambda: number, epsilon: number): number =>
  rule.readPrice + (2 * (rule.writePrice - rule.readPrice) * epsilon) / (1 - lambda * lambda)

/**
 * The default low watermark: the fraction of the target a window is cut down to when the
 * previous window plus the new messages no longer fit.
 *
 * A deep cut costs one cache write of what it keeps and then leaves room for many calls that
 * only append; a shallow cut keeps more context but recurs sooner. With {@link cycleCost}'s
 * f(λ) = r + 2·(w − r)·ε / (1 − λ²), the write overhead f − r falls as λ falls; the default is
 * the highest λ (the most context kept) whose overhead is `writeOverhead`:
 *
 * λ = √(1 − 2·(w − r)·ε / writeOverhead), clamped to [0.25, 0.9]
 *
 * and 0.25 when the root is not real (growth so fast that no cut keeps the overhead that low),
 * or when an input is out of its domain (`targetTokens <= 0`, `growthPerCall < 0`,
 * `writeOverhead <= 0`, a non-finite value). A rule whose writes cost no more than its reads
 * has no write overhead: 0.9.
 *
 * @example
 * ```ts
 * import * as CacheModel from "effect-cupel/ai/CacheModel"
 *
 * // A 100,000-token target growing by 1,000 tokens a call, under Anthropic's 5-minute rule:
 * // ε = 0.01, λ = √(1 − 2 · 1.15 · 0.01 / 0.1) = √0.77 ≈ 0.877.
 * const lambda = CacheModel.lowWatermark(CacheModel.Anthropic5m, { growthPerCall: 1_000, targetTokens: 100_000 })
 * ```
 *
 * @since 0.3.0
 * @category predicting
 */
export const lowWatermark = (rule: CacheRule, input: WatermarkInput): number => {
  const overhead = input.writeOverhead ?? 0.1
  const { growthPerCall, targetTokens } = input
  const valid = Number.isFinite(growthPerCall) && growthPerCall >= 0 && Number.isFinite(targetTokens) &&
    targetTokens > 0 && Number.isFinite(overhead) && overhead > 0
  if (!valid) return watermarkBounds.lowest
  const premium = rule.writePrice - rule.readPrice
  if (premium <= 0) return watermarkBounds.highest
  const epsilon = growthPerCall / targetTokens
  const square = 1 - (2 * premium * epsilon) / overhead
  if (!(square >= 0)) return watermarkBounds.lowest
  return Math.min(watermarkBounds.highest, Math.max(watermarkBounds.lowest, Math.sqrt(square)))
}
