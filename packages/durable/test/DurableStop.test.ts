/**
 * A run its caller stops (Ctrl-C): in a durable wait, in its start step, racing the wake-up, its body
 * started again, a stop half recorded or whose record fails; with them the cases a stop meets (two
 * inputs at once, stores from before lives, a delete in flight, failing stores on the memory and
 * cluster engines). Real SQLite files; time is the TestClock.
 */
import { AgentRun, DurableSessions, Engine, SqlEngine } from "@agent-kernel/durable"
import { Content } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import * as SqlClient from "effect/sql/SqlClient"
import * as Activity from "effect/workflow/Activity"
import * as Workflow from "effect/workflow/Workflow"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/testing/TestClock"

import * as Sqlite from "../src/internal/sqlite.js"
import * as Harness from "./engines.js"
import { settle, turns } from "./eventLoop.js"

const { file, invoked, sessionsWith, engines } = Harness.make("durable-fixes2-")

const executionStatuses = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(sql<{ readonly status: string }>`SELECT status FROM workflow_executions`, (rows) =>
    rows.map((row) => row.status)
  )
)

describe("Ctrl-C in a durable wait", () => {
  it.effect("a run stopped on its SECOND wait keeps what it did after the first (a tool call ran)", () =>
    Effect.gen(function* () {
      invoked.length = 0
      const model = yield* ScriptedModel.make([
        ScriptedModel.rateLimited({ retryAfterMs: 1_000 }),
        ScriptedModel.toolCalls({ id: "a", name: "write", input: 1 }),
        ScriptedModel.rateLimited({ retryAfterMs: 30_000 }),
        ScriptedModel.text("too late")
      ])
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const caller = yield* Effect.forkChild(sessions.run("s", "go"))
        yield* settle(Effect.map(executionStatuses, (s) => s[0] === "suspended"))
        yield* TestClock.adjust("1 second")
        // The first wait ended: the tool ran, the second rate limit suspended the run again.
        yield* settle(
          Effect.zipWith(model.calls, executionStatuses, (calls, s) => calls.length === 3 && s[0] === "suspended")
        )
        expect(invoked).toEqual(["a"])
        yield* Fiber.interrupt(caller)
        const [listed] = yield* sessions.list
        expect(listed?.status).toBe("interrupted")
        // The tool call that ran (and its result) is part of the recorded history: nothing lost.
        const history = Option.getOrThrow(yield* sessions.state("s")).history
        expect(
          history.map((message) => message.role),
          JSON.stringify(history)
        ).toEqual(["user", "assistant", "user"])
      }).pipe(Effect.provide(sessionsWith(new Map(), Engine.layerSqlite(file()), model)), Effect.scoped)
    })
  )
})

describe("a run stopped in a durable wait, then the session's next run", () => {
  // A wait's end must not bring back a run stopped in it once the session's next run has begun (the row's
  // record is then run 2's): it would call the model and a tool the user cancelled. The body ends with a
  // result, not an interrupt, which the cluster engine would deliver again at once, for ever.
  it.effect.each(engines)("$name: the wait's end does not bring run 1 back, and ends it once", ({ engine }) =>
    Effect.gen(function* () {
      invoked.length = 0
      const second = yield* Deferred.make<void>()
      const model = yield* ScriptedModel.make([
        ScriptedModel.rateLimited({ retryAfterMs: 30_000 }),
        // Run 2's model call, held until the test lets it answer.
        () => Effect.as(Deferred.await(second), ScriptedModel.text("run 2")),
        // What a revived run 1 would get: a tool call, then an answer.
        ScriptedModel.toolCalls({ id: "cancelled", name: "write", input: 1 }),
        ScriptedModel.text("revived")
      ])
      const { started, registration } = Harness.countedBodies(20)
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const first = yield* Effect.forkChild(sessions.run("s", "go"))
        yield* Harness.callsReach(model, 1)
        // Ctrl-C once run 1 waits on its deadline (its wake-up armed), not in the steps before it.
        yield* settle(Harness.suspended(yield* Harness.executionOf("s", 1)))
        yield* Fiber.interrupt(first)
        const next = yield* Effect.forkChild(sessions.run("s", "second"))
        yield* Harness.callsReach(model, 2)
        yield* TestClock.adjust("31 seconds")
        yield* turns(300)
        yield* Deferred.succeed(second, undefined)
        const outcome = yield* Fiber.join(next)
        yield* TestClock.adjust("31 seconds")
        yield* turns(300)
        expect(outcome.final_text).toBe("run 2")
        expect((yield* model.calls).length).toBe(2)
        expect(invoked).toEqual([])
        const [listed] = yield* sessions.list
        expect([listed?.status, listed?.runs]).toEqual(["completed", 2])
        // Run 1: its first body, the stop's (of a run suspended in its wait), the wait's end's; run 2's.
        expect(started.count, `bodies started: ${started.count}`).toBeLessThanOrEqual(4)
      }).pipe(Effect.provide(sessionsWith(new Map(), engine(), model, registration)), Effect.scoped)
    })
  )
})

