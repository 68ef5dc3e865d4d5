/**
 * Durable sessions on the in-memory engine: a run through the journaled seam is the same run as
 * a plain session's, and a session carries its history and budget from run to run.
 */
import { DurableSessions, Engine } from "@agent-kernel/durable"
import { Content, type RunOutcome, Session, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel, TestClockDriver } from "@agent-kernel/kernel/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

const settings: Settings.Settings = { ...Settings.defaults, jitter: "none" }

const echo: Toolbox.Service = {
  definitions: Effect.succeed([]),
  invoke: (call) => Effect.succeed(Content.toolResult(call.id, JSON.stringify(call.input)))
}

const script = (): ReadonlyArray<ScriptedModel.Step> => [
  ScriptedModel.rateLimited({ retryAfterMs: 2_000 }),
  ScriptedModel.toolCalls({ id: "a", name: "echo", input: 1 }, { id: "b", name: "echo", input: 2 }),
  ScriptedModel.error("overloaded"),
  ScriptedModel.text("done")
]

const figures = (outcome: RunOutcome.RunOutcome) => ({
  status: outcome.status,
  turns: outcome.turns,
  retries: outcome.retries,
  history: outcome.history,
  final_text: outcome.final_text
})

describe("DurableSessions on the memory engine", () => {
  it.effect("a journaled run is the same run as a plain session's", () =>
    Effect.gen(function* () {
      const plainModel = yield* ScriptedModel.make(script())
      const plain = yield* Session.make({ id: "s", model: "m", settings }).pipe(
        Effect.provide(plainModel.layer),
        Effect.provideService(Toolbox.Toolbox, echo)
      )
      const expected = yield* TestClockDriver.run(plain.run("go"))

      const model = yield* ScriptedModel.make(script())
      const outcome = yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        return yield* TestClockDriver.run(sessions.run("s", "go"))
      }).pipe(
        Effect.provide(
          DurableSessions.layer({ model: "m", settings }).pipe(
            Layer.provideMerge(Engine.layerMemory),
            Layer.provide(model.layer),
            Layer.provide(Toolbox.layer(echo))
          )
        ),
        Effect.scoped
      )
      expect(figures(outcome)).toEqual(figures(expected))
      const calls = yield* model.calls
      // The retry-after was honoured on the clock: the second call came 2 s after the first.
      expect(calls[1]!.at - calls[0]!.at).toBe(2_000)
    })
  )

  it.effect("a session keeps its history and budget from run to run, and lists, exports and imports", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([
        ScriptedModel.rateLimited({ retryAfterMs: 1_000 }),
        ScriptedModel.text("one"),
        ScriptedModel.text("two")
      ])
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const first = yield* TestClockDriver.run(sessions.run("s", "first"))
        expect(first.status).toBe("completed")
        // No wait in this run: the TestClock is left alone (moving it to the first run's stale
        // timers races the memory engine's re-poll of a suspended execution).
        const second = yield* sessions.run("s", "second")
        expect(second.final_text).toBe("two")
        expect(second.retries.session_total).toBe(1)
        expect(second.history.map((message) => Content.textOf(message))).toEqual(["first", "one", "second", "two"])
        const [listed] = yield* sessions.list
        expect({ id: listed?.id, status: listed?.status, runs: listed?.runs, retries: listed?.retries_used }).toEqual({
          id: "s",
          status: "completed",
          runs: 2,
          retries: 1
        })
        const exported = yield* sessions.exportJson("s")
        yield* sessions.delete("s")
        expect(yield* sessions.list).toEqual([])
        expect(yield* sessions.importJson(exported)).toBe("s")
        const state = yield* sessions.state("s")
        expect(Option.map(state, (state) => state.history)).toEqual(Option.some(second.history))
        const invalid = yield* Effect.flip(sessions.importJson('{"format":"agent-kernel/session@1","id":"x"}'))
        expect(invalid._tag).toBe("InvalidExport")
      }).pipe(
        Effect.provide(
          DurableSessions.layer({ model: "m", settings }).pipe(
            Layer.provideMerge(Engine.layerMemory),
            Layer.provide(model.layer),
            Layer.provide(Toolbox.layer(echo))
          )
        ),
        Effect.scoped
      )
    })
  )
})
