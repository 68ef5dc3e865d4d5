/**
 * `Engine.layerSql` runs every statement of the store on the connection holding the owner lock: the
 * store's client on that connection
 * (`Store.StoreSql`) keeps what a client over the pool had (a live session after a statement's
 * own error, interrupted statements cancelled, a close that does not wait on the server) and
 * refuses statements after the close; the layer's own `SqlClient` is the app's pool. The throwaway database is the run's (packages/cluster/test/postgres.setup.ts); each
 * test works in its own database in it.
 *
 * Real-time bounds (`Effect.timeout` on the live clock, 10 s) are only guards against a hang
 * against a real server: the behaviour they guard answers in milliseconds, and a failure is a wait
 * for ever, not a slow answer.
 */
import { Engine } from "@agent-kernel/durable"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { ownDatabase, pgLayer } from "../../cluster/test/postgres.js"
import * as Store from "../src/internal/store.js"
import { settle } from "./eventLoop.js"

const poolOn = (url: string, maxConnections: number) => PgClient.layer({ url: Redacted.make(url), maxConnections })

/** The layer, built in `scope` over `pool` (by default a pool of its own of 4 connections, so that over the pool (main) neither a statement nor its cancel waits for a connection), closed with it. */
const layerContext = (
  url: string,
  scope: Scope.Scope,
  pool: Layer.Layer<SqlClient.SqlClient, unknown> = poolOn(url, 4)
) => Layer.buildWithScope(Engine.layerSql().pipe(Layer.provideMerge(pool)), scope)

/** `one_two` → `oneTwo`: an app's result-name transform. */
const snakeToCamel = (name: string) => name.replace(/_(\w)/g, (_, letter: string) => letter.toUpperCase())

/** The `SqlClient` the layer provides to the app. */
const appClient = (url: string, scope: Scope.Scope) =>
  Effect.map(layerContext(url, scope), (context) => Context.get(context, SqlClient.SqlClient))

/** The `SqlClient` of the layer's store and engine: on Postgres, the one on the lock's connection. */
const layerClient = (url: string, scope: Scope.Scope, pool?: Layer.Layer<SqlClient.SqlClient, unknown>) =>
  Effect.flatMap(layerContext(url, scope, pool), (context) =>
    Option.match(Context.get(context, Store.StoreSql), {
      onNone: () => Effect.die("the layer provides no store client"),
      onSome: Effect.succeed
    })
  )

/** Whether the store's advisory lock in `database` is held by some session. */
const lockHeld = (observer: SqlClient.SqlClient, database: string) =>
  Effect.map(
    observer<{ readonly n: number }>`SELECT count(*)::int AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database
      WHERE l.locktype = 'advisory' AND l.granted AND d.datname = ${database}`,
    (rows) => (rows[0]?.n ?? 0) > 0
  )

/** A guard against a hang (see the header): the effect, or a failure after 10 s of real time. */
const within = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.timeoutOrElse(effect, {
    duration: "10 seconds",
    orElse: () => Effect.fail("hung: no answer in 10 s" as const)
  })

