/**
 * Review of perf4 (71e553e, afe2993, 3caeacd): probes of the live-clock attempt timer.
 * These run on the real clock on purpose: the code under review takes its setTimeout path only on
 * Effect's live clock, so no TestClock test reaches it.
 */
import {
  EventBus,
  type KernelEvent,
  ModelError,
  ModelProvider,
  type ResponsePart,
  Session,
  Settings
} from "@agent-kernel/kernel"
import { ScriptedModel, TestClockDriver } from "@agent-kernel/kernel/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as Meter from "../src/internal/meter.js"

const TEXT = "0123456789"
const parts: ReadonlyArray<ResponsePart.ResponsePart> = [
  ...Array.from(TEXT, (char): ResponsePart.ResponsePart => ({ type: "text_delta", index: 0, text: char })),
  { type: "usage", usage: { input_tokens: 10, output_tokens: TEXT.length } },
  { type: "finish", stop_reason: "end_turn" }
]
const untilEnded = (events: Stream.Stream<KernelEvent.KernelEvent>) =>
  Stream.takeUntil(events, (event) => event.type === "run_ended")

/**
 * The timers armed through the global `setTimeout` while the scope is open, and not yet fired or cleared: the
 * kernel's attempt timer and the live clock's sleeps arm theirs there. Not the process's timers
 * (`process.getActiveResourcesInfo`): those include vitest's own, whose task-update throttle is armed as a test
 * starts and fires 100 ms later, so on a loaded machine it fired within the test and the count dropped by one
 * ("expected +0 to be 1"). Vitest keeps its timers to the ones it saved at startup, so none is counted here.
 */
const trackedTimers = Effect.acquireRelease(
  Effect.sync(() => {
    const { setTimeout: set, clearTimeout: clear } = globalThis
    const pending = new Set<unknown>()
    const tracked = <Args extends Array<unknown>>(
      callback: (...args: Args) => void,
      ms?: number,
      ...args: Args
    ): NodeJS.Timeout => {
      const handle = set(() => {
        pending.delete(handle)
        callback(...args)
      }, ms)
      pending.add(handle)
      return handle
    }
    globalThis.setTimeout = Object.assign(tracked, { __promisify__: set.__promisify__ })
    globalThis.clearTimeout = (handle) => {
      pending.delete(handle)
      clear(handle)
    }
    const restore = () => {
      globalThis.setTimeout = set
      globalThis.clearTimeout = clear
    }
    return { armed: () => pending.size, restore }
  }),
  ({ restore }) => Effect.sync(restore)
)

