/**
 * The journal reads the store's client (`Store.StoreSql`) from the context it captured
 * (`Store.storeSqlIn`): under `Engine.layerSql` on Postgres a tool call's
 * claim in `agent_tool_calls` runs on the lock's connection like every other statement of the
 * store. OwnerLock's one-connection run has no tool call, so no test read the journal's client:
 * with a pool of one connection (the lock's), a claim sent over the pool waits for ever.
 */
import { DurableSessions, Engine } from "@agent-kernel/durable"
import { Content, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { ownDatabase } from "../../cluster/test/postgres.js"

const echo: Toolbox.Service = {
  definitions: Effect.succeed([]),
  invoke: (call) => Effect.succeed(Content.toolResult(call.id, JSON.stringify(call.input)))
}

describe("Engine.layerSql's journal on the lock's connection", () => {
  // Live: a real server; the bound only turns a hang (a statement queued behind the lock's
  // connection) into a failure well inside the test's timeout, and is far above a run's time.
  it.live("a pool of one connection runs a tool call's claim: the journal's statements use the lock's", () =>
    Effect.gen(function* () {
      const { url } = yield* ownDatabase("durable_deps9")
      const model = yield* ScriptedModel.make([
        ScriptedModel.toolCalls({ id: "a", name: "echo", input: 1 }),
        ScriptedModel.text("done")
      ])
      const outcome = yield* Effect.flatMap(DurableSessions.DurableSessions, (all) => all.run("s", "go")).pipe(
        Effect.provide(
          DurableSessions.layer({ model: "m", settings: Settings.defaults }).pipe(
            Layer.provideMerge(
              Engine.layerSql().pipe(Layer.provideMerge(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })))
            ),
            Layer.provide(model.layer),
            Layer.provide(Toolbox.layer(echo))
          )
        ),
        Effect.scoped,
        Effect.timeoutOrElse({
          duration: "20 seconds",
          orElse: () => Effect.fail("hung: a statement waited for the pool")
        })
      )
      expect(outcome.status).toBe("completed")
      expect(outcome.turns).toBe(2)
    })
  )
})
