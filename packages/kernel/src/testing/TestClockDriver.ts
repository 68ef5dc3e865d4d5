/**
 * Runs an effect that sleeps on the Clock to completion under `TestClock`,
 * moving virtual time exactly to each pending wake-up in turn. The effect sees
 * the same instants it would in real time, and the test takes none.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/testing/TestClock"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * Only wake-ups at most this far ahead are taken. Sleeps beyond it (the
   * timeouts of a request in flight on a real socket, say) are left alone, so
   * the clock never jumps past real I/O. Default: no limit.
   */
  readonly horizon?: Duration.Input | undefined
  /** How many times to yield before moving the clock, so a computing fiber reaches its next sleep. Default 8. */
  readonly yields?: number | undefined
}

/**
 * The clock the driven effect sees: the TestClock, with every sleep in
 * flight noted by the instant it ends, so the driver knows the next one.
 */
const recording = (clock: Clock.Clock, ends: Array<number>): Clock.Clock => ({
  currentTimeMillisUnsafe: () => clock.currentTimeMillisUnsafe(),
  currentTimeMillis: clock.currentTimeMillis,
  currentTimeNanosUnsafe: () => clock.currentTimeNanosUnsafe(),
  currentTimeNanos: clock.currentTimeNanos,
  monotonicTimeNanosUnsafe: () => clock.monotonicTimeNanosUnsafe(),
  monotonicTimeNanos: clock.monotonicTimeNanos,
  sleep: (duration) =>
    Effect.suspend(() => {
      const end = clock.currentTimeMillisUnsafe() + Duration.toMillis(duration)
      ends.push(end)
      return Effect.ensuring(
        clock.sleep(duration),
        Effect.sync(() => ends.splice(ends.indexOf(end), 1))
      )
    })
})

// One real event-loop turn, so that sockets and processes the effect waits on make progress.
const eventLoopTurn = Effect.callback<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

/**
 * Forks the effect, then, until it is done, lets it run and sets the
 * TestClock to the earliest wake-up in flight within the horizon. Use inside
 * `it.effect`, where the TestClock is installed.
 *
 * @example
 * ```ts
 * import { it } from "@effect/vitest"
 * import { TestClockDriver } from "@agent-kernel/kernel/testing"
 * import { Effect } from "effect"
 *
 * it.effect("sleeps an hour in no time", () =>
 *   TestClockDriver.run(Effect.sleep("1 hour")))
 * ```
 *
 * @since 0.1.0
 * @category running
 */
export const run = <A, E, R>(effect: Effect.Effect<A, E, R>, options: Options = {}): Effect.Effect<A, E, R> =>
  Effect.gen(function* () {
    const horizon = options.horizon === undefined ? Number.POSITIVE_INFINITY : Duration.toMillis(options.horizon)
    const yields = options.yields ?? 8
    const clock = yield* Clock.Clock
    const ends: Array<number> = []
    const fiber = yield* Effect.forkChild(Effect.provideService(effect, Clock.Clock, recording(clock, ends)))
    while (true) {
      for (let i = 0; i < yields; i++) yield* Effect.yieldNow
      yield* eventLoopTurn
      if (fiber.pollUnsafe() !== undefined) break
      const now = clock.currentTimeMillisUnsafe()
      const next = ends.reduce(
        (earliest, end) => (end > now && end - now <= horizon && end < earliest ? end : earliest),
        Infinity
      )
      if (Number.isFinite(next)) yield* TestClock.setTime(next)
    }
    return yield* Fiber.join(fiber)
  })
