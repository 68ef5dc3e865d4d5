/**
 * An independent review of perf8 (a run's fixed cost), which was to change
 * no behaviour. Each test but the last passed on the code the branch started
 * from (20d9cb5) and failed on perf8 (4b560e3); the last failed on both. All
 * pass now: the lock is taken in the uninterruptible region, the session's
 * accessors and the outcome's history are own properties again, and closing
 * an interrupted run frees the lock whatever the toolbox does. All timing is
 * on the TestClock.
 */
import { Content, Session, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"

describe("review perf8: the run lock (5b2778e)", () => {
  // A fiber yields to the scheduler once it has run `maxOps` operations without suspending
  // (Effect's default is 2,048; any embedder's fiber reaches such a point). Each `maxOps` below
  // puts that yield at a different operation of the run's start; the test interrupts the run at
  // that yield, then asks the session for another run. Effect's semaphore took its permit after
  // an asynchronous resumption, which starts a fresh operation count, so no yield ever fell
  // between "permit taken" and "the uninterruptible region resumed". perf8's lock takes a free
  // lock in the middle of the caller's operations, still interruptible: when the yield falls on
  // the very next operation, the interruption discards the success, `leave` never runs, and the
  // session stays locked for good: every later run waits forever.
  it.effect("a run interrupted right after taking a free lock does not leave the session locked", () =>
    Effect.gen(function* () {
      const stuck: Array<number> = []
      for (let maxOps = 10; maxOps <= 160; maxOps++) {
        const model = yield* ScriptedModel.make([ScriptedModel.text("one"), ScriptedModel.text("two")])
        const session = yield* Session.make({ model: "m" }).pipe(Effect.provide(model.layer))
        const first = yield* Effect.fork(session.run("first").pipe(Effect.withMaxOpsBeforeYield(maxOps)))
        yield* Effect.yieldNow()
        yield* Fiber.interrupt(first)
        const second = yield* Effect.fork(session.run("second"))
        yield* TestClock.adjust("1 second")
        if (Option.isNone(yield* Fiber.poll(second))) {
          stuck.push(maxOps)
          yield* Fiber.interrupt(second)
        }
      }
      assert.deepStrictEqual(stuck, [], "the session's next run never started")
    })
  )
  // The same with Effect's default of 2,048 operations: a caller whose fiber has run ~2,040
  // operations without suspending when it asks for a run (here a chain of `Effect.sync`s, with
  // and without one more operation for parity) and is interrupted at that yield (a timeout, a
  // race, a client gone) locks the session for good.
  it.effect("with the default yield budget too, an interrupted caller never leaves the session locked", () =>
    Effect.gen(function* () {
      const stuck: Array<string> = []
      for (let n = 990; n <= 1050; n++) {
        for (const odd of [false, true]) {
          const model = yield* ScriptedModel.make([ScriptedModel.text("one"), ScriptedModel.text("two")])
          const session = yield* Session.make({ model: "m" }).pipe(Effect.provide(model.layer))
          let caller: Effect.Effect<unknown> = session.run("first")
          for (let i = 0; i < n; i++)
            caller = Effect.zipRight(
              Effect.sync(() => undefined),
              caller
            )
          const asked = caller
          const first = yield* Effect.fork(odd ? Effect.suspend(() => asked) : asked)
          yield* Effect.yieldNow()
          yield* Fiber.interrupt(first)
          const second = yield* Effect.fork(session.run("second"))
          yield* TestClock.adjust("1 second")
          if (Option.isNone(yield* Fiber.poll(second))) {
            stuck.push(`${n}${odd ? "+1" : ""}`)
            yield* Fiber.interrupt(second)
          }
        }
      }
      assert.deepStrictEqual(stuck, [], "the session's next run never started")
    })
  )
})

describe("review perf8: the session object (6f0ef45)", () => {
  // An embedder that decorates a session the usual way, by spreading it and replacing `run`, got
  // the accessors as values of the copy: they were own, enumerable getters of the object literal.
  // As getters of a class's prototype they are not copied, so `wrapped.history` is undefined.
  it.effect("a session spread into a decorated copy keeps its accessors", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([ScriptedModel.text("one")])
      const session = yield* Session.make({ model: "m" }).pipe(Effect.provide(model.layer))
      const wrapped: Session.Service = { ...session, run: (input) => session.run(input) }
      yield* wrapped.run("hi")
      assert.deepStrictEqual(Object.keys(session).sort(), [
        "context",
        "events",
        "history",
        "id",
        "retryBudget",
        "run",
        "settings",
        "state",
        "subscribe"
      ])
      assert.deepStrictEqual((yield* wrapped.history).map(Content.textOf), ["hi", "one"])
    })
  )

  // A Proxy's default `get` calls a getter with the proxy as `this`; a getter that reads a
  // `#private` field then throws a TypeError, a defect where the old session just answered.
  it.effect("a session read through a Proxy answers its accessors", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([ScriptedModel.text("one")])
      const session = yield* Session.make({ model: "m" }).pipe(Effect.provide(model.layer))
      const proxied = new Proxy(session, {})
      yield* proxied.run("hi")
      const history = yield* Effect.suspend(() => proxied.history)
      assert.deepStrictEqual(history.map(Content.textOf), ["hi", "one"])
    })
  )
})

