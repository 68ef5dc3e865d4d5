/**
 * A run interrupted while it waits for a call that suspended: the call is interrupted and waited for, so its
 * finalizers have run before the run ends (`run_ended`). The finalizers here take a second on the TestClock, so a
 * wait that only signalled the interruption and went on would end the run first.
 */
import { EventBus, type KernelEvent, ModelProvider, Session, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import { echoToolbox } from "./harness.js"

/** Waits until `started`, then forever; when interrupted, takes a second (on the Clock) to release. */
const hanging = (started: Deferred.Deferred<void>, log: Array<string>) =>
  Effect.zipRight(Deferred.succeed(started, undefined), Effect.never).pipe(
    Effect.onInterrupt(() =>
      Effect.zipRight(
        Effect.sleep("1 second"),
        Effect.sync(() => {
          log.push("call released")
        })
      )
    )
  )

/** Runs `session` until the call has started, interrupts it, and moves the clock for the call's finalizer. */
const interruptWhileWaiting = (session: Session.Service, started: Deferred.Deferred<void>) =>
  Effect.gen(function* () {
    const run = yield* Effect.fork(session.run("go"))
    yield* Deferred.await(started)
    const interrupting = yield* Effect.fork(Fiber.interrupt(run))
    yield* TestClock.adjust("1 second")
    yield* Fiber.join(interrupting)
  })

const endLogged = (log: Array<string>) =>
  EventBus.make([
    {
      onEvent: (event: KernelEvent.KernelEvent) =>
        Effect.sync(() => {
          if (event.type === "run_ended") log.push(`run_ended ${event.status}`)
        })
    }
  ])

describe("a run interrupted while a call waits", () => {
  it.effect("waits for the model call's finalizers before it ends", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const started = yield* Deferred.make<void>()
      const session = yield* Session.make({ model: "m" }).pipe(
        Effect.provideService(
          ModelProvider.ModelProvider,
          ModelProvider.fromGenerate("p", () => hanging(started, log))
        ),
        Effect.provideService(EventBus.EventBus, yield* endLogged(log))
      )
      yield* interruptWhileWaiting(session, started)
      assert.deepStrictEqual(log, ["call released", "run_ended interrupted"])
    })
  )

  it.effect("waits for a traced tool call's finalizers before it ends", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const started = yield* Deferred.make<void>()
      const toolbox: Toolbox.Service = { ...echoToolbox, invoke: () => hanging(started, log) }
      const model = yield* ScriptedModel.make([
        ScriptedModel.toolCalls({ id: "a", name: "echo" }),
        ScriptedModel.text("never")
      ])
      const session = yield* Session.make({ model: "m" }).pipe(
        Effect.provide(model.layer),
        Effect.provideService(Toolbox.Toolbox, toolbox),
        Effect.provideService(EventBus.EventBus, yield* endLogged(log))
      )
      // A tool call has a fiber of its own (and so a wait) only when a tracer is on.
      yield* Effect.withTracerEnabled(interruptWhileWaiting(session, started), true)
      assert.deepStrictEqual(log, ["call released", "run_ended interrupted"])
    })
  )
})
