/**
 * Stopped runs (Ctrl-C) and runs suspended on a JournalError, on every engine. A
 * stopped run executes no step it has not journaled, also when it is stopped while suspended on a
 * JournalError; a second caller of a run another caller stops gets the interrupted outcome; two resumes at
 * once, Ctrl-C on the second wait then the next run, delete / import during a wait, a store that stays broken,
 * a stop racing the wake-up. Real SQLite files; time is the TestClock; bodies are counted and bounded (a hot
 * loop fails fast).
 */
import { AgentRun, DurableSessions } from "@agent-kernel/durable"
import { Content } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import * as SqlClient from "effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as TestClock from "effect/testing/TestClock"
import * as Harness from "./engines.js"
import { settle, turns } from "./eventLoop.js"

const { invoked, sessionsWith, engines } = Harness.make("durable-stopped-runs-")
const { callsReach, executionOf, startedRun, suspended, suspendedOnJournal, joinPolling } = Harness

const suspendingEngines = engines.filter((engine) => engine.name !== "light engine")

/** The execution id of run `run` of session `id` as its row's life says. */
describe("a stop while a run is suspended on a JournalError", () => {
  // The caller polls the engine each second; a Ctrl-C before its poll saw the suspension stops the run
  // (`AgentRun.stop` resumes the suspended run, stopped). The stopped body replays up to the failed step, which
  // is not journaled, and performs it: `unlessStopped` only refuses a step once the run is past its replay
  // (a live step ran), and the step that failed is the first not journaled. The cancelled tool is invoked.
  it.effect.each(suspendingEngines)(
    "$name: the tool call whose claim failed is not invoked after Ctrl-C",
    ({ engine }) =>
      Effect.gen(function* () {
        invoked.length = 0
        const model = yield* ScriptedModel.make([
          ScriptedModel.toolCalls({ id: "cancelled", name: "write", input: 1 }),
          ScriptedModel.text("after the tool")
        ])
        const { started, registration } = Harness.countedBodies(20)
        yield* Effect.gen(function* () {
          const sessions = yield* DurableSessions.DurableSessions
          const sql = yield* SqlClient.SqlClient
          yield* sql`ALTER TABLE agent_tool_calls RENAME TO moved_away`
          const { caller, executionId } = yield* startedRun(model)
          yield* settle(suspendedOnJournal(executionId))
          // The store works again; the user presses Ctrl-C before the caller's next poll (the clock has not moved).
          yield* sql`ALTER TABLE moved_away RENAME TO agent_tool_calls`
          // The stop waits (at most 5 s of the TestClock) for the stopped body to end.
          yield* joinPolling(yield* Effect.forkChild(Fiber.interrupt(caller)), 10)
          yield* turns(200)
          const [listed] = yield* sessions.list
          expect(
            { invoked, calls: (yield* model.calls).length, status: listed?.status },
            "a run stopped by its caller invoked the tool call it was stopped before"
          ).toEqual({ invoked: [], calls: 1, status: "interrupted" })
          expect(started.count, `bodies started: ${started.count}`).toBeLessThanOrEqual(3)
        }).pipe(Effect.provide(sessionsWith(new Map(), engine(), model, registration)), Effect.scoped)
      })
  )
})

describe("two resumes at once of a run suspended on a JournalError", () => {
  it.effect.each(suspendingEngines)("$name: each step runs once, and both callers get the outcome", ({ engine }) =>
    Effect.gen(function* () {
      invoked.length = 0
      const model = yield* ScriptedModel.make([
        ScriptedModel.toolCalls({ id: "a", name: "write", input: 1 }),
        ScriptedModel.text("done"),
        ScriptedModel.text("a second model call")
      ])
      const { started, registration } = Harness.countedBodies(20)
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const sql = yield* SqlClient.SqlClient
        yield* sql`ALTER TABLE agent_tool_calls RENAME TO moved_away`
        const failed = yield* joinPolling(yield* Effect.forkChild(Effect.flip(sessions.run("s", "go"))))
        expect(failed._tag).toBe("JournalError")
        yield* sql`ALTER TABLE moved_away RENAME TO agent_tool_calls`
        const both = yield* Effect.forkChild(
          Effect.all([sessions.resume("s"), sessions.resume("s")], { concurrency: 2 }).pipe(Effect.result)
        )
        const result = yield* joinPolling(both)
        expect({
          outcomes:
            result._tag === "Success" ? result.success.map((o) => Option.map(o, (o) => o.final_text)) : String(result),
          invoked,
          calls: (yield* model.calls).length
        }).toEqual({ outcomes: [Option.some("done"), Option.some("done")], invoked: ["a"], calls: 2 })
        expect(started.count, `bodies started: ${started.count}`).toBeLessThanOrEqual(4)
      }).pipe(Effect.provide(sessionsWith(new Map(), engine(), model, registration)), Effect.scoped)
    })
  )
})

