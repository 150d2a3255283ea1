/**
 * LangChain test support: a scripted chat model (a `BaseChatModel` of `@langchain/core` that
 * records every request it receives and answers from a script), generated sessions
 * (`sessions.ts`) as LangChain messages, and the checks every LangChain test makes of a request:
 * no orphaned tool part, the system message first and alone.
 */
import { BaseChatModel, type BaseChatModelParams } from "@langchain/core/language_models/chat_models"
import {
  AIMessage,
  type BaseMessage,
  type ContentBlock,
  HumanMessage,
  SystemMessage,
  ToolMessage
} from "@langchain/core/messages"
import type { ChatResult } from "@langchain/core/outputs"
import { tool, type ToolRunnableConfig } from "@langchain/core/tools"
import { type AgentMiddleware, createAgent, createMiddleware } from "langchain"
import { z } from "zod"
import type { Prompt } from "effect/ai"
import * as PromptWindow from "../../src/ai/PromptWindow.ts"
import type { Session } from "./sessions.ts"

/** One answer of the scripted model: an AIMessage, made from the messages it is sent. */
export type Answer = (messages: ReadonlyArray<BaseMessage>, call: number) => AIMessage

/**
 * A chat model that answers from a script and records what it was sent: `requests[k]` the
 * messages of call k (system message included, as LangChain sends it), `bound` the options the
 * agent bound with its tools (`modelSettings` among them). `llmType` is what `_llmType()` says
 * (the adapter reads the provider from it: `"anthropic"`, `"openai"`).
 */
export class ScriptedChatModel extends BaseChatModel {
  readonly requests: Array<ReadonlyArray<BaseMessage>>
  readonly bound: Array<Record<string, unknown>>
  readonly answer: Answer
  readonly llmType: string
  readonly model: string | undefined

  constructor(
    fields: {
      readonly answer: Answer
      readonly llmType?: string
      readonly model?: string
      readonly requests?: Array<ReadonlyArray<BaseMessage>>
      readonly bound?: Array<Record<string, unknown>>
    } & BaseChatModelParams
  ) {
    const { answer, llmType, model, requests, bound, ...rest } = fields
    super(rest)
    this.answer = answer
    this.llmType = llmType ?? "scripted"
    this.model = model
    this.requests = requests ?? []
    this.bound = bound ?? []
  }

  _llmType(): string {
    return this.llmType
  }

  override bindTools(_tools: ReadonlyArray<unknown>, kwargs?: Record<string, unknown>): ScriptedChatModel {
    this.bound.push(kwargs ?? {})
    // The same script and records: the agent binds its tools at every call.
    return new ScriptedChatModel({
      answer: this.answer,
      llmType: this.llmType,
      ...(this.model === undefined ? {} : { model: this.model }),
      requests: this.requests,
      bound: this.bound
    })
  }

  async _generate(messages: Array<BaseMessage>): Promise<ChatResult> {
    const call = this.requests.length
    this.requests.push([...messages])
    const message = this.answer(messages, call)
    return { generations: [{ text: typeof message.content === "string" ? message.content : "", message }] }
  }
}

/** An effect/ai message as a LangChain message (approvals left out: LangChain has none). */
export const toBaseMessage = (message: Prompt.Message): BaseMessage | undefined => {
  switch (message.role) {
    case "system":
      return new SystemMessage({ content: message.content })
    case "user":
      return new HumanMessage({ content: PromptWindow.render(message) })
    case "assistant": {
      const blocks = message.content.flatMap((part): Array<ContentBlock> =>
        part.type === "text"
          ? [{ type: "text", text: part.text }]
          : part.type === "reasoning"
          ? [{ type: "thinking", thinking: part.text, signature: "sig" }]
          : []
      )
      const calls = message.content.flatMap((part) =>
        part.type === "tool-call"
          ? [{ id: part.id, name: part.name, args: argsOf(part.params), type: "tool_call" as const }]
          : []
      )
      return new AIMessage({ content: blocks, tool_calls: calls })
    }
    case "tool": {
      const result = message.content.find((part) => part.type === "tool-result")
      if (result === undefined) return undefined
      return new ToolMessage({
        content: typeof result.result === "string" ? result.result : JSON.stringify(result.result),
        tool_call_id: result.id,
        name: result.name,
        status: result.isFailure ? "error" : "success"
      })
    }
  }
}

const argsOf = (params: unknown): Record<string, unknown> =>
  typeof params === "object" && params !== null && !Array.isArray(params) ? { ...params } : { value: params }

/** A session's history before call k, as LangChain messages. */
export const toBaseMessages = (history: ReadonlyArray<Prompt.Message>): Array<BaseMessage> =>
  history.flatMap((message) => {
    const out = toBaseMessage(message)
    return out === undefined ? [] : [out]
  })

/**
 * The tool call ids and tool result ids of a request. A tool result is a `ToolMessage`, or a
 * `tool_result` block of a `HumanMessage`: the form the adapter sends a tool result marked for
 * `ChatAnthropic` in (src/adapters/LangChainCacheMarks.ts), which the client sends as it would
 * the `ToolMessage`.
 */
export const toolIds = (messages: ReadonlyArray<BaseMessage>) => {
  const calls: Array<string> = []
  const results: Array<string> = []
  for (const message of messages) {
    if (AIMessage.isInstance(message)) for (const call of message.tool_calls ?? []) calls.push(call.id ?? "")
    if (ToolMessage.isInstance(message)) results.push(message.tool_call_id)
    if (HumanMessage.isInstance(message) && Array.isArray(message.content)) {
      for (const block of message.content) {
        if (block.type === "tool_result" && "tool_use_id" in block && typeof block.tool_use_id === "string") results.push(block.tool_use_id)
      }
    }
  }
  return { calls: calls.sort(), results: results.sort() }
}

