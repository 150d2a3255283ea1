/**
 * Counting a long text in pieces, yielding between them (issue 27, item 5; docs/design.md item
 * 90): the encodings `gpt-tokenizer` counts (o200k, cl100k) split a text into pre-tokens by a
 * regular expression and encode each pre-token alone, so the count of a text is the sum of the
 * counts of pieces cut where a pre-token always ends. Two places always are, in both encodings'
 * patterns: right after a line break followed by a letter (a letter's pre-token may take one
 * leading character, never `\r` or `\n`), and between a letter and a space followed by a letter
 * (no pre-token holds a letter and then a space; the space opens the next word's pre-token).
 *
 * Where to cut is decided by the text around the place (content-defined, as backup tools cut
 * files): a place is a cut when a hash of the 16 characters before it has its low bits zero,
 * with pieces of at least {@link minPiece} and at most about {@link maxPiece} characters. So
 * two texts that share a stretch (a 5 MB result and its shortened head and tail) are cut alike
 * in it, and the counts of its pieces, remembered by the counter, are not made again: a
 * shortening's every candidate costs the pieces at its edges, not its length.
 *
 * The fiber yields between pieces, so that the event loop is never held for longer than one
 * piece takes (a few milliseconds). A stretch with no space to cut at (a base64 blob, a JSON
 * line), and a text's last stretch, are cut at a number's edge (before a digit that follows
 * neither a number nor whitespace, after a digit before a letter), content-defined as well, in
 * pieces of 1–4 Ki (design item 122); a stretch with neither is one piece.
 *
 * @internal
 */
import { Effect } from "effect"

/** A text no longer than this is counted whole. */
export const pieceChars = 32_768

/** The shortest piece and the length after which the next place is a cut, whatever its hash. */
export const minPiece = 4_096
export const maxPiece = 65_536
/**
 * The longest piece cut at a number's edge, when no content-defined edge comes first: shorter
 * than a space-cut piece, as such text (base64) costs the tokenizer several times prose's time
 * a character (up to 1 ms a kilocharacter met for the first time).
 */
export const numberPiece = 4_096
const mask = 0x3ff

const letter = /\p{L}/u

