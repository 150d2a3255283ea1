/**
 * A fast, non-cryptographic string hash for identifying messages and histories across calls
 * (`StableWindow`): two independent 32-bit multiply–xorshift lanes (cyrb53's mixing, applied
 * to both halves of a 64-bit state), written as 16 hex digits. It runs the same in every
 * JavaScript engine, needs no platform crypto, and at 64 bits a collision among the messages of
 * one conversation is not a practical concern; a collision could only make a history look
 * unchanged when it was edited in place, never mix two conversations (their keys differ).
 *
 * @internal
 */
import { Effect } from "effect"

const hex = (n: number): string => (n >>> 0).toString(16).padStart(8, "0")

/** The two lanes of a hash being made: `[h1, h2]`. */
type Lanes = [number, number]

const begin = (seed: number): Lanes => [0xdeadbeef ^ seed, 0x41c6ce57 ^ seed]

/** Feeds `text[from, to)` into the lanes (in place): a text fed in pieces hashes as it would whole. */
const feed = (lanes: Lanes, text: string, from: number, to: number): void => {
  let [h1, h2] = lanes
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i)
    h1 = Math.imul(h1 ^ c, 2654435761)
    h2 = Math.imul(h2 ^ c, 1597334677)
  }
  lanes[0] = h1
  lanes[1] = h2
}

const finish = ([a, b]: Lanes): string => {
  const h1 = Math.imul(a ^ (a >>> 16), 2246822507) ^ Math.imul(b ^ (b >>> 13), 3266489909)
  const h2 = Math.imul(b ^ (b >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return hex(h2) + hex(h1)
}

/** The hash of `text`, seeded (different seeds give unrelated hashes), as 16 hex digits. */
export const hashString = (text: string, seed = 0): string => {
  const lanes = begin(seed)
  feed(lanes, text, 0, text.length)
  return finish(lanes)
}

/** A text no longer than this is hashed at once by {@link hashStringEffect}. */
export const hashPiece = 262_144

/**
 * {@link hashString}, the same hash, made {@link hashPiece} characters at a time with a yield to
 * the event loop between pieces (issue 27, item 5; docs/design.md item 103): a 5 MB text is
 * not hashed in one stretch.
 */
export const hashStringEffect = (text: string, seed = 0): Effect.Effect<string> =>
  text.length <= hashPiece
    ? Effect.sync(() => hashString(text, seed))
    : Effect.gen(function*() {
      const lanes = begin(seed)
      for (let at = 0; at < text.length; at += hashPiece) {
        feed(lanes, text, at, Math.min(text.length, at + hashPiece))
        yield* Effect.yieldNow
      }
      return finish(lanes)
    })

/**
 * {@link hashString} of the concatenation of `pieces`, the same hash, made {@link hashPiece}
 * characters at a time with a yield between (docs/design.md item 117): the pieces of a long
 * message's text are read as they are, so the text they make (a rope) is never flattened into
 * one string — a copy of 10 MB is one stretch of 30–45 ms here.
 */
export const hashPiecesEffect = (pieces: ReadonlyArray<string>, seed = 0): Effect.Effect<string> =>
  Effect.gen(function*() {
    const lanes = begin(seed)
    let since = 0
    for (const piece of pieces) {
      for (let at = 0; at < piece.length;) {
        const to = Math.min(piece.length, at + hashPiece - since)
        feed(lanes, piece, at, to)
        since += to - at
        at = to
        if (since >= hashPiece) {
          since = 0
          yield* Effect.yieldNow
        }
      }
    }
    return finish(lanes)
  })

/**
 * A running digest of a sequence of hashes: `chain(chain(start, a), b)` identifies the
 * sequence `a, b` (order matters). `start` is the digest of the empty sequence.
 */
export const start = "0000000000000000"

export const chain = (digest: string, next: string): string => hashString(`${digest}:${next}`, 0x9e3779b9)
