/**
 * ToolDefinitions: what a request's tools cost in the context window.
 *
 * A model call that offers tools sends each tool's name, description and parameter schema with
 * the prompt, and they take room in the same context window: a toolkit of a dozen tools with
 * rich schemas can take thousands of tokens. `WindowedLanguageModel` counts them and takes
 * them off the prompt's budget.
 *
 * Providers write tool definitions each in their own format, none of which a tokenizer sees;
 * this module counts each as the JSON a provider receives in most APIs, `{ name, description,
 * parameters }` with the parameters' JSON Schema, in one system message. That is an estimate,
 * as close as the counter is to the provider's tokenizer; keep some `outputReserve` for the
 * difference.
 *
 * Every front door counts tools by this one rule (docs/design.md, "One session core"): a
 * definition is its {@link Definition} — name, description, JSON-schema parameters — and its
 * {@link textOf}; each distinct text is counted once per session ({@link makeCounts}, a bounded
 * memo); a count must be a safe integer of at least 0, and the counts must add up to one; a
 * call whose definitions break that, whose counter function throws on one, or that take more
 * than the room the window leaves for the prompt, fails with {@link ToolDefinitionsError}.
 *
 * @since 0.2.0
 */
import { Effect, Predicate, Schema } from "effect"
import { type AiError, Prompt, Tool } from "effect/ai"
import { isSafeTotal } from "../internal/tokens.ts"
import { thrownBy, type TokenCounter } from "./TokenCounter.ts"

/**
 * A tool of any kind a toolkit holds: user-defined, dynamic or provider-defined.
 *
 * @since 0.3.0
 * @category models
 */
export type AnyTool = Tool.Any | Tool.AnyDynamic | Tool.AnyProviderDefined

/**
 * The tools of a request's `toolkit` option: a `Toolkit`, or the toolkit with handlers that
 * `yield* MyToolkit` gives. Any other value (no toolkit, or a toolkit still to be made by an
 * Effect) has no tools this module can read: the result is empty.
 *
 * @since 0.2.0
 * @category reading
 */
export const toolsOf = (toolkit: unknown): ReadonlyArray<Tool.Any | Tool.AnyDynamic | Tool.AnyProviderDefined> => {
  if (!Predicate.hasProperty(toolkit, "tools") || !Predicate.isObject(toolkit.tools)) return []
  const tools: Array<Tool.Any | Tool.AnyDynamic | Tool.AnyProviderDefined> = []
  for (const tool of Object.values(toolkit.tools)) {
    if (Tool.isUserDefined(tool) || Tool.isDynamic(tool) || Tool.isProviderDefined(tool)) tools.push(tool)
  }
  return tools
}

/**
 * The text counted for a tool: `{ name, description, parameters }` as JSON, the parameters as
 * JSON Schema. A provider-defined tool (a provider's own, such as web search) is defined by the
 * provider and sends only its name. A parameter schema with no JSON Schema form is left out
 * (the model call itself will say why).
 *
 * @since 0.2.0
 * @category reading
 */
export const text = (tool: Tool.Any | Tool.AnyDynamic | Tool.AnyProviderDefined): string => textOf(definitionOf(tool))

/**
 * A tool's definition as a request sends it, whatever the API it came from: its name, its
 * description and its parameters' JSON Schema (a provider-defined tool: its name only).
 *
 * @since 0.3.0
 * @category models
 */
export interface Definition {
  readonly name: string
  readonly description?: string | undefined
  readonly parameters?: unknown
}

/**
 * The {@link Definition} of an `effect/ai` tool. A parameter schema with no JSON Schema form is
 * left out (the model call itself will say why).
 *
 * @since 0.3.0
 * @category reading
 */
export const definitionOf = (tool: Tool.Any | Tool.AnyDynamic | Tool.AnyProviderDefined): Definition => {
  if (Tool.isProviderDefined(tool)) return { name: tool.name }
  let parameters: unknown
  try {
    parameters = Tool.getJsonSchema(tool)
  } catch {
    parameters = undefined
  }
  return { name: tool.name, description: Tool.getDescription(tool), parameters }
}

/**
 * The text counted for a definition: `{ name, description, parameters }` as JSON, without the
 * keys it does not have.
 *
 * @since 0.3.0
 * @category reading
 */
export const textOf = (definition: Definition): string =>
  JSON.stringify({
    name: definition.name,
    ...(definition.description === undefined ? {} : { description: definition.description }),
    ...(definition.parameters === undefined ? {} : { parameters: definition.parameters })
  })

