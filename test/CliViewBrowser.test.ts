/**
 * `cupel view`'s pages in a real headless browser (Debian's chromium through playwright-core):
 * they load without a console error or a request beyond the file, show the counts of what they
 * were given, can be used with the keyboard, keep text contrast at 4.5:1 or more in the light and
 * the dark scheme, and are drawn to a PNG.
 *
 * The screenshots go to a temporary folder; with `CUPEL_VIEW_SCREENSHOTS=docs/images` they are
 * also written there (how README.md's picture is made).
 */
import { NodeServices } from "@effect/platform-node"
import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll } from "vitest"
import * as CallReportLog from "../src/ai/CallReportLog.ts"
import { describeWithChromium, launch } from "./support/chromium.ts"
import { cli } from "./support/cli.ts"
import * as LongSession from "./support/longSession.ts"
import * as ViewSession from "./support/viewSession.ts"
import { spawnSync } from "node:child_process"
import { statSync } from "node:fs"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))

const dir = mkdtempSync(join(tmpdir(), "cupel-view-"))

/** Writes a page and returns its file URL. */
const save = (name: string, html: string): string => {
  const file = join(dir, name)
  writeFileSync(file, html)
  return pathToFileURL(file).href
}

/** A screenshot in the temporary folder, and in `CUPEL_VIEW_SCREENSHOTS` when it is set. */
const screenshot = async (page: Page, name: string): Promise<Buffer> => {
  const file = join(dir, name)
  const png = await page.screenshot({ path: file })
  const out = process.env["CUPEL_VIEW_SCREENSHOTS"]
  if (out !== undefined && out !== "") {
    mkdirSync(resolve(out), { recursive: true })
    copyFileSync(file, join(resolve(out), name))
  }
  return png
}

interface Loaded {
  readonly page: Page
  /** Console errors and uncaught exceptions. */
  readonly errors: Array<string>
  /** Every URL the page asked for. */
  readonly requests: Array<string>
}

const open = async (
  browser: Browser,
  url: string,
  colorScheme: "light" | "dark" = "light",
  viewport = { width: 1440, height: 900 }
): Promise<Loaded> => {
  const page = await browser.newPage({ colorScheme, viewport })
  const errors: Array<string> = []
  const requests: Array<string> = []
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") errors.push(message.text())
  })
  page.on("pageerror", (error) => errors.push(error.message))
  page.on("request", (request) => requests.push(request.url()))
  await page.goto(url, { waitUntil: "load" })
  return { page, errors, requests }
}

/**
 * Every visible text whose contrast with what is behind it (the nearest ancestor with a
 * background colour) is under 4.5:1, computed from the computed styles (WCAG 2 relative
 * luminance). Returns `text: ratio` for each.
 */
const lowContrast = (page: Page): Promise<Array<string>> =>
  // Browser code, as text: this project's TypeScript has no DOM types.
  page.evaluate<Array<string>>(`(() => {
    const parse = (color) => {
      const m = /rgba?\\(([^)]+)\\)/.exec(color)
      if (m === null) return [0, 0, 0, 0]
      const parts = m[1].split(/[,\\s/]+/).filter((p) => p !== "").map(Number)
      return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0, parts[3] ?? 1]
    }
    const luminance = ([r, g, b]) => {
      const f = (c) => {
        const s = c / 255
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
      }
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b)
    }
    const background = (element) => {
      for (let e = element; e !== null; e = e.parentElement) {
        const bg = parse(getComputedStyle(e).backgroundColor)
        if (bg[3] > 0) return bg
      }
      return [255, 255, 255, 1]
    }
    const out = []
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      const text = (node.textContent ?? "").trim()
      const element = node.parentElement
      if (text === "" || element === null || element.closest("[hidden]") !== null) continue
      if (element.getClientRects().length === 0) continue
      const style = getComputedStyle(element)
      if (style.visibility === "hidden" || style.display === "none") continue
      const fg = luminance(parse(style.color))
      const bg = luminance(background(element))
      const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05)
      if (ratio < 4.5) out.push(text.slice(0, 40) + ": " + ratio.toFixed(2))
    }
    return out
  })()`)

/** The page's figures by their labels (the counts at its top). */
const stats = (page: Page): Promise<Record<string, string>> =>
  page.evaluate<Record<string, string>>(`Object.fromEntries(
    Array.from(document.querySelectorAll(".stats li")).map((li) => [
      li.childNodes[1]?.textContent ?? "",
      li.querySelector("b")?.textContent ?? ""
    ])
  )`)

