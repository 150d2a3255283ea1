/**
 * LangChainCacheMarks: a cache plan's Anthropic marks on the LangChain messages `ChatAnthropic`
 * (`@langchain/anthropic`) sends — `cache_control` on the block that ends each marked message
 * *on the wire*, where the planner (`CachePlan`, `PromptCacheMarks`) counted its boundary
 * (docs/design.md items 97 and 100, docs/langchain.md).
 *
 * `ChatAnthropic` sends a message's content blocks in order, an `AIMessage`'s `tool_calls` as
 * `tool_use` blocks after them (those its content does not already hold), and a `ToolMessage`
 * as a `tool_result` block of a user message whose own `content` nests the message's content —
 * where a mark does not end the block (Anthropic reads a breakpoint from the top-level block).
 * So a marked message is a copy whose last block *on the wire* carries the mark:
 *
 * - a system or human message: its last text, image or file block (a text content becomes one
 *   text block: Anthropic reads `"x"` and `[{ type: "text", text: "x" }]` alike);
 * - an `AIMessage`: its content blocks, then a `tool_use` block for each tool call its content
 *   does not hold — the wire's blocks, written out — the last of them that can carry a mark
 *   (text, tool use, image; not a thinking block) marked. An `AIMessage` of tool calls only
 *   is marked on its last `tool_use` block;
 * - a `ToolMessage` of text: a `HumanMessage` holding the `tool_result` block `ChatAnthropic`
 *   would have sent (`tool_use_id`, the text), `cache_control` on it — the one form of
 *   LangChain's messages `ChatAnthropic` sends a marked `tool_result` from. A `ToolMessage`
 *   whose content is not all text keeps no mark (its blocks are reformatted by the client).
 *
 * A message with no such block is sent unmarked. The agent's own message objects are never
 * changed: the marked ones are copies, made with the caller's message classes.
 *
 * @since 0.3.0
 */
import type { BaseMessage } from "@langchain/core/messages"
import type { Prompt } from "effect/ai"
import type * as LangChainPrompt from "./LangChainPrompt.ts"

type Block = { readonly type: string; readonly [key: string]: unknown }

const isBlock = (value: unknown): value is Block =>
  typeof value === "object" && value !== null && "type" in value && typeof value.type === "string"

const isRecord = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The blocks Anthropic reads a `cache_control` from (a thinking block cannot carry one). */
const markable = new Set(["text", "image", "image_url", "file", "document", "tool_use", "tool_result"])

/** A mark's lifetime. */
type Ttl = "5m" | "1h"

