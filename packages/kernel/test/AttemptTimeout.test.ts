/**
 * `model_attempt_timeout_ms`: a model attempt that outlives it is cut on the run's Clock as a transient
 * `timeout` and retried; the call is interrupted and waited for, not the run. A call that ends on its own
 * though its timeout fired (it could not be interrupted in time) keeps its own answer or error. All timing
 * is on the TestClock: the live clock takes the same code path.
 */
import {
  EventBus,
  type KernelEvent,
  ModelError,
  ModelProvider,
  ResponsePart,
  Session,
  Settings
} from "@agent-kernel/kernel"
import { ScriptedModel, TestClockDriver } from "@agent-kernel/kernel/testing"
import { assert, describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import { ofType, runScript } from "./harness.js"

const noJitter = { jitter: "none" } as const
const answer = ScriptedModel.text("done")

const settingsWith = (attemptTimeoutMs: number): Settings.Settings => ({
  ...Settings.defaults,
  jitter: "none",
  model_attempt_timeout_ms: attemptTimeoutMs
})

/** A session over `generate` with an attempt timeout of two seconds; `calls` counts its model calls. */
const countedSession = (
  generate: () => Effect.Effect<ModelProvider.ModelResponse, never>,
  events: Array<KernelEvent.KernelEvent>,
  attemptTimeoutMs = 2_000
) =>
  Effect.gen(function* () {
    let calls = 0
    const bus = yield* EventBus.make([{ onEvent: (event) => Effect.sync(() => events.push(event)) }])
    const session = yield* Session.make({ model: "m", settings: settingsWith(attemptTimeoutMs) }).pipe(
      Effect.provideService(
        ModelProvider.ModelProvider,
        ModelProvider.fromGenerate("p", () => {
          calls++
          return generate()
        })
      ),
      Effect.provideService(EventBus.EventBus, bus)
    )
    return { session, calls: () => calls }
  })

/** Waits until `started`, then forever; when interrupted, takes `releaseMs` on the Clock to release. */
const hanging = (started: Deferred.Deferred<void>, log: Array<string>, releaseMs: number) =>
  Effect.andThen(Deferred.succeed(started, undefined), Effect.never).pipe(
    Effect.onInterrupt(() =>
      Effect.andThen(
        Effect.sleep(releaseMs),
        Effect.sync(() => {
          log.push("call released")
        })
      )
    )
  )

const types = (events: ReadonlyArray<KernelEvent.KernelEvent>) => events.map((event) => event.type)
const runEnded = (events: ReadonlyArray<KernelEvent.KernelEvent>) =>
  events.flatMap((event) => (event.type === "run_ended" ? [event.status] : []))

/** A clock whose sleeps take a tenth of their time: a user's own clock, neither the live one nor a TestClock. */
const tenfold = (clock: Clock.Clock): Clock.Clock => ({
  currentTimeMillisUnsafe: () => clock.currentTimeMillisUnsafe(),
  currentTimeMillis: clock.currentTimeMillis,
  currentTimeNanosUnsafe: () => clock.currentTimeNanosUnsafe(),
  currentTimeNanos: clock.currentTimeNanos,
  monotonicTimeNanosUnsafe: () => clock.monotonicTimeNanosUnsafe(),
  monotonicTimeNanos: clock.monotonicTimeNanos,
  sleep: (duration) => clock.sleep(Duration.millis(Duration.toMillis(duration) / 10))
})

/** Interrupts the fiber and checks that it ended by interruption only. */
const interruptedNow = (fiber: Fiber.Fiber<unknown>) =>
  Effect.gen(function* () {
    yield* Fiber.interrupt(fiber)
    const exit = yield* Fiber.await(fiber)
    assert.isTrue(Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause), `expected an interruption, got ${exit}`)
  })

