/**
 * PromptRender: the text of a message as the model reads it — what an item's `content` holds,
 * what deduplication compares, what reports show and what a counter that reads text counts.
 * One line per part; never empty.
 *
 * @since 0.3.0
 */
import { Prompt } from "effect/ai"

/**
 * The text of a message as the model reads it, one line per part: text and reasoning as they
 * are, tool calls as `name(arguments as JSON) [call id]`, tool results as their model output
 * (or their result as JSON), files as `[file media/type name]`, approvals by id. Never empty.
 *
 * @since 0.2.0
 * @category rendering
 */
export const render = (message: Prompt.Message): string => {
  let text: string
  switch (message.role) {
    case "system":
      text = message.content
      break
    case "user":
      text = message.content.map(renderPart).join("\n")
      break
    case "assistant":
      text = message.content.map(renderPart).join("\n")
      break
    case "tool":
      text = message.content.map(renderPart).join("\n")
      break
  }
  return text.length > 0 ? text : `[${message.role}]`
}

const json = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

const renderPart = (part: Prompt.Part): string => {
  switch (part.type) {
    case "text":
    case "reasoning":
      return part.text
    case "file":
      return `[file ${part.mediaType}${part.fileName === undefined ? "" : ` ${part.fileName}`}]`
    case "tool-call":
      return `${part.name}(${json(part.params)}) [call ${part.id}]`
    case "tool-result":
      return `${part.isFailure ? "error" : "result"} of ${part.name} [call ${part.id}]: ${
        part.modelOutput === undefined ? json(part.result) : Prompt.toolModelOutputToText(part.modelOutput)
      }`
    case "tool-approval-request":
      return `approval requested [approval ${part.approvalId}, call ${part.toolCallId}]`
    case "tool-approval-response":
      return `approval ${part.approved ? "granted" : "denied"} [approval ${part.approvalId}]${
        part.reason === undefined ? "" : `: ${part.reason}`
      }`
  }
}

