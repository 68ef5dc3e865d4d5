/**
 * The Postgres advisory lock of `Engine.layerSql` lost while the owner lives: the owner must notice
 * before it starts a run.
 */
import { DurableSessions, Engine } from "@agent-kernel/durable"
import { Settings } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import { ownDatabase, pgLayer } from "../../cluster/test/postgres.js"

const engineOn = (url: string) =>
  Engine.layerSql().pipe(Layer.provideMerge(PgClient.layer({ url: Redacted.make(url), maxConnections: 2 })))

describe("Engine.layerSql's Postgres lock", () => {
  it.effect("the owner's lock connection dies: the owner stops writing, or a second process is still refused", () =>
    Effect.gen(function* () {
      const { url, name } = yield* ownDatabase("durable_fixes2")
      const first = yield* Scope.make()
      const owner = yield* Layer.buildWithScope(engineOn(url), first)
      // The server ends the lock's session (a restart, idle_session_timeout, a network cut, pg_terminate_backend).
      yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql.unsafe(
          `SELECT pg_terminate_backend(l.pid) FROM pg_locks l JOIN pg_database d ON d.oid = l.database
           WHERE l.locktype = 'advisory' AND l.granted AND d.datname = '${name}'`
        )
      ).pipe(Effect.provide(pgLayer()), Effect.scoped)
      // The owner goes on: its pool hands out other connections, nothing noticed the lock is gone.
      const model = yield* ScriptedModel.make([ScriptedModel.text("still writing")])
      const ownerWrites = yield* Effect.exit(
        Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.run("s", "go")).pipe(
          Effect.provide(
            DurableSessions.layer({ model: "m", settings: Settings.defaults }).pipe(
              Layer.provide(Layer.succeedContext(owner)),
              Layer.provide(model.layer)
            )
          ),
          Effect.scoped
        )
      )
      const second = yield* Effect.exit(Effect.scoped(Layer.build(engineOn(url))))
      // Split brain: both at once must never be true.
      expect(
        Exit.isSuccess(ownerWrites) && Exit.isSuccess(second),
        "the owner ran a run without its lock while a second process took the store"
      ).toBe(false)
      yield* Scope.close(first, Exit.void)
    })
  )
})