/** Whether the UTF-16 unit at `at` is a letter (ASCII by its code; others by `\p{L}`). */
const isLetter = (text: string, at: number): boolean => {
  const c = text.charCodeAt(at)
  if (c < 128) return (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
  return c === c && letter.test(text[at]!)
}

/** Whether a pre-token of o200k and cl100k always ends right before `at`. */
const isBoundary = (text: string, at: number): boolean => {
  const next = text.charCodeAt(at)
  if (next === 32) return isLetter(text, at - 1) && isLetter(text, at + 1)
  return text.charCodeAt(at - 1) === 10 && isLetter(text, at)
}

/** A hash of the 16 characters before `at`. */
const hashBefore = (text: string, at: number): number => {
  let h = 0x811c9dc5
  for (let i = Math.max(0, at - 16); i < at; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return (h ^ (h >>> 15)) >>> 0
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57

const space = /\s/u

/** Whether the UTF-16 unit at `at` is whitespace (`\s`, as the encodings' patterns read it). */
const isSpace = (text: string, at: number): boolean => {
  const c = text.charCodeAt(at)
  if (c < 128) return c === 32 || (c >= 9 && c <= 13)
  return space.test(text[at]!)
}

const number = /\p{N}/u

/**
 * Whether a pre-token always ends right before `at` at a number's edge: before an ASCII digit
 * that follows anything but a number (no pattern of o200k or cl100k holds a digit after another
 * character: a number's pre-token, `\p{N}{1,3}`, starts at its first digit, and the letters',
 * punctuation's and spaces' pre-tokens hold no digit), or after an ASCII digit before a letter.
 * So a text with no spaces (a base64 blob, a minified JSON line) can be cut too. A character
 * before the digit that is half of a surrogate pair is never taken for a cut (it may be a
 * number outside the BMP).
 */
const isNumberEdge = (text: string, at: number): boolean => {
  const before = text.charCodeAt(at - 1)
  const next = text.charCodeAt(at)
  if (isDigit(next)) {
    // Not after a space: whitespace that ends a text is one pre-token (`\s+(?!\S)` takes it
    // whole), while before a digit its last space is a pre-token of its own (design item 122).
    if (isDigit(before) || (before >= 0xd800 && before <= 0xdfff) || isSpace(text, at - 1)) return false
    return before < 128 || !number.test(text[at - 1]!)
  }
  return isDigit(before) && isLetter(text, at)
}

/** The first place after a space that is a cut (see the module's header), or -1 within `limit`. */
const spaceCut = (text: string, start: number, limit: number): number => {
  for (let i = text.indexOf(" ", start + minPiece); i >= 0 && i < limit; i = text.indexOf(" ", i + 1)) {
    if (!isBoundary(text, i)) continue
    if (i - start >= maxPiece || (hashBefore(text, i) & mask) === 0) return i
  }
  return -1
}

/** The shortest piece cut at a number's edge. */
const numberMin = 1_024
/** A number's edge whose 16 characters before hash to 0 under this mask is a cut (1 in 256). */
const numberMask = 0xff

/**
 * The first cut at a number's edge in a piece from `start`, within `limit`, or -1: the first
 * edge after {@link numberMin} whose 16 characters before hash to a fixed value (a place fixed by
 * the content, so that two texts that share a stretch — a shortening's candidates, whose tails
 * start anywhere in the original — are cut alike a kilocharacter or two into it, and share their
 * pieces' counts from there), else the first edge after {@link numberPiece} (design item 122).
 */
const numberCut = (text: string, start: number, limit: number): number => {
  for (let i = start + numberMin; i < limit; i++) {
    if (!isNumberEdge(text, i)) continue
    if (i - start >= numberPiece || (hashBefore(text, i) & numberMask) === 0) return i
  }
  return -1
}

/**
 * The text cut at pre-token boundaries into pieces (see the module's header), one at a time:
 * the scan for the next cut is itself a piece's work. A stretch of {@link maxPiece} with no
 * space cut placed by the content is cut at a number's edge ({@link numberCut}), and so is the
 * text's last stretch once longer than {@link numberPiece}; a stretch with neither (letters and
 * punctuation only, for megabytes) is one piece.
 */
export function* pieces(text: string): Generator<string> {
  let start = 0
  while (text.length - start > numberPiece) {
    if (text.length - start <= maxPiece) {
      // The last stretch: cut only at a number's edge (a stretch with no space costs the
      // tokenizer up to 1 ms a kilocharacter: 64 Ki of base64 was one stretch of 40-70 ms).
      const edge = numberCut(text, start, text.length)
      if (edge < 0) break
      yield text.slice(start, edge)
      start = edge
      continue
    }
    const limit = Math.min(text.length, start + 2 * maxPiece)
    let cut = spaceCut(text, start, limit)
    // A space cut past `maxPiece` is placed by the length, not the content: a number's edge
    // before it is as good a place, and keeps a stretch with no space (base64 before a
    // shortening's marker) from being one piece of up to twice `maxPiece` (design item 122).
    if (cut < 0 || cut - start >= maxPiece) {
      const edge = numberCut(text, start, cut < 0 ? limit : cut)
      if (edge >= 0) cut = edge
    }
    if (cut < 0) cut = spaceCut(text, start, text.length)
    if (cut < 0) cut = numberCut(text, start, text.length)
    if (cut < 0) break
    yield text.slice(start, cut)
    start = cut
  }
  yield text.slice(start)
}

/**
 * A counter of pieces that remembers the last few thousand pieces' counts (by their text).
 */
export const makeMemo = (countText: (text: string) => number, size = 2_048): (piece: string) => number => {
  const known = new Map<string, number>()
  return (piece) => {
    const n = known.get(piece)
    if (n !== undefined) return n
    const counted = countText(piece)
    if (known.size >= size) known.delete(known.keys().next().value!)
    known.set(piece, counted)
    return counted
  }
}

/**
 * The tokens of `text` by `countPiece` (a {@link makeMemo}), summed over its {@link pieces},
 * yielding to the event loop between pieces. A text of at most {@link pieceChars} is counted at
 * once by `countText`.
 */
export const count = (
  text: string,
  countText: (text: string) => number,
  countPiece: (piece: string) => number = countText
): Effect.Effect<number> =>
  text.length <= pieceChars
    ? Effect.sync(() => countText(text))
    : Effect.gen(function*() {
      let total = 0
      for (const piece of pieces(text)) {
        total += countPiece(piece)
        yield* Effect.yieldNow
      }
      return total
    })