describe("the attempt timeout cuts a hung attempt", () => {
  it.effect("on the Clock, as a transient timeout, then the call is retried", () =>
    Effect.gen(function* () {
      const { outcome, calls, events } = yield* runScript([() => Effect.never, ScriptedModel.text("second try")], {
        settings: { ...noJitter, model_attempt_timeout_ms: 1_000 }
      })
      assert.strictEqual(outcome.status, "completed")
      assert.deepStrictEqual(
        calls.map((call) => call.at),
        [0, 1_500]
      )
      assert.deepStrictEqual(
        ofType(events, "retry_scheduled").map((event) => [event.category, event.delay_ms]),
        [["timeout", 500]]
      )
    })
  )

  for (const observed of [false, true])
    it.effect(`whether the attempt is observed or not (${observed ? "a stream observed" : "a one-shot call"})`, () =>
      Effect.gen(function* () {
        let calls = 0
        const second = ScriptedModel.text("second try")
        const provider = observed
          ? ModelProvider.make("p", () =>
              calls++ === 0 ? Stream.never : Stream.fromIterable(ResponsePart.fromResponse(second))
            )
          : ModelProvider.fromGenerate("p", () => (calls++ === 0 ? Effect.never : Effect.succeed(second)))
        const events: Array<KernelEvent.KernelEvent> = []
        const bus = yield* EventBus.make(
          observed ? [{ onEvent: (event) => Effect.sync(() => events.push(event)) }] : []
        )
        const session = yield* Session.make({
          model: "m",
          settings: { ...Settings.defaults, ...noJitter, base_delay_ms: 1, model_attempt_timeout_ms: 20 }
        }).pipe(
          Effect.provideService(ModelProvider.ModelProvider, provider),
          Effect.provideService(EventBus.EventBus, bus)
        )
        const outcome = yield* TestClockDriver.run(session.run("go"))
        assert.strictEqual(outcome.status, "completed")
        assert.strictEqual(outcome.final_text, "second try")
        assert.strictEqual(calls, 2)
        assert.strictEqual(outcome.wall_ms, 21)
        if (observed)
          assert.deepStrictEqual(
            ofType(events, "retry_scheduled").map((event) => event.category),
            ["timeout"]
          )
      })
    )

  // The run's Clock, whatever it is (here one whose sleeps take a tenth of their time), bounds the attempt.
  it.effect("on the run's own Clock, whichever it is", () =>
    Effect.gen(function* () {
      const session = yield* Session.make({
        model: "m",
        settings: { ...Settings.defaults, model_attempt_timeout_ms: 10_000, max_retries: 0 }
      }).pipe(
        Effect.provideService(
          ModelProvider.ModelProvider,
          ModelProvider.fromGenerate("p", () => Effect.never)
        )
      )
      const outcome = yield* TestClockDriver.run(
        Effect.clockWith((clock) => session.run("go").pipe(Effect.provideService(Clock.Clock, tenfold(clock))))
      )
      assert.strictEqual(outcome.error?.category, "timeout")
      // The run's clock's sleep (a tenth of the timeout) governs, not the test clock's own.
      assert.strictEqual(outcome.wall_ms, 1_000)
    })
  )

  it.effect("a session provides its call timeouts to the provider, from its settings", () =>
    Effect.gen(function* () {
      const seen: Array<ModelProvider.CallTimeouts> = []
      const provider = ModelProvider.fromGenerate("p", () =>
        Effect.gen(function* () {
          seen.push(yield* ModelProvider.CurrentCallTimeouts)
          return ScriptedModel.text("ok")
        })
      )
      const settings = {
        ...Settings.defaults,
        model_connect_timeout_ms: 1_234,
        model_first_byte_timeout_ms: 2_345,
        model_idle_timeout_ms: 3_456,
        model_attempt_timeout_ms: 4_567
      }
      const session = yield* Session.make({ model: "m", settings }).pipe(
        Effect.provideService(ModelProvider.ModelProvider, provider)
      )
      yield* session.run("go")
      expect(seen).toEqual([ModelProvider.callTimeoutsFrom(settings)])
      assert.strictEqual(Duration.toMillis(seen[0]!.idle), 3_456)
    })
  )
})

