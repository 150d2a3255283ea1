/**
 * Where a message the model received stands in the history it was made from: the history's own
 * message object — or, for a tool message the window shortened (rule K6: a new message object,
 * its results cut), the history's tool message with the same tool call ids.
 */
import type { Prompt } from "effect/ai"

const resultIds = (message: Prompt.Message): string =>
  message.role === "tool"
    ? message.content.map((part) => (part.type === "tool-result" ? part.id : `approval:${part.approvalId}`)).join(",")
    : ""

/** The index of `message` in `history`, or -1. */
export const positionIn = (history: ReadonlyArray<Prompt.Message>, message: Prompt.Message): number => {
  const i = history.indexOf(message)
  if (i >= 0 || message.role !== "tool") return i
  const ids = resultIds(message)
  return history.findIndex((m) => m.role === "tool" && resultIds(m) === ids)
}
