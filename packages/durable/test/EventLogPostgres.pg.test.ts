/**
 * The event log on Postgres: the light engine over `Engine.layerSql`, a process (its own pool) torn
 * down mid-run and a second one resuming it; the log goes on with the next number, no event twice,
 * and a reader on a third pool (another process, no engine) follows it. Real Postgres (the run's
 * throwaway server, packages/cluster/test/postgres.setup.ts); real time with generous bounds.
 */
import { DurableSessions, Engine, EventLog } from "@agent-kernel/durable"
import { Content, type KernelEvent, type ModelProvider, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { ownDatabase } from "../../cluster/test/postgres.js"

const settings: Settings.Settings = { ...Settings.defaults, jitter: "none" }

const pool = (url: string) => PgClient.layer({ url: Redacted.make(url), maxConnections: 3 })

const echo: Toolbox.Service = {
  definitions: Effect.succeed([]),
  invoke: (call) => Effect.succeed(Content.toolResult(call.id, "ok"))
}

const processOn = (url: string, model: ScriptedModel.ScriptedModel) =>
  DurableSessions.layer({ model: "m", settings }).pipe(
    Layer.provideMerge(Engine.layerSql().pipe(Layer.provide(pool(url)))),
    Layer.provide(model.layer),
    Layer.provide(Toolbox.layer(echo))
  )

const until = <A, E>(check: Effect.Effect<A, E>, done: (a: A) => boolean) =>
  Effect.repeat(check, { until: done, schedule: Schedule.spaced(Duration.millis(20)) }).pipe(
    Effect.timeoutOrElse({ duration: Duration.seconds(30), orElse: () => Effect.die(new Error("timed out waiting")) })
  )

const hang: ScriptedModel.Step = () => Effect.never as Effect.Effect<ModelProvider.ModelResponse>

const shape = (event: KernelEvent.KernelEvent) =>
  `${event.type}${"turn" in event ? `/${event.turn}` : ""}${"id" in event ? `:${event.id}` : ""}`

describe("the event log on Postgres", () => {
  it.live(
    "a crashed run resumed by a second process goes on with the next number; a reader on its own pool follows it",
    () =>
      Effect.gen(function* () {
        const { url } = yield* ownDatabase("durable_event_log_pg")
        const first = yield* ScriptedModel.make([ScriptedModel.toolCalls({ id: "a", name: "echo", input: 1 }), hang])
        const scope = yield* Scope.make()
        const context = yield* Layer.buildWithScope(processOn(url, first), scope)
        yield* Effect.forkDetach(
          Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.run("s", "go")).pipe(
            Effect.provide(context)
          )
        )
        yield* until(first.calls, (calls) => calls.length >= 2)
        // A crash loses what its writer had not written yet, and the resume logs again only the keyed events (not
        // the tool_use_started the first call streamed): the crash comes once the log holds what the run waits on.
        yield* until(EventLog.events("s").pipe(Effect.provide(pool(url))), (logged) =>
          logged.some((entry) => entry.event.type === "model_request" && entry.event.turn === 2)
        )
        // A reader of its own (another process's pool, no engine) follows the session from the start.
        const reader = yield* Effect.forkChild(
          Stream.runCollect(
            Stream.takeUntil(
              EventLog.follow("s", { pollInterval: "50 millis" }),
              (entry) => entry.event.type === "run_ended"
            )
          ).pipe(Effect.provide(pool(url)))
        )
        yield* Scope.close(scope, Exit.void)
        const cut = yield* EventLog.events("s").pipe(Effect.provide(pool(url)))
        // The crash's interruption is no end of the run: the log does not say the run ended.
        expect(cut.map((entry) => entry.event.type)).not.toContain("run_ended")

        const next = yield* ScriptedModel.make([ScriptedModel.text("done")])
        const outcome = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.resume("s")).pipe(
          Effect.provide(processOn(url, next)),
          Effect.scoped
        )
        const followed = yield* Fiber.join(reader).pipe(Effect.timeout("30 seconds"))
        const logged = yield* EventLog.events("s").pipe(Effect.provide(pool(url)))
        expect(followed).toEqual(logged)
        expect(logged.map((entry) => entry.seq)).toEqual(Array.from({ length: logged.length }, (_, i) => i + 1))
        expect(logged.slice(0, cut.length)).toEqual(cut)
        expect(logged.map((entry) => shape(entry.event))).toEqual([
          "run_started",
          "turn_started/1",
          "model_request/1",
          "tool_use_started/1:a",
          "model_response/1",
          "tool_call_started/1:a",
          "tool_result/1:a",
          "turn_ended/1",
          "turn_started/2",
          "model_request/2",
          "text_delta/2",
          "model_response/2",
          "turn_ended/2",
          "run_ended"
        ])
        const ended = logged[logged.length - 1]!.event
        expect(ended.type === "run_ended" && ended.status).toBe(outcome._tag === "Some" && outcome.value.status)
        const runs = yield* EventLog.runs("s").pipe(Effect.provide(pool(url)))
        expect(runs.map((run) => [run.run_id, run.status, run.first_seq, run.last_seq])).toEqual([
          ["s/run-1", "completed", 1, logged.length]
        ])
      })
  )
})
