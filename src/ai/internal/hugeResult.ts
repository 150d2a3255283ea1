/**
 * Tool results far larger than any window (issue 27, item 5; docs/design.md item 90): a string
 * result of more than {@link hugeChars} characters is not counted whole. Its first and last
 * {@link sampleChars} characters are, in a copy of its message, and the count is scaled to the
 * result's length (rounded up): an estimate, used to decide that the result must be shortened
 * and for the figure of its marker. What is sent is counted exactly: the shortening's every
 * candidate is a head and a tail under the room, counted as it is.
 *
 * A tool message whose rendered text is longer than {@link hugeChars} for another reason (a JSON
 * tree's text: a database's rows, a large object) is estimated the same way from its text: its
 * first and last {@link sampleChars} characters, read from the text's pieces without joining
 * them ({@link ends}), counted as plain text and scaled to the text's length (docs/design.md
 * item 122).
 *
 * No bound from the length alone decides it soundly for o200k and cl100k: a token may hold
 * dozens of characters (runs of spaces or of `=`), so a few megabytes may be fewer tokens than a
 * 128k window. The estimate is what makes a 5 MB result cost a few hundred kilobytes of counting.
 *
 * @internal
 */
import { Prompt } from "effect/ai"

/** A string result longer than this is counted by its head and tail. */
export const hugeChars = 1 << 20

/** The characters of each end that are counted. */
export const sampleChars = 1 << 18

/** `at` moved back off the second half of a surrogate pair. */
const safe = (text: string, at: number): number => {
  const code = text.charCodeAt(at)
  return code >= 0xdc00 && code <= 0xdfff ? at - 1 : at
}

/**
 * A copy of `message` with each huge string result replaced by its head and tail, and the
 * factor its count is scaled by (the results' length over the sampled length, the rest of the
 * message counted as if it grew alike: a little more than it is); `undefined` when the message
 * holds no huge result.
 */
export const sample = (
  message: Prompt.Message
): { readonly message: Prompt.Message; readonly scale: number } | undefined => {
  if (message.role !== "tool") return undefined
  let original = 0
  let kept = 0
  const content = message.content.map((part) => {
    if (
      part.type !== "tool-result" || part.modelOutput !== undefined || typeof part.result !== "string" ||
      part.result.length <= hugeChars
    ) return part
    const text = part.result
    const head = text.slice(0, safe(text, sampleChars))
    const tail = text.slice(safe(text, text.length - sampleChars))
    original += text.length
    kept += head.length + tail.length
    return { ...part, result: `${head}${tail}` }
  })
  if (original === 0) return undefined
  return { message: Prompt.makeMessage("tool", { content }), scale: original / kept }
}

/**
 * The first and last `n` characters of the text that `pieces` make (joined, it is the text),
 * read from the pieces alone: a rope of 10 MB is never flattened to cut it (docs/design.md item
 * 117). Neither end starts or ends inside a surrogate pair. `undefined` when the text is at most
 * `2 n` long (nothing to sample).
 */
export const ends = (
  pieces: ReadonlyArray<string>,
  n: number
): { readonly head: string; readonly tail: string; readonly length: number } | undefined => {
  let length = 0
  for (const piece of pieces) length += piece.length
  if (length <= 2 * n) return undefined
  const front: Array<string> = []
  let taken = 0
  for (let i = 0; i < pieces.length && taken < n; i++) {
    const piece = pieces[i]!
    const part = piece.length <= n - taken ? piece : piece.slice(0, n - taken)
    front.push(part)
    taken += part.length
  }
  const back: Array<string> = []
  taken = 0
  for (let i = pieces.length - 1; i >= 0 && taken < n; i--) {
    const piece = pieces[i]!
    const part = piece.length <= n - taken ? piece : piece.slice(piece.length - (n - taken))
    back.push(part)
    taken += part.length
  }
  let head = front.join("")
  let tail = back.reverse().join("")
  // A high surrogate ending the head, or a low one starting the tail, is left out.
  const last = head.charCodeAt(head.length - 1)
  if (last >= 0xd800 && last <= 0xdbff) head = head.slice(0, -1)
  const first = tail.charCodeAt(0)
  if (first >= 0xdc00 && first <= 0xdfff) tail = tail.slice(1)
  return { head, tail, length }
}
