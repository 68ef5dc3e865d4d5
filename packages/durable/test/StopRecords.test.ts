/**
 * A stop's record: concurrent tool calls (toolConcurrency 2) where one call's claim fails mid-fan-out and the
 * run is then stopped (Ctrl-C) or resumed, on the memory and cluster engines. A SQLite trigger fails the claim
 * of call "b" only, so call "a" is claimed, invoked and journaled first. Real SQLite files; TestClock.
 */
import { DurableSessions, Engine, EventLog } from "@agent-kernel/durable"
import { Content, EventBus, type KernelEvent, type RunOutcome } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import * as SqlClient from "effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import type * as Result from "effect/Result"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/testing/TestClock"
import * as Harness from "./engines.js"
import { settle, turns } from "./eventLoop.js"

const { invoked, sessionsWith, engines } = Harness.make("durable-stop-records-", { toolConcurrency: 2 })
const suspendingEngines = engines.filter((engine) => engine.name !== "light engine")

const { callsReach, startedRun, suspendedOnJournal, joinPolling } = Harness

const failClaimOfB = (sql: SqlClient.SqlClient) =>
  sql`CREATE TRIGGER fail_b BEFORE INSERT ON agent_tool_calls WHEN NEW.call_id LIKE '%/b' BEGIN SELECT RAISE(ABORT, 'broken'); END`

describe("one claim of a fan-out fails (toolConcurrency 2)", () => {
  it.effect.each(suspendingEngines)("$name: Ctrl-C then: b never invoked, every tool_use answered", ({ engine }) =>
    Effect.gen(function* () {
      invoked.length = 0
      const model = yield* ScriptedModel.make([
        ScriptedModel.toolCalls({ id: "a", name: "write", input: 1 }, { id: "b", name: "write", input: 2 }),
        ScriptedModel.text("after the tools")
      ])
      const { started, registration } = Harness.countedBodies(20)
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const sql = yield* SqlClient.SqlClient
        yield* failClaimOfB(sql)
        const { caller, executionId } = yield* startedRun(model)
        yield* settle(suspendedOnJournal(executionId))
        yield* sql`DROP TRIGGER fail_b`
        yield* joinPolling(yield* Effect.forkChild(Fiber.interrupt(caller)), 10)
        yield* turns(200)
        const [listed] = yield* sessions.list
        const history = Option.getOrThrow(yield* sessions.state("s")).history
        const claims = yield* sql<{ readonly call_id: string }>`SELECT call_id FROM agent_tool_calls ORDER BY call_id`
        expect({
          invokedB: invoked.filter((id) => id === "b"),
          calls: (yield* model.calls).length,
          status: listed?.status,
          unanswered: Content.unansweredToolUses(history),
          claims: claims.map((c) => c.call_id)
        }).toEqual({
          invokedB: [],
          calls: 1,
          status: "interrupted",
          unanswered: [],
          claims: invoked.includes("a") ? ["1/1/a"] : []
        })
        expect(started.count, `bodies started: ${started.count}`).toBeLessThanOrEqual(3)
      }).pipe(Effect.provide(sessionsWith(new Map(), engine(), model, registration)), Effect.scoped)
    })
  )

  it.effect.each(suspendingEngines)("$name: no stop, resume once the store works: a once, b once", ({ engine }) =>
    Effect.gen(function* () {
      invoked.length = 0
      const model = yield* ScriptedModel.make([
        ScriptedModel.toolCalls({ id: "a", name: "write", input: 1 }, { id: "b", name: "write", input: 2 }),
        ScriptedModel.text("after the tools")
      ])
      const { started, registration } = Harness.countedBodies(20)
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const sql = yield* SqlClient.SqlClient
        yield* failClaimOfB(sql)
        const failed = yield* joinPolling(yield* Effect.forkChild(Effect.flip(sessions.run("s", "go"))))
        expect(failed._tag).toBe("JournalError")
        yield* sql`DROP TRIGGER fail_b`
        const outcome = yield* joinPolling(yield* Effect.forkChild(sessions.resume("s")))
        const history = Option.getOrThrow(yield* sessions.state("s")).history
        expect({
          outcome: Option.map(outcome, (o) => o.final_text),
          invoked: [...invoked].sort(),
          calls: (yield* model.calls).length,
          unanswered: Content.unansweredToolUses(history).join(",")
        }).toEqual({ outcome: Option.some("after the tools"), invoked: ["a", "b"], calls: 2, unanswered: "" })
        expect(started.count, `bodies started: ${started.count}`).toBeLessThanOrEqual(4)
      }).pipe(Effect.provide(sessionsWith(new Map(), engine(), model, registration)), Effect.scoped)
    })
  )
})

