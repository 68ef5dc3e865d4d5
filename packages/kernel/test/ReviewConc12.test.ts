/**
 * Review of conc12: a call's wait (effects.ts `settle`) is a bare
 * `Effect.async` under one `uninterruptibleMask` whose handler interrupts the
 * call and stops its timer, where it was `Effect.async` with a canceler
 * (Effect's own `onInterrupt`). These pin what that primitive did, on every
 * path a wait ends by: the run interrupted while a call waits (with its timer
 * on the TestClock and on the live clock, a timer beyond `setTimeout`'s
 * range), interrupted as the call completes or as its timer fires, twice, by
 * a call that ignores interruption, the timeout firing while the call's
 * finalizers run, and the run interruptible again after a wait (a retry's
 * sleep after a timed-out call). Each passes on the branch's base (3c6d09b).
 */
import { EventBus, type KernelEvent, ModelProvider, Session, Settings, Toolbox } from "@agent-kernel/kernel"
import { ScriptedModel } from "@agent-kernel/kernel/testing"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as TestClock from "effect/TestClock"
import type * as Tracer from "effect/Tracer"
import { echoToolbox, recordingTracer } from "./harness.js"

const answer = ScriptedModel.text("done")

const settingsWith = (attemptTimeoutMs: number): Settings.Settings => ({
  ...Settings.defaults,
  jitter: "none",
  model_attempt_timeout_ms: attemptTimeoutMs
})

/** A session over `generate`, its run events kept in `events`. */
const sessionOf = (
  generate: () => Effect.Effect<ModelProvider.ModelResponse, never>,
  attemptTimeoutMs: number,
  events: Array<KernelEvent.KernelEvent>
) =>
  Effect.gen(function* () {
    const bus = yield* EventBus.make([{ onEvent: (event) => Effect.sync(() => events.push(event)) }])
    return yield* Session.make({ model: "m", settings: settingsWith(attemptTimeoutMs) }).pipe(
      Effect.provideService(ModelProvider.ModelProvider, ModelProvider.fromGenerate("p", generate)),
      Effect.provideService(EventBus.EventBus, bus)
    )
  })

/** Waits until `started`, then forever; when interrupted, takes `releaseMs` on the Clock to release. */
const hanging = (started: Deferred.Deferred<void>, log: Array<string>, releaseMs: number) =>
  Effect.zipRight(Deferred.succeed(started, undefined), Effect.never).pipe(
    Effect.onInterrupt(() =>
      Effect.zipRight(
        Effect.sleep(releaseMs),
        Effect.sync(() => {
          log.push("call released")
        })
      )
    )
  )

/** A session over `generate` with an attempt timeout of two seconds; `calls` counts its model calls. */
const countedSession = (
  generate: () => Effect.Effect<ModelProvider.ModelResponse, never>,
  events: Array<KernelEvent.KernelEvent>
) =>
  Effect.gen(function* () {
    let calls = 0
    const session = yield* sessionOf(
      () => {
        calls++
        return generate()
      },
      2_000,
      events
    )
    return { session, calls: () => calls }
  })

/** A call that runs five seconds uninterruptibly, then answers. */
const stubborn = () => Effect.uninterruptible(Effect.as(Effect.sleep(5_000), answer))

const types = (events: ReadonlyArray<KernelEvent.KernelEvent>) => events.map((event) => event.type)
const runEnded = (events: ReadonlyArray<KernelEvent.KernelEvent>) =>
  events.flatMap((event) => (event.type === "run_ended" ? [event.status] : []))

/** The run's fiber ended by interruption only. */
const assertInterrupted = (exit: Exit.Exit<unknown, unknown>) =>
  assert.isTrue(Exit.isInterrupted(exit), `expected an interruption, got ${String(exit)}`)

const liveTimeouts = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length

