/**
 * `AgentRun.StepGate`: every step of a run (its start, each model attempt, each tool call, its end)
 * passes the process's gate, with the step's execution and its journal write inside, on every engine:
 * the light engine and the cluster engine journal the steps themselves, the memory engine as
 * activities. A gate that holds a step keeps it from starting. Real SQLite files; time is the TestClock.
 */
import { AgentRun, DurableSessions, type Engine } from "@agent-kernel/durable"
import { Content, type ModelProvider, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Harness from "./engines.js"
import { settle, turns } from "./eventLoop.js"

const { engines } = Harness.make("durable-step-gate-")

/** DurableSessions on `engine` with `model` and `tools`, its runs' steps passing `gate`. */
const sessionsOn = (
  engine: Layer.Layer<Engine.Engine, Engine.StoreError>,
  model: ScriptedModel.ScriptedModel,
  tools: Layer.Layer<Toolbox.Toolbox>,
  gate: AgentRun.StepGate
) =>
  DurableSessions.layer({ model: "m", settings: Harness.settings }).pipe(
    Layer.provideMerge(engine),
    Layer.provide(model.layer),
    Layer.provide(tools),
    Layer.provide(Layer.succeed(AgentRun.StepGate, gate)),
    Layer.provideMerge(Harness.recordedClock)
  )

/** A gate that counts the steps it lets through, and how many are inside it now. */
const countingGate = (hold: (pass: number) => Effect.Effect<void> = () => Effect.void) => {
  const counts = { passes: 0, inside: 0 }
  const gate: AgentRun.StepGate = (step) =>
    Effect.acquireUseRelease(
      Effect.suspend(() => hold(++counts.passes)),
      () =>
        Effect.acquireUseRelease(
          Effect.sync(() => counts.inside++),
          () => step,
          () => Effect.sync(() => counts.inside--)
        ),
      () => Effect.void
    )
  return { counts, gate }
}

/** The steps seen inside the gate: a model step records "model", a tool call "tool", when the gate holds them. */
const observed = (counts: { readonly inside: number }, seen: Array<string>) => {
  const inGate = (what: string) => Effect.sync(() => seen.push(counts.inside > 0 ? what : `${what} outside the gate`))
  const answer =
    (response: ModelProvider.ModelResponse): ScriptedModel.Step =>
    () =>
      Effect.as(inGate("model"), response)
  const tools = Toolbox.layer({
    definitions: Effect.succeed([]),
    invoke: (call) => Effect.as(inGate("tool"), Content.toolResult(call.id, "booked"))
  })
  return { answer, tools }
}

describe("AgentRun.StepGate", () => {
  it.effect.each(engines)("$name: every model and tool step, the start and the end pass the gate", ({ engine }) =>
    Effect.gen(function* () {
      const { counts, gate } = countingGate()
      const seen: Array<string> = []
      const { answer, tools } = observed(counts, seen)
      const model = yield* ScriptedModel.make([
        answer(ScriptedModel.toolCalls({ id: "t1", name: "book" }, { id: "t2", name: "book" })),
        answer(ScriptedModel.text("Booked."))
      ])
      const outcome = yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        return yield* sessions.run("s", "book twice")
      }).pipe(Effect.provide(sessionsOn(engine(), model, tools, gate)))
      expect(outcome.status).toBe("completed")
      expect(seen).toEqual(["model", "tool", "tool", "model"])
      // The start, two model attempts, two tool calls, the end.
      expect(counts.passes).toBe(6)
      expect(counts.inside).toBe(0)
    })
  )

  it.effect.each(engines)("$name: a step the gate holds does not start until it lets it", ({ engine }) =>
    Effect.gen(function* () {
      const release = yield* Deferred.make<void>()
      // The third step: the tool call (after the start and the first model attempt).
      const { counts, gate } = countingGate((pass) => (pass === 3 ? Deferred.await(release) : Effect.void))
      const seen: Array<string> = []
      const { answer, tools } = observed(counts, seen)
      const model = yield* ScriptedModel.make([
        answer(ScriptedModel.toolCalls({ id: "t1", name: "book" })),
        answer(ScriptedModel.text("Booked."))
      ])
      yield* Effect.gen(function* () {
        const sessions = yield* DurableSessions.DurableSessions
        const run = yield* Effect.forkChild(sessions.run("s", "book"))
        yield* settle(Effect.sync(() => counts.passes === 3))
        yield* turns(50)
        expect(seen).toEqual(["model"])
        yield* Deferred.succeed(release, undefined)
        const outcome = yield* Fiber.join(run)
        expect(outcome.status).toBe("completed")
        expect(seen).toEqual(["model", "tool", "model"])
        expect(counts.passes).toBe(5)
      }).pipe(Effect.provide(sessionsOn(engine(), model, tools, gate)))
    })
  )
})
