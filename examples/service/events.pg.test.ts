/**
 * The service's event log over the run's throwaway Postgres: what its
 * LISTEN costs the pool, the log of a run that another runner resumed, and
 * of a run its caller stopped.
 */
import { DurableSessions, Engine } from "@agent-kernel/durable"
import { ModelProvider } from "@agent-kernel/kernel"
import { FakeProvider, type FaultPlan } from "@agent-kernel/providers/testing"
import { assert, describe, it } from "@effect/vitest"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import * as Stream from "effect/Stream"
import { postgresUrl } from "../../packages/cluster/test/postgres.js"
import * as ApiClient from "./ApiClient.js"
import * as RunnerProcess from "./RunnerProcess.js"
import * as SessionEvents from "./SessionEvents.js"

const Count = Schema.Array(Schema.Struct({ count: Schema.Number }))

/** How many backends of the database `name` satisfy `where` (SQL over pg_stat_activity), read by `sql`. */
const backends = (sql: SqlClient.SqlClient, name: string, where: string) =>
  sql.unsafe(`SELECT count(*)::int AS count FROM pg_stat_activity WHERE datname = $1 AND ${where}`, [name]).pipe(
    Effect.flatMap(Schema.decodeUnknownEffect(Count)),
    Effect.map((rows) => rows[0]?.count ?? 0),
    Effect.orDie
  )

/** Polls `count` until it is `expected`, within a generous ceiling for a loaded machine. */
const awaitCount = (count: Effect.Effect<number>, expected: number, what: string) =>
  Effect.repeat(count, { until: (n) => n === expected, schedule: Schedule.spaced("100 millis") }).pipe(
    Effect.timeoutOrElse({
      duration: "60 seconds",
      orElse: () => Effect.flatMap(count, (n) => Effect.die(new Error(`${what}: ${n}, never ${expected}`)))
    })
  )

describe("the event log's LISTEN", () => {
  it.live(
    "holds a connection of its own: every connection of the pool still serves queries",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const name = `events_pool_${Date.now()}`
          const url = yield* RunnerProcess.freshDatabase(postgresUrl(), name)
          const size = 2
          const pool = yield* Layer.build(PgClient.layer({ url: Redacted.make(url), maxConnections: size }))
          yield* Layer.build(SessionEvents.layer({ runner: "test" }).pipe(Layer.provide(Layer.succeedContext(pool))))
          // The test's own connection reads the server's view and holds the lock the pool's queries wait on.
          const observer = yield* Layer.build(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 }))
          const watch = yield* Effect.provide(SqlClient.SqlClient, observer)
          yield* awaitCount(backends(watch, name, "query LIKE 'LISTEN%'"), 1, "backends listening")
          // A session-level lock on the observer's one connection, released with the scope.
          const lock = 7_340_016
          yield* Effect.acquireRelease(watch`SELECT pg_advisory_lock(${lock})`, () =>
            Effect.ignore(watch`SELECT pg_advisory_unlock(${lock})`)
          ).pipe(Effect.orDie)
          const sql = yield* Effect.provide(SqlClient.SqlClient, pool)
          const queries = yield* Effect.forkScoped(
            Effect.all(
              Array.from(
                { length: size },
                () => sql`SELECT pg_advisory_lock_shared(${lock}), pg_advisory_unlock_shared(${lock})`
              ),
              { concurrency: "unbounded" }
            )
          )
          // Every connection of the pool waits on the lock at once: none is the LISTEN's.
          yield* awaitCount(
            backends(watch, name, "wait_event_type = 'Lock' AND query LIKE '%advisory_lock_shared%'"),
            size,
            "pool queries waiting on the lock"
          )
          yield* watch`SELECT pg_advisory_unlock(${lock})`.pipe(Effect.orDie)
          yield* Fiber.join(queries).pipe(Effect.orDie)
        })
      ),
    120_000
  )
})

/** Model calls of 1 to 2 s: two of three ask for a tool (unknown: an error result), so a run makes several. */
const multiCall: FaultPlan.FaultPlan = {
  steps: Array.from(
    { length: 300 },
    (_, i): FaultPlan.Step =>
      i % 3 === 2
        ? { kind: "reply", delay_ms: 1_000 + (i % 3) * 500, text: `answer ${i}` }
        : {
            kind: "reply",
            delay_ms: 1_000 + (i % 3) * 500,
            tool_calls: [{ name: "lookup", input: { key: `k${i}` }, id: `toolu_k${i}` }],
            stop: "tool_use"
          }
  ),
  after: "repeat_last"
}

