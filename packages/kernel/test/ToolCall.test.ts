/**
 * A tool call behaves the same whether a tracer is on or off (each case runs both ways): a broken toolbox
 * gives an error result, a result is filed under its call's id, an interrupt keeps the results that came
 * back. Concurrent calls' results sit in call order whatever order they complete in.
 */
import { Content, EventBus, type KernelEvent, Session, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel, TestClockDriver } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
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
              : Effect.andThen(Deferred.succeed(started, undefined), Effect.never).pipe(
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
        const fiber = yield* Effect.forkChild(tracing(session.run("go")))
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

/** A session against a scripted model that records every event it publishes. */
const concurrentSession = (setup: {
  readonly script: ReadonlyArray<ScriptedModel.Step>
  readonly toolbox: Toolbox.Service
  readonly toolConcurrency: number
}) =>
  Effect.gen(function* () {
    const model = yield* ScriptedModel.make(setup.script)
    const events: Array<KernelEvent.KernelEvent> = []
    const bus = yield* EventBus.make([{ onEvent: (event) => Effect.sync(() => events.push(event)) }])
    const session = yield* Session.make({ model: "model-a", toolConcurrency: setup.toolConcurrency }).pipe(
      Effect.provide(model.layer),
      Effect.provideService(EventBus.EventBus, bus),
      Effect.provideService(Toolbox.Toolbox, setup.toolbox)
    )
    return { session, model, events }
  })

const resultBlocksOf = (message: Content.Message | undefined) =>
  (message?.content ?? []).flatMap((block) => (block.type === "tool_result" ? [block] : []))

describe("concurrent tool calls", () => {
  it.effect("out-of-order completion and duplicate ids: results sit in call order, each with its call", () =>
    Effect.gen(function* () {
      // The first call is the slowest: the others complete before it.
      const delays: Record<string, number> = { first: 30, second: 10, third: 0 }
      const completed: Array<string> = []
      const toolbox: Toolbox.Service = {
        ...echoToolbox,
        invoke: (call) => {
          const label = String((call.input as { readonly label: string }).label)
          return Effect.sleep(Duration.millis(delays[label] ?? 0)).pipe(
            Effect.andThen(Effect.sync(() => completed.push(label))),
            Effect.as(Content.toolResult(call.id, `result of ${label}`))
          )
        }
      }
      const { session, events, model } = yield* concurrentSession({
        script: [
          ScriptedModel.toolCalls(
            { id: "dup", name: "echo", input: { label: "first" } },
            { id: "dup", name: "echo", input: { label: "second" } },
            { id: "other", name: "echo", input: { label: "third" } }
          ),
          ScriptedModel.text("done")
        ],
        toolbox,
        toolConcurrency: 3
      })
      const outcome = yield* TestClockDriver.run(session.run("go"))
      assert.strictEqual(outcome.status, "completed")
      assert.deepStrictEqual(completed, ["third", "second", "first"])
      const [, assistant, results] = outcome.history
      const ids = Content.toolUses(assistant!).map((call) => call.id)
      assert.lengthOf(new Set(ids), 3)
      assert.deepStrictEqual(
        resultBlocksOf(results).map((block) => [block.tool_use_id, block.content]),
        [
          [ids[0], "result of first"],
          [ids[1], "result of second"],
          [ids[2], "result of third"]
        ]
      )
      // Events come as the calls complete, each naming its call's unique id and its own result.
      assert.deepStrictEqual(
        ofType(events, "tool_result").map((event) => [event.id, event.preview]),
        [
          [ids[2], "result of third"],
          [ids[1], "result of second"],
          [ids[0], "result of first"]
        ]
      )
      assert.sameMembers(
        ofType(events, "tool_call_started").map((event) => event.id),
        ids
      )
      // The next request carries the same pairs.
      const next = (yield* model.calls)[1]!.request.messages.at(-1)
      assert.deepStrictEqual(
        resultBlocksOf(next).map((block) => block.tool_use_id),
        ids
      )
    })
  )
})