describe("Engine.layerSql's store client on the lock's connection, and the app's pool", () => {
  it.live(
    "a statement the server refuses with 08P01 at ERROR (too many parameters) leaves the session alive: the layer must not call its lock lost",
    () =>
      Effect.gen(function* () {
        const { url, name } = yield* ownDatabase("store_connection")
        const observer = Context.get(yield* Layer.build(pgLayer()), SqlClient.SqlClient)
        const sql = yield* layerClient(url, yield* Effect.scope)
        // An app's bulk statement over the layer's client with more than 65,535 parameters: the
        // server refuses the bind message with SQLSTATE 08P01 (protocol_violation) at severity ERROR,
        // and the session goes on.
        const ids = Array.from({ length: 70_000 }, (_, i) => `id-${i}`)
        const refused = yield* Effect.exit(sql`SELECT 1 AS one WHERE 'x' IN ${sql.in(ids)}`)
        expect(Exit.isFailure(refused)).toBe(true)
        // The session (and the lock) is alive: nothing ended it.
        expect(yield* lockHeld(observer, name), "the lock is still held by the owner's session").toBe(true)
        // So the next statement must run. On pglock6 it fails for ever ("the lock was lost"), while the
        // lock stays held: no other process can take the store either, until this one exits.
        const next = yield* Effect.exit(sql`SELECT 1 AS one`)
        expect(Exit.isSuccess(next), `the layer refuses statements on a live session: ${String(next)}`).toBe(true)
      })
  )

  it.live(
    "a stream on the layer's client whose rows run another statement does not wait for ever (it did over the pool)",
    () =>
      Effect.gen(function* () {
        const { url } = yield* ownDatabase("store_connection")
        const sql = yield* appClient(url, yield* Effect.scope)
        const counted = yield* Effect.exit(
          within(
            sql<{ readonly n: number }>`SELECT generate_series(1, 3) AS n`.stream.pipe(
              Stream.mapEffect(({ n }) => sql<{ readonly m: number }>`SELECT ${n}::int * 2 AS m`),
              Stream.runCount
            )
          )
        )
        expect(counted).toEqual(Exit.succeed(3))
      })
  )

  it.live("the layer's SqlClient keeps the app's pool's transforms", () =>
    Effect.gen(function* () {
      const { url } = yield* ownDatabase("store_connection")
      const scope = yield* Effect.scope
      const pool = PgClient.layer({ url: Redacted.make(url), maxConnections: 2, transformResultNames: snakeToCamel })
      const sql = Context.get(yield* layerContext(url, scope, pool), SqlClient.SqlClient)
      expect(yield* sql`SELECT 1 AS one_two`).toEqual([{ oneTwo: 1 }])
    })
  )

  it.live(
    "an interrupted statement that waits on another session's lock does not hold up every later statement (it was cancelled over the pool)",
    () =>
      Effect.gen(function* () {
        const { url, name } = yield* ownDatabase("store_connection")
        const observerContext = yield* Layer.build(poolOn(url, 2))
        const observer = Context.get(observerContext, SqlClient.SqlClient)
        // Another session (an operator, another app) holds a lock the layer's statement will wait on.
        const holder = yield* observer.reserve
        yield* holder.execute("SELECT pg_advisory_lock(4242)", [], undefined)
        const sql = yield* layerClient(url, yield* Effect.scope)
        const waiting = Effect.map(
          observer<{ readonly n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = ${name} AND wait_event_type = 'Lock' AND query LIKE '%pg_advisory_xact_lock%'
            AND pid <> pg_backend_pid()`,
          (rows) => (rows[0]?.n ?? 0) > 0
        )
        const blocked = yield* Effect.forkChild(sql`SELECT pg_advisory_xact_lock(4242)`)
        yield* settle(waiting)
        // The caller gives up (a timeout, a stopped run): its statement must not keep the connection.
        yield* Fiber.interrupt(blocked)
        const next = yield* Effect.exit(within(sql`SELECT 1 AS one`))
        // Let the blocked statement through, so the layer can close either way.
        yield* holder.execute("SELECT pg_advisory_unlock(4242)", [], undefined)
        expect(Exit.isSuccess(next), `the next statement waited for the interrupted one: ${String(next)}`).toBe(true)
      })
  )

  it.live("closing the layer does not wait for an interrupted statement still blocked on the server", () =>
    Effect.gen(function* () {
      const { url, name } = yield* ownDatabase("store_connection")
      const observer = Context.get(yield* Layer.build(poolOn(url, 2)), SqlClient.SqlClient)
      const holder = yield* observer.reserve
      yield* holder.execute("SELECT pg_advisory_lock(4243)", [], undefined)
      const layerScope = yield* Scope.make()
      const sql = yield* layerClient(url, layerScope)
      const waiting = Effect.map(
        observer<{ readonly n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = ${name} AND wait_event_type = 'Lock' AND query LIKE '%pg_advisory_xact_lock%'
            AND pid <> pg_backend_pid()`,
        (rows) => (rows[0]?.n ?? 0) > 0
      )
      const blocked = yield* Effect.forkChild(sql`SELECT pg_advisory_xact_lock(4243)`)
      yield* settle(waiting)
      yield* Fiber.interrupt(blocked)
      const closing = yield* Effect.forkChild(Scope.close(layerScope, Exit.void))
      const closed = yield* Effect.exit(within(Fiber.join(closing)))
      yield* holder.execute("SELECT pg_advisory_unlock(4243)", [], undefined)
      yield* Fiber.join(closing)
      expect(Exit.isSuccess(closed), `the layer's shutdown waited on the server: ${String(closed)}`).toBe(true)
    })
  )

  it.live(
    "closing the layer while a statement of the store is stuck on the server ends the owner's session after a bound: the lock is freed",
    () =>
      Effect.gen(function* () {
        const { url, name } = yield* ownDatabase("store_connection")
        const observer = Context.get(yield* Layer.build(poolOn(url, 2)), SqlClient.SqlClient)
        const holder = yield* observer.reserve
        yield* holder.execute("SELECT pg_advisory_lock(4244)", [], undefined)
        const layerScope = yield* Scope.make()
        const sql = yield* layerClient(url, layerScope)
        const waiting = Effect.map(
          observer<{ readonly n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = ${name} AND wait_event_type = 'Lock' AND query LIKE '%pg_advisory_xact_lock%'
            AND pid <> pg_backend_pid()`,
          (rows) => (rows[0]?.n ?? 0) > 0
        )
        // A fiber that outlives the layer, its statement stuck (not interrupted): the layer's close
        // gives it the bound (5 s), then ends the session.
        const stuck = yield* Effect.forkChild(sql`SELECT pg_advisory_xact_lock(4244)`)
        yield* settle(waiting)
        const closed = yield* Effect.exit(within(Scope.close(layerScope, Exit.void)))
        expect(Exit.isSuccess(closed), `the layer's shutdown waited on the server: ${String(closed)}`).toBe(true)
        expect(Exit.isFailure(yield* Fiber.await(stuck)), "the stuck statement ended with its session").toBe(true)
        yield* holder.execute("SELECT pg_advisory_unlock(4244)", [], undefined)
        expect(yield* lockHeld(observer, name), "the owner's session (and its lock) outlived the layer").toBe(false)
      })
  )

  it.live("the layer's client refuses statements once the layer is closed (its connection went back to the pool)", () =>
    Effect.gen(function* () {
      const { url } = yield* ownDatabase("store_connection")
      // The app's pool outlives the layer (as a pool shared with the app's own queries does).
      const pool = yield* Layer.build(poolOn(url, 2))
      const layerScope = yield* Scope.make()
      const sql = yield* layerClient(url, layerScope, Layer.succeedContext(pool))
      const pid = yield* sql<{ readonly pid: number }>`SELECT pg_backend_pid() AS pid`
      yield* Scope.close(layerScope, Exit.void)
      // A fiber that outlived the layer (a daemon, a background write) still holds its client: on
      // pglock6 its statement runs on a pooled connection that holds no lock (and may be another
      // owner's), outside any turn.
      const stale = yield* Effect.exit(sql<{ readonly pid: number }>`SELECT pg_backend_pid() AS pid`)
      expect(
        Exit.isFailure(stale),
        `a statement ran after the layer closed (the owner's backend was ${pid[0]?.pid}): ${String(stale)}`
      ).toBe(true)
    })
  )
})