describe("Ctrl-C on the SECOND durable wait, then the next run, on every engine", () => {
  it.effect.each(engines)("$name: run 1 keeps its tool call, is not revived, run 2 runs once", ({ engine }) =>
    Effect.gen(function* () {
      invoked.length = 0
      const model = yield* ScriptedModel.make([
        ScriptedModel.rateLimited({ retryAfterMs: 1_000 }),
        ScriptedModel.toolCalls({ id: "a", name: "write", input: 1 }),
        ScriptedModel.rateLimited({ retryAfterMs: 30_000 }),
        ScriptedModel.text("run 2"),
        // What a revived run 1 would get.
        ScriptedModel.toolCalls({ id: "revived", name: "write", input: 1 }),
        ScriptedModel.text("revived")
      ])
      const { started, registration } = Harness.countedBodies(20)
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const { caller, executionId } = yield* startedRun(model)
        // The clock moves once the run waits on its first deadline (its wake-up armed), and Ctrl-C comes once
        // it waits on its second: a count of turns was no such wait on a loaded machine.
        yield* settle(suspended(executionId))
        yield* TestClock.adjust("1 second")
        yield* settle(
          Effect.zipWith(model.calls, suspended(executionId), (calls, waits) => calls.length === 3 && waits)
        )
        yield* Fiber.interrupt(caller)
        expect((yield* sessions.list)[0]?.status).toBe("interrupted")
        const next = yield* joinPolling(yield* Effect.forkChild(sessions.run("s", "second")), 5)
        yield* TestClock.adjust("31 seconds")
        yield* turns(300)
        yield* TestClock.adjust("31 seconds")
        yield* turns(300)
        expect({
          next: next.final_text,
          calls: (yield* model.calls).length,
          invoked,
          history: Option.getOrThrow(yield* sessions.state("s")).history.map((m) => m.role)
        }).toEqual({
          next: "run 2",
          calls: 4,
          invoked: ["a"],
          history: ["user", "assistant", "user", "user", "assistant"]
        })
        expect(started.count, `bodies started: ${started.count}`).toBeLessThanOrEqual(6)
      }).pipe(Effect.provide(sessionsWith(new Map(), engine(), model, registration)), Effect.scoped)
    })
  )
})

describe("delete or import while a caller awaits a run suspended in a durable wait", () => {
  for (const how of ["delete", "import"] as const) {
    it.effect.each(engines)(`$name: ${how}: the caller gets the stopped outcome, no model call`, ({ engine }) =>
      Effect.gen(function* () {
        invoked.length = 0
        const model = yield* ScriptedModel.make([
          ScriptedModel.text("a session to import over s"),
          ScriptedModel.rateLimited({ retryAfterMs: 30_000 }),
          ScriptedModel.toolCalls({ id: "gone", name: "write", input: 1 }),
          ScriptedModel.text("ran on")
        ])
        const { started, registration } = Harness.countedBodies(20)
        yield* Effect.gen(function* () {
          const sessions = yield* DurableSessions.DurableSessions
          yield* sessions.run("t", "hi")
          const json = (yield* sessions.exportJson("t")).replace('"id":"t"', '"id":"s"')
          const caller = yield* Effect.forkChild(sessions.run("s", "go"))
          yield* callsReach(model, 2)
          // The run waits on its deadline, not in the steps before it, when the session goes.
          yield* settle(suspended(yield* executionOf("s", 1)))
          if (how === "delete") yield* sessions.delete("s")
          else yield* sessions.importJson(json)
          const outcome = yield* Effect.result(
            joinPolling(yield* Effect.forkChild(Effect.andThen(TestClock.adjust("31 seconds"), Fiber.join(caller))), 40)
          )
          yield* turns(200)
          expect({
            outcome: outcome._tag === "Success" ? outcome.success.status : String(outcome.failure),
            calls: (yield* model.calls).length,
            invoked
          }).toEqual({ outcome: "interrupted", calls: 2, invoked: [] })
          expect(started.count, `bodies started: ${started.count}`).toBeLessThanOrEqual(4)
        }).pipe(Effect.provide(sessionsWith(new Map(), engine(), model, registration)), Effect.scoped)
      })
    )
  }
})

