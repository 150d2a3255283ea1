/**
 * MediaTokens: what an image or a PDF in a prompt costs, by each provider's published rule.
 *
 * A text tokenizer sees a file part as the short line `PromptWindow.render` writes for it
 * (`[file image/png]`): a few tokens, whatever the file. Providers bill images by their pixels
 * and PDFs by their pages, so the counters (`TokenCounter.layerTokenizer`, `GptTokenizer`,
 * `trim`, `trimModelMessages`, the AI SDK door) add this module's estimate of each file part
 * to the text's tokens.
 *
 * An image's width and height are read from its header (PNG, JPEG, GIF, WebP) — never its
 * pixels, and for base64 never more than the header's bytes — or taken from the part's options
 * (`options["effect-cupel"]`: `width`, `height`, `pages`, `detail`), which is how a link to an
 * image can say its size. A PDF's pages are counted by a bounded scan of its page objects. When
 * neither is known (a link, data that is not an image the module reads) the provider's
 * {@link Rule} gives a fallback: the cost of a large image, of a document of
 * `unknownPdfPages` pages — never the data's length, never a handful of tokens.
 *
 * The rules, their sources and the figures chosen are listed in docs/providers.md ("Images and
 * PDFs", M1–M8).
 *
 * @since 0.3.0
 */
import type { Prompt } from "effect/ai"
import * as Size from "./internal/imageSize.ts"

/**
 * The providers whose rules are known. `"openai"` is the default: the default counter is
 * OpenAI's `o200k_base`.
 *
 * @since 0.3.0
 * @category models
 */
export type Provider = "openai" | "anthropic" | "gemini"

/**
 * The provider rule used when none is chosen.
 *
 * @since 0.3.0
 * @category constants
 */
export const defaultProvider: Provider = "openai"

/**
 * OpenAI's detail level of an image (`image_url.detail`, `providerOptions.openai.imageDetail`).
 *
 * @since 0.3.0
 * @category models
 */
export type Detail = "low" | "high" | "auto"

/**
 * The width and height of an image, in pixels.
 *
 * @since 0.3.0
 * @category models
 */
export interface Dimensions {
  readonly width: number
  readonly height: number
}

/**
 * Anthropic (M1): an image larger than `maxLongEdge` on its long edge or than `maxPixels` is
 * scaled down, its aspect kept, until it fits both; it then costs `width × height /
 * pixelsPerToken`, rounded up.
 *
 * @since 0.3.0
 * @category models
 */
export interface PixelRule {
  readonly _tag: "Pixels"
  readonly maxLongEdge: number
  readonly maxPixels: number
  readonly pixelsPerToken: number
}

/**
 * OpenAI, GPT-4o and GPT-4.1 (M2): `low` detail costs `baseTokens`; `high` and `auto` scale the
 * image to fit a `fit × fit` square, then its shortest side down to `shortSide`, and cost
 * `baseTokens + tileTokens ×` the `tileSize` tiles that cover it.
 *
 * @since 0.3.0
 * @category models
 */
export interface TileRule {
  readonly _tag: "Tiles"
  readonly baseTokens: number
  readonly tileTokens: number
  readonly tileSize: number
  readonly fit: number
  readonly shortSide: number
}

/**
 * Gemini 2.x (M3): an image with both sides at most `smallSide` costs `tileTokens`; a larger one
 * `tileTokens` per `tileSize × tileSize` tile covering it.
 *
 * @since 0.3.0
 * @category models
 */
export interface CropTileRule {
  readonly _tag: "CropTiles"
  readonly smallSide: number
  readonly tileSize: number
  readonly tileTokens: number
}

/**
 * A provider's rule, as data: how an image is billed, what a PDF page costs, the fallbacks, and
 * where the figures come from.
 *
 * - `unknownImage` — the size an image of unknown dimensions is counted as (M5);
 * - `pdfPageTokens` — a PDF page's tokens, its text and its image together (M4);
 * - `unknownPdfPages` — the pages a PDF whose pages are not found is counted as (M6).
 *
 * @since 0.3.0
 * @category models
 */
export interface Rule {
  readonly image: PixelRule | TileRule | CropTileRule
  readonly unknownImage: Dimensions
  readonly pdfPageTokens: number
  readonly unknownPdfPages: number
  readonly sources: ReadonlyArray<string>
}

/**
 * The rules of each provider (docs/providers.md, "Images and PDFs").
 *
 * @since 0.3.0
 * @category constants
 */
