/**
 * `agent ui`: the run inspector served by the agent command over a store
 * another real `agent --session` process wrote, read over real HTTP, stopped
 * with SIGINT; bad input is bad usage (exit 2). The command runs as users
 * run it: node on the bundle (see testBundle.ts).
 */
import { DurableSessions, Engine } from "@agent-kernel/durable"
import { EventBus, Settings, Toolbox } from "@agent-kernel/kernel"
import { Anthropic } from "@agent-kernel/providers"
import { FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import { assert, beforeAll, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { cli, ensureBundle, invocations, start, waitFor } from "./testBundle.js"
import { bannerOf, eventsOver, until } from "./uiTesting.js"

const root = path.resolve(import.meta.dirname, "../..")
beforeAll(ensureBundle)

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "ak-ui-"))

/** A tool call to the counter, then a 429 with a 2 s retry-after, then the answer. */
const countThenWait: FaultPlan.FaultPlan = {
  steps: [
    { kind: "reply", tool_calls: [{ name: "count", input: { key: "once" }, id: "toolu_once" }], stop: "tool_use" },
    {
      kind: "error",
      status: 429,
      error_type: "rate_limit_error",
      message: "Number of requests has exceeded your per-minute rate limit",
      headers: { "retry-after": "2" }
    },
    { kind: "reply", text: "counted once" }
  ]
}

/** The model flags of the runs here: the Anthropic provider, and the counter plugin writing to `counter`. */
const counterModel = (counter: string) => [
  "--provider",
  "anthropic",
  "--mcp",
  `node ${path.join(root, "examples/plugins/counter.mjs")} ${counter} 0`
]

/**
 * Runs `agent --session store --prompt "count once"` with `model` and kills it (SIGKILL) in its retry
 * wait: the tool call and the 429 are journaled, the run is unfinished. The process is pushed onto
 * `running` so that the test's cleanup kills it if an assertion fails first.
 */
const killedInRetryWait = async (
  model: ReadonlyArray<string>,
  store: string,
  env: Record<string, string>,
  running: Array<ReturnType<typeof start>>
) => {
  const run = start([...model, "--json", "--session", store, "--prompt", "count once"], { env })
  running.push(run)
  await run.seen('"type":"retry_scheduled"')
  run.child.kill("SIGKILL")
  assert.strictEqual(await run.exited, null)
}

/**
 * Leaves the sessions `ids` of the store `file` each with an unfinished run whose model call was in
 * flight: their owner (the store's engine and lock, as `agent --session` takes them; the CLI keeps
 * one session a store) starts them, and is closed under them once the provider at `url` has their
 * calls, as a killed process stops (nothing more is written).
 */
const crashedRuns = (file: string, url: string, ids: ReadonlyArray<string>, awaitCalls: Effect.Effect<unknown>) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const owned = yield* Layer.buildWithScope(
      DurableSessions.layer({ model: "fake-model", settings: { ...Settings.defaults, jitter: "none" } }).pipe(
        Layer.provideMerge(Engine.layerSqlite(file)),
        Layer.provide(Anthropic.layerFetch({ apiKey: Redacted.make("fake-key"), baseUrl: url })),
        Layer.provide(Toolbox.layerEmpty),
        Layer.provide(EventBus.layer())
      ),
      scope
    )
    for (const id of ids) {
      yield* Effect.forkDetach(
        Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.run(id, `go ${id}`)).pipe(
          Effect.provide(owned)
        )
      )
    }
    yield* awaitCalls
    yield* Scope.close(scope, Exit.void)
  })

