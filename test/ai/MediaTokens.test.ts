/**
 * Images and PDFs counted per provider (docs/providers.md, "Images and PDFs", M1–M8): sizes
 * read from headers made here, each provider's published formula transcribed on its own and
 * compared, the fallbacks, the bounded reads, and the estimate through every front door.
 */
import { assert, describe, it } from "@effect/vitest"
import { generateText, type ModelMessage, wrapLanguageModel } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import { Effect, Layer } from "effect"
import { Prompt } from "effect/ai"
import * as fc from "fast-check"
import * as AiSdk from "../../src/adapters/AiSdk.ts"
import * as GptTokenizer from "../../src/ai/GptTokenizer.ts"
import * as MediaTokens from "../../src/ai/MediaTokens.ts"
import * as TokenCounter from "../../src/ai/TokenCounter.ts"
import * as Size from "../../src/ai/internal/imageSize.ts"
import { trim, trimModelMessages } from "../../src/plain/Trim.ts"
import { base64, dataUrl, gif, jpeg, pdf, png, randomBytes, webp } from "../support/mediaFixtures.ts"

// The providers' formulas, transcribed from their pages as literally as they read, apart from
// the implementation (which keeps them as data in MediaTokens.rules).

/** Anthropic, vision guide: "If your image's long edge is more than 1568 pixels, or your image is
 * more than ~1,600 tokens, it will first be scaled down, preserving aspect ratio, until it's
 * within the size limits"; "tokens = (width px * height px)/750". */
const anthropicFormula = (width: number, height: number): number => {
  let w = width
  let h = height
  if (Math.max(w, h) > 1568) {
    const s = 1568 / Math.max(w, h)
    w *= s
    h *= s
  }
  if ((w * h) / 750 > 1600) {
    const s = Math.sqrt((1600 * 750) / (w * h))
    w *= s
    h *= s
  }
  return (w * h) / 750
}

/** OpenAI, images and vision guide (GPT-4o, GPT-4.1): low = 85; high: "scaled to fit within a
 * 2048 x 2048 square", then "scaled such that the shortest side of the image is 768px long",
 * then "count how many 512px squares the image consists of. Each of those squares costs 170
 * tokens. Another 85 tokens are always added to the final total." */
const openaiFormula = (width: number, height: number, detail: "low" | "high"): number => {
  if (detail === "low") return 85
  let w = width
  let h = height
  if (w > 2048 || h > 2048) {
    const s = 2048 / Math.max(w, h)
    w *= s
    h *= s
  }
  if (Math.min(w, h) > 768) {
    const s = 768 / Math.min(w, h)
    w *= s
    h *= s
  }
  return 170 * Math.ceil(w / 512) * Math.ceil(h / 512) + 85
}

/** Gemini, token guide: "image inputs with both dimensions <=384 pixels are counted as 258
 * tokens. Images larger in one or both dimensions are cropped and scaled as needed into tiles of
 * 768x768 pixels, each counted as 258 tokens." */
const geminiFormula = (width: number, height: number): number =>
  width <= 384 && height <= 384 ? 258 : Math.ceil(width / 768) * Math.ceil(height / 768) * 258

/** The fixture set of sizes: icons, screenshots, photos, panoramas, the providers' examples. */
const sizes: ReadonlyArray<readonly [number, number]> = [
  [64, 64], [200, 200], [384, 384], [385, 200], [512, 512], [800, 600], [1000, 1000], [1024, 1024], [1092, 1092],
  [1280, 720], [1366, 768], [1568, 1568], [1920, 1080], [2048, 4096], [2560, 1440], [3024, 4032], [4000, 3000],
  [768, 2048], [8000, 400], [100, 5000]
]

const within10 = (actual: number, expected: number, what: string) =>
  assert.isAtMost(Math.abs(actual - expected), 0.1 * expected, `${what}: ${actual} against ${expected}`)

