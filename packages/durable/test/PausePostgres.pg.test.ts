/**
 * A pause on the light engine over Postgres survives its process: the run, paused, is listed paused (not
 * resumable as a crash's) by the next process on the database, and that process's resume goes on from the
 * pause with nothing completed sent or run again. Two engines over their own pools stand for two
 * processes; this file works in its own database of the run's throwaway server.
 */
import { DurableSessions, Engine } from "@agent-kernel/durable"
import { Content, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import * as PgClient from "@effect/sql-pg/PgClient"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { ownDatabase } from "../../cluster/test/postgres.js"

const settings: Settings.Settings = {
  ...Settings.defaults,
  jitter: "none",
  base_delay_ms: 1,
  max_retries: 1,
  on_exhausted: "pause"
}

const rateLimited = ScriptedModel.rateLimited({ retryAfterMs: 1 })

/** A process's durable sessions on the database at `url`, its model `model`, its tool calls recorded in `invoked`. */
const processOn = (url: string, model: ScriptedModel.ScriptedModel, invoked: Array<string>) =>
  DurableSessions.layer({ model: "m", settings }).pipe(
    Layer.provideMerge(
      Engine.layerSql().pipe(Layer.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 2 })))
    ),
    Layer.provide(model.layer),
    Layer.provide(
      Toolbox.layer({
        definitions: Effect.succeed([]),
        invoke: (call) =>
          Effect.sync(() => {
            invoked.push(call.id)
            return Content.toolResult(call.id, `did ${call.id}`)
          })
      })
    )
  )

describe("a paused run on the light engine over Postgres", () => {
  it.live(
    "stays paused when its process ends, and the next process's resume goes on from the pause, nothing completed sent or run again",
    () =>
      Effect.gen(function* () {
        const { url } = yield* ownDatabase("durable_pause_pg")
        const invoked: Array<string> = []
        const first = yield* ScriptedModel.make([
          ScriptedModel.toolCalls({ id: "a", name: "write", input: 1 }),
          rateLimited,
          rateLimited
        ])
        const paused = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) =>
          sessions.run("s", "go")
        ).pipe(Effect.provide(processOn(url, first, invoked)), Effect.scoped)
        assert.strictEqual(paused.status, "paused")
        const second = yield* ScriptedModel.make([ScriptedModel.text("done")])
        const [listed, resumed, after] = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) =>
          Effect.all([sessions.list, sessions.resume("s"), sessions.list])
        ).pipe(Effect.provide(processOn(url, second, invoked)), Effect.scoped)
        assert.deepStrictEqual(
          listed.map((session) => [session.status, session.resumable, session.paused?.reason]),
          [["paused", false, "retries_exhausted"]]
        )
        const run = Option.getOrThrow(resumed)
        assert.strictEqual(run.status, "completed")
        assert.strictEqual(run.retries.session_total, 1)
        assert.strictEqual((yield* second.calls).length, 1)
        assert.deepStrictEqual(invoked, ["a"])
        assert.deepStrictEqual(
          after.map((session) => [session.status, session.paused]),
          [["completed", null]]
        )
      })
  )
})
