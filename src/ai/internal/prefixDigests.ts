/**
 * The digests of a history's prefixes, for rule S3's check that a stored state's history is the
 * start of this call's (`historyDigest`), and each message's hash (the conversation key reads
 * it too). Kept by one stable window: each message object is hashed once (for every window and
 * every part of a call: `messageHash`), and a history that continues the last one's digests
 * only its new messages.
 *
 * @internal
 */
import { Effect } from "effect"
import type { Prompt } from "effect/ai"
import * as Hash from "./hash.ts"
import { knownHash, messageHash, recordHash } from "./messageHash.ts"
import { render, renderedLong, renderedPieces } from "../PromptRender.ts"

/**
 * One stable window's hashes: `hashOf` a message (its role and text), `digestsOf` a history
 * (`digests[k]` is that of the first `k` messages; the array is the digests' own, and the next
 * call may extend it: read what you need before then).
 */
export interface PrefixDigests {
  readonly hashOf: (message: Prompt.Message) => string
  readonly digestsOf: (messages: ReadonlyArray<Prompt.Message>) => ReadonlyArray<string>
  /**
   * Hashes the long messages already rendered and not hashed yet, in pieces with yields between
   * them (docs/design.md items 103, 113): run before `hashOf`/`digestsOf`, which then only read
   * their hashes, the same ones. Short messages are left to `hashOf` (no yield, no effect step):
   * an ordinary history's fit runs as before.
   */
  readonly prepare: (messages: ReadonlyArray<Prompt.Message>) => Effect.Effect<void>
}

/**
 * Empty digests, for one stable window (never shared by a module); the messages' hashes they
 * chain are every part's (`messageHash`, docs/design.md item 148).
 */
export const makePrefixDigests = (): PrefixDigests => {
  const digestMemo = new WeakMap<Prompt.Message, { readonly after: string; readonly digest: string }>()
  const lastDigests: { messages: ReadonlyArray<Prompt.Message>; digests: Array<string> } = {
    messages: [],
    digests: [Hash.start]
  }
  // Each message's hash is the one every part of a call reads (item 148): made once per message.
  const hashOf = messageHash
  const prepare = (messages: ReadonlyArray<Prompt.Message>): Effect.Effect<void> => {
    // The history the digests last read was hashed whole: only the messages after it are new
    // (a comparison of objects, not a look-up per message).
    const from = continuing(lastDigests.messages, messages) ? lastDigests.messages.length : 0
    const long: Array<Prompt.Message> = []
    for (let k = from; k < messages.length; k++) {
      const message = messages[k]!
      const text = knownHash(message) !== undefined ? undefined : renderedLong(message)
      if (text !== undefined && text.length > Hash.hashPiece) long.push(message)
    }
    if (long.length === 0) return Effect.void
    return Effect.gen(function*() {
      // The text's pieces, not the text (a rope a hash would flatten: design item 117).
      for (const message of long) {
        const pieces = renderedPieces(message) ?? [render(message)]
        recordHash(message, yield* Hash.hashPiecesEffect([`${message.role}\n`, ...pieces]))
      }
    })
  }
  return { hashOf, digestsOf: (messages) => prefixDigests(messages, hashOf, digestMemo, lastDigests), prepare }
}

/**
 * The chained digest of every prefix of the history: `digests[k]` is that of the first `k`
 * messages. Each message remembers the digest it ended and the one it continued (`memo`), so
 * that an agent's history, the same message objects call after call, is hashed once; and a
 * history that starts with the last one's message objects (`last`) continues its digests.
 */
const prefixDigests = (
  messages: ReadonlyArray<Prompt.Message>,
  hashOf: (m: Prompt.Message) => string,
  memo: WeakMap<Prompt.Message, { readonly after: string; readonly digest: string }>,
  last: { messages: ReadonlyArray<Prompt.Message>; digests: Array<string> }
): Array<string> => {
  let from = 0
  let digests: Array<string>
  if (continuing(last.messages, messages)) {
    from = last.messages.length
    digests = last.digests
  } else digests = [Hash.start]
  let digest = digests[from]!
  for (let k = from; k < messages.length; k++) {
    const message = messages[k]!
    const known = memo.get(message)
    if (known !== undefined && known.after === digest) digest = known.digest
    else {
      const after = digest
      digest = Hash.chain(digest, hashOf(message))
      memo.set(message, { after, digest })
    }
    digests[k + 1] = digest
  }
  // The array is extended in place call after call: only the newest history uses it.
  digests.length = messages.length + 1
  // A snapshot: the caller's array may be appended to or edited before the next call.
  last.messages = messages.slice()
  last.digests = digests
  return digests
}


/** Whether `messages` starts with the message objects of `last`. */
const continuing = (last: ReadonlyArray<Prompt.Message>, messages: ReadonlyArray<Prompt.Message>): boolean => {
  if (last.length > messages.length) return false
  for (let i = 0; i < last.length; i++) if (messages[i] !== last[i]) return false
  return true
}