/** The problems of one request: orphaned tool parts, a system message not first or not alone. */
export const requestProblems = (messages: ReadonlyArray<BaseMessage>): Array<string> => {
  const problems: Array<string> = []
  const { calls, results } = toolIds(messages)
  const orphans = [...calls.filter((id) => !results.includes(id)), ...results.filter((id) => !calls.includes(id))]
  if (orphans.length > 0) problems.push(`orphaned tool parts: ${orphans.join(", ")}`)
  if (messages[0]?.type !== "system") problems.push("the system message is not first")
  if (messages.slice(1).some((m) => m.type === "system")) problems.push("a system message after the first")
  return problems
}

/** A message's content as a key: its type, text, and tool ids (what a provider's cache hashes). */
export const contentKey = (message: BaseMessage): string =>
  JSON.stringify([
    message.type,
    typeof message.content === "string"
      ? message.content
      : message.content.map((block) => ("text" in block ? block.text : "thinking" in block ? block.thinking : block.type)),
    AIMessage.isInstance(message) ? (message.tool_calls ?? []).map((c) => c.id) : [],
    ToolMessage.isInstance(message) ? message.tool_call_id : ""
  ])

/**
 * The scripted answers of a generated session: call k answers with step k's response (its tool
 * calls, text and reasoning), and, past the session's steps, "done".
 */
export const sessionAnswers = (session: Session): Answer => (_messages, call) => {
  const step = session.steps[call]
  if (step === undefined) return new AIMessage({ content: "done" })
  const out = toBaseMessage(step.response)
  return out !== undefined && AIMessage.isInstance(out) ? out : new AIMessage({ content: "done" })
}

/** Every tool result of a session, by call id (what the agent's tools answer with). */
export const sessionResults = (session: Session): Map<string, { readonly text: string; readonly failure: boolean }> => {
  const results = new Map<string, { readonly text: string; readonly failure: boolean }>()
  for (const step of session.steps) {
    for (const message of step.next) {
      if (message.role !== "tool") continue
      for (const part of message.content) {
        if (part.type !== "tool-result") continue
        results.set(part.id, {
          text: typeof part.result === "string" ? part.result : JSON.stringify(part.result),
          failure: part.isFailure
        })
      }
    }
  }
  return results
}

/** What an agent run through a session recorded. */
export interface AgentRun {
  /** The messages each model call was sent (the window, system message first). */
  readonly requests: ReadonlyArray<ReadonlyArray<BaseMessage>>
  /** The agent's state messages at each model call (the whole history, no system message). */
  readonly states: ReadonlyArray<ReadonlyArray<BaseMessage>>
  /** The newest human message the agent was given before each model call. */
  readonly humans: ReadonlyArray<BaseMessage | undefined>
  /** The options the agent bound its tools with, at each call. */
  readonly bound: ReadonlyArray<Record<string, unknown>>
  /** The history at the end. */
  readonly messages: ReadonlyArray<BaseMessage>
}

/**
 * A generated session driven through `createAgent` with the given middleware (after a recorder
 * of the agent's state): the scripted model answers call k with step k's response, each tool
 * answers with the session's result for its call id, and when the model answers with text the
 * run ends and the next run starts with the step's user message (or "continue"), the history
 * carried over, on one thread — until every step was answered (at most `calls` of them).
 */
export const runAgentSession = async (
  session: Session,
  middleware: ReadonlyArray<AgentMiddleware>,
  options: { readonly llmType?: string; readonly model?: string; readonly threadId?: string; readonly calls?: number } = {}
): Promise<AgentRun> => {
  const model = new ScriptedChatModel({
    answer: sessionAnswers(session),
    ...(options.llmType === undefined ? {} : { llmType: options.llmType }),
    ...(options.model === undefined ? {} : { model: options.model })
  })
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
  const humans: Array<BaseMessage | undefined> = []
  let newestHuman: BaseMessage | undefined
  const recorder = createMiddleware({
    name: "recorder",
    wrapModelCall: (request, handler) => {
      states.push([...request.messages])
      humans.push(newestHuman)
      return handler(request)
    }
  })
  const system = session.start.find((m) => m.role === "system")
  const agent = createAgent({
    model,
    tools,
    ...(system === undefined || system.role !== "system" ? {} : { systemPrompt: system.content }),
    middleware: [recorder, ...middleware]
  })
  const first = session.start.find((m) => m.role === "user")
  let messages: Array<BaseMessage> = [new HumanMessage({ content: first === undefined ? "start" : PromptWindow.render(first) })]
  const calls = Math.min(options.calls ?? session.steps.length, session.steps.length)
  while (model.requests.length < calls) {
    const before = model.requests.length
    newestHuman = messages.findLast((m) => m.type === "human")
    const out = await agent.invoke({ messages }, {
      configurable: { thread_id: options.threadId ?? `session-${session.shape}-${session.seed}` },
      recursionLimit: 100_000
    })
    messages = out.messages
    if (model.requests.length === before) throw new Error("the agent made no model call")
    const step = session.steps[model.requests.length - 1]
    const users = (step?.next ?? []).filter((m) => m.role === "user")
    messages = [
      ...messages,
      ...(users.length === 0 ? [new HumanMessage({ content: "continue" })] : users.flatMap((m) => toBaseMessages([m])))
    ]
  }
  return { requests: model.requests, states, humans, bound: model.bound, messages }
}
