/**
 * Waiting in event-loop turns, not virtual time, for the durable tests: the
 * SQL drivers answer on the event loop, which the TestClock does not move.
 */
import * as Effect from "effect/Effect"

/** One event-loop turn: a fiber yield, then a `setImmediate`. */
const turn = Effect.andThen(
  Effect.yieldNow,
  Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
)

/**
 * `n` event-loop turns: room for whatever would happen next (a resumed run's SQL and fibers) to
 * happen before a test checks that it did not. The local SQLite driver answers within a turn or two.
 */
export const turns = (n: number): Effect.Effect<void> =>
  Effect.forEach(Array.from({ length: n }), () => turn, { discard: true })

/**
 * The least real time `settle` spins before it gives up, whatever its count of turns: what a check
 * waits for may be on another thread (effect/workflow hashes an execution's id with
 * `crypto.subtle.digest`, on libuv's thread pool), which a loaded machine can keep from running for
 * longer than thousands of turns take. Generous, as for a real process, and within vitest's 60 s test timeout: only a check
 * that never holds waits it out.
 */
export const settleFloorMillis = 20_000

/**
 * Event-loop turns until `check` holds: `true` once it does, `false` once `limit` turns and
 * `floorMillis` of real time (`settleFloorMillis` unless told) have both passed without it.
 */
export const holds = <E, R>(
  check: Effect.Effect<boolean, E, R>,
  limit = 5_000,
  floorMillis = settleFloorMillis
): Effect.Effect<boolean, E, R> =>
  Effect.gen(function* () {
    const start = performance.now()
    for (let n = 0; ; n++) {
      if (yield* check) return true
      if (n >= limit && performance.now() - start >= floorMillis) return false
      yield* turn
    }
  })

/**
 * Event-loop turns until `check` holds; a defect once `limit` turns and `settleFloorMillis` of real
 * time have both passed.
 */
export const settle = <E, R>(check: Effect.Effect<boolean, E, R>, limit = 5_000): Effect.Effect<void, E, R> =>
  Effect.flatMap(holds(check, limit), (held) => (held ? Effect.void : Effect.die(new Error("never settled"))))
