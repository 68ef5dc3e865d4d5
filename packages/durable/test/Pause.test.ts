/**
 * A durable run that would end `retries_exhausted`, `retry_budget_exhausted` or `quota_exceeded`
 * pauses instead (`on_exhausted: pause`): unfinished, its journal kept, listed as paused with why
 * and since when; a new engine on the same SQLite file resumes it from its pause, sending no
 * completed model call again and running no completed tool call again, its budget carried over
 * unless the resume resets it.
 */
import { DurableSessions, Engine } from "@agent-kernel/durable"
import { Content, EventBus, type KernelEvent, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/testing/TestClock"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"

const settings: Settings.Settings = {
  ...Settings.defaults,
  jitter: "none",
  base_delay_ms: 1,
  max_retries: 1,
  max_session_retries: 5,
  session_retries_refill: false,
  on_exhausted: "pause"
}

const store = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "durable-pause-")), "agent.db")

const counting = (invoked: Array<string>): Toolbox.Service => ({
  definitions: Effect.succeed([]),
  invoke: (call) =>
    Effect.sync(() => {
      invoked.push(call.id)
      return Content.toolResult(call.id, `did ${call.id}`)
    })
})

const processOn = (
  file: string,
  model: ScriptedModel.ScriptedModel,
  toolbox: Toolbox.Service,
  overrides: Partial<Settings.Settings> = {}
) =>
  DurableSessions.layer({ model: "m", settings: { ...settings, ...overrides } }).pipe(
    Layer.provideMerge(Engine.layerSqlite(file)),
    Layer.provide(model.layer),
    Layer.provide(Toolbox.layer(toolbox))
  )

const rateLimited = ScriptedModel.rateLimited({ retryAfterMs: 1 })

/** A pause's journaled resume. */
const JournaledDeferred = Schema.decodeUnknownSync(
  Schema.Struct({
    exit: Schema.fromJsonString(Schema.Struct({ value: Schema.Struct({ reset_budget: Schema.Boolean }) }))
  })
)

/** A journaled step's row, its exit decoded from its JSON text. */
const JournaledStep = Schema.decodeUnknownSync(
  Schema.Struct({
    execution_id: Schema.String,
    exit: Schema.fromJsonString(Schema.Record(Schema.String, Schema.Unknown))
  })
)

/** Durable sessions over `engine`, their model `model`. */
const sessionsOn = <E>(engine: Layer.Layer<Engine.Engine, E>, model: ScriptedModel.ScriptedModel) =>
  DurableSessions.layer({ model: "m", settings }).pipe(
    Layer.provideMerge(engine),
    Layer.provide(model.layer),
    Layer.provide(Toolbox.layer(Toolbox.empty))
  )

/** A run that calls a tool, then meets 429s until its call's one retry is used: it pauses. */
const pausedRun = (file: string, invoked: Array<string>) =>
  Effect.gen(function* () {
    const first = yield* ScriptedModel.make([
      ScriptedModel.toolCalls({ id: "a", name: "write", input: 1 }),
      rateLimited,
      rateLimited
    ])
    const [outcome, listed] = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) =>
      Effect.zip(sessions.run("s", "go"), sessions.list)
    ).pipe(Effect.provide(processOn(file, first, counting(invoked))), Effect.scoped)
    return { outcome, listed, calls: (yield* first.calls).length }
  })

/** Journals the resume of the pause at turn 2, attempt 2, as a resume that completed its deferred leaves it. */
const journalResume = (db: DatabaseSync) => {
  const step = JournaledStep(
    db.prepare("SELECT execution_id, exit FROM workflow_activities WHERE name = 'paused/2/2'").get()
  )
  db.prepare("INSERT INTO workflow_deferreds (execution_id, name, exit) VALUES (?, 'pause/2/2', ?)").run(
    step.execution_id,
    JSON.stringify({ ...step.exit, value: { reset_budget: false, at: Date.now() } })
  )
}

/**
 * Starts a process on `file` and lets the engine go on with the run on its own (no caller resumes it): the
 * sessions while the resumed call is in flight, once every run has ended, and the model calls it made.
 */
