/**
 * LangChain's real provider clients (`ChatAnthropic` of `@langchain/anthropic`, `ChatOpenAI` of
 * `@langchain/openai`) driven through the fake endpoints (`fakeAnthropic.ts`, `fakeOpenAI.ts`)
 * by their own `fetch` option, in a `createAgent` tool loop over a generated session.
 *
 * The fake bills every request by the provider's documented cache rules (docs/providers.md);
 * the answer's content is then the session's scripted step (its text, thinking and tool calls,
 * in the provider's wire format), so that the agent runs the session's tool loop while the
 * client parses a real provider answer, usage included. What the client sent is the fake's
 * `calls[k].body`; what the model was handed (LangChain messages) an inner recorder's.
 */
import { ChatAnthropic } from "@langchain/anthropic"
import type { BaseMessage } from "@langchain/core/messages"
import { HumanMessage } from "@langchain/core/messages"
import { tool, type ToolRunnableConfig } from "@langchain/core/tools"
import { ChatOpenAI } from "@langchain/openai"
import type { Prompt } from "effect/ai"
import { type AgentMiddleware, createAgent, createMiddleware } from "langchain"
import { z } from "zod"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import * as FakeAnthropic from "./fakeAnthropic.ts"
import * as FakeOpenAI from "./fakeOpenAI.ts"
import { type Fetch, isRecord, json } from "./fakeProvider.ts"
import { sessionResults, toBaseMessages } from "./langchain.ts"
import type { Session } from "./sessions.ts"

/** Which client and fake. */
export type WireProvider = "anthropic" | "openai"

/** The model ids the runs use (Claude Sonnet 4.5: a 1,024-token minimum prefix, A8). */
export const modelIds: Record<WireProvider, string> = { anthropic: "claude-sonnet-4-5", openai: "gpt-4o" }

const list = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])

/** An assistant message of the session as Anthropic's answer content and stop reason. */
const anthropicAnswer = (response: Prompt.AssistantMessage | undefined) => {
  const parts = response?.content ?? []
  const content = parts.flatMap((part): Array<Record<string, unknown>> =>
    part.type === "text"
      ? [{ type: "text", text: part.text }]
      : part.type === "reasoning"
      ? [{ type: "thinking", thinking: part.text, signature: "sig" }]
      : part.type === "tool-call"
      ? [{ type: "tool_use", id: part.id, name: part.name, input: isRecord(part.params) ? part.params : {} }]
      : []
  )
  const calls = content.some((block) => block["type"] === "tool_use")
  return { content: content.length === 0 ? [{ type: "text", text: "done" }] : content, stop_reason: calls ? "tool_use" : "end_turn" }
}

/** An assistant message of the session as an OpenAI chat completion's choice. */
const openAIChoice = (response: Prompt.AssistantMessage | undefined) => {
  const parts = response?.content ?? []
  const text = parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("")
  const toolCalls = parts.flatMap((part) =>
    part.type === "tool-call"
      ? [{ id: part.id, type: "function", function: { name: part.name, arguments: JSON.stringify(part.params ?? {}) } }]
      : []
  )
  return {
    index: 0,
    message: {
      role: "assistant",
      content: text === "" && toolCalls.length > 0 ? null : text === "" ? "done" : text,
      ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls })
    },
    finish_reason: toolCalls.length === 0 ? "stop" : "tool_calls"
  }
}

/**
 * A fake's `fetch` whose answers are the session's steps: the fake applies its cache rules and
 * reports the usage; the content of answer k is step k's response ("done" past the last).
 */
export const scriptedFetch = (provider: WireProvider, fake: { readonly fetch: Fetch }, session: Session): Fetch => {
  let call = 0
  return async (input, init) => {
    const answered = await fake.fetch(input, init)
    if (!answered.ok) return answered
    if (answered.headers.get("content-type")?.includes("event-stream") === true) {
      throw new Error("the scripted fetch answers JSON requests only (the client streamed)")
    }
    const body: unknown = await answered.json()
    if (!isRecord(body)) throw new Error("the fake answered no object")
    const response = session.steps[call++]?.response
    return provider === "anthropic"
      ? json(200, { ...body, ...anthropicAnswer(response) })
      : json(200, { ...body, choices: [openAIChoice(response)] })
  }
}

/** What a run through a real client recorded. */
export interface ProviderRun {
  /** The LangChain messages the model was handed at each call (system message first). */
  readonly requests: ReadonlyArray<ReadonlyArray<BaseMessage>>
  /** The agent's state messages at each model call (the whole history, no system message). */
  readonly states: ReadonlyArray<ReadonlyArray<BaseMessage>>
  /** The history at the end. */
  readonly messages: ReadonlyArray<BaseMessage>
  /** The model's answers (their `usage_metadata`), in order. */
  readonly answers: ReadonlyArray<BaseMessage>
  readonly anthropic: FakeAnthropic.FakeAnthropic
  readonly openai: FakeOpenAI.FakeOpenAI
  /** The request bodies the client sent, in order. */
  readonly bodies: ReadonlyArray<Record<string, unknown>>
}

