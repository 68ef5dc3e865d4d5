/**
 * The inspector's performance in headless Chromium (a benchmark, not a
 * test): how long the sessions page takes to render with 10,000 sessions in
 * the store, how long the timeline of a 2,000-step run takes, and how soon a
 * live event reaches the page after the kernel publishes it (p95 over 1,000
 * events). Goals (issue 25): each page under 1 s; a live event within 50 ms
 * at p95.
 *
 * Run: `pnpm exec tsx packages/inspector/bench/render.ts` (Debian's
 * `chromium` installed; `--runs N` repeats each page load N times, default 5).
 *
 * - Render time: from the navigation's start to the second animation frame
 *   after the `load` event, read in the page (`performance.now()`): the
 *   server's answer, the HTML parsed, styles and the SVG laid out and painted.
 * - Live latency: the page's own live view follows the session; each event's
 *   arrival is the moment the page's script records it (a `MutationObserver`
 *   on the live view's last-event attribute), against the event's `at`, the
 *   kernel's clock reading when it published it. Both clocks are this
 *   machine's wall clock.
 */
import { EventBus, ModelProvider, Session, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import { InProcessTools, PluginToolbox } from "@agent-kernel/plugins"
import { Anthropic, Transport } from "@agent-kernel/providers"
import { NodeTransport } from "@agent-kernel/providers/node"
import { FakeProvider } from "@agent-kernel/providers/testing"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { chromium, type Page } from "playwright-core"
import { ActionToken } from "../src/index.js"
import { InspectorServer } from "../src/node/index.js"
import { MemoryStore } from "../src/testing/index.js"

const runs = Number(process.argv[process.argv.indexOf("--runs") + 1] ?? "5") || 5

const executable = ["/usr/bin/chromium", "/usr/bin/chromium-browser", process.env["CHROMIUM_PATH"]].find(
  (path) => path !== undefined && Fs.existsSync(path)
)

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN

const fmt = (ms: number) => `${ms.toFixed(1)} ms`

/** A session factory over a scripted model: the 2,000-step run and the 10,000 sessions' template. */
const scripted =
  (script: (id: string) => ReadonlyArray<ScriptedModel.Step>): MemoryStore.SessionFactory =>
  ({ id, state, observer }) =>
    Effect.gen(function* () {
      const bus = yield* EventBus.make([observer])
      const model = yield* ScriptedModel.make(script(id))
      const echo = yield* InProcessTools.make("tools", [
        InProcessTools.tool({
          name: "echo",
          description: "Echoes its text",
          parameters: Schema.Struct({ text: Schema.String }),
          handler: ({ text }) => Effect.succeed(text)
        })
      ])
      const settings: Settings.Settings = {
        ...Settings.defaults,
        max_turns: 10_000,
        max_session_retries: 100,
        base_delay_ms: 1,
        jitter: "none"
      }
      const toolbox = yield* PluginToolbox.make({ providers: [Effect.succeed(echo)], settings })
      return yield* Session.make({
        id,
        model: "model-a",
        settings,
        metrics: false,
        ...(Option.isSome(state) ? { state: state.value } : {})
      }).pipe(
        Effect.provide(model.layer),
        Effect.provideService(EventBus.EventBus, bus),
        Effect.provideService(Toolbox.Toolbox, toolbox)
      )
    })

/** 2,000 steps: each a tool call and its result; every 100th call first meets a rate limit. */
const longRun = (): ReadonlyArray<ScriptedModel.Step> => {
  const steps: Array<ScriptedModel.Step> = []
  for (let i = 0; i < 2_000; i++) {
    if (i % 100 === 50) steps.push(ScriptedModel.rateLimited({ retryAfterMs: 1 }))
    steps.push(ScriptedModel.toolCalls({ id: `call-${i}`, name: "echo", input: { text: `step ${i}` } }))
  }
  steps.push(ScriptedModel.text("done"))
  return steps
}

/** One load: the time to the second frame after `load`, and to the response's first byte (the server's part). */
const rendered = (page: Page, url: string) =>
  Effect.promise(async () => {
    await page.goto(url, { waitUntil: "load" })
    return page.evaluate<{ readonly total: number; readonly server: number }>(
      `new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve({
        total: performance.now(),
        server: performance.getEntriesByType("navigation")[0].responseStart
      }))))`
    )
  })

const measure = (page: Page, name: string, url: string, check: string) =>
  Effect.gen(function* () {
    const loads: Array<{ readonly total: number; readonly server: number }> = []
    for (let i = 0; i < runs + 1; i++) {
      const load = yield* rendered(page, url)
      if (i > 0) loads.push(load)
    }
    const ok = yield* Effect.promise(() => page.evaluate<boolean>(check))
    if (!ok) return yield* Effect.die(new Error(`${name}: the page does not show what it should (${check})`))
    const totals = loads.map((load) => load.total).sort((a, b) => a - b)
    const servers = loads.map((load) => load.server).sort((a, b) => a - b)
    console.log(
      `${name.padEnd(44)} median ${fmt(percentile(totals, 50)).padStart(9)}  max ${fmt(totals.at(-1)!).padStart(9)}  (first byte: median ${fmt(percentile(servers, 50))})`
    )
  })

const program = Effect.gen(function* () {
  if (executable === undefined)
    return yield* Effect.die(new Error("no Chromium: install it with `apt-get install chromium`"))
  const token = yield* ActionToken.make

  // 10,000 sessions, each a copy of a real recorded session, and one 2,000-step run.
  const memory = yield* MemoryStore.make(
    scripted((id) =>
      id === "long"
        ? longRun()
        : [ScriptedModel.toolCalls({ id: "c", name: "echo", input: { text: "hi" } }), ScriptedModel.text("hello")]
    )
  )
  yield* memory.run("template", "Say hello")
  const started = Date.now()
  const long = yield* memory.run("long", "Run 2,000 steps")
  console.log(
    `2,000-step run: ${long.status}, ${long.turns} turns, ${((Date.now() - started) / 1_000).toFixed(1)} s to make`
  )
  const SnapshotJson = Schema.fromJsonString(Schema.toCodecJson(MemoryStore.Snapshot))
  const template = yield* Schema.decodeUnknownEffect(SnapshotJson)(yield* memory.toSnapshot)
  const one = template.sessions.find((session) => session.id === "template")!
  const copies = Array.from({ length: 10_000 }, (_, i) => ({
    ...one,
    id: `session-${String(i).padStart(5, "0")}`,
    last_activity: one.last_activity - i * 1_000
  }))
  yield* memory.addSnapshot(yield* Schema.encodeEffect(SnapshotJson)({ ...template, sessions: copies }))
  const total = (yield* memory.store.sessions({ offset: 0, limit: 1 })).total
  const events = (yield* memory.store.events("long", { after: 0, limit: 1_000_000, omitDeltas: true })).length
  console.log(`store: ${total} sessions; the long run has ${events} events\n`)

  // A live session on the real provider path: HTTP streaming from the fake server, 1,000 text deltas.
  const fake = yield* FakeProvider.make({
    steps: [
      { kind: "reply", text: "ready" },
      { kind: "reply", text: "x".repeat(4_000), delta_chars: 4, event_delay_ms: 5 }
    ]
  })
  const transport = yield* NodeTransport.make()
  const live = yield* MemoryStore.make(({ id, state, observer }) =>
    Effect.gen(function* () {
      const bus = yield* EventBus.make([observer])
      const provider = yield* Anthropic.make({ apiKey: Redacted.make("bench-key"), baseUrl: fake.url }).pipe(
        Effect.orDie,
        Effect.provideService(Transport.Transport, transport)
      )
      return yield* Session.make({
        id,
        model: "model-a",
        metrics: false,
        ...(Option.isSome(state) ? { state: state.value } : {})
      }).pipe(
        Effect.provideService(ModelProvider.ModelProvider, provider),
        Effect.provideService(EventBus.EventBus, bus)
      )
    })
  )
  yield* live.run("live", "warm up")

  const big = yield* Layer.build(InspectorServer.layer({ token, port: 0 }).pipe(Layer.provide(memory.layer)))
  const bigUrl = yield* InspectorServer.url.pipe(Effect.provideContext(big))
  const small = yield* Layer.build(InspectorServer.layer({ token, port: 0 }).pipe(Layer.provide(live.layer)))
  const liveUrl = yield* InspectorServer.url.pipe(Effect.provideContext(small))

  const profile = Fs.mkdtempSync(Path.join(Os.tmpdir(), "inspector-bench-"))
  const browser = yield* Effect.acquireRelease(
    Effect.promise(() =>
      chromium.launchPersistentContext(profile, {
        executablePath: executable,
        headless: true,
        args: [
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync"
        ],
        viewport: { width: 1400, height: 900 }
      })
    ),
    (context) => Effect.promise(() => context.close().then(() => Fs.rmSync(profile, { recursive: true, force: true })))
  )
  const page = yield* Effect.promise(() => browser.newPage())
  console.log(`render, in headless Chromium, ${runs} loads each after one warm-up (goal: under 1 s each)`)
  yield* measure(
    page,
    "sessions page, 10,000 sessions (first page)",
    `${bigUrl}/`,
    `document.querySelectorAll("table.sessions tbody tr").length === 50`
  )
  yield* measure(
    page,
    "sessions page, 10,000 sessions (page 150)",
    `${bigUrl}/?page=150`,
    `document.querySelector(".pager span").textContent.includes("page 150 of 201")`
  )
  yield* measure(
    page,
    "sessions page, search among 10,000",
    `${bigUrl}/?q=session-0999`,
    `document.querySelectorAll("table.sessions tbody tr").length === 10`
  )
  yield* measure(
    page,
    "timeline of the 2,000-step run",
    `${bigUrl}/sessions/long/runs/1`,
    `document.querySelectorAll("svg.timeline .ti.attempt").length >= 2000`
  )
  const svgItems = yield* Effect.promise(() =>
    page.evaluate<number>(`document.querySelectorAll("svg.timeline *").length`)
  )
  console.log(`  (the timeline's SVG has ${svgItems} elements)\n`)

  // Live: the page follows the session; each event's arrival is recorded by a MutationObserver.
  yield* Effect.promise(() => page.goto(`${liveUrl}/sessions/live`, { waitUntil: "load" }))
  yield* Effect.promise(() =>
    page.evaluate(`(() => {
      window.__arrivals = [];
      const state = document.getElementById("live-state");
      new MutationObserver(() => {
        window.__arrivals.push([Number(state.getAttribute("data-last-seq")), performance.timeOrigin + performance.now()]);
      }).observe(state, { attributes: true, attributeFilter: ["data-last-seq"] });
    })()`)
  )
  yield* Effect.promise(() => page.waitForTimeout(300))
  yield* live.run("live", "stream 1,000 deltas")
  yield* Effect.promise(() => page.waitForTimeout(500))
  const arrivals = yield* Effect.promise(() => page.evaluate<Array<[number, number]>>("window.__arrivals"))
  const stored = yield* live.store.events("live", { after: 0, limit: 1_000_000 })
  const publishedAt = new Map(stored.map((logged) => [logged.seq, logged.event.at] as const))
  const deltas = new Set(stored.filter((logged) => logged.event.type === "text_delta").map((logged) => logged.seq))
  const seen = new Map<number, number>()
  for (const [seq, at] of arrivals) if (!seen.has(seq)) seen.set(seq, at)
  const latencies = [...seen]
    .filter(([seq]) => deltas.has(seq))
    .map(([seq, at]) => at - publishedAt.get(seq)!)
    .sort((a, b) => a - b)
  console.log(`live: ${latencies.length} text deltas followed in the page (of ${deltas.size} published)`)
  console.log(
    `  publication → page: p50 ${fmt(percentile(latencies, 50))}, p95 ${fmt(percentile(latencies, 95))}, p99 ${fmt(percentile(latencies, 99))}, max ${fmt(latencies.at(-1) ?? Number.NaN)} (goal: p95 under 50 ms)`
  )
  console.log(
    `load average: ${Os.loadavg()
      .map((n) => n.toFixed(1))
      .join(" ")}, ${Os.cpus().length} cores`
  )
})

NodeRuntime.runMain(program.pipe(Effect.scoped))