describe("a stopped run's body started again", () => {
  // `Store.endedInterrupted`: the row records the stop, and whatever starts the body again (the cluster engine
  // delivers an interrupted body's run again at once) ends it with a result, not an interrupt the engine
  // would deliver again for ever.
  it.effect.each(engines)(
    "$name: Ctrl-C during a model call ends the run once; the next input runs",
    ({ name, engine }) =>
      Effect.gen(function* () {
        const gate = yield* Deferred.make<void>()
        const model = yield* ScriptedModel.make([
          () => Effect.as(Deferred.await(gate), ScriptedModel.text("never")),
          ScriptedModel.text("next")
        ])
        const { started, registration } = Harness.countedBodies(20)
        yield* Effect.gen(function* () {
          const sessions = yield* DurableSessions.DurableSessions
          const caller = yield* Effect.forkChild(sessions.run("s", "go"))
          yield* Harness.callsReach(model, 1)
          yield* Fiber.interrupt(caller)
          yield* TestClock.adjust("5 seconds")
          yield* turns(300)
          const [stopped] = yield* sessions.list
          expect(stopped?.status).toBe("interrupted")
          if (name.startsWith("cluster")) {
            // That delivery's result is the execution's: the run stopped, with what the stop recorded. The
            // delivery is the engine's to make (its storage poll, then the body): waited for, not a count of turns.
            const poll = AgentRun.AgentRun.poll(yield* Harness.executionOf("s", 1))
            yield* settle(
              Effect.map(
                Effect.exit(poll),
                (exit) => Exit.isSuccess(exit) && Option.exists(exit.value, (result) => result._tag === "Complete")
              )
            )
            const result = Option.getOrUndefined(yield* poll)
            const outcome = result?._tag === "Complete" && Exit.isSuccess(result.exit) ? result.exit.value : undefined
            expect(
              [outcome?.status, outcome?.turns, outcome?.history.map(Content.textOf)],
              JSON.stringify(result)
            ).toEqual(["interrupted", 1, ["go"]])
          }
          // The stopped body, and (on the cluster engine) its delivery again, which ends at once.
          expect(started.count, `bodies started: ${started.count}`).toBeLessThanOrEqual(2)
          const next = yield* sessions.run("s", "again")
          expect(next.history.map(Content.textOf)).toEqual(["go", "again", "next"])
          expect((yield* model.calls).length).toBe(2)
        }).pipe(Effect.provide(sessionsWith(new Map(), engine(), model, registration)), Effect.scoped)
      })
  )
})

describe("Bodies of stopped runs", () => {
  it.effect("a run stopped by its caller leaves no entry in Bodies", () =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<void>()
      const model = yield* ScriptedModel.make([
        () => Effect.as(Deferred.await(gate), ScriptedModel.text("never")),
        ScriptedModel.text("next")
      ])
      const bodies = new Map<string, AgentRun.Body>()
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const caller = yield* Effect.forkChild(sessions.run("s", "go"))
        yield* Harness.callsReach(model, 1)
        yield* Fiber.interrupt(caller)
        expect((yield* sessions.list)[0]?.status).toBe("interrupted")
        yield* sessions.run("s", "again")
        expect(bodies.size, `kept: ${[...bodies.values()].map((b) => `stopped=${b.stopped}`)}`).toBe(0)
      }).pipe(Effect.provide(sessionsWith(bodies, Engine.layerSqlite(file()), model)), Effect.scoped)
    })
  )

  it.effect("a stop whose record fails is no stop: resume in the same process ends (it hung on the stopped body)", () =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<void>()
      const model = yield* ScriptedModel.make([
        () => Effect.as(Deferred.await(gate), ScriptedModel.text("never")),
        ScriptedModel.text("resumed")
      ])
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const sql = yield* SqlClient.SqlClient
        const caller = yield* Effect.forkChild(sessions.run("s", "go"))
        yield* Harness.callsReach(model, 1)
        // The store fails while the stop records the interrupted run (Store.interrupted is ignored).
        yield* sql`ALTER TABLE agent_sessions RENAME TO moved_away`
        yield* Fiber.interrupt(caller)
        yield* sql`ALTER TABLE moved_away RENAME TO agent_sessions`
        expect((yield* sessions.list)[0]?.status).toBe("running")
        const resumed = yield* Effect.forkChild(sessions.resume("s"))
        const ended = yield* Harness.endsPolling(resumed)
        expect(ended, "resume never ends: its body is the stopped run's Effect.never").toBe(true)
      }).pipe(Effect.provide(sessionsWith(new Map(), Engine.layerSqlite(file()), model)), Effect.scoped)
    })
  )
})