const controlOf = (ttl: Ttl) => (ttl === "1h" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" })

/** The blocks of a content: a text is one text block (none when empty). */
const blocksOf = (content: unknown): Array<Block> =>
  typeof content === "string"
    ? content === "" ? [] : [{ type: "text", text: content }]
    : Array.isArray(content)
    ? content.filter(isBlock).map((block) => ({ ...block }))
    : []

/** The blocks with the last markable one marked; `undefined` when none can carry a mark. */
const markLast = (blocks: Array<Block>, ttl: Ttl): Array<Block> | undefined => {
  const last = blocks.findLastIndex((block) => markable.has(block.type))
  const block = blocks[last]
  if (block === undefined) return undefined
  const out = [...blocks]
  out[last] = { ...block, cache_control: controlOf(ttl) }
  return out
}

/** An `AIMessage`'s tool calls with their ids, as LangChain's `tool_calls`. */
const toolCallsOf = (message: BaseMessage) => {
  const calls: ReadonlyArray<unknown> = "tool_calls" in message && Array.isArray(message.tool_calls) ? message.tool_calls : []
  return calls.flatMap((call) =>
    isRecord(call) && typeof call["name"] === "string" && typeof call["id"] === "string"
      ? [{
        id: call["id"],
        name: call["name"],
        args: isRecord(call["args"]) ? { ...call["args"] } : {},
        type: "tool_call" as const
      }]
      : []
  )
}

/** A `ToolMessage`'s text as `ChatAnthropic` nests it in its `tool_result` (a string, or text blocks). */
const toolResultContent = (content: unknown): string | Array<Block> | undefined => {
  if (typeof content === "string") return content
  const blocks = blocksOf(content)
  if (!blocks.every((block) => block.type === "text" && typeof block["text"] === "string")) return undefined
  return blocks.map((block) => ({ type: "text", text: block["text"] }))
}

/**
 * A copy of a LangChain message whose last block on `ChatAnthropic`'s wire carries Anthropic's
 * `cache_control` (see the module's header); `undefined` when the message has no block that can
 * carry one.
 *
 * @since 0.3.0
 * @category constructors
 */
export const markedCopy = (message: BaseMessage, ttl: Ttl, classes: LangChainPrompt.Classes): BaseMessage | undefined => {
  const named = {
    ...(message.id === undefined ? {} : { id: message.id }),
    ...(message.name === undefined ? {} : { name: message.name })
  }
  switch (message.type) {
    case "system": {
      const content = markLast(blocksOf(message.content), ttl)
      return content === undefined ? undefined : new classes.SystemMessage({ content, ...named })
    }
    case "human": {
      const content = markLast(blocksOf(message.content), ttl)
      return content === undefined ? undefined : new classes.HumanMessage({ content, ...named })
    }
    case "ai": {
      const toolCalls = toolCallsOf(message)
      const blocks = blocksOf(message.content)
      // The `tool_use` blocks ChatAnthropic adds after the content, written out so that the
      // last of them can carry the mark.
      const held = new Set(blocks.flatMap((block) => (block.type === "tool_use" && typeof block["id"] === "string" ? [block["id"]] : [])))
      for (const call of toolCalls) {
        if (!held.has(call.id)) blocks.push({ type: "tool_use", id: call.id, name: call.name, input: call.args })
      }
      const content = markLast(blocks, ttl)
      if (content === undefined) return undefined
      return new classes.AIMessage(toolCalls.length === 0 ? { content, ...named } : { content, ...named, tool_calls: toolCalls })
    }
    case "tool": {
      const id = "tool_call_id" in message && typeof message.tool_call_id === "string" ? message.tool_call_id : undefined
      const content = toolResultContent(message.content)
      if (id === undefined || content === undefined) return undefined
      // The user message of one tool_result block that ChatAnthropic would have made of it,
      // marked on the block itself.
      return new classes.HumanMessage({
        content: [{ type: "tool_result", tool_use_id: id, content, cache_control: controlOf(ttl) }],
        ...(message.id === undefined ? {} : { id: message.id })
      })
    }
    default:
      return undefined
  }
}

/**
 * A plan's marks applied to the LangChain messages sent: message `i` of `sent` stands for
 * message `i` of `fitted`; where `marked` (the fitted prompt with the planner's marks) differs
 * from `fitted`, the message sent is its {@link markedCopy}, with the mark's lifetime.
 *
 * @since 0.3.0
 * @category constructors
 */
export const apply = (
  sent: ReadonlyArray<BaseMessage>,
  fitted: Prompt.Prompt,
  marked: Prompt.Prompt,
  classes: LangChainPrompt.Classes
): Array<BaseMessage> =>
  sent.map((message, i) => {
    const mine = marked.content[i]
    if (mine === undefined || mine === fitted.content[i]) return message
    return markedCopy(message, ttlOf(mine), classes) ?? message
  })

/** The lifetime of the mark a planned message carries (its own options or its last part's). */
const ttlOf = (message: Prompt.Message): Ttl => {
  const parts: ReadonlyArray<{ readonly options: Prompt.ProviderOptions }> = typeof message.content === "string" ? [] : message.content
  const options = [message.options, ...parts.map((part) => part.options)]
  for (const option of options.reverse()) {
    const anthropic = option["anthropic"]
    const control = isRecord(anthropic) ? anthropic["cacheControl"] : undefined
    if (isRecord(control)) return control["ttl"] === "1h" ? "1h" : "5m"
  }
  return "5m"
}
