/**
 * The histories of the store fleet's conversations (`storeFleet.ts`): conversation `c` after
 * `turns` turns — a system prompt, an opening that names the conversation (so that each has a
 * key of its own), then per turn an answer of about 60 words and a question of about 30. The
 * same arguments give the same history in every process.
 */
import { Prompt } from "effect/ai"

/** The key of a conversation, read from its opening message (the fleet checks states by it). */
export const keyOf = (opening: Prompt.Message | undefined): string => {
  const part = opening !== undefined && opening.role === "user" ? opening.content[0] : undefined
  const match = part !== undefined && part.type === "text" ? /^conversation (\d+):/.exec(part.text) : null
  return `conversation-${match === null ? "unknown" : match[1]}`
}

const words = (n: number, tag: string): string => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ")

export const historyOf = (conversation: number, turns: number): Array<Prompt.Message> => {
  const out: Array<Prompt.Message> = [
    Prompt.systemMessage({ content: "be brief" }),
    Prompt.userMessage({ content: [Prompt.textPart({ text: `conversation ${conversation}: start` })] })
  ]
  for (let k = 0; k < turns; k++) {
    out.push(Prompt.assistantMessage({ content: [Prompt.textPart({ text: words(60, `c${conversation}a${k}_`) })] }))
    out.push(Prompt.userMessage({ content: [Prompt.textPart({ text: words(30, `c${conversation}u${k}_`) })] }))
  }
  return out
}