describe("a second caller of a run its first caller stops", () => {
  // `run` and `resume` at once attach to one execution; the first caller's Ctrl-C stops the run. What the second
  // gets should be one thing on every engine (the docs: a caller still waiting learns that the run was stopped,
  // `AgentRun.stoppedOutcome`), not an interruption it did not ask for on some engines and an outcome on others.
  it.effect.each(engines)("$name: the other caller gets the interrupted outcome", ({ engine }) =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<void>()
      const model = yield* ScriptedModel.make([
        () => Effect.as(Deferred.await(gate), ScriptedModel.text("never")),
        ScriptedModel.text("next")
      ])
      const { started, registration } = Harness.countedBodies(20)
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const first = yield* Effect.forkChild(sessions.run("s", "go"))
        yield* callsReach(model, 1)
        const second = yield* Effect.forkChild(sessions.resume("s"))
        yield* turns(100)
        yield* Fiber.interrupt(first)
        const exit = yield* Effect.exit(joinPolling(second, 10))
        const got = Exit.match(exit, {
          onFailure: (cause) => `failure: ${Cause.pretty(cause)}`,
          onSuccess: (outcome) => Option.match(outcome, { onNone: () => "none", onSome: (o) => o.status })
        })
        expect(got).toBe("interrupted")
        expect((yield* model.calls).length).toBe(1)
        expect(started.count, `bodies started: ${started.count}`).toBeLessThanOrEqual(3)
      }).pipe(Effect.provide(sessionsWith(new Map(), engine(), model, registration)), Effect.scoped)
    })
  )
})

describe("a caller that reads a stopped run's result", () => {
  // `resume` reads the row, then the engine's result of the run (is it suspended on a JournalError, to wake?),
  // then executes it. A stop by another caller can end the run between the two reads: the memory engine's
  // poll of a run that ended interrupted fails with that interruption, which `resume` passed on (its caller
  // got an interruption it did not ask for, now and then, under load). The read finds no suspension instead.
  it.effect.each(engines)("$name: a stopped run is read as not suspended on a JournalError", ({ engine }) =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<void>()
      const model = yield* ScriptedModel.make([() => Effect.as(Deferred.await(gate), ScriptedModel.text("never"))])
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const caller = yield* Effect.forkChild(sessions.run("s", "go"))
        yield* callsReach(model, 1)
        const executionId = yield* executionOf("s", 1)
        yield* Fiber.interrupt(caller)
        yield* turns(100)
        expect((yield* sessions.list)[0]?.status).toBe("interrupted")
        const read = yield* Effect.exit(AgentRun.suspendedNowOn(executionId))
        // Not `expect(read).toEqual(Exit.succeed(Option.none()))`: chai's deep equality holds
        // `Option.none()` equal to any `Option.some(…)`, so that assertion could not fail on a Some.
        expect(Exit.isSuccess(read), "reading the run's suspension failed").toBe(true)
        expect(
          Exit.isSuccess(read) && Option.isNone(read.value),
          "a stopped run was read as suspended on a JournalError"
        ).toBe(true)
      }).pipe(Effect.provide(sessionsWith(new Map(), engine(), model)), Effect.scoped)
    })
  )
})

describe("probe: a run suspended on a JournalError while the store stays broken", () => {
  it.effect.each(suspendingEngines)(
    "$name: no redelivery loop; Ctrl-C in the poll window records the stop",
    ({ name, engine }) =>
      Effect.gen(function* () {
        invoked.length = 0
        const model = yield* ScriptedModel.make([
          ScriptedModel.toolCalls({ id: "a", name: "write", input: 1 }),
          ScriptedModel.text("done")
        ])
        const { started, registration } = Harness.countedBodies(20)
        yield* Effect.gen(function* () {
          const sessions = yield* DurableSessions.DurableSessions
          const sql = yield* SqlClient.SqlClient
          yield* sql`ALTER TABLE agent_tool_calls RENAME TO moved_away`
          const { caller, executionId } = yield* startedRun(model)
          yield* settle(suspendedOnJournal(executionId))
          yield* joinPolling(yield* Effect.forkChild(Fiber.interrupt(caller)), 10)
          for (let n = 0; n < 60; n++) {
            yield* TestClock.adjust("1 second")
            yield* turns(5)
          }
          const afterWait = started.count
          const again = yield* joinPolling(yield* Effect.forkChild(Effect.result(sessions.resume("s"))))
          yield* sql`ALTER TABLE moved_away RENAME TO agent_tool_calls`
          const outcome = yield* joinPolling(yield* Effect.forkChild(Effect.result(sessions.resume("s"))))
          expect({
            afterWait,
            again: again._tag === "Failure" ? again.failure._tag : "Success",
            outcome:
              outcome._tag === "Success" ? Option.map(outcome.success, (o) => o.status) : String(outcome.failure),
            invoked,
            calls: (yield* model.calls).length,
            status: (yield* sessions.list)[0]?.status
          }).toEqual(
            // The stopped body's replay reached the step whose claim failed and did not execute it: it ended
            // interrupted and recorded the stop; nothing was invoked. The cluster engine delivers a run whose body
            // ended interrupted once more, and that body ended at once (the run is over): no loop.
            {
              afterWait: name.startsWith("cluster") ? 3 : 2,
              again: "Success",
              outcome: Option.none(),
              invoked: [],
              calls: 1,
              status: "interrupted"
            }
          )
        }).pipe(Effect.provide(sessionsWith(new Map(), engine(), model, registration)), Effect.scoped)
      })
  )
})