describe("MediaTokens: image headers", () => {
  it("PNG, JPEG (baseline and progressive), GIF and WebP (VP8, VP8L, VP8X) give their width and height, from bytes, base64 and a data URL", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 16383 }), fc.integer({ min: 1, max: 16383 }), (width, height) => {
        const files: ReadonlyArray<readonly [string, Uint8Array]> = [
          ["image/png", png(width, height, { pixels: false })],
          ["image/jpeg", jpeg(width, height)],
          ["image/jpeg", jpeg(width, height, { progressive: true })],
          ["image/gif", gif(width, height)],
          ["image/webp", webp("VP8", width, height)],
          ["image/webp", webp("VP8L", width, height)],
          ["image/webp", webp("VP8X", width, height)]
        ]
        for (const [type, bytes] of files) {
          for (const data of [bytes, base64(bytes), dataUrl(type, bytes)]) {
            assert.deepStrictEqual(MediaTokens.measure(type, data), { _tag: "Image", size: { width, height } })
          }
        }
      }),
      { seed: 27, numRuns: 40 }
    )
  })

  it("a whole PNG made with zlib is read as its size", () => {
    assert.deepStrictEqual(MediaTokens.measure("image/png", png(1024, 1024)), { _tag: "Image", size: { width: 1024, height: 1024 } })
  })

  it("a JPEG whose frame header sits behind 60 kB of EXIF is read (the bounded second read)", () => {
    const bytes = jpeg(3024, 4032, { exif: 60_000 })
    assert.deepStrictEqual(MediaTokens.measure("image/jpeg", dataUrl("image/jpeg", bytes)), { _tag: "Image", size: { width: 3024, height: 4032 } })
  })

  it("the data's magic number decides the format, not the declared type; other files with an image's bytes are images", () => {
    assert.deepStrictEqual(MediaTokens.measure("image/jpeg", png(300, 200)), { _tag: "Image", size: { width: 300, height: 200 } })
    assert.deepStrictEqual(MediaTokens.measure("application/octet-stream", gif(30, 20)), { _tag: "Image", size: { width: 30, height: 20 } })
    assert.deepStrictEqual(MediaTokens.measure("audio/wav", "UklGRg=="), { _tag: "Other" })
  })
})

describe("MediaTokens: the providers' formulas (M1–M3)", () => {
  it("every fixture size is within 10% of each provider's published formula", () => {
    for (const [w, h] of sizes) {
      within10(MediaTokens.imageTokens("anthropic", { width: w, height: h }), anthropicFormula(w, h), `anthropic ${w}×${h}`)
      within10(MediaTokens.imageTokens("openai", { width: w, height: h }, "high"), openaiFormula(w, h, "high"), `openai high ${w}×${h}`)
      within10(MediaTokens.imageTokens("openai", { width: w, height: h }, "auto"), openaiFormula(w, h, "high"), `openai auto ${w}×${h}`)
      within10(MediaTokens.imageTokens("openai", { width: w, height: h }, "low"), openaiFormula(w, h, "low"), `openai low ${w}×${h}`)
      within10(MediaTokens.imageTokens("gemini", { width: w, height: h }), geminiFormula(w, h), `gemini ${w}×${h}`)
    }
  })

  it("the providers' own worked examples", () => {
    // OpenAI's guide: 1024 × 1024 high → 765; 2048 × 4096 high → 1105; 4096 × 8192 low → 85.
    assert.strictEqual(MediaTokens.imageTokens("openai", { width: 1024, height: 1024 }, "high"), 765)
    assert.strictEqual(MediaTokens.imageTokens("openai", { width: 2048, height: 4096 }, "high"), 1105)
    assert.strictEqual(MediaTokens.imageTokens("openai", { width: 4096, height: 8192 }, "low"), 85)
    // Anthropic's table: 200 × 200 ≈ 54, 1000 × 1000 ≈ 1334, 1092 × 1092 ≈ 1590.
    assert.strictEqual(MediaTokens.imageTokens("anthropic", { width: 200, height: 200 }), 54)
    assert.strictEqual(MediaTokens.imageTokens("anthropic", { width: 1000, height: 1000 }), 1334)
    assert.strictEqual(MediaTokens.imageTokens("anthropic", { width: 1092, height: 1092 }), 1590)
    // Gemini: a small image is one 258-token unit.
    assert.strictEqual(MediaTokens.imageTokens("gemini", { width: 384, height: 384 }), 258)
  })

  it("property: within 10% (or two tokens of rounding) of each formula for generated sizes, and never more than the provider's largest image", () => {
    fc.assert(
      // Sides of 8 px and more: below, a side scaled under one pixel (3279 × 1) stays one.
      fc.property(fc.integer({ min: 8, max: 8000 }), fc.integer({ min: 8, max: 8000 }), (w, h) => {
        const anthropic = MediaTokens.imageTokens("anthropic", { width: w, height: h })
        // Within 10%, or two tokens for the tiniest images: a whole count rounds the formula's
        // fraction up, and a scaled side is a whole number of pixels.
        assert.isAtMost(Math.abs(anthropic - anthropicFormula(w, h)), Math.max(2, 0.1 * anthropicFormula(w, h)), `anthropic ${w}×${h}`)
        assert.isAtMost(anthropic, 1600)
        const openai = MediaTokens.imageTokens("openai", { width: w, height: h })
        assert.strictEqual(openai, openaiFormula(w, h, "high"))
        assert.isAtMost(openai, MediaTokens.unknownImageTokens("openai"))
        assert.strictEqual(MediaTokens.imageTokens("gemini", { width: w, height: h }), geminiFormula(w, h))
      }),
      { seed: 2027, numRuns: 500 }
    )
  })
})