describe("review perf8: an outcome's history (446a803)", () => {
  // The shared getter looks the history up by `this` in a WeakMap, and answers [] when `this` is
  // not the outcome itself: through a Proxy (Vue's `reactive`, MobX, a logging wrapper) or an
  // object whose prototype is the outcome, the history silently reads as empty. The old getter
  // closed over the run's log and answered the same whatever `this` was.
  it.effect("an outcome read through a Proxy or as a prototype shows its history", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([ScriptedModel.text("one")])
      const session = yield* Session.make({ model: "m" }).pipe(Effect.provide(model.layer))
      const outcome = yield* session.run("hi")
      const proxied = new Proxy(outcome, {})
      assert.deepStrictEqual(proxied.history.map(Content.textOf), ["hi", "one"])
      const derived: typeof outcome = Object.create(outcome)
      assert.deepStrictEqual(derived.history.map(Content.textOf), ["hi", "one"])
    })
  )
})

describe("review perf8: a failure while an interrupted run closes (both before and after perf8)", () => {
  // The exit handler runs the interrupted run's close (the toolbox's `onRunInterrupted`, then
  // `finish`) and only then restores the caller's context and frees the run lock, chained with
  // `flatMap`: if the close dies, neither happens, and every later run of the session waits for
  // good. Not perf8's doing (the semaphore's release was chained the same way), but its
  // hand-written lock makes an unconditional release as cheap as a conditional one.
  it.effect("a toolbox whose onRunInterrupted dies still frees the session and the caller's context", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make([
        ScriptedModel.toolCalls({ id: "t1", name: "echo" }),
        ScriptedModel.text("two")
      ])
      const toolbox: Toolbox.Service = {
        definitions: Effect.succeed([{ name: "echo", description: "Echo", input_schema: { type: "object" } }]),
        invoke: () => Effect.never,
        onRunInterrupted: Effect.die(new Error("cleanup failed"))
      }
      const session = yield* Session.make({ model: "m" }).pipe(
        Effect.provide(model.layer),
        Effect.provideService(Toolbox.Toolbox, toolbox)
      )
      const first = yield* Effect.fork(session.run("first"))
      yield* TestClock.adjust("1 second")
      yield* Fiber.interrupt(first)
      const second = yield* Effect.fork(session.run("second"))
      yield* TestClock.adjust("1 second")
      const polled = yield* Fiber.poll(second)
      if (Option.isNone(polled)) yield* Fiber.interrupt(second)
      assert.isTrue(Option.isSome(polled), "the session's next run never started")
    })
  )
})
