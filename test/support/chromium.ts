/**
 * A real headless browser for the tests of `cupel view`: Debian's `chromium`, driven by
 * `playwright-core` (which downloads no browser of its own).
 *
 * When it is not installed, {@link describeWithChromium} says so: CI (where `CI` is set) must
 * fail, elsewhere the block may skip, loudly — as the Redis tests do (redisServer.ts).
 */
import { existsSync } from "node:fs"
import { type Browser, chromium } from "playwright-core"
import { type Availability, describeWhenAvailable } from "./needs.ts"

/** Where Debian's package puts the browser. */
export const executablePath = process.env["CUPEL_CHROMIUM"] ?? "/usr/bin/chromium"

/** Whether the browser is here, and if not, what to do about it. */
export const availability = (): Availability =>
  existsSync(executablePath)
    ? { available: true }
    : {
      available: false,
      message: `${executablePath} is not installed, so the browser tests of cupel view cannot run. ` +
        "Install it (Debian/Ubuntu: `apt-get install chromium`; .ci/run does this in CI), or set CUPEL_CHROMIUM."
    }

/**
 * `describe` for a block that needs the browser. Without it: under CI, a test that fails with
 * the reason; elsewhere the block is skipped and a warning says so, loudly.
 */
export const describeWithChromium = (name: string, body: () => void): void =>
  describeWhenAvailable(name, "chromium", availability(), body)

/**
 * Starts the browser headless, sandbox off (containers run as root), with nothing that reaches
 * the network on its own (updates, sync, QUIC probes). Each launch has a fresh temporary profile.
 */
export const launch = (): Promise<Browser> =>
  chromium.launch({
    executablePath,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync"
    ]
  })