describe("agent ui", () => {
  it("serves the inspector over a store an agent --session process wrote, until SIGINT (exit 130)", async () => {
    const store = path.join(tempDir(), "agent.db")
    const wrote = await cli(["--session", store, "--provider", "fake", "--prompt", "hello inspector", "--json"])
    assert.strictEqual(wrote.code, 0, wrote.stderr)
    const ui = start(["ui", "--session", store, "--port", "0"], { env: { ANTHROPIC_API_KEY: "sk-ant-never-shown" } })
    try {
      await ui.seen(/action token \(resume, interrupt\): \S+\n/)
      const { url, token } = bannerOf(ui.stdout())
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/)
      const page = await fetch(`${url}api/sessions`, { headers: { authorization: `Bearer ${token}` } })
      assert.strictEqual(page.status, 200)
      const listed = (await page.json()) as {
        total: number
        sessions: ReadonlyArray<{ id: string; status: string; runs: number; messages: number }>
      }
      assert.strictEqual(listed.total, 1)
      assert.deepInclude(listed.sessions[0], { id: "session-1", status: "completed", runs: 1, messages: 2 })
      const html = await (await fetch(url)).text()
      assert.include(html, "session-1")
      assert.notInclude(html, "sk-ant-never-shown")
      const events = (await (await fetch(`${url}api/sessions/session-1/events`)).json()) as ReadonlyArray<{
        seq: number
        event: { type: string; input?: string }
      }>
      assert.deepInclude(events[0], { seq: 1 })
      assert.deepInclude(events[0]!.event, { type: "run_started", input: "hello inspector" })
      assert.strictEqual(events.at(-1)!.event.type, "run_ended")
      // The actions need the token; with it, an action that does not apply is refused, saying why.
      const anonymous = await fetch(`${url}api/sessions/session-1/interrupt`, { method: "POST" })
      assert.strictEqual(anonymous.status, 401)
      const refused = await fetch(`${url}api/sessions/session-1/interrupt`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` }
      })
      assert.strictEqual(refused.status, 409)
      assert.include(await refused.text(), "it has no run in progress")
      ui.child.kill("SIGINT")
      assert.strictEqual(await ui.exited, 130)
      assert.include(ui.stderr(), "agent: interrupted by SIGINT")
    } finally {
      ui.child.kill("SIGKILL")
    }
  })

  it("no store, two stores, a missing store, a file that is no store, a bad port and a port in use are bad usage (exit 2)", async () => {
    const dir = tempDir()
    const missing = await cli(["ui", "--session", path.join(dir, "missing.db")])
    assert.strictEqual(missing.code, 2)
    assert.strictEqual(
      missing.stderr,
      `agent: --session ${path.join(dir, "missing.db")}: there is no session store at ${path.join(dir, "missing.db")}\n`
    )
    const notes = path.join(dir, "notes.txt")
    fs.writeFileSync(notes, "some notes, no database\n".repeat(100))
    const foreign = await cli(["ui", "--session", notes])
    assert.strictEqual(foreign.code, 2)
    assert.match(foreign.stderr, new RegExp(`^agent: --session ${notes}: cannot read the session store .*\\n$`))
    const neither = await cli(["ui"])
    assert.strictEqual(neither.code, 2)
    assert.strictEqual(
      neither.stderr,
      "agent: agent ui needs the store to inspect: --session PATH or --database-url URL\n"
    )
    const both = await cli(["ui", "--session", notes, "--database-url", "postgres://127.0.0.1:1/agents"])
    assert.strictEqual(both.code, 2)
    assert.strictEqual(both.stderr, "agent: give --session PATH or --database-url URL, not both\n")
    const badPort = await cli(["ui", "--session", notes, "--port", "70000"])
    assert.strictEqual(badPort.code, 2)
    assert.strictEqual(badPort.stderr, "agent: --port must be 0 to 65535, not 70000\n")

    const store = path.join(dir, "agent.db")
    const wrote = await cli(["--session", store, "--provider", "fake", "--prompt", "hi"])
    assert.strictEqual(wrote.code, 0, wrote.stderr)
    const taken = http.createServer()
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve))
    try {
      const port = (taken.address() as AddressInfo).port
      const inUse = await cli(["ui", "--session", store, "--port", String(port)])
      assert.strictEqual(inUse.code, 2)
      assert.match(inUse.stderr, new RegExp(`^agent: cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE.*\\n$`))
    } finally {
      taken.close()
    }
  })

  it("resumes from the page a run whose process was killed (with --provider), taking the store for the run only", async () => {
    const dir = tempDir()
    const store = path.join(dir, "agent.db")
    const counter = path.join(dir, "counts.txt")
    const scope = Effect.runSync(Scope.make())
    const provider = await Effect.runPromise(Scope.provide(FakeProvider.make(countThenWait), scope))
    const env = { ANTHROPIC_API_KEY: "fake-key", ANTHROPIC_BASE_URL: provider.url }
    const model = counterModel(counter)
    const running: Array<ReturnType<typeof start>> = []
    try {
      // Killed in its retry wait: the tool call and the 429 are journaled, the run is unfinished.
      await killedInRetryWait(model, store, env, running)
      assert.strictEqual(invocations(counter).get("once"), 1)

      // Without a provider the page cannot resume it, and says which flags let it.
      const reader = start(["ui", "--session", store, "--port", "0"], { env })
      running.push(reader)
      await reader.seen(/action token \(resume, interrupt\): \S+\n/)
      const readerBanner = bannerOf(reader.stdout())
      const listed = (await (await fetch(`${readerBanner.url}api/sessions`)).json()) as {
        sessions: ReadonlyArray<{ id: string; status: string }>
      }
      assert.deepInclude(listed.sessions[0], { id: "session-1", status: "resumable" })
      const refused = await fetch(`${readerBanner.url}api/sessions/session-1/resume`, {
        method: "POST",
        headers: { authorization: `Bearer ${readerBanner.token}` }
      })
      assert.strictEqual(refused.status, 409)
      const reason = await refused.text()
      assert.include(reason, "--provider NAME")
      assert.include(reason, `agent --session ${store} --resume`)
      reader.child.kill("SIGINT")
      assert.strictEqual(await reader.exited, 130)

      const ui = start(["ui", "--session", store, "--port", "0", ...model], { env })
      running.push(ui)
      await ui.seen(/action token \(resume, interrupt\): \S+\n/)
      const { url, token } = bannerOf(ui.stdout())
      const anonymous = await fetch(`${url}api/sessions/session-1/resume`, { method: "POST" })
      assert.strictEqual(anonymous.status, 401)
      const resumed = await fetch(`${url}api/sessions/session-1/resume`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` }
      })
      assert.strictEqual(resumed.status, 200, await resumed.clone().text())
      const events = await until(
        () => eventsOver(url, "session-1"),
        (logged) => logged.some((entry) => entry.event.type === "run_ended"),
        () => ui.stderr()
      )
      // One run, begun by the killed process and ended by the resume: no step of it logged twice.
      assert.deepStrictEqual(
        events.map((logged) => logged.seq),
        Array.from({ length: events.length }, (_, i) => i + 1)
      )
      assert.deepStrictEqual(
        events
          .filter((logged) => ["run_started", "run_ended"].includes(logged.event.type))
          .map((logged) => logged.event),
        [
          { ...events[0]!.event, type: "run_started", input: "count once" },
          { ...events.at(-1)!.event, type: "run_ended", status: "completed" }
        ]
      )
      assert.strictEqual(events.filter((logged) => logged.event.type === "tool_call_started").length, 1)
      assert.strictEqual(invocations(counter).get("once"), 1)
      await waitFor(
        () => ui.stderr().includes("agent ui: the resumed run of session-1 ended completed\n"),
        "agent ui to tell the resumed run's end",
        ui.stderr
      )
      // The store is let go when the run ends: another process takes it while agent ui goes on.
      const after = await cli(["sessions", store])
      assert.strictEqual(after.code, 0, after.stderr)
      assert.match(after.stdout, /^session-1\tcompleted\t1\t/m)
      const again = await fetch(`${url}api/sessions/session-1/resume`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` }
      })
      assert.strictEqual(again.status, 409)
      assert.include(await again.text(), "it has no unfinished run (it is completed)")
      ui.child.kill("SIGINT")
      assert.strictEqual(await ui.exited, 130)
    } finally {
      for (const child of running) child.child.kill("SIGKILL")
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })

  it("resumes one run at a time: a second resume while one runs is refused, naming the run agent ui is resuming", async () => {
    const dir = tempDir()
    const store = path.join(dir, "agent.db")
    const counter = path.join(dir, "counts.txt")
    const scope = Effect.runSync(Scope.make())
    // The resumed run's answer is held after its first event, so that its resume is still running.
    const held: FaultPlan.FaultPlan = {
      steps: [...countThenWait.steps.slice(0, 2), { kind: "reply", text: "counted once", hold_after_events: 1 }]
    }
    const provider = await Effect.runPromise(Scope.provide(FakeProvider.make(held), scope))
    const env = { ANTHROPIC_API_KEY: "fake-key", ANTHROPIC_BASE_URL: provider.url }
    const model = counterModel(counter)
    const running: Array<ReturnType<typeof start>> = []
    try {
      await killedInRetryWait(model, store, env, running)

      const ui = start(["ui", "--session", store, "--port", "0", ...model], { env })
      running.push(ui)
      await ui.seen(/action token \(resume, interrupt\): \S+\n/)
      const { url, token } = bannerOf(ui.stdout())
      const resume = () =>
        fetch(`${url}api/sessions/session-1/resume`, { method: "POST", headers: { authorization: `Bearer ${token}` } })
      const first = await resume()
      assert.strictEqual(first.status, 200, await first.clone().text())
      await Effect.runPromise(provider.awaitRequests(3))
      const second = await resume()
      assert.strictEqual(second.status, 409)
      const reason = await second.text()
      assert.include(reason, "this inspector is resuming the run of session-1: it resumes one run at a time", reason)
      assert.notInclude(reason, "another process")

      await Effect.runPromise(provider.release)
      const events = await until(
        () => eventsOver(url, "session-1"),
        (logged) => logged.some((entry) => entry.event.type === "run_ended"),
        () => ui.stderr()
      )
      assert.deepStrictEqual(
        events.filter((logged) => logged.event.type === "run_ended").map((logged) => logged.event.status),
        ["completed"]
      )
      assert.strictEqual((await Effect.runPromise(provider.requests)).length, 3)
      assert.strictEqual(invocations(counter).get("once"), 1)
      ui.child.kill("SIGINT")
      assert.strictEqual(await ui.exited, 130)
    } finally {
      for (const child of running) child.child.kill("SIGKILL")
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })

  it("a resume takes the store for every unfinished run of it: each ends once, no model call sent twice, and the store is let go after the last", async () => {
    const dir = tempDir()
    const store = path.join(dir, "agent.db")
    const scope = Effect.runSync(Scope.make())
    const crashing = await Effect.runPromise(
      Scope.provide(
        FakeProvider.make(
          FaultPlan.make([{ kind: "reply", text: "never sent", hold_after_events: 1 }], { after: "repeat_last" })
        ),
        scope
      )
    )
    const provider = await Effect.runPromise(
      Scope.provide(
        FakeProvider.make(FaultPlan.make([{ kind: "reply", text: "finished" }], { after: "repeat_last" })),
        scope
      )
    )
    const running: Array<ReturnType<typeof start>> = []
    try {
      await Effect.runPromise(crashedRuns(store, crashing.url, ["alpha", "beta"], crashing.awaitRequests(2)))
      const ui = start(["ui", "--session", store, "--port", "0", "--provider", "anthropic"], {
        env: { ANTHROPIC_API_KEY: "fake-key", ANTHROPIC_BASE_URL: provider.url }
      })
      running.push(ui)
      await ui.seen(/action token \(resume, interrupt\): \S+\n/)
      const { url, token } = bannerOf(ui.stdout())
      const resumed = await fetch(`${url}api/sessions/beta/resume`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` }
      })
      assert.strictEqual(resumed.status, 200, await resumed.clone().text())
      await waitFor(
        () => ui.stderr().includes("agent ui: the resumed run of beta ended"),
        "agent ui to tell the end of the run it was asked to resume",
        ui.stderr
      )
      assert.include(ui.stderr(), "agent ui: taking the store resumes its 2 unfinished runs: beta, alpha\n")
      assert.include(ui.stderr(), "agent ui: the resumed run of beta ended completed\n")
      assert.include(ui.stderr(), "agent ui: the resumed run of alpha ended completed\n")
      for (const id of ["alpha", "beta"]) {
        const events = await eventsOver(url, id)
        assert.deepStrictEqual(
          events.map((logged) => logged.seq),
          Array.from({ length: events.length }, (_, i) => i + 1)
        )
        assert.deepStrictEqual(
          events.filter((logged) => logged.event.type === "run_ended").map((logged) => logged.event.status),
          ["completed"],
          id
        )
      }
      // One call each to finish the two runs: none cut off, none sent again.
      assert.strictEqual((await Effect.runPromise(provider.requests)).length, 2)
      // The store is let go once the last run ended: another process takes it while agent ui goes on.
      const after = await cli(["sessions", store])
      assert.strictEqual(after.code, 0, after.stderr)
      assert.match(after.stdout, /^alpha\tcompleted\t1\t/m)
      assert.match(after.stdout, /^beta\tcompleted\t1\t/m)
      assert.strictEqual((await Effect.runPromise(provider.requests)).length, 2)
      ui.child.kill("SIGINT")
      assert.strictEqual(await ui.exited, 130)
    } finally {
      for (const child of running) child.child.kill("SIGKILL")
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })

  it("--help lists ui; the inspector is loaded only by agent ui (no static import of the command line reaches it)", async () => {
    const help = await cli(["--help"])
    assert.strictEqual(help.code, 0)
    assert.match(help.stdout, /\n {2}ui {2,}Serve the run inspector/)
    const meta = JSON.parse(fs.readFileSync(path.join(root, "examples/dist/meta.json"), "utf8")) as {
      outputs: Record<
        string,
        { imports: ReadonlyArray<{ path: string; kind: string }>; inputs: Record<string, unknown> }
      >
    }
    const reached = new Set<string>()
    const visit = (output: string) => {
      if (reached.has(output)) return
      reached.add(output)
      for (const imported of meta.outputs[output]?.imports ?? []) {
        if (imported.kind === "import-statement") visit(imported.path)
      }
    }
    // The bin loads main.ts (the command line) at once: what it imports statically loads on every command.
    const main = Object.entries(meta.outputs).find(([, output]) => "examples/cli/main.ts" in output.inputs)
    assert.isDefined(main)
    visit(main![0])
    const staticInputs = [...reached].flatMap((output) => Object.keys(meta.outputs[output]?.inputs ?? {}))
    assert.isTrue(staticInputs.some((input) => input.startsWith("examples/cli/ui.ts")))
    assert.deepStrictEqual(
      staticInputs.filter((input) => input.startsWith("packages/inspector/")),
      []
    )
    const allInputs = Object.values(meta.outputs).flatMap((output) => Object.keys(output.inputs))
    assert.isTrue(allInputs.includes("packages/inspector/src/durable/DurableStore.ts"))
  })
})