/**
 * The message a tool's definition is counted as: a system message of its {@link text}.
 *
 * @since 0.2.0
 * @category reading
 */
export const message = (tool: Tool.Any | Tool.AnyDynamic | Tool.AnyProviderDefined): Prompt.SystemMessage =>
  Prompt.systemMessage({ content: text(tool) })

/**
 * A call's tool definitions cannot be counted, or leave the prompt no room:
 *
 * - `count` — the token counter gave `tokens` for the tool `tool`, which is not a safe integer
 *   of at least 0;
 * - `threw` — the counter's function (`TokenCounter.make`'s) threw on the tool `tool`: `thrown`
 *   says what (since 0.3.0; as a throw on a message is a `CandidateError` naming it);
 * - `total` — the definitions' counts add up past `Number.MAX_SAFE_INTEGER`;
 * - `room` — the definitions take `tokens`, more than the `availableTokens` the window leaves
 *   for the prompt (the context window less the output reserve and the request's overhead).
 *
 * The request's tools must change: a window cannot make them smaller.
 *
 * @since 0.3.0
 * @category errors
 */
export class ToolDefinitionsError extends Schema.TaggedError<ToolDefinitionsError>()("ToolDefinitionsError", {
  problem: Schema.Literals(["count", "threw", "total", "room"]),
  tool: Schema.optionalKey(Schema.String),
  thrown: Schema.optionalKey(Schema.String),
  tokens: Schema.optionalKey(Schema.Number),
  availableTokens: Schema.optionalKey(Schema.Number)
}) {
  override get message(): string {
    switch (this.problem) {
      case "count":
        return `the token counter gave ${this.tokens} for the tool "${this.tool}"; counts must be whole and not negative`
      case "threw":
        return `the token counter threw on the tool "${this.tool}": ${this.thrown}`
      case "total":
        return "the tool definitions' token counts add up past Number.MAX_SAFE_INTEGER"
      case "room":
        return `the tool definitions take ${this.tokens} tokens, more than the ${this.availableTokens} the window leaves for the prompt`
    }
  }
}

/**
 * The counts of tool texts a session has made: each distinct text is counted once. Bounded:
 * emptied when it holds {@link countLimit} texts, since a server whose tool descriptions change
 * per call (a date, a user's name) would otherwise grow it for ever.
 *
 * @since 0.3.0
 * @category models
 */
export interface Counts {
  readonly texts: Map<string, number>
}

/**
 * How many tool texts {@link Counts} keeps before it starts over.
 *
 * @since 0.3.0
 * @category constants
 */
export const countLimit = 1_000

/**
 * An empty {@link Counts}; one per session.
 *
 * @since 0.3.0
 * @category constructors
 */
export const makeCounts = (): Counts => ({ texts: new Map() })

/**
 * A tool to count: its name (for the error that names it) and its {@link textOf}.
 *
 * @since 0.3.0
 * @category models
 */
export interface Counted {
  readonly name: string
  readonly text: string
}

/**
 * The tokens of a call's tool definitions: each text counted as a system message of it (once
 * per text, in `counts`), each count checked, the total checked.
 *
 * @since 0.3.0
 * @category counting
 */
export const count = (
  tools: ReadonlyArray<Counted>,
  counter: TokenCounter["Service"],
  counts: Counts
): Effect.Effect<number, ToolDefinitionsError | AiError.AiError> => {
  if (tools.length === 0) return Effect.succeed(0)
  return Effect.gen(function*() {
    let total = 0
    for (const tool of tools) {
      let n = counts.texts.get(tool.text)
      if (n === undefined) {
        n = yield* Effect.mapError(counter.count(Prompt.systemMessage({ content: tool.text })), (error) => {
          const thrown = thrownBy(error)
          return thrown === undefined ? error : new ToolDefinitionsError({ problem: "threw", tool: tool.name, thrown })
        })
        if (!Number.isSafeInteger(n) || n < 0) {
          return yield* new ToolDefinitionsError({ problem: "count", tool: tool.name, tokens: n })
        }
        if (counts.texts.size >= countLimit) counts.texts.clear()
        counts.texts.set(tool.text, n)
      }
      total += n
      if (!isSafeTotal(total)) return yield* new ToolDefinitionsError({ problem: "total" })
    }
    return total
  })
}