describe("MediaTokens: PDFs (M4, M6)", () => {
  it("a PDF's pages are its /Type /Page objects (the /Pages node is not one), from bytes, base64 or a data URL", () => {
    for (const pages of [1, 2, 7, 40]) {
      const bytes = pdf(pages)
      for (const data of [bytes, base64(bytes), dataUrl("application/pdf", bytes)]) {
        assert.deepStrictEqual(MediaTokens.measure("application/pdf", data), { _tag: "Pdf", pages })
      }
    }
  })

  it("without page objects (a compressed object stream), the page tree's /Count; without either, unknown", () => {
    assert.deepStrictEqual(MediaTokens.measure("application/pdf", pdf(12, { pageObjects: false })), { _tag: "Pdf", pages: 12 })
    assert.deepStrictEqual(MediaTokens.measure("application/pdf", pdf(5, { count: false })), { _tag: "Pdf", pages: 5 })
    assert.deepStrictEqual(MediaTokens.measure("application/pdf", pdf(5, { count: false, pageObjects: false })), { _tag: "Pdf", pages: undefined })
  })

  it("property: a page object cut by a chunk's end (1 MiB) is counted once, a /Pages cut there never", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 80 }), fc.boolean(), (pages, shift, asBase64) => {
        // The padding puts the first objects right around the 1 MiB boundary.
        const bytes = pdf(pages, { padding: 1024 * 1024 - 40 - shift })
        const data = asBase64 ? base64(bytes) : bytes
        assert.deepStrictEqual(Size.pdfPages(data), pages)
      }),
      { seed: 4, numRuns: 60 }
    )
  })

  it("a 5 MB PDF's pages are found by a byte scan in bounded time, from bytes and from base64", () => {
    const bytes = pdf(100, { padding: 5 * 1024 * 1024 })
    const text = base64(bytes)
    Size.pdfPages(bytes)
    const start = performance.now()
    assert.strictEqual(Size.pdfPages(bytes), 100)
    assert.strictEqual(Size.pdfPages(text), 100)
    // Tens of milliseconds on an idle machine; the bound leaves room for a busy one.
    assert.isBelow(performance.now() - start, 2_000)
  })

  it("a PDF costs its pages times the provider's page figure", () => {
    const part = Prompt.filePart({ mediaType: "application/pdf", data: base64(pdf(3)) })
    assert.strictEqual(MediaTokens.ofPart(part, "anthropic"), 3 * 2300)
    assert.strictEqual(MediaTokens.ofPart(part, "openai"), 3 * 1465)
    assert.strictEqual(MediaTokens.ofPart(part, "gemini"), 3 * 258)
  })
})

