/**
 * `Engine.layerSql` on Postgres owns the store like `layerSqlite` owns its file; and the light engine's SQL (a durable wait's deadline and
 * wake-up) runs on Postgres. Two engines over their own pools stand for two processes
 * (each pool is a session of the server, as each process's would be). The throwaway database is the
 * run's (packages/cluster/test/postgres.setup.ts); this file works in its own database in it.
 */
import { DurableSessions, Engine } from "@agent-kernel/durable"
import { Settings } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import * as TestClock from "effect/testing/TestClock"
import { ownDatabase } from "../../cluster/test/postgres.js"
import { settle } from "./eventLoop.js"

const engineOn = (url: string) =>
  Engine.layerSql().pipe(Layer.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 2 })))

describe("Engine.layerSql on Postgres", () => {
  it.effect("a second process on the same database gets a StoreError (locked) until the first closes", () =>
    Effect.gen(function* () {
      const { url } = yield* ownDatabase("durable_light_pg")
      const first = yield* Scope.make()
      yield* Layer.buildWithScope(engineOn(url), first)
      const refused = yield* Effect.flip(Effect.scoped(Layer.build(engineOn(url))))
      if (refused._tag !== "StoreError") return expect.fail(`expected a StoreError, got ${refused.message}`)
      expect(refused.locked).toBe(true)
      expect(refused.message).toMatch(/in use by another process/)
      // Released with the owner's scope (its connection back in the pool, unlocked): the next one opens it.
      yield* Scope.close(first, Exit.void)
      yield* Effect.scoped(Layer.build(engineOn(url)))
    })
  )

  it.effect("a run with a durable retry wait completes on the light engine over Postgres", () =>
    Effect.gen(function* () {
      const { url } = yield* ownDatabase("durable_light_pg")
      const model = yield* ScriptedModel.make([
        ScriptedModel.rateLimited({ retryAfterMs: 1_500 }),
        ScriptedModel.text("done")
      ])
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const sql = yield* SqlClient.SqlClient
        const status = Effect.map(
          sql<{ readonly status: string }>`SELECT status FROM workflow_executions`,
          (rows) => rows[0]?.status
        )
        const run = yield* Effect.forkChild(sessions.run("s", "go"))
        yield* settle(
          Effect.map(status, (status) => status === "suspended"),
          20_000
        )
        yield* TestClock.adjust("2 seconds")
        yield* settle(
          Effect.map(status, (status) => status === "complete"),
          20_000
        )
        // The caller learns of the end at its next poll of the suspended run.
        yield* TestClock.adjust("1 second")
        const outcome = yield* Fiber.join(run)
        expect(outcome.status).toBe("completed")
        expect(outcome.retries.session_total).toBe(1)
        const deferreds = yield* sql<{ readonly name: string }>`SELECT name FROM workflow_deferreds`
        expect(deferreds.length).toBe(1)
      }).pipe(
        Effect.provide(
          DurableSessions.layer({ model: "m", settings: { ...Settings.defaults, jitter: "none" } }).pipe(
            Layer.provideMerge(engineOn(url)),
            Layer.provide(model.layer)
          )
        ),
        Effect.scoped
      )
    })
  )
})
