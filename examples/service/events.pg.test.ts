/**
 * The service's event log over the run's throwaway Postgres: what its
 * LISTEN costs the pool.
 */
import { describe, it } from "@effect/vitest"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import { inject } from "vitest"
import * as RunnerProcess from "./RunnerProcess.js"
import * as SessionEvents from "./SessionEvents.js"

/** The URL of the run's throwaway database; a test without it FAILS, it never skips. */
const postgresUrl = (): string => {
  const postgres = inject("postgres")
  if ("error" in postgres) throw new Error(postgres.error)
  return postgres.url
}

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
