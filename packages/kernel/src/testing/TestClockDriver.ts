/**
 * Runs an effect that sleeps on the Clock to completion under `TestClock`,
 * moving virtual time exactly to each pending wake-up in turn. The effect sees
 * the same instants it would in real time, and the test takes none.
 *
 * @since 0.1.0
 */
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"

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
  readonly horizon?: Duration.DurationInput | undefined
  /** How many times to yield before moving the clock, so a computing fiber reaches its next sleep. Default 8. */
  readonly yields?: number | undefined
}

/**
 * Forks the effect, then, until it is done, lets it run and sets the
 * TestClock to the earliest pending wake-up within the horizon. Use inside
 * `it.effect`, where the TestClock is installed.
 *
 * TestClock keeps the sleeps of interrupted fibers until their time passes;
 * yielding before every move lets the effect reach its own next sleep, so a
 * stale wake-up is only taken when the effect is waiting anyway.
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
    const fiber = yield* Effect.fork(effect)
    while (true) {
      for (let i = 0; i < yields; i++) yield* Effect.yieldNow()
      // One real event-loop turn too, so that sockets and processes the effect waits on make progress.
      yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
      if (Option.isSome(yield* Fiber.poll(fiber))) break
      const now = yield* Clock.currentTimeMillis
      const next = Chunk.findFirst(yield* TestClock.sleeps(), (at) => at > now && at - now <= horizon)
      if (Option.isSome(next)) yield* TestClock.setTime(next.value)
    }
    return yield* Fiber.join(fiber)
  })