describe("MediaTokens: fallbacks (M5, M6)", () => {
  it("an image whose size is unknown (a link, undecodable data) costs the provider's largest image, never its length nor a handful", () => {
    const unknown = [
      new URL("https://example.com/cat.png"),
      "https://example.com/cat.png",
      "not an image at all, base64 or otherwise",
      "data:image/svg+xml,%3Csvg%3E%3C/svg%3E"
    ]
    for (const data of unknown) {
      const part = Prompt.filePart({ mediaType: "image/png", data })
      assert.strictEqual(MediaTokens.ofPart(part, "openai"), 1445)
      assert.strictEqual(MediaTokens.ofPart(part, "anthropic"), 1590)
      assert.strictEqual(MediaTokens.ofPart(part, "gemini"), 1032)
    }
    // OpenAI's low detail is a fixed cost: no size needed.
    const low = Prompt.filePart({ mediaType: "image/png", data: "https://example.com/cat.png", options: { "effect-cupel": { detail: "low" } } })
    assert.strictEqual(MediaTokens.ofPart(low, "openai"), 85)
  })

  it("a PDF whose pages are not found counts as unknownPdfPages (10) pages; a declared size or page count is used as given", () => {
    const pdfLink = Prompt.filePart({ mediaType: "application/pdf", data: new URL("https://example.com/a.pdf") })
    assert.strictEqual(MediaTokens.ofPart(pdfLink, "anthropic"), 10 * 2300)
    const declaredPdf = Prompt.filePart({ mediaType: "application/pdf", data: new URL("https://example.com/a.pdf"), options: { "effect-cupel": { pages: 2 } } })
    assert.strictEqual(MediaTokens.ofPart(declaredPdf, "gemini"), 2 * 258)
    const declaredImage = Prompt.filePart({ mediaType: "image/png", data: "https://example.com/cat.png", options: { "effect-cupel": { width: 1024, height: 1024 } } })
    assert.strictEqual(MediaTokens.ofPart(declaredImage, "openai"), 765)
  })

  it("audio and other files cost only their rendered line", () => {
    assert.strictEqual(MediaTokens.ofPart(Prompt.filePart({ mediaType: "audio/mp3", data: "SUQz" }), "anthropic"), 0)
  })
})

describe("MediaTokens: a 5 MB image", () => {
  const big = png(1024, 1024, { pixels: false, padding: 5 * 1024 * 1024 })
  const url = dataUrl("image/png", big)

  it("is read from its header only: measuring a 5 MB data URL takes no longer than a 5 kB one", () => {
    const small = dataUrl("image/png", png(1024, 1024, { pixels: false, padding: 5 * 1024 }))
    const time = (data: string) => {
      const start = performance.now()
      for (let i = 0; i < 2000; i++) MediaTokens.measure("image/png", data)
      return performance.now() - start
    }
    // Warmed up first: the first calls pay for compiling the code, not for the data.
    time(url)
    const small5k = time(small)
    const large = time(url)
    // 2,000 reads of the whole 7 MB text would take tens of seconds; of its header, milliseconds
    // (the bounds leave room for a busy machine).
    assert.isBelow(large, 1_000, `2,000 measures of a 5 MB data URL took ${large.toFixed(1)} ms`)
    assert.isBelow(large, 10 * small5k + 100, `5 MB: ${large.toFixed(1)} ms, 5 kB: ${small5k.toFixed(1)} ms`)
  })

  it("a 5 MB JPEG data URL with its frame behind 60 kB of EXIF is read within a bounded time too", () => {
    const photo = dataUrl("image/jpeg", new Uint8Array([...jpeg(4032, 3024, { exif: 60_000 }), ...randomBytes(5 * 1024 * 1024)]))
    assert.deepStrictEqual(MediaTokens.measure("image/jpeg", photo), { _tag: "Image", size: { width: 4032, height: 3024 } })
    const start = performance.now()
    for (let i = 0; i < 1000; i++) MediaTokens.measure("image/jpeg", photo)
    // A few bytes of each segment are decoded, not the 60 kB before the frame.
    assert.isBelow(performance.now() - start, 1_000)
  })

  it("through trim: the OpenAI rule's 765 tokens for 1024 × 1024, never 8, never its length", async () => {
    const withImage = { role: "user" as const, content: [{ type: "image_url" as const, image_url: { url } }] }
    const asText = { role: "user" as const, content: "[file image/png]" }
    const image = await trim([withImage], { contextWindow: 100_000 })
    const text = await trim([asText], { contextWindow: 100_000 })
    assert.strictEqual(image.report.tokens - text.report.tokens, 765)
    assert.isBelow(image.report.tokens, url.length / 1000)
  })
})

