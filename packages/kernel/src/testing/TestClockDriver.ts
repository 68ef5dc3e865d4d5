/**
 * Runs an effect that sleeps on the Clock to completion under `TestClock`,
 * moving virtual time exactly to each pending wake-up in turn. The effect sees
 * the same instants it would in real time, and the test takes none.
 *
 * @since 0.1.0
 */
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"

/**
 * Forks the effect, then, until it is done, sets the TestClock to the
 * earliest pending sleep (or yields while the effect computes). Use inside
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
export const run = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.gen(function* () {
    const fiber = yield* Effect.fork(effect)
    while (Option.isNone(yield* Fiber.poll(fiber))) {
      const pending = yield* TestClock.sleeps()
      const next = Chunk.head(pending)
      if (Option.isSome(next)) yield* TestClock.setTime(next.value)
      else yield* Effect.yieldNow()
    }
    return yield* Fiber.join(fiber)
  })
