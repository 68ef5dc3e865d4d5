/**
 * The setup every multi-runner test shares: a fresh database on the run's
 * PostgreSQL (so one test's runners never meet another's), its tables made
 * once, runner processes (`./worker/runner.ts`) started on free ports, and
 * waits on the shards (the runners' advisory locks) until they have settled.
 */
import { Engine } from "@agent-kernel/durable"
import * as PgClient from "@effect/sql-pg/PgClient"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import * as Ports from "../src/testing/Ports.js"
import { pgLayer, postgresUrl } from "./postgres.js"
import * as Workers from "./workers.js"

/** Shards per group: the sharding default. */
const shards = 300

/** Runs `effect` every `interval` until its value is `done`, and returns that value. */
export const pollUntil = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  done: (value: A) => boolean,
  interval: Duration.Input
): Effect.Effect<A, E, R> => Effect.repeat(effect, { until: done, schedule: Schedule.spaced(interval) })

/** A client of the database at `url`, with a small pool. */
export const clientOf = (url: string) => PgClient.layer({ url: Redacted.make(url), maxConnections: 2 })

/** A cluster store: its database's name and URL. */
export interface Store {
  readonly database: string
  readonly url: string
}

/**
 * A fresh database named after `prefix`, with the store's tables made once
 * (by the single-runner engine) before any runner starts: their migrations
 * race.
 */
export const freshStore = (prefix: string): Effect.Effect<Store> =>
  Effect.gen(function* () {
    const database = `${prefix}_${Date.now()}`
    yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`CREATE DATABASE ${database}`)).pipe(
      Effect.provide(pgLayer())
    )
    const url = postgresUrl().replace(/\/[^/]*$/, `/${database}`)
    yield* Effect.scoped(Layer.build(Engine.layerClusterSql().pipe(Layer.provide(clientOf(url)))))
    return { database, url }
  }).pipe(Effect.orDie)

/** The shards (advisory locks) held by each Postgres backend on the store: the runners' lock connections. */
export const shardHolders = (store: Store): Effect.Effect<ReadonlyArray<number>> =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ readonly shards: string }>`SELECT count(*)::text AS shards FROM pg_locks
      WHERE locktype = 'advisory' AND granted
        AND database = (SELECT oid FROM pg_database WHERE datname = ${store.database}) GROUP BY pid`
  ).pipe(
    Effect.map((rows) => rows.map((row) => Number(row.shards)).sort((a, b) => b - a)),
    Effect.provide(clientOf(store.url)),
    Effect.orDie
  )

/**
 * Waits (polling the database) until `runners` runners hold every shard
 * between them. Shards move within a few lock expirations (30 s); the bound is
 * generous, for a loaded machine, where a runner that stalls longer than a
 * lock expiration loses its shards and they move again.
 */
export const settled = (store: Store, runners: number): Effect.Effect<ReadonlyArray<number>> =>
  pollUntil(
    shardHolders(store),
    (held) => held.length === runners && held.reduce((sum, n) => sum + n, 0) === shards,
    "200 millis"
  ).pipe(
    Effect.timeoutOrElse({
      duration: "300 seconds",
      orElse: () => Effect.fail(new Error(`${runners} runners never held all the shards`))
    }),
    Effect.orDie
  )

/**
 * Starts one runner process per entry of `each` (its own environment, on top
 * of the store's URL, `common` and a free port), one after the other, waits
 * until each has joined the cluster, then until the shards have settled over
 * all of them: a session started earlier could see its shard handed over
 * mid-call.
 */
export const startRunners = (
  store: Store,
  common: Record<string, string>,
  each: ReadonlyArray<Record<string, string>>
): Effect.Effect<ReadonlyArray<Workers.Worker>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const runners: Array<Workers.Worker> = []
    for (const own of each) {
      const port = yield* Effect.orDie(Ports.free)
      const runner = yield* Workers.start("runner", {
        DATABASE_URL: store.url,
        ...common,
        ...own,
        PORT: String(port)
      })
      yield* runner.ready
      runners.push(runner)
    }
    yield* settled(store, runners.length)
    return runners
  })
