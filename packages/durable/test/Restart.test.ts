/**
 * Durable sessions over a real SQLite file on the cluster engine: the process's engine is torn
 * down in the middle of a run and a new one on the same file finishes it from the journal.
 */
import { AgentRun, DurableSessions, Engine } from "@agent-kernel/durable"
import { Content, type ModelProvider, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const settings: Settings.Settings = {
  ...Settings.defaults,
  jitter: "none",
  max_session_retries: 3,
  session_retries_refill: false
}

const store = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "durable-restart-")), "agent.db")

const processOn = (file: string, model: ScriptedModel.ScriptedModel, toolbox: Toolbox.Service = Toolbox.empty) =>
  DurableSessions.layer({ model: "m", settings }).pipe(
    Layer.provideMerge(Engine.layerSqlite(file)),
    Layer.provide(model.layer),
    Layer.provide(Toolbox.layer(toolbox))
  )

/**
 * Starts `sessions.run(id, input)` on an engine over `file`, and returns a `crash` that stops the
 * engine under it (as a dying process would) without the caller deciding to end the run.
 */
const crashable = <A, E>(layer: Layer.Layer<A | DurableSessions.DurableSessions, E>, id: string, input: string) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(layer, scope)
    // A daemon, never interrupted: the caller of a dead process does not decide to end its run
    // (interrupting it would be a Ctrl-C, which ends the run `interrupted`).
    yield* Effect.forkDetach(
      Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.run(id, input)).pipe(
        Effect.provide(context)
      )
    )
    return Scope.close(scope, Exit.void)
  })

/** Real time passes here: the engine under test runs on real processes' clocks. The bound is generous. */
const until = <A>(check: Effect.Effect<A>, done: (a: A) => boolean) =>
  Effect.repeat(check, { until: done, schedule: Schedule.spaced(Duration.millis(20)) }).pipe(
    Effect.timeoutOrElse({ duration: Duration.seconds(30), orElse: () => Effect.fail(new Error("timed out waiting")) })
  )

const rateLimited = ScriptedModel.rateLimited({ retryAfterMs: 10 })
const hang: ScriptedModel.Step = () => Effect.never as Effect.Effect<ModelProvider.ModelResponse>