describe("review conc12: a run interrupted while a model call waits (TestClock)", () => {
  it.effect("the timer's fiber is stopped and the call's finalizers have run when the run ends", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const events: Array<KernelEvent.KernelEvent> = []
      const started = yield* Deferred.make<void>()
      // The first call hangs; the next answers.
      let calls = 0
      const session = yield* sessionOf(
        () => (calls++ === 0 ? hanging(started, log, 1_000) : Effect.succeed(answer)),
        5_000,
        events
      )
      const run = yield* Effect.fork(session.run("go"))
      yield* Deferred.await(started)
      const interrupting = yield* Effect.fork(Fiber.interrupt(run))
      yield* TestClock.adjust(999)
      assert.isNull(run.unsafePoll(), "the run ended before its call's finalizer")
      yield* TestClock.adjust(1)
      assertInterrupted(yield* Fiber.join(interrupting))
      assert.deepStrictEqual(log, ["call released"])
      assert.deepStrictEqual(runEnded(events), ["interrupted"])
      // The next run on the same session starts and ends normally (its lock was released, no timer fires
      // into it): a lock left held would leave this run waiting for good (the test then times out).
      assert.strictEqual((yield* session.run("again")).status, "completed")
      assert.deepStrictEqual(runEnded(events), ["interrupted", "completed"])
    })
  )

  it.effect("interrupted twice (the second while the first waits for the call's finalizer), it still waits", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const events: Array<KernelEvent.KernelEvent> = []
      const started = yield* Deferred.make<void>()
      const session = yield* sessionOf(() => hanging(started, log, 1_000), 5_000, events)
      const run = yield* Effect.fork(session.run("go"))
      yield* Deferred.await(started)
      const first = yield* Effect.fork(Fiber.interrupt(run))
      yield* TestClock.adjust(500)
      const second = yield* Effect.fork(Fiber.interrupt(run))
      yield* TestClock.adjust(499)
      assert.isNull(run.unsafePoll(), "a second interruption cut the wait for the call's finalizer")
      yield* TestClock.adjust(1)
      assertInterrupted(yield* Fiber.join(first))
      assertInterrupted(yield* Fiber.join(second))
      assert.deepStrictEqual(log, ["call released"])
      assert.deepStrictEqual(runEnded(events), ["interrupted"])
    })
  )

  it.effect("a call that ignores interruption is waited for to its end; its timer fires into nothing", () =>
    Effect.gen(function* () {
      const events: Array<KernelEvent.KernelEvent> = []
      // Five seconds, uninterruptibly; the attempt's timeout is two.
      const { session, calls } = yield* countedSession(stubborn, events)
      const run = yield* Effect.fork(session.run("go"))
      yield* TestClock.adjust(1_000)
      const interrupting = yield* Effect.fork(Fiber.interrupt(run))
      yield* TestClock.adjust(3_999)
      assert.isNull(run.unsafePoll(), "the run ended while its call still ran")
      yield* TestClock.adjust(1)
      assertInterrupted(yield* Fiber.join(interrupting))
      assert.strictEqual(calls(), 1)
      assert.deepStrictEqual(runEnded(events), ["interrupted"])
    })
  )

  it.effect("not interrupted, a call that ignores its timeout is waited for: its Timeout comes when it ends", () =>
    Effect.gen(function* () {
      const events: Array<KernelEvent.KernelEvent> = []
      const { session, calls } = yield* countedSession(stubborn, events)
      const run = yield* Effect.fork(session.run("go"))
      yield* TestClock.adjust(4_999)
      assert.notInclude(types(events), "retry_scheduled")
      yield* TestClock.adjust(1)
      // The interruption the timer sent lands as the call leaves its uninterruptible region: a Timeout.
      assert.include(types(events), "retry_scheduled")
      assert.strictEqual(calls(), 1)
      // And the retry's sleep is interruptible.
      assertInterrupted(yield* Fiber.interrupt(run))
      assert.deepStrictEqual(runEnded(events), ["interrupted"])
    })
  )

  it.effect(
    "the timeout fires while the call's finalizer runs: a Timeout, then a retry whose sleep is interruptible",
    () =>
      Effect.gen(function* () {
        const log: Array<string> = []
        const events: Array<KernelEvent.KernelEvent> = []
        const started = yield* Deferred.make<void>()
        const session = yield* sessionOf(() => hanging(started, log, 1_000), 2_000, events)
        const run = yield* Effect.fork(session.run("go"))
        yield* Deferred.await(started)
        yield* TestClock.adjust(2_000) // the timer fires: the call is interrupted, its finalizer sleeps a second
        assert.deepStrictEqual(log, [])
        assert.notInclude(types(events), "retry_scheduled")
        yield* TestClock.adjust(1_000) // the finalizer ends: the attempt is a Timeout, a retry sleeps 500 ms
        assert.deepStrictEqual(log, ["call released"])
        assert.include(types(events), "retry_scheduled")
        // Interrupted during the retry's sleep, without the clock moving: the run must end now.
        const exit = yield* Fiber.interrupt(run)
        assertInterrupted(exit)
        assert.deepStrictEqual(runEnded(events), ["interrupted"])
      })
  )

  it.effect("the run interrupted while a timed-out call's finalizer runs ends after it, with no retry", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const events: Array<KernelEvent.KernelEvent> = []
      const started = yield* Deferred.make<void>()
      const session = yield* sessionOf(() => hanging(started, log, 1_000), 2_000, events)
      const run = yield* Effect.fork(session.run("go"))
      yield* Deferred.await(started)
      yield* TestClock.adjust(2_000)
      const interrupting = yield* Effect.fork(Fiber.interrupt(run))
      yield* TestClock.adjust(999)
      assert.isNull(run.unsafePoll())
      yield* TestClock.adjust(1)
      assertInterrupted(yield* Fiber.join(interrupting))
      assert.deepStrictEqual(log, ["call released"])
      assert.notInclude(types(events), "retry_scheduled")
    })
  )

  it.effect("interrupted as the timer fires (same clock tick): the run ends interrupted", () =>
    Effect.gen(function* () {
      const events: Array<KernelEvent.KernelEvent> = []
      const started = yield* Deferred.make<void>()
      const session = yield* sessionOf(() => hanging(started, [], 0), 1_000, events)
      const run = yield* Effect.fork(session.run("go"))
      yield* Deferred.await(started)
      // An interrupter sleeping to the same instant as the attempt's timer.
      const interrupting = yield* Effect.fork(Effect.zipRight(Effect.sleep(1_000), Fiber.interrupt(run)))
      yield* TestClock.adjust(1_000)
      assertInterrupted(yield* Fiber.join(interrupting))
      assert.deepStrictEqual(runEnded(events), ["interrupted"])
    })
  )

  for (const order of ["completed, then interrupted", "interrupted, then completed"] as const)
    it.effect(`interrupted as the call completes (${order}): interrupted or completed, never both, nothing left`, () =>
      Effect.gen(function* () {
        const events: Array<KernelEvent.KernelEvent> = []
        const started = yield* Deferred.make<void>()
        const reply = yield* Deferred.make<ModelProvider.ModelResponse>()
        const { spans, tracer } = yield* recordingTracer
        const session = yield* sessionOf(
          () => Effect.zipRight(Deferred.succeed(started, undefined), Deferred.await(reply)),
          5_000,
          events
        )
        const run = yield* Effect.fork(Effect.withTracer(session.run("go"), tracer))
        yield* Deferred.await(started)
        yield* Effect.sync(() => {
          if (order === "completed, then interrupted") {
            Deferred.unsafeDone(reply, Exit.succeed(answer))
            run.unsafeInterruptAsFork(FiberId.none)
          } else {
            run.unsafeInterruptAsFork(FiberId.none)
            Deferred.unsafeDone(reply, Exit.succeed(answer))
          }
        })
        const exit = yield* Fiber.await(run)
        const ended = runEnded(events)
        assert.strictEqual(ended.length, 1)
        if (Exit.isSuccess(exit)) assert.deepStrictEqual(ended, [exit.value.status])
        else {
          assertInterrupted(exit)
          assert.deepStrictEqual(ended, ["interrupted"])
        }
        // Every span ended, the model call's once.
        assert.deepStrictEqual(
          spans.filter((span) => span.status._tag !== "Ended").map((span) => span.name),
          []
        )
        assert.strictEqual(spans.filter((span) => span.name === "chat m").length, 1)
      })
    )
})

