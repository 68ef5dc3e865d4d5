/**
 * `agent ui --database-url URL`: the run inspector over a Postgres session
 * store (the run's throwaway server, a database of the test's own) that an
 * owner process wrote with the light engine (`Engine.layerSql`): its
 * sessions listed over real HTTP (a run the owner left unfinished as
 * resumable), the URL's password kept out of its pages, that run resumed
 * from the page (`--provider`) to its end; an unreachable
 * database, and one with no store, are bad usage in one line (exit 2). The command runs
 * as users run it: node on the bundle (see testBundle.ts).
 */
import { Engine, EventLog } from "@agent-kernel/durable"
import { assert, beforeAll, describe, it } from "@effect/vitest"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import { ownDatabase } from "../../packages/cluster/test/postgres.js"
import {
  answer,
  happyProvider,
  heldProvider,
  owner,
  until as untilEffect
} from "../../packages/inspector/test/support/durable.js"
import { cli, ensureBundle, start } from "./testBundle.js"
import { eventsOver, served, sessionsOver, until } from "./uiTesting.js"

beforeAll(ensureBundle)

/** The light engine over the database at `url`, as an app running its sessions on Postgres owns it. */
const engineAt = (url: string) =>
  Engine.layerSql().pipe(Layer.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 3 })))

describe("agent ui --database-url", () => {
  it("lists the sessions of a Postgres store (one completed, one its owner left unfinished: resumable) and resumes the unfinished one", async () => {
    const scope = Effect.runSync(Scope.make())
    const running: Array<ReturnType<typeof start>> = []
    try {
      const { url, happy } = await Effect.runPromise(
        Scope.provide(
          Effect.gen(function* () {
            const { url } = yield* ownDatabase("cli_ui_pg")
            const happy = yield* happyProvider
            const held = yield* heldProvider
            // One session completed; one whose owner went away mid-run (its answer held).
            const done = yield* owner(engineAt(url), happy.url)
            yield* done.run("finished", "hello postgres")
            yield* done.close
            const crashed = yield* owner(engineAt(url), held.url)
            yield* crashed.start("crashed", "go")
            yield* held.awaitRequests(1)
            // A crash loses what was not written yet: the run's start is in the log before the owner goes.
            yield* untilEffect(
              Effect.provide(EventLog.events("crashed", { after: 0, limit: 10 }), crashed.context),
              (events) => events.length > 0
            )
            yield* crashed.close
            return { url, happy }
          }),
          scope
        )
      )
      const ui = start(
        ["ui", "--database-url", url, "--port", "0", "--provider", "anthropic", "--model", "fake-model"],
        { env: { ANTHROPIC_API_KEY: "fake-key", ANTHROPIC_BASE_URL: happy.url } }
      )
      running.push(ui)
      const { url: page, token } = await served(ui)
      const listed = await until(
        () => sessionsOver(page),
        (listed) => listed.total === 2,
        ui.stderr
      )
      assert.deepStrictEqual(listed.sessions.map((session) => [session.id, session.status]).sort(), [
        ["crashed", "resumable"],
        ["finished", "completed"]
      ])
      const html = await (await fetch(page)).text()
      assert.include(html, "finished")
      const password = new URL(url).password
      if (password !== "") assert.notInclude(html, password)

      const anonymous = await fetch(`${page}api/sessions/crashed/resume`, { method: "POST" })
      assert.strictEqual(anonymous.status, 401)
      const resumed = await fetch(`${page}api/sessions/crashed/resume`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` }
      })
      assert.strictEqual(resumed.status, 200, await resumed.clone().text())
      const events = await until(
        () => eventsOver(page, "crashed"),
        (logged) => logged.some((entry) => entry.event.type === "run_ended"),
        ui.stderr
      )
      assert.deepStrictEqual(
        events.map((logged) => logged.seq),
        Array.from({ length: events.length }, (_, i) => i + 1)
      )
      const ended = events.filter((logged) => logged.event.type === "run_ended").map((logged) => logged.event)
      assert.strictEqual(ended.length, 1)
      assert.deepInclude(ended[0], { status: "completed", final_text: answer })
      ui.child.kill("SIGINT")
      assert.strictEqual(await ui.exited, 130)
    } finally {
      for (const child of running) child.child.kill("SIGKILL")
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })

  it("an unreachable database, and one that holds no session store, are bad usage, in one line (exit 2)", async () => {
    const { url } = await Effect.runPromise(ownDatabase("cli_ui_empty"))
    const empty = await cli(["ui", "--database-url", url])
    assert.strictEqual(empty.code, 2)
    assert.match(empty.stderr, /^agent: --database-url: [^\n]+\n$/)

    const unreachable = await cli(["ui", "--database-url", "postgres://agent:not-shown@127.0.0.1:1/agents"])
    assert.strictEqual(unreachable.code, 2)
    assert.match(unreachable.stderr, /^agent: --database-url: [^\n]+\n$/)
    assert.notInclude(unreachable.stderr, "not-shown")
  })
})