// What each front door counts for one message: its text's tokens and its files' estimates.
const imageMessage = (data: string, detail?: "low" | "high") => ({
  role: "user" as const,
  content: [
    { type: "text" as const, text: "What is on this screen?" },
    { type: "image_url" as const, image_url: detail === undefined ? { url: data } : { url: data, detail } }
  ]
})
const textTwin = { role: "user" as const, content: [{ type: "text" as const, text: "What is on this screen?\n[file image/png]" }] }

describe("MediaTokens: through the front doors", () => {
  const screenshot = dataUrl("image/png", png(1920, 1080, { pixels: false }))

  it("trim: each provider's estimate, OpenAI's by default, the detail level read from image_url", async () => {
    const base = (await trim([textTwin], { contextWindow: 100_000 })).report.tokens
    const tokens = async (options: { readonly media?: MediaTokens.Provider }, detail?: "low" | "high") =>
      (await trim([imageMessage(screenshot, detail)], { contextWindow: 100_000, ...options })).report.tokens - base
    assert.strictEqual(await tokens({}), 85 + 170 * 6)
    assert.strictEqual(await tokens({ media: "openai" }, "low"), 85)
    assert.strictEqual(await tokens({ media: "anthropic" }), MediaTokens.imageTokens("anthropic", { width: 1920, height: 1080 }))
    assert.strictEqual(await tokens({ media: "gemini" }), 3 * 2 * 258)
  })

  it("trim: a window too small for the image drops the message it would have kept by its text alone", async () => {
    const older = { role: "user" as const, content: "earlier question" }
    const messages = [older, { role: "assistant" as const, content: "ok" }, imageMessage(screenshot)]
    const alone = await trim([imageMessage(screenshot)], { contextWindow: 100_000 })
    // Room for the image message and two tokens more: its text alone would leave room for all.
    const contextWindow = alone.report.tokens + alone.report.requestOverhead + 2
    const out = await trim(messages, { contextWindow })
    assert.deepStrictEqual(out.report.kept, [2])
    assert.deepStrictEqual(out.report.dropped, [0, 1])
    const byText = await trim([older, { role: "assistant" as const, content: "ok" }, textTwin], { contextWindow })
    assert.deepStrictEqual(byText.report.dropped, [])
  })

  it("trim: an unknown media provider is refused as InvalidInput", async () => {
    const error = await trim([textTwin], { contextWindow: 1_000, media: "mistral" as "openai" }).catch((e: unknown) => e)
    assert.propertyVal(error, "_tag", "InvalidInput")
  })

  it("trimModelMessages: an image part (bytes) and a file part (a PDF) get their estimates", async () => {
    const image: ModelMessage = {
      role: "user",
      content: [{ type: "text", text: "look" }, { type: "image", image: png(1024, 1024, { pixels: false }), mediaType: "image/png" }]
    }
    const imageText: ModelMessage = { role: "user", content: [{ type: "text", text: "look" }, { type: "text", text: "[file image/png]" }] }
    const doc: ModelMessage = {
      role: "user",
      content: [{ type: "file", data: base64(pdf(4)), mediaType: "application/pdf" }]
    }
    const docText: ModelMessage = { role: "user", content: [{ type: "text", text: "[file application/pdf]" }] }
    const count = async (m: ModelMessage) => (await trimModelMessages([m], { contextWindow: 100_000, media: "anthropic" })).report.tokens
    assert.strictEqual((await count(image)) - (await count(imageText)), MediaTokens.imageTokens("anthropic", { width: 1024, height: 1024 }))
    assert.strictEqual((await count(doc)) - (await count(docText)), 4 * 2300)
  })

  it("TokenCounter and GptTokenizer: layerTokenizerMedia and layerEncoding(encoding, media) add the estimate; layerTokenizer OpenAI's", async () => {
    const message = Prompt.makeMessage("user", { content: [Prompt.filePart({ mediaType: "image/png", data: screenshot })] })
    const twin = Prompt.makeMessage("user", { content: [Prompt.textPart({ text: "[file image/png]" })] })
    const countWith = (layer: Layer.Layer<TokenCounter.TokenCounter, unknown>) =>
      Effect.runPromise(Effect.gen(function*() {
        const counter = yield* TokenCounter.TokenCounter
        return (yield* counter.count(message)) - (yield* counter.count(twin))
      }).pipe(Effect.provide(layer), Effect.orDie))
    assert.strictEqual(await countWith(GptTokenizer.layer), 1105)
    assert.strictEqual(await countWith(GptTokenizer.layerEncoding("o200k_base", "gemini")), 6 * 258)
    assert.strictEqual(
      await countWith(TokenCounter.layerTokenizer.pipe(Layer.provide(GptTokenizer.layerTokenizer("cl100k_base")))),
      1105
    )
    assert.strictEqual(
      await countWith(TokenCounter.layerTokenizerMedia("anthropic").pipe(Layer.provide(GptTokenizer.layerTokenizer()))),
      MediaTokens.imageTokens("anthropic", { width: 1920, height: 1080 })
    )
  })

  it("the AI SDK middleware: a file part's estimate with the caller's counter and with the default one, by the media option", async () => {
    const quarter = (text: string) => Math.ceil(text.length / 4)
    const run = async (options: Pick<AiSdk.Options, "counter" | "media">, withImage: boolean) => {
      const reports: Array<AiSdk.Report> = []
      const provider = new MockLanguageModelV4({
        doGenerate: async () => ({
          content: [{ type: "text" as const, text: "a chart" }],
          finishReason: { unified: "stop" as const, raw: "stop" },
          usage: {
            inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: undefined, text: undefined, reasoning: undefined }
          },
          warnings: []
        })
      })
      const model = wrapLanguageModel({
        model: provider,
        middleware: AiSdk.middleware({ contextWindow: 100_000, outputReserve: 0, onReport: (r) => reports.push(r), ...options })
      })
      await generateText({
        model,
        messages: [{
          role: "user",
          content: withImage
            ? [{ type: "text", text: "what is this?" }, { type: "image", image: png(1920, 1080, { pixels: false }), mediaType: "image/png" }]
            : [{ type: "text", text: "what is this?" }, { type: "text", text: "[file image/png]" }]
        }]
      })
      return reports[0]!.result.window.reduce((n, item) => n + item.tokens, 0)
    }
    const diff = async (options: Pick<AiSdk.Options, "counter" | "media">) => (await run(options, true)) - (await run(options, false))
    assert.strictEqual(await diff({ counter: quarter, media: "anthropic" }), MediaTokens.imageTokens("anthropic", { width: 1920, height: 1080 }))
    assert.strictEqual(await diff({ counter: quarter }), 1105)
    assert.strictEqual(await diff({ media: "gemini" }), 6 * 258)
  })
})

describe("MediaTokens: a tool result's modelOutput images (design 101)", () => {
  it("an image in a tool result's modelOutput counts by the same rule as a user's", () => {
    const image = Prompt.filePart({ mediaType: "image/png", data: png(1280, 800, { pixels: false }) })
    const tool = Prompt.makeMessage("tool", {
      content: [Prompt.toolResultPart({
        id: "c1",
        name: "screenshot",
        isFailure: false,
        result: "taken",
        providerExecuted: false,
        modelOutput: [Prompt.textPart({ text: "taken" }), image, image]
      })]
    })
    const user = Prompt.makeMessage("user", { content: [image] })
    for (const provider of ["openai", "anthropic", "gemini"] as const) {
      assert.strictEqual(MediaTokens.ofMessage(tool, provider), 2 * MediaTokens.ofMessage(user, provider))
      assert.isAbove(MediaTokens.ofMessage(user, provider), 0)
    }
  })
})
