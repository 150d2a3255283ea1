/**
 * SentRequest: a request as the provider's prompt cache sees its prefix, in a few hashes — each
 * tool definition (a hash per field, so that a change names its field), the system prompts, each
 * message, and when it was sent. The session core (`Session`) makes one per call of a stable
 * window and keeps the conversation's previous one (in memory, by conversation), so that a
 * call's report can say what changed in the prefix: {@link toolsChange} names a tool added,
 * removed, moved or whose field changed (issue 26 item 4), and the miss-cause module reads the
 * rest (docs/ai.md, "What is sent to each provider").
 *
 * @since 0.3.0
 */
import type { Prompt } from "effect/ai"
import * as Hash from "./internal/hash.ts"
import * as MessageHash from "./internal/messageHash.ts"

/**
 * One tool definition as sent: its name and a hash of each of its fields (the description,
 * the input schema, the provider's flags such as Anthropic's `eager_input_streaming`…).
 *
 * @since 0.3.0
 * @category models
 */
export interface Tool {
  readonly name: string
  readonly fields: Readonly<Record<string, string>>
}

/**
 * A request's prefix in hashes: its tools (in order), its leading system prompts (one hash),
 * each message (in order, the system prompts included), and when it was fitted.
 *
 * @since 0.3.0
 * @category models
 */
export interface SentRequest {
  readonly tools: ReadonlyArray<Tool>
  readonly system: string
  readonly messages: ReadonlyArray<string>
  readonly atMillis: number
}

/**
 * A tool definition as a door gives it: its name and its fields' values, as sent (each hashed
 * from its JSON; a field left out or `undefined` is not sent).
 *
 * @since 0.3.0
 * @category models
 */
export interface ToolFields {
  readonly name: string
  readonly fields: Readonly<Record<string, unknown>>
}

/**
 * The hashes of a tool definition's fields.
 *
 * @since 0.3.0
 * @category constructors
 */
export const toolOf = (tool: ToolFields): Tool => {
  const fields: Record<string, string> = {}
  for (const [field, value] of Object.entries(tool.fields)) {
    if (value !== undefined) fields[field] = Hash.hashString(JSON.stringify(value) ?? "")
  }
  return { name: tool.name, fields }
}

/**
 * A message's hash (its role and rendered text), remembered per message object in `memo`: an
 * agent's prompt holds the same message objects call after call.
 *
 * @since 0.3.0
 * @category constructors
 */
export const messageHash = (message: Prompt.Message, memo: WeakMap<Prompt.Message, string>): string => {
  let h = memo.get(message)
  if (h === undefined) {
    // The hash every part of a call reads (design item 148), made once per message object.
    h = MessageHash.messageHash(message)
    memo.set(message, h)
  }
  return h
}

/**
 * An earlier request's messages beside their hashes (its {@link SentRequest}'s `messages`).
 *
 * @since 0.3.0
 * @category models
 */
export interface Previous {
  readonly content: ReadonlyArray<Prompt.Message>
  readonly messages: ReadonlyArray<string>
}

/**
 * The {@link SentRequest} of a prompt sent with `tools` at `atMillis`; `previous`, an earlier
 * request of the conversation, lends the hashes of the messages it shares by position.
 *
 * @since 0.3.0
 * @category constructors
 */
export const make = (
  prompt: Prompt.Prompt,
  tools: ReadonlyArray<Tool>,
  atMillis: number,
  memo: WeakMap<Prompt.Message, string>,
  previous?: Previous
): SentRequest => {
  // A message that is the same object at the same position as in the previous request has the
  // hash made from it then: an agent's next request is its last one and a step more, so most
  // hashes are found by a pointer comparison, not a lookup in the memo.
  const before = previous?.content ?? []
  const hashes = previous?.messages ?? []
  const messages = prompt.content.map((message, i) =>
    i < before.length && before[i] === message && i < hashes.length ? hashes[i]! : messageHash(message, memo)
  )
  let system = Hash.start
  for (let i = 0; i < prompt.content.length && prompt.content[i]!.role === "system"; i++) {
    system = Hash.chain(system, messages[i]!)
  }
  return { tools, system, messages, atMillis }
}

/**
 * How a call's tool definitions differ from the previous request's: the first tool that
 * differs, by `name`, and what differs (`field`): `"added"` (a tool the previous request did not
 * have), `"removed"` (one it had), `"order"` (the same tools, another order), or the name of
 * the field whose value changed, appeared or went (`"description"`, `"inputSchema"`,
 * `"eager_input_streaming"`…).
 *
 * @since 0.3.0
 * @category models
 */
export interface ToolsChange {
  readonly name: string
  readonly field: string
}

/**
 * The first difference between two requests' tool definitions (see {@link ToolsChange});
 * `undefined` when they are the same.
 *
 * @since 0.3.0
 * @category comparing
 */
export const toolsChange = (previous: ReadonlyArray<Tool>, current: ReadonlyArray<Tool>): ToolsChange | undefined => {
  const before = new Map(previous.map((tool) => [tool.name, tool]))
  const after = new Set(current.map((tool) => tool.name))
  for (const tool of current) if (!before.has(tool.name)) return { name: tool.name, field: "added" }
  for (const tool of previous) if (!after.has(tool.name)) return { name: tool.name, field: "removed" }
  for (let i = 0; i < current.length; i++) {
    if (previous[i]?.name !== current[i]!.name) return { name: current[i]!.name, field: "order" }
  }
  for (const tool of current) {
    const old = before.get(tool.name)!
    for (const field of new Set([...Object.keys(tool.fields), ...Object.keys(old.fields)])) {
      if (tool.fields[field] !== old.fields[field]) return { name: tool.name, field }
    }
  }
  return undefined
}
