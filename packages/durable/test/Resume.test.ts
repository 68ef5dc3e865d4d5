/**
 * What a resume finds and does: execution ids of a deleted or imported session (its lives), a store
 * from before lives, store and journal failures that reach the caller and leave the run resumable,
 * Ctrl-C in a durable wait.
 * Real SQLite files; time is the TestClock.
 */
import { AgentRun, DurableSessions, Engine, type SqlEngine } from "@agent-kernel/durable"
import { Content, EventBus, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import * as SqlClient from "effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/testing/TestClock"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Sqlite from "../src/internal/sqlite.js"
import * as Harness from "./engines.js"
import { settle, turns } from "./eventLoop.js"

const settings: Settings.Settings = { ...Settings.defaults, jitter: "none" }

const file = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "durable-resume-")), "agent.db")

const echo: Toolbox.Service = {
  definitions: Effect.succeed([]),
  invoke: (call) => Effect.succeed(Content.toolResult(call.id, "ok"))
}

const sessionsOn = (
  engine: Layer.Layer<Engine.Engine, Engine.StoreError>,
  model: ScriptedModel.ScriptedModel,
  toolbox: Toolbox.Service = echo
) =>
  DurableSessions.layer({ model: "m", settings }).pipe(
    Layer.provideMerge(engine),
    Layer.provide(model.layer),
    Layer.provide(Toolbox.layer(toolbox))
  )

/**
 * A journal hook that runs `then` once, just before the first journal write `at` picks: a test
 * breaks the database there (renames a table) to make the next statement fail for real.
 */
const breakable = () => {
  let armed: { readonly at: (write: SqlEngine.Write) => boolean; readonly then: Effect.Effect<void> } | undefined
  return {
    beforeWrite: (write: SqlEngine.Write): Effect.Effect<void> =>
      Effect.suspend(() => {
        if (armed === undefined || !armed.at(write)) return Effect.void
        const then = armed.then
        armed = undefined
        return then
      }),
    arm: (at: (write: SqlEngine.Write) => boolean, then: Effect.Effect<void>) =>
      Effect.sync(() => {
        armed = { at, then }
      })
  }
}

const rename = (sql: SqlClient.SqlClient, from: string, to: string): Effect.Effect<void> =>
  Effect.asVoid(Effect.orDie(sql.unsafe(`ALTER TABLE ${from} RENAME TO ${to}`)))

const engines = [
  ["the light engine on a SQLite file", () => Engine.layerSqlite(file())],
  ["the memory engine", () => Engine.layerMemory]
] as const

describe("execution ids of a session's lives", () => {
  for (const [name, engine] of engines) {
    it.effect(`${name}: a deleted and recreated session, or one imported over, runs its next run`, () =>
      Effect.gen(function* () {
        const model = yield* ScriptedModel.make([
          ScriptedModel.text("one"),
          ScriptedModel.text("two"),
          ScriptedModel.text("three"),
          ScriptedModel.text("four")
        ])
        yield* Effect.gen(function* () {
          const sessions = yield* DurableSessions.DurableSessions
          expect((yield* sessions.run("s", "first")).final_text).toBe("one")
          yield* sessions.delete("s")
          // Run 1 again, of a new session: not the deleted session's run 1.
          const recreated = yield* sessions.run("s", "again")
          expect(recreated.final_text).toBe("two")
          expect(recreated.history.map(Content.textOf)).toEqual(["again", "two"])
          const exported = yield* sessions.exportJson("s")
          expect((yield* sessions.run("s", "next")).final_text).toBe("three")
          // The import replaces the session: its next run is run 2 again, a new one.
          yield* sessions.importJson(exported)
          const imported = yield* sessions.run("s", "after import")
          expect(imported.final_text).toBe("four")
          expect(imported.history.map(Content.textOf)).toEqual(["again", "two", "after import", "four"])
          expect((yield* model.calls).length).toBe(4)
        }).pipe(Effect.provide(sessionsOn(engine(), model)), Effect.scoped)
      })
    )

    it.effect(`${name}: a run of a deleted session that ends later does not write over the session created again`, () =>
      Effect.gen(function* () {
        const gate = yield* Deferred.make<void>()
        const model = yield* ScriptedModel.make([
          () => Effect.as(Deferred.await(gate), ScriptedModel.text("old")),
          ScriptedModel.text("new")
        ])
        yield* Effect.gen(function* () {
          const sessions = yield* DurableSessions.DurableSessions
          const old = yield* Effect.forkChild(sessions.run("s", "first"))
          yield* Harness.callsReach(model, 1)
          yield* sessions.delete("s")
          expect((yield* sessions.run("s", "second")).final_text).toBe("new")
          // The deleted session's run ends now, in the body still going: its end is not the new session's.
          yield* Deferred.succeed(gate, undefined)
          expect((yield* Fiber.join(old)).final_text).toBe("old")
          expect(Option.map(yield* sessions.state("s"), (state) => state.history.map(Content.textOf))).toEqual(
            Option.some(["second", "new"])
          )
        }).pipe(Effect.provide(sessionsOn(engine(), model)), Effect.scoped)
      })
    )
  }
})

