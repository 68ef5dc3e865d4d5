/**
 * A request that a runner read from the store but never delivered. Upstream's
 * SQL storage reads such a message again only ten minutes after its read
 * (see src/internal/redelivery.ts): the last results of one Scale.pg.test
 * run reached their callers ~650 s after the start, when every model call
 * had been answered within ~60 s. `Runner.layer` offers such a request again
 * after `rereadAfter`.
 *
 * The runner here is in this process, alone on a fresh store, and reads
 * again what is unprocessed 2 s after its read. The request stranded is a
 * retry wait's wake-up (a durable-clock request, due when the 429's
 * retry-after has passed), marked read before it is due, as the late read of
 * a previous holder of its shard leaves it.
 */
import { DurableSessions } from "@agent-kernel/durable"
import { Settings } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import * as Runner from "../src/Runner.js"
import * as Ports from "../src/testing/Ports.js"
import * as Runners from "./runners.js"

const settings: Settings.Settings = { ...Settings.defaults, jitter: "none" }

/**
 * The wake-up is due this long after the 429: the test marks it read well
 * before then (it waits only for the row to be written), so that the runner
 * cannot have read it first even on a loaded machine.
 */
const retryAfterMs = 15_000

/** Durable sessions on a runner of this process over a fresh store, once it holds every shard. */
const runnerWith = (
  model: ScriptedModel.ScriptedModel
): Effect.Effect<Context.Context<DurableSessions.DurableSessions | SqlClient.SqlClient>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const store = yield* Runners.freshStore("reread")
    const port = yield* Effect.orDie(Ports.free)
    const context = yield* Layer.build(
      DurableSessions.layer({ model: "m", settings }).pipe(
        Layer.provideMerge(Runner.layer({ host: "127.0.0.1", port, rereadAfter: "2 seconds" })),
        Layer.provide(model.layer),
        Layer.provideMerge(Runners.clientOf(store.url))
      )
    ).pipe(Effect.orDie)
    yield* Runners.settled(store, 1)
    return context
  })

describe("a request read but never delivered", () => {
  it.live(
    "is read again after rereadAfter: the run ends seconds after its wake-up is due, not ten minutes",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const model = yield* ScriptedModel.make([
            ScriptedModel.rateLimited({ retryAfterMs }),
            ScriptedModel.text("done")
          ])
          const context = yield* runnerWith(model)
          const sessions = Context.get(context, DurableSessions.DurableSessions)
          const sql = Context.get(context, SqlClient.SqlClient)
          const run = yield* Effect.forkChild(sessions.run("s", "go"))

          // The wake-up request, written when the run suspends on its retry wait.
          const wakeUps = sql<{ readonly id: string }>`SELECT id::text AS id FROM cluster_messages
            WHERE entity_type = 'Workflow/-/DurableClock' AND processed = false`
          yield* Runners.pollUntil(wakeUps, (rows) => rows.length > 0, "20 millis").pipe(
            Effect.timeoutOrElse({
              duration: "60 seconds",
              orElse: () => Effect.fail(new Error("the run never waited to retry"))
            })
          )
          // What a read of upstream's SqlMessageStorage does to the rows it returns (it sets last_read),
          // here by a reader that then drops it, as a runner does with a message of a shard it no longer holds.
          const stranded = yield* sql`UPDATE cluster_messages SET last_read = NOW()
            WHERE entity_type = 'Workflow/-/DurableClock' AND processed = false AND last_read IS NULL RETURNING id`
          assert.strictEqual(stranded.length, 1, "the runner read the wake-up before the test could strand it")

          // Without the re-read, the wake-up is read again ten minutes after the mark. With it, a few
          // seconds after it is due; the bound is generous for a real runner on a loaded machine.
          const outcome = yield* Fiber.join(run).pipe(
            Effect.timeoutOrElse({
              duration: "120 seconds",
              orElse: () => Effect.fail(new Error("the run was still waiting for its wake-up 120 s after it began"))
            })
          )
          assert.strictEqual(outcome.status, "completed")
          assert.strictEqual(outcome.final_text, "done")
          assert.strictEqual((yield* model.calls).length, 2)
        })
      ),
    300_000
  )

  it.live(
    "a request still being processed when it is read again is not run twice: a model call longer than rereadAfter is sent once",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          // The run's request stays unprocessed while its model call takes 10 s, five times rereadAfter:
          // it is read again meanwhile, and skipped as being processed (the call is a step of the run's
          // body, journaled by clusterSteps, not a request of its own).
          const model = yield* ScriptedModel.make([
            () => Effect.as(Effect.sleep("10 seconds"), ScriptedModel.text("slow"))
          ])
          const context = yield* runnerWith(model)
          const sessions = Context.get(context, DurableSessions.DurableSessions)
          const sql = Context.get(context, SqlClient.SqlClient)
          const run = yield* Effect.forkChild(sessions.run("s", "go"))
          yield* Runners.pollUntil(model.calls, (calls) => calls.length > 0, "20 millis")
          // The run's request, the only one in flight, and when the runner read it.
          const requests = yield* sql<{ readonly id: string; readonly read: string | null }>`
            SELECT id::text AS id, last_read::text AS read FROM cluster_messages
            WHERE processed = false AND kind = 0`
          assert.strictEqual(requests.length, 1, JSON.stringify(requests))
          const inFlight = requests[0]
          assert.isDefined(inFlight)
          assert.isNotNull(inFlight?.read)
          // Read again while the call is made: its mark is cleared, then set anew by the next read.
          yield* Runners.pollUntil(
            sql<{ readonly read: string | null }>`SELECT last_read::text AS read FROM cluster_messages
              WHERE id = ${inFlight?.id ?? ""}::bigint`,
            // A new mark, later than the first: cleared by the sweep and read again (a NULL alone would
            // show only the clearing, not the new read that skips it).
            (rows) => rows[0]?.read != null && inFlight?.read != null && rows[0].read > inFlight.read,
            "100 millis"
          ).pipe(
            Effect.timeoutOrElse({
              duration: "60 seconds",
              orElse: () => Effect.fail(new Error("the request in flight was never read again"))
            })
          )
          const outcome = yield* Fiber.join(run)
          assert.strictEqual(outcome.status, "completed")
          assert.strictEqual(outcome.final_text, "slow")
          assert.strictEqual((yield* model.calls).length, 1)
        })
      ),
    300_000
  )

  it.live("a rereadAfter under a second (the sweep would spin) is a RunnerError when the layer is built", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const store = yield* Runners.freshStore("reread_options")
        const port = yield* Effect.orDie(Ports.free)
        for (const rereadAfter of [0, "500 millis", -1] as const) {
          const built = yield* Layer.build(
            Runner.layer({ host: "127.0.0.1", port, rereadAfter }).pipe(Layer.provide(Runners.clientOf(store.url)))
          ).pipe(Effect.flip)
          assert.strictEqual(built._tag, "RunnerError")
          assert.include(built.message, "rereadAfter")
        }
      })
    )
  )
})
