/**
 * The Postgres owner lock of `Engine.layerSql` lost DURING a run: the server ends the
 * lock's session while a model call is in flight. No statement of the old owner may land after
 * that (a second process may own the store by then): the run fails with `JournalError` at its
 * next write, stays unfinished, and a second engine takes the store and finishes it. Two engines
 * over their own pools stand for two processes. The throwaway database is the run's
 * (packages/cluster/test/postgres.setup.ts); each test works in its own database in it.
 */
import { DurableSessions, Engine } from "@agent-kernel/durable"
import { Content, ModelProvider, Settings } from "@agent-kernel/kernel"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import { ownDatabase, pgLayer } from "../../cluster/test/postgres.js"
import * as Store from "../src/internal/store.js"
import { settle } from "./eventLoop.js"

const poolOn = (url: string, maxConnections: number) => PgClient.layer({ url: Redacted.make(url), maxConnections })

const usage: ModelProvider.Usage = { input_tokens: 1, output_tokens: 1 }
const answer = (text: string): ModelProvider.ModelResponse => ({
  model: "m",
  content: [Content.text(text)],
  stop_reason: "end_turn",
  usage
})

/** A model whose every call answers `text`, after `before` (holding the call open). */
const modelAnswering = (text: string, before: Effect.Effect<void> = Effect.void) =>
  Layer.succeed(
    ModelProvider.ModelProvider,
    ModelProvider.fromGenerate("m", () => Effect.as(before, answer(text)))
  )

const sessionsOn = <E>(engine: Layer.Layer<Engine.Engine, E>, model: Layer.Layer<ModelProvider.ModelProvider>) =>
  DurableSessions.layer({ model: "m", settings: Settings.defaults }).pipe(
    Layer.provideMerge(engine),
    Layer.provide(model)
  )

/** Every row of the store's tables (journal and sessions), as text, from a client of its own. */
const snapshot = (url: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const tables = [
      "workflow_executions",
      "workflow_activities",
      "workflow_deferreds",
      "workflow_clocks",
      "agent_sessions",
      "agent_tool_calls"
    ]
    const rows: Array<string> = []
    for (const table of tables) {
      const all = yield* sql.unsafe<{ readonly row: string }>(`SELECT t::text AS row FROM ${table} t ORDER BY 1`)
      rows.push(...all.map(({ row }) => `${table} ${row}`))
    }
    return rows
  }).pipe(Effect.provide(poolOn(url, 1)), Effect.scoped)

/** Ends the server session holding the store's advisory lock in `database`; how many it ended. */
const killLockSession = (database: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.unsafe<{ readonly ended: boolean }>(
      `SELECT pg_terminate_backend(l.pid) AS ended FROM pg_locks l JOIN pg_database d ON d.oid = l.database
       WHERE l.locktype = 'advisory' AND l.granted AND d.datname = '${database}'`
    )
  ).pipe(
    Effect.map((rows) => rows.filter(({ ended }) => ended).length),
    Effect.provide(pgLayer()),
    Effect.scoped
  )

/** The `SqlClient` of the store and engine of the `Engine.layerSql` in context (on the lock's connection). */
const storeClient = Effect.flatMap(
  Store.StoreSql,
  Option.match({ onNone: () => Effect.die("no store client in context"), onSome: Effect.succeed })
)

/** A guard against a hang against the real server: the effect, or a failure after 10 s of real time. */
const within = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.timeoutOrElse(effect, {
    duration: "10 seconds",
    orElse: () => Effect.fail("hung: no answer in 10 s" as const)
  })

const isJournalError = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit) &&
  Option.exists(Cause.findErrorOption(exit.cause), (error) => Predicate.isTagged(error, "JournalError"))

