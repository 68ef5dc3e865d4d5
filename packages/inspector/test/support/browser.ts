/**
 * A real headless Chromium for the inspector's tests, driven by
 * playwright-core through the system's browser (no browser download): the
 * Debian package `chromium`. Each launch gets a fresh profile.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { type BrowserContext, chromium, type Page } from "playwright-core"

const candidates = [
  process.env["CHROMIUM_PATH"],
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/lib/chromium/chromium",
  "/snap/bin/chromium"
]

/** The browser's executable, or an error that names the install. */
export const executablePath = (): string => {
  const found = candidates.find((path) => path !== undefined && path !== "" && Fs.existsSync(path))
  if (found === undefined) {
    throw new Error(
      "no Chromium found for the browser tests: install it with `apt-get install chromium` (or set CHROMIUM_PATH)"
    )
  }
  return found
}

/** The flags of every launch: no sandbox (root in CI), no GPU, nothing fetched from the network by the browser itself. */
export const flags = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]

/** A browser with a fresh profile, closed (and its profile removed) with the scope. */
export const launch = (path: string): Effect.Effect<BrowserContext, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const profile = Fs.mkdtempSync(Path.join(Os.tmpdir(), "inspector-chromium-"))
      const context = await chromium.launchPersistentContext(profile, {
        executablePath: path,
        headless: true,
        args: flags,
        viewport: { width: 1400, height: 900 }
      })
      return { context, profile }
    }),
    ({ context, profile }) =>
      Effect.promise(async () => {
        await context.close()
        Fs.rmSync(profile, { recursive: true, force: true })
      })
  ).pipe(Effect.map(({ context }) => context))

/** A new tab. */
export const open = (context: BrowserContext, url: string): Effect.Effect<Page> =>
  Effect.promise(async () => {
    const page = await context.newPage()
    await page.goto(url)
    return page
  })

/** Runs a browser step as an Effect. */
export const step = <A>(run: () => Promise<A>): Effect.Effect<A> => Effect.promise(run)

const root = Path.resolve(import.meta.dirname, "../../../..")

/**
 * Where screenshots go: docs/inspector/ when `INSPECTOR_SCREENSHOTS=1` (to
 * refresh the committed ones), else a temporary folder, so that a test run
 * takes them without changing the tree.
 */
const screenshots =
  process.env["INSPECTOR_SCREENSHOTS"] === "1"
    ? Path.join(root, "docs/inspector")
    : Fs.mkdtempSync(Path.join(Os.tmpdir(), "inspector-screenshots-"))

/** Removes the temporary screenshots' folder (the committed ones stay). */
export const removeScratchScreenshots = (): void => {
  if (process.env["INSPECTOR_SCREENSHOTS"] !== "1") Fs.rmSync(screenshots, { recursive: true, force: true })
}

/** Saves a screenshot of the page (or of one element) as NAME.png (see `screenshots`). */
export const screenshot = (page: Page, name: string, selector?: string): Effect.Effect<void> =>
  Effect.promise(async () => {
    const path = Path.join(screenshots, `${name}.png`)
    Fs.mkdirSync(Path.dirname(path), { recursive: true })
    if (selector === undefined) await page.screenshot({ path, fullPage: false })
    else await page.locator(selector).screenshot({ path })
    if (!Fs.existsSync(path)) throw new Error(`no screenshot at ${path}`)
  })

/**
 * Waits until a JavaScript expression holds in the page, polling it (the
 * page's CSP forbids the string evaluation `waitForFunction` does; the
 * DevTools protocol's evaluation is not the page's script).
 */
export const until = (page: Page, expression: string, timeout = 15_000): Effect.Effect<void> =>
  Effect.promise(async () => {
    const deadline = Date.now() + timeout
    while (!(await page.evaluate<boolean>(`Boolean(${expression})`))) {
      if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for: ${expression}`)
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  })

/** The value of a JavaScript expression in the page (JSON-like). */
export const evaluate = <A>(page: Page, expression: string): Effect.Effect<A> =>
  Effect.promise(() => page.evaluate<A>(expression))
