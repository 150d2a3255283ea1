/**
 * Reading what a file's header says without decoding it: the bytes at the start of base64
 * text, a data URL or a byte array; an image's width and height from its header (PNG, JPEG,
 * GIF, WebP), never its pixels; the pages of a PDF by a bounded scan of its objects.
 *
 * Base64 is decoded only as far as a reader needs (a few kilobytes for a header), so a 5 MB
 * image costs the same to measure as a 5 kB one.
 *
 * @internal
 */

/** The width and height of an image, in pixels. */
export interface Dimensions {
  readonly width: number
  readonly height: number
}

/** The image formats whose headers are read. */
export type ImageFormat = "png" | "jpeg" | "gif" | "webp"

/**
 * How far into a file a JPEG's frame header is looked for, and through how many segments: EXIF
 * and ICC segments come before it and may hold a thumbnail, so the scan walks segment by
 * segment, reading a few bytes of each.
 */
export const jpegScanBytes = 16 * 1024 * 1024
export const jpegSegments = 1024

/** The bytes every other header needs (PNG 24, GIF 10, WebP 30). */
export const headerBytes = 64

/**
 * How many bytes of a PDF are scanned for its pages: a bound on the time a message costs to
 * count. A larger document is counted from its first `pdfScanBytes` (a lower bound).
 */
export const pdfScanBytes = 32 * 1024 * 1024

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
const sextets: Int16Array = (() => {
  const table = new Int16Array(128).fill(-1)
  for (let i = 0; i < alphabet.length; i++) table[alphabet.charCodeAt(i)] = i
  // base64url spells 62 and 63 differently.
  table["-".charCodeAt(0)] = 62
  table["_".charCodeAt(0)] = 63
  return table
})()

const sextet = (code: number): number => (code < 128 ? sextets[code]! : -1)

/**
 * Decodes base64 from `start` until `maxBytes` bytes are out or the text ends; characters
 * outside the alphabet (line breaks, padding) are skipped. Returns the bytes and the index of
 * the next character, for a caller reading on in chunks.
 */
export const decodeBase64 = (
  text: string,
  start: number,
  maxBytes: number
): { readonly bytes: Uint8Array; readonly next: number } => {
  // A whole number of 3-byte quanta: the decoding then stops after a 4th character, so that
  // the next chunk starts on a quantum.
  const capacity = Math.ceil(maxBytes / 3) * 3
  const out = new Uint8Array(capacity)
  let n = 0
  let buffer = 0
  let bits = 0
  let i = start
  const end = text.length
  // Four characters at a time while they are all in the alphabet (a data URL's payload).
  while (bits === 0 && n + 3 <= capacity && i + 4 <= end) {
    const a = sextet(text.charCodeAt(i))
    const b = sextet(text.charCodeAt(i + 1))
    const c = sextet(text.charCodeAt(i + 2))
    const d = sextet(text.charCodeAt(i + 3))
    if ((a | b | c | d) < 0) break
    const v = (a << 18) | (b << 12) | (c << 6) | d
    out[n++] = v >> 16
    out[n++] = (v >> 8) & 0xff
    out[n++] = v & 0xff
    i += 4
  }
  for (; i < end && n < capacity; i++) {
    const value = sextet(text.charCodeAt(i))
    if (value < 0) continue
    buffer = ((buffer << 6) | value) & 0xffffff
    bits += 6
    if (bits >= 8) {
      bits -= 8
      out[n++] = (buffer >> bits) & 0xff
    }
  }
  return { bytes: out.subarray(0, n), next: i }
}

/** Where the base64 payload of a string starts: after a data URL's comma, else at 0. */
const payloadStart = (text: string): number | undefined => {
  if (!text.startsWith("data:")) return 0
  const comma = text.indexOf(",")
  if (comma < 0) return undefined
  // Only base64 data URLs are read: a percent-encoded one is text (an SVG), not a raster.
  return text.slice(0, comma).endsWith(";base64") ? comma + 1 : undefined
}

/** Whether a string is a link rather than data: nothing to read here. */
export const isLink = (text: string): boolean => /^(https?|gs|s3|file):\/\//i.test(text)

/**
 * The first `maxBytes` bytes of a file given as bytes, base64 or a base64 data URL;
 * `undefined` for a link or a data URL that is not base64.
 */
export const head = (data: string | Uint8Array, maxBytes: number): Uint8Array | undefined => {
  if (typeof data !== "string") return data.subarray(0, maxBytes)
  if (isLink(data)) return undefined
  const start = payloadStart(data)
  if (start === undefined) return undefined
  return decodeBase64(data, start, maxBytes).bytes
}