describe("a store made before lives", () => {
  it.effect("gets the column, and its sessions get a life when their next run begins", () =>
    Effect.gen(function* () {
      const store = file()
      // The session table as it was: no life.
      yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.andThen(
          sql`CREATE TABLE agent_sessions (id TEXT PRIMARY KEY, state TEXT, status TEXT NOT NULL,
            run_index BIGINT NOT NULL, pending TEXT, retries_used BIGINT NOT NULL, updated_at BIGINT NOT NULL)`,
          sql`INSERT INTO agent_sessions VALUES ('old', NULL, 'new', 0, NULL, 0, 0)`
        )
      ).pipe(Effect.provide(Sqlite.layer({ filename: store })), Effect.scoped)
      const model = yield* ScriptedModel.make([ScriptedModel.text("one"), ScriptedModel.text("two")])
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const sql = yield* SqlClient.SqlClient
        expect((yield* sessions.run("old", "go")).final_text).toBe("one")
        expect((yield* sessions.run("new", "go")).final_text).toBe("two")
        const lives = yield* sql<{
          readonly id: string
          readonly life: string | null
        }>`SELECT id, life FROM agent_sessions
          ORDER BY id`
        expect(lives.map((row) => [row.id, row.life === null])).toEqual([
          ["new", false],
          ["old", false]
        ])
        // Its run 1 is an execution of its new life, not of the key `old/1` an earlier store may have journaled.
        const life = lives.find((row) => row.id === "old")?.life ?? undefined
        const execution = yield* AgentRun.AgentRun.executionId({
          session_id: "old",
          life,
          run: 1,
          input: Content.userText("")
        })
        const executions = yield* sql<{ readonly execution_id: string }>`SELECT execution_id FROM workflow_executions`
        expect(executions.map((row) => row.execution_id)).toContain(execution)
      }).pipe(Effect.provide(sessionsOn(Engine.layerSqlite(store), model)), Effect.scoped)
    })
  )
})

describe("a failing store reaches the caller as a typed error and leaves the run resumable", () => {
  const cases = [
    {
      step: "the start step (reading the session)",
      at: (write: SqlEngine.Write) => write.kind === "execution",
      table: "agent_sessions",
      script: [ScriptedModel.text("done")],
      calls: 1
    },
    {
      step: "a tool call's claim",
      at: (write: SqlEngine.Write) => write.kind === "activity" && write.name.startsWith("model/1/1/"),
      table: "agent_tool_calls",
      script: [ScriptedModel.toolCalls({ id: "a", name: "write", input: 1 }), ScriptedModel.text("done")],
      calls: 2
    },
    {
      step: "the end step (recording the outcome)",
      at: (write: SqlEngine.Write) => write.kind === "activity" && write.name.startsWith("model/1/1/"),
      table: "agent_sessions",
      script: [ScriptedModel.text("done")],
      // The loop's end is published once the store records it: not when its record fails, once by the resume.
      calls: 1
    },
    {
      // Journaling the model's answer fails: the loop must not end the run `failed` with it.
      step: "journaling a step's result in the loop",
      at: (write: SqlEngine.Write) => write.kind === "activity" && write.name.startsWith("model/1/1/"),
      table: "workflow_activities",
      script: [ScriptedModel.text("lost"), ScriptedModel.text("done")],
      // The answer whose journaling failed was never journaled: the call is sent again.
      calls: 2
    }
  ]
  for (const { step, at, table, script, calls } of cases) {
    it.effect(`${step}: the caller gets a JournalError, the run resumes once the store works`, () =>
      Effect.gen(function* () {
        const invoked: Array<string> = []
        const tools = Harness.recordingTools(invoked)
        const model = yield* ScriptedModel.make(script)
        const hook = breakable()
        const ended: Array<string> = []
        yield* Effect.gen(function* () {
          const sessions = yield* DurableSessions.DurableSessions
          const sql = yield* SqlClient.SqlClient
          yield* hook.arm(at, rename(sql, table, "moved_away"))
          const failed = yield* Effect.flip(sessions.run("s", "go"))
          expect(failed._tag, String(failed)).toBe("JournalError")
          yield* rename(sql, "moved_away", table)
          // Unfinished, not ended: no outcome recorded, a new input waits for the resume.
          expect((yield* sessions.list).map((session) => session.status)).toEqual(["running"])
          expect((yield* Effect.flip(sessions.run("s", "later")))._tag).toBe("RunPending")
          const resumed = Option.getOrThrow(yield* sessions.resume("s"))
          expect(resumed.status).toBe("completed")
          expect(resumed.final_text).toBe("done")
          expect((yield* model.calls).length).toBe(calls)
          // The tool ran once: its claim was never written, so it was not in flight.
          expect(invoked).toEqual(calls === 2 && table === "agent_tool_calls" ? ["a"] : [])
          expect((yield* sessions.list).map((session) => session.status)).toEqual(["completed"])
          // The end the loop made of a journal failure is never published: it is not the run's end. The run's
          // end is published once, when the store has recorded it.
          expect(ended).toEqual(["completed"])
        }).pipe(
          Effect.provide(
            sessionsOn(Engine.layerSqlite(file(), { beforeWrite: hook.beforeWrite }), model, tools).pipe(
              Layer.provide(
                EventBus.layer([
                  {
                    onEvent: (event) => Effect.sync(() => event.type === "run_ended" && ended.push(event.status))
                  }
                ])
              )
            )
          ),
          Effect.scoped
        )
      })
    )
  }
})