describe("Engine.layerSql's Postgres owner lock", () => {
  it.effect(
    "the lock's session ends during a model call: nothing is written after, the run fails unfinished, a second engine resumes it",
    () =>
      Effect.gen(function* () {
        const { url, name } = yield* ownDatabase("durable_owner")
        const reached = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const first = yield* Scope.make()
        const owner = yield* Layer.buildWithScope(
          sessionsOn(
            Engine.layerSql().pipe(Layer.provideMerge(poolOn(url, 2))),
            modelAnswering(
              "from the first owner",
              Effect.andThen(Deferred.succeed(reached, undefined), Deferred.await(release))
            )
          ),
          first
        )
        const run = yield* Effect.forkChild(
          Effect.flatMap(DurableSessions.DurableSessions, (all) => all.run("s", "go")).pipe(Effect.provide(owner))
        )
        yield* Deferred.await(reached)
        expect(yield* killLockSession(name)).toBe(1)
        const before = yield* snapshot(url)
        // The model call answers after the lock is gone: the run's next step writes its journal.
        yield* Deferred.succeed(release, undefined)
        const exit = yield* Fiber.await(run)
        expect(isJournalError(exit), `expected a JournalError, got ${String(exit)}`).toBe(true)
        expect(yield* snapshot(url), "a statement landed after the lock was lost").toEqual(before)
        // Lost for good: a new run of the old owner does not take the store again behind the first.
        const again = yield* Effect.exit(
          Effect.flatMap(DurableSessions.DurableSessions, (all) => all.run("t", "go")).pipe(Effect.provide(owner))
        )
        // (The store's read comes first: a StoreError, with the same reason.)
        if (Exit.isSuccess(again)) return expect.fail("a run of the old owner ran without its lock")
        expect(Cause.pretty(again.cause)).toMatch(/lock was lost/)
        // A second process takes the store (the lock is free) and finishes the unfinished run.
        const resumed = yield* Effect.flatMap(DurableSessions.DurableSessions, (all) => all.resume("s")).pipe(
          Effect.provide(
            sessionsOn(
              Engine.layerSql().pipe(Layer.provideMerge(poolOn(url, 2))),
              modelAnswering("from the second owner")
            )
          ),
          Effect.scoped
        )
        expect(Option.isSome(resumed), "nothing to resume: the run was not left unfinished").toBe(true)
        if (Option.isSome(resumed)) expect(resumed.value.status).toBe("completed")
        yield* Scope.close(first, Exit.void)
      })
  )

  it.effect("a pool of one connection runs the store: the lock's connection runs every statement of it", () =>
    Effect.gen(function* () {
      const { url } = yield* ownDatabase("durable_owner")
      const outcome = yield* Effect.flatMap(DurableSessions.DurableSessions, (all) => all.run("s", "go")).pipe(
        Effect.provide(sessionsOn(Engine.layerSql().pipe(Layer.provideMerge(poolOn(url, 1))), modelAnswering("done"))),
        Effect.scoped
      )
      expect(outcome.status).toBe("completed")
    })
  )

  it.effect(
    "an interrupted statement of the store is cancelled on the server, and the next one runs after its reply",
    () =>
      Effect.gen(function* () {
        const { url, name } = yield* ownDatabase("durable_owner")
        const observer = Context.get(yield* Layer.build(pgLayer()), SqlClient.SqlClient)
        const sleeping = Effect.map(
          observer<{ readonly n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = ${name} AND state = 'active' AND query LIKE '%pg_sleep%' AND pid <> pg_backend_pid()`,
          (rows) => (rows[0]?.n ?? 0) > 0
        )
        yield* Effect.gen(function* () {
          const sql = yield* storeClient
          yield* sql`CREATE TABLE notes (note TEXT NOT NULL)`
          // Far longer than the guard: only a cancel ends it in time.
          const slow = yield* Effect.forkChild(sql`INSERT INTO notes SELECT 'slow' FROM pg_sleep(60)`)
          yield* settle(sleeping)
          yield* Fiber.interrupt(slow)
          const notes = yield* within(sql<{ readonly note: string }>`SELECT note FROM notes`)
          expect(notes).toEqual([])
        }).pipe(Effect.provide(Engine.layerSql().pipe(Layer.provideMerge(poolOn(url, 2)))))
      })
  )

  it.effect(
    "a transaction of the store on its one connection holds it: another fiber's statement is not rolled back with it",
    () =>
      Effect.gen(function* () {
        const { url } = yield* ownDatabase("durable_owner")
        yield* Effect.gen(function* () {
          const sql = yield* storeClient
          yield* sql`CREATE TABLE notes (note TEXT NOT NULL)`
          const inside = yield* Deferred.make<void>()
          const transaction = yield* Effect.forkChild(
            sql.withTransaction(
              Effect.gen(function* () {
                yield* sql`INSERT INTO notes VALUES ('rolled back')`
                yield* Deferred.succeed(inside, undefined)
                // Give the other fiber's statement every chance to run while the transaction is open.
                yield* Effect.yieldNow
                return yield* Effect.fail("roll back")
              })
            )
          )
          yield* Deferred.await(inside)
          yield* sql`INSERT INTO notes VALUES ('kept')`
          yield* Fiber.await(transaction)
          const notes = yield* sql<{ readonly note: string }>`SELECT note FROM notes`
          expect(notes.map(({ note }) => note)).toEqual(["kept"])
        }).pipe(Effect.provide(Engine.layerSql().pipe(Layer.provideMerge(poolOn(url, 1)))))
      })
  )
})
