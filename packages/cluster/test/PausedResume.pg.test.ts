/**
 * A paused run resumed by the cluster on the schedule the user set: `on_exhausted: "pause"` with
 * `pause_resume_after_ms` gives a paused run a `resume_at`, and a runner over the same Postgres
 * (`Runner.layer`, `resumePausedEvery`) resumes it once that has come: the run goes on from its
 * pause with nothing completed sent again, and completes.
 */
import { DurableSessions } from "@agent-kernel/durable"
import { Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Runner from "../src/Runner.js"
import * as Ports from "../src/testing/Ports.js"
import * as Runners from "./runners.js"

const settings: Settings.Settings = {
  ...Settings.defaults,
  jitter: "none",
  base_delay_ms: 1,
  max_retries: 1,
  on_exhausted: "pause",
  pause_resume_after_ms: 1_500
}

/** Durable sessions on a runner of this process that looks for paused runs due every 200 ms. */
const runnerLayer = (url: string, model: ScriptedModel.ScriptedModel, overrides: Partial<Settings.Settings> = {}) =>
  Effect.map(Effect.orDie(Ports.free), (port) =>
    DurableSessions.layer({ model: "m", settings: { ...settings, ...overrides } }).pipe(
      Layer.provideMerge(Runner.layer({ host: "127.0.0.1", port, resumePausedEvery: "200 millis" })),
      Layer.provide(model.layer),
      Layer.provide(Toolbox.layer(Toolbox.empty)),
      Layer.provideMerge(Runners.clientOf(url))
    )
  )

const rateLimited = ScriptedModel.rateLimited({ retryAfterMs: 1 })

describe("a runner resumes the paused runs whose resume_at has come", () => {
  it.live(
    "a run paused with a resume_at goes on once it has come, on the runner, and completes, its budget carried over",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* Runners.freshStore("paused_resume")
          const model = yield* ScriptedModel.make([rateLimited, rateLimited, ScriptedModel.text("done")])
          const context = yield* Layer.build(yield* runnerLayer(store.url, model)).pipe(Effect.orDie)
          const sessions = Context.get(context, DurableSessions.DurableSessions)
          const paused = yield* sessions.run(`${store.database}-due`, "go")
          assert.strictEqual(paused.status, "paused")
          const [listed] = (yield* sessions.list).filter((session) => session.paused !== null)
          const pausedAt = listed?.paused?.paused_at ?? 0
          assert.strictEqual(listed?.paused?.resume_at, pausedAt + 1_500)
          // The runner resumes it once resume_at has come: one more call, which answers.
          const done = yield* Runners.pollUntil(
            sessions.list,
            (all) => all.some((session) => session.status === "completed"),
            "100 millis"
          ).pipe(Effect.timeout(Duration.seconds(60)))
          const [completed] = done
          assert.strictEqual(completed?.status, "completed")
          assert.isNull(completed?.paused ?? null)
          assert.strictEqual((yield* model.calls).length, 3)
          const events = yield* sessions.events(`${store.database}-due`)
          const resumed = events.find((logged) => logged.event.type === "run_resumed")
          assert.isTrue(resumed !== undefined && resumed.event.at >= pausedAt + 1_500)
          const state = Option.getOrThrow(yield* sessions.state(`${store.database}-due`))
          assert.strictEqual(state.budget.used, 1)
        })
      ),
    120_000
  )
})