describe("probe: a stop racing the wake-up, on every engine", () => {
  for (const lag of [0, 2, 8]) {
    it.effect.each(engines)(`$name: the deadline passes ${lag} turns before Ctrl-C`, ({ engine }) =>
      Effect.gen(function* () {
        const model = yield* ScriptedModel.make([
          ScriptedModel.rateLimited({ retryAfterMs: 30_000 }),
          ScriptedModel.text("woke"),
          ScriptedModel.text("next")
        ])
        const { started, registration } = Harness.countedBodies(20)
        yield* Effect.gen(function* () {
          const sessions = yield* DurableSessions.DurableSessions
          const caller = yield* Effect.forkChild(sessions.run("s", "go"))
          yield* callsReach(model, 1)
          const executionId = yield* executionOf("s", 1)
          yield* settle(suspended(executionId))
          yield* TestClock.adjust("30 seconds")
          yield* turns(lag)
          yield* joinPolling(yield* Effect.forkChild(Fiber.interrupt(caller)), 10)
          yield* turns(200)
          const [listed] = yield* sessions.list
          const calls = (yield* model.calls).length
          const history = Option.getOrThrow(yield* sessions.state("s")).history.map(Content.textOf)
          const consistent =
            (listed?.status === "interrupted" && calls === 1 && history.length === 1) ||
            (listed?.status === "interrupted" && calls === 2) ||
            (listed?.status === "completed" && calls === 2)
          expect(consistent, JSON.stringify({ status: listed?.status, calls, history })).toBe(true)
          const next = yield* Effect.result(joinPolling(yield* Effect.forkChild(sessions.run("s", "again")), 10))
          expect(next._tag, String(next)).toBe("Success")
          expect(started.count, `bodies started: ${started.count}`).toBeLessThanOrEqual(5)
        }).pipe(Effect.provide(sessionsWith(new Map(), engine(), model, registration)), Effect.scoped)
      })
    )
  }
})

describe("a run marked stopped while suspended on a wait whose deadline then passes", () => {
  // The window of `AgentRun.stop` for a run suspended on a durable wait: the run is marked stopped, and the
  // engine wakes it (its deadline passed) before the stop's own resume. The body replays past the wait it
  // woke from and reaches its first step that is not journaled (the wake-up's): it must not execute it, nor
  // any later one, and ends interrupted, the stop recorded. (The light engine executes a step in the body's
  // own fiber: this is the test of its refusal.)
  it.effect.each(engines)("$name: no step executes, the run ends interrupted", ({ engine }) =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([
        ScriptedModel.rateLimited({ retryAfterMs: 30_000 }),
        ScriptedModel.text("woke")
      ])
      const bodies = new Map<string, AgentRun.Body>()
      const { started, registration } = Harness.countedBodies(20)
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const caller = yield* Effect.forkChild(sessions.run("s", "go"))
        yield* callsReach(model, 1)
        const executionId = yield* executionOf("s", 1)
        yield* settle(suspended(executionId))
        const waiting = bodies.get(executionId)
        expect(waiting !== undefined && waiting.fiber === undefined, "the run is suspended here").toBe(true)
        if (waiting !== undefined) waiting.stopped = true
        yield* TestClock.adjust("30 seconds")
        const outcome = yield* joinPolling(caller, 10)
        expect({
          outcome: outcome.status,
          calls: (yield* model.calls).length,
          status: (yield* sessions.list)[0]?.status
        }).toEqual({ outcome: "interrupted", calls: 1, status: "interrupted" })
        expect(started.count, `bodies started: ${started.count}`).toBeLessThanOrEqual(3)
      }).pipe(Effect.provide(sessionsWith(bodies, engine(), model, registration)), Effect.scoped)
    })
  )
})