/**
 * `length` bytes of a file from `offset`, reading nothing else: a byte array is sliced, base64
 * decoded from the quantum holding `offset` (which assumes base64 without line breaks, as a
 * data URL's is: with them, a header read this way does not parse, and the size is unknown).
 */
export const read = (data: string | Uint8Array, offset: number, length: number): Uint8Array | undefined => {
  if (typeof data !== "string") return data.subarray(offset, offset + length)
  if (isLink(data)) return undefined
  const start = payloadStart(data)
  if (start === undefined) return undefined
  const quantum = Math.floor(offset / 3)
  const skip = offset - quantum * 3
  return decodeBase64(data, start + quantum * 4, skip + length).bytes.subarray(skip, skip + length)
}

/**
 * The file in chunks of about `chunkBytes`, up to `maxBytes` in all: a byte array is sliced,
 * base64 decoded a chunk at a time (never whole).
 */
export function* chunks(data: string | Uint8Array, chunkBytes: number, maxBytes: number): Generator<Uint8Array> {
  if (typeof data !== "string") {
    const end = Math.min(data.length, maxBytes)
    for (let at = 0; at < end; at += chunkBytes) yield data.subarray(at, Math.min(end, at + chunkBytes))
    return
  }
  if (isLink(data)) return
  const start = payloadStart(data)
  if (start === undefined) return
  let at = start
  let total = 0
  while (at < data.length && total < maxBytes) {
    const { bytes, next } = decodeBase64(data, at, Math.min(chunkBytes, maxBytes - total))
    if (bytes.length === 0) return
    total += bytes.length
    at = next
    yield bytes
  }
}

const u16be = (b: Uint8Array, i: number): number => (b[i]! << 8) | b[i + 1]!
const u16le = (b: Uint8Array, i: number): number => b[i]! | (b[i + 1]! << 8)
const u24le = (b: Uint8Array, i: number): number => b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16)
const u32be = (b: Uint8Array, i: number): number => ((b[i]! << 24) >>> 0) + (b[i + 1]! << 16) + (b[i + 2]! << 8) + b[i + 3]!
const ascii = (b: Uint8Array, i: number, text: string): boolean => {
  if (b.length < i + text.length) return false
  for (let k = 0; k < text.length; k++) if (b[i + k] !== text.charCodeAt(k)) return false
  return true
}

/** The format a file's first bytes announce (its magic number), if it is one of the four. */
export const sniff = (b: Uint8Array): ImageFormat | "pdf" | undefined => {
  if (b.length >= 8 && b[0] === 0x89 && ascii(b, 1, "PNG\r\n\x1a\n")) return "png"
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "jpeg"
  if (ascii(b, 0, "GIF87a") || ascii(b, 0, "GIF89a")) return "gif"
  if (ascii(b, 0, "RIFF") && ascii(b, 8, "WEBP")) return "webp"
  if (ascii(b, 0, "%PDF-")) return "pdf"
  return undefined
}

const positive = (width: number, height: number): Dimensions | undefined =>
  width > 0 && height > 0 ? { width, height } : undefined

/** PNG: the IHDR chunk comes first, width and height big-endian at 16 and 20. */
const png = (b: Uint8Array): Dimensions | undefined =>
  b.length >= 24 && ascii(b, 12, "IHDR") ? positive(u32be(b, 16), u32be(b, 20)) : undefined

/** GIF: the logical screen's width and height, little-endian at 6 and 8. */
const gif = (b: Uint8Array): Dimensions | undefined => b.length >= 10 ? positive(u16le(b, 6), u16le(b, 8)) : undefined

