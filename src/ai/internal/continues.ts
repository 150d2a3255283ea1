/**
 * Whether a history continues another: an agent's next history is its last one, the same
 * message objects, and a few messages more. The groups' union-find and the items of the last
 * call are continued only then.
 *
 * @internal
 */
import type { Prompt } from "effect/ai"

/** Whether `messages` starts with the message objects of `prefix`. */
export const continues = (messages: ReadonlyArray<Prompt.Message>, prefix: ReadonlyArray<Prompt.Message>): boolean => {
  if (prefix.length > messages.length) return false
  for (let i = 0; i < prefix.length; i++) if (messages[i] !== prefix[i]) return false
  return true
}
