/**
 * On Postgres, a reader with no engine (another process's pool) tells whether a live process holds a
 * session's unfinished run by the store's advisory lock: live while an engine owns the store, resumable
 * once it is gone. Real Postgres (the run's throwaway server).
 */
import { DurableSessions, Engine } from "@agent-kernel/durable"
import { type ModelProvider, Settings } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import { ownDatabase } from "../../cluster/test/postgres.js"

const pool = (url: string) => PgClient.layer({ url: Redacted.make(url), maxConnections: 3 })

describe("an unfinished run's liveness on Postgres", () => {
  it.live("live while an engine owns the store, resumable once its process is gone", () =>
    Effect.gen(function* () {
      const { url } = yield* ownDatabase("durable_status_pg")
      const model = yield* ScriptedModel.make([() => Effect.never as Effect.Effect<ModelProvider.ModelResponse>])
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        DurableSessions.layer({ model: "m", settings: Settings.defaults }).pipe(
          Layer.provideMerge(Engine.layerSql().pipe(Layer.provide(pool(url)))),
          Layer.provide(model.layer)
        ),
        scope
      )
      yield* Effect.forkDetach(
        Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.run("s", "go")).pipe(
          Effect.provide(context)
        )
      )
      yield* Effect.repeat(model.calls, {
        until: (calls) => calls.length >= 1,
        schedule: Schedule.spaced(Duration.millis(20))
      }).pipe(Effect.timeout("30 seconds"))
      const shape = (listed: ReadonlyArray<DurableSessions.Summary>) =>
        listed.map((s) => [s.id, s.unfinished, s.live, s.resumable])
      const whileOwned = yield* DurableSessions.summaries.pipe(Effect.provide(pool(url)))
      expect(shape(whileOwned)).toEqual([["s", true, true, false]])
      yield* Scope.close(scope, Exit.void)
      const afterwards = yield* DurableSessions.summaries.pipe(Effect.provide(pool(url)))
      expect(shape(afterwards)).toEqual([["s", true, false, true]])
    })
  )
})
