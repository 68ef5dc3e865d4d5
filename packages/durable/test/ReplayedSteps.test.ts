/**
 * A completed step is never performed again, on a real SQLite file and the light engine (which
 * journals a step itself, not as an `Activity`): a tool call is named by its place in the model's
 * response, not by the order concurrent calls start in, and a result the journal cannot encode
 * ends the run rather than leave it to be performed again on every resume.
 */
import { DurableSessions, Engine } from "@agent-kernel/durable"
import { Content, EventBus, type ModelProvider, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import * as SqlClient from "effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Result from "effect/Result"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const settings: Settings.Settings = { ...Settings.defaults, jitter: "none" }

const store = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "replayed-steps-")), "agent.db")

const processOn = (
  file: string,
  model: ScriptedModel.ScriptedModel,
  toolbox: Toolbox.Service,
  bus: EventBus.Service = EventBus.silent,
  toolConcurrency = 1
) =>
  DurableSessions.layer({ model: "m", settings, toolConcurrency }).pipe(
    Layer.provideMerge(Engine.layerSqlite(file)),
    Layer.provide(model.layer),
    Layer.provide(Toolbox.layer(toolbox)),
    Layer.provide(Layer.succeed(EventBus.EventBus, bus))
  )

/** Starts `sessions.run(id, input)` on `layer`; the returned effect stops the engine under it as a dying process would. */
const crashable = <E>(layer: Layer.Layer<DurableSessions.DurableSessions, E>, id: string, input: string) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(layer, scope)
    // A daemon, never interrupted: the caller of a dead process does not end its run (that would be Ctrl-C).
    yield* Effect.forkDetach(
      Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.run(id, input)).pipe(
        Effect.provide(context)
      )
    )
    return Scope.close(scope, Exit.void)
  })

/** Real time passes here (real SQLite I/O under the engine); the bound is generous, never reached when the run works. */
const until = <A>(check: Effect.Effect<A>, done: (a: A) => boolean) =>
  Effect.repeat(check, { until: done, schedule: Schedule.spaced(Duration.millis(20)) }).pipe(
    Effect.timeoutOrElse({ duration: Duration.seconds(30), orElse: () => Effect.fail(new Error("timed out waiting")) })
  )

const hang: ScriptedModel.Step = () => Effect.never as Effect.Effect<ModelProvider.ModelResponse>

