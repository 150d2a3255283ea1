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

const hex = (n: number): string => (n >>> 0).toString(16).padStart(8, "0")

/** The hash of `text`, seeded (different seeds give unrelated hashes), as 16 hex digits. */
export const hashString = (text: string, seed = 0): string => {
  let h1 = 0xdeadbeef ^ seed
  let h2 = 0x41c6ce57 ^ seed
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    h1 = Math.imul(h1 ^ c, 2654435761)
    h2 = Math.imul(h2 ^ c, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return hex(h2) + hex(h1)
}

/**
 * A running digest of a sequence of hashes: `chain(chain(start, a), b)` identifies the
 * sequence `a, b` (order matters). `start` is the digest of the empty sequence.
 */
export const start = "0000000000000000"

export const chain = (digest: string, next: string): string => hashString(`${digest}:${next}`, 0x9e3779b9)
