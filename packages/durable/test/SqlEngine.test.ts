/**
 * The light engine over a real SQLite file: a restart (the engine torn down, a new one on the same
 * database) never re-runs a journaled activity, re-runs the one in flight, ends a durable sleep at
 * its journaled wall-clock deadline, and a garbage row is a JournalError.
 */
import * as SqlEngine from "../src/SqlEngine.js"
import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import * as TestClock from "effect/testing/TestClock"
import * as Activity from "effect/workflow/Activity"
import * as DurableClock from "effect/workflow/DurableClock"
import * as Workflow from "effect/workflow/Workflow"
import * as WorkflowEngine from "effect/workflow/WorkflowEngine"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Sqlite from "../src/internal/sqlite.js"
import * as Steps from "../src/internal/steps.js"
import { settle, turns } from "./eventLoop.js"

const Probe = Workflow.make("Probe", {
  payload: { id: Schema.String },
  success: Schema.Number,
  idempotencyKey: (payload) => payload.id
})

/** What the bodies did, across engines: the test's own record, outside the journal. */
interface Record {
  readonly runs: Map<string, number>
  /** Signalled when an activity starts (by name). */
  readonly started: Map<string, Deferred.Deferred<void>>
}

const makeRecord = (): Record => ({ runs: new Map(), started: new Map() })

const signal = (record: Record, name: string) =>
  Effect.suspend(() => {
    record.runs.set(name, (record.runs.get(name) ?? 0) + 1)
    const started = record.started.get(name)
    return started === undefined ? Effect.void : Deferred.succeed(started, undefined)
  })

const startedOf = (record: Record, name: string) =>
  Effect.tap(Deferred.make<void>(), (deferred) => Effect.sync(() => record.started.set(name, deferred)))

const database = () =>
  Sqlite.layer({ filename: path.join(fs.mkdtempSync(path.join(os.tmpdir(), "sql-engine-")), "journal.db") })

/** An engine on the database in context with `body` registered, for the life of `scope`. */
const engineIn = <R>(
  scope: Scope.Scope,
  body: (payload: { readonly id: string }) => Effect.Effect<number, never, R>,
  options: SqlEngine.Options = {}
) =>
  Layer.buildWithScope(
    Probe.toLayer((payload) => body(payload)).pipe(Layer.provideMerge(SqlEngine.layer(options))),
    scope
  )

/** A few event-loop turns: what a slow database takes to answer. */
const slowly = turns(5)

const statusOf = (id: string) =>
  Effect.flatMap(Probe.executionId({ id }), (executionId) =>
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) =>
        sql<{ readonly status: string }>`SELECT status FROM workflow_executions WHERE execution_id = ${executionId}`
    )
  ).pipe(Effect.map((rows) => rows[0]?.status))

