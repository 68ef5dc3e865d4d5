/**
 * How a session gets its services: the ones it is not given have stateless defaults, and what is
 * per session (the event stream, the budget's state) is never shared. That the required one shows
 * in the type is pinned by `SessionRequirements.types.ts`, which tsc checks.
 */
import {
  Content,
  EventBus,
  type KernelEvent,
  ModelProvider,
  RetryBudget,
  Session,
  Settings,
  Toolbox
} from "@agent-kernel/kernel"
import { ScriptedModel, TestClockDriver } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"

const provider = ModelProvider.fromGenerate("p", () => Effect.succeed(ScriptedModel.text("hi")))

describe("defaults", () => {
  it.effect(
    "with only a model provider: no tools, the default context provider, no observers, the settings' budget",
    () =>
      Effect.gen(function* () {
        const model = yield* ScriptedModel.make([
          ScriptedModel.toolCalls({ id: "t1", name: "anything" }),
          ScriptedModel.text("done")
        ])
        const session = yield* Session.make({ model: "m" }).pipe(Effect.provide(model.layer))
        const outcome = yield* session.run("go")
        assert.strictEqual(outcome.status, "completed")
        const [, first] = yield* model.requests
        assert.deepStrictEqual(first?.tools, [])
        assert.deepStrictEqual(outcome.history[2]?.content, [
          Content.toolResult("t1", 'Unknown tool "anything": no tools are available.', true)
        ])
        assert.deepStrictEqual(yield* session.retryBudget, { used: 0, remaining: 20 })
      })
  )

  it.effect("the default bus is shared, but no session sees another's events", () =>
    Effect.gen(function* () {
      const make = Session.make({ model: "m" }).pipe(Effect.provideService(ModelProvider.ModelProvider, provider))
      const a = yield* make
      const b = yield* make
      const seenByA = yield* Effect.forkChild(
        Stream.runCollect(
          (yield* a.subscribe).pipe(Stream.takeUntil((event: KernelEvent.KernelEvent) => event.type === "run_ended"))
        )
      )
      yield* b.run("to b")
      yield* a.run("to a")
      const events = Array.from(yield* Fiber.join(seenByA))
      assert.isTrue(events.every((event) => event.type !== "run_started" || event.run_id.startsWith(a.id)))
      assert.notStrictEqual(a.id, b.id)
    })
  )

  it.effect("a budget layer gives every session the same budget, each with a state of its own", () =>
    Effect.gen(function* () {
      const make = Effect.gen(function* () {
        const model = yield* ScriptedModel.make([ScriptedModel.rateLimited(), ScriptedModel.text("ok")])
        return yield* Session.make({ model: "m" }).pipe(Effect.provide(model.layer))
      }).pipe(Effect.provide(RetryBudget.layerFixed(1)))
      const first = yield* make
      const second = yield* make
      assert.strictEqual((yield* TestClockDriver.run(first.run("go"))).status, "completed")
      assert.strictEqual((yield* TestClockDriver.run(second.run("go"))).status, "completed")
      assert.deepStrictEqual(yield* first.retryBudget, { used: 1, remaining: 0 })
      assert.deepStrictEqual(yield* second.retryBudget, { used: 1, remaining: 0 })
    })
  )

  it.effect("sessions on the default settings share their budget, each with a state of its own", () =>
    Effect.gen(function* () {
      const make = (script: ReadonlyArray<ScriptedModel.Step>) =>
        Effect.gen(function* () {
          const model = yield* ScriptedModel.make(script)
          return yield* Session.make({ model: "m" }).pipe(Effect.provide(model.layer))
        })
      const first = yield* make([ScriptedModel.rateLimited(), ScriptedModel.text("ok")])
      const second = yield* make([ScriptedModel.text("ok")])
      assert.strictEqual((yield* TestClockDriver.run(first.run("go"))).status, "completed")
      assert.strictEqual((yield* second.run("go")).status, "completed")
      // The first session's retry took its own refilled token; the second never lent it one.
      assert.deepStrictEqual(yield* first.retryBudget, { used: 1, remaining: 20 })
      assert.deepStrictEqual(yield* second.retryBudget, { used: 0, remaining: 20 })
    })
  )

  it.effect("Session.layer builds on the services in context", () =>
    Effect.gen(function* () {
      const events: Array<string> = []
      const layer = Session.layer({ model: "m" }).pipe(
        Layer.provide(Layer.succeed(ModelProvider.ModelProvider, provider)),
        Layer.provide(EventBus.layer([{ onEvent: (event) => Effect.sync(() => events.push(event.type)) }]))
      )
      const outcome = yield* Effect.flatMap(Session.Session, (session) => session.run("hello")).pipe(
        Effect.provide(layer)
      )
      assert.strictEqual(outcome.final_text, "hi")
      assert.deepStrictEqual(events.at(-1), "run_ended")
    })
  )
})

describe("the session's state", () => {
  it.effect("is one plain value: it encodes to JSON, and a session resumed from it carries on", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([
        ScriptedModel.rateLimited(),
        ScriptedModel.toolCalls({ id: "t1", name: "echo", input: { a: 1 } }),
        ScriptedModel.text("first"),
        ScriptedModel.text("second")
      ])
      const echo: Toolbox.Service = {
        definitions: Effect.succeed([]),
        invoke: (call) => Effect.succeed(Content.toolResult(call.id, JSON.stringify(call.input)))
      }
      const settings = { ...Settings.defaults, session_retries_refill: false }
      const first = yield* Session.make({ model: "m", id: "s", settings }).pipe(
        Effect.provide(model.layer),
        Effect.provideService(Toolbox.Toolbox, echo)
      )
      yield* TestClockDriver.run(first.run("go"))
      const json = JSON.parse(JSON.stringify(Schema.encodeSync(Session.State)(yield* first.state)))
      const state = yield* Schema.decodeUnknownEffect(Session.State)(json)
      assert.deepStrictEqual(state.history, yield* first.history)
      assert.deepStrictEqual(state.budget, { used: 1, tokens: 19 })
      assert.deepInclude(state.run, { run_id: "s/run-1", turns: 2, max_per_call: 1 })
      const resumed = yield* Session.make({ model: "m", id: "s", settings, state }).pipe(Effect.provide(model.layer))
      const outcome = yield* resumed.run("again")
      assert.strictEqual(outcome.run_id, "s/run-2")
      assert.strictEqual(outcome.final_text, "second")
      assert.deepStrictEqual(outcome.history.slice(0, state.history.length), state.history)
      assert.deepStrictEqual(yield* resumed.retryBudget, { used: 1, remaining: 19 })
    })
  )
})