const restartedRun = (file: string, invoked: Array<string>) =>
  Effect.gen(function* () {
    const answer = yield* Deferred.make<void>()
    const model = yield* ScriptedModel.make([() => Effect.as(Deferred.await(answer), ScriptedModel.text("done"))])
    const [inFlight, listed] = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) =>
      Effect.gen(function* () {
        yield* Effect.repeat(model.calls, {
          until: (calls) => calls.length > 0,
          schedule: Schedule.spaced("20 millis")
        }).pipe(Effect.timeout("30 seconds"))
        const inFlight = yield* sessions.list
        yield* Deferred.succeed(answer, undefined)
        const listed = yield* Effect.repeat(sessions.list, {
          until: (all) => all.every((session) => !session.unfinished),
          schedule: Schedule.spaced("20 millis")
        }).pipe(Effect.timeout("30 seconds"))
        return [inFlight, listed] as const
      })
    ).pipe(Effect.provide(processOn(file, model, counting(invoked))), Effect.scoped)
    return { inFlight, listed, calls: (yield* model.calls).length }
  })

describe("a durable run that pauses instead of failing", () => {
  it.live("pauses where its retries ran out, and lists as paused with why and since when", () =>
    Effect.gen(function* () {
      const file = store()
      const invoked: Array<string> = []
      const { outcome, listed, calls } = yield* pausedRun(file, invoked)
      assert.strictEqual(outcome.status, "paused")
      assert.strictEqual(outcome.error?.category, "rate_limited")
      assert.strictEqual(calls, 3)
      assert.deepStrictEqual(invoked, ["a"])
      const [session] = listed
      assert.strictEqual(session?.status, "paused")
      assert.isTrue(session?.unfinished)
      assert.isFalse(session?.resumable)
      assert.strictEqual(session?.paused?.reason, "retries_exhausted")
      assert.strictEqual(session?.paused?.error?.category, "rate_limited")
      assert.isTrue((session?.paused?.paused_at ?? 0) > 0)
      assert.isNull(session?.paused?.resume_at)
      // The pause is in the session's log, with the events before it; a page filters it as paused.
      const [events, paused, resumable] = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) =>
        Effect.all([
          sessions.events("s"),
          sessions.page({ activity: "paused" }),
          sessions.page({ activity: "resumable" })
        ])
      ).pipe(Effect.provide(processOn(file, yield* ScriptedModel.make([]), counting(invoked))), Effect.scoped)
      assert.deepStrictEqual(
        paused.sessions.map((listed) => [listed.id, listed.paused?.reason]),
        [["s", "retries_exhausted"]]
      )
      assert.strictEqual(resumable.total, 0)
      const types = events.map((logged) => logged.event.type)
      assert.include(types, "run_paused")
      assert.notInclude(types, "run_ended")
    })
  )

  it.live(
    "resumed by a new engine on the same file: nothing completed is sent or run again, the budget carries over, and it completes",
    () =>
      Effect.gen(function* () {
        const file = store()
        const invoked: Array<string> = []
        yield* pausedRun(file, invoked)
        const second = yield* ScriptedModel.make([ScriptedModel.text("done")])
        const [resumed, listed, events] = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) =>
          Effect.all([sessions.resume("s"), sessions.list, sessions.events("s")])
        ).pipe(Effect.provide(processOn(file, second, counting(invoked))), Effect.scoped)
        const run = Option.getOrThrow(resumed)
        assert.strictEqual(run.status, "completed")
        assert.strictEqual(run.final_text, "done")
        // One call after the resume: the tool call's model call and the two 429s were not sent again.
        assert.strictEqual((yield* second.calls).length, 1)
        assert.deepStrictEqual(invoked, ["a"])
        // The retry the paused call used stays used.
        assert.strictEqual(run.retries.session_total, 1)
        assert.deepStrictEqual(
          listed.map((session) => [session.status, session.paused]),
          [["completed", null]]
        )
        const types = events.map((logged) => logged.event.type)
        assert.deepStrictEqual(
          types.filter((type) => type.startsWith("run_")),
          ["run_started", "run_paused", "run_resumed", "run_ended"]
        )
      })
  )

  it.live(
    "a pause recorded but not journaled, whose resume was completed before a kill: the restarted run goes on without being recorded paused again",
    () =>
      Effect.gen(function* () {
        const file = store()
        const invoked: Array<string> = []
        yield* pausedRun(file, invoked)
        // A kill between the pause's store write and its journal, then a resume that completed the pause's
        // deferred and set the row running, then a kill before the run went on.
        const db = new DatabaseSync(file)
        journalResume(db)
        db.prepare("DELETE FROM workflow_activities WHERE name = 'paused/2/2'").run()
        db.prepare(
          "UPDATE agent_sessions SET status = 'running', paused_reason = NULL, paused_error = NULL, paused_at = NULL, resume_at = NULL, paused_step = NULL"
        ).run()
        db.close()
        // The resumed call answers once the session has been looked at while it is in flight.
        const { inFlight, listed, calls } = yield* restartedRun(file, invoked)
        assert.deepStrictEqual(
          inFlight.map((session) => [session.status, session.paused]),
          [["running", null]]
        )
        assert.deepStrictEqual(
          listed.map((session) => session.status),
          ["completed"]
        )
        assert.strictEqual(calls, 1)
        assert.deepStrictEqual(invoked, ["a"])
      })
  )

  it.live(
    "a resume completed before a kill that left the row paused: the restarted run goes on, and the row says running",
    () =>
      Effect.gen(function* () {
        const file = store()
        const invoked: Array<string> = []
        yield* pausedRun(file, invoked)
        // The pause's deferred completed, the process killed before the row was set running.
        const db = new DatabaseSync(file)
        journalResume(db)
        db.close()
        const { inFlight, calls } = yield* restartedRun(file, invoked)
        assert.deepStrictEqual(
          inFlight.map((session) => [session.status, session.paused]),
          [["running", null]]
        )
        assert.strictEqual(calls, 1)
        assert.deepStrictEqual(invoked, ["a"])
      })
  )

  it.live("a resume that resets the budget gives the paused call its retries again", () =>
    Effect.gen(function* () {
      const file = store()
      const invoked: Array<string> = []
      yield* pausedRun(file, invoked)
      // Without the reset, one more failure pauses the run again: the call has no retry left.
      const again = yield* ScriptedModel.make([rateLimited, ScriptedModel.text("never")])
      const paused = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.resume("s")).pipe(
        Effect.provide(processOn(file, again, counting(invoked))),
        Effect.scoped
      )
      assert.strictEqual(Option.getOrThrow(paused).status, "paused")
      assert.strictEqual((yield* again.calls).length, 1)
      // With it, the call retries once more after a failure, and the budget's count starts again.
      const reset = yield* ScriptedModel.make([rateLimited, ScriptedModel.text("done")])
      const resumed = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) =>
        sessions.resume("s", { reset_budget: true })
      ).pipe(Effect.provide(processOn(file, reset, counting(invoked))), Effect.scoped)
      const run = Option.getOrThrow(resumed)
      assert.strictEqual(run.status, "completed")
      assert.strictEqual((yield* reset.calls).length, 2)
      assert.strictEqual(run.retries.session_total, 1)
      assert.deepStrictEqual(invoked, ["a"])
    })
  )

  it.live(
    "a paused run resumed by a process whose settings say on_exhausted fail goes on from its pause, and a later exhaustion ends it",
    () =>
      Effect.gen(function* () {
        const file = store()
        const invoked: Array<string> = []
        yield* pausedRun(file, invoked)
        // Opened by a process whose settings say fail: its recovery replays the run to its pause, and leaves it
        // paused (the replay takes a few milliseconds; the row is read for a second after it).
        const idle = yield* ScriptedModel.make([])
        const stillPaused = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) =>
          Effect.andThen(Effect.sleep("1 second"), sessions.list)
        ).pipe(Effect.provide(processOn(file, idle, counting(invoked), { on_exhausted: "fail" })), Effect.scoped)
        assert.deepStrictEqual(
          stillPaused.map((session) => [session.status, session.paused?.reason]),
          [["paused", "retries_exhausted"]]
        )
        // The resume is journaled: the replay takes the pause again and goes on, whatever the settings say now.
        const second = yield* ScriptedModel.make([ScriptedModel.text("done")])
        const resumed = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.resume("s")).pipe(
          Effect.provide(processOn(file, second, counting(invoked), { on_exhausted: "fail" })),
          Effect.scoped
        )
        assert.strictEqual(Option.getOrThrow(resumed).status, "completed")
        assert.strictEqual((yield* second.calls).length, 1)
        assert.deepStrictEqual(invoked, ["a"])
        // A failure after the resume is no replay: under `fail` it ends the run, no pause.
        const other = store()
        yield* pausedRun(other, [])
        const third = yield* ScriptedModel.make([rateLimited])
        const ended = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) =>
          Effect.zip(sessions.resume("s"), sessions.list)
        ).pipe(Effect.provide(processOn(other, third, counting([]), { on_exhausted: "fail" })), Effect.scoped)
        assert.strictEqual(Option.getOrThrow(ended[0]).status, "retries_exhausted")
        assert.deepStrictEqual(
          ended[1].map((session) => [session.status, session.unfinished]),
          [["retries_exhausted", false]]
        )
      })
  )

  it.live(
    "a run resumed past max_wall_clock_ms ends at once, and its run_resumed reaches the observers and the log before its run_ended",
    () =>
      Effect.gen(function* () {
        const file = store()
        const bounded = { max_wall_clock_ms: 300 }
        const first = yield* ScriptedModel.make([rateLimited, rateLimited])
        const paused = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) =>
          sessions.run("s", "go")
        ).pipe(Effect.provide(processOn(file, first, counting([]), bounded)), Effect.scoped)
        assert.strictEqual(paused.status, "paused")
        // Resumed once the bound has passed: the run ends before it sends anything.
        yield* Effect.sleep("400 millis")
        const seen: Array<KernelEvent.KernelEvent> = []
        const observer = EventBus.layer([{ onEvent: (event) => Effect.sync(() => void seen.push(event)) }])
        const second = yield* ScriptedModel.make([ScriptedModel.text("never")])
        const [resumed, logged] = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) =>
          Effect.zip(sessions.resume("s"), sessions.events("s"))
        ).pipe(
          Effect.provide(processOn(file, second, counting([]), bounded).pipe(Layer.provide(observer))),
          Effect.scoped
        )
        assert.strictEqual(Option.getOrThrow(resumed).status, "wall_clock_exceeded")
        assert.strictEqual((yield* second.calls).length, 0)
        assert.deepStrictEqual(
          seen.map((event) => event.type),
          ["run_resumed", "run_ended"]
        )
        assert.deepStrictEqual(
          logged.map((entry) => entry.event.type).filter((type) => type.startsWith("run_")),
          ["run_started", "run_paused", "run_resumed", "run_ended"]
        )
      })
  )

  it.live(
    "reset_budget for a run a stopped process left, or for a session with nothing to resume, fails NotPaused and resumes nothing",
    () =>
      Effect.gen(function* () {
        const file = store()
        const invoked: Array<string> = []
        yield* pausedRun(file, invoked)
        // The row as a process killed mid-run leaves it: unfinished, running, not paused.
        const db = new DatabaseSync(file)
        db.prepare(
          "UPDATE agent_sessions SET status = 'running', paused_reason = NULL, paused_error = NULL, paused_at = NULL, resume_at = NULL, paused_step = NULL"
        ).run()
        db.close()
        const model = yield* ScriptedModel.make([ScriptedModel.text("never")])
        const [crashed, none, noneWithout, listed] = yield* Effect.flatMap(
          DurableSessions.DurableSessions,
          (sessions) =>
            Effect.all([
              Effect.flip(sessions.resume("s", { reset_budget: true })),
              Effect.flip(sessions.resume("other", { reset_budget: true })),
              sessions.resume("other"),
              sessions.list
            ])
        ).pipe(Effect.provide(processOn(file, model, counting(invoked))), Effect.scoped)
        assert.strictEqual(crashed._tag, "NotPaused")
        assert.deepInclude(crashed, { session_id: "s", run: 1 })
        assert.include(crashed.message, 'run 1 of the session "s" is unfinished but not paused')
        assert.deepInclude(none, { _tag: "NotPaused", session_id: "other", run: null })
        assert.isTrue(Option.isNone(noneWithout))
        // Nothing was resumed: no model call, the run still unfinished, not paused.
        assert.strictEqual((yield* model.calls).length, 0)
        assert.deepStrictEqual(
          listed.map((session) => [session.id, session.status, session.unfinished, session.paused]),
          [["s", "running", true, null]]
        )
      })
  )

  it.live("on the memory engine, a run pauses and its resume in the same process continues it", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([rateLimited, rateLimited, ScriptedModel.text("done")])
      const [paused, resumed] = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) =>
        Effect.zip(sessions.run("s", "go"), sessions.resume("s"))
      ).pipe(Effect.provide(sessionsOn(Engine.layerMemory, model)), Effect.scoped)
      assert.strictEqual(paused.status, "paused")
      assert.strictEqual(Option.getOrThrow(resumed).status, "completed")
      assert.strictEqual((yield* model.calls).length, 3)
    })
  )

  it.live("on the cluster engine over SQLite, a paused run is resumed by a new engine on the same file", () =>
    Effect.gen(function* () {
      const file = store()
      const first = yield* ScriptedModel.make([rateLimited, rateLimited])
      const paused = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.run("s", "go")).pipe(
        Effect.provide(sessionsOn(Engine.layerClusterSqlite(file), first)),
        Effect.scoped
      )
      assert.strictEqual(paused.status, "paused")
      const second = yield* ScriptedModel.make([ScriptedModel.text("done")])
      const resumed = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.resume("s")).pipe(
        Effect.provide(sessionsOn(Engine.layerClusterSqlite(file), second)),
        Effect.scoped
      )
      assert.strictEqual(Option.getOrThrow(resumed).status, "completed")
      assert.strictEqual((yield* second.calls).length, 1)
    })
  )

  it.live(
    "resumeDue continues a paused run only once its resume_at has come, and once of two callers at that time",
    () =>
      Effect.gen(function* () {
        const file = store()
        const model = yield* ScriptedModel.make([rateLimited, rateLimited, ScriptedModel.text("done")])
        const after = 60_000
        const layer = DurableSessions.layer({
          model: "m",
          settings: { ...settings, pause_resume_after_ms: after }
        }).pipe(
          Layer.provideMerge(Engine.layerClusterSqlite(file)),
          Layer.provide(model.layer),
          Layer.provide(Toolbox.layer(Toolbox.empty))
        )
        /** `resumeDue` at the instant `now`, on a clock of the test's. */
        const dueAt = (now: number) =>
          Effect.scoped(
            Effect.flatMap(TestClock.make(), (clock) =>
              Effect.andThen(clock.setTime(now), Effect.provideService(DurableSessions.resumeDue, Clock.Clock, clock))
            )
          )
        const [paused, early, due, listed, events] = yield* Effect.flatMap(
          DurableSessions.DurableSessions,
          (sessions) =>
            Effect.gen(function* () {
              const paused = yield* sessions.run("s", "go")
              const resumeAt = (yield* sessions.list)[0]?.paused?.resume_at ?? 0
              const early = yield* dueAt(resumeAt - 1)
              const due = yield* Effect.all([dueAt(resumeAt), dueAt(resumeAt)], { concurrency: 2 })
              const listed = yield* Effect.repeat(sessions.list, {
                until: (all) => all.every((session) => !session.unfinished),
                schedule: Schedule.spaced("20 millis")
              }).pipe(Effect.timeout("30 seconds"))
              return [paused, early, due, listed, yield* sessions.events("s")] as const
            })
        ).pipe(Effect.provide(layer), Effect.scoped)
        assert.strictEqual(paused.status, "paused")
        assert.deepStrictEqual(early, [])
        assert.deepStrictEqual(due.flat(), ["s"])
        assert.deepStrictEqual(
          listed.map((session) => session.status),
          ["completed"]
        )
        assert.strictEqual((yield* model.calls).length, 3)
        const resumed = events.filter((logged) => logged.event.type === "run_resumed")
        assert.strictEqual(resumed.length, 1)
        assert.deepInclude(resumed[0]?.event, { reset_budget: false, paused_ms: after })
      })
  )

  it.live("resumeDue leaves a paused run whose row does not read, and resumes the others", () =>
    Effect.gen(function* () {
      const file = store()
      const clusterOn = (model: ScriptedModel.ScriptedModel) =>
        DurableSessions.layer({ model: "m", settings: { ...settings, pause_resume_after_ms: 1 } }).pipe(
          Layer.provideMerge(Engine.layerClusterSqlite(file)),
          Layer.provide(model.layer),
          Layer.provide(Toolbox.layer(Toolbox.empty))
        )
      const first = yield* ScriptedModel.make([rateLimited, rateLimited, rateLimited, rateLimited])
      yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) =>
        Effect.andThen(sessions.run("a", "go"), sessions.run("b", "go"))
      ).pipe(Effect.provide(clusterOn(first)), Effect.scoped)
      // The first due, a's, does not decode.
      const db = new DatabaseSync(file)
      db.prepare("UPDATE agent_sessions SET state = '{}', resume_at = 1 WHERE id = 'a'").run()
      db.close()
      const second = yield* ScriptedModel.make([ScriptedModel.text("done")])
      const [resumed, events] = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) =>
        Effect.gen(function* () {
          const resumed = yield* DurableSessions.resumeDue
          const events = yield* Effect.repeat(sessions.events("b"), {
            until: (all) => all.some((logged) => logged.event.type === "run_ended"),
            schedule: Schedule.spaced("20 millis")
          }).pipe(Effect.timeout("30 seconds"))
          return [resumed, events] as const
        })
      ).pipe(Effect.provide(clusterOn(second)), Effect.scoped)
      assert.deepStrictEqual(resumed, ["b"])
      assert.deepInclude(events.find((logged) => logged.event.type === "run_ended")?.event, { status: "completed" })
    })
  )

  it.live("of two resumes at once, the run goes on as the journal's first completion says", () =>
    Effect.gen(function* () {
      const file = store()
      const model = yield* ScriptedModel.make([rateLimited, rateLimited, ScriptedModel.text("done")])
      const events = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) =>
        Effect.gen(function* () {
          yield* sessions.run("s", "go")
          yield* Effect.all([sessions.resume("s"), sessions.resume("s", { reset_budget: true })], {
            concurrency: 2
          })
          yield* Effect.repeat(sessions.list, {
            until: (all) => all.every((session) => !session.unfinished),
            schedule: Schedule.spaced("20 millis")
          }).pipe(Effect.timeout("30 seconds"))
          return yield* sessions.events("s")
        })
      ).pipe(Effect.provide(sessionsOn(Engine.layerSqlite(file), model)), Effect.scoped)
      const db = new DatabaseSync(file)
      const journaled = JournaledDeferred(
        db.prepare("SELECT exit FROM workflow_deferreds WHERE name = 'pause/1/2'").get()
      )
      db.close()
      const resumed = events.filter((logged) => logged.event.type === "run_resumed")
      assert.strictEqual(resumed.length, 1)
      assert.deepInclude(resumed[0]?.event, { reset_budget: journaled.exit.value.reset_budget })
    })
  )

  it.live(
    "a paused run that is interrupted ends interrupted, its pause cleared, and the session takes input again",
    () =>
      Effect.gen(function* () {
        const file = store()
        const invoked: Array<string> = []
        yield* pausedRun(file, invoked)
        const next = yield* ScriptedModel.make([ScriptedModel.text("next")])
        const [listed, outcome] = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) =>
          Effect.gen(function* () {
            yield* sessions.interrupt("s")
            const listed = yield* Effect.repeat(sessions.list, {
              until: (all) => all.every((session) => !session.unfinished),
              schedule: Schedule.spaced("20 millis")
            }).pipe(Effect.timeout("30 seconds"))
            return [listed, yield* sessions.run("s", "again")] as const
          })
        ).pipe(Effect.provide(processOn(file, next, counting(invoked))), Effect.scoped)
        assert.deepStrictEqual(
          listed.map((session) => [session.status, session.paused]),
          [["interrupted", null]]
        )
        assert.strictEqual(outcome.status, "completed")
        assert.strictEqual((yield* next.calls).length, 1)
        assert.deepStrictEqual(invoked, ["a"])
      })
  )
})