/**
 * A generated session through `createAgent` with a real client and the given middleware (after
 * a recorder of the agent's state, before a recorder of what the model is handed): each tool
 * answers with the session's result for its call id; when the model answers with text the run
 * ends and the next starts with the step's user message (or "continue"), the history carried
 * over, on one thread, until `calls` model calls were made (default: every step).
 */
export const runProviderSession = async (
  session: Session,
  provider: WireProvider,
  middleware: ReadonlyArray<AgentMiddleware>,
  options: { readonly calls?: number; readonly threadId?: string } = {}
): Promise<ProviderRun> => {
  const anthropic = FakeAnthropic.make()
  const openai = FakeOpenAI.make()
  const fetch = scriptedFetch(provider, provider === "anthropic" ? anthropic : openai, session)
  const model = provider === "anthropic"
    ? new ChatAnthropic({ model: modelIds.anthropic, apiKey: "test", maxRetries: 0, clientOptions: { fetch } })
    : new ChatOpenAI({ model: modelIds.openai, apiKey: "test", maxRetries: 0, configuration: { fetch } })
  const results = sessionResults(session)
  const names = new Set<string>()
  for (const step of session.steps) for (const part of step.response.content) if (part.type === "tool-call") names.add(part.name)
  const tools = [...names].map((name) =>
    tool(async (_input: unknown, config: ToolRunnableConfig) => results.get(config.toolCall?.id ?? "")?.text ?? "no result", {
      name,
      description: `The ${name} tool.`,
      schema: z.looseObject({})
    })
  )
  const states: Array<ReadonlyArray<BaseMessage>> = []
  const requests: Array<ReadonlyArray<BaseMessage>> = []
  const answers: Array<BaseMessage> = []
  const outer = createMiddleware({
    name: "state-recorder",
    wrapModelCall: (request, handler) => {
      states.push([...request.messages])
      return handler(request)
    }
  })
  const inner = createMiddleware({
    name: "request-recorder",
    wrapModelCall: async (request, handler) => {
      requests.push([...(request.systemMessage.text === "" ? [] : [request.systemMessage]), ...request.messages])
      const answer = await handler(request)
      answers.push(answer)
      return answer
    }
  })
  const system = session.start.find((m) => m.role === "system")
  const agent = createAgent({
    model,
    tools,
    ...(system === undefined || system.role !== "system" ? {} : { systemPrompt: system.content }),
    middleware: [outer, ...middleware, inner]
  })
  const first = session.start.find((m) => m.role === "user")
  let messages: Array<BaseMessage> = [new HumanMessage({ content: first === undefined ? "start" : PromptWindow.render(first) })]
  const calls = Math.min(options.calls ?? session.steps.length, session.steps.length)
  while (requests.length < calls) {
    const before = requests.length
    const out = await agent.invoke({ messages }, {
      configurable: { thread_id: options.threadId ?? `wire-${session.shape}-${session.seed}` },
      recursionLimit: 100_000
    })
    messages = out.messages
    if (requests.length === before) throw new Error("the agent made no model call")
    const step = session.steps[requests.length - 1]
    const users = (step?.next ?? []).filter((m) => m.role === "user")
    messages = [
      ...messages,
      ...(users.length === 0 ? [new HumanMessage({ content: "continue" })] : toBaseMessages(users))
    ]
  }
  const bodies = (provider === "anthropic" ? anthropic.calls : openai.calls).map((call) => call.body).filter(isRecord)
  return { requests, states, messages, answers, anthropic, openai, bodies }
}

/** The cache_control marks of an Anthropic request body, as [where, block type], in order (nested ones included). */
export const wireMarks = (body: Record<string, unknown>): Array<{ readonly at: string; readonly type: string; readonly nested: boolean }> => {
  const out: Array<{ at: string; type: string; nested: boolean }> = []
  const visit = (block: unknown, at: string, nested: boolean) => {
    if (!isRecord(block)) return
    if (block["cache_control"] !== undefined) out.push({ at, type: String(block["type"]), nested })
    for (const inner of list(block["content"])) visit(inner, at, true)
  }
  for (const t of list(body["tools"])) visit(t, "tools", false)
  const system = body["system"]
  if (Array.isArray(system)) for (const block of system) visit(block, "system", false)
  list(body["messages"]).forEach((message, i) => {
    if (!isRecord(message)) return
    for (const block of list(message["content"])) visit(block, `messages[${i}]`, false)
  })
  return out
}