export const rules: { readonly [P in Provider]: Rule } = {
  anthropic: {
    image: { _tag: "Pixels", maxLongEdge: 1568, maxPixels: 1_200_000, pixelsPerToken: 750 },
    // The largest square the vision guide's table lists unresized (≈1,590 tokens).
    unknownImage: { width: 1092, height: 1092 },
    // A page is sent as its text and as an image: the image at the size cap (~1,600) and
    // ~700 tokens of text, inside the PDF guide's 1,500–3,000 a page.
    pdfPageTokens: 2300,
    unknownPdfPages: 10,
    sources: [
      "https://platform.claude.com/docs/en/build-with-claude/vision",
      "https://platform.claude.com/docs/en/build-with-claude/pdf-support"
    ]
  },
  openai: {
    image: { _tag: "Tiles", baseTokens: 85, tileTokens: 170, tileSize: 512, fit: 2048, shortSide: 768 },
    // The most tiles an image can cover at high detail: 768 × 2048, 8 tiles (1,445 tokens).
    unknownImage: { width: 768, height: 2048 },
    // A page is sent as its extracted text and an image of it: a portrait page at high detail
    // (4 tiles, 765) and ~700 tokens of text.
    pdfPageTokens: 1465,
    unknownPdfPages: 10,
    sources: [
      "https://platform.openai.com/docs/guides/images-vision#calculating-costs",
      "https://platform.openai.com/docs/guides/pdf-files"
    ]
  },
  gemini: {
    image: { _tag: "CropTiles", smallSide: 384, tileSize: 768, tileTokens: 258 },
    // Four tiles: a 1536 × 1536 image (1,032 tokens).
    unknownImage: { width: 1536, height: 1536 },
    pdfPageTokens: 258,
    unknownPdfPages: 10,
    sources: [
      "https://ai.google.dev/gemini-api/docs/tokens#multimodal-tokens",
      "https://ai.google.dev/gemini-api/docs/document-processing"
    ]
  }
}

/**
 * The tokens of an image of known size by a provider's rule (`detail` applies to OpenAI only:
 * `low` is a fixed cost).
 *
 * @since 0.3.0
 * @category counting
 */
export const imageTokens = (provider: Provider, size: Dimensions, detail: Detail = "auto"): number => {
  const rule = rules[provider].image
  const { width, height } = size
  switch (rule._tag) {
    case "Pixels": {
      const scale = Math.min(1, rule.maxLongEdge / Math.max(width, height), Math.sqrt(rule.maxPixels / (width * height)))
      const w = Math.max(1, Math.floor(width * scale))
      const h = Math.max(1, Math.floor(height * scale))
      return Math.ceil((w * h) / rule.pixelsPerToken)
    }
    case "Tiles": {
      if (detail === "low") return rule.baseTokens
      const fit = Math.min(1, rule.fit / Math.max(width, height))
      const w1 = width * fit
      const h1 = height * fit
      const short = Math.min(1, rule.shortSide / Math.min(w1, h1))
      const tiles = Math.ceil((w1 * short) / rule.tileSize) * Math.ceil((h1 * short) / rule.tileSize)
      return rule.baseTokens + rule.tileTokens * tiles
    }
    case "CropTiles": {
      if (width <= rule.smallSide && height <= rule.smallSide) return rule.tileTokens
      return Math.ceil(width / rule.tileSize) * Math.ceil(height / rule.tileSize) * rule.tileTokens
    }
  }
}

/**
 * The tokens of an image whose size is not known: the rule's `unknownImage` size (M5); `low`
 * detail at OpenAI is its fixed cost, whatever the size.
 *
 * @since 0.3.0
 * @category counting
 */
export const unknownImageTokens = (provider: Provider, detail: Detail = "auto"): number =>
  imageTokens(provider, rules[provider].unknownImage, detail)

/**
 * The tokens of a PDF of `pages` pages (`undefined`: the rule's `unknownPdfPages`).
 *
 * @since 0.3.0
 * @category counting
 */
export const pdfTokens = (provider: Provider, pages: number | undefined): number =>
  rules[provider].pdfPageTokens * (pages ?? rules[provider].unknownPdfPages)

/**
 * What a file part holds, as far as counting goes: an image (its size when known), a PDF (its
 * pages when known), or another file, which costs only its rendered line.
 *
 * @since 0.3.0
 * @category models
 */
export type Media =
  | { readonly _tag: "Image"; readonly size: Dimensions | undefined }
  | { readonly _tag: "Pdf"; readonly pages: number | undefined }
  | { readonly _tag: "Other" }

const image = (size: Dimensions | undefined): Media => ({ _tag: "Image", size })

/** A header's bytes, or for a JPEG a walk of its segments (its frame may sit behind EXIF and ICC data). */
const imageSize = (format: Size.ImageFormat, data: string | Uint8Array): Dimensions | undefined => {
  if (format === "jpeg") return Size.jpegDimensions(data)
  const head = Size.head(data, Size.headerBytes)
  return head === undefined ? undefined : Size.dimensions(format, head)
}

const isImageType = (mediaType: string): boolean => mediaType === "image" || mediaType.startsWith("image/")

/**
 * Measures a file from its media type and data: an image's size from its header, a PDF's
 * pages. The data's own magic number decides the format (a PNG sent as `image/jpeg` is read as
 * the PNG it is); a file of another type whose bytes are an image or a PDF is counted as one.
 * A link (`URL`, `https://…`) is not fetched: its size is unknown.
 *
 * @since 0.3.0
 * @category measuring
 */
