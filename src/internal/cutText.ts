/**
 * Cutting text to a length at a grapheme's end, shared by the call-report log's previews and
 * `cupel view`'s lines.
 *
 * @internal
 */

const segmenter = new Intl.Segmenter()
const simple = /^[\u0020-\u007e\u00a0-\u02ff]*$/

/**
 * `text` when it has at most `width` UTF-16 units; else its first whole graphemes that fit in
 * `width - 1`, and `…`. A cut inside an emoji's UTF-16 pair would leave half of it (U+FFFD).
 */
export const cutText = (text: string, width: number): string => {
  if (text.length <= width) return text
  // Printable Latin text up to the cut (no surrogate, combining mark or line break): each unit is
  // a grapheme, and the one after the cut does not join the one before it. (A long session's
  // page cuts some 100,000 texts; segmenting each took seconds.)
  if (simple.test(text.slice(0, width))) return text.slice(0, width - 1) + "…"
  let out = ""
  for (const { segment } of segmenter.segment(text)) {
    if (out.length + segment.length > width - 1) break
    out += segment
  }
  return out + "…"
}
