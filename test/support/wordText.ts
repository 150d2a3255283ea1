/**
 * A long text of `n` characters drawn from `words` by a seeded PRNG, joined by spaces: the
 * log-like results the huge-result tests feed the doors (each test its own words).
 */
import { mulberry32 } from "./sessions.ts"

/** `n` characters of `words`, drawn from seed `seed`, space-separated (the last word cut). */
export const wordText = (words: ReadonlyArray<string>, n: number, seed: number): string => {
  const random = mulberry32(seed)
  const parts: Array<string> = []
  let length = 0
  while (length < n) {
    const w = words[Math.floor(random() * words.length)]!
    parts.push(w)
    length += w.length + 1
  }
  return parts.join(" ").slice(0, n)
}
