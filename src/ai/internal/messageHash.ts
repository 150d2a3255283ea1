/**
 * A message's hash — `Hash.hashString` of its role, a newline and its rendered text — made once
 * per message object and remembered, as its text is (`PromptRender.render`, docs/design.md item
 * 124: messages are immutable). The prefix digests (rule S3), the request a call sends
 * (`SentRequest`) and the cache-miss descriptors (rules M1–M4) each hashed every new message
 * again, with a memo of their own (item 148).
 *
 * @internal
 */
import type { Prompt } from "effect/ai"
import * as Hash from "./hash.ts"
import { render } from "../PromptRender.ts"

/** The hashes made, by message object: weak, as the texts are. */
const hashes = new WeakMap<Prompt.Message, string>()

/** The hash of a message (its role and rendered text), made at its first call. */
export const messageHash = (message: Prompt.Message): string => {
  let h = hashes.get(message)
  if (h === undefined) {
    h = Hash.hashString(`${message.role}\n${render(message)}`)
    hashes.set(message, h)
  }
  return h
}

/** The hash of a message if it was made already, without making it. */
export const knownHash = (message: Prompt.Message): string | undefined => hashes.get(message)

/**
 * Records a message's hash made elsewhere — a long message's, hashed in pieces with yields
 * between them (`Hash.hashPiecesEffect`), which is the hash {@link messageHash} would make.
 */
export const recordHash = (message: Prompt.Message, hash: string): void => {
  hashes.set(message, hash)
}