describe("a store from before lives", () => {
  it.effect("a session from before lives, imported over its kept journal, runs its next run for real", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([
        ScriptedModel.text("one"),
        ScriptedModel.text("two"),
        ScriptedModel.text("three"),
        ScriptedModel.text("four")
      ])
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const sql = yield* SqlClient.SqlClient
        // A session from a store made before lives: no life (execution ids `s/run`).
        yield* sql`INSERT INTO agent_sessions (id, life, state, status, run_index, pending, retries_used, updated_at)
          VALUES ('s', NULL, NULL, 'new', 0, NULL, 0, 0)`
        expect((yield* sessions.run("s", "a")).final_text).toBe("one")
        const [afterOne] = yield* sql<{ readonly state: string }>`SELECT state FROM agent_sessions WHERE id = 's'`
        expect((yield* sessions.run("s", "b")).final_text).toBe("two")
        expect((yield* sessions.run("s", "c")).final_text).toBe("three")
        // An import from before lives of the export taken after run 1: Store.put alone (no purge of the journal).
        yield* sql`DELETE FROM agent_sessions WHERE id = 's'`
        yield* sql`INSERT INTO agent_sessions (id, state, status, run_index, pending, retries_used, updated_at)
          VALUES ('s', ${afterOne!.state}, 'imported', 1, NULL, 0, 0)`
        // Upgraded: its next run is run 2 of a life-less session, execution id `s/2`, journaled complete.
        const next = yield* sessions.run("s", "after import")
        const [listed] = yield* sessions.list
        expect(
          [next.final_text, listed?.status],
          "the stale outcome of the old run 2 came back (and the session is left pending)"
        ).toEqual(["four", "completed"])
        expect((yield* model.calls).length).toBe(4)
      }).pipe(Effect.provide(sessionsWith(new Map(), Engine.layerSqlite(file()), model)), Effect.scoped)
    })
  )
})

describe("a stop that is half recorded", () => {
  it.effect(
    "the execution's 'stopped' is not written (a failure, or a crash just after the interrupted record): the next process does not run the stopped run on",
    () =>
      Effect.gen(function* () {
        const store = file()
        const gate = yield* Deferred.make<void>()
        // Completed by the model call itself, not polled for with `settle`: before the call, the run
        // waits on libuv's thread pool (effect/workflow hashes the execution id with
        // crypto.subtle.digest), which a loaded machine can hold up for more event-loop turns than
        // `settle` allows.
        const called = yield* Deferred.make<void>()
        const model = yield* ScriptedModel.make([
          () =>
            Effect.andThen(
              Deferred.succeed(called, undefined),
              Effect.as(Deferred.await(gate), ScriptedModel.text("never"))
            ),
          ScriptedModel.text("ran on after Ctrl-C")
        ])
        yield* Effect.gen(function* () {
          const sessions = yield* DurableSessions.DurableSessions
          const sql = yield* SqlClient.SqlClient
          const caller = yield* Effect.forkChild(sessions.run("s", "go"))
          yield* Deferred.await(called)
          yield* sql`ALTER TABLE workflow_executions RENAME TO moved_away`
          yield* Fiber.interrupt(caller)
          yield* sql`ALTER TABLE moved_away RENAME TO workflow_executions`
          expect((yield* sessions.list)[0]?.status).toBe("interrupted")
        }).pipe(Effect.provide(sessionsWith(new Map(), Engine.layerSqlite(store), model)), Effect.scoped)
        // The next process on the store.
        yield* Effect.gen(function* () {
          const sessions = yield* DurableSessions.DurableSessions
          yield* turns(300)
          const [listed] = yield* sessions.list
          const history = Option.getOrThrow(yield* sessions.state("s")).history.map(Content.textOf)
          expect([listed?.status, (yield* model.calls).length, history], "the stopped run ran on").toEqual([
            "interrupted",
            1,
            ["go"]
          ])
        }).pipe(Effect.provide(sessionsWith(new Map(), Engine.layerSqlite(store), model)), Effect.scoped)
      })
  )
})

