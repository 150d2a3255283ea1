/**
 * Cutting text to a length at a grapheme's end, shared by the call-report log's previews and
 * `cupel view`'s lines.
 *
 * @internal
 */

const segmenter = new Intl.Segmenter()

/**
 * `text` when it has at most `width` UTF-16 units; else its first whole graphemes that fit in
 * `width - 1`, and `…`. A cut inside an emoji's UTF-16 pair would leave half of it (U+FFFD).
 */
export const cutText = (text: string, width: number): string => {
  if (text.length <= width) return text
  let out = ""
  for (const { segment } of segmenter.segment(text)) {
    if (out.length + segment.length > width - 1) break
    out += segment
  }
  return out + "…"
}