const onlyTheFile = (requests: ReadonlyArray<string>, url: string) =>
  assert.deepStrictEqual(requests.filter((r) => r !== url && !r.startsWith("data:")), [])

describeWithChromium("cupel view in a real browser", () => {
  let browser: Browser
  beforeAll(async () => {
    browser = await launch()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it.effect("the contrast check finds grey on white (so that it can fail)", () =>
    Effect.promise(async () => {
      const url = save("grey.html", `<!doctype html><html lang="en"><body><p style="color:#aaa">faint</p><p>plain</p></body></html>`)
      const { page } = await open(browser, url)
      const low = await lowContrast(page)
      assert.strictEqual(low.length, 1)
      assert.match(low[0]!, /^faint: 2\.\d\d$/)
      await page.close()
    }))

  it.effect("a run result: loads without errors or requests, shows the counts, contrast ≥ 4.5 light and dark, a screenshot", () =>
    Effect.gen(function*() {
      const sample = yield* cli(["demo", "--print-sample"])
      const run = yield* cli(["run"], sample.stdout)
      const result = JSON.parse(run.stdout)
      const view = yield* cli(["view", "--budget", "700", "--max", "4096"], run.stdout)
      assert.strictEqual(view.code, 0, view.stderr)
      const url = save("run.html", view.stdout)
      yield* Effect.promise(async () => {
        for (const scheme of ["light", "dark"] as const) {
          const { errors, page, requests } = await open(browser, url, scheme, { width: 1280, height: 1000 })
          assert.deepStrictEqual(errors, [])
          onlyTheFile(requests, url)
          const shown = await stats(page)
          assert.strictEqual(shown["in the window"], String(result.report.included.length))
          assert.strictEqual(shown["left out"], String(result.report.excluded.length))
          assert.strictEqual(await page.locator("#window tbody tr").count(), result.report.included.length)
          assert.strictEqual(await page.locator("#excluded tbody tr").count(), result.report.excluded.length)
          assert.strictEqual(await page.locator(".shape > span").count(), result.report.included.length)
          assert.deepStrictEqual(await lowContrast(page), [], scheme)
          const png = await screenshot(page, `cupel-view-run${scheme === "dark" ? "-dark" : ""}.png`)
          assert.deepStrictEqual([...png.subarray(1, 4)], [0x50, 0x4e, 0x47])
          await page.close()
        }
      })
    }).pipe(Effect.provide(NodeServices.layer)), 120_000)

  it.effect("a session made by WindowedLanguageModel: a row per call, the keyboard selects calls, readable without script, contrast ≥ 4.5, a screenshot", () =>
    Effect.gen(function*() {
      const reports = yield* ViewSession.run({ steps: 24 })
      const lines = reports.map((r) => CallReportLog.encode(r))
      const view = yield* cli(["view"], lines.join("\n") + "\n")
      assert.strictEqual(view.code, 0, view.stderr)
      const url = save("session.html", view.stdout)
      const compaction = reports.findIndex((r) => r.change?.summary?._tag === "written")
      assert.isAbove(compaction, 0)
      yield* Effect.promise(async () => {
        const { errors, page, requests } = await open(browser, url)
        assert.deepStrictEqual(errors, [])
        onlyTheFile(requests, url)
        const shown = await stats(page)
        assert.strictEqual(shown["calls"], String(reports.length))
        assert.strictEqual(shown["compactions"], String(reports.filter((r) => r.change?.action === "compact").length))
        assert.strictEqual(await page.locator("#timeline tbody tr").count(), reports.length)
        const visible = async () => {
          const ids: Array<string> = []
          for (const section of await page.locator("section.detail:not([hidden])").all()) {
            ids.push((await section.getAttribute("id")) ?? "")
          }
          return ids
        }
        const focused = () => page.evaluate<string>(`document.activeElement?.textContent ?? ""`)
        assert.deepStrictEqual(await visible(), ["call-0"])

        // Tab reaches the first call; the arrow keys move the selection and the focus.
        await page.keyboard.press("Tab")
        assert.strictEqual(await focused(), "Call 1")
        const outline = await page.evaluate<{ style: string; width: number }>(`(() => {
          const style = getComputedStyle(document.activeElement)
          return { style: style.outlineStyle, width: parseFloat(style.outlineWidth) }
        })()`)
        assert.notStrictEqual(outline.style, "none")
        assert.isAtLeast(outline.width, 2)
        for (let k = 0; k < compaction; k++) await page.keyboard.press("ArrowDown")
        assert.strictEqual(await focused(), `Call ${compaction + 1}`)
        assert.deepStrictEqual(await visible(), [`call-${compaction}`])
        assert.strictEqual(
          await page.locator("#selected").textContent(),
          `Call ${compaction + 1} of ${reports.length} selected`
        )
        const detail = page.locator(`#call-${compaction}`)
        assert.include(await detail.textContent(), `summarised ${reports[compaction]!.change!.summary!.spanMessages} messages`)
        assert.deepStrictEqual(await lowContrast(page), [])
        const png = await screenshot(page, "cupel-view-session.png")
        assert.deepStrictEqual([...png.subarray(1, 4)], [0x50, 0x4e, 0x47])

        await page.keyboard.press("End")
        assert.deepStrictEqual(await visible(), [`call-${reports.length - 1}`])
        await page.keyboard.press("Home")
        assert.deepStrictEqual(await visible(), ["call-0"])
        // Enter on a call's button selects it (a real button: Space and clicks too).
        await page.locator("button.call", { hasText: /^Call 3$/ }).focus()
        await page.keyboard.press("Enter")
        assert.deepStrictEqual(await visible(), ["call-2"])
        assert.strictEqual(await page.locator("button.call[aria-pressed=true]").textContent(), "Call 3")
        await page.close()

        // Without script, every call's details read in turn.
        const noScript = await browser.newPage({ javaScriptEnabled: false })
        await noScript.goto(url)
        assert.strictEqual(await noScript.locator("section.detail:visible").count(), reports.length)
        await noScript.close()

        const dark = await open(browser, url, "dark")
        assert.deepStrictEqual(dark.errors, [])
        assert.deepStrictEqual(await lowContrast(dark.page), [], "dark")
        await dark.page.close()
      })
      // The picture is the page itself, not a stale copy.
      assert.isAbove(readFileSync(join(dir, "cupel-view-session.png")).length, 10_000)
    }).pipe(Effect.provide(NodeServices.layer)), 180_000)

  it.effect("a session of two conversations: the timeline's last column (summary) is within the viewport, no sideways scroll (design 94)", () =>
    Effect.gen(function*() {
      const reports = yield* ViewSession.run({ steps: 10 })
      // Two conversations whose calls interleave, the second's key long.
      const lines = reports.flatMap((r, k) => {
        const line = JSON.parse(CallReportLog.encode(r))
        return [JSON.stringify(line), JSON.stringify({ ...line, conversation: `a-second-conversation-with-a-long-key-${k}` })]
      })
      const view = yield* cli(["view"], lines.join("\n") + "\n")
      assert.strictEqual(view.code, 0, view.stderr)
      const url = save("two.html", view.stdout)
      yield* Effect.promise(async () => {
        for (const width of [1440, 1280]) {
          const { errors, page } = await open(browser, url, "light", { width, height: 900 })
          assert.deepStrictEqual(errors, [])
          const box = await page.evaluate<{ right: number; scroll: number; client: number; page: number; last: string }>(`(() => {
            const last = Array.from(document.querySelectorAll("#timeline thead th")).pop()
            const scroller = document.querySelector("#timeline").parentElement
            return { right: last.getBoundingClientRect().right, scroll: scroller.scrollWidth, client: scroller.clientWidth,
              page: document.documentElement.scrollWidth, last: last.textContent }
          })()`)
          assert.strictEqual(box.last, "summary")
          assert.isAtMost(box.right, width, `at ${width} px`)
          assert.isAtMost(box.scroll, box.client, `at ${width} px: the timeline scrolls sideways`)
          assert.isAtMost(box.page, width)
          await page.close()
        }
      })
    }).pipe(Effect.provide(NodeServices.layer)), 120_000)

  it.effect("a log of 20,000 calls: a page of at most 20 MB written in at most 15 s of CPU within a 256 MB heap; the browser draws it in seconds, a call's details on selection (design 94)", () =>
    Effect.gen(function*() {
      const log = join(dir, "long.jsonl")
      const out = join(dir, "long.html")
      const calls = yield* LongSession.write(log, { calls: 20_000, steps: 16 })
      const logBytes = statSync(log).size
      // The CLI as a child process, its heap capped (a page that held every call's details would
      // not fit), its time and peak memory read by /usr/bin/time.
      const run = spawnSync("/usr/bin/time", [
        "-f",
        "cupel-time %e %U %S %M",
        `${root}node_modules/.bin/node`,
        "--max-old-space-size=256",
        `${root}src/bin/cupel.ts`,
        "view",
        log,
        "--out",
        out
      ], { encoding: "utf8", cwd: root })
      assert.strictEqual(run.status, 0, run.stderr)
      const figures = /cupel-time (\S+) (\S+) (\S+) (\S+)/.exec(run.stderr)
      assert.isNotNull(figures, run.stderr)
      const [wall, user, system, maxRssKb] = figures!.slice(1).map(Number) as [number, number, number, number]
      const pageBytes = statSync(out).size
      // The figures, for docs/cli.md and the report.
      console.log(
        `cupel view, ${calls} calls (${(logBytes / 1e6).toFixed(0)} MB of log): page ${(pageBytes / 1e6).toFixed(1)} MB, ` +
          `${wall.toFixed(1)} s wall, ${(user + system).toFixed(1)} s CPU, peak RSS ${(maxRssKb / 1024).toFixed(0)} MB`
      )
      assert.isAtMost(pageBytes, 20_000_000)
      assert.isAtMost(user + system, 15)
      assert.isAtMost(maxRssKb / 1024, 640)
      const url = pathToFileURL(out).href
      const lastLine = JSON.parse(readFileSync(log, "utf8").trimEnd().split("\n").pop()!)
      yield* Effect.promise(async () => {
        const started = Date.now()
        const { errors, page, requests } = await open(browser, url)
        await page.locator("#selected", { hasText: `Call 1 of ${calls} selected` }).waitFor({ timeout: 30_000 })
        const drawnIn = Date.now() - started
        console.log(`cupel view, ${calls} calls: loaded and drawn in chromium in ${drawnIn} ms`)
        assert.isAtMost(drawnIn, 20_000)
        assert.deepStrictEqual(errors, [])
        onlyTheFile(requests, url)
        const shown = await stats(page)
        assert.strictEqual(shown["calls"], String(calls))
        // The timeline, as one chart: at most 1,000 points a line, whatever the calls.
        const points = await page.evaluate<Array<number>>(
          `Array.from(document.querySelectorAll("#chart polyline")).map((p) => p.getAttribute("points").split(" ").length)`
        )
        assert.strictEqual(points.length, 3)
        for (const n of points) assert.strictEqual(n, 1_000)
        // The list draws the rows in view, not 20,000.
        const rows = await page.locator("#timeline tbody tr:not(.pad)").count()
        assert.isAbove(rows, 5)
        assert.isBelow(rows, 200)
        assert.strictEqual(await page.locator("#detail h2").textContent(), "Call 1")
        // The keyboard: End selects the last call; its details are those of the log's last line.
        await page.locator("#calls").focus()
        await page.keyboard.press("End")
        assert.strictEqual(await page.locator("#selected").textContent(), `Call ${calls} of ${calls} selected`)
        assert.strictEqual(await page.evaluate<string>(`document.activeElement?.textContent ?? ""`), `Call ${calls}`)
        const detail = (await page.locator("#detail").textContent()) ?? ""
        assert.include(detail, `The window (${lastLine.window.length})`)
        assert.include(detail, `Left out (${lastLine.excluded.length})`)
        assert.include(detail, lastLine.conversation)
        if (lastLine.change?.summary?.outcome === "written") {
          assert.include(detail, `summarised ${lastLine.change.summary.spanMessages} messages`)
        }
        await page.keyboard.press("ArrowUp")
        assert.strictEqual(await page.locator("#detail h2").textContent(), `Call ${calls - 1}`)
        // A point of the chart selects its call.
        const chart = page.locator("#chart")
        const box = (await chart.boundingBox())!
        await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2)
        const picked = Number(/^Call (\d+)/.exec((await page.locator("#selected").textContent()) ?? "")?.[1])
        assert.isAtLeast(picked, calls / 2 - calls / 100)
        assert.isAtMost(picked, calls / 2 + calls / 100)
        assert.strictEqual(await page.locator("#detail h2").textContent(), `Call ${picked}`)
        const width = await page.evaluate<{ scroll: number; client: number }>(
          `(() => { const e = document.getElementById("calls"); return { scroll: e.scrollWidth, client: e.clientWidth } })()`
        )
        assert.isAtMost(width.scroll, width.client)
        assert.deepStrictEqual(await lowContrast(page), [])
        assert.deepStrictEqual(errors, [])
        await screenshot(page, "cupel-view-long-session.png")
        await page.close()
      })
    }).pipe(Effect.provide(NodeServices.layer)), 400_000)
})