describe("two inputs at once to one session", () => {
  it.effect("the second input is run, or refused (RunPending): never answered with the first's outcome", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([ScriptedModel.text("A"), ScriptedModel.text("B")])
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const [a, b] = yield* Effect.all(
          [Effect.result(sessions.run("s", "a")), Effect.result(sessions.run("s", "b"))],
          {
            concurrency: 2
          }
        )
        for (const [input, result] of [
          ["a", a],
          ["b", b]
        ] as const) {
          if (result._tag === "Success")
            expect(result.success.history.map(Content.textOf), `input "${input}" was dropped`).toContain(input)
          else expect(result.failure._tag).toBe("RunPending")
        }
      }).pipe(Effect.provide(sessionsWith(new Map(), Engine.layerSqlite(file()), model)), Effect.scoped)
    })
  )
})

describe("Ctrl-C as the run starts", () => {
  it.effect(
    "a stop while the body is in its start step ends the run interrupted; the session takes its next input",
    () =>
      Effect.gen(function* () {
        const gate = yield* Deferred.make<void>()
        const inStart = yield* Deferred.make<void>()
        const model = yield* ScriptedModel.make([ScriptedModel.text("first"), ScriptedModel.text("second")])
        const engine = Engine.layerSqlite(file(), {
          beforeWrite: (write) =>
            write.kind === "activity" && write.name.startsWith("start")
              ? Effect.andThen(Deferred.succeed(inStart, undefined), Deferred.await(gate))
              : Effect.void
        })
        const bodies = new Map<string, AgentRun.Body>()
        yield* Effect.gen(function* () {
          const sessions = yield* DurableSessions.DurableSessions
          const caller = yield* Effect.forkChild(sessions.run("s", "go"))
          yield* Deferred.await(inStart)
          // Ctrl-C while the body is held in its start step: the step goes on once the stop has reached the
          // body (its caller took the interruption: effect 4 may run the released body to its end before the
          // caller takes it), and the session is read once the stopped body has ended (it leaves Bodies).
          // Conditions, not counts of turns.
          const stopping = yield* Effect.forkChild(Fiber.interrupt(caller))
          yield* settle(
            Effect.sync(() => caller.pollUnsafe() !== undefined || [...bodies.values()].some((body) => body.stopped))
          )
          yield* Deferred.succeed(gate, undefined)
          yield* Fiber.join(stopping)
          yield* settle(Effect.sync(() => bodies.size === 0))
          const [listed] = yield* sessions.list
          const next = yield* Effect.result(sessions.run("s", "again"))
          expect(
            [listed?.status, next._tag],
            `the stopped session is left ${listed?.status}; its next input: ${String(next)}`
          ).toEqual(["interrupted", "Success"])
        }).pipe(Effect.provide(sessionsWith(bodies, engine, model)), Effect.scoped)
      })
  )
})