describe("SqlEngine", () => {
  it.effect("a journaled activity is not run again after a restart; the one in flight is", () =>
    Effect.gen(function* () {
      const record = makeRecord()
      const inFlight = yield* startedOf(record, "second")
      const body = (restarted: boolean) => () =>
        Effect.gen(function* () {
          const first = yield* Activity.make({
            name: "first",
            success: Schema.Number,
            execute: Effect.as(signal(record, "first"), 20)
          })
          const second = yield* Activity.make({
            name: "second",
            success: Schema.Number,
            execute: Effect.andThen(signal(record, "second"), restarted ? Effect.succeed(22) : Effect.never)
          })
          return first + second
        })
      const before = yield* Scope.make()
      const engine = yield* engineIn(before, body(false))
      yield* Effect.provide(Probe.execute({ id: "a" }, { discard: true }), engine)
      yield* Deferred.await(inFlight)
      yield* Scope.close(before, Exit.void)
      expect(yield* statusOf("a")).toBe("running")

      const after = yield* Scope.make()
      const restarted = yield* engineIn(after, body(true))
      // Resumed on start; executing it again attaches to that run.
      const result = yield* Effect.provide(Probe.execute({ id: "a" }), restarted)
      expect(result).toBe(42)
      expect(Object.fromEntries(record.runs)).toEqual({ first: 1, second: 2 })
      expect(yield* statusOf("a")).toBe("complete")
      yield* Scope.close(after, Exit.void)
    }).pipe(Effect.provide(database()))
  )

  it.effect("a step journaled as an activity replays as the engine's own step, and the other way round", () =>
    Effect.gen(function* () {
      const record = makeRecord()
      const inFlight = yield* startedOf(record, "c")
      const Value = Steps.codec(Schema.Struct({ n: Schema.Number }))
      const body = (restarted: boolean) => () =>
        Effect.gen(function* () {
          const context = yield* Effect.context<Steps.StepContext>()
          const { executionId } = yield* WorkflowEngine.WorkflowInstance
          expect(Option.isSome(Context.get(context, Steps.Steps)), "the light engine offers its steps").toBe(true)
          // The light engine's own steps, and the Activity path the other engines take (no `Steps` in context).
          const asStep = Steps.stepOf(context, executionId)
          const asActivity = Steps.stepOf(Context.omit(Steps.Steps)(context), executionId)
          const a = yield* (restarted ? asStep : asActivity)("a", Value, Effect.as(signal(record, "a"), { n: 20 }))
          const b = yield* (restarted ? asActivity : asStep)("b", Value, Effect.as(signal(record, "b"), { n: 22 }))
          yield* asStep(
            "c",
            Value,
            Effect.andThen(signal(record, "c"), restarted ? Effect.succeed({ n: 0 }) : Effect.never)
          )
          return a.n + b.n
        })
      const before = yield* Scope.make()
      yield* Effect.provide(Probe.execute({ id: "s" }, { discard: true }), yield* engineIn(before, body(false)))
      yield* Deferred.await(inFlight)
      yield* Scope.close(before, Exit.void)

      const after = yield* Scope.make()
      const result = yield* Effect.provide(Probe.execute({ id: "s" }), yield* engineIn(after, body(true)))
      expect(result).toBe(42)
      // Each journaled result was read by the other path: neither ran again; the step in flight did.
      expect(Object.fromEntries(record.runs)).toEqual({ a: 1, b: 1, c: 2 })
      yield* Scope.close(after, Exit.void)
    }).pipe(Effect.provide(database()))
  )

  it.effect("a durable sleep a restart interrupted ends at the same wall-clock deadline", () =>
    Effect.gen(function* () {
      const record = makeRecord()
      const woke = yield* Deferred.make<number>()
      const body = () =>
        Effect.gen(function* () {
          yield* Activity.make({ name: "before", execute: signal(record, "before") })
          yield* DurableClock.sleep({ name: "wait", duration: "30 seconds", inMemoryThreshold: Duration.zero })
          return yield* Activity.make({
            name: "after",
            success: Schema.Number,
            execute: Effect.tap(Clock.currentTimeMillis, (at) => Deferred.succeed(woke, at))
          })
        })
      const before = yield* Scope.make()
      const engine = yield* engineIn(before, body)
      yield* Effect.provide(Probe.execute({ id: "w" }, { discard: true }), engine)
      yield* settle(Effect.map(statusOf("w"), (status) => status === "suspended"))
      yield* TestClock.adjust("10 seconds")
      yield* Scope.close(before, Exit.void)
      // Five seconds of downtime: the wait counts them (its deadline is a wall-clock instant).
      yield* TestClock.adjust("5 seconds")

      const after = yield* Scope.make()
      yield* engineIn(after, body)
      yield* settle(Effect.map(statusOf("w"), (status) => status === "suspended"))
      yield* TestClock.adjust("14 seconds")
      yield* settle(Effect.succeed(true))
      expect(yield* Deferred.isDone(woke), "woke before the deadline").toBe(false)
      yield* TestClock.adjust("1 second")
      yield* settle(Deferred.isDone(woke))
      expect(yield* Deferred.await(woke)).toBe(30_000)
      expect(record.runs.get("before")).toBe(1)
      yield* settle(Effect.map(statusOf("w"), (status) => status === "complete"))
      yield* Scope.close(after, Exit.void)
    }).pipe(Effect.provide(database()))
  )

  it.effect("a garbage activity row or payload is a JournalError, and the run is not recorded as ended", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const record = makeRecord()
      const hung = yield* startedOf(record, "second")
      const body = () =>
        Effect.gen(function* () {
          const first = yield* Activity.make({
            name: "first",
            success: Schema.Number,
            execute: Effect.as(signal(record, "first"), 1)
          })
          yield* Activity.make({ name: "second", execute: Effect.andThen(signal(record, "second"), Effect.never) })
          return first
        })
      const before = yield* Scope.make()
      const engine = yield* engineIn(before, body)
      yield* Effect.provide(Probe.execute({ id: "g" }, { discard: true }), engine)
      yield* Deferred.await(hung)
      yield* Scope.close(before, Exit.void)

      const journalError = (exit: Exit.Exit<unknown, unknown>) =>
        Exit.isFailure(exit)
          ? Option.filter(
              Result.getSuccess(Cause.findDefect(exit.cause)),
              (defect) => defect instanceof SqlEngine.JournalError
            )
          : Option.none()

      yield* sql`UPDATE workflow_activities SET exit = '{"_tag":"Success","value":"not a number"}' WHERE name = 'first'`
      const garbageExit = yield* Scope.make()
      const first = yield* Effect.exit(Effect.provide(Probe.execute({ id: "g" }), yield* engineIn(garbageExit, body)))
      yield* Scope.close(garbageExit, Exit.void)
      const activityError = journalError(first)
      expect(Option.isSome(activityError), `expected a JournalError, got ${String(first)}`).toBe(true)
      expect(String(Option.getOrThrow(activityError))).toMatch(/journaled activity "first\/1" does not decode/)
      expect(yield* statusOf("g")).toBe("running")

      yield* sql`UPDATE workflow_executions SET payload = 'not json'`
      const garbagePayload = yield* Scope.make()
      const second = yield* Effect.exit(
        Effect.provide(Probe.execute({ id: "g" }), yield* engineIn(garbagePayload, body))
      )
      yield* Scope.close(garbagePayload, Exit.void)
      const payloadError = journalError(second)
      expect(Option.isSome(payloadError), `expected a JournalError, got ${String(second)}`).toBe(true)
      expect(String(Option.getOrThrow(payloadError))).toMatch(/payload does not decode/)
      expect(record.runs.get("first")).toBe(1)
    }).pipe(Effect.provide(database()))
  )
})