export const measure = (mediaType: string, data: string | Uint8Array | URL): Media => {
  const type = mediaType.toLowerCase()
  if (data instanceof URL) {
    return isImageType(type) ? image(undefined) : type === "application/pdf" ? { _tag: "Pdf", pages: undefined } : { _tag: "Other" }
  }
  const head = Size.head(data, Size.headerBytes)
  const format = head === undefined ? undefined : Size.sniff(head)
  if (format === "pdf") return { _tag: "Pdf", pages: Size.pdfPages(data) }
  if (format !== undefined) return image(imageSize(format, data))
  if (isImageType(type)) return image(undefined)
  if (type === "application/pdf") return { _tag: "Pdf", pages: undefined }
  return { _tag: "Other" }
}

/**
 * The key of a file part's options under which a size, pages or detail may be declared:
 * `options["effect-cupel"] = { width, height }`, `{ pages }`, `{ detail }`. The AI SDK door
 * writes the measure there when it converts a message (the data itself is not copied).
 *
 * @since 0.3.0
 * @category constants
 */
export const optionsKey = "effect-cupel"

/**
 * A measure as the JSON a file part's options carry under {@link optionsKey}.
 *
 * @since 0.3.0
 * @category measuring
 */
export const declare = (media: Media, detail?: Detail): { readonly [key: string]: string | number } => ({
  ...(media._tag === "Image" ? { media: "image", ...(media.size === undefined ? {} : media.size) } : {}),
  ...(media._tag === "Pdf" ? { media: "pdf", ...(media.pages === undefined ? {} : { pages: media.pages }) } : {}),
  ...(media._tag === "Other" ? { media: "other" } : {}),
  ...(detail === undefined ? {} : { detail })
})

const record = (value: unknown): { readonly [key: string]: unknown } | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? { ...value } : undefined

const positiveInt = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : undefined

const detailOf = (value: unknown): Detail | undefined =>
  value === "low" || value === "high" || value === "auto" ? value : undefined

/**
 * The detail a part asks for: declared under {@link optionsKey}, or as `@effect/ai-openai` and
 * the AI SDK spell it (`openai.imageDetail`).
 *
 * @since 0.3.0
 * @category measuring
 */
export const detailOfPart = (part: Prompt.FilePart): Detail | undefined =>
  detailOf(record(part.options[optionsKey])?.["detail"]) ?? detailOf(record(part.options["openai"])?.["imageDetail"])

/** What the part's options declare, when they declare a measure. */
const declared = (part: Prompt.FilePart): Media | undefined => {
  const own = record(part.options[optionsKey])
  if (own === undefined) return undefined
  const width = positiveInt(own["width"])
  const height = positiveInt(own["height"])
  const pages = positiveInt(own["pages"])
  switch (own["media"]) {
    case "image":
      return image(width !== undefined && height !== undefined ? { width, height } : undefined)
    case "pdf":
      return { _tag: "Pdf", pages }
    case "other":
      return { _tag: "Other" }
  }
  if (width !== undefined && height !== undefined) return image({ width, height })
  if (pages !== undefined) return { _tag: "Pdf", pages }
  return undefined
}

/**
 * The tokens a measured file costs by a provider's rule, besides its rendered line.
 *
 * @since 0.3.0
 * @category counting
 */
export const mediaTokens = (provider: Provider, media: Media, detail?: Detail): number => {
  switch (media._tag) {
    case "Image":
      return media.size === undefined ? unknownImageTokens(provider, detail) : imageTokens(provider, media.size, detail)
    case "Pdf":
      return pdfTokens(provider, media.pages)
    case "Other":
      return 0
  }
}

/**
 * The tokens of one file part by a provider's rule: its declared measure, else its data's.
 *
 * @since 0.3.0
 * @category counting
 */
export const ofPart = (part: Prompt.FilePart, provider: Provider = defaultProvider): number => {
  const media = declared(part) ?? measure(part.mediaType, part.data)
  return mediaTokens(provider, media, detailOfPart(part))
}

/**
 * The tokens of a message's images and PDFs by a provider's rule (0 for a message without
 * any): what a counter adds to the tokens of the message's text. The file parts of a tool
 * result's `modelOutput` count by the same rule.
 *
 * @since 0.3.0
 * @category counting
 */
export const ofMessage = (message: Prompt.Message, provider: Provider = defaultProvider): number => {
  if (message.role === "system") return 0
  let total = 0
  for (const part of message.content) {
    if (part.type === "file") total += ofPart(part, provider)
    // A tool's image (a screenshot a computer-use tool returns) is sent to the model as its
    // output's file part: billed by the same rule as a user's (design item 101).
    else if (part.type === "tool-result" && part.modelOutput !== undefined) {
      for (const output of part.modelOutput) if (output.type === "file") total += ofPart(output, provider)
    }
  }
  return total
}