describe("a stop racing the wake-up", () => {
  for (const lag of [0, 1, 2, 3, 5, 8, 13]) {
    it.effect(
      `the deadline passes ${lag} turns before the caller is interrupted: the run ends one way, nothing left running`,
      () =>
        Effect.gen(function* () {
          const model = yield* ScriptedModel.make([
            ScriptedModel.rateLimited({ retryAfterMs: 30_000 }),
            ScriptedModel.text("woke"),
            ScriptedModel.text("next")
          ])
          const bodies = new Map<string, AgentRun.Body>()
          yield* Effect.gen(function* () {
            const sessions = yield* DurableSessions.DurableSessions
            const caller = yield* Effect.forkChild(sessions.run("s", "go"))
            yield* settle(Effect.map(executionStatuses, (s) => s[0] === "suspended"))
            yield* TestClock.adjust("30 seconds")
            yield* turns(lag)
            yield* Fiber.interrupt(caller)
            yield* turns(200)
            const [listed] = yield* sessions.list
            const statuses = yield* executionStatuses
            const history = Option.getOrThrow(yield* sessions.state("s")).history.map(Content.textOf)
            const calls = (yield* model.calls).length
            const consistent =
              (listed?.status === "interrupted" && statuses[0] === "stopped" && calls === 1 && history.length === 1) ||
              (listed?.status === "interrupted" && statuses[0] === "stopped" && calls === 2) ||
              (listed?.status === "completed" && statuses[0] === "complete")
            expect(
              consistent,
              JSON.stringify({ session: listed?.status, statuses, calls, history, bodies: bodies.size })
            ).toBe(true)
            const next = yield* Effect.result(
              Effect.timeout(sessions.run("s", "again"), "5 seconds").pipe(TestClock.withLive)
            )
            expect(next._tag, String(next)).toBe("Success")
          }).pipe(Effect.provide(sessionsWith(bodies, Engine.layerSqlite(file()), model)), Effect.scoped)
        })
    )
  }
})

const Probe = Workflow.make("StoppedProbe", {
  payload: { id: Schema.String },
  success: Schema.Number,
  idempotencyKey: (payload) => payload.id
})

describe("the light engine's stopped executions", () => {
  it.effect(
    "an execution interrupted while the engine lives is left ended: executing it again does not run it again",
    () =>
      Effect.gen(function* () {
        let started = 0
        const engine = yield* Layer.build(
          Probe.toLayer(() =>
            Effect.andThen(
              Effect.sync(() => started++),
              Activity.make({ name: "forever", success: Schema.Number, execute: Effect.never })
            )
          ).pipe(Layer.provideMerge(SqlEngine.layer()))
        )
        yield* Effect.provide(Probe.execute({ id: "x" }, { discard: true }), engine)
        yield* settle(Effect.sync(() => started === 1))
        yield* Effect.provide(Probe.interrupt(yield* Probe.executionId({ id: "x" })), engine)
        yield* turns(50)
        yield* Effect.provide(Probe.execute({ id: "x" }, { discard: true }), engine)
        yield* turns(50)
        expect(started, "the stopped execution ran again").toBe(1)
      }).pipe(Effect.provide(Sqlite.layer({ filename: file() })))
  )
})

describe("delete while a run is in flight", () => {
  it.effect("a deleted session's body that ends later leaves no journal rows behind", () =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<void>()
      const model = yield* ScriptedModel.make([() => Effect.as(Deferred.await(gate), ScriptedModel.text("old"))])
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const sql = yield* SqlClient.SqlClient
        const old = yield* Effect.forkChild(sessions.run("s", "first"))
        yield* Harness.callsReach(model, 1)
        yield* sessions.delete("s")
        yield* Deferred.succeed(gate, undefined)
        yield* Fiber.join(old)
        const orphans = yield* sql<{ readonly name: string }>`SELECT name FROM workflow_activities
          WHERE execution_id NOT IN (SELECT execution_id FROM workflow_executions)`
        expect(
          orphans.map((row) => row.name),
          "rows of a purged execution that no delete will ever find again"
        ).toEqual([])
      }).pipe(Effect.provide(sessionsWith(new Map(), Engine.layerSqlite(file()), model)), Effect.scoped)
    })
  )
})

describe("a store from before lives: delete", () => {
  it.effect("a session given a life by its next run is deleted with the journal of its runs from before", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([ScriptedModel.text("two")])
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const sql = yield* SqlClient.SqlClient
        // Run 1 of a session from a store made before lives: journaled under the execution of the key `s/1`.
        const legacy = yield* AgentRun.AgentRun.executionId({ session_id: "s", run: 1, input: Content.userText("") })
        yield* sql`INSERT INTO agent_sessions (id, life, state, status, run_index, pending, retries_used, updated_at)
          VALUES ('s', NULL, NULL, 'completed', 1, NULL, 0, 0)`
        yield* sql`INSERT INTO workflow_executions (execution_id, workflow, payload, status) VALUES (${legacy}, 'AgentRun', '{}', 'complete')`
        yield* sql`INSERT INTO workflow_activities (execution_id, name, attempt, exit) VALUES (${legacy}, 'start', 1, '{}')`
        expect((yield* sessions.run("s", "b")).final_text).toBe("two")
        const [row] = yield* sql<{ readonly life: string | null }>`SELECT life FROM agent_sessions WHERE id = 's'`
        expect(row?.life ?? null, "run 2 gave the session a life").not.toBeNull()
        yield* sessions.delete("s")
        const left = yield* sql<{ readonly execution_id: string }>`SELECT execution_id FROM workflow_executions
          UNION ALL SELECT execution_id FROM workflow_activities`
        expect(
          left.map((r) => r.execution_id),
          "journal rows of the session's runs are left"
        ).toEqual([])
      }).pipe(Effect.provide(sessionsWith(new Map(), Engine.layerSqlite(file()), model)), Effect.scoped)
    })
  )
})