describe("SqlEngine in one process: joins, memory, registrations, purges, deadlines", () => {
  it.effect("two callers of one execution id in one process run it once: the second joins the first", () =>
    Effect.gen(function* () {
      let bodies = 0
      const release = yield* Deferred.make<void>()
      const engine = yield* engineIn(
        yield* Effect.scope,
        () =>
          Effect.andThen(
            Effect.sync(() => bodies++),
            Activity.make({ name: "work", success: Schema.Number, execute: Effect.as(Deferred.await(release), 7) })
          ),
        // The first caller's INSERT is slow to come: the second caller arrives meanwhile.
        { beforeWrite: (write) => (write.kind === "execution" ? slowly : Effect.void) }
      )
      const callers = yield* Effect.forkChild(
        Effect.all([Probe.execute({ id: "x" }), Probe.execute({ id: "x" })], { concurrency: 2 }).pipe(
          Effect.provide(engine)
        )
      )
      yield* settle(Effect.map(statusOf("x"), (status) => status === "running"))
      yield* turns(100)
      yield* Deferred.succeed(release, undefined)
      expect(yield* Fiber.join(callers)).toEqual([7, 7])
      expect(bodies).toBe(1)
    }).pipe(Effect.provide(database()))
  )

  it.effect("a run that is not in progress is not held in memory: its journal is read again when it resumes", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      let answer = 20
      const engine = yield* engineIn(yield* Effect.scope, () =>
        Effect.gen(function* () {
          const first = yield* Activity.make({
            name: "first",
            success: Schema.Number,
            execute: Effect.sync(() => answer)
          })
          yield* DurableClock.sleep({ name: "wait", duration: "10 seconds", inMemoryThreshold: Duration.zero })
          return first
        })
      )
      yield* Effect.provide(Probe.execute({ id: "done" }, { discard: true }), engine)
      yield* settle(Effect.map(statusOf("done"), (status) => status === "suspended"))
      // Suspended: the journal is the database's. Changed there, the resumed run reads the change.
      yield* sql`UPDATE workflow_activities SET exit = '{"_tag":"Success","value":21}' WHERE name = 'first'`
      yield* TestClock.adjust("10 seconds")
      yield* settle(Effect.map(statusOf("done"), (status) => status === "complete"))
      expect(yield* Effect.provide(Probe.execute({ id: "done" }), engine)).toBe(21)
      // Complete, then purged: the same id is a new run, not the ended one held in memory.
      const ids = [yield* Probe.executionId({ id: "done" })]
      yield* SqlEngine.purge(ids)
      answer = 30
      yield* Effect.provide(Probe.execute({ id: "done" }, { discard: true }), engine)
      yield* settle(Effect.map(statusOf("done"), (status) => status === "suspended"))
      yield* TestClock.adjust("10 seconds")
      yield* settle(Effect.map(statusOf("done"), (status) => status === "complete"))
      expect(yield* Effect.provide(Probe.execute({ id: "done" }), engine)).toBe(30)
    }).pipe(Effect.provide(database()))
  )

  it.effect("closing a registration's scope unregisters the workflow and interrupts its bodies as a crash", () =>
    Effect.gen(function* () {
      let started = 0
      const interrupted = yield* Deferred.make<void>()
      const body = () =>
        Effect.andThen(
          Effect.sync(() => started++),
          Activity.make({
            name: "forever",
            success: Schema.Number,
            execute: Effect.onInterrupt(Effect.never, () => Deferred.succeed(interrupted, undefined))
          })
        )
      const engineScope = yield* Effect.scope
      const engine = yield* Layer.buildWithScope(SqlEngine.layer(), engineScope)
      const registration = yield* Scope.make()
      yield* Layer.buildWithScope(Probe.toLayer(body).pipe(Layer.provide(Layer.succeedContext(engine))), registration)
      yield* Effect.provide(Probe.execute({ id: "r" }, { discard: true }), Layer.succeedContext(engine))
      yield* settle(Effect.sync(() => started === 1))
      yield* Scope.close(registration, Exit.void)
      expect(yield* Deferred.isDone(interrupted), "the body still runs").toBe(true)
      const polled = yield* Effect.exit(Effect.provide(Probe.poll(yield* Probe.executionId({ id: "r" })), engine))
      expect(
        Exit.isFailure(polled) &&
          Result.isSuccess(Cause.findDefect(polled.cause)) &&
          polled.cause.reasons.some(
            (reason) => Cause.isDieReason(reason) && reason.defect instanceof SqlEngine.JournalError
          ),
        `expected 'not registered', got ${String(polled)}`
      ).toBe(true)
      // A crash, not a stop: registered again, the run resumes.
      expect(yield* statusOf("r")).toBe("running")
      yield* Layer.buildWithScope(Probe.toLayer(body).pipe(Layer.provide(Layer.succeedContext(engine))), engineScope)
      yield* settle(Effect.sync(() => started === 2))
    }).pipe(Effect.provide(database()))
  )

  it.effect("a wait's wake-up leaves no row behind when its execution was purged meanwhile", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const engine = yield* engineIn(yield* Effect.scope, () =>
        Effect.as(DurableClock.sleep({ name: "wait", duration: "10 seconds", inMemoryThreshold: Duration.zero }), 1)
      )
      yield* Effect.provide(Probe.execute({ id: "p" }, { discard: true }), engine)
      yield* settle(Effect.map(statusOf("p"), (status) => status === "suspended"))
      // Its session deleted while it waits: every row goes.
      yield* SqlEngine.purge([yield* Probe.executionId({ id: "p" })])
      yield* TestClock.adjust("10 seconds")
      yield* turns(100)
      const rows = (table: string) =>
        Effect.map(sql<{ readonly n: number | bigint }>`SELECT count(*) AS n FROM ${sql(table)}`, (rows) =>
          Number(rows[0]!.n)
        )
      expect(
        yield* Effect.all([rows("workflow_executions"), rows("workflow_clocks"), rows("workflow_deferreds")])
      ).toEqual([0, 0, 0])
    }).pipe(Effect.provide(database()))
  )

  it.effect("a durable clock's deadline is journaled in whole milliseconds", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const engine = yield* engineIn(yield* Effect.scope, () =>
        Effect.as(
          DurableClock.sleep({ name: "short", duration: Duration.millis(1.5), inMemoryThreshold: Duration.zero }),
          1
        )
      )
      yield* Effect.provide(Probe.execute({ id: "c" }, { discard: true }), engine)
      yield* settle(Effect.map(statusOf("c"), (status) => status === "suspended"))
      const [row] = yield* sql<{ readonly wake_at: bigint | number }>`SELECT wake_at FROM workflow_clocks`
      // Rounded up: never sooner than asked.
      expect(Number(row!.wake_at)).toBe(2)
    }).pipe(Effect.provide(database()))
  )
})