describe("replayed steps", () => {
  it.live(
    "concurrent tool calls: a completed call is not invoked again after a restart, whatever order the calls started in",
    () =>
      Effect.gen(function* () {
        const file = store()
        const invoked: Array<string> = []
        const bInvoked = yield* Deferred.make<void>()
        const toolbox: Toolbox.Service = {
          definitions: Effect.succeed([]),
          invoke: (call) =>
            Effect.suspend(() => {
              invoked.push(call.id)
              return Effect.as(
                call.id === "b" ? Deferred.succeed(bInvoked, undefined) : Effect.void,
                Content.toolResult(call.id, `did ${call.id}`)
              )
            })
        }
        // An observer that takes its time over one event (a webhook, a slow sink): the call "a" starts after "b".
        const slowObserver = EventBus.of([
          {
            onEvent: (event) =>
              event.type === "tool_call_started" && event.id === "a" ? Deferred.await(bInvoked) : Effect.void
          }
        ])
        const script = [
          ScriptedModel.toolCalls({ id: "a", name: "write", input: 1 }, { id: "b", name: "write", input: 2 }),
          hang
        ]
        const first = yield* ScriptedModel.make(script)
        const crash = yield* crashable(processOn(file, first, toolbox, slowObserver, 2), "s", "go")
        // Both calls completed (and were journaled) before the second model call began.
        yield* until(first.calls, (calls) => calls.length >= 2)
        yield* crash
        expect(invoked).toEqual(["b", "a"])

        const second = yield* ScriptedModel.make([ScriptedModel.text("done")])
        const resumed = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.resume("s")).pipe(
          Effect.provide(processOn(file, second, toolbox, EventBus.silent, 2)),
          Effect.scoped
        )
        const run = Option.getOrThrow(resumed)
        expect(run.status).toBe("completed")
        // Each completed call ran once: the replay must find its journaled result (and its claim).
        expect(invoked).toEqual(["b", "a"])
      })
  )

  it.live(
    "a model response the journal cannot encode is not sent again: it is the step's defect, and the run ends failed",
    () =>
      Effect.gen(function* () {
        const file = store()
        const toolbox: Toolbox.Service = {
          definitions: Effect.succeed([]),
          invoke: (call) => Effect.succeed(Content.toolResult(call.id, "ok"))
        }
        // A tool input JSON cannot hold (a provider that parses big integers losslessly, say): the step's
        // result encodes by its schema (the input is \`unknown\`) but not to JSON.
        const first = yield* ScriptedModel.make([
          ScriptedModel.toolCalls({ id: "a", name: "w", input: { n: 10n ** 20n } })
        ])
        const ran = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) =>
          Effect.result(sessions.run("s", "go"))
        ).pipe(Effect.provide(processOn(file, first, toolbox)), Effect.scoped)
        const outcome = Result.getOrThrow(ran)
        expect(outcome.status).toBe("failed")
        expect(outcome.error?.message).toContain('cannot journal the result of the step "model/1/1"')
        // Effect 4's JSON codec refuses the bigint before JSON.stringify would (whose message named BigInt).
        expect(outcome.error?.message).toContain("Expected JSON value")
        const second = yield* ScriptedModel.make([
          ScriptedModel.toolCalls({ id: "a", name: "w", input: { n: 10n ** 20n } })
        ])
        const resumed = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) =>
          Effect.result(sessions.resume("s"))
        ).pipe(Effect.provide(processOn(file, second, toolbox)), Effect.scoped)
        // The model answered once; that answer is never asked for again.
        expect(
          (yield* first.calls).length + (yield* second.calls).length,
          `run: ${JSON.stringify(ran).slice(0, 300)}, resume: ${JSON.stringify(resumed).slice(0, 300)}, calls: ${(yield* first.calls).length}+${(yield* second.calls).length}`
        ).toBe(1)
      })
  )
  it.live(
    "a tool call's number counts the run's calls that are run, in the model's order, as it did when calls were numbered as they started",
    () =>
      Effect.gen(function* () {
        const toolbox: Toolbox.Service = {
          definitions: Effect.succeed([]),
          invoke: (call) => Effect.succeed(Content.toolResult(call.id, "ok"))
        }
        // "x" is never run (its input is not JSON), so it takes no number, as before.
        const first: ModelProvider.ModelResponse = {
          ...ScriptedModel.toolCalls({ id: "a", name: "w" }, { id: "x", name: "w" }, { id: "c", name: "w" }),
          content: [
            Content.toolUse("a", "w", {}),
            { ...Content.toolUse("x", "w", {}), invalid_input: "{oops" },
            Content.toolUse("c", "w", {})
          ]
        }
        // The journal of a run stopped (as by a crash) before its last model call answered: a completed
        // run's journal is purged.
        const names = (toolConcurrency: number) =>
          Effect.gen(function* () {
            const file = store()
            const model = yield* ScriptedModel.make([first, ScriptedModel.toolCalls({ id: "d", name: "w" }), hang])
            const crash = yield* crashable(processOn(file, model, toolbox, EventBus.silent, toolConcurrency), "s", "go")
            yield* until(model.calls, (calls) => calls.length >= 3)
            yield* crash
            const rows = yield* Effect.flatMap(
              SqlClient.SqlClient,
              (sql) => sql<{ readonly name: string }>`SELECT name FROM workflow_activities WHERE name LIKE 'tool/%'`
            ).pipe(Effect.provide(Engine.layerSqliteStore(file)))
            return rows.map((row) => row.name).sort()
          })
        // A journal written when calls were numbered as they started (one after the other) names them so.
        expect(yield* names(1)).toEqual(["tool/1/1/a", "tool/1/2/c", "tool/2/3/d"])
        expect(yield* names(3)).toEqual(["tool/1/1/a", "tool/1/2/c", "tool/2/3/d"])
      })
  )
})
