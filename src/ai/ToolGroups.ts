/**
 * ToolGroups: which messages of a prompt belong together. An assistant message's tool calls and
 * the tool messages holding their results (matched by call id), and approval requests with their
 * responses (matched by approval id), share a group, which the pipeline keeps whole: selected or
 * excluded as one unit, adjacent and in order. {@link orphans} finds the tool parts whose partner
 * is missing from a prompt.
 *
 * @since 0.3.0
 */
import type { Prompt } from "effect/ai"
import type * as ContextItem from "../ContextItem.ts"
import { continues } from "./internal/continues.ts"

/**
 * What {@link groups} keeps across calls (an `ItemCache` is one): each message's links, and
 * where the last call left its union-find.
 *
 * @since 0.3.0
 * @category models
 */
export interface GroupsCache {
  /** Each message's links (its tool call and approval ids), which {@link groups} joins. */
  readonly links: WeakMap<Prompt.Message, ReadonlyArray<string>>
  /** Where the last {@link groups} call left its union-find (the state of one history). */
  lastGroups: GroupsState | undefined
}

/** The parts of a message, whatever its role. */
const partsOf = (message: Prompt.Message): ReadonlyArray<Prompt.Part> =>
  message.role === "system" ? [] : message.content

/** The ids that tie a message to others: tool call ids and approval ids, each with a prefix. */
const linksOf = (message: Prompt.Message): Array<string> => {
  const links: Array<string> = []
  for (const part of partsOf(message)) {
    switch (part.type) {
      case "tool-call":
      case "tool-result":
        links.push(`call:${part.id}`)
        break
      case "tool-approval-request":
        links.push(`approval:${part.approvalId}`, `call:${part.toolCallId}`)
        break
      case "tool-approval-response":
        links.push(`approval:${part.approvalId}`)
        break
      default:
        break
    }
  }
  return links
}

/**
 * The group of each message: messages linked by a tool call id or an approval id (directly or
 * through others) share one, named `prefix` and the first message's index (`message-2`); a
 * message linked to no other has none. `Candidates.toCandidates` picks a prefix that none of the
 * caller's `documents` uses (see {@link groupPrefix}), so that no document joins a message's
 * group by accident.
 *
 * @since 0.2.0
 * @category grouping
 */
export const groups = (
  messages: ReadonlyArray<Prompt.Message>,
  prefix = "message-",
  cache?: GroupsCache
): Array<string | undefined> => {
  const n = messages.length
  // An agent's next history is its last one and a few messages more: continue the union-find
  // where the last call left it, reading the links of the new messages only.
  const last = cache?.lastGroups
  let state: GroupsState
  if (last !== undefined && last.prefix === prefix && continues(messages, last.messages)) {
    state = last
  } else {
    state = { prefix, messages: [], parent: [], firstWith: new Map(), names: new Map() }
  }
  const { firstWith, parent } = state
  const find = (i: number): number => {
    let root = i
    while (parent[root]! !== root) root = parent[root]!
    while (parent[i]! !== root) {
      const next = parent[i]!
      parent[i] = root
      i = next
    }
    return root
  }
  const read = state.messages.length
  // Each root's group size, kept from call to call (design 124): the last call's groups hold
  // for the messages it read unless this call joins one of their groups into another (its
  // root is then not the smaller) — only then is every message's group found again.
  const size = state.size ?? []
  let continued = state.size !== undefined && state.out !== undefined && state.out.length === read
  // The last call's singletons that this call gives a partner: their group is new.
  const grown: Array<number> = []
  const memo = cache?.links
  for (let i = read; i < n; i++) {
    parent.push(i)
    size[i] = 1
    const message = messages[i]!
    let links = memo?.get(message)
    if (links === undefined) {
      links = linksOf(message)
      memo?.set(message, links)
    }
    for (const link of links) {
      const j = firstWith.get(link)
      if (j === undefined) firstWith.set(link, i)
      else {
        const a = find(i)
        const b = find(j)
        if (a !== b) {
          // The smaller index becomes the root, so a group is named after its first message.
          const root = Math.min(a, b)
          const joined = Math.max(a, b)
          if (joined < read) continued = false
          else if (root < read && size[root] === 1) grown.push(root)
          size[root] = (size[root] ?? 1) + (size[joined] ?? 1)
          parent[joined] = root
        }
      }
    }
  }
  const names = state.names
  const nameOf = (root: number): string => {
    let name = names.get(root)
    if (name === undefined) {
      name = `${prefix}${root}`
      names.set(root, name)
    }
    return name
  }
  let out: Array<string | undefined>
  if (firstWith.size === 0) out = new Array<string | undefined>(n)
  else if (continued && state.out !== undefined) {
    out = state.out.slice()
    out.length = n
    for (let i = read; i < n; i++) {
      const root = find(i)
      out[i] = size[root]! >= 2 ? nameOf(root) : undefined
    }
    for (const root of grown) out[root] = nameOf(root)
  } else {
    // Most messages are linked to none: only roots that are shared by two or more make a group.
    out = new Array<string | undefined>(n)
    size.length = 0
    for (let i = 0; i < n; i++) size[i] = 0
    for (let i = 0; i < n; i++) size[find(i)]!++
    for (let i = 0; i < n; i++) {
      const root = find(i)
      if (size[root]! >= 2) out[i] = nameOf(root)
    }
  }
  // A snapshot of the history read, not the caller's array: a caller may append to the array it
  // passed (a Prompt's content) or edit it in place before the next call.
  if (cache !== undefined) cache.lastGroups = { ...state, messages: messages.slice(), size, out: out.slice() }
  return out
}

