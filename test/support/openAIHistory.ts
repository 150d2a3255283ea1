import type * as OpenAIChat from "../../src/plain/OpenAIChat.ts"

/** An agent's history in the OpenAI chat format: a system prompt, then turns with two tool calls each. */
export const openAIHistory = (n: number): Array<OpenAIChat.Message> => {
  const out: Array<OpenAIChat.Message> = [{ role: "system", content: "You are a careful agent." }]
  for (let t = 0; out.length < n; t++) {
    out.push({ role: "user", content: `question ${t}: what is in folder ${t}? ${"please look closely. ".repeat(t % 7)}` })
    out.push({
      role: "assistant",
      content: null,
      tool_calls: [
        { id: `call-${t}-a`, type: "function", function: { name: "ls", arguments: JSON.stringify({ dir: `/d${t}` }) } },
        { id: `call-${t}-b`, type: "function", function: { name: "stat", arguments: JSON.stringify({ dir: `/d${t}` }) } }
      ]
    })
    out.push({ role: "tool", tool_call_id: `call-${t}-a`, content: `file-${t}.txt\n`.repeat(1 + (t % 5)) })
    out.push({ role: "tool", tool_call_id: `call-${t}-b`, content: `size ${t * 17}` })
    out.push({ role: "assistant", content: `Folder ${t} holds ${1 + (t % 5)} files.` })
  }
  return out.slice(0, n)
}
