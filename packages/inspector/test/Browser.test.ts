/**
 * The inspector in a real headless Chromium (Debian's `chromium`, driven by
 * playwright-core): the tour's timeline with each recovery at its place, the
 * live view while a run streams, a dropped connection resumed with nothing
 * lost or repeated, resume and interrupt from the page seen by a second tab,
 * no secret anywhere in the page or its responses, and bad input shown as
 * clear messages. The screenshots in docs/inspector/ are taken here.
 */
import { NodeServices } from "@effect/platform-node"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type { Page } from "playwright-core"
import { InspectorStore, Secrets } from "../src/index.js"
import { MemoryStore } from "../src/testing/index.js"
import * as Browser from "./support/browser.js"
import { serve, token } from "./support/http.js"
import * as Lab from "./support/lab.js"
import * as TcpProxy from "./support/proxy.js"

// The setup finds the browser, or fails the file with one line that names the install.
const chromium = Browser.executablePath()

afterAll(Browser.removeScratchScreenshots)

/** What the page draws for each timeline item: its kind, classes, times, and its shape's box. */
interface Drawn {
  readonly kind: string
  readonly classes: string
  readonly seq: number
  readonly start: number
  readonly end: number
  readonly x: number
  readonly w: number
  readonly cx: number
}

const drawn = (page: Page) =>
  Browser.evaluate<{
    readonly scale: { readonly start: number; readonly end: number; readonly left: number; readonly right: number }
    readonly items: ReadonlyArray<Drawn>
    readonly spans: ReadonlyArray<{ readonly state: string; readonly x: number; readonly w: number }>
  }>(
    page,
    `(() => {
      const svg = document.querySelector("svg.timeline")
      const scale = {
        start: Number(svg.getAttribute("data-start")),
        end: Number(svg.getAttribute("data-end")),
        left: Number(svg.getAttribute("data-left")),
        right: Number(svg.getAttribute("data-right"))
      }
      const items = [...svg.querySelectorAll(".ti")].map((g) => {
        const box = g.querySelector("rect, path, circle").getBBox()
        return {
          kind: g.getAttribute("data-kind"),
          classes: g.getAttribute("class"),
          seq: Number(g.getAttribute("data-seq")),
          start: Number(g.getAttribute("data-start")),
          end: Number(g.getAttribute("data-end")),
          x: box.x,
          w: box.width,
          cx: box.x + box.width / 2
        }
      })
      const spans = [...svg.querySelectorAll(".breaker-span")].map((g) => {
        const box = g.querySelector("rect").getBBox()
        return { state: g.getAttribute("data-state"), x: box.x, w: box.width }
      })
      return { scale, items, spans }
    })()`
  )

