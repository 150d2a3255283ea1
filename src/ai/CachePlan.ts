/**
 * CachePlan: what a fitted call tells its door about the provider's prompt cache — the stable
 * boundaries of the call's prompt, provider-neutral, computed once by the session core
 * (`Session.fit`) from what a stable window knows (docs/ai.md, "What is sent to each
 * provider"; docs/design.md item 82).
 *
 * - `systemEnd` — the leading system messages (the system prompts and documents): with the
 *   tool definitions before them, the prefix every call of the conversation shares;
 * - `compacted` — the messages up to the end of the frozen summary of the last compaction,
 *   read again until the next compaction;
 * - `previousEnd` — the messages of the previous request this prompt still starts with, when
 *   the call appended to it (the read anchor);
 * - the tail — the last message — is always a boundary (the write).
 *
 * Each is a number of messages of the prompt the door sends (`Fitting.prompt`); the tokens of
 * each message (`messageTokens`) and of the tool definitions (`toolTokens`) go with them, so
 * that a planner keeps marks off prefixes below the model's minimum. The doors only apply the
 * plan: `AiSdkCacheMarks.markCall` (AI SDK, `providerOptions`), `AiSdkCacheMarks.markModelMessages`
 * (`prepareStep`), `PromptCacheMarks.mark` (`effect/ai`, part and message `options`). The
 * planner is chosen by {@link plannerFor}: Anthropic marks for an `anthropic.*` provider, an
 * OpenAI `prompt_cache_key` for `openai.*`, nothing otherwise; {@link Options} turns it off or
 * forces a provider.
 *
 * @since 0.3.0
 */
import type { Prompt } from "effect/ai"
import * as CacheBreakpoints from "./CacheBreakpoints.ts"
import type { PipelineResult } from "../PipelineResult.ts"
import type * as WindowChange from "./WindowChange.ts"
import * as WindowSummary from "./WindowSummary.ts"

/**
 * The `promptCache` option of a stable session (default `{}`: on, the provider from the model):
 *
 * - `false` — no mark, no `prompt_cache_key`, the tool definitions sent as the client makes them;
 * - `provider` — `"auto"` (default: from the model's provider id — `anthropic.*` → Anthropic's
 *   marks, `openai.*` → OpenAI's key, any other → nothing), or `"anthropic"`, `"openai"`,
 *   `"none"` to force one;
 * - `ttl` — the lifetime of the tools + system and compacted marks (Anthropic: `"5m"`, the
 *   default, or `"1h"`, written at 2× instead of 1.25×);
 * - `retention` — OpenAI's `prompt_cache_retention` (`"in_memory"` or `"24h"`; not sent by
 *   default);
 * - `minimumPrefix` — tokens, instead of the model's minimum cacheable prefix.
 *
 * @since 0.3.0
 * @category models
 */
export type Options = false | {
  readonly provider?: "auto" | "anthropic" | "openai" | "none" | undefined
  readonly ttl?: CacheBreakpoints.Ttl | undefined
  readonly retention?: "in_memory" | "24h" | undefined
  readonly minimumPrefix?: number | undefined
}

/**
 * A fitted call's cache plan (see the module's header). `options` are the session's
 * `promptCache` options (never `false`: a call without a plan has none).
 *
 * @since 0.3.0
 * @category models
 */
export interface CachePlan {
  readonly conversationKey: string
  readonly systemEnd: number
  readonly compacted: number | undefined
  readonly previousEnd: number | undefined
  readonly messageTokens: ReadonlyArray<number>
  readonly toolTokens: number
  readonly options: Exclude<Options, false>
}

/**
 * The leading system messages of a prompt.
 *
 * @since 0.3.0
 * @category planning
 */
export const systemEndOf = (prompt: Prompt.Prompt): number => {
  const content = prompt.content
  let n = 0
  while (n < content.length && content[n]!.role === "system") n++
  return n
}

/**
 * The cache plan of a stable window's call (its `StableWindow.Plan`): the previous request's end when it appended (its
 * window starts with the previous one's entries, in order: rule S3), the end of the frozen
 * summary when the window holds one.
 *
 * @since 0.3.0
 * @category constructors
 */
export const ofStable = (
  plan: {
    readonly key: string
    readonly fitted: { readonly prompt: Prompt.Prompt; readonly result: PipelineResult }
    readonly change: Pick<WindowChange.Change, "action" | "kept">
  },
  toolTokens: number,
  options: Exclude<Options, false>
): CachePlan => {
  const window = plan.fitted.result.window
  const summaryAt = window.findIndex((item) => item.metadata[WindowSummary.summaryIdKey] !== undefined)
  return {
    conversationKey: plan.key,
    systemEnd: systemEndOf(plan.fitted.prompt),
    compacted: summaryAt < 0 ? undefined : summaryAt + 1,
    previousEnd: plan.change.action === "append" && plan.change.kept > 0 ? plan.change.kept : undefined,
    messageTokens: window.map((item) => item.tokens),
    toolTokens,
    options
  }
}

/**
 * The planner of a call: the one `options.provider` forces, else the one of the model's
 * provider id (`anthropic.messages` → Anthropic, `openai.chat` / `openai.responses` → OpenAI;
 * a gateway id such as `anthropic/claude-sonnet-4-5` is read the same way); none otherwise.
 *
 * @since 0.3.0
 * @category planning
 */
export const plannerFor = (provider: string | undefined, options: Exclude<Options, false>): CacheBreakpoints.Planner => {
  const forced = options.provider ?? "auto"
  const name = forced !== "auto"
    ? forced
    : provider === undefined
    ? "none"
    : /^anthropic([./:]|$)/.test(provider)
    ? "anthropic"
    : /^openai([./:]|$)/.test(provider)
    ? "openai"
    : "none"
  switch (name) {
    case "anthropic":
      return CacheBreakpoints.anthropic({ ttl: options.ttl, minimumPrefix: options.minimumPrefix })
    case "openai":
      return CacheBreakpoints.openai({ retention: options.retention })
    case "none":
      return CacheBreakpoints.none
  }
}

/**
 * The provider of a model id, when the id says it (`claude-…` → `anthropic.messages`; `gpt-…`,
 * `o1…`, `o3…`, `o4…`, `chatgpt-…` → `openai`): for a door that sees the model that answered
 * but not its provider (`effect/ai`'s `LanguageModel`).
 *
 * @since 0.3.0
 * @category planning
 */
export const providerOfModel = (model: string | undefined): string | undefined =>
  model === undefined
    ? undefined
    : /^claude-/.test(model)
    ? "anthropic.messages"
    : /^(gpt-|chatgpt-|o[1-9])/.test(model)
    ? "openai"
    : undefined