describe("perf4 review: live-clock attempt timer", () => {
  it.live("a slow subscriber does not make the attempt time out (live clock)", () =>
    Effect.gen(function* () {
      const provider = ModelProvider.make("streaming", () => Stream.fromIterable(parts))
      const session = yield* Session.make({
        model: "m",
        settings: { ...Settings.defaults, model_attempt_timeout_ms: 2_000 },
        subscriberCapacity: Session.SubscriberCapacity.make(2)
      }).pipe(Effect.provideService(ModelProvider.ModelProvider, provider))
      const outcome = yield* Effect.scoped(
        Effect.gen(function* () {
          const events = yield* session.subscribe
          // 250 ms an event: ~3.5 s of reading, well over the 2 s timeout, for an answer the model streams
          // at once (only a stall of the whole process over 2 s could make the model's own time reach it).
          yield* Effect.fork(Stream.runDrain(Stream.tap(untilEnded(events), () => Effect.sleep("250 millis"))))
          return yield* session.run("hello")
        })
      )
      expect(outcome.status).toBe("completed")
      expect(outcome.retries.session_total).toBe(0)
      expect(outcome.final_text).toBe(TEXT)
    })
  )

  it.live("a stalled model still times out after timeout + held (live clock)", () =>
    Effect.gen(function* () {
      const stalled = ModelProvider.make("stalled", () =>
        Stream.concat(
          Stream.succeed<ResponsePart.ResponsePart>({ type: "text_delta", index: 0, text: "Hi" }),
          Stream.never
        )
      )
      const session = yield* Session.make({
        model: "m",
        settings: { ...Settings.defaults, model_attempt_timeout_ms: 100, max_retries: 0 }
      }).pipe(
        Effect.provideService(ModelProvider.ModelProvider, stalled),
        Effect.provideService(
          EventBus.EventBus,
          EventBus.of([
            { onEvent: (event) => (event.type === "text_delta" ? Effect.sleep("200 millis") : Effect.void) }
          ])
        )
      )
      const started = Date.now()
      const outcome = yield* session.run("hello")
      const took = Date.now() - started
      expect(outcome.error?.category).toBe("timeout")
      expect(took).toBeGreaterThanOrEqual(295)
      // A ceiling, not a measurement: without the timeout the run would never end.
      expect(took).toBeLessThan(30_000)
    })
  )

  it.scopedLive("no timer is left armed after a call that suspended and answered, nor after an interrupted run", () =>
    Effect.gen(function* () {
      const { armed } = yield* trackedTimers
      const answer = ScriptedModel.text("late")
      const slowOnce = ModelProvider.fromGenerate("p", () => Effect.as(Effect.sleep("5 millis"), answer))
      const session = yield* Session.make({ model: "m" }).pipe(
        Effect.provideService(ModelProvider.ModelProvider, slowOnce)
      )
      const outcome = yield* session.run("go")
      expect(outcome.status).toBe("completed")
      expect(armed()).toBe(0)
      const hung = yield* Session.make({ model: "m" }).pipe(
        Effect.provideService(
          ModelProvider.ModelProvider,
          ModelProvider.fromGenerate("p", () => Effect.never)
        )
      )
      const fiber = yield* Effect.fork(hung.run("go"))
      yield* Effect.sleep("20 millis")
      expect(armed()).toBeGreaterThan(0)
      yield* Fiber.interrupt(fiber)
      expect(armed()).toBe(0)
    })
  )

  it.live("a user's own clock (neither live nor TestClock, here 10x fast) still bounds the attempt", () =>
    Effect.gen(function* () {
      const live = yield* Effect.clock
      const fast: Clock.Clock = {
        [Clock.ClockTypeId]: Clock.ClockTypeId,
        unsafeCurrentTimeMillis: () => live.unsafeCurrentTimeMillis(),
        currentTimeMillis: live.currentTimeMillis,
        unsafeCurrentTimeNanos: () => live.unsafeCurrentTimeNanos(),
        currentTimeNanos: live.currentTimeNanos,
        sleep: (duration) => live.sleep(Duration.millis(Duration.toMillis(duration) / 10))
      }
      const session = yield* Session.make({
        model: "m",
        settings: { ...Settings.defaults, model_attempt_timeout_ms: 10_000, max_retries: 0 }
      }).pipe(
        Effect.provideService(
          ModelProvider.ModelProvider,
          ModelProvider.fromGenerate("p", () => Effect.never)
        )
      )
      const started = Date.now()
      const outcome = yield* Effect.withClock(session.run("go"), fast)
      expect(outcome.error?.category).toBe("timeout")
      // The user's clock's sleep (1 s real) governs, as it did before perf4; the live clock would take 10 s.
      expect(Date.now() - started).toBeLessThan(9_000)
    })
  )
})

describe("perf4 review: the shared meter", () => {
  it("is one per provider name, shared by the sessions of every provider object of that name", () => {
    // Providers made per session (a common shape) still share one meter: an idle session holds none.
    expect(Meter.forProvider("tenant-1")).toBe(Meter.forProvider("tenant-1"))
    expect(Meter.forProvider("tenant-2")).not.toBe(Meter.forProvider("tenant-1"))
  })
})

describe("perf4 review (pre-existing in settle): a call's own failure after its timeout fired", () => {
  it.effect("an auth error that lands after the deadline is reported as the auth error, not retried as a timeout", () =>
    Effect.gen(function* () {
      let calls = 0
      // A provider that cannot be cut mid-request (an uninterruptible region), which answers 401 after 2 s.
      const provider = ModelProvider.fromGenerate("p", (request) =>
        Effect.uninterruptible(
          Effect.zipRight(
            Effect.sync(() => calls++),
            Effect.zipRight(
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
      // A success that lands late is kept (settle's comment); a failure that lands late is replaced by
      // Timeout, a transient category: the 401 is retried, each retry charged to the budget.
      expect(outcome.error?.category).toBe("auth_error")
      expect(calls).toBe(1)
    })
  )
})