describe("resume of a run suspended on a JournalError, the store working again, the clock moving at once", () => {
  // The caller's poll (`journalFailure`) first reads the engine's result a second after `resume` woke the run:
  // if the engine still answers the old suspension then, the caller fails with the old JournalError while the
  // woken run goes on without it.
  it.effect.each(suspendingEngines)("$name: the resume gets the outcome, not the old failure", ({ engine }) =>
    Effect.gen(function* () {
      invoked.length = 0
      const model = yield* ScriptedModel.make([
        ScriptedModel.toolCalls({ id: "a", name: "write", input: 1 }),
        ScriptedModel.text("done")
      ])
      const { registration } = Harness.countedBodies(20)
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const sql = yield* SqlClient.SqlClient
        yield* sql`ALTER TABLE agent_tool_calls RENAME TO moved_away`
        const failed = yield* joinPolling(yield* Effect.forkChild(Effect.flip(sessions.run("s", "go"))))
        expect(failed._tag).toBe("JournalError")
        yield* sql`ALTER TABLE moved_away RENAME TO agent_tool_calls`
        const resumed = yield* Effect.forkChild(Effect.result(sessions.resume("s")))
        for (let n = 0; n < 10; n++) yield* TestClock.adjust("1 second")
        const outcome = yield* joinPolling(resumed)
        expect(
          outcome._tag === "Success"
            ? Option.getOrElse(
                Option.map(outcome.success, (o) => o.final_text),
                () => "none"
              )
            : String(outcome.failure)
        ).toEqual("done")
      }).pipe(Effect.provide(sessionsWith(new Map(), engine(), model, registration)), Effect.scoped)
    })
  )
})

/** `status` of a resume's answer, or the error it failed with. */
const statusOf = (
  answer: Result.Result<Option.Option<RunOutcome.RunOutcome>, { readonly _tag: string; readonly message: string }>
) =>
  answer._tag === "Success"
    ? Option.getOrElse(
        Option.map(answer.success, (o): string => o.status),
        () => "none"
      )
    : `${answer.failure._tag}: ${answer.failure.message}`

const breakStopRecord = (sql: SqlClient.SqlClient) =>
  sql`CREATE TRIGGER no_stop BEFORE UPDATE ON agent_sessions WHEN NEW.status = 'interrupted' BEGIN SELECT RAISE(ABORT, 'broken'); END`

