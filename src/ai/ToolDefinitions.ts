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
 * @since 0.2.0
 */
import { Predicate } from "effect"
import { Prompt, Tool } from "effect/ai"

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
export const text = (tool: Tool.Any | Tool.AnyDynamic | Tool.AnyProviderDefined): string => {
  if (Tool.isProviderDefined(tool)) return JSON.stringify({ name: tool.name })
  const description = Tool.getDescription(tool)
  let parameters: unknown
  try {
    parameters = Tool.getJsonSchema(tool)
  } catch {
    parameters = undefined
  }
  return JSON.stringify({ name: tool.name, ...(description === undefined ? {} : { description }), parameters })
}

/**
 * The message a tool's definition is counted as: a system message of its {@link text}.
 *
 * @since 0.2.0
 * @category reading
 */
export const message = (tool: Tool.Any | Tool.AnyDynamic | Tool.AnyProviderDefined): Prompt.SystemMessage =>
  Prompt.systemMessage({ content: text(tool) })
