/**
 * The inspector over HTTP, on a real server: its pages, its JSON API, the
 * live stream and its resumption, the actions and their token, secrets kept
 * out of every response, bad input of every kind answered with a clear
 * message (mounting in another app: Samples.test.ts).
 */
import { NodeServices } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { ActionToken, InspectorStore } from "../src/index.js"
import { MemoryStore } from "../src/testing/index.js"
import { get, kernelEvents, post, readLive, serve, token } from "./support/http.js"
import * as Lab from "./support/lab.js"

const secretPrompt = `Fetch the quarterly reports; my key is ${Lab.secretKey}`
const answer = "A streamed answer that arrives four characters at a time, in pieces a follower can drop between."
const streamed: Lab.Scenario = { plan: { steps: [Lab.slowAnswer(answer, 1.5)] } }
const bearer = { authorization: `Bearer ${Redacted.value(token)}` }

describe("the inspector over HTTP", () => {
  it.live(
    "a paused session: its badge says why and since when, the filter finds it, its run page marks the pause",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const memory = yield* MemoryStore.make(MemoryStore.noSessions)
          const snapshot: MemoryStore.Snapshot = {
            format: "agent-kernel/inspector-memory@1",
            sessions: [
              {
                id: "held",
                state: null,
                pending: "go",
                events: [
                  { type: "run_started", at: 1_000, run_id: "held/run-1", model: "m", input: "go" },
                  {
                    type: "model_request",
                    at: 1_010,
                    turn: 1,
                    model: "m",
                    attempt: 1,
                    messages: 1,
                    estimated_tokens: 10,
                    tools: 0
                  },
                  {
                    type: "run_paused",
                    at: 1_020,
                    run_id: "held/run-1",
                    turn: 1,
                    attempt: 1,
                    reason: "quota_exceeded",
                    error: { category: "quota_exceeded", message: "out of credits" },
                    retries: { max_per_call: 0, session_total: 0 },
                    resume_at: null
                  }
                ],
                retries_used: 0,
                retries_left: 20,
                last_activity: 1_020
              }
            ]
          }
          yield* memory.addSnapshot(JSON.stringify(snapshot))
          const url = yield* serve(memory.layer)
          const sessions = yield* get(`${url}/?status=paused`)
          expect(sessions.body).toContain(
            'data-status="paused">paused: quota_exceeded since 1970-01-01T00:00:01.020Z</span>'
          )
          expect(sessions.body).toContain('<a href="/sessions/held">held</a>')
          const session = yield* get(`${url}/sessions/held`)
          expect(session.body).toContain('<button type="button" data-action="resume">Resume the paused run</button>')
          expect(session.body).toContain('<span class="status s-paused">paused: quota_exceeded</span>')
          const run = yield* get(`${url}/sessions/held/runs/1`)
          expect(run.body).toContain("paused instead of ending quota_exceeded")
        })
      )
  )

  it.live(
    "pages: sessions, a session's runs and messages, a run's timeline; the page's assets are the inspector's own",
    () =>
      Effect.gen(function* () {
        const lab = yield* Lab.make({ tour: Lab.tour })
        yield* lab.memory.run("tour", secretPrompt)
        yield* lab.memory.run("tour", "And the next quarter?")
        const url = yield* serve(lab.memory.layer, { secrets: [Redacted.make(Lab.secretKey)] })

        const sessions = yield* get(`${url}/`)
        expect(sessions.status).toBe(200)
        expect(sessions.headers.get("content-type")).toBe("text/html; charset=utf-8")
        expect(sessions.headers.get("content-security-policy")).toContain("default-src 'none'; script-src 'self'")
        expect(sessions.body).toContain('<a href="/sessions/tour">tour</a>')
        expect(sessions.body).toContain('data-status="failed">failed: content_filtered</span>')

        const session = yield* get(`${url}/sessions/tour`)
        expect(session.body).toContain('<a href="/sessions/tour/runs/1">tour/run-1</a>')
        expect(session.body).toContain('<a href="/sessions/tour/runs/2">tour/run-2</a>')
        expect(session.body).toMatch(/<details class="tool-use"><summary>⚙ fetch_report/)
        expect(session.body).toMatch(/<details class="tool-result error"><summary>✗ error result/)
        expect(session.body).toContain('data-fact="retries_used">3</dd>')

        const run = yield* get(`${url}/sessions/tour/runs/1`)
        expect(run.status).toBe(200)
        for (const kind of ["attempt", "wait", "marker", "tool", "crash", "breaker", "budget"]) {
          expect(run.body).toContain(`data-kind="${kind}"`)
        }
        // Everything the page loads comes from the inspector.
        const sources = [...run.body.matchAll(/(?:src|href)="([^"]*)"/g)].map((match) => match[1]!)
        expect(sources.every((source) => source.startsWith("/"))).toBe(true)
        for (const asset of ["/assets/inspector.js", "/assets/inspector.css"]) {
          const served = yield* get(`${url}${asset}`)
          expect(served.status).toBe(200)
          expect(served.body).not.toMatch(/https?:\/\//)
        }
        const svg = yield* get(`${url}/sessions/tour/runs/1/timeline.svg`)
        expect(svg.headers.get("content-type")).toBe("image/svg+xml; charset=utf-8")
        expect(svg.body.startsWith("<svg")).toBe(true)
        const event = yield* get(`${url}/api/sessions/tour/events/1`)
        expect(JSON.parse(event.body)).toMatchObject({ seq: 1, event: { type: "run_started", run_id: "tour/run-1" } })
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )

  it.live(
    "secrets never shown: the key in a prompt, a history and an event, and the token, in no page or response",
    () =>
      Effect.gen(function* () {
        const lab = yield* Lab.make({ tour: Lab.tour, live: streamed })
        yield* lab.memory.run("tour", secretPrompt)
        yield* lab.memory.run("live", `Answer slowly. ${Lab.secretKey}`)
        const url = yield* serve(lab.memory.layer, { secrets: [Redacted.make(Lab.secretKey)] })
        const raw = yield* lab.memory.store.events("tour", { after: 0, limit: 1 })
        // The store holds the key (the run's input): the inspector is what keeps it out.
        expect(JSON.stringify(raw)).toContain(Lab.secretKey)
        const bodies = yield* Effect.forEach(
          [
            "/",
            "/sessions/tour",
            "/sessions/tour?messages=all",
            "/sessions/tour/runs/1",
            "/sessions/tour/runs/1/timeline.svg",
            "/api/sessions",
            "/api/sessions/tour",
            "/api/sessions/tour/history",
            "/api/sessions/tour/events?limit=10000",
            "/api/sessions/tour/events/1",
            "/sessions/live",
            "/api/sessions/live/events?limit=10000"
          ],
          (path) => Effect.map(get(`${url}${path}`), (response) => response.body)
        )
        const live = yield* readLive(
          `${url}/api/sessions/live/live`,
          (message) => message.event === "kernel" && JSON.parse(message.data).type === "run_ended"
        )
        for (const body of [...bodies, live.raw]) {
          expect(body).not.toContain(Lab.secretKey)
          expect(body).not.toContain(Redacted.value(token))
        }
        expect(bodies[1]).toContain("my key is &lt;redacted&gt;")
        // An error can quote what it failed on: its message is scrubbed too.
        const failing = InspectorStore.unavailable(`cannot connect to postgres://agent:${Lab.secretKey}@db:5432/agent`)
        const failingUrl = yield* serve(Layer.succeed(InspectorStore.InspectorStore, failing), {
          secrets: [Redacted.make(Lab.secretKey)]
        })
        const errors = yield* Effect.forEach(["/", "/api/sessions"], (path) =>
          Effect.map(get(`${failingUrl}${path}`), (response) => response.body)
        )
        const failedLive = yield* readLive(
          `${failingUrl}/api/sessions/s/live`,
          (message) => message.event === "store-error"
        )
        for (const body of [...errors, failedLive.raw]) {
          expect(body).toMatch(/postgres:\/\/agent:(&lt;|<)redacted(&gt;|>)@db/)
          expect(body).not.toContain(Lab.secretKey)
        }
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )

  it.live("actions need the token; an action that does not apply says why", () =>
    Effect.gen(function* () {
      const lab = yield* Lab.make({ h: Lab.hangingTool, done: streamed })
      yield* lab.memory.run("done", "go")
      yield* lab.memory.start("h", "deploy it")
      yield* (yield* lab.server("h")).awaitRequests(1)
      const url = yield* serve(lab.memory.layer)
      const none = yield* post(`${url}/api/sessions/h/interrupt`)
      expect([none.status, JSON.parse(none.body)]).toEqual([
        401,
        { error: "unauthorized", message: "this action needs the token the inspector printed when it started" }
      ])
      const wrong = yield* post(`${url}/api/sessions/h/interrupt`, { authorization: "Bearer not-the-token" })
      expect(wrong.status).toBe(401)
      expect(JSON.parse(wrong.body).message).toContain("the action token is wrong")
      const refused = yield* post(`${url}/api/sessions/done/resume`, bearer)
      expect([refused.status, JSON.parse(refused.body)]).toEqual([
        409,
        {
          error: "action_refused",
          message: 'cannot resume the session "done": it has no unfinished run (it is completed)'
        }
      ])
      const interrupted = yield* post(`${url}/api/sessions/h/interrupt`, bearer)
      expect([interrupted.status, interrupted.body]).toEqual([200, '{"ok":true}'])
      expect(JSON.parse((yield* get(`${url}/api/sessions/h`)).body).summary.status).toBe("interrupted")
      const unknown = yield* post(`${url}/api/sessions/nobody/interrupt`, {
        "x-inspector-token": Redacted.value(token)
      })
      expect([unknown.status, JSON.parse(unknown.body).message]).toEqual([404, 'no session "nobody" in the store'])
      const get_ = yield* get(`${url}/api/sessions/h/interrupt`)
      expect(get_.status).toBe(404)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )

  it.live(
    "the live stream: events with their sequence numbers as ids; a reconnection from Last-Event-ID loses and repeats nothing",
    () =>
      Effect.gen(function* () {
        const lab = yield* Lab.make({ s: streamed })
        const url = yield* serve(lab.memory.layer)
        yield* lab.memory.start("s", "go")
        const live = `${url}/api/sessions/s/live`
        let deltas = 0
        const first = yield* readLive(
          live,
          (message) => message.event === "kernel" && JSON.parse(message.data).type === "text_delta" && ++deltas === 5
        )
        expect(first.raw.startsWith("retry: 500\n\n")).toBe(true)
        expect(first.messages[0]?.event).toBe("status")
        const seen = kernelEvents(first.messages)
        const last = seen.at(-1)!.seq
        const rest = yield* readLive(
          live,
          (message) => message.event === "status" && JSON.parse(message.data).status !== "running",
          { "last-event-id": String(last) }
        )
        const all = [...seen, ...kernelEvents(rest.messages)]
        expect(all.map((logged) => logged.seq)).toEqual(all.map((_, i) => i + 1))
        const text = all.flatMap((logged) => (logged.event.type === "text_delta" ? [logged.event.text] : [])).join("")
        expect(text).toBe(answer)
        // A run's start and end also send the session's status.
        expect(
          rest.messages.filter((message) => message.event === "status").map((m) => JSON.parse(m.data).status)
        ).toEqual(["running", "completed"])
        const stored = yield* lab.memory.store.events("s", { after: 0, limit: 100_000 })
        expect(all.map((logged) => logged.seq)).toEqual(stored.map((logged) => logged.seq))
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )

  it.live(
    "bad input: an unknown session, a bad page number, an unknown page, a store gone, a corrupt snapshot — each a clear page, the server up",
    () =>
      Effect.gen(function* () {
        const lab = yield* Lab.make({ s: streamed })
        yield* lab.memory.run("s", "go")
        const url = yield* serve(lab.memory.layer)
        const unknown = yield* get(`${url}/sessions/no-such-session`)
        expect(unknown.status).toBe(404)
        expect(unknown.body).toContain("<h1>No such session</h1>")
        expect(unknown.body).toContain("no session &quot;no-such-session&quot; in the store")
        const badPage = yield* get(`${url}/?page=zero`)
        expect(badPage.status).toBe(400)
        expect(badPage.body).toContain("bad query parameters")
        const badRun = yield* get(`${url}/sessions/s/runs/7`)
        expect([badRun.status, badRun.body.includes("the session &quot;s&quot; has no run 7")]).toEqual([404, true])
        const nowhere = yield* get(`${url}/no/such/page`)
        expect([nowhere.status, nowhere.body.includes("the inspector has no such page")]).toEqual([404, true])
        const liveUnknown = yield* readLive(`${url}/api/sessions/nobody/live`, (message) => message.event !== "kernel")
        expect(liveUnknown.messages.map((m) => [m.event, JSON.parse(m.data).message])).toEqual([
          ["not-found", 'no session "nobody" in the store']
        ])

        const follower = yield* Effect.forkChild(
          readLive(`${url}/api/sessions/s/live`, (message) => message.event === "store-error"),
          { startImmediately: true }
        )
        yield* Effect.sleep("100 millis")
        yield* lab.memory.goAway("the session store at /tmp/agent.db was deleted")
        const ended = yield* Fiber.join(follower)
        expect(ended.messages.at(-1)?.data).toContain("the session store at /tmp/agent.db was deleted")
        const gone = yield* get(`${url}/sessions/s`)
        expect(gone.status).toBe(503)
        expect(gone.body).toContain("The session store cannot be read")
        expect(gone.body).toContain("the session store at /tmp/agent.db was deleted. The inspector keeps running")
        const api = yield* get(`${url}/api/sessions`)
        expect([api.status, JSON.parse(api.body).error]).toEqual([503, "store_unavailable"])
        yield* lab.memory.comeBack
        expect((yield* get(`${url}/sessions/s`)).status).toBe(200)

        const corrupt = yield* MemoryStore.make(MemoryStore.noSessions)
        const refused = yield* Effect.flip(corrupt.addSnapshot('{"format":"sqlite","pages":[]}'))
        // A store that cannot be opened: the inspector starts anyway, and each answer says why.
        const unreadable = InspectorStore.unavailable(`/tmp/sessions.json: ${refused.message}`)
        const corruptUrl = yield* serve(Layer.succeed(InspectorStore.InspectorStore, unreadable))
        const page = yield* get(`${corruptUrl}/`)
        expect(page.status).toBe(503)
        expect(page.body).toContain("/tmp/sessions.json: not an agent-kernel inspector snapshot (")
        const live = yield* readLive(`${corruptUrl}/api/sessions/s/live`, (message) => message.event === "store-error")
        expect(live.messages.at(-1)?.data).toContain("not an agent-kernel inspector snapshot")
        const action = yield* post(`${corruptUrl}/api/sessions/s/resume`, bearer)
        expect([action.status, JSON.parse(action.body).error]).toEqual([503, "store_unavailable"])
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )
})

describe("session ids", () => {
  it.live("an id with any characters links to its pages, and is shown escaped", () =>
    Effect.gen(function* () {
      const id = "team a/ticket #7?x=<b>&é"
      const lab = yield* Lab.make({ [id]: { plan: { steps: [Lab.slowAnswer("ok", 0.1)] } } })
      yield* lab.memory.run(id, "go")
      const url = yield* serve(lab.memory.layer)
      const path = `/sessions/${encodeURIComponent(id)}`
      expect((yield* get(`${url}/`)).body).toContain(`<a href="${path.replaceAll("&", "&amp;")}">`)
      const page = yield* get(`${url}${path}`)
      expect(page.status).toBe(200)
      expect(page.body).toContain('<span class="id">team a/ticket #7?x=&lt;b&gt;&amp;é</span>')
      expect((yield* get(`${url}${path}/runs/1`)).status).toBe(200)
      expect(JSON.parse((yield* get(`${url}/api${path}`)).body).summary.id).toBe(id)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )
})

describe("the action token", () => {
  it.effect("is 43 random base64url characters, matched only whole", () =>
    Effect.gen(function* () {
      const a = yield* ActionToken.make
      const b = yield* ActionToken.make
      expect(Redacted.value(a)).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(Redacted.value(a)).not.toBe(Redacted.value(b))
      expect(ActionToken.matches(a, Redacted.value(a))).toBe(true)
      expect(ActionToken.matches(a, Redacted.value(b))).toBe(false)
      expect(ActionToken.matches(a, Redacted.value(a).slice(0, 42))).toBe(false)
      expect(ActionToken.matches(a, `${Redacted.value(a)}x`)).toBe(false)
      expect(ActionToken.matches(a, "")).toBe(false)
      expect(String(a)).not.toContain(Redacted.value(a))
    })
  )
})