describe("Ctrl-C in a durable wait", () => {
  it.effect(
    "interrupting the caller of a run suspended on a retry-after wait ends it interrupted, its history on disk",
    () =>
      Effect.gen(function* () {
        const model = yield* ScriptedModel.make([
          ScriptedModel.rateLimited({ retryAfterMs: 30_000 }),
          ScriptedModel.text("too late"),
          ScriptedModel.text("next")
        ])
        yield* Effect.gen(function* () {
          const sessions = yield* DurableSessions.DurableSessions
          const sql = yield* SqlClient.SqlClient
          const statuses = sql<{ readonly status: string }>`SELECT status FROM workflow_executions`.pipe(
            Effect.map((rows) => rows.map((row) => row.status))
          )
          const caller = yield* Effect.forkChild(sessions.run("s", "go"))
          yield* settle(Effect.map(statuses, (statuses) => statuses[0] === "suspended"))
          yield* Fiber.interrupt(caller)
          const [listed] = yield* sessions.list
          expect([listed?.status, listed?.retries_used]).toEqual(["interrupted", 0])
          expect(Option.map(yield* sessions.state("s"), (state) => state.history.map(Content.textOf))).toEqual(
            Option.some(["go"])
          )
          expect(yield* statuses).toEqual(["stopped"])
          // The wait's deadline passes: the stopped run does not go on.
          yield* TestClock.adjust("1 minute")
          yield* turns(100)
          expect((yield* model.calls).length).toBe(1)
          expect(yield* statuses).toEqual(["stopped"])
          // The session takes its next input.
          yield* TestClock.adjust("1 minute")
          const next = yield* sessions.run("s", "again")
          expect(next.history.map(Content.textOf)).toEqual(["go", "again", "too late"])
        }).pipe(Effect.provide(sessionsOn(Engine.layerSqlite(file()), model)), Effect.scoped)
      })
  )

  it.effect("the same on the memory engine", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([
        ScriptedModel.rateLimited({ retryAfterMs: 30_000 }),
        ScriptedModel.text("too late"),
        ScriptedModel.text("next")
      ])
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const caller = yield* Effect.forkChild(sessions.run("s", "go"))
        // Ctrl-C once the run waits on its deadline (the engine's result of it is Suspended), not in the
        // steps before it: a count of turns is no such wait on a loaded machine.
        yield* Harness.callsReach(model, 1)
        yield* settle(Harness.suspended(yield* Harness.executionOf("s", 1)))
        yield* Fiber.interrupt(caller)
        const [listed] = yield* sessions.list
        expect(listed?.status).toBe("interrupted")
        yield* TestClock.adjust("1 minute")
        yield* turns(100)
        expect((yield* model.calls).length).toBe(1)
        const next = yield* sessions.run("s", "again")
        expect(next.history.map(Content.textOf)).toEqual(["go", "again", "too late"])
      }).pipe(Effect.provide(sessionsOn(Engine.layerMemory, model)), Effect.scoped)
    })
  )
})