describe("review conc12: a traced tool call interrupted while it waits", () => {
  it.effect("its span ends once, as interrupted, after its finalizer; every span ends", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const started = yield* Deferred.make<void>()
      const toolbox: Toolbox.Service = { ...echoToolbox, invoke: () => hanging(started, log, 1_000) }
      const model = yield* ScriptedModel.make([
        ScriptedModel.toolCalls({ id: "a", name: "echo" }),
        ScriptedModel.text("never")
      ])
      const { spans, tracer } = yield* recordingTracer
      const session = yield* Session.make({ model: "m" }).pipe(
        Effect.provide(model.layer),
        Effect.provideService(Toolbox.Toolbox, toolbox)
      )
      const run = yield* Effect.fork(Effect.withTracer(session.run("go"), tracer))
      yield* Deferred.await(started)
      const interrupting = yield* Effect.fork(Fiber.interrupt(run))
      yield* TestClock.adjust(999)
      const tool = spans.find((span) => span.name === "execute_tool echo")
      assert.isDefined(tool)
      assert.strictEqual(tool!.status._tag, "Started", "the tool's span ended before its finalizer ran")
      yield* TestClock.adjust(1)
      assertInterrupted(yield* Fiber.join(interrupting))
      assert.deepStrictEqual(log, ["call released"])
      const status = tool!.status as Extract<Tracer.SpanStatus, { _tag: "Ended" }>
      assert.strictEqual(status._tag, "Ended")
      assert.isTrue(Exit.isInterrupted(status.exit))
      assert.deepStrictEqual(
        spans.filter((span) => span.status._tag !== "Ended").map((span) => span.name),
        []
      )
    })
  )
})