describe("a run resumed on another runner", () => {
  it.live(
    "after its runner is killed: its events go on in the log from the runner that resumed it, to its completed end",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const url = yield* RunnerProcess.freshDatabase(postgresUrl(), `events_resumed_${Date.now()}`)
          const provider = yield* FakeProvider.make(multiCall)
          // The victim's shards move once its heartbeat is 10 s old, not the default 30 s: the test pins the resume.
          const start = RunnerProcess.start({
            databaseUrl: url,
            providerUrl: provider.url,
            flags: ["--shard-lock-expiration", "10"]
          })
          const [survivor, victim] = yield* Effect.all([start, start], { concurrency: "unbounded" })
          yield* RunnerProcess.awaitShards(url, 2)
          const ids = Array.from({ length: 12 }, (_, i) => `s${i}`)
          // Every prompt goes to the survivor: the answers of the victim's runs come back through the log.
          const answers = yield* Effect.forkChild(
            Effect.forEach(ids, (id) => ApiClient.post(survivor!.http, id, JSON.stringify({ prompt: `${id} hello` })), {
              concurrency: "unbounded"
            })
          )
          yield* provider.awaitRequests(ids.length)
          yield* victim!.kill("SIGKILL")
          const responses = yield* Fiber.join(answers).pipe(
            Effect.timeoutOrElse({
              duration: "240 seconds",
              orElse: () => Effect.die(new Error("an answer never reached its run_ended"))
            })
          )
          const output = yield* survivor!.output
          let resumed = 0
          for (const [i, response] of responses.entries()) {
            const id = ids[i]!
            const lines = yield* Effect.orDie(ApiClient.lines(response.text))
            const events = lines.flatMap((line) => ("event" in line ? [line] : []))
            assert.strictEqual(events.length, lines.length, `${id}: ${response.text.slice(-500)}`)
            assert.deepInclude(events[0]?.event, { type: "run_started", run_id: `${id}/run-1` })
            assert.deepInclude(events[events.length - 1]?.event, {
              type: "run_ended",
              run_id: `${id}/run-1`,
              status: "completed"
            })
            const runners = new Set(events.map((line) => line.runner))
            if (runners.has(victim!.runner) && runners.has(survivor!.runner)) resumed++
          }
          // Runs the kill cut off were resumed by the survivor, and none of their events was dropped.
          assert.isAbove(resumed, 0, "no run was cut off by the kill")
          assert.notInclude(output, "no session for execution")
        })
      ),
    300_000
  )
})

describe("a run its caller stopped", () => {
  it.live("ends the log with its interrupted run_ended once the store has recorded the stop", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const url = yield* RunnerProcess.freshDatabase(postgresUrl(), `events_stopped_${Date.now()}`)
        // A model that never answers: the run waits in its first call until its caller stops it.
        const silent = Layer.succeed(
          ModelProvider.ModelProvider,
          ModelProvider.make("silent", () => Stream.never)
        )
        const context = yield* Layer.build(
          DurableSessions.layer({ model: "silent" }).pipe(
            Layer.provideMerge(SessionEvents.layer({ runner: "here" })),
            Layer.provideMerge(Engine.layerClusterSql()),
            Layer.provide(silent),
            Layer.provideMerge(PgClient.layer({ url: Redacted.make(url), maxConnections: 4 }))
          )
        ).pipe(Effect.orDie)
        const sessions = Context.get(context, DurableSessions.DurableSessions)
        const log = Context.get(context, SessionEvents.SessionEvents)
        const run = yield* Effect.forkChild(sessions.run("s", "hello"))
        const events = yield* Effect.forkChild(Stream.runCollect(log.follow("s", 0)))
        yield* Effect.repeat(log.head("s"), { until: (head) => head > 0, schedule: Schedule.spaced("100 millis") })
        yield* Fiber.interrupt(run)
        const logged = yield* Fiber.join(events).pipe(
          Effect.timeoutOrElse({
            duration: "60 seconds",
            orElse: () => Effect.die(new Error("the stopped run's run_ended never reached the log"))
          })
        )
        const last = [...logged].pop()?.event
        assert.deepInclude(last, { type: "run_ended", run_id: "s/run-1", status: "interrupted" })
        const summary = yield* DurableSessions.summaries.pipe(Effect.provide(context), Effect.orDie)
        assert.deepInclude(summary[0], { id: "s", status: "interrupted" })
      })
    )
  )
})
