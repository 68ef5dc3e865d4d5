/**
 * The review of the light engine (issue 13), one test a finding, each failing on the code before
 * its fix: two callers of one execution, what the engine keeps in memory, a registration's scope,
 * whole-millisecond deadlines.
 * Real SQLite files; time is the TestClock.
 */
import { SqlEngine } from "@agent-kernel/durable"
import * as LibsqlClient from "@effect/sql-libsql/LibsqlClient"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Activity from "@effect/workflow/Activity"
import * as DurableClock from "@effect/workflow/DurableClock"
import * as Workflow from "@effect/workflow/Workflow"
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as TestClock from "effect/TestClock"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const file = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "durable-review-")), "agent.db")

/** Event-loop turns (no virtual time) until `check` holds: the SQL driver answers on the event loop. */
const settle = <E, R>(check: Effect.Effect<boolean, E, R>) =>
  Effect.gen(function* () {
    for (let turn = 0; turn < 5_000; turn++) {
      if (yield* check) return
      yield* Effect.yieldNow()
      yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
    }
    return yield* Effect.dieMessage("never settled")
  })

const Probe = Workflow.make({
  name: "Probe",
  payload: { id: Schema.String },
  success: Schema.Number,
  idempotencyKey: (payload) => payload.id
})

const database = () => LibsqlClient.layer({ url: `file:${file()}`, intMode: "bigint" })

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
const slowly = Effect.forEach(
  Array.from({ length: 5 }),
  () => Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve))),
  { discard: true }
)

const statusOf = (id: string) =>
  Effect.flatMap(Probe.executionId({ id }), (executionId) =>
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) =>
        sql<{ readonly status: string }>`SELECT status FROM workflow_executions WHERE execution_id = ${executionId}`
    )
  ).pipe(Effect.map((rows) => rows[0]?.status))

describe("review fixes: the light engine", () => {
  it.scoped("two callers of one execution id in one process run it once: the second joins the first", () =>
    Effect.gen(function* () {
      let bodies = 0
      const release = yield* Deferred.make<void>()
      const engine = yield* engineIn(
        yield* Effect.scope,
        () =>
          Effect.zipRight(
            Effect.sync(() => bodies++),
            Activity.make({ name: "work", success: Schema.Number, execute: Effect.as(Deferred.await(release), 7) })
          ),
        // The first caller's INSERT is slow to come: the second caller arrives meanwhile.
        { beforeWrite: (write) => (write.kind === "execution" ? slowly : Effect.void) }
      )
      const callers = yield* Effect.fork(
        Effect.all([Probe.execute({ id: "x" }), Probe.execute({ id: "x" })], { concurrency: 2 }).pipe(
          Effect.provide(engine)
        )
      )
      yield* settle(Effect.map(statusOf("x"), (status) => status === "running"))
      yield* settle(Effect.succeed(true))
      yield* Deferred.succeed(release, undefined)
      assert.deepStrictEqual(yield* Fiber.join(callers), [7, 7])
      assert.strictEqual(bodies, 1)
    }).pipe(Effect.provide(database()))
  )

  it.scoped("a run that is not in progress is not held in memory: its journal is read again when it resumes", () =>
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
      assert.strictEqual(yield* Effect.provide(Probe.execute({ id: "done" }), engine), 21)
      // Complete, then purged: the same id is a new run, not the ended one held in memory.
      const ids = [yield* Probe.executionId({ id: "done" })]
      yield* SqlEngine.purge(ids)
      answer = 30
      yield* Effect.provide(Probe.execute({ id: "done" }, { discard: true }), engine)
      yield* settle(Effect.map(statusOf("done"), (status) => status === "suspended"))
      yield* TestClock.adjust("10 seconds")
      yield* settle(Effect.map(statusOf("done"), (status) => status === "complete"))
      assert.strictEqual(yield* Effect.provide(Probe.execute({ id: "done" }), engine), 30)
    }).pipe(Effect.provide(database()))
  )

  it.scoped("closing a registration's scope unregisters the workflow and interrupts its bodies as a crash", () =>
    Effect.gen(function* () {
      let started = 0
      const interrupted = yield* Deferred.make<void>()
      const body = () =>
        Effect.zipRight(
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
      assert.isTrue(yield* Deferred.isDone(interrupted), "the body still runs")
      const polled = yield* Effect.exit(Effect.provide(Probe.poll(yield* Probe.executionId({ id: "r" })), engine))
      assert.isTrue(
        Exit.isFailure(polled) &&
          Option.exists(Cause.dieOption(polled.cause), (defect) => defect instanceof SqlEngine.JournalError),
        `expected 'not registered', got ${String(polled)}`
      )
      // A crash, not a stop: registered again, the run resumes.
      assert.strictEqual(yield* statusOf("r"), "running")
      yield* Layer.buildWithScope(Probe.toLayer(body).pipe(Layer.provide(Layer.succeedContext(engine))), engineScope)
      yield* settle(Effect.sync(() => started === 2))
    }).pipe(Effect.provide(database()))
  )

  it.scoped("a durable clock's deadline is journaled in whole milliseconds", () =>
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
      assert.strictEqual(Number(row!.wake_at), 2)
    }).pipe(Effect.provide(database()))
  )
})