describe("review conc12: on the live clock, the attempt's setTimeout is always cleared", () => {
  // No real wait: each call waits on a Deferred the test completes or the run is interrupted.
  for (const timeoutMs of [60_000, 3_000_000_000])
    for (const ending of ["interrupted", "answered"] as const)
      it.live(`a waiting call ${ending} leaves no timer behind (timeout ${timeoutMs} ms)`, () =>
        Effect.gen(function* () {
          const events: Array<KernelEvent.KernelEvent> = []
          const started = yield* Deferred.make<void>()
          const reply = yield* Deferred.make<ModelProvider.ModelResponse>()
          const session = yield* sessionOf(
            () => Effect.zipRight(Deferred.succeed(started, undefined), Deferred.await(reply)),
            timeoutMs,
            events
          )
          const before = liveTimeouts()
          const run = yield* Effect.fork(session.run("go"))
          yield* Deferred.await(started)
          // The attempt's timer is armed while the call waits (none beyond setTimeout's range).
          assert.strictEqual(liveTimeouts(), before + (timeoutMs > 2 ** 31 - 1 ? 0 : 1))
          if (ending === "interrupted") assertInterrupted(yield* Fiber.interrupt(run))
          else {
            yield* Deferred.succeed(reply, answer)
            assert.strictEqual((yield* Fiber.join(run)).status, "completed")
          }
          assert.strictEqual(liveTimeouts(), before, "a timer was left behind")
          assert.deepStrictEqual(runEnded(events), [ending === "interrupted" ? "interrupted" : "completed"])
        })
      )
})

describe("review conc12: the run's fiber after a wait", () => {
  it.effect("a timed-out call (no finalizer): the retry's sleep is interruptible", () =>
    Effect.gen(function* () {
      const events: Array<KernelEvent.KernelEvent> = []
      const { session, calls } = yield* countedSession(() => Effect.never, events)
      const run = yield* Effect.fork(session.run("go"))
      yield* TestClock.adjust(2_000) // the attempt times out; its retry sleeps 500 ms
      assert.include(types(events), "retry_scheduled")
      assertInterrupted(yield* Fiber.interrupt(run))
      assert.deepStrictEqual(runEnded(events), ["interrupted"])
      assert.strictEqual(calls(), 1)
    })
  )

  it.effect("a call that waited and answered: the tool call after it (on the run's fiber) is interruptible", () =>
    Effect.gen(function* () {
      const started = yield* Deferred.make<void>()
      const toolbox: Toolbox.Service = {
        ...echoToolbox,
        invoke: () => Effect.zipRight(Deferred.succeed(started, undefined), Effect.never)
      }
      const provider = ModelProvider.fromGenerate("p", () =>
        Effect.as(Effect.sleep(1_000), ScriptedModel.toolCalls({ id: "a", name: "echo" }))
      )
      const session = yield* Session.make({ model: "m" }).pipe(
        Effect.provideService(ModelProvider.ModelProvider, provider),
        Effect.provideService(Toolbox.Toolbox, toolbox)
      )
      const run = yield* Effect.fork(session.run("go"))
      yield* TestClock.adjust(1_000)
      yield* Deferred.await(started)
      assertInterrupted(yield* Fiber.interrupt(run))
    })
  )
})