describe("a call that outlives its timeout", () => {
  it.effect("not interrupted, a call that ignores its timeout is waited for: its Timeout comes when it ends", () =>
    Effect.gen(function* () {
      const events: Array<KernelEvent.KernelEvent> = []
      const { session, calls } = yield* countedSession(
        () => Effect.uninterruptible(Effect.as(Effect.sleep(5_000), answer)),
        events
      )
      const run = yield* Effect.forkChild(session.run("go"))
      yield* TestClock.adjust(4_999)
      assert.notInclude(types(events), "retry_scheduled")
      yield* TestClock.adjust(1)
      // The interruption the timeout sent lands as the call leaves its uninterruptible region: a Timeout.
      assert.include(types(events), "retry_scheduled")
      assert.strictEqual(calls(), 1)
      // And the retry's sleep is interruptible.
      yield* interruptedNow(run)
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
        const { session } = yield* countedSession(() => hanging(started, log, 1_000), events)
        const run = yield* Effect.forkChild(session.run("go"))
        yield* Deferred.await(started)
        yield* TestClock.adjust(2_000) // the timeout fires: the call is interrupted, its finalizer sleeps a second
        assert.deepStrictEqual(log, [])
        assert.notInclude(types(events), "retry_scheduled")
        yield* TestClock.adjust(1_000) // the finalizer ends: the attempt is a Timeout, a retry sleeps 500 ms
        assert.deepStrictEqual(log, ["call released"])
        assert.include(types(events), "retry_scheduled")
        // Interrupted during the retry's sleep, without the clock moving: the run must end now.
        yield* interruptedNow(run)
        assert.deepStrictEqual(runEnded(events), ["interrupted"])
      })
  )

  it.effect("the run interrupted while a timed-out call's finalizer runs ends after it, with no retry", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const events: Array<KernelEvent.KernelEvent> = []
      const started = yield* Deferred.make<void>()
      const { session } = yield* countedSession(() => hanging(started, log, 1_000), events)
      const run = yield* Effect.forkChild(session.run("go"))
      yield* Deferred.await(started)
      yield* TestClock.adjust(2_000)
      const interrupting = yield* Effect.forkChild(interruptedNow(run))
      yield* TestClock.adjust(999)
      assert.isUndefined(run.pollUnsafe())
      yield* TestClock.adjust(1)
      yield* Fiber.join(interrupting)
      assert.deepStrictEqual(log, ["call released"])
      assert.notInclude(types(events), "retry_scheduled")
    })
  )

  it.effect("a timed-out call with no finalizer: the retry's sleep is interruptible", () =>
    Effect.gen(function* () {
      const events: Array<KernelEvent.KernelEvent> = []
      const { session, calls } = yield* countedSession(() => Effect.never, events)
      const run = yield* Effect.forkChild(session.run("go"))
      yield* TestClock.adjust(2_000) // the attempt times out; its retry sleeps 500 ms
      assert.include(types(events), "retry_scheduled")
      yield* interruptedNow(run)
      assert.deepStrictEqual(runEnded(events), ["interrupted"])
      assert.strictEqual(calls(), 1)
    })
  )

  it.effect("an auth error that lands after the timeout is reported as the auth error, not retried as a timeout", () =>
    Effect.gen(function* () {
      let calls = 0
      // A provider that cannot be cut mid-request (an uninterruptible region), which answers 401 after 2 s.
      const provider = ModelProvider.fromGenerate("p", (request) =>
        Effect.uninterruptible(
          Effect.andThen(
            Effect.sync(() => calls++),
            Effect.andThen(
              Effect.sleep("2 seconds"),
              Effect.fail(new ModelError.AuthError({ provider: "p", model: request.model, message: "bad key" }))
            )
          )
        )
      )
      const session = yield* Session.make({
        model: "m",
        settings: { ...Settings.defaults, model_attempt_timeout_ms: 1_000, jitter: "none" }
      }).pipe(Effect.provideService(ModelProvider.ModelProvider, provider))
      const outcome = yield* TestClockDriver.run(session.run("go"))
      // A failure that lands late is the provider's answer: a Timeout would turn the 401 into a transient error.
      assert.strictEqual(outcome.error?.category, "auth_error")
      assert.strictEqual(calls, 1)
    })
  )
})

describe("the attempt timeout leaves out the time observers held the call up", () => {
  // One delta at 50 ms, then nothing; an observer holds the stream up over the delta. Budget 100 ms.
  for (const { holdMs, timesOut, when } of [
    { holdMs: 45, timesOut: 145, when: "ended before the bound" },
    { holdMs: 55, timesOut: 155, when: "in progress at the bound" },
    { holdMs: 105, timesOut: 205, when: "in progress past the bound's first rest" }
  ])
    it.effect(`a hold ${when}: the call times out exactly at 100 ms of its own time (at ${timesOut} ms)`, () =>
      Effect.gen(function* () {
        const ended: Array<number> = []
        const provider = ModelProvider.make("p", () =>
          Stream.concat(
            Stream.fromEffect(
              Effect.as(Effect.sleep(50), { type: "text_delta", index: 0, text: "Hi" } as ResponsePart.ResponsePart)
            ),
            Stream.never
          )
        )
        const bus = EventBus.of([
          {
            onEvent: (event) =>
              event.type === "text_delta"
                ? Effect.sleep(holdMs)
                : event.type === "run_ended"
                  ? Effect.sync(() => ended.push(event.at))
                  : Effect.void
          }
        ])
        const session = yield* Session.make({ model: "m", settings: { ...settingsWith(100), max_retries: 0 } }).pipe(
          Effect.provideService(ModelProvider.ModelProvider, provider),
          Effect.provideService(EventBus.EventBus, bus)
        )
        const run = yield* Effect.forkChild(session.run("go"))
        yield* TestClock.adjust(timesOut - 1)
        expect(ended).toEqual([])
        yield* TestClock.adjust(1)
        expect(ended).toEqual([timesOut])
        const outcome = yield* Fiber.join(run)
        expect(outcome.error?.category).toBe("timeout")
      })
    )
})
