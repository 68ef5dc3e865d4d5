import { Engine } from "@agent-kernel/durable"
import { FakeProvider, FaultPlan } from "@agent-kernel/providers/testing"
import { assert, describe, it } from "@effect/vitest"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Net from "node:net"
import { pgLayer, postgresUrl } from "./postgres.js"
import * as Workers from "./workers.js"

const Report = Schema.parseJson(Schema.Struct({ statuses: Schema.Array(Schema.String) }))

const freePort = Effect.async<number>((resume) => {
  const server = Net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

/** A fresh database of the run's cluster, so that the runners of one test never meet another test's. */
const freshDatabase = (name: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`CREATE DATABASE ${name}`)).pipe(
    Effect.provide(pgLayer()),
    Effect.as(postgresUrl().replace(/\/[^/]*$/, `/${name}`))
  )

const clientOf = (url: string) => PgClient.layer({ url: Redacted.make(url), maxConnections: 2 })

/** The advisory locks (shards) held by each Postgres backend on `database`: the runners' lock connections. */
const shardHolders = (url: string, database: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ readonly shards: string }>`SELECT count(*)::text AS shards FROM pg_locks
      WHERE locktype = 'advisory' AND granted
        AND database = (SELECT oid FROM pg_database WHERE datname = ${database}) GROUP BY pid`
  ).pipe(
    Effect.map((rows) => rows.map((row) => Number(row.shards)).sort((a, b) => b - a)),
    Effect.provide(clientOf(url))
  )

/** Waits (polling the database) until `runners` runners hold all 300 shards between them. */
const settled = (url: string, database: string, runners: number) =>
  shardHolders(url, database).pipe(
    Effect.repeat({
      until: (held) => held.length === runners && held.reduce((sum, n) => sum + n, 0) === 300,
      schedule: Schedule.spaced("200 millis")
    }),
    Effect.timeoutFail({
      duration: "90 seconds",
      onTimeout: () => new Error(`${runners} runners never held all the shards`)
    })
  )

/** The store's tables, made once by the single-runner engine before any runner starts: their migrations race. */
const migrated = (url: string) =>
  Effect.scoped(Layer.build(Engine.layerClusterSql().pipe(Layer.provide(clientOf(url)))))

describe("durable sessions sharded over runner processes", () => {
  it.live(
    "two runners over one Postgres: the shards are split between them, and every session completes",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const database = `runners_${Date.now()}`
          const url = yield* freshDatabase(database)
          yield* migrated(url)
          const server = yield* FakeProvider.make(FaultPlan.happy)
          const ids = Array.from({ length: 20 }, (_, i) => `${database}-${i}`)
          const runners = []
          for (const half of [ids.slice(0, 10), ids.slice(10)]) {
            const worker = yield* Workers.start("runner", {
              DATABASE_URL: url,
              PROVIDER_URL: server.url,
              PORT: String(yield* freePort),
              SESSIONS: half.join(",")
            })
            yield* worker.ready
            runners.push(worker)
          }
          // Sessions start once the shards have settled: a shard handed over mid-call re-runs its call.
          yield* settled(url, database, 2)
          yield* Effect.forEach(runners, (runner) => runner.go)
          const reports = yield* Effect.forEach(
            runners,
            (runner) => Effect.flatMap(runner.report, Schema.decode(Report)),
            {
              concurrency: "unbounded"
            }
          )
          const statuses = reports.flatMap((report) => report.statuses)
          assert.strictEqual(statuses.length, ids.length)
          assert.deepStrictEqual([...new Set(statuses)], ["completed"])
          // Each runner holds its shards as advisory locks on its own connection.
          const held = yield* shardHolders(url, database)
          console.log(`runners: shards held per runner: ${held.join(", ")}`)
          assert.strictEqual(held.length, 2)
          // No call was sent twice: with no runner lost, every model call ran once.
          assert.strictEqual((yield* server.requests).length, ids.length)
        })
      ),
    240_000
  )

  it.live(
    "a runner killed with SIGKILL mid-run: its shards move to the live runner, which finishes every session",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const database = `failover_${Date.now()}`
          const url = yield* freshDatabase(database)
          yield* migrated(url)
          // Every model call takes 3 s, so that calls are in flight when the runner dies.
          const server = yield* FakeProvider.make(
            FaultPlan.make([{ kind: "reply", text: "slow", delay_ms: 3_000 }], { after: "repeat_last" })
          )
          const ids = Array.from({ length: 12 }, (_, i) => `${database}-${i}`)
          const env = { DATABASE_URL: url, PROVIDER_URL: server.url }
          // The survivor submits every session; the victim only hosts shards.
          const survivor = yield* Workers.start("runner", {
            ...env,
            PORT: String(yield* freePort),
            SESSIONS: ids.join(",")
          })
          yield* survivor.ready
          const victim = yield* Workers.start("runner", { ...env, PORT: String(yield* freePort), SESSIONS: "" })
          yield* victim.ready
          yield* settled(url, database, 2)
          yield* survivor.go
          yield* victim.go
          // Wait until calls are in flight on both runners, then kill one.
          yield* server.awaitRequests(ids.length)
          const killedAt = Date.now()
          yield* victim.kill("SIGKILL")
          const report = yield* Effect.flatMap(survivor.report, Schema.decode(Report))
          const doneAt = Date.now()
          assert.deepStrictEqual([...new Set(report.statuses)], ["completed"])
          assert.strictEqual(report.statuses.length, ids.length)
          // The survivor takes over every shard.
          const tookOver = yield* settled(url, database, 1).pipe(Effect.as(Date.now()))
          const requests = (yield* server.requests).length
          console.log(
            `failover: ${ids.length} sessions, ${requests} model requests, all done ${((doneAt - killedAt) / 1000).toFixed(1)} s after the kill, ` +
              `every shard on the survivor ${((tookOver - killedAt) / 1000).toFixed(1)} s after it`
          )
          // A call in flight when its runner died is sent again; a completed one never is.
          assert.isAtMost(requests, ids.length * 2)
        })
      ),
    240_000
  )
})