const near = (actual: number, expected: number, what: string) =>
  expect(Math.abs(actual - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(2.5)

const of = (items: ReadonlyArray<Drawn>, kind: string) => items.filter((item) => item.kind === kind)

const textOf = (page: Page, selector: string) =>
  Browser.step(async () => (await page.locator(selector).textContent()) ?? "")

describe("the inspector in a browser", () => {
  it.live(
    "the tour's timeline: each retry, wait, fallback, reduction, crash and the breaker's opening at its place; an item shows its event",
    () =>
      Effect.gen(function* () {
        const lab = yield* Lab.make({ tour: Lab.tour, streamed: { plan: { steps: [Lab.slowAnswer("Done.", 0.2)] } } })
        yield* lab.memory.run("tour", "Fetch the quarterly reports")
        yield* lab.memory.run("tour", "And the next quarter?")
        yield* lab.memory.run("streamed", "Say done")
        const url = yield* serve(lab.memory.layer)
        const browser = yield* Browser.launch(chromium)

        const sessions = yield* Browser.open(browser, `${url}/`)
        expect(yield* textOf(sessions, "table.sessions tbody")).toContain("failed: content_filtered")
        const session = yield* Browser.open(browser, `${url}/sessions/tour`)
        yield* Browser.step(() => session.locator("details.tool-result.error").first().locator("summary").click())
        yield* Browser.screenshot(session, "session")

        const page = yield* Browser.open(browser, `${url}/sessions/tour/runs/1`)
        const { scale, items, spans } = yield* drawn(page)
        const x = (at: number) =>
          scale.left + ((at - scale.start) / (scale.end - scale.start)) * (scale.right - scale.left)
        // Bars start at their time; points and markers are centred on it.
        const pointLike = new Set(["budget", "marker", "crash", "breaker"])
        for (const item of items) {
          near(
            pointLike.has(item.kind) ? item.cx : item.x,
            x(item.start),
            `${item.kind} #${item.seq} drawn at its time`
          )
        }

        const attempts = of(items, "attempt")
        expect(attempts.map((a) => a.classes.replace(/^ti attempt /, ""))).toEqual([
          "failed next-retry",
          "failed next-retry",
          "failed next-fallback",
          "ok",
          "ok",
          "failed next-reduction",
          "ok"
        ])
        expect(attempts.map((a) => a.x)).toEqual([...attempts.map((a) => a.x)].sort((a, b) => a - b))
        const waits = of(items, "wait")
        expect(waits.map((w) => w.classes)).toEqual(["ti wait retry-after", "ti wait backoff"])
        waits.forEach((wait, i) => {
          near(wait.x, attempts[i]!.x + attempts[i]!.w, `wait ${i} starts as attempt ${i} fails`)
          near(wait.x + wait.w, attempts[i + 1]!.x, `wait ${i} ends as attempt ${i + 1} is sent`)
        })
        const markers = of(items, "marker")
        const fallback = markers.find((m) => m.classes.includes("fallback"))!
        const reduction = markers.find((m) => m.classes.includes("reduction"))!
        near(fallback.cx, attempts[2]!.x + attempts[2]!.w, "the fallback where model-a's last attempt failed")
        near(reduction.cx, attempts[5]!.x + attempts[5]!.w, "the reduction where the context overflowed")
        expect(reduction.cx).toBeLessThanOrEqual(attempts[6]!.x + 2.5)
        const fetches = of(items, "tool").filter((tool) => tool.classes.includes("crashed"))
        const crashes = of(items, "crash")
        expect([fetches.length, crashes.length]).toEqual([3, 3])
        crashes.forEach((crash, i) => {
          near(crash.cx, fetches[i]!.x + fetches[i]!.w, `crash ${i} ends its call`)
        })
        const [opened] = of(items, "breaker")
        expect(opened!.classes).toBe("ti breaker open")
        expect(opened!.cx).toBeGreaterThan(crashes[1]!.cx)
        expect(opened!.cx).toBeLessThanOrEqual(crashes[2]!.cx + 2.5)
        const open = spans.find((span) => span.state === "open")!
        near(open.x, opened!.cx, "the breaker's open stretch starts as it opens")
        const budget = of(items, "budget")
        expect(budget).toHaveLength(3)
        near(budget[0]!.cx, waits[0]!.x, "the budget drops as the first retry is scheduled")
        near(budget[2]!.cx, fallback.cx, "and again at the fallback")

        // Hover shows an item's event in full; a click keeps it selected.
        yield* Browser.step(() => page.locator(".ti.wait.retry-after").hover())
        yield* Browser.until(page, `document.getElementById("event-json").textContent.includes('"retry_scheduled"')`)
        expect(yield* textOf(page, "#event-json")).toContain('"source": "retry_after"')
        yield* Browser.step(() => page.locator(".ti.breaker").click())
        yield* Browser.until(page, `document.getElementById("event-json").textContent.includes('"breaker_changed"')`)
        yield* Browser.step(() => page.mouse.move(5, 5))
        expect(yield* textOf(page, "#event-json")).toContain('"to": "open"')
        yield* Browser.step(() => page.locator(".ti.marker.fallback").hover())
        yield* Browser.until(page, `document.getElementById("event-json").textContent.includes('"type": "fallback"')`)
        yield* Browser.screenshot(page, "timeline")
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )

  it.live("live: the text shows while the run goes on; dropped connections resume with nothing lost or repeated", () =>
    Effect.gen(function* () {
      const answer = Array.from(
        { length: 8 },
        (_, i) => `Line ${i + 1} of an answer that streams in small pieces.`
      ).join("\n")
      const lab = yield* Lab.make({ live: { plan: { steps: [Lab.slowAnswer(answer, 5)] } } })
      const url = yield* serve(lab.memory.layer)
      const proxy = yield* TcpProxy.make(url)
      const browser = yield* Browser.launch(chromium)
      yield* lab.memory.start("live", "Tell me slowly")
      const page = yield* Browser.open(browser, `${proxy.url}/sessions/live`)
      yield* Browser.until(page, `(document.querySelector(".live-text .attempt")?.textContent ?? "").length > 60`)
      const partial = yield* textOf(page, ".live-text .attempt")
      expect(yield* Browser.evaluate<string>(page, "document.body.dataset.status")).toBe("running")
      expect(partial.length).toBeLessThan(answer.length)
      expect(answer.startsWith(partial.trimEnd())).toBe(true)
      yield* Browser.screenshot(page, "live")

      expect(yield* proxy.dropAll).toBeGreaterThan(0)
      yield* Effect.sleep("900 millis")
      yield* proxy.dropAll
      yield* Browser.until(page, `document.body.dataset.status === "completed"`, 20_000)
      const state = yield* Browser.evaluate<Record<string, string>>(
        page,
        `({ ...document.getElementById("live-state").dataset })`
      )
      const stored = yield* lab.memory.store.events("live", { after: 0, limit: 100_000 })
      expect(state).toMatchObject({
        gaps: "0",
        duplicates: "0",
        received: String(stored.length),
        lastSeq: String(stored.length)
      })
      expect(Number(state["reconnects"])).toBeGreaterThanOrEqual(2)
      expect(yield* Browser.step(() => page.locator(".live-text .attempt").textContent())).toBe(answer)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )

  it.live("resume and interrupt from the page, with the token; a second tab sees each change", () =>
    Effect.gen(function* () {
      const lab = yield* Lab.make({
        hang: Lab.hangingTool,
        crashed: { plan: { steps: [{ kind: "hang" }, Lab.slowAnswer("finished after the resume", 0.5)] } },
        "support-17": { plan: { steps: [Lab.slowAnswer("Your order shipped on Monday.", 0.1)] } },
        "billing-3": {
          plan: {
            steps: [{ kind: "error", status: 401, error_type: "authentication_error", message: "invalid x-api-key" }]
          }
        }
      })
      yield* lab.memory.run("billing-3", "Why was I charged twice?")
      yield* lab.memory.run("support-17", "Where is my order?")
      yield* lab.memory.start("hang", "Deploy the change")
      yield* (yield* lab.server("hang")).awaitRequests(1)
      yield* lab.memory.start("crashed", "Finish me")
      yield* (yield* lab.server("crashed")).awaitRequests(1)
      yield* lab.memory.crash("crashed")
      const url = yield* serve(lab.memory.layer)
      const browser = yield* Browser.launch(chromium)
      const statusOf = (page: Page) =>
        Browser.step(() => page.locator("#session-status .status").getAttribute("data-status"))
      const waitStatus = (page: Page, status: string) =>
        Browser.until(
          page,
          `document.querySelector("#session-status .status")?.getAttribute("data-status") === ${JSON.stringify(status)}`,
          20_000
        )

      // Wait until the run is in its tool call, which never answers.
      yield* Effect.gen(function* () {
        for (;;) {
          const events = yield* lab.events("hang")
          if (events.some((event) => event.type === "tool_call_started")) return
          yield* Effect.sleep("50 millis")
        }
      })
      const list = yield* Browser.open(browser, `${url}/`)
      expect(yield* textOf(list, "table.sessions tbody")).toContain("interrupted, resumable")
      yield* Browser.screenshot(list, "sessions")
      const a = yield* Browser.open(browser, `${url}/sessions/hang`)
      const b = yield* Browser.open(browser, `${url}/sessions/hang`)
      expect([yield* statusOf(a), yield* statusOf(b)]).toEqual(["running", "running"])
      yield* Browser.step(() => a.locator("#token").fill("a-wrong-token"))
      yield* Browser.step(() => a.locator('button[data-action="interrupt"]').click())
      yield* Browser.until(a, `document.getElementById("action-result").textContent.includes("wrong")`)
      expect(yield* textOf(a, "#action-result")).toBe(
        "the action token is wrong: use the one the inspector printed when it started"
      )
      yield* Browser.step(() => a.locator("#token").fill(Redacted.value(token)))
      yield* Browser.step(() => a.locator('button[data-action="interrupt"]').click())
      yield* waitStatus(a, "interrupted")
      yield* waitStatus(b, "interrupted")
      expect(yield* textOf(a, "#action-result")).toBe("Interrupted.")
      yield* Browser.step(() => b.reload())
      expect(yield* textOf(b, "ol.history")).toContain("✗ error result")

      const c = yield* Browser.open(browser, `${url}/sessions/crashed`)
      yield* Browser.step(() => a.goto(`${url}/sessions/crashed`))
      expect(yield* textOf(a, "#session-status")).toBe("interrupted, resumable")
      expect(yield* Browser.step(() => a.locator('button[data-action="interrupt"]').isDisabled())).toBe(true)
      // The token typed in this tab is kept for it.
      expect(yield* Browser.step(() => a.locator("#token").inputValue())).toBe(Redacted.value(token))
      yield* Browser.screenshot(a, "actions")
      yield* Browser.step(() => a.locator('button[data-action="resume"]').click())
      yield* waitStatus(a, "completed")
      yield* waitStatus(c, "completed")
      expect(yield* textOf(a, "#action-result")).toBe("Resumed: the run goes on.")
      expect(yield* textOf(c, ".live-text")).toContain("finished after the resume")
      const detail = yield* lab.memory.store.session("crashed")
      expect(detail.runs.map((run) => [run.run_id, run.status])).toEqual([["crashed/run-1", "completed"]])
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )

  it.live("no secret in the page: the key set in the environment is in no page, no response and no live event", () =>
    Effect.gen(function* () {
      const previous = process.env["ANTHROPIC_API_KEY"]
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          if (previous === undefined) delete process.env["ANTHROPIC_API_KEY"]
          else process.env["ANTHROPIC_API_KEY"] = previous
        })
      )
      process.env["ANTHROPIC_API_KEY"] = Lab.secretKey
      const lab = yield* Lab.make({ tour: Lab.tour })
      yield* lab.memory.run("tour", `Fetch the quarterly reports with ${Lab.secretKey}`)
      const url = yield* serve(lab.memory.layer, { secrets: Secrets.fromEnvironment(process.env) })
      const browser = yield* Browser.launch(chromium)
      const bodies: Array<Promise<string>> = []
      browser.on("response", (response) => {
        if (!(response.headers()["content-type"] ?? "").startsWith("text/event-stream")) {
          bodies.push(response.text().catch(() => ""))
        }
      })
      const pages: Array<Page> = []
      for (const path of ["/", "/sessions/tour", "/sessions/tour/runs/1", "/api/sessions/tour"]) {
        pages.push(yield* Browser.open(browser, `${url}${path}`))
      }
      const [, session, run] = pages
      // A run while the page is open: its events, the key in its input, reach the page live.
      yield* lab.memory.run("tour", `Once more, with ${Lab.secretKey}`)
      yield* Browser.until(session!, `document.body.dataset.status === "failed"`)
      expect(yield* textOf(session!, "#live-events")).toContain("run ended: content_filtered")
      // Each kind of item shows its event (by keyboard focus here: the items are focusable).
      for (const kind of ["attempt", "tool", "marker", "crash", "budget"]) {
        yield* Browser.step(() => run!.locator(`.ti.${kind}`).first().focus())
        yield* Browser.until(run!, `document.getElementById("event-json").textContent.startsWith("{")`)
        yield* Browser.step(() => run!.evaluate(`document.getElementById("event-json").textContent = ""`))
      }
      const texts = yield* Browser.step(() => Promise.all(bodies))
      const html = yield* Effect.forEach(pages, (page) => Browser.step(() => page.content()))
      expect(texts.length).toBeGreaterThan(8)
      for (const text of [...texts, ...html]) expect(text).not.toContain(Lab.secretKey)
      expect(html[1]).toContain("with &lt;redacted&gt;")
      expect(yield* textOf(session!, ".live-text")).toContain("run tour/run-2")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )

  it.live(
    "bad input: an unknown session, a store that goes away while the page is open, a corrupt store — each a clear message",
    () =>
      Effect.gen(function* () {
        const lab = yield* Lab.make({ s: { plan: { steps: [Lab.slowAnswer("Fine.", 0.2)] } } })
        yield* lab.memory.run("s", "go")
        const url = yield* serve(lab.memory.layer)
        const browser = yield* Browser.launch(chromium)
        const unknown = yield* Browser.open(browser, `${url}/sessions/no-such-session`)
        expect(yield* textOf(unknown, ".error-page h1")).toBe("No such session")
        expect(yield* textOf(unknown, ".error-page .message")).toBe('no session "no-such-session" in the store')

        const page = yield* Browser.open(browser, `${url}/sessions/s`)
        yield* Browser.until(page, `document.getElementById("live-state").textContent.startsWith("following")`)
        yield* lab.memory.goAway("the session store /tmp/agent.db was deleted")
        yield* Browser.until(page, `!document.getElementById("banner").hidden`)
        expect(yield* textOf(page, "#banner")).toBe(
          "The session store cannot be read: the session store /tmp/agent.db was deleted. Retrying every 3 s."
        )
        yield* Browser.screenshot(page, "store-gone")
        const list = yield* Browser.open(browser, `${url}/`)
        expect(yield* textOf(list, ".error-page h1")).toBe("The session store cannot be read")
        yield* lab.memory.comeBack
        // The open page reconnects by itself once the store is back.
        yield* Browser.until(page, `document.getElementById("banner").hidden`, 10_000)
        yield* Browser.step(() => list.reload())
        expect(yield* textOf(list, "table.sessions")).toContain("s")

        const corrupt = yield* MemoryStore.make(MemoryStore.noSessions)
        const refused = yield* Effect.flip(corrupt.addSnapshot("SQLite format 3\u0000"))
        const unreadable = InspectorStore.unavailable(`/tmp/sessions.json: ${refused.message}`)
        const corruptUrl = yield* serve(Layer.succeed(InspectorStore.InspectorStore, unreadable))
        const corruptPage = yield* Browser.open(browser, corruptUrl)
        expect(yield* textOf(corruptPage, ".error-page .message")).toMatch(
          /^\/tmp\/sessions\.json: not an agent-kernel inspector snapshot \(.+\)\. The inspector keeps running/
        )
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )
})
