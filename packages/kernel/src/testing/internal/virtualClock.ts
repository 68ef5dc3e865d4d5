import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

/**
 * A clock for one sequential fiber: `sleep` moves virtual time forward at
 * once. It sees the same instants `TestClock` would for a program that never
 * sleeps on two fibers at a time (the simulated loop), without the real timer
 * ticks `TestClock` spends per sleep waiting for fibers to suspend (about 8 ms,
 * which a thousand-seed simulation cannot afford).
 *
 * @internal
 */
export const make = (start = 0): Clock.Clock => {
  let now = start
  const millis = Effect.sync(() => now)
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => now,
    currentTimeMillis: millis,
    unsafeCurrentTimeNanos: () => BigInt(Math.floor(now * 1_000_000)),
    currentTimeNanos: Effect.sync(() => BigInt(Math.floor(now * 1_000_000))),
    sleep: (duration) =>
      Effect.sync(() => {
        // Same arithmetic as TestClock (instant + millis), so instants match to the last bit.
        const end = now + Duration.toMillis(duration)
        if (end > now) now = end
      })
  }
}