describe("a Ctrl-C whose record fails, then the store works again", () => {
  // The stop did not happen when its record failed; on the memory and cluster engines the body ends with that
  // JournalError, which the engine keeps as the run's result. Before the fix `resume` answered it again for
  // ever and `run` said RunPending: the session took no input again until it was deleted or imported over.
  // The user did ask to stop: `resume` records the stop now and answers the stopped run; the next input runs.
  it.effect.each(suspendingEngines)("$name: resume ends the run stopped, then the session takes input", ({ engine }) =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<void>()
      const model = yield* ScriptedModel.make([
        () => Effect.as(Deferred.await(gate), ScriptedModel.text("never")),
        ScriptedModel.text("next")
      ])
      const { registration } = Harness.countedBodies(20)
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const sql = yield* SqlClient.SqlClient
        yield* breakStopRecord(sql)
        const caller = yield* Effect.forkChild(sessions.run("s", "go"))
        yield* callsReach(model, 1)
        yield* joinPolling(yield* Effect.forkChild(Fiber.interrupt(caller)), 10)
        yield* turns(100)
        yield* sql`DROP TRIGGER no_stop`
        const resumed = yield* joinPolling(yield* Effect.forkChild(Effect.result(sessions.resume("s"))), 10)
        const next = yield* joinPolling(yield* Effect.forkChild(sessions.run("s", "again")), 10)
        const [listed] = yield* sessions.list
        expect({ resumed: statusOf(resumed), next: [next.status, next.final_text], listed: listed?.status }).toEqual({
          resumed: "interrupted",
          next: ["completed", "next"],
          listed: "completed"
        })
      }).pipe(Effect.provide(sessionsWith(new Map(), engine(), model, registration)), Effect.scoped)
    })
  )

  it.effect.each(suspendingEngines)(
    "$name: the stop recorded then is logged as run_ended interrupted and its observers are told, once",
    ({ engine }) =>
      Effect.gen(function* () {
        const gate = yield* Deferred.make<void>()
        const model = yield* ScriptedModel.make([() => Effect.as(Deferred.await(gate), ScriptedModel.text("never"))])
        const observed: Array<KernelEvent.KernelEvent> = []
        const observer: EventBus.Observer = { onEvent: (event) => Effect.sync(() => void observed.push(event)) }
        const { registration } = Harness.countedBodies(20)
        yield* Effect.gen(function* () {
          const sessions = yield* DurableSessions.DurableSessions
          const sql = yield* SqlClient.SqlClient
          yield* breakStopRecord(sql)
          const caller = yield* Effect.forkChild(sessions.run("s", "go"))
          yield* callsReach(model, 1)
          yield* joinPolling(yield* Effect.forkChild(Fiber.interrupt(caller)), 10)
          yield* turns(100)
          yield* sql`DROP TRIGGER no_stop`
          const resumed = yield* joinPolling(yield* Effect.forkChild(Effect.result(sessions.resume("s"))), 10)
          const logged = yield* EventLog.events("s")
          expect({
            resumed: statusOf(resumed),
            logged: logged.flatMap(({ event }) => (event.type === "run_ended" ? [event.status] : [])),
            seqs: logged.map((entry) => entry.seq),
            observed: observed.flatMap((event) => (event.type === "run_ended" ? [event.status] : []))
          }).toEqual({
            resumed: "interrupted",
            logged: ["interrupted"],
            seqs: Array.from({ length: logged.length }, (_, i) => i + 1),
            observed: ["interrupted"]
          })
        }).pipe(
          Effect.provide(
            sessionsWith(new Map(), engine(), model, registration).pipe(Layer.provide(EventBus.layer([observer])))
          ),
          Effect.scoped
        )
      })
  )

  it.effect("cluster engine: the run ends stopped after a restart (a fresh engine over the same file)", () =>
    Effect.gen(function* () {
      const { file } = Harness.make("durable-stop-records-brick-")
      const db = file()
      const engine = () => Engine.layerClusterSqlite(db)
      const gate = yield* Deferred.make<void>()
      const model = yield* ScriptedModel.make([
        () => Effect.as(Deferred.await(gate), ScriptedModel.text("never")),
        ScriptedModel.text("resumed"),
        ScriptedModel.text("resumed"),
        ScriptedModel.text("resumed")
      ])
      const { registration } = Harness.countedBodies(20)
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const sql = yield* SqlClient.SqlClient
        yield* breakStopRecord(sql)
        const caller = yield* Effect.forkChild(sessions.run("s", "go"))
        yield* callsReach(model, 1)
        yield* joinPolling(yield* Effect.forkChild(Fiber.interrupt(caller)), 10)
        yield* turns(100)
        yield* sql`DROP TRIGGER no_stop`
      }).pipe(Effect.provide(sessionsWith(new Map(), engine(), model, registration)), Effect.scoped)
      const afterRestart = yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const resumed = yield* joinPolling(yield* Effect.forkChild(Effect.result(sessions.resume("s"))), 10)
        const next = yield* joinPolling(yield* Effect.forkChild(sessions.run("s", "again")), 10)
        return { resumed: statusOf(resumed), next: [next.status, next.final_text] }
      }).pipe(Effect.provide(sessionsWith(new Map(), engine(), model, registration)), Effect.scoped)
      expect(afterRestart).toEqual({ resumed: "interrupted", next: ["completed", "resumed"] })
    })
  )
})