const { joinPolling } = Harness

describe("a failing store on the other engines", () => {
  for (const [name, engine] of [
    ["memory", () => Engine.layerMemory],
    ["cluster (SQLite)", () => Engine.layerClusterSqlite(file())]
  ] as const) {
    it.effect(
      `${name}: a tool call's claim fails: the run fails with JournalError, not a failed outcome, and resumes`,
      () =>
        Effect.gen(function* () {
          invoked.length = 0
          const model = yield* ScriptedModel.make([
            ScriptedModel.toolCalls({ id: "a", name: "write", input: 1 }),
            ScriptedModel.text("done")
          ])
          yield* Effect.gen(function* () {
            const sessions = yield* DurableSessions.DurableSessions
            const sql = yield* SqlClient.SqlClient
            yield* sql`ALTER TABLE agent_tool_calls RENAME TO moved_away`
            const failed = yield* joinPolling(yield* Effect.forkChild(Effect.flip(sessions.run("s", "go"))))
            expect(failed._tag, String(failed)).toBe("JournalError")
            expect(invoked, "the unclaimed tool call ran").toEqual([])
            // The run is not recorded as ended: the session keeps its input pending.
            expect((yield* sessions.list)[0]?.status).toBe("running")
            expect((yield* Effect.flip(sessions.run("s", "later")))._tag).toBe("RunPending")
            // Once the store works, the resume finishes the run (it answered the same JournalError again).
            yield* sql`ALTER TABLE moved_away RENAME TO agent_tool_calls`
            const outcome = Option.getOrThrow(yield* joinPolling(yield* Effect.forkChild(sessions.resume("s"))))
            expect([outcome.status, outcome.final_text]).toEqual(["completed", "done"])
            expect(invoked).toEqual(["a"])
            expect((yield* model.calls).length).toBe(2)
            expect((yield* sessions.list)[0]?.status).toBe("completed")
          }).pipe(Effect.provide(sessionsWith(new Map(), engine(), model)), Effect.scoped)
        })
    )

    it.effect(`${name}: recording the run's end fails: JournalError, and the resume records it`, () =>
      Effect.gen(function* () {
        const sql = yield* Deferred.make<SqlClient.SqlClient>()
        // The store fails once the model has answered: the end step cannot record the outcome.
        const model = yield* ScriptedModel.make([
          () =>
            Effect.flatMap(Deferred.await(sql), (sql) =>
              Effect.as(Effect.orDie(sql`ALTER TABLE agent_sessions RENAME TO moved_away`), ScriptedModel.text("done"))
            )
        ])
        yield* Effect.gen(function* () {
          const sessions = yield* DurableSessions.DurableSessions
          const client = yield* SqlClient.SqlClient
          yield* Deferred.succeed(sql, client)
          const failed = yield* joinPolling(yield* Effect.forkChild(Effect.flip(sessions.run("s", "go"))))
          expect(failed._tag, String(failed)).toBe("JournalError")
          yield* client`ALTER TABLE moved_away RENAME TO agent_sessions`
          expect((yield* sessions.list)[0]?.status).toBe("running")
          // The resume replays the model's answer (no second call) and records the end.
          const outcome = Option.getOrThrow(yield* joinPolling(yield* Effect.forkChild(sessions.resume("s"))))
          expect([outcome.status, outcome.final_text]).toEqual(["completed", "done"])
          expect((yield* model.calls).length).toBe(1)
          const [listed] = yield* sessions.list
          expect([listed?.status, listed?.messages]).toEqual(["completed", 2])
        }).pipe(Effect.provide(sessionsWith(new Map(), engine(), model)), Effect.scoped)
      })
    )
  }
})