/** WebP: the first chunk says the encoding: lossy (VP8), lossless (VP8L) or extended (VP8X). */
const webp = (b: Uint8Array): Dimensions | undefined => {
  if (ascii(b, 12, "VP8 ") && b.length >= 30 && b[23] === 0x9d && b[24] === 0x01 && b[25] === 0x2a) {
    return positive(u16le(b, 26) & 0x3fff, u16le(b, 28) & 0x3fff)
  }
  if (ascii(b, 12, "VP8L") && b.length >= 25 && b[20] === 0x2f) {
    const bits = b[21]! | (b[22]! << 8) | (b[23]! << 16) | (b[24]! << 24)
    return positive((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1)
  }
  if (ascii(b, 12, "VP8X") && b.length >= 30) return positive(u24le(b, 24) + 1, u24le(b, 27) + 1)
  return undefined
}

/** The JPEG markers that start a frame (SOF0–SOF15 but DHT, JPG and DAC). */
const isFrame = (marker: number): boolean =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc

/**
 * JPEG: walks the segments (each says its length) to the first frame header, reading only
 * each segment's first bytes: at most {@link jpegSegments} segments within {@link jpegScanBytes}.
 */
export const jpegDimensions = (data: string | Uint8Array): Dimensions | undefined => {
  let i = 2
  for (let step = 0; step < jpegSegments && i < jpegScanBytes; step++) {
    const b = read(data, i, 10)
    if (b === undefined || b.length < 4 || b[0] !== 0xff) return undefined
    const marker = b[1]!
    // Fill bytes, and markers without a length (RSTn, TEM).
    if (marker === 0xff) {
      i++
      continue
    }
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      i += 2
      continue
    }
    // The image data starts (SOS) or ends (EOI) before any frame: not a readable header.
    if (marker === 0xda || marker === 0xd9) return undefined
    if (isFrame(marker)) return b.length < 9 ? undefined : positive(u16be(b, 7), u16be(b, 5))
    i += 2 + u16be(b, 2)
  }
  return undefined
}

/** An image's dimensions from its first bytes; `undefined` when they do not say. */
export const dimensions = (format: ImageFormat, b: Uint8Array): Dimensions | undefined => {
  switch (format) {
    case "png":
      return png(b)
    case "gif":
      return gif(b)
    case "webp":
      return webp(b)
    case "jpeg":
      return jpegDimensions(b)
  }
}

// Longer than any match, so that a match starting before a chunk's last `overlap` bytes is
// whole in it (a `/Page` followed by the `s` of the next chunk is a `/Pages`).
const overlap = 64
const slash = 0x2f
const typeBytes = [0x2f, 0x54, 0x79, 0x70, 0x65] // "/Type"
const pageBytes = [0x2f, 0x50, 0x61, 0x67, 0x65] // "/Page"
const countBytes = [0x2f, 0x43, 0x6f, 0x75, 0x6e, 0x74] // "/Count"
const isSpace = (c: number | undefined): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0x00
const isLetter = (c: number | undefined): boolean => c !== undefined && ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a))
const isDigit = (c: number | undefined): boolean => c !== undefined && c >= 0x30 && c <= 0x39
const at = (b: Uint8Array, i: number, word: ReadonlyArray<number>): boolean => {
  for (let k = 0; k < word.length; k++) if (b[i + k] !== word[k]) return false
  return true
}
/** Past up to 8 white-space bytes from `i`. */
const skipSpace = (b: Uint8Array, i: number): number => {
  let j = i
  while (j - i < 8 && isSpace(b[j])) j++
  return j
}

/**
 * The pages of a PDF: the `/Type /Page` objects in its first {@link pdfScanBytes}, or the
 * largest `/Count` of its page tree when that is more (objects packed in compressed streams
 * are not seen); `undefined` when neither is found. Scans bytes (no text decoding), a chunk at
 * a time.
 */
export const pdfPages = (data: string | Uint8Array): number | undefined => {
  let pages = 0
  let count = 0
  // Counts what starts before `limit`: a match starting there is whole in `b`.
  const scan = (b: Uint8Array, limit: number): void => {
    for (let i = b.indexOf(slash); i >= 0 && i < limit; i = b.indexOf(slash, i + 1)) {
      if (at(b, i, typeBytes)) {
        const j = skipSpace(b, i + typeBytes.length)
        if (at(b, j, pageBytes) && !isLetter(b[j + pageBytes.length])) pages++
      } else if (at(b, i, countBytes)) {
        const j = skipSpace(b, i + countBytes.length)
        if (j === i + countBytes.length) continue
        let n = 0
        let k = j
        while (k - j < 7 && isDigit(b[k])) n = n * 10 + b[k++]! - 0x30
        if (k > j) count = Math.max(count, n)
      }
    }
  }
  let carry = new Uint8Array(0)
  for (const chunk of chunks(data, 1024 * 1024, pdfScanBytes)) {
    const b = new Uint8Array(carry.length + chunk.length)
    b.set(carry)
    b.set(chunk, carry.length)
    const limit = Math.max(0, b.length - overlap)
    scan(b, limit)
    carry = b.slice(limit)
  }
  scan(carry, carry.length)
  const found = Math.max(pages, count)
  return found > 0 ? found : undefined
}
