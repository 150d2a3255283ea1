/**
 * Image and PDF files made in the tests: valid headers (and for PNG, GIF and PDF whole small
 * files) of chosen sizes, so that no binary fixture is checked in.
 */
import { deflateSync } from "node:zlib"

const crcTable = (() => {
  const table = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    table[n] = c >>> 0
  }
  return table
})()

const crc32 = (bytes: Uint8Array): number => {
  let c = 0xffffffff
  for (const b of bytes) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

const u32be = (n: number): Array<number> => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]
const u16be = (n: number): Array<number> => [(n >>> 8) & 0xff, n & 0xff]
const u16le = (n: number): Array<number> => [n & 0xff, (n >>> 8) & 0xff]
const u24le = (n: number): Array<number> => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff]
const u32le = (n: number): Array<number> => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff]
const ascii = (text: string): Array<number> => Array.from(text, (c) => c.charCodeAt(0))

const concat = (...parts: ReadonlyArray<ArrayLike<number>>): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

const pngChunk = (type: string, data: Uint8Array): Uint8Array => {
  const typed = concat(ascii(type), data)
  return concat(u32be(data.length), typed, u32be(crc32(typed)))
}

/**
 * A PNG of `width × height` (grey, 8 bits). With `pixels: false` the image data is a single
 * empty row stream (the header is what is read); `padding` bytes of an ancillary chunk make a
 * file as large as wanted.
 */
export const png = (width: number, height: number, options?: { readonly pixels?: boolean; readonly padding?: number }): Uint8Array => {
  const ihdr = pngChunk("IHDR", concat(u32be(width), u32be(height), [8, 0, 0, 0, 0]))
  const rows = options?.pixels === false ? new Uint8Array(0) : new Uint8Array((width + 1) * height)
  const idat = pngChunk("IDAT", new Uint8Array(deflateSync(rows)))
  const padding = options?.padding === undefined ? new Uint8Array(0) : pngChunk("zzZz", randomBytes(options.padding))
  return concat([0x89, ...ascii("PNG\r\n\x1a\n")], ihdr, padding, idat, pngChunk("IEND", new Uint8Array(0)))
}

/** Bytes that are not all zero (a compressible fill would hide a reader that reads everything). */
export const randomBytes = (n: number, seed = 7): Uint8Array => {
  const out = new Uint8Array(n)
  let x = seed >>> 0 || 1
  for (let i = 0; i < n; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    out[i] = x & 0xff
  }
  return out
}

/**
 * A JPEG's header up to its frame (baseline SOF0, or progressive SOF2): SOI, JFIF APP0, an APP1
 * of `exif` bytes (EXIF and thumbnails sit there), then the frame header, the end marker.
 */
export const jpeg = (width: number, height: number, options?: { readonly exif?: number; readonly progressive?: boolean }): Uint8Array => {
  const app0 = concat([0xff, 0xe0], u16be(16), ascii("JFIF\0"), [1, 1, 0], u16be(72), u16be(72), [0, 0])
  const exif = options?.exif ?? 0
  const app1 = exif === 0 ? new Uint8Array(0) : concat([0xff, 0xe1], u16be(exif + 2), randomBytes(exif, 11))
  const sof = concat([0xff, options?.progressive ? 0xc2 : 0xc0], u16be(17), [8], u16be(height), u16be(width), [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1])
  return concat([0xff, 0xd8], app0, app1, sof, [0xff, 0xd9])
}

/** A GIF: header, logical screen of `width × height`, no image blocks, the trailer. */
export const gif = (width: number, height: number): Uint8Array =>
  concat(ascii("GIF89a"), u16le(width), u16le(height), [0, 0, 0], [0x3b])

const riff = (chunk: string, payload: Uint8Array): Uint8Array => {
  const body = concat(ascii("WEBP"), ascii(chunk), u32le(payload.length), payload)
  return concat(ascii("RIFF"), u32le(body.length), body)
}

/** A WebP header of each encoding: lossy (VP8, ≤ 16383), lossless (VP8L, ≤ 16384), extended (VP8X). */
export const webp = (encoding: "VP8" | "VP8L" | "VP8X", width: number, height: number): Uint8Array => {
  switch (encoding) {
    case "VP8":
      return riff("VP8 ", concat([0x10, 0x02, 0x00], [0x9d, 0x01, 0x2a], u16le(width), u16le(height), new Uint8Array(10)))
    case "VP8L": {
      const bits = ((width - 1) | ((height - 1) << 14)) >>> 0
      return riff("VP8L", concat([0x2f], u32le(bits), new Uint8Array(5)))
    }
    case "VP8X":
      return riff("VP8X", concat([0x10, 0, 0, 0], u24le(width - 1), u24le(height - 1)))
  }
}

/**
 * A PDF of `pages` pages, with a cross-reference table. `count: false` leaves the page tree's
 * `/Count` out; `pageObjects: false` leaves the page objects out (as when they are packed in a
 * compressed object stream); `padding` puts a comment of that many characters before the pages.
 */
export const pdf = (
  pages: number,
  options?: { readonly count?: boolean; readonly pageObjects?: boolean; readonly padding?: number }
): Uint8Array => {
  const objects: Array<string> = []
  const kids = Array.from({ length: pages }, (_, i) => `${i + 3} 0 R`).join(" ")
  objects.push("<< /Type /Catalog /Pages 2 0 R >>")
  objects.push(`<< /Type /Pages /Kids [${kids}]${options?.count === false ? "" : ` /Count ${pages}`} >>`)
  if (options?.pageObjects !== false) {
    for (let i = 0; i < pages; i++) objects.push("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>")
  }
  let text = "%PDF-1.4\n"
  if (options?.padding !== undefined) text += `%${"x".repeat(options.padding)}\n`
  const offsets: Array<number> = []
  objects.forEach((body, i) => {
    offsets.push(text.length)
    text += `${i + 1} 0 obj\n${body}\nendobj\n`
  })
  const xref = text.length
  text += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`
  for (const offset of offsets) text += `${String(offset).padStart(10, "0")} 00000 n \n`
  text += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return new Uint8Array(Buffer.from(text, "latin1"))
}

/** Base64 of bytes, and a data URL of a media type. */
export const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64")
export const dataUrl = (mediaType: string, bytes: Uint8Array): string => `data:${mediaType};base64,${base64(bytes)}`