describe("review conc12: the wall-clock bound cuts a waiting call", () => {
  for (const attemptTimeoutMs of [10_000, 2_000])
    it.effect(
      `a model call: ended after its finalizer, wall_clock_exceeded (attempt timeout ${attemptTimeoutMs} ms)`,
      () =>
        Effect.gen(function* () {
          const log: Array<string> = []
          const events: Array<KernelEvent.KernelEvent> = []
          const started = yield* Deferred.make<void>()
          const bus = yield* EventBus.make([{ onEvent: (event) => Effect.sync(() => events.push(event)) }])
          const session = yield* Session.make({
            model: "m",
            settings: { ...settingsWith(attemptTimeoutMs), max_wall_clock_ms: 2_000 }
          }).pipe(
            Effect.provideService(
              ModelProvider.ModelProvider,
              ModelProvider.fromGenerate("p", () => hanging(started, log, 1_000))
            ),
            Effect.provideService(EventBus.EventBus, bus)
          )
          const run = yield* Effect.fork(session.run("go"))
          yield* Deferred.await(started)
          yield* TestClock.adjust(2_999)
          assert.isNull(run.unsafePoll(), "the run ended before its call's finalizer")
          yield* TestClock.adjust(1)
          const outcome = yield* Fiber.join(run)
          assert.deepStrictEqual(log, ["call released"])
          // When the attempt's timer fires with the bound, either may win; the run ends at the bound anyway.
          assert.strictEqual(outcome.status, "wall_clock_exceeded")
        })
    )

  it.effect("concurrent traced tool calls: each span ends once after its finalizer, wall_clock_exceeded", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const started = yield* Deferred.make<void>()
      const toolbox: Toolbox.Service = {
        ...echoToolbox,
        invoke: (call) =>
          Effect.zipRight(Deferred.succeed(started, undefined), Effect.never).pipe(
            Effect.onInterrupt(() =>
              Effect.zipRight(
                Effect.sleep(call.id === "a" ? 500 : 1_000),
                Effect.sync(() => {
                  log.push(`released ${call.id}`)
                })
              )
            )
          )
      }
      const model = yield* ScriptedModel.make([
        ScriptedModel.toolCalls({ id: "a", name: "echo" }, { id: "b", name: "echo" }),
        ScriptedModel.text("never")
      ])
      const { spans, tracer } = yield* recordingTracer
      const session = yield* Session.make({
        model: "m",
        toolConcurrency: 2,
        settings: { ...Settings.defaults, max_wall_clock_ms: 2_000 }
      }).pipe(Effect.provide(model.layer), Effect.provideService(Toolbox.Toolbox, toolbox))
      const run = yield* Effect.fork(Effect.withTracer(session.run("go"), tracer))
      yield* Deferred.await(started)
      yield* TestClock.adjust(2_999)
      assert.isNull(run.unsafePoll())
      yield* TestClock.adjust(1)
      const outcome = yield* Fiber.join(run)
      assert.strictEqual(outcome.status, "wall_clock_exceeded")
      assert.deepStrictEqual(log, ["released a", "released b"])
      const tools = spans.filter((span) => span.name === "execute_tool echo")
      assert.strictEqual(tools.length, 2)
      for (const tool of tools) {
        assert.strictEqual(tool.status._tag, "Ended")
        if (tool.status._tag === "Ended") assert.isTrue(Exit.isInterrupted(tool.status.exit))
      }
      assert.deepStrictEqual(
        spans.filter((span) => span.status._tag !== "Ended").map((span) => span.name),
        []
      )
    })
  )
})