/**
 * Where {@link groups} left its union-find: the messages it read, the parent of each, the first
 * message with each link, and the group names made. Continued only by a history that starts
 * with the same message objects.
 *
 * @since 0.3.0
 * @category models
 */
export interface GroupsState {
  readonly prefix: string
  readonly messages: ReadonlyArray<Prompt.Message>
  readonly parent: Array<number>
  readonly firstWith: Map<string, number>
  readonly names: Map<number, string>
  /** Each root's group size (a message that is no root has a stale one). */
  readonly size?: Array<number> | undefined
  /** The groups the last call gave, one per message it read. */
  readonly out?: ReadonlyArray<string | undefined> | undefined
}

/**
 * The prefix of the message groups for a call: `message-`, or, when a document's group id
 * starts with it, the first of `prompt2:message-`, `prompt3:message-`… that none does. No
 * message group id can then equal a document's, whatever ids the caller chose.
 *
 * @since 0.2.0
 * @category grouping
 */
export const groupPrefix = (documents: ReadonlyArray<ContextItem.ContextItem>): string => {
  const taken = (prefix: string) => documents.some((d) => d.group !== undefined && d.group.startsWith(prefix))
  let prefix = "message-"
  for (let k = 2; taken(prefix); k++) prefix = `prompt${k}:message-`
  return prefix
}

/**
 * A tool part whose partner is missing from the prompt.
 *
 * @since 0.2.0
 * @category models
 */
export interface Orphan {
  readonly message: number
  readonly problem: "ResultWithoutCall" | "CallWithoutResult" | "ApprovalWithoutRequest"
  readonly id: string
}

/**
 * Every tool result without its call, call without a result and approval response without its
 * request in the prompt. Provider-executed calls are answered by the provider and need no
 * result in the prompt; a call with an approval request is waiting for the approval, and a
 * request without a response is waiting for the user: neither is an orphan.
 *
 * @since 0.2.0
 * @category validation
 */
export const orphans = (prompt: Prompt.Prompt): Array<Orphan> => {
  const calls = new Map<string, number>()
  const results = new Map<string, number>()
  const requests = new Map<string, number>()
  const responses = new Map<string, number>()
  prompt.content.forEach((message, i) => {
    for (const part of partsOf(message)) {
      if (part.type === "tool-call" && !part.providerExecuted) calls.set(part.id, i)
      else if (part.type === "tool-result") results.set(part.id, i)
      else if (part.type === "tool-approval-request") requests.set(part.approvalId, i)
      else if (part.type === "tool-approval-response") responses.set(part.approvalId, i)
    }
  })
  const out: Array<Orphan> = []
  const providerCalls = new Set<string>()
  const approvalFor = new Set<string>()
  for (const message of prompt.content) {
    for (const part of partsOf(message)) {
      if (part.type === "tool-call" && part.providerExecuted) providerCalls.add(part.id)
      else if (part.type === "tool-approval-request") approvalFor.add(part.toolCallId)
    }
  }
  for (const [id, i] of results) {
    if (!calls.has(id) && !providerCalls.has(id)) out.push({ message: i, problem: "ResultWithoutCall", id })
  }
  for (const [id, i] of calls) {
    // A call waiting for approval has no result yet: its approval request stands for it.
    if (!results.has(id) && !approvalFor.has(id)) out.push({ message: i, problem: "CallWithoutResult", id })
  }
  for (const [id, i] of responses) if (!requests.has(id)) out.push({ message: i, problem: "ApprovalWithoutRequest", id })
  return out.sort((a, b) => a.message - b.message)
}
