/**
 * A tool call behaves the same whether a tracer is on or off: with one, the
 * call runs under its span on a fiber of its own; without one, it runs on the
 * run's fiber (it has no timeout, so it needs no fiber). Each case runs both ways.
 */
import { Content, EventBus, type KernelEvent, Session, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { echoToolbox, ofType } from "./harness.js"

const sessionOf = (script: ReadonlyArray<ScriptedModel.Step>, toolbox: Toolbox.Service) =>
  Effect.gen(function* () {
    const model = yield* ScriptedModel.make(script)
    const events: Array<KernelEvent.KernelEvent> = []
    const bus = yield* EventBus.make([{ onEvent: (event) => Effect.sync(() => events.push(event)) }])
    const session = yield* Session.make({ model: "model-a", settings: Settings.defaults }).pipe(
      Effect.provide(model.layer),
      Effect.provideService(EventBus.EventBus, bus),
      Effect.provideService(Toolbox.Toolbox, toolbox)
    )
    return { session, events }
  })

const resultsOf = (history: Content.History) =>
  history.flatMap((message) =>
    message.content.flatMap((block) =>
      block.type === "tool_result" ? [[block.tool_use_id, block.content, block.is_error] as const] : []
    )
  )

for (const traced of [true, false]) {
  const tracing = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.withTracerEnabled(effect, traced)

  describe(`a tool call, tracer ${traced ? "on" : "off"}`, () => {
    it.effect("a toolbox that dies or throws gives an error result, and the run goes on", () =>
      Effect.gen(function* () {
        const toolbox: Toolbox.Service = {
          ...echoToolbox,
          invoke: (call) => {
            if (call.id === "throws") throw new Error("thrown at call time")
            return call.id === "dies" ? Effect.die(new Error("died")) : echoToolbox.invoke(call)
          }
        }
        const { session } = yield* sessionOf(
          [
            ScriptedModel.toolCalls({ id: "dies", name: "echo" }, { id: "throws", name: "echo" }),
            ScriptedModel.text("done")
          ],
          toolbox
        )
        const outcome = yield* tracing(session.run("go"))
        assert.strictEqual(outcome.status, "completed")
        const results = resultsOf(outcome.history)
        assert.deepStrictEqual(
          results.map(([id, , isError]) => [id, isError]),
          [
            ["dies", true],
            ["throws", true]
          ]
        )
        assert.include(results[0]?.[1], "died")
        assert.include(results[1]?.[1], "thrown at call time")
      })
    )

    it.effect("a result under another id is answered under its call's id", () =>
      Effect.gen(function* () {
        const toolbox: Toolbox.Service = {
          ...echoToolbox,
          invoke: () => Effect.succeed(Content.toolResult("some-other-id", "ok"))
        }
        const { session } = yield* sessionOf(
          [ScriptedModel.toolCalls({ id: "a", name: "echo" }), ScriptedModel.text("done")],
          toolbox
        )
        const outcome = yield* tracing(session.run("go"))
        assert.deepStrictEqual(resultsOf(outcome.history), [["a", "ok", false]])
      })
    )

    it.effect("an interrupt while a tool runs keeps the results that came back and ends the run interrupted", () =>
      Effect.gen(function* () {
        const started = yield* Deferred.make<void>()
        let released = false
        const toolbox: Toolbox.Service = {
          ...echoToolbox,
          invoke: (call) =>
            call.id === "a"
              ? Effect.succeed(Content.toolResult(call.id, "REAL RESULT A"))
              : Effect.zipRight(Deferred.succeed(started, undefined), Effect.never).pipe(
                  Effect.onInterrupt(() =>
                    Effect.sync(() => {
                      released = true
                    })
                  )
                )
        }
        const { session, events } = yield* sessionOf(
          [ScriptedModel.toolCalls({ id: "a", name: "echo" }, { id: "b", name: "echo" }), ScriptedModel.text("never")],
          toolbox
        )
        const fiber = yield* Effect.fork(tracing(session.run("go")))
        yield* Deferred.await(started)
        yield* Fiber.interrupt(fiber)
        // The tool's own finalizer ran before the run ended.
        assert.isTrue(released)
        assert.deepStrictEqual(resultsOf(yield* session.history), [
          ["a", "REAL RESULT A", false],
          ["b", "The run was interrupted before this tool returned.", true]
        ])
        assert.strictEqual(ofType(events, "run_ended")[0]?.status, "interrupted")
      })
    )
  })
}