describe("durable sessions on a SQLite file", () => {
  it.live(
    "the session budget is never reset by a restart: a session that spent one retry, one more, a restart, exactly one more",
    () =>
      Effect.gen(function* () {
        const file = store()
        // The session's first run spends one retry of its budget of three, and ends.
        const earlier = yield* ScriptedModel.make([rateLimited, ScriptedModel.text("one")])
        const first = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) =>
          sessions.run("s", "first")
        ).pipe(Effect.provide(processOn(file, earlier)), Effect.scoped)
        expect(first.retries.session_total).toBe(1)
        // Its second run spends another, then its process dies with a call in flight.
        const crashed = yield* ScriptedModel.make([rateLimited, hang])
        const crash = yield* crashable(processOn(file, crashed), "s", "second")
        yield* until(crashed.calls, (calls) => calls.length >= 2)
        yield* crash

        const second = yield* ScriptedModel.make([rateLimited, rateLimited, rateLimited])
        const outcome = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) =>
          Effect.zip(sessions.resume("s"), sessions.list)
        ).pipe(Effect.provide(processOn(file, second)), Effect.scoped)
        const [resumed, listed] = outcome
        expect(Option.isSome(resumed)).toBe(true)
        const run = Option.getOrThrow(resumed)
        expect(run.status).toBe("retry_budget_exhausted")
        expect(run.retries.session_total).toBe(3)
        // The call in flight was sent again (it never completed), and one more: the budget had one retry left.
        expect((yield* second.calls).length).toBe(2)
        expect(listed.map((s) => [s.id, s.status, s.retries_used])).toEqual([["s", "retry_budget_exhausted", 3]])
        expect(run.history.map((message) => message.role)).toEqual(["user", "assistant", "user"])
      })
  )

  it.live("a tool call in flight is answered 'unknown' and not run again; a completed one is not run again", () =>
    Effect.gen(function* () {
      const file = store()
      const invoked: Array<string> = []
      const tools = (hangOn: string): Toolbox.Service => ({
        definitions: Effect.succeed([]),
        invoke: (call) =>
          Effect.suspend(() => {
            invoked.push(call.id)
            return call.id === hangOn ? Effect.never : Effect.succeed(Content.toolResult(call.id, `did ${call.id}`))
          })
      })
      const script = [
        ScriptedModel.toolCalls({ id: "a", name: "write", input: 1 }, { id: "b", name: "write", input: 2 }),
        ScriptedModel.text("done")
      ]
      const first = yield* ScriptedModel.make(script)
      const crash = yield* crashable(processOn(file, first, tools("b")), "s", "go")
      yield* until(
        Effect.sync(() => invoked.length),
        (n) => n >= 2
      )
      yield* crash
      const second = yield* ScriptedModel.make(script.slice(1))
      const resumed = yield* Effect.flatMap(DurableSessions.DurableSessions, (sessions) => sessions.resume("s")).pipe(
        Effect.provide(processOn(file, second, tools("none"))),
        Effect.scoped
      )
      const run = Option.getOrThrow(resumed)
      expect(run.status).toBe("completed")
      expect(invoked).toEqual(["a", "b"])
      const results = run.history.flatMap((message) =>
        message.content.flatMap((block) => (block.type === "tool_result" ? [block] : []))
      )
      expect(results.map((result) => [result.tool_use_id, result.is_error])).toEqual([
        ["a", false],
        ["b", true]
      ])
      expect(results[1]!.content).toMatch(/unknown whether the tool finished/)
    })
  )

  it.live("a durable wait suspends the run without releasing the toolbox's plugins; a stopped run releases them", () =>
    Effect.gen(function* () {
      const file = store()
      let released = 0
      // On a runner the toolbox's plugin processes are shared by every session: releasing them when one
      // run merely waits would fail the other sessions' calls in flight.
      const shared: Toolbox.Service = {
        definitions: Effect.succeed([]),
        invoke: (call) => Effect.succeed(Content.toolResult(call.id, "ok")),
        onRunInterrupted: Effect.sync(() => {
          released++
        })
      }
      const model = yield* ScriptedModel.make([
        rateLimited,
        ScriptedModel.toolCalls({ id: "a", name: "write", input: 1 }),
        rateLimited,
        ScriptedModel.text("done"),
        hang
      ])
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const outcome = yield* sessions.run("s", "go")
        expect(outcome.status).toBe("completed")
        expect(outcome.retries.session_total).toBe(2)
        expect(released).toBe(0)
        // A run its caller stops (Ctrl-C) is interrupted: what it left running is released.
        const fiber = yield* Effect.forkChild(sessions.run("s", "again"))
        yield* until(model.calls, (calls) => calls.length >= 5)
        yield* Fiber.interrupt(fiber)
        expect(released).toBe(1)
      }).pipe(Effect.provide(processOn(file, model, shared)), Effect.scoped)
    })
  )

  it.live("delete removes the session's journal rows with it, and leaves other sessions' rows", () =>
    Effect.gen(function* () {
      const file = store()
      const echo: Toolbox.Service = {
        definitions: Effect.succeed([]),
        invoke: (call) => Effect.succeed(Content.toolResult(call.id, "ok"))
      }
      const model = yield* ScriptedModel.make([
        rateLimited,
        ScriptedModel.toolCalls({ id: "a", name: "write", input: 1 }),
        ScriptedModel.text("one"),
        ScriptedModel.text("two"),
        ScriptedModel.text("kept")
      ])
      const tables = [
        "workflow_executions",
        "workflow_activities",
        "workflow_clocks",
        "workflow_deferreds",
        "agent_tool_calls"
      ] as const
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const sql = yield* SqlClient.SqlClient
        const rows = Effect.forEach(tables, (table) =>
          Effect.map(sql<{ readonly execution_id: string }>`SELECT execution_id FROM ${sql(table)}`, (rows) =>
            rows.map((row) => row.execution_id)
          )
        )
        yield* sessions.run("s", "first")
        yield* sessions.run("s", "second")
        yield* sessions.run("k", "other")
        const [life] = yield* sql<{ readonly life: string }>`SELECT life FROM agent_sessions WHERE id = 'k'`
        const kept = yield* AgentRun.AgentRun.executionId({
          session_id: "k",
          life: life!.life,
          run: 1,
          input: Content.userText("other")
        })
        const before = yield* rows
        // Every table holds rows of the deleted session: the retry wait's clock and wake-up, the tool's claim.
        for (const [i, table] of tables.entries())
          expect(
            before[i]!.some((id) => id !== kept),
            `${table} holds no row of the session to delete`
          ).toBe(true)
        yield* sessions.delete("s")
        const after = yield* rows
        for (const [i, table] of tables.entries())
          expect(after[i], `${table} after the delete`).toEqual(before[i]!.filter((id) => id === kept))
        expect((yield* sessions.list).map((session) => session.id)).toEqual(["k"])
      }).pipe(Effect.provide(processOn(file, model, echo)), Effect.scoped)
    })
  )

  it.live("on the cluster engine a run's steps are journaled rows beside the engine's, and delete removes them", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([
        ScriptedModel.toolCalls({ id: "a", name: "write", input: 1 }),
        ScriptedModel.text("done")
      ])
      const echo: Toolbox.Service = {
        definitions: Effect.succeed([]),
        invoke: (call) => Effect.succeed(Content.toolResult(call.id, "ok"))
      }
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const sql = yield* SqlClient.SqlClient
        const steps = Effect.map(
          sql<{ readonly name: string }>`SELECT name FROM workflow_activities ORDER BY name`,
          (rows) => rows.map((row) => row.name)
        )
        const outcome = yield* sessions.run("s", "go")
        expect(outcome.status).toBe("completed")
        expect(yield* steps).toEqual(["end", "model/1/1", "model/2/1", "start", "tool/1/1/a"])
        yield* sessions.delete("s")
        expect(yield* steps).toEqual([])
      }).pipe(
        Effect.provide(
          DurableSessions.layer({ model: "m", settings }).pipe(
            Layer.provideMerge(Engine.layerClusterSqlite(store())),
            Layer.provide(model.layer),
            Layer.provide(Toolbox.layer(echo))
          )
        ),
        Effect.scoped
      )
    })
  )
})
